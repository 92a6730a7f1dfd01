//! Metrics as a resource: the school's order parameters sampled every
//! N ticks, with their history, ready for an on-screen plot or a CSV.

use bevy::prelude::*;
use mirofish_sim::MetricsLog;
use mirofish_sim::observe::metrics::{DEFAULT_EVERY, Metrics};

use crate::space::Space;
use crate::state::FlockState;

/// The sampled metrics of the running school, in either space.
///
/// Sampled after the tick's write-back whenever the tick count is a
/// multiple of [`FlockMetrics::every`]; the history keeps the latest
/// [`FlockMetrics::capacity`] rows (the oldest are dropped). Write it out
/// with [`MetricsLog::write_csv`] on [`FlockMetrics::log`].
#[derive(Resource, Debug, Reflect)]
#[reflect(Resource, Debug)]
pub struct FlockMetrics {
    /// The samples (not reflected: read them with [`FlockMetrics::log`]).
    #[reflect(ignore)]
    log: MetricsLog,
    /// Most rows kept.
    pub capacity: usize,
    /// Whether rule-force magnitudes are measured too (the force pass then
    /// keeps each fish's per-rule forces, which about doubles the tick).
    pub rule_forces: bool,
}

impl Default for FlockMetrics {
    fn default() -> Self {
        Self::new(DEFAULT_EVERY)
    }
}

impl FlockMetrics {
    /// Sampling every `every` ticks, keeping 2 000 rows, without rule forces.
    pub fn new(every: u64) -> Self {
        Self { log: MetricsLog::new(every), capacity: 2_000, rule_forces: false }
    }

    /// With rule-force magnitudes.
    pub fn with_rule_forces(mut self) -> Self {
        self.rule_forces = true;
        self
    }

    /// The sampling interval in ticks.
    pub fn every(&self) -> u64 {
        self.log.every()
    }

    /// The history, oldest first.
    pub fn log(&self) -> &MetricsLog {
        &self.log
    }

    /// The latest sample.
    pub fn latest(&self) -> Option<&Metrics> {
        self.log.latest()
    }

    /// Forgets the history (e.g. after a reset).
    pub fn clear(&mut self) {
        self.log.clear();
    }
}

/// Samples the flock when due; keeps the flock's rule recording in step
/// with [`FlockMetrics::rule_forces`].
pub(crate) fn sample_metrics<V: Space>(mut metrics: ResMut<FlockMetrics>, mut state: ResMut<FlockState<V>>) {
    let metrics = &mut *metrics;
    if metrics.log.latest().is_some_and(|last| last.tick > state.flock.tick()) {
        // The school started over: its history is another run's.
        metrics.log.clear();
    }
    if metrics.rule_forces && !state.flock.records_rules() {
        state.flock.set_record_rules(true);
    }
    let flock = &state.flock;
    if metrics.log.observe(flock.tick(), || Metrics::from(flock.metrics()))
        && metrics.log.rows().len() > metrics.capacity
    {
        // Drop the oldest half at once rather than shifting every sample.
        metrics.log.keep_latest(metrics.capacity.max(1) / 2);
    }
}
