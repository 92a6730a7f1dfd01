//! The flock: every fish's state as contiguous arrays, and the tick as three
//! ordered passes over them.
//!
//! Fish live in *slots* (indices into the arrays), stable until a fish is
//! removed. A tick is:
//!
//! 1. [`Flock::rebuild_index`]: counting-sort the fish into the grid and take
//!    sorted copies of position, velocity, wander phase, leader flag and
//!    school — the previous tick's state, which is all that the force pass
//!    reads (double buffering).
//! 2. [`Flock::accumulate_forces`]: for every fish, in parallel, sum its
//!    neighbourhood and weight the rules (and the scene's obstacles,
//!    predators, goal and attractor) into one acceleration, clamped once to
//!    `max_force` (the kernel is in `kernel.rs`).
//! 3. [`Flock::integrate`]: semi-implicit Euler (`v += a·dt`, speed clamp,
//!    `p += v·dt`), fear and wander phase; then wrap, bounce or contain, and
//!    push fish out of obstacles.
//!
//! [`Flock::step`] runs the three, then moves the predators
//! ([`Flock::move_predators`]). Every pass takes the school table
//! ([`SchoolTable`]): one `FlockParams` for a single school.
//!
//! Each pass writes only its own fish's entries and reads only what earlier
//! passes finished, so the result does not depend on iteration order or on
//! the number of threads: the same seed gives the same bits.

use std::sync::Arc;

use glam::Vec2;
use rayon::prelude::*;

use crate::boundary;
use crate::grid::{SpatialGrid, offset};
use crate::kernel::{ForceKernel, Kick};
pub use crate::kernel::{ForceSample, NeighbourSearch};
use crate::noise::{Stream, TickKey};
use crate::params::{BoundaryMode, FlockParams, ParamError, Tank, validate_dt};
use crate::rules;
use crate::scene::{self, Route, Scene};
use crate::school::{self, SchoolCache, SchoolTable};

/// Fish per parallel work item: large enough to amortise scheduling, small
/// enough to balance two to a few dozen threads at 10k fish and up.
const CHUNK: usize = 1024;
const _: () = assert!(CHUNK.is_multiple_of(crate::grid::QUARTET), "force work items start at a quartet");

/// All fish of a simulation, structure-of-arrays, plus the buffers the tick
/// reuses.
#[derive(Clone, Debug, Default)]
pub struct Flock {
    position: Vec<Vec2>,
    velocity: Vec<Vec2>,
    wander_phase: Vec<f32>,
    /// Whether each fish leads (counts `leader_weight` for its neighbours).
    leader: Vec<bool>,
    /// How afraid each fish is (0 calm – 1 panic), by slot.
    fear: Vec<f32>,
    /// The school of each fish, by slot.
    school: Vec<u16>,
    /// Schools in sorted order, gathered with the snapshot.
    sorted_school: Vec<u16>,
    /// Per-school constants of the force pass, rebuilt each tick.
    school_caches: Vec<SchoolCache>,
    /// Per-school `(max_speed, panic - 1, wander turn, calm factor)` of the
    /// integrator, rebuilt each tick.
    school_motion: Vec<[f32; 4]>,
    /// Leader flags in sorted order, gathered with the snapshot.
    sorted_leader: Vec<bool>,
    /// Wander phases in sorted order, gathered with the snapshot.
    sorted_phase: Vec<f32>,
    /// Clamped acceleration applied in the last tick, by slot.
    steering: Vec<Vec2>,
    grid: SpatialGrid,
    /// Force pass output, in sorted order.
    sorted_kick: Vec<Kick>,
    /// The force pass output again, by slot: gathered in a tight loop of
    /// its own, whose random reads overlap, before the integrator streams
    /// through it (read at random inside the integrator, they stalled it).
    kick: Vec<Kick>,
    sorted_samples: Vec<ForceSample>,
    search: NeighbourSearch,
    /// Whether the force pass keeps every fish's [`ForceSample`].
    record_rules: bool,
    seed: u64,
    tick: u64,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl Flock {
    /// An empty flock whose noise is drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed, ..Self::default() }
    }

    /// Runs the parallel passes on `pool` instead of rayon's global pool
    /// (e.g. a one-thread pool to compare thread counts).
    pub fn with_thread_pool(mut self, pool: Arc<rayon::ThreadPool>) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Chooses how neighbours are found.
    pub fn set_neighbour_search(&mut self, search: NeighbourSearch) {
        self.search = search;
    }

    /// Adds a fish and returns its slot.
    pub fn push(&mut self, position: Vec2, velocity: Vec2, wander_phase: f32) -> usize {
        self.position.push(position);
        self.velocity.push(velocity);
        self.wander_phase.push(wander_phase);
        self.leader.push(false);
        self.fear.push(0.0);
        self.school.push(0);
        self.steering.push(Vec2::ZERO);
        self.position.len() - 1
    }

    /// Removes the fish in `slot`; the last fish moves into it (its old slot
    /// is returned, if it moved), exactly like [`Vec::swap_remove`].
    pub fn swap_remove(&mut self, slot: usize) -> Option<usize> {
        let last = self.len() - 1;
        self.position.swap_remove(slot);
        self.velocity.swap_remove(slot);
        self.wander_phase.swap_remove(slot);
        self.leader.swap_remove(slot);
        self.fear.swap_remove(slot);
        self.school.swap_remove(slot);
        self.steering.swap_remove(slot);
        (slot != last).then_some(last)
    }

    /// Removes every fish.
    pub fn clear(&mut self) {
        self.position.clear();
        self.velocity.clear();
        self.wander_phase.clear();
        self.leader.clear();
        self.fear.clear();
        self.school.clear();
        self.steering.clear();
    }

    /// Number of fish.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether there are no fish.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Positions by slot.
    pub fn positions(&self) -> &[Vec2] {
        &self.position
    }

    /// Velocities by slot.
    pub fn velocities(&self) -> &[Vec2] {
        &self.velocity
    }

    /// Wander phases (radians) by slot.
    pub fn wander_phases(&self) -> &[f32] {
        &self.wander_phase
    }

    /// Whether each fish is a leader, by slot.
    pub fn leaders(&self) -> &[bool] {
        &self.leader
    }

    /// How afraid each fish is (0 calm – 1 panic), by slot.
    pub fn fears(&self) -> &[f32] {
        &self.fear
    }

    /// Overwrites the position, velocity and wander phase of the fish in
    /// `slot`, keeping everything else it carries from tick to tick (its
    /// fear, school and leader flag). Panics if `slot` is out of range.
    #[inline]
    pub fn set_motion(&mut self, slot: usize, position: Vec2, velocity: Vec2, wander_phase: f32) {
        self.position[slot] = position;
        self.velocity[slot] = velocity;
        self.wander_phase[slot] = wander_phase;
    }

    /// Sets how afraid the fish in `slot` is (clamped to 0–1).
    pub fn set_fear(&mut self, slot: usize, fear: f32) {
        self.fear[slot] = if fear.is_nan() { 0.0 } else { fear.clamp(0.0, 1.0) };
    }

    /// The school of each fish, by slot.
    pub fn school_indices(&self) -> &[u16] {
        &self.school
    }

    /// Puts the fish in `slot` into school `school` (an index into the
    /// school table the passes are given).
    pub fn set_school(&mut self, slot: usize, school: u16) {
        self.school[slot] = school;
    }

    /// Makes the fish in `slot` a leader (or not).
    pub fn set_leader(&mut self, slot: usize, leads: bool) {
        self.leader[slot] = leads;
    }

    /// The clamped acceleration each fish applied in the last tick.
    pub fn steering(&self) -> &[Vec2] {
        &self.steering
    }

    /// Sets the state of one fish (e.g. from the ECS before a tick).
    pub fn set(&mut self, slot: usize, position: Vec2, velocity: Vec2, wander_phase: f32) {
        self.position[slot] = position;
        self.velocity[slot] = velocity;
        self.wander_phase[slot] = wander_phase;
    }

    /// Keeps (or stops keeping) every fish's [`ForceSample`] — each rule's
    /// force — from the force pass. Off by default: writing 68 bytes per
    /// fish and tick costs about 8 % of a tick at 100k fish. Metrics and
    /// debug drawing turn it on.
    pub fn set_record_rules(&mut self, record: bool) {
        self.record_rules = record;
        if !record {
            self.sorted_samples.clear();
        }
    }

    /// Whether [`ForceSample`]s are kept.
    pub fn records_rules(&self) -> bool {
        self.record_rules
    }

    /// Neighbours within the perception radius of every fish in the last
    /// tick, in grid order (always kept, unlike the samples).
    pub fn neighbour_counts(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.sorted_kick.iter().map(|k| k.neighbours)
    }

    /// The force-pass observation of the fish in `slot`, from the last tick;
    /// `None` unless [`Flock::set_record_rules`] is on.
    pub fn sample(&self, slot: usize) -> Option<ForceSample> {
        let s = *self.grid.rank().get(slot)? as usize;
        self.sorted_samples.get(s).copied()
    }

    /// Force-pass observations of every fish, in grid order (for statistics
    /// that do not care which fish is which); empty unless
    /// [`Flock::set_record_rules`] is on.
    pub fn samples(&self) -> &[ForceSample] {
        &self.sorted_samples
    }

    /// The neighbour index built by the last [`Flock::rebuild_index`].
    pub fn grid(&self) -> &SpatialGrid {
        &self.grid
    }

    /// Ticks stepped so far.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The seed of the per-tick noise.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Heap bytes held by the flock (state and reused buffers).
    pub fn heap_bytes(&self) -> usize {
        (self.position.capacity() + self.velocity.capacity() + self.steering.capacity()) * 8
            + self.wander_phase.capacity() * 4
            + (self.sorted_kick.capacity() + self.kick.capacity()) * core::mem::size_of::<Kick>()
            + self.sorted_samples.capacity() * core::mem::size_of::<ForceSample>()
            + self.grid.heap_bytes()
    }

    /// Validates the inputs, then runs one whole tick: the three passes,
    /// then the predators' move.
    pub fn step<S: SchoolTable + ?Sized>(
        &mut self,
        schools: &S,
        tank: &Tank,
        scene: &mut Scene,
        dt: f32,
    ) -> Result<(), ParamError> {
        let table = schools.table();
        if table.is_empty() {
            return Err(ParamError { field: "schools", value: 0.0, expected: "at least one school".into() });
        }
        for params in table {
            params.validate()?;
        }
        if let Some(&bad) = self.school.iter().find(|&&k| k as usize >= table.len()) {
            return Err(ParamError {
                field: "school",
                value: f32::from(bad),
                expected: format!("an index below the {} schools given", table.len()),
            });
        }
        let params = table;
        tank.validate()?;
        scene.validate()?;
        validate_dt(dt)?;
        self.rebuild_index(params, tank);
        self.accumulate_forces(params, tank, scene);
        self.integrate(params, tank, scene, dt);
        self.move_predators(scene, tank, dt);
        Ok(())
    }

    /// Pass 1: sorts the fish into the grid (cells at least the interaction
    /// radius wide) and snapshots position and velocity.
    pub fn rebuild_index<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank) {
        let wrap = tank.boundary == BoundaryMode::Wrap;
        let radius = schools.table().iter().map(FlockParams::interaction_radius).fold(0.0f32, f32::max);
        let (grid, position, velocity) = (&mut self.grid, &self.position, &self.velocity);
        run(self.pool.as_deref(), || grid.rebuild(position, velocity, tank, radius, wrap));
        // The per-fish inputs the force pass reads, in sorted order too: read
        // by slot they would be a cache miss per fish (the wander phase
        // alone cost a sixth of the pass).
        let (order, leader, phase, school) =
            (self.grid.order(), &self.leader, &self.wander_phase, &self.school);
        let n = order.len();
        self.sorted_leader.resize(n, false);
        self.sorted_phase.resize(n, 0.0);
        self.sorted_school.resize(n, 0);
        let chunks = (
            order.par_chunks(CHUNK),
            self.sorted_leader.par_chunks_mut(CHUNK),
            self.sorted_phase.par_chunks_mut(CHUNK),
            self.sorted_school.par_chunks_mut(CHUNK),
        );
        run(self.pool.as_deref(), || {
            chunks.into_par_iter().for_each(|(order, sorted_leader, sorted_phase, sorted_school)| {
                for (k, &i) in order.iter().enumerate() {
                    let i = i as usize;
                    (sorted_leader[k], sorted_phase[k], sorted_school[k]) = (leader[i], phase[i], school[i]);
                }
            });
        });
    }

    /// Pass 2: the rules' weighted sum for every fish, clamped once to the
    /// school's `max_force`. Reads only the snapshot taken by pass 1.
    pub fn accumulate_forces<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank, scene: &Scene) {
        let table = schools.table();
        let n = self.len();
        self.sorted_kick.resize(n, Kick::default());
        let record = self.record_rules;
        self.sorted_samples.resize(if record { n } else { 0 }, ForceSample::default());
        let has_leaders = self.leader.contains(&true);
        let others = table.len() > 1;
        self.school_caches.clear();
        self.school_caches.extend(table.iter().map(|p| SchoolCache::new(p, others, has_leaders)));
        let kernel = ForceKernel {
            grid: &self.grid,
            sorted_phase: &self.sorted_phase,
            sorted_leader: &self.sorted_leader,
            fear: &self.fear,
            leader: &self.leader,
            leader_goal: scene.route.as_ref().and_then(Route::goal),
            quiet: scene.obstacles.is_empty()
                && scene.predators.is_empty()
                && scene.goal.is_none()
                && scene.school_goals.iter().all(Option::is_none)
                && scene.attractor.is_none()
                && (scene.route.is_none() || !has_leaders)
                && self.fear.iter().all(|&f| f == 0.0),
            scene,
            table,
            caches: &self.school_caches,
            capped: table.iter().any(|p| p.neighbour_cap > 0),
            sorted_school: &self.sorted_school,
            tank,
            search: self.search,
            seed: self.seed,
            key: TickKey::new(self.seed, self.tick),
        };
        let (kicks, samples) = (&mut self.sorted_kick, &mut self.sorted_samples);
        let work =
            || {
                if record {
                    kicks.par_chunks_mut(CHUNK).zip(samples.par_chunks_mut(CHUNK)).enumerate().for_each(
                        |(chunk, (kicks, samples))| kernel.run(chunk * CHUNK, kicks, Some(samples)),
                    );
                } else {
                    kicks
                        .par_chunks_mut(CHUNK)
                        .enumerate()
                        .for_each(|(chunk, kicks)| kernel.run(chunk * CHUNK, kicks, None));
                }
            };
        run(self.pool.as_deref(), work);
    }

    /// Pass 3: semi-implicit Euler, then the walls and the obstacles.
    ///
    /// Velocity first (`v += a·dt`, clamped to `max_speed`, raised by fear),
    /// then position with the new velocity (`p += v·dt`); the force limit
    /// is never scaled by `dt`: it bounds the acceleration. Then every fish
    /// is brought back inside the tank (wrap, bounce or the soft margin's
    /// hard backstop) and out of every obstacle (an obstacle that covers
    /// the tank's edge can leave a fish between the two only if it left no
    /// way out). One pass over the fish, not two: it runs at memory speed.
    pub fn integrate<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank, scene: &Scene, dt: f32) {
        let table = schools.table();
        self.school_motion.clear();
        self.school_motion.extend(
            table
                .iter()
                .map(|p| [p.max_speed, p.panic_speed - 1.0, p.wander_rate * dt, (-p.calm_rate * dt).exp()]),
        );
        let (rank, sorted_kick) = (self.grid.rank(), &self.sorted_kick);
        let kick = &mut self.kick;
        run(self.pool.as_deref(), || {
            rank.par_iter().map(|&s| sorted_kick[s as usize]).collect_into_vec(kick)
        });
        let (kicks, motion) = (&self.kick, &self.school_motion);
        let schools_of = &self.school;
        let key = TickKey::new(self.seed, self.tick);
        let chunks = (
            self.position.par_chunks_mut(CHUNK),
            self.velocity.par_chunks_mut(CHUNK),
            self.wander_phase.par_chunks_mut(CHUNK),
            self.steering.par_chunks_mut(CHUNK),
            self.fear.par_chunks_mut(CHUNK),
        );
        run(self.pool.as_deref(), || {
            chunks.into_par_iter().enumerate().for_each(|(chunk, (p, v, phase, steer, fear))| {
                let base = chunk * CHUNK;
                for k in 0..p.len() {
                    let [max_speed, panic, turn, calm] =
                        motion[school::clamp_index(schools_of[base + k], motion.len())];
                    let Kick { acceleration: a, fright, .. } = kicks[base + k];
                    steer[k] = a;
                    // Fear jumps to what the fish sees now and fades slowly.
                    fear[k] = fright.max(fear[k] * calm).clamp(0.0, 1.0);
                    let limit = max_speed * (1.0 + panic * fear[k]);
                    v[k] = rules::clamp_length(v[k] + a * dt, limit);
                    p[k] += v[k] * dt;
                    phase[k] = wrap_angle(phase[k] + turn);
                    (p[k], v[k]) = contain(p[k], v[k], tank, scene, || {
                        key.in_unit_disc((base + k) as u64, Stream::Bounce).x
                    });
                }
            });
        });
        self.tick += 1;
    }

    /// After the fish: the leaders' route moves on if they reached its
    /// current waypoint; each chasing predator steers at the fish nearest to
    /// it (ties go to the lowest slot), then every predator moves.
    pub fn move_predators(&self, scene: &mut Scene, tank: &Tank, dt: f32) {
        if let Some(route) = &mut scene.route
            && let Some(centre) = self.leaders_centre()
        {
            route.advance(centre);
        }
        let wrap = tank.boundary == BoundaryMode::Wrap;
        for predator in &mut scene.predators {
            let prey =
                predator.chase.then(|| self.nearest_fish(predator.position, tank.size(), wrap)).flatten();
            let target = prey.map(|slot| {
                predator.position + offset(predator.position, self.position[slot], tank.size(), wrap)
            });
            scene::move_predator(predator, target, tank, dt);
        }
    }

    /// The mean position of the leaders, if there are any.
    pub fn leaders_centre(&self) -> Option<Vec2> {
        let (sum, n) = self
            .position
            .iter()
            .zip(&self.leader)
            .filter(|(_, l)| **l)
            .fold((Vec2::ZERO, 0u32), |(s, n), (p, _)| (s + *p, n + 1));
        (n > 0).then(|| sum / n as f32)
    }

    /// The slot of the fish nearest to `p` (wrap-aware), if any.
    pub fn nearest_fish(&self, p: Vec2, size: Vec2, wrap: bool) -> Option<usize> {
        let mut best: Option<(f32, usize)> = None;
        for (slot, &q) in self.position.iter().enumerate() {
            let d2 = offset(p, q, size, wrap).length_squared();
            if best.is_none_or(|(b, _)| d2 < b) {
                best = Some((d2, slot));
            }
        }
        best.map(|(_, slot)| slot)
    }

    /// Slots of the neighbours of `slot` within `radius`, found through the
    /// grid built by the last [`Flock::rebuild_index`], sorted ascending.
    pub fn grid_neighbours(&self, slot: usize, radius: f32) -> Vec<u32> {
        let g = &self.grid;
        let me = g.rank()[slot] as usize;
        let p = g.sorted_position(me);
        let size = g.tank_size();
        let mut out = Vec::new();
        for run in g.candidate_runs(p).iter() {
            for j in run {
                let d = offset(p, g.sorted_position(j), size, g.wraps());
                if j != me && d.length_squared() < radius * radius {
                    out.push(g.order()[j]);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Slots of the neighbours of `slot` within `radius` by brute force over
    /// every fish, sorted ascending: the grid's reference.
    pub fn brute_force_neighbours(&self, slot: usize, radius: f32, tank: &Tank) -> Vec<u32> {
        let wrap = tank.boundary == BoundaryMode::Wrap;
        let p = self.position[slot];
        (0..self.len())
            .filter(|&j| {
                j != slot && offset(p, self.position[j], tank.size(), wrap).length_squared() < radius * radius
            })
            .map(|j| j as u32)
            .collect()
    }
}

/// A fish at `p` moving with `v`, brought inside the tank and out of every
/// obstacle. `scatter` draws the tangential noise of a bounce.
#[inline]
fn contain(
    mut p: Vec2,
    mut v: Vec2,
    tank: &Tank,
    scene: &Scene,
    scatter: impl FnOnce() -> f32,
) -> (Vec2, Vec2) {
    match tank.boundary {
        BoundaryMode::Wrap => p = boundary::wrap(p, tank),
        BoundaryMode::Bounce => {
            if !tank.contains(p) {
                (p, v) = boundary::bounce(p, v, tank, scatter());
            }
        }
        // The soft margin steers in the force pass; this hard wall only
        // catches fish too fast to turn in time.
        BoundaryMode::SoftMargin => (p, v) = boundary::bounce(p, v, tank, 0.0),
    }
    if !scene.obstacles.is_empty() {
        for o in &scene.obstacles {
            (p, v) = scene::push_out(p, v, o);
        }
        if !tank.contains(p) {
            p = match tank.boundary {
                BoundaryMode::Wrap => boundary::wrap(p, tank),
                _ => boundary::bounce(p, v, tank, 0.0).0,
            };
        }
    }
    (p, v)
}

/// Brings an angle into `[0, 2π)`; the common case (one small step past
/// either end) without the slow `rem_euclid`.
#[inline]
fn wrap_angle(a: f32) -> f32 {
    use core::f32::consts::TAU;
    let b = if a >= TAU {
        a - TAU
    } else if a < 0.0 {
        a + TAU
    } else {
        a
    };
    if (0.0..TAU).contains(&b) { b } else { a.rem_euclid(TAU) % TAU }
}

/// Runs `work` on `pool`, or on rayon's global pool.
fn run(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() + Send) {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}
