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
    commands.entity(add.entity).insert(ExtraSteering(Vec2::ZERO));
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
    for s in state.flock().steering() {
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
    assert!(
        state.flock().steering().chain(state.flock().velocities().iter().copied()).all(|v| v.is_finite())
    );
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

/// A net between the integrator and the boundary: every fish is thrown far
/// outside the tank; the boundary stage, run after it, brings each one back
/// in before the write-back, so the entities never see a fish outside.
fn throw_out(mut state: ResMut<FlockState>) {
    for slot in 0..state.flock().len() {
        let v = state.flock().velocities()[slot];
        state.set_motion(slot, Vec2::new(1.0e4, -1.0e4), v).expect("a valid slot and finite values");
    }
}

#[test]
fn a_change_between_integrate_and_boundary_is_brought_back_inside() {
    for boundary in [BoundaryMode::Wrap, BoundaryMode::Bounce, BoundaryMode::SoftMargin] {
        let mut cfg = config(5);
        cfg.tank.boundary = boundary;
        let mut app = headless_app(cfg.clone(), 1);
        app.add_systems(FixedUpdate, throw_out.after(BoidSystems::Integrate).before(BoidSystems::Boundary));
        spawn(&mut app, 200);
        run_ticks(&mut app, 3);
        let positions: Vec<Vec2> =
            app.world_mut().query::<&Position>().iter(app.world()).map(|p| p.0).collect();
        assert_eq!(positions.len(), 200);
        assert!(positions.iter().all(|&p| cfg.tank.contains(p)), "{boundary:?}: a fish outside the tank");
    }
}

#[test]
fn a_bad_change_of_motion_is_refused_and_changes_nothing() {
    let mut app = headless_app(config(5), 1);
    spawn(&mut app, 10);
    run_ticks(&mut app, 1);
    let mut state = app.world_mut().resource_mut::<FlockState>();
    let before = state.flock().positions().to_vec();
    let err = state.set_motion(0, Vec2::new(f32::NAN, 0.0), Vec2::ZERO).unwrap_err();
    assert_eq!(err.field, "position");
    let err = state.set_motion(0, Vec2::ZERO, Vec2::splat(f32::INFINITY)).unwrap_err();
    assert_eq!(err.field, "velocity");
    let err = state.set_motion(10, Vec2::ZERO, Vec2::ZERO).unwrap_err();
    assert_eq!(err.field, "slot");
    assert_eq!(state.flock().positions(), &before[..]);
}
