//! The plane and the volume as the plugin sees them: one implementation
//! over the space's vector, with what differs between the two spaces
//! named here.

use core::fmt::Debug;

use bevy::prelude::*;

use crate::components::Boid;
use crate::scene_entities::SceneForms;
use crate::state::{SpaceParts, VolumeParts};
use crate::volume::Boid3d;

/// A space a school swims in: the plane (`Vec2`) or the volume (`Vec3`).
/// [`crate::FlockState`], [`crate::FlockCommands`] and the fish's
/// components are generic over it; what differs is named here. Implemented
/// for `Vec2` and `Vec3` only.
pub trait Space: SceneForms {
    /// The marker of a fish entity: [`Boid`] on a plane, [`Boid3d`] in a
    /// volume (each requires its space's components).
    type Boid: Component + Default + Debug;
    /// What [`crate::FlockState`] keeps for this space alone.
    type Parts: SpaceParts;
}

impl Space for Vec2 {
    type Boid = Boid;
    type Parts = ();
}

impl Space for Vec3 {
    type Boid = Boid3d;
    type Parts = VolumeParts;
}
