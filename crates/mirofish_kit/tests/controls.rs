//! The kit's run controls, keys and tank camera in a headless app: Space
//! pauses the school and N steps it one tick, R restarts only where the
//! game restarts, C clears the scene and W, G send the route and the goal
//! at the cursor; the camera frames the tank right of the panel, follows
//! the inspected fish and frames the tank again when it lets go; the
//! panel lists the keys and has the run section's buttons.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_kit::keys::{Action, Shortcut};
use mirofish_kit::{
    CursorWorld, Inspected, MouseToolsPlugin, OverlaySettings, RunControls, RunControlsPlugin, Shortcuts,
    ShortcutsPlugin, TankCamera, TankCameraPlugin, play_click,
};

mod common;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { seed: 3, ..default() })
        .add_plugins(MiroFishPlugin::default())
        .add_plugins((MouseToolsPlugin, ShortcutsPlugin, RunControlsPlugin, TankCameraPlugin))
        // A tick a frame whatever the wall clock does.
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(150));
    app.world_mut().flush();
    app.update();
    app
}

/// `key` pressed for one update (with Shift if `shift`), then released.
fn press(app: &mut App, key: KeyCode, shift: bool) {
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    if shift {
        keys.press(KeyCode::ShiftLeft);
    }
    keys.press(key);
    app.update();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.clear();
    keys.release(key);
    keys.release(KeyCode::ShiftLeft);
}

fn tick(app: &App) -> u64 {
    app.world().resource::<FlockState>().flock().tick()
}

#[test]
fn space_pauses_the_school_and_n_steps_it_one_tick() {
    let mut app = app();
    let before = tick(&app);
    app.update();
    assert!(tick(&app) > before, "runs");
    press(&mut app, KeyCode::Space, false);
    assert!(app.world().resource::<RunControls>().paused);
    app.update();
    let paused_at = tick(&app);
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(tick(&app), paused_at, "a paused school does not tick");
    press(&mut app, KeyCode::KeyN, false);
    assert_eq!(tick(&app), paused_at + 1, "a step is one tick");
    app.update();
    assert_eq!(tick(&app), paused_at + 1);
    press(&mut app, KeyCode::Space, false);
    app.update();
    assert!(tick(&app) > paused_at + 1, "resumed");
}

#[test]
fn r_asks_a_restart_only_where_the_game_restarts() {
    let mut app = app();
    press(&mut app, KeyCode::KeyR, false);
    assert!(!app.world().resource::<RunControls>().restart, "the game did not say it restarts");
    app.world_mut().resource_mut::<RunControls>().restartable = true;
    press(&mut app, KeyCode::KeyR, false);
    assert!(app.world().resource::<RunControls>().restart);
}

#[test]
fn keys_clear_the_scene_and_send_the_route_and_goal_at_the_cursor() {
    let mut app = app();
    play_click(&mut app, MouseButton::Left, Vec2::new(50.0, 20.0));
    play_click(&mut app, MouseButton::Right, Vec2::new(-80.0, 40.0));
    app.update();
    let scene = app.world().resource::<FlockState>().scene().clone();
    assert_eq!((scene.predators.len(), scene.obstacles.len()), (1, 1));
    press(&mut app, KeyCode::KeyC, false);
    app.update();
    let scene = app.world().resource::<FlockState>().scene().clone();
    assert!(scene.predators.is_empty() && scene.obstacles.is_empty());

    app.world_mut().resource_mut::<CursorWorld>().0 = Some(Vec2::new(100.0, -60.0));
    press(&mut app, KeyCode::KeyW, false);
    app.world_mut().resource_mut::<CursorWorld>().0 = Some(Vec2::new(-100.0, 60.0));
    press(&mut app, KeyCode::KeyW, false);
    press(&mut app, KeyCode::KeyG, false);
    app.update();
    let state = app.world().resource::<FlockState>();
    let route = state.scene().route.clone().expect("a route");
    assert_eq!(route.waypoints, [Vec2::new(100.0, -60.0), Vec2::new(-100.0, 60.0)]);
    let goal = state.scene().school_goals.first().copied().flatten().expect("school 0's goal");
    assert_eq!(goal.target, Vec2::new(-100.0, 60.0));
    // Shift + G drops it, X the route.
    press(&mut app, KeyCode::KeyG, true);
    press(&mut app, KeyCode::KeyX, false);
    app.update();
    let state = app.world().resource::<FlockState>();
    assert!(state.scene().route.is_none());
    assert!(state.scene().school_goals.first().copied().flatten().is_none());
}

#[test]
fn a_rebound_key_does_what_it_is_bound_to() {
    let mut app = app();
    app.world_mut().resource_mut::<Shortcuts>().bind(Shortcut::new(KeyCode::KeyP, Action::OverlayRadii));
    assert!(!app.world().resource::<OverlaySettings>().radii);
    press(&mut app, KeyCode::KeyP, false);
    assert!(app.world().resource::<OverlaySettings>().radii);
    // Digit 3 still does too; Shift + 3 is not bound.
    press(&mut app, KeyCode::Digit3, true);
    assert!(app.world().resource::<OverlaySettings>().radii);
}

#[test]
fn the_camera_frames_the_tank_follows_the_inspected_fish_and_lets_go() {
    let mut app = app();
    let camera = app.world_mut().spawn((Camera2d, TankCamera)).id();
    app.update();
    let framed = *app.world().get::<Transform>(camera).unwrap();
    let tank = app.world().resource::<FlockConfig>().tank;
    // No panel here: centred on the tank.
    assert_eq!(framed.translation.truncate(), (tank.min + tank.max) * 0.5);
    let Projection::Orthographic(projection) = app.world().get::<Projection>(camera).unwrap() else {
        panic!("an orthographic projection")
    };
    let bevy::camera::ScalingMode::AutoMin { min_width, .. } = projection.scaling_mode else { panic!() };
    assert!(min_width > tank.size().x, "the whole tank and some water");

    let fish = app.world().resource::<FlockState>().entities()[7];
    *app.world_mut().resource_mut::<Inspected>() = Inspected { fish: Some(fish), follow: true };
    app.update();
    let at = app.world().get::<Transform>(camera).unwrap().translation.truncate();
    let slot = app.world().get::<mirofish_bevy::FishId>(fish).and_then(|s| s.get()).unwrap() as usize;
    let position = app.world().resource::<FlockState>().flock().positions()[slot];
    assert!(at.distance(position) < 1e-3, "{at} vs {position}");
    app.world_mut().resource_mut::<Inspected>().fish = None;
    app.update();
    assert_eq!(*app.world().get::<Transform>(camera).unwrap(), framed, "the tank framed again");
}

#[cfg(feature = "panel")]
#[test]
fn the_panel_lists_the_keys_and_its_run_section_pauses() {
    use mirofish_kit::TuningPanelPlugin;
    use mirofish_kit::panel::egui;
    let mut app = app();
    app.add_plugins(TuningPanelPlugin);
    app.update();
    let ctx = egui::Context::default();
    // Open the folded keys section: a click on its heading.
    let texts = common::panel::frame(&mut app, &ctx, Vec::new());
    let heading = *common::panel::find(&texts, "keys").expect("a keys section");
    let texts = common::panel::frame(&mut app, &ctx, common::panel::click_at(heading.center()));
    let texts = if common::panel::find(&texts, "Space: pause / resume").is_some() {
        texts
    } else {
        common::panel::frame(&mut app, &ctx, Vec::new())
    };
    for wanted in ["left click: predator", "C: clear predators and rocks", "Space: pause / resume"] {
        assert!(
            common::panel::find(&texts, wanted).is_some(),
            "{wanted:?} not listed: {:?}",
            texts.iter().map(|t| &t.0).collect::<Vec<_>>()
        );
    }
    let pause = *common::panel::find(&texts, "⏸ pause").expect("the run section's pause button");
    common::panel::frame(&mut app, &ctx, common::panel::click_at(pause.center()));
    assert!(app.world().resource::<RunControls>().paused);
}
