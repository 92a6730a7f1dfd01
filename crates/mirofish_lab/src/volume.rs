//! One run in a volume: a [`VolumeConfig`], a command script, ticks, the
//! school's order and shape sampled along the way, their summary and the
//! recording — what [`crate::experiment`] does on a plane.

use std::io::Write;
use std::path::Path;

use mirofish_sim::space::{Flock3d, SwarmMetrics, VolumeCommand};
use mirofish_sim::step::command::Stamped;
use mirofish_sim::{Vec3, VolumeConfig, VolumeRecorder, VolumeRecording};

use crate::Error;
use crate::experiment::{RunSummary, summarize_table, write_run};

/// The columns of a volume's metrics, in the order of [`values`].
pub const VOLUME_COLUMNS: [&str; 13] = [
    "tick",
    "fish",
    "polarization",
    "milling",
    "nearest_neighbour",
    "bounding_volume",
    "width",
    "height",
    "depth",
    "boundary_contacts",
    "mean_neighbours",
    "mean_speed",
    "length_along_heading",
];

/// One sample's values, one per column of [`VOLUME_COLUMNS`] (`None`: not
/// measured, e.g. no fish had a neighbour).
pub fn values(m: &SwarmMetrics<Vec3>) -> [Option<f64>; VOLUME_COLUMNS.len()] {
    let f = |x: f32| Some(f64::from(x));
    [
        Some(m.tick as f64),
        Some(m.fish as f64),
        f(m.polarization),
        f(m.milling),
        m.nearest_neighbour.map(f64::from),
        f(m.bounds.x * m.bounds.y * m.bounds.z),
        f(m.bounds.x),
        f(m.bounds.y),
        f(m.bounds.z),
        Some(m.boundary_contacts as f64),
        f(m.mean_neighbours),
        f(m.mean_speed),
        f(m.formation[0]),
    ]
}

/// A run in a volume to perform.
#[derive(Clone, Debug)]
pub struct VolumeExperiment {
    /// The start.
    pub config: VolumeConfig,
    /// Commands to apply during the run.
    pub commands: Vec<Stamped<VolumeCommand>>,
    /// Ticks to simulate.
    pub ticks: u64,
    /// Ticks at the start left out of the summary.
    pub warmup: u64,
    /// Hash the state every this many ticks for the recording.
    pub checkpoint_every: u64,
}

/// What a run in a volume produced.
#[derive(Clone, Debug)]
pub struct VolumeOutcome {
    /// Every sample, from tick 0 on, every `every` ticks.
    pub samples: Vec<SwarmMetrics<Vec3>>,
    /// The sampling interval (the configuration's `metrics_every`).
    pub every: u64,
    /// The run as a replayable recording.
    pub recording: VolumeRecording,
    /// The commands left out, wholly or in part, each with why.
    pub left_out: Vec<String>,
}

impl VolumeOutcome {
    /// The samples' summary from tick `warmup` on.
    pub fn summarize(&self, warmup: u64) -> RunSummary {
        let rows: Vec<_> = self.samples.iter().map(|m| (m.tick, values(m))).collect();
        summarize_table(&VOLUME_COLUMNS, &rows, self.every, warmup)
    }

    /// Writes the samples as CSV, a header of [`VOLUME_COLUMNS`] first.
    pub fn write_csv(&self, mut out: impl Write) -> std::io::Result<()> {
        writeln!(out, "{}", VOLUME_COLUMNS.join(","))?;
        for m in &self.samples {
            let cells: Vec<String> =
                values(m).iter().map(|v| v.map(|x| x.to_string()).unwrap_or_default()).collect();
            writeln!(out, "{}", cells.join(","))?;
        }
        Ok(())
    }
}

impl VolumeExperiment {
    /// A run of `config` for `ticks` ticks, summarized after `warmup`.
    pub fn new(config: VolumeConfig, ticks: u64, warmup: u64) -> Self {
        Self { config, commands: Vec::new(), ticks, warmup, checkpoint_every: 600 }
    }

    /// With a command script.
    pub fn with_commands(mut self, commands: Vec<Stamped<VolumeCommand>>) -> Self {
        self.commands = commands;
        self
    }

    /// Runs it, sampling every `config.metrics_every` ticks (tick 0
    /// included), and calls `progress` with the ticks done every 1 % of
    /// the run.
    pub fn run(&self, progress: impl FnMut(u64)) -> Result<VolumeOutcome, Error> {
        self.run_planned(progress, |_| Vec::new())
    }

    /// Like [`VolumeExperiment::run`], asking `plan` before each tick for
    /// commands to apply at its start (a decision layer's, or nothing but
    /// a pause to pace the run as a game would); they are recorded with
    /// the rest.
    pub fn run_planned(
        &self,
        mut progress: impl FnMut(u64),
        mut plan: impl FnMut(&Flock3d) -> Vec<VolumeCommand>,
    ) -> Result<VolumeOutcome, Error> {
        let mut recorder = VolumeRecorder::new(self.config.clone(), self.checkpoint_every)?;
        for stamped in &self.commands {
            recorder.schedule(stamped.tick, stamped.command.clone())?;
        }
        let every = self.config.metrics_every;
        let report_every = (self.ticks / 100).max(1);
        let mut samples = vec![recorder.simulation().metrics()];
        for done in 1..=self.ticks {
            let tick = recorder.simulation().tick();
            for command in plan(recorder.simulation()) {
                recorder.schedule(tick, command)?;
            }
            recorder.step()?;
            if done.is_multiple_of(every) {
                samples.push(recorder.simulation().metrics());
            }
            if done.is_multiple_of(report_every) || done == self.ticks {
                progress(done);
            }
        }
        let left_out = crate::experiment::left_out_in_words(recorder.simulation().left_out());
        Ok(VolumeOutcome { samples, every, recording: recorder.finish(), left_out })
    }

    /// Writes the results into `dir` (created if needed): `config.ron`,
    /// `metrics.csv`, `summary.csv`, `summary.ron` and `run.replay`; if any
    /// of it fails, what it made is removed again.
    pub fn write_results(
        &self,
        dir: &Path,
        outcome: &VolumeOutcome,
        summary: &RunSummary,
    ) -> Result<(), Error> {
        write_run(
            dir,
            summary,
            |csv| outcome.write_csv(csv),
            |path| Ok(self.config.save(path)?),
            |path| Ok(outcome.recording.save(path)?),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirofish_sim::Predator;

    #[test]
    fn a_volume_run_samples_summarizes_and_records() {
        let config = VolumeConfig { fish: 150, seed: 4, metrics_every: 20, ..VolumeConfig::default() };
        let predator = VolumeCommand::AddPredator(Predator::new(Vec3::splat(300.0), 150.0));
        let experiment = VolumeExperiment::new(config, 200, 100)
            .with_commands(vec![Stamped { tick: 50, command: predator }]);
        let mut calls = Vec::new();
        let outcome = experiment.run(|t| calls.push(t)).unwrap();
        assert_eq!((calls.len(), calls.last().copied()), (100, Some(200)));
        assert_eq!(outcome.samples.len(), 11, "ticks 0, 20, …, 200");
        let summary = outcome.summarize(100);
        let p = summary.metric("polarization").unwrap();
        assert_eq!(p.summary.samples, 6);
        assert!((0.0..=1.0).contains(&p.summary.mean));
        assert_eq!(summary.metric("fish").unwrap().summary.mean, 150.0);
        assert!(summary.metric("tick").is_none());
        let mut csv = Vec::new();
        outcome.write_csv(&mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert_eq!(csv.lines().count(), 12);
        assert!(csv.starts_with("tick,fish,polarization,milling"));
        assert_eq!(outcome.recording.commands.len(), 1);
        outcome.recording.replay().unwrap();
    }
}
