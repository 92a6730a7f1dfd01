//! Mouse tools, turned into simulation commands: [`MouseToolsPlugin`].
//!
//! | input | effect |
//! |---|---|
//! | left click | a predator where you click |
//! | right click | a rock where you click |
//! | Shift + left drag | attract the school to the cursor |
//! | Shift + right drag | repel the school from the cursor |
//! | Ctrl + left click | inspect the fish nearest the cursor (Esc: let go) |
//!
//! Everything goes through the core plugin's [`FlockCommands`], so a
//! session played with the mouse is recorded and replays like a scripted
//! one. The mapping from a click to a command is a pure function
//! ([`click_command`], [`drag_command`], [`waypoint_command`] for a game's
//! own route key); the systems read only Bevy's input resources and the
//! cursor's world position ([`CursorWorld`]), so they can be driven
//! without a window.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use mirofish_bevy::{FishId, FlockCommands, FlockState};
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Attractor, ForceSample, Obstacle, Predator, Route};

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
/// in order, passing each within 60 world units. On a plane or in a
/// volume.
pub fn waypoint_command<V: mirofish_sim::Vector>(route: Option<&Route<V>>, at: V) -> FlockCommand<V> {
    let mut route = route.cloned().unwrap_or_else(|| Route { looping: true, ..Route::new(Vec::new(), 60.0) });
    route.waypoints.push(at);
    FlockCommand::SetRoute(Some(route))
}

/// The mouse's buttons as the panel's list of keys shows them.
pub const MOUSE_LINES: &[&str] = &[
    "left click: predator",
    "right click: rock",
    "Shift + left drag: attract",
    "Shift + right drag: repel",
    "Ctrl + left click: inspect a fish · Esc: let go",
];

/// Mouse tools on a plane: a predator on a left click, a rock on a right
/// click, an attractor (Shift + left drag) or a repeller (Shift + right
/// drag) that follows the cursor, and Ctrl + click to pick the fish to
/// inspect ([`Inspected`]; Esc lets it go). Reads the cursor through the
/// 2D camera of the primary window ([`CursorWorld`]); clicks while
/// [`PointerOverUi`] is set (a game's panel sets it) are left alone. What a
/// click creates is [`ToolSettings`].
///
/// Needs [`mirofish_bevy::MiroFishPlugin`]; in a headless app, also the
/// `ButtonInput` resources (Bevy's input plugin has them).
pub struct MouseToolsPlugin;

impl Plugin for MouseToolsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CursorWorld>()
            .init_resource::<PointerOverUi>()
            .init_resource::<ToolSettings>()
            .init_resource::<Inspected>()
            .init_resource::<ButtonInput<MouseButton>>()
            .init_resource::<ButtonInput<KeyCode>>()
            .add_systems(PreUpdate, cursor_to_world)
            .add_systems(Update, mouse_tools);
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

/// Turns clicks and drags into commands for the next tick; Ctrl + left
/// click picks the fish nearest the cursor to inspect instead, and Esc
/// lets it go (the debug overlay, [`crate::DebugOverlayPlugin`], draws
/// the fish picked).
#[expect(clippy::too_many_arguments, reason = "the mouse, the keys and what a click changes")]
pub fn mouse_tools(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    over_ui: Res<PointerOverUi>,
    tools: Res<ToolSettings>,
    state: Res<FlockState>,
    (mut commands, mut inspected): (ResMut<FlockCommands>, ResMut<Inspected>),
    mut dragging: Local<Option<Vec2>>,
) {
    if keys.just_pressed(KeyCode::Escape) {
        inspected.fish = None;
    }
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    // Ctrl + click picks a fish to inspect: no tool.
    if keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]) {
        if let (true, false, Some(at)) = (buttons.just_pressed(MouseButton::Left), over_ui.0, cursor.0)
            && let Some(slot) = state.flock().nearest_fish(at)
        {
            // None for a fish whose entity went this frame.
            inspected.fish = state.entities().get(slot).copied().filter(|&e| e != Entity::PLACEHOLDER);
        }
        return;
    }
    let mut send = |command: FlockCommand| {
        if let Err(e) = commands.submit(command) {
            log::warn!("mouse tools: {e}");
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

/// A click of `button` at world point `at`, played into `app` without a
/// window: the cursor put there ([`CursorWorld`]), the button pressed for
/// one update and released in the next, the per-frame input state cleared
/// after each (as Bevy's input plugin would). For scripted sessions and
/// the tests of a game that adds [`MouseToolsPlugin`].
pub fn play_click(app: &mut App, button: MouseButton, at: Vec2) {
    app.world_mut().resource_mut::<CursorWorld>().0 = Some(at);
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(button);
    app.update();
    let mut buttons = app.world_mut().resource_mut::<ButtonInput<MouseButton>>();
    buttons.clear();
    buttons.release(button);
    app.update();
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().clear();
}

/// The fish being inspected, and whether the camera follows it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct Inspected {
    /// The fish, if one is picked.
    pub fish: Option<Entity>,
    /// Keep the camera centred on it (for a game's camera to read).
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
pub fn report(state: &FlockState, fish: Entity, id: Option<&FishId>) -> Option<FishReport> {
    let slot = state.slot_of(fish, *id?)?;
    let flock = &state.flock();
    Some(FishReport {
        slot,
        position: flock.positions()[slot],
        velocity: flock.velocities()[slot],
        school: flock.schools()[slot],
        group: flock.group_of(flock.ids()[slot]),
        leader: flock.leaders()[slot],
        fear: flock.fears()[slot],
        forces: flock.sample(slot),
    })
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
