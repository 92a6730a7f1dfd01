//! Times each pass of the core's tick separately (no Bevy): where does a
//! tick go? Prints milliseconds per pass: the median over the ticks, then
//! the mean. The median is the figure to compare: on a shared virtual
//! machine the host now and then holds a vCPU back for milliseconds
//! (seen here: the second thread starting a pass 1.4–3.5 ms late in one
//! pass in ten to twenty), which moves the mean, not the median.
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin passes -- --fish 100000 --ticks 50 --threads 2
//! cargo run --release -p mirofish_probes --bin passes -- --neighbours 50 --cap 8
//! cargo run --release -p mirofish_probes --bin passes -- --cohesion 3 --separation 0.4 --warmup 240 --cap 8
//! ```
//!
//! `--neighbours` sets the density (mean neighbours per fish, 6.5 by
//! default; 50 is the performance table's crowded case), `--cap` the
//! school's `neighbour_cap` (1–16, the default 16; set once warmed up), `--topological` its
//! `topological_neighbours`, `--warmup` the ticks run before the timed
//! ones (5 by default, the school as spawned; after a few hundred the
//! default school has gathered into dense groups, and the force pass costs
//! two to three times more), `--cohesion` and `--separation` the rules'
//! weights (`scale`'s crowded school is `--cohesion 3 --separation 0.4
//! --warmup 240`: dense balls), `--avx2 0` the portable build of the force
//! pass where the CPU has AVX2 (to measure what AVX2 gains), `--spatial 1`
//! slots renumbered in the grid's order every tick (`SlotOrder::Spatial`).

use std::process::ExitCode;
use std::time::Instant;

use mirofish_sim::{FlockParams, KernelPath, Simulation, SlotOrder, Tank, observe};

fn main() -> ExitCode {
    let mut fish = 100_000usize;
    let mut ticks = 50u32;
    let mut threads: Option<usize> = None;
    let mut neighbours = 6.5f32;
    let mut cap = FlockParams::reference().neighbour_cap;
    let mut topological = 0u32;
    let defaults = FlockParams::reference();
    let (mut cohesion, mut separation) = (defaults.cohesion_weight, defaults.separation_weight);
    let mut warmup = 5u64;
    let mut path = KernelPath::Fastest;
    let mut order = SlotOrder::Stable;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0);
        match (flag.as_str(), value) {
            ("--fish", Some(v)) => fish = v as usize,
            ("--ticks", Some(v)) => ticks = (v as u32).max(1),
            ("--threads", Some(v)) => threads = Some(v as usize),
            ("--neighbours", Some(v)) if v > 0.0 => neighbours = v as f32,
            ("--cap", Some(v)) => cap = v as u32,
            ("--topological", Some(v)) => topological = v as u32,
            ("--cohesion", Some(v)) => cohesion = v as f32,
            ("--separation", Some(v)) => separation = v as f32,
            ("--warmup", Some(v)) => warmup = v as u64,
            ("--avx2", Some(v)) => path = if v == 0.0 { KernelPath::Portable } else { KernelPath::Fastest },
            ("--spatial", Some(v)) => order = if v == 0.0 { SlotOrder::Stable } else { SlotOrder::Spatial },
            _ => {
                eprintln!(
                    "usage: passes [--fish N] [--ticks N] [--threads N] [--neighbours N] [--cap N] [--topological K] [--cohesion W] [--separation W] [--warmup N] [--avx2 0|1] [--spatial 0|1]"
                );
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(n) = threads
        && let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global()
    {
        eprintln!("--threads: {e}");
        return ExitCode::FAILURE;
    }
    let params = FlockParams {
        topological_neighbours: topological,
        cohesion_weight: cohesion,
        separation_weight: separation,
        ..defaults
    };
    let tank = Tank::for_mean_neighbours(fish, params.perception_radius, neighbours, 16.0 / 9.0);
    let mut sim = Simulation::new(params, tank, fish, 1).expect("valid parameters");
    sim.flock.set_kernel_path(path);
    sim.flock.set_slot_order(order);
    sim.run(warmup).expect("valid parameters");
    // The cap only once the school is warmed up, as `scale` sets it: the
    // same fish under different caps.
    sim.params.neighbour_cap = cap;
    if let Err(e) = sim.params.validate() {
        eprintln!("--cap: {e}");
        return ExitCode::FAILURE;
    }
    let start = sim.clone();

    // Milliseconds per tick of each pass, and of the three together.
    let mut spent: [Vec<f64>; 4] = Default::default();
    let names = ["rebuild_index", "accumulate_forces", "integrate"];
    let mut neighbours = 0.0;
    for _ in 0..ticks {
        // Every tick from the same state, so the density stays the one named;
        // one untimed tick first, so the buffers are warm as in a long run
        // (a fresh clone is cold in cache).
        sim = start.clone();
        sim.step().expect("valid parameters");
        let (p, t, dt) = (sim.params, sim.tank, sim.dt);
        let (f, scene) = (&mut sim.flock, &sim.scene);
        let mut timed = |i: usize, pass: &mut dyn FnMut()| {
            let t0 = Instant::now();
            pass();
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            spent[i].push(ms);
            ms
        };
        let total = timed(0, &mut || f.rebuild_index(&p, &t))
            + timed(1, &mut || f.accumulate_forces(&p, &t, scene))
            + timed(2, &mut || f.integrate(&p, &t, scene, dt));
        spent[3].push(total);
        neighbours = observe::mean_neighbours(f);
    }
    let median_and_mean = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
        (times.get(times.len() / 2).copied().unwrap_or(0.0), mean)
    };
    let [index, forces, integrate, tick] = spent.each_mut().map(median_and_mean);
    let build = if path.uses_avx2() { "AVX2" } else { "portable" };
    println!(
        "fish {fish}, threads {}, mean neighbours {neighbours:.2}, {build} build",
        rayon::current_num_threads()
    );
    for (name, (median, mean)) in names.iter().zip([index, forces, integrate]) {
        println!("{name:<18} {median:>8.3} ms  (mean {mean:.3})");
    }
    let (median, mean) = tick;
    println!(
        "{:<18} {median:>8.3} ms  (mean {mean:.3}; {:.2} M agent-updates/s at the median)",
        "tick",
        fish as f64 / median / 1e3
    );
    ExitCode::SUCCESS
}
