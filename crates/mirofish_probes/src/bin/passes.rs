//! Times each pass of the core's tick separately (no Bevy), on a plane or
//! in a volume: where does a tick go? Prints milliseconds per pass (the
//! median over the ticks, then the mean) and the state's hash after the
//! run, so that a change meant to keep the bits can be checked on the same
//! command line. The median is the figure to compare: on a shared virtual
//! machine the host now and then holds a vCPU back for milliseconds
//! (seen here: the second thread starting a pass 1.4–3.5 ms late in one
//! pass in ten to twenty), which moves the mean, not the median.
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin passes -- --fish 100000 --ticks 50 --threads 2
//! cargo run --release -p mirofish_probes --bin passes -- --neighbours 50 --cap 8
//! cargo run --release -p mirofish_probes --bin passes -- --cohesion 3 --separation 0.4 --warmup 240 --cap 8
//! cargo run --release -p mirofish_probes --bin passes -- --space volume --fish 100000 --threads 2
//! cargo run --release -p mirofish_probes --bin passes -- --space volume --zones 1 --neighbours 20
//! ```
//!
//! In both spaces: `--neighbours` sets the density (mean neighbours per
//! fish at the start; 6.5 on a plane and 7 in a volume by default, as in
//! `scale`'s rows; 50 is the performance table's crowded case),
//! `--warmup` the ticks run before the timed ones (5 on a plane and 2 in a
//! volume by default, the school as spawned; after a few hundred the
//! default school has gathered into dense groups, and the force pass costs
//! two to three times more), `--threads` the pool's threads.
//!
//! Also in both: `--cap` sets the school's `neighbour_cap` (1–16, the
//! default 16; set once warmed up), `--topological` its
//! `topological_neighbours`, `--cohesion` and `--separation` the rules'
//! weights (`scale`'s crowded school is `--cohesion 3 --separation 0.4
//! --warmup 240`: dense balls), `--cruise` and `--turn` the school's gait
//! (`cruise_speed` in units per second and `turn_rate` in radians per
//! second; 0, the default, is off: what the gait costs is the same
//! command with and without them).
//!
//! In both spaces `--avx2 0` runs the portable build of the force pass
//! where the CPU has AVX2 (to measure what AVX2 gains), and `--spatial 1`
//! renumbers the slots in the grid's order every tick
//! (`SlotOrder::Spatial`). The ticks follow one another, each timed stage
//! by stage (`TickStage`), with the same engine in both spaces.
//!
//! In a volume `--zones 1` runs Couzin's zone model instead of the rules
//! (with `--cap` its `Zones::neighbour_cap`, 256 by default).
//!
//! `--pile 1`, in both spaces, puts every fish on the middle of the tank
//! (keeping its velocity) before each timed tick, once warmed up: the
//! worst crowd there is, to compare with the same command without it.
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin passes -- --fish 20000 --topological 32 --pile 1
//! cargo run --release -p mirofish_probes --bin passes -- --space volume --fish 10000 --zones 1 --pile 1
//! ```

use std::process::ExitCode;
use std::time::Instant;

use mirofish_sim::space::{Swarm, TickStage, Zones};
use mirofish_sim::{FlockParams, KernelPath, SlotOrder, Tank, Tank3d, TankOf, Vector, state_hash};

const USAGE: &str = "usage: passes [--space plane|volume] [--fish N] [--ticks N] [--threads N] [--neighbours N] \
     [--warmup N] [--cap N] [--topological K] [--cohesion W] [--separation W] [--cruise S] [--turn R] [--avx2 0|1] [--spatial 0|1] \
     [--zones 0|1] [--pile 0|1]";

/// What to measure: the options of both spaces (those of one space only
/// are refused in the other).
struct Probe {
    volume: bool,
    fish: usize,
    ticks: u32,
    neighbours: Option<f32>,
    warmup: Option<u64>,
    /// The neighbour cap of the rules (16 by default) or of the zones (256).
    cap: Option<u32>,
    topological: u32,
    cohesion: f32,
    separation: f32,
    /// The gait: `cruise_speed` and `turn_rate` (0: off).
    cruise: f32,
    turn: f32,
    path: KernelPath,
    order: SlotOrder,
    zones: bool,
    /// Every fish on the middle of the tank before each timed tick.
    pile: bool,
    /// Options given that only a volume has (`--zones`).
    volume_only: Vec<String>,
}

impl Probe {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let defaults = FlockParams::reference();
        let mut probe = Probe {
            volume: false,
            fish: 100_000,
            ticks: 0,
            neighbours: None,
            warmup: None,
            cap: None,
            topological: 0,
            cohesion: defaults.cohesion_weight,
            separation: defaults.separation_weight,
            cruise: 0.0,
            turn: 0.0,
            path: KernelPath::Fastest,
            order: SlotOrder::Stable,
            zones: false,
            pile: false,
            volume_only: Vec::new(),
        };
        let mut threads = None;
        while let Some(flag) = args.next() {
            let word = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            if flag == "--space" {
                probe.volume = match word.as_str() {
                    "plane" => false,
                    "volume" => true,
                    other => return Err(format!("--space: `{other}` is neither `plane` nor `volume`")),
                };
                continue;
            }
            let v = word
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("{flag}: `{word}` is not a number ≥ 0"))?;
            match flag.as_str() {
                "--fish" => probe.fish = v as usize,
                "--ticks" => probe.ticks = (v as u32).max(1),
                "--threads" if v >= 1.0 => threads = Some(v as usize),
                "--neighbours" if v > 0.0 => probe.neighbours = Some(v as f32),
                "--warmup" => probe.warmup = Some(v as u64),
                "--cap" => probe.cap = Some(v as u32),
                "--topological" => probe.topological = v as u32,
                "--cohesion" => probe.cohesion = v as f32,
                "--separation" => probe.separation = v as f32,
                "--cruise" => probe.cruise = v as f32,
                "--turn" => probe.turn = v as f32,
                "--avx2" => probe.path = if v == 0.0 { KernelPath::Portable } else { KernelPath::Fastest },
                "--spatial" => probe.order = if v == 0.0 { SlotOrder::Stable } else { SlotOrder::Spatial },
                "--zones" => probe.zones = v != 0.0,
                "--pile" => probe.pile = v != 0.0,
                _ => return Err(USAGE.to_string()),
            }
            if flag == "--zones" {
                probe.volume_only.push(flag);
            }
        }
        if let Some(flag) = probe.volume_only.first().filter(|_| !probe.volume) {
            return Err(format!("{flag} has no meaning in a plane"));
        }
        if let Some(n) = threads {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global()
                .map_err(|e| format!("--threads: {e}"))?;
        }
        if probe.ticks == 0 {
            probe.ticks = if probe.volume { 20 } else { 50 };
        }
        Ok(probe)
    }

    /// The reference parameters, and the school's: them with the options'
    /// rules (the cap is set once warmed up).
    fn params(&self) -> (FlockParams, FlockParams) {
        let defaults = FlockParams::reference();
        let params = FlockParams {
            topological_neighbours: self.topological,
            cohesion_weight: self.cohesion,
            separation_weight: self.separation,
            cruise_speed: self.cruise,
            turn_rate: self.turn,
            ..defaults
        };
        (defaults, params)
    }

    /// The plane: each stage of a tick timed, the ticks one after the
    /// other.
    fn plane(&self) -> Result<Report, String> {
        let radius = self.params().1.perception_radius;
        let density = self.neighbours.unwrap_or(6.5);
        let tank = Tank::for_mean_neighbours(self.fish, radius, density, 16.0 / 9.0);
        self.stages(tank, self.warmup.unwrap_or(5), "on a plane")
    }

    /// The volume: each stage of a tick timed, the ticks one after the
    /// other.
    fn volume(&self) -> Result<Report, String> {
        let radius = self.params().1.perception_radius;
        let tank = Tank3d::for_mean_neighbours_3d(self.fish, radius, self.neighbours.unwrap_or(7.0));
        self.stages(tank, self.warmup.unwrap_or(2), "in a volume")
    }

    /// Each stage of a tick in `tank` timed, the ticks one after the other,
    /// after `warmup` untimed ones.
    fn stages<V: Vector>(&self, tank: TankOf<V>, warmup: u64, space: &str) -> Result<Report, String> {
        let (defaults, params) = self.params();
        let mut flock = Swarm::new(params, tank, self.fish, 1).map_err(|e| e.to_string())?;
        flock.set_kernel_path(self.path);
        flock.set_slot_order(self.order);
        flock.set_zones(self.zones.then(Zones::default)).map_err(|e| e.to_string())?;
        flock.run(warmup);
        // The cap only once the school is warmed up, as `scale` sets it: the
        // same fish under different caps.
        if self.zones {
            let cap = self.cap.unwrap_or(Zones::default().neighbour_cap);
            let zones = Zones { neighbour_cap: cap, ..Zones::default() };
            flock.set_zones(Some(zones)).map_err(|e| format!("--cap: {e}"))?;
        } else {
            let capped = FlockParams { neighbour_cap: self.cap.unwrap_or(defaults.neighbour_cap), ..params };
            flock.set_params(0, capped).map_err(|e| format!("--cap: {e}"))?;
        }
        let names: Vec<String> = TickStage::ALL.iter().map(|s| format!("{s:?}")).collect();
        let mut report = Report::new(&names.iter().map(String::as_str).collect::<Vec<_>>());
        let middle = (tank.min + tank.max) * 0.5;
        for _ in 0..self.ticks {
            if self.pile {
                for id in 0..flock.len() as u32 {
                    let slot = flock.slots()[id as usize] as usize;
                    let v = flock.velocities()[slot];
                    flock.set(id, middle, v).map_err(|e| e.to_string())?;
                }
            }
            for (k, stage) in TickStage::ALL.iter().enumerate() {
                report.time(k, || flock.run_to(*stage));
            }
        }
        let pile = if self.pile { ", every fish on one point" } else { "" };
        let model = if self.zones { "Couzin's zones" } else { "the rules" };
        let build = if self.path.uses_avx2() { "AVX2" } else { "portable" };
        report.heading = format!("{space}, {model}, {build} build of the force pass{pile}");
        report.neighbours = flock.neighbour_counts().map(f64::from).sum::<f64>() / flock.len().max(1) as f64;
        report.hash = state_hash(&flock);
        Ok(report)
    }
}

/// Milliseconds spent in each pass, tick by tick, and what the run ended
/// with.
struct Report {
    names: Vec<String>,
    spent: Vec<Vec<f64>>,
    heading: String,
    neighbours: f64,
    hash: u64,
}

impl Report {
    fn new(names: &[&str]) -> Self {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let spent = vec![Vec::new(); names.len()];
        Self { names, spent, heading: String::new(), neighbours: 0.0, hash: 0 }
    }

    fn time(&mut self, pass: usize, run: impl FnOnce()) {
        let start = Instant::now();
        run();
        self.spent[pass].push(start.elapsed().as_secs_f64() * 1e3);
    }

    fn print(&self, fish: usize) {
        let median_and_mean = |times: &[f64]| {
            let mut sorted = times.to_vec();
            sorted.sort_by(f64::total_cmp);
            let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
            (sorted.get(sorted.len() / 2).copied().unwrap_or(0.0), mean)
        };
        let ticks = self.spent.first().map_or(0, Vec::len);
        let tick: Vec<f64> = (0..ticks).map(|t| self.spent.iter().map(|pass| pass[t]).sum()).collect();
        println!(
            "{fish} fish {}, {} thread(s), {ticks} ticks, mean neighbours {:.2}: ms (median, mean)",
            self.heading,
            rayon::current_num_threads(),
            self.neighbours
        );
        for (name, times) in self.names.iter().zip(&self.spent) {
            let (median, mean) = median_and_mean(times);
            println!("{name:<18} {median:>8.3} {mean:>8.3}");
        }
        let (median, mean) = median_and_mean(&tick);
        let rate = fish as f64 / median.max(1e-9) / 1e3;
        println!("{:<18} {median:>8.3} {mean:>8.3}  ({rate:.2} M agent-updates/s at the median)", "tick");
        println!("state hash {:016x}", self.hash);
    }
}

fn main() -> ExitCode {
    let probe = match Probe::parse(std::env::args().skip(1)) {
        Ok(probe) => probe,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    match if probe.volume { probe.volume() } else { probe.plane() } {
        Ok(report) => {
            report.print(probe.fish);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
