//! Copies between the ECS's table columns and the flock's arrays.
//!
//! Bevy stores the fish's components in tables, one column per component;
//! the core keeps one array per quantity. The write-back and the
//! interpolation copy a whole column at a time (Bevy's contiguous queries)
//! rather than an item per fish: at 100k fish the per-entity queries were
//! most of the plugin's cost over the core's tick; they run in pieces on
//! rayon's pool, the one the core's passes use (on a 2-core machine Bevy's
//! compute pool has a single thread). The gather walks the columns' change
//! ticks and copies only the rows a game wrote.

use bevy::ecs::change_detection::{ContiguousRef, MAX_CHANGE_AGE, Tick};

/// Rows per parallel work item when copying a table column: enough to
/// amortise the hand-off, few enough to share 100k rows among many threads.
pub(crate) const COLUMN_CHUNK: usize = 4096;

/// `each(row, &from[row])` for every row of `from` changed after `since`
/// (see [`for_each_changed`]).
pub(crate) fn copy_changed<B>(from: ContiguousRef<B>, since: Tick, mut each: impl FnMut(usize, &B)) {
    let (now, changed) = (from.this_run_tick(), from.changed_ticks_slice());
    let from = from.into_inner();
    for_each_changed([changed], since, now, |row| each(row, &from[row]));
}

/// Calls `each(row)` for every row whose change tick in any of `columns`
/// is newer than `since` (by a system that ran after the one at `since`;
/// `now` is the caller's own tick): what a game wrote since the plugin's
/// own write at `since`. On this thread: reading 100k ticks costs less
/// than handing them to a pool. The columns have the same length.
pub(crate) fn for_each_changed<const N: usize>(
    columns: [&[Tick]; N],
    since: Tick,
    now: Tick,
    mut each: impl FnMut(usize),
) {
    // `Tick::is_newer_than(since, now)`, with the part that does not
    // depend on the row taken out of the loop.
    let now = now.get();
    let since = now.wrapping_sub(since.get()).min(MAX_CHANGE_AGE);
    let newer = |changed: &Tick| now.wrapping_sub(changed.get()).min(MAX_CHANGE_AGE) < since;
    let rows = columns.first().map_or(0, |c| c.len());
    for start in (0..rows).step_by(64) {
        let piece = start..(start + 64).min(rows);
        // Most pieces hold no change: one look over their ticks, without a
        // branch per row, passes them.
        let any = columns.iter().any(|c| c[piece.clone()].iter().fold(false, |any, t| any | newer(t)));
        if any {
            for row in piece.filter(|&row| columns.iter().any(|c| newer(&c[row]))) {
                each(row);
            }
        }
    }
}
