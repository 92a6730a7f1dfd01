//! Rocks and predators in a volume as entities: [`Obstacle3d`] and
//! [`Predator3d`] at a [`Position`], as [`Obstacle2d`](crate::Obstacle2d)
//! and [`Predator2d`](crate::Predator2d) are on a plane.
//!
//! Between ticks the entities are the truth. At the start of a tick the
//! plugin gathers them, in the order they arrived, into the volume's scene
//! (each valid one, and each rock that leaves room beside those before it;
//! one refused is reported once in [`FlockRefusals`](crate::FlockRefusals) and left out while it
//! stays so). The tick's commands then act on that scene, and at its
//! write-back the entities follow: a rock or predator a command added gets
//! an entity, one a command removed loses its entity, and every predator's
//! entity takes its new position and velocity. A game moves a rock or a
//! predator by writing its [`Position`], adds one by spawning an entity
//! and takes one away by despawning it; those changes are not commands, so
//! a recording of a session with them does not replay to its end (the
//! replay says so), while rocks and predators added and removed by command
//! replay as any command does.

use bevy::prelude::*;
use mirofish_sim::{Obstacle, Predator};

use super::{Position, PreviousPosition, Velocity};
use crate::scene_entities::SceneForms;

/// A sphere at its [`Position`] that fish steer around and never end a
/// tick inside: the entity form of the core's [`Obstacle`] in a volume,
/// which `VolumeCommand::AddObstacle` carries (the plugin spawns one of
/// these for it). One that is invalid, covers the tank, or would cover it
/// together with the rocks that came before it is left out while that
/// lasts, and reported once in [`FlockRefusals`](crate::FlockRefusals).
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
#[require(Position<Vec3>, Transform)]
pub struct Obstacle3d {
    /// Radius (world units).
    pub radius: f32,
}

/// A predator at its [`Position`], moving with its [`Velocity`]: fish
/// within `fear_radius` flee. With `chase`, it hunts the nearest fish on
/// its own. The entity form of the core's [`Predator`] in a volume, which
/// `VolumeCommand::AddPredator` carries; an invalid one is left out while
/// it stays invalid and reported once in [`FlockRefusals`](crate::FlockRefusals).
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
#[require(Position<Vec3>, Velocity<Vec3>, PreviousPosition<Vec3>, Transform)]
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

impl SceneForms for Vec3 {
    type Rock = Obstacle3d;
    type Hunter = Predator3d;

    fn fish_transform(position: Vec3, velocity: Vec3) -> Transform {
        Transform::from_translation(position).looking_to(velocity.normalize_or(Vec3::NEG_Z), Vec3::Y)
    }

    fn rock(rock: &Obstacle3d, centre: Vec3) -> Obstacle<Vec3> {
        Obstacle { centre, radius: rock.radius }
    }

    fn hunter(hunter: &Predator3d, position: Vec3, velocity: Vec3) -> Predator<Vec3> {
        hunter.at(position, velocity)
    }

    fn spawn_rock(commands: &mut Commands, rock: &Obstacle<Vec3>) -> Entity {
        let at = rock.centre;
        commands
            .spawn((Obstacle3d { radius: rock.radius }, Position(at), Transform::from_translation(at)))
            .id()
    }

    fn spawn_hunter(commands: &mut Commands, p: &Predator<Vec3>) -> Entity {
        let at = p.position;
        commands
            .spawn((
                Predator3d::of(p),
                Position(at),
                PreviousPosition(at),
                Velocity(p.velocity),
                Transform::from_translation(at),
            ))
            .id()
    }
}
