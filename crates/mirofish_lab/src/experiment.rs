//! One run: a configuration, a command script, ticks, metrics and their
//! summary.

use std::path::Path;

use mirofish_sim::control::replay::Recorder;
use mirofish_sim::observe::metrics::COLUMNS;
use mirofish_sim::observe::stats::Summary;
use mirofish_sim::step::command::Stamped;
use mirofish_sim::{ExperimentConfig, MetricsLog, Recording};

use crate::Error;
use crate::out_dir::OutDir;

/// Columns of the metrics CSV that are bookkeeping, not measurements.
const NOT_MEASURED: [&str; 1] = ["tick"];

/// A run to perform.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The start.
    pub config: ExperimentConfig,
    /// Commands to apply during the run.
    pub commands: Vec<Stamped>,
    /// Ticks to simulate.
    pub ticks: u64,
    /// Ticks at the start left out of the summary (the transient).
    pub warmup: u64,
    /// Hash the state every this many ticks for the recording.
    pub checkpoint_every: u64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every metrics sample.
    pub log: MetricsLog,
    /// The run as a replayable recording.
    pub recording: Recording,
    /// The commands left out, wholly or in part, each with why
    /// ([`mirofish_sim::Simulation::left_out`]).
    pub left_out: Vec<String>,
}

impl Experiment {
    /// A run of `config` for `ticks` ticks, summarized after `warmup`.
    pub fn new(config: ExperimentConfig, ticks: u64, warmup: u64) -> Self {
        Self { config, commands: Vec::new(), ticks, warmup, checkpoint_every: 600 }
    }

    /// With a command script.
    pub fn with_commands(mut self, commands: Vec<Stamped>) -> Self {
        self.commands = commands;
        self
    }

    /// Runs it, sampling metrics every `config.metrics_every` ticks
    /// (including tick 0), and calls `progress` with the ticks done so far
    /// every 1 % of the run.
    pub fn run(&self, progress: impl FnMut(u64)) -> Result<MetricsLog, Error> {
        Ok(self.run_recorded(progress)?.log)
    }

    /// Like [`Experiment::run`], also returning the recording.
    pub fn run_recorded(&self, progress: impl FnMut(u64)) -> Result<Outcome, Error> {
        self.run_planned(progress, |_| Vec::new())
    }

    /// Like [`Experiment::run_recorded`], with `plan` asked before every
    /// tick for commands to apply at its start (a decision layer's): they
    /// go into the recording like the script's.
    pub fn run_planned(
        &self,
        mut progress: impl FnMut(u64),
        mut plan: impl FnMut(&mirofish_sim::Simulation) -> Vec<mirofish_sim::FlockCommand>,
    ) -> Result<Outcome, Error> {
        let mut recorder = Recorder::new(self.config.clone(), self.checkpoint_every)?;
        for stamped in &self.commands {
            recorder.schedule(stamped.tick, stamped.command.clone())?;
        }
        // Rule forces are part of the metrics.
        let mut log = MetricsLog::new(self.config.metrics_every);
        let report_every = (self.ticks / 100).max(1);
        let observe = |recorder: &Recorder, log: &mut MetricsLog| {
            let sim = recorder.simulation();
            log.observe(sim.tick(), || sim.metrics().into());
        };
        recorder.record_rules(true);
        observe(&recorder, &mut log);
        for done in 1..=self.ticks {
            let tick = recorder.simulation().tick();
            for command in plan(recorder.simulation()) {
                recorder.schedule(tick, command)?;
            }
            recorder.step()?;
            observe(&recorder, &mut log);
            if done.is_multiple_of(report_every) || done == self.ticks {
                progress(done);
            }
        }
        let left_out = left_out_in_words(recorder.simulation().left_out());
        Ok(Outcome { log, recording: recorder.finish(), left_out })
    }
}

/// The summary of one metric.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MetricSummary {
    /// Column name (see `mirofish_sim::observe::metrics::COLUMNS`).
    pub name: String,
    /// Mean, variance and autocorrelation time (in samples).
    pub summary: Summary,
    /// The autocorrelation time in ticks.
    pub autocorrelation_ticks: f64,
}

/// The summary of a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunSummary {
    /// Ticks left out at the start.
    pub warmup: u64,
    /// The sampling interval.
    pub every: u64,
    /// One entry per metric column, in column order; metrics never
    /// available in the run are left out.
    pub metrics: Vec<MetricSummary>,
}

impl RunSummary {
    /// The summary of one metric, by column name.
    pub fn metric(&self, name: &str) -> Option<&MetricSummary> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// Writes `metric,samples,mean,variance,std_error,autocorrelation_ticks`.
    pub fn write_csv(&self, mut out: impl std::io::Write) -> std::io::Result<()> {
        writeln!(out, "metric,samples,mean,variance,std_error,autocorrelation_ticks")?;
        for m in &self.metrics {
            let s = &m.summary;
            writeln!(
                out,
                "{},{},{},{},{},{}",
                m.name,
                s.samples,
                s.mean,
                s.variance,
                s.standard_error(),
                m.autocorrelation_ticks
            )?;
        }
        Ok(())
    }
}

/// Summarizes the samples taken at or after tick `warmup`.
pub fn summarize(log: &MetricsLog, warmup: u64) -> RunSummary {
    let rows: Vec<_> = log.rows().iter().map(|r| (r.tick, r.values())).collect();
    summarize_table(&COLUMNS, &rows, log.every(), warmup)
}

/// Summarizes a table of samples taken every `every` ticks: each row its
/// tick and a value per column of `columns` (`None`: not measured then),
/// rows before `warmup` left out.
pub fn summarize_table<const N: usize>(
    columns: &[&str; N],
    rows: &[(u64, [Option<f64>; N])],
    every: u64,
    warmup: u64,
) -> RunSummary {
    let rows: Vec<_> = rows.iter().filter(|(tick, _)| *tick >= warmup).collect();
    let metrics = columns
        .iter()
        .enumerate()
        .filter(|(_, name)| !NOT_MEASURED.contains(name))
        .filter_map(|(i, name)| {
            let series: Vec<f64> = rows.iter().filter_map(|(_, values)| values[i]).collect();
            (!series.is_empty()).then(|| {
                let summary = Summary::of(&series);
                MetricSummary {
                    name: (*name).to_owned(),
                    autocorrelation_ticks: summary.autocorrelation * every as f64,
                    summary,
                }
            })
        })
        .collect();
    RunSummary { warmup, every, metrics }
}

/// Writes a run's results into `dir` (created if needed):
/// `config.ron` (the exact start, seed included), `metrics.csv`,
/// `summary.csv`, `summary.ron` and `run.replay`. If any of it fails,
/// the files and folders it made are removed again.
pub fn write_results(
    dir: &Path,
    experiment: &Experiment,
    outcome: &Outcome,
    summary: &RunSummary,
) -> Result<(), Error> {
    write_run(
        dir,
        summary,
        |csv| outcome.log.write_csv(csv),
        |path| Ok(experiment.config.save(path)?),
        |path| Ok(outcome.recording.save(path)?),
    )
}

/// Writes a run's files into `dir` (created if needed) — `metrics.csv` by
/// `metrics`, `summary.csv`, `summary.ron`, `config.ron` by `config` and
/// `run.replay` by `replay` — removing what it made if any of it fails.
pub(crate) fn write_run(
    dir: &Path,
    summary: &RunSummary,
    metrics: impl FnOnce(std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    config: impl FnOnce(&Path) -> Result<(), Error>,
    replay: impl FnOnce(&Path) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut out = OutDir::create(dir)?;
    let mut create = |name: &str| {
        let path = out.file(name);
        std::fs::File::create(&path)
            .map(std::io::BufWriter::new)
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    metrics(create("metrics.csv")?)?;
    summary.write_csv(create("summary.csv")?)?;
    config(&out.file("config.ron"))?;
    let pretty = ron::ser::PrettyConfig::new().struct_names(false);
    std::fs::write(out.file("summary.ron"), ron::ser::to_string_pretty(summary, pretty)?)?;
    replay(&out.file("run.replay"))?;
    out.keep();
    Ok(())
}

/// Each command left out, in words: its tick, the command and why.
pub fn left_out_in_words<C: core::fmt::Debug>(
    left_out: &[(mirofish_sim::Stamped<C>, mirofish_sim::ParamError)],
) -> Vec<String> {
    left_out.iter().map(|(s, why)| format!("tick {}: {:?} left out: {why}", s.tick, s.command)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirofish_sim::step::command::FlockCommand;
    use mirofish_sim::{Predator, Vec2};

    #[test]
    fn a_run_samples_summarizes_and_records() {
        let config =
            ExperimentConfig { fish: 120, seed: 4, metrics_every: 20, ..ExperimentConfig::default() };
        let script =
            vec![Stamped { tick: 50, command: FlockCommand::AddPredator(Predator::new(Vec2::ZERO, 100.0)) }];
        let experiment = Experiment::new(config, 200, 100).with_commands(script);
        let mut calls = Vec::new();
        let outcome = experiment.run_recorded(|t| calls.push(t)).unwrap();
        assert_eq!(calls.len(), 100);
        assert_eq!(*calls.last().unwrap(), 200);
        assert_eq!(outcome.log.rows().len(), 11, "ticks 0, 20, …, 200");
        let summary = summarize(&outcome.log, 100);
        let p = summary.metric("polarization").unwrap();
        assert_eq!(p.summary.samples, 6);
        assert!((0.0..=1.0).contains(&p.summary.mean));
        assert!(summary.metric("force_flee").unwrap().summary.mean > 0.0, "the predator scared someone");
        assert!(summary.metric("tick").is_none());
        // The recording replays to the same end.
        assert_eq!(outcome.recording.commands.len(), 1);
        outcome.recording.replay().unwrap();
    }
}
