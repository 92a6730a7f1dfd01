//! The 3D tank camera in a headless app: it starts far enough to see the
//! whole tank, looking at its centre; a left drag turns it round the tank,
//! unless the drag started on the panel; the wheel moves it nearer, within
//! bounds.
#![cfg(feature = "look3d")]

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use mirofish_bevy::volume::*;
use mirofish_kit::PointerOverUi;
use mirofish_kit::camera3d::{TankCamera3d, TankCamera3dPlugin};

mod common;

fn app() -> (App, Entity) {
    let mut app = common::volume_app();
    app.add_plugins(TankCamera3dPlugin);
    let camera = app.world_mut().spawn((Camera3d::default(), TankCamera3d::default())).id();
    app.update();
    (app, camera)
}

/// A left drag of `dx` pixels over one update, pressed where the panel
/// says.
fn drag(app: &mut App, dx: f32, on_panel: bool) {
    app.world_mut().resource_mut::<PointerOverUi>().0 = on_panel;
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(MouseButton::Left);
    app.world_mut().resource_mut::<AccumulatedMouseMotion>().delta = Vec2::new(dx, 0.0);
    app.update();
    app.world_mut().resource_mut::<AccumulatedMouseMotion>().delta = Vec2::ZERO;
    let mut buttons = app.world_mut().resource_mut::<ButtonInput<MouseButton>>();
    buttons.clear();
    buttons.release(MouseButton::Left);
    app.update();
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().clear();
    app.world_mut().resource_mut::<PointerOverUi>().0 = false;
}

#[test]
fn the_camera_sees_the_tank_turns_with_a_drag_and_zooms_with_the_wheel() {
    let (mut app, camera) = app();
    let tank = *app.world().resource::<Flock3dState>().flock().tank();
    let centre = (tank.min + tank.max) * 0.5;
    let orbit = *app.world().get::<TankCamera3d>(camera).unwrap();
    assert!(orbit.distance > tank.size().length(), "far enough for the whole tank: {}", orbit.distance);
    let pose = *app.world().get::<Transform>(camera).unwrap();
    assert!((pose.translation.distance(centre) - orbit.distance).abs() < 1.0);
    let towards = (centre - pose.translation).normalize();
    assert!(pose.forward().as_vec3().dot(towards) > 0.999, "looking at the tank");

    drag(&mut app, 100.0, true);
    assert_eq!(app.world().get::<TankCamera3d>(camera).unwrap().yaw, orbit.yaw, "the panel's drag");
    drag(&mut app, 100.0, false);
    let turned = *app.world().get::<TankCamera3d>(camera).unwrap();
    assert!((turned.yaw - (orbit.yaw - 0.5)).abs() < 1e-5, "{turned:?}");
    let now = app.world().get::<Transform>(camera).unwrap().translation;
    assert!(now.distance(pose.translation) > 100.0, "moved round the tank");

    app.world_mut().resource_mut::<AccumulatedMouseScroll>().delta = Vec2::new(0.0, 3.0);
    app.update();
    let nearer = app.world().get::<TankCamera3d>(camera).unwrap().distance;
    assert!((nearer - turned.distance * 0.7).abs() < 1e-2, "{nearer}");
    // Far past the bounds: held at a fifth of the fitting distance.
    app.world_mut().resource_mut::<AccumulatedMouseScroll>().delta = Vec2::new(0.0, 9.0);
    for _ in 0..20 {
        app.update();
    }
    let nearest = app.world().get::<TankCamera3d>(camera).unwrap().distance;
    assert!((nearest - orbit.distance * 0.2).abs() < 1e-2, "{nearest} vs {}", orbit.distance);
}
