//! The systems of one fixed tick: gather, the core's three passes, the
//! predators, write-back.
//!
//! Each system is a thin call into [`mirofish_sim::Flock`]; the work happens
//! on its contiguous arrays, not through per-entity lookups.

use bevy::prelude::*;

use mirofish_sim as sim;

use crate::components::{
    Boid, Leader, Obstacle, Position, Predator, PreviousPosition, School, Steering, Velocity, WanderPhase,
};
use crate::config::FlockConfig;
use crate::state::FlockState;

/// Applies a changed configuration if it is valid, then copies every fish,
/// obstacle and predator into the flock's arrays in query order.
pub(crate) fn gather(
    config: Res<FlockConfig>,
    mut state: ResMut<FlockState>,
    fish: Query<(Entity, &Position, &Velocity, &WanderPhase, Has<Leader>, Option<&School>), With<Boid>>,
    obstacles: Query<(&Obstacle, &Position), Without<Boid>>,
    predators: Query<(Entity, &Predator, &Position, &Velocity), Without<Boid>>,
) {
    let state = &mut *state;
    if config.is_changed() && *config != state.active {
        match config.validate() {
            Ok(()) => {
                state.active = config.clone();
                state.schools = config.school_table();
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
    gather_scene(state, &obstacles, &predators);
    state.flock.clear();
    state.entities.clear();
    for (entity, position, velocity, phase, leads, school) in &fish {
        let slot = state.flock.push(position.0, velocity.0, phase.0);
        if leads {
            state.flock.set_leader(slot, true);
        }
        if let Some(school) = school {
            state.flock.set_school(slot, school.0);
        }
        state.entities.push(entity);
    }
}

/// Copies obstacles, predators and the configured goal and attractor into
/// the scene, dropping (with a warning) any element that is not valid.
fn gather_scene(
    state: &mut FlockState,
    obstacles: &Query<(&Obstacle, &Position), Without<Boid>>,
    predators: &Query<(Entity, &Predator, &Position, &Velocity), Without<Boid>>,
) {
    let scene = &mut state.scene;
    scene.obstacles.clear();
    scene.predators.clear();
    state.predator_entities.clear();
    scene.goal = state.active.goal;
    scene.school_goals.clone_from(&state.active.school_goals);
    scene.attractor = state.active.attractor;
    for (o, p) in obstacles {
        let obstacle = sim::Obstacle { centre: p.0, radius: o.radius };
        if valid(obstacle.validate()) {
            scene.obstacles.push(obstacle);
        }
    }
    for (entity, pr, p, v) in predators {
        let predator = sim::Predator {
            position: p.0,
            velocity: v.0,
            fear_radius: pr.fear_radius,
            max_speed: pr.max_speed,
            max_force: pr.max_force,
            chase: pr.chase,
        };
        if valid(predator.validate()) {
            scene.predators.push(predator);
            state.predator_entities.push(entity);
        }
    }
}

fn valid(check: Result<(), sim::ParamError>) -> bool {
    match check {
        Ok(()) => true,
        Err(err) => {
            log::warn!("MiroFish: ignoring an invalid scene element: {err}");
            false
        }
    }
}

/// Pass 1: the neighbour grid.
pub(crate) fn rebuild_index(mut state: ResMut<FlockState>) {
    let state = &mut *state;
    state.flock.rebuild_index(&state.schools, &state.active.tank);
}

/// Pass 2: the rules, in parallel, each fish's total clamped once.
pub(crate) fn accumulate_forces(mut state: ResMut<FlockState>) {
    let state = &mut *state;
    state.flock.accumulate_forces(&state.schools, &state.active.tank, &state.scene);
}

/// Pass 3: semi-implicit Euler with the fixed time step, then the walls and
/// obstacles.
pub(crate) fn integrate(mut state: ResMut<FlockState>, time: Res<Time<Fixed>>) {
    let state = &mut *state;
    let dt = time.timestep().as_secs_f32();
    state.flock.integrate(&state.schools, &state.active.tank, &state.scene, dt);
}

/// After the walls: predators hunt and move.
pub(crate) fn move_predators(mut state: ResMut<FlockState>, time: Res<Time<Fixed>>) {
    let state = &mut *state;
    state.flock.move_predators(&mut state.scene, &state.active.tank, time.timestep().as_secs_f32());
}

/// Writes the predators' new state back to their entities.
pub(crate) fn write_back_predators(
    state: Res<FlockState>,
    mut predators: Query<
        (&mut Position, &mut PreviousPosition, &mut Velocity),
        (With<Predator>, Without<Boid>),
    >,
) {
    for (predator, &entity) in state.scene.predators.iter().zip(&state.predator_entities) {
        if let Ok((mut p, mut prev, mut v)) = predators.get_mut(entity) {
            prev.0 = p.0;
            p.0 = predator.position;
            v.0 = predator.velocity;
        }
    }
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
