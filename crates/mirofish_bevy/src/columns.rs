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
use bevy::ecs::query::ArchetypeFilter;
use bevy::prelude::*;
use mirofish_sim::space::Swarm;
use mirofish_sim::{SlotOrder, Vector};
use rayon::prelude::*;

use crate::components::{FishId, Position, PreviousPosition, Steering, Velocity, WanderPhase};
use crate::fish_entities::FishEntities;

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

/// What [`write_back_fish`] writes of a fish in a space of `V`s, with the
/// entity and [`FishId`] that find its fish.
pub(crate) type FishWrite<V> = (
    Entity,
    &'static FishId,
    &'static mut Position<V>,
    &'static mut PreviousPosition<V>,
    &'static mut Velocity<V>,
    &'static mut Steering<V>,
    &'static mut WanderPhase,
);

/// Writes the tick's result from `flock` back to the fish entities, in
/// either space, a table column at a time in pieces on rayon's pool (the
/// core's): each entity reads its own fish's row by its [`FishId`], no
/// lookup of an entity per fish, and a piece whose entities show a run of
/// fish in id order (the usual case, with the fish stored by id) is copied
/// slice to slice. An entity the core does not know as its fish's
/// (spawned since the tick began, or with another fish's copied id) is
/// left alone. Every fish entity is marked changed (the columns are
/// borrowed whole). `false` if the query is not dense (not expected:
/// every component it reads is stored in tables).
pub(crate) fn write_back_fish<V: Vector, F: ArchetypeFilter>(
    flock: &Swarm<V>,
    entities: &FishEntities,
    fish: &mut Query<FishWrite<V>, F>,
) -> bool {
    let (slots, positions, velocities) = (flock.slots(), flock.positions(), flock.velocities());
    let phases = flock.wander_phases();
    let by_id = flock.slot_order() == SlotOrder::Stable;
    let Ok(tables) = fish.contiguous_iter_mut() else {
        return false;
    };
    for (found, ids, mut p, mut prev, mut v, mut s, mut w) in tables {
        let columns = (
            p.par_chunks_mut(COLUMN_CHUNK),
            prev.par_chunks_mut(COLUMN_CHUNK),
            v.par_chunks_mut(COLUMN_CHUNK),
            s.par_chunks_mut(COLUMN_CHUNK),
            w.par_chunks_mut(COLUMN_CHUNK),
        );
        let rows = (found.par_chunks(COLUMN_CHUNK), ids.par_chunks(COLUMN_CHUNK));
        rows.into_par_iter().zip(columns.into_par_iter()).for_each(|((found, ids), (p, prev, v, s, w))| {
            let first = ids.first().and_then(|id| id.get()).unwrap_or(u32::MAX) as usize;
            let run = first..first.saturating_add(found.len());
            if by_id && entities.by_id().get(run.clone()) == Some(found) {
                // Slots are ids: the piece's fish are a run of slots.
                let (new_p, new_v, new_w) = (&positions[run.clone()], &velocities[run.clone()], &phases[run]);
                for ((p, prev), new_p) in p.iter_mut().zip(prev).zip(new_p) {
                    // A position game code made non-finite is not worth
                    // remembering: the repaired one stands in.
                    prev.0 = if p.0.is_finite() { p.0 } else { *new_p };
                    p.0 = *new_p;
                }
                v.iter_mut().zip(new_v).for_each(|(v, new_v)| v.0 = *new_v);
                w.iter_mut().zip(new_w).for_each(|(w, new_w)| w.0 = *new_w);
                for (k, s) in s.iter_mut().enumerate() {
                    s.0 = flock.steering_at(first + k).unwrap_or_default();
                }
                return;
            }
            let fish = found.iter().zip(ids).zip(p.iter_mut().zip(prev)).zip(v.iter_mut().zip(s).zip(w));
            for (((&entity, &id), (p, prev)), ((v, s), w)) in fish {
                let Some(id) = entities.id_of(entity, id) else { continue };
                let slot = slots[id as usize] as usize;
                prev.0 = if p.0.is_finite() { p.0 } else { positions[slot] };
                p.0 = positions[slot];
                v.0 = velocities[slot];
                s.0 = flock.steering_at(slot).unwrap_or_default();
                w.0 = phases[slot];
            }
        });
    }
    true
}
