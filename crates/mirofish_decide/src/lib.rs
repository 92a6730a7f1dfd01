//! MiroFish's decision layer: schools with intent.
//!
//! Motion is always the local rules, every tick. Above them, this crate
//! lets a school *decide* — where to go next, whether to hide — now and
//! then, by rules or by a language model, without ever holding up the
//! simulation:
//!
//! - The fish are split into 20–50 **units** (compact groups, see
//!   `FlockCommand::FormGroups`); each unit is described in a few words
//!   ([`UnitView`]) on behalf of its **representative**, the fish nearest
//!   its centre.
//! - A [`Decider`] answers with an [`Intent`] from a small vocabulary (go
//!   to a named region, follow the leaders, gather, spread out, hide, flee,
//!   rest) — never a velocity or a coordinate. The intent is mapped here to
//!   a goal for the unit's group, added on top of the rules. A game adds
//!   intents and regions of its own ([`Vocabulary`]).
//! - It works on a plane (over a `Simulation`) and in a volume (over a
//!   `Flock3d`, with regions of height, side and depth, and words for up
//!   and down).
//! - Units with a leader decide often, the rest rarely; a slow decider runs
//!   on the layer's own threads, answers enter as commands, a cache answers
//!   situations already seen, and timeouts, errors and answers outside the
//!   vocabulary fall back to a default intent ([`DecisionLayer`]).
//! - Because decisions are commands, a recorded run replays bit for bit
//!   with no model and no network.
//!
//! [`RuleDecider`] needs no network. With the `openai` feature,
//! `OpenAiDecider` asks any OpenAI-compatible chat-completions server (a
//! local llama.cpp server, Ollama, vLLM or a hosted API). With the `bevy`
//! feature, `plugin::DecisionPlugin` runs the layer in a game beside
//! `MiroFishPlugin` (and `plugin::DecisionPlugin3d` beside
//! `MiroFish3dPlugin`), and writes a message for every decision and every
//! fallback.
//!
//! ```
//! use mirofish_decide::{DecisionConfig, DecisionLayer};
//! use mirofish_sim::{ExperimentConfig, Simulation};
//!
//! let mut sim = Simulation::from_config(&ExperimentConfig { fish: 400, ..Default::default() })?;
//! let mut layer = DecisionLayer::with_rules(DecisionConfig::default())?;
//! for _ in 0..60 {
//!     for command in layer.plan(&sim, sim.tank(), sim.scene()) {
//!         sim.submit(command)?;
//!     }
//!     sim.step();
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cache;
pub mod decider;
pub mod intent;
pub mod layer;
pub mod name;
#[cfg(feature = "openai")]
pub mod openai;
#[cfg(feature = "bevy")]
pub mod plugin;
pub mod prompt;
pub mod region;
pub mod unit;
pub mod vocabulary;

pub use cache::{DecisionCache, SceneKey};
pub use decider::{DecideError, Decider, RuleDecider, ScriptedDecider, SlowDecider};
pub use intent::{Intent, Unfit};
pub use layer::{
    Adopted, Budget, DecisionConfig, DecisionConfigError, DecisionFailure, DecisionLayer, DecisionStats,
    FailureCause,
};
pub use name::{Name, NameError};
#[cfg(feature = "openai")]
pub use openai::{ClientStats, OpenAiDecider};
pub use region::{Place, PlaceError, Region, Regions};
pub use unit::{OtherSchool, Population, Threat, UnitView, describe_units};
pub use vocabulary::{Aim, OwnIntent, Takes, Vocabulary, VocabularyError};
