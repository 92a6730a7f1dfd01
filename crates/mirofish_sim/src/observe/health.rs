//! A school's health: each measure against the range a natural school
//! keeps, marked good, borderline or bad, and a diagnosis that names the
//! symptom and the knob to turn.
//!
//! ```
//! use mirofish_sim::observe::health::{Health, Mark, Symptom};
//! use mirofish_sim::{FlockParams, Metrics, Tank};
//!
//! // A school crushed into a ball: hundreds of neighbours, fish nearly
//! // touching, separation far above the other rules.
//! let params = FlockParams::default();
//! let mut ball = Metrics { fish: 1000, mean_neighbours: 300.0, polarization: 0.6, ..Metrics::default() };
//! ball.nearest_neighbour = Some(0.05 * params.perception_radius);
//! let health = Health::assess(&[ball], &params, &Tank::default());
//! assert_eq!(health.check("mean neighbours").unwrap().mark, Mark::Bad);
//! assert!(health.symptoms.contains(&Symptom::Collapsed));
//! println!("{health}");
//! ```
//!
//! Each measure has three bands. The **natural** one is the range a real
//! school keeps, as the tuning literature gives it: 5–8 neighbours in
//! reach, polarization 0.5–0.75, nearest neighbour at 0.3–0.5 of the
//! perception radius, rule forces of the same order, fewer than one fish in
//! ten at the walls, and a bounding box that changes by a few per cent
//! between samples. The **acceptable** band is wider where a looser school
//! still reads as a school (4–12 neighbours, polarization up to 0.85,
//! nearest neighbour up to 0.6 of the radius); the **tolerable** band beyond
//! it is borderline, and outside it a measure is bad. Other looks (a bait
//! ball, a parade) are fine on purpose; the marks then say how far from
//! the natural look they are.

use core::fmt;

use crate::math::Vector;
use crate::observe::metrics::Metrics;
use crate::world::params::FlockParams;
use crate::world::tank::{BoundaryMode, TankOf};

/// How a measure compares with its bands ([`Bands`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// Within the natural range.
    Good,
    /// Outside it, but within the wider acceptable band.
    Acceptable,
    /// Outside the acceptable band, but not by much (within the tolerable
    /// one).
    Borderline,
    /// Far outside it.
    Bad,
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mark::Good => "good",
            Mark::Acceptable => "acceptable",
            Mark::Borderline => "borderline",
            Mark::Bad => "bad",
        })
    }
}

/// The three nested ranges of a measure, each inclusive: natural inside
/// acceptable inside tolerable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bands {
    /// The range a natural school keeps: [`Mark::Good`].
    pub natural: (f32, f32),
    /// Beyond the natural range but within this one: [`Mark::Acceptable`].
    pub acceptable: (f32, f32),
    /// Beyond the acceptable band but within this one:
    /// [`Mark::Borderline`]; outside it, [`Mark::Bad`].
    pub tolerable: (f32, f32),
}

/// One measure, its value, its bands and its mark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// What is measured (`"mean neighbours"`, `"polarization"`, …).
    pub name: &'static str,
    /// Its value.
    pub value: f32,
    /// Its ranges.
    pub bands: Bands,
    /// How the value compares.
    pub mark: Mark,
}

impl Check {
    fn new(name: &'static str, value: f32, bands: Bands) -> Self {
        let within = |(lo, hi): (f32, f32)| value >= lo && value <= hi;
        let mark = if within(bands.natural) {
            Mark::Good
        } else if within(bands.acceptable) {
            Mark::Acceptable
        } else if within(bands.tolerable) {
            Mark::Borderline
        } else {
            Mark::Bad
        };
        Self { name, value, bands, mark }
    }

    /// Below the acceptable band.
    fn low(&self) -> bool {
        self.value < self.bands.acceptable.0 && self.mark > Mark::Acceptable
    }

    /// Above the acceptable band.
    fn high(&self) -> bool {
        self.value > self.bands.acceptable.1 && self.mark > Mark::Acceptable
    }
}

/// A symptom of a school that does not look natural: the rows of the
/// guide's symptom table that can be read off the metrics and the
/// parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Symptom {
    /// Fish too far apart to school: loose sand, or a burst.
    Scattered,
    /// Fish packed into a ball or a point, separation overwhelmed.
    Collapsed,
    /// The school circles one point: cohesion and alignment found a ring.
    Ring,
    /// Rigid, parade-like: every fish exactly aligned.
    Parade,
    /// Close enough to school, but without a common heading: the fish
    /// mill about.
    Aimless,
    /// The two radii too close: fish at the school's edge are pulled and
    /// pushed by the same neighbours and flicker.
    EdgeFlicker,
    /// Many fish at the walls: the tank, not the school, shapes the motion.
    HugsWalls,
    /// The school's extent swings from sample to sample: it splits and
    /// regroups, or bursts.
    Unsettled,
}

impl Symptom {
    /// What the school looks like.
    pub fn description(self) -> &'static str {
        match self {
            Symptom::Scattered => "the school falls apart into loose sand",
            Symptom::Collapsed => "the school collapses into a ball and jitters",
            Symptom::Ring => "the school locks into a ring that circles forever",
            Symptom::Parade => "the school moves like a parade, rigid",
            Symptom::Aimless => "the fish mill about without a common heading",
            Symptom::EdgeFlicker => "fish at the edge of the school flicker back and forth",
            Symptom::HugsWalls => "the school hugs the walls",
            Symptom::Unsettled => "the school keeps growing and shrinking",
        }
    }

    /// The knob to turn.
    pub fn fix(self) -> &'static str {
        match self {
            Symptom::Scattered => {
                "raise perception_radius (or use with_auto_radius for the fish count), then cohesion_weight to about 1.3; lower separation_weight to about 1.2"
            }
            Symptom::Collapsed => {
                "lower cohesion_weight to about 0.6, raise separation_weight to about 1.8, make separation_radius about 0.4-0.5 x perception_radius"
            }
            Symptom::Ring => "raise wander_weight (0.2-0.3) or lower alignment_weight",
            Symptom::Parade => "lower alignment_weight to about 0.5, add a little max_force and wander",
            Symptom::Aimless => {
                "raise alignment_weight (to 30-40 % of the three rule weights together), or lower wander_weight"
            }
            Symptom::EdgeFlicker => {
                "make perception_radius at least 1.5 x separation_radius (2-3 x is usual)"
            }
            Symptom::HugsWalls => {
                "use SoftMargin walls with a margin of 8-12 % of the short side, or a bigger tank for this speed and radius"
            }
            Symptom::Unsettled => "check the balance of separation and cohesion; add a little alignment",
        }
    }
}

impl fmt::Display for Symptom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.description(), self.fix())
    }
}

/// The health of a school at its latest metrics sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Health {
    /// Each measure with its mark, in a fixed order.
    pub checks: Vec<Check>,
    /// What the measures add up to, the most telling first; empty for a
    /// healthy school.
    pub symptoms: Vec<Symptom>,
}

/// Mean neighbours within the perception radius.
pub const NEIGHBOURS: Bands = Bands { natural: (5.0, 8.0), acceptable: (4.0, 12.0), tolerable: (2.5, 20.0) };
/// Polarization.
pub const POLARIZATION: Bands =
    Bands { natural: (0.5, 0.75), acceptable: (0.5, 0.85), tolerable: (0.3, 0.95) };
/// Mean nearest-neighbour distance over the perception radius.
pub const NEAREST: Bands = Bands { natural: (0.3, 0.5), acceptable: (0.3, 0.6), tolerable: (0.2, 0.8) };
/// Separation's mean force over the larger of alignment's and cohesion's.
pub const FORCE_RATIO: Bands = Bands { natural: (0.0, 3.0), acceptable: (0.0, 3.0), tolerable: (0.0, 10.0) };
/// Share of the fish at the walls.
pub const AT_WALLS: Bands = Bands { natural: (0.0, 0.1), acceptable: (0.0, 0.1), tolerable: (0.0, 0.2) };
/// Relative change of the bounding-box area between the last two samples.
pub const AREA_CHANGE: Bands =
    Bands { natural: (0.0, 0.05), acceptable: (0.0, 0.05), tolerable: (0.0, 0.15) };
/// Milling above which a school counts as a locked ring.
const RING_MILLING: f32 = 0.6;
/// Perception radius over separation radius below which edges flicker.
const MIN_RADIUS_RATIO: f32 = 1.5;

impl Health {
    /// Assesses the latest of `rows` (a run's metrics, oldest first; the
    /// one before it gives the trend) for a school with `params` in
    /// `tank`. An empty `rows`, or a row of no fish, gives no checks and
    /// no symptoms.
    pub fn assess<V: Vector>(rows: &[Metrics], params: &FlockParams, tank: &TankOf<V>) -> Self {
        let (mut checks, mut symptoms) = (Vec::new(), Vec::new());
        let Some(latest) = rows.last().filter(|m| m.fish > 0) else {
            return Self { checks, symptoms };
        };
        let check = Check::new;
        let neighbours = check("mean neighbours", latest.mean_neighbours, NEIGHBOURS);
        let polarization = check("polarization", latest.polarization, POLARIZATION);
        checks.extend([neighbours, polarization]);
        let radius = params.perception_radius.max(f32::MIN_POSITIVE);
        let nearest =
            latest.nearest_neighbour.map(|d| check("nearest neighbour / radius", d / radius, NEAREST));
        checks.extend(nearest);
        // Only where there is another rule to compare with (a school
        // without alignment and cohesion has nothing to balance).
        let forces = latest.rule_forces.and_then(|f| {
            let others = f.alignment.max(f.cohesion);
            (others > 0.0).then(|| check("separation / other rules", f.separation / others, FORCE_RATIO))
        });
        checks.extend(forces);
        let walled = tank.boundary != BoundaryMode::Wrap;
        let at_walls = walled.then(|| {
            check("share at the walls", latest.boundary_contacts as f32 / latest.fish as f32, AT_WALLS)
        });
        checks.extend(at_walls);
        let area_change = rows.len().checked_sub(2).map(|i| {
            let (before, now) = (rows[i].bounding_box_area, latest.bounding_box_area);
            let change = (now - before).abs() / before.max(now).max(f32::MIN_POSITIVE);
            check("bounding-box change", change, AREA_CHANGE)
        });
        checks.extend(area_change);

        // Symptoms are read off the acceptable band: a school within it is
        // a school, if not the natural one.
        let bad = |c: &Option<Check>| c.is_some_and(|c| c.mark == Mark::Bad);
        // Crowding shows in the density first; separation dwarfing the
        // other rules confirms it.
        let dense = neighbours.high() || nearest.is_some_and(|c| c.low());
        let far =
            neighbours.mark == Mark::Bad || nearest.is_some_and(|c| c.mark == Mark::Bad) || bad(&forces);
        if dense && far {
            symptoms.push(Symptom::Collapsed);
        } else if neighbours.low() && neighbours.mark == Mark::Bad {
            symptoms.push(Symptom::Scattered);
        }
        if latest.milling > RING_MILLING {
            symptoms.push(Symptom::Ring);
        } else if polarization.high() && polarization.mark == Mark::Bad {
            symptoms.push(Symptom::Parade);
        } else if polarization.low()
            && polarization.mark == Mark::Bad
            && !symptoms.contains(&Symptom::Scattered)
        {
            symptoms.push(Symptom::Aimless);
        }
        if params.perception_radius < MIN_RADIUS_RATIO * params.separation_radius {
            symptoms.push(Symptom::EdgeFlicker);
        }
        if bad(&at_walls) {
            symptoms.push(Symptom::HugsWalls);
        }
        if bad(&area_change) && symptoms.is_empty() {
            symptoms.push(Symptom::Unsettled);
        }
        Self { checks, symptoms }
    }

    /// The check called `name`, if it was made.
    pub fn check(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.name == name)
    }

    /// The worst mark of all checks ([`Mark::Good`] with none).
    pub fn worst(&self) -> Mark {
        self.checks.iter().map(|c| c.mark).max().unwrap_or(Mark::Good)
    }
}

impl fmt::Display for Health {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.checks {
            let Bands { natural: (lo, hi), acceptable: (a, b), .. } = c.bands;
            let band = if (lo, hi) == (a, b) {
                format!("natural {lo}-{hi}")
            } else {
                format!("natural {lo}-{hi} (acceptable {a}-{b})")
            };
            writeln!(f, "  {:<27} {:>9.3}  {band:<39} {}", c.name, c.value, c.mark)?;
        }
        if self.symptoms.is_empty() && self.worst() == Mark::Good {
            writeln!(f, "  diagnosis: looks natural")
        } else if self.symptoms.is_empty() && self.worst() == Mark::Acceptable {
            writeln!(f, "  diagnosis: a school, looser than a natural one (the measures marked acceptable)")
        } else if self.symptoms.is_empty() {
            writeln!(f, "  diagnosis: no symptom recognised; see the measures marked above")
        } else {
            for s in &self.symptoms {
                writeln!(f, "  diagnosis: {s}")?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::RuleForceMeans;
    use crate::world::tank::Tank;

    fn natural() -> Metrics {
        let radius = FlockParams::default().perception_radius;
        Metrics {
            tick: 600,
            fish: 1000,
            polarization: 0.7,
            milling: 0.1,
            nearest_neighbour: Some(0.45 * radius),
            bounding_box_area: 1.0e5,
            boundary_contacts: 20,
            mean_neighbours: 7.0,
            mean_speed: 150.0,
            formation: [300.0, 120.0],
            rule_forces: Some(RuleForceMeans {
                separation: 300.0,
                alignment: 250.0,
                cohesion: 200.0,
                ..RuleForceMeans::default()
            }),
        }
    }

    fn assess(rows: &[Metrics]) -> Health {
        Health::assess(rows, &FlockParams::default(), &Tank::default())
    }

    #[test]
    fn a_natural_school_is_all_good() {
        let health = assess(&[natural(), natural()]);
        assert_eq!(health.checks.len(), 6);
        assert_eq!(health.worst(), Mark::Good, "{health}");
        assert!(health.symptoms.is_empty());
        assert!(health.to_string().contains("looks natural"));
    }

    #[test]
    fn a_looser_school_is_acceptable_not_natural() {
        let radius = FlockParams::default().perception_radius;
        let loose = Metrics {
            mean_neighbours: 10.0,
            polarization: 0.8,
            nearest_neighbour: Some(0.55 * radius),
            ..natural()
        };
        let health = assess(&[loose, loose]);
        for name in ["mean neighbours", "polarization", "nearest neighbour / radius"] {
            assert_eq!(health.check(name).unwrap().mark, Mark::Acceptable, "{name}: {health}");
        }
        assert_eq!(health.worst(), Mark::Acceptable);
        assert!(health.symptoms.is_empty(), "{health}");
        let text = health.to_string();
        assert!(
            text.contains("natural 5-8 (acceptable 4-12)") && text.contains("looser than a natural one"),
            "{text}"
        );
    }

    #[test]
    fn marks_follow_the_ranges() {
        let mark = |value| Check::new("x", value, NEIGHBOURS).mark;
        assert_eq!(mark(13.0), Mark::Borderline);
        assert_eq!(mark(12.0), Mark::Acceptable);
        assert_eq!(mark(4.5), Mark::Acceptable);
        assert_eq!(mark(8.0), Mark::Good);
        assert_eq!(mark(5.0), Mark::Good);
        assert_eq!(mark(1.0), Mark::Bad);
        assert_eq!(mark(f32::NAN), Mark::Bad);
    }

    #[test]
    fn each_symptom_is_named() {
        let radius = FlockParams::default().perception_radius;
        let mut ball = natural();
        (ball.mean_neighbours, ball.nearest_neighbour) = (250.0, Some(0.05 * radius));
        assert_eq!(assess(&[ball]).symptoms, [Symptom::Collapsed]);

        let mut sand = natural();
        (sand.mean_neighbours, sand.polarization, sand.nearest_neighbour) = (0.8, 0.1, Some(0.7 * radius));
        assert_eq!(assess(&[sand]).symptoms, [Symptom::Scattered]);

        let mut ring = natural();
        (ring.milling, ring.polarization) = (0.9, 0.1);
        assert_eq!(assess(&[ring]).symptoms, [Symptom::Ring]);

        let mut parade = natural();
        parade.polarization = 0.99;
        assert_eq!(assess(&[parade]).symptoms, [Symptom::Parade]);

        let mut aimless = natural();
        aimless.polarization = 0.1;
        assert_eq!(assess(&[aimless]).symptoms, [Symptom::Aimless]);

        let mut walls = natural();
        walls.boundary_contacts = 400;
        assert_eq!(assess(&[walls]).symptoms, [Symptom::HugsWalls]);

        let mut grown = natural();
        grown.bounding_box_area *= 2.0;
        assert_eq!(assess(&[natural(), grown]).symptoms, [Symptom::Unsettled]);

        let close = FlockParams { separation_radius: 35.0, ..FlockParams::default() };
        let health = Health::assess(&[natural()], &close, &Tank::default());
        assert_eq!(health.symptoms, [Symptom::EdgeFlicker]);
        for s in [Symptom::Scattered, Symptom::Collapsed, Symptom::Ring, Symptom::EdgeFlicker] {
            assert!(s.to_string().contains(s.fix()));
        }
    }

    #[test]
    fn nothing_to_assess_gives_nothing() {
        assert!(assess(&[]).checks.is_empty());
        let empty = Metrics::default();
        let health = assess(&[empty]);
        assert!(health.checks.is_empty() && health.symptoms.is_empty());
        assert_eq!(health.worst(), Mark::Good);
    }

    #[test]
    fn a_wrapping_tank_has_no_walls_to_check() {
        let tank = Tank::default().with_boundary(BoundaryMode::Wrap);
        let health = Health::assess(&[natural()], &FlockParams::default(), &tank);
        assert!(health.check("share at the walls").is_none());
    }
}
