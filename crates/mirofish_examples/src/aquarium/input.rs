//! The aquarium's keyboard, on top of the game kit's mouse tools
//! ([`mirofish_kit::MouseToolsPlugin`]: a predator on a left click, a rock
//! on a right click, Shift-drags an attractor or a repeller, Ctrl + click
//! inspects a fish).
//!
//! | key | effect |
//! |---|---|
//! | C | clear predators and obstacles |
//! | Space / N / R | pause · single step · reset |
//! | 1 2 3 4 | overlay: neighbours · forces · radii · grid |
//! | M / H | next colour mode · hide the panel |
//! | I | the schools decide where to go (on / off) |
//! | W / X | a waypoint of the leaders' route at the cursor / no route |
//! | G / Shift + G | the panel's school's goal at the cursor / no goal |
//!
//! The systems only read Bevy's input resources and the cursor's world
//! position ([`CursorWorld`]), so they can be driven without a window.

use bevy::prelude::*;
use mirofish_bevy::{FlockCommands, FlockState};
use mirofish_kit::{
    CursorWorld, FishLook, MouseToolsPlugin, OverlaySettings, PanelSettings, waypoint_command,
};
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Goal, GoalMode};

use super::AquariumSettings;

/// The mouse tools and the aquarium's keys, without the panel or the
/// rendering: enough for a headless app with `ButtonInput` resources.
pub struct InputToolsPlugin;

impl Plugin for InputToolsPlugin {
    fn build(&self, app: &mut App) {
        // The `I` shortcut switches the decision layer: its settings exist
        // even where the intent plugin is not added (off, as it starts).
        if !app.world().contains_resource::<super::DecisionSettings>() {
            app.insert_resource(super::decision_settings(false));
        }
        app.add_plugins(MouseToolsPlugin)
            .init_resource::<OverlaySettings>()
            .init_resource::<AquariumSettings>()
            .init_resource::<FishLook>()
            .init_resource::<PanelSettings>()
            .add_systems(Update, keyboard_shortcuts);
    }
}

/// Keyboard shortcuts: clear, pause, step, reset, overlay toggles, colour
/// mode, panel, intent.
pub fn keyboard_shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    mut settings: ResMut<AquariumSettings>,
    mut overlay: ResMut<OverlaySettings>,
    mut commands: ResMut<FlockCommands>,
    (mut deciding, cursor, state): (ResMut<super::DecisionSettings>, Res<CursorWorld>, Res<FlockState>),
    (mut look, mut panel): (ResMut<FishLook>, ResMut<PanelSettings>),
) {
    if keys.just_pressed(KeyCode::KeyI) {
        deciding.on = !deciding.on;
    }
    if keys.just_pressed(KeyCode::KeyW)
        && let Some(at) = cursor.0
        && let Err(e) = commands.submit(waypoint_command(state.scene().route.as_ref(), at))
    {
        warn!("aquarium: {e}");
    }
    if keys.just_pressed(KeyCode::KeyG) {
        let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
        let goal =
            cursor.0.filter(|_| !shift).map(|at| Goal { mode: GoalMode::Arrive, ..Goal::seek(at, 1.0) });
        if let Err(e) = commands.submit(FlockCommand::SetSchoolGoal { school: panel.school, goal }) {
            warn!("aquarium: {e}");
        }
    }
    if keys.just_pressed(KeyCode::KeyX) {
        // Holds no number: cannot be refused.
        let _ = commands.submit(FlockCommand::SetRoute(None));
    }
    if keys.just_pressed(KeyCode::KeyC) {
        for command in [FlockCommand::ClearPredators, FlockCommand::ClearObstacles] {
            // Neither holds a number, so neither can be refused.
            let _ = commands.submit(command);
        }
    }
    if keys.just_pressed(KeyCode::Space) {
        settings.paused = !settings.paused;
    }
    if keys.just_pressed(KeyCode::KeyN) {
        settings.step = true;
    }
    if keys.just_pressed(KeyCode::KeyR) {
        settings.reset = true;
    }
    if keys.just_pressed(KeyCode::KeyM) {
        look.colours = look.colours.next();
    }
    if keys.just_pressed(KeyCode::KeyH) {
        panel.show = !panel.show;
    }
    let overlay = &mut *overlay;
    for (key, flag) in [
        (KeyCode::Digit1, &mut overlay.neighbours),
        (KeyCode::Digit2, &mut overlay.forces),
        (KeyCode::Digit3, &mut overlay.radii),
        (KeyCode::Digit4, &mut overlay.grid),
    ] {
        if keys.just_pressed(key) {
            *flag = !*flag;
        }
    }
}
