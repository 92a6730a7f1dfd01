//! Rocks and predators in a volume as entities: [`Obstacle3d`] and
//! [`Predator3d`] at a [`Position3d`], as [`Obstacle2d`](crate::Obstacle2d)
//! and [`Predator2d`](crate::Predator2d) are on a plane.
//!
//! Between ticks the entities are the truth. At the start of a tick the
//! plugin gathers them, in the order they arrived, into the volume's scene
//! (each valid one, and each rock that leaves room beside those before it;
//! one refused is reported once in [`FlockRefusals`] and left out while it
//! stays so). The tick's commands then act on that scene, and at its
//! write-back the entities follow: a rock or predator a command added gets
//! an entity, one a command removed loses its entity, and every predator's
//! entity takes its new position and velocity. A game moves a rock or a
//! predator by writing its [`Position3d`], adds one by spawning an entity
//! and takes one away by despawning it; those changes are not commands, so
//! a recording of a session with them does not replay to its end (the
//! replay says so), while rocks and predators added and removed by command
//! replay as any command does.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::{Obstacle, ParamError, Predator};

use super::{Flock3dState, Position3d, PreviousPosition3d, Velocity3d};
use crate::components::{SceneOrder, sort_by_arrival};
use crate::refusals::{FlockRefusal, FlockRefusals, Refused, report};
use crate::systems::{admit_entity, admit_rocks};

/// A sphere at its [`Position3d`] that fish steer around and never end a
/// tick inside: the entity form of the core's [`Obstacle`] in a volume,
/// which `VolumeCommand::AddObstacle` carries (the plugin spawns one of
/// these for it). One that is invalid, covers the tank, or would cover it
/// together with the rocks that came before it is left out while that
/// lasts, and reported once in [`FlockRefusals`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
#[require(Position3d, Transform)]
pub struct Obstacle3d {
    /// Radius (world units).
    pub radius: f32,
}

/// A predator at its [`Position3d`], moving with its [`Velocity3d`]: fish
/// within `fear_radius` flee. With `chase`, it hunts the nearest fish on
/// its own. The entity form of the core's [`Predator`] in a volume, which
/// `VolumeCommand::AddPredator` carries; an invalid one is left out while
/// it stays invalid and reported once in [`FlockRefusals`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
#[require(Position3d, Velocity3d, PreviousPosition3d, Transform)]
pub struct Predator3d {
    /// Fish closer than this are afraid.
    pub fear_radius: f32,
    /// Its own speed limit.
    pub max_speed: f32,
    /// Its own steering limit.
    pub max_force: f32,
    /// Whether it hunts the nearest fish.
    pub chase: bool,
}

impl Default for Predator3d {
    fn default() -> Self {
        Self::of(&Predator::new(Vec3::ZERO, 150.0))
    }
}

impl Predator3d {
    /// The component of the core's `predator`.
    fn of(p: &Predator<Vec3>) -> Self {
        Self { fear_radius: p.fear_radius, max_speed: p.max_speed, max_force: p.max_force, chase: p.chase }
    }

    /// The core's predator this component describes at `position`, moving
    /// at `velocity`.
    fn at(&self, position: Vec3, velocity: Vec3) -> Predator<Vec3> {
        Predator {
            position,
            velocity,
            fear_radius: self.fear_radius,
            max_speed: self.max_speed,
            max_force: self.max_force,
            chase: self.chase,
        }
    }
}

/// The entities of the scene's rocks and predators, by their place in the
/// scene's lists, and the entities refused while they stay invalid.
#[derive(Debug, Default)]
pub(super) struct SceneEntities {
    rocks: Vec<Entity>,
    hunters: Vec<Entity>,
    refused: EntityHashSet,
    /// How many of the core's left-out commands the entities have caught
    /// up with.
    seen_left_out: usize,
    /// The gather's working lists, kept so that a tick allocates nothing
    /// once they have grown: rocks and predators as they arrived, and those
    /// admitted.
    gather: Gathered,
}

#[derive(Debug, Default)]
struct Gathered {
    rocks: Vec<(SceneOrder, Entity, Obstacle<Vec3>)>,
    hunters: Vec<(SceneOrder, Entity, Predator<Vec3>)>,
    obstacles: Vec<Obstacle<Vec3>>,
    predators: Vec<Predator<Vec3>>,
}

impl SceneEntities {
    /// Forgets every entity (the plugin despawns them first).
    pub(super) fn forget(&mut self) -> impl Iterator<Item = Entity> + '_ {
        self.refused.clear();
        self.rocks.drain(..).chain(self.hunters.drain(..))
    }
}

type RockParts = (Entity, &'static Obstacle3d, &'static Position3d, Option<&'static SceneOrder>);
type HunterParts =
    (Entity, &'static Predator3d, &'static Position3d, &'static Velocity3d, Option<&'static SceneOrder>);

/// Gathers the rock and predator entities into the volume's scene before
/// the tick (only where they differ from it), reporting each entity
/// refused once.
pub(super) fn gather_scene(
    mut state: ResMut<Flock3dState>,
    rocks: Query<RockParts>,
    hunters: Query<HunterParts>,
    (mut refusals, mut messages): (ResMut<FlockRefusals>, MessageWriter<FlockRefusal>),
) {
    let state = &mut *state;
    let tick = state.flock.tick();
    let known = &mut state.scene_entities;
    let (gather, admitted_rocks, hunting) = (&mut known.gather, &mut known.rocks, &mut known.hunters);
    let mut refused = Vec::new();
    let mut check = |entity: Entity, what: Refused, result: Result<(), ParamError>| {
        admit_entity(&mut known.refused, &mut refused, tick, (entity, what), result)
    };
    let order = |o: Option<&SceneOrder>| o.copied().unwrap_or_default();
    gather.rocks.clear();
    gather
        .rocks
        .extend(rocks.iter().map(|(e, o, p, at)| (order(at), e, Obstacle { centre: p.0, radius: o.radius })));
    sort_by_arrival(&mut gather.rocks);
    admitted_rocks.clear();
    admit_rocks(&gather.rocks, state.flock.tank(), &mut gather.obstacles, |entity, fits| {
        if check(entity, Refused::Obstacle(entity), fits) {
            admitted_rocks.push(entity);
        }
    });
    gather.hunters.clear();
    gather.hunters.extend(hunters.iter().map(|(e, h, p, v, at)| (order(at), e, h.at(p.0, v.0))));
    sort_by_arrival(&mut gather.hunters);
    gather.predators.clear();
    hunting.clear();
    for &(_, entity, predator) in &gather.hunters {
        if check(entity, Refused::Predator(entity), predator.validate()) {
            gather.predators.push(predator);
            hunting.push(entity);
        }
    }
    for refusal in refused {
        report(&mut refusals, &mut messages, refusal);
    }
    let (gather, flock) = (&state.scene_entities.gather, &mut state.flock);
    let scene = flock.scene();
    // Written only where the entities differ from the core's scene: a run
    // without such changes keeps its bits and costs no copy.
    if scene.obstacles != gather.obstacles || scene.predators != gather.predators {
        let mut scene = scene.clone();
        scene.obstacles.clone_from(&gather.obstacles);
        scene.predators.clone_from(&gather.predators);
        // Admitted one by one above: the whole holds.
        if let Err(error) = flock.set_scene(scene) {
            report(&mut refusals, &mut messages, FlockRefusal { tick, what: Refused::Scene, error });
        }
    }
}

/// Brings the rock and predator entities in line with the scene after the
/// tick's commands (an entity for each rock or predator a command added,
/// none for one it removed) and writes each predator's new position and
/// velocity to its entity. With `rebuild` (the scene was replaced), or
/// where the lists still differ in length, every entity is spawned again
/// from the scene.
pub(super) fn sync_scene(world: &mut World, state: &mut Flock3dState, seen_commands: usize, rebuild: bool) {
    let applied = state.flock.applied();
    let left_out = state.flock.left_out();
    let known = &mut state.scene_entities;
    for stamped in applied.get(seen_commands..).unwrap_or_default() {
        let skipped = left_out.get(known.seen_left_out).is_some_and(|(l, _)| l == stamped);
        if skipped {
            known.seen_left_out += 1;
            continue;
        }
        match &stamped.command {
            VolumeCommand::AddObstacle(rock) => known.rocks.push(spawn_rock(world, rock)),
            VolumeCommand::RemoveObstacle(i) if *i < known.rocks.len() => {
                despawn(world, known.rocks.remove(*i))
            }
            VolumeCommand::ClearObstacles => known.rocks.drain(..).for_each(|e| despawn(world, e)),
            VolumeCommand::AddPredator(p) => known.hunters.push(spawn_hunter(world, p)),
            VolumeCommand::RemovePredator(i) if *i < known.hunters.len() => {
                despawn(world, known.hunters.remove(*i))
            }
            VolumeCommand::ClearPredators => known.hunters.drain(..).for_each(|e| despawn(world, e)),
            _ => {}
        }
    }
    let scene = state.flock.scene();
    if rebuild || known.rocks.len() != scene.obstacles.len() || known.hunters.len() != scene.predators.len() {
        for entity in known.forget().collect::<Vec<_>>() {
            despawn(world, entity);
        }
        known.rocks = scene.obstacles.iter().map(|rock| spawn_rock(world, rock)).collect();
        known.hunters = scene.predators.iter().map(|p| spawn_hunter(world, p)).collect();
    }
    for (p, &entity) in scene.predators.iter().zip(&known.hunters) {
        let Ok(mut entity) = world.get_entity_mut(entity) else { continue };
        let before = entity.get::<Position3d>().map_or(p.position, |q| q.0);
        entity.insert((Position3d(p.position), PreviousPosition3d(before), Velocity3d(p.velocity)));
    }
}

fn spawn_rock(world: &mut World, rock: &Obstacle<Vec3>) -> Entity {
    let at = rock.centre;
    world.spawn((Obstacle3d { radius: rock.radius }, Position3d(at), Transform::from_translation(at))).id()
}

fn spawn_hunter(world: &mut World, p: &Predator<Vec3>) -> Entity {
    let at = p.position;
    world
        .spawn((
            Predator3d::of(p),
            Position3d(at),
            PreviousPosition3d(at),
            Velocity3d(p.velocity),
            Transform::from_translation(at),
        ))
        .id()
}

fn despawn(world: &mut World, entity: Entity) {
    if let Ok(entity) = world.get_entity_mut(entity) {
        entity.despawn();
    }
}

/// Places each rock's and predator's `Transform`: a rock where it is, a
/// predator between its last two positions by how far the fixed clock has
/// run into the next tick, turned along its velocity.
pub(super) fn follow_scene(
    time: Res<Time<Fixed>>,
    state: Res<Flock3dState>,
    mut rocks: Query<
        (&Position3d, &mut Transform),
        (With<Obstacle3d>, Without<Predator3d>, Changed<Position3d>),
    >,
    mut hunters: Query<(&Position3d, &PreviousPosition3d, &Velocity3d, &mut Transform), With<Predator3d>>,
) {
    for (p, mut t) in &mut rocks {
        if p.0.is_finite() {
            t.translation = p.0;
        }
    }
    let alpha = if state.fixed_schedule { time.overstep_fraction().clamp(0.0, 1.0) } else { 1.0 };
    for (p, prev, v, mut t) in &mut hunters {
        let at = prev.0.lerp(p.0, alpha);
        if !at.is_finite() {
            continue;
        }
        t.translation = at;
        if let Some(heading) = v.0.try_normalize() {
            t.rotation = Quat::from_rotation_arc(Vec3::NEG_Z, heading);
        }
    }
}
