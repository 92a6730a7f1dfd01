//! The systems of one fixed tick: gather, the core's five passes, write-back.
//!
//! Each system is a thin call into [`mirofish_sim::Flock`]; the work happens
//! on its contiguous arrays, not through per-entity lookups.

use bevy::prelude::*;

use crate::components::{Boid, Leader, Position, PreviousPosition, Steering, Velocity, WanderPhase};
use crate::config::FlockConfig;
use crate::state::FlockState;

/// Applies a changed configuration if it is valid, then copies every fish
/// into the flock's arrays in query order.
pub(crate) fn gather(
    config: Res<FlockConfig>,
    mut state: ResMut<FlockState>,
    fish: Query<(Entity, &Position, &Velocity, &WanderPhase, Has<Leader>), With<Boid>>,
) {
    let state = &mut *state;
    if config.is_changed() && *config != state.active {
        match config.validate() {
            Ok(()) => {
                state.active = *config;
                state.rejected = None;
            }
            Err(err) => {
                if state.rejected.as_ref() != Some(&err) {
                    log::warn!("MiroFish: keeping the last valid flock configuration: {err}");
                }
                state.rejected = Some(err);
            }
        }
    }
    state.flock.clear();
    state.entities.clear();
    for (entity, position, velocity, phase, leads) in &fish {
        let slot = state.flock.push(position.0, velocity.0, phase.0);
        if leads {
            state.flock.set_leader(slot, true);
        }
        state.entities.push(entity);
    }
}

/// Pass 1: the neighbour grid.
pub(crate) fn rebuild_index(mut state: ResMut<FlockState>) {
    let state = &mut *state;
    state.flock.rebuild_index(&state.active.params, &state.active.tank);
}

/// Pass 2: the rules, in parallel.
pub(crate) fn accumulate_forces(mut state: ResMut<FlockState>) {
    let state = &mut *state;
    state.flock.accumulate_forces(&state.active.params, &state.active.tank);
}

/// Pass 3: one clamp of the total.
pub(crate) fn clamp_forces(mut state: ResMut<FlockState>) {
    let state = &mut *state;
    state.flock.clamp_forces(&state.active.params);
}

/// Pass 4: semi-implicit Euler with the fixed time step.
pub(crate) fn integrate(mut state: ResMut<FlockState>, time: Res<Time<Fixed>>) {
    let state = &mut *state;
    state.flock.integrate(&state.active.params, time.timestep().as_secs_f32());
}

/// Pass 5: the walls.
pub(crate) fn apply_boundary(mut state: ResMut<FlockState>) {
    let state = &mut *state;
    state.flock.apply_boundary(&state.active.tank);
}

/// Writes the tick's result back to the entities gathered at its start.
pub(crate) fn write_back(
    state: Res<FlockState>,
    mut fish: Query<
        (Entity, &mut Position, &mut PreviousPosition, &mut Velocity, &mut Steering, &mut WanderPhase),
        With<Boid>,
    >,
) {
    let flock = &state.flock;
    let write = |slot: usize, (mut p, mut prev, mut v, mut s, mut w): Parts<'_>| {
        prev.0 = p.0;
        p.0 = flock.positions()[slot];
        v.0 = flock.velocities()[slot];
        s.0 = flock.steering()[slot];
        w.0 = flock.wander_phases()[slot];
    };
    // The query visits entities in the order `gather` saw them unless the
    // world changed shape in between; then fall back to lookups.
    let mut in_order = fish.iter().len() == state.entities.len();
    if in_order {
        for (slot, (entity, p, prev, v, s, w)) in fish.iter_mut().enumerate() {
            if entity != state.entities[slot] {
                in_order = false;
                break;
            }
            write(slot, (p, prev, v, s, w));
        }
    }
    if !in_order {
        for (slot, &entity) in state.entities.iter().enumerate() {
            if let Ok((_, p, prev, v, s, w)) = fish.get_mut(entity) {
                write(slot, (p, prev, v, s, w));
            }
        }
    }
}

type Parts<'a> = (
    Mut<'a, Position>,
    Mut<'a, PreviousPosition>,
    Mut<'a, Velocity>,
    Mut<'a, Steering>,
    Mut<'a, WanderPhase>,
);
