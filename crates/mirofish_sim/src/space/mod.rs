//! Schools in any dimension: the pieces written once over the [`Vector`](crate::Vector)
//! they move in, so that a school in a volume ([`glam::Vec3`]) follows the
//! same rules, with the same guards, as a school on a plane.
//!
//! The rules themselves ([`crate::rules`]), the walls, the tank
//! ([`crate::TankOf`]), the scene's obstacles, predators and goals and the
//! order parameters are generic over [`Vector`](crate::Vector); this module adds what a
//! school in any dimension needs around them:
//!
//! - [`swarm`]: the school and its tick ([`Flock3d`] in a volume);
//! - [`command`]: changes to a running school, stamped with their tick;
//! - [`zones`]: Couzin's zone model, an alternative to the weighted rules.
//!
//! The force pass scans four fish at a time where it can (a *quartet*:
//! four fish sorted next to each other, one per vector lane, walking the
//! cells around them once, with the plane's quartet scan,
//! `step::kernel::hoods`; four of one topological school keep their
//! nearest in the lanes), and one at a time where a fish needs more (a
//! shaped view, leaders that weigh more, an eye for its own school only);
//! both give the same bits wherever the crowding cap leaves a scan whole. A crowded quartet
//! is thinned as a plane's is (`step::crowding`). Where nothing in the
//! scene steers them, a quartet's rules run in lanes too, otherwise fish
//! by fish. A [`Swarm`] over [`glam::Vec2`] is the plane's engine, the
//! headless run's and the plane plugin's alike.

pub mod command;
pub mod swarm;
pub mod zones;

pub use crate::world::grid::CellGrid;
pub use swarm::{Flock3d, Swarm, SwarmMetrics, TickStage};
pub use zones::{CollectiveState, Zones};

pub use crate::step::command::VolumeCommand;
