//! Intent in the aquarium: the decision layer ([`mirofish_decide`]) with
//! its rule-based decider, switched on from the panel (or `I`). The
//! schools split into units that each pick where to go — round the tank,
//! away from predators, behind rocks — and the overlay draws each unit's
//! goal with a line from the unit's centre, coloured by intent.
//!
//! The layer's decisions enter as commands like every other input, so a
//! session with intent is as reproducible as one without.

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockCommands, FlockState};
use mirofish_decide::{DecisionConfig, DecisionLayer, Intent};
use mirofish_sim::step::command::FlockCommand;

/// Whether the schools decide where to go, and how.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct IntentSettings {
    /// The decision layer runs.
    pub on: bool,
    /// Decision units the fish are split into (taking effect when the
    /// layer is switched on).
    pub units: u16,
    /// Draw each unit's goal.
    pub show: bool,
}

impl Default for IntentSettings {
    fn default() -> Self {
        Self { on: false, units: 24, show: true }
    }
}

/// The running layer, if on; the tick it last planned for (a reset starts
/// it over).
#[derive(Resource, Default, Debug)]
pub struct Decisions {
    /// The layer.
    pub layer: Option<DecisionLayer>,
    last_tick: u64,
}

/// The decision layer's planning and resources (part of the aquarium;
/// it needs no window, so a headless app can use it). The aquarium adds
/// the drawing ([`draw_goals`]).
pub struct IntentPlugin;

impl Plugin for IntentPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<IntentSettings>()
            .init_resource::<Decisions>()
            .add_systems(FixedUpdate, plan.in_set(BoidSystems::Commands));
    }
}

/// Plans the coming tick's decisions (in [`BoidSystems::Commands`], so
/// they apply at its start).
fn plan(
    settings: Res<IntentSettings>,
    mut decisions: ResMut<Decisions>,
    state: Res<FlockState>,
    mut commands: ResMut<FlockCommands>,
) {
    let tick = state.flock().tick();
    let decisions = &mut *decisions;
    if tick < decisions.last_tick {
        // A reset: new fish, new state, no groups.
        decisions.layer = None;
    }
    decisions.last_tick = tick;
    let mut send = |command: FlockCommand| {
        if let Err(e) = commands.submit(command) {
            warn!("aquarium intent: {e}");
        }
    };
    match (settings.on, decisions.layer.is_some()) {
        (true, false) => {
            let config = DecisionConfig { units: settings.units, ..DecisionConfig::default() };
            match DecisionLayer::with_rules(config) {
                Ok(layer) => decisions.layer = Some(layer),
                Err(e) => warn!("aquarium intent: {e}"),
            }
        }
        (false, true) => {
            decisions.layer = None;
            send(FlockCommand::ClearGroups);
        }
        _ => {}
    }
    if let Some(layer) = decisions.layer.as_mut() {
        for command in layer.plan(state.flock(), &state.config().tank, state.scene()) {
            send(command);
        }
    }
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
