//! The plane and the volume as the plugin sees them: one implementation
//! over the space's vector, with what differs between the two spaces
//! named here.

use core::fmt::Debug;

use bevy::prelude::*;

use crate::components::{Boid, Obstacle2d, Predator2d};
use crate::scene_entities::SceneForms;
use crate::state::PlaneParts;
use crate::state::VolumeParts;
use crate::volume::{Boid3d, Obstacle3d, Predator3d};

/// A space a school swims in: the plane (`Vec2`) or the volume (`Vec3`).
/// [`crate::FlockState`], [`crate::FlockCommands`] and the fish's
/// components are generic over it; what differs is named here. Implemented
/// for `Vec2` and `Vec3` only.
pub trait Space: SceneForms {
    /// The marker of a fish entity: [`Boid`] on a plane, [`Boid3d`] in a
    /// volume (each requires its space's components).
    type Boid: Component + Default + Debug;
    /// A rock entity's component ([`Obstacle2d`], [`Obstacle3d`]).
    type Rock: Component;
    /// A predator entity's component ([`Predator2d`], [`Predator3d`]).
    type Hunter: Component;
    /// What [`crate::FlockState`] keeps for this space alone.
    type Parts: Debug + Send + Sync + 'static;
}

impl Space for Vec2 {
    type Boid = Boid;
    type Rock = Obstacle2d;
    type Hunter = Predator2d;
    type Parts = PlaneParts;
}

impl Space for Vec3 {
    type Boid = Boid3d;
    type Rock = Obstacle3d;
    type Hunter = Predator3d;
    type Parts = VolumeParts;
}
