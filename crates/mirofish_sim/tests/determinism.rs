//! Same seed ⇒ bit-identical state; another seed ⇒ another state; and the
//! thread count never changes a bit.

use mirofish_sim::space::{Swarm, Zones};
use mirofish_sim::{
    BoundaryMode, FlockCommand, FlockParams, Goal, KernelPath, Obstacle, Predator, Route, Scene, Simulation,
    SlotOrder, Tank, TankOf, Vec2, Vec3, Vector, state_hash,
};

fn run(seed: u64, threads: Option<usize>, mode: BoundaryMode, ticks: u64) -> u64 {
    let tank = Tank::centered(Vec2::new(800.0, 600.0)).with_boundary(mode);
    let mut sim = Simulation::new(FlockParams::default(), tank, 3000, seed).unwrap();
    if let Some(n) = threads {
        sim = sim.with_threads(n).unwrap();
    }
    sim.run(ticks);
    state_hash(&sim)
}

/// Steps `a` and `b` together for `ticks` ticks; their states must have
/// the same bits after every one.
fn assert_in_step(a: &mut Simulation, b: &mut Simulation, ticks: u64, what: &str) {
    for tick in 0..ticks {
        a.step();
        b.step();
        assert_eq!(state_hash(&a), state_hash(&b), "{what}: diverged at tick {tick}");
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
    // candidate out of reach adds exact zeros: even the bits agree. (A
    // loose school, for as long as no clump of it reaches the neighbour
    // cap's budget: there the grid thins its scan, which brute force, the
    // exact reference, does not.)
    for mode in [BoundaryMode::SoftMargin, BoundaryMode::Wrap, BoundaryMode::Bounce] {
        let tank = Tank::centered(Vec2::new(400.0, 300.0)).with_boundary(mode);
        let params = FlockParams { cohesion_weight: 0.2, separation_weight: 2.0, ..FlockParams::default() };
        let mut grid = Simulation::new(params, tank, 100, 5).unwrap();
        let mut brute = grid.clone();
        brute.set_neighbour_search(mirofish_sim::NeighbourSearch::BruteForce);
        assert_in_step(&mut grid, &mut brute, 100, &format!("{mode:?}"));
    }
    // The soft margin looked ahead for: the four-fish lanes (grid) and the
    // one-fish path (brute force) steer by the same point.
    let tank = Tank { look_ahead: 1.5, ..Tank::centered(Vec2::new(400.0, 300.0)) };
    let params = FlockParams { cohesion_weight: 0.2, separation_weight: 2.0, ..FlockParams::default() };
    let mut grid = Simulation::new(params, tank, 100, 5).unwrap();
    let mut brute = grid.clone();
    brute.set_neighbour_search(mirofish_sim::NeighbourSearch::BruteForce);
    assert_in_step(&mut grid, &mut brute, 100, "look-ahead");
}

/// The same in either space through the generic engine: a loose school
/// on a torus, between walls and with a soft margin, a topological one,
/// and Couzin's zones. (A shaped view's one-fish scan parts from brute
/// force once a fish's block passes its budget, as on a plane: the generic
/// engine's brute force is tested against the plane's there.)
#[test]
fn a_swarms_grid_and_brute_force_agree_on_the_state() {
    fn agree<V: Vector>(size: V) {
        let loose = FlockParams { cohesion_weight: 0.2, separation_weight: 2.0, ..FlockParams::default() };
        let cases = [
            ("soft margin", loose, BoundaryMode::SoftMargin, false),
            ("torus", loose, BoundaryMode::Wrap, false),
            ("walls", loose, BoundaryMode::Bounce, false),
            ("topological", FlockParams { topological_neighbours: 5, ..loose }, BoundaryMode::Wrap, false),
            ("zones", loose, BoundaryMode::Wrap, true),
        ];
        for (what, params, mode, zones) in cases {
            let tank = TankOf::<V>::centered(size).with_boundary(mode);
            let mut grid = Swarm::new(params, tank, 150, 5).unwrap();
            grid.set_zones(zones.then(Zones::default)).unwrap();
            let mut brute = grid.clone();
            brute.set_neighbour_search(mirofish_sim::NeighbourSearch::BruteForce);
            for tick in 0..100 {
                grid.step();
                brute.step();
                assert_eq!(
                    state_hash(&grid),
                    state_hash(&brute),
                    "{}D {what}: diverged at tick {tick}",
                    V::DIM
                );
            }
            assert!(grid.neighbour_counts().any(|n| n > 0), "{}D {what}: the fish meet", V::DIM);
        }
    }
    agree::<Vec2>(Vec2::new(400.0, 300.0));
    agree::<Vec3>(Vec3::new(400.0, 300.0, 250.0));
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
            portable.set_kernel_path(KernelPath::Portable);
            assert!(!portable.kernel_path().uses_avx2());
            assert_in_step(&mut fastest, &mut portable, 150, &format!("{mode:?}, {what}"));
        }
    }
}

/// Fish stored by id or in cell order move the same bits in either space:
/// two schools (one that sees only its own, with a shaped view), leaders on
/// a route, a rock, a predator, groups with a goal, fish spawned and
/// removed by command and by id, a game's force, and a spell of Couzin's
/// zones; on 1 and 2 threads, then back to stable slots.
#[test]
fn a_swarm_moves_the_same_bits_whichever_order_its_fish_are_stored_in() {
    both_slot_orders::<Vec2>(Vec2::new(500.0, 400.0));
    both_slot_orders::<Vec3>(Vec3::new(300.0, 240.0, 200.0));
}

fn both_slot_orders<V: Vector>(size: V) {
    let crowded = FlockParams { perception_radius: 60.0, ..FlockParams::default() };
    let wary = FlockParams { sees_other_schools: false, view_angle: 4.5, ..FlockParams::default() };
    for (mode, params) in [
        (BoundaryMode::SoftMargin, FlockParams::default()),
        (BoundaryMode::Wrap, crowded),
        (BoundaryMode::Bounce, FlockParams { topological_neighbours: 7, ..crowded }),
    ] {
        for threads in [1, 2] {
            let tank = TankOf::<V>::centered(size).with_boundary(mode);
            let mut stable = Swarm::new(params, tank, 1200, 21).unwrap().with_threads(threads).unwrap();
            stable.add_school(wary, 300, 22).unwrap();
            for id in (0..1500).step_by(97) {
                stable.set_leader(id, true).unwrap();
            }
            let corner = tank.max * 0.4;
            let scene = Scene {
                obstacles: vec![Obstacle { centre: tank.min * 0.3, radius: 30.0 }],
                predators: vec![Predator::new(tank.min * 0.6, 120.0)],
                route: Some(Route::new(vec![corner, -corner], 40.0)),
                group_goals: vec![Some(Goal::seek(corner, 1.0))],
                ..Scene::default()
            };
            stable.set_scene(scene).unwrap();
            stable.form_groups(Some(0), 0, 3);
            let mut spatial = stable.clone().with_slot_order(SlotOrder::Spatial);
            let what = format!("{}D, {mode:?}, {threads} threads", V::DIM);
            for tick in 0..90 {
                let due: Option<FlockCommand<V>> = match tick {
                    20 => {
                        Some(FlockCommand::SpawnFish { school: 1, count: 150, centre: V::ZERO, radius: 50.0 })
                    }
                    45 => Some(FlockCommand::RemoveFish { count: 200 }),
                    _ => None,
                };
                for swarm in [&mut stable, &mut spatial] {
                    if let Some(command) = &due {
                        swarm.submit(command.clone()).unwrap();
                    }
                    match tick {
                        30 => assert_eq!(swarm.remove_fish(&[3, 700, 1299]).len(), 1647),
                        50 => swarm.set_zones(Some(Zones::default())).unwrap(),
                        60 => swarm.set_zones(None).unwrap(),
                        _ => {}
                    }
                    swarm.add_steering(5, V::X * 300.0).unwrap();
                    swarm.step();
                }
                let at = format!("{what}, tick {tick}");
                assert_eq!(state_hash(&stable), state_hash(&spatial), "{at}");
                let steering = |s: &Swarm<V>| -> Vec<V> { in_id_order(s, s.steering().collect()) };
                assert_eq!(steering(&stable), steering(&spatial), "{at}");
                let neighbours = |s: &Swarm<V>| -> Vec<Option<u32>> {
                    in_id_order(s, (0..s.len()).map(|slot| s.neighbours_at(slot)).collect())
                };
                assert_eq!(neighbours(&stable), neighbours(&spatial), "{at}");
                assert_eq!(stable.scene(), spatial.scene(), "{at}");
                assert_eq!(stable.metrics().nearest_neighbour, spatial.metrics().nearest_neighbour, "{at}");
            }
            assert!(stable.ids().iter().enumerate().all(|(slot, &id)| slot as u32 == id), "{what}");
            assert_ne!(stable.positions(), spatial.positions(), "{what}: the slots moved");
            spatial.set_slot_order(SlotOrder::Stable);
            assert_eq!(spatial.positions(), stable.positions(), "{what}: each fish back in its id's slot");
            stable.step();
            spatial.step();
            assert_eq!(state_hash(&stable), state_hash(&spatial), "{what}: after going back");
        }
    }
}

/// `values` (one per slot of `swarm`) in the order of the fish's ids.
fn in_id_order<V: Vector, T: Copy>(swarm: &Swarm<V>, values: Vec<T>) -> Vec<T> {
    let mut by_id: Vec<(u32, T)> = swarm.ids().iter().copied().zip(values).collect();
    by_id.sort_by_key(|&(id, _)| id);
    by_id.into_iter().map(|(_, v)| v).collect()
}
