//! The systems of one fixed tick: gather, the core's stages, write-back.
//!
//! Each stage is a thin call into the core's school
//! ([`mirofish_sim::Simulation`], run stage by stage with
//! [`run_to`](mirofish_sim::space::Swarm::run_to)); the work happens on
//! its contiguous arrays, not through per-entity lookups.

use bevy::ecs::system::SystemChangeTick;
use bevy::prelude::*;

use mirofish_sim::space::TickStage;

use crate::columns::{FishWrite, copy_changed, write_back_fish};

use crate::components::{
    ExtraSteering, FishGroup, FishId, Leader, Position, PreviousPosition, Steering, Velocity, WanderPhase,
};
use crate::config::FlockConfigOf;
use crate::fish_entities::{self, FishParts, FishQueries};
use crate::refusals::{self, FlockRefusal, FlockRefusals, Refused};
use crate::space::Space;
use crate::state::FlockState;

/// Which entities are fish: the space's marker ([`Space::Boid`]) with
/// every component the tick reads or writes. A fish that loses one (game
/// code removed it) leaves the core whole at the next tick, and rejoins
/// when it is put back, rather than staying half in: gathered but never
/// written back.
pub(crate) type InSchool<V> =
    (With<<V as Space>::Boid>, With<FishId>, With<PreviousPosition<V>>, With<Steering<V>>);

/// The components whose loss takes a fish out of the core, and whose
/// arrival may make an entity one: [`InSchool`]'s and [`FishParts`]'.
pub(crate) type FishComponents<V> =
    (<V as Space>::Boid, FishId, Position<V>, Velocity<V>, WanderPhase, PreviousPosition<V>, Steering<V>);

/// Takes the fish whose entities went out of the core and those a game
/// spawned into it (the fish that take freed ids keep their entities,
/// renumbered; the new ones join under the next ids, in the order they
/// arrived, in the first school unless they carry a [`School`]), then
/// what a game wrote to the fish since the last write-back, in either
/// space.
pub(crate) fn gather_fish<V: Space>(mut state: ResMut<FlockState<V>>, mut fish: FishQueries<V, InSchool<V>>) {
    let state = &mut *state;
    if fish_entities::hand_over(&mut state.entities, &mut state.flock, &mut fish) {
        state.changed_outside_commands();
    }
    gather_written(state, &fish.p0());
}

/// Applies a changed configuration if it is valid, in either space; one
/// that is not is reported once and kept in
/// [`FlockState::rejected`](crate::FlockState::rejected) while it stays so.
pub(crate) fn gather_config<V: Space>(
    config: Res<FlockConfigOf<V>>,
    mut state: ResMut<FlockState<V>>,
    (mut refusals, mut messages): (ResMut<FlockRefusals>, MessageWriter<FlockRefusal>),
) {
    if !config.is_changed() {
        return;
    }
    let state = &mut *state;
    if *config == state.active {
        // Set back to the configuration in force: nothing to apply, and
        // nothing refused any more.
        state.rejected = None;
        return;
    }
    match config.validate() {
        Ok(()) => match config.apply(&mut state.flock) {
            Ok(()) => {
                state.active = config.clone();
                state.rejected = None;
                state.changed_outside_commands();
            }
            Err(err) => log::error!("MiroFish: a valid configuration was not taken: {err}"),
        },
        Err(err) => {
            if state.rejected.as_ref() != Some(&err) {
                let tick = state.flock.tick();
                let refusal = FlockRefusal { tick, what: Refused::Config, error: err.clone() };
                refusals::report(&mut refusals, &mut messages, refusal);
            }
            state.rejected = Some(err);
        }
    }
}

/// Copies each fish's [`FishGroup`] into the core (after the gather,
/// whose ids it reads). Without any `FishGroup` it does nothing but clear.
pub(crate) fn gather_groups<V: Space>(
    mut state: ResMut<FlockState<V>>,
    groups: Query<(Entity, &FishId, &FishGroup), InSchool<V>>,
) {
    let state = &mut *state;
    state.flock.clear_groups();
    for (entity, &id, group) in &groups {
        if let Some(id) = state.entities.id_of(entity, id) {
            // A number from `MAX_GROUPS` up is refused: no group.
            let _ = state.flock.set_group(id, Some(group.0));
        }
    }
}

/// Marks the core's leaders as the [`Leader`] markers say (after the
/// gather, whose ids it reads): a marker a game removed or added counts
/// from this tick.
pub(crate) fn gather_leaders<V: Space>(
    mut state: ResMut<FlockState<V>>,
    leaders: Query<(Entity, &FishId), (InSchool<V>, With<Leader>)>,
) {
    let state = &mut *state;
    let len = state.flock.len();
    state.flock.inputs_mut(0..len).leader.fill(false);
    for (entity, &id) in &leaders {
        if let Some(id) = state.entities.id_of(entity, id) {
            let _ = state.flock.set_leader(id, true);
        }
    }
}

/// Takes into the core what a game wrote to the fish since the last
/// write-back: the core holds the fish between ticks, so a fish nobody
/// touched costs a look at its components' change ticks, not a copy.
/// Taken as written: a position outside the tank or in a rock is brought
/// in by this tick's walls and rocks, one that is not finite put in the
/// tank's middle, a velocity that is not finite stopped (the core's
/// repair), a wander phase that is not finite counted as 0 and a school
/// beyond the table as its last.
pub(crate) fn gather_written<V: Space>(state: &mut FlockState<V>, fish: &Query<FishParts<V>, InSchool<V>>) {
    let (flock, entities, since) = (&mut state.flock, &state.entities, state.written);
    // Every component `FishParts` reads is stored in tables, so the query
    // is always dense.
    let Ok(tables) = fish.contiguous_iter() else {
        log::error!("MiroFish: the fish query is not dense; no game writes taken");
        return;
    };
    // A school beyond the table counts as its last.
    let last = flock.params().len().saturating_sub(1) as u16;
    for (entity, ids, positions, velocities, phases, schools) in tables {
        // `FishEntities::inputs_of`: the inputs of each row's fish, or
        // `None` for an entity that is not (or no longer) the fish its
        // `FishId` names.
        copy_changed(positions, since, |row, from| {
            if let Some(fish) = entities.inputs_of(flock, entity[row], ids[row]) {
                fish.position[0] = from.0;
            }
        });
        copy_changed(velocities, since, |row, from| {
            if let Some(fish) = entities.inputs_of(flock, entity[row], ids[row]) {
                fish.velocity[0] = from.0;
            }
        });
        copy_changed(phases, since, |row, from| {
            if let Some(fish) = entities.inputs_of(flock, entity[row], ids[row]) {
                fish.wander_phase[0] = from.finite();
            }
        });
        // A fish whose `School` was removed is put in the first by an
        // observer (`school_removed`).
        if let Some(schools) = schools {
            copy_changed(schools, since, |row, from| {
                if let Some(fish) = entities.inputs_of(flock, entity[row], ids[row]) {
                    fish.school[0] = from.0.min(last);
                }
            });
        }
    }
}

/// Writes the predators' new state back to their entities.
pub(crate) fn write_back_predators<V: Space>(
    state: Res<FlockState<V>>,
    mut predators: Query<
        (&mut Position<V>, &mut PreviousPosition<V>, &mut Velocity<V>),
        (With<V::Hunter>, Without<V::Boid>),
    >,
) {
    for (predator, &entity) in state.flock.scene().predators.iter().zip(&state.scene_entities.hunters) {
        if let Ok((mut p, mut prev, mut v)) = predators.get_mut(entity) {
            prev.0 = p.0;
            p.0 = predator.position;
            v.0 = predator.velocity;
        }
    }
}

/// Writes the tick's result back to the fish entities
/// ([`write_back_fish`]): a fish the tick did not take in (spawned during
/// it, or with another fish's copied id) is left alone until the next tick
/// gathers it.
pub(crate) fn write_back<V: Space>(
    mut state: ResMut<FlockState<V>>,
    mut fish: Query<FishWrite<V>, With<V::Boid>>,
    ticks: SystemChangeTick,
) {
    // The rows written here carry this run's tick: the next gather takes
    // only rows changed after it.
    state.written = ticks.this_run();
    if !write_back_fish(&state.flock, &state.entities, &mut fish) {
        log::error!("MiroFish: the fish query is not dense; nothing written back");
    }
}

/// A system running the core's tick up to `stage` (the stages before it
/// that have not run yet, then it).
pub(crate) fn stage<V: Space>(stage: TickStage) -> impl FnMut(ResMut<FlockState<V>>) {
    move |mut state: ResMut<FlockState<V>>| state.flock.run_to(stage)
}

/// Before the rules' clamp: every fish's game force handed to the core,
/// which adds it to the fish's steering and clamps the sum.
pub(crate) fn add_extra_steering<V: Space>(
    mut state: ResMut<FlockState<V>>,
    extras: Query<(Entity, &FishId, &ExtraSteering<V>), With<V::Boid>>,
) {
    let state = &mut *state;
    for (entity, &id, force) in &extras {
        // A fish not taken in this tick, or with another fish's copied id,
        // has none; a force that is not finite is refused by the core.
        if let Some(id) = state.entities.id_of(entity, id)
            && force.0 != V::default()
        {
            let _ = state.flock.add_steering(id, force.0);
        }
    }
}

/// Before the tick: its length, from the schedule's clock (in
/// `FixedUpdate`, the fixed time step) within the range the core accepts,
/// or the recording's while a recorded session fixes it. Set before the
/// forces, which read it too.
pub(crate) fn set_step<V: Space>(mut state: ResMut<FlockState<V>>, time: Res<Time>) {
    let dt = state.dt.unwrap_or_else(|| time.delta_secs().clamp(1.0e-6, 1.0));
    // Within the core's range by construction.
    let _ = state.flock.set_dt(dt);
}
