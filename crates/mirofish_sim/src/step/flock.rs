//! The flock: every fish's state as contiguous columns (structure of
//! arrays), and the buffers the tick reuses.
//!
//! Fish live in *slots* (indices into the columns), stable until a fish is
//! removed — or, under [`SlotOrder::Spatial`], renumbered every tick in the
//! grid's order, so that fish near in the tank are near in memory. Each
//! fish keeps its *id* either way, which its noise and its order among
//! equals follow, so both numberings give the same bits.
//!
//! The tick's passes are in [`crate::step`] (index, forces, integrator,
//! predators); the questions one may ask of a flock in
//! [`crate::observe`].

use std::sync::Arc;

use glam::Vec2;

use crate::step::SortedColumns;
use crate::step::integrate::SchoolMotion;
use crate::step::kernel::{ForceSample, KernelPath, Kick, NeighbourSearch, SchoolCache};
use crate::world::grid::CellGrid;
use crate::world::school::SchoolTable;

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
    // Every per-fish column of `$from` copied into `$to` (a `Flock` or a
    // `FishState`), reusing `$to`'s buffers; the same list as above.
    (copy $from:expr => $to:expr) => {
        each_column!(@copy $from, $to, position velocity wander_phase leader fear school steering id)
    };
    (@copy $from:expr, $to:expr, $($field:ident)*) => {{
        $( $to.$field.clone_from(&$from.$field); )*
    }};
}

/// How a school numbers its slots, a plane's [`Flock`] and a
/// [`Swarm`](crate::space::Swarm) alike.
///
/// Either way each fish has an *id* ([`Flock::ids`],
/// [`Swarm::ids`](crate::space::Swarm::ids)): the slot it would hold under
/// [`SlotOrder::Stable`] (dense, `0..len`). The noise a fish
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
    /// jumping about it. It pays where the school no longer fits in the
    /// cache (around a million fish); below that the renumbering costs
    /// about what it saves. Slots (the indices of [`Flock::positions`] and
    /// the rest) then change every tick: follow a fish by its id.
    Spatial,
}

/// The inputs of a range of fish, one slice per column, from
/// [`Swarm::inputs_mut`](crate::space::Swarm::inputs_mut) (or
/// [`Flock::inputs_mut`]): what a tick reads of each fish besides its fear.
#[derive(Debug)]
pub struct FishInputs<'a, V = Vec2> {
    /// Positions.
    pub position: &'a mut [V],
    /// Velocities.
    pub velocity: &'a mut [V],
    /// Wander phases (radians).
    pub wander_phase: &'a mut [f32],
    /// Whether each fish leads.
    pub leader: &'a mut [bool],
    /// Each fish's school (an index into the school table).
    pub school: &'a mut [u16],
}

/// Every fish's state between two ticks, copied out of a [`Flock`]
/// ([`Flock::save_fish`]) to be put back later ([`Flock::restore_fish`]):
/// the columns a tick reads and the tick count, none of what a tick
/// rebuilds (the grid, the sorted copies). Saving into the same state again
/// reuses its buffers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FishState {
    position: Vec<Vec2>,
    velocity: Vec<Vec2>,
    wander_phase: Vec<f32>,
    leader: Vec<bool>,
    fear: Vec<f32>,
    school: Vec<u16>,
    steering: Vec<Vec2>,
    id: Vec<u32>,
    group: Vec<u16>,
    slot_order: SlotOrder,
    seed: u64,
    tick: u64,
}

impl FishState {
    /// Fish held.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether it holds no fish.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// The tick the flock was about to run when saved.
    pub fn tick(&self) -> u64 {
        self.tick
    }
}

/// All fish of a simulation, structure-of-arrays, plus the buffers the tick
/// reuses.
#[derive(Clone, Debug, Default)]
pub struct Flock {
    pub(crate) position: Vec<Vec2>,
    pub(crate) velocity: Vec<Vec2>,
    pub(crate) wander_phase: Vec<f32>,
    /// Whether each fish leads (counts `leader_weight` for its neighbours).
    pub(crate) leader: Vec<bool>,
    /// How afraid each fish is (0 calm – 1 panic), by slot.
    pub(crate) fear: Vec<f32>,
    /// The school of each fish, by slot.
    pub(crate) school: Vec<u16>,
    /// Schools in sorted order, gathered with the snapshot.
    pub(crate) sorted_school: Vec<u16>,
    /// Per-school constants of the force pass, rebuilt each tick.
    pub(crate) school_caches: Vec<SchoolCache>,
    /// Per-school constants of the integrator, rebuilt each tick.
    pub(crate) school_motion: Vec<SchoolMotion>,
    /// Leader flags in sorted order, gathered with the snapshot.
    pub(crate) sorted_leader: Vec<bool>,
    /// Wander phases in sorted order, gathered with the snapshot.
    pub(crate) sorted_phase: Vec<f32>,
    /// Clamped acceleration applied in the last tick, by slot.
    pub(crate) steering: Vec<Vec2>,
    /// Each fish's id (its slot under [`SlotOrder::Stable`]), by slot.
    pub(crate) id: Vec<u32>,
    /// Each fish's group, by id ([`crate::NO_GROUP`]: none); empty while no
    /// fish was ever put in a group. By id, so it needs no renumbering.
    pub(crate) group: Vec<u16>,
    /// How the slots are numbered.
    pub(crate) slot_order: SlotOrder,
    /// Ids in sorted order, gathered by the index under
    /// [`SlotOrder::Spatial`] (empty otherwise).
    pub(crate) sorted_id: Vec<u32>,
    /// Under [`SlotOrder::Spatial`], the fear the integrator writes into the
    /// new numbering (the old one is read while it does).
    pub(crate) renumbered_fear: Vec<f32>,
    /// What the last [`Flock::rebuild_index`] sorted besides the snapshot,
    /// while the fish are as it sorted them (none added, removed or set
    /// since, and not yet integrated): what renumbering them in the
    /// integrator needs.
    pub(crate) indexed: Option<SortedColumns>,
    pub(crate) grid: CellGrid<Vec2>,
    /// Force pass output, in sorted order (the integrator reads it through
    /// the grid's ranks).
    pub(crate) sorted_kick: Vec<Kick>,
    pub(crate) sorted_samples: Vec<ForceSample>,
    /// The leaders by id, which [`Flock::move_predators`] sums under
    /// [`SlotOrder::Spatial`]: kept, so that a tick does not allocate.
    pub(crate) leaders_by_id: Vec<(u32, Vec2)>,
    pub(crate) search: NeighbourSearch,
    /// Which build of the force pass runs.
    pub(crate) kernel_path: KernelPath,
    /// Whether the force pass keeps every fish's [`ForceSample`].
    pub(crate) record_rules: bool,
    pub(crate) seed: u64,
    pub(crate) tick: u64,
    /// The tick whose motion [`Flock::integrate_unbounded`] left for
    /// [`Flock::apply_boundary`], while it waits.
    pub(crate) unbounded: Option<u64>,
    pub(crate) pool: Option<Arc<rayon::ThreadPool>>,
}

impl Flock {
    /// An empty flock whose noise is drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed, ..Self::default() }
    }

    /// Copies every fish's state into `state` (see [`FishState`]); between
    /// two ticks only.
    pub fn save_fish(&self, state: &mut FishState) {
        each_column!(copy self => state);
        state.group.clone_from(&self.group);
        (state.slot_order, state.seed, state.tick) = (self.slot_order, self.seed, self.tick);
    }

    /// Puts back the fish as [`Flock::save_fish`] saved them: the next tick
    /// then runs as it ran after the save, to the same bits. What a tick
    /// rebuilds is rebuilt by the next one; the thread pool, the kernel's
    /// build and the neighbour search stay as they are.
    pub fn restore_fish(&mut self, state: &FishState) {
        each_column!(copy state => self);
        self.group.clone_from(&state.group);
        (self.slot_order, self.seed, self.tick) = (state.slot_order, state.seed, state.tick);
        // Both describe the fish as a tick left them, not as restored.
        self.indexed = None;
        self.unbounded = None;
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
            self.grid = CellGrid::default();
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
        if !self.group.is_empty() {
            self.group.push(crate::world::groups::NO_GROUP);
        }
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
        if !self.group.is_empty() {
            // The heir takes the id, and with it the slot of the group table.
            self.group.swap_remove(gone as usize);
        }
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
        self.group.truncate(len);
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
        self.group.clear();
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

    /// Adds `extra`, an acceleration (world units per second squared), to
    /// the steering this tick's force pass gave the fish at `slot`, and
    /// clamps the sum to its school's `max_force` as the rules' own total
    /// is: the place for a game's own forces (follow the player, avoid the
    /// boat), called between [`Flock::accumulate_forces`] and
    /// [`Flock::integrate`] (at other times the next force pass overwrites
    /// it). A non-finite `extra` is ignored. `false` if there is no such
    /// fish in this tick's index, or `extra` was ignored.
    pub fn add_steering<S: SchoolTable + ?Sized>(&mut self, schools: &S, slot: usize, extra: Vec2) -> bool {
        if !extra.is_finite() {
            return false;
        }
        // The force pass leaves each fish's total in its sorted place.
        let Some(kick) = self.grid.rank().get(slot).and_then(|&s| self.sorted_kick.get_mut(s as usize))
        else {
            return false;
        };
        let table = schools.table();
        let school =
            crate::world::school::clamp_index(self.school.get(slot).copied().unwrap_or(0), table.len());
        let max_force = table.get(school).map_or(0.0, |p| p.max_force);
        let acceleration = crate::rules::clamp_length(kick.acceleration() + extra, max_force);
        *kick = Kick::new(acceleration, kick.fright(), kick.neighbours());
        true
    }

    /// [`Flock::add_steering`] for every fish at once: `extra[slot]` is
    /// added to the steering of the fish in `slot` and the sum clamped to
    /// its school's `max_force`, the same bits as one call per fish, in
    /// parallel along the force pass's own order. A fish whose extra is
    /// zero, or not finite, or past the end of `extra`, keeps its steering.
    pub fn add_steering_all<S: SchoolTable + ?Sized>(&mut self, schools: &S, extra: &[Vec2]) {
        use rayon::prelude::*;
        let table = schools.table();
        let (order, school) = (self.grid.order(), &self.school);
        let n = self.sorted_kick.len().min(order.len());
        let kicks = &mut self.sorted_kick[..n];
        crate::step::run(self.pool.as_deref(), || {
            kicks.par_chunks_mut(crate::step::CHUNK).enumerate().for_each(|(chunk, kicks)| {
                let base = chunk * crate::step::CHUNK;
                for (k, kick) in kicks.iter_mut().enumerate() {
                    let slot = order[base + k] as usize;
                    let Some(&e) = extra.get(slot).filter(|e| **e != Vec2::ZERO && e.is_finite()) else {
                        continue;
                    };
                    let which = crate::world::school::clamp_index(
                        school.get(slot).copied().unwrap_or(0),
                        table.len(),
                    );
                    let max_force = table.get(which).map_or(0.0, |p| p.max_force);
                    let a = crate::rules::clamp_length(kick.acceleration() + e, max_force);
                    *kick = Kick::new(a, kick.fright(), kick.neighbours());
                }
            });
        });
    }

    /// Sets the state of one fish (e.g. from the ECS before a tick).
    pub fn set(&mut self, slot: usize, position: Vec2, velocity: Vec2, wander_phase: f32) {
        self.indexed = None;
        self.position[slot] = position;
        self.velocity[slot] = velocity;
        self.wander_phase[slot] = wander_phase;
    }

    /// Keeps (or stops keeping) every fish's [`ForceSample`] — each rule's
    /// force — from the force pass. Off by default: it writes 68 more bytes
    /// per fish and tick. Metrics and debug drawing turn it on.
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

    /// The neighbour index built by the last [`Flock::rebuild_index`].
    pub fn grid(&self) -> &CellGrid<Vec2> {
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
            + self.group.capacity() * 2
            + (self.sorted_id.capacity() + self.renumbered_fear.capacity()) * 4
            + self.sorted_leader.capacity()
            + self.sorted_school.capacity() * 2
            + self.sorted_kick.capacity() * core::mem::size_of::<Kick>()
            + self.sorted_samples.capacity() * core::mem::size_of::<ForceSample>()
            + self.grid.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FlockParams, Scene, Tank};

    /// Under either numbering the ids stay `0..len`: removing a fish gives
    /// its id to the fish with the highest one, and truncating keeps the
    /// lowest ids, in their slots' order.
    #[test]
    fn removals_keep_the_ids_dense() {
        let (params, tank, scene) =
            (FlockParams::default(), Tank::centered(Vec2::new(300.0, 200.0)), Scene::default());
        let mut flock = Flock::new(4);
        for f in crate::world::spawn::scatter(200, &tank, &params, 8) {
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
}
