//! Intent in the aquarium: the decision layer's plugin
//! ([`mirofish_decide::plugin`]) with its rule-based decider, switched on
//! from the panel (or `I`). The
//! schools split into units that each pick where to go — round the tank,
//! away from predators, behind rocks — and the overlay draws each unit's
//! goal with a line from the unit's centre, coloured by intent.
//!
//! The layer's decisions enter as commands like every other input, so a
//! session with intent is as reproducible as one without.

use bevy::prelude::*;
use mirofish_bevy::FlockState;
use mirofish_decide::plugin::DecisionPlugin;
pub use mirofish_decide::plugin::{DecisionSettings, Decisions};
use mirofish_decide::{DecisionConfig, Intent};

/// How the aquarium shows the units' intent.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct IntentSettings {
    /// Draw each unit's goal.
    pub show: bool,
}

impl Default for IntentSettings {
    fn default() -> Self {
        Self { show: true }
    }
}

/// The aquarium's decision layer: the library's [`DecisionPlugin`], off
/// until switched on from the panel (or `I`), with 24 units. Needs no
/// window, so a headless app can use it; the aquarium adds the drawing
/// ([`draw_goals`]).
pub struct IntentPlugin;

impl Plugin for IntentPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<DecisionSettings>() {
            app.insert_resource(decision_settings(false));
        }
        app.init_resource::<IntentSettings>().add_plugins(DecisionPlugin);
    }
}

/// The aquarium's decision layer, on or off: 24 units.
pub fn decision_settings(on: bool) -> DecisionSettings {
    DecisionSettings { on, config: DecisionConfig { units: 24, ..DecisionConfig::default() } }
}

/// The colour of an intent's marks.
pub fn intent_colour(intent: Intent) -> Color {
    match intent {
        Intent::GoTo { .. } => Color::srgba(0.95, 0.85, 0.3, 0.8),
        Intent::FollowLeaders => Color::srgba(0.7, 0.7, 0.7, 0.6),
        Intent::Gather => Color::srgba(0.4, 0.9, 0.5, 0.8),
        Intent::SpreadOut => Color::srgba(0.5, 0.8, 1.0, 0.8),
        Intent::Hide => Color::srgba(0.7, 0.5, 1.0, 0.9),
        Intent::Flee { .. } => Color::srgba(1.0, 0.35, 0.3, 0.9),
        Intent::Rest => Color::srgba(0.5, 0.6, 0.9, 0.7),
    }
}

/// Each unit's goal: a ring at the target and a line from the unit's
/// centre, in its intent's colour.
pub fn draw_goals(
    mut gizmos: Gizmos,
    settings: Res<IntentSettings>,
    decisions: Res<Decisions>,
    state: Res<FlockState>,
) {
    let Some(layer) = decisions.layer.as_ref().filter(|_| settings.show) else { return };
    let first = layer.config().first_group;
    let units = usize::from(layer.config().units);
    let mut sums = vec![(Vec2::ZERO, 0u32); units];
    let (flock, groups) = (&state.flock(), state.flock().groups());
    for (slot, &p) in flock.positions().iter().enumerate() {
        let group = groups.get(flock.ids()[slot] as usize).copied().unwrap_or(mirofish_sim::NO_GROUP);
        if let Some(k) = group.checked_sub(first).map(usize::from).filter(|&k| k < units) {
            sums[k].0 += p;
            sums[k].1 += 1;
        }
    }
    for (k, intent) in layer.intents().enumerate() {
        let (Some(intent), (sum, n)) = (intent, sums[k]) else { continue };
        let Some(goal) = state.scene().group_goal(first + k as u16) else { continue };
        if n == 0 {
            continue;
        }
        let colour = intent_colour(intent);
        let centre = sum / n as f32;
        gizmos.circle_2d(centre, 5.0, colour);
        gizmos.line_2d(centre, goal.target, colour.with_alpha(0.35));
        gizmos.circle_2d(goal.target, 14.0, colour);
    }
}
