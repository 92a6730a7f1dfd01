//! MiroFish: fish schools (boids) for Bevy — fast, deterministic and
//! measurable.
//!
//! Every fish sees only a small neighbourhood and follows a few local rules
//! (separation, alignment, cohesion, a slow wander and a little bounded
//! noise); the school's turning, splitting and regrouping emerge. This
//! crate is the front door: it re-exports the Bevy plugin
//! ([`mirofish_bevy`], whose items are at this crate's root) and the pure
//! simulation core as [`sim`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default()))
//!     .add_systems(Startup, |mut commands: Commands| commands.queue(SpawnSchool::new(500)))
//!     .run();
//! ```
//!
//! The plugin moves the fish's `Transform`s and draws nothing; the game
//! kit (feature `kit`, the `kit` module) has plugins that give them a look,
//! one line each.
//!
//! Without a window, the core runs on its own:
//!
//! ```
//! use mirofish::sim::{FlockParams, Simulation, Tank, observe};
//!
//! let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 400, 42)?;
//! sim.run(300);
//! assert!(observe::polarization(sim.velocities()) <= 1.0);
//! # Ok::<(), mirofish::sim::ParamError>(())
//! ```
//!
//! The guide (getting started, how a tick runs, tuning, commands and
//! replays, experiments, performance) is in the repository's `docs/`
//! folder; the `aquarium` example shows every feature at once.

pub use mirofish_bevy::*;

/// The pure simulation core (no Bevy): world, rules, step, observation and
/// control.
pub use mirofish_sim as sim;

/// The decision layer: units of a school that decide where to go, by rules
/// or by a language model, recorded as commands; its Bevy plugin is
/// `decide::plugin::DecisionPlugin`.
pub use mirofish_decide as decide;

/// The game kit (feature `kit`): opt-in plugins that draw the school, e.g.
/// `kit::FishLookPlugin` for fish sprites that beat their tails.
#[cfg(feature = "kit")]
pub use mirofish_kit as kit;

/// Networked play (feature `net`): one school shared by players on several
/// machines with rollback netcode, e.g. `net::NetSchoolPlugin` over
/// `bevy_ggrs`.
#[cfg(feature = "net")]
pub use mirofish_net as net;

/// The README's and the guide's Rust examples, compiled (and, where they
/// need no window, run) by `cargo test`, so that the docs stay true.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../docs/game-kit.md")]
    struct GameKit;
    #[doc = include_str!("../docs/concepts.md")]
    struct Concepts;
    #[doc = include_str!("../docs/tuning.md")]
    struct Tuning;
    #[doc = include_str!("../docs/commands-and-replays.md")]
    struct CommandsAndReplays;
    #[doc = include_str!("../docs/experiments.md")]
    struct Experiments;
    #[doc = include_str!("../docs/decisions.md")]
    struct Decisions;
    #[doc = include_str!("../docs/volume.md")]
    struct Volume;
    #[doc = include_str!("../docs/networked.md")]
    struct Networked;
    #[doc = include_str!("../docs/performance.md")]
    struct Performance;
    #[doc = include_str!("../docs/contributing.md")]
    struct Contributing;
}
