//! The kit's recorder without a window: record restarts the school from
//! the running configuration, the mouse tools' clicks are in the
//! recording, stop saves a file that the core alone replays to the same
//! bits, replay reproduces it in the app, and save config writes a file
//! that loads back with its rocks and predators. Pressing replay with
//! nothing recorded says so.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::Session;
use mirofish_bevy::prelude::*;
use mirofish_kit::recorder::{Ask, RecorderControls, RecorderPlugin};
use mirofish_kit::{MouseToolsPlugin, play_click};
use mirofish_sim::{ExperimentConfig, Recording};

fn app(folder: &std::path::Path) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { seed: 9, schools: vec![FlockParams::default()], ..default() })
        .add_plugins((MiroFishPlugin::default(), MouseToolsPlugin, RecorderPlugin))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().resource_mut::<RecorderControls>().folder = Some(folder.to_owned());
    app.world_mut().commands().queue(SpawnSchool::new(150));
    app.world_mut().commands().queue(SpawnSchool::new(50).in_school(1));
    app.world_mut().flush();
    app.update();
    app
}

fn press(app: &mut App, ask: Ask) -> String {
    app.world_mut().resource_mut::<RecorderControls>().asked = Some(ask);
    app.update();
    app.world().resource::<RecorderControls>().message.clone()
}

fn run(app: &mut App, updates: usize) {
    for _ in 0..updates {
        app.update();
    }
}

fn session(app: &App) -> Session {
    app.world().resource::<FlockRecorder>().session().clone()
}

#[test]
fn a_recorded_session_replays_bit_for_bit_and_its_configuration_saves() {
    let folder = std::env::temp_dir().join(format!("mirofish-kit-recorder-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut app = app(&folder);
    assert_eq!(press(&mut app, Ask::Replay), "nothing recorded yet");
    assert_eq!(session(&app), Session::Idle);
    press(&mut app, Ask::Record);
    run(&mut app, 1);
    assert_eq!(session(&app), Session::Recording);
    run(&mut app, 20);
    play_click(&mut app, MouseButton::Left, Vec2::new(-120.0, 40.0));
    run(&mut app, 10);
    play_click(&mut app, MouseButton::Right, Vec2::new(90.0, -30.0));
    run(&mut app, 30);
    assert!(press(&mut app, Ask::SaveConfig).starts_with("configuration saved to"));
    let said = press(&mut app, Ask::Stop);
    assert!(said.contains("ticks saved to"), "{said}");
    let saved = Recording::load(folder.join("session.replay")).expect("the session was saved");
    assert!(saved.ticks > 60, "{} ticks", saved.ticks);
    assert!(saved.commands.len() >= 2, "the clicks are commands: {:?}", saved.commands);
    assert_eq!(saved.config.total_fish(), 200, "the start keeps both schools' fish");
    saved.replay().expect("the core replays the session to the same bits");
    let config =
        ExperimentConfig::load(folder.join("session.flock.ron")).expect("the configuration was saved");
    assert_eq!((config.scene.predators.len(), config.scene.obstacles.len()), (1, 1));
    assert_eq!((config.fish, config.schools.len(), config.schools[0].fish), (150, 1, 50));
    press(&mut app, Ask::Replay);
    run(&mut app, saved.ticks as usize + 5);
    assert_eq!(session(&app), Session::Matched { ticks: saved.ticks });
    std::fs::remove_dir_all(&folder).unwrap();
}
