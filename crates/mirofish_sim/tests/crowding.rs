//! The neighbour cap: in a dense ball it thins the scan, keeps the
//! neighbourhood's averages and the state deterministic; off, nothing
//! changes. A topological neighbourhood counts the nearest few only.

use mirofish_sim::{FlockParams, Simulation, Tank, Vec2, observe, state_hash};

/// 3000 fish packed into a disc of radius 60 with perception 45: every fish
/// has hundreds of neighbours.
fn ball(cap: u32, seed: u64) -> Simulation {
    let params = FlockParams { neighbour_cap: cap, ..FlockParams::default() };
    let mut sim = Simulation::new(params, Tank::default(), 0, seed).unwrap();
    for i in 0..3000u32 {
        let a = i as f32 * 2.399_963; // golden angle: an even disc
        let r = 60.0 * (i as f32 / 3000.0).sqrt();
        sim.flock.push(
            Vec2::from_angle(a) * r,
            Vec2::new(100.0, 30.0).rotate(Vec2::from_angle(r * 0.01)),
            0.0,
        );
    }
    sim.flock.set_record_rules(true);
    sim
}

#[test]
fn a_capped_crowd_sees_the_same_neighbourhood_on_average() {
    let mut full = ball(0, 1);
    let mut capped = ball(8, 1);
    full.step().unwrap();
    capped.step().unwrap();
    let (n_full, n_capped) = (observe::mean_neighbours(&full.flock), observe::mean_neighbours(&capped.flock));
    assert!(n_full > 300.0, "a crowd: {n_full}");
    // The count is estimated from a sample of about 1 in 40: within 10 %.
    assert!((n_capped / n_full - 1.0).abs() < 0.1, "{n_capped} vs {n_full}");
    let (f, c) =
        (observe::mean_rule_forces(&full.flock).unwrap(), observe::mean_rule_forces(&capped.flock).unwrap());
    for (name, a, b) in [("alignment", f.alignment, c.alignment), ("cohesion", f.cohesion, c.cohesion)] {
        assert!((a - b).abs() <= 0.15 * a.max(1.0), "{name}: {a} vs {b}");
    }
    for v in capped.flock.velocities() {
        assert!(v.is_finite());
    }
}

#[test]
fn the_cap_only_acts_in_a_crowd_and_stays_deterministic() {
    // A sparse school never exceeds the budget: a cap of 50 changes nothing.
    let sparse = |cap| {
        let params = FlockParams { neighbour_cap: cap, ..FlockParams::default() };
        let tank = Tank::for_mean_neighbours(1000, params.perception_radius, 6.5, 16.0 / 9.0);
        let mut sim = Simulation::new(params, tank, 1000, 4).unwrap();
        sim.run(30).unwrap();
        state_hash(&sim.flock)
    };
    assert_eq!(sparse(0), sparse(50));
    // In the crowd it changes the run, the same way every time, on any
    // number of threads.
    let run = |cap, threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut sim = ball(cap, 2);
            sim.run(20).unwrap();
            state_hash(&sim.flock)
        })
    };
    assert_ne!(run(0, 1), run(8, 1));
    assert_eq!(run(8, 1), run(8, 2));
}

#[test]
fn a_topological_neighbourhood_counts_the_nearest_only() {
    // In the ball every fish has hundreds of neighbours in range; with a
    // topological neighbourhood of 7 it aligns with and coheres to 7.
    let topological = |k, search| {
        let mut sim = ball(0, 3);
        sim.params.topological_neighbours = k;
        sim.flock.set_neighbour_search(search);
        sim.step().unwrap();
        sim
    };
    let grid = topological(7, mirofish_sim::NeighbourSearch::Grid);
    assert_eq!(observe::mean_neighbours(&grid.flock), 7.0, "every fish sees at least 7 in the ball");
    // The nearest are the same whichever search finds them, to the bit.
    let brute = topological(7, mirofish_sim::NeighbourSearch::BruteForce);
    assert_eq!(state_hash(&grid.flock), state_hash(&brute.flock));
    // And 0 is the metric neighbourhood.
    assert!(observe::mean_neighbours(&topological(0, mirofish_sim::NeighbourSearch::Grid).flock) > 300.0);
}

#[test]
fn a_topological_school_stays_deterministic_and_finite() {
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let params = FlockParams { topological_neighbours: 6, ..FlockParams::default() };
            let tank = Tank::for_mean_neighbours(2000, params.perception_radius, 20.0, 16.0 / 9.0);
            let mut sim = Simulation::new(params, tank, 2000, 9).unwrap();
            sim.run(60).unwrap();
            assert!(sim.flock.velocities().iter().chain(sim.flock.positions()).all(|v| v.is_finite()));
            assert!(observe::mean_neighbours(&sim.flock) <= 6.0);
            state_hash(&sim.flock)
        })
    };
    assert_eq!(run(1), run(2));
    let too_many = FlockParams {
        topological_neighbours: mirofish_sim::MAX_TOPOLOGICAL_NEIGHBOURS + 1,
        ..FlockParams::default()
    };
    let err = too_many.validate().unwrap_err();
    assert!(err.to_string().contains("topological_neighbours"), "{err}");
}
