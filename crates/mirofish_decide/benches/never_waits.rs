//! The decision layer never holds up the tick: the same run with no
//! decider, with the rule-based one, and with one that answers after 2 s
//! (a slow language model), timed tick by tick.
//!
//! `cargo bench -p mirofish_decide --bench never_waits [-- FISH TICKS]`

use std::time::{Duration, Instant};

use mirofish_decide::{DecisionConfig, DecisionLayer, Intent, Region, SlowDecider};
use mirofish_sim::{ExperimentConfig, Simulation};

/// Timings of one run (ms): the whole tick (planning included), and the
/// planning alone.
struct Timing {
    tick_mean: f64,
    plan_mean: f64,
    plan_worst: f64,
    stats: String,
}

fn run(fish: usize, ticks: u64, mut layer: Option<DecisionLayer>) -> Timing {
    let config = ExperimentConfig { fish, seed: 1, ..ExperimentConfig::default() };
    let mut sim = Simulation::from_config(&config).expect("a valid configuration");
    let (mut tick, mut plan) = (Vec::with_capacity(ticks as usize), Vec::with_capacity(ticks as usize));
    for _ in 0..ticks {
        let start = Instant::now();
        if let Some(layer) = layer.as_mut() {
            for command in layer.plan(&sim, sim.tank(), sim.scene()) {
                sim.submit(command).expect("the layer's commands are valid");
            }
        }
        plan.push(start.elapsed().as_secs_f64() * 1e3);
        sim.step();
        tick.push(start.elapsed().as_secs_f64() * 1e3);
    }
    // The first tenth warms the caches and starts the threads.
    let steady = |v: &[f64]| v[v.len() / 10..].to_vec();
    let (tick, plan) = (steady(&tick), steady(&plan));
    Timing {
        tick_mean: tick.iter().sum::<f64>() / tick.len() as f64,
        plan_mean: plan.iter().sum::<f64>() / plan.len() as f64,
        plan_worst: plan.iter().copied().fold(0.0, f64::max),
        stats: layer.map(|l| format!("{:?}", l.stats())).unwrap_or_default(),
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let fish = args.first().copied().unwrap_or(10_000);
    let ticks = args.get(1).copied().unwrap_or(3000) as u64;
    // No cache, and a thread per unit: every decision is a request, and
    // each answer is in before the 3 s timeout.
    let config =
        DecisionConfig { follower_period: 120, cache_capacity: 0, workers: 24, ..DecisionConfig::default() };
    // The same answer at once (on the simulation thread) and after 2 s (on
    // the workers): the units end up with the same goals, so the ticks
    // differ only by what waiting costs.
    let answer = |delay| SlowDecider { intent: Intent::GoTo { region: Region::TOP_RIGHT }, delay };
    let cases = [
        ("no layer", None),
        ("rules", Some(DecisionLayer::with_rules(config.clone()).expect("valid"))),
        ("answers at once", Some(DecisionLayer::new(config.clone(), answer(Duration::ZERO)).expect("valid"))),
        (
            "answers after 2 s",
            Some(DecisionLayer::new(config, answer(Duration::from_secs(2))).expect("valid")),
        ),
    ];
    println!(
        "{fish} fish, {ticks} ticks, {} threads",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for (name, layer) in cases {
        let t = run(fish, ticks, layer);
        println!(
            "{name:>18}: tick {:7.3} ms mean; plan {:6.3} ms mean, {:6.3} ms worst  {}",
            t.tick_mean, t.plan_mean, t.plan_worst, t.stats
        );
    }
}
