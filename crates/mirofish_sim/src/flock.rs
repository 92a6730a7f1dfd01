//! The flock: every fish's state as contiguous arrays, and the tick as five
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
//!    predators, goal and attractor) into one acceleration.
//! 3. [`Flock::clamp_forces`]: one clamp of that total to `max_force`.
//! 4. [`Flock::integrate`]: semi-implicit Euler (`v += a·dt`, speed clamp,
//!    `p += v·dt`), fear and wander phase.
//! 5. [`Flock::apply_boundary`]: wrap, bounce or contain; push fish out of
//!    obstacles.
//!
//! [`Flock::step`] runs the five, then moves the predators
//! ([`Flock::move_predators`]). Every pass takes the school table
//! ([`SchoolTable`]): one `FlockParams` for a single school.
//!
//! Each pass writes only its own fish's entries and reads only what earlier
//! passes finished, so the result does not depend on iteration order or on
//! the number of threads: the same seed gives the same bits.

use std::sync::Arc;

use glam::{BVec4A, Vec2, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::boundary;
use crate::grid::{CandidateRuns, SpatialGrid, offset};
use crate::noise::{self, Stream};
use crate::params::{BoundaryMode, FlockParams, ParamError, Tank, validate_dt};
use crate::rules::{self, Neighbourhood, RuleForces};
use crate::scene::{self, Goal, Route, Scene};
use crate::school::{self, SchoolCache, SchoolTable};

/// Fish per parallel work item: large enough to amortise scheduling, small
/// enough to balance two to a few dozen threads at 10k fish and up.
const CHUNK: usize = 1024;

/// How neighbours are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NeighbourSearch {
    /// The uniform grid: 3 × 3 cells around each fish (O(n)).
    #[default]
    Grid,
    /// Every fish against every other (O(n²)); the reference the grid is
    /// tested and benchmarked against.
    BruteForce,
}

/// What the force pass learnt about one fish, kept for observation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForceSample {
    /// The weighted rule forces (accelerations, before the clamp).
    pub rules: RuleForces,
    /// Neighbours within the perception radius.
    pub neighbours: u32,
}

/// What the force pass hands the integrator for one fish: kept small and
/// apart from [`ForceSample`], because the integrator reads it in slot
/// order, i.e. at random places of the sorted arrays.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Kick {
    /// Total acceleration (clamped by pass 3).
    acceleration: Vec2,
    /// Fear from the predators seen this tick (0–1), before it is merged
    /// with the fish's lingering fear.
    fright: f32,
    /// Neighbours within the perception radius.
    neighbours: u32,
}

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
            + self.sorted_kick.capacity() * core::mem::size_of::<Kick>()
            + self.sorted_samples.capacity() * core::mem::size_of::<ForceSample>()
            + self.grid.heap_bytes()
    }

    /// Validates the inputs, then runs one whole tick: the five passes,
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
        self.clamp_forces(params);
        self.integrate(params, dt);
        self.apply_boundary(tank, scene);
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
        let (sorted_leader, sorted_phase, sorted_school) =
            (&mut self.sorted_leader, &mut self.sorted_phase, &mut self.sorted_school);
        run(self.pool.as_deref(), || {
            order.par_iter().map(|&i| leader[i as usize]).collect_into_vec(sorted_leader);
            order.par_iter().map(|&i| phase[i as usize]).collect_into_vec(sorted_phase);
            order.par_iter().map(|&i| school[i as usize]).collect_into_vec(sorted_school);
        });
    }

    /// Pass 2: the rules' weighted sum for every fish, as an unclamped
    /// acceleration. Reads only the snapshot taken by pass 1.
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
                && (scene.route.is_none() || !self.leader.contains(&true))
                && self.fear.iter().all(|&f| f == 0.0),
            scene,
            table,
            caches: &self.school_caches,
            sorted_school: &self.sorted_school,
            tank,
            search: self.search,
            seed: self.seed,
            tick: self.tick,
        };
        let (kicks, samples) = (&mut self.sorted_kick, &mut self.sorted_samples);
        let work = || {
            if record {
                kicks.par_chunks_mut(CHUNK).zip(samples.par_chunks_mut(CHUNK)).enumerate().for_each(
                    |(chunk, (kicks, samples))| {
                        let base = chunk * CHUNK;
                        for (k, (kick, sample)) in kicks.iter_mut().zip(samples.iter_mut()).enumerate() {
                            (*kick, *sample) = kernel.fish(base + k);
                        }
                    },
                );
            } else {
                kicks.par_chunks_mut(CHUNK).enumerate().for_each(|(chunk, kicks)| {
                    let base = chunk * CHUNK;
                    for (k, kick) in kicks.iter_mut().enumerate() {
                        *kick = kernel.fish(base + k).0;
                    }
                });
            }
        };
        run(self.pool.as_deref(), work);
    }

    /// Pass 3: one clamp of each fish's total acceleration to `max_force`.
    pub fn clamp_forces<S: SchoolTable + ?Sized>(&mut self, schools: &S) {
        let table = schools.table();
        let (kicks, school) = (&mut self.sorted_kick, &self.sorted_school);
        run(self.pool.as_deref(), || {
            kicks.par_chunks_mut(CHUNK).zip(school.par_chunks(CHUNK)).for_each(|(chunk, school)| {
                for (k, &i) in chunk.iter_mut().zip(school) {
                    let max = table[school::clamp_index(i, table.len())].max_force;
                    k.acceleration = rules::clamp_length(k.acceleration, max);
                }
            });
        });
    }

    /// Pass 4: semi-implicit Euler. Velocity first (`v += a·dt`, clamped to
    /// `max_speed`), then position with the new velocity (`p += v·dt`).
    /// The force limit is never scaled by `dt`: it bounds the acceleration.
    pub fn integrate<S: SchoolTable + ?Sized>(&mut self, schools: &S, dt: f32) {
        let table = schools.table();
        self.school_motion.clear();
        self.school_motion.extend(
            table
                .iter()
                .map(|p| [p.max_speed, p.panic_speed - 1.0, p.wander_rate * dt, (-p.calm_rate * dt).exp()]),
        );
        let (rank, kicks, motion) = (self.grid.rank(), &self.sorted_kick, &self.school_motion);
        let schools_of = &self.school;
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
                    let s = rank[base + k] as usize;
                    let [max_speed, panic, turn, calm] =
                        motion[school::clamp_index(schools_of[base + k], motion.len())];
                    let Kick { acceleration: a, fright, .. } = kicks[s];
                    steer[k] = a;
                    // Fear jumps to what the fish sees now and fades slowly.
                    fear[k] = fright.max(fear[k] * calm).clamp(0.0, 1.0);
                    let limit = max_speed * (1.0 + panic * fear[k]);
                    v[k] = rules::clamp_length(v[k] + a * dt, limit);
                    p[k] += v[k] * dt;
                    phase[k] = wrap_angle(phase[k] + turn);
                }
            });
        });
    }

    /// Pass 5: the walls and the obstacles. Every fish ends inside the tank
    /// and outside every obstacle (an obstacle that covers the tank's edge
    /// can leave a fish between the two only if it left no way out).
    pub fn apply_boundary(&mut self, tank: &Tank, scene: &Scene) {
        let (seed, tick) = (self.seed, self.tick);
        let chunks = (self.position.par_chunks_mut(CHUNK), self.velocity.par_chunks_mut(CHUNK));
        run(self.pool.as_deref(), || {
            chunks.into_par_iter().enumerate().for_each(|(chunk, (p, v))| {
                let base = chunk * CHUNK;
                for k in 0..p.len() {
                    match tank.boundary {
                        BoundaryMode::Wrap => p[k] = boundary::wrap(p[k], tank),
                        BoundaryMode::Bounce => {
                            if !tank.contains(p[k]) {
                                let slot = (base + k) as u64;
                                let scatter = noise::in_unit_disc(seed, tick, slot, Stream::Bounce).x;
                                (p[k], v[k]) = boundary::bounce(p[k], v[k], tank, scatter);
                            }
                        }
                        // The soft margin steers in the force pass; this hard
                        // wall only catches fish too fast to turn in time.
                        BoundaryMode::SoftMargin => (p[k], v[k]) = boundary::bounce(p[k], v[k], tank, 0.0),
                    }
                    if !scene.obstacles.is_empty() {
                        for o in &scene.obstacles {
                            (p[k], v[k]) = scene::push_out(p[k], v[k], o);
                        }
                        if !tank.contains(p[k]) {
                            p[k] = match tank.boundary {
                                BoundaryMode::Wrap => boundary::wrap(p[k], tank),
                                _ => boundary::bounce(p[k], v[k], tank, 0.0).0,
                            };
                        }
                    }
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
        let p = g.sorted_position()[me];
        let size = g.tank_size();
        let mut out = Vec::new();
        for run in g.candidate_runs(p).iter() {
            for j in run {
                let d = offset(p, g.sorted_position()[j], size, g.wraps());
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

/// Everything the force pass reads, shared by all threads.
struct ForceKernel<'a> {
    grid: &'a SpatialGrid,
    sorted_phase: &'a [f32],
    sorted_leader: &'a [bool],
    /// Fear by slot, as of the previous tick.
    fear: &'a [f32],
    /// Leader flags by slot.
    leader: &'a [bool],
    /// Where the route sends the leaders this tick.
    leader_goal: Option<Goal>,
    /// Nothing in the scene and nobody afraid: the scene reactions are
    /// skipped (the common case, and worth ~10 % of the pass).
    quiet: bool,
    scene: &'a Scene,
    /// Every school's parameters.
    table: &'a [FlockParams],
    /// Every school's precomputed radii, view and scan kind.
    caches: &'a [SchoolCache],
    /// Schools in sorted order.
    sorted_school: &'a [u16],
    tank: &'a Tank,
    search: NeighbourSearch,
    seed: u64,
    tick: u64,
}

impl ForceKernel<'_> {
    /// The unclamped acceleration and observation of the fish at sorted
    /// index `s`.
    #[inline]
    fn fish(&self, s: usize) -> (Kick, ForceSample) {
        // Four copies of the scan, so the inner loop carries no mode test.
        let k = school::clamp_index(self.sorted_school[s], self.caches.len());
        match (self.grid.wraps(), self.caches[k].shaped) {
            (true, true) => self.fish_with::<true, true>(s),
            (true, false) => self.fish_with::<true, false>(s),
            (false, true) => self.fish_with::<false, true>(s),
            (false, false) => self.fish_with::<false, false>(s),
        }
    }

    #[inline(always)]
    fn fish_with<const WRAP: bool, const SHAPED: bool>(&self, s: usize) -> (Kick, ForceSample) {
        let g = self.grid;
        let (pos, vel) = (g.sorted_position(), g.sorted_velocity());
        let (p, v, slot) = (pos[s], vel[s], g.order()[s]);
        let school = school::clamp_index(self.sorted_school[s], self.table.len());
        let params = &self.table[school];
        let runs = match self.search {
            NeighbourSearch::Grid => g.candidate_runs(p),
            NeighbourSearch::BruteForce => CandidateRuns::single(0..pos.len()),
        };
        let phase = self.sorted_phase[s];
        // A fish at rest looks where its wander points.
        let heading = if SHAPED { rules::heading(v, Vec2::from_angle(phase)) } else { Vec2::X };
        let me = Onlooker { p, heading, slot, school };
        let step = thinning_step(&runs, params.neighbour_cap);
        let mut acc = Accumulator::default();
        for run in runs.iter() {
            // The fish itself is cut out of its own run rather than tested
            // for at every candidate.
            let (a, b) = (run.start, run.end);
            if run.contains(&s) {
                self.scan::<WRAP, SHAPED>(&mut acc, a, s, step, &me);
                self.scan::<WRAP, SHAPED>(&mut acc, s + 1, b, step, &me);
            } else {
                self.scan::<WRAP, SHAPED>(&mut acc, a, b, step, &me);
            }
        }
        if step > 1 {
            acc.scale(step as u32);
        }
        let hood = acc.finish();

        let mut forces = RuleForces::evaluate(&hood, v, phase, params);
        let fright = if self.quiet { 0.0 } else { self.react_to_scene(&mut forces, params, &me, v) };
        if self.tank.boundary == BoundaryMode::SoftMargin {
            forces.boundary = rules::steer(
                boundary::soft_margin_steer(p, self.tank, params),
                self.tank.boundary_weight,
                params,
            );
        }
        let jitter = noise::in_unit_disc(self.seed, self.tick, u64::from(slot), Stream::Jitter)
            * (params.jitter * params.max_force);
        let acceleration = forces.acceleration() + jitter;
        (
            Kick { acceleration, fright, neighbours: hood.count },
            ForceSample { rules: forces, neighbours: hood.count },
        )
    }
}

impl ForceKernel<'_> {
    /// Adds obstacle avoidance, flight, the goal and the attract/repel point
    /// to `forces`, and applies the previous tick's fear (separation grows
    /// with it). Returns the fright predators cause this tick.
    #[inline]
    fn react_to_scene(&self, forces: &mut RuleForces, params: &FlockParams, me: &Onlooker, v: Vec2) -> f32 {
        let Onlooker { p, slot, school, .. } = *me;
        let scene = self.scene;
        let fear = self.fear[slot as usize];
        forces.separation *= 1.0 + (params.panic_separation - 1.0) * fear;
        let max_speed = params.max_speed * (1.0 + (params.panic_speed - 1.0) * fear);
        if !scene.obstacles.is_empty() {
            let away: Vec2 =
                scene.obstacles.iter().map(|o| scene::avoid(p, o, params.obstacle_look, max_speed)).sum();
            forces.obstacle = rules::steer(away, params.obstacle_weight, params);
        }
        let mut fright = 0.0f32;
        if !scene.predators.is_empty() {
            let mut flight = Vec2::ZERO;
            for predator in &scene.predators {
                let (f, change) = scene::flee(p, v, predator, max_speed);
                fright = fright.max(f);
                flight += change;
            }
            forces.flee = rules::steer(flight, params.flee_weight, params);
        }
        if let Some(goal) = scene.goal_of(school) {
            forces.goal += rules::steer(scene::pursue(p, v, &goal, params.max_speed), goal.weight, params);
        }
        if let Some(a) = &scene.attractor {
            forces.goal += rules::steer(scene::attract(p, a, params.max_speed), a.strength.abs(), params);
        }
        if let Some(goal) = self.leader_goal
            && self.leader[slot as usize]
        {
            forces.goal += rules::steer(scene::pursue(p, v, &goal, params.max_speed), goal.weight, params);
        }
        fright
    }
}

/// The fish whose neighbourhood a scan sums.
#[derive(Clone, Copy)]
struct Onlooker {
    /// Its position.
    p: Vec2,
    /// Its heading (unit), for the view test.
    heading: Vec2,
    /// Its slot, for the coincident-pair direction.
    slot: u32,
    /// Its school (already clamped to the table).
    school: usize,
}

/// The neighbourhood sums while a scan runs: velocity and offset packed in
/// one 4-lane vector so the perception test is a SIMD mask, not a branch
/// (about a third of the candidates pass it, which no predictor learns).
#[derive(Clone, Copy, Default)]
struct Accumulator {
    /// `(velocity.x, velocity.y, offset.x, offset.y)` summed.
    packed: Vec4,
    count: u32,
    separation_count: u32,
    separation_sum: Vec2,
}

/// Candidates looked at per fish under a neighbour cap, per capped
/// neighbour: in a uniform school about a third of the 3 × 3 block's
/// candidates are within the perception radius.
const CANDIDATES_PER_CAPPED_NEIGHBOUR: usize = 3;

/// The stride of the candidate scan: 1 (every candidate) unless a cap is set
/// and the block holds more than `3 × cap` candidates.
#[inline]
fn thinning_step(runs: &CandidateRuns, cap: u32) -> usize {
    if cap == 0 {
        return 1;
    }
    let budget = cap as usize * CANDIDATES_PER_CAPPED_NEIGHBOUR;
    let total: usize = runs.iter().map(|r| r.len()).sum();
    total.div_ceil(budget).max(1)
}

impl Accumulator {
    /// Scales sums and counts by the thinning stride, so that means stay
    /// and sums and counts estimate the full neighbourhood's.
    fn scale(&mut self, step: u32) {
        let f = step as f32;
        self.packed *= f;
        self.count *= step;
        self.separation_count *= step;
        self.separation_sum *= f;
    }

    fn finish(self) -> Neighbourhood {
        Neighbourhood {
            count: self.count,
            velocity_sum: self.packed.xy(),
            offset_sum: self.packed.zw(),
            separation_count: self.separation_count,
            separation_sum: self.separation_sum,
        }
    }
}

impl ForceKernel<'_> {
    /// Adds the candidates at sorted indices `a..b` to `acc`. With
    /// `SHAPED`, only neighbours inside the view count for alignment and
    /// cohesion, each with its weight (see [`crate::view::View`]).
    #[inline(always)]
    fn scan<const WRAP: bool, const SHAPED: bool>(
        &self,
        acc: &mut Accumulator,
        a: usize,
        b: usize,
        step: usize,
        me: &Onlooker,
    ) {
        let Onlooker { p, heading, slot, school } = *me;
        let g = self.grid;
        let (cache, params) = (&self.caches[school], &self.table[school]);
        let schools = &self.sorted_school[a..b];
        let (pos, vel) = (&g.sorted_position()[a..b], &g.sorted_velocity()[a..b]);
        let leaders = &self.sorted_leader[a..b];
        let size = self.tank.size();
        let reach = &cache.reach;
        let perception2 = Vec4::splat(reach.perception2);
        // An index loop rather than `step_by`: with `step == 1` (no cap) it
        // compiles to the same loop as a plain iteration.
        let mut k = 0;
        while k < pos.len() {
            let (q, w) = (pos[k], vel[k]);
            let d = if WRAP { offset(p, q, size, true) } else { q - p };
            let d2 = d.length_squared();
            // A SIMD compare rather than a branch: about a third of the
            // candidates of a 3 × 3 scan pass, which no predictor learns.
            let mut mask = Vec4::splat(d2).cmplt(perception2);
            let mut lanes = Vec4::new(w.x, w.y, d.x, d.y);
            if SHAPED {
                let mut seen = cache.view.sees(heading, d, d2);
                if !params.sees_other_schools {
                    seen &= school::clamp_index(schools[k], self.table.len()) == school;
                }
                mask &= BVec4A::splat(seen);
                lanes *= cache.view.weight(heading, d, d2.sqrt(), leaders[k]);
            }
            acc.packed += Vec4::select(mask, lanes, Vec4::ZERO);
            acc.count += mask.bitmask() & 1;
            // Rare (the separation disc is a small part of the scan): a branch.
            if d2 < reach.separation2 {
                acc.separation_count += 1;
                acc.separation_sum += rules::separation_push(d, d2, reach.separation, reach.floor, || {
                    // Exactly coincident: part along a direction fixed by the
                    // pair, opposite for the two fish.
                    -noise::pair_direction(self.seed, slot, g.order()[a + k])
                });
            }
            k += step;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Tank;

    /// The kernel's packed accumulator sums exactly what the reference
    /// `Neighbourhood::add` sums, candidate for candidate.
    #[test]
    fn packed_accumulator_matches_the_reference_neighbourhood() {
        let tank = Tank::centered(Vec2::new(200.0, 200.0));
        let params = FlockParams::default();
        let mut flock = Flock::new(3);
        for i in 0..300u32 {
            let u = noise::signed_pair(noise::mix64(u64::from(i)));
            let w = noise::signed_pair(noise::mix64(u64::from(i) + 1000));
            flock.push(u * 99.0, w * 50.0, 0.0);
        }
        flock.push(Vec2::ZERO, Vec2::ZERO, 0.0);
        flock.push(Vec2::ZERO, Vec2::X, 0.0); // coincident pair
        flock.rebuild_index(&params, &tank);
        let caches = [SchoolCache::new(&params, false, false)];
        let kernel = ForceKernel {
            grid: &flock.grid,
            sorted_phase: &flock.sorted_phase,
            sorted_leader: &flock.sorted_leader,
            fear: &flock.fear,
            leader: &flock.leader,
            leader_goal: None,
            quiet: true,
            scene: &Scene::default(),
            table: core::slice::from_ref(&params),
            caches: &caches,
            sorted_school: &flock.sorted_school,
            tank: &tank,
            search: NeighbourSearch::BruteForce,
            seed: 3,
            tick: 0,
        };
        let g = &flock.grid;
        let (pos, vel, order) = (g.sorted_position(), g.sorted_velocity(), g.order());
        for s in 0..pos.len() {
            let mut acc = Accumulator::default();
            let me = Onlooker { p: pos[s], heading: Vec2::X, slot: order[s], school: 0 };
            kernel.scan::<false, false>(&mut acc, 0, s, 1, &me);
            kernel.scan::<false, false>(&mut acc, s + 1, pos.len(), 1, &me);
            let mut reference = Neighbourhood::default();
            for j in (0..pos.len()).filter(|&j| j != s) {
                let d = pos[j] - pos[s];
                reference.add(d, d.length_squared(), vel[j], &caches[0].reach, || {
                    -noise::pair_direction(3, order[s], order[j])
                });
            }
            assert_eq!(acc.finish(), reference, "fish {s}");
        }
    }
}
