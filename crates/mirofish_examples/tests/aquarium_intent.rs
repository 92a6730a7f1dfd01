//! The aquarium's intent switch without a window: on, the fish split into
//! units that each get a goal; off, the groups and goals go again.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::FishGroup;
use mirofish_bevy::prelude::*;
use mirofish_decide::DecisionConfig;
use mirofish_examples::aquarium::DecisionSettings;
use mirofish_examples::aquarium::intent::IntentPlugin;
use mirofish_examples::aquarium::{Decisions, IntentSettings, decision_settings};

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
fn switching_intent_on_and_off() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { seed: 2, ..default() })
        .insert_resource(IntentSettings { show: false })
        .insert_resource(DecisionSettings {
            config: DecisionConfig { units: 10, ..default() },
            ..decision_settings(true)
        })
        .add_plugins((MiroFishPlugin::default(), IntentPlugin))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(400));
    app.world_mut().flush();
    ticks(&mut app, 5);
    assert_eq!(grouped(&mut app), 400);
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
