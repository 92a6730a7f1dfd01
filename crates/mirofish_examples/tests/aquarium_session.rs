//! The aquarium's session buttons without a window: record restarts the
//! scene, the mouse tools' clicks are in the recording, stop saves a file
//! that the core alone replays to the same bits, replay reproduces it in
//! the app, and save config writes a file that loads back with the rocks
//! and predators in it.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::Session;
use mirofish_bevy::prelude::*;
use mirofish_examples::aquarium::session::{self, CONFIG_FILE, RECORDING_FILE};
use mirofish_examples::aquarium::{AquariumSettings, aquarium_config};
use mirofish_kit::recorder::{Ask, RecorderPlugin};
use mirofish_kit::{MouseToolsPlugin, RecorderControls, play_click};
use mirofish_sim::{ExperimentConfig, Recording};

fn app(folder: &std::path::Path) -> App {
    let settings = AquariumSettings { fish: 400, ..default() };
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(aquarium_config(&settings))
        .insert_resource(settings)
        .add_plugins((MiroFishPlugin::default(), MouseToolsPlugin, RecorderPlugin))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let (controls, configs) = session::recorder(Some(folder.to_owned()));
    app.insert_resource(controls).insert_resource(configs);
    app.world_mut().commands().queue(SpawnSchool::new(100));
    app.world_mut().flush();
    app.update();
    app
}

fn press(app: &mut App, ask: Ask) {
    app.world_mut().resource_mut::<RecorderControls>().asked = Some(ask);
    app.update();
}

fn run(app: &mut App, updates: usize) {
    for _ in 0..updates {
        app.update();
    }
}

#[test]
fn a_recorded_aquarium_session_replays_bit_for_bit_and_its_config_saves() {
    let folder = std::env::temp_dir().join(format!("mirofish-session-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut app = app(&folder);
    press(&mut app, Ask::Record);
    // The session starts with the next tick.
    run(&mut app, 1);
    assert_eq!(app.world().resource::<mirofish_bevy::FlockRecorder>().session(), &Session::Recording);
    assert_eq!(count_fish(&mut app), 400, "the scene restarted with the panel's fish count");
    run(&mut app, 20);
    play_click(&mut app, MouseButton::Left, Vec2::new(-150.0, 60.0));
    run(&mut app, 15);
    play_click(&mut app, MouseButton::Right, Vec2::new(100.0, -40.0));
    run(&mut app, 40);
    press(&mut app, Ask::SaveConfig);
    press(&mut app, Ask::Stop);
    let saved = Recording::load(folder.join(RECORDING_FILE)).expect("the session was saved");
    assert!(saved.ticks > 70, "{} ticks", saved.ticks);
    assert!(saved.commands.len() >= 2, "the clicks are commands: {:?}", saved.commands);
    saved.replay().expect("the core replays the aquarium's session to the same bits");
    let config = ExperimentConfig::load(folder.join(CONFIG_FILE)).expect("the configuration was saved");
    assert_eq!((config.scene.predators.len(), config.scene.obstacles.len()), (1, 1));
    assert_eq!(config.total_fish(), 400);
    press(&mut app, Ask::Replay);
    run(&mut app, saved.ticks as usize + 5);
    assert_eq!(
        app.world().resource::<mirofish_bevy::FlockRecorder>().session(),
        &Session::Matched { ticks: saved.ticks }
    );
    std::fs::remove_dir_all(&folder).unwrap();
}

fn count_fish(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<Boid>>().iter(app.world()).count()
}
