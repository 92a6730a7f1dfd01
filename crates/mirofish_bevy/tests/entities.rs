//! Fish as entities: spawned and despawned between or during ticks, edited
//! by game code, and written back column by column.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;
use mirofish_sim::BoundaryMode;

#[test]
fn despawning_and_spawning_between_ticks_keeps_everything_consistent() {
    let mut app = headless_app(
        FlockConfig {
            tank: Tank::centered(Vec2::new(400.0, 400.0)).with_boundary(BoundaryMode::Wrap),
            ..config(2)
        },
        1,
    );
    spawn(&mut app, 100);
    app.update();
    let victims: Vec<Entity> =
        app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).step_by(3).collect();
    for e in victims {
        app.world_mut().despawn(e);
    }
    spawn(&mut app, 10);
    for _ in 0..30 {
        app.update();
    }
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock().len(), 100 - 34 + 10);
    // The ECS and the flock agree fish by fish.
    let entities = state.entities().to_vec();
    let positions = state.flock().positions().to_vec();
    for (e, p) in entities.iter().zip(positions) {
        assert_eq!(app.world().get::<Position>(*e).unwrap().0, p);
    }
}

/// Marks the fish spawned in the middle of a tick.
#[derive(Component)]
struct Newcomer;

/// Run once, between the integrator and the write-back: spawns a fish
/// and despawns another, so the write-back meets a table that is not in
/// the gathered order and a fish the tick never saw.
fn spawn_and_despawn_mid_tick(
    mut commands: Commands,
    fish: Query<Entity, (With<Boid>, Without<Newcomer>)>,
    mut done: Local<bool>,
) {
    if !std::mem::replace(&mut *done, true) {
        commands.spawn((Boid, Newcomer, Position(Vec2::new(10.0, 20.0)), Velocity(Vec2::new(1.0, 0.0))));
        if let Some(victim) = fish.iter().nth(7) {
            commands.entity(victim).despawn();
        }
    }
}

#[test]
fn the_write_back_skips_fish_the_tick_never_saw_and_the_gather_takes_edits() {
    let mut app = headless_app(config(9), 1);
    spawn(&mut app, 200);
    app.update();
    // An edit between ticks reaches the tick: a fish moved by game code
    // swims on from where it was put.
    let moved = app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).nth(3).unwrap();
    app.world_mut().get_mut::<Position>(moved).unwrap().0 = Vec2::new(-300.0, 100.0);
    app.add_systems(
        FixedUpdate,
        spawn_and_despawn_mid_tick.after(BoidSystems::Integrate).before(BoidSystems::Writeback),
    );
    app.update();
    let p = app.world().get::<Position>(moved).unwrap().0;
    let max_step = FlockParams::default().max_speed / 60.0;
    assert!(p.distance(Vec2::new(-300.0, 100.0)) <= max_step * 1.001, "the edit was lost: {p}");
    // Every gathered fish still alive got the tick's result; the newcomer
    // kept what it was spawned with.
    let state = app.world().resource::<FlockState>();
    let (entities, positions) = (state.entities().to_vec(), state.flock().positions().to_vec());
    let mut written = 0;
    for (e, p) in entities.iter().zip(positions) {
        if let Some(ecs) = app.world().get::<Position>(*e) {
            assert_eq!(ecs.0, p);
            written += 1;
        }
    }
    assert_eq!(written, 199);
    let newcomer = app.world_mut().query_filtered::<Entity, With<Newcomer>>().single(app.world()).unwrap();
    assert_eq!(app.world().get::<Position>(newcomer).unwrap().0, Vec2::new(10.0, 20.0));
    // The next tick gathers it and moves it.
    app.update();
    assert_eq!(app.world().resource::<FlockState>().flock().len(), 200);
    assert_ne!(app.world().get::<Position>(newcomer).unwrap().0, Vec2::new(10.0, 20.0));
}

/// What the flock held right after the gather: each fish's position,
/// velocity, wander phase and school, by entity.
#[derive(Resource, Default)]
struct Gathered(Vec<(Entity, Vec2, Vec2, f32, u16)>);

fn record_gathered(state: Res<FlockState>, mut gathered: ResMut<Gathered>) {
    let flock = state.flock();
    gathered.0 = (state.entities().iter().enumerate())
        .map(|(slot, &e)| {
            let school = flock.schools()[slot];
            (e, flock.positions()[slot], flock.velocities()[slot], flock.wander_phases()[slot], school)
        })
        .collect();
}

/// The core holds the fish between ticks and takes in only what a game
/// wrote: each of the four components a game may write reaches the tick,
/// a fish nobody touched starts the tick where the core left it, and a
/// change made on the core between ticks stands unless the game wrote the
/// entity too (which wins).
#[test]
fn the_gather_takes_what_a_game_wrote_and_the_core_keeps_the_rest() {
    let mut app = headless_app(FlockConfig { schools: vec![FlockParams::default()], ..config(4) }, 1);
    app.init_resource::<Gathered>().add_systems(
        FixedUpdate,
        record_gathered.after(BoidSystems::SpatialIndex).before(BoidSystems::Forces),
    );
    spawn(&mut app, 300);
    run_ticks(&mut app, 3);
    let fish: Vec<Entity> = app.world().resource::<FlockState>().entities().to_vec();
    // Between ticks: a game writes one component of each of four fish; the
    // core is told to move a fifth and a sixth, and the sixth's entity is
    // written too.
    let (at, heading) = (Vec2::new(-120.0, 80.0), Vec2::new(0.0, -30.0));
    let world = app.world_mut();
    world.get_mut::<Position>(fish[10]).unwrap().0 = at;
    world.get_mut::<Velocity>(fish[20]).unwrap().0 = heading;
    world.get_mut::<WanderPhase>(fish[30]).unwrap().0 = 1.25;
    world.get_mut::<School>(fish[40]).unwrap().0 = 1;
    world.get_mut::<Position>(fish[60]).unwrap().0 = -at;
    // `fish` lists the entities by slot.
    let mut state = app.world_mut().resource_mut::<FlockState>();
    let before = state.flock().clone();
    for slot in [50, 60] {
        state.set_motion(slot, Vec2::new(200.0, -100.0), heading).expect("a fish, finite values");
    }
    app.update();
    let gathered = app.world_mut().remove_resource::<Gathered>().unwrap().0;
    assert_eq!(gathered.len(), 300);
    let of = |e: Entity| *gathered.iter().find(|g| g.0 == e).expect("gathered");
    assert_eq!(of(fish[10]).1, at, "a written position");
    assert_eq!(of(fish[20]).2, heading, "a written velocity");
    assert_eq!(of(fish[30]).3, 1.25, "a written wander phase");
    assert_eq!(of(fish[40]).4, 1, "a written school");
    assert_eq!((of(fish[50]).1, of(fish[50]).2), (Vec2::new(200.0, -100.0), heading), "a change on the core");
    assert_eq!(of(fish[60]).1, -at, "the entity's write wins over the core's");
    // Everyone else starts the tick as the core (and the write-back) left it.
    let (p, v, w) = (before.positions(), before.velocities(), before.wander_phases());
    for (i, &e) in fish.iter().enumerate().filter(|(i, _)| ![10, 20, 30, 40, 50, 60].contains(i)) {
        assert_eq!(of(e), (e, p[i], v[i], w[i], 0), "fish {i}");
    }
    // A removed `School` puts the fish in the first.
    app.world_mut().entity_mut(fish[40]).remove::<School>();
    app.init_resource::<Gathered>().update();
    let gathered = app.world().resource::<Gathered>();
    assert_eq!(gathered.0.iter().find(|g| g.0 == fish[40]).expect("gathered").4, 0, "a removed school");
}

/// The core owns the fish: a fish whose entity a game despawned leaves it
/// at the next tick, the fish with the highest id taking the freed id (its
/// entity's `FishId` with it), as the core's own `remove_fish` numbers
/// them; every other fish keeps its id and starts the tick as the core
/// left it, and a fish a game spawned takes the next id.
#[test]
fn a_despawned_fish_leaves_the_core_and_the_highest_id_takes_its_id() {
    let mut app = headless_app(config(15), 1);
    app.init_resource::<Gathered>().add_systems(
        FixedUpdate,
        record_gathered.after(BoidSystems::SpatialIndex).before(BoidSystems::Forces),
    );
    spawn(&mut app, 60);
    run_ticks(&mut app, 2);
    let state = app.world().resource::<FlockState>();
    let (before, entities) = (state.flock().clone(), state.entities().to_vec());
    for (id, &e) in entities.iter().enumerate() {
        assert_eq!(app.world().get::<FishId>(e).and_then(|id| id.get()), Some(id as u32));
    }
    // Despawned in an order other than by id, and a newcomer.
    for id in [20, 5, 59] {
        app.world_mut().despawn(entities[id]);
    }
    let newcomer = app.world_mut().spawn((Boid, Position(Vec2::new(30.0, 40.0)), Velocity(Vec2::X))).id();
    app.update();
    let mut expected = before.clone();
    let was = expected.remove_fish(&[20, 5, 59]);
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock().len(), 58);
    let gathered = &app.world().resource::<Gathered>().0;
    for (id, &old) in was.iter().enumerate() {
        let entity = entities[old as usize];
        assert_eq!(state.entities()[id], entity, "fish {id} was fish {old}");
        assert_eq!(app.world().get::<FishId>(entity).and_then(|id| id.get()), Some(id as u32));
        let (p, v) = (expected.positions()[id], expected.velocities()[id]);
        assert_eq!((gathered[id].0, gathered[id].1, gathered[id].2), (entity, p, v), "fish {id}");
    }
    assert_eq!(state.entities()[57], newcomer);
    assert_eq!(app.world().get::<FishId>(newcomer).and_then(|id| id.get()), Some(57));
    assert_eq!((gathered[57].1, gathered[57].2), (Vec2::new(30.0, 40.0), Vec2::X));
}

/// How many fish positions the last tick's write-back changed.
#[derive(Resource, Default)]
struct ChangedPositions(usize);

fn count_changed_positions(fish: Query<Ref<Position>, With<Boid>>, mut seen: ResMut<ChangedPositions>) {
    seen.0 = fish.iter().filter(|p| p.is_changed()).count();
}

#[test]
fn the_write_back_marks_every_fish_it_writes_changed() {
    let mut app = headless_app(config(10), 1);
    app.init_resource::<ChangedPositions>()
        .add_systems(FixedUpdate, count_changed_positions.after(BoidSystems::Writeback));
    spawn(&mut app, 300);
    for _ in 0..3 {
        run_ticks(&mut app, 1);
        assert_eq!(app.world().resource::<ChangedPositions>().0, 300);
    }
}

#[test]
fn a_fish_moved_to_nan_by_game_code_is_repaired_and_metrics_stay_finite() {
    let mut app = headless_app(config(12), 1);
    spawn(&mut app, 100);
    app.update();
    let broken = app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).nth(5).unwrap();
    app.world_mut().get_mut::<Position>(broken).unwrap().0 = Vec2::NAN;
    app.world_mut().get_mut::<Velocity>(broken).unwrap().0 = Vec2::new(f32::NAN, f32::INFINITY);
    app.world_mut().get_mut::<WanderPhase>(broken).unwrap().0 = f32::NAN;
    run_ticks(&mut app, 40);
    assert!(app.world().get::<WanderPhase>(broken).unwrap().0.is_finite());
    let tank = app.world().resource::<FlockState>().config().tank;
    let p = app.world().get::<Position>(broken).unwrap().0;
    assert!(p.is_finite() && tank.contains(p), "still broken: {p}");
    assert!(app.world().get::<Velocity>(broken).unwrap().0.is_finite());
    assert!(app.world().get::<Transform>(broken).unwrap().translation.is_finite());
    let metrics = app.world().resource::<FlockMetrics>().latest().expect("no metrics sampled");
    assert!(metrics.polarization.is_finite() && metrics.milling.is_finite(), "{metrics:?}");
    assert!(metrics.values().iter().flatten().all(|v| v.is_finite()), "{metrics:?}");
}

#[test]
fn a_fish_that_loses_a_component_the_tick_needs_leaves_the_flock_whole() {
    let mut app = headless_app(config(13), 1);
    spawn(&mut app, 50);
    app.update();
    let fish: Vec<Entity> =
        app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).collect();
    app.world_mut().entity_mut(fish[0]).remove::<FishId>();
    app.world_mut().entity_mut(fish[1]).remove::<PreviousPosition>();
    app.world_mut().entity_mut(fish[2]).remove::<Steering>();
    app.world_mut().entity_mut(fish[3]).remove::<WanderPhase>();
    app.world_mut().entity_mut(fish[4]).remove::<Velocity>();
    app.update();
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock().len(), 45);
    assert!(fish[..5].iter().all(|e| !state.entities().contains(e)));
    // The rest are in, each written back with its own slot's result.
    let (entities, positions) = (state.entities().to_vec(), state.flock().positions().to_vec());
    for (e, p) in entities.iter().zip(positions) {
        assert_eq!(app.world().get::<Position>(*e).unwrap().0, p);
    }
    // Put back, the fish rejoins.
    let p = app.world().get::<Position>(fish[1]).unwrap().0;
    app.world_mut().entity_mut(fish[1]).insert(PreviousPosition(p));
    app.update();
    assert!(app.world().resource::<FlockState>().entities().contains(&fish[1]));
}

#[test]
fn a_spawn_past_the_fish_limit_is_refused_without_a_panic() {
    let mut app = headless_app(config(14), 1);
    spawn(&mut app, 20);
    spawn(&mut app, usize::MAX);
    run_ticks(&mut app, 1);
    let state = app.world().resource::<FlockState>();
    let err = state.refused_spawn().expect("the spawn was not refused");
    assert_eq!(err.field, "SpawnSchool.count");
    assert!(err.to_string().contains(&mirofish_sim::MAX_FISH.to_string()), "{err}");
    assert_eq!(state.flock().len(), 20);
}

/// `SpawnSchool::with_params` forms a new school, as in a volume: its
/// parameters join the configuration and are in force when its fish are
/// taken in, and its fish carry its number.
#[test]
fn a_spawn_with_parameters_forms_a_new_school() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 40);
    run_ticks(&mut app, 1);
    let slow = FlockParams { max_speed: 25.0, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchool::new(15).with_params(slow));
    run_ticks(&mut app, 2);
    assert_eq!(app.world().resource::<FlockConfig>().schools, [slow]);
    let state = app.world().resource::<FlockState>();
    assert_eq!(
        state.schools().iter().map(|p| p.max_speed).collect::<Vec<_>>(),
        [FlockParams::default().max_speed, 25.0]
    );
    assert_eq!(state.flock().schools().iter().filter(|&&s| s == 1).count(), 15);
    let second = app.world_mut().query::<&School>().iter(app.world()).filter(|s| s.0 == 1).count();
    assert_eq!(second, 15);
}
