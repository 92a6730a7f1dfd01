//! The MiroFish Bevy plugin: fish schools (boids) as entities, stepped in
//! ordered [`FixedUpdate`] sets by the deterministic core in
//! [`mirofish_sim`].
//!
//! Add [`MiroFishPlugin`], spawn a school with [`SpawnSchool`], and every
//! fish becomes an entity with a [`Position`], a [`Velocity`] and a
//! `Transform` that follows them. Headless, stepped one fixed tick per
//! update:
//!
//! ```
//! use bevy::app::ScheduleRunnerPlugin;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use mirofish_bevy::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
//!     .insert_resource(FlockConfig { seed: 7, ..default() })
//!     .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0))
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! app.world_mut().commands().queue(SpawnSchool::new(300));
//! // The first update starts the clocks; every later one runs one tick.
//! for _ in 0..=30 {
//!     app.update();
//! }
//! let state = app.world().resource::<FlockState>();
//! assert_eq!((state.flock().len(), state.tick()), (300, 30));
//! ```
//!
//! In a game, add the plugin next to `DefaultPlugins` and give each fish a
//! look when it arrives (an observer on `Add<Boid>` inserting a sprite or a
//! mesh); the plugin turns it along its velocity.
//!
//! # How a tick runs
//!
//! The plugin runs the sets of [`BoidSystems`] in [`FixedUpdate`], chained:
//! hand the due [`FlockCommands`] to the core → gather the fish, apply the
//! commands and rebuild the spatial index → accumulate the forces (each
//! fish's total clamped once) → add the game's own forces
//! ([`ExtraSteering`]) and clamp again → integrate → the walls and rocks
//! (the boundary) → predators → write-back (the entities follow what the
//! commands added or removed).
//! The core ([`FlockState::flock`]: a [`mirofish_sim::Simulation`], the
//! engine that runs every headless school and every volume) holds every
//! fish in contiguous arrays, each entity naming its fish by [`FishId`],
//! and runs each set's stage of the tick there (in parallel); each tick
//! starts by taking in the fish a game spawned, taking out those whose
//! entities it despawned (the fish with the highest id takes a freed id),
//! and taking in whatever it wrote to a fish's [`Position`], [`Velocity`],
//! [`WanderPhase`] or [`School`] since the last tick, and ends by writing
//! the result back to the entities. In variable-rate frames, [`interpolate_transforms`]
//! blends each fish's `Transform` between its last two tick positions.
//!
//! # Why a fixed step
//!
//! A step tied to the frame rate makes the school's run depend on the frame
//! rate, and no two runs alike. The plugin ticks in [`FixedUpdate`] by
//! default, at the app's fixed rate; it leaves the app's clocks alone unless
//! asked ([`MiroFishPlugin::with_tick_rate`] sets the rate,
//! [`MiroFishPlugin::with_max_catch_up`] caps the catch-up after a long
//! frame), so a game with fixed-step physics of its own keeps its settings.
//!
//! # Determinism
//!
//! The same seed, the same spawns and the same configuration changes at the
//! same ticks give bit-identical states, whatever the number of threads: the
//! force pass reads only the previous tick, each fish's neighbours are
//! summed in an order fixed by the state alone, and noise is a pure function
//! of `(seed, tick, fish)`.
//!
//! [`FixedUpdate`]: bevy::app::FixedUpdate

#[cfg(feature = "asset")]
mod asset;
mod columns;
mod commands;
mod components;
mod config;
mod fish_entities;
pub mod interpolation;
mod metrics;
mod plugin;
mod recording;
mod refusals;
mod scene_entities;
mod schedule;
mod space;
mod spawn;
mod start;
mod state;
mod systems;
mod tick;
mod turn;
pub mod volume;

#[cfg(feature = "asset")]
pub use asset::{FlockAsset, FlockAssetError, FlockAssetLoader, FlockAssetPlugin, FlockConfigAsset};
pub use commands::FlockCommands;
pub use components::{
    Boid, ExtraSteering, FishGroup, FishId, Leader, Obstacle2d, Position, Predator2d, PreviousPosition,
    School, Steering, Velocity, WanderPhase,
};
pub use config::{FlockConfig, FlockConfigOf, SCHOOL_PALETTE};
pub use interpolation::interpolate_transforms;
pub use metrics::FlockMetrics;
pub use mirofish_sim;
/// A change to the running school, stamped with the tick it applies at
/// (named apart from Bevy's own `Command` trait).
pub use mirofish_sim::FlockCommand;
pub use plugin::{MiroFishPlugin, MiroFishPluginOf};
pub use recording::{FlockRecorder, FlockRecorderOf, Session};
pub use refusals::{FlockRefusal, FlockRefusals, Refused};
pub use schedule::BoidSystems;
pub use space::Space;
pub use spawn::{SpawnSchool, SpawnSchoolOf};
pub use start::{LoadConfig, Restart};
pub use state::FlockState;

/// The types a game needs, in one `use`.
pub mod prelude {
    pub use crate::FlockCommand;
    pub use crate::{
        Boid, BoidSystems, ExtraSteering, FishId, FlockCommands, FlockConfig, FlockMetrics, FlockRecorder,
        FlockRefusal, FlockRefusals, FlockState, Leader, LoadConfig, MiroFishPlugin, Obstacle2d, Position,
        Predator2d, PreviousPosition, Refused, Restart, School, SpawnSchool, SpawnSchoolOf, Steering,
        Velocity, WanderPhase,
    };
    pub use mirofish_sim::{
        Attractor, BoundaryMode, FlockParams, Goal, GoalMode, Obstacle, Predator, Route, Tank,
    };
}

/// Most fixed ticks run in one frame to catch up after a slow frame, when
/// the game asks the plugin to limit them
/// ([`MiroFishPlugin::with_max_catch_up`]).
pub const MAX_CATCH_UP_TICKS: u32 = 3;
