//! The configuration resource: validated at every change, refused with the
//! field named, the last valid one kept.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;

#[test]
fn invalid_config_is_refused_naming_the_field_and_the_last_valid_one_kept() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 30);
    app.update();
    app.world_mut().resource_mut::<FlockConfig>().params.perception_radius = -5.0;
    app.update();
    let state = app.world().resource::<FlockState>();
    let err = state.rejected().expect("the bad config was accepted");
    assert_eq!(err.field, "perception_radius");
    assert!(err.to_string().contains("perception_radius"));
    assert_eq!(state.config().params.perception_radius, FlockParams::default().perception_radius);

    // A valid change is applied and clears the error.
    app.world_mut().resource_mut::<FlockConfig>().params.perception_radius = 60.0;
    app.update();
    let state = app.world().resource::<FlockState>();
    assert!(state.rejected().is_none());
    assert_eq!(state.config().params.perception_radius, 60.0);
}

#[test]
fn going_back_to_the_config_in_force_clears_the_refusal() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 10);
    app.update();
    app.world_mut().resource_mut::<FlockConfig>().params.max_speed = f32::INFINITY;
    app.update();
    assert!(app.world().resource::<FlockState>().rejected().is_some());
    // The same configuration as the one in force: valid, and nothing
    // changes, but the refusal is over.
    app.world_mut().resource_mut::<FlockConfig>().params.max_speed = FlockParams::default().max_speed;
    app.update();
    assert_eq!(app.world().resource::<FlockState>().rejected(), None);
}

#[test]
fn an_invalid_initial_config_is_refused_and_the_defaults_run() {
    let mut bad = config(1);
    bad.params.max_speed = f32::NAN;
    let mut app = headless_app(bad, 1);
    spawn(&mut app, 30);
    run_ticks(&mut app, 3);
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.rejected().map(|e| e.field), Some("max_speed"));
    assert_eq!(state.config().params, FlockParams::default());
    assert_eq!(state.config().seed, 1);
    assert!(state.flock().positions().iter().all(|p| p.is_finite()));
    // Reported once, although NaN never equals itself.
    assert_eq!(app.world().resource::<FlockRefusals>().total(), 1);
}

#[test]
fn the_config_can_be_edited_through_reflection() {
    use bevy::reflect::GetPath;
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 100);
    run_ticks(&mut app, 2);
    // The resource and the core's types are in the type registry, as an
    // inspector finds them.
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let config =
        registry.read().get(core::any::TypeId::of::<FlockConfig>()).map(|r| r.type_info().type_path());
    assert!(
        config.is_some_and(|path| path.starts_with("mirofish_bevy::config::FlockConfigOf<")),
        "{config:?}"
    );
    let path = "mirofish_sim::world::params::FlockParams";
    assert!(registry.read().get_with_type_path(path).is_some(), "{path} not registered");
    // Set a field by its path, as an inspector does.
    {
        let mut config = app.world_mut().resource_mut::<FlockConfig>();
        *config.path_mut::<f32>("params.max_speed").expect("a field") = 40.0;
    }
    run_ticks(&mut app, 30);
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.config().params.max_speed, 40.0);
    let fastest = state.flock().velocities().iter().map(|v| v.length()).fold(0.0, f32::max);
    assert!(fastest <= 40.0 * FlockParams::default().panic_speed * 1.001, "{fastest}");
}

/// Every refusal seen by a game system, as messages.
#[derive(Resource, Default)]
struct Seen(Vec<FlockRefusal>);

fn collect(mut seen: ResMut<Seen>, mut refusals: MessageReader<FlockRefusal>) {
    seen.0.extend(refusals.read().cloned());
}

#[test]
fn refusals_arrive_as_messages_and_in_a_bounded_list() {
    let mut app = headless_app(config(5), 1);
    app.init_resource::<Seen>().add_systems(FixedUpdate, collect.after(BoidSystems::Writeback));
    spawn(&mut app, 10);
    run_ticks(&mut app, 1);
    app.world_mut().resource_mut::<FlockConfig>().params.cohesion_weight = f32::NAN;
    let rock = app.world_mut().spawn((Obstacle2d { radius: -1.0 }, Position(Vec2::ZERO))).id();
    spawn(&mut app, usize::MAX);
    run_ticks(&mut app, 5);
    let seen = &app.world().resource::<Seen>().0;
    let kinds: Vec<&Refused> = seen.iter().map(|r| &r.what).collect();
    // Each once, though the config and the rock stay invalid for five ticks.
    assert_eq!(kinds.len(), 3, "{seen:?}");
    assert!(kinds.contains(&&Refused::Config) && kinds.contains(&&Refused::Spawn));
    assert!(kinds.contains(&&Refused::Obstacle(rock)));
    let config = seen.iter().find(|r| r.what == Refused::Config).unwrap();
    assert_eq!(config.error.field, "cohesion_weight");
    let list = app.world().resource::<FlockRefusals>();
    assert_eq!((list.total(), list.recent().count()), (3, 3));
}
