//! The MiroFish simulation core: fish-school (boids) steering on contiguous
//! arrays, with no engine attached.
//!
//! Each fish sees only its neighbourhood and follows three local rules —
//! separation, alignment, cohesion — plus a slowly turning wander and a
//! little bounded noise. The school's turning, splitting and regrouping
//! emerge from them.
//!
//! This crate is the part where speed and correctness live: the rules are
//! pure functions ([`rules`]), the neighbour index is a uniform grid rebuilt
//! every tick by counting sort ([`grid`]), and a tick is three ordered passes
//! over structure-of-arrays state ([`Flock`]). It is deterministic: the same
//! seed gives bit-identical states, whatever the number of threads, the
//! build of the force pass ([`KernelPath`]) or the order the fish are
//! stored in ([`SlotOrder`]: a large run can keep them in the grid's order,
//! so that each tick reads them along memory). The Bevy plugin
//! (`mirofish_bevy`) is thin glue around it.
//!
//! Around the tick: [`command`] (outside changes stamped with the tick they
//! apply at), [`replay`] (a run recorded as configuration + commands +
//! state hashes, and replayed), [`config`] (experiment files in RON),
//! [`metrics`] and [`stats`] (order parameters sampled over a run and their
//! summary), and [`tuning`] (every parameter by name with a safe range).
//!
//! ```
//! use mirofish_sim::{FlockParams, Simulation, Tank, observe};
//!
//! let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 500, 1)?;
//! sim.run(600)?; // ten seconds at 60 Hz
//! let order = observe::polarization(sim.flock.velocities());
//! assert!((0.0..=1.0).contains(&order));
//! # Ok::<(), mirofish_sim::ParamError>(())
//! ```

pub mod angle;
pub mod boundary;
pub mod command;
pub mod config;
pub mod flock;
pub mod grid;
mod kernel;
mod lanes;
pub mod metrics;
pub mod noise;
pub mod observe;
pub mod params;
mod prefetch;
pub mod preset;
pub mod replay;
pub mod rules;
pub mod scene;
pub mod school;
pub mod simulation;
pub mod spawn;
pub mod stats;
pub mod tuning;
pub mod view;

pub use command::{Command, CommandError, CommandQueue, SpawnKey, Stamped};
pub use config::{ConfigError, ExperimentConfig};
pub use flock::{FishInputs, Flock, ForceSample, KernelPath, NeighbourSearch, SlotOrder};
pub use metrics::{Metrics, MetricsLog};
pub use observe::state_hash;
pub use params::{BoundaryMode, FlockParams, MAX_TOPOLOGICAL_NEIGHBOURS, ParamError, PerFrame, Tank};
pub use preset::Preset;
pub use replay::{Recorder, Recording, ReplayError};
pub use scene::{Attractor, Goal, GoalMode, Obstacle, Predator, Route, Scene};
pub use school::SchoolTable;
pub use simulation::{DEFAULT_DT, Simulation};

/// The vector type of the whole API (the same `glam` type Bevy uses).
pub use glam::Vec2;
