//! Schools in any dimension: the pieces written once over the [`Vector`]
//! they move in, so that a school in a volume ([`glam::Vec3`]) follows the
//! same rules, with the same guards, as a school on a plane.
//!
//! The rules themselves ([`crate::rules`]) are generic over [`Vector`];
//! this module adds what a school in a volume needs around them.

pub mod grid;
pub mod swarm;
pub mod vector;
pub mod zones;

pub use grid::CellGrid;
pub use swarm::{Flock3d, Surroundings, Surroundings3d, Swarm, swarm_hash};
pub use vector::Vector;
pub use zones::Zones;
