//! The decision layer in a Bevy game, on a plane beside
//! [`MiroFishPlugin`](mirofish_bevy::MiroFishPlugin) ([`DecisionPlugin`])
//! or in a volume beside
//! [`MiroFish3dPlugin`](mirofish_bevy::volume::MiroFish3dPlugin)
//! ([`DecisionPlugin3d`]) (the `bevy` feature).
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
//! starts with. It starts with the rule-based decider in
//! [`Decisions::vocabulary`] (the built-in intents and the tank's regions,
//! unless the game put its own there); to ask a language model instead,
//! put a layer built with that decider in [`Decisions::layer`] (for
//! example `DecisionLayer::new(config, OpenAiDecider::from_env()?)` with
//! the `openai` feature): a layer there is kept while the settings say on.
//! Its decisions enter as commands in [`BoidSystems::Commands`], before
//! the tick's first stage, so a recorded session replays without it. Every intent adopted is
//! written as a [`UnitDecided`] message and every fallback's cause as a
//! [`DecisionFailed`], in the tick that noticed it.

use bevy::prelude::*;
use mirofish_bevy::{BoidSystems, FlockCommand, FlockCommands, FlockState, Space};
use mirofish_sim::{Vec2, Vec3, Vector};

use crate::layer::{Adopted, DecisionConfig, DecisionFailure, DecisionLayer};
use crate::vocabulary::Vocabulary;

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

/// The running layer, if any, and the vocabulary a layer the plugin starts
/// decides in: `Decisions` on a plane, `Decisions<Vec3>` in a volume. Put
/// a layer built with your own decider in `layer` to use it instead of
/// the rules.
#[derive(Resource, Debug)]
pub struct Decisions<V: Vector = Vec2> {
    /// The layer.
    pub layer: Option<DecisionLayer<V>>,
    /// The intents and regions of a layer the plugin starts with the rules
    /// (default: the built-in intents and the tank's thirds); a change
    /// takes effect at the next start.
    pub vocabulary: Vocabulary<V>,
    /// The tick it last planned for (a restart of the school starts the
    /// layer over).
    last_tick: u64,
}

impl<V: Vector> Default for Decisions<V> {
    fn default() -> Self {
        Self { layer: None, vocabulary: Vocabulary::default(), last_tick: 0 }
    }
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
        add_common::<Vec2>(app);
        app.add_systems(FixedUpdate, plan::<Vec2>.in_set(BoidSystems::Commands));
    }
}

/// Runs the decision layer on a volume's school, as [`DecisionPlugin`]
/// does on a plane: [`DecisionSettings`], `Decisions<Vec3>`, the same
/// messages. Its commands go into `FlockCommands<Vec3>` in
/// [`BoidSystems::Commands`], before the tick's first stage, in
/// `FixedUpdate` (the volume plugin's default schedule).
pub struct DecisionPlugin3d;

impl Plugin for DecisionPlugin3d {
    fn build(&self, app: &mut App) {
        add_common::<Vec3>(app);
        app.add_systems(FixedUpdate, plan::<Vec3>.in_set(BoidSystems::Commands));
    }
}

fn add_common<V: Vector>(app: &mut App) {
    app.init_resource::<DecisionSettings>()
        .init_resource::<Decisions<V>>()
        .add_message::<UnitDecided>()
        .add_message::<DecisionFailed>();
}

/// Plans the coming tick's decisions in either space (in
/// [`BoidSystems::Commands`], so they apply at its start) and writes what
/// they were.
fn plan<V: Space>(
    settings: Res<DecisionSettings>,
    mut decisions: ResMut<Decisions<V>>,
    state: Res<FlockState<V>>,
    mut commands: ResMut<FlockCommands<V>>,
    messages: (MessageWriter<UnitDecided>, MessageWriter<DecisionFailed>),
) {
    let flock = state.flock();
    let planned = run_layer(&settings, &mut decisions, flock.tick(), messages, |layer| {
        layer.plan(flock, flock.tank(), flock.scene())
    });
    for command in planned {
        // The layer's commands are valid by construction; one refused
        // (the queue full) is dropped with a warning, as any game input.
        if let Err(e) = commands.submit(command) {
            log::warn!("decision layer: {e}");
        }
    }
}

/// Starts, stops and runs the layer for the tick `tick` of either space,
/// planning with `plan`; returns the commands to submit and writes the
/// messages.
fn run_layer<V: Vector>(
    settings: &DecisionSettings,
    decisions: &mut Decisions<V>,
    tick: u64,
    (mut decided, mut failed): (MessageWriter<UnitDecided>, MessageWriter<DecisionFailed>),
    plan: impl FnOnce(&mut DecisionLayer<V>) -> Vec<FlockCommand<V>>,
) -> Vec<FlockCommand<V>> {
    if tick < decisions.last_tick {
        // A restart: new fish, new state, no groups.
        decisions.layer = None;
    }
    decisions.last_tick = tick;
    match (settings.on, decisions.layer.is_some()) {
        (true, false) => {
            let words = decisions.vocabulary.clone();
            match DecisionLayer::with_vocabulary(
                settings.config.clone(),
                crate::RuleDecider::default(),
                words,
            ) {
                Ok(layer) => decisions.layer = Some(layer),
                Err(e) => log::warn!("decision layer: {e}"),
            }
        }
        (false, true) => {
            decisions.layer = None;
            return vec![FlockCommand::ClearGroups];
        }
        _ => {}
    }
    let Some(layer) = decisions.layer.as_mut() else { return Vec::new() };
    let planned = plan(layer);
    failed.write_batch(layer.failed().iter().cloned().map(DecisionFailed));
    decided.write_batch(layer.adopted().iter().copied().map(UnitDecided));
    planned
}
