//! A warmed-up tick allocates nothing on the heap, on a plane or in a
//! volume: every buffer (grid, sorted snapshot, kicks, samples, the
//! leaders sorted by id) is reused, and validation builds no message
//! unless it fails.
//!
//! Checked exactly on a one-thread pool, which runs every code path of the
//! passes. On two threads rayon's work-stealing deques may grow or shrink
//! their buffers when the other thread steals at an unlucky moment (seen
//! on a loaded machine: a few blocks in ten ticks); that is rayon's, not
//! the tick's, so there the test bounds it below one per tick.

use mirofish_sim::space::Flock3d;
use mirofish_sim::{
    BoundaryMode, FlockParams, Obstacle, Predator, Route, Simulation, SlotOrder, Tank, Tank3d, Vec2, Vec3,
};

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

// One test only: tests of one binary run on parallel threads, and another
// test's allocations would land in this one's count.
#[test]
fn warmed_up_ticks_do_not_allocate() {
    // The counter is installed and counts (else this test would pass for
    // nothing).
    let before = alloc_counter::allocations();
    let v = std::hint::black_box(vec![1u8; 100]);
    assert!(alloc_counter::allocations() > before, "the counting allocator is installed");
    drop(v);
    // Every pool built, its threads all running, before the first count,
    // and kept to the end: a pool's threads start and wind down on their
    // own, and what they allocate then would land in whichever case is
    // counting (seen on a loaded machine).
    let pools = [1, 2].map(|threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap());
    for pool in &pools {
        pool.broadcast(|_| ());
    }
    for pool in &pools {
        let most = if pool.current_num_threads() == 1 { 0 } else { 9 };
        ticks_allocate_at_most(pool, most);
        volume_ticks_allocate_at_most(pool, most);
    }
}

/// The same in a volume: its quartets, its one-fish scan (a shaped view),
/// walls that wrap and bounce, a rock, a predator and leaders, the fish
/// stored by id and in cell order.
fn volume_ticks_allocate_at_most(pool: &rayon::ThreadPool, most: usize) {
    let threads = pool.current_num_threads();
    for (mode, shaped, scene, order) in [
        (BoundaryMode::Bounce, false, false, SlotOrder::Stable),
        (BoundaryMode::Wrap, true, true, SlotOrder::Stable),
        (BoundaryMode::SoftMargin, false, true, SlotOrder::Spatial),
        (BoundaryMode::Bounce, false, true, SlotOrder::Spatial),
    ] {
        let params = FlockParams {
            view_angle: if shaped { 4.0 } else { core::f32::consts::TAU },
            ..FlockParams::default()
        };
        let tank = Tank3d::default().with_boundary(mode);
        let mut flock = Flock3d::new(params, tank, 4000, 9).unwrap().with_slot_order(order);
        if scene {
            let mut around = flock.scene().clone();
            around.obstacles.push(Obstacle { centre: Vec3::ZERO, radius: 50.0 });
            around.predators.push(Predator::new(Vec3::new(100.0, 0.0, 0.0), 120.0));
            flock.set_scene(around).unwrap();
            for id in (0..4000).step_by(200) {
                flock.set_leader(id, true).unwrap();
            }
        }
        let allocations = pool.install(|| {
            flock.run(3);
            let before = alloc_counter::allocations();
            flock.run(10);
            alloc_counter::allocations() - before
        });
        assert!(
            allocations <= most,
            "{allocations} allocations on {threads} threads in a volume: {mode:?}, shaped {shaped}, scene {scene}, \
             {order:?}"
        );
    }
}

/// Runs every case on `pool` and checks that ten warmed-up ticks allocate
/// at most `most` times.
fn ticks_allocate_at_most(pool: &rayon::ThreadPool, most: usize) {
    let threads = pool.current_num_threads();
    for (record, mode, scene, order) in [
        (false, BoundaryMode::SoftMargin, false, SlotOrder::Stable),
        (true, BoundaryMode::Wrap, true, SlotOrder::Stable),
        (true, BoundaryMode::Bounce, false, SlotOrder::Stable),
        (false, BoundaryMode::SoftMargin, false, SlotOrder::Spatial),
        (true, BoundaryMode::Wrap, true, SlotOrder::Spatial),
    ] {
        let params = FlockParams { neighbour_cap: 10, ..FlockParams::default() };
        let tank =
            Tank::for_mean_neighbours(5000, params.perception_radius, 6.5, 16.0 / 9.0).with_boundary(mode);
        let mut sim = Simulation::new(params, tank, 5000, 9).unwrap();
        sim.set_record_rules(record);
        sim.set_slot_order(order);
        if scene {
            sim.edit_scene(|scene| {
                scene.obstacles.push(Obstacle { centre: Vec2::ZERO, radius: 50.0 });
                scene.predators.push(Predator::new(Vec2::new(100.0, 0.0), 120.0));
                // Leaders on a route: the route advances on the leaders'
                // centre, summed by id (sorted, under space-ordered slots).
                scene.route = Some(Route::new(vec![Vec2::new(-200.0, 0.0), Vec2::new(200.0, 0.0)], 30.0));
            })
            .unwrap();
            for id in (0..5000).step_by(250) {
                sim.set_leader(id, true).unwrap();
            }
        }
        let allocations = pool.install(|| {
            sim.run(3);
            let before = alloc_counter::allocations();
            sim.run(10);
            alloc_counter::allocations() - before
        });
        assert!(
            allocations <= most,
            "{allocations} allocations on {threads} threads: record {record}, {mode:?}, scene {scene}, {order:?}"
        );
    }
}
