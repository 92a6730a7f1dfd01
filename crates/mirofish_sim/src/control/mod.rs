//! Control: running a simulation and changing it from outside.
//!
//! The headless driver ([`simulation`]), which takes changes stamped with
//! the tick they apply at ([`crate::step::command`]), runs recorded and replayed bit for bit
//! ([`replay`]), experiment files in RON ([`config`], and [`volume`] for
//! runs in a volume), snapshots to go back to ([`snapshot`]), the named
//! tunings
//! ([`preset`]) and every parameter by name with a safe range ([`tuning`]).

pub mod config;
pub mod preset;
pub mod replay;
pub mod simulation;
pub mod snapshot;
pub mod tuning;
pub mod volume;
