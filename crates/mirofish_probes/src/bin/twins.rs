//! The machine's own ceiling for a second thread, on MiroFish's own work:
//! one school of `fish` fish on one thread, against two independent
//! schools of half as many (twins), each stepped on a one-thread pool of
//! its own at the same time, and against the one school on two threads.
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin twins -- 100000 40
//! ```
//!
//! The twins together hold as many fish as the one school and do as much
//! work, at the same density, but share nothing except the machine: its
//! caches, its memory and its clocks. So their ticks show what a second
//! core is worth to this work on this machine. If a twin's tick takes half
//! as long as the one school's, the machine gives a second core's full
//! worth, and whatever the 2-thread tick loses is lost in MiroFish's own
//! parallel code. If it takes longer, that much is the machine's (the
//! shared L3, memory bandwidth, clocks, a vCPU the host holds back).
//!
//! Each tick is timed as `scale` times it: a clone of the warmed-up school,
//! one untimed tick, then the timed one, all inside the pool. The twins
//! start their timed ticks together. The three are timed in turn within
//! each round, so that a phase of the host's falls on all of them alike.
//! Printed: the medians over `ticks` rounds (default 40), the ceiling (the
//! speed-up two cores at the twins' rates give work handed out as it
//! comes, `alone · (1/a + 1/b) / 2`), the 2-thread speed-up, and the share
//! of the ceiling it reaches.

use std::sync::Barrier;
use std::time::Instant;

use mirofish_sim::space::TickStage;

use mirofish_sim::observe::stats::median;
use mirofish_sim::{FlockParams, Simulation, Tank};

/// A warmed-up school of `fish` fish at 6.5 neighbours.
fn school(fish: usize, seed: u64) -> Simulation {
    let params = FlockParams::reference();
    let tank = Tank::for_mean_neighbours(fish, params.perception_radius, 6.5, 16.0 / 9.0);
    let mut sim = Simulation::new(params, tank, fish, seed).expect("valid parameters");
    sim.run(5);
    sim
}

/// Milliseconds of the index, the forces, the integrator and the whole
/// tick.
type Spent = [f64; 4];

/// One timed tick of a fresh clone of `start` after one untimed tick, on
/// the pool the caller is in (so that no pass is handed over to it on its
/// own); `ready` is called just before the timed one.
fn timed_tick(start: &Simulation, ready: impl Fn()) -> Spent {
    let mut sim = start.clone();
    sim.step();
    ready();
    let t0 = Instant::now();
    sim.run_to(TickStage::SpatialIndex);
    let t1 = Instant::now();
    sim.run_to(TickStage::Clamp);
    let t2 = Instant::now();
    sim.run_to(TickStage::Predators);
    let t3 = Instant::now();
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    [ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t0, t3)]
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let fish = args.next().flatten().filter(|&n| n >= 2).unwrap_or(100_000);
    let rounds = args.next().flatten().filter(|&n| n > 0).unwrap_or(40);
    let pool = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    let (pool_a, pool_b, pool_two) = (pool(1), pool(1), pool(2));
    let whole = pool_a.install(|| school(fish, 1));
    let (half_a, half_b) = (pool_a.install(|| school(fish / 2, 2)), pool_b.install(|| school(fish / 2, 3)));
    let (mut alone, mut twin_a, mut twin_b, mut two) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        alone.push(pool_a.install(|| timed_tick(&whole, || ())));
        let barrier = Barrier::new(2);
        let twin = |pool: &rayon::ThreadPool, half: &Simulation| {
            pool.install(|| {
                timed_tick(half, || {
                    barrier.wait();
                })
            })
        };
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| twin(&pool_a, &half_a));
            let b = s.spawn(|| twin(&pool_b, &half_b));
            (a.join().expect("twin a"), b.join().expect("twin b"))
        });
        twin_a.push(a);
        twin_b.push(b);
        two.push(pool_two.install(|| timed_tick(&whole, || ())));
    }
    println!("{fish} fish at 6.5 neighbours, medians of {rounds} rounds, ms");
    println!(
        "| pass | one school, 1 thread | twin a ({} fish) | twin b | ceiling | one school, 2 threads | 1 → 2 threads | of the ceiling |",
        fish / 2
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (i, name) in ["index", "forces", "integrator", "tick (the three)"].iter().enumerate() {
        let of = |runs: &[Spent]| median(runs.iter().map(|r| r[i]).collect());
        let (alone, a, b, two) = (of(&alone), of(&twin_a), of(&twin_b), of(&two));
        let ceiling = alone * (1.0 / a + 1.0 / b) / 2.0;
        let speedup = alone / two;
        println!(
            "| {name} | {alone:.3} | {a:.3} | {b:.3} | {ceiling:.2}× | {two:.3} | {speedup:.2}× | {:.0} % |",
            100.0 * speedup / ceiling
        );
    }
}
