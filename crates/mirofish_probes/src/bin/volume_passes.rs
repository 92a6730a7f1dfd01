//! Times each stage of a tick in a volume separately (no Bevy), the way
//! `passes` does on a plane: where does a 3D tick go? Prints milliseconds
//! per stage (the median over the ticks, then the mean), and the state's
//! hash after the run, so that a change meant to keep the bits can be
//! checked on the same command line.
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin volume_passes -- --fish 100000 --ticks 20 --threads 2
//! cargo run --release -p mirofish_probes --bin volume_passes -- --neighbours 50 --warmup 60
//! ```
//!
//! `--neighbours` sets the density (mean neighbours per fish at the start,
//! 7 by default, as in `scale`'s volume rows), `--warmup` the ticks run
//! before the timed ones (2 by default), `--zones 1` Couzin's zone model
//! instead of the rules.

use std::process::ExitCode;
use std::time::Instant;

use mirofish_sim::space::{Flock3d, TickStage, Zones, swarm_hash};
use mirofish_sim::{FlockParams, Tank3d};

fn main() -> ExitCode {
    let mut fish = 100_000usize;
    let mut ticks = 20u32;
    let mut threads = 1usize;
    let mut neighbours = 7.0f32;
    let mut warmup = 2u64;
    let mut zones = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0);
        match (flag.as_str(), value) {
            ("--fish", Some(v)) => fish = v as usize,
            ("--ticks", Some(v)) => ticks = (v as u32).max(1),
            ("--threads", Some(v)) if v >= 1.0 => threads = v as usize,
            ("--neighbours", Some(v)) if v > 0.0 => neighbours = v as f32,
            ("--warmup", Some(v)) => warmup = v as u64,
            ("--zones", Some(v)) => zones = v != 0.0,
            _ => {
                eprintln!(
                    "usage: volume_passes [--fish N] [--ticks N] [--threads N] [--neighbours N] [--warmup N] [--zones 0|1]"
                );
                return ExitCode::FAILURE;
            }
        }
    }
    let params = FlockParams::reference();
    let tank = Tank3d::for_mean_neighbours_3d(fish, params.perception_radius, neighbours);
    let made = Flock3d::new(params, tank, fish, 1).and_then(|mut f| {
        f.set_zones(zones.then(Zones::default))?;
        Ok(f)
    });
    let mut flock = match made.map(|f| f.with_threads(threads)) {
        Ok(Ok(flock)) => flock,
        Ok(Err(e)) => {
            eprintln!("no thread pool: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    flock.run(warmup);
    let mut times = vec![Vec::new(); TickStage::ALL.len()];
    for _ in 0..ticks {
        for (stage, time) in TickStage::ALL.iter().zip(&mut times) {
            let start = Instant::now();
            flock.run_to(*stage);
            time.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!("{fish} fish, {threads} thread(s), {ticks} ticks after {warmup}: ms per stage (median, mean)");
    let mut total = (0.0, 0.0);
    for (stage, mut time) in TickStage::ALL.iter().zip(times) {
        time.sort_by(f64::total_cmp);
        let (median, mean) = (time[time.len() / 2], time.iter().sum::<f64>() / time.len() as f64);
        total = (total.0 + median, total.1 + mean);
        println!("{:<14} {median:8.3} {mean:8.3}", format!("{stage:?}"));
    }
    println!("{:<14} {:8.3} {:8.3}", "tick", total.0, total.1);
    let mean = flock.neighbour_counts().map(f64::from).sum::<f64>() / flock.len().max(1) as f64;
    println!("mean neighbours {mean:.2}; state hash {:016x}", swarm_hash(&flock));
    ExitCode::SUCCESS
}
