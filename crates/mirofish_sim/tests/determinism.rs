//! Same seed ⇒ bit-identical state; another seed ⇒ another state; and the
//! thread count never changes a bit.

use std::sync::Arc;

use mirofish_sim::{BoundaryMode, Flock, FlockParams, KernelPath, Simulation, Tank, Vec2, state_hash};

fn run(seed: u64, threads: Option<usize>, mode: BoundaryMode, ticks: u64) -> u64 {
    let tank = Tank::centered(Vec2::new(800.0, 600.0)).with_boundary(mode);
    let mut sim = Simulation::new(FlockParams::default(), tank, 3000, seed).unwrap();
    if let Some(n) = threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        sim.flock = std::mem::take(&mut sim.flock).with_thread_pool(Arc::new(pool));
    }
    sim.run(ticks).unwrap();
    state_hash(&sim.flock)
}

/// Steps `a` and `b` together for `ticks` ticks; their states must have
/// the same bits after every one.
fn assert_in_step(a: &mut Simulation, b: &mut Simulation, ticks: u64, what: &str) {
    for tick in 0..ticks {
        a.step().unwrap();
        b.step().unwrap();
        assert_eq!(state_hash(&a.flock), state_hash(&b.flock), "{what}: diverged at tick {tick}");
    }
}

#[test]
fn same_seed_same_bits_other_seed_other_bits() {
    for mode in [BoundaryMode::Wrap, BoundaryMode::Bounce, BoundaryMode::SoftMargin] {
        let a = run(42, None, mode, 300);
        assert_eq!(a, run(42, None, mode, 300), "{mode:?}: two runs differ");
        assert_ne!(a, run(43, None, mode, 300), "{mode:?}: seed has no effect");
    }
}

#[test]
fn thread_count_does_not_change_a_bit() {
    for mode in [BoundaryMode::Wrap, BoundaryMode::SoftMargin] {
        let one = run(9, Some(1), mode, 300);
        for threads in [2, 3, 8] {
            assert_eq!(one, run(9, Some(threads), mode, 300), "{mode:?}: 1 vs {threads} threads");
        }
    }
}

#[test]
fn grid_and_brute_force_agree_on_the_state() {
    // Each fish sums its candidates in ascending sorted order for both
    // searches (the grid's runs ascend, across the wrap seam too), and a
    // candidate out of reach adds exact zeros: even the bits agree.
    for mode in [BoundaryMode::SoftMargin, BoundaryMode::Wrap, BoundaryMode::Bounce] {
        let tank = Tank::centered(Vec2::new(400.0, 300.0)).with_boundary(mode);
        let params = FlockParams::default();
        let mut grid = Simulation::new(params, tank, 400, 5).unwrap();
        let mut brute = grid.clone();
        brute.flock.set_neighbour_search(mirofish_sim::NeighbourSearch::BruteForce);
        assert_in_step(&mut grid, &mut brute, 200, &format!("{mode:?}"));
    }
}

#[test]
fn removing_a_fish_moves_the_last_into_its_slot() {
    let mut flock = Flock::new(0);
    for i in 0..4 {
        flock.push(Vec2::splat(i as f32), Vec2::ZERO, 0.0);
    }
    assert_eq!(flock.swap_remove(1), Some(3));
    assert_eq!(flock.positions()[1], Vec2::splat(3.0));
    assert_eq!(flock.swap_remove(2), None);
    assert_eq!(flock.len(), 2);
}

#[test]
fn every_build_of_the_force_pass_gives_the_same_bits() {
    // The AVX2 build (where this CPU has it) and the portable one add the
    // same terms in the same order: the same state to the bit, in a loose
    // school, a crowded one (many neighbours and separation pushes), under
    // a neighbour cap (a thinned scan) and in a topological one. Without
    // AVX2 both runs take the portable build, and the test says nothing.
    let crowded = FlockParams { cohesion_weight: 4.0, separation_weight: 0.3, ..FlockParams::default() };
    let cases = [
        ("loose", FlockParams::default()),
        ("crowded", crowded),
        ("capped", FlockParams { neighbour_cap: 6, ..crowded }),
        ("topological", FlockParams { topological_neighbours: 7, ..crowded }),
    ];
    for mode in [BoundaryMode::SoftMargin, BoundaryMode::Wrap] {
        for (what, params) in cases {
            let tank = Tank::centered(Vec2::new(500.0, 400.0)).with_boundary(mode);
            let mut fastest = Simulation::new(params, tank, 2000, 11).unwrap();
            let mut portable = fastest.clone();
            portable.flock.set_kernel_path(KernelPath::Portable);
            assert!(!portable.flock.kernel_path().uses_avx2());
            assert_in_step(&mut fastest, &mut portable, 150, &format!("{mode:?}, {what}"));
        }
    }
}
