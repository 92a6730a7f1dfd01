//! The `headless` example's run, shared with the web page: the plugin
//! without a window or GPU, a fixed number of ticks, and the figures a
//! comparison from the shell needs (order parameter, mean speed, state
//! hash). The web page runs the same function in the browser, so its hash
//! can be compared with a native run's.

use std::fmt;

use bevy::app::ScheduleRunnerPlugin;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_sim::observe::{self, RuleForceMeans};
use mirofish_sim::{BoundaryMode, Preset};

/// What to run: a preset or the reference parameters, a count, a seed and a
/// number of ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlessRun {
    /// Fish; default the preset's count, or 2,000.
    pub fish: Option<usize>,
    /// A named preset ([`Preset::by_name`]); default the reference
    /// parameters in a tank sized for 6.5 neighbours per fish.
    pub preset: Option<Preset>,
    /// Fixed ticks to run.
    pub ticks: u32,
    /// The run's seed.
    pub seed: u64,
    /// Threads of the global pool (set by the caller, before the run; the
    /// hash does not depend on it).
    pub threads: Option<usize>,
    /// What the tank's walls do.
    pub boundary: BoundaryMode,
}

impl Default for HeadlessRun {
    fn default() -> Self {
        Self {
            fish: None,
            preset: None,
            ticks: 600,
            seed: 1,
            threads: None,
            boundary: BoundaryMode::SoftMargin,
        }
    }
}

/// The arguments [`HeadlessRun::parse`] takes.
pub const USAGE: &str = "usage: headless [--preset NAME] [--fish N] [--ticks N] [--seed N] [--threads N] \
                         [--boundary wrap|bounce|soft]";

impl HeadlessRun {
    /// Reads command-line style arguments (see [`USAGE`]); `Err` says which
    /// argument is wrong (or is the usage, for `--help`).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut run = Self::default();
        let mut it = args.into_iter();
        while let Some(flag) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
            let bad = |e: &dyn fmt::Display| format!("{flag}: {e}");
            match flag.as_str() {
                "--fish" => run.fish = Some(value()?.parse().map_err(|e| bad(&e))?),
                "--preset" => {
                    let name = value()?;
                    run.preset = Some(Preset::by_name(&name).ok_or_else(|| {
                        format!("--preset: unknown preset {name}; known: {}", Preset::names().join(", "))
                    })?);
                }
                "--ticks" => run.ticks = value()?.parse().map_err(|e| bad(&e))?,
                "--seed" => run.seed = value()?.parse().map_err(|e| bad(&e))?,
                "--threads" => run.threads = Some(value()?.parse().map_err(|e| bad(&e))?),
                "--boundary" => {
                    run.boundary = match value()?.as_str() {
                        "wrap" => BoundaryMode::Wrap,
                        "bounce" => BoundaryMode::Bounce,
                        "soft" => BoundaryMode::SoftMargin,
                        other => {
                            return Err(format!("--boundary: expected wrap, bounce or soft, got {other}"));
                        }
                    }
                }
                "-h" | "--help" => return Err(USAGE.into()),
                other => return Err(format!("unknown argument {other} (try --help)")),
            }
        }
        if run.fish.is_some_and(|n| n > mirofish_sim::MAX_FISH) {
            return Err(format!("--fish: at most {}", mirofish_sim::MAX_FISH));
        }
        Ok(run)
    }

    /// Runs the plugin headless for the ticks asked, one fixed tick per
    /// update whatever the wall clock does.
    pub fn run(&self) -> HeadlessReport {
        // A preset brings its own count and tank; otherwise the reference
        // parameters at a realistic density: mean 6.5 neighbours at the
        // start (5–8 looks natural).
        let (fish, params, tank) = match self.preset {
            Some(p) => (self.fish.unwrap_or(p.count), p.params, p.tank),
            None => {
                let fish = self.fish.unwrap_or(2000);
                let params = FlockParams::default();
                (fish, params, Tank::for_mean_neighbours(fish, params.perception_radius, 6.5, 16.0 / 9.0))
            }
        };
        let tank = tank.with_boundary(self.boundary);
        let config = FlockConfig { params, tank, seed: self.seed, ..default() };

        let mut app = App::new();
        app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
            .insert_resource(config)
            .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0).without_interpolation())
            .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
        app.world_mut().commands().queue(SpawnSchool::new(fish));
        // Keep each rule's force, for the report.
        app.world_mut().resource_mut::<FlockState>().set_record_rules(true);

        // Bevy's first update has a zero time delta and runs no fixed
        // tick; count ticks, not updates.
        let ticks = |app: &App| app.world().resource::<FlockState>().flock().tick();
        let start = Instant::now();
        while ticks(&app) < u64::from(self.ticks) {
            app.update();
        }
        let elapsed = start.elapsed();

        let flock = app.world().resource::<FlockState>().flock();
        HeadlessReport {
            fish: flock.len(),
            ticks: flock.tick(),
            seed: self.seed,
            polarization: observe::polarization(flock.velocities()),
            mean_speed: observe::mean_speed(flock.velocities()),
            neighbours: observe::mean_neighbours(flock.neighbour_counts()),
            nearest: flock.metrics().nearest_neighbour,
            forces: observe::mean_rule_forces(flock.samples()).unwrap_or_default(),
            state_hash: observe::state_hash(flock),
            ms_per_tick: elapsed.as_secs_f64() * 1e3 / f64::from(self.ticks.max(1)),
        }
    }
}

/// What a [`HeadlessRun`] measured; `Display` prints one figure a line, the
/// state hash on the line that starts `state hash`.
#[derive(Clone, Debug)]
pub struct HeadlessReport {
    /// Fish at the end.
    pub fish: usize,
    /// Ticks run.
    pub ticks: u64,
    /// The run's seed.
    pub seed: u64,
    /// Order parameter, 0 (disordered) to 1 (all one way).
    pub polarization: f32,
    /// Mean speed.
    pub mean_speed: f32,
    /// Mean neighbours within the perception radius.
    pub neighbours: f32,
    /// Mean distance to the nearest neighbour, if any fish has one within
    /// the perception radius.
    pub nearest: Option<f32>,
    /// Mean size of each rule's force in the last tick.
    pub forces: RuleForceMeans,
    /// Hash of every position and velocity ([`observe::state_hash`]).
    pub state_hash: u64,
    /// Wall time per tick, milliseconds (plugin included).
    pub ms_per_tick: f64,
}

impl fmt::Display for HeadlessReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fish          {}", self.fish)?;
        writeln!(f, "ticks         {}", self.ticks)?;
        writeln!(f, "seed          {}", self.seed)?;
        writeln!(f, "polarization  {:.4}", self.polarization)?;
        writeln!(f, "mean speed    {:.3}", self.mean_speed)?;
        writeln!(f, "neighbours    {:.2}", self.neighbours)?;
        match self.nearest {
            Some(d) => writeln!(f, "nearest       {d:.2}")?,
            None => writeln!(f, "nearest       none within perception")?,
        }
        let r = &self.forces;
        writeln!(
            f,
            "rule forces   separation {:.1}  alignment {:.1}  cohesion {:.1}  wander {:.1}  boundary {:.1}",
            r.separation, r.alignment, r.cohesion, r.wander, r.boundary
        )?;
        writeln!(f, "state hash    {:016x}", self.state_hash)?;
        write!(f, "ms per tick   {:.3}", self.ms_per_tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn arguments_are_read_and_wrong_ones_named() {
        let run = HeadlessRun::parse(args("--fish 300 --ticks 20 --seed 9 --boundary wrap")).unwrap();
        assert_eq!((run.fish, run.ticks, run.seed, run.boundary), (Some(300), 20, 9, BoundaryMode::Wrap));
        assert!(HeadlessRun::parse(args("--fish")).unwrap_err().contains("--fish needs a value"));
        assert!(HeadlessRun::parse(args("--fish many")).unwrap_err().starts_with("--fish:"));
        assert!(HeadlessRun::parse(args("--fish 99999999")).unwrap_err().contains("at most"));
        assert!(HeadlessRun::parse(args("--preset nothing")).unwrap_err().contains("known:"));
        assert!(HeadlessRun::parse(args("--boundary sideways")).is_err());
        assert!(HeadlessRun::parse(args("--colour red")).unwrap_err().contains("unknown argument"));
    }

    #[test]
    fn the_same_run_gives_the_same_hash_and_reports_it() {
        let run = HeadlessRun { fish: Some(200), ticks: 30, seed: 3, ..HeadlessRun::default() };
        let (a, b) = (run.run(), run.run());
        assert_eq!((a.fish, a.ticks), (200, 30));
        assert_eq!(a.state_hash, b.state_hash);
        let other = HeadlessRun { seed: 4, ..run }.run();
        assert_ne!(a.state_hash, other.state_hash);
        assert!(a.to_string().contains(&format!("state hash    {:016x}", a.state_hash)));
    }
}
