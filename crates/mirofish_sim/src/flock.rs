//! The flock: every fish's state as contiguous arrays, and the tick as three
//! ordered passes over them.
//!
//! Fish live in *slots* (indices into the arrays), stable until a fish is
//! removed — or, under [`SlotOrder::Spatial`], renumbered every tick in the
//! grid's order, so that fish near in the tank are near in memory; each
//! fish keeps its *id* either way, which its noise and its order among
//! equals follow (the same bits in both numberings). A tick is:
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
use crate::grid::{Extras, SpatialGrid, offset};
use crate::kernel::{ForceKernel, Kick};
pub use crate::kernel::{ForceSample, KernelPath, NeighbourSearch};
use crate::noise::{Stream, TickKey};
use crate::params::{BoundaryMode, FlockParams, ParamError, Tank, validate_dt};
use crate::prefetch::{AHEAD, prefetch};
use crate::rules;
use crate::scene::{self, Route, Scene};
use crate::school::{self, SchoolCache, SchoolTable};

/// Fish per parallel work item: large enough to amortise scheduling, small
/// enough to balance two to a few dozen threads at 10k fish and up.
const CHUNK: usize = 1024;
const _: () = assert!(CHUNK.is_multiple_of(crate::grid::QUARTET), "force work items start at a quartet");

/// Runs `$op` on every per-fish column of `$flock` (each bound to
/// `$column`, a `&mut Vec` of its own type), so that no operation on whole
/// fish leaves one out.
macro_rules! each_column {
    ($flock:expr, |$column:ident| $op:expr) => {
        each_column!(
            @fields $flock, $column, $op,
            position velocity wander_phase leader fear school steering id
        )
    };
    (@fields $flock:expr, $column:ident, $op:expr, $($field:ident)*) => {{
        $({
            let $column = &mut $flock.$field;
            $op;
        })*
    }};
}

/// Which columns besides the snapshot and the wander phases the index
/// sorted ([`Flock::rebuild_index`]): the integrator moves those with the
/// fish when it renumbers them.
#[derive(Clone, Copy, Debug)]
struct SortedColumns {
    /// The leader flags.
    leaders: bool,
    /// The schools.
    schools: bool,
}

/// How a flock numbers its slots.
///
/// Either way each fish has an *id* ([`Flock::ids`]): the slot it would
/// hold under [`SlotOrder::Stable`] (dense, `0..len`). The noise a fish
/// draws and the order in which its neighbours are summed follow the ids,
/// so the two orders give every fish the same bits, tick after tick (the
/// determinism tests compare them); only where each fish is stored, and the
/// speed, differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlotOrder {
    /// A fish keeps its slot until a fish is removed (the last one then
    /// moves into the hole, as with [`Vec::swap_remove`]): slot and id are
    /// the same. What the Bevy plugin needs, whose slots follow the ECS's
    /// tables.
    #[default]
    Stable,
    /// Every tick renumbers the slots in the grid's order, so that fish near
    /// in the tank are near in memory: the next tick then sorts, gathers
    /// and integrates them with reads that run along memory instead of
    /// jumping about it. Measured on a 2-core machine: at a million fish a
    /// tick takes a tenth to a fifth less (`scale`, `passes -- --spatial
    /// 1`); at 100k, where the fish stay in the cache, the renumbering costs
    /// as much as it saves on two threads, and about 6 % more on one, so
    /// that a second thread seems to be worth more (at 100k, 1.84× against
    /// 1.73× in alternating `passes` runs). Slots (the indices of
    /// [`Flock::positions`] and the rest) then change every tick: follow a
    /// fish by its id.
    Spatial,
}

/// The inputs of a range of fish, one slice per column, from
/// [`Flock::inputs_mut`]: what a tick reads of each fish besides its fear.
#[derive(Debug)]
pub struct FishInputs<'a> {
    /// Positions.
    pub position: &'a mut [Vec2],
    /// Velocities.
    pub velocity: &'a mut [Vec2],
    /// Wander phases (radians).
    pub wander_phase: &'a mut [f32],
    /// Whether each fish leads.
    pub leader: &'a mut [bool],
    /// Each fish's school (an index into the school table).
    pub school: &'a mut [u16],
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
    /// Each fish's id (its slot under [`SlotOrder::Stable`]), by slot.
    id: Vec<u32>,
    /// How the slots are numbered.
    slot_order: SlotOrder,
    /// Ids in sorted order, gathered by the index under
    /// [`SlotOrder::Spatial`] (empty otherwise).
    sorted_id: Vec<u32>,
    /// Under [`SlotOrder::Spatial`], the fear the integrator writes into the
    /// new numbering (the old one is read while it does).
    renumbered_fear: Vec<f32>,
    /// What the last [`Flock::rebuild_index`] sorted besides the snapshot,
    /// while the fish are as it sorted them (none added, removed or set
    /// since, and not yet integrated): what renumbering them in the
    /// integrator needs.
    indexed: Option<SortedColumns>,
    grid: SpatialGrid,
    /// Force pass output, in sorted order (the integrator reads it through
    /// the grid's ranks).
    sorted_kick: Vec<Kick>,
    sorted_samples: Vec<ForceSample>,
    /// The leaders by id, which [`Flock::move_predators`] sums under
    /// [`SlotOrder::Spatial`]: kept, so that a tick does not allocate.
    leaders_by_id: Vec<(u32, Vec2)>,
    search: NeighbourSearch,
    /// Which build of the force pass runs.
    kernel_path: KernelPath,
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

    /// Chooses which build of the force pass runs (the fastest this CPU
    /// runs unless told otherwise); every build gives the same bits.
    pub fn set_kernel_path(&mut self, path: KernelPath) {
        self.kernel_path = path;
    }

    /// Which build of the force pass runs.
    pub fn kernel_path(&self) -> KernelPath {
        self.kernel_path
    }

    /// Chooses how the slots are numbered (see [`SlotOrder`]). Going back
    /// to [`SlotOrder::Stable`] puts every fish in the slot of its id.
    pub fn set_slot_order(&mut self, order: SlotOrder) {
        self.indexed = None;
        if order == SlotOrder::Stable && self.slot_order == SlotOrder::Spatial {
            let mut slot_of = vec![0u32; self.len()];
            for (slot, &id) in self.id.iter().enumerate() {
                slot_of[id as usize] = slot as u32;
            }
            // Every column by id (the ids themselves become `0..len`).
            each_column!(self, |column| *column = slot_of.iter().map(|&s| column[s as usize]).collect());
            // The grid's order and ranks name the old slots.
            self.grid = SpatialGrid::default();
        }
        self.slot_order = order;
    }

    /// How the slots are numbered.
    pub fn slot_order(&self) -> SlotOrder {
        self.slot_order
    }

    /// Each fish's id, by slot: its slot under [`SlotOrder::Stable`],
    /// whatever the order. The ids are `0..len`.
    pub fn ids(&self) -> &[u32] {
        &self.id
    }

    /// Adds a fish and returns its slot.
    pub fn push(&mut self, position: Vec2, velocity: Vec2, wander_phase: f32) -> usize {
        self.indexed = None;
        self.position.push(position);
        self.velocity.push(velocity);
        self.wander_phase.push(wander_phase);
        self.leader.push(false);
        self.fear.push(0.0);
        self.school.push(0);
        self.steering.push(Vec2::ZERO);
        self.id.push(self.id.len() as u32);
        self.position.len() - 1
    }

    /// Removes the fish in `slot`; the last fish moves into it (its old slot
    /// is returned, if it moved), exactly like [`Vec::swap_remove`]. The
    /// fish with the highest id takes the removed fish's id, so that the
    /// ids stay `0..len` (under [`SlotOrder::Stable`] that is the fish that
    /// moved).
    pub fn swap_remove(&mut self, slot: usize) -> Option<usize> {
        self.indexed = None;
        let last = self.len() - 1;
        let gone = self.id[slot];
        each_column!(self, |column| column.swap_remove(slot));
        let highest = last as u32;
        if gone != highest {
            // Where the slots are stable, the fish that moved; elsewhere a
            // search.
            let heir = if self.id.get(slot) == Some(&highest) {
                slot
            } else {
                self.id.iter().position(|&id| id == highest).expect("the ids are 0..len")
            };
            self.id[heir] = gone;
        }
        (slot != last).then_some(last)
    }

    /// Keeps the fish whose ids are below `len` (under
    /// [`SlotOrder::Stable`], the first `len` slots), in their order.
    pub fn truncate(&mut self, len: usize) {
        self.indexed = None;
        if self.slot_order == SlotOrder::Stable || len >= self.len() {
            each_column!(self, |column| column.truncate(len));
            return;
        }
        let keep: Vec<bool> = self.id.iter().map(|&id| (id as usize) < len).collect();
        each_column!(self, |column| {
            let mut flags = keep.iter();
            column.retain(|_| *flags.next().expect("one flag per fish"));
        });
    }

    /// Removes every fish.
    pub fn clear(&mut self) {
        self.indexed = None;
        each_column!(self, |column| column.clear());
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

    /// The inputs of the fish in `slots` (position, velocity, wander phase,
    /// leader flag and school), to overwrite in place a column at a time —
    /// e.g. from the ECS's component columns before a tick — keeping their
    /// fear. Panics if `slots` is out of range.
    pub fn inputs_mut(&mut self, slots: core::ops::Range<usize>) -> FishInputs<'_> {
        self.indexed = None;
        FishInputs {
            position: &mut self.position[slots.clone()],
            velocity: &mut self.velocity[slots.clone()],
            wander_phase: &mut self.wander_phase[slots.clone()],
            leader: &mut self.leader[slots.clone()],
            school: &mut self.school[slots],
        }
    }

    /// Sets how afraid the fish in `slot` is (clamped to 0–1).
    pub fn set_fear(&mut self, slot: usize, fear: f32) {
        self.indexed = None;
        self.fear[slot] = if fear.is_nan() { 0.0 } else { fear.clamp(0.0, 1.0) };
    }

    /// The school of each fish, by slot.
    pub fn school_indices(&self) -> &[u16] {
        &self.school
    }

    /// Puts the fish in `slot` into school `school` (an index into the
    /// school table the passes are given).
    pub fn set_school(&mut self, slot: usize, school: u16) {
        self.indexed = None;
        self.school[slot] = school;
    }

    /// Makes the fish in `slot` a leader (or not).
    pub fn set_leader(&mut self, slot: usize, leads: bool) {
        self.indexed = None;
        self.leader[slot] = leads;
    }

    /// The clamped acceleration each fish applied in the last tick.
    pub fn steering(&self) -> &[Vec2] {
        &self.steering
    }

    /// Sets the state of one fish (e.g. from the ECS before a tick).
    pub fn set(&mut self, slot: usize, position: Vec2, velocity: Vec2, wander_phase: f32) {
        self.indexed = None;
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
        self.sorted_kick.iter().map(|k| k.neighbours())
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
            + (self.wander_phase.capacity() + self.id.capacity()) * 4
            + (self.sorted_id.capacity() + self.renumbered_fear.capacity()) * 4
            + self.sorted_leader.capacity()
            + self.sorted_school.capacity() * 2
            + self.sorted_kick.capacity() * core::mem::size_of::<Kick>()
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
        // The largest index (a scan the compiler vectorises) tells whether
        // any is out of range; the error names the first such one.
        let largest = self.school.chunks(SCAN_BLOCK).map(|b| b.iter().fold(0, |m, &k| m.max(k))).max();
        if largest.is_some_and(|k| usize::from(k) >= table.len()) {
            let bad =
                self.school.iter().find(|&&k| usize::from(k) >= table.len()).copied().unwrap_or_default();
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
        // The whole tick on one thread of the pool: each pass's own `run`
        // then starts at once (no hand-over, no wake-up of the caller).
        let pool = self.pool.clone();
        run(pool.as_deref(), || {
            self.rebuild_index(params, tank);
            self.accumulate_forces(params, tank, scene);
            self.integrate(params, tank, scene, dt);
        });
        self.move_predators(scene, tank, dt);
        Ok(())
    }

    /// Pass 1: sorts the fish into the grid (cells at least the interaction
    /// radius wide) and snapshots position and velocity. The passes of one
    /// tick must be given the same school table.
    pub fn rebuild_index<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank) {
        let wrap = tank.boundary == BoundaryMode::Wrap;
        let radius = schools.table().iter().map(FlockParams::interaction_radius).fold(0.0f32, f32::max);
        // The per-fish inputs the force pass reads, in sorted order too: read
        // by slot they would be a cache miss per fish (the wander phase
        // alone cost a sixth of the pass). The wander phases are gathered
        // with the snapshot, in the same pass.
        let spatial = self.slot_order == SlotOrder::Spatial;
        if !spatial {
            self.sorted_id.clear();
        }
        let (grid, position, velocity) = (&mut self.grid, &self.position, &self.velocity);
        let extras = Extras {
            gather: Some((&self.wander_phase[..], &mut self.sorted_phase)),
            // Renumbered slots are not the fish's identity: ties follow the
            // ids (gathered for the force pass's noise on the way).
            ties: spatial.then_some((&self.id[..], &mut self.sorted_id)),
        };
        run(self.pool.as_deref(), || grid.rebuild_gathering(position, velocity, tank, radius, wrap, extras));
        let (order, leader, school) = (self.grid.order(), &self.leader, &self.school);
        let n = order.len();
        self.sorted_leader.resize(n, false);
        self.sorted_school.resize(n, 0);
        // Leader flags and schools only where they can differ (see
        // `columns_to_sort`).
        let (leaders, several) = self.columns_to_sort(schools.table().len());
        if !leaders {
            self.sorted_leader.fill(false);
        }
        if leaders || several {
            let chunks = (
                order.par_chunks(CHUNK),
                self.sorted_leader.par_chunks_mut(CHUNK),
                self.sorted_school.par_chunks_mut(CHUNK),
            );
            run(self.pool.as_deref(), || {
                chunks.into_par_iter().for_each(|(order, sorted_leader, sorted_school)| {
                    if leaders {
                        for (&i, to) in order.iter().zip(sorted_leader.iter_mut()) {
                            *to = leader[i as usize];
                        }
                    }
                    if several {
                        for (&i, to) in order.iter().zip(sorted_school.iter_mut()) {
                            *to = school[i as usize];
                        }
                    }
                });
            });
        }
        self.indexed = Some(SortedColumns { leaders, schools: several });
    }

    /// Whether the index sorts the leader flags and the schools (for a
    /// table of `schools`): where they can differ for the force pass — with
    /// no leader every flag is false, with one school every index is 0 once
    /// clamped to the table — and, where the slots follow space, wherever
    /// they are not all the same (they then move with their fish).
    fn columns_to_sort(&self, schools: usize) -> (bool, bool) {
        let spatial = self.slot_order == SlotOrder::Spatial;
        (any_set(&self.leader), schools > 1 || (spatial && !all_zero_u16(&self.school)))
    }

    /// Pass 2: the rules' weighted sum for every fish, clamped once to the
    /// school's `max_force`. Reads only the snapshot taken by pass 1.
    pub fn accumulate_forces<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank, scene: &Scene) {
        let table = schools.table();
        let n = self.len();
        self.sorted_kick.resize(n, Kick::default());
        let record = self.record_rules;
        self.sorted_samples.resize(if record { n } else { 0 }, ForceSample::default());
        // What the index found, where the fish are as it sorted them.
        let has_leaders = self.indexed.map_or_else(|| any_set(&self.leader), |sorted| sorted.leaders);
        let others = table.len() > 1;
        self.school_caches.clear();
        self.school_caches.extend(table.iter().map(|p| SchoolCache::new(p, others, has_leaders)));
        let kernel = ForceKernel {
            grid: &self.grid,
            // Where slots are ids, the order is the ids in sorted order.
            ids: if self.slot_order == SlotOrder::Spatial { &self.sorted_id } else { self.grid.order() },
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
                && all_zero(&self.fear),
            scene,
            table,
            caches: &self.school_caches,
            sorted_school: &self.sorted_school,
            tank,
            search: self.search,
            seed: self.seed,
            key: TickKey::new(self.seed, self.tick),
            avx2: self.kernel_path.avx2(),
        };
        let (kicks, samples) = (&mut self.sorted_kick, &mut self.sorted_samples);
        // Every chunk is a task of its own: a run of chunks that a thread
        // starts before the other steals from it can no longer be split,
        // and the other then waits for its end (for two threads rayon
        // first cuts 100k fish into runs of 25k).
        let work = || {
            if record {
                kicks
                    .par_chunks_mut(CHUNK)
                    .zip(samples.par_chunks_mut(CHUNK))
                    .enumerate()
                    .with_max_len(1)
                    .for_each(|(chunk, (kicks, samples))| kernel.run(chunk * CHUNK, kicks, Some(samples)));
            } else {
                kicks
                    .par_chunks_mut(CHUNK)
                    .enumerate()
                    .with_max_len(1)
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
    /// Under [`SlotOrder::Spatial`] the same pass renumbers the fish in the
    /// order the index sorted them.
    pub fn integrate<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank, scene: &Scene, dt: f32) {
        let table = schools.table();
        self.school_motion.clear();
        self.school_motion.extend(
            table
                .iter()
                .map(|p| [p.max_speed, p.panic_speed - 1.0, p.wander_rate * dt, (-p.calm_rate * dt).exp()]),
        );
        let n = self.len();
        // Under `SlotOrder::Spatial`, with the fish as they were indexed,
        // the integrator renumbers them too: it walks them in sorted order,
        // reads each from its sorted copy (the snapshot, the phases, its old
        // fear) and writes it into the slot of its sorted place, so that
        // every read and write here, and in the next tick's index, runs
        // along memory.
        let spatial = self.slot_order == SlotOrder::Spatial;
        let renumbered = self.indexed.take().filter(|_| spatial && self.grid.len() == n);
        let renumber = renumbered.is_some();
        // Nobody afraid (the usual case): every fish's fear is the same zero
        // wherever it is, and stays where it is.
        let move_fear = renumber && !all_zero(&self.fear);
        let old_fear = if move_fear {
            let old = core::mem::replace(&mut self.fear, core::mem::take(&mut self.renumbered_fear));
            self.fear.resize(n, 0.0);
            old
        } else {
            Vec::new()
        };
        // Otherwise each fish's kick is read in sorted order through its
        // rank: the ranks come in slot order, so the kicks can be asked for
        // `AHEAD` fish early (a gather; scattering them to slots in the
        // force pass cost twice the memory traffic, a third of that pass at
        // 1M fish). A fish pushed since the index was built has no kick:
        // zero.
        let (grid, sorted_kick, motion) = (&self.grid, &self.sorted_kick[..], &self.school_motion);
        let rank = grid.rank();
        let kick_of = |slot: usize| {
            if renumber {
                // Sorted place and slot are one (no kick: zero, as below).
                return sorted_kick.get(slot).copied().unwrap_or_default();
            }
            if let Some(&ahead) = rank.get(slot + AHEAD) {
                prefetch(sorted_kick, ahead as usize);
            }
            rank.get(slot).and_then(|&s| sorted_kick.get(s as usize)).copied().unwrap_or_default()
        };
        let (schools_of, ids) =
            if renumber { (&self.sorted_school, &self.sorted_id) } else { (&self.school, &self.id) };
        let (sorted_phase, order) = (&self.sorted_phase, grid.order());
        let one_school = motion.len() == 1;
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
                if renumber {
                    let sorted = base..base + p.len();
                    for (k, s) in sorted.clone().enumerate() {
                        (p[k], v[k]) = (grid.sorted_position(s), grid.sorted_velocity(s));
                    }
                    if move_fear {
                        for (k, s) in sorted.clone().enumerate() {
                            fear[k] = old_fear[order[s] as usize];
                        }
                    }
                    phase.copy_from_slice(&sorted_phase[sorted]);
                }
                // With one school in the table every index clamps to it.
                let motion_of = |k: usize| {
                    if one_school {
                        motion[0]
                    } else {
                        motion[school::clamp_index(schools_of[base + k], motion.len())]
                    }
                };
                let mut k = 0;
                while k < p.len() {
                    let end = (k + 4).min(p.len());
                    // Four fish of one school, as arrays (no bounds check
                    // per lane).
                    let four = end - k == 4
                        && scene.obstacles.is_empty()
                        && (one_school || (k + 1..end).all(|j| schools_of[base + j] == schools_of[base + k]))
                        && match (
                            p[k..].first_chunk_mut(),
                            v[k..].first_chunk_mut(),
                            steer[k..].first_chunk_mut(),
                            phase[k..].first_chunk_mut(),
                            fear[k..].first_chunk_mut(),
                        ) {
                            (Some(p), Some(v), Some(steer), Some(phase), Some(fear)) => integrate_four(
                                [p, v, steer],
                                [phase, fear],
                                core::array::from_fn(|j| kick_of(base + k + j)),
                                motion_of(k),
                                dt,
                                tank,
                            ),
                            _ => false,
                        };
                    if !four {
                        for k in k..end {
                            let fish = [&mut p[k], &mut v[k], &mut steer[k]];
                            integrate_one(
                                fish,
                                [&mut phase[k], &mut fear[k]],
                                kick_of(base + k),
                                motion_of(k),
                                dt,
                                tank,
                                scene,
                                || key.in_unit_disc(u64::from(ids[base + k]), Stream::Bounce).x,
                            );
                        }
                    }
                    k = end;
                }
            });
        });
        if let Some(sorted) = renumbered {
            // Every other column of the fish follows them into their new
            // slots: those the index sorted, and the fear if it moved.
            if move_fear {
                self.renumbered_fear = old_fear;
            }
            if sorted.leaders {
                core::mem::swap(&mut self.leader, &mut self.sorted_leader);
            }
            if sorted.schools {
                core::mem::swap(&mut self.school, &mut self.sorted_school);
            }
            core::mem::swap(&mut self.id, &mut self.sorted_id);
            run(self.pool.as_deref(), || self.grid.renumber());
        }
        self.tick += 1;
    }

    /// After the fish: the leaders' route moves on if they reached its
    /// current waypoint; each chasing predator steers at the fish nearest to
    /// it (ties go to the lowest id), then every predator moves.
    pub fn move_predators(&mut self, scene: &mut Scene, tank: &Tank, dt: f32) {
        if let Some(route) = &mut scene.route {
            let mut by_id = core::mem::take(&mut self.leaders_by_id);
            if let Some(centre) = self.leaders_centre_with(&mut by_id) {
                route.advance(centre);
            }
            self.leaders_by_id = by_id;
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

    /// The mean position of the leaders, if there are any: summed in the
    /// order of their ids, so that the bits do not depend on the
    /// [`SlotOrder`].
    pub fn leaders_centre(&self) -> Option<Vec2> {
        self.leaders_centre_with(&mut Vec::new())
    }

    /// [`Flock::leaders_centre`], sorting the leaders by id (under
    /// [`SlotOrder::Spatial`]) in `by_id`, whose buffer it reuses.
    fn leaders_centre_with(&self, by_id: &mut Vec<(u32, Vec2)>) -> Option<Vec2> {
        let leaders = self.position.iter().zip(&self.leader).zip(&self.id).filter(|((_, l), _)| **l);
        let mean = |positions: &mut dyn Iterator<Item = Vec2>| {
            let (sum, n) = positions.fold((Vec2::ZERO, 0u32), |(s, n), p| (s + p, n + 1));
            (n > 0).then(|| sum / n as f32)
        };
        if self.slot_order == SlotOrder::Stable {
            // Slots are ids: no sort, and no allocation.
            return mean(&mut leaders.map(|((p, _), _)| *p));
        }
        by_id.clear();
        by_id.extend(leaders.map(|((p, _), &id)| (id, *p)));
        by_id.sort_unstable_by_key(|&(id, _)| id);
        mean(&mut by_id.iter().map(|&(_, p)| p))
    }

    /// The slot of the fish nearest to `p` (wrap-aware), if any; of fish
    /// as near, the one with the lowest id.
    pub fn nearest_fish(&self, p: Vec2, size: Vec2, wrap: bool) -> Option<usize> {
        let mut best: Option<(f32, u32, usize)> = None;
        for (slot, (&q, &id)) in self.position.iter().zip(&self.id).enumerate() {
            let d2 = offset(p, q, size, wrap).length_squared();
            if best.is_none_or(|(b, best_id, _)| d2 < b || (d2 == b && id < best_id)) {
                best = Some((d2, id, slot));
            }
        }
        best.map(|(.., slot)| slot)
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

/// The integrator's step for one fish: `[position, velocity, steering]`
/// and `[wander phase, fear]`, its kick, its school's `[max_speed,
/// panic - 1, wander turn, calm factor]`; `scatter` draws the bounce's
/// random turn.
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "one fish's state, its kick, its school and the world")]
fn integrate_one(
    [p, v, steer]: [&mut Vec2; 3],
    [phase, fear]: [&mut f32; 2],
    kick: Kick,
    [max_speed, panic, turn, calm]: [f32; 4],
    dt: f32,
    tank: &Tank,
    scene: &Scene,
    scatter: impl FnOnce() -> f32,
) {
    let (a, fright) = (kick.acceleration(), kick.fright());
    *steer = a;
    // Fear jumps to what the fish sees now and fades slowly.
    *fear = fright.max(*fear * calm).clamp(0.0, 1.0);
    let limit = max_speed * (1.0 + panic * *fear);
    *v = rules::clamp_length(*v + a * dt, limit);
    *p += *v * dt;
    *phase = wrap_angle(*phase + turn);
    (*p, *v) = contain(*p, *v, tank, scene, scatter);
}

/// The integrator's step for four fish of one school at once, in vector
/// lanes, with the same bits as one at a time: `[position, velocity,
/// steering]` and `[wander phase, fear]` of the four, their kicks, their
/// school's `[max_speed, panic - 1, wander turn, calm factor]`. `false`,
/// with nothing written, when one of them needs the one-fish path: it left
/// the tank (a wall or the seam to deal with), a value is not finite, or its
/// phase needs more than one turn's wrap.
#[inline(always)]
fn integrate_four(
    [p, v, steer]: [&mut [Vec2; 4]; 3],
    [phase, fear]: [&mut [f32; 4]; 2],
    kicks: [Kick; 4],
    [max_speed, panic, turn, calm]: [f32; 4],
    dt: f32,
    tank: &Tank,
) -> bool {
    use core::f32::consts::TAU;
    use glam::Vec4;
    let lanes = |f: &dyn Fn(usize) -> f32| Vec4::new(f(0), f(1), f(2), f(3));
    // Fear one fish at a time: `f32::max` and `clamp` treat signed zeros
    // their own way, and this is cheap.
    let [ax, ay, fright, _] = Kick::lanes(kicks);
    let fright = fright.to_array();
    let feared: [f32; 4] = core::array::from_fn(|l| fright[l].max(fear[l] * calm).clamp(0.0, 1.0));
    let limit = Vec4::splat(max_speed) * (Vec4::ONE + Vec4::from_array(feared) * panic);
    let (vx, vy) = (lanes(&|l| v[l].x) + ax * dt, lanes(&|l| v[l].y) + ay * dt);
    let Some([vx, vy]) = rules::clamp_length_lanes([vx, vy], limit) else {
        return false;
    };
    let (px, py) = (lanes(&|l| p[l].x) + vx * dt, lanes(&|l| p[l].y) + vy * dt);
    let inside = px.cmpge(Vec4::splat(tank.min.x))
        & px.cmplt(Vec4::splat(tank.max.x))
        & py.cmpge(Vec4::splat(tank.min.y))
        & py.cmplt(Vec4::splat(tank.max.y));
    // `wrap_angle`'s common case: one step past either end at most.
    let a = lanes(&|l| phase[l]) + turn;
    let tau = Vec4::splat(TAU);
    let b = Vec4::select(a.cmpge(tau), a - tau, Vec4::select(a.cmplt(Vec4::ZERO), a + tau, a));
    let wrapped = b.cmpge(Vec4::ZERO) & b.cmplt(tau);
    if !(inside & wrapped).all() {
        return false;
    }
    let (px, py, vx, vy, b) = (px.to_array(), py.to_array(), vx.to_array(), vy.to_array(), b.to_array());
    for l in 0..4 {
        steer[l] = kicks[l].acceleration();
        fear[l] = feared[l];
        v[l] = Vec2::new(vx[l], vy[l]);
        p[l] = Vec2::new(px[l], py[l]);
        phase[l] = b[l];
    }
    true
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

/// Whether any flag is set. A branch-free OR over each block, which the
/// compiler vectorises: `contains` stops at the first hit but pays a
/// compare and a branch per fish, and these scans run on one thread.
fn any_set(flags: &[bool]) -> bool {
    flags.chunks(SCAN_BLOCK).any(|block| block.iter().fold(false, |any, &flag| any | flag))
}

/// Whether every value is exactly zero (both zeros), block by block like
/// [`any_set`].
fn all_zero(values: &[f32]) -> bool {
    values.chunks(SCAN_BLOCK).all(|block| block.iter().fold(true, |all, &v| all & (v == 0.0)))
}

/// Whether every school index is 0, block by block like [`any_set`].
fn all_zero_u16(values: &[u16]) -> bool {
    values.chunks(SCAN_BLOCK).all(|block| block.iter().fold(0, |any, &v| any | v) == 0)
}

/// Fish per block of the scans that run on one thread ([`any_set`],
/// [`all_zero`], the school indices' check).
const SCAN_BLOCK: usize = 512;

/// Runs `work` on a thread of `pool`, or of rayon's global pool (at once
/// where this already is one).
///
/// Inside the pool, the parallel loops of a pass are handed to it at once:
/// from a thread outside it (a Bevy system's, a benchmark's main thread),
/// each loop would be injected on its own, its caller put to sleep and
/// woken again, and the index alone has seven (at 100k fish on two
/// threads, `passes`: the index 0.78–1.0 → 0.64–0.71 ms).
fn run(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() + Send) {
    match pool {
        Some(pool) => pool.install(work),
        None => rayon::scope(|_| work()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise;

    /// Under either numbering the ids stay `0..len`: removing a fish gives
    /// its id to the fish with the highest one, and truncating keeps the
    /// lowest ids, in their slots' order.
    #[test]
    fn removals_keep_the_ids_dense() {
        let (params, tank, scene) =
            (FlockParams::default(), Tank::centered(Vec2::new(300.0, 200.0)), Scene::default());
        let mut flock = Flock::new(4);
        for f in crate::spawn::scatter(200, &tank, &params, 8) {
            flock.push(f.position, f.velocity, f.wander_phase);
        }
        flock.set_slot_order(SlotOrder::Spatial);
        flock.step(&params, &tank, &mut scene.clone(), 1.0 / 60.0).unwrap();
        assert_ne!(flock.ids(), (0..200).collect::<Vec<u32>>(), "renumbered");
        let dense = |flock: &Flock| {
            let mut ids = flock.ids().to_vec();
            ids.sort_unstable();
            ids == (0..flock.len() as u32).collect::<Vec<_>>()
        };
        let (gone, highest) = (flock.ids()[5], flock.ids().iter().position(|&id| id == 199).unwrap());
        let heir = flock.positions()[highest];
        flock.swap_remove(5);
        assert!(dense(&flock));
        let now = flock.ids().iter().position(|&id| id == gone).unwrap();
        assert_eq!(flock.positions()[now], heir, "the highest id's fish took the id");
        let kept: Vec<(u32, Vec2)> = flock
            .ids()
            .iter()
            .zip(flock.positions())
            .filter(|(id, _)| **id < 120)
            .map(|(&i, &p)| (i, p))
            .collect();
        flock.truncate(120);
        assert!(dense(&flock));
        assert_eq!(
            flock.ids().iter().zip(flock.positions()).map(|(&i, &p)| (i, p)).collect::<Vec<_>>(),
            kept
        );
        flock.step(&params, &tank, &mut scene.clone(), 1.0 / 60.0).unwrap();
        assert!(dense(&flock) && flock.len() == 120);
    }

    /// The integrator finds each fish's kick through the grid's ranks: every
    /// fish indexed gets its own kick (the steering a whole step gives), and
    /// a fish pushed after the passes began gets none.
    #[test]
    fn each_fish_gets_its_own_kick_and_a_newcomer_none() {
        // Under either slot order; a newcomer keeps the integrator from
        // renumbering, so it reads every kick through the ranks, which the
        // tie sort must have left right.
        let (params, tank, scene, dt) =
            (FlockParams::default(), Tank::centered(Vec2::new(400.0, 300.0)), Scene::default(), 1.0 / 60.0);
        for order in [SlotOrder::Stable, SlotOrder::Spatial] {
            let mut flock = Flock::new(9);
            for f in crate::spawn::scatter(300, &tank, &params, 5) {
                flock.push(f.position, f.velocity, f.wander_phase);
            }
            flock.set_slot_order(order);
            // A first tick puts the slots in space order, where they follow it.
            flock.step(&params, &tank, &mut scene.clone(), dt).unwrap();
            let mut whole = flock.clone();
            whole.step(&params, &tank, &mut scene.clone(), dt).unwrap();
            flock.rebuild_index(&params, &tank);
            flock.accumulate_forces(&params, &tank, &scene);
            let (p, v) = (Vec2::new(1.0, 2.0), Vec2::new(3.0, -4.0));
            let newcomer = flock.push(p, v, 0.5);
            flock.integrate(&params, &tank, &scene, dt);
            // Each fish's steering and position by id.
            let by_id = |f: &Flock, n: usize| {
                let mut fish: Vec<_> = (0..n)
                    .map(|s| {
                        let (a, q) = (f.steering()[s], f.positions()[s]);
                        (f.ids()[s], [a.x, a.y, q.x, q.y].map(f32::to_bits))
                    })
                    .collect();
                fish.sort_unstable_by_key(|&(id, _)| id);
                fish
            };
            assert_eq!(by_id(&flock, newcomer), by_id(&whole, newcomer), "{order:?}");
            assert!(whole.steering().iter().any(|s| *s != Vec2::ZERO), "the school steers");
            assert_eq!(flock.steering()[newcomer], Vec2::ZERO);
            assert_eq!(flock.velocities()[newcomer], v, "no kick, below the speed limit");
            assert_eq!(flock.positions()[newcomer], p + v * dt);
        }
    }

    #[test]
    fn the_block_scans_answer_what_the_plain_scans_do() {
        for n in [0, 1, SCAN_BLOCK - 1, SCAN_BLOCK, 3 * SCAN_BLOCK + 7] {
            let (flags, values) = (vec![false; n], vec![0.0f32; n]);
            assert!(!any_set(&flags) && all_zero(&values), "{n}");
            for at in [0, n / 2, n.saturating_sub(1)].into_iter().filter(|&at| at < n) {
                let (mut f, mut v) = (flags.clone(), values.clone());
                f[at] = true;
                assert!(any_set(&f), "{n} {at}");
                for x in [-0.0, 1e-45, -3.0, f32::NAN, f32::INFINITY] {
                    v[at] = x;
                    assert_eq!(all_zero(&v), v.iter().all(|&y| y == 0.0), "{n} {at} {x}");
                }
            }
        }
    }

    /// Four fish at a time in lanes give exactly what one at a time gives,
    /// and hand back the fish that need the one-fish path (a wall crossed,
    /// a phase past a whole turn) without touching them.
    #[test]
    fn four_fish_in_lanes_integrate_like_one_at_a_time() {
        let tank = Tank::centered(Vec2::new(200.0, 100.0));
        let motion = [40.0, 0.5, 0.07, 0.98];
        let (dt, scene) = (1.0 / 60.0, Scene::default());
        let mut taken = 0;
        for group in 0..500u64 {
            let draw = |k: u64, salt: u64| noise::signed_pair(noise::mix64(group * 16 + k * 4 + salt));
            // Some fish near the walls, some with a phase about to wrap.
            let p: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 0) * Vec2::new(100.5, 50.5));
            let v: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 1) * 60.0);
            let phase: [f32; 4] =
                core::array::from_fn(|k| (draw(k as u64, 2).x + 1.0) * core::f32::consts::PI);
            let fear: [f32; 4] = core::array::from_fn(|k| draw(k as u64, 3).x.max(0.0));
            let kicks: [Kick; 4] = core::array::from_fn(|k| {
                Kick::new(draw(k as u64, 4) * 30.0, draw(k as u64, 5).y.max(0.0), 0)
            });
            let (mut one, mut four) =
                ((p, v, [Vec2::ZERO; 4], phase, fear), (p, v, [Vec2::ZERO; 4], phase, fear));
            for k in 0..4 {
                let (p, v, steer, phase, fear) = &mut one;
                integrate_one(
                    [&mut p[k], &mut v[k], &mut steer[k]],
                    [&mut phase[k], &mut fear[k]],
                    kicks[k],
                    motion,
                    dt,
                    &tank,
                    &scene,
                    || 0.0,
                );
            }
            let (p4, v4, steer4, phase4, fear4) = &mut four;
            if integrate_four([p4, v4, steer4], [phase4, fear4], kicks, motion, dt, &tank) {
                taken += 1;
                let bits = |s: &([Vec2; 4], [Vec2; 4], [Vec2; 4], [f32; 4], [f32; 4])| {
                    let mut b = Vec::new();
                    for k in 0..4 {
                        b.extend(
                            [s.0[k].x, s.0[k].y, s.1[k].x, s.1[k].y, s.2[k].x, s.2[k].y, s.3[k], s.4[k]]
                                .map(f32::to_bits),
                        );
                    }
                    b
                };
                assert_eq!(bits(&four), bits(&one), "group {group}");
            } else {
                assert_eq!((four.0, four.1, four.3, four.4), (p, v, phase, fear), "untouched, group {group}");
            }
        }
        assert!((300..500).contains(&taken), "most groups go in lanes, some not: {taken}");
    }
}
