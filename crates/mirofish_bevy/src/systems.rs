//! The systems of one fixed tick: gather, the core's stages, write-back.
//!
//! Each stage is a thin call into the core's school
//! ([`mirofish_sim::Simulation`], run stage by stage with
//! [`run_to`](mirofish_sim::space::Swarm::run_to)); the work happens on
//! its contiguous arrays, not through per-entity lookups.

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::system::SystemChangeTick;
use bevy::prelude::*;

use mirofish_sim as sim;
use mirofish_sim::space::TickStage;
use rayon::prelude::*;

use crate::columns::{COLUMN_CHUNK, copy_changed, set_row};

use crate::components::{
    Boid, ExtraSteering, FishGroup, FishSlot, Leader, Obstacle2d, Position, Predator2d, PreviousPosition,
    SceneOrder, School, Steering, Velocity, WanderPhase,
};
use crate::config::FlockConfig;
use crate::refusals::{self, FlockRefusal, FlockRefusals, Refused};
use crate::state::FlockState;

/// What `gather` reads of a fish.
type FishParts = (
    Entity,
    Ref<'static, Position>,
    Ref<'static, Velocity>,
    Ref<'static, WanderPhase>,
    Option<Ref<'static, School>>,
);

/// What `gather` reads of a rock or predator: its velocity (predators),
/// and the order it arrived in.
type SceneParts<T> =
    (Entity, &'static T, &'static Position, Option<&'static Velocity>, Option<&'static SceneOrder>);

/// Which entities are fish of the flock: a [`Boid`] with every component
/// the tick reads or writes. A fish that loses one (game code removed it)
/// leaves the flock whole at the next gather, and rejoins when it is put
/// back, rather than staying half in: gathered but never written back.
type InFlock = (With<Boid>, With<FishSlot>, With<PreviousPosition>, With<Steering>);

/// Applies a changed configuration if it is valid, copies every obstacle
/// and predator into the scene, and takes into the flock's arrays what a
/// game wrote to the fish since the last write-back (every fish, in query
/// order, when fish came or went).
pub(crate) fn gather(
    config: Res<FlockConfig>,
    mut state: ResMut<FlockState>,
    fish: Query<FishParts, InFlock>,
    mut slots: Query<&mut FishSlot>,
    obstacles: Query<SceneParts<Obstacle2d>, Without<Boid>>,
    predators: Query<SceneParts<Predator2d>, Without<Boid>>,
    (mut refusals, mut messages): (ResMut<FlockRefusals>, MessageWriter<FlockRefusal>),
) {
    let state = &mut *state;
    let tick = state.flock.tick();
    if config.is_changed() && *config == state.active {
        // Set back to the configuration in force: nothing to apply, and
        // nothing refused any more.
        state.rejected = None;
    } else if config.is_changed() {
        match config.validate() {
            Ok(()) => match apply_config(&mut state.flock, &config) {
                Ok(()) => {
                    state.active = config.clone();
                    state.rejected = None;
                }
                Err(err) => log::error!("MiroFish: a valid configuration was not taken: {err}"),
            },
            Err(err) => {
                if state.rejected.as_ref() != Some(&err) {
                    let refusal = FlockRefusal { tick, what: Refused::Config, error: err.clone() };
                    refusals::report(&mut refusals, &mut messages, refusal);
                }
                state.rejected = Some(err);
            }
        }
    }
    for refusal in gather_scene(state, &obstacles, &predators) {
        refusals::report(&mut refusals, &mut messages, refusal);
    }
    if !gather_in_place(state, &fish) {
        regather(state, &fish, &mut slots);
    }
}

/// Hands a validated configuration's school table and tank to the core.
/// The rocks go first (the next gather puts back those that fit the new
/// tank), so that the old rocks need not fit it.
pub(crate) fn apply_config(flock: &mut sim::Simulation, config: &FlockConfig) -> Result<(), sim::ParamError> {
    flock.set_schools(&config.school_table())?;
    flock.set_zones(config.zones)?;
    flock.edit_scene(|scene| scene.obstacles.clear())?;
    flock.set_tank(config.tank)
}

/// Copies each fish's [`FishGroup`] into the flock (after `gather`, whose
/// slots it reads). Without any `FishGroup` it does nothing but clear.
pub(crate) fn gather_groups(mut state: ResMut<FlockState>, groups: Query<(&FishSlot, &FishGroup), InFlock>) {
    let flock = &mut state.flock;
    flock.clear_groups();
    for (slot, group) in &groups {
        // A number from `MAX_GROUPS` up is refused: no group.
        let _ = flock.set_group(slot.0, Some(group.0));
    }
}

/// Marks the flock's leaders (after `gather`, whose slots it reads, and
/// which left every fish unmarked).
pub(crate) fn gather_leaders(
    mut state: ResMut<FlockState>,
    leaders: Query<&FishSlot, (InFlock, With<Leader>)>,
) {
    for slot in &leaders {
        if let Some(slot) = slot.get() {
            let _ = state.flock.set_leader(slot as u32, true);
        }
    }
}

/// Takes into the flock what a game wrote to the fish since the last
/// write-back, if the fish are the same ones in the same order as last
/// tick (the usual case): the flock holds the fish between ticks, so a
/// fish nobody touched costs a look at its components' change ticks, not
/// a copy. `false` otherwise (the flock may then be partly overwritten).
fn gather_in_place(state: &mut FlockState, fish: &Query<FishParts, InFlock>) -> bool {
    let (flock, entities, since) = (&mut state.flock, &state.entities, state.written);
    // Every component `FishParts` reads is stored in tables, so the query
    // is always dense; were it not, the caller would regather.
    let (true, Ok(tables)) = (flock.len() == entities.len(), fish.contiguous_iter()) else {
        return false;
    };
    // A school beyond the table counts as its last.
    let last = flock.params().len().saturating_sub(1) as u16;
    let mut start = 0;
    for (ids, positions, velocities, phases, schools) in tables {
        let end = start + ids.len();
        if entities.get(start..end) != Some(ids) {
            return false;
        }
        let inputs = flock.inputs_mut(start..end);
        copy_changed(inputs.position, positions, since, |to, from| *to = from.0);
        copy_changed(inputs.velocity, velocities, since, |to, from| *to = from.0);
        copy_changed(inputs.wander_phase, phases, since, |to, from| *to = from.0);
        // Leaders are marked again by `gather_leaders`.
        inputs.leader.fill(false);
        match schools {
            Some(schools) => copy_changed(inputs.school, schools, since, |to, from| *to = from.0.min(last)),
            None => inputs.school.fill(0),
        }
        start = end;
    }
    start == entities.len()
}

/// Fills the flock from scratch in query order (fish were spawned,
/// despawned or moved between tables), carrying every remaining fish's
/// fear over, and numbers each fish's [`FishSlot`].
fn regather(state: &mut FlockState, fish: &Query<FishParts, InFlock>, slots: &mut Query<&mut FishSlot>) {
    // Only afraid fish need remembering: usually none, and no allocation.
    let afraid: EntityHashMap<f32> = state
        .entities
        .iter()
        .zip(state.flock.fears())
        .filter(|(_, fear)| **fear > 0.0)
        .map(|(&entity, &fear)| (entity, fear))
        .collect();
    state.entities.clear();
    let mut handed = Vec::with_capacity(fish.iter().len());
    for (entity, position, velocity, phase, school) in fish {
        if let Ok(mut numbered) = slots.get_mut(entity) {
            numbered.0 = state.entities.len() as u32;
        }
        state.entities.push(entity);
        let fear = afraid.get(&entity).copied().unwrap_or(0.0);
        handed.push((school.map_or(0, |s| s.0), position.0, velocity.0, phase.0, fear));
    }
    state.flock.replace_fish(handed);
}

/// Copies obstacles, predators and the configured goal and attractor into
/// the scene, leaving out any element that is not valid (an obstacle that
/// would cover the whole tank included). Returns the refusals to report:
/// each refused entity once, while it stays invalid.
fn gather_scene(
    state: &mut FlockState,
    obstacles: &Query<SceneParts<Obstacle2d>, Without<Boid>>,
    predators: &Query<SceneParts<Predator2d>, Without<Boid>>,
) -> Vec<FlockRefusal> {
    let tick = state.flock.tick();
    let order = |o: Option<&SceneOrder>| o.copied().unwrap_or_default();
    let rocks = obstacles
        .iter()
        .map(|(e, o, p, _, at)| (order(at), e, sim::Obstacle { centre: p.0, radius: o.radius }));
    let hunters = predators.iter().map(|(e, pr, p, v, at)| {
        let predator = sim::Predator {
            position: p.0,
            velocity: v.map_or(Vec2::ZERO, |v| v.0),
            fear_radius: pr.fear_radius,
            max_speed: pr.max_speed,
            max_force: pr.max_force,
            chase: pr.chase,
        };
        (order(at), e, predator)
    });
    let mut refused = Vec::new();
    let known = &mut state.scene_entities;
    known.admit(rocks, hunters, &state.active.tank, tick, &mut refused);
    // The admitted lists change places with the buffer's (the next gather
    // clears them): no copy.
    let scene = &mut state.scene;
    core::mem::swap(&mut scene.obstacles, &mut known.gather.obstacles);
    core::mem::swap(&mut scene.predators, &mut known.gather.predators);
    // The route and group goals stay as the commands and the route's
    // progress left them; the buffer swapped in takes the old scene's
    // place, so that a tick allocates nothing.
    let (active, now) = (&state.active, state.flock.scene());
    scene.goal = active.goal;
    scene.school_goals.clone_from(&active.school_goals);
    scene.attractor = active.attractor;
    scene.route.clone_from(&now.route);
    scene.group_goals.clone_from(&now.group_goals);
    if let Err(error) = state.flock.swap_scene(scene) {
        // Every element was admitted above, so not expected; reported as
        // the volume reports it, and the core keeps its last scene.
        refused.push(FlockRefusal { tick, what: Refused::Scene, error });
    }
    refused
}

/// A system running the core's tick up to `stage` (the stages before it
/// that have not run yet, then it).
pub(crate) fn stage(stage: TickStage) -> impl FnMut(ResMut<FlockState>) {
    move |mut state: ResMut<FlockState>| state.flock.run_to(stage)
}

/// Before the rules' clamp: every fish's game force handed to the core,
/// which adds it to the fish's steering and clamps the sum.
pub(crate) fn add_extra_steering(
    mut state: ResMut<FlockState>,
    extras: Query<(Entity, &FishSlot, &ExtraSteering), With<Boid>>,
) {
    for (entity, slot, force) in &extras {
        // A fish not gathered this tick, or in another fish's slot, has
        // none; a force that is not finite is refused by the core.
        if let Some(slot) = state.slot_of(entity, *slot)
            && force.0 != Vec2::ZERO
        {
            let _ = state.flock.add_steering(slot as u32, force.0);
        }
    }
}

/// The length of this tick: the schedule's `Time` delta (in `FixedUpdate`,
/// the fixed time step), within the range the core accepts.
/// A recorded session fixes it to its configuration's.
fn tick_seconds(state: &FlockState, time: &Time) -> f32 {
    state.dt.unwrap_or_else(|| time.delta_secs().clamp(1.0e-6, 1.0))
}

/// Before the integrator: the tick's length from the schedule's clock.
pub(crate) fn set_step(mut state: ResMut<FlockState>, time: Res<Time>) {
    let dt = tick_seconds(&state, &time);
    // Within the core's range by construction.
    let _ = state.flock.set_dt(dt);
}

/// Writes the predators' new state back to their entities.
pub(crate) fn write_back_predators(
    state: Res<FlockState>,
    mut predators: Query<
        (&mut Position, &mut PreviousPosition, &mut Velocity),
        (With<Predator2d>, Without<Boid>),
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

/// Writes the tick's result back to the entities gathered at its start, a
/// table column at a time: a table's fish are found by the [`FishSlot`] of
/// its first one and, if they are the fish gathered there in the same
/// order (the usual case), copied as whole columns. Otherwise each fish
/// finds its own slot; a fish spawned during the tick (no slot yet, or
/// another fish's copied slot) is left alone until the next tick gathers
/// it. Only the fish written are marked changed.
pub(crate) fn write_back(
    mut state: ResMut<FlockState>,
    mut fish: Query<FishWrite, With<Boid>>,
    ticks: SystemChangeTick,
) {
    // The rows written here carry this run's tick: the next gather takes
    // only rows changed after it.
    state.written = ticks.this_run();
    let (flock, entities) = (&state.flock, &state.entities);
    let (positions, velocities, phases) = (flock.positions(), flock.velocities(), flock.wander_phases());
    // Every component `FishWrite` reads is stored in tables, so the query
    // is always dense.
    let Ok(tables) = fish.contiguous_iter_mut() else {
        log::error!("MiroFish: the fish query is not dense; nothing written back");
        return;
    };
    for (ids, slots, mut p, mut prev, mut v, mut s, mut w) in tables {
        let start = slots.first().and_then(|slot| slot.get()).unwrap_or(usize::MAX);
        let rows = start..start.saturating_add(ids.len());
        if entities.get(rows.clone()) == Some(ids) {
            // The usual case: all five columns in one pass over the rows, in
            // pieces on rayon's pool. Borrowing a column mutably (its `DerefMut`) sets every row's
            // change tick.
            let columns = (
                p.par_chunks_mut(COLUMN_CHUNK),
                prev.par_chunks_mut(COLUMN_CHUNK),
                v.par_chunks_mut(COLUMN_CHUNK),
                s.par_chunks_mut(COLUMN_CHUNK),
                w.par_chunks_mut(COLUMN_CHUNK),
            );
            let results = (
                positions[rows.clone()].par_chunks(COLUMN_CHUNK),
                velocities[rows.clone()].par_chunks(COLUMN_CHUNK),
                phases[rows].par_chunks(COLUMN_CHUNK),
            );
            columns.into_par_iter().zip(results.into_par_iter()).enumerate().for_each(
                |(piece, ((p, prev, v, s, w), (new_p, new_v, new_w)))| {
                    let rows = p.iter_mut().zip(prev).zip(new_p);
                    for ((p, prev), new_p) in rows {
                        // A position game code made non-finite is not
                        // worth remembering: the repaired one stands in.
                        prev.0 = if p.0.is_finite() { p.0 } else { *new_p };
                        p.0 = *new_p;
                    }
                    v.iter_mut().zip(new_v).for_each(|(v, new_v)| v.0 = *new_v);
                    // The steering by slot, from the core's kicks (stored
                    // in the grid's order).
                    let first = start + piece * COLUMN_CHUNK;
                    s.iter_mut().enumerate().for_each(|(k, s)| {
                        s.0 = flock.steering_at(first + k).unwrap_or_default();
                    });
                    w.iter_mut().zip(new_w).for_each(|(w, new_w)| w.0 = *new_w);
                },
            );
            continue;
        }
        for (row, (&entity, slot)) in ids.iter().zip(slots).enumerate() {
            let slot = slot.0 as usize;
            if entities.get(slot) != Some(&entity) {
                continue;
            }
            let last = if p[row].0.is_finite() { p[row].0 } else { positions[slot] };
            set_row(&mut prev, row, PreviousPosition(last));
            set_row(&mut p, row, Position(positions[slot]));
            set_row(&mut v, row, Velocity(velocities[slot]));
            set_row(&mut s, row, Steering(flock.steering_at(slot).unwrap_or_default()));
            set_row(&mut w, row, WanderPhase(phases[slot]));
        }
    }
}

/// What `write_back` reads and writes of a fish.
type FishWrite = (
    Entity,
    &'static FishSlot,
    &'static mut Position,
    &'static mut PreviousPosition,
    &'static mut Velocity,
    &'static mut Steering,
    &'static mut WanderPhase,
);
