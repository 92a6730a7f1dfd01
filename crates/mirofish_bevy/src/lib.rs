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
//!     .add_plugins(MiroFishPlugin::default())
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! app.world_mut().commands().queue(SpawnSchool::new(300));
//! // The first update starts the clocks; every later one runs one tick.
//! for _ in 0..=30 {
//!     app.update();
//! }
//! let state = app.world().resource::<FlockState>();
//! assert_eq!((state.flock.len(), state.flock.tick()), (300, 30));
//! ```
//!
//! In a game, add the plugin next to `DefaultPlugins` and give each fish a
//! look when it arrives (an observer on `Add<Boid>` inserting a sprite or a
//! mesh); the plugin turns it along its velocity.
//!
//! # How a tick runs
//!
//! The plugin runs the sets of [`BoidSystems`] in [`FixedUpdate`], chained:
//! apply the due [`FlockCommands`] → gather the fish and rebuild the spatial
//! index → accumulate the forces (each fish's total clamped once) →
//! integrate (walls and obstacles included) → predators → write-back.
//! Between ticks the entities' [`Position`], [`Velocity`] and
//! [`WanderPhase`] are the truth; each tick copies them into
//! contiguous arrays, runs the core's passes there (in parallel), and writes
//! the result back. In variable-rate frames, [`interpolate_transforms`]
//! blends each fish's `Transform` between its last two tick positions.
//!
//! # Why a fixed step, and why 60 Hz
//!
//! The rules are tuned per tick, and a step tied to the frame rate makes the
//! school speed up or slow down with it (a classic pitfall). The plugin
//! sets `Time<Fixed>` to 60 Hz, the rate the defaults are tuned for, unless
//! told otherwise, and caps the catch-up after a long frame at three ticks
//! by limiting `Time<Virtual>`'s maximum delta.
//!
//! # Determinism
//!
//! The same seed, the same spawns and the same configuration changes at the
//! same ticks give bit-identical states, whatever the number of threads: the
//! force pass reads only the previous tick, each fish's neighbours are
//! summed in an order fixed by the state alone, and noise is a pure function
//! of `(seed, tick, fish)`.

mod columns;
mod commands;
mod components;
mod config;
pub mod interpolation;
mod metrics;
mod schedule;
mod spawn;
mod state;
mod systems;

use core::time::Duration;

use bevy::app::{RunFixedMainLoop, RunFixedMainLoopSystems};
use bevy::prelude::*;

pub use commands::FlockCommands;
pub use components::{
    Boid, FishSlot, Leader, Obstacle, Position, Predator, PreviousPosition, School, Steering, Velocity,
    WanderPhase,
};
pub use config::{FlockConfig, SCHOOL_PALETTE};
pub use interpolation::interpolate_transforms;
pub use metrics::FlockMetrics;
pub use mirofish_sim;
/// A change to the running school ([`mirofish_sim::Command`]), named apart
/// from Bevy's own `Command` trait.
pub use mirofish_sim::Command as FlockCommand;
pub use schedule::BoidSystems;
pub use spawn::SpawnSchool;
pub use state::FlockState;

/// The types a game needs, in one `use`.
pub mod prelude {
    pub use crate::FlockCommand;
    pub use crate::{
        Boid, BoidSystems, FishSlot, FlockCommands, FlockConfig, FlockMetrics, FlockState, Leader,
        MiroFishPlugin, Obstacle, Position, Predator, PreviousPosition, School, SpawnSchool, Steering,
        Velocity, WanderPhase,
    };
    pub use mirofish_sim::{Attractor, BoundaryMode, FlockParams, Goal, GoalMode, Tank};
}

/// Most fixed ticks run in one frame to catch up after a slow frame.
pub const MAX_CATCH_UP_TICKS: u32 = 3;

/// Adds the fish-school simulation to an app.
///
/// Inserts a default [`FlockConfig`] unless the app already has one, sets
/// the fixed clock to [`MiroFishPlugin::tick_rate`], and schedules the
/// [`BoidSystems`] sets. Works headless (`MinimalPlugins`, no window).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MiroFishPlugin {
    /// Fixed ticks per second (default 60, the rate the defaults are tuned for).
    pub tick_rate: f64,
    /// Whether to interpolate `Transform`s between ticks (default on; turn
    /// it off to drive `Transform` yourself).
    pub interpolate: bool,
}

impl Default for MiroFishPlugin {
    fn default() -> Self {
        Self { tick_rate: 60.0, interpolate: true }
    }
}

impl MiroFishPlugin {
    /// The plugin with another tick rate.
    pub fn with_tick_rate(mut self, hz: f64) -> Self {
        self.tick_rate = hz;
        self
    }
}

impl Plugin for MiroFishPlugin {
    fn build(&self, app: &mut App) {
        assert!(
            self.tick_rate.is_finite() && self.tick_rate >= 1.0 && self.tick_rate <= 10_000.0,
            "MiroFishPlugin: tick_rate must be between 1 and 10000 Hz, got {}",
            self.tick_rate
        );
        let config = app.world_mut().get_resource_or_insert_with(FlockConfig::default).clone();
        if let Err(err) = config.validate() {
            panic!("MiroFishPlugin: the initial FlockConfig is invalid: {err}");
        }
        app.insert_resource(FlockState::new(config))
            .init_resource::<FlockCommands>()
            .init_resource::<FlockMetrics>()
            .insert_resource(Time::<Fixed>::from_hz(self.tick_rate))
            .register_type::<Boid>()
            .register_type::<Position>()
            .register_type::<Velocity>()
            .register_type::<Steering>()
            .register_type::<WanderPhase>()
            .register_type::<PreviousPosition>()
            .register_type::<Leader>()
            .register_type::<School>()
            .register_type::<Obstacle>()
            .register_type::<Predator>()
            .add_systems(
                FixedUpdate,
                (
                    // Right after the set, so systems placed in it can
                    // still submit commands for this very tick.
                    commands::apply_commands.after(BoidSystems::Commands).before(BoidSystems::SpatialIndex),
                    (systems::gather, systems::rebuild_index).chain().in_set(BoidSystems::SpatialIndex),
                    systems::accumulate_forces.in_set(BoidSystems::Forces),
                    systems::integrate.in_set(BoidSystems::Integrate),
                    systems::move_predators.in_set(BoidSystems::Predators),
                    (systems::write_back, systems::write_back_predators, metrics::sample_metrics)
                        .chain()
                        .in_set(BoidSystems::Writeback),
                ),
            );
        for pair in BoidSystems::ORDER.windows(2) {
            app.configure_sets(FixedUpdate, pair[1].after(pair[0]));
        }
        cap_catch_up(app, self.tick_rate);
        if self.interpolate {
            app.add_systems(
                RunFixedMainLoop,
                interpolate_transforms.in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
            );
        }
    }

    fn finish(&self, app: &mut App) {
        // Again here: TimePlugin may be added after this plugin, and
        // `finish` runs once every plugin is built (`App::run` calls it).
        cap_catch_up(app, self.tick_rate);
    }
}

/// Limits `Time<Virtual>`'s maximum delta to [`MAX_CATCH_UP_TICKS`] ticks,
/// so a slow frame is followed by at most that many fixed ticks.
fn cap_catch_up(app: &mut App, tick_rate: f64) {
    let tick = Duration::from_secs_f64(1.0 / tick_rate);
    if let Some(mut virtual_time) = app.world_mut().get_resource_mut::<Time<Virtual>>() {
        virtual_time.set_max_delta(tick * MAX_CATCH_UP_TICKS);
    }
}
