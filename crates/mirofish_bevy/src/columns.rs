//! Copies between the ECS's table columns and the flock's arrays.
//!
//! Bevy stores the fish's components in tables, one column per component;
//! the core keeps one array per quantity. The write-back and the
//! interpolation copy a whole column at a time (Bevy's contiguous queries)
//! rather than an item per fish: at 100k fish the per-entity queries were
//! most of the plugin's cost over the core's tick. The gather walks the
//! columns' change ticks and copies only the rows a game wrote. The pieces
//! run on rayon's pool, the one the core's passes use: on a 2-core machine
//! Bevy's compute pool has a single thread.

use core::panic::Location;

use bevy::ecs::change_detection::{ContiguousMut, ContiguousRef, MAX_CHANGE_AGE, Tick};

/// Rows per parallel work item when copying a table column: enough to
/// amortise the hand-off, few enough to share 100k rows among many threads.
pub(crate) const COLUMN_CHUNK: usize = 4096;

/// `write(&mut to[i], &from[i])` for every row of `from` changed after
/// `since` (by the tick of a system that ran later): what a game wrote
/// since the plugin's own write at `since`. Only the change ticks of the
/// rows left alone are read, on this thread (handing 100k ticks to the
/// pool would cost more than reading them). `to` and `from` have the same
/// length.
pub(crate) fn copy_changed<A: Send, B: Sync>(
    to: &mut [A],
    from: ContiguousRef<B>,
    since: Tick,
    write: impl Fn(&mut A, &B) + Sync,
) {
    let (now, changed) = (from.this_run_tick().get(), from.changed_ticks_slice());
    let from = from.into_inner();
    debug_assert_eq!(to.len(), from.len());
    // `Tick::is_newer_than(since, now)`, with the part that does not
    // depend on the row taken out of the loop.
    let since = now.wrapping_sub(since.get()).min(MAX_CHANGE_AGE);
    let newer = |changed: &Tick| now.wrapping_sub(changed.get()).min(MAX_CHANGE_AGE) < since;
    let rows = to.chunks_mut(64).zip(from.chunks(64)).zip(changed.chunks(64));
    for ((to, from), changed) in rows {
        // Most pieces hold no change: one look over their ticks, without a
        // branch per row, passes them.
        if !changed.iter().fold(false, |any, changed| any | newer(changed)) {
            continue;
        }
        for ((to, from), changed) in to.iter_mut().zip(from).zip(changed) {
            if newer(changed) {
                write(to, from);
            }
        }
    }
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
