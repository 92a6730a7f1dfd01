//! Commands: applied at the start of their tick, refused when bad or late,
//! and the log of applied commands decides the run.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;
use mirofish_sim::BoundaryMode;

#[test]
fn commands_apply_at_the_start_of_their_tick() {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 100);
    let at = Vec2::new(120.0, -40.0);
    {
        let mut commands = app.world_mut().resource_mut::<FlockCommands>();
        commands.schedule(5, FlockCommand::AddPredator(mirofish_sim::Predator::new(at, 90.0))).unwrap();
        commands
            .schedule(5, FlockCommand::SpawnFish { school: 0, count: 20, centre: Vec2::ZERO, radius: 30.0 })
            .unwrap();
        commands
            .schedule(
                7,
                FlockCommand::SetParams(FlockParams { cohesion_weight: 2.5, ..FlockParams::default() }),
            )
            .unwrap();
    }
    run_ticks(&mut app, 5);
    assert_eq!(count::<Predator2d>(&mut app), 0, "not before tick 5");
    assert_eq!(count::<Boid>(&mut app), 100);
    run_ticks(&mut app, 1);
    assert_eq!(count::<Predator2d>(&mut app), 1);
    assert_eq!(count::<Boid>(&mut app), 120);
    // The predator started at the point and has moved one tick since.
    let (position, previous) = app
        .world_mut()
        .query_filtered::<(&Position, &PreviousPosition), With<Predator2d>>()
        .single(app.world())
        .map(|(p, q)| (p.0, q.0))
        .unwrap();
    assert_eq!(previous, at);
    assert!(position.distance(at) < 5.0);
    // The new fish took part in tick 5 itself: 120 fish were gathered.
    assert_eq!(app.world().resource::<FlockState>().flock().len(), 120);
    run_ticks(&mut app, 2);
    assert_eq!(app.world().resource::<FlockState>().config().params.cohesion_weight, 2.5);
    let log: Vec<u64> = app.world().resource::<FlockCommands>().applied().iter().map(|s| s.tick).collect();
    assert_eq!(log, [5, 5, 7]);
    assert!(app.world().resource::<FlockCommands>().pending().is_empty());
}

#[test]
fn bad_or_late_commands_are_refused() {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 10);
    run_ticks(&mut app, 3);
    let mut commands = app.world_mut().resource_mut::<FlockCommands>();
    assert_eq!(commands.next_tick(), 3);
    assert!(commands.schedule(1, FlockCommand::ClearPredators).is_err());
    let err = commands
        .submit(FlockCommand::AddObstacle(mirofish_sim::Obstacle { centre: Vec2::ZERO, radius: -2.0 }))
        .unwrap_err();
    assert!(err.to_string().contains("obstacle.radius"), "{err}");
    assert!(commands.pending().is_empty());
}

/// The same spawns and the same command log give the same state; changing
/// one command changes it.
#[test]
fn the_command_log_decides_the_run() {
    let run = |flee_radius: f32| {
        let mut app = headless_app(config(9), 4);
        spawn(&mut app, 400);
        let mut commands = app.world_mut().resource_mut::<FlockCommands>();
        let script = [
            (
                3,
                FlockCommand::AddObstacle(mirofish_sim::Obstacle {
                    centre: Vec2::new(-100.0, 0.0),
                    radius: 40.0,
                }),
            ),
            (10, FlockCommand::AddPredator(mirofish_sim::Predator::new(Vec2::new(150.0, 50.0), flee_radius))),
            (
                20,
                FlockCommand::SpawnFish { school: 0, count: 50, centre: Vec2::new(0.0, 100.0), radius: 50.0 },
            ),
            (30, FlockCommand::SetBoundary(BoundaryMode::Wrap)),
            (40, FlockCommand::RemovePredator(0)),
            (45, FlockCommand::RemoveFish { count: 25 }),
            (50, FlockCommand::ClearObstacles),
        ];
        for (tick, command) in script {
            commands.schedule(tick, command).unwrap();
        }
        run_ticks(&mut app, 80);
        assert_eq!(count::<Boid>(&mut app), 425);
        assert_eq!(count::<Predator2d>(&mut app) + count::<mirofish_bevy::Obstacle2d>(&mut app), 0);
        ecs_hash(&mut app)
    };
    let a = run(100.0);
    assert_eq!(a, run(100.0));
    assert_ne!(a, run(101.0));
}

/// The commands a plane and a volume share mean the same to the plugin's
/// entities: a spawn for school 1 gives school-1 fish (none for a school
/// the configuration lacks), leaders are made and unmade by id, and the
/// zone model reaches the configuration and the core, as in a volume.
#[test]
fn shared_commands_reach_the_entities_and_the_zones_the_core() {
    let mut app = headless_app(FlockConfig { schools: vec![FlockParams::default()], ..config(3) }, 1);
    spawn(&mut app, 30);
    run_ticks(&mut app, 1);
    {
        let mut commands = app.world_mut().resource_mut::<FlockCommands>();
        for command in [
            FlockCommand::SpawnFish { school: 1, count: 12, centre: Vec2::ZERO, radius: 30.0 },
            FlockCommand::SpawnFish { school: 5, count: 12, centre: Vec2::ZERO, radius: 30.0 },
            FlockCommand::SetLeaders { fish: vec![2, 4, 9999], leads: true },
            FlockCommand::SetLeaders { fish: vec![4], leads: false },
            FlockCommand::SetZones(Some(mirofish_sim::space::Zones::default())),
        ] {
            commands.submit(command).unwrap();
        }
    }
    run_ticks(&mut app, 1);
    assert_eq!(count::<Boid>(&mut app), 42);
    let schools: Vec<u16> =
        app.world_mut().query::<&School>().iter(app.world()).map(|s| s.0).filter(|&s| s != 0).collect();
    assert_eq!(schools, [1; 12]);
    let leaders: Vec<Option<u32>> = app
        .world_mut()
        .query_filtered::<&FishId, With<Leader>>()
        .iter(app.world())
        .map(|s| s.get())
        .collect();
    assert_eq!(leaders, [Some(2)]);
    assert_eq!(app.world().resource::<FlockRefusals>().total(), 0);
    let zones = mirofish_sim::space::Zones::default();
    assert_eq!(app.world().resource::<FlockConfig>().zones, Some(zones));
    run_ticks(&mut app, 3);
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock().zones().copied(), Some(zones));
    // Couzin's fish swim at the zones' one speed (the rules' at many).
    let speed = zones.speed;
    for v in state.flock().velocities() {
        assert!((v.length() - speed).abs() < 1.0e-3 * speed, "{} at {speed}", v.length());
    }
}

/// Whether `FlockConfig` read as changed after each tick's write-back.
#[derive(Resource, Default)]
struct ConfigChanges(Vec<bool>);

/// A command that changes the configuration shows in `FlockConfig`, marked
/// changed; one that does not (a predator) leaves it unmarked, so that a
/// game watching the configuration hears only of real changes.
#[test]
fn flock_config_changes_only_with_a_command_that_changes_it() {
    let mut app = headless_app(config(5), 1);
    spawn(&mut app, 40);
    app.init_resource::<ConfigChanges>().add_systems(
        FixedUpdate,
        (|config: Res<FlockConfig>, mut seen: ResMut<ConfigChanges>| seen.0.push(config.is_changed()))
            .after(BoidSystems::Writeback),
    );
    run_ticks(&mut app, 2);
    let params = FlockParams { alignment_weight: 1.7, ..FlockParams::default() };
    {
        let mut commands = app.world_mut().resource_mut::<FlockCommands>();
        let now = commands.next_tick();
        commands
            .schedule(now, FlockCommand::AddPredator(mirofish_sim::Predator::new(Vec2::ZERO, 80.0)))
            .unwrap();
        commands.schedule(now + 2, FlockCommand::SetParams(params)).unwrap();
    }
    app.world_mut().resource_mut::<ConfigChanges>().0.clear();
    run_ticks(&mut app, 3);
    assert_eq!(app.world().resource::<ConfigChanges>().0, [false, false, true]);
    assert_eq!(app.world().resource::<FlockConfig>().params, params);
    assert_eq!(count::<Predator2d>(&mut app), 1);
}
