//! Regression baselines: the summary of a fixed run, with a tolerance
//! band per metric, and the check that a build still lands inside it.
//!
//! A baseline is measured over several seeds, and so is the check: the
//! band of each metric is the mean over seeds ± 4 standard errors of that
//! mean (the seed-to-seed standard deviation over √seeds, with a small
//! floor). That is wide enough that a harmless change — reordering a
//! floating-point sum, which changes every trajectory — stays inside, and
//! narrow enough that a changed rule or weight does not.
//!
//! Updating on purpose, after a change that is meant to alter behaviour:
//!
//! ```text
//! cargo run --release -p mirofish_lab -- baseline --update
//! ```
//!
//! then commit `assets/baselines/reference.ron` with a note on why. A
//! baseline of a run in a volume (`assets/baselines/volume.ron`) holds its
//! [`VolumeConfig`] and guards [`GUARDED_VOLUME`]:
//!
//! ```text
//! cargo run --release -p mirofish_lab -- baseline --file assets/baselines/volume.ron --update
//! ```

use std::path::Path;

use mirofish_sim::{ExperimentConfig, Preset, VolumeConfig};

use crate::Error;
use crate::experiment::{Experiment, summarize};
use crate::volume::VolumeExperiment;

/// Metrics a baseline guards.
pub const GUARDED: [&str; 9] = [
    "polarization",
    "milling",
    "nearest_neighbour",
    "bounding_box_area",
    "mean_neighbours",
    "mean_speed",
    "force_separation",
    "force_alignment",
    "force_cohesion",
];

/// Metrics a baseline of a run in a volume guards.
pub const GUARDED_VOLUME: [&str; 7] = [
    "polarization",
    "milling",
    "nearest_neighbour",
    "bounding_volume",
    "mean_neighbours",
    "mean_speed",
    "length_along_heading",
];

/// The stored baseline of one preset on a plane, or of one run in a
/// volume.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// The preset run on a plane; with `volume` set, the volume run's name.
    pub preset: String,
    /// The run in a volume this baseline guards (its seed and fish count
    /// replaced by the baseline's), instead of the plane's preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<VolumeConfig>,
    /// Fish count (overrides the preset's, to keep the check quick).
    pub fish: usize,
    /// Ticks per run.
    pub ticks: u64,
    /// Ticks left out of the summary.
    pub warmup: u64,
    /// Seeds the bands were measured over, and that the check runs.
    pub seeds: Vec<u64>,
    /// One band per guarded metric.
    pub bands: Vec<Band>,
}

/// The accepted range of one metric's run mean.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    /// Metric name.
    pub metric: String,
    /// Mean over seeds of the run means.
    pub mean: f64,
    /// Accepted distance from `mean`.
    pub tolerance: f64,
}

/// A metric outside its band.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// Metric name.
    pub metric: String,
    /// The run's mean (`None`: the metric was not measured at all).
    pub found: Option<f64>,
    /// The band.
    pub band: Band,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Band { mean, tolerance, .. } = self.band;
        match self.found {
            Some(v) => write!(f, "{} = {v:.4}, outside {mean:.4} ± {tolerance:.4}", self.metric),
            None => write!(f, "{} was not measured (expected {mean:.4} ± {tolerance:.4})", self.metric),
        }
    }
}

impl Baseline {
    fn config(preset: &str, fish: usize, seed: u64) -> Result<ExperimentConfig, Error> {
        let preset = Preset::by_name(preset).ok_or_else(|| format!("unknown preset `{preset}`"))?;
        Ok(ExperimentConfig { fish, seed, ..ExperimentConfig::from(&preset) })
    }

    /// The metrics this baseline guards: [`GUARDED`] on a plane,
    /// [`GUARDED_VOLUME`] in a volume.
    pub fn guarded(&self) -> &'static [&'static str] {
        guarded(self.volume.is_some())
    }

    /// The guarded metrics' run means for one seed of the plane's preset.
    pub fn run_means(
        preset: &str,
        fish: usize,
        ticks: u64,
        warmup: u64,
        seed: u64,
    ) -> Result<Vec<Option<f64>>, Error> {
        Self::means_of(preset, None, fish, ticks, warmup, seed)
    }

    /// The guarded metrics' run means for one seed, of the preset or, if
    /// given, of the run in a volume.
    fn means_of(
        preset: &str,
        volume: Option<&VolumeConfig>,
        fish: usize,
        ticks: u64,
        warmup: u64,
        seed: u64,
    ) -> Result<Vec<Option<f64>>, Error> {
        let summary = match volume {
            None => {
                let log = Experiment::new(Self::config(preset, fish, seed)?, ticks, warmup).run(|_| {})?;
                summarize(&log, warmup)
            }
            Some(volume) => {
                let config = VolumeConfig { fish, seed, ..volume.clone() };
                VolumeExperiment::new(config, ticks, warmup).run(|_| {})?.summarize(warmup)
            }
        };
        let metrics = guarded(volume.is_some());
        Ok(metrics.iter().map(|m| summary.metric(m).map(|s| s.summary.mean)).collect())
    }

    /// Each guarded metric's mean over `seeds` (run in parallel) and its
    /// standard error.
    fn seed_means(
        preset: &str,
        volume: Option<&VolumeConfig>,
        fish: usize,
        ticks: u64,
        warmup: u64,
        seeds: &[u64],
    ) -> Result<Vec<Option<(f64, f64)>>, Error> {
        use rayon::prelude::*;
        if seeds.is_empty() {
            return Err("a baseline needs at least one seed".into());
        }
        let runs: Vec<Vec<Option<f64>>> = seeds
            .par_iter()
            .map(|&s| Self::means_of(preset, volume, fish, ticks, warmup, s))
            .collect::<Result<_, _>>()?;
        Ok((0..guarded(volume.is_some()).len())
            .map(|i| {
                let values: Vec<f64> = runs.iter().filter_map(|r| r[i]).collect();
                let s = mirofish_sim::observe::stats::Summary::of(&values);
                (!values.is_empty()).then(|| (s.mean, (s.variance / values.len() as f64).sqrt()))
            })
            .collect())
    }

    /// Measures a baseline of the plane's `preset` over `seeds`.
    pub fn measure(
        preset: &str,
        fish: usize,
        ticks: u64,
        warmup: u64,
        seeds: Vec<u64>,
    ) -> Result<Self, Error> {
        Self::measure_run(preset, None, fish, ticks, warmup, seeds)
    }

    /// Measures a baseline of the run in a volume `config` (named `name`)
    /// over `seeds`, with `fish` fish.
    pub fn measure_volume(
        name: &str,
        config: VolumeConfig,
        fish: usize,
        ticks: u64,
        warmup: u64,
        seeds: Vec<u64>,
    ) -> Result<Self, Error> {
        Self::measure_run(name, Some(config), fish, ticks, warmup, seeds)
    }

    fn measure_run(
        preset: &str,
        volume: Option<VolumeConfig>,
        fish: usize,
        ticks: u64,
        warmup: u64,
        seeds: Vec<u64>,
    ) -> Result<Self, Error> {
        let means = Self::seed_means(preset, volume.as_ref(), fish, ticks, warmup, &seeds)?;
        let bands = guarded(volume.is_some())
            .iter()
            .zip(means)
            .map(|(metric, m)| {
                let (mean, error) = m.ok_or_else(|| format!("{metric} was never measured"))?;
                // The floor keeps a metric that happens to agree closely
                // across seeds from failing on the last bit.
                let tolerance = (4.0 * error).max(0.01 * mean.abs()).max(1e-3);
                Ok(Band { metric: (*metric).to_owned(), mean, tolerance })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Self { preset: preset.to_owned(), volume, fish, ticks, warmup, seeds, bands })
    }

    /// Re-runs every seed and returns each metric whose mean over seeds is
    /// outside its band.
    pub fn check(&self) -> Result<Vec<Violation>, Error> {
        let means: Vec<Option<f64>> = Self::seed_means(
            &self.preset,
            self.volume.as_ref(),
            self.fish,
            self.ticks,
            self.warmup,
            &self.seeds,
        )?
        .into_iter()
        .map(|m| m.map(|(mean, _)| mean))
        .collect();
        Ok(self
            .bands
            .iter()
            .filter_map(|band| {
                let found = self.guarded().iter().position(|m| *m == band.metric).and_then(|i| means[i]);
                let inside = found.is_some_and(|v| (v - band.mean).abs() <= band.tolerance);
                (!inside).then(|| Violation { metric: band.metric.clone(), found, band: band.clone() })
            })
            .collect())
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = crate::read_text(path)?;
        ron::from_str(&text).map_err(|e| format!("{}: {e}", path.display()).into())
    }

    /// Writes the baseline file.
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        let pretty = ron::ser::PrettyConfig::new().struct_names(false);
        std::fs::write(path, ron::ser::to_string_pretty(self, pretty)?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    }
}

/// The metrics guarded in a volume or on a plane.
fn guarded(volume: bool) -> &'static [&'static str] {
    if volume { &GUARDED_VOLUME } else { &GUARDED }
}
