#![doc = include_str!("../README.md")]

pub use mirofish_bevy::*;

#[cfg(feature = "render")]
pub mod aquarium;
/// The pure simulation core (no Bevy): rules, grid, flock, observations.
pub use mirofish_sim as sim;
