//! The decision layer in the kit (the `decide` feature): each unit's goal
//! drawn by the debug overlay, and the panel's "decisions" section, where
//! the layer's plugin ([`mirofish_decide::plugin::DecisionPlugin`]) is
//! added. Nothing here decides: it shows what the layer decided.

use bevy::prelude::*;
use mirofish_bevy::FlockState;
use mirofish_decide::Intent;
use mirofish_decide::plugin::Decisions;

use crate::overlay::OverlaySettings;

/// The colour of an intent's marks: the overlay's rings and lines, the
/// panel's counts.
pub fn intent_colour(intent: Intent) -> Color {
    match intent {
        Intent::GoTo { .. } => Color::srgba(0.95, 0.85, 0.3, 0.8),
        Intent::FollowLeaders => Color::srgba(0.7, 0.7, 0.7, 0.6),
        Intent::Gather => Color::srgba(0.4, 0.9, 0.5, 0.8),
        Intent::SpreadOut => Color::srgba(0.5, 0.8, 1.0, 0.8),
        Intent::Hide => Color::srgba(0.7, 0.5, 1.0, 0.9),
        Intent::Flee { .. } => Color::srgba(1.0, 0.35, 0.3, 0.9),
        Intent::Rest => Color::srgba(0.5, 0.6, 0.9, 0.7),
        Intent::Own { .. } => Color::srgba(1.0, 0.6, 0.8, 0.85),
    }
}

/// The units' intents counted by name (every "go to" one kind, whatever
/// its region; a game's own intents each by its name), in the order of
/// [`Intent`]'s kinds.
pub fn intent_counts(decisions: &Decisions) -> Vec<(Intent, usize)> {
    let Some(layer) = decisions.layer.as_ref() else { return Vec::new() };
    let mut counts: Vec<(Intent, usize)> = Vec::new();
    for i in layer.intents().flatten() {
        match counts.iter_mut().find(|(k, _)| k.name() == i.name()) {
            Some((_, n)) => *n += 1,
            None => counts.push((i, 1)),
        }
    }
    counts.sort();
    counts
}

/// Each unit's goal, where [`OverlaySettings::unit_goals`] asks: a dot at
/// the unit's centre, a line to its goal and a ring there, in its
/// intent's colour.
pub(crate) fn draw_unit_goals(
    mut gizmos: Gizmos,
    overlay: Res<OverlaySettings>,
    decisions: Res<Decisions>,
    state: Res<FlockState>,
) {
    let Some(layer) = decisions.layer.as_ref().filter(|_| overlay.unit_goals) else { return };
    let first = layer.config().first_group;
    let units = usize::from(layer.config().units);
    let mut sums = vec![(Vec2::ZERO, 0u32); units];
    let (flock, groups) = (state.flock(), state.flock().groups());
    for (slot, &p) in flock.positions().iter().enumerate() {
        let group = groups.get(flock.ids()[slot] as usize).copied().unwrap_or(mirofish_sim::NO_GROUP);
        if let Some(k) = group.checked_sub(first).map(usize::from).filter(|&k| k < units) {
            sums[k].0 += p;
            sums[k].1 += 1;
        }
    }
    for (k, intent) in layer.intents().enumerate() {
        let (Some(intent), Some(&(sum, n))) = (intent, sums.get(k)) else { continue };
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
