//! Record and replay: a run with commands at various ticks replays to the
//! same state hash at every checkpoint, and damaged files are refused with
//! the right error before anything runs.

use mirofish_sim::control::config::ExperimentConfig;
use mirofish_sim::control::replay::{FORMAT_VERSION, MAGIC, Recorder, Recording, ReplayError};
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Attractor, BoundaryMode, FlockParams, Goal, Obstacle, Predator, Vec2, state_hash};

/// A 300-tick run of 200 fish with a command of every kind along the way.
fn record(alignment_at_120: f32) -> Recording {
    let config = ExperimentConfig { fish: 200, seed: 11, ..ExperimentConfig::default() };
    let mut rec = Recorder::new(config, 25).unwrap();
    let schedule = [
        (0, FlockCommand::AddObstacle(Obstacle { centre: Vec2::new(100.0, 50.0), radius: 40.0 })),
        (10, FlockCommand::AddPredator(Predator::new(Vec2::new(-300.0, 0.0), 120.0))),
        (
            10,
            FlockCommand::SpawnFish { school: 0, count: 50, centre: Vec2::new(200.0, -100.0), radius: 60.0 },
        ),
        (60, FlockCommand::SetGoal(Some(Goal::seek(Vec2::new(400.0, 200.0), 0.6)))),
        (
            90,
            FlockCommand::SetAttractor(Some(Attractor { point: Vec2::ZERO, strength: -1.0, radius: 150.0 })),
        ),
        (
            120,
            FlockCommand::SetParams(FlockParams {
                alignment_weight: alignment_at_120,
                ..FlockParams::default()
            }),
        ),
        (150, FlockCommand::RemoveFish { count: 30 }),
        (170, FlockCommand::SetBoundary(BoundaryMode::Wrap)),
        (200, FlockCommand::ClearPredators),
        (230, FlockCommand::RemoveObstacle(0)),
    ];
    for (tick, command) in schedule {
        rec.schedule(tick, command).unwrap();
    }
    rec.run(140).unwrap();
    // A command sent mid-run, as a game would.
    rec.schedule(145, FlockCommand::AddObstacle(Obstacle { centre: Vec2::new(-50.0, 80.0), radius: 20.0 }))
        .unwrap();
    rec.run(160).unwrap();
    rec.finish()
}

#[test]
fn a_replay_matches_every_checkpoint() {
    let recording = record(1.4);
    assert_eq!(recording.commands.len(), 11);
    assert_eq!(recording.checkpoints.len(), 13, "ticks 0, 25, …, 300");
    let text = recording.to_text();
    let loaded = Recording::from_text(&text).unwrap();
    assert_eq!(loaded, recording);
    let end = loaded.replay().unwrap();
    assert_eq!(end.tick(), 300);
    assert_eq!(end.len(), 220);
    assert_eq!(state_hash(&end), recording.checkpoints.last().unwrap().hash);
    // Recording the same script twice gives the same file, byte for byte.
    assert_eq!(record(1.4).to_text(), text);
}

#[test]
fn a_changed_command_changes_the_run() {
    let a = record(1.4);
    let b = record(1.2);
    let (ha, hb) = (a.checkpoints.last().unwrap().hash, b.checkpoints.last().unwrap().hash);
    assert_ne!(ha, hb);
    // Checkpoints before the changed command agree; those after do not.
    for (ca, cb) in a.checkpoints.iter().zip(&b.checkpoints) {
        assert_eq!(ca.tick, cb.tick);
        assert_eq!(ca.hash == cb.hash, ca.tick <= 120, "tick {}", ca.tick);
    }
    // Replaying b's commands against a's checkpoints diverges at the first
    // checkpoint after tick 120.
    let forged = Recording { commands: b.commands.clone(), ..a.clone() };
    match forged.replay() {
        Err(ReplayError::Diverged { tick, .. }) => assert_eq!(tick, 125),
        other => panic!("expected a divergence, got {other:?}"),
    }
}

#[test]
fn damaged_files_are_refused_with_a_specific_error() {
    let text = record(1.4).to_text();

    let truncated = &text[..text.len() - 40];
    assert!(matches!(Recording::from_text(truncated), Err(ReplayError::Truncated { .. })));

    // One digit changed in the body: the checksum catches it.
    let at = text.find("radius: 40.0").unwrap();
    let altered = format!("{}radius: 41.0{}", &text[..at], &text[at + 12..]);
    match Recording::from_text(&altered) {
        Err(ReplayError::Corrupt { reason }) => assert!(reason.contains("checksum"), "{reason}"),
        other => panic!("expected corruption, got {other:?}"),
    }

    let foreign = "{\"positions\": [1, 2, 3]}\n";
    assert!(matches!(Recording::from_text(foreign), Err(ReplayError::Foreign { .. })));
    assert!(matches!(Recording::from_text(""), Err(ReplayError::Foreign { .. })));

    let newer =
        text.replacen(&format!("{MAGIC} {FORMAT_VERSION} "), &format!("{MAGIC} {} ", FORMAT_VERSION + 1), 1);
    assert_eq!(
        Recording::from_text(&newer),
        Err(ReplayError::Version { found: (FORMAT_VERSION + 1).to_string(), supported: FORMAT_VERSION })
    );
    // A version past every integer type is a version this build cannot
    // read, not a missing one.
    let huge = "9".repeat(30);
    let far = text.replacen(&format!("{MAGIC} {FORMAT_VERSION} "), &format!("{MAGIC} {huge} "), 1);
    match Recording::from_text(&far) {
        Err(e @ ReplayError::Version { .. }) => assert!(e.to_string().contains("999999"), "{e}"),
        other => panic!("expected a version error, got {other:?}"),
    }

    // A number edited into another of another length, the header left as
    // it was: the checksum, not a truncation, is what is reported.
    let edited = text.replacen("radius: 40.0", "radius: NaN", 1);
    match Recording::from_text(&edited) {
        Err(ReplayError::Corrupt { reason }) => assert!(reason.contains("checksum"), "{reason}"),
        other => panic!("expected corruption, got {other:?}"),
    }

    // A run too long to replay is refused before anything runs, even with a
    // header fixed to match.
    let mut endless = record(1.4);
    endless.ticks = u64::MAX;
    match Recording::from_text(&endless.to_text()) {
        Err(e @ ReplayError::TooLarge { what: "ticks", .. }) => {
            assert!(e.to_string().contains("ticks"), "{e}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }

    // A replay is not a configuration, and says so.
    let err = mirofish_sim::ExperimentConfig::from_ron(&text).unwrap_err();
    assert!(err.to_string().contains("replay"), "{err}");

    // A well-formed body with a bad value and a correct checksum (someone
    // edited it and fixed the header): refused by validation.
    let mut bad = record(1.4);
    bad.config.params.max_speed = -5.0;
    let err = Recording::from_text(&bad.to_text()).unwrap_err();
    assert!(matches!(err, ReplayError::Config(_)), "{err:?}");
    assert!(err.to_string().contains("params.max_speed"), "{err}");

    let mut bad = record(1.4);
    bad.commands[3].command = FlockCommand::AddObstacle(Obstacle { centre: Vec2::ZERO, radius: -1.0 });
    assert!(matches!(Recording::from_text(&bad.to_text()), Err(ReplayError::FlockCommand { index: 3, .. })));

    let mut bad = record(1.4);
    bad.commands.swap(2, 6);
    assert!(matches!(Recording::from_text(&bad.to_text()), Err(ReplayError::Corrupt { .. })));
}

#[test]
fn files_round_trip_and_missing_files_say_so() {
    let dir = std::env::temp_dir().join(format!("mirofish-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.replay");
    let recording = record(1.4);
    recording.save(&path).unwrap();
    assert_eq!(Recording::load(&path).unwrap(), recording);
    assert!(matches!(Recording::load(dir.join("missing.replay")), Err(ReplayError::Io { .. })));
    std::fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
    assert!(matches!(Recording::load(&path), Err(ReplayError::Corrupt { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_watched_replay_reports_every_tick_done() {
    let mut rec =
        Recorder::new(ExperimentConfig { fish: 40, seed: 2, ..ExperimentConfig::default() }, 10).unwrap();
    rec.run(30).unwrap();
    let recording = rec.finish();
    let mut seen = Vec::new();
    let end = recording.replay_watched(|tick| seen.push(tick)).unwrap();
    assert_eq!(seen, (1..=30).collect::<Vec<u64>>());
    assert_eq!(state_hash(&end), recording.checkpoints.last().unwrap().hash);
}

/// A recording whose start an older build placed otherwise (a fish inside
/// a rock, where this build pushes it out) diverges at tick 0 with a
/// message that names the change and the command that converts it; the
/// recording made again by this build keeps its configuration, commands
/// and checkpoint ticks, and replays.
#[test]
fn a_recording_from_an_older_start_is_named_and_recorded_again() {
    let mut config = ExperimentConfig { fish: 300, seed: 4, ..ExperimentConfig::default() };
    config.scene.obstacles.push(Obstacle { centre: Vec2::ZERO, radius: 120.0 });
    let recording = {
        let mut rec = Recorder::new(config, 20).unwrap();
        rec.schedule(30, FlockCommand::AddPredator(Predator::new(Vec2::new(-300.0, 0.0), 100.0))).unwrap();
        rec.run(60).unwrap();
        rec.finish()
    };
    // As an older build saw it: every hash its own (the start differed).
    let mut older = recording.clone();
    for c in &mut older.checkpoints {
        c.hash ^= 0x5a5a;
    }
    let refused = older.replay().unwrap_err();
    assert!(matches!(refused, ReplayError::Diverged { tick: 0, .. }), "{refused}");
    let message = refused.to_string();
    assert!(message.contains("out of it") && message.contains("--rerecord"), "{message}");

    let again = older.rerecord().unwrap();
    assert_eq!((&again.config, &again.commands, again.ticks), (&older.config, &older.commands, older.ticks));
    let ticks = |r: &Recording| r.checkpoints.iter().map(|c| c.tick).collect::<Vec<_>>();
    assert_eq!(ticks(&again), ticks(&older));
    assert_eq!(again, recording, "this build's own recording, bit for bit");
    again.replay().unwrap();
}
