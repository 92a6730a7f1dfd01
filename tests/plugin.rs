//! App-level tests of the plugin: headless, stepped a known number of fixed
//! ticks with `TimeUpdateStrategy`, in the documented order, deterministic.

use bevy::app::ScheduleRunnerPlugin;
use bevy::ecs::schedule::{LogLevel, ScheduleBuildSettings};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish::prelude::*;
use mirofish::sim::{BoundaryMode, observe};

/// A headless app that runs exactly `ticks_per_update` fixed ticks on every
/// `app.update()`, with ambiguity detection turned into an error for
/// `FixedUpdate`.
fn headless_app(config: FlockConfig, ticks_per_update: u32) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(config)
        .add_plugins(MiroFishPlugin::default())
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(ticks_per_update))
        .edit_schedule(FixedUpdate, |schedule| {
            schedule.set_build_settings(ScheduleBuildSettings {
                ambiguity_detection: LogLevel::Error,
                ..default()
            });
        });
    app
}

fn config(seed: u64) -> FlockConfig {
    FlockConfig { seed, tank: Tank::centered(Vec2::new(800.0, 450.0)), ..default() }
}

fn spawn(app: &mut App, count: usize) {
    app.world_mut().commands().queue(SpawnSchool::new(count));
    app.world_mut().flush();
}

/// Hash of every fish's ECS position and velocity, in entity order.
fn ecs_hash(app: &mut App) -> u64 {
    let mut fish: Vec<(Entity, Position, Velocity)> = app
        .world_mut()
        .query::<(Entity, &Position, &Velocity)>()
        .iter(app.world())
        .map(|(e, p, v)| (e, *p, *v))
        .collect();
    fish.sort_by_key(|(e, ..)| *e);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (_, p, v) in fish {
        for x in [p.x, p.y, v.x, v.y] {
            h = (h ^ u64::from(x.to_bits())).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[derive(Resource, Default)]
struct Trace(Vec<BoidSystems>);

#[test]
fn fixed_update_runs_the_sets_in_the_documented_order_without_ambiguity() {
    let mut app = headless_app(config(1), 1);
    app.init_resource::<Trace>();
    for set in BoidSystems::ORDER {
        app.add_systems(FixedUpdate, (move |mut t: ResMut<Trace>| t.0.push(set)).in_set(set));
    }
    spawn(&mut app, 50);
    // `FixedTimesteps(1)`: each update advances the fixed clock by exactly
    // one timestep, so FixedUpdate runs once per update — except the very
    // first update, whose time delta Bevy makes zero. Four updates, three
    // ticks.
    for _ in 0..4 {
        app.update();
    }
    let trace = &app.world().resource::<Trace>().0;
    let expected: Vec<BoidSystems> =
        BoidSystems::ORDER.iter().copied().cycle().take(3 * BoidSystems::ORDER.len()).collect();
    assert_eq!(app.world().resource::<FlockState>().flock.tick(), 3);
    assert_eq!(trace, &expected);
}

#[test]
fn several_fixed_ticks_per_update_are_all_run_up_to_the_catch_up_cap() {
    // Three timesteps per update: the first update runs none (zero delta),
    // each later one runs FixedUpdate three times.
    let mut app = headless_app(config(1), 3);
    spawn(&mut app, 20);
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<FlockState>().flock.tick(), 6);

    // Five timesteps per update exceed the cap of three catch-up ticks:
    // the fixed clock only ever advances three.
    let mut capped = headless_app(config(1), 5);
    spawn(&mut capped, 20);
    for _ in 0..3 {
        capped.update();
    }
    assert_eq!(capped.world().resource::<FlockState>().flock.tick(), 6);
}

#[test]
fn fish_move_and_stay_inside_headless() {
    let mut app = headless_app(config(3), 1);
    spawn(&mut app, 300);
    let before = ecs_hash(&mut app);
    for _ in 0..120 {
        app.update();
    }
    assert_ne!(before, ecs_hash(&mut app), "nothing moved");
    let tank = app.world().resource::<FlockState>().active.tank;
    let mut q = app.world_mut().query::<(&Position, &Velocity, &Transform)>();
    let mut n = 0;
    for (p, v, t) in q.iter(app.world()) {
        assert!(tank.contains(p.0) && v.0.is_finite() && t.translation.is_finite());
        n += 1;
    }
    assert_eq!(n, 300);
}

#[test]
fn same_seed_same_bits_other_seed_other_bits() {
    let run = |seed| {
        let mut app = headless_app(config(seed), 1);
        spawn(&mut app, 400);
        for _ in 0..200 {
            app.update();
        }
        let state_hash = observe::state_hash(&app.world().resource::<FlockState>().flock);
        (ecs_hash(&mut app), state_hash)
    };
    let a = run(11);
    assert_eq!(a, run(11));
    assert_ne!(a.0, run(12).0);
}

#[test]
fn thread_count_does_not_change_the_app_state() {
    // The force pass runs on rayon; a scoped pool stands in for the global
    // one by installing the whole update loop into it.
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut app = headless_app(config(5), 1);
            spawn(&mut app, 2000);
            for _ in 0..100 {
                app.update();
            }
            ecs_hash(&mut app)
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn invalid_config_is_refused_naming_the_field_and_the_last_valid_one_kept() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 30);
    app.update();
    app.world_mut().resource_mut::<FlockConfig>().params.perception_radius = -5.0;
    app.update();
    let state = app.world().resource::<FlockState>();
    let err = state.rejected.as_ref().expect("the bad config was accepted");
    assert_eq!(err.field, "perception_radius");
    assert!(err.to_string().contains("perception_radius"));
    assert_eq!(state.active.params.perception_radius, FlockParams::default().perception_radius);

    // A valid change is applied and clears the error.
    app.world_mut().resource_mut::<FlockConfig>().params.perception_radius = 60.0;
    app.update();
    let state = app.world().resource::<FlockState>();
    assert!(state.rejected.is_none());
    assert_eq!(state.active.params.perception_radius, 60.0);
}

#[test]
#[should_panic(expected = "max_speed")]
fn an_invalid_initial_config_stops_the_app_at_build() {
    let mut bad = config(1);
    bad.params.max_speed = f32::NAN;
    let _ = headless_app(bad, 1);
}

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
    assert_eq!(state.flock.len(), 100 - 34 + 10);
    // The ECS and the flock agree fish by fish.
    let entities = state.entities.clone();
    let positions = state.flock.positions().to_vec();
    for (e, p) in entities.iter().zip(positions) {
        assert_eq!(app.world().get::<Position>(*e).unwrap().0, p);
    }
}

#[test]
fn transforms_are_interpolated_between_the_last_two_ticks() {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 50);
    for _ in 0..5 {
        app.update();
    }
    // Half a tick of virtual time: the next frame runs no fixed tick and
    // draws each fish halfway between its last two positions.
    let half = app.world().resource::<Time<Fixed>>().timestep() / 2;
    app.insert_resource(TimeUpdateStrategy::ManualDuration(half));
    app.update();
    let alpha = app.world().resource::<Time<Fixed>>().overstep_fraction();
    assert!((alpha - 0.5).abs() < 1e-3, "overstep {alpha}");
    let mut q = app.world_mut().query::<(&Position, &PreviousPosition, &Transform)>();
    for (p, prev, t) in q.iter(app.world()) {
        let expected = prev.0.lerp(p.0, alpha);
        assert!((t.translation.truncate() - expected).length() < 1e-3);
    }
}

#[test]
fn a_frame_after_a_long_stall_catches_up_at_most_three_ticks() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 10);
    app.update();
    let before = app.world().resource::<FlockState>().flock.tick();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(core::time::Duration::from_secs(2)));
    app.update();
    let ran = app.world().resource::<FlockState>().flock.tick() - before;
    assert!(ran <= u64::from(mirofish::MAX_CATCH_UP_TICKS), "ran {ran} ticks in one frame");
    assert!(ran >= 1);
}

/// The order test above relies on ambiguity detection failing the schedule;
/// this proves the detector is armed: two unordered systems that both write
/// one resource must stop the app.
#[test]
#[should_panic]
fn ambiguity_detection_is_armed() {
    let mut app = headless_app(config(1), 1);
    app.init_resource::<Trace>();
    app.add_systems(FixedUpdate, (|mut t: ResMut<Trace>| t.0.clear(), |mut t: ResMut<Trace>| t.0.clear()));
    for _ in 0..3 {
        app.update();
    }
}

#[test]
fn the_catch_up_cap_holds_when_time_is_added_after_the_plugin() {
    let mut app = App::new();
    app.add_plugins(MiroFishPlugin::default())
        .add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>());
    app.finish();
    let max_delta = app.world().resource::<Time<Virtual>>().max_delta();
    let tick = app.world().resource::<Time<Fixed>>().timestep();
    assert_eq!(max_delta, tick * mirofish::MAX_CATCH_UP_TICKS);
}

#[test]
fn a_leader_component_reaches_the_flock() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 5);
    let first = app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).next().unwrap();
    app.world_mut().entity_mut(first).insert(Leader);
    app.update();
    app.update();
    let state = app.world().resource::<FlockState>();
    let slot = state.entities.iter().position(|&e| e == first).unwrap();
    assert!(state.flock.leaders()[slot]);
    assert_eq!(state.flock.leaders().iter().filter(|&&l| l).count(), 1);
}

#[test]
fn fear_lingers_after_the_predator_leaves_and_survives_spawns() {
    let mut app = headless_app(config(8), 1);
    spawn(&mut app, 300);
    let shark = app.world_mut().spawn((Predator::default(), Position(Vec2::ZERO))).id();
    for _ in 0..20 {
        app.update();
    }
    let afraid = |app: &App| -> Vec<(Entity, f32)> {
        let state = app.world().resource::<FlockState>();
        state
            .entities
            .iter()
            .copied()
            .zip(state.flock.fears().iter().copied())
            .filter(|(_, f)| *f > 0.05)
            .collect()
    };
    let before = afraid(&app);
    assert!(before.len() > 10, "the predator frightened the school: {} afraid", before.len());
    // The predator leaves and new fish arrive: the flock is gathered anew,
    // and every frightened fish calms down from where it was.
    app.world_mut().despawn(shark);
    spawn(&mut app, 50);
    app.update();
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock.len(), 350);
    let params = FlockParams::default();
    let calm = (-params.calm_rate / 60.0).exp();
    for (entity, fear) in before {
        let slot = state.entities.iter().position(|&e| e == entity).expect("still gathered");
        let now = state.flock.fears()[slot];
        assert!(
            (now - fear * calm).abs() <= 1.0e-6,
            "{entity}: {fear} should decay to {}, is {now}",
            fear * calm
        );
        // Each fish knows its slot in the flock.
        assert_eq!(app.world().get::<FishSlot>(entity).and_then(|s| s.get()), Some(slot));
    }
}

#[test]
fn predator_and_obstacle_entities_act_on_the_school() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 300);
    let rock = app.world_mut().spawn((Obstacle { radius: 50.0 }, Position(Vec2::new(100.0, 0.0)))).id();
    let shark = app.world_mut().spawn((Predator::default(), Position(Vec2::new(-200.0, 0.0)))).id();
    for _ in 0..300 {
        app.update();
    }
    // The predator hunted (it moved and has a velocity) and was drawn there.
    let p = app.world().get::<Position>(shark).unwrap().0;
    assert_ne!(p, Vec2::new(-200.0, 0.0));
    assert!(app.world().get::<Velocity>(shark).unwrap().0.length() > 0.0);
    assert!(app.world().get::<Transform>(shark).unwrap().translation.truncate().is_finite());
    // Nobody inside the rock, and the rock's transform follows its position.
    let mut q = app.world_mut().query_filtered::<&Position, With<Boid>>();
    for fish in q.iter(app.world()) {
        assert!(fish.0.distance(Vec2::new(100.0, 0.0)) >= 50.0);
    }
    assert_eq!(app.world().get::<Transform>(rock).unwrap().translation.truncate(), Vec2::new(100.0, 0.0));
    let state = app.world().resource::<FlockState>();
    assert_eq!((state.scene.obstacles.len(), state.scene.predators.len()), (1, 1));
}

#[test]
fn an_invalid_obstacle_is_ignored_not_fatal() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 20);
    app.world_mut().spawn((Obstacle { radius: f32::NAN }, Position(Vec2::ZERO)));
    for _ in 0..5 {
        app.update();
    }
    assert!(app.world().resource::<FlockState>().scene.obstacles.is_empty());
}

#[test]
fn a_goal_and_an_attractor_in_the_config_are_validated_and_steer_the_school() {
    let mut app = headless_app(config(3), 1);
    spawn(&mut app, 200);
    app.update();
    // A NaN goal is refused, naming the field; the last valid config stays.
    app.world_mut().resource_mut::<FlockConfig>().goal = Some(Goal::seek(Vec2::new(f32::NAN, 0.0), 1.0));
    app.update();
    let err = app.world().resource::<FlockState>().rejected.clone().expect("NaN goal accepted");
    assert_eq!(err.field, "goal.target");
    // A valid goal on the right pulls the school's centre that way.
    let centre = |app: &mut App| {
        let mut q = app.world_mut().query_filtered::<&Position, With<Boid>>();
        let (sum, n) = q.iter(app.world()).fold((Vec2::ZERO, 0.0), |(s, n), p| (s + p.0, n + 1.0));
        sum / n
    };
    let before = centre(&mut app);
    app.world_mut().resource_mut::<FlockConfig>().goal = Some(Goal::seek(Vec2::new(350.0, 0.0), 3.0));
    for _ in 0..180 {
        app.update();
    }
    assert!(app.world().resource::<FlockState>().rejected.is_none());
    assert!(centre(&mut app).x > before.x + 100.0, "the goal did not pull the school");
}

#[test]
fn schools_spawned_into_the_plugin_keep_their_own_parameters() {
    let slow = FlockParams { max_speed: 60.0, ..FlockParams::default() };
    let mut app = headless_app(FlockConfig { schools: vec![slow], ..config(8) }, 1);
    app.world_mut().commands().queue(SpawnSchool::new(150));
    app.world_mut().commands().queue(SpawnSchool::new(150).in_school(1));
    app.world_mut().flush();
    for _ in 0..120 {
        app.update();
    }
    let mut q = app.world_mut().query::<(&Velocity, &School)>();
    let (mut fast, mut slow_count) = (0, 0);
    for (v, school) in q.iter(app.world()) {
        match school.0 {
            0 => fast += usize::from(v.0.length() > 61.0),
            1 => {
                assert!(v.0.length() <= 60.0 * 1.0001, "school 1 broke its speed limit");
                slow_count += 1;
            }
            other => panic!("unexpected school {other}"),
        }
    }
    assert_eq!(slow_count, 150);
    assert!(fast > 100, "school 0 should swim faster than school 1's limit");
    assert_eq!(app.world().resource::<FlockState>().schools.len(), 2);
}

#[test]
fn every_school_has_a_display_colour() {
    let config = FlockConfig { colours: vec![[0.1, 0.2, 0.3]], ..default() };
    assert_eq!(config.colour_of(0), [0.1, 0.2, 0.3]);
    assert_eq!(config.colour_of(1), mirofish::SCHOOL_PALETTE[1]);
    assert_eq!(config.colour_of(7), mirofish::SCHOOL_PALETTE[1], "the palette cycles");
    assert_ne!(config.colour_of(1), config.colour_of(2));
}

fn run_ticks(app: &mut App, ticks: u64) {
    let target = app.world().resource::<FlockState>().flock.tick() + ticks;
    while app.world().resource::<FlockState>().flock.tick() < target {
        app.update();
    }
}

fn count<T: Component>(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<T>>().iter(app.world()).count()
}

#[test]
fn commands_apply_at_the_start_of_their_tick() {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 100);
    let at = Vec2::new(120.0, -40.0);
    {
        let mut commands = app.world_mut().resource_mut::<FlockCommands>();
        commands.schedule(5, FlockCommand::AddPredator(mirofish::sim::Predator::new(at, 90.0))).unwrap();
        commands
            .schedule(5, FlockCommand::SpawnFish { count: 20, centre: Vec2::ZERO, radius: 30.0 })
            .unwrap();
        commands
            .schedule(
                7,
                FlockCommand::SetParams(FlockParams { cohesion_weight: 2.5, ..FlockParams::default() }),
            )
            .unwrap();
    }
    run_ticks(&mut app, 5);
    assert_eq!(count::<Predator>(&mut app), 0, "not before tick 5");
    assert_eq!(count::<Boid>(&mut app), 100);
    run_ticks(&mut app, 1);
    assert_eq!(count::<Predator>(&mut app), 1);
    assert_eq!(count::<Boid>(&mut app), 120);
    // The predator started at the point and has moved one tick since.
    let (position, previous) = app
        .world_mut()
        .query_filtered::<(&Position, &PreviousPosition), With<Predator>>()
        .single(app.world())
        .map(|(p, q)| (p.0, q.0))
        .unwrap();
    assert_eq!(previous, at);
    assert!(position.distance(at) < 5.0);
    // The new fish took part in tick 5 itself: 120 fish were gathered.
    assert_eq!(app.world().resource::<FlockState>().flock.len(), 120);
    run_ticks(&mut app, 2);
    assert_eq!(app.world().resource::<FlockState>().active.params.cohesion_weight, 2.5);
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
        .submit(FlockCommand::AddObstacle(mirofish::sim::Obstacle { centre: Vec2::ZERO, radius: -2.0 }))
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
                FlockCommand::AddObstacle(mirofish::sim::Obstacle {
                    centre: Vec2::new(-100.0, 0.0),
                    radius: 40.0,
                }),
            ),
            (
                10,
                FlockCommand::AddPredator(mirofish::sim::Predator::new(Vec2::new(150.0, 50.0), flee_radius)),
            ),
            (20, FlockCommand::SpawnFish { count: 50, centre: Vec2::new(0.0, 100.0), radius: 50.0 }),
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
        assert_eq!(count::<Predator>(&mut app) + count::<mirofish::Obstacle>(&mut app), 0);
        ecs_hash(&mut app)
    };
    let a = run(100.0);
    assert_eq!(a, run(100.0));
    assert_ne!(a, run(101.0));
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
    let (entities, positions) = (state.entities.clone(), state.flock.positions().to_vec());
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
    assert_eq!(app.world().resource::<FlockState>().flock.len(), 200);
    assert_ne!(app.world().get::<Position>(newcomer).unwrap().0, Vec2::new(10.0, 20.0));
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
