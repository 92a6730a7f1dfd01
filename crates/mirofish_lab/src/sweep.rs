//! Parameter sweeps: one parameter over a range, several seeds per value,
//! every run summarized. The classic use is the ordering transition: as
//! the alignment weight grows from 0, polarization rises from the
//! disordered level to near 1.

use rayon::prelude::*;

use mirofish_sim::ExperimentConfig;
use mirofish_sim::control::tuning::{Knob, knob};

use crate::Error;
use crate::experiment::{Experiment, summarize};

/// Metrics a sweep reports for every run.
pub const SWEEP_METRICS: [&str; 4] = ["polarization", "milling", "nearest_neighbour", "mean_neighbours"];

/// A sweep to perform.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The base configuration; its seed is replaced by each run's.
    pub base: ExperimentConfig,
    /// The parameter, by its field name (see `mirofish_sim::control::tuning`).
    pub parameter: String,
    /// The values it takes.
    pub values: Vec<f32>,
    /// The seeds run for each value.
    pub seeds: Vec<u64>,
    /// Ticks per run.
    pub ticks: u64,
    /// Ticks left out of each run's summary.
    pub warmup: u64,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// The parameter's value.
    pub value: f32,
    /// The seed.
    pub seed: u64,
    /// Mean of each of [`SWEEP_METRICS`] over the run (after the warmup);
    /// `None` if never available.
    pub means: [Option<f64>; SWEEP_METRICS.len()],
}

/// `steps` values evenly spaced from `from` to `to` inclusive.
pub fn linspace(from: f32, to: f32, steps: usize) -> Vec<f32> {
    match steps {
        0 => Vec::new(),
        1 => vec![from],
        n => (0..n).map(|i| from + (to - from) * i as f32 / (n - 1) as f32).collect(),
    }
}

impl Sweep {
    /// The knob being swept, or an error naming the unknown parameter.
    pub fn knob(&self) -> Result<&'static Knob, Error> {
        knob(&self.parameter).ok_or_else(|| {
            let names: Vec<&str> = mirofish_sim::control::tuning::KNOBS.iter().map(|k| k.name).collect();
            format!("unknown parameter `{}`; one of: {}", self.parameter, names.join(", ")).into()
        })
    }

    /// Runs every `(value, seed)` pair, in parallel, and returns the rows
    /// ordered by value then seed. `progress` is called with the number of
    /// finished runs. Every configuration is validated before anything runs.
    pub fn run(&self, progress: impl Fn(usize) + Sync) -> Result<Vec<SweepRow>, Error> {
        let knob = self.knob()?;
        let jobs: Vec<(f32, u64, ExperimentConfig)> = self
            .values
            .iter()
            .flat_map(|&value| self.seeds.iter().map(move |&seed| (value, seed)))
            .map(|(value, seed)| {
                let mut config = self.base.clone();
                config.seed = seed;
                (knob.set)(&mut config.params, value);
                config.validate().map(|()| (value, seed, config))
            })
            .collect::<Result<_, _>>()?;
        let done = std::sync::atomic::AtomicUsize::new(0);
        jobs.into_par_iter()
            .map(|(value, seed, config)| {
                let log = Experiment::new(config, self.ticks, self.warmup).run(|_| {})?;
                let summary = summarize(&log, self.warmup);
                let means = SWEEP_METRICS.map(|m| summary.metric(m).map(|s| s.summary.mean));
                progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
                Ok(SweepRow { value, seed, means })
            })
            .collect()
    }
}

/// Writes `parameter,seed,<metrics…>` with one line per run.
pub fn write_csv(parameter: &str, rows: &[SweepRow], mut out: impl std::io::Write) -> std::io::Result<()> {
    writeln!(out, "{parameter},seed,{}", SWEEP_METRICS.join(","))?;
    for r in rows {
        let cells: Vec<String> =
            r.means.iter().map(|m| m.map(|x| x.to_string()).unwrap_or_default()).collect();
        writeln!(out, "{},{},{}", r.value, r.seed, cells.join(","))?;
    }
    Ok(())
}

/// Mean and standard deviation over seeds of metric `index` at each value,
/// in value order.
pub fn by_value(rows: &[SweepRow], index: usize) -> Vec<(f32, f64, f64)> {
    let mut out: Vec<(f32, Vec<f64>)> = Vec::new();
    for r in rows {
        let Some(m) = r.means[index] else { continue };
        match out.last_mut() {
            Some((v, ms)) if *v == r.value => ms.push(m),
            _ => out.push((r.value, vec![m])),
        }
    }
    out.into_iter()
        .map(|(v, ms)| {
            let s = mirofish_sim::observe::stats::Summary::of(&ms);
            (v, s.mean, s.variance.sqrt())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_includes_both_ends() {
        assert_eq!(linspace(0.0, 2.0, 5), [0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(linspace(3.0, 9.0, 1), [3.0]);
        assert!(linspace(0.0, 1.0, 0).is_empty());
    }

    #[test]
    fn unknown_and_out_of_range_parameters_are_refused_before_running() {
        let base = ExperimentConfig { fish: 10, ..ExperimentConfig::default() };
        let sweep = Sweep {
            base,
            parameter: "alignmnet_weight".into(),
            values: vec![1.0],
            seeds: vec![1],
            ticks: 10,
            warmup: 0,
        };
        let err = sweep.run(|_| {}).unwrap_err().to_string();
        assert!(err.contains("alignmnet_weight") && err.contains("alignment_weight"), "{err}");
        let sweep = Sweep { parameter: "max_speed".into(), values: vec![-5.0], ..sweep };
        assert!(sweep.run(|_| panic!("nothing may run")).unwrap_err().to_string().contains("max_speed"));
    }

    #[test]
    fn rows_come_back_in_order_and_group_by_value() {
        let base = ExperimentConfig { fish: 60, metrics_every: 10, ..ExperimentConfig::default() };
        let sweep = Sweep {
            base,
            parameter: "alignment_weight".into(),
            values: linspace(0.0, 2.0, 3),
            seeds: vec![1, 2],
            ticks: 60,
            warmup: 20,
        };
        let rows = sweep.run(|_| {}).unwrap();
        let keys: Vec<(f32, u64)> = rows.iter().map(|r| (r.value, r.seed)).collect();
        assert_eq!(keys, [(0.0, 1), (0.0, 2), (1.0, 1), (1.0, 2), (2.0, 1), (2.0, 2)]);
        let grouped = by_value(&rows, 0);
        assert_eq!(grouped.len(), 3);
        assert!(grouped.iter().all(|(_, m, s)| m.is_finite() && s.is_finite()));
        let mut csv = Vec::new();
        write_csv("alignment_weight", &rows, &mut csv).unwrap();
        assert_eq!(String::from_utf8(csv).unwrap().lines().count(), 7);
    }
}
