//! The kit's mouse tools without a window: a click at a world position
//! becomes a predator at that position on the next tick; a right click an
//! obstacle; a Shift-drag an attractor that follows the cursor and goes
//! away on release; clicks over the panel do nothing; a Ctrl-click picks
//! the nearest fish to inspect and spawns nothing.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_kit::{CursorWorld, Inspected, MouseToolsPlugin, PointerOverUi, report};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { seed: 3, ..default() })
        .add_plugins((MiroFishPlugin::default(), MouseToolsPlugin))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(50));
    app.world_mut().flush();
    app.update();
    app
}

/// One frame with `button` pressed this frame (and `shift` held), the
/// cursor at `at`.
fn click(app: &mut App, button: MouseButton, at: Vec2, shift: bool) {
    app.world_mut().resource_mut::<CursorWorld>().0 = Some(at);
    if shift {
        app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(KeyCode::ShiftLeft);
    }
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(button);
    app.update();
    // Without Bevy's InputPlugin nobody clears the per-frame state.
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().clear();
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().clear();
}

fn release(app: &mut App, button: MouseButton) {
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().release(button);
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().release(KeyCode::ShiftLeft);
    app.update();
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().clear();
}

fn spawned_at<T: Component>(app: &mut App) -> Vec<Vec2> {
    app.world_mut().query_filtered::<&PreviousPosition, With<T>>().iter(app.world()).map(|p| p.0).collect()
}

#[test]
fn a_left_click_puts_a_predator_where_the_click_was() {
    let mut app = app();
    let at = Vec2::new(-210.0, 95.5);
    click(&mut app, MouseButton::Left, at, false);
    release(&mut app, MouseButton::Left);
    // The command applies at the start of the next tick; the predator has
    // moved one tick since, so its previous position is the click.
    assert_eq!(spawned_at::<Predator2d>(&mut app), [at]);
    let log = app.world().resource::<FlockCommands>().applied();
    assert_eq!(log.len(), 1);
    assert!(matches!(log[0].command, FlockCommand::AddPredator(p) if p.position == at));
}

#[test]
fn a_right_click_puts_an_obstacle_there() {
    let mut app = app();
    let at = Vec2::new(300.0, -120.0);
    click(&mut app, MouseButton::Right, at, false);
    release(&mut app, MouseButton::Right);
    let obstacles: Vec<Vec2> = app
        .world_mut()
        .query_filtered::<&Position, With<Obstacle2d>>()
        .iter(app.world())
        .map(|p| p.0)
        .collect();
    assert_eq!(obstacles, [at]);
}

#[test]
fn clicks_over_the_panel_do_nothing() {
    let mut app = app();
    app.world_mut().resource_mut::<PointerOverUi>().0 = true;
    click(&mut app, MouseButton::Left, Vec2::ZERO, false);
    release(&mut app, MouseButton::Left);
    app.update();
    assert!(spawned_at::<Predator2d>(&mut app).is_empty());
    assert!(app.world().resource::<FlockCommands>().applied().is_empty());
}

#[test]
fn a_shift_drag_moves_an_attractor_and_release_removes_it() {
    let mut app = app();
    click(&mut app, MouseButton::Left, Vec2::new(10.0, 10.0), true);
    // Keep the button down and move.
    app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(MouseButton::Left);
    app.world_mut().resource_mut::<CursorWorld>().0 = Some(Vec2::new(60.0, -20.0));
    app.update();
    app.update();
    let attractor =
        app.world().resource::<FlockState>().scene().attractor.expect("an attractor while dragging");
    assert_eq!(attractor.point, Vec2::new(60.0, -20.0));
    assert!(attractor.strength > 0.0);
    assert!(spawned_at::<Predator2d>(&mut app).is_empty(), "a drag is not a click");
    release(&mut app, MouseButton::Left);
    app.update();
    assert_eq!(app.world().resource::<FlockState>().scene().attractor, None);
}

#[test]
fn a_ctrl_click_inspects_the_nearest_fish_and_spawns_nothing() {
    let mut app = app();
    let (fish, at) = {
        let world = app.world_mut();
        let mut q = world.query_filtered::<(Entity, &Position), With<Boid>>();
        let (e, p) = q.iter(world).min_by_key(|(e, _)| *e).unwrap();
        (e, p.0)
    };
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(KeyCode::ControlLeft);
    click(&mut app, MouseButton::Left, at + Vec2::splat(0.5), false);
    release(&mut app, MouseButton::Left);
    assert_eq!(app.world().resource::<Inspected>().fish, Some(fish));
    assert!(spawned_at::<Predator2d>(&mut app).is_empty(), "an inspecting click is no tool");
    let slot = app.world().get::<mirofish_bevy::FishId>(fish).copied();
    let r = report(app.world().resource::<FlockState>(), fish, slot.as_ref()).expect("a report");
    let velocity = app.world().get::<Velocity>(fish).unwrap().0;
    assert_eq!((r.velocity, r.school, r.group, r.leader), (velocity, 0, None, false));
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(KeyCode::Escape);
    app.update();
    assert_eq!(app.world().resource::<Inspected>().fish, None);
}
