//! Copies between the ECS's table columns and the flock's arrays.
//!
//! Bevy stores the fish's components in tables, one column per component;
//! the core keeps one array per quantity. The gather, the write-back and
//! the interpolation copy a whole column at a time (Bevy's contiguous
//! queries) rather than an item per fish: at 100k fish the per-entity
//! queries were most of the plugin's cost over the core's tick. The pieces
//! run on rayon's pool, the one the core's passes use: on a 2-core machine
//! Bevy's compute pool has a single thread.

use core::panic::Location;

use bevy::ecs::change_detection::ContiguousMut;
use rayon::prelude::*;

/// Rows per parallel work item when copying a table column: enough to
/// amortise the hand-off, few enough to share 100k rows among many threads.
pub(crate) const COLUMN_CHUNK: usize = 4096;

/// `write(&mut to[i], &from[i])` for every row, in pieces on rayon's pool.
/// `to` and `from` have the same length.
pub(crate) fn copy_column<A: Send, B: Sync>(to: &mut [A], from: &[B], write: impl Fn(&mut A, &B) + Sync) {
    debug_assert_eq!(to.len(), from.len());
    to.par_chunks_mut(COLUMN_CHUNK).zip(from.par_chunks(COLUMN_CHUNK)).for_each(|(to, from)| {
        for (to, from) in to.iter_mut().zip(from) {
            write(to, from);
        }
    });
}

/// Writes `value` into `row` of a table column, marking that row (only)
/// changed, as writing through a `Mut` would.
#[track_caller]
pub(crate) fn set_row<T>(column: &mut ContiguousMut<T>, row: usize, value: T) {
    let tick = column.this_run_tick();
    column.bypass_change_detection()[row] = value;
    column.changed_ticks_slice_mut()[row] = tick;
    let caller = Location::caller();
    column.changed_by_ticks_slice_mut().map(|by| by[row] = caller);
}
