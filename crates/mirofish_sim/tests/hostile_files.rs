//! Hostile recordings, files and commands, on a plane and in a volume:
//! a recording passes only when its last tick was compared, reads are
//! bounded while reading, and a route's current waypoint is one of its
//! waypoints.

use std::path::Path;

use glam::Vec3;
use mirofish_sim::control::config::read_bounded;
use mirofish_sim::control::replay::{Checkpoint, ReplayError};
use mirofish_sim::space::{Flock3d, VolumeCommand};
use mirofish_sim::{
    ExperimentConfig, FlockCommand, FlockParams, Recorder, Recording, Route, Simulation, Tank, Tank3d, Vec2,
    VolumeConfig, VolumeRecorder, VolumeRecording,
};

fn plane_recording() -> Recording {
    let mut rec =
        Recorder::new(ExperimentConfig { fish: 60, seed: 3, ..ExperimentConfig::default() }, 20).unwrap();
    rec.run(60).unwrap();
    rec.finish()
}

fn volume_recording() -> VolumeRecording {
    let mut rec =
        VolumeRecorder::new(VolumeConfig { fish: 60, seed: 3, ..VolumeConfig::default() }, 20).unwrap();
    rec.run(60).unwrap();
    rec.finish()
}

/// What `validate` (and so loading and replaying) says of a recording
/// whose checkpoints are `checkpoints`, in both spaces.
fn verdicts(checkpoints: &[Checkpoint]) -> (Result<(), ReplayError>, Result<(), ReplayError>) {
    let mut plane = plane_recording();
    plane.checkpoints = checkpoints.to_vec();
    let mut volume = volume_recording();
    volume.checkpoints = checkpoints.to_vec();
    // Loading from text and replaying check the same way.
    assert_eq!(Recording::from_text(&plane.to_text()).map(|_| ()), plane.validate());
    if let Err(refusal) = plane.validate() {
        assert_eq!(plane.replay().map(|_| ()), Err(refusal));
    }
    (plane.validate(), volume.validate())
}

#[test]
fn a_recording_without_a_checkpoint_at_its_end_is_refused_in_both_spaces() {
    let at = |tick| Checkpoint { tick, hash: 1 };
    for (checkpoints, last) in [(vec![], None), (vec![at(0)], Some(0)), (vec![at(0), at(40)], Some(40))] {
        let (plane, volume) = verdicts(&checkpoints);
        let expected = Err(ReplayError::Unverified { ticks: 60, last });
        assert_eq!(plane, expected, "{checkpoints:?}");
        assert_eq!(volume, expected, "{checkpoints:?}");
    }
    let message = ReplayError::Unverified { ticks: 60, last: None }.to_string();
    assert!(message.contains("cannot be verified") && message.contains("60"), "{message}");
    // The honest recordings verify their end and replay.
    let plane = plane_recording();
    assert_eq!(plane.checkpoints.last().map(|c| c.tick), Some(60));
    plane.replay().unwrap();
    volume_recording().replay().unwrap();
}

#[test]
fn each_fault_in_the_checkpoints_gets_its_own_message() {
    let at = |tick| Checkpoint { tick, hash: 1 };
    let reason = |checkpoints: Vec<Checkpoint>| match verdicts(&checkpoints) {
        (Err(ReplayError::Corrupt { reason }), Err(ReplayError::Corrupt { reason: same })) => {
            assert_eq!(reason, same);
            reason
        }
        other => panic!("{checkpoints:?} gave {other:?}"),
    };
    assert_eq!(reason(vec![at(0), at(20), at(20), at(60)]), "checkpoints 1 and 2 are both at tick 20");
    assert_eq!(
        reason(vec![at(0), at(40), at(20), at(60)]),
        "checkpoint 2 at tick 20 comes after one at tick 40"
    );
    assert_eq!(reason(vec![at(0), at(61)]), "checkpoint 1 at tick 61 is past the recording's end (tick 60)");
}

/// A recording that claims far more ticks than its checkpoints cover is
/// refused before it runs, however long it claims to be.
#[test]
fn a_long_claim_with_early_checkpoints_is_refused_at_once() {
    let mut plane = plane_recording();
    plane.ticks = 100_000_000;
    let started = std::time::Instant::now();
    assert_eq!(
        plane.replay().map(|_| ()),
        Err(ReplayError::Unverified { ticks: 100_000_000, last: Some(60) })
    );
    let mut volume = volume_recording();
    volume.ticks = 100_000_000;
    assert!(matches!(volume.replay(), Err(ReplayError::Unverified { .. })));
    assert!(started.elapsed().as_secs() < 30, "refused without running");
}

#[test]
fn reads_stop_at_the_limit_whatever_size_the_file_reports() {
    let dir = std::env::temp_dir().join(format!("mirofish-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let small = dir.join("small.txt");
    std::fs::write(&small, b"0123456789").unwrap();
    assert_eq!(read_bounded(&small, 10).unwrap().as_deref(), Some(&b"0123456789"[..]));
    assert_eq!(read_bounded(&small, 9).unwrap(), None, "one byte too many");
    assert!(read_bounded(&dir.join("missing"), 10).is_err());
    std::fs::remove_dir_all(&dir).unwrap();

    // A device reports a size of 0 and never ends.
    let zero = Path::new("/dev/zero");
    if zero.exists() {
        assert_eq!(read_bounded(zero, 1 << 16).unwrap(), None);
        let refused = Recording::load(zero).unwrap_err();
        assert!(matches!(refused, ReplayError::TooLarge { what: "bytes", .. }), "{refused:?}");
        assert!(refused.to_string().contains("more than"), "{refused}");
        let refused = ExperimentConfig::load(zero).unwrap_err().to_string();
        assert!(refused.contains("/dev/zero") && refused.contains("more than"), "{refused}");
        let refused = VolumeConfig::load(zero).unwrap_err().to_string();
        assert!(refused.contains("more than"), "{refused}");
    }
}

#[test]
fn a_route_whose_current_waypoint_is_not_one_of_them_is_refused_in_both_spaces() {
    let plane = Route { next: usize::MAX, ..Route::new(vec![Vec2::ZERO, Vec2::splat(50.0)], 10.0) };
    let error = plane.validate().unwrap_err();
    assert_eq!(error.field, "route.next");
    assert!(error.expected.contains("0 to 1"), "{error}");
    let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 20, 1).unwrap();
    assert!(sim.submit(FlockCommand::SetRoute(Some(plane))).is_err());
    let ok = Route { next: 1, ..Route::new(vec![Vec2::ZERO, Vec2::splat(50.0)], 10.0) };
    sim.submit(FlockCommand::SetRoute(Some(ok))).unwrap();
    sim.run(5);

    let volume = Route { next: 2, ..Route::new(vec![Vec3::ZERO, Vec3::splat(50.0)], 10.0) };
    assert_eq!(volume.validate().unwrap_err().field, "route.next");
    let mut flock = Flock3d::new(FlockParams::default(), Tank3d::default(), 20, 1).unwrap();
    assert!(flock.submit(VolumeCommand::SetRoute(Some(volume))).is_err());
    let empty = Route { next: 0, ..Route::new(Vec::<Vec3>::new(), 10.0) };
    empty.validate().unwrap();
}

/// A plane's body under a volume's header (checksum and length mended)
/// is named as such, not reported as a raw parse error; and the other way
/// round.
#[test]
fn a_body_under_the_other_space_header_says_so() {
    let plane = plane_recording().to_text();
    let volume = volume_recording().to_text();
    let swap = |text: &str, header_of: &str| {
        let body = text.split_once('\n').unwrap().1;
        let header = header_of.split_once('\n').unwrap().0;
        let fnv = body
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let mut words: Vec<String> = header.split(' ').map(str::to_string).collect();
        for word in &mut words {
            if word.starts_with("bytes=") {
                *word = format!("bytes={}", body.len());
            } else if word.starts_with("fnv=") {
                *word = format!("fnv={fnv:016x}");
            }
        }
        format!("{}\n{body}", words.join(" "))
    };
    match VolumeRecording::from_text(&swap(&plane, &volume)) {
        Err(ReplayError::Corrupt { reason }) => {
            assert_eq!(reason, "its header is for a run in a volume, but its body records a run on a plane")
        }
        other => panic!("{other:?}"),
    }
    match Recording::from_text(&swap(&volume, &plane)) {
        Err(ReplayError::Corrupt { reason }) => {
            assert_eq!(reason, "its header is for a run on a plane, but its body records a run in a volume")
        }
        other => panic!("{other:?}"),
    }
}

/// Rocks that reach past the walls, or a corner, leave no fish inside them
/// and none outside the tank, after spawning and after every tick, on a
/// plane and in a volume: a fish pushed out of such a rock lands on its
/// rim where the rim meets a wall, not beyond the wall.
#[test]
fn rocks_across_the_walls_hold_no_fish_in_either_space() {
    use mirofish_sim::Obstacle;
    use mirofish_sim::Scene3d;

    let volume = Tank3d::default();
    let big = (volume.max - volume.min).length() * 0.42;
    let rocks3 = [
        Obstacle { centre: (volume.min + volume.max) * 0.5, radius: big },
        Obstacle { centre: Vec3::new(volume.max.x, 0.0, 0.0), radius: 300.0 },
        Obstacle { centre: volume.min, radius: 450.0 },
    ];
    for rock in rocks3 {
        rock.validate_in(&volume).unwrap();
        let check = |flock: &Flock3d, when: &str| {
            let inside = flock.positions().iter().filter(|p| rock.contains(**p)).count();
            let outside = flock.positions().iter().filter(|p| !volume.contains(**p)).count();
            assert_eq!((inside, outside), (0, 0), "{rock:?} {when}: in the rock, outside the tank");
        };
        let mut flock = Flock3d::new(FlockParams::default(), volume, 0, 8).unwrap();
        flock.set_scene(Scene3d { obstacles: vec![rock], ..Default::default() }).unwrap();
        flock.spawn_school(0, 2000, 8).unwrap();
        check(&flock, "after spawning");
        // And dropped onto a running school.
        let mut dropped = Flock3d::new(FlockParams::default(), volume, 2000, 8).unwrap();
        dropped.run(5);
        dropped.submit(VolumeCommand::AddObstacle(rock)).unwrap();
        for tick in 0..40 {
            flock.step();
            dropped.step();
            check(&flock, &format!("tick {tick}"));
            check(&dropped, &format!("tick {tick}, dropped"));
        }
    }

    let plane = Tank::default();
    let rocks2 = [
        Obstacle { centre: (plane.min + plane.max) * 0.5, radius: (plane.max - plane.min).length() * 0.45 },
        Obstacle { centre: Vec2::new(plane.max.x, 0.0), radius: 300.0 },
        Obstacle { centre: plane.min, radius: 450.0 },
    ];
    for rock in rocks2 {
        rock.validate_in(&plane).unwrap();
        let mut sim = Simulation::new(FlockParams::default(), plane, 2000, 8).unwrap();
        sim.run(5);
        sim.submit(FlockCommand::AddObstacle(rock)).unwrap();
        for tick in 0..40 {
            sim.step();
            let p = sim.positions();
            let inside = p.iter().filter(|p| rock.contains(**p)).count();
            let outside = p.iter().filter(|p| !plane.contains(**p)).count();
            assert_eq!((inside, outside), (0, 0), "{rock:?} tick {tick}: in the rock, outside the tank");
        }
    }
}

/// A cluster of overlapping rocks, some across a wall, dropped onto a
/// running school leaves no fish inside any of them and none outside the
/// tank, on a plane and in a volume: pushed out of one rock into another,
/// a fish is settled in a few rounds, the same way in both spaces.
#[test]
fn overlapping_rocks_hold_no_fish_in_either_space() {
    use mirofish_sim::Obstacle;

    let volume = Tank3d::default();
    let cluster3: Vec<Obstacle<Vec3>> =
        [(-100.0, 0.0, 0.0), (60.0, 40.0, 0.0), (20.0, -90.0, 30.0), (560.0, 0.0, 0.0)]
            .iter()
            .map(|&(x, y, z)| Obstacle { centre: Vec3::new(x, y, z), radius: 170.0 })
            .collect();
    let mut flock = Flock3d::new(FlockParams::default(), volume, 3000, 5).unwrap();
    flock.run(3);
    for rock in &cluster3 {
        flock.submit(VolumeCommand::AddObstacle(*rock)).unwrap();
    }
    flock.step();
    // Fish put in the lens between the first two rocks, on the line
    // through their centres: no push along a radius gets them out.
    let (a, b) = (cluster3[0].centre, cluster3[1].centre);
    for k in 0..50u32 {
        flock.set(k, a + (b - a) * (0.3 + 0.008 * k as f32), Vec3::ZERO).unwrap();
    }
    for tick in 0..40 {
        flock.step();
        let p = flock.positions();
        let inside = p.iter().filter(|p| cluster3.iter().any(|r| r.contains(**p))).count();
        let outside = p.iter().filter(|p| !volume.contains(**p)).count();
        assert_eq!((inside, outside), (0, 0), "volume, tick {tick}: in a rock, outside the tank");
    }

    let plane = Tank::default();
    let cluster2: Vec<Obstacle> = [(-100.0, 0.0), (60.0, 40.0), (20.0, -90.0), (560.0, 0.0)]
        .iter()
        .map(|&(x, y)| Obstacle { centre: Vec2::new(x, y), radius: 170.0 })
        .collect();
    let mut sim = Simulation::new(FlockParams::default(), plane, 3000, 5).unwrap();
    sim.run(3);
    for rock in &cluster2 {
        sim.submit(FlockCommand::AddObstacle(*rock)).unwrap();
    }
    sim.step();
    let (a, b) = (cluster2[0].centre, cluster2[1].centre);
    for id in 0..50 {
        sim.set(id, a + (b - a) * (0.3 + 0.008 * id as f32), Vec2::ZERO).unwrap();
    }
    for tick in 0..40 {
        sim.step();
        let p = sim.positions();
        let inside = p.iter().filter(|p| cluster2.iter().any(|r| r.contains(**p))).count();
        let outside = p.iter().filter(|p| !plane.contains(**p)).count();
        assert_eq!((inside, outside), (0, 0), "plane, tick {tick}: in a rock, outside the tank");
    }
}

/// Two rocks that each leave room but cover the tank between them are
/// refused, in a plane's configuration and in a volume's scene;
/// two that leave a gap are not.
#[test]
fn rocks_that_cover_the_tank_between_them_are_refused_in_both_spaces() {
    use mirofish_sim::Obstacle;
    use mirofish_sim::Scene3d;

    let halves = |x: f32, r: f32| {
        [
            Obstacle { centre: Vec2::new(-x, 0.0), radius: r },
            Obstacle { centre: Vec2::new(x, 0.0), radius: r },
        ]
    };
    let mut config = ExperimentConfig::default();
    for rock in halves(320.0, 500.0) {
        rock.validate_in(&config.tank).unwrap();
        config.scene.obstacles.push(rock);
    }
    let refused = config.validate().unwrap_err().to_string();
    assert!(refused.contains("obstacles") && refused.contains("leave room"), "{refused}");
    config.scene.obstacles = halves(320.0, 300.0).to_vec();
    config.validate().unwrap();

    let tank = Tank3d::default();
    let balls = |r: f32| {
        [
            Obstacle { centre: Vec3::new(-320.0, 0.0, 0.0), radius: r },
            Obstacle { centre: Vec3::new(320.0, 0.0, 0.0), radius: r },
        ]
    };
    let covering = Scene3d { obstacles: balls(650.0).to_vec(), ..Default::default() };
    assert!(covering.obstacles.iter().all(|o| o.validate_in(&tank).is_ok()), "each alone leaves room");
    assert_eq!(covering.validate_with_room(&tank).unwrap_err().field, "obstacles");
    let mut flock = Flock3d::new(FlockParams::default(), tank, 20, 1).unwrap();
    assert!(flock.set_scene(covering).is_err());
    flock.set_scene(Scene3d { obstacles: balls(300.0).to_vec(), ..Default::default() }).unwrap();
}

/// Rocks added by commands one at a time, each leaving room alone, do not
/// cover the tank between them: the one that would close the last room is
/// not added, on a plane and in a volume, and the fish stay in open water.
#[test]
fn commands_cannot_cover_the_tank_with_rocks_in_either_space() {
    use mirofish_sim::Obstacle;
    use mirofish_sim::world::scene::add_rock;

    let plane = Tank::default();
    let halves = [-320.0, 320.0].map(|x| Obstacle { centre: Vec2::new(x, 0.0), radius: 500.0 });
    let mut sim = Simulation::new(FlockParams::default(), plane, 500, 4).unwrap();
    for rock in halves {
        sim.submit(FlockCommand::AddObstacle(rock)).unwrap();
    }
    sim.run(20);
    assert_eq!(sim.scene().obstacles, [halves[0]], "the second rock would have covered the tank");
    // The command left out is reported, with why.
    let [(stamped, why)] = sim.left_out() else { panic!("{:?}", sim.left_out()) };
    assert_eq!((stamped.tick, &stamped.command), (0, &FlockCommand::AddObstacle(halves[1])));
    assert!(why.to_string().contains("leaves room beside the 1"), "{why}");
    let inside = sim.positions().iter().filter(|p| halves[0].contains(**p)).count();
    assert_eq!(inside, 0);
    // Once the first is gone, the second fits.
    sim.submit(FlockCommand::RemoveObstacle(0)).unwrap();
    sim.submit(FlockCommand::AddObstacle(halves[1])).unwrap();
    sim.step();
    assert_eq!(sim.scene().obstacles, [halves[1]]);

    let volume = Tank3d::default();
    let balls = [-320.0, 320.0].map(|x| Obstacle { centre: Vec3::new(x, 0.0, 0.0), radius: 650.0 });
    let mut flock = Flock3d::new(FlockParams::default(), volume, 500, 4).unwrap();
    for rock in balls {
        flock.submit(VolumeCommand::AddObstacle(rock)).unwrap();
    }
    flock.run(20);
    assert_eq!(flock.scene().obstacles, [balls[0]]);
    let [(stamped, why)] = flock.left_out() else { panic!("{:?}", flock.left_out()) };
    assert_eq!(stamped.command, VolumeCommand::AddObstacle(balls[1]));
    assert_eq!(why.field, "obstacle");
    assert_eq!(flock.positions().iter().filter(|p| balls[0].contains(**p)).count(), 0);

    // What the commands use says why.
    let mut rocks = vec![balls[0]];
    let refused = add_rock(&mut rocks, balls[1], &volume).unwrap_err();
    assert_eq!((refused.field, rocks.len()), ("obstacle", 1));
    assert!(refused.to_string().contains("leaves room beside the 1"), "{refused}");
}
