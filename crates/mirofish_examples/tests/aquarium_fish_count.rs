//! The aquarium's fish slider without a window: the count is met through
//! commands, and the perception radius follows it unless told not to.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_examples::aquarium::{AquariumSettings, aquarium_config, sync_fish_count};

fn app(auto_radius: bool) -> App {
    let settings = AquariumSettings { fish: 400, auto_radius, ..default() };
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(aquarium_config(&settings))
        .insert_resource(settings)
        .add_plugins(MiroFishPlugin::default())
        .add_systems(Update, sync_fish_count)
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(400));
    app.world_mut().flush();
    app.update();
    app
}

fn fish(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<Boid>>().iter(app.world()).count()
}

fn radius_after_asking_for(app: &mut App, count: usize) -> f32 {
    app.world_mut().resource_mut::<AquariumSettings>().fish = count;
    app.update();
    app.update();
    assert_eq!(fish(app), count);
    app.world().resource::<FlockConfig>().params.perception_radius
}

#[test]
fn the_radius_follows_the_fish_count() {
    let mut app = app(true);
    let tank = app.world().resource::<FlockConfig>().tank;
    let start = app.world().resource::<FlockConfig>().params;
    let more = radius_after_asking_for(&mut app, 1600);
    // Four times the fish on the same water: half the radius keeps the
    // neighbour count.
    let aim = app.world().resource::<AquariumSettings>().neighbours;
    let expected = mirofish_sim::with_auto_radius(&start, 1600, &tank, aim);
    assert_eq!(more, expected.perception_radius);
    assert!((more / start.perception_radius - 0.5).abs() < 0.2, "{more} vs {}", start.perception_radius);
    let config = app.world().resource::<FlockConfig>().clone();
    let ratio = |p: &FlockParams| p.separation_radius / p.perception_radius;
    assert!((ratio(&config.params) - ratio(&start)).abs() < 1e-4, "the separation radius keeps its share");
    assert_eq!(config.schools[0].perception_radius, more, "every school follows");
    let fewer = radius_after_asking_for(&mut app, 100);
    assert!(fewer > more);
}

#[test]
fn without_auto_radius_the_radius_stays() {
    let mut app = app(false);
    let start = app.world().resource::<FlockConfig>().params.perception_radius;
    assert_eq!(radius_after_asking_for(&mut app, 1600), start);
}

#[test]
fn the_default_scene_is_the_scene_file() {
    let settings = AquariumSettings::default();
    let file = mirofish_sim::ExperimentConfig::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenes/aquarium.ron"
    ))
    .expect("the scene file loads");
    assert_eq!(settings.scene, file, "the aquarium runs the file the lab runs");
    let second: usize = file.schools.iter().map(|s| s.fish).sum();
    assert_eq!(settings.fish, file.fish + second);
    // At the scene's own fish count the automatic radius is the scene's.
    let config = aquarium_config(&settings);
    assert!((config.params.perception_radius - file.params.perception_radius).abs() < 1e-3);
    assert!((config.schools[0].separation_radius - file.schools[0].params.separation_radius).abs() < 1e-3);
    assert_eq!(config.tank, file.tank);
}
