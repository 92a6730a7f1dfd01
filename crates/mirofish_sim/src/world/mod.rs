//! The world around the fish: what exists between two ticks besides the
//! fish's own columns (those are the engine's, [`crate::space::Swarm`]).
//!
//! The tank ([`tank`]), what shares it with the fish ([`scene`]), groups
//! of fish that share a goal ([`groups`]), each school's parameters
//! ([`params`], [`school`]), the neighbour index rebuilt every tick
//! ([`grid`]), how a school is first scattered ([`spawn`]) and the
//! parameters of Couzin's zone model ([`zones`]). Every
//! number that enters from outside is validated here, with an error that
//! names the field.

pub mod grid;
pub mod groups;
pub mod params;
pub mod scene;
pub mod school;
pub mod spawn;
pub mod tank;
pub mod zones;
