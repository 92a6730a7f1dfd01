//! Rocks and predators in a volume as entities: spawned by a game or by a
//! command, gathered into the core's scene, moved and removed either way,
//! refused once while invalid, replaced with the scene.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::Refused;
use mirofish_bevy::prelude::FlockRefusals;
use mirofish_bevy::volume::*;
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::{Obstacle, Predator, Scene3d, VolumeConfig};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(Flock3dConfig { seed: 4, ..default() })
        .add_plugins(MiroFish3dPlugin::default())
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

fn ticks(app: &mut App, n: u64) {
    let target = app.world().resource::<Flock3dState>().flock().tick() + n;
    while app.world().resource::<Flock3dState>().flock().tick() < target {
        app.update();
    }
}

fn rocks(app: &mut App) -> Vec<(Entity, Vec3, f32)> {
    let mut q = app.world_mut().query::<(Entity, &Obstacle3d, &Position<Vec3>)>();
    let mut all: Vec<_> = q.iter(app.world()).map(|(e, o, p)| (e, p.0, o.radius)).collect();
    all.sort_by_key(|r| r.0);
    all
}

fn hunters(app: &mut App) -> Vec<(Entity, Vec3, Vec3)> {
    let mut q = app.world_mut().query::<(Entity, &Predator3d, &Position<Vec3>, &Velocity<Vec3>)>();
    let mut all: Vec<_> = q.iter(app.world()).map(|(e, _, p, v)| (e, p.0, v.0)).collect();
    all.sort_by_key(|r| r.0);
    all
}

#[test]
fn a_games_rock_and_predator_entities_act_in_the_volume() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(400));
    let rock =
        app.world_mut().spawn((Obstacle3d { radius: 80.0 }, Position(Vec3::new(200.0, 0.0, 0.0)))).id();
    let hunter = app.world_mut().spawn((Predator3d::default(), Position(Vec3::new(-300.0, 0.0, 0.0)))).id();
    ticks(&mut app, 60);
    let state = app.world().resource::<Flock3dState>();
    let scene = state.flock().scene();
    assert_eq!(scene.obstacles, [Obstacle { centre: Vec3::new(200.0, 0.0, 0.0), radius: 80.0 }]);
    assert_eq!(scene.predators.len(), 1);
    // No fish inside the rock; the predator chased and its entity follows.
    for p in state.flock().positions() {
        assert!(p.distance(Vec3::new(200.0, 0.0, 0.0)) >= 80.0 - 1e-3, "a fish in the rock at {p}");
    }
    let chased = scene.predators[0];
    assert!(chased.position.distance(Vec3::new(-300.0, 0.0, 0.0)) > 1.0, "the predator hunted");
    assert_eq!(hunters(&mut app), [(hunter, chased.position, chased.velocity)]);
    assert!(app.world().resource::<Flock3dState>().flock().fears().iter().any(|&f| f > 0.0));
    // Moved by the game: the rock moves in the core; despawned: gone.
    app.world_mut().get_mut::<Position<Vec3>>(rock).unwrap().0 = Vec3::new(-100.0, 50.0, 0.0);
    app.world_mut().despawn(hunter);
    ticks(&mut app, 1);
    let scene = app.world().resource::<Flock3dState>().flock().scene();
    assert_eq!(scene.obstacles[0].centre, Vec3::new(-100.0, 50.0, 0.0));
    assert!(scene.predators.is_empty());
    assert_eq!(app.world().get::<Transform>(rock).unwrap().translation, Vec3::new(-100.0, 50.0, 0.0));
}

#[test]
fn commands_add_and_remove_rock_and_predator_entities() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(100));
    ticks(&mut app, 2);
    let submit = |app: &mut App, command: VolumeCommand| {
        app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(command).unwrap();
    };
    let a = Obstacle { centre: Vec3::new(100.0, 0.0, 0.0), radius: 40.0 };
    let b = Obstacle { centre: Vec3::new(-100.0, 0.0, 0.0), radius: 30.0 };
    submit(&mut app, VolumeCommand::AddObstacle(a));
    submit(&mut app, VolumeCommand::AddObstacle(b));
    submit(&mut app, VolumeCommand::AddPredator(Predator::new(Vec3::new(0.0, 100.0, 0.0), 90.0)));
    ticks(&mut app, 1);
    let found = rocks(&mut app);
    let mut shapes: Vec<_> = found.iter().map(|r| (r.1.x as i32, r.2 as i32)).collect();
    shapes.sort();
    assert_eq!(shapes, [(-100, 30), (100, 40)]);
    assert_eq!(hunters(&mut app).len(), 1);
    // The first rock's removal takes its own entity; the second keeps its.
    let second = *found.iter().find(|r| r.1 == b.centre).unwrap();
    submit(&mut app, VolumeCommand::RemoveObstacle(0));
    ticks(&mut app, 3);
    assert_eq!(rocks(&mut app), [second]);
    assert_eq!(app.world().resource::<Flock3dState>().flock().scene().obstacles, [b]);
    // The predator's entity follows the core as it hunts.
    let core = app.world().resource::<Flock3dState>().flock().scene().predators[0];
    assert_eq!(hunters(&mut app)[0].1, core.position);
    submit(&mut app, VolumeCommand::ClearPredators);
    submit(&mut app, VolumeCommand::ClearObstacles);
    ticks(&mut app, 1);
    assert!(rocks(&mut app).is_empty() && hunters(&mut app).is_empty());
    let scene = app.world().resource::<Flock3dState>().flock().scene();
    assert!(scene.obstacles.is_empty() && scene.predators.is_empty());
}

#[test]
fn invalid_entities_are_refused_once_and_admitted_when_mended() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(50));
    let bad = app.world_mut().spawn((Obstacle3d { radius: f32::NAN }, Position(Vec3::ZERO))).id();
    let wild = app
        .world_mut()
        .spawn((Predator3d { max_speed: -5.0, ..default() }, Position(Vec3::new(10.0, 0.0, 0.0))))
        .id();
    // A rock that would fill the tank.
    let huge = app.world_mut().spawn((Obstacle3d { radius: 5000.0 }, Position(Vec3::ZERO))).id();
    ticks(&mut app, 5);
    let refusals = app.world().resource::<FlockRefusals>();
    let what: Vec<&Refused> = refusals.recent().map(|r| &r.what).collect();
    assert_eq!(what.iter().filter(|w| ***w == Refused::Obstacle(bad)).count(), 1, "{what:?}");
    assert_eq!(what.iter().filter(|w| ***w == Refused::Predator(wild)).count(), 1, "{what:?}");
    assert_eq!(what.iter().filter(|w| ***w == Refused::Obstacle(huge)).count(), 1, "{what:?}");
    let scene = app.world().resource::<Flock3dState>().flock().scene();
    assert!(scene.obstacles.is_empty() && scene.predators.is_empty());
    assert!(app.world().resource::<Flock3dState>().flock().positions().iter().all(|p| p.is_finite()));
    app.world_mut().get_mut::<Obstacle3d>(bad).unwrap().radius = 25.0;
    app.world_mut().get_mut::<Predator3d>(wild).unwrap().max_speed = 150.0;
    ticks(&mut app, 1);
    let scene = app.world().resource::<Flock3dState>().flock().scene();
    assert_eq!((scene.obstacles.len(), scene.predators.len()), (1, 1));
}

#[test]
fn a_loaded_or_replaced_scene_brings_its_own_entities() {
    let mut app = app();
    let rock = Obstacle { centre: Vec3::new(150.0, -50.0, 20.0), radius: 45.0 };
    let scene =
        Scene3d { obstacles: vec![rock], predators: vec![Predator::new(Vec3::ZERO, 80.0)], ..default() };
    // Recorded, to see the replaced scene break the session below.
    let start = VolumeConfig { fish: 80, scene: scene.clone(), ..default() };
    app.world_mut().resource_mut::<Flock3dRecorder>().record(start, 10);
    ticks(&mut app, 3);
    assert_eq!(rocks(&mut app).iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(), [(rock.centre, 45.0)]);
    assert_eq!(hunters(&mut app).len(), 1);
    assert_eq!(app.world().resource::<Flock3dState>().flock().scene().obstacles, [rock]);
    let other = Obstacle { centre: Vec3::new(-150.0, 50.0, 0.0), radius: 20.0 };
    app.world_mut().commands().queue(SetScene3d(Scene3d { obstacles: vec![other], ..default() }));
    ticks(&mut app, 2);
    assert_eq!(rocks(&mut app).iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(), [(other.centre, 20.0)]);
    assert!(hunters(&mut app).is_empty());
    let scene = app.world().resource::<Flock3dState>().flock().scene();
    assert_eq!((scene.obstacles.as_slice(), scene.predators.len()), ([other].as_slice(), 0));
    // The scene was replaced outside the session's commands: a recording
    // of the session would not replay.
    let state = app.world().resource::<Flock3dState>();
    let recorder = app.world().resource::<Flock3dRecorder>();
    assert_eq!(recorder.session(), &Session::Recording);
    assert!(
        recorder.changed_outside_commands(state),
        "a replaced scene is not one of the session's commands"
    );
}

#[test]
fn a_session_with_command_rocks_replays_in_the_app() {
    use mirofish_sim::state_hash;
    let mut app = app();
    let start = VolumeConfig { fish: 100, seed: 3, ..default() };
    app.world_mut().resource_mut::<Flock3dRecorder>().record(start, 10);
    for tick in 0..40 {
        if tick == 5 {
            let rock = Obstacle { centre: Vec3::new(60.0, 0.0, 0.0), radius: 35.0 };
            app.world_mut()
                .resource_mut::<FlockCommands<Vec3>>()
                .submit(VolumeCommand::AddObstacle(rock))
                .unwrap();
        }
        if tick == 12 {
            let predator = Predator::new(Vec3::new(-80.0, 20.0, 0.0), 120.0);
            app.world_mut()
                .resource_mut::<FlockCommands<Vec3>>()
                .submit(VolumeCommand::AddPredator(predator))
                .unwrap();
        }
        if tick == 30 {
            app.world_mut()
                .resource_mut::<FlockCommands<Vec3>>()
                .submit(VolumeCommand::RemoveObstacle(0))
                .unwrap();
        }
        app.update();
    }
    let world = app.world_mut();
    let recording = world.resource_scope(|world, mut recorder: Mut<Flock3dRecorder>| {
        let state = world.resource::<Flock3dState>();
        assert!(!recorder.changed_outside_commands(state));
        recorder.stop(state, world.resource()).expect("recording")
    });
    let end = state_hash(app.world().resource::<Flock3dState>().flock());
    // The core alone gives the same bits: the entities changed nothing.
    let replayed = recording.replay().unwrap();
    assert_eq!(state_hash(&replayed), end);
    let mut again = self::app();
    again.world_mut().resource_mut::<Flock3dRecorder>().replay(recording.clone());
    ticks(&mut again, recording.ticks + 1);
    let session = again.world().resource::<Flock3dRecorder>().session().clone();
    assert!(matches!(session, mirofish_bevy::Session::Matched { .. }), "{session:?}");
}

/// Rock entities spawned so far, counted as they arrive.
#[derive(Resource, Default)]
struct RocksSpawned(usize);

/// A rock command the core leaves out (it would close the last room) adds
/// no entity, in the run it was left out of and again after the volume
/// starts over: the rock already there is not spawned anew.
#[test]
fn a_left_out_rock_adds_no_entity_before_or_after_the_volume_starts_over() {
    let mut app = app();
    app.init_resource::<RocksSpawned>()
        .add_observer(|_: On<Add, Obstacle3d>, mut spawned: ResMut<RocksSpawned>| spawned.0 += 1);
    // Each half of the tank's box covered by one ball: together they would
    // leave no room, so the second is left out.
    let halves = [-320.0, 320.0]
        .map(|x| VolumeCommand::AddObstacle(Obstacle { centre: Vec3::new(x, 0.0, 0.0), radius: 610.0 }));
    let run = |app: &mut App| {
        app.world_mut().commands().queue(SpawnSchool3d::new(50));
        ticks(app, 1);
        for command in halves.clone() {
            app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(command).unwrap();
        }
        ticks(app, 2);
        let state = app.world().resource::<Flock3dState>();
        assert_eq!((state.flock().scene().obstacles.len(), state.flock().left_out().len()), (1, 1));
        assert_eq!(rocks(app).len(), 1);
    };
    run(&mut app);
    assert_eq!(app.world().resource::<RocksSpawned>().0, 1);
    app.world_mut().commands().queue(Restart(Flock3dConfig { seed: 4, ..default() }));
    run(&mut app);
    assert_eq!(app.world().resource::<RocksSpawned>().0, 2, "one rock entity for each run");
}
