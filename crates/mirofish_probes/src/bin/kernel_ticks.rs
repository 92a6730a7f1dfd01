//! A fixed amount of kernel work on one thread, for instruction counts:
//! `valgrind --tool=callgrind target/release/kernel_ticks 20000 10`
//! compares two versions of the hot path repeatably (a third argument sets
//! the mean neighbours per fish, 6.5 by default or where it is 0; then
//! `portable` runs the portable build of the force pass where the CPU has
//! AVX2, and `spatial` numbers the slots in the grid's order,
//! `SlotOrder::Spatial`: the same hash).

use mirofish_sim::{FlockParams, KernelPath, Simulation, SlotOrder, Tank, state_hash};

fn main() {
    let flag = |name: &str| std::env::args().skip(4).any(|a| a == name);
    let (portable, spatial) = (flag("portable"), flag("spatial"));
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().unwrap_or(0));
    let fish = args.next().filter(|&n| n > 0).unwrap_or(20_000) as usize;
    let ticks = args.next().filter(|&n| n > 0).unwrap_or(10);
    // Mean neighbours per fish: 6.5 unless a third argument says otherwise.
    let neighbours = args.next().filter(|&n| n > 0).map_or(6.5, |n| n as f32);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    let params = FlockParams::reference();
    let tank = Tank::for_mean_neighbours(fish, params.perception_radius, neighbours, 16.0 / 9.0);
    let hash = pool.install(|| {
        let mut sim = Simulation::new(params, tank, fish, 1).expect("valid parameters");
        if portable {
            sim.set_kernel_path(KernelPath::Portable);
        }
        if spatial {
            sim.set_slot_order(SlotOrder::Spatial);
        }
        sim.run(ticks);
        state_hash(&sim)
    });
    println!("{fish} fish, {ticks} ticks, state hash {hash:016x}");
}
