//! The decision layer in the kit (the `decide` feature): each unit's goal
//! drawn by the debug overlay (on a plane and in a volume), and the
//! panel's "decisions" section, where
//! the layer's plugin ([`mirofish_decide::plugin::DecisionPlugin`]) is
//! added. Nothing here decides: it shows what the layer decided.

use bevy::prelude::*;
use mirofish_bevy::FlockState;
use mirofish_bevy::volume::Flock3dState;
use mirofish_decide::plugin::Decisions;
use mirofish_decide::{DecisionLayer, Intent, Population};
use mirofish_sim::{Scene, Vector};

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
pub fn intent_counts<V: Vector>(decisions: &Decisions<V>) -> Vec<(Intent, usize)> {
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

/// The centre of each of `layer`'s units in `flock` (`None`: a unit
/// without fish), in either space.
fn unit_centres<V: Vector>(layer: &DecisionLayer<V>, flock: &impl Population<V>) -> Vec<Option<V>> {
    let first = layer.config().first_group;
    let units = usize::from(layer.config().units);
    let mut sums = vec![(V::ZERO, 0u32); units];
    let (ids, groups) = (flock.ids(), flock.groups());
    for (slot, &p) in flock.positions().iter().enumerate() {
        let group = groups.get(ids[slot] as usize).copied().unwrap_or(mirofish_sim::NO_GROUP);
        if let Some(k) = group.checked_sub(first).map(usize::from).filter(|&k| k < units) {
            sums[k].0 += p;
            sums[k].1 += 1;
        }
    }
    sums.into_iter().map(|(sum, n)| (n > 0).then(|| sum / n as f32)).collect()
}

/// Each unit with an intent and a goal: its intent, centre and goal.
fn unit_goals<V: Vector>(
    layer: &DecisionLayer<V>,
    flock: &impl Population<V>,
    scene: &Scene<V>,
) -> impl Iterator<Item = (Intent, V, V)> {
    let first = layer.config().first_group;
    let centres = unit_centres(layer, flock);
    let goals: Vec<_> = layer
        .intents()
        .enumerate()
        .filter_map(|(k, intent)| {
            let goal = scene.group_goal(first + k as u16)?;
            Some((intent?, (*centres.get(k)?)?, goal.target))
        })
        .collect();
    goals.into_iter()
}

/// Each unit's goal on a plane, where [`OverlaySettings::unit_goals`]
/// asks: a dot at the unit's centre, a line to its goal and a ring there,
/// in its intent's colour.
pub(crate) fn draw_unit_goals(
    mut gizmos: Gizmos,
    overlay: Res<OverlaySettings>,
    decisions: Res<Decisions>,
    state: Res<FlockState>,
) {
    let Some(layer) = decisions.layer.as_ref().filter(|_| overlay.unit_goals) else { return };
    for (intent, centre, goal) in unit_goals(layer, state.flock(), state.scene()) {
        let colour = intent_colour(intent);
        gizmos.circle_2d(centre, 5.0, colour);
        gizmos.line_2d(centre, goal, colour.with_alpha(0.35));
        gizmos.circle_2d(goal, 14.0, colour);
    }
}

/// Each unit's goal in a volume ([`crate::overlay3d::DebugOverlay3dPlugin`]),
/// as on a plane: a small sphere at the unit's centre, a line to its goal
/// and a sphere there.
pub(crate) fn draw_unit_goals3d(
    mut gizmos: Gizmos,
    overlay: Res<OverlaySettings>,
    decisions: Res<Decisions<Vec3>>,
    state: Res<Flock3dState>,
) {
    let Some(layer) = decisions.layer.as_ref().filter(|_| overlay.unit_goals) else { return };
    for (intent, centre, goal) in unit_goals(layer, state.flock(), state.flock().scene()) {
        let colour = intent_colour(intent);
        gizmos.sphere(Isometry3d::from_translation(centre), 5.0, colour);
        gizmos.line(centre, goal, colour.with_alpha(0.35));
        gizmos.sphere(Isometry3d::from_translation(goal), 14.0, colour);
    }
}
