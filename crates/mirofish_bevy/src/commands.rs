//! The command queue of the plugin: every outside change to the
//! school — predators, obstacles, parameters, goals, fish added or removed
//! — as a [`FlockCommand`] stamped with the tick at which it applies.
//!
//! Game code and the aquarium's mouse call [`FlockCommands::submit`] (next
//! tick) or [`FlockCommands::schedule`] (a given tick). At the start of that
//! tick, right after [`BoidSystems::Commands`](crate::BoidSystems::Commands)
//! — before the configuration is read and the neighbour index is rebuilt — the due
//! commands are applied in a fixed order (by tick, then by submission), and
//! noted in [`FlockCommands::applied`]. The same seed, spawns and command
//! log therefore give the same states bit for bit.
//!
//! Direct changes to entities and to [`FlockConfig`] still work, but they
//! happen whenever the game's systems run, outside the log: use commands for
//! anything a replay must reproduce.

use bevy::prelude::*;
use mirofish_sim::rules::scene::push_out_of_all;
use mirofish_sim::step::command::{SpawnKey, spawn_disc, spawn_room};
use mirofish_sim::world::scene::add_rock;
use mirofish_sim::{CommandError, CommandQueue, FlockCommand, Obstacle, Stamped, Tank};

use crate::components::{
    Boid, FishGroup, FishSlot, Leader, Obstacle2d, Position, Predator2d, PreviousPosition, SceneOrder,
    School, Velocity, WanderPhase, sort_by_arrival,
};
use crate::config::FlockConfig;
use crate::refusals::{self, FlockRefusal, Refused};
use crate::state::FlockState;
use crate::systems::admit_rocks;

/// Commands waiting for their tick, and those already applied.
#[derive(Resource, Debug, Default)]
pub struct FlockCommands {
    queue: CommandQueue,
    applied: Vec<Stamped>,
    /// The next tick to be simulated, as last seen.
    now: u64,
}

impl FlockCommands {
    /// Queues `command` for the start of `tick` (ticks count from 0 at the
    /// plugin's start; [`FlockCommands::next_tick`] is the earliest).
    /// Refused, and not queued, if it holds an invalid number or the tick
    /// is past.
    pub fn schedule(&mut self, tick: u64, command: FlockCommand) -> Result<(), CommandError> {
        self.queue.schedule(self.now, tick, command)
    }

    /// Queues `command` for the next tick. Refused only if it holds an
    /// invalid number (the error names the field).
    pub fn submit(&mut self, command: FlockCommand) -> Result<(), CommandError> {
        self.schedule(self.now, command)
    }

    /// The next tick to be simulated.
    pub fn next_tick(&self) -> u64 {
        self.now
    }

    /// Commands waiting.
    pub fn pending(&self) -> &CommandQueue {
        &self.queue
    }

    /// Every command applied so far, with its tick, in order: the run's
    /// command log.
    pub fn applied(&self) -> &[Stamped] {
        &self.applied
    }
}

/// Applies the commands due this tick (an exclusive system: entities spawned
/// or despawned here are seen by the gather that follows).
pub(crate) fn apply_commands(world: &mut World) {
    let now = world.resource::<FlockState>().flock.tick();
    let due = {
        let mut commands = world.resource_mut::<FlockCommands>();
        commands.now = now;
        commands.queue.take_due(now)
    };
    for stamped in due {
        apply(world, &stamped.command, now);
        world.resource_mut::<FlockCommands>().applied.push(stamped);
    }
    // Commands submitted from now on are for the next tick.
    world.resource_mut::<FlockCommands>().now = now + 1;
}

/// Entities with component `T`, in a deterministic order (by entity id,
/// which follows the spawn history).
fn sorted<T: Component>(world: &mut World) -> Vec<Entity> {
    let mut entities: Vec<Entity> = world.query_filtered::<Entity, With<T>>().iter(world).collect();
    entities.sort();
    entities
}

/// Rocks or predators in the order they entered the scene: the order of
/// the scene's lists, which the commands' indices count in.
fn in_scene_order<T: Component>(world: &mut World) -> Vec<Entity> {
    let mut entities: Vec<(SceneOrder, Entity, ())> = world
        .query_filtered::<(Entity, Option<&SceneOrder>), With<T>>()
        .iter(world)
        .map(|(e, order)| (order.copied().unwrap_or_default(), e, ()))
        .collect();
    sort_by_arrival(&mut entities);
    entities.into_iter().map(|(_, e, ())| e).collect()
}

/// The rocks the scene would hold now (the rock entities in the order they
/// arrived, as the scene is gathered: [`admit_rocks`]), with the tank in
/// force.
fn rocks_in_force(world: &mut World) -> (Vec<Obstacle>, Tank) {
    let tank = world.resource::<FlockState>().config().tank;
    let entities: Vec<(SceneOrder, Entity, Obstacle)> = in_scene_order::<Obstacle2d>(world)
        .into_iter()
        .filter_map(|e| {
            let (rock, at) = (world.get::<Obstacle2d>(e)?, world.get::<Position>(e)?);
            Some((SceneOrder::default(), e, Obstacle { centre: at.0, radius: rock.radius }))
        })
        .collect();
    let mut rocks = Vec::new();
    admit_rocks(&entities, &tank, &mut rocks, |_, _| {});
    (rocks, tank)
}

pub(crate) fn apply(world: &mut World, command: &FlockCommand, tick: u64) {
    match command {
        FlockCommand::SetParams(p) | FlockCommand::SetSchoolParams { school: 0, params: p } => {
            world.resource_mut::<FlockConfig>().params = *p;
        }
        FlockCommand::SetSchoolParams { school, params } => {
            let mut config = world.resource_mut::<FlockConfig>();
            if let Some(slot) = config.schools.get_mut(usize::from(*school) - 1) {
                *slot = *params;
            }
        }
        FlockCommand::SetBoundary(b) => world.resource_mut::<FlockConfig>().tank.boundary = *b,
        FlockCommand::SetGoal(g) => world.resource_mut::<FlockConfig>().goal = *g,
        FlockCommand::SetSchoolGoal { school, goal } => {
            let mut config = world.resource_mut::<FlockConfig>();
            mirofish_sim::world::scene::set_goal_entry(&mut config.school_goals, usize::from(*school), *goal);
        }
        FlockCommand::SetAttractor(a) => world.resource_mut::<FlockConfig>().attractor = *a,
        FlockCommand::SetRoute(r) => edit_scene(world, tick, |scene| scene.route = r.clone()),
        FlockCommand::AddPredator(p) => {
            world.spawn((
                Predator2d {
                    fear_radius: p.fear_radius,
                    max_speed: p.max_speed,
                    max_force: p.max_force,
                    chase: p.chase,
                },
                Position(p.position),
                PreviousPosition(p.position),
                Velocity(p.velocity),
                Transform::from_translation(p.position.extend(0.0)),
            ));
        }
        FlockCommand::AddObstacle(o) => {
            // As in the core: a rock that would close the last room beside
            // the rocks there is not added, so a replay without the app
            // holds the same rocks (and `RemoveObstacle` counts the same).
            let (mut rocks, tank) = rocks_in_force(world);
            if add_rock(&mut rocks, *o, &tank).is_ok() {
                world.spawn((
                    Obstacle2d { radius: o.radius },
                    Position(o.centre),
                    Transform::from_translation(o.centre.extend(0.0)),
                ));
            }
        }
        FlockCommand::RemovePredator(i) => {
            if let Some(&e) = in_scene_order::<Predator2d>(world).get(*i) {
                world.despawn(e);
            }
        }
        FlockCommand::MovePredator { predator, to } => {
            if let Some(&e) = in_scene_order::<Predator2d>(world).get(*predator)
                && let Some(mut at) = world.get_mut::<Position>(e)
            {
                at.0 = *to;
            }
        }
        FlockCommand::RemoveObstacle(i) => {
            if let Some(&e) = in_scene_order::<Obstacle2d>(world).get(*i) {
                world.despawn(e);
            }
        }
        FlockCommand::ClearPredators => {
            for e in in_scene_order::<Predator2d>(world) {
                world.despawn(e);
            }
        }
        FlockCommand::ClearObstacles => {
            for e in in_scene_order::<Obstacle2d>(world) {
                world.despawn(e);
            }
        }
        FlockCommand::SpawnFish { school, count, centre, radius } => {
            let config = world.resource::<FlockConfig>().clone();
            // A school the configuration does not have gets none, as in the core.
            let Some(params) = config.school_table().get(usize::from(*school)).copied() else { return };
            let first_slot = world.query_filtered::<(), With<Boid>>().iter(world).count() as u64;
            let key = SpawnKey { seed: config.seed, tick, first_slot };
            // As the core: never beyond the most fish a run holds.
            let count = spawn_room(*count, first_slot as usize);
            let fish = spawn_disc(key, count, *centre, *radius, &config.tank, &params);
            // Out of the rocks in force, as the core places them.
            let (rocks, _) = rocks_in_force(world);
            // With their school named, as a recorded session's fish are:
            // they join those fish's table, after them, as the core appends
            // them.
            world.spawn_batch(fish.into_iter().map(|f| {
                let (p, v) = push_out_of_all(f.position, f.velocity, &rocks, &config.tank);
                let phase = f.wander_phase;
                (
                    Boid,
                    School(*school),
                    Position(p),
                    PreviousPosition(p),
                    Velocity(v),
                    WanderPhase(phase),
                    Transform::from_translation(p.extend(0.0)),
                )
            }));
        }
        FlockCommand::SetZones(z) => world.resource_mut::<FlockConfig>().zones = *z,
        FlockCommand::SetLeaders { fish, leads } => {
            for entity in fish_by_id(world, fish) {
                if *leads {
                    world.entity_mut(entity).insert(Leader);
                } else {
                    world.entity_mut(entity).remove::<Leader>();
                }
            }
        }
        FlockCommand::RemoveFish { count } => {
            // The last fish in the flock's order, as the core removes them:
            // those spawned since the last tick (no slot yet) first.
            let mut fish: Vec<(u32, Entity)> = world
                .query_filtered::<(Entity, &FishSlot), With<Boid>>()
                .iter(world)
                .map(|(e, slot)| (slot.get().map_or(u32::MAX, |s| s as u32), e))
                .collect();
            fish.sort_unstable();
            for &(_, e) in fish.iter().rev().take(*count) {
                world.despawn(e);
            }
        }
        FlockCommand::FormGroups { school, first, count } => form_groups(world, *school, *first, *count),
        FlockCommand::JoinGroup { fish, group } => {
            for entity in fish_by_id(world, fish) {
                match group {
                    Some(g) => world.entity_mut(entity).insert(FishGroup(*g)),
                    None => world.entity_mut(entity).remove::<FishGroup>(),
                };
            }
        }
        FlockCommand::SetGroupGoal { group, goal } => {
            edit_scene(world, tick, |scene| scene.set_group_goal(*group, *goal))
        }
        FlockCommand::ClearGroups => {
            for e in sorted::<FishGroup>(world) {
                world.entity_mut(e).remove::<FishGroup>();
            }
            edit_scene(world, tick, |scene| scene.group_goals.clear());
        }
    }
}

/// Changes the core's scene (a route, a group's goal), reporting a change
/// it refuses (the commands' values were checked as they were queued).
fn edit_scene(world: &mut World, tick: u64, edit: impl FnOnce(&mut mirofish_sim::Scene)) {
    if let Err(error) = world.resource_mut::<FlockState>().flock.edit_scene(edit) {
        refusals::report_in(world, FlockRefusal { tick, what: Refused::Command, error });
    }
}

/// The entities of the fish with these ids, skipping ids of no fish: the
/// plugin's fish ids are their slots ([`FishSlot`]) as of the last tick.
fn fish_by_id(world: &mut World, ids: &[u32]) -> Vec<Entity> {
    let mut by_slot: Vec<(u32, Entity)> =
        world.query::<(Entity, &FishSlot)>().iter(world).map(|(e, s)| (s.0, e)).collect();
    by_slot.sort_unstable();
    ids.iter()
        .filter_map(|id| by_slot.binary_search_by_key(id, |&(slot, _)| slot).ok().map(|k| by_slot[k].1))
        .collect()
}

/// [`FlockCommand::FormGroups`] on the fish entities: the core's bisection
/// over the fish of `school` (in entity order, so a replay forms the same
/// groups), each given its [`FishGroup`].
fn form_groups(world: &mut World, school: Option<u16>, first: u16, count: u16) {
    let count = usize::from(count).min(mirofish_sim::MAX_GROUPS.saturating_sub(usize::from(first)));
    if count == 0 {
        return;
    }
    let mut fish: Vec<(Entity, Vec2, u16)> = world
        .query_filtered::<(Entity, &Position, Option<&School>), With<Boid>>()
        .iter(world)
        .map(|(e, p, s)| (e, p.0, s.map_or(0, |s| s.0)))
        .filter(|(_, _, s)| school.is_none_or(|k| *s == k))
        .collect();
    fish.sort_unstable_by_key(|f| f.0);
    let mut members: Vec<(u32, Vec2)> = fish.iter().enumerate().map(|(k, f)| (k as u32, f.1)).collect();
    let mut groups = vec![0u16; fish.len()];
    mirofish_sim::world::groups::bisect(&mut members, count, &mut |k, g| {
        groups[k as usize] = first + g as u16
    });
    for ((entity, _, _), group) in fish.into_iter().zip(groups) {
        world.entity_mut(entity).insert(FishGroup(group));
    }
}
