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
    assert_eq!(state.flock.len(), 100 - 34 + 10);
    // The ECS and the flock agree fish by fish.
    let entities = state.entities.clone();
    let positions = state.flock.positions().to_vec();
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
