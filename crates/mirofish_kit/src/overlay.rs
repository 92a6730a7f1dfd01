//! The debug overlay, drawn with gizmos: [`DebugOverlayPlugin`].
//!
//! Always: the tank, the predators' fear radii, the attractor, each
//! school's goal and the leaders' route. Per toggle ([`OverlaySettings`]):
//! lines to their neighbours, perception and separation circles and an
//! arrow per rule for the first fish, and the neighbour grid. And the fish
//! picked with the mouse tools ([`Inspected`]): its circles, its field of
//! view, its neighbours and its rule forces.

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FishId, FlockState};

use crate::look::{RULE_COLOURS, rule_parts};
use crate::tools::{Inspected, report};

/// Which overlay items are drawn (a game's keys or panel toggle them).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverlaySettings {
    /// Lines from each of the first [`OverlaySettings::fish`] fish to its
    /// neighbours within the perception radius.
    pub neighbours: bool,
    /// Arrows of each rule's force on those fish, one colour per rule.
    pub forces: bool,
    /// Their perception and separation circles.
    pub radii: bool,
    /// The uniform grid of the neighbour search.
    pub grid: bool,
    /// How many fish the per-fish items cover.
    pub fish: usize,
    /// Each decision unit's goal, where the decision layer runs (the
    /// `decide` feature).
    pub unit_goals: bool,
}

impl Default for OverlaySettings {
    fn default() -> Self {
        Self { neighbours: false, forces: false, radii: false, grid: false, fish: 20, unit_goals: true }
    }
}

/// Length of a force arrow per unit of acceleration (world units per
/// world unit/s²).
pub const ARROW_SCALE: f32 = 0.06;

/// Draws the debug overlay with Bevy's gizmos, over a plane's school:
/// the tank, predators' fear radii, the attractor, goals and route always,
/// the per-fish items and the grid as [`OverlaySettings`] asks, and the
/// fish picked to inspect ([`Inspected`], from
/// [`crate::MouseToolsPlugin`]); with the `decide` feature, each decision
/// unit's goal where the decision layer runs. Needs Bevy's gizmos (`DefaultPlugins`) and
/// [`mirofish_bevy::MiroFishPlugin`].
pub struct DebugOverlayPlugin;

impl Plugin for DebugOverlayPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OverlaySettings>().add_systems(Update, (draw_overlay, draw_inspected));
        #[cfg(feature = "decide")]
        app.add_systems(
            Update,
            crate::decisions::draw_unit_goals.run_if(resource_exists::<mirofish_decide::plugin::Decisions>),
        );
    }
}

fn draw_overlay(mut gizmos: Gizmos, overlay: Res<OverlaySettings>, state: Res<FlockState>) {
    let tank = state.config().tank;
    let centre = (tank.min + tank.max) * 0.5;
    gizmos.rect_2d(centre, tank.size(), Color::srgba(0.5, 0.7, 0.9, 0.5));
    for p in &state.scene().predators {
        gizmos.circle_2d(p.position, p.fear_radius, Color::srgba(1.0, 0.2, 0.2, 0.35));
    }
    if let Some(a) = state.scene().attractor {
        let colour = if a.strength >= 0.0 {
            Color::srgba(0.3, 1.0, 0.5, 0.6)
        } else {
            Color::srgba(1.0, 0.4, 0.8, 0.6)
        };
        gizmos.circle_2d(a.point, a.radius, colour);
        gizmos.circle_2d(a.point, 6.0, colour);
    }
    if let Some(route) = &state.scene().route {
        draw_route(&mut gizmos, route);
    }
    // Each school's goal, in the school's colour.
    for (school, goal) in state.scene().school_goals.iter().enumerate() {
        if let Some(goal) = goal {
            let [r, g, b] = state.config().colour_of(school as u16);
            let colour = Color::srgba(r, g, b, 0.9);
            gizmos.circle_2d(goal.target, 18.0, colour);
            gizmos.circle_2d(goal.target, 6.0, colour);
        }
    }
    let flock = &state.flock();
    let params = state.schools().first().copied().unwrap_or_default();
    if overlay.grid && !flock.is_empty() {
        let [cols, rows, _] = flock.grid().dimensions();
        gizmos.grid_2d(
            centre,
            UVec2::new(cols, rows),
            flock.grid().cell_size(),
            Color::srgba(0.6, 0.6, 0.6, 0.18),
        );
    }
    let shown = overlay.fish.min(flock.len());
    for slot in 0..shown {
        let p = flock.positions()[slot];
        if overlay.radii {
            gizmos.circle_2d(p, params.perception_radius, Color::srgba(0.4, 0.7, 1.0, 0.45));
            gizmos.circle_2d(p, params.separation_radius, Color::srgba(1.0, 0.4, 0.4, 0.6));
        }
        if overlay.neighbours {
            for n in flock.grid_neighbours(slot, params.perception_radius) {
                let q = flock.positions()[n as usize];
                // Across a wrapping seam, draw to the nearer image.
                let d =
                    mirofish_sim::world::grid::offset(p, q, tank.size(), tank.boundary == BoundaryMode::Wrap);
                gizmos.line_2d(p, p + d, Color::srgba(1.0, 1.0, 1.0, 0.35));
            }
        }
        if overlay.forces
            && let Some(sample) = flock.sample(slot)
        {
            for (force, (_, colour)) in rule_parts(&sample.rules).into_iter().zip(RULE_COLOURS) {
                if force.length_squared() > 1e-6 {
                    gizmos.arrow_2d(p, p + force * ARROW_SCALE, colour).with_tip_length(4.0);
                }
            }
        }
    }
}

/// The leaders' route: its legs, each waypoint's reach, the current one
/// brighter.
fn draw_route(gizmos: &mut Gizmos, route: &mirofish_sim::Route) {
    let colour = Color::srgba(1.0, 0.75, 0.3, 0.55);
    let legs = route.waypoints.windows(2).map(|w| (w[0], w[1]));
    let back = route.looping.then(|| route.waypoints.last().zip(route.waypoints.first())).flatten();
    for (a, b) in legs.chain(back.map(|(&a, &b)| (a, b))) {
        gizmos.line_2d(a, b, colour.with_alpha(0.3));
    }
    for (k, &w) in route.waypoints.iter().enumerate() {
        let current = k == route.next;
        gizmos.circle_2d(w, route.reach, if current { colour.with_alpha(0.95) } else { colour });
        gizmos.circle_2d(w, 4.0, colour);
    }
}

/// Draws the inspected fish's circles, field of view, neighbours and rule
/// forces.
fn draw_inspected(
    mut gizmos: Gizmos,
    inspected: Option<Res<Inspected>>,
    state: Res<FlockState>,
    slots: Query<&FishId>,
) {
    let Some(fish) = inspected.and_then(|i| i.fish) else { return };
    let Some(r) = report(&state, fish, slots.get(fish).ok()) else { return };
    let params =
        state.schools().get(usize::from(r.school)).or(state.schools().last()).copied().unwrap_or_default();
    let (p, tank) = (r.position, state.config().tank);
    gizmos.circle_2d(p, 9.0, Color::WHITE);
    gizmos.circle_2d(p, params.perception_radius, Color::srgba(0.4, 0.7, 1.0, 0.6));
    gizmos.circle_2d(p, params.separation_radius, Color::srgba(1.0, 0.4, 0.4, 0.7));
    // The field of view: its two edges, when it is not all round.
    let heading = r.velocity.try_normalize().unwrap_or(Vec2::X);
    if params.view_angle < core::f32::consts::TAU {
        for side in [-0.5, 0.5] {
            let edge = Vec2::from_angle(params.view_angle * side).rotate(heading);
            gizmos.line_2d(p, p + edge * params.perception_radius, Color::srgba(1.0, 1.0, 0.6, 0.7));
        }
    }
    for n in state.flock().grid_neighbours(r.slot, params.perception_radius) {
        let q = state.flock().positions()[n as usize];
        let d = mirofish_sim::world::grid::offset(p, q, tank.size(), tank.boundary == BoundaryMode::Wrap);
        gizmos.line_2d(p, p + d, Color::srgba(1.0, 1.0, 1.0, 0.5));
    }
    if let Some(sample) = r.forces {
        for (force, (_, colour)) in rule_parts(&sample.rules).into_iter().zip(RULE_COLOURS) {
            if force.length_squared() > 1e-6 {
                gizmos.arrow_2d(p, p + force * ARROW_SCALE, colour).with_tip_length(5.0);
            }
        }
    }
}
