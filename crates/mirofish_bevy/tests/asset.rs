//! Configuration files as assets (the `asset` feature): a `.flock.ron`
//! file loads into `FlockConfig`, spawns what it describes, and a change
//! to it reaches the flock; a bad file is refused, reported with the field
//! named, and changes nothing.
#![cfg(feature = "asset")]

use std::time::{Duration, Instant};

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockAsset, FlockAssetPlugin, FlockConfigAsset, FlockRefusals, Refused};

const FILE: &str = "(
    fish: 120,
    leaders: 3,
    seed: 9,
    params: (cohesion_weight: 0.3, max_speed: 110.0),
    schools: [(fish: 40, params: (max_speed: 150.0), colour: Some((0.1, 0.8, 0.3)))],
    tank: (min: (-500.0, -300.0), max: (500.0, 300.0)),
    scene: (obstacles: [(centre: (0.0, 0.0), radius: 40.0)]),
)";

fn app(dir: &std::path::Path) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .add_plugins(bevy::asset::AssetPlugin { file_path: dir.display().to_string(), ..default() })
        .add_plugins((MiroFishPlugin::default(), FlockAssetPlugin))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

/// Updates until `done` (or fails after 20 s: loading runs on another
/// thread).
fn until(app: &mut App, what: &str, done: impl Fn(&mut App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < Duration::from_secs(20), "gave up waiting: {what}");
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn count<T: Component>(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<T>>().iter(app.world()).count()
}

#[test]
fn a_flock_file_configures_spawns_and_follows_its_changes() {
    let dir = std::env::temp_dir().join(format!("mirofish-asset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("school.flock.ron"), FILE).unwrap();
    let mut app = app(&dir);
    let handle = app.world().resource::<AssetServer>().load::<FlockAsset>("school.flock.ron");
    app.insert_resource(FlockConfigAsset::spawning(handle.clone()));
    until(&mut app, "the file's fish", |app| count::<Boid>(app) == 160);
    let config = app.world().resource::<FlockConfig>().clone();
    assert_eq!((config.params.cohesion_weight, config.params.max_speed, config.seed), (0.3, 110.0, 9));
    assert_eq!(config.schools.len(), 1);
    assert_eq!(config.schools[0].max_speed, 150.0);
    // The second school's colour is the file's; the first keeps the game's.
    assert_eq!(config.colour_of(1), [0.1, 0.8, 0.3]);
    assert_eq!(config.colour_of(0), mirofish_bevy::SCHOOL_PALETTE[0]);
    assert_eq!(config.tank.max, Vec2::new(500.0, 300.0));
    assert_eq!(count::<Leader>(&mut app), 3);
    until(&mut app, "the rock", |app| count::<mirofish_bevy::Obstacle2d>(app) == 1);
    // An edit (what the file watcher does on a save) reaches the config.
    app.world_mut()
        .resource_mut::<Assets<FlockAsset>>()
        .get_mut(&handle)
        .unwrap()
        .config
        .params
        .cohesion_weight = 0.05;
    until(&mut app, "the edit", |app| app.world().resource::<FlockConfig>().params.cohesion_weight == 0.05);
    assert_eq!(count::<Boid>(&mut app), 160, "fish are spawned once");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_file_is_refused_and_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("mirofish-asset-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.flock.ron"), "(params: (max_speed: -3.0))").unwrap();
    let mut app = app(&dir);
    let before = app.world().resource::<FlockConfig>().clone();
    let handle = app.world().resource::<AssetServer>().load::<FlockAsset>("bad.flock.ron");
    app.insert_resource(FlockConfigAsset::spawning(handle.clone()));
    until(&mut app, "the refusal", |app| {
        app.world().resource::<AssetServer>().load_state(&handle).is_failed()
    });
    until(&mut app, "the refusal's report", |app| app.world().resource::<FlockRefusals>().total() > 0);
    let refusal = app.world().resource::<FlockRefusals>().recent().last().cloned().unwrap();
    assert_eq!(refusal.what, Refused::File("bad.flock.ron".into()));
    assert!(refusal.error.to_string().contains("params.max_speed"), "{refusal}");
    assert_eq!(*app.world().resource::<FlockConfig>(), before);
    assert_eq!(count::<Boid>(&mut app), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
