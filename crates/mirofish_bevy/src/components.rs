//! The components of a fish.
//!
//! Simulation state ([`Position`], [`Velocity`], [`WanderPhase`]) is kept
//! apart from [`Transform`]: the fixed-step simulation owns the former, and
//! the rendered `Transform` is interpolated from it (see
//! [`crate::interpolation`]). Game code may read all of them, and may write
//! `Position` or `Velocity` to teleport or push a fish; the next tick picks
//! the change up.

use bevy::prelude::*;
use mirofish_sim::Vector;

/// Marks an entity as a fish of the school. Inserting it brings every other
/// simulation component with it.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq)]
#[reflect(Component, Debug, Default, PartialEq)]
#[require(Position, Velocity, Steering, WanderPhase, PreviousPosition, Transform, FishId)]
pub struct Boid;

/// Which fish of the core an entity shows: its id there
/// ([`FlockState::flock`](crate::FlockState::flock) on a plane,
/// [`Flock3dState::flock`](crate::volume::Flock3dState) in a volume). The
/// core owns the fish and numbers them `0..len`; when a fish leaves, the
/// fish with the highest id takes the freed id, and its entity's `FishId`
/// follows. Kept up to date by the plugin; a fish a game just spawned has
/// none until the next tick takes it in.
#[derive(Reflect, Clone, Copy, Component, Debug, PartialEq, Eq, Hash)]
#[reflect(Component, Debug, PartialEq)]
pub struct FishId(pub(crate) u32);

impl FishId {
    /// The id, or `None` before the fish is first taken in.
    pub fn get(self) -> Option<u32> {
        (self.0 != u32::MAX).then_some(self.0)
    }
}

impl Default for FishId {
    fn default() -> Self {
        Self(u32::MAX)
    }
}

/// Position in the tank (world units), as of the last fixed tick: a
/// `Vec2` on a plane (the default), a `Vec3` in a volume
/// (`Position<Vec3>`, [`crate::volume`]).
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct Position<V: Vector = Vec2>(pub V);

/// Velocity (world units per second), as of the last fixed tick; a
/// `Vec3` in a volume.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct Velocity<V: Vector = Vec2>(pub V);

/// The clamped steering acceleration (world units per second²) applied in
/// the last fixed tick: the sum of all rules after the single `max_force`
/// clamp. Written by the simulation; read it for debugging or effects (a
/// volume's plugin banks fish into their turns with it). A `Vec3` in a
/// volume.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct Steering<V: Vector = Vec2>(pub V);

/// A game's own force on one fish: an acceleration (world units per
/// second²) added to what the rules ask for, in
/// [`BoidSystems::Clamp`](crate::BoidSystems::Clamp), and clamped to the
/// school's `max_force` with it. Write it from a system placed before that
/// set (follow the player, avoid the boat, go for the food); remove it, or
/// set it to zero, to stop. A non-finite value is ignored. With the game's
/// own inputs deterministic, runs stay bit-identical. A `Vec3` in a volume
/// (where Couzin's zones use no forces).
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct ExtraSteering<V: Vector = Vec2>(pub V);

/// Phase (radians) of the fish's own slowly turning wander direction (in
/// a volume, how far round its own great circle). One a game writes that
/// is not finite counts as 0.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct WanderPhase(pub f32);

impl WanderPhase {
    /// The phase as the core takes it: 0 if it is not finite.
    pub(crate) fn finite(self) -> f32 {
        if self.0.is_finite() { self.0 } else { 0.0 }
    }
}

/// [`Position`] before the last fixed tick; the rendered `Transform` is
/// interpolated between the two. A `Vec3` in a volume.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct PreviousPosition<V: Vector = Vec2>(pub V);

/// The school a fish belongs to: an index into
/// [`FlockConfig::school_table`](crate::FlockConfig::school_table). Fish
/// without it are in school 0.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Eq, Hash, Deref, DerefMut)]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct School(pub u16);

/// The group a fish belongs to: it steers for its group's goal
/// ([`FlockState::scene`](crate::FlockState::scene)'s `group_goals`, set by
/// [`FlockCommand::SetGroupGoal`](mirofish_sim::FlockCommand::SetGroupGoal))
/// on top of its school's. Put one fish in a group of its own to give it a
/// target of its own. Numbers from [`mirofish_sim::MAX_GROUPS`] up count
/// as no group. Kept apart from the fish's table (a sparse set), as
/// [`Leader`] is, so that joining a group does not move a fish among the
/// others and the flock keeps its fish in their order.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq, Eq, Hash, Deref, DerefMut)]
#[component(storage = "SparseSet")]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct FishGroup(pub u16);

/// Marks a fish as a leader: its neighbours weigh it
/// [`FlockParams::leader_weight`](mirofish_sim::FlockParams::leader_weight)
/// times more in alignment and cohesion. Kept apart from the fish's table
/// (a sparse set), so that leading does not move a fish among the others
/// and the flock keeps its fish in the order they were spawned.
#[derive(Reflect, Clone, Copy, Component, Debug, Default, PartialEq)]
#[component(storage = "SparseSet")]
#[reflect(Component, Debug, Default, PartialEq)]
pub struct Leader;

/// The order in which a rock or predator entered the scene: the scene
/// lists them so, as the core does, whatever entities they were given.
#[derive(Clone, Copy, Component, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SceneOrder(pub(crate) u64);

/// Sorts rocks or predators, each with its entity and what goes with it,
/// into the order they arrived (entities break ties among those without
/// an order).
pub(crate) fn sort_by_arrival<T>(items: &mut [(SceneOrder, Entity, T)]) {
    items.sort_unstable_by_key(|&(order, entity, _)| (order, entity));
}

/// The next [`SceneOrder`].
#[derive(Resource, Debug, Default)]
pub(crate) struct SceneArrivals(u64);

/// Numbers a rock or predator as it arrives.
pub(crate) fn number_arrival<T: Component>(
    add: On<Add, T>,
    mut next: ResMut<SceneArrivals>,
    mut commands: Commands,
) {
    commands.entity(add.entity).insert(SceneOrder(next.0));
    next.0 += 1;
}

/// A circular obstacle at its [`Position`]: fish steer around it and never
/// end a tick inside it. The entity form of the core's
/// [`Obstacle`](mirofish_sim::Obstacle), which
/// [`FlockCommand::AddObstacle`](mirofish_sim::FlockCommand::AddObstacle)
/// carries (the plugin spawns one of these for it). One that is invalid,
/// covers the tank, or would cover it together with the rocks that came
/// before it is left out while that lasts, and reported once in
/// [`FlockRefusals`](crate::FlockRefusals).
#[derive(Reflect, Clone, Copy, Component, Debug, PartialEq)]
#[reflect(Component, Debug, PartialEq)]
#[require(Position, Transform)]
pub struct Obstacle2d {
    /// Radius (world units).
    pub radius: f32,
}

/// A predator at its [`Position`], moving with its [`Velocity`]: fish within
/// `fear_radius` flee. With `chase`, it hunts the nearest fish on its own.
/// The entity form of the core's [`Predator`](mirofish_sim::Predator),
/// which [`FlockCommand::AddPredator`](mirofish_sim::FlockCommand::AddPredator)
/// carries.
#[derive(Reflect, Clone, Copy, Component, Debug, PartialEq)]
#[reflect(Component, Debug, PartialEq)]
#[require(Position, Velocity, PreviousPosition, Transform)]
pub struct Predator2d {
    /// Fish closer than this are afraid.
    pub fear_radius: f32,
    /// Its own speed limit.
    pub max_speed: f32,
    /// Its own steering limit.
    pub max_force: f32,
    /// Whether it hunts the nearest fish.
    pub chase: bool,
}

impl Default for Predator2d {
    fn default() -> Self {
        let p = mirofish_sim::Predator::new(Vec2::ZERO, 150.0);
        Self { fear_radius: p.fear_radius, max_speed: p.max_speed, max_force: p.max_force, chase: p.chase }
    }
}

impl crate::scene_entities::SceneForms for Vec2 {
    type Rock = Obstacle2d;
    type Hunter = Predator2d;

    fn fish_transform(position: Vec2, velocity: Vec2) -> Transform {
        let turn = crate::turn::plane(velocity).unwrap_or_default();
        Transform::from_translation(position.extend(0.0)).with_rotation(turn)
    }

    fn rock(rock: &Obstacle2d, centre: Vec2) -> mirofish_sim::Obstacle {
        mirofish_sim::Obstacle { centre, radius: rock.radius }
    }

    fn hunter(hunter: &Predator2d, position: Vec2, velocity: Vec2) -> mirofish_sim::Predator {
        mirofish_sim::Predator {
            position,
            velocity,
            fear_radius: hunter.fear_radius,
            max_speed: hunter.max_speed,
            max_force: hunter.max_force,
            chase: hunter.chase,
        }
    }

    fn spawn_rock(commands: &mut Commands, rock: &mirofish_sim::Obstacle) -> Entity {
        let at = rock.centre;
        commands
            .spawn((
                Obstacle2d { radius: rock.radius },
                Position(at),
                Transform::from_translation(at.extend(0.0)),
            ))
            .id()
    }

    fn spawn_hunter(commands: &mut Commands, p: &mirofish_sim::Predator) -> Entity {
        let at = p.position;
        let predator = Predator2d {
            fear_radius: p.fear_radius,
            max_speed: p.max_speed,
            max_force: p.max_force,
            chase: p.chase,
        };
        commands
            .spawn((
                predator,
                Position(at),
                PreviousPosition(at),
                Velocity(p.velocity),
                Transform::from_translation(at.extend(0.0)),
            ))
            .id()
    }
}
