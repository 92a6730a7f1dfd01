//! Recorded play: a session of the app, with rocks, predators, leaders on
//! a route, two schools and commands of every kind along the way, saved as
//! a `Recording` that the core alone replays to the same bits, and that the
//! app replays too; a change outside the commands shows as a divergence,
//! and a bad start is refused and changes nothing.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockRecorder, Session};
use mirofish_sim::{ExperimentConfig, FlockCommand, GoalMode, Recording, SchoolConfig};

fn start() -> ExperimentConfig {
    let mut config = ExperimentConfig { fish: 260, seed: 21, leaders: 4, heading: Some(0.3), ..default() };
    config.tank = Tank::centered(Vec2::new(900.0, 500.0));
    config.schools.push(SchoolConfig {
        fish: 140,
        leaders: 2,
        params: FlockParams { max_speed: 150.0, ..default() },
        ..default()
    });
    config.scene.obstacles.push(Obstacle { centre: Vec2::new(120.0, -40.0), radius: 35.0 });
    config.scene.predators.push(Predator::new(Vec2::new(-300.0, 100.0), 120.0));
    config.scene.route = Some(Route::new(vec![Vec2::new(300.0, 150.0), Vec2::new(-300.0, -150.0)], 40.0));
    config
}

/// The commands of the session, by tick.
fn script(tick: u64) -> Vec<FlockCommand> {
    let goal =
        Goal { target: Vec2::new(250.0, 0.0), mode: GoalMode::Seek, weight: 1.0, slowing_radius: 50.0 };
    match tick {
        10 => vec![FlockCommand::AddPredator(Predator::new(Vec2::new(200.0, -100.0), 150.0))],
        25 => vec![
            FlockCommand::AddObstacle(Obstacle { centre: Vec2::new(-150.0, 60.0), radius: 45.0 }),
            FlockCommand::SetAttractor(Some(Attractor { point: Vec2::ZERO, strength: 2.0, radius: 200.0 })),
        ],
        // Two rocks that each leave room but would cover the tank together:
        // the second is not added, in the app as in the core; once the
        // first is removed the app must not find the second there either.
        26 => [-300.0, 300.0]
            .map(|x| FlockCommand::AddObstacle(Obstacle { centre: Vec2::new(x, 0.0), radius: 420.0 }))
            .to_vec(),
        // One fish in a group of its own, before any groups are formed: it
        // must keep its place among the others.
        30 => vec![
            FlockCommand::MovePredator { predator: 0, to: Vec2::new(-100.0, 80.0) },
            FlockCommand::JoinGroup { fish: vec![7], group: Some(3) },
        ],
        34 => vec![FlockCommand::RemoveObstacle(2)],
        45 => vec![
            FlockCommand::MovePredator { predator: 0, to: Vec2::new(120.0, -60.0) },
            FlockCommand::MovePredator { predator: 4, to: Vec2::ZERO },
        ],
        40 => vec![FlockCommand::SetSchoolGoal { school: 1, goal: Some(goal) }],
        55 => vec![
            FlockCommand::SpawnFish { school: 0, count: 30, centre: Vec2::new(-200.0, 0.0), radius: 60.0 },
            FlockCommand::RemovePredator(0),
        ],
        // Leaders and groups by id, as the core numbers its fish.
        60 => vec![
            FlockCommand::SetLeaders { fish: vec![3, 17, 9999], leads: true },
            FlockCommand::FormGroups { school: None, first: 0, count: 3 },
            FlockCommand::SetGroupGoal { group: 1, goal: Some(goal) },
        ],
        70 => vec![FlockCommand::SetParams(FlockParams { cohesion_weight: 0.4, ..default() })],
        85 => vec![FlockCommand::RemoveFish { count: 50 }, FlockCommand::RemoveObstacle(0)],
        90 => vec![
            FlockCommand::JoinGroup { fish: vec![5, 6], group: Some(2) },
            FlockCommand::SetLeaders { fish: vec![3], leads: false },
        ],
        100 => vec![FlockCommand::SetBoundary(BoundaryMode::Wrap), FlockCommand::SetAttractor(None)],
        110 => vec![FlockCommand::ClearGroups],
        _ => Vec::new(),
    }
}

/// Records 120 ticks of the scripted session in a fresh app that ran a
/// school of its own before (which the session clears).
fn record() -> Recording {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 300);
    run_ticks(&mut app, 20);
    app.world_mut().resource_mut::<FlockRecorder>().record(start(), 30);
    // The session starts at the next tick, at tick 0.
    app.update();
    assert_eq!(app.world().resource::<FlockRecorder>().session(), &Session::Recording);
    assert_eq!(app.world().resource::<FlockState>().tick(), 1);
    while app.world().resource::<FlockState>().tick() < 120 {
        let next = app.world().resource::<FlockCommands>().next_tick();
        for command in script(next) {
            app.world_mut().resource_mut::<FlockCommands>().submit(command).expect("a valid command");
        }
        app.update();
    }
    let world = app.world_mut();
    world.resource_scope(|world, mut recorder: Mut<FlockRecorder>| {
        recorder.stop(world.resource(), world.resource()).expect("a recording")
    })
}

#[test]
fn a_recorded_session_replays_to_the_same_bits_in_the_core() {
    let recording = record();
    assert_eq!(recording.ticks, 120);
    assert_eq!(recording.commands.len(), 24, "every command of the script, once");
    assert_eq!(recording.checkpoints.iter().map(|c| c.tick).collect::<Vec<_>>(), [0, 30, 60, 90, 120]);
    // Through the file format, then the core alone: what `mirofish-lab
    // replay` does.
    let text = recording.to_text();
    let read = Recording::from_text(&text).expect("the file reads back");
    assert_eq!(read, recording);
    let sim = read.replay().expect("the core replays the app's session to the same bits");
    assert_eq!(sim.len(), 260 + 140 + 30 - 50);
    // Not trivially: the session's rocks, predators and commands mattered.
    let mut quiet = recording.clone();
    quiet.commands.clear();
    assert!(quiet.replay().is_err(), "without its commands the run diverges");
}

#[test]
fn the_app_replays_a_recording_and_notices_a_change_outside_the_commands() {
    let recording = record();
    let replay = |meddle: bool| {
        let mut app = headless_app(config(9), 1);
        spawn(&mut app, 50);
        run_ticks(&mut app, 3);
        app.world_mut().resource_mut::<FlockRecorder>().replay(recording.clone());
        for _ in 0..130 {
            app.update();
            if meddle && app.world().resource::<FlockState>().tick() == 45 {
                let mut q = app.world_mut().query_filtered::<&mut Velocity, With<Boid>>();
                if let Some(mut v) = q.iter_mut(app.world_mut()).next() {
                    v.0 += Vec2::new(1.0, 0.0);
                }
            }
        }
        app.world().resource::<FlockRecorder>().session().clone()
    };
    assert_eq!(replay(false), Session::Matched { ticks: 120 });
    match replay(true) {
        Session::Diverged { tick, .. } => assert_eq!(tick, 60, "found at the first checkpoint after"),
        other => panic!("a change outside the commands went unnoticed: {other:?}"),
    }
}

#[test]
fn a_bad_start_is_refused_and_the_run_goes_on() {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 100);
    run_ticks(&mut app, 5);
    let before = count::<Boid>(&mut app);
    let bad = ExperimentConfig { params: FlockParams { max_speed: f32::NAN, ..default() }, ..start() };
    app.world_mut().resource_mut::<FlockRecorder>().record(bad, 10);
    run_ticks(&mut app, 2);
    assert_eq!(app.world().resource::<FlockRecorder>().session(), &Session::Idle);
    assert_eq!(count::<Boid>(&mut app), before);
    assert_eq!(app.world().resource::<FlockState>().tick(), 7);
    let refusals = app.world().resource::<FlockRefusals>();
    let last = refusals.recent().last().expect("the start was reported");
    assert_eq!(last.what, Refused::Session);
    assert_eq!(last.error.field, "max_speed");
}

/// A recording that does not validate is refused before the running
/// session is touched: one whose checkpoints stop before its end (or were
/// all removed), unsorted ones, one past the end, a bad command, and one
/// that claims more ticks than the core replays.
#[test]
fn an_unverifiable_or_damaged_recording_is_refused_in_the_app() {
    let good = record();
    let mut damaged = Vec::new();
    let mut none = good.clone();
    none.checkpoints.clear();
    damaged.push(("no checkpoints", none));
    let mut first_only = good.clone();
    first_only.checkpoints.truncate(1);
    damaged.push(("only tick 0", first_only));
    let mut unsorted = good.clone();
    unsorted.checkpoints.swap(1, 2);
    damaged.push(("unsorted", unsorted));
    let mut past_end = good.clone();
    past_end.checkpoints.last_mut().unwrap().tick = 121;
    damaged.push(("past the end", past_end));
    let mut bad_command = good.clone();
    bad_command.commands[0].command =
        FlockCommand::AddObstacle(mirofish_sim::Obstacle { centre: Vec2::new(f32::NAN, 0.0), radius: 10.0 });
    damaged.push(("a NaN command", bad_command));
    let mut endless = good.clone();
    endless.ticks = u64::MAX;
    damaged.push(("u64::MAX ticks", endless));
    for (what, recording) in damaged {
        assert!(recording.validate().is_err(), "{what}: the core refuses it");
        let mut app = headless_app(config(4), 1);
        spawn(&mut app, 80);
        run_ticks(&mut app, 3);
        app.world_mut().resource_mut::<FlockRecorder>().replay(recording);
        run_ticks(&mut app, 4);
        assert_eq!(app.world().resource::<FlockRecorder>().session(), &Session::Idle, "{what}");
        assert_eq!(count::<Boid>(&mut app), 80, "{what}: the running school stays");
        let refusals = app.world().resource::<FlockRefusals>();
        let last = refusals.recent().last().unwrap_or_else(|| panic!("{what}: no refusal"));
        assert_eq!(last.what, Refused::Session, "{what}");
        assert_eq!(last.error.field, "recording", "{what}");
    }
}
