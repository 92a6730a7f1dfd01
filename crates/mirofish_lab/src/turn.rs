//! Turn response: how long a change of heading takes to cross a school.
//!
//! A school — the configuration's first school, started as a compact disc
//! at the tank's centre, all heading one way give or take a few degrees —
//! is let settle
//! into a parallel swim (give it a tank wide enough that it does not meet
//! a wall meanwhile, or a wrapping one); then the fish at its front
//! (a share of them, by how far along the mean heading they are) are given
//! a goal off to one side — a group goal through the ordinary commands —
//! and turn towards it. Every other fish is watched: it has *responded*
//! once its heading is turned by more than [`TurnResponse::threshold`]
//! towards that side. The share responded against time gives the turn
//! response times (half and nine tenths of the school), and each fish's
//! response time against its distance behind the front gives the speed at
//! which the turn travels through the school.
//!
//! The same run without the stimulus is the control: the share of fish
//! that turned that far on their own, by wander and noise, in the same
//! time.

use mirofish_sim::step::command::{SpawnKey, spawn_disc};
use mirofish_sim::{
    BoundaryMode, ExperimentConfig, FlockCommand, Goal, GoalMode, Scene, Simulation, Tank, Vec2, observe,
};

use crate::Error;

/// One turn-response measurement.
#[derive(Clone, Debug)]
pub struct TurnResponse {
    /// Ticks the school swims before the stimulus.
    pub settle: u64,
    /// Ticks watched after it.
    pub watch: u64,
    /// Share of the fish (0–1) at the front that are turned.
    pub front: f32,
    /// The angle (radians, counter-clockwise) of the side the front turns
    /// to, from the mean heading.
    pub angle: f32,
    /// The turn (radians) a fish's heading must make towards that side to
    /// count as responded.
    pub threshold: f32,
    /// Weight of the front's goal.
    pub weight: f32,
    /// The smallest polarization at the stimulus: a school less ordered
    /// has no heading to turn from, and is refused.
    pub min_polarization: f32,
}

impl Default for TurnResponse {
    fn default() -> Self {
        Self {
            settle: 900,
            watch: 600,
            front: 0.1,
            angle: core::f32::consts::FRAC_PI_2,
            threshold: core::f32::consts::FRAC_PI_4,
            weight: 3.0,
            min_polarization: 0.5,
        }
    }
}

/// What one run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnResult {
    /// Seconds per tick of the run.
    pub dt: f32,
    /// Polarization at the stimulus.
    pub polarization: f32,
    /// Share of the watched fish responded, after each tick of watching.
    pub responded: Vec<f32>,
    /// The same share in the control run, without the stimulus.
    pub control: Vec<f32>,
    /// Each responding fish's distance behind the front (world units) and
    /// its response time (seconds).
    pub fish: Vec<(f32, f32)>,
}

impl TurnResult {
    /// Seconds until `share` (0–1) of the watched fish had responded;
    /// `None` if they never did.
    pub fn time_to(&self, share: f32) -> Option<f32> {
        self.responded.iter().position(|&r| r >= share).map(|k| (k + 1) as f32 * self.dt)
    }

    /// The share that turned on their own in the control run by the end.
    pub fn spontaneous(&self) -> f32 {
        self.control.last().copied().unwrap_or(0.0)
    }

    /// The speed (world units per second) at which the turn travels back
    /// through the school: the inverse slope of response time against
    /// distance behind the front, by least squares. `None` with fewer than
    /// ten responding fish, or when the farther fish did not respond later.
    pub fn speed(&self) -> Option<f32> {
        if self.fish.len() < 10 {
            return None;
        }
        let n = self.fish.len() as f64;
        let (mx, my) =
            self.fish.iter().fold((0.0, 0.0), |(x, y), &(d, t)| (x + f64::from(d), y + f64::from(t)));
        let (mx, my) = (mx / n, my / n);
        let (sxy, sxx) = self.fish.iter().fold((0.0, 0.0), |(sxy, sxx), &(d, t)| {
            let (dx, dy) = (f64::from(d) - mx, f64::from(t) - my);
            (sxy + dx * dy, sxx + dx * dx)
        });
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        (slope > 0.0).then(|| (1.0 / slope) as f32)
    }
}

impl TurnResponse {
    /// Runs `config` with the stimulus and without, from the same settled
    /// school.
    ///
    /// # Errors
    ///
    /// If the configuration is invalid, a share or angle is out of range,
    /// or the settled school is not polarized enough to have a heading.
    pub fn run(&self, config: &ExperimentConfig) -> Result<TurnResult, Error> {
        if !(self.front > 0.0 && self.front < 1.0) {
            return Err(format!("front share {}: must be between 0 and 1", self.front).into());
        }
        if !(self.threshold > 0.0 && self.threshold < core::f32::consts::PI && self.angle.is_finite()) {
            return Err("threshold must be between 0 and π radians, and the angle finite".into());
        }
        // The first school's fish as one compact school at the tank's
        // centre, heading the configuration's way (east without one), give
        // or take a tenth of each fish's random turn.
        let radius = (config.fish as f32).sqrt() * config.params.separation_radius * 0.6;
        // In open water: walls would turn the fish without any stimulus. A
        // wrapping tank wide enough that the school, swimming flat out for
        // the whole run, cannot meet itself across a seam.
        let run_seconds = (self.settle + self.watch) as f32 * config.dt;
        let reach = config.params.max_speed * config.params.panic_speed.max(1.0) * run_seconds;
        let width = (2.0 * reach + 16.0 * radius).max(config.tank.size().max_element());
        let tank = Tank { boundary: BoundaryMode::Wrap, ..Tank::centered(Vec2::splat(width)) };
        let start = ExperimentConfig {
            fish: 0,
            leaders: 0,
            schools: Vec::new(),
            tank,
            scene: Scene::default(),
            ..config.clone()
        };
        let mut sim = Simulation::from_config(&start)?;
        let centre = Vec2::ZERO;
        let key = SpawnKey { seed: config.seed, tick: 0, first_slot: 0 };
        let way = config.heading.unwrap_or(0.0);
        for f in spawn_disc(key, config.fish, centre, radius, &tank, &config.params) {
            let v = f.velocity;
            sim.add_fish(
                0,
                f.position,
                Vec2::from_angle(way + 0.1 * v.to_angle()) * v.length(),
                f.wander_phase,
            )?;
        }
        sim.run(self.settle);
        let velocities = sim.velocities();
        let polarization = observe::polarization(velocities);
        if polarization < self.min_polarization {
            return Err(format!(
                "the school's polarization is {polarization:.2} after {} ticks, below {}: no heading to turn from",
                self.settle, self.min_polarization
            )
            .into());
        }
        let heading =
            velocities.iter().fold(Vec2::ZERO, |s, v| s + v.normalize_or_zero()).normalize_or_zero();
        let side = Vec2::from_angle(self.angle).rotate(heading);
        // The front: the fish farthest along the heading.
        let positions = sim.positions();
        let along: Vec<f32> = positions.iter().map(|p| p.dot(heading)).collect();
        let mut order: Vec<usize> = (0..positions.len()).collect();
        order.sort_unstable_by(|&a, &b| along[b].total_cmp(&along[a]));
        let front_count = ((positions.len() as f32 * self.front).ceil() as usize).clamp(1, positions.len());
        let (front, watched) = order.split_at(front_count);
        if watched.is_empty() {
            return Err("no fish left to watch behind the front".into());
        }
        let front_edge = front.iter().map(|&k| along[k]).fold(f32::NEG_INFINITY, f32::max);
        let centre = front.iter().fold(Vec2::ZERO, |s, &k| s + positions[k]) / front.len() as f32;
        // Off to the side, well clear of the school and inside the tank.
        let target = centre + side * (6.0 * radius).max(1.0);
        let goal = Goal { target, mode: GoalMode::Seek, weight: self.weight, slowing_radius: 1.0 };
        let ids: Vec<u32> = front.iter().map(|&k| sim.ids()[k]).collect();
        let watched_ids: Vec<(u32, f32)> =
            watched.iter().map(|&k| (sim.ids()[k], front_edge - along[k])).collect();
        let mut control = sim.clone();
        let group = 0;
        sim.submit(FlockCommand::JoinGroup { fish: ids, group: Some(group) })?;
        sim.submit(FlockCommand::SetGroupGoal { group, goal: Some(goal) })?;
        let seen = Watch {
            fish: &watched_ids,
            heading,
            side,
            cos_threshold: self.threshold.cos(),
            ticks: self.watch,
        };
        let (responded, first) = seen.run(&mut sim)?;
        let (control, _) = seen.run(&mut control)?;
        let fish = watched_ids
            .iter()
            .zip(first)
            .filter_map(|(&(_, behind), tick)| tick.map(|t| (behind, t as f32 * config.dt)))
            .collect();
        Ok(TurnResult { dt: config.dt, polarization, responded, control, fish })
    }
}

/// Who is watched and what counts as a response.
struct Watch<'a> {
    /// Each watched fish's id and its distance behind the front.
    fish: &'a [(u32, f32)],
    /// The heading before the stimulus.
    heading: Vec2,
    /// The side the front turns to.
    side: Vec2,
    /// The cosine of the turn that counts.
    cos_threshold: f32,
    /// Ticks to watch.
    ticks: u64,
}

impl Watch<'_> {
    /// Steps `sim` and notes when each fish responds: the share responded
    /// after every tick, and the tick (counted from 1) each fish first did.
    fn run(&self, sim: &mut Simulation) -> Result<(Vec<f32>, Vec<Option<u64>>), Error> {
        let mut first = vec![None; self.fish.len()];
        let mut shares = Vec::with_capacity(self.ticks as usize);
        let (mut count, mut slot_of) = (0usize, Vec::new());
        for tick in 1..=self.ticks {
            sim.step();
            slots_by_id(sim.ids(), &mut slot_of);
            for (k, &(id, _)) in self.fish.iter().enumerate() {
                let Some(&slot) = slot_of.get(id as usize).filter(|&&s| s != usize::MAX) else { continue };
                let v = sim.velocities()[slot].normalize_or_zero();
                // Turned that far from the old heading, and towards the side.
                if first[k].is_none() && v.dot(self.heading) < self.cos_threshold && v.dot(self.side) > 0.0 {
                    first[k] = Some(tick);
                    count += 1;
                }
            }
            shares.push(count as f32 / self.fish.len() as f32);
        }
        Ok((shares, first))
    }
}

/// The slot of each fish by id, into `slot_of` (`usize::MAX`: no fish).
fn slots_by_id(ids: &[u32], slot_of: &mut Vec<usize>) {
    slot_of.clear();
    slot_of.resize(ids.len(), usize::MAX);
    for (slot, &id) in ids.iter().enumerate() {
        if let Some(s) = slot_of.get_mut(id as usize) {
            *s = slot;
        }
    }
}
