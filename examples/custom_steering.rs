//! A game's own forces on the fish, written only against the public API:
//! the school flees a boat you steer with the arrow keys (or WASD) and
//! gathers at food pellets you drop with the left mouse button.
//!
//! ```text
//! cargo run --release --example custom_steering
//! ```
//!
//! Each fish carries an `ExtraSteering`; a system of the game's sets it
//! every tick before `BoidSystems::Clamp`, where the plugin adds it to what
//! the rules ask for and clamps the sum to `max_force`.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use mirofish::prelude::*;

/// How far the boat scares fish, and how hard (a multiple of `max_force`).
const BOAT_REACH: f32 = 160.0;
const BOAT_FEAR: f32 = 3.0;
/// How far a fish smells food, and how hard it goes for it.
const FOOD_REACH: f32 = 260.0;
const FOOD_PULL: f32 = 0.8;
/// Boat speed (world units per second) and pellet life (seconds).
const BOAT_SPEED: f32 = 260.0;
const PELLET_LIFE: f32 = 8.0;

/// The player's boat.
#[derive(Component)]
struct Boat;

/// A food pellet and the time it has left.
#[derive(Component)]
struct Pellet(Timer);

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(WindowPlugin {
                primary_window: Some(Window {
                    title: "MiroFish: arrows or WASD steer the boat, a left click drops food".into(),
                    ..default()
                }),
                ..default()
            }),
            MiroFishPlugin::default().with_tick_rate(60.0).with_max_catch_up(3),
        ))
        .insert_resource(ClearColor(Color::srgb(0.02, 0.09, 0.16)))
        .add_systems(Startup, setup)
        .add_observer(dress_fish)
        .add_systems(Update, (drop_food, eat_and_expire))
        .add_systems(FixedUpdate, (sail.before(BoidSystems::Commands), steer_fish.before(BoidSystems::Clamp)))
        .run();
}

fn setup(mut commands: Commands) {
    commands.spawn(Camera2d);
    commands.queue(SpawnSchool::new(900));
    commands.spawn((
        Boat,
        Sprite::from_color(Color::srgb(0.55, 0.35, 0.2), Vec2::new(46.0, 18.0)),
        Transform::from_xyz(0.0, 0.0, 2.0),
    ));
}

/// Every fish gets a sprite and an `ExtraSteering` as it arrives.
fn dress_fish(add: On<Add, Boid>, mut commands: Commands) {
    commands.entity(add.entity).insert((
        Sprite::from_color(Color::srgb(1.0, 0.62, 0.25), Vec2::new(9.0, 3.0)),
        ExtraSteering(Vec2::ZERO),
    ));
}

/// The boat moves with the keys, in fixed steps like the fish.
fn sail(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    config: Res<FlockConfig>,
    mut boat: Single<&mut Transform, With<Boat>>,
) {
    let pressed = |a: KeyCode, b: KeyCode| keys.pressed(a) || keys.pressed(b);
    let mut dir = Vec2::ZERO;
    dir.x += f32::from(u8::from(pressed(KeyCode::ArrowRight, KeyCode::KeyD)));
    dir.x -= f32::from(u8::from(pressed(KeyCode::ArrowLeft, KeyCode::KeyA)));
    dir.y += f32::from(u8::from(pressed(KeyCode::ArrowUp, KeyCode::KeyW)));
    dir.y -= f32::from(u8::from(pressed(KeyCode::ArrowDown, KeyCode::KeyS)));
    let step = dir.normalize_or_zero() * BOAT_SPEED * time.delta_secs();
    let tank = config.tank;
    let at = (boat.translation.truncate() + step).clamp(tank.min, tank.max);
    boat.translation = at.extend(boat.translation.z);
    if dir != Vec2::ZERO {
        boat.rotation = Quat::from_rotation_z(dir.to_angle());
    }
}

/// Each fish: away from the boat if it is close, towards the nearest
/// pellet it can smell.
fn steer_fish(
    config: Res<FlockConfig>,
    boat: Single<&Transform, With<Boat>>,
    pellets: Query<&Transform, With<Pellet>>,
    mut fish: Query<(&Position, &mut ExtraSteering)>,
) {
    let max_force = config.params.max_force;
    let boat = boat.translation.truncate();
    let food: Vec<Vec2> = pellets.iter().map(|t| t.translation.truncate()).collect();
    for (position, mut extra) in &mut fish {
        let p = position.0;
        let mut force = Vec2::ZERO;
        let away = p - boat;
        let d = away.length();
        if d < BOAT_REACH {
            force += away.normalize_or_zero() * max_force * BOAT_FEAR * (1.0 - d / BOAT_REACH);
        }
        let nearest =
            food.iter().copied().min_by(|a, b| a.distance_squared(p).total_cmp(&b.distance_squared(p)));
        if let Some(pellet) = nearest.filter(|f| f.distance(p) < FOOD_REACH) {
            force += (pellet - p).normalize_or_zero() * max_force * FOOD_PULL;
        }
        extra.0 = force;
    }
}

/// A left click drops a pellet under the cursor.
fn drop_food(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let (camera, camera_transform) = *camera;
    let Some(at) =
        window.cursor_position().and_then(|c| camera.viewport_to_world_2d(camera_transform, c).ok())
    else {
        return;
    };
    commands.spawn((
        Pellet(Timer::from_seconds(PELLET_LIFE, TimerMode::Once)),
        Sprite::from_color(Color::srgb(0.45, 0.9, 0.35), Vec2::splat(8.0)),
        Transform::from_translation(at.extend(1.0)),
    ));
}

/// Pellets shrink as they age and vanish when their time is up.
fn eat_and_expire(
    mut commands: Commands,
    time: Res<Time>,
    mut pellets: Query<(Entity, &mut Pellet, &mut Transform)>,
) {
    for (entity, mut pellet, mut transform) in &mut pellets {
        pellet.0.tick(time.delta());
        transform.scale = Vec3::splat(pellet.0.fraction_remaining().max(0.2));
        if pellet.0.is_finished() {
            commands.entity(entity).despawn();
        }
    }
}
