//! A game's own forces: `ExtraSteering` on a fish is added to what the
//! rules ask for, clamped with it, changes the trajectory, and keeps runs
//! bit-identical on any number of threads.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;

/// A current towards +x on every fish, written before the clamp stage
/// (a system of the game's, as the docs tell).
fn push_right(mut fish: Query<&mut ExtraSteering>) {
    for mut extra in &mut fish {
        extra.0 = Vec2::new(1.0e4, 0.0);
    }
}

fn give_every_fish_a_force(add: On<Add, Boid>, mut commands: Commands) {
    commands.entity(add.entity).insert(ExtraSteering::default());
}

fn app(seed: u64, with_force: bool) -> App {
    let mut app = headless_app(config(seed), 1);
    if with_force {
        app.add_observer(give_every_fish_a_force)
            .add_systems(FixedUpdate, push_right.after(BoidSystems::Forces).before(BoidSystems::Clamp));
    }
    spawn(&mut app, 300);
    app
}

fn mean_velocity(app: &mut App) -> Vec2 {
    let v: Vec<Vec2> = app.world_mut().query::<&Velocity>().iter(app.world()).map(|v| v.0).collect();
    v.iter().copied().sum::<Vec2>() / v.len().max(1) as f32
}

#[test]
fn an_extra_force_steers_the_school_and_is_clamped_with_the_rules() {
    let (mut plain, mut pushed) = (app(3, false), app(3, true));
    run_ticks(&mut plain, 60);
    run_ticks(&mut pushed, 60);
    assert_ne!(ecs_hash(&mut plain), ecs_hash(&mut pushed), "the force changed nothing");
    let (a, b) = (mean_velocity(&mut plain), mean_velocity(&mut pushed));
    assert!(b.x > a.x + 50.0, "not pushed right: {a} vs {b}");
    // A force far above max_force is clamped with the rest.
    let max_force = FlockParams::default().max_force;
    let state = pushed.world().resource::<FlockState>();
    for s in state.flock.steering() {
        assert!(s.length() <= max_force * (1.0 + 1.0e-5), "not clamped: {}", s.length());
    }
    // Written back to the entities as well.
    let steering: Vec<Vec2> =
        pushed.world_mut().query::<&Steering>().iter(pushed.world()).map(|s| s.0).collect();
    assert!(
        steering.iter().all(|s| s.x > 0.0 || s.length() < max_force * 0.999),
        "the force is not in Steering"
    );
}

#[test]
fn a_non_finite_extra_force_is_ignored() {
    let mut app = app(4, false);
    run_ticks(&mut app, 1);
    let fish: Vec<Entity> =
        app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).collect();
    for (i, e) in fish.iter().enumerate() {
        let bad = [Vec2::NAN, Vec2::INFINITY, Vec2::new(f32::NEG_INFINITY, 1.0)][i % 3];
        app.world_mut().entity_mut(*e).insert(ExtraSteering(bad));
    }
    run_ticks(&mut app, 5);
    let state = app.world().resource::<FlockState>();
    assert!(state.flock.steering().iter().chain(state.flock.velocities()).all(|v| v.is_finite()));
}

#[test]
fn extra_forces_keep_one_and_two_threads_identical() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut app = app(5, true);
            run_ticks(&mut app, 50);
            ecs_hash(&mut app)
        })
    };
    assert_eq!(run(1), run(2));
}
