//! Metrics sampled during a run: the numbers an experiment reports.
//!
//! A [`Metrics`] row is one snapshot of the school's order and shape:
//! polarization, milling, mean nearest-neighbour distance, bounding-box
//! area, wall contacts, mean neighbour count, mean speed, formation length
//! and width and the mean
//! magnitude of every rule's force. A [`MetricsLog`] takes one row every
//! `every` ticks (30 by default: twice a second at 60 Hz) and writes them as
//! CSV; [`crate::observe::stats`] turns a log into a summary.

use std::io::{self, Write};

use crate::observe;

/// Default sampling interval in ticks.
pub const DEFAULT_EVERY: u64 = 30;

/// One sample of the school's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    /// Tick at which it was taken (ticks completed).
    pub tick: u64,
    /// Number of fish.
    pub fish: usize,
    /// Polarization order parameter, 0–1 ([`observe::polarization`]).
    pub polarization: f32,
    /// Milling order parameter, 0–1 ([`observe::milling`]).
    pub milling: f32,
    /// Mean distance to the nearest neighbour within the interaction
    /// radius; `None` when no fish has one.
    pub nearest_neighbour: Option<f32>,
    /// Area of the box around the school (world units²).
    pub bounding_box_area: f32,
    /// Fish closer to a wall than the soft margin (or than the separation
    /// radius, whichever is larger); 0 on a wrapping tank.
    pub boundary_contacts: usize,
    /// Mean neighbours within the perception radius.
    pub mean_neighbours: f32,
    /// Mean speed (world units per second).
    pub mean_speed: f32,
    /// The school's length along its mean heading and its width across it
    /// ([`observe::formation`], world units).
    #[serde(default)]
    pub formation: [f32; 2],
    /// Mean magnitude of each weighted rule force, when the flock records
    /// them ([`Swarm::set_record_rules`](crate::space::Swarm::set_record_rules)).
    pub rule_forces: Option<observe::RuleForceMeans>,
}

/// Names of the columns [`Metrics::values`] returns, in order; also the CSV
/// header.
pub const COLUMNS: [&str; 19] = [
    "tick",
    "fish",
    "polarization",
    "milling",
    "nearest_neighbour",
    "bounding_box_area",
    "boundary_contacts",
    "mean_neighbours",
    "mean_speed",
    "formation_length",
    "formation_width",
    "force_separation",
    "force_alignment",
    "force_cohesion",
    "force_wander",
    "force_boundary",
    "force_obstacle",
    "force_flee",
    "force_goal",
];

impl Metrics {
    /// The row as numbers, in the order of [`COLUMNS`]; `None` for a value
    /// that was not available.
    pub fn values(&self) -> [Option<f64>; COLUMNS.len()] {
        let f = self.rule_forces;
        let force = |pick: fn(&observe::RuleForceMeans) -> f32| f.as_ref().map(|m| f64::from(pick(m)));
        [
            Some(self.tick as f64),
            Some(self.fish as f64),
            Some(f64::from(self.polarization)),
            Some(f64::from(self.milling)),
            self.nearest_neighbour.map(f64::from),
            Some(f64::from(self.bounding_box_area)),
            Some(self.boundary_contacts as f64),
            Some(f64::from(self.mean_neighbours)),
            Some(f64::from(self.mean_speed)),
            Some(f64::from(self.formation[0])),
            Some(f64::from(self.formation[1])),
            force(|m| m.separation),
            force(|m| m.alignment),
            force(|m| m.cohesion),
            force(|m| m.wander),
            force(|m| m.boundary),
            force(|m| m.obstacle),
            force(|m| m.flee),
            force(|m| m.goal),
        ]
    }
}

/// A history of [`Metrics`], one row every `every` ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsLog {
    every: u64,
    rows: Vec<Metrics>,
}

impl Default for MetricsLog {
    fn default() -> Self {
        Self::new(DEFAULT_EVERY)
    }
}

impl MetricsLog {
    /// An empty log sampling every `every` ticks (at least 1).
    pub fn new(every: u64) -> Self {
        Self { every: every.max(1), rows: Vec::new() }
    }

    /// The sampling interval in ticks.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// Takes a row (`measure`, called only then) if `tick` is a multiple
    /// of the interval and that tick is not already in the log. Returns
    /// whether it did.
    pub fn observe(&mut self, tick: u64, measure: impl FnOnce() -> Metrics) -> bool {
        let due = tick.is_multiple_of(self.every) && self.rows.last().is_none_or(|r| r.tick != tick);
        if due {
            self.rows.push(measure());
        }
        due
    }

    /// Adds a row taken elsewhere.
    pub fn push(&mut self, row: Metrics) {
        self.rows.push(row);
    }

    /// The rows, oldest first.
    pub fn rows(&self) -> &[Metrics] {
        &self.rows
    }

    /// The latest row.
    pub fn latest(&self) -> Option<&Metrics> {
        self.rows.last()
    }

    /// Keeps only the latest `keep` rows.
    pub fn keep_latest(&mut self, keep: usize) {
        let excess = self.rows.len().saturating_sub(keep);
        self.rows.drain(..excess);
    }

    /// Forgets every row.
    pub fn clear(&mut self) {
        self.rows.clear();
    }

    /// One column as a series, skipping rows where it is unavailable.
    /// `None` if `column` is not one of [`COLUMNS`].
    pub fn column(&self, column: &str) -> Option<Vec<f64>> {
        let index = COLUMNS.iter().position(|c| *c == column)?;
        Some(self.rows.iter().filter_map(|r| r.values()[index]).collect())
    }

    /// Writes the log as CSV: a header of [`COLUMNS`], then one line per
    /// row; unavailable values are empty cells.
    pub fn write_csv<W: Write>(&self, mut out: W) -> io::Result<()> {
        writeln!(out, "{}", COLUMNS.join(","))?;
        for row in &self.rows {
            let cells: Vec<String> =
                row.values().iter().map(|v| v.map(|x| x.to_string()).unwrap_or_default()).collect();
            writeln!(out, "{}", cells.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::simulation::Simulation;
    use crate::world::params::FlockParams;
    use crate::world::tank::Tank;

    #[test]
    fn samples_every_n_ticks_and_writes_csv() {
        let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 50, 3).unwrap();
        sim.set_record_rules(true);
        let mut log = MetricsLog::new(10);
        for _ in 0..35 {
            sim.step();
            log.observe(sim.tick(), || sim.metrics().into());
        }
        // Still at tick 35: observing again adds nothing.
        assert!(!log.observe(sim.tick(), || sim.metrics().into()));
        let ticks: Vec<u64> = log.rows().iter().map(|r| r.tick).collect();
        assert_eq!(ticks, [10, 20, 30]);
        let row = log.latest().unwrap();
        assert_eq!(row.fish, 50);
        assert!(row.rule_forces.is_some());
        assert!(row.values().iter().flatten().all(|v| v.is_finite()));

        let mut csv = Vec::new();
        log.write_csv(&mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].split(',').count(), COLUMNS.len());
        assert!(lines[1].starts_with("10,50,"));
        assert_eq!(log.column("polarization").unwrap().len(), 3);
        assert_eq!(log.column("no such column"), None);
    }

    #[test]
    fn missing_values_are_empty_cells() {
        let log = {
            let mut l = MetricsLog::new(1);
            l.push(Metrics { tick: 1, fish: 1, ..Metrics::default() });
            l
        };
        let mut csv = Vec::new();
        log.write_csv(&mut csv).unwrap();
        let line = String::from_utf8(csv).unwrap().lines().nth(1).unwrap().to_owned();
        assert!(line.starts_with("1,1,0,0,,0,0,0,0,"), "{line}");
        assert!(line.ends_with(",,,,,,,"), "{line}");
    }
}
