//! The fixed-step schedule: the sets run in their documented order without
//! ambiguity, as many ticks as time asks for, and no more than the
//! catch-up cap after a stall.

mod common;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::*;
use mirofish_bevy::prelude::*;

#[derive(Resource, Default)]
struct Trace(Vec<BoidSystems>);

#[test]
fn fixed_update_runs_the_sets_in_the_documented_order_without_ambiguity() {
    let mut app = headless_app(config(1), 1);
    app.init_resource::<Trace>();
    for set in BoidSystems::ORDER {
        app.add_systems(FixedUpdate, (move |mut t: ResMut<Trace>| t.0.push(set)).in_set(set));
    }
    spawn(&mut app, 50);
    // `FixedTimesteps(1)`: each update advances the fixed clock by exactly
    // one timestep, so FixedUpdate runs once per update — except the very
    // first update, whose time delta Bevy makes zero. Four updates, three
    // ticks.
    for _ in 0..4 {
        app.update();
    }
    let trace = &app.world().resource::<Trace>().0;
    let expected: Vec<BoidSystems> =
        BoidSystems::ORDER.iter().copied().cycle().take(3 * BoidSystems::ORDER.len()).collect();
    assert_eq!(app.world().resource::<FlockState>().flock().tick(), 3);
    assert_eq!(trace, &expected);
}

#[test]
fn several_fixed_ticks_per_update_are_all_run_up_to_the_catch_up_cap() {
    // Three timesteps per update: the first update runs none (zero delta),
    // each later one runs FixedUpdate three times.
    let mut app = headless_app(config(1), 3);
    spawn(&mut app, 20);
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<FlockState>().flock().tick(), 6);

    // Five timesteps per update exceed the cap of three catch-up ticks:
    // the fixed clock only ever advances three.
    let mut capped = headless_app(config(1), 5);
    spawn(&mut capped, 20);
    for _ in 0..3 {
        capped.update();
    }
    assert_eq!(capped.world().resource::<FlockState>().flock().tick(), 6);
}

#[test]
fn a_frame_after_a_long_stall_catches_up_at_most_three_ticks() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 10);
    app.update();
    let before = app.world().resource::<FlockState>().flock().tick();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(core::time::Duration::from_secs(2)));
    app.update();
    let ran = app.world().resource::<FlockState>().flock().tick() - before;
    assert!(ran <= u64::from(mirofish_bevy::MAX_CATCH_UP_TICKS), "ran {ran} ticks in one frame");
    assert!(ran >= 1);
}

/// The order test above relies on ambiguity detection failing the schedule;
/// this proves the detector is armed: two unordered systems that both write
/// one resource must stop the app.
#[test]
#[should_panic]
fn ambiguity_detection_is_armed() {
    let mut app = headless_app(config(1), 1);
    app.init_resource::<Trace>();
    app.add_systems(FixedUpdate, (|mut t: ResMut<Trace>| t.0.clear(), |mut t: ResMut<Trace>| t.0.clear()));
    for _ in 0..3 {
        app.update();
    }
}

#[test]
fn the_catch_up_cap_holds_when_time_is_added_after_the_plugin() {
    let mut app = App::new();
    app.add_plugins(MiroFishPlugin::default().with_tick_rate(50.0).with_max_catch_up(3))
        .add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>());
    app.finish();
    let max_delta = app.world().resource::<Time<Virtual>>().max_delta();
    let tick = app.world().resource::<Time<Fixed>>().timestep();
    assert_eq!(tick, core::time::Duration::from_millis(20));
    assert_eq!(max_delta, tick * 3);
}

#[test]
fn the_app_clocks_are_left_alone_unless_asked() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(Time::<Fixed>::from_hz(30.0));
    let max_delta = app.world().resource::<Time<Virtual>>().max_delta();
    app.add_plugins(MiroFishPlugin::default());
    app.finish();
    assert_eq!(app.world().resource::<Time<Fixed>>().timestep(), Time::<Fixed>::from_hz(30.0).timestep());
    assert_eq!(app.world().resource::<Time<Virtual>>().max_delta(), max_delta);
}

#[test]
fn the_tick_runs_in_the_schedule_it_is_given() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .add_plugins(MiroFishPlugin::new(Update));
    spawn(&mut app, 20);
    for _ in 0..5 {
        app.update();
    }
    // One tick per frame, every number finite.
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock().tick(), 5);
    assert!(state.flock().positions().iter().all(|p| p.is_finite()));
}

/// The volume's plugin sets the clocks as the plane's does, and runs its
/// sets in the same order without ambiguity.
#[test]
fn a_volume_sets_the_clocks_and_runs_the_same_sets() {
    use mirofish_bevy::volume::{Flock3dState, MiroFish3dPlugin, SpawnSchool3d};
    let mut app = App::new();
    app.add_plugins(MiroFish3dPlugin::default().with_tick_rate(50.0).with_max_catch_up(3))
        .add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>());
    app.finish();
    let tick = app.world().resource::<Time<Fixed>>().timestep();
    assert_eq!(tick, core::time::Duration::from_millis(20));
    assert_eq!(app.world().resource::<Time<Virtual>>().max_delta(), tick * 3);
    app.edit_schedule(FixedUpdate, |schedule| {
        schedule.set_build_settings(bevy::ecs::schedule::ScheduleBuildSettings {
            ambiguity_detection: bevy::ecs::schedule::LogLevel::Error,
            ..default()
        });
    });
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1)).init_resource::<Trace>();
    for set in BoidSystems::ORDER {
        app.add_systems(FixedUpdate, (move |mut t: ResMut<Trace>| t.0.push(set)).in_set(set));
    }
    app.world_mut().commands().queue(SpawnSchool3d::new(50));
    for _ in 0..4 {
        app.update();
    }
    let expected: Vec<BoidSystems> =
        BoidSystems::ORDER.iter().copied().cycle().take(3 * BoidSystems::ORDER.len()).collect();
    assert_eq!(app.world().resource::<Flock3dState>().tick(), 3);
    assert_eq!(app.world().resource::<Trace>().0, expected);
}
