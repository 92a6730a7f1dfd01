//! The 3D mouse tools in a headless app: a click on the floor drops a
//! predator above it and a right click a rock on it, at the next tick,
//! both drawn on the plugin's entities; a drag is not a click; C (the
//! kit's keys) clears them, and their drawings go; Ctrl + click picks the
//! fish under the cursor to inspect (the panel reports it), Esc lets it
//! go.
#![cfg(feature = "look3d")]

use bevy::input::mouse::AccumulatedMouseMotion;
use bevy::prelude::*;
use mirofish_bevy::volume::*;
use mirofish_kit::ShortcutsPlugin;
use mirofish_kit::tools3d::{CursorRay, MouseTools3dPlugin};

mod common;

fn app() -> App {
    let mut app = common::volume_app();
    app.add_plugins((MouseTools3dPlugin, ShortcutsPlugin));
    app.world_mut().commands().queue(SpawnSchool3d::new(60));
    app.world_mut().flush();
    app.update();
    app
}

/// Points the cursor straight down at `(x, z)`, presses `button` and
/// releases it a frame later after the mouse moved `moved` pixels.
fn click(app: &mut App, button: MouseButton, (x, z): (f32, f32), moved: f32) {
    app.world_mut().resource_mut::<CursorRay>().0 = Some(Ray3d::new(Vec3::new(x, 5000.0, z), Dir3::NEG_Y));
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(button);
    app.world_mut().resource_mut::<AccumulatedMouseMotion>().delta = Vec2::new(moved, 0.0);
    app.update();
    app.world_mut().resource_mut::<AccumulatedMouseMotion>().delta = Vec2::ZERO;
    let mut buttons = app.world_mut().resource_mut::<ButtonInput<MouseButton>>();
    buttons.clear();
    buttons.release(button);
    app.update();
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().clear();
    for _ in 0..3 {
        app.update();
    }
}

/// The drawn predators and rocks: (is a predator, where, its scale).
fn markers(app: &mut App) -> Vec<(bool, Vec3, f32)> {
    let mut q = app.world_mut().query_filtered::<(Has<Predator3d>, &Transform), With<Mesh3d>>();
    let mut all: Vec<_> = q.iter(app.world()).map(|(p, t)| (p, t.translation, t.scale.x)).collect();
    all.sort_by_key(|m| core::cmp::Reverse(m.0));
    all
}

#[test]
fn clicks_on_the_floor_place_predators_and_rocks_and_c_clears_them() {
    let mut app = app();
    let tank = *app.world().resource::<Flock3dState>().flock().tank();
    click(&mut app, MouseButton::Left, (100.0, -40.0), 0.0);
    click(&mut app, MouseButton::Right, (-150.0, 60.0), 2.0);
    // A drag (an orbiting camera) places nothing.
    click(&mut app, MouseButton::Left, (0.0, 0.0), 50.0);
    let scene = app.world().resource::<Flock3dState>().flock().scene().clone();
    assert_eq!(scene.predators.len(), 1, "{scene:?}");
    assert_eq!(scene.obstacles.len(), 1);
    let rock = scene.obstacles[0];
    assert_eq!((rock.centre.x, rock.centre.y, rock.centre.z), (-150.0, tank.min.y, 60.0));
    assert!(scene.predators[0].position.y > tank.min.y);
    // Drawn where the core has them (the meshes are on the plugin's
    // entities, among which are no fish).
    let drawn = markers(&mut app);
    let fish = app.world_mut().query_filtered::<(), (With<Boid3d>, With<Mesh3d>)>().iter(app.world()).count();
    assert_eq!(drawn.len() - fish, 2, "{drawn:?}");
    let predator = app.world().resource::<Flock3dState>().flock().scene().predators[0].position;
    // (Drawn between its last two positions: within a tick's travel.)
    assert!(drawn.iter().any(|&(hunts, at, _)| hunts && at.distance(predator) < 5.0), "{drawn:?}");
    assert!(drawn.contains(&(false, rock.centre, rock.radius)), "{drawn:?}");
    // Off the floor's footprint: nothing.
    click(&mut app, MouseButton::Right, (tank.max.x + 10.0, 0.0), 0.0);
    assert_eq!(app.world().resource::<Flock3dState>().flock().scene().obstacles.len(), 1);

    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(KeyCode::KeyC);
    app.update();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.clear();
    keys.release(KeyCode::KeyC);
    for _ in 0..3 {
        app.update();
    }
    let scene = app.world().resource::<Flock3dState>().flock().scene().clone();
    assert!(scene.predators.is_empty() && scene.obstacles.is_empty());
    let fish = app.world_mut().query_filtered::<(), (With<Boid3d>, With<Mesh3d>)>().iter(app.world()).count();
    assert_eq!(markers(&mut app).len(), fish, "the drawings go with them");
}

#[test]
fn ctrl_click_inspects_the_fish_under_the_cursor_and_esc_lets_it_go() {
    use mirofish_kit::Inspected;
    let mut app = app();
    // The fish with id 7, the cursor's ray straight down onto it from just
    // above.
    let (target, at) = {
        let state = app.world().resource::<Flock3dState>();
        let slot = state.flock().slots()[7] as usize;
        (state.entity(7).expect("fish 7's entity"), state.flock().positions()[slot])
    };
    app.world_mut().resource_mut::<CursorRay>().0 = Some(Ray3d::new(at + Vec3::Y * 2.0, Dir3::NEG_Y));
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(KeyCode::ControlLeft);
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(MouseButton::Left);
    app.update();
    let mut buttons = app.world_mut().resource_mut::<ButtonInput<MouseButton>>();
    buttons.clear();
    buttons.release(MouseButton::Left);
    // Picked before the fish moved on: the release is read this update.
    app.update();
    assert_eq!(app.world().resource::<Inspected>().fish, Some(target));
    let predators = app.world().resource::<Flock3dState>().flock().scene().predators.len();
    assert_eq!(predators, 0, "a Ctrl + click places nothing");
    #[cfg(feature = "panel")]
    {
        app.add_plugins(mirofish_kit::TuningPanelPlugin);
        let ctx = mirofish_kit::panel::egui::Context::default();
        let texts = common::panel::frame(&mut app, &ctx, Vec::new());
        // (Its rule forces too where the core keeps them: the 3D overlay
        // has it keep them while a fish is inspected.)
        assert!(texts.iter().any(|(t, _)| t.starts_with("fish 7, school 0")), "the panel reports the fish");
    }
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.clear();
    keys.release(KeyCode::ControlLeft);
    keys.press(KeyCode::Escape);
    app.update();
    assert_eq!(app.world().resource::<Inspected>().fish, None);
}

#[test]
fn w_and_g_put_a_waypoint_and_a_goal_half_way_up_above_the_cursor() {
    let mut app = app();
    let tank = *app.world().resource::<Flock3dState>().flock().tank();
    app.world_mut().resource_mut::<CursorRay>().0 =
        Some(Ray3d::new(Vec3::new(120.0, 5000.0, -80.0), Dir3::NEG_Y));
    for key in [KeyCode::KeyW, KeyCode::KeyG] {
        app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(key);
        app.update();
        let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        keys.clear();
        keys.release(key);
    }
    for _ in 0..3 {
        app.update();
    }
    let at = Vec3::new(120.0, (tank.min.y + tank.max.y) * 0.5, -80.0);
    let scene = app.world().resource::<Flock3dState>().flock().scene().clone();
    assert_eq!(scene.route.expect("a route").waypoints, [at]);
    assert_eq!(scene.school_goals.first().copied().flatten().expect("school 0's goal").target, at);
}
