//! Mouse and keyboard tools, turned into simulation commands.
//!
//! | input | effect |
//! |---|---|
//! | left click | a predator where you click |
//! | right click | an obstacle where you click |
//! | Shift + left drag | attract the school to the cursor |
//! | Shift + right drag | repel the school from the cursor |
//! | Ctrl + left click | inspect the fish nearest the cursor (Esc: let go) |
//! | C | clear predators and obstacles |
//! | Space / N / R | pause · single step · reset |
//! | 1 2 3 4 | overlay: neighbours · forces · radii · grid |
//! | M / H | next colour mode · hide the panel |
//! | I | the schools decide where to go (on / off) |
//! | W / X | a waypoint of the leaders' route at the cursor / no route |
//! | G / Shift + G | the panel's school's goal at the cursor / no goal |
//!
//! The mapping from a click to a command is a pure function
//! ([`click_command`], [`drag_command`]); the systems only read Bevy's input
//! resources and the cursor's world position ([`CursorWorld`]), so they can
//! be driven without a window (see `tests/aquarium_input.rs`).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use mirofish_bevy::{FlockCommands, FlockState};
use mirofish_kit::FishLook;
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Attractor, Goal, GoalMode, Obstacle, Predator, Route};

use super::AquariumSettings;
use super::overlay::OverlaySettings;

/// Where the cursor points, in world coordinates; `None` outside the window.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct CursorWorld(pub Option<Vec2>);

/// Whether the pointer is over the panel (then clicks are the panel's).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointerOverUi(pub bool);

/// What the mouse tools create.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct ToolSettings {
    /// Fear radius of a new predator (world units).
    pub predator_fear_radius: f32,
    /// Top speed of a new predator.
    pub predator_speed: f32,
    /// Steering limit of a new predator.
    pub predator_force: f32,
    /// Radius of a new obstacle.
    pub obstacle_radius: f32,
    /// Strength of the drag attractor (its sign is the tool's).
    pub attract_strength: f32,
    /// Reach of the drag attractor.
    pub attract_radius: f32,
}

impl Default for ToolSettings {
    fn default() -> Self {
        Self {
            predator_fear_radius: 140.0,
            predator_speed: 230.0,
            predator_force: 500.0,
            obstacle_radius: 45.0,
            attract_strength: 2.0,
            attract_radius: 320.0,
        }
    }
}

/// The command a plain click of `button` at world point `at` sends:
/// left → a chasing predator, right → an obstacle; other buttons nothing.
pub fn click_command(button: MouseButton, at: Vec2, tools: &ToolSettings) -> Option<FlockCommand> {
    match button {
        MouseButton::Left => Some(FlockCommand::AddPredator(Predator {
            position: at,
            velocity: Vec2::ZERO,
            fear_radius: tools.predator_fear_radius,
            max_speed: tools.predator_speed,
            max_force: tools.predator_force,
            chase: true,
        })),
        MouseButton::Right => {
            Some(FlockCommand::AddObstacle(Obstacle { centre: at, radius: tools.obstacle_radius }))
        }
        _ => None,
    }
}

/// The command a drag at `at` sends: an attractor (or, with `repel`, a
/// repeller) centred there.
pub fn drag_command(at: Vec2, repel: bool, tools: &ToolSettings) -> FlockCommand {
    let strength = if repel { -tools.attract_strength.abs() } else { tools.attract_strength.abs() };
    FlockCommand::SetAttractor(Some(Attractor { point: at, strength, radius: tools.attract_radius }))
}

/// The command that adds waypoint `at` to the end of `route` (a new
/// looping route if there is none): the leaders go round the waypoints
/// in order, passing each within 60 world units.
pub fn waypoint_command(route: Option<&Route>, at: Vec2) -> FlockCommand {
    let mut route = route.cloned().unwrap_or_else(|| Route { looping: true, ..Route::new(Vec::new(), 60.0) });
    route.waypoints.push(at);
    FlockCommand::SetRoute(Some(route))
}

/// The input systems, without the panel or the rendering: enough for a
/// headless app with `ButtonInput` resources.
pub struct InputToolsPlugin;

impl Plugin for InputToolsPlugin {
    fn build(&self, app: &mut App) {
        // The `I` shortcut switches the decision layer: its settings exist
        // even where the intent plugin is not added (off, as it starts).
        if !app.world().contains_resource::<super::DecisionSettings>() {
            app.insert_resource(super::decision_settings(false));
        }
        app.init_resource::<CursorWorld>()
            .init_resource::<PointerOverUi>()
            .init_resource::<ToolSettings>()
            .init_resource::<OverlaySettings>()
            .init_resource::<AquariumSettings>()
            .init_resource::<FishLook>()
            .init_resource::<super::IntentSettings>()
            .init_resource::<super::Inspected>()
            .init_resource::<ButtonInput<MouseButton>>()
            .init_resource::<ButtonInput<KeyCode>>()
            .add_systems(PreUpdate, cursor_to_world)
            .add_systems(Update, (mouse_tools, keyboard_shortcuts, super::inspect::pick));
    }
}

/// Reads the cursor of the primary window through the 2D camera.
pub fn cursor_to_world(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform)>,
    mut cursor: ResMut<CursorWorld>,
) {
    // Without a window (tests, headless) the resource is left to whoever sets it.
    let Ok(window) = windows.single() else { return };
    let Ok((camera, transform)) = cameras.single() else { return };
    cursor.0 = window.cursor_position().and_then(|p| camera.viewport_to_world_2d(transform, p).ok());
}

/// Turns clicks and drags into commands for the next tick.
pub fn mouse_tools(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    over_ui: Res<PointerOverUi>,
    tools: Res<ToolSettings>,
    mut commands: ResMut<FlockCommands>,
    mut dragging: Local<Option<Vec2>>,
) {
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    // Ctrl + click picks a fish to inspect (see `inspect`): no tool.
    if keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]) {
        return;
    }
    let mut send = |command: FlockCommand| {
        if let Err(e) = commands.submit(command) {
            warn!("aquarium: {e}");
        }
    };
    let held = [MouseButton::Left, MouseButton::Right].into_iter().find(|b| buttons.pressed(*b));
    match (held, cursor.0) {
        // A drag starts on a press outside the panel with Shift held and
        // lasts while the button is down, Shift or not.
        (Some(button), Some(at))
            if dragging.is_some() || (shift && buttons.just_pressed(button) && !over_ui.0) =>
        {
            // Move the attractor only when the cursor moved, so a still
            // mouse does not fill the command log.
            if dragging.is_none_or(|last| last.distance_squared(at) > 1.0) {
                send(drag_command(at, button == MouseButton::Right, &tools));
                *dragging = Some(at);
            }
            return;
        }
        _ => {}
    }
    if dragging.take().is_some() {
        send(FlockCommand::SetAttractor(None));
        return;
    }
    let (Some(at), false) = (cursor.0, over_ui.0) else { return };
    for button in [MouseButton::Left, MouseButton::Right] {
        if buttons.just_pressed(button)
            && !shift
            && let Some(command) = click_command(button, at, &tools)
        {
            send(command);
        }
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
    mut look: ResMut<FishLook>,
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
        if let Err(e) = commands.submit(FlockCommand::SetSchoolGoal { school: settings.school, goal }) {
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
        settings.show_panel = !settings.show_panel;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_map_to_predators_and_obstacles_at_the_point() {
        let tools = ToolSettings::default();
        let at = Vec2::new(-31.5, 77.0);
        match click_command(MouseButton::Left, at, &tools) {
            Some(FlockCommand::AddPredator(p)) => {
                assert_eq!(p.position, at);
                assert!(p.chase && p.validate().is_ok());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            click_command(MouseButton::Right, at, &tools),
            Some(FlockCommand::AddObstacle(Obstacle { centre: at, radius: tools.obstacle_radius }))
        );
        assert_eq!(click_command(MouseButton::Middle, at, &tools), None);
        let FlockCommand::SetAttractor(Some(a)) = drag_command(at, true, &tools) else { panic!() };
        assert!(a.strength < 0.0 && a.point == at);
        let FlockCommand::SetAttractor(Some(a)) = drag_command(at, false, &tools) else { panic!() };
        assert!(a.strength > 0.0);
    }
}
