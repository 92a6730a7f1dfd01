//! The neighbour cap: in a dense ball it thins the scan, keeps the
//! neighbourhood's averages and the state deterministic; in a sparse school
//! it changes nothing (the exact reference, brute force, gives the same
//! bits). A topological neighbourhood counts the nearest few only. Couzin's
//! zones have a cap of their own, on a plane and in a volume.

use mirofish_sim::NeighbourSearch::{BruteForce, Grid};
use mirofish_sim::space::zones::MAX_ZONE_NEIGHBOUR_CAP;
use mirofish_sim::space::{Swarm, Zones};
use mirofish_sim::{
    FlockParams, MAX_NEIGHBOUR_CAP, Simulation, Tank, TankOf, Vec2, Vec3, Vector, observe, state_hash,
};

/// 3000 fish packed into a disc of radius 60 with perception 45: every fish
/// has hundreds of neighbours.
fn ball(cap: u32, seed: u64) -> Simulation {
    let params = FlockParams { neighbour_cap: cap, ..FlockParams::default() };
    let mut sim = Simulation::new(params, Tank::default(), 0, seed).unwrap();
    for i in 0..3000u32 {
        let a = i as f32 * 2.399_963; // golden angle: an even disc
        let r = 60.0 * (i as f32 / 3000.0).sqrt();
        sim.add_fish(
            0,
            Vec2::from_angle(a) * r,
            Vec2::new(100.0, 30.0).rotate(Vec2::from_angle(r * 0.01)),
            0.0,
        )
        .unwrap();
    }
    sim.set_record_rules(true);
    sim
}

#[test]
fn a_capped_crowd_sees_the_same_neighbourhood_on_average() {
    // Brute force looks at every fish: the exact neighbourhood.
    let mut full = ball(MAX_NEIGHBOUR_CAP, 1);
    full.set_neighbour_search(BruteForce);
    let mut capped = ball(8, 1);
    full.step();
    capped.step();
    let (n_full, n_capped) = (
        observe::mean_neighbours(full.neighbour_counts()),
        observe::mean_neighbours(capped.neighbour_counts()),
    );
    assert!(n_full > 300.0, "a crowd: {n_full}");
    // The count is estimated from a sample of about 1 in 40: within 10 %.
    assert!((n_capped / n_full - 1.0).abs() < 0.1, "{n_capped} vs {n_full}");
    let (f, c) = (
        observe::mean_rule_forces(full.samples()).unwrap(),
        observe::mean_rule_forces(capped.samples()).unwrap(),
    );
    for (name, a, b) in [("alignment", f.alignment, c.alignment), ("cohesion", f.cohesion, c.cohesion)] {
        assert!((a - b).abs() <= 0.15 * a.max(1.0), "{name}: {a} vs {b}");
    }
    for v in capped.velocities() {
        assert!(v.is_finite());
    }
}

#[test]
fn the_cap_only_acts_in_a_crowd_and_stays_deterministic() {
    // A sparse school never exceeds the budget: the default cap gives the
    // exact reference's bits.
    let sparse = |search| {
        let params = FlockParams::default();
        let tank = Tank::for_mean_neighbours(1000, params.perception_radius, 6.5, 16.0 / 9.0);
        let mut sim = Simulation::new(params, tank, 1000, 4).unwrap();
        sim.set_neighbour_search(search);
        sim.run(30);
        state_hash(&sim)
    };
    assert_eq!(sparse(Grid), sparse(BruteForce));
    // In the crowd it changes the run, the same way every time, on any
    // number of threads.
    let run = |search, threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut sim = ball(8, 2);
            sim.set_neighbour_search(search);
            sim.run(20);
            state_hash(&sim)
        })
    };
    assert_ne!(run(BruteForce, 1), run(Grid, 1));
    assert_eq!(run(Grid, 1), run(Grid, 2));
}

#[test]
fn a_topological_neighbourhood_counts_the_nearest_only() {
    // In the ball every fish has hundreds of neighbours in range; with a
    // topological neighbourhood of 7 it aligns with and coheres to 7 (the
    // nearest of the cap's sample there).
    let mut sim = ball(MAX_NEIGHBOUR_CAP, 3);
    sim.set_params(0, FlockParams { topological_neighbours: 7, ..sim.params()[0] }).unwrap();
    sim.step();
    assert_eq!(
        observe::mean_neighbours(sim.neighbour_counts()),
        7.0,
        "every fish sees at least 7 in the ball"
    );
    // A school of about 11 neighbours, where the cap does not thin: the
    // nearest are the same whichever search finds them, to the bit.
    let school = |k, search| {
        let params = FlockParams { topological_neighbours: k, ..FlockParams::default() };
        let tank = Tank::for_mean_neighbours(3000, params.perception_radius, 11.0, 16.0 / 9.0);
        let mut sim = Simulation::new(params, tank, 3000, 3).unwrap();
        sim.set_neighbour_search(search);
        sim.step();
        sim
    };
    let grid = school(7, Grid);
    let counted = observe::mean_neighbours(grid.neighbour_counts());
    assert!(counted <= 7.0 && counted > 6.0, "most fish have more than 7 in range: {counted}");
    assert_eq!(state_hash(&grid), state_hash(&school(7, BruteForce)));
    // And 0 is the metric neighbourhood.
    assert!(observe::mean_neighbours(school(0, Grid).neighbour_counts()) > 9.0);
}

#[test]
fn a_topological_school_stays_deterministic_and_finite() {
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let params = FlockParams { topological_neighbours: 6, ..FlockParams::default() };
            let tank = Tank::for_mean_neighbours(2000, params.perception_radius, 20.0, 16.0 / 9.0);
            let mut sim = Simulation::new(params, tank, 2000, 9).unwrap();
            sim.run(60);
            assert!(sim.velocities().iter().chain(sim.positions()).all(|v| v.is_finite()));
            assert!(observe::mean_neighbours(sim.neighbour_counts()) <= 6.0);
            state_hash(&sim)
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

/// `count` fish of the default school started in a ball (a disc on a
/// plane) of radius `radius` round the middle of a wide tank, moved by
/// Couzin's zones with `neighbour_cap` `cap`.
fn zone_ball<V: Vector>(count: usize, radius: f32, cap: u32, threads: usize) -> Swarm<V> {
    let tank = TankOf::<V>::centered(V::splat(4000.0));
    let mut school = Swarm::new(FlockParams::default(), tank, 0, 5).unwrap().with_threads(threads).unwrap();
    school.set_zones(Some(Zones { neighbour_cap: cap, ..Zones::default() })).unwrap();
    school.spawn_ball(0, count, 5, (V::ZERO, radius)).unwrap();
    school
}

/// The ball's mean distance from its centre.
fn spread<V: Vector>(school: &Swarm<V>) -> f32 {
    let n = school.len() as f32;
    let centre = school.positions().iter().fold(V::ZERO, |a, &p| a + p) / n;
    school.positions().iter().map(|&p| (p - centre).length()).sum::<f32>() / n
}

fn zones_thin_only_a_crowd<V: Vector>() {
    // A school of a few hundred, all within each other's reach, is far
    // below the default cap: the same bits as the exact model.
    let exact = |cap| {
        let mut school = zone_ball::<V>(300, 150.0, cap, 1);
        school.run(30);
        state_hash(&school)
    };
    assert_eq!(exact(Zones::default().neighbour_cap), exact(MAX_ZONE_NEIGHBOUR_CAP));
    // 1200 fish in a ball of radius 15 (the zone of repulsion is 10): with
    // a cap of 16 each fish looks at a sample of about 50 of them on a
    // plane, 110 in a volume.
    let mut full = zone_ball::<V>(1200, 15.0, MAX_ZONE_NEIGHBOUR_CAP, 1);
    let mut thinned = zone_ball::<V>(1200, 15.0, 16, 1);
    full.step();
    thinned.step();
    let mean = |s: &Swarm<V>| s.neighbour_counts().map(f64::from).sum::<f64>() / s.len() as f64;
    let (n_full, n_thinned) = (mean(&full), mean(&thinned));
    assert!(n_full > 600.0, "a crowd: {n_full}");
    // Counted in a sample, scaled back up: within 10 %.
    assert!((n_thinned / n_full - 1.0).abs() < 0.1, "{n_thinned} vs {n_full}");
    // The sample still pushes the crowd apart as the exact model does.
    let start = spread(&zone_ball::<V>(1200, 15.0, 16, 1));
    full.run(59);
    thinned.run(59);
    let (s_full, s_thinned) = (spread(&full), spread(&thinned));
    assert!(s_full > start + 5.0 && s_thinned > start + 5.0, "{start} -> {s_full} / {s_thinned}");
    assert!((s_thinned / s_full - 1.0).abs() < 0.25, "{s_thinned} vs {s_full}");
    assert!(thinned.positions().iter().chain(thinned.velocities()).all(|v| v.is_finite()));
    // A different run from the exact one, the same on any number of threads.
    assert_ne!(state_hash(&full), state_hash(&thinned));
    let mut two = zone_ball::<V>(1200, 15.0, 16, 2);
    two.run(60);
    assert_eq!(state_hash(&two), state_hash(&thinned));
}

#[test]
fn zones_thin_only_a_crowd_on_a_plane() {
    zones_thin_only_a_crowd::<Vec2>();
}

#[test]
fn zones_thin_only_a_crowd_in_a_volume() {
    zones_thin_only_a_crowd::<Vec3>();
}
