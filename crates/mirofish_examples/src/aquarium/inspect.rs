//! Inspect one fish: Ctrl + click picks the fish nearest the cursor. The
//! overlay follows it — its perception and separation circles, its field
//! of view, lines to its neighbours, an arrow per rule — the panel shows
//! its numbers ([`FishReport`]), and the camera can follow it. Esc lets it
//! go.

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FishSlot, FlockState};
use mirofish_sim::ForceSample;

use super::input::{CursorWorld, PointerOverUi};
use mirofish_kit::look::{RULE_COLOURS, rule_parts};

/// The fish being inspected, and whether the camera follows it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct Inspected {
    /// The fish, if one is picked.
    pub fish: Option<Entity>,
    /// Keep the camera centred on it.
    pub follow: bool,
}

/// What the panel shows of the inspected fish, as of the last tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FishReport {
    /// Its slot in the flock.
    pub slot: usize,
    /// Position.
    pub position: Vec2,
    /// Velocity.
    pub velocity: Vec2,
    /// Its school.
    pub school: u16,
    /// Its group, if any.
    pub group: Option<u16>,
    /// Whether it leads.
    pub leader: bool,
    /// Fear, 0 (calm) to 1 (panic).
    pub fear: f32,
    /// Each rule's force and the neighbours counted, if the force pass
    /// keeps them (the aquarium's metrics have it do so).
    pub forces: Option<ForceSample>,
}

/// The report on `fish`, if it is in the flock.
pub fn report(state: &FlockState, fish: Entity, slot: Option<&FishSlot>) -> Option<FishReport> {
    let slot = slot.and_then(|s| s.get()).filter(|&s| state.entities().get(s) == Some(&fish))?;
    let flock = &state.flock();
    Some(FishReport {
        slot,
        position: flock.positions()[slot],
        velocity: flock.velocities()[slot],
        school: flock.school_indices()[slot],
        group: flock.group_of(flock.ids()[slot]),
        leader: flock.leaders()[slot],
        fear: flock.fears()[slot],
        forces: flock.sample(slot),
    })
}

/// Ctrl + left click picks the fish nearest the cursor; Esc lets go. One
/// of the input tools ([`super::input::InputToolsPlugin`]); the aquarium
/// adds the drawing and the following camera ([`draw_inspected`],
/// [`follow`]).
pub fn pick(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    over_ui: Res<PointerOverUi>,
    state: Res<FlockState>,
    mut inspected: ResMut<Inspected>,
) {
    if keys.just_pressed(KeyCode::Escape) {
        inspected.fish = None;
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    let (true, true, false, Some(at)) = (ctrl, buttons.just_pressed(MouseButton::Left), over_ui.0, cursor.0)
    else {
        return;
    };
    let tank = state.config().tank;
    let wrap = tank.boundary == BoundaryMode::Wrap;
    if let Some(slot) = state.flock().nearest_fish(at, tank.size(), wrap) {
        inspected.fish = state.entities().get(slot).copied();
    }
}

/// Draws the inspected fish's circles, field of view, neighbours and rule
/// forces.
pub fn draw_inspected(
    mut gizmos: Gizmos,
    inspected: Res<Inspected>,
    state: Res<FlockState>,
    slots: Query<&FishSlot>,
) {
    let Some(fish) = inspected.fish else { return };
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
                gizmos.arrow_2d(p, p + force * super::overlay::ARROW_SCALE, colour).with_tip_length(5.0);
            }
        }
    }
}

/// Centres the camera on the inspected fish while `follow` is on; puts
/// the whole tank back in view when it goes off (or the fish is let go).
pub fn follow(
    inspected: Res<Inspected>,
    state: Res<FlockState>,
    slots: Query<&FishSlot>,
    settings: Res<super::AquariumSettings>,
    mut camera: Query<(&mut Projection, &mut Transform), With<Camera2d>>,
    mut following: Local<bool>,
) {
    let target = inspected
        .fish
        .filter(|_| inspected.follow)
        .and_then(|fish| report(&state, fish, slots.get(fish).ok()))
        .map(|r| r.position);
    for (mut projection, mut transform) in &mut camera {
        match target {
            Some(p) => {
                transform.translation = p.extend(transform.translation.z);
            }
            None if *following => {
                (*projection, *transform) = super::framing(&state.config().tank, settings.show_panel);
            }
            None => {}
        }
    }
    *following = target.is_some();
}
