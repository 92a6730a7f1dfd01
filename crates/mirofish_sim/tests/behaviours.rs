//! Behaviours beyond the three rules, checked through the whole tick:
//! field of view and neighbour weighting.

use mirofish_sim::{Flock, FlockParams, Scene, Tank, Vec2, observe};

fn tank() -> Tank {
    Tank::centered(Vec2::new(400.0, 400.0))
}

/// Runs the force pass for fish 0 at the origin heading +X with one
/// neighbour at `other`, and returns how many neighbours it counted.
fn neighbours_seen(params: &FlockParams, velocity: Vec2, other: Vec2) -> u32 {
    let mut flock = Flock::new(1);
    flock.push(Vec2::ZERO, velocity, 0.0);
    flock.push(other, Vec2::Y * 10.0, 0.0);
    flock.rebuild_index(params, &tank());
    flock.accumulate_forces(params, &tank(), &Scene::default());
    flock.sample(0).expect("fish 0 was sampled").neighbours
}

#[test]
fn a_neighbour_behind_is_ignored_one_in_front_is_counted() {
    let params = FlockParams { view_angle: 300f32.to_radians(), ..FlockParams::default() };
    let v = Vec2::X * 100.0;
    assert_eq!(neighbours_seen(&params, v, Vec2::new(20.0, 0.0)), 1, "in front");
    assert_eq!(neighbours_seen(&params, v, Vec2::new(0.0, 20.0)), 1, "beside");
    assert_eq!(neighbours_seen(&params, v, Vec2::new(-20.0, 0.0)), 0, "straight behind");
    // All-round view (the default) sees behind too.
    assert_eq!(neighbours_seen(&FlockParams::default(), v, Vec2::new(-20.0, 0.0)), 1);
}

#[test]
fn a_blind_spot_does_not_hide_a_neighbour_from_separation() {
    let params = FlockParams { view_angle: 180f32.to_radians(), ..FlockParams::default() };
    let mut flock = Flock::new(1);
    flock.push(Vec2::ZERO, Vec2::X * 100.0, 0.0);
    flock.push(Vec2::new(-5.0, 0.0), Vec2::X * 100.0, 0.0);
    flock.rebuild_index(&params, &tank());
    flock.accumulate_forces(&params, &tank(), &Scene::default());
    let sample = flock.sample(0).unwrap();
    assert_eq!(sample.neighbours, 0, "behind, so not seen");
    assert!(sample.rules.separation.x > 0.0, "but still pushed away");
}

#[test]
fn a_fish_at_rest_has_a_heading_and_no_nan() {
    let params =
        FlockParams { view_angle: 200f32.to_radians(), leader_weight: 5.0, ..FlockParams::default() };
    let mut flock = Flock::new(1);
    flock.push(Vec2::ZERO, Vec2::ZERO, 1.0);
    flock.push(Vec2::ZERO, Vec2::ZERO, 2.0);
    flock.push(Vec2::new(3.0, 3.0), Vec2::ZERO, 3.0);
    flock.set_leader(2, true);
    for _ in 0..50 {
        flock.step(&params, &tank(), &mut Scene::default(), 1.0 / 60.0).unwrap();
    }
    assert!(flock.positions().iter().chain(flock.velocities()).all(|v| v.is_finite()));
    assert!(flock.steering().iter().all(|a| a.is_finite()));
}

#[test]
fn leaders_pull_their_followers_harder() {
    // One follower between two neighbours heading opposite ways, one of
    // them a leader: the follower's alignment turns towards the leader's
    // heading, and more so the more the leader weighs.
    let turn = |leader_weight: f32| {
        let params = FlockParams { leader_weight, ..FlockParams::default() };
        let mut flock = Flock::new(1);
        flock.push(Vec2::ZERO, Vec2::X * 50.0, 0.0);
        flock.push(Vec2::new(0.0, 20.0), Vec2::Y * 100.0, 0.0);
        flock.push(Vec2::new(0.0, -20.0), -Vec2::Y * 100.0, 0.0);
        flock.set_leader(1, true);
        flock.rebuild_index(&params, &tank());
        flock.accumulate_forces(&params, &tank(), &Scene::default());
        flock.sample(0).unwrap().rules.alignment.y
    };
    assert!(turn(1.0).abs() < 1e-3, "equal weights cancel: {}", turn(1.0));
    assert!(turn(3.0) > 0.0, "the leader's way wins");
}

#[test]
fn weighting_keeps_the_neighbour_count_and_stays_deterministic() {
    let params = FlockParams {
        view_angle: 270f32.to_radians(),
        front_weight: 1.0,
        side_weight: 0.5,
        back_weight: 0.2,
        distance_falloff: 0.5,
        ..FlockParams::default()
    };
    let run = || {
        let mut sim = mirofish_sim::Simulation::new(params, tank(), 300, 4).unwrap();
        sim.run(200).unwrap();
        (observe::state_hash(&sim.flock), observe::mean_neighbours(&sim.flock))
    };
    let (a, n) = run();
    assert_eq!(a, run().0);
    assert!(n > 0.0);
}
