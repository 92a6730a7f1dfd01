//! Mouse tools in a volume (the `look3d` feature): [`MouseTools3dPlugin`].
//!
//! | input | effect |
//! |---|---|
//! | left click on the floor | a predator above the point |
//! | right click on the floor | a rock on the point |
//! | Ctrl + left click | inspect the fish under the cursor (Esc: let go) |
//!
//! (C clears every predator and rock where the kit's keys are added,
//! [`crate::ShortcutsPlugin`].)
//!
//! The cursor's ray through the 3D camera meets the tank's floor; what a
//! click there creates is a [`VolumeCommand`] on the core, so a session
//! played with the mouse is recorded and replays like a scripted one. A
//! press that moves the mouse more than a few pixels before it is released
//! is a drag (a game's orbiting camera), not a click, and clicks while
//! [`PointerOverUi`] is set are left alone. Predators and rocks (the
//! plugin's [`Predator3d`] and [`Obstacle3d`] entities, however they came)
//! are drawn as red glowing spheres and grey rocks.
//!
//! The mapping from a click to a command is a pure function
//! ([`floor_point`], [`click_command`]); the systems read only Bevy's input
//! resources and the cursor's ray ([`CursorRay`]), so they can be driven
//! without a window.

use bevy::input::mouse::AccumulatedMouseMotion;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use mirofish_bevy::volume::{Flock3dState, FlockCommands, Obstacle3d, Predator3d};
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::{Obstacle, Predator, Tank3d};

use crate::tools::{Inspected, PointerOverUi};

/// The cursor's ray into the world through the 3D camera; `None` outside
/// the window.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct CursorRay(pub Option<Ray3d>);

/// What the 3D mouse tools create.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct Tool3dSettings {
    /// A new predator's height above the floor, as a share of the tank's
    /// height.
    pub predator_height: f32,
    /// A new predator's fear radius, as a share of the tank's height.
    pub predator_reach: f32,
    /// A new rock's radius (world units).
    pub rock_radius: f32,
    /// How far (pixels) the mouse may move between press and release for
    /// the press to count as a click.
    pub click_slop: f32,
    /// How near (world units) the cursor's ray must pass a fish's centre
    /// for a Ctrl + click to pick it.
    pub pick_reach: f32,
}

impl Default for Tool3dSettings {
    fn default() -> Self {
        Self {
            predator_height: 0.35,
            predator_reach: 0.4,
            rock_radius: 70.0,
            click_slop: 6.0,
            pick_reach: 20.0,
        }
    }
}

/// Where `ray` meets the tank's floor, if it does inside the tank's
/// footprint.
pub fn floor_point(ray: Ray3d, tank: &Tank3d) -> Option<Vec3> {
    let t = ray.intersect_plane(Vec3::new(0.0, tank.min.y, 0.0), InfinitePlane3d::new(Vec3::Y))?;
    let p = ray.get_point(t);
    (p.x > tank.min.x && p.x < tank.max.x && p.z > tank.min.z && p.z < tank.max.z).then_some(p)
}

/// The slot of the fish to inspect under `ray`: of the fish whose centre
/// lies within `reach` of the ray, in front of its origin, the nearest
/// along it (the one in front); `None` if none is that close.
pub fn pick_fish(ray: Ray3d, positions: &[Vec3], reach: f32) -> Option<usize> {
    let reach2 = reach * reach;
    let mut best: Option<(f32, usize)> = None;
    for (slot, &p) in positions.iter().enumerate() {
        let along = (p - ray.origin).dot(*ray.direction);
        if along <= 0.0 {
            continue;
        }
        let off2 = (p - ray.get_point(along)).length_squared();
        if off2 <= reach2 && best.is_none_or(|(b, _)| along < b) {
            best = Some((along, slot));
        }
    }
    best.map(|(_, slot)| slot)
}

/// The command a click of `button` on floor point `point` sends: left → a
/// chasing predator above it, right → a rock on it; other buttons nothing.
pub fn click_command(
    button: MouseButton,
    point: Vec3,
    tank: &Tank3d,
    tools: &Tool3dSettings,
) -> Option<VolumeCommand> {
    let height = tank.size().y;
    match button {
        MouseButton::Left => {
            let above = Vec3::new(point.x, tank.min.y + height * tools.predator_height, point.z);
            Some(VolumeCommand::AddPredator(Predator::new(above, height * tools.predator_reach)))
        }
        MouseButton::Right => {
            Some(VolumeCommand::AddObstacle(Obstacle { centre: point, radius: tools.rock_radius }))
        }
        _ => None,
    }
}

/// Mouse tools in a volume: a predator on a left click on the floor, a rock
/// on a right click, Ctrl + click picks the fish under the cursor to
/// inspect ([`Inspected`]; Esc lets it go); predators and rocks drawn where
/// the core has them. Reads the cursor through the 3D camera of the primary
/// window ([`CursorRay`]); what a click creates is [`Tool3dSettings`].
///
/// Needs [`mirofish_bevy::volume::MiroFish3dPlugin`]; in a headless app the
/// input resources are made here.
pub struct MouseTools3dPlugin;

impl Plugin for MouseTools3dPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CursorRay>()
            .init_resource::<PointerOverUi>()
            .init_resource::<Tool3dSettings>()
            .init_resource::<ButtonInput<MouseButton>>()
            .init_resource::<AccumulatedMouseMotion>()
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<Inspected>()
            .add_systems(Startup, make_scene_look)
            .add_systems(PreUpdate, cursor_ray)
            .add_systems(Update, (mouse_tools3d, dress_scene).chain());
    }
}

/// Reads the cursor of the primary window through the 3D camera.
pub fn cursor_ray(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<Camera3d>>,
    mut cursor: ResMut<CursorRay>,
) {
    // Without a window (tests, headless) the resource is left to whoever sets it.
    let Ok(window) = windows.single() else { return };
    let Ok((camera, transform)) = cameras.single() else { return };
    cursor.0 = window.cursor_position().and_then(|p| camera.viewport_to_world(transform, p).ok());
}

/// How far the mouse has moved since a button went down, and whether it
/// went down over the panel.
#[derive(Default)]
pub struct Press {
    moved: f32,
    on_panel: bool,
}

/// The mouse's buttons as the panel's list of keys shows them.
pub const MOUSE_LINES: &[&str] = &[
    "left click on the floor: predator",
    "right click on the floor: rock",
    "Ctrl + left click: inspect a fish · Esc: let go",
];

/// Turns clicks on the floor into commands for the next tick; a Ctrl +
/// click picks the fish to inspect instead, and Esc lets it go.
pub fn mouse_tools3d(
    (buttons, keys, motion): (
        Res<ButtonInput<MouseButton>>,
        Res<ButtonInput<KeyCode>>,
        Res<AccumulatedMouseMotion>,
    ),
    (cursor, over_ui, tools): (Res<CursorRay>, Res<PointerOverUi>, Res<Tool3dSettings>),
    (state, mut queue): (Res<Flock3dState>, ResMut<FlockCommands<Vec3>>),
    mut inspected: ResMut<Inspected>,
    mut press: Local<Press>,
) {
    if keys.just_pressed(KeyCode::Escape) {
        inspected.fish = None;
    }
    let mut send = |command: VolumeCommand| {
        if let Err(e) = queue.submit(command) {
            log::warn!("mouse tools: {e}");
        }
    };
    if buttons.any_just_pressed([MouseButton::Left, MouseButton::Right]) {
        *press = Press { moved: 0.0, on_panel: over_ui.0 };
    }
    if buttons.any_pressed([MouseButton::Left, MouseButton::Right]) {
        press.moved += motion.delta.length();
    }
    if press.on_panel || press.moved > tools.click_slop {
        return;
    }
    if keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]) {
        if buttons.just_released(MouseButton::Left)
            && let Some(ray) = cursor.0
            && let Some(slot) = pick_fish(ray, state.flock().positions(), tools.pick_reach)
        {
            let id = state.flock().ids()[slot];
            inspected.fish = state.entity(id);
        }
        return;
    }
    let tank = *state.flock().tank();
    let Some(point) = cursor.0.and_then(|ray| floor_point(ray, &tank)) else { return };
    for button in [MouseButton::Left, MouseButton::Right] {
        if buttons.just_released(button)
            && let Some(command) = click_command(button, point, &tank, &tools)
        {
            send(command);
        }
    }
}

/// The predators' and rocks' meshes and materials.
#[derive(Resource, Clone, Debug)]
pub struct SceneLook3d {
    /// A predator: a glowing red sphere.
    pub predator: (Handle<Mesh>, Handle<StandardMaterial>),
    /// A rock: a grey sphere of radius 1, scaled to the rock's.
    pub rock: (Handle<Mesh>, Handle<StandardMaterial>),
}

fn make_scene_look(
    mut commands: Commands,
    meshes: Option<ResMut<Assets<Mesh>>>,
    materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    // Without the renderer's assets (a headless app) nothing is drawn.
    let (Some(mut meshes), Some(mut materials)) = (meshes, materials) else { return };
    let red = Color::srgb(0.95, 0.08, 0.1);
    commands.insert_resource(SceneLook3d {
        predator: (
            meshes.add(Sphere::new(18.0)),
            materials.add(StandardMaterial { base_color: red, emissive: red.into(), ..default() }),
        ),
        rock: (
            meshes.add(Sphere::new(1.0).mesh().ico(3).expect("a small ico sphere")),
            materials.add(StandardMaterial { base_color: Color::srgb(0.35, 0.36, 0.38), ..default() }),
        ),
    });
}

/// Gives the volume's rock and predator entities ([`Obstacle3d`],
/// [`Predator3d`]: the plugin keeps them where the core has them, whether
/// a click, a command or the game put them there) their look: a glowing
/// red sphere for a predator, a grey rock scaled to its radius.
pub fn dress_scene(
    mut commands: Commands,
    look: Option<Res<SceneLook3d>>,
    bare: Query<(Entity, Has<Predator3d>), (Or<(With<Obstacle3d>, With<Predator3d>)>, Without<Mesh3d>)>,
    mut rocks: Query<(&Obstacle3d, &mut Transform), Changed<Obstacle3d>>,
) {
    let Some(look) = look else { return };
    for (entity, hunts) in &bare {
        let (mesh, material) = if hunts { look.predator.clone() } else { look.rock.clone() };
        commands.entity(entity).insert((Mesh3d(mesh), MeshMaterial3d(material)));
    }
    for (rock, mut transform) in &mut rocks {
        if rock.radius.is_finite() && rock.radius > 0.0 {
            transform.scale = Vec3::splat(rock.radius);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ray_meets_the_floor_inside_the_tank_and_clicks_map_to_commands() {
        let tank = Tank3d::centered(Vec3::new(1000.0, 400.0, 600.0));
        let tools = Tool3dSettings::default();
        // Straight down from above the point (100, ·, -50).
        let down = Ray3d::new(Vec3::new(100.0, 900.0, -50.0), Dir3::NEG_Y);
        let point = floor_point(down, &tank).unwrap();
        assert!((point - Vec3::new(100.0, tank.min.y, -50.0)).length() < 1e-3, "{point}");
        // Outside the footprint, or looking up: no point.
        assert_eq!(floor_point(Ray3d::new(Vec3::new(900.0, 900.0, 0.0), Dir3::NEG_Y), &tank), None);
        assert_eq!(floor_point(Ray3d::new(Vec3::ZERO, Dir3::Y), &tank), None);
        match click_command(MouseButton::Left, point, &tank, &tools) {
            Some(VolumeCommand::AddPredator(p)) => {
                assert_eq!((p.position.x, p.position.z), (100.0, -50.0));
                assert!(tank.contains(p.position) && p.position.y > tank.min.y);
                assert!(p.validate().is_ok());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            click_command(MouseButton::Right, point, &tank, &tools),
            Some(VolumeCommand::AddObstacle(Obstacle { centre: point, radius: tools.rock_radius }))
        );
        assert_eq!(click_command(MouseButton::Middle, point, &tank, &tools), None);
    }

    #[test]
    fn a_pick_takes_the_nearest_fish_in_front_near_the_ray() {
        let ray = Ray3d::new(Vec3::new(0.0, 0.0, 500.0), Dir3::NEG_Z);
        let positions = [
            Vec3::new(0.0, 0.0, 600.0),  // behind the camera
            Vec3::new(5.0, 0.0, -100.0), // on the ray, further
            Vec3::new(0.0, 8.0, 100.0),  // on the ray, nearer
            Vec3::new(60.0, 0.0, 300.0), // nearest, but off the ray
        ];
        assert_eq!(pick_fish(ray, &positions, 20.0), Some(2));
        assert_eq!(pick_fish(ray, &positions[..2], 20.0), Some(1));
        assert_eq!(pick_fish(ray, &positions[3..], 20.0), None);
        assert_eq!(pick_fish(ray, &[], 20.0), None);
    }
}
