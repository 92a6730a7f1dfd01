//! The MiroFish simulation core: fish schools (boids) on contiguous arrays,
//! with no engine attached.
//!
//! Each fish sees only its neighbourhood and follows three local rules —
//! separation, alignment, cohesion — plus a slowly turning wander and a
//! little bounded noise; the school's turning, splitting and regrouping
//! emerge from them. The Bevy plugin (`mirofish_bevy`) is thin glue around
//! this crate; tests, benchmarks and batch experiments use it directly.
//!
//! ```
//! use mirofish_sim::{FlockParams, Simulation, Tank, observe};
//!
//! let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 500, 1)?;
//! sim.run(600); // ten seconds at 60 ticks per second
//! let order = observe::polarization(sim.velocities());
//! assert!((0.0..=1.0).contains(&order));
//! # Ok::<(), mirofish_sim::ParamError>(())
//! ```
//!
//! # Layers
//!
//! Modules are stacked in layers, bottom first; each imports only from the
//! layers above it in this table, never from one below (the crate's test
//! `tests/layers.rs` reads every `use` and fails on one that goes up).
//!
//! | layer | modules | what lives there |
//! |---|---|---|
//! | arithmetic | [`math`]: `vector`, `angle`, lanes; `prefetch` | the [`Vector`] trait every rule is written over, sine and cosine with the same bits everywhere, four- and eight-lane arithmetic; a memory hint |
//! | world | [`world`]: `tank`, `scene`, `groups`, `params`, `school`, `zones`, `grid`, `spawn` | the tank, obstacles and predators, groups, parameters (the rules' and Couzin's zones') and their validation, the neighbour grid of both spaces |
//! | rules | [`rules`]: the three rules, `view`, `scene`, `boundary`, `noise`, `compose` | pure functions: one fish's state and its neighbourhood in, a velocity change out; `compose` sums them into its kick, the same in both spaces |
//! | the fish and their tick | [`step`]: `command`, `slots`, the force pass's kernel, `integrate`, `predators` | the commands applied at the start of a tick and the tick's shared parts (how fish are stored, the kernel's scans, the motion, the predators) |
//! | observation | [`observe`]: order parameters, `metrics`, `stats`, `health` | what can be measured without changing anything |
//! | any dimension | [`space`]: `swarm`, `command`, `zones` | a school over any [`Vector`] ([`Simulation`] on a plane, [`space::Flock3d`] in a volume), its tick, and Couzin's zone model |
//! | control | [`control`]: `simulation`, `snapshot`, `replay`, `config`, `volume`, `preset`, `tuning` | running a simulation and changing it from outside, reproducibly |
//!
//! # Guarantees
//!
//! - **Deterministic.** The same seed and the same commands give
//!   bit-identical states, whatever the number of threads, the build of the
//!   force pass ([`KernelPath`]) or the order the fish are stored in
//!   ([`SlotOrder`]). Noise is a pure function of seed, tick and fish.
//! - **Finite.** Every parameter is validated ([`FlockParams::validate`]),
//!   and for every valid one the tick produces no NaN or infinity.
//! - **No allocation** in a warmed-up tick run on a thread of the pool.

pub mod control;
pub mod math;
pub mod observe;
mod prefetch;
pub mod rules;
pub mod space;
pub mod step;
pub mod world;

/// The thread-pool crate the passes run on, for
/// [`Simulation::with_thread_pool`].
pub use rayon;

pub use control::config::{Ball, ConfigError, ExperimentConfig, RunConfig, SchoolConfig};
pub use control::preset::{Preset, with_auto_radius};
pub use control::replay::{Recorder, Recording, ReplayError, VolumeRecorder, VolumeRecording};
pub use control::simulation::Simulation;
pub use control::volume::{VolumeConfig, VolumeSchool};
pub use observe::metrics::{Metrics, MetricsLog};
pub use observe::state_hash;
pub use step::command::{CommandError, CommandQueue, FlockCommand, SpawnKey, Stamped, VolumeCommand};
pub use step::slots::{FishInputs, SlotOrder};
pub use step::{ForceSample, KernelPath, NeighbourSearch};
pub use world::groups::NO_GROUP;
pub use world::params::{
    DEFAULT_DT, FlockParams, MAX_FISH, MAX_NEIGHBOUR_CAP, MAX_TOPOLOGICAL_NEIGHBOURS, ParamError, PerFrame,
};
pub use world::scene::{Attractor, Goal, GoalMode, MAX_GROUPS, Obstacle, Predator, Route, Scene, Scene3d};
pub use world::school::SchoolTable;
pub use world::spawn::Spread;
pub use world::tank::{BoundaryMode, Tank, Tank3d, TankOf};

/// The vector types of the API: `Vec2` on a plane, `Vec3` in a volume (the
/// same `glam` types Bevy uses).
pub use glam::{Vec2, Vec3};
pub use math::Vector;
