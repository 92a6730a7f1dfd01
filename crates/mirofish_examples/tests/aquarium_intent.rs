//! The aquarium's intent switch without a window. The switch itself is the
//! library's `DecisionPlugin` (tested in `mirofish_decide`'s
//! `tests/plugin.rs`); here, what the aquarium adds: it starts off with 24
//! units, keeps the settings the binary inserted first (`--intent`), and
//! once switched on the layer is running.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_examples::aquarium::intent::IntentPlugin;
use mirofish_examples::aquarium::{DecisionSettings, Decisions, decision_settings};

fn app(settings: Option<DecisionSettings>) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    if let Some(settings) = settings {
        app.insert_resource(settings);
    }
    app.add_plugins((MiroFishPlugin::default(), IntentPlugin));
    app.world_mut().commands().queue(SpawnSchool::new(200));
    app.world_mut().flush();
    for _ in 0..3 {
        app.update();
    }
    app
}

#[test]
fn the_aquarium_starts_off_with_24_units_and_keeps_settings_given_first() {
    let off = app(None);
    let settings = off.world().resource::<DecisionSettings>();
    assert!(!settings.on);
    assert_eq!(settings.config.units, 24);
    assert!(off.world().resource::<Decisions>().layer.is_none());
    let on = app(Some(decision_settings(true)));
    assert!(on.world().resource::<DecisionSettings>().on);
    let layer = on.world().resource::<Decisions>().layer.as_ref().expect("switched on from the start");
    assert_eq!(layer.config().units, 24);
}
