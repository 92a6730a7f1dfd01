//! Couzin's collective states and their hysteresis: a school moved by the
//! zone model ([`Zones`]) while the orientation zone's width goes up step
//! by step and then down again, the school carried over from each step to
//! the next, polarization and milling measured at every step.

use mirofish_sim::Vector;
use mirofish_sim::space::{CollectiveState, Swarm, Zones};
use mirofish_sim::{BoundaryMode, FlockParams, TankOf, observe};

use crate::Error;

/// One sweep: who, how wide, how long.
#[derive(Clone, Debug)]
pub struct Hysteresis {
    /// Fish in the school.
    pub fish: usize,
    /// The zones; `orientation_width` is what the sweep varies.
    pub zones: Zones,
    /// Orientation zone widths, in the order they are visited going up (the
    /// way down visits them in reverse, without repeating the top).
    pub widths: Vec<f32>,
    /// Seeds, one independent sweep each.
    pub seeds: Vec<u64>,
    /// Ticks at each width before measuring.
    pub settle: u64,
    /// Ticks measured at each width (a sample every 25).
    pub measure: u64,
    /// Seconds per tick (the paper's 0.1).
    pub dt: f32,
}

/// One width on the way up or down: polarization and milling, mean and
/// standard error over the seeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The orientation zone's width.
    pub width: f32,
    /// Whether the width was rising.
    pub rising: bool,
    /// Polarization: mean over seeds and its standard error.
    pub polarization: (f64, f64),
    /// Milling: mean over seeds and its standard error.
    pub milling: (f64, f64),
}

impl Default for Hysteresis {
    fn default() -> Self {
        Self {
            fish: 100,
            zones: Zones::default(),
            widths: (0..=15).map(|w| w as f32 * 10.0).collect(),
            seeds: (1..=4).collect(),
            settle: 1500,
            measure: 500,
            dt: 0.1,
        }
    }
}

impl Hysteresis {
    /// The widths in the order visited: up, then down.
    pub fn path(&self) -> Vec<(f32, bool)> {
        let up = self.widths.iter().map(|&w| (w, true));
        let down = self.widths.iter().rev().skip(1).map(|&w| (w, false));
        up.chain(down).collect()
    }

    /// Runs the sweep for every seed in `V`'s dimension, calling `done`
    /// after each seed.
    pub fn run<V: Vector>(&self, mut done: impl FnMut(usize)) -> Result<Vec<Step>, Error> {
        let path = self.path();
        let mut samples = vec![Vec::new(); path.len()];
        for (k, &seed) in self.seeds.iter().enumerate() {
            for (step, sample) in self.run_seed::<V>(seed, &path)?.into_iter().enumerate() {
                samples[step].push(sample);
            }
            done(k + 1);
        }
        Ok(path
            .iter()
            .zip(samples)
            .map(|(&(width, rising), s)| Step {
                width,
                rising,
                polarization: mean_and_error(s.iter().map(|x| x.0)),
                milling: mean_and_error(s.iter().map(|x| x.1)),
            })
            .collect())
    }

    /// One seed's sweep: (polarization, milling) at every step of `path`.
    fn run_seed<V: Vector>(&self, seed: u64, path: &[(f32, bool)]) -> Result<Vec<(f64, f64)>, Error> {
        // Start in a small ball-sized box, as in the paper, then open the
        // tank so far that no wall is ever reached.
        let start = TankOf::<V>::centered(V::splat(self.zones.reach().max(1.0)));
        let mut school = Swarm::new(FlockParams::default(), start, self.fish, seed)?.with_dt(self.dt)?;
        school.set_tank(TankOf::centered(V::splat(1.0e6)).with_boundary(BoundaryMode::Bounce))?;
        let mut out = Vec::with_capacity(path.len());
        for &(width, _) in path {
            school.set_zones(Some(Zones { orientation_width: width, ..self.zones }))?;
            school.run(self.settle);
            let samples = (self.measure / 25).max(1);
            let (mut p, mut m) = (0.0, 0.0);
            for _ in 0..samples {
                school.run(25);
                p += f64::from(observe::polarization(school.velocities()));
                m += f64::from(observe::milling(school.positions(), school.velocities()));
            }
            out.push((p / samples as f64, m / samples as f64));
        }
        Ok(out)
    }
}

/// Mean and standard error of the mean (0 for one value), over seeds.
pub fn mean_and_error(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count().max(1) as f64;
    let mean = values.clone().sum::<f64>() / n;
    if n < 2.0 {
        return (mean, 0.0);
    }
    let var = values.map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// The state a school's order parameters name, by Couzin's classes
/// ([`CollectiveState`]).
pub fn state(polarization: f64, milling: f64) -> &'static str {
    CollectiveState::classify(polarization, milling).name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_goes_up_then_down_without_repeating_the_top() {
        let h = Hysteresis { widths: vec![0.0, 10.0, 20.0], ..Hysteresis::default() };
        assert_eq!(h.path(), [(0.0, true), (10.0, true), (20.0, true), (10.0, false), (0.0, false)]);
    }

    #[test]
    fn standard_errors_and_state_names() {
        let (m, e) = mean_and_error([1.0, 3.0].into_iter());
        assert_eq!(m, 2.0);
        assert!((e - 1.0).abs() < 1e-12);
        assert_eq!(mean_and_error([5.0].into_iter()), (5.0, 0.0));
        assert_eq!(state(0.1, 0.9), "torus");
        assert_eq!(state(0.99, 0.0), "highly parallel");
        assert_eq!(state(0.9, 0.0), "dynamic parallel");
        assert_eq!(state(0.1, 0.1), "swarm");
    }
}
