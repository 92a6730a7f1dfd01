//! `mirofish-lab`: headless experiments from the command line.
//!
//! ```text
//! mirofish-lab run --preset reference --seed 3 --ticks 3600 --out runs/ref
//! mirofish-lab run --config my.ron --commands script.ron --ticks 3600 --out runs/mine
//! mirofish-lab run --config assets/scenes/volume.ron --ticks 3600 --out runs/volume
//! mirofish-lab run --space volume --fish 2000 --out runs/cube
//! mirofish-lab replay runs/ref/run.replay
//! mirofish-lab sweep --param alignment_weight --from 0 --to 2 --steps 11 --seeds 4 --out runs/sweep
//! mirofish-lab baseline            # check against assets/baselines/reference.ron
//! mirofish-lab baseline --update   # re-measure it, on purpose
//! mirofish-lab presets --out assets/presets
//! mirofish-lab turn --preset gentle-cruise --seeds 4 --out runs/turn
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use mirofish_decide::{DecisionConfig, DecisionLayer};
use mirofish_lab::Error;
use mirofish_lab::baseline::Baseline;
use mirofish_lab::collective::{self, Hysteresis};
use mirofish_lab::experiment::{Experiment, summarize, write_results};
use mirofish_lab::out_dir::OutDir;
use mirofish_lab::plot::{Series, lines_with_errors};
use mirofish_lab::schools;
use mirofish_lab::sweep::{SWEEP_METRICS, Sweep, by_value, linspace, write_csv};
use mirofish_lab::turn::TurnResponse;
use mirofish_lab::volume::VolumeExperiment;
use mirofish_sim::control::config::ConfigError;
use mirofish_sim::control::replay::{RecordingOf, Scenario, space_of};
use mirofish_sim::math::Vector;
use mirofish_sim::observe::health::Health;
use mirofish_sim::observe::metrics::Metrics;
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::step::command::{Command, Stamped};
use mirofish_sim::{ExperimentConfig, Preset, RunConfig, VolumeConfig, with_auto_radius};

#[derive(Parser)]
#[command(
    name = "mirofish-lab",
    version,
    about = "Headless MiroFish experiments: runs, replays, sweeps, baselines."
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// Where a run's starting configuration comes from.
#[derive(clap::Args, Default)]
struct Start {
    /// A RON configuration file (see `assets/presets/*.ron`; for `run`,
    /// also a volume's, e.g. `assets/scenes/volume.ron`: a file whose
    /// vectors have three coordinates is a school in a volume).
    #[arg(long, conflicts_with = "preset")]
    config: Option<PathBuf>,
    /// A preset by name (gentle-cruise, compact-rush, loose-drift, dense-sardines, reference).
    #[arg(long)]
    preset: Option<String>,
    /// Overrides the configuration's seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Overrides the configuration's fish count.
    #[arg(long)]
    fish: Option<usize>,
    /// Overrides the metrics sampling interval (ticks).
    #[arg(long)]
    every: Option<u64>,
    /// Re-size the perception radius (and the separation radius with it)
    /// so that the fish, spread over the tank, have this many neighbours
    /// each on average.
    #[arg(long, value_name = "NEIGHBOURS")]
    auto_radius: Option<f32>,
}

impl Start {
    /// The configuration of a run on a plane (`sweep` and `turn`).
    fn load(&self) -> Result<ExperimentConfig, Error> {
        match self.load_in(Some(Space::Plane))? {
            Loaded::Plane(config) => Ok(config),
            Loaded::Volume(_) => unreachable!("asked for a plane"),
        }
    }

    /// The configuration of a run in `space`, or, where no space is
    /// given, in the space the file describes (a plane without a file),
    /// with the options' overrides applied and checked.
    fn load_in(&self, space: Option<Space>) -> Result<Loaded, Error> {
        match (&self.config, &self.preset, space) {
            (Some(path), _, Some(Space::Plane)) => Ok(Loaded::Plane(self.overridden(ExperimentConfig::load(path)?)?)),
            (Some(path), _, Some(Space::Volume)) => Ok(Loaded::Volume(self.overridden(VolumeConfig::load(path)?)?)),
            (Some(path), _, None) => match ExperimentConfig::load(path) {
                Ok(config) => Ok(Loaded::Plane(self.overridden(config)?)),
                Err(e) if *e.root() == (ConfigError::Space { found: "volume" }) => {
                    Ok(Loaded::Volume(self.overridden(VolumeConfig::load(path)?)?))
                }
                Err(e) => Err(e.into()),
            },
            (None, Some(_), Some(Space::Volume)) => {
                Err("--preset names a school on a plane; in a volume give --config (see assets/scenes/volume.ron)"
                    .into())
            }
            (None, Some(name), _) => {
                let preset = Preset::by_name(name).ok_or_else(|| {
                    let names: Vec<&str> = Preset::all().iter().map(|p| p.name).collect();
                    format!("unknown preset `{name}`; one of: {}", names.join(", "))
                })?;
                Ok(Loaded::Plane(self.overridden(ExperimentConfig::from(&preset))?))
            }
            (None, None, Some(Space::Volume)) => Ok(Loaded::Volume(self.overridden(VolumeConfig::default())?)),
            (None, None, _) => Ok(Loaded::Plane(self.overridden(ExperimentConfig::default())?)),
        }
    }

    /// `config` with the seed, fish count, sampling interval and radius
    /// the options override, checked.
    fn overridden<V: Vector>(&self, mut config: RunConfig<V>) -> Result<RunConfig<V>, Error> {
        config.seed = self.seed.unwrap_or(config.seed);
        config.fish = self.fish.unwrap_or(config.fish);
        config.metrics_every = self.every.unwrap_or(config.metrics_every);
        if let Some(neighbours) = self.auto_radius {
            if !(neighbours.is_finite() && neighbours > 0.0) {
                return Err(
                    format!("--auto-radius {neighbours}: must be a positive number of neighbours").into()
                );
            }
            config.params = with_auto_radius(&config.params, config.fish, &config.tank, neighbours);
        }
        config.validate()?;
        Ok(config)
    }
}

/// The space of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Space {
    /// Fish on a plane.
    Plane,
    /// Fish in a volume.
    Volume,
}

/// A run's configuration, in its space.
enum Loaded {
    Plane(ExperimentConfig),
    Volume(VolumeConfig),
}

/// Paces ticks at the configuration's rate, as a game runs them, where
/// asked (`--realtime`).
struct Pace {
    /// One tick's wall-clock time, `None` when not paced.
    dt: Option<Duration>,
    from: Instant,
}

impl Pace {
    fn new(on: bool, dt: f32) -> Self {
        Self { dt: on.then(|| Duration::from_secs_f64(f64::from(dt))), from: Instant::now() }
    }

    /// Sleeps until tick `tick` is due.
    fn wait(&self, tick: u64) {
        if let Some(dt) = self.dt {
            let due = self.from + dt.saturating_mul(u32::try_from(tick).unwrap_or(u32::MAX));
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
    }
}

/// How long a run lasts, where its results go, and its command script.
#[derive(clap::Args)]
struct Length {
    /// A RON list of commands, `[(tick: 600, command: AddPredator((...))), ...]`
    /// (in a volume, its positions have three coordinates).
    #[arg(long)]
    commands: Option<PathBuf>,
    /// Ticks to simulate (60 per simulated second).
    #[arg(long, default_value_t = 3600)]
    ticks: u64,
    /// Ticks left out of the summary.
    #[arg(long, default_value_t = 600)]
    warmup: u64,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

impl Length {
    /// Sets the global pool's threads, if asked, and reads the script,
    /// checking every command: a refused one is named by the file, its
    /// position in the script and its tick.
    fn prepare<C: serde::de::DeserializeOwned + Command>(&self) -> Result<Vec<Stamped<C>>, Error> {
        if let Some(n) = self.threads {
            rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global()?;
        }
        let Some(path) = self.commands.as_deref() else { return Ok(Vec::new()) };
        // A script in an earlier build's words still reads.
        let text = mirofish_lab::read_text(path)?;
        let text = mirofish_sim::step::command::upgrade_words(&text);
        let script: Vec<Stamped<C>> = ron::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for (index, stamped) in script.iter().enumerate() {
            stamped.command.check().map_err(|e| {
                format!("{}: command {index} (at tick {}) is refused: {e}", path.display(), stamped.tick)
            })?;
        }
        Ok(script)
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one experiment, on a plane or in a volume, and write config.ron, metrics.csv, summary.csv/.ron and run.replay into --out.
    Run {
        #[command(flatten)]
        start: Start,
        /// The space of the run: without --config, where the default
        /// school swims; with it, the space the file must describe
        /// (otherwise the file says).
        #[arg(long, value_enum)]
        space: Option<Space>,
        #[command(flatten)]
        length: Length,
        /// Give the school intent: split it into units that decide where to
        /// go by `rules` (no network) or by a language model (`llm`: an
        /// OpenAI-compatible server from `MIROFISH_LLM_ENDPOINT`,
        /// `MIROFISH_LLM_MODEL` and `MIROFISH_LLM_API_KEY`; needs the
        /// `openai` feature). The decisions are recorded in run.replay.
        #[arg(long)]
        decide: Option<Decide>,
        #[command(flatten)]
        layer: LayerOptions,
        /// Pace the ticks at the configuration's rate (one every `dt`
        /// seconds of wall clock), as a game runs them: the decision
        /// layer's timeouts and periods then mean what they say. Without
        /// it, ticks run as fast as they can.
        #[arg(long)]
        realtime: bool,
    },
    /// The same as `run --space volume` (kept for earlier scripts).
    #[command(hide = true)]
    Volume {
        /// A RON volume configuration file; default: 500 fish of the default rules.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Overrides the configuration's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Overrides the first school's fish count.
        #[arg(long)]
        fish: Option<usize>,
        #[command(flatten)]
        length: Length,
    },
    /// Replay a recorded run (on a plane or in a volume) and check every checkpoint's state hash.
    Replay {
        /// The `.replay` file.
        file: PathBuf,
        /// Instead of checking it, record the same configuration and
        /// commands again under this build into this file (new checkpoints
        /// at the same ticks): what converts a recording made before a
        /// change to how runs start or step.
        #[arg(long)]
        rerecord: Option<PathBuf>,
    },
    /// Vary one parameter over a range with several seeds; write sweep.csv and sweep.png into --out.
    Sweep {
        #[command(flatten)]
        start: Start,
        /// The parameter (a field of the configuration's `params`).
        #[arg(long, default_value = "alignment_weight")]
        param: String,
        /// First value.
        #[arg(long, default_value_t = 0.0)]
        from: f32,
        /// Last value.
        #[arg(long, default_value_t = 2.0)]
        to: f32,
        /// Number of values.
        #[arg(long, default_value_t = 11)]
        steps: usize,
        /// Seeds per value (1, 2, …).
        #[arg(long, default_value_t = 4)]
        seeds: u64,
        /// Ticks per run.
        #[arg(long, default_value_t = 2400)]
        ticks: u64,
        /// Ticks left out of each run's summary.
        #[arg(long, default_value_t = 1200)]
        warmup: u64,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Check the regression baseline, or re-measure it with --update.
    Baseline {
        /// The baseline file.
        #[arg(long, default_value = "assets/baselines/reference.ron")]
        file: PathBuf,
        /// Re-measure and overwrite the file instead of checking it.
        #[arg(long)]
        update: bool,
        /// With --update and no file yet: a baseline of the default school
        /// in a volume instead of the plane's reference preset.
        #[arg(long, requires = "update")]
        volume: bool,
    },
    /// Couzin's collective states: sweep the zone model's orientation width
    /// up and then down (the school carried over), write couzin.csv and
    /// couzin.png into --out and print each state's order parameters.
    Couzin {
        /// 2 for a plane, 3 for a volume.
        #[arg(long, default_value_t = 3)]
        dims: u8,
        /// Fish in the school.
        #[arg(long, default_value_t = 100)]
        fish: usize,
        /// Seeds (1, 2, …), one sweep each.
        #[arg(long, default_value_t = 4)]
        seeds: u64,
        /// Widest orientation zone (world units; the repulsion radius is 10).
        #[arg(long, default_value_t = 150.0)]
        to: f32,
        /// Width step.
        #[arg(long, default_value_t = 10.0)]
        step: f32,
        /// Ticks of 0.1 s at each width before measuring.
        #[arg(long, default_value_t = 1500)]
        settle: u64,
        /// Ticks measured at each width.
        #[arg(long, default_value_t = 500)]
        measure: u64,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Turn response: the front of a settled school turns aside; how long
    /// until half and nine tenths of the rest follow, and how fast the turn
    /// travels back through the school. Writes turn.csv and turn.png into
    /// --out and prints the times (mean ± standard error over seeds).
    Turn {
        #[command(flatten)]
        start: Start,
        /// Seeds (1, 2, …), one run each (overrides --seed).
        #[arg(long, default_value_t = 4)]
        seeds: u64,
        /// Ticks the school swims before the front turns.
        #[arg(long, default_value_t = 900)]
        settle: u64,
        /// Ticks watched after.
        #[arg(long, default_value_t = 600)]
        watch: u64,
        /// Share of the school at its front that turns.
        #[arg(long, default_value_t = 0.1)]
        front: f32,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Whether the standard runs (the aquarium's scene, the README's game,
    /// the 3D aquarium's school and the four styles) hold as schools: each
    /// over several seeds, sampled every second; prints how often each
    /// health measure lies inside its natural and its acceptable band.
    Schools {
        /// Only these runs (repeatable; default: all of them, unless
        /// --config is given).
        #[arg(long = "run", value_parser = clap::builder::PossibleValuesParser::new(schools::StandardRun::names()))]
        runs: Vec<String>,
        /// A configuration of your own, on a plane or in a volume, as a
        /// row of the table (repeatable).
        #[arg(long)]
        config: Vec<PathBuf>,
        /// Seeds (1, 2, …), one run each.
        #[arg(long, default_value_t = 8)]
        seeds: u64,
        /// The first sample, in seconds of simulated time.
        #[arg(long, default_value_t = 10.0)]
        from: f32,
        /// The last sample, in seconds of simulated time.
        #[arg(long, default_value_t = 600.0)]
        to: f32,
        /// Start every run in a normal blob at the tank's centre (σ an
        /// eighth of its width, the fish nearly still) instead of its own
        /// start.
        #[arg(long)]
        blob: bool,
    },
    /// Write every built-in preset as a configuration file into --out.
    Presets {
        /// Output directory.
        #[arg(long, default_value = "assets/presets")]
        out: PathBuf,
    },
}

/// The decision layer's settings for `run --decide`: a file with all of
/// them, and the common ones one by one (over the file's).
#[derive(clap::Args, Debug, Default)]
struct LayerOptions {
    /// A RON `DecisionConfig` (every setting of the layer; missing fields
    /// take their defaults).
    #[arg(long)]
    decision: Option<PathBuf>,
    /// Decision units (default 24).
    #[arg(long)]
    units: Option<u16>,
    /// How long an answer may take, in milliseconds from sending the
    /// request, before the unit falls back (default 3000).
    #[arg(long)]
    decide_timeout: Option<u64>,
    /// Threads that ask the decider (default 4).
    #[arg(long)]
    decide_workers: Option<usize>,
    /// How long the decider usually takes to answer, in milliseconds: the
    /// workers are then sized to keep up with the units due (over
    /// --decide-workers).
    #[arg(long)]
    expected_latency: Option<u64>,
    /// Ticks between two decisions of a unit with a leader in it (default 60).
    #[arg(long)]
    leader_period: Option<u64>,
    /// Ticks between two decisions of any other unit (default 600).
    #[arg(long)]
    follower_period: Option<u64>,
    /// The most requests in any minute; units due past it fall back
    /// (default: no limit).
    #[arg(long)]
    requests_per_minute: Option<u32>,
    /// The most tokens the model may spend in any hour, as its answers
    /// report them; past it units fall back (default: no limit).
    #[arg(long)]
    tokens_per_hour: Option<u64>,
}

impl LayerOptions {
    /// Whether any setting was given (they mean nothing without --decide).
    fn given(&self) -> bool {
        self.decision.is_some()
            || self.units.is_some()
            || self.decide_timeout.is_some()
            || self.decide_workers.is_some()
            || self.expected_latency.is_some()
            || self.leader_period.is_some()
            || self.follower_period.is_some()
            || self.requests_per_minute.is_some()
            || self.tokens_per_hour.is_some()
    }

    /// The settings: the file's (or the defaults), then each option given.
    fn config(&self) -> Result<DecisionConfig, Error> {
        let mut config: DecisionConfig = match &self.decision {
            Some(path) => read_ron(path)?,
            None => DecisionConfig::default(),
        };
        config.units = self.units.unwrap_or(config.units);
        config.timeout_ms = self.decide_timeout.unwrap_or(config.timeout_ms);
        config.workers = self.decide_workers.unwrap_or(config.workers);
        config.expected_latency_ms = self.expected_latency.or(config.expected_latency_ms);
        config.leader_period = self.leader_period.unwrap_or(config.leader_period);
        config.follower_period = self.follower_period.unwrap_or(config.follower_period);
        config.requests_per_minute = self.requests_per_minute.or(config.requests_per_minute);
        config.tokens_per_hour = self.tokens_per_hour.or(config.tokens_per_hour);
        Ok(config)
    }
}

/// Who decides for `run --decide`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Decide {
    /// The rule-based decider: no network.
    Rules,
    /// A language model behind an OpenAI-compatible endpoint.
    Llm,
}

/// What the model server was sent and spent, in words (for the summary).
type ServerReport = Box<dyn Fn() -> String>;

/// The decision layer `kind` asks for, and for a model server, its report.
fn decision_layer<V: Vector>(
    kind: Decide,
    config: DecisionConfig,
) -> Result<(DecisionLayer<V>, Option<ServerReport>), Error> {
    match kind {
        Decide::Rules => Ok((DecisionLayer::with_rules(config)?, None)),
        #[cfg(feature = "openai")]
        Decide::Llm => {
            let client = mirofish_decide::OpenAiDecider::from_env()?;
            // Clones share their counts: this one reads them at the end.
            let watched = client.clone();
            let report: ServerReport = Box::new(move || watched.stats().to_string());
            Ok((DecisionLayer::new(config, client)?, Some(report)))
        }
        #[cfg(not(feature = "openai"))]
        Decide::Llm => {
            Err("--decide llm needs the `openai` feature: cargo run -p mirofish_lab --features openai -- ..."
                .into())
        }
    }
}

/// The commands of the run left out, if any, each with why.
fn print_left_out(left_out: &[String]) {
    if !left_out.is_empty() {
        println!("commands left out ({}):", left_out.len());
        for line in left_out {
            println!("  {line}");
        }
    }
}

fn progress_bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} {per_sec} eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Cmd::Run { start, space, length, decide, layer: settings, realtime } => match start.load_in(space)? {
            Loaded::Plane(config) => run_plane(config, length, decide, &settings, realtime)?,
            Loaded::Volume(config) => run_volume(config, length, decide, &settings, realtime)?,
        },
        Cmd::Volume { config, seed, fish, length } => {
            let start = Start { config, preset: None, seed, fish, every: None, auto_radius: None };
            let Loaded::Volume(config) = start.load_in(Some(Space::Volume))? else {
                unreachable!("asked for a volume")
            };
            run_volume(config, length, None, &LayerOptions::default(), false)?
        }
        Cmd::Replay { file, rerecord } => match replay_space(&file)?.as_deref() {
            Some("volume") => replay::<VolumeConfig>(&file, rerecord.as_deref(), "in a volume")?,
            _ => replay::<ExperimentConfig>(&file, rerecord.as_deref(), "on a plane")?,
        },
        Cmd::Sweep { start, param, from, to, steps, seeds, ticks, warmup, out } => {
            let sweep = Sweep {
                base: start.load()?,
                parameter: param,
                values: linspace(from, to, steps),
                seeds: (1..=seeds.max(1)).collect(),
                ticks,
                warmup,
            };
            sweep.knob()?;
            let bar = progress_bar((sweep.values.len() * sweep.seeds.len()) as u64, "runs");
            let rows = sweep.run(|done| bar.set_position(done as u64))?;
            bar.finish_and_clear();
            let mut dir = OutDir::create(&out)?;
            sweep.base.save(dir.file("base-config.ron"))?;
            write_csv(&sweep.parameter, &rows, std::fs::File::create(dir.file("sweep.csv"))?)?;
            let polarization = by_value(&rows, 0);
            let milling = by_value(&rows, 1);
            let title = format!(
                "{} fish, {} seeds, ticks {warmup}-{ticks}: order vs {}",
                sweep.base.fish,
                sweep.seeds.len(),
                sweep.parameter
            );
            lines_with_errors(
                &dir.file("sweep.png"),
                (960, 600),
                &title,
                &sweep.parameter,
                "order parameter (mean over run, ± sd over seeds)",
                0.0..1.05,
                &[
                    Series {
                        name: "polarization",
                        colour: plotters::style::RGBColor(31, 119, 180),
                        points: &polarization,
                    },
                    Series {
                        name: "milling",
                        colour: plotters::style::RGBColor(214, 39, 40),
                        points: &milling,
                    },
                ],
            )?;
            dir.keep();
            println!("{:>10} {}", sweep.parameter, SWEEP_METRICS[..2].join("  "));
            for ((v, p, ps), (_, m, ms)) in polarization.iter().zip(&milling) {
                println!("{v:>10.3} {p:.3}±{ps:.3}  {m:.3}±{ms:.3}");
            }
            println!("wrote {} and {}", out.join("sweep.csv").display(), out.join("sweep.png").display());
        }
        Cmd::Baseline { file, update, volume } => {
            if update {
                let old = Baseline::load(&file).ok();
                let baseline = match old {
                    Some(b) => match b.volume {
                        Some(config) => {
                            Baseline::measure_volume(&b.preset, config, b.fish, b.ticks, b.warmup, b.seeds)?
                        }
                        None => Baseline::measure(&b.preset, b.fish, b.ticks, b.warmup, b.seeds)?,
                    },
                    None if volume => {
                        // The default rules at 7 neighbours each, spread evenly.
                        let tank = mirofish_sim::Tank3d::for_mean_neighbours_3d(500, 45.0, 7.0);
                        let config = VolumeConfig { tank, ..VolumeConfig::default() };
                        Baseline::measure_volume("default-rules", config, 500, 1800, 600, (1..=8).collect())?
                    }
                    None => Baseline::measure("reference", 400, 3600, 600, (1..=16).collect())?,
                };
                if let Some(dir) = file.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                baseline.save(&file)?;
                println!("wrote {}", file.display());
                for b in &baseline.bands {
                    println!("  {:<20} {:>12.4} ± {:.4}", b.metric, b.mean, b.tolerance);
                }
            } else {
                let baseline = Baseline::load(&file)?;
                let violations = baseline.check()?;
                if !violations.is_empty() {
                    let lines: Vec<String> = violations.iter().map(|v| format!("  {v}")).collect();
                    return Err(format!("baseline {} violated:\n{}", file.display(), lines.join("\n")).into());
                }
                println!("{}: all {} metrics inside their bands", file.display(), baseline.bands.len());
            }
        }
        Cmd::Presets { out } => write_presets(&out)?,
        Cmd::Schools { runs, config, seeds, from, to, blob } => {
            school_table(&runs, &config, seeds, from, to, blob)?
        }
        Cmd::Couzin { dims, fish, seeds, to, step, settle, measure, out } => {
            couzin(dims, fish, seeds, to, step, settle, measure, &out)?
        }
        Cmd::Turn { start, seeds, settle, watch, front, out } => {
            let experiment = TurnResponse { settle, watch, front, ..TurnResponse::default() };
            turn(&start.load()?, &experiment, seeds, &out)?
        }
    }
    Ok(())
}

/// `run` on a plane: the experiment, with a decision layer if asked.
fn run_plane(
    config: ExperimentConfig,
    length: Length,
    decide: Option<Decide>,
    settings: &LayerOptions,
    realtime: bool,
) -> Result<(), Error> {
    let script: Vec<Stamped> = length.prepare()?;
    let Length { ticks, warmup, out, .. } = length;
    let experiment = Experiment::new(config, ticks, warmup).with_commands(script);
    let bar = progress_bar(ticks, "ticks");
    let clock = Instant::now();
    let (mut layer, server) = asked_layer(decide, settings, experiment.config.dt)?;
    let pace = Pace::new(realtime, experiment.config.dt);
    let outcome = experiment.run_planned(
        |t| bar.set_position(t),
        |sim| {
            pace.wait(sim.tick());
            match layer.as_mut() {
                Some(layer) => layer.plan(sim, sim.tank(), sim.scene()),
                None => Vec::new(),
            }
        },
    )?;
    bar.finish_and_clear();
    let seconds = clock.elapsed().as_secs_f64();
    let summary = summarize(&outcome.log, warmup);
    write_results(&out, &experiment, &outcome, &summary)?;
    let fish = format!("{} fish", experiment.config.total_fish());
    print_run(&fish, ticks, seconds, &out, &summary, &outcome.left_out);
    print_health(outcome.log.rows(), &experiment.config);
    print_decisions(layer.as_ref(), server.as_ref());
    Ok(())
}

/// The health check of a run's last sample (its marks against a real
/// school's ranges and the diagnosis), in either space.
fn print_health<V: Vector>(rows: &[Metrics], config: &RunConfig<V>) {
    let health = Health::assess(rows, &config.params, &config.tank);
    println!("health at the last sample (tick {}):", rows.last().map_or(0, |m| m.tick));
    print!("{health}");
}

/// The decision layer `run` was asked for (`None` without `--decide`), set
/// from the options, its horizon in the run's seconds (`dt` a tick), and
/// the model server's report; its settings without `--decide` are refused.
fn asked_layer<V: Vector>(
    decide: Option<Decide>,
    settings: &LayerOptions,
    dt: f32,
) -> Result<(Option<DecisionLayer<V>>, Option<ServerReport>), Error> {
    match decide {
        None if settings.given() => Err("the decision layer's settings (--decision, --units, --decide-timeout, \
                                --decide-workers, --expected-latency, --leader-period, --follower-period, --requests-per-minute, \
                                --tokens-per-hour) need --decide"
            .into()),
        None => Ok((None, None)),
        Some(kind) => {
            // The model is told its decisions' horizon in this run's seconds.
            let decision = DecisionConfig { tick_seconds: dt, ..settings.config()? };
            let (layer, server) = decision_layer(kind, decision)?;
            Ok((Some(layer), server))
        }
    }
}

/// What the decision layer did, if there was one: its counts, the model
/// server's, and the causes of the last fallbacks.
fn print_decisions<V: Vector>(layer: Option<&DecisionLayer<V>>, server: Option<&ServerReport>) {
    if let Some(layer) = layer {
        let s = layer.stats();
        println!(
            "decisions: {} ({} from the cache, hit rate {:.0} %), {} requests ({} given up unsent, {} held over waiting for a worker, {} over budget), {} fallbacks ({} timeouts, {} errors, {} malformed, {} unfit), {} late answers dropped, {} goal commands",
            s.decisions,
            s.cache_hits,
            layer.cache().hit_rate() * 100.0,
            s.requests,
            s.dropped_unsent,
            s.deferred,
            s.over_budget,
            s.fallbacks,
            s.timeouts,
            s.errors,
            s.malformed,
            s.unfit,
            s.late,
            s.commands
        );
        if let Some(server) = server {
            println!("model server: {}", server());
        }
        // The causes, not only their count.
        if layer.recent_failures().len() > 0 {
            println!("last fallbacks:");
            for failure in layer.recent_failures() {
                println!("  {failure}");
            }
        }
    }
}

/// `run` in a volume, with a decision layer if asked.
fn run_volume(
    config: VolumeConfig,
    length: Length,
    decide: Option<Decide>,
    settings: &LayerOptions,
    realtime: bool,
) -> Result<(), Error> {
    let script: Vec<Stamped<VolumeCommand>> = length.prepare()?;
    let Length { ticks, warmup, out, .. } = length;
    let experiment = VolumeExperiment::new(config, ticks, warmup).with_commands(script);
    let bar = progress_bar(ticks, "ticks");
    let clock = Instant::now();
    let (mut layer, server) = asked_layer(decide, settings, experiment.config.dt)?;
    let pace = Pace::new(realtime, experiment.config.dt);
    let outcome = experiment.run_planned(
        |t| bar.set_position(t),
        |flock| {
            pace.wait(flock.tick());
            match layer.as_mut() {
                Some(layer) => layer.plan(flock, flock.tank(), flock.scene()),
                None => Vec::new(),
            }
        },
    )?;
    bar.finish_and_clear();
    let seconds = clock.elapsed().as_secs_f64();
    let summary = outcome.summarize(warmup);
    experiment.write_results(&out, &outcome, &summary)?;
    let fish = format!("{} fish in a volume", experiment.config.total_fish());
    print_run(&fish, ticks, seconds, &out, &summary, &outcome.left_out);
    let rows: Vec<Metrics> = outcome.samples.iter().copied().map(Metrics::from).collect();
    print_health(&rows, &experiment.config);
    print_decisions(layer.as_ref(), server.as_ref());
    Ok(())
}

/// Prints what a run did (`fish`: how many, where), its pace, where its
/// results went, their summary and the commands left out.
fn print_run(
    fish: &str,
    ticks: u64,
    seconds: f64,
    out: &Path,
    summary: &mirofish_lab::experiment::RunSummary,
    left_out: &[String],
) {
    println!(
        "{fish}, {ticks} ticks in {seconds:.2} s ({:.2} ms/tick); results in {}",
        seconds * 1e3 / ticks.max(1) as f64,
        out.display()
    );
    print_summary(summary);
    print_left_out(left_out);
}

/// Prints each metric's mean, standard deviation and autocorrelation time.
fn print_summary(summary: &mirofish_lab::experiment::RunSummary) {
    for m in &summary.metrics {
        println!(
            "  {:<20} mean {:>12.4}  sd {:>10.4}  tau {:>7.0} ticks",
            m.name,
            m.summary.mean,
            m.summary.variance.sqrt(),
            m.autocorrelation_ticks
        );
    }
}

/// The `replay` command: runs a recorded run again and prints what it
/// checked, or records it again into `rerecord`.
fn replay<S: Scenario>(file: &Path, rerecord: Option<&Path>, space: &str) -> Result<(), Error> {
    let recording = RecordingOf::<S>::load(file)?;
    if let Some(out) = rerecord {
        let again = recording.rerecord()?;
        again.save(out)?;
        let changed = again.checkpoints.iter().zip(&recording.checkpoints).filter(|(a, b)| a != b).count();
        println!(
            "{}: a run {space}, {} ticks, {} commands, recorded again into {} ({changed} of {} checkpoints changed)",
            file.display(),
            again.ticks,
            again.commands.len(),
            out.display(),
            again.checkpoints.len()
        );
        return Ok(());
    }
    let bar = progress_bar(recording.ticks, "replay");
    let end = recording.replay_watched(|tick| bar.set_position(tick))?;
    bar.finish_and_clear();
    println!(
        "{}: a run {space}, {} ticks, {} commands, {} checkpoints identical; final state hash {:016x}",
        file.display(),
        recording.ticks,
        recording.commands.len(),
        recording.checkpoints.len(),
        S::hash(&end)
    );
    Ok(())
}

/// Reads a RON file (a command script), the error naming the file.
fn read_ron<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = mirofish_lab::read_text(path)?;
    Ok(ron::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// The space a replay file records (from its first line), if it is one.
fn replay_space(file: &Path) -> Result<Option<String>, Error> {
    use std::io::{BufRead, Read};
    let mut first = String::new();
    let opened = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    // A header is one short line: reading more would only read the body.
    std::io::BufReader::new(opened.take(4096)).read_line(&mut first).ok();
    Ok(space_of(&first).map(str::to_owned))
}

/// The `couzin` command: the sweep, its CSV and plot, and a state table.
#[expect(clippy::too_many_arguments, reason = "one per command-line option")]
fn couzin(
    dims: u8,
    fish: usize,
    seeds: u64,
    to: f32,
    step: f32,
    settle: u64,
    measure: u64,
    out: &Path,
) -> Result<(), Error> {
    if !(step > 0.0 && to >= 0.0 && to / step <= 1000.0) {
        return Err("--step must be positive and --to / --step at most 1000".into());
    }
    let sweep = Hysteresis {
        fish,
        widths: (0..=(to / step).round() as usize).map(|k| k as f32 * step).collect(),
        seeds: (1..=seeds.max(1)).collect(),
        settle,
        measure,
        ..Hysteresis::default()
    };
    let bar = progress_bar(sweep.seeds.len() as u64, "seeds");
    let steps = match dims {
        2 => sweep.run::<mirofish_sim::Vec2>(|done| bar.set_position(done as u64))?,
        3 => sweep.run::<mirofish_sim::Vec3>(|done| bar.set_position(done as u64))?,
        _ => return Err(format!("--dims must be 2 or 3, not {dims}").into()),
    };
    bar.finish_and_clear();
    let mut dir = OutDir::create(out)?;
    let mut csv = String::from("width,rising,polarization,polarization_se,milling,milling_se\n");
    for s in &steps {
        csv += &format!(
            "{},{},{:.4},{:.4},{:.4},{:.4}\n",
            s.width, s.rising, s.polarization.0, s.polarization.1, s.milling.0, s.milling.1
        );
    }
    std::fs::write(dir.file("couzin.csv"), csv)?;
    let points = |rising: bool, milling: bool| -> Vec<(f32, f64, f64)> {
        steps
            .iter()
            .filter(|s| s.rising == rising)
            .map(|s| {
                let (m, e) = if milling { s.milling } else { s.polarization };
                (s.width, m, e)
            })
            .collect()
    };
    let (pu, pd, mu, md) =
        (points(true, false), points(false, false), points(true, true), points(false, true));
    let colour = |r, g, b| plotters::style::RGBColor(r, g, b);
    lines_with_errors(
        &dir.file("couzin.png"),
        (960, 600),
        &format!(
            "Couzin's zones, {fish} fish in {dims}D, {} seeds: orientation width up, then down",
            sweep.seeds.len()
        ),
        "orientation zone width (repulsion radius 10, attraction zone 140 wide)",
        "order parameter (mean ± standard error over seeds)",
        0.0..1.05,
        &[
            Series { name: "polarization, width rising", colour: colour(31, 119, 180), points: &pu },
            Series { name: "polarization, width falling", colour: colour(23, 190, 207), points: &pd },
            Series { name: "milling, width rising", colour: colour(214, 39, 40), points: &mu },
            Series { name: "milling, width falling", colour: colour(255, 127, 14), points: &md },
        ],
    )?;
    dir.keep();
    println!("{:>6} {:>7} {:>14} {:>14}  state", "width", "way", "polarization", "milling");
    for s in &steps {
        println!(
            "{:>6} {:>7} {:>7.3}±{:.3} {:>7.3}±{:.3}  {}",
            s.width,
            if s.rising { "up" } else { "down" },
            s.polarization.0,
            s.polarization.1,
            s.milling.0,
            s.milling.1,
            collective::state(s.polarization.0, s.milling.0)
        );
    }
    println!("wrote {} and {}", out.join("couzin.csv").display(), out.join("couzin.png").display());
    Ok(())
}

/// The `turn` command: one run per seed, the share responded over time
/// (with the control) as CSV and plot, and the times.
fn turn(config: &ExperimentConfig, experiment: &TurnResponse, seeds: u64, out: &Path) -> Result<(), Error> {
    let seeds: Vec<u64> = (1..=seeds.max(1)).collect();
    let bar = progress_bar(seeds.len() as u64, "seeds");
    let mut results = Vec::new();
    for &seed in &seeds {
        results.push(experiment.run(&ExperimentConfig { seed, ..config.clone() })?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mean_se = |values: &[f64]| collective::mean_and_error(values.iter().copied());
    let dt = f64::from(config.dt);
    let curve = |pick: fn(&mirofish_lab::turn::TurnResult) -> &[f32]| -> Vec<(f32, f64, f64)> {
        (0..experiment.watch as usize)
            .map(|k| {
                let at: Vec<f64> = results.iter().map(|r| f64::from(pick(r)[k])).collect();
                let (m, e) = mean_se(&at);
                ((k + 1) as f32 * config.dt, m, e)
            })
            .collect()
    };
    let (responded, control) = (curve(|r| &r.responded), curve(|r| &r.control));
    let mut dir = OutDir::create(out)?;
    let mut csv = String::from("seconds,responded,responded_se,control,control_se\n");
    for (r, c) in responded.iter().zip(&control) {
        csv += &format!("{:.4},{:.4},{:.4},{:.4},{:.4}\n", r.0, r.1, r.2, c.1, c.2);
    }
    std::fs::write(dir.file("turn.csv"), csv)?;
    let colour = |r, g, b| plotters::style::RGBColor(r, g, b);
    lines_with_errors(
        &dir.file("turn.png"),
        (960, 600),
        &format!(
            "Turn response, {} fish, front {:.0} % turned {:.0}°, {} seeds",
            config.total_fish(),
            experiment.front * 100.0,
            experiment.angle.to_degrees(),
            seeds.len()
        ),
        "seconds after the front turned",
        "share of the rest turned past 45° (mean ± s.e.)",
        0.0..1.05,
        &[
            Series { name: "front turned", colour: colour(31, 119, 180), points: &responded },
            Series { name: "control (no turn)", colour: colour(127, 127, 127), points: &control },
        ],
    )?;
    dir.keep();
    let times = |share: f32| -> (Option<(f64, f64)>, usize) {
        let t: Vec<f64> = results.iter().filter_map(|r| r.time_to(share)).map(f64::from).collect();
        ((!t.is_empty()).then(|| mean_se(&t)), t.len())
    };
    let show = |(t, n): (Option<(f64, f64)>, usize)| match t {
        Some((m, e)) => format!("{m:.2} ± {e:.2} s ({n} of {} seeds)", results.len()),
        None => format!("not reached in {:.1} s", experiment.watch as f64 * dt),
    };
    let speeds: Vec<f64> = results.iter().filter_map(|r| r.speed()).map(f64::from).collect();
    let polarization: Vec<f64> = results.iter().map(|r| f64::from(r.polarization)).collect();
    let spontaneous: Vec<f64> = results.iter().map(|r| f64::from(r.spontaneous())).collect();
    let (p, pe) = mean_se(&polarization);
    let (s, se) = mean_se(&spontaneous);
    println!("polarization at the turn   {p:.3} ± {pe:.3}");
    println!("half the school turned     {}", show(times(0.5)));
    println!("nine tenths turned         {}", show(times(0.9)));
    match speeds.is_empty() {
        true => println!("turn travels back at       (no clear trend with distance)"),
        false => {
            let (v, ve) = mean_se(&speeds);
            println!(
                "turn travels back at       {v:.0} ± {ve:.0} units/s ({} of {} seeds)",
                speeds.len(),
                results.len()
            );
        }
    }
    println!("turned on their own        {:.1} % ± {:.1} % (control)", s * 100.0, se * 100.0);
    println!("wrote {} and {}", out.join("turn.csv").display(), out.join("turn.png").display());
    Ok(())
}

/// Prints the table of `mirofish-lab schools`, a row as each run ends.
fn school_table(
    names: &[String],
    files: &[PathBuf],
    seeds: u64,
    from: f32,
    to: f32,
    blob: bool,
) -> Result<(), Error> {
    if seeds == 0 {
        return Err("--seeds must be at least 1".into());
    }
    let mut runs: Vec<_> = schools::StandardRun::all()
        .into_iter()
        .filter(|r| names.contains(&r.name) || (names.is_empty() && files.is_empty()))
        .collect();
    for path in files {
        let start = match (Start { config: Some(path.clone()), ..Start::default() }).load_in(None)? {
            Loaded::Plane(config) => schools::Start::Plane(config),
            Loaded::Volume(config) => schools::Start::Volume(config),
        };
        let name =
            path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into());
        runs.push(schools::StandardRun { name, start });
    }
    let runs: Vec<_> = runs.into_iter().map(|r| if blob { r.from_blob() } else { r }).collect();
    let start = if blob { ", every run from a blob" } else { "" };
    println!("{seeds} seeds each, a sample every second from {from} s to {to} s of simulated time{start}");
    println!("{}", schools::header());
    let mut held = 0;
    for run in &runs {
        let row = schools::row(run, seeds, from, to)?;
        held += usize::from(row.holds());
        println!("{row}");
    }
    println!("{}", schools::legend());
    println!(
        "{held} of {} runs hold as schools (every measure natural in 80 % of samples and acceptable in 95 %; \
         under a tenth at the walls in 90 %)",
        runs.len()
    );
    Ok(())
}

fn write_presets(out: &Path) -> Result<(), Error> {
    let mut dir = OutDir::create(out)?;
    let mut written = Vec::new();
    for preset in Preset::all() {
        let path = dir.file(&format!("{}.ron", preset.name));
        ExperimentConfig::from(&preset).save(&path)?;
        written.push(path);
    }
    dir.keep();
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
