//! The debug overlay in a volume, drawn with gizmos:
//! [`DebugOverlay3dPlugin`].
//!
//! Always: the tank's box, each predator's fear sphere, the attractor,
//! the shared and each school's goal and the leaders' route. Per toggle
//! ([`OverlaySettings`], shared with the plane's overlay): the first
//! fish's perception and separation spheres (`radii`), their neighbour
//! lines (`neighbours`) and an arrow per rule in the rule's colour
//! (`forces`: [`crate::look::RULE_COLOURS`]; the core keeps the rule forces
//! while it is on); with the `decide` feature, each decision unit's goal
//! (`unit_goals`) where the layer's 3D plugin runs. The fish picked to
//! inspect ([`crate::Inspected`], the 3D mouse tools' Ctrl + click) is
//! ringed and gets its spheres, neighbour lines and rule arrows whatever
//! the toggles.

use bevy::prelude::*;
use mirofish_bevy::volume::{FishId, Flock3dState};

use crate::look::{RULE_COLOURS, rule_parts};
use crate::overlay::OverlaySettings;
use crate::tools::Inspected;

/// World units of arrow per unit of force: longer than the plane's
/// ([`crate::overlay::ARROW_SCALE`]), as a volume is seen from further
/// off.
pub const ARROW_SCALE_3D: f32 = 0.2;

/// Draws the debug overlay over a volume's school. Needs Bevy's gizmos
/// (`DefaultPlugins`) and [`mirofish_bevy::volume::MiroFish3dPlugin`].
pub struct DebugOverlay3dPlugin;

impl Plugin for DebugOverlay3dPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OverlaySettings>().add_systems(Update, draw_overlay3d);
        #[cfg(feature = "decide")]
        app.add_systems(
            Update,
            crate::decisions::draw_unit_goals3d
                .run_if(resource_exists::<mirofish_decide::plugin::Decisions<Vec3>>),
        );
    }
}

/// The colours of the overlay's marks.
const TANK: Color = Color::srgba(0.5, 0.7, 0.9, 0.5);
const FEAR: Color = Color::srgba(1.0, 0.2, 0.2, 0.35);
const GOAL: Color = Color::srgba(1.0, 0.85, 0.3, 0.7);
const ROUTE: Color = Color::srgba(1.0, 0.6, 0.2, 0.7);
const RADII: Color = Color::srgba(0.4, 0.8, 1.0, 0.35);
const NEIGHBOURS: Color = Color::srgba(0.9, 0.9, 0.9, 0.25);
const INSPECTED: Color = Color::srgb(1.0, 1.0, 0.4);

/// The id and slot of `fish`, a fish entity in a volume, if it still
/// swims (the overlay's and the panel's inspected fish).
pub(crate) fn fish_slot3d(state: &Flock3dState, fish: Entity, ids: &Query<&FishId>) -> Option<(u32, usize)> {
    let id = *ids.get(fish).ok()?;
    Some((id.get()?, state.slot_of(fish, id)?))
}

fn draw_overlay3d(
    mut gizmos: Gizmos,
    overlay: Res<OverlaySettings>,
    mut state: ResMut<Flock3dState>,
    inspected: Option<Res<Inspected>>,
    ids: Query<&FishId>,
) {
    let picked =
        inspected.and_then(|i| i.fish).and_then(|fish| fish_slot3d(&state, fish, &ids)).map(|(_, slot)| slot);
    // The core keeps each rule's force only while arrows are drawn (the
    // ticks' bits are the same either way).
    let record = overlay.forces || picked.is_some();
    if state.flock().records_rules() != record {
        state.bypass_change_detection().set_record_rules(record);
    }
    let flock = state.flock();
    let (tank, scene) = (flock.tank(), flock.scene());
    let centre = (tank.min + tank.max) * 0.5;
    gizmos.cube(Transform::from_translation(centre).with_scale(tank.size()), TANK);
    for p in &scene.predators {
        gizmos.sphere(Isometry3d::from_translation(p.position), p.fear_radius, FEAR);
    }
    if let Some(a) = scene.attractor {
        let colour = if a.strength >= 0.0 {
            Color::srgba(0.3, 1.0, 0.5, 0.6)
        } else {
            Color::srgba(1.0, 0.4, 0.8, 0.6)
        };
        gizmos.sphere(Isometry3d::from_translation(a.point), a.radius, colour);
    }
    for goal in scene.goal.iter().chain(scene.school_goals.iter().flatten()) {
        gizmos.sphere(Isometry3d::from_translation(goal.target), 12.0, GOAL);
    }
    if let Some(route) = &scene.route {
        for pair in route.waypoints.windows(2) {
            gizmos.line(pair[0], pair[1], ROUTE);
        }
        if let Some(&next) = route.waypoints.get(route.next) {
            gizmos.sphere(Isometry3d::from_translation(next), 10.0, ROUTE);
        }
    }
    if let Some(slot) = picked {
        let p = flock.positions()[slot];
        gizmos.sphere(Isometry3d::from_translation(p), 16.0, INSPECTED);
        let all = OverlaySettings { radii: true, neighbours: true, forces: true, ..*overlay };
        draw_fish(&mut gizmos, &state, slot, &all);
    }
    if !(overlay.radii || overlay.neighbours || overlay.forces) {
        return;
    }
    // The first fish by id.
    for &slot in state.flock().slots().iter().take(overlay.fish) {
        draw_fish(&mut gizmos, &state, slot as usize, &overlay);
    }
}

/// The items `overlay` asks for of the fish in `slot`: its perception and
/// separation spheres, lines to its neighbours (by a plain search over the
/// school: a debugging aid for a few fish, not the core's grid) and an
/// arrow per rule.
fn draw_fish(gizmos: &mut Gizmos, state: &Flock3dState, slot: usize, overlay: &OverlaySettings) {
    let flock = state.flock();
    let (positions, school) = (flock.positions(), usize::from(flock.schools()[slot]));
    let p = positions[slot];
    let Some(params) = flock.params().get(school) else { return };
    if overlay.radii {
        gizmos.sphere(Isometry3d::from_translation(p), params.perception_radius, RADII);
        gizmos.sphere(Isometry3d::from_translation(p), params.separation_radius, FEAR);
    }
    if overlay.neighbours {
        let r2 = params.perception_radius * params.perception_radius;
        for &q in positions.iter().filter(|&&q| q != p && q.distance_squared(p) <= r2) {
            gizmos.line(p, q, NEIGHBOURS);
        }
    }
    if let Some(rules) = flock.sample(slot).map(|s| s.rules).filter(|_| overlay.forces) {
        for (force, (_, colour)) in rule_parts(&rules).into_iter().zip(RULE_COLOURS) {
            if force.length_squared() > 1e-6 {
                gizmos.arrow(p, p + force * ARROW_SCALE_3D, colour).with_tip_length(6.0);
            }
        }
    }
}
