//! The decision layer in a Bevy game on a plane, beside
//! [`MiroFishPlugin`](mirofish_bevy::MiroFishPlugin) (the `bevy` feature).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_decide::plugin::{DecisionPlugin, UnitDecided};
//!
//! fn log(mut decided: MessageReader<UnitDecided>) {
//!     for d in decided.read() {
//!         info!("unit {} now: {:?}", d.0.unit, d.0.intent);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), DecisionPlugin))
//!     .add_systems(Update, log)
//!     .run();
//! ```
//!
//! [`DecisionSettings`] switches the layer on and off at run time (off,
//! the units' groups and goals go again) and holds the configuration it
//! starts with. It starts with the rule-based decider; to ask a language
//! model instead, put a layer built with that decider in
//! [`Decisions::layer`] (for example `DecisionLayer::new(config,
//! OpenAiDecider::from_env()?)` with the `openai` feature): a layer there
//! is kept while the settings say on. Its decisions enter as commands in
//! [`BoidSystems::Commands`], so a recorded session replays without it.
//! Every intent adopted is written as a [`UnitDecided`] message and every
//! fallback's cause as a [`DecisionFailed`], in the tick that noticed it.

use bevy::prelude::*;
use mirofish_bevy::{BoidSystems, FlockCommand, FlockCommands, FlockState};

use crate::layer::{Adopted, DecisionConfig, DecisionFailure, DecisionLayer};

/// Whether the layer runs, and how it starts.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct DecisionSettings {
    /// The layer runs (the default). Switched off, the layer is dropped and
    /// the units' groups and their goals are cleared.
    pub on: bool,
    /// The configuration a layer starts with when switched on (a change
    /// takes effect at the next start: switch it off and on).
    pub config: DecisionConfig,
}

impl Default for DecisionSettings {
    fn default() -> Self {
        Self { on: true, config: DecisionConfig::default() }
    }
}

/// The running layer, if any. Put one built with your own decider here to
/// use it instead of the rules.
#[derive(Resource, Default, Debug)]
pub struct Decisions {
    /// The layer.
    pub layer: Option<DecisionLayer>,
    /// The tick it last planned for (a restart of the school starts the
    /// layer over).
    last_tick: u64,
}

/// An intent a unit was given (by its decider, the cache or the fallback:
/// [`Adopted::fallback`] says which).
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct UnitDecided(pub Adopted);

/// Why a unit's decider failed it (a timeout, an error, an answer that
/// does not fit, the budget); the unit falls back to the default intent,
/// written as a [`UnitDecided`] too.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct DecisionFailed(pub DecisionFailure);

/// Runs the decision layer on a plane's school ([`DecisionSettings`],
/// [`Decisions`], the messages [`UnitDecided`] and [`DecisionFailed`]).
/// Needs no window: a headless app can use it.
pub struct DecisionPlugin;

impl Plugin for DecisionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DecisionSettings>()
            .init_resource::<Decisions>()
            .add_message::<UnitDecided>()
            .add_message::<DecisionFailed>()
            .add_systems(FixedUpdate, plan.in_set(BoidSystems::Commands));
    }
}

/// Plans the coming tick's decisions (in [`BoidSystems::Commands`], so
/// they apply at its start) and writes what they were.
fn plan(
    settings: Res<DecisionSettings>,
    mut decisions: ResMut<Decisions>,
    state: Res<FlockState>,
    mut commands: ResMut<FlockCommands>,
    (mut decided, mut failed): (MessageWriter<UnitDecided>, MessageWriter<DecisionFailed>),
) {
    let tick = state.flock().tick();
    let decisions = &mut *decisions;
    if tick < decisions.last_tick {
        // A restart: new fish, new state, no groups.
        decisions.layer = None;
    }
    decisions.last_tick = tick;
    let mut send = |command: FlockCommand| {
        // The layer's commands are valid by construction; one refused
        // (the queue full) is dropped with a warning, as any game input.
        if let Err(e) = commands.submit(command) {
            log::warn!("decision layer: {e}");
        }
    };
    match (settings.on, decisions.layer.is_some()) {
        (true, false) => match DecisionLayer::with_rules(settings.config.clone()) {
            Ok(layer) => decisions.layer = Some(layer),
            Err(e) => log::warn!("decision layer: {e}"),
        },
        (false, true) => {
            decisions.layer = None;
            send(FlockCommand::ClearGroups);
        }
        _ => {}
    }
    let Some(layer) = decisions.layer.as_mut() else { return };
    for command in layer.plan(state.flock(), &state.config().tank, state.scene()) {
        send(command);
    }
    failed.write_batch(layer.failed().iter().cloned().map(DecisionFailed));
    decided.write_batch(layer.adopted().iter().copied().map(UnitDecided));
}
