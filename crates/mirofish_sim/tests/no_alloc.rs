//! A warmed-up tick allocates nothing on the heap: every buffer (grid,
//! sorted snapshot, kicks, samples) is reused, and validation builds no
//! message unless it fails.
#![expect(unsafe_code, reason = "a counting global allocator implements the unsafe GlobalAlloc trait")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use mirofish_sim::{BoundaryMode, FlockParams, Obstacle, Predator, Simulation, Tank, Vec2};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn warmed_up_ticks_do_not_allocate() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (record, mode, scene) in [
        (false, BoundaryMode::SoftMargin, false),
        (true, BoundaryMode::Wrap, true),
        (true, BoundaryMode::Bounce, false),
    ] {
        let params = FlockParams { neighbour_cap: 10, ..FlockParams::default() };
        let tank =
            Tank::for_mean_neighbours(5000, params.perception_radius, 6.5, 16.0 / 9.0).with_boundary(mode);
        let mut sim = Simulation::new(params, tank, 5000, 9).unwrap();
        sim.flock.set_record_rules(record);
        if scene {
            sim.scene.obstacles.push(Obstacle { centre: Vec2::ZERO, radius: 50.0 });
            sim.scene.predators.push(Predator::new(Vec2::new(100.0, 0.0), 120.0));
        }
        let allocations = pool.install(|| {
            sim.run(3).unwrap();
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            sim.run(10).unwrap();
            ALLOCATIONS.load(Ordering::Relaxed) - before
        });
        assert_eq!(allocations, 0, "record {record}, {mode:?}, scene {scene}");
    }
}
