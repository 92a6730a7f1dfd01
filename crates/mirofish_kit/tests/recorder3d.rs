//! The kit's recorder in a volume, without a window: record restarts the
//! running volume afresh, the session's commands (a rock, a predator, a
//! second school's parameters) are in what stop saves, the core alone
//! replays the file to the same bits, replay reproduces it in the app, and
//! save config writes a volume's configuration that loads back.

use bevy::prelude::*;
use mirofish_bevy::Session;
use mirofish_bevy::volume::*;
use mirofish_kit::recorder::{Ask, RecorderControls, RecorderPlugin};
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::state_hash;
use mirofish_sim::{FlockParams, Obstacle, Predator, VolumeConfig, VolumeRecording};

mod common;

fn press(app: &mut App, ask: Ask) -> String {
    app.world_mut().resource_mut::<RecorderControls>().asked = Some(ask);
    app.update();
    app.world().resource::<RecorderControls>().message.clone()
}

fn submit(app: &mut App, command: VolumeCommand) {
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(command).unwrap();
}

#[test]
fn a_volume_session_is_recorded_saved_replayed_and_its_configuration_saved() {
    let folder = std::env::temp_dir().join(format!("mirofish-recorder3d-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut app = common::volume_app();
    app.add_plugins(RecorderPlugin);
    app.world_mut().resource_mut::<RecorderControls>().folder = Some(folder.clone());
    app.world_mut().commands().queue(SpawnSchool3d::new(120));
    app.world_mut().commands().queue(
        SpawnSchool3d::new(40).with_params(FlockParams { max_speed: 150.0, ..FlockParams::default() }),
    );
    app.world_mut().flush();
    for _ in 0..5 {
        app.update();
    }
    assert!(press(&mut app, Ask::Stop).contains("press record first"));
    assert!(press(&mut app, Ask::Replay).contains("nothing recorded"));

    assert_eq!(press(&mut app, Ask::Record), "recording from a fresh start");
    // The start is made at the next tick.
    app.update();
    assert_eq!(app.world().resource::<Flock3dRecorder>().session(), &Session::Recording);
    let state = app.world().resource::<Flock3dState>();
    assert_eq!((state.flock().len(), state.flock().params().len()), (160, 2), "both schools restarted");
    submit(
        &mut app,
        VolumeCommand::AddObstacle(Obstacle { centre: Vec3::new(120.0, 0.0, 0.0), radius: 40.0 }),
    );
    for _ in 0..10 {
        app.update();
    }
    submit(&mut app, VolumeCommand::AddPredator(Predator::new(Vec3::new(-100.0, 30.0, 0.0), 120.0)));
    let slower = FlockParams { max_speed: 90.0, ..FlockParams::default() };
    submit(&mut app, VolumeCommand::SetSchoolParams { school: 1, params: slower });
    for _ in 0..30 {
        app.update();
    }
    let said = press(&mut app, Ask::Stop);
    assert!(said.contains("ticks saved to"), "{said}");
    let end = state_hash(app.world().resource::<Flock3dState>().flock());
    let file = folder.join("session.replay");
    let saved = VolumeRecording::load(&file).unwrap();
    assert_eq!(saved.commands.len(), 3, "{:?}", saved.commands);
    assert_eq!(state_hash(&saved.replay().unwrap()), end, "the core alone replays the file to the same bits");

    assert_eq!(press(&mut app, Ask::Replay), "replaying the last recording");
    for _ in 0..(saved.ticks + 5) {
        app.update();
    }
    let session = app.world().resource::<Flock3dRecorder>().session().clone();
    assert!(matches!(session, Session::Matched { .. }), "{session:?}");

    let said = press(&mut app, Ask::SaveConfig);
    assert!(said.starts_with("configuration saved to"), "{said}");
    let config = VolumeConfig::load(folder.join("session.flock.ron")).unwrap();
    assert_eq!((config.fish, config.schools.len(), config.schools[0].fish), (120, 1, 40));
    assert_eq!(config.schools[0].params.max_speed, 90.0);
    assert_eq!(config.scene.obstacles.len(), 1);
    assert_eq!(config.scene.predators.len(), 1);
    let _ = std::fs::remove_dir_all(&folder);
}
