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
    let err = state.rejected.as_ref().expect("the bad config was accepted");
    assert_eq!(err.field, "perception_radius");
    assert!(err.to_string().contains("perception_radius"));
    assert_eq!(state.active.params.perception_radius, FlockParams::default().perception_radius);

    // A valid change is applied and clears the error.
    app.world_mut().resource_mut::<FlockConfig>().params.perception_radius = 60.0;
    app.update();
    let state = app.world().resource::<FlockState>();
    assert!(state.rejected.is_none());
    assert_eq!(state.active.params.perception_radius, 60.0);
}

#[test]
fn going_back_to_the_config_in_force_clears_the_refusal() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 10);
    app.update();
    app.world_mut().resource_mut::<FlockConfig>().params.max_speed = f32::INFINITY;
    app.update();
    assert!(app.world().resource::<FlockState>().rejected.is_some());
    // The same configuration as the one in force: valid, and nothing
    // changes, but the refusal is over.
    app.world_mut().resource_mut::<FlockConfig>().params.max_speed = FlockParams::default().max_speed;
    app.update();
    assert_eq!(app.world().resource::<FlockState>().rejected, None);
}

#[test]
#[should_panic(expected = "max_speed")]
fn an_invalid_initial_config_stops_the_app_at_build() {
    let mut bad = config(1);
    bad.params.max_speed = f32::NAN;
    let _ = headless_app(bad, 1);
}
