//! A fish's gait, in both spaces: with a cruise speed a school settles near
//! it instead of racing at the limit, with a turning rate no fish turns
//! faster than it (fear raising both), and both together stay
//! deterministic over threads. Without them (the reference model) the
//! school is the one the golden hashes pin.

use std::collections::HashMap;

use glam::{Vec2, Vec3};
use mirofish_sim::space::Flock3d;
use mirofish_sim::{
    BoundaryMode, FlockParams, Predator, Scene, Simulation, Tank, Tank3d, Vector, state_hash,
};

fn gait() -> FlockParams {
    FlockParams { cruise_speed: 70.0, cruise_time: 0.5, turn_rate: 2.0, ..FlockParams::default() }
}

/// The largest angle (radians) between a fish's heading in `before` and
/// in `after`, matched by id, over the fish moving in both.
fn largest_turn<V: Vector>(before: &HashMap<u32, V>, ids: &[u32], after: &[V]) -> f32 {
    ids.iter()
        .zip(after)
        .filter_map(|(id, &v)| {
            let (a, b) = (before.get(id)?.try_normalize()?, v.try_normalize()?);
            Some(a.dot(b).clamp(-1.0, 1.0).acos())
        })
        .fold(0.0, f32::max)
}

/// Runs `sim` for `ticks` ticks; the largest turn of a fish in one tick.
fn largest_turn_on_a_plane(sim: &mut Simulation, ticks: u32) -> f32 {
    let mut largest = 0.0f32;
    for _ in 0..ticks {
        let flock = &sim;
        let before: HashMap<u32, Vec2> =
            flock.ids().iter().copied().zip(flock.velocities().iter().copied()).collect();
        sim.step();
        largest = largest.max(largest_turn(&before, sim.ids(), sim.velocities()));
    }
    largest
}

fn mean_speed<V: Vector>(velocities: &[V]) -> f32 {
    velocities.iter().map(|v| v.length()).sum::<f32>() / velocities.len().max(1) as f32
}

#[test]
fn on_a_plane_no_fish_turns_faster_than_its_rate_and_speed_settles_near_the_cruise() {
    let params = gait();
    let tank = Tank { boundary: BoundaryMode::Wrap, ..Tank::default() };
    let mut sim = Simulation::new(params, tank, 400, 3).unwrap();
    let dt = sim.dt();
    let largest = largest_turn_on_a_plane(&mut sim, 600);
    let bound = params.turn_rate * dt;
    assert!(largest <= bound * 1.001, "a turn of {largest} rad in a tick, bound {bound}");
    assert!(largest > bound * 0.5, "the bound is reached at times: {largest}");
    let speed = mean_speed(sim.velocities());
    assert!((speed - 70.0).abs() < 0.2 * 70.0, "mean speed {speed} against a cruise of 70");

    // Without the gait the same school races at its limit and turns on the
    // spot at times.
    let mut free = Simulation::new(FlockParams::default(), tank, 400, 3).unwrap();
    free.run(600);
    assert!(mean_speed(free.velocities()) > 100.0);
}

#[test]
fn in_a_volume_no_fish_turns_faster_than_its_rate_and_speed_settles_near_the_cruise() {
    let params = gait();
    let tank = Tank3d::for_mean_neighbours_3d(800, 45.0, 7.0).with_boundary(BoundaryMode::Wrap);
    let mut flock = Flock3d::new(params, tank, 800, 4).unwrap();
    let dt = flock.dt();
    let mut largest = 0.0f32;
    for _ in 0..600 {
        let before: HashMap<u32, Vec3> =
            flock.ids().iter().copied().zip(flock.velocities().iter().copied()).collect();
        flock.step();
        largest = largest.max(largest_turn(&before, flock.ids(), flock.velocities()));
    }
    let bound = params.turn_rate * dt;
    assert!(largest <= bound * 1.001, "a turn of {largest} rad in a tick, bound {bound}");
    assert!(largest > bound * 0.5, "the bound is reached at times: {largest}");
    let speed = mean_speed(flock.velocities());
    assert!((speed - 70.0).abs() < 0.2 * 70.0, "mean speed {speed} against a cruise of 70");
}

/// A frightened fish swims faster than the cruise and turns faster than a
/// calm one: fear raises both by `panic_speed`.
#[test]
fn fear_raises_the_cruise_and_the_turn() {
    let params = gait();
    let tank = Tank { boundary: BoundaryMode::Wrap, ..Tank::default() };
    let mut sim = Simulation::new(params, tank, 300, 8).unwrap();
    sim.run(300);
    sim.set_scene(Scene { predators: vec![Predator::new(Vec2::ZERO, 2000.0)], ..Scene::default() }).unwrap();
    let dt = sim.dt();
    let largest = largest_turn_on_a_plane(&mut sim, 120);
    let calm = params.turn_rate * dt;
    assert!(largest > calm * 1.01, "afraid fish turn faster than calm ones: {largest} against {calm}");
    assert!(largest <= calm * params.panic_speed * 1.001, "{largest}");
    assert!(mean_speed(sim.velocities()) > 70.0 * 1.2, "afraid fish cruise faster");
}

#[test]
fn a_gait_gives_the_same_bits_on_one_and_two_threads_in_both_spaces() {
    let params = gait();
    let plane: Vec<u64> = [1, 2]
        .into_iter()
        .map(|threads| {
            let mut sim =
                Simulation::new(params, Tank::default(), 2000, 5).unwrap().with_threads(threads).unwrap();
            sim.set_scene(Scene {
                predators: vec![Predator::new(Vec2::new(100.0, 0.0), 200.0)],
                ..Scene::default()
            })
            .unwrap();
            sim.run(240);
            state_hash(&sim)
        })
        .collect();
    assert_eq!(plane[0], plane[1]);
    let volume: Vec<u64> = [1, 2]
        .into_iter()
        .map(|threads| {
            let tank = Tank3d::for_mean_neighbours_3d(2000, 45.0, 7.0);
            let mut flock = Flock3d::new(params, tank, 2000, 5).unwrap().with_threads(threads).unwrap();
            flock.run(240);
            state_hash(&flock)
        })
        .collect();
    assert_eq!(volume[0], volume[1]);
}
