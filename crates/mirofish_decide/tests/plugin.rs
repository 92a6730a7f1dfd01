//! The decision layer's Bevy plugin, headless: switched on it splits the
//! school into units that each get a goal and writes a message per
//! decision; a decider that fails writes a message per failure with its
//! cause; switched off, the groups and goals go again.

use std::time::{Duration, Instant};

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::FishGroup;
use mirofish_bevy::prelude::*;
use mirofish_decide::plugin::{DecisionFailed, DecisionPlugin, DecisionSettings, Decisions, UnitDecided};
use mirofish_decide::{DecideError, DecisionConfig, DecisionLayer, FailureCause, ScriptedDecider};

/// What the messages said, gathered by a system.
#[derive(Resource, Default)]
struct Heard {
    decided: Vec<UnitDecided>,
    failed: Vec<DecisionFailed>,
}

fn listen(mut heard: ResMut<Heard>, mut d: MessageReader<UnitDecided>, mut f: MessageReader<DecisionFailed>) {
    heard.decided.extend(d.read().cloned());
    heard.failed.extend(f.read().cloned());
}

fn app(units: u16) -> App {
    let mut app = App::new();
    let config = DecisionConfig { units, ..DecisionConfig::default() };
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { seed: 2, ..default() })
        .insert_resource(DecisionSettings { on: true, config })
        .add_plugins((MiroFishPlugin::default(), DecisionPlugin))
        .init_resource::<Heard>()
        .add_systems(Update, listen)
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(400));
    app.world_mut().flush();
    app
}

fn ticks(app: &mut App, n: u64) {
    let target = app.world().resource::<FlockState>().flock().tick() + n;
    while app.world().resource::<FlockState>().flock().tick() < target {
        app.update();
    }
}

fn grouped(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<FishGroup>>().iter(app.world()).count()
}

#[test]
fn on_every_unit_decides_and_says_so_off_the_groups_go() {
    let mut app = app(10);
    ticks(&mut app, 5);
    assert_eq!(grouped(&mut app), 400);
    let heard = app.world().resource::<Heard>();
    let mut units: Vec<u16> = heard.decided.iter().map(|d| d.0.unit).collect();
    units.sort_unstable();
    units.dedup();
    assert_eq!(units, (0..10).collect::<Vec<_>>(), "a message for every unit's decision");
    assert!(heard.decided.iter().all(|d| !d.0.fallback) && heard.failed.is_empty());
    let layer = app.world().resource::<Decisions>().layer.as_ref().unwrap();
    assert_eq!(layer.intents().filter(Option::is_some).count(), 10, "{:?}", layer.stats());
    let goals = app.world().resource::<FlockState>().scene().group_goals.iter().flatten().count();
    assert_eq!(goals, 10, "every unit has somewhere to go");
    app.world_mut().resource_mut::<DecisionSettings>().on = false;
    ticks(&mut app, 3);
    assert!(app.world().resource::<Decisions>().layer.is_none());
    assert_eq!(grouped(&mut app), 0);
    assert!(app.world().resource::<FlockState>().scene().group_goals.is_empty());
}

#[test]
fn a_layer_of_your_own_is_kept_and_its_failures_are_told() {
    let mut app = app(4);
    let config = DecisionConfig { units: 4, ..DecisionConfig::default() };
    let decider = ScriptedDecider::new(vec![Err(DecideError::Malformed("no intent".into()))]);
    app.world_mut().resource_mut::<Decisions>().layer = Some(DecisionLayer::new(config, decider).unwrap());
    // Its answers come from its own threads: tick until all four units
    // have fallen back (bounded in time).
    let start = Instant::now();
    while app.world().resource::<Heard>().failed.len() < 4 {
        assert!(start.elapsed() < Duration::from_secs(20), "no failures told");
        ticks(&mut app, 1);
        std::thread::sleep(Duration::from_millis(5));
    }
    let heard = app.world().resource::<Heard>();
    for failed in &heard.failed {
        assert!(matches!(failed.0.cause, FailureCause::Decider(DecideError::Malformed(_))), "{:?}", failed.0);
    }
    // Each failure is also the unit's decision: the fallback.
    let fallbacks = heard.decided.iter().filter(|d| d.0.fallback).count();
    assert_eq!(fallbacks, heard.failed.len());
    let layer = app.world().resource::<Decisions>().layer.as_ref().unwrap();
    assert!(layer.stats().malformed >= 4, "the scripted layer was kept: {:?}", layer.stats());
}

/// In a volume: the same settings, messages and goals beside
/// `MiroFish3dPlugin`, with a game's own region in the vocabulary the
/// plugin starts its layer with; off, the groups and goals go again.
#[test]
fn a_volume_decides_beside_the_3d_plugin() {
    use mirofish_bevy::volume::{Flock3dState, MiroFish3dPlugin, SpawnSchool3d};
    use mirofish_decide::plugin::DecisionPlugin3d;
    use mirofish_decide::{Intent, Region, Vocabulary};
    use mirofish_sim::Vec3;

    let mut app = App::new();
    let config = DecisionConfig { units: 6, ..DecisionConfig::default() };
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(DecisionSettings { on: true, config })
        .add_plugins((MiroFish3dPlugin::default(), DecisionPlugin3d))
        .init_resource::<Heard>()
        .add_systems(Update, listen)
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().resource_mut::<Decisions<Vec3>>().vocabulary =
        Vocabulary::default().with_region("kelp", Vec3::new(0.1, 0.2, 0.9)).unwrap();
    app.world_mut().commands().queue(SpawnSchool3d::new(300));
    let tick = |app: &App| app.world().resource::<Flock3dState>().flock().tick();
    while tick(&app) < 5 {
        app.update();
    }
    let heard = app.world().resource::<Heard>();
    let mut units: Vec<u16> = heard.decided.iter().map(|d| d.0.unit).collect();
    units.sort_unstable();
    units.dedup();
    assert_eq!(units, (0..6).collect::<Vec<_>>(), "a message for every unit's decision");
    let decisions = app.world().resource::<Decisions<Vec3>>();
    let layer = decisions.layer.as_ref().unwrap();
    assert!(layer.vocabulary().regions().get(Region::named("kelp").unwrap()).is_some());
    assert!(layer.intents().flatten().all(|i| matches!(i, Intent::GoTo { .. })), "the rules tour the volume");
    let flock = app.world().resource::<Flock3dState>().flock();
    assert!(flock.groups().iter().filter(|&&g| g < 6).count() == 300, "every fish in a unit");
    assert_eq!(flock.scene().group_goals.iter().flatten().count(), 6, "every unit has somewhere to go");
    app.world_mut().resource_mut::<DecisionSettings>().on = false;
    while tick(&app) < 8 {
        app.update();
    }
    let flock = app.world().resource::<Flock3dState>().flock();
    assert!(app.world().resource::<Decisions<Vec3>>().layer.is_none());
    assert!(
        flock.groups().iter().all(|&g| g == mirofish_sim::NO_GROUP) && flock.scene().group_goals.is_empty()
    );
}
