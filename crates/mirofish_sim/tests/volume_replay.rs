//! Runs in a volume recorded and replayed: commands of every kind along
//! the way replay to the same state hash at every checkpoint on any number
//! of threads, a plane's and a volume's replay each refuse the other by
//! name, and random hostile commands never break a school.

use glam::Vec3;
use mirofish_sim::control::replay::{ReplayError, space_of};
use mirofish_sim::space::{Flock3d, VolumeCommand, Zones};
use mirofish_sim::state_hash;
use mirofish_sim::world::scene::check_room;
use mirofish_sim::{
    Attractor, BoundaryMode, ExperimentConfig, FlockParams, Goal, Obstacle, Predator, Recorder, Recording,
    Route, VolumeConfig, VolumeRecorder, VolumeRecording, VolumeSchool,
};
use proptest::prelude::*;

/// A 300-tick run of two schools with a command of every kind.
fn record(speed_at_120: f32) -> VolumeRecording {
    let mut config = VolumeConfig { fish: 200, seed: 11, leaders: 4, ..VolumeConfig::default() };
    config.schools.push(VolumeSchool { fish: 60, ..VolumeSchool::default() });
    config.scene.obstacles.push(Obstacle { centre: Vec3::new(500.0, 200.0, 300.0), radius: 50.0 });
    let mut rec = VolumeRecorder::new(config, 25).unwrap();
    let centre = Vec3::new(300.0, 250.0, 300.0);
    let schedule = [
        (0, VolumeCommand::AddObstacle(Obstacle { centre: Vec3::new(100.0, 80.0, 90.0), radius: 40.0 })),
        (10, VolumeCommand::AddPredator(Predator::new(Vec3::new(50.0, 50.0, 50.0), 120.0))),
        (10, VolumeCommand::SpawnFish { school: 1, count: 50, centre, radius: 60.0 }),
        (30, VolumeCommand::SetRoute(Some(Route::new(vec![centre, Vec3::splat(100.0)], 40.0)))),
        (40, VolumeCommand::SetLeaders { fish: vec![200, 201, 202], leads: true }),
        (60, VolumeCommand::SetGoal(Some(Goal::seek(Vec3::new(400.0, 200.0, 100.0), 0.6)))),
        (70, VolumeCommand::SetSchoolGoal { school: 1, goal: Some(Goal::seek(Vec3::splat(50.0), 1.0)) }),
        (90, VolumeCommand::SetAttractor(Some(Attractor { point: centre, strength: -1.0, radius: 150.0 }))),
        (
            120,
            VolumeCommand::SetSchoolParams {
                school: 0,
                params: FlockParams { max_speed: speed_at_120, ..FlockParams::default() },
            },
        ),
        (150, VolumeCommand::RemoveFish { count: 30 }),
        (170, VolumeCommand::SetBoundary(BoundaryMode::Wrap)),
        (200, VolumeCommand::ClearPredators),
        (210, VolumeCommand::SetZones(Some(Zones { speed: 60.0, ..Zones::default() }))),
        (230, VolumeCommand::RemoveObstacle(0)),
        (240, VolumeCommand::FormGroups { school: Some(0), first: 0, count: 3 }),
        (240, VolumeCommand::SetGroupGoal { group: 1, goal: Some(Goal::seek(Vec3::splat(400.0), 1.5)) }),
        (250, VolumeCommand::JoinGroup { fish: vec![5, 6, 250], group: Some(1) }),
        (260, VolumeCommand::SetZones(None)),
        (280, VolumeCommand::ClearGroups),
    ];
    for (tick, command) in schedule {
        rec.schedule(tick, command).unwrap();
    }
    rec.run(140).unwrap();
    // A command sent mid-run, as a game would.
    rec.schedule(145, VolumeCommand::AddObstacle(Obstacle { centre: Vec3::splat(600.0), radius: 20.0 }))
        .unwrap();
    rec.run(160).unwrap();
    rec.finish()
}

#[test]
fn a_volume_replay_matches_every_checkpoint_on_one_and_two_threads() {
    let recording = record(140.0);
    assert_eq!(recording.commands.len(), 20);
    assert_eq!(recording.checkpoints.len(), 13, "ticks 0, 25, …, 300");
    let text = recording.to_text();
    assert_eq!(space_of(&text), Some("volume"));
    let loaded = VolumeRecording::from_text(&text).unwrap();
    assert_eq!(loaded, recording);
    let last = recording.checkpoints.last().unwrap().hash;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let end: Flock3d = pool.install(|| loaded.replay()).unwrap();
        assert_eq!((end.tick(), end.len()), (300, 280), "{threads} threads");
        assert_eq!(state_hash(&end), last, "{threads} threads");
    }
    // The same script recorded twice: the same file, byte for byte.
    assert_eq!(record(140.0).to_text(), text);
}

#[test]
fn a_changed_command_changes_the_volume_run_from_its_tick_on() {
    let (a, b) = (record(140.0), record(120.0));
    for (ca, cb) in a.checkpoints.iter().zip(&b.checkpoints) {
        assert_eq!(ca.hash == cb.hash, ca.tick <= 120, "tick {}", ca.tick);
    }
    let forged = VolumeRecording { commands: b.commands.clone(), ..a.clone() };
    match forged.replay() {
        Err(ReplayError::Diverged { tick, .. }) => assert_eq!(tick, 125),
        other => panic!("expected a divergence, got {other:?}"),
    }
}

#[test]
fn each_kind_of_replay_refuses_the_other_by_name() {
    let volume = record(140.0).to_text();
    let mut plane = Recorder::new(ExperimentConfig { fish: 20, ..ExperimentConfig::default() }, 10).unwrap();
    plane.run(20).unwrap();
    let plane = plane.finish().to_text();
    assert_eq!(space_of(&plane), Some("plane"));
    assert_eq!(space_of("hello"), None);
    let err = Recording::from_text(&volume).unwrap_err();
    assert!(matches!(&err, ReplayError::Space { found, expected: "plane" } if found == "volume"), "{err:?}");
    assert!(err.to_string().contains("volume"), "{err}");
    let err = VolumeRecording::from_text(&plane).unwrap_err();
    assert!(matches!(&err, ReplayError::Space { found, expected: "volume" } if found == "plane"), "{err:?}");
    // Damage is caught as on a plane.
    let at = volume.find("radius: 40.0").unwrap();
    let altered = format!("{}radius: 41.0{}", &volume[..at], &volume[at + 12..]);
    assert!(matches!(VolumeRecording::from_text(&altered), Err(ReplayError::Corrupt { .. })));
    assert!(matches!(
        VolumeRecording::from_text(&volume[..volume.len() - 30]),
        Err(ReplayError::Truncated { .. })
    ));
    // An edited command with the header fixed to match: refused by name.
    let mut bad = record(140.0);
    bad.commands[1].command = VolumeCommand::AddPredator(Predator::new(Vec3::NAN, 10.0));
    let err = VolumeRecording::from_text(&bad.to_text()).unwrap_err();
    assert!(matches!(err, ReplayError::FlockCommand { index: 1, .. }), "{err:?}");
    assert!(err.to_string().contains("predator.position"), "{err}");
    // A replay is not a configuration.
    assert!(VolumeConfig::from_ron(&volume).unwrap_err().to_string().contains("replay"));
}

/// Rocks where fish get caught: across the walls and corners of the
/// default 1280 × 720 × 720 box, and in clusters near its middle that
/// overlap.
fn awkward_rock() -> impl Strategy<Value = Obstacle<Vec3>> {
    // Each coordinate across one wall or the other, or anywhere between.
    let near = |half: f32| prop_oneof![-half - 60.0..-half + 60.0, half - 60.0..half + 60.0, -half..half];
    let on_a_wall = (near(640.0), near(360.0), near(360.0), 50.0f32..400.0);
    let clustered = (-100.0f32..100.0, -100.0f32..100.0, -100.0f32..100.0, 60.0f32..250.0);
    prop_oneof![on_a_wall, clustered]
        .prop_map(|(x, y, z, radius)| Obstacle { centre: Vec3::new(x, y, z), radius })
}

/// Any command, with numbers from sensible to absurd, and many rocks
/// where they are awkward.
fn hostile_command() -> impl Strategy<Value = VolumeCommand> {
    prop_oneof![1 => awkward_rock().prop_map(VolumeCommand::AddObstacle), 3 => any_command()]
}

/// Any command, with numbers from sensible to absurd.
fn any_command() -> impl Strategy<Value = VolumeCommand> {
    let number = prop_oneof![
        -1000.0f32..1000.0,
        Just(0.0f32),
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(-1.0e30f32),
        Just(1.0e30f32)
    ];
    let point = (number.clone(), number.clone(), number.clone()).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    prop_oneof![
        (point.clone(), number.clone())
            .prop_map(|(centre, radius)| VolumeCommand::AddObstacle(Obstacle { centre, radius })),
        (point.clone(), number.clone()).prop_map(|(p, r)| VolumeCommand::AddPredator(Predator::new(p, r))),
        (0u16..3, 0usize..400, point.clone(), number.clone()).prop_map(|(school, count, centre, radius)| {
            VolumeCommand::SpawnFish { school, count, centre, radius }
        }),
        (0usize..500).prop_map(|count| VolumeCommand::RemoveFish { count }),
        (point.clone(), number.clone())
            .prop_map(|(target, weight)| VolumeCommand::SetGoal(Some(Goal::seek(target, weight)))),
        (point.clone(), number.clone(), number.clone()).prop_map(|(point, strength, radius)| {
            VolumeCommand::SetAttractor(Some(Attractor { point, strength, radius }))
        }),
        (number.clone(), number.clone(), number.clone()).prop_map(|(repulsion, speed, turn_rate)| {
            VolumeCommand::SetZones(Some(Zones { repulsion, speed, turn_rate, ..Zones::default() }))
        }),
        Just(VolumeCommand::SetZones(None)),
        (0usize..4).prop_map(VolumeCommand::RemoveObstacle),
        prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)]
            .prop_map(VolumeCommand::SetBoundary),
        prop::collection::vec(0u32..1000, 0..20)
            .prop_map(|fish| VolumeCommand::SetLeaders { fish, leads: true }),
        (prop::option::of(0u16..3), any::<u16>(), any::<u16>())
            .prop_map(|(school, first, count)| VolumeCommand::FormGroups { school, first, count }),
        (prop::collection::vec(0u32..1000, 0..20), prop::option::of(any::<u16>()))
            .prop_map(|(fish, group)| VolumeCommand::JoinGroup { fish, group }),
        (any::<u16>(), point.clone(), number.clone()).prop_map(|(group, target, weight)| {
            VolumeCommand::SetGroupGoal { group, goal: Some(Goal::seek(target, weight)) }
        }),
        Just(VolumeCommand::ClearGroups),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_hostile_commands_keep_a_volume_finite_and_contained(
        commands in prop::collection::vec((0u64..60, hostile_command()), 1..25),
        seed in any::<u64>(),
    ) {
        let config = VolumeConfig { fish: 80, seed, ..VolumeConfig::default() };
        let mut rec = VolumeRecorder::new(config, 20).unwrap();
        for (tick, command) in commands {
            // Refused or queued; a refused one leaves the queue as it was.
            let before = rec.simulation().pending().len();
            let queued = rec.schedule(tick, command).is_ok();
            prop_assert_eq!(rec.simulation().pending().len(), before + usize::from(queued));
        }
        // After every tick: the rocks leave room (a rock that would close it
        // is not added), and every fish is finite, in the box and in no rock.
        for tick in 0..60 {
            rec.run(1).unwrap();
            let swarm = rec.simulation();
            let (tank, rocks) = (swarm.tank(), &swarm.scene().obstacles);
            prop_assert!(check_room(rocks, tank).is_ok(), "tick {}: the rocks cover the box", tick);
            for (p, v) in swarm.positions().iter().zip(swarm.velocities()) {
                prop_assert!(p.is_finite() && v.is_finite(), "tick {}: {} {}", tick, p, v);
                prop_assert!(tank.contains(*p), "tick {}: outside the tank at {}", tick, p);
                let inside = rocks.iter().find(|o| o.contains(*p));
                prop_assert!(inside.is_none(), "tick {}: at {} in {:?}", tick, p, inside);
            }
        }
        // And the run replays.
        let recording = rec.finish();
        prop_assert!(recording.replay().is_ok());
    }
}

#[test]
fn a_run_changed_only_by_commands_is_its_own_recording() {
    let config = VolumeConfig { fish: 120, seed: 8, ..VolumeConfig::default() };
    let mut run = config.start().unwrap();
    run.run(30);
    run.submit(VolumeCommand::AddPredator(Predator::new(Vec3::splat(200.0), 150.0))).unwrap();
    run.run(30);
    let recording = VolumeRecording::of_run(config.clone(), &run).unwrap();
    assert_eq!((recording.ticks, recording.commands.len(), recording.checkpoints.len()), (60, 1, 2));
    assert_eq!(state_hash(&recording.replay().unwrap()), state_hash(&run));
    // A fish moved by hand is not in it: the replay says where it parts.
    run.set(3, Vec3::splat(10.0), Vec3::X).unwrap();
    run.step();
    let moved = VolumeRecording::of_run(config, &run).unwrap();
    assert!(matches!(moved.replay(), Err(ReplayError::Diverged { tick: 61, .. })));
}
