//! The plane and the volume as the plugin sees them: one implementation
//! over the space's vector, with what differs between the two spaces
//! named here.

use core::fmt::Debug;

use bevy::prelude::*;

use crate::components::{
    Boid, ExtraSteering, FishGroup, FishId, Leader, Obstacle2d, Position, Predator2d, PreviousPosition,
    School, Steering, Velocity, WanderPhase,
};
use crate::config::FlockConfigOf;
use crate::metrics::FlockMetrics;
use crate::scene_entities::SceneForms;
use crate::turn;
use crate::volume::{Boid3d, Obstacle3d, Predator3d};

/// A space a school swims in: the plane (`Vec2`) or the volume (`Vec3`).
/// [`crate::FlockState`], [`crate::FlockCommands`], the plugin and the
/// fish's components are generic over it; what differs is named here.
/// Implemented for `Vec2` and `Vec3` only.
pub trait Space: SceneForms {
    /// The marker of a fish entity: [`Boid`] on a plane, [`Boid3d`] in a
    /// volume (each requires its space's components).
    type Boid: Component + Default + Debug;
    /// The plugin's name, in what it logs.
    const PLUGIN: &'static str;

    /// Registers the space's components and resources for reflection.
    fn register_types(app: &mut App);

    /// Moves `transform` to `at`: on a plane x and y only, leaving z (the
    /// game's layering) as it is.
    fn place(transform: &mut Transform, at: Self);

    /// Whether every axis of `jump` is at most `half`'s (`false` where
    /// either is NaN).
    fn within(jump: Self, half: Self) -> bool;

    /// The turn that points a fish's model along `heading`: a sprite's +X
    /// on a plane, a model's −Z (Bevy's forward) without roll in a volume.
    /// `None` for a zero or non-finite heading (the fish keeps its last
    /// turn).
    fn turn(heading: Self) -> Option<Quat>;

    /// `upright` (a fish turned along its heading) rolled into the turn
    /// `steering` makes, by `bank` radians at `max_force` sideways; a
    /// plane's fish turn flat.
    fn roll(upright: Quat, steering: Self, max_force: f32, bank: f32) -> Quat;
}

impl Space for Vec2 {
    type Boid = Boid;
    const PLUGIN: &'static str = "MiroFishPlugin";

    fn register_types(app: &mut App) {
        app.register_type::<(FlockConfigOf<Vec2>, FlockMetrics)>()
            .register_type::<(Boid, FishId, Position, Velocity, Steering, ExtraSteering, WanderPhase)>()
            .register_type::<(PreviousPosition, Leader, School, FishGroup, Obstacle2d, Predator2d)>();
    }

    #[inline]
    fn place(transform: &mut Transform, at: Vec2) {
        transform.translation.x = at.x;
        transform.translation.y = at.y;
    }

    #[inline]
    fn within(jump: Vec2, half: Vec2) -> bool {
        jump.cmple(half).all()
    }

    #[inline]
    fn turn(heading: Vec2) -> Option<Quat> {
        turn::plane(heading)
    }

    fn roll(upright: Quat, _: Vec2, _: f32, _: f32) -> Quat {
        upright
    }
}

impl Space for Vec3 {
    type Boid = Boid3d;
    const PLUGIN: &'static str = "MiroFish3dPlugin";

    fn register_types(app: &mut App) {
        app.register_type::<(FlockConfigOf<Vec3>, FlockMetrics)>()
            .register_type::<(Boid3d, FishId, School, Position<Vec3>, Velocity<Vec3>, PreviousPosition<Vec3>)>()
            .register_type::<(Steering<Vec3>, ExtraSteering<Vec3>, WanderPhase, Leader, FishGroup)>()
            .register_type::<(Obstacle3d, Predator3d)>();
    }

    #[inline]
    fn place(transform: &mut Transform, at: Vec3) {
        transform.translation = at;
    }

    #[inline]
    fn within(jump: Vec3, half: Vec3) -> bool {
        jump.cmple(half).all()
    }

    #[inline]
    fn turn(heading: Vec3) -> Option<Quat> {
        turn::volume(heading)
    }

    fn roll(upright: Quat, steering: Vec3, max_force: f32, bank: f32) -> Quat {
        turn::banked(upright, steering, max_force, bank)
    }
}
