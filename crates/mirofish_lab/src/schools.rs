//! Does it hold as a school? The standard runs (the aquarium's scene, the
//! README's game, the 3D aquarium's school and the four styles), each over
//! several seeds, sampled once a second of simulated time: the share of
//! samples in which each health measure lies inside its natural band
//! (the range a real school keeps) and inside its acceptable band.
//!
//! Polarization is taken per group (a tank holding two schools heading
//! apart is not a disordered one, nor is one school split into two shoals
//! that swim apart): fish of one school chained to one another by
//! distances under the perception radius are a group, and each group of
//! at least ten fish in a sample counts once.
//! Nearest neighbour is divided by the perception radius of the first
//! school, as the health check does.
//!
//! ```
//! use mirofish_lab::schools::{Measure, StandardRun, shares};
//!
//! let run = StandardRun::by_name("minimal").unwrap();
//! let samples = run.sample(1, 1.0, 3.0)?; // seconds 1, 2 and 3 of seed 1
//! assert_eq!(samples.len(), 3);
//! let table = shares(&samples);
//! assert!(table.measure(Measure::Neighbours).natural <= table.measure(Measure::Neighbours).acceptable);
//! # Ok::<(), mirofish_lab::Error>(())
//! ```

use core::fmt;

use mirofish_sim::observe::health::{AT_WALLS, Bands, NEAREST, NEIGHBOURS, POLARIZATION};
use mirofish_sim::observe::polarization;
use mirofish_sim::space::Flock3d;
use mirofish_sim::{
    Ball, ExperimentConfig, FlockParams, Metrics, Preset, Simulation, Tank3d, Vec3, Vector, VolumeConfig,
    VolumeSchool,
};

use crate::Error;

/// The aquarium's scene, as the aquarium starts it.
const AQUARIUM: &str = include_str!("../../../assets/scenes/aquarium.ron");

/// Schools smaller than this in a sample are left out of its polarization:
/// a handful of fish is not a school to measure.
const MIN_SCHOOL: usize = 10;

/// One of the standard runs: a start in either space.
#[derive(Clone, Debug)]
pub struct StandardRun {
    /// Its name on the command line and in the table.
    pub name: String,
    /// Where it starts (its seed is replaced by the seed of each run).
    pub start: Start,
}

/// A start on a plane or in a volume.
#[derive(Clone, Debug)]
pub enum Start {
    /// A plane's configuration.
    Plane(ExperimentConfig),
    /// A volume's configuration.
    Volume(VolumeConfig),
}

/// The measures of one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Mean neighbours within each fish's perception radius.
    pub neighbours: f32,
    /// Mean nearest-neighbour distance over the perception radius; `None`
    /// when no fish has a neighbour in reach.
    pub nearest: Option<f32>,
    /// Polarization of each group of at least ten fish (fish of one school
    /// chained by distances under the perception radius).
    pub polarizations: Vec<f32>,
    /// Share of the fish at the walls.
    pub at_walls: f32,
}

impl StandardRun {
    /// Every standard run, in the table's order.
    pub fn all() -> Vec<Self> {
        let aquarium =
            ExperimentConfig::from_ron(AQUARIUM).expect("the aquarium's scene is a valid configuration");
        let minimal = ExperimentConfig { fish: 500, ..ExperimentConfig::default() };
        // The 3D aquarium's school: 4,000 fish, a quarter of them in a
        // quicker school that sees a little further.
        let quick = FlockParams { max_speed: 150.0, perception_radius: 50.0, ..FlockParams::default() };
        let aquarium3d = VolumeConfig {
            fish: 3000,
            tank: Tank3d::centered(Vec3::new(1400.0, 600.0, 900.0)),
            schools: vec![VolumeSchool { fish: 1000, params: quick, ..VolumeSchool::default() }],
            ..VolumeConfig::default()
        };
        let mut runs = vec![
            Self { name: "aquarium".into(), start: Start::Plane(aquarium) },
            Self { name: "minimal".into(), start: Start::Plane(minimal) },
            Self { name: "aquarium3d".into(), start: Start::Volume(aquarium3d) },
        ];
        runs.extend(Preset::all().into_iter().filter(|p| p.name != "reference").map(|p| Self {
            name: p.name.into(),
            start: Start::Plane(ExperimentConfig {
                fish: p.count,
                params: p.params,
                tank: p.tank,
                ..ExperimentConfig::default()
            }),
        }));
        runs
    }

    /// The standard run called `name`.
    pub fn by_name(name: &str) -> Option<Self> {
        Self::all().into_iter().find(|r| r.name == name)
    }

    /// The run started as the tuning literature recommends instead: every
    /// school in a normal blob at the tank's centre, σ an eighth of its
    /// width, the fish nearly still ([`Ball::blob`]).
    pub fn from_blob(mut self) -> Self {
        match &mut self.start {
            Start::Plane(config) => config.ball = Some(Ball::blob(&config.tank)),
            Start::Volume(config) => config.ball = Some(Ball::blob(&config.tank)),
        }
        self
    }

    /// The names of every standard run, in [`StandardRun::all`]'s order.
    pub fn names() -> Vec<&'static str> {
        let styles = Preset::all().into_iter().map(|p| p.name).filter(|&name| name != "reference");
        ["aquarium", "minimal", "aquarium3d"].into_iter().chain(styles).collect()
    }

    /// Runs it with `seed` and samples it every `every` seconds of simulated
    /// time from `from` seconds to `to` (both included, as far as whole
    /// ticks reach).
    ///
    /// # Errors
    ///
    /// If the start is refused (it cannot be for the built-in runs) or the
    /// times are not finite, positive and in order.
    pub fn sample(&self, seed: u64, every: f32, to: f32) -> Result<Vec<Sample>, Error> {
        self.sample_from(seed, every, every, to)
    }

    /// Like [`StandardRun::sample`], from `from` seconds on.
    ///
    /// # Errors
    ///
    /// As [`StandardRun::sample`].
    pub fn sample_from(&self, seed: u64, from: f32, every: f32, to: f32) -> Result<Vec<Sample>, Error> {
        if !(every.is_finite()
            && every > 0.0
            && from.is_finite()
            && from >= 0.0
            && to.is_finite()
            && to >= from)
        {
            return Err(
                format!("sampling every {every} s from {from} s to {to} s: not a sampling plan").into()
            );
        }
        let plan = (from, every, to);
        match &self.start {
            Start::Plane(config) => {
                let sim = Simulation::from_config(&ExperimentConfig { seed, ..config.clone() })?;
                let dt = sim.dt();
                sampled(
                    sim,
                    dt,
                    plan,
                    |sim| {
                        sim.step();
                        Ok(())
                    },
                    plane_sample,
                )
            }
            Start::Volume(config) => {
                let swarm = VolumeConfig { seed, ..config.clone() }.start()?;
                let dt = swarm.dt();
                sampled(
                    swarm,
                    dt,
                    plan,
                    |swarm| {
                        swarm.step();
                        Ok(())
                    },
                    volume_sample,
                )
            }
        }
    }
}

/// Steps `run` (ticks of `dt` seconds) and measures it at the times of
/// `(from, every, to)` seconds.
fn sampled<R>(
    mut run: R,
    dt: f32,
    (from, every, to): (f32, f32, f32),
    step: impl Fn(&mut R) -> Result<(), Error>,
    measure: impl Fn(&R) -> Sample,
) -> Result<Vec<Sample>, Error> {
    let (first, between, last) = ticks(dt, from, every, to);
    let mut samples = Vec::new();
    for tick in 1..=last {
        step(&mut run)?;
        if tick >= first && (tick - first).is_multiple_of(between) {
            samples.push(measure(&run));
        }
    }
    Ok(samples)
}

/// The first tick sampled, the ticks between samples and the last tick, at
/// `dt` seconds a tick.
fn ticks(dt: f32, from: f32, every: f32, to: f32) -> (u64, u64, u64) {
    let tick = |seconds: f32| (seconds / dt).round() as u64;
    (tick(from).max(1), tick(every).max(1), tick(to).max(1))
}

/// A plane's sample.
fn plane_sample(sim: &Simulation) -> Sample {
    let m = Metrics::from(sim.metrics());
    Sample {
        neighbours: m.mean_neighbours,
        nearest: m.nearest_neighbour.map(|d| d / sim.params()[0].perception_radius),
        polarizations: per_group(
            sim.schools(),
            sim.positions(),
            sim.velocities(),
            sim.params()[0].perception_radius,
        ),
        at_walls: share(m.boundary_contacts, m.fish),
    }
}

/// A volume's sample.
fn volume_sample(swarm: &Flock3d) -> Sample {
    let m = swarm.metrics();
    let radius = swarm.params()[0].perception_radius;
    Sample {
        neighbours: m.mean_neighbours,
        nearest: m.nearest_neighbour.map(|d| d / radius),
        polarizations: per_group(swarm.schools(), swarm.positions(), swarm.velocities(), radius),
        at_walls: share(m.boundary_contacts, m.fish),
    }
}

/// `part` of `whole`, 0 when there is none.
fn share(part: usize, whole: usize) -> f32 {
    if whole == 0 { 0.0 } else { part as f32 / whole as f32 }
}

/// The polarization of each group of at least [`MIN_SCHOOL`] fish: fish of
/// one school (by the fish's school index) chained to one another by
/// distances under `radius`. Two shoals of one school heading apart are
/// two groups, each as ordered as it is.
fn per_group<V: Vector>(schools: &[u16], positions: &[V], velocities: &[V], radius: f32) -> Vec<f32> {
    groups(schools, positions, radius)
        .into_iter()
        .filter(|g| g.len() >= MIN_SCHOOL)
        .map(|g| polarization(&g.iter().map(|&i| velocities[i]).collect::<Vec<V>>()))
        .collect()
}

/// The fish's groups: fish of one school linked when nearer than `radius`,
/// and every chain of links one group (single linkage over a grid of cells
/// `radius` wide). Each group lists its fish in ascending order; groups come
/// in the order of their first fish.
fn groups<V: Vector>(schools: &[u16], positions: &[V], radius: f32) -> Vec<Vec<usize>> {
    use std::collections::HashMap;
    let n = positions.len().min(schools.len());
    let radius = if radius.is_finite() && radius > 0.0 { radius } else { 1.0 };
    let cell = |p: V| -> [i64; 3] {
        core::array::from_fn(|i| if i < V::DIM { (p.axis(i) / radius).floor() as i64 } else { 0 })
    };
    let mut cells: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, &p) in positions.iter().enumerate().take(n) {
        cells.entry(cell(p)).or_default().push(i);
    }
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let r2 = radius * radius;
    let span = if V::DIM == 3 { -1..=1 } else { 0..=0 };
    for i in 0..n {
        let c = cell(positions[i]);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in span.clone() {
                    let Some(others) = cells.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) else { continue };
                    for &j in others {
                        if j > i
                            && schools[j] == schools[i]
                            && positions[i].distance_squared(positions[j]) < r2
                        {
                            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                            parent[a.max(b)] = a.min(b);
                        }
                    }
                }
            }
        }
    }
    let mut by_root: HashMap<usize, usize> = HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        let g = *by_root.entry(r).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[g].push(i);
    }
    out
}

/// A health measure of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Mean neighbours in reach.
    Neighbours,
    /// Nearest neighbour over the perception radius.
    Nearest,
    /// Polarization, per school.
    Polarization,
    /// Share of the fish at the walls.
    AtWalls,
}

impl Measure {
    /// Every measure, in the table's order.
    pub const ALL: [Measure; 4] =
        [Measure::Neighbours, Measure::Nearest, Measure::Polarization, Measure::AtWalls];

    /// The measure's bands (the health check's).
    pub fn bands(self) -> Bands {
        match self {
            Measure::Neighbours => NEIGHBOURS,
            Measure::Nearest => NEAREST,
            Measure::Polarization => POLARIZATION,
            Measure::AtWalls => AT_WALLS,
        }
    }

    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Neighbours => "neighbours",
            Measure::Nearest => "nearest/R",
            Measure::Polarization => "polarization",
            Measure::AtWalls => "at walls",
        }
    }

    /// Its values in `sample` (one per school for polarization; none for
    /// nearest neighbour when no fish had one in reach).
    fn values(self, sample: &Sample) -> Vec<f32> {
        match self {
            Measure::Neighbours => vec![sample.neighbours],
            Measure::Nearest => sample.nearest.into_iter().collect(),
            Measure::Polarization => sample.polarizations.clone(),
            Measure::AtWalls => vec![sample.at_walls],
        }
    }
}

/// How often one measure was in its bands.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Share {
    /// Share of the values inside the natural band, 0–1.
    pub natural: f32,
    /// Share inside the acceptable band, 0–1.
    pub acceptable: f32,
    /// The values counted.
    pub values: usize,
    /// Their median (NaN-free: 0 when there is none).
    pub median: f32,
}

/// The shares of every measure over a set of samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shares {
    /// One per [`Measure::ALL`], in order.
    pub measures: [Share; 4],
    /// Samples counted.
    pub samples: usize,
}

impl Shares {
    /// The share of `measure`.
    pub fn measure(&self, measure: Measure) -> Share {
        let i = Measure::ALL.iter().position(|&m| m == measure).unwrap_or(0);
        self.measures[i]
    }
}

/// How often each measure of `samples` lies in its bands.
pub fn shares(samples: &[Sample]) -> Shares {
    let within = |v: f32, (lo, hi): (f32, f32)| v >= lo && v <= hi;
    let measures = Measure::ALL.map(|measure| {
        let mut values: Vec<f32> =
            samples.iter().flat_map(|s| measure.values(s)).filter(|v| v.is_finite()).collect();
        let bands = measure.bands();
        let count = |band| values.iter().filter(|&&v| within(v, band)).count();
        let (natural, acceptable) =
            (share(count(bands.natural), values.len()), share(count(bands.acceptable), values.len()));
        values.sort_by(f32::total_cmp);
        let median = values.get(values.len() / 2).copied().unwrap_or(0.0);
        Share { natural, acceptable, values: values.len(), median }
    });
    Shares { measures, samples: samples.len() }
}

/// One row of the table: a run over its seeds.
#[derive(Clone, Debug)]
pub struct Row {
    /// The run's name.
    pub run: String,
    /// The seeds run.
    pub seeds: u64,
    /// The shares over every seed's samples.
    pub shares: Shares,
}

impl Row {
    /// Whether the run holds as a school: every measure in its natural band
    /// in at least 80 % of the values and in its acceptable band in at
    /// least 95 %; fish at the walls under a tenth in at least 90 %.
    pub fn holds(&self) -> bool {
        Measure::ALL.iter().all(|&m| {
            let s = self.shares.measure(m);
            match m {
                Measure::AtWalls => s.natural >= 0.9,
                _ => s.natural >= 0.8 && s.acceptable >= 0.95,
            }
        })
    }
}

/// Runs `run` with seeds 1 to `seeds`, samples each every second from
/// `from` to `to` seconds, and counts the shares over all of them. The
/// seeds run in parallel.
///
/// # Errors
///
/// As [`StandardRun::sample_from`].
pub fn row(run: &StandardRun, seeds: u64, from: f32, to: f32) -> Result<Row, Error> {
    use rayon::prelude::*;
    let per_seed: Vec<Vec<Sample>> = (1..=seeds)
        .into_par_iter()
        .map(|seed| run.sample_from(seed, from, 1.0, to))
        .collect::<Result<_, _>>()?;
    let samples: Vec<Sample> = per_seed.into_iter().flatten().collect();
    Ok(Row { run: run.name.clone(), seeds, shares: shares(&samples) })
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<15}", self.run)?;
        for share in &self.shares.measures {
            write!(
                f,
                " | {:>6.2} {:>3.0}% {:>3.0}%",
                share.median,
                share.natural * 100.0,
                share.acceptable * 100.0
            )?;
        }
        write!(f, " | {}", if self.holds() { "holds" } else { "misses" })
    }
}

/// The table's header, over the rows' [`fmt::Display`]: each measure's
/// median, and the share of its values in the natural and the acceptable
/// band.
pub fn header() -> String {
    let mut names = format!("{:<15}", "run");
    let mut columns = format!("{:<15}", "");
    for m in Measure::ALL {
        names.push_str(&format!(" | {:<16}", m.name()));
        columns.push_str(" | median nat% acc%");
    }
    format!("{names} | school?\n{columns} |")
}

/// The bands, in words, for under the table.
pub fn legend() -> String {
    let bands: Vec<String> = Measure::ALL
        .iter()
        .map(|m| {
            let b = m.bands();
            format!(
                "{} {}-{} (acceptable {}-{})",
                m.name(),
                b.natural.0,
                b.natural.1,
                b.acceptable.0,
                b.acceptable.1
            )
        })
        .collect();
    format!("natural bands: {}", bands.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(neighbours: f32, nearest: f32, polarizations: &[f32], at_walls: f32) -> Sample {
        Sample { neighbours, nearest: Some(nearest), polarizations: polarizations.to_vec(), at_walls }
    }

    /// Each school counts for itself; natural inside acceptable; the
    /// median is a value of the set.
    #[test]
    fn shares_count_each_value_against_its_bands() {
        let samples = [
            sample(6.0, 0.4, &[0.6, 0.2], 0.0),
            sample(10.0, 0.55, &[0.8, 0.7], 0.05),
            sample(30.0, 0.1, &[0.99], 0.3),
            Sample { nearest: None, ..sample(7.0, 0.0, &[], 0.0) },
        ];
        let s = shares(&samples);
        assert_eq!(s.samples, 4);
        let neighbours = s.measure(Measure::Neighbours);
        assert_eq!((neighbours.natural, neighbours.acceptable, neighbours.values), (0.5, 0.75, 4));
        assert_eq!(neighbours.median, 10.0);
        let nearest = s.measure(Measure::Nearest);
        assert_eq!((nearest.natural, nearest.acceptable, nearest.values), (1.0 / 3.0, 2.0 / 3.0, 3));
        let polarization = s.measure(Measure::Polarization);
        assert_eq!((polarization.natural, polarization.acceptable, polarization.values), (0.4, 0.6, 5));
        let walls = s.measure(Measure::AtWalls);
        assert_eq!((walls.natural, walls.values), (0.75, 4));
        assert_eq!(shares(&[]).measure(Measure::Nearest), Share::default());
    }

    #[test]
    fn a_row_holds_only_when_every_measure_does() {
        let good = vec![sample(6.0, 0.4, &[0.6], 0.0); 10];
        let row = |samples: &[Sample]| Row { run: "test".into(), seeds: 1, shares: shares(samples) };
        assert!(row(&good).holds());
        let mut walled = good.clone();
        walled[0].at_walls = 0.5;
        walled[1].at_walls = 0.5;
        assert!(!row(&walled).holds(), "two in ten at the walls");
        let mut loose = good;
        loose[0].neighbours = 11.0;
        loose[1].neighbours = 11.0;
        loose[2].neighbours = 11.0;
        assert!(!row(&loose).holds(), "seven in ten natural");
    }

    #[test]
    fn every_standard_run_starts_and_a_bad_plan_is_refused() {
        let names: Vec<String> = StandardRun::all().into_iter().map(|r| r.name).collect();
        assert_eq!(StandardRun::names(), names);
        assert_eq!(names.len(), 7);
        for run in StandardRun::all() {
            let samples = run.sample(1, 0.05, 0.1).unwrap();
            assert_eq!(samples.len(), 2, "{}", run.name);
            assert!(samples.iter().all(|s| s.neighbours.is_finite()), "{}", run.name);
        }
        let run = StandardRun::by_name("minimal").unwrap();
        for (from, every, to) in [(0.0, 0.0, 1.0), (2.0, 1.0, 1.0), (0.0, f32::NAN, 1.0), (-1.0, 1.0, 1.0)] {
            assert!(run.sample_from(1, from, every, to).is_err(), "{from} {every} {to}");
        }
    }

    #[test]
    fn schools_and_shoals_are_measured_apart() {
        use mirofish_sim::Vec2;
        // Two schools mixed in one place, each perfectly aligned, heading
        // apart: each is polarized, the tank as a whole is not.
        let schools = [[0u16; 20], [1u16; 20]].concat();
        let together: Vec<Vec2> = (0..40).map(|i| Vec2::new((i % 20) as f32, 0.0)).collect();
        let velocities: Vec<Vec2> = (0..40).map(|i| if i < 20 { Vec2::X } else { -Vec2::X }).collect();
        assert_eq!(per_group(&schools, &together, &velocities, 1.5), vec![1.0, 1.0]);
        assert!(polarization(&velocities) < 1e-6);
        // A group of fewer than ten fish is left out.
        assert_eq!(per_group(&schools[..25], &together[..25], &velocities[..25], 1.5), vec![1.0]);
        // One school in two shoals far apart, heading apart: two groups.
        let one = [0u16; 40];
        let apart: Vec<Vec2> =
            (0..40).map(|i| Vec2::new((i % 20) as f32 + if i < 20 { 0.0 } else { 100.0 }, 0.0)).collect();
        assert_eq!(per_group(&one, &apart, &velocities, 1.5), vec![1.0, 1.0]);
        // Chained, the same fish are one shoal, as disordered as it is.
        assert_eq!(groups(&one, &together, 1.5).len(), 1);
        assert!(per_group(&one, &together, &velocities, 1.5)[0] < 1e-6);
        // In a volume: a chain along the third axis is one group.
        let column: Vec<mirofish_sim::Vec3> = (0..12).map(|i| mirofish_sim::Vec3::Z * i as f32).collect();
        assert_eq!(groups(&[0u16; 12], &column, 1.5).len(), 1);
    }
}
