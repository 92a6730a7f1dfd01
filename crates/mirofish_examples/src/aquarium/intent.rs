//! Intent in the aquarium: the decision layer's plugin
//! ([`mirofish_decide::plugin`]) with its rule-based decider, switched on
//! from the panel (or `I`). The
//! schools split into units that each pick where to go — round the tank,
//! away from predators, behind rocks — and the kit's overlay draws each
//! unit's goal with a line from the unit's centre, coloured by intent.
//!
//! The layer's decisions enter as commands like every other input, so a
//! session with intent is as reproducible as one without.

use bevy::prelude::*;
use mirofish_decide::DecisionConfig;
use mirofish_decide::plugin::DecisionPlugin;
pub use mirofish_decide::plugin::{DecisionSettings, Decisions};

/// The aquarium's decision layer: the library's [`DecisionPlugin`], off
/// until switched on from the panel (or `I`), with 24 units. Needs no
/// window, so a headless app can use it; the game kit's overlay draws the
/// units' goals and its panel has the switch.
pub struct IntentPlugin;

impl Plugin for IntentPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<DecisionSettings>() {
            app.insert_resource(decision_settings(false));
        }
        app.add_plugins(DecisionPlugin);
    }
}

/// The aquarium's decision layer, on or off: 24 units.
pub fn decision_settings(on: bool) -> DecisionSettings {
    DecisionSettings { on, config: DecisionConfig { units: 24, ..DecisionConfig::default() } }
}
