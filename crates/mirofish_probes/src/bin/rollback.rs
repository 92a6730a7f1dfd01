//! What rollback netcode costs the core: saving a snapshot, restoring it,
//! and going back 8 frames (restore, then 8 ticks each saved again, as a
//! rollback session does), at 1,000, 10,000 and 50,000 fish on two
//! threads, median of many rounds. Release build:
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin rollback
//! cargo run --release -p mirofish_probes --bin rollback -- --threads 1 --sizes 1000,100000
//! ```

use std::time::Instant;

use mirofish_sim::control::snapshot::Snapshot;
use mirofish_sim::observe::stats::median;
use mirofish_sim::{FlockParams, Simulation, Tank, state_hash};

/// Frames a rollback goes back.
const FRAMES: u64 = 8;

fn main() {
    let (mut threads, mut sizes) = (2usize, vec![1_000usize, 10_000, 50_000]);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--threads" => threads = value.parse().expect("--threads takes a count"),
            "--sizes" => sizes = value.split(',').map(|n| n.parse().expect("--sizes takes counts")).collect(),
            other => panic!("unknown argument {other} (--threads N, --sizes A,B,…)"),
        }
    }
    println!("{threads} threads; milliseconds, median");
    println!(
        "{:>8} {:>8} {:>8} {:>8} {:>16} {:>7}",
        "fish", "tick", "save", "restore", "back 8 frames", "rounds"
    );
    for fish in sizes {
        let params = FlockParams::reference();
        let tank = Tank::for_mean_neighbours(fish, params.perception_radius, 6.5, 16.0 / 9.0);
        let mut sim = Simulation::new(params, tank, fish, 1)
            .and_then(|s| s.with_dt(1.0 / 60.0))
            .expect("valid parameters")
            .with_threads(threads)
            .expect("a thread pool");
        sim.run(60);
        // A ring of snapshots, one per frame, as a rollback session keeps.
        let mut ring: Vec<Snapshot> = (0..=FRAMES).map(|_| sim.snapshot()).collect();
        let rounds = (2_000_000 / fish).clamp(5, 200);
        let (mut tick, mut save, mut restore, mut back) = (vec![], vec![], vec![], vec![]);
        for _ in 0..rounds {
            // Forward: one tick and its save, FRAMES times.
            for slot in ring.iter_mut().take(FRAMES as usize) {
                let t = Instant::now();
                sim.snapshot_into(slot);
                save.push(t.elapsed().as_secs_f64() * 1e3);
                let t = Instant::now();
                sim.step();
                tick.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let ahead = state_hash(&sim);
            // Back to the oldest and forward again, saving each frame.
            let t = Instant::now();
            sim.restore(&ring[0]).expect("an earlier snapshot");
            restore.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            sim.restore(&ring[0]).expect("an earlier snapshot");
            for slot in ring.iter_mut().take(FRAMES as usize) {
                sim.snapshot_into(slot);
                sim.step();
            }
            back.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(state_hash(&sim), ahead, "a rollback must land on the same bits");
        }
        println!(
            "{fish:>8} {:>8.3} {:>8.3} {:>8.3} {:>16.3} {rounds:>7}",
            median(tick),
            median(save),
            median(restore),
            median(back)
        );
    }
}
