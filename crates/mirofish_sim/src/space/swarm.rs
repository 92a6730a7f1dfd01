//! A school in any dimension, stepped by the rules written over
//! [`Vector`]: [`Flock3d`] in a volume.
//!
//! One tick, as on a plane: rebuild the neighbour grid, sum each fish's
//! neighbourhood and its rules (separation, alignment, cohesion, wander,
//! walls, obstacles, predators, goals) into one acceleration clamped to
//! `max_force`, then integrate semi-implicitly, hold the fish inside the
//! tank and outside the rocks, and move the predators.
//!
//! Every fish's force is a function of the state at the start of the tick
//! and of the counter-based noise only, and is summed in the grid's fixed
//! order, so the tick gives the same bits on any number of threads.

use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};
use rayon::prelude::*;

use super::zones::{ZoneSums, Zones, turn_towards};
use crate::math::Vector;
use crate::math::angle::{sin_cos, sin_cos_lanes};
use crate::math::vector::{record_position_axis, record_velocity_axis};
use crate::observe;
use crate::observe::metrics::Metrics;
use crate::prefetch::{AHEAD, prefetch};
use crate::rules::compose::Setting;
use crate::rules::noise::{Stream, TickKey};
use crate::rules::{self, Neighbourhood, RuleForces, scene as react, wander_direction};
use crate::step::command::{CommandError, CommandQueue, Stamped};
use crate::step::command::{FlockCommand, SpawnKey, spawn_disc};
use crate::step::crowding::{lone_step, thinning_step};
use crate::step::integrate::{SchoolMotion, bounce_scatter, contain, swim, swim_four};
use crate::step::kernel::alone::{self, Eye, Onlooker, Others};
use crate::step::kernel::hoods::{HoodScan, QuartetHoods, cells_of};
use crate::step::kernel::quartet::PLANE_SAMPLE;
use crate::step::kernel::scan::{LANES, QuartetReach};
use crate::step::kernel::{Avx2, ForceSample, KernelPath, NeighbourSearch, SchoolCache, TwoBuilds};
use crate::step::predators::{Prey, leaders_centre, move_on, nearest};
use crate::step::slots::{FishInputs, SlotOrder};
use crate::step::{all_zero, any_set};
use crate::world::grid::{CandidateRuns, CellGrid, Extras, MAX_RUNS, PLANE_RUNS};
use crate::world::groups::{self, NO_GROUP};
use crate::world::params::{
    DEFAULT_DT, FlockParams, MAX_FISH, MAX_LENGTH, ParamError, Range, check, validate_dt,
};
use crate::world::scene::{Goal, Route, Scene, point};
use crate::world::school::{MAX_SCHOOLS, clamp_index};
use crate::world::spawn::{FishStart, Spread, scatter_in};
use crate::world::tank::{BoundaryMode, TankOf};

mod saved;

pub(crate) use saved::Saved;

/// A school in a volume.
pub type Flock3d = Swarm<Vec3>;

/// Fish per parallel task: large enough that scheduling is noise, small
/// enough that two threads share a few thousand fish evenly.
const CHUNK: usize = 1024;
const _: () = assert!(CHUNK.is_multiple_of(LANES), "work items start at a quartet");

/// Most candidates one stratum of a crowded quartet's scan looks at in a
/// volume: its share of the budget (two thirds of six candidates per
/// capped neighbour, the cap at most 16 and scaled to the widest stretch,
/// 17 columns for a block's 5) and one more per run for the strides'
/// rounding. A plane's stretch is shorter and needs less
/// ([`PLANE_SAMPLE`]).
const VOLUME_SAMPLE: usize = 256;

/// A school (or several) in `V`'s dimension: the fish as columns, their
/// parameters, tank and scene, and the scratch a tick reuses.
#[derive(Clone, Debug)]
pub struct Swarm<V: Vector> {
    /// The fish, by id under [`SlotOrder::Stable`], in the grid's cell
    /// order of the last tick under [`SlotOrder::Spatial`] (fish that are
    /// near each other are then near in memory); `fish.id` says who is
    /// where.
    fish: Columns<V>,
    /// How the fish are stored.
    slot_order: SlotOrder,
    pub(super) params: Vec<FlockParams>,
    pub(super) tank: TankOf<V>,
    /// What shares the tank; change it freely between ticks (validated by
    /// [`Swarm::set_scene`]).
    pub(super) scene: Scene<V>,
    seed: u64,
    tick: u64,
    dt: f32,
    grid: CellGrid<V>,
    /// Each fish's slot, by id (the inverse of `fish.id`).
    slots: Vec<u32>,
    /// What the force pass reads of the fish besides the grid's snapshot,
    /// copied in this tick's cell order by the index (wander phases and
    /// circles, fear, schools, leader flags; under [`SlotOrder::Spatial`]
    /// the ids too, and the integrator swaps them into `fish`); scratch
    /// where fish are removed.
    sorted: Columns<V>,
    /// Each fish's acceleration, fear and neighbour count from the last
    /// force pass, in its order (the last index's cells).
    kicks: Vec<Kick<V>>,
    /// What each school's force pass computes once per tick.
    schools_now: Vec<SchoolNow>,
    /// Couzin's zone model instead of the weighted rules, when set.
    pub(super) zones: Option<Zones>,
    /// A game's own force on each fish for the next tick, by id (empty
    /// when none is set: the tick then skips the pass that adds them).
    extra: Vec<V>,
    /// Commands waiting for their tick.
    commands: CommandQueue<FlockCommand<V>>,
    /// Commands applied so far, in order: with the start, the run.
    applied: Vec<Stamped<FlockCommand<V>>>,
    /// Applied commands left out in whole or part, with why.
    left_out: Vec<(Stamped<FlockCommand<V>>, ParamError)>,
    /// The last stage of the tick under way that has run (`None` between
    /// ticks).
    stage: Option<TickStage>,
    /// Whether any fish leads this tick (found by the index stage).
    leading: bool,
    /// Whether the grid indexes the fish as they are stored: set by the
    /// index stage, cleared where fish are removed or restored (fish added
    /// since leave it: they wait for the next tick's).
    indexed: bool,
    /// Whether the fish are stored in the last index's cell order (under
    /// [`SlotOrder::Spatial`], from the integrator to the next index):
    /// slot and place in the grid are then one.
    in_cell_order: bool,
    /// Whether the index's copies of fear and leader flags (in `sorted`)
    /// are all zero and all unset: the next index then need not write them
    /// again while nobody is afraid and nobody leads.
    sorted_quiet: bool,
    /// The leaders by id, which the end of a tick sums: kept, so that a
    /// tick does not allocate.
    leaders_by_id: Vec<(u32, V)>,
    /// Each fish's group by id ([`NO_GROUP`]: none); empty while no fish
    /// has been put in a group.
    group: Vec<u16>,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Whether the force pass scans fish by quartets where it can (off
    /// only in the test that compares both ways).
    quartets: bool,
    /// Which build of the force pass runs.
    kernel_path: KernelPath,
    /// How the force pass finds each fish's neighbours.
    search: NeighbourSearch,
    /// Each slot's rule forces and neighbour count from the last force
    /// pass, while [`Swarm::set_record_rules`] is on (empty otherwise).
    samples: Vec<ForceSample<V>>,
    /// Whether the force pass keeps `samples`.
    record_rules: bool,
}

/// The fish, column by column.
#[derive(Clone, Debug, Default, PartialEq)]
struct Columns<V: Vector> {
    /// Which fish each slot holds (its index when it was spawned).
    id: Vec<u32>,
    position: Vec<V>,
    velocity: Vec<V>,
    /// Each fish's wander phase (radians, in `[0, 2π)`): how far its
    /// wander direction has turned round its circle.
    phase: Vec<f32>,
    /// The circle each fish's wander turns round (nothing on a plane).
    circle: Vec<V::Circle>,
    /// Fear, 0–1.
    fright: Vec<f32>,
    school: Vec<u16>,
    /// Whether each fish leads.
    leader: Vec<bool>,
}

impl<V: Vector> Columns<V> {
    /// The fish as the end of a tick reads them, stored in `order`.
    fn prey(&self, order: SlotOrder) -> Prey<'_, V> {
        let slots_are_ids = order == SlotOrder::Stable;
        Prey { position: &self.position, id: &self.id, leader: &self.leader, slots_are_ids }
    }

    /// Fills `self` with `from`'s fish in `order`, every column, in pieces
    /// on the pool (a copy: any split gives the same columns).
    fn gather(&mut self, from: &Self, order: &[u32]) {
        // Each column in pieces on the pool (into the column's own room:
        // no allocation once it has grown), rather than a whole column per
        // task, which left one thread with five of the seven.
        fn column<T: Copy + Default + Send + Sync>(to: &mut Vec<T>, from: &[T], order: &[u32]) {
            // Every element is overwritten below: the resize writes only
            // the room a growing school adds.
            to.resize(order.len(), T::default());
            to.par_chunks_mut(CHUNK)
                .zip(order.par_chunks(CHUNK))
                .for_each(|(to, order)| gather(to, from, order));
        }
        column(&mut self.position, &from.position, order);
        column(&mut self.velocity, &from.velocity, order);
        column(&mut self.phase, &from.phase, order);
        column(&mut self.circle, &from.circle, order);
        column(&mut self.id, &from.id, order);
        column(&mut self.fright, &from.fright, order);
        column(&mut self.school, &from.school, order);
        column(&mut self.leader, &from.leader, order);
    }
}

/// `to[k] = from[order[k]]`, for every `k` of `to`.
fn gather<T: Copy>(to: &mut [T], from: &[T], order: &[u32]) {
    for (to, &i) in to.iter_mut().zip(order) {
        *to = from[i as usize];
    }
}

/// What a school's force pass and integrator read, computed once per tick.
#[derive(Clone, Copy, Debug)]
struct SchoolNow {
    /// Its radii and view, and whether its fish need the one-fish scan
    /// (as the plane's kernel keeps them).
    scan: SchoolCache,
    /// Its gait, how far its wander phase turns and how fast fear fades
    /// in one tick (as the plane's integrator keeps them).
    motion: SchoolMotion,
}

/// A snapshot of a [`Swarm`]'s order and shape ([`Swarm::metrics`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SwarmMetrics<V: Vector> {
    /// Ticks completed.
    pub tick: u64,
    /// Number of fish.
    pub fish: usize,
    /// Polarization, 0–1 ([`observe::polarization`]).
    pub polarization: f32,
    /// Milling, 0–1: in a volume the group's normalised angular momentum
    /// ([`observe::milling`]).
    pub milling: f32,
    /// Mean distance to the nearest neighbour within the interaction
    /// radius ([`Swarm::nearest_distances`]); `None` when no fish has one.
    pub nearest_neighbour: Option<f32>,
    /// Size of the box around the school, axis by axis (its product is the
    /// bounding volume).
    pub bounds: V,
    /// Fish closer to a wall than the soft margin or the separation radius.
    pub boundary_contacts: usize,
    /// Mean neighbours within the perception radius (estimated in crowds
    /// thinned by the cap).
    pub mean_neighbours: f32,
    /// Mean speed.
    pub mean_speed: f32,
    /// Length along the mean heading and width across it
    /// ([`observe::formation`]).
    pub formation: [f32; 2],
    /// Mean magnitude of each weighted rule force, while the swarm keeps
    /// them ([`Swarm::set_record_rules`]).
    pub rule_forces: Option<observe::RuleForceMeans>,
}

impl<V: Vector> From<SwarmMetrics<V>> for Metrics {
    /// The same measures as a plane's row of metrics, for what reads those
    /// (the health check, [`crate::observe::health::Health::assess`]): the
    /// bounding box's area is its volume in a volume.
    fn from(m: SwarmMetrics<V>) -> Self {
        Metrics {
            tick: m.tick,
            fish: m.fish,
            polarization: m.polarization,
            milling: m.milling,
            nearest_neighbour: m.nearest_neighbour,
            bounding_box_area: m.bounds.product(),
            boundary_contacts: m.boundary_contacts,
            mean_neighbours: m.mean_neighbours,
            mean_speed: m.mean_speed,
            formation: m.formation,
            rule_forces: m.rule_forces,
        }
    }
}

/// The stages of one tick, in the order they run: [`Swarm::step`] runs
/// them all, [`Swarm::run_to`] up to one of them, so that a game can act
/// between two (the Bevy plugins' system sets are these stages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TickStage {
    /// The commands due this tick are applied.
    Commands,
    /// The neighbour grid is rebuilt and the fish stored in its order.
    SpatialIndex,
    /// Every fish's rules (or Couzin's zones) summed into one steering,
    /// clamped to `max_force`: read the state at the start of the tick only.
    Forces,
    /// The game's forces ([`Swarm::add_steering`]) added, the sum clamped.
    Clamp,
    /// Velocities and positions move on (fish may now stand outside the
    /// tank or in a rock), fear and wander with them.
    Integrate,
    /// The walls and rocks bring every fish back inside and out.
    Boundary,
    /// The route moves on, the predators hunt: the tick is done.
    Predators,
}

impl TickStage {
    /// Every stage, in the order they run.
    pub const ALL: [TickStage; 7] = [
        TickStage::Commands,
        TickStage::SpatialIndex,
        TickStage::Forces,
        TickStage::Clamp,
        TickStage::Integrate,
        TickStage::Boundary,
        TickStage::Predators,
    ];
}

/// One fish's outcome of the force pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Kick<V: Vector> {
    acceleration: V,
    fear: f32,
    /// The neighbours counted, as a float (exact: fewer than 2²⁴ fish), as
    /// the quartet's lanes count them: a kick of four is written without a
    /// conversion per lane.
    neighbours: f32,
}

const _: () = assert!(crate::MAX_FISH < 1 << f32::MANTISSA_DIGITS, "a count of fish is an exact f32");

impl<V: Vector> Swarm<V> {
    /// `count` fish of one school with `params`, scattered uniformly in
    /// `tank` (outside nothing: the tank starts empty) heading every way at
    /// half to full speed, from `seed`.
    pub fn new(params: FlockParams, tank: TankOf<V>, count: usize, seed: u64) -> Result<Self, ParamError> {
        params.validate()?;
        tank.validate()?;
        let mut swarm = Self {
            fish: Columns::default(),
            slot_order: SlotOrder::default(),
            slots: Vec::new(),
            params: vec![params],
            tank,
            scene: Scene::default(),
            seed,
            tick: 0,
            dt: DEFAULT_DT,
            grid: CellGrid::default(),
            sorted: Columns::default(),
            kicks: Vec::new(),
            schools_now: Vec::new(),
            group: Vec::new(),
            zones: None,
            extra: Vec::new(),
            commands: CommandQueue::new(),
            applied: Vec::new(),
            left_out: Vec::new(),
            stage: None,
            leading: false,
            indexed: false,
            in_cell_order: false,
            sorted_quiet: false,
            leaders_by_id: Vec::new(),
            pool: None,
            quartets: true,
            kernel_path: KernelPath::default(),
            search: NeighbourSearch::default(),
            samples: Vec::new(),
            record_rules: false,
        };
        swarm.spawn(0, count, seed)?;
        Ok(swarm)
    }

    /// Adds a school with its own parameters and returns its index.
    pub fn add_school(&mut self, params: FlockParams, count: usize, seed: u64) -> Result<u16, ParamError> {
        params.validate()?;
        let index = self.params.len();
        if index > usize::from(u16::MAX) {
            return Err(ParamError {
                field: "schools",
                value: index as f32,
                expected: "at most 65536".into(),
            });
        }
        self.params.push(params);
        let spawned = self.spawn(index as u16, count, seed);
        if spawned.is_err() {
            self.params.pop();
        }
        spawned.map(|()| index as u16)
    }

    /// Adds `count` fish to an existing `school`, scattered as in
    /// [`Swarm::new`] from `seed`; returns the id of the first.
    pub fn spawn_school(&mut self, school: u16, count: usize, seed: u64) -> Result<u32, ParamError> {
        self.spawn_school_in(school, count, seed, None, None)
    }

    /// [`Swarm::spawn_school`], the fish heading along `heading` (radians,
    /// counter-clockwise from +x) give or take an eighth of a turn on a
    /// plane: a school that starts out schooled. The same positions and
    /// speeds as without a heading; in a volume, and where it is `None` or
    /// not finite, they head every way ([`scatter_in`]).
    ///
    /// # Errors
    ///
    /// As [`Swarm::spawn_school`].
    pub fn spawn_school_heading(
        &mut self,
        school: u16,
        count: usize,
        seed: u64,
        heading: Option<f32>,
    ) -> Result<u32, ParamError> {
        self.spawn_school_in(school, count, seed, heading, None)
    }

    /// Adds `count` fish to an existing `school`, spread uniformly over the
    /// ball of `radius` about `centre` (a point inside the tank; the ball
    /// clipped to the tank, the fish pushed out of the rocks), heading every
    /// way, from `seed`: a packed start, such as Couzin's. Returns the id
    /// of the first.
    pub fn spawn_ball(
        &mut self,
        school: u16,
        count: usize,
        seed: u64,
        (centre, radius): (V, f32),
    ) -> Result<u32, ParamError> {
        self.spawn_ball_spread(school, count, seed, (centre, radius), Spread::Even)
    }

    /// [`Swarm::spawn_ball`], the fish filling the ball as `spread` says
    /// (for [`Spread::Normal`], `radius` is the standard deviation).
    ///
    /// # Errors
    ///
    /// As [`Swarm::spawn_ball`].
    pub fn spawn_ball_spread(
        &mut self,
        school: u16,
        count: usize,
        seed: u64,
        (centre, radius): (V, f32),
        spread: Spread,
    ) -> Result<u32, ParamError> {
        self.spawn_school_in(school, count, seed, None, Some((centre, radius, spread)))
    }

    /// [`Swarm::spawn_school`], over the tank or a ball (checked), heading
    /// along `heading` on a plane where one is given.
    pub(crate) fn spawn_school_in(
        &mut self,
        school: u16,
        count: usize,
        seed: u64,
        heading: Option<f32>,
        ball: Option<(V, f32, Spread)>,
    ) -> Result<u32, ParamError> {
        if let Some((centre, radius, _)) = ball {
            check_ball(centre, radius, &self.tank)?;
        }
        if usize::from(school) >= self.params.len() {
            return Err(ParamError {
                field: "school",
                value: f32::from(school),
                expected: "an existing school".into(),
            });
        }
        let first = self.len() as u32;
        self.spawn_in(school, count, seed, heading, ball).map(|()| first)
    }

    /// Puts fish `id` at `position` (inside the tank) moving with
    /// `velocity`, between ticks: a teleport, a net, a current. Within a
    /// tick, after [`TickStage::Integrate`] and before
    /// [`TickStage::Boundary`], the position may lie outside the tank or
    /// in a rock: the boundary then brings the fish in like any other.
    ///
    /// # Errors
    ///
    /// If there is no such fish, a value is not finite or the position is
    /// outside the tank (where the boundary is not still to come); nothing
    /// changes.
    pub fn set(&mut self, id: u32, position: V, velocity: V) -> Result<(), ParamError> {
        let slot = self.slot(id)?;
        point("position", position)?;
        point("velocity", velocity)?;
        let boundary_to_come = self.stage == Some(TickStage::Integrate);
        if !boundary_to_come && !self.tank.contains(position) {
            return Err(ParamError {
                field: "position",
                value: position.length(),
                expected: "a point inside the tank".into(),
            });
        }
        self.fish.position[slot] = position;
        self.fish.velocity[slot] = velocity;
        // A fish moved after the index: the grid no longer shows the fish
        // as they are (a force pass still to come indexes them again).
        self.indexed = false;
        Ok(())
    }

    /// Adds one fish of `school` at `position` (inside the tank; pushed out
    /// of a rock it starts in) moving with `velocity`, its wander turned
    /// `wander_phase` radians round its circle (in a volume, a circle drawn
    /// from the seed and its id), between ticks: a fish placed by hand, as
    /// a test or an editor places it. Returns its id, the next one.
    ///
    /// # Errors
    ///
    /// If the school does not exist, a value is not finite, the position
    /// is outside the tank, the swarm holds [`MAX_FISH`] fish already, or a
    /// tick is under way ([`Swarm::run_to`]); nothing changes.
    pub fn add_fish(
        &mut self,
        school: u16,
        position: V,
        velocity: V,
        wander_phase: f32,
    ) -> Result<u32, ParamError> {
        let refuse =
            |field, value: f32, expected: &str| ParamError { field, value, expected: expected.into() };
        if usize::from(school) >= self.params.len() {
            return Err(refuse("school", f32::from(school), "an existing school"));
        }
        point("position", position)?;
        point("velocity", velocity)?;
        check("wander_phase", wander_phase, Range::Symmetric(MAX_LENGTH))?;
        if !self.tank.contains(position) {
            return Err(refuse("position", position.length(), "a point inside the tank"));
        }
        if self.len() >= MAX_FISH {
            return Err(refuse("fish", self.len() as f32, "fewer than MAX_FISH fish before one is added"));
        }
        if self.stage.is_some() {
            return Err(refuse("stage", 0.0, "no tick under way (fish are added between ticks)"));
        }
        let id = self.len() as u32;
        let start = FishStart {
            position,
            velocity,
            wander_phase: wander_phase.rem_euclid(core::f32::consts::TAU),
            circle: circle_of::<V>(self.seed, id),
        };
        self.push(school, vec![start]);
        Ok(id)
    }

    /// Adds `fish` under the next ids, between ticks, in the order given:
    /// what an engine that holds its own copy of the fish hands over when
    /// fish arrive there (the Bevy plugin's entities spawned by a game).
    /// Each is `(school, position, velocity, wander phase)`, taken as it
    /// is, as a game wrote it: a position outside the tank or in a rock is
    /// brought in by the next tick's walls and rocks, one that is not
    /// finite put in the tank's middle; a school beyond the table counts as
    /// the last, a wander phase that is not finite as 0. The fish start
    /// calm, in no group and leading no one. In a volume each fish's wander
    /// circle is drawn from the seed and its id, as [`Swarm::add_fish`]
    /// draws it. Returns the ids given: none while a
    /// tick is under way, and none past [`MAX_FISH`] fish. Remove fish with
    /// [`Swarm::remove_fish`].
    pub fn push_fish(&mut self, fish: impl IntoIterator<Item = (u16, V, V, f32)>) -> core::ops::Range<u32> {
        let first = self.len() as u32;
        if self.stage.is_some() {
            return first..first;
        }
        let last = self.params.len().saturating_sub(1);
        let room = MAX_FISH.saturating_sub(self.len());
        let columns = &mut self.fish;
        for (school, position, velocity, phase) in fish.into_iter().take(room) {
            let id = columns.id.len() as u32;
            self.slots.push(columns.id.len() as u32);
            columns.id.push(id);
            columns.position.push(position);
            columns.velocity.push(velocity);
            columns.phase.push(if phase.is_finite() { phase } else { 0.0 });
            columns.circle.push(circle_of::<V>(self.seed, id));
            columns.fright.push(0.0);
            columns.school.push(clamp_index(school, last + 1) as u16);
            columns.leader.push(false);
        }
        let len = self.len();
        if !self.group.is_empty() {
            self.group.resize(len, NO_GROUP);
        }
        if !self.extra.is_empty() {
            self.extra.resize(len, V::ZERO);
        }
        if len as u32 != first {
            // Last tick's forces and samples belonged to fewer fish.
            self.forget_last_tick();
        }
        first..len as u32
    }

    /// The inputs of the fish in `slots` (position, velocity, wander phase,
    /// leader flag and school), to overwrite in place a column at a time
    /// between ticks — from the ECS's component columns, say — keeping
    /// their fear. The values are taken as [`Swarm::push_fish`] takes
    /// them, save the schools and wander phases: write only schools below
    /// [`Swarm::params`]' length, and finite phases. Under [`SlotOrder::Stable`] (the default)
    /// slots are ids.
    ///
    /// # Panics
    ///
    /// If `slots` reaches past the last fish.
    pub fn inputs_mut(&mut self, slots: core::ops::Range<usize>) -> FishInputs<'_, V> {
        // The grid no longer shows the fish as they are.
        self.indexed = false;
        let fish = &mut self.fish;
        FishInputs {
            position: &mut fish.position[slots.clone()],
            velocity: &mut fish.velocity[slots.clone()],
            wander_phase: &mut fish.phase[slots.clone()],
            leader: &mut fish.leader[slots.clone()],
            school: &mut fish.school[slots],
        }
    }

    /// Replaces the whole school table with `table` (at least one school,
    /// each checked); a fish whose school the new table lacks joins its
    /// last school.
    ///
    /// # Errors
    ///
    /// If the table is empty or longer than [`MAX_SCHOOLS`],
    /// or a school's parameters are invalid; nothing changes.
    pub fn set_schools(&mut self, table: &[FlockParams]) -> Result<(), ParamError> {
        if table.is_empty() || table.len() > MAX_SCHOOLS {
            return Err(ParamError {
                field: "schools",
                value: table.len() as f32,
                expected: format!("1 to {} schools", MAX_SCHOOLS),
            });
        }
        for params in table {
            params.validate()?;
        }
        self.params.clear();
        self.params.extend_from_slice(table);
        let last = (table.len() - 1) as u16;
        for school in &mut self.fish.school {
            *school = (*school).min(last);
        }
        Ok(())
    }

    /// The slot fish `id` is stored in, or the error naming a fish that
    /// does not exist.
    fn slot(&self, id: u32) -> Result<usize, ParamError> {
        self.slots.get(id as usize).map(|&slot| slot as usize).ok_or_else(|| ParamError {
            field: "id",
            value: id as f32,
            expected: format!("the id of one of the {} fish", self.len()),
        })
    }

    /// Makes fish `id` a leader (or not). A leader steers for the current
    /// waypoint of the scene's [`Route`] on top of the rules, and its
    /// neighbours count it `leader_weight` times in alignment and cohesion,
    /// so a few leaders guide a school. The route moves on once the
    /// leaders' centre comes within its reach of a waypoint. Under Couzin's
    /// zones leaders are fish like the rest.
    ///
    /// # Errors
    ///
    /// If there is no such fish; nothing changes.
    pub fn set_leader(&mut self, id: u32, leads: bool) -> Result<(), ParamError> {
        let slot = self.slot(id)?;
        self.fish.leader[slot] = leads;
        Ok(())
    }

    /// Whether each fish leads, by slot.
    pub fn leaders(&self) -> &[bool] {
        &self.fish.leader
    }

    /// Each fish's group by id ([`NO_GROUP`]: none). Empty while no fish
    /// has ever been put in a group.
    pub fn groups(&self) -> &[u16] {
        &self.group
    }

    /// The group of the fish with id `id`, if it is in one.
    pub fn group_of(&self, id: u32) -> Option<u16> {
        groups::group_of(&self.group, id)
    }

    /// Puts the fish with id `id` into group `group` (`None`: into none); a
    /// group with a goal in [`Scene::group_goals`] pulls its fish
    /// towards it on top of their school's goals. `false`, and nothing
    /// changes, if there is no such fish or the group is not below
    /// [`MAX_GROUPS`](crate::MAX_GROUPS).
    pub fn set_group(&mut self, id: u32, group: Option<u16>) -> bool {
        let len = self.len();
        groups::set_group(&mut self.group, len, id, group)
    }

    /// Takes every fish out of its group.
    pub fn clear_groups(&mut self) {
        self.group.clear();
    }

    /// Splits the fish of `school` (every fish if `None`) into `count`
    /// spatially compact groups of nearly equal size, numbered `first`,
    /// `first + 1`, … (below [`MAX_GROUPS`](crate::MAX_GROUPS)): the longest side of their
    /// bounding box halved again and again. Depends only on where the
    /// fish are, so a replay forms the same groups. Returns how many groups were
    /// formed.
    pub fn form_groups(&mut self, school: Option<u16>, first: u16, count: u16) -> usize {
        let len = self.len();
        let fish = (&self.fish.id[..], &self.fish.position[..], &self.fish.school[..]);
        groups::form_groups(&mut self.group, len, fish, school, first, count)
    }

    /// Adds `force`, an acceleration (world units per second squared), to
    /// the steering the rules give fish `id` in the next tick, the sum
    /// clamped to its school's `max_force` as the rules' own total is: the
    /// place for a game's own forces (follow the player, avoid the boat).
    /// Forces added to one fish before a tick add up; the tick uses them
    /// and clears them. Within a tick, up to [`TickStage::Clamp`] the force
    /// joins this tick's; after the clamp and before
    /// [`TickStage::Integrate`] it is added to the fish's steering at once
    /// and the sum clamped again. Under Couzin's zones, where fish swim at
    /// one speed and turn at a bounded rate, they are not used (and still
    /// cleared).
    ///
    /// # Errors
    ///
    /// If there is no such fish or the force is not finite; nothing
    /// changes.
    pub fn add_steering(&mut self, id: u32, force: V) -> Result<(), ParamError> {
        let slot = self.slot(id)?;
        point("force", force)?;
        if self.stage == Some(TickStage::Clamp) {
            if self.zones.is_none() && force != V::ZERO {
                let max_force = self.params[usize::from(self.fish.school[slot])].max_force;
                if let Some(rank) = self.rank_of(slot)
                    && let Some(kick) = self.kicks.get_mut(rank)
                {
                    kick.acceleration = rules::clamp_length(kick.acceleration + force, max_force);
                }
            }
            return Ok(());
        }
        if self.extra.len() < self.len() {
            self.extra.resize(self.len(), V::ZERO);
        }
        self.extra[id as usize] += force;
        Ok(())
    }

    /// Scatters `count` fish of `school` uniformly in the tank, outside the
    /// obstacles (a fish drawn inside one is pushed to its surface).
    fn spawn(&mut self, school: u16, count: usize, seed: u64) -> Result<(), ParamError> {
        self.spawn_in(school, count, seed, None, None)
    }

    /// [`FlockCommand::SpawnFish`]: up to `count` fish of `school` (if it
    /// exists) spread over the ball of `radius` about `centre`, as many as
    /// fit under [`MAX_FISH`], placed as on a plane ([`spawn_disc`], keyed
    /// by the run's seed, the tick and the fish count), out of every rock.
    pub(super) fn spawn_in_ball(
        &mut self,
        school: u16,
        count: usize,
        centre: V,
        radius: f32,
    ) -> Result<(), ParamError> {
        if usize::from(school) >= self.params.len() {
            return Ok(());
        }
        let room = crate::step::command::spawn_room(count, self.len());
        let key = SpawnKey { seed: self.seed, tick: self.tick, first_slot: self.len() as u64 };
        let params = self.params[usize::from(school)];
        self.push(school, spawn_disc(key, room, centre, radius, &self.tank, &params));
        crate::step::command::spawned_all(count, room)
    }

    /// Removes the `count` most recently added fish (the highest ids), or
    /// every fish if there are fewer.
    pub(super) fn remove_last(&mut self, count: usize) {
        let keep = self.len().saturating_sub(count);
        self.renumber((0..keep as u32).collect());
    }

    /// Removes the fish with the ids in `ids` (ids of no fish and repeats
    /// are skipped) between ticks, as a plane's flock removes a fish: one
    /// at a time, highest id first, the fish with the highest id left
    /// taking the freed id, so that ids stay `0..len`. Returns, for each
    /// fish left (by its new id), the id it had: what a caller that keeps
    /// something per fish (the Bevy plugin's entities) moves along.
    ///
    /// Not a command: a run changed this way no longer replays from its
    /// commands (its replay diverges at the next checkpoint), as a fish
    /// moved by hand does.
    pub fn remove_fish(&mut self, ids: &[u32]) -> Vec<u32> {
        let len = self.len();
        let mut doomed: Vec<u32> = ids.iter().copied().filter(|&id| (id as usize) < len).collect();
        doomed.sort_unstable();
        doomed.dedup();
        // Old id of the fish holding each id, as the holes are filled: a
        // removed id still holds its own fish when its turn comes (only
        // higher ids and the top have moved).
        let mut was: Vec<u32> = (0..len as u32).collect();
        for &id in doomed.iter().rev() {
            let last = was.pop().expect("a fish per doomed id");
            if (id as usize) < was.len() {
                was[id as usize] = last;
            }
        }
        self.renumber(was.clone());
        was
    }

    /// Keeps the fish `was[new]` (old ids) under the ids `0..was.len()`,
    /// in their slots' order, dropping the rest.
    fn renumber(&mut self, was: Vec<u32>) {
        let len = self.len();
        if was.len() == len && was.iter().enumerate().all(|(new, &old)| new as u32 == old) {
            return;
        }
        let mut new_id = vec![u32::MAX; len];
        for (new, &old) in was.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        let order: Vec<u32> = match self.slot_order {
            // Stored by id: the fish each new id names, from its old slot.
            SlotOrder::Stable => was.clone(),
            SlotOrder::Spatial => {
                (0..len as u32).filter(|&s| new_id[self.fish.id[s as usize] as usize] != u32::MAX).collect()
            }
        };
        self.sorted.gather(&self.fish, &order);
        core::mem::swap(&mut self.fish, &mut self.sorted);
        for id in &mut self.fish.id {
            *id = new_id[*id as usize];
        }
        self.slots.truncate(was.len());
        for (slot, &id) in self.fish.id.iter().enumerate() {
            self.slots[id as usize] = slot as u32;
        }
        // The columns kept by id, when they are kept at all.
        fn by_id<T: Copy>(column: &mut Vec<T>, was: &[u32], none: T) {
            if !column.is_empty() {
                *column = was.iter().map(|&old| column.get(old as usize).copied().unwrap_or(none)).collect();
            }
        }
        by_id(&mut self.extra, &was, V::ZERO);
        by_id(&mut self.group, &was, NO_GROUP);
        // Last tick's forces belonged to slots that have moved.
        self.forget_last_tick();
    }

    /// Forgets what the last tick left about the fish as they were stored
    /// (their kicks and samples, the index's order and copies), once fish
    /// have been moved between slots, removed or put back.
    fn forget_last_tick(&mut self) {
        self.leading = self.fish.leader.iter().any(|&l| l);
        self.kicks.clear();
        self.samples.clear();
        self.indexed = false;
        self.in_cell_order = false;
        self.sorted_quiet = false;
    }

    /// Places `count` fish of `school` uniformly in the tank, or in the ball
    /// `(centre, radius)` clipped to it, outside the obstacles, heading
    /// along `heading` on a plane where one is given ([`scatter_in`]).
    fn spawn_in(
        &mut self,
        school: u16,
        count: usize,
        seed: u64,
        heading: Option<f32>,
        ball: Option<(V, f32, Spread)>,
    ) -> Result<(), ParamError> {
        if count > MAX_FISH.saturating_sub(self.len()) {
            return Err(ParamError {
                field: "count",
                value: count as f32,
                expected: format!("at most {MAX_FISH} fish in all"),
            });
        }
        let params = self.params[usize::from(school)];
        self.push(school, scatter_in(count, &self.tank, &params, seed, heading, ball));
        Ok(())
    }

    /// Adds the fish `starts` of `school` with the next ids, each out of
    /// every rock, in no group.
    fn push(&mut self, school: u16, starts: Vec<FishStart<V>>) {
        for start in starts {
            let (p, v) =
                react::push_out_of_all(start.position, start.velocity, &self.scene.obstacles, &self.tank);
            let fish = &mut self.fish;
            self.slots.push(fish.id.len() as u32);
            fish.id.push(fish.id.len() as u32);
            fish.position.push(p);
            fish.velocity.push(v);
            fish.phase.push(start.wander_phase);
            fish.circle.push(start.circle);
            fish.fright.push(0.0);
            fish.school.push(school);
            fish.leader.push(false);
        }
        if !self.group.is_empty() {
            self.group.resize(self.len(), NO_GROUP);
        }
    }

    /// Steps of `dt` seconds instead of [`DEFAULT_DT`].
    pub fn with_dt(mut self, dt: f32) -> Result<Self, ParamError> {
        validate_dt(dt)?;
        self.dt = dt;
        Ok(self)
    }

    /// The length of a tick (seconds).
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// Sets the step to `dt` seconds from the next tick on.
    pub fn set_dt(&mut self, dt: f32) -> Result<(), ParamError> {
        validate_dt(dt)?;
        self.dt = dt;
        Ok(())
    }

    /// Runs the passes on a pool of `threads` threads of the swarm's own
    /// (at least 1); the state is the same bits on any number of threads.
    pub fn with_threads(self, threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build()?;
        Ok(self.with_thread_pool(Arc::new(pool)))
    }

    /// Runs the passes on `pool` instead of the global one (for example a
    /// pool of one thread, to compare).
    pub fn with_thread_pool(mut self, pool: Arc<rayon::ThreadPool>) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Replaces what shares the tank, after checking it
    /// ([`Scene::validate_with_room`]).
    pub fn set_scene(&mut self, scene: Scene<V>) -> Result<(), ParamError> {
        scene.validate_with_room(&self.tank)?;
        self.scene = scene;
        Ok(())
    }

    /// [`Swarm::set_scene`] keeping both scenes' buffers: `scene` is checked
    /// and swapped in, and holds the scene it replaced (to be overwritten
    /// and swapped in again: a caller that rebuilds the scene every tick
    /// allocates nothing).
    ///
    /// # Errors
    ///
    /// As [`Swarm::set_scene`]; nothing is swapped.
    pub fn swap_scene(&mut self, scene: &mut Scene<V>) -> Result<(), ParamError> {
        scene.validate_with_room(&self.tank)?;
        core::mem::swap(&mut self.scene, scene);
        Ok(())
    }

    /// Changes the scene in place: `edit` works on a copy, which replaces
    /// the scene if it validates (see [`Swarm::set_scene`]).
    ///
    /// # Errors
    ///
    /// As [`Swarm::set_scene`]; the scene is then unchanged.
    pub fn edit_scene(&mut self, edit: impl FnOnce(&mut Scene<V>)) -> Result<(), ParamError> {
        let mut scene = self.scene.clone();
        edit(&mut scene);
        self.set_scene(scene)
    }

    /// Replaces the tank, after checking it; fish outside the new one are
    /// brought in by the next tick's walls.
    pub fn set_tank(&mut self, tank: TankOf<V>) -> Result<(), ParamError> {
        tank.validate()?;
        self.scene.validate_with_room(&tank)?;
        self.tank = tank;
        Ok(())
    }

    /// Moves every fish by Couzin's zone model ([`Zones`]: constant speed,
    /// bounded turning, repulsion before orientation and attraction)
    /// instead of the weighted rules, or, with `None`, by the rules again.
    /// The walls, rocks and predators' positions still hold the fish in.
    pub fn set_zones(&mut self, zones: Option<Zones>) -> Result<(), ParamError> {
        if let Some(z) = &zones {
            z.validate()?;
        }
        self.zones = zones;
        Ok(())
    }

    /// The zone model in force, if any.
    pub fn zones(&self) -> Option<&Zones> {
        self.zones.as_ref()
    }

    /// Replaces one school's parameters, after checking them.
    pub fn set_params(&mut self, school: u16, params: FlockParams) -> Result<(), ParamError> {
        params.validate()?;
        let slot = self.params.get_mut(usize::from(school)).ok_or_else(|| ParamError {
            field: "school",
            value: f32::from(school),
            expected: "an existing school".into(),
        })?;
        *slot = params;
        Ok(())
    }

    /// Number of fish.
    pub fn len(&self) -> usize {
        self.fish.id.len()
    }

    /// Whether there are no fish.
    pub fn is_empty(&self) -> bool {
        self.fish.id.is_empty()
    }

    /// Which fish each slot holds: each fish keeps the id it was spawned
    /// with (0, 1, 2, … in spawn order), and is stored in that slot under
    /// [`SlotOrder::Stable`], in the order of the neighbour grid's cells
    /// (which changes as they move) under [`SlotOrder::Spatial`].
    pub fn ids(&self) -> &[u32] {
        &self.fish.id
    }

    /// Stores the fish as `order` says from the next tick on (see
    /// [`SlotOrder`]; [`SlotOrder::Stable`] unless told otherwise): the
    /// school moves the same bits either way. Between ticks: the last
    /// tick's steering, samples and nearest distances are forgotten, as
    /// they are when fish are removed.
    pub fn set_slot_order(&mut self, order: SlotOrder) {
        if order == self.slot_order {
            return;
        }
        if order == SlotOrder::Stable {
            // Each id's fish from its slot.
            let by_id = core::mem::take(&mut self.slots);
            self.sorted.gather(&self.fish, &by_id);
            core::mem::swap(&mut self.fish, &mut self.sorted);
            self.slots = (0..by_id.len() as u32).collect();
        }
        self.slot_order = order;
        // The last tick's outcomes follow an order the slots have left.
        self.kicks.clear();
        self.samples.clear();
        self.indexed = false;
        self.in_cell_order = false;
    }

    /// [`Swarm::set_slot_order`], as a builder.
    pub fn with_slot_order(mut self, order: SlotOrder) -> Self {
        self.set_slot_order(order);
        self
    }

    /// How the fish are stored.
    pub fn slot_order(&self) -> SlotOrder {
        self.slot_order
    }

    /// Each fish's slot, by id: the inverse of [`Swarm::ids`].
    pub fn slots(&self) -> &[u32] {
        &self.slots
    }

    /// Positions, by slot (see [`Swarm::ids`]).
    pub fn positions(&self) -> &[V] {
        &self.fish.position
    }

    /// Velocities, by slot.
    pub fn velocities(&self) -> &[V] {
        &self.fish.velocity
    }

    /// Each fish's wander phase (radians, in `[0, 2π)`), by slot: how far
    /// its wander direction has turned.
    pub fn wander_phases(&self) -> &[f32] {
        &self.fish.phase
    }

    /// How afraid each fish is (0 calm – 1 panic), by slot.
    pub fn fears(&self) -> &[f32] {
        &self.fish.fright
    }

    /// Each slot's school.
    pub fn schools(&self) -> &[u16] {
        &self.fish.school
    }

    /// Each school's parameters.
    pub fn params(&self) -> &[FlockParams] {
        &self.params
    }

    /// The tank.
    pub fn tank(&self) -> &TankOf<V> {
        &self.tank
    }

    /// What shares the tank (predators move as the swarm steps).
    pub fn scene(&self) -> &Scene<V> {
        &self.scene
    }

    /// Ticks stepped so far.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The neighbour grid as the last tick's index built it (the fish in
    /// its cells' order, as they stood at that tick's start).
    pub fn grid(&self) -> &CellGrid<V> {
        &self.grid
    }

    /// The seed of the start and of every tick's noise.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Heap bytes held: the fish, the grid and the buffers a tick reuses
    /// (not the command log).
    pub fn heap_bytes(&self) -> usize {
        fn bytes<T>(column: &Vec<T>) -> usize {
            column.capacity() * core::mem::size_of::<T>()
        }
        fn columns<V: Vector>(c: &Columns<V>) -> usize {
            bytes(&c.id)
                + bytes(&c.position)
                + bytes(&c.velocity)
                + bytes(&c.phase)
                + bytes(&c.circle)
                + bytes(&c.fright)
                + bytes(&c.school)
                + bytes(&c.leader)
        }
        columns(&self.fish)
            + columns(&self.sorted)
            + bytes(&self.slots)
            + bytes(&self.kicks)
            + bytes(&self.extra)
            + bytes(&self.group)
            + bytes(&self.leaders_by_id)
            + bytes(&self.samples)
            + self.grid.heap_bytes()
    }

    /// The steering (acceleration, world units per second², after the one
    /// clamp) each fish took in the last tick, by slot (empty before the
    /// first tick; only the fish there were then).
    pub fn steering(&self) -> impl ExactSizeIterator<Item = V> + '_ {
        (0..self.kicks.len()).map(|slot| self.kick_of(slot).map_or(V::ZERO, |k| k.acceleration))
    }

    /// The last force pass's outcome for the fish in `slot`: its kick is in
    /// the pass's order, the grid's, which is the slots' own where the fish
    /// are stored in it.
    fn kick_of(&self, slot: usize) -> Option<&Kick<V>> {
        self.kicks.get(self.rank_of(slot)?)
    }

    /// The place in the last index's cell order of the fish in `slot`, if
    /// it was there.
    fn rank_of(&self, slot: usize) -> Option<usize> {
        if self.in_cell_order {
            return Some(slot);
        }
        self.grid.rank().get(slot).map(|&s| s as usize)
    }

    /// The distance from each fish to its nearest neighbour within the
    /// interaction radius (Couzin's reach under the zones) as the last
    /// tick's index saw the school, by slot (`None`: none there; empty
    /// before the first tick and after fish are added or removed). Every
    /// fish within it counts, however a crowding cap thins the force pass.
    pub fn nearest_distances(&self) -> impl ExactSizeIterator<Item = Option<f32>> + '_ {
        let fish = if self.kicks.is_empty() { 0 } else { self.grid.len() };
        let radius = self.metric_radius();
        (0..fish).map(move |slot| observe::nearest_in(&self.grid, self.rank_of(slot)?, radius))
    }

    /// How far the metrics look for a fish's nearest neighbour: the first
    /// school's interaction radius, as on a plane, or Couzin's reach.
    fn metric_radius(&self) -> f32 {
        match &self.zones {
            Some(zones) => zones.reach(),
            None => self.params.first().map_or(0.0, FlockParams::interaction_radius),
        }
    }

    /// The school's order and shape as the last tick left it: the plane's
    /// [`Metrics`] in any dimension.
    pub fn metrics(&self) -> SwarmMetrics<V> {
        let (p, v) = (self.positions(), self.velocities());
        let nearest = if self.kicks.is_empty() {
            None
        } else {
            observe::mean_nearest_in(&self.grid, self.metric_radius(), self.pool.as_deref())
        };
        let margin = self.params.first().map_or(0.0, |q| q.separation_radius).max(self.tank.margin());
        SwarmMetrics {
            tick: self.tick,
            fish: self.len(),
            polarization: observe::polarization(v),
            milling: observe::milling(p, v),
            nearest_neighbour: nearest,
            bounds: observe::bounding_box_size(p),
            boundary_contacts: observe::boundary_contacts(p, &self.tank, margin),
            mean_neighbours: if self.kicks.is_empty() {
                0.0
            } else {
                self.kicks.iter().map(|k| k.neighbours).sum::<f32>() / self.kicks.len() as f32
            },
            mean_speed: observe::mean_speed(v),
            formation: observe::formation(p, v),
            rule_forces: observe::mean_rule_forces(&self.samples),
        }
    }

    /// The slot of the fish nearest to `p` (through the seam on a torus),
    /// if any; of fish as near, the one with the lowest id: the fish a
    /// chasing predator at `p` goes for.
    pub fn nearest_fish(&self, p: V) -> Option<usize> {
        let wrap = self.tank.boundary == BoundaryMode::Wrap;
        nearest(&self.fish.position, &self.fish.id, p, self.tank.size(), wrap)
    }

    /// The slots of the fish within `radius` of the fish in `slot` as the
    /// last tick's grid saw them (through the seam on a torus), sorted
    /// ascending: the neighbours to draw for it, found through the grid.
    /// Empty for no such slot and where the fish have changed since
    /// (added, removed or handed over).
    pub fn grid_neighbours(&self, slot: usize, radius: f32) -> Vec<u32> {
        let g = &self.grid;
        let Some(me) = g.rank().get(slot).map(|&r| r as usize).filter(|_| g.len() == self.len()) else {
            return Vec::new();
        };
        let p = g.sorted_position(me);
        let mut out = Vec::new();
        for run in g.candidate_runs(p).iter() {
            for j in run {
                let d = crate::world::grid::offset(p, g.sorted_position(j), g.tank_size(), g.wraps());
                if j != me && d.length_squared() < radius * radius {
                    out.push(g.order()[j]);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// The mean position of the leaders, if there are any, summed in the
    /// order of their ids (the centre the route's waypoint waits for).
    pub fn leaders_centre(&self) -> Option<V> {
        leaders_centre(&self.fish.prey(self.slot_order), &mut Vec::new())
    }

    /// The steering of the fish in `slot` in the last tick (see
    /// [`Swarm::steering`]); `None` for no such slot.
    pub fn steering_at(&self, slot: usize) -> Option<V> {
        self.kick_of(slot).map(|k| k.acceleration)
    }

    /// How many neighbours the fish in `slot` saw in the last tick (as
    /// [`Swarm::neighbour_counts`] counts them); `None` for no such slot or
    /// before its first tick.
    pub fn neighbours_at(&self, slot: usize) -> Option<u32> {
        self.kick_of(slot).map(|k| k.neighbours as u32)
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

    /// Chooses how the force pass finds each fish's neighbours: the grid's
    /// blocks (the default), or every fish, the exact reference (no
    /// crowding cap; the same bits as the grid's in a school the cap does
    /// not thin).
    pub fn set_neighbour_search(&mut self, search: NeighbourSearch) {
        self.search = search;
    }

    /// How the force pass finds each fish's neighbours.
    pub fn neighbour_search(&self) -> NeighbourSearch {
        self.search
    }

    /// Keeps (or stops keeping) each fish's [`ForceSample`] from the force
    /// pass ([`Swarm::sample`]). Off by default. The school moves the same
    /// bits either way: while it is on, the force pass finishes each fish's
    /// kick on its own, from the neighbours its quartet's scan found, and
    /// keeps the rules it summed (no rules in vector lanes: about twice the
    /// tick at 100k fish).
    pub fn set_record_rules(&mut self, record: bool) {
        self.record_rules = record;
        if !record {
            self.samples = Vec::new();
        }
    }

    /// Whether the rule forces are kept.
    pub fn records_rules(&self) -> bool {
        self.record_rules
    }

    /// What the last force pass learnt about the fish in `slot`: each
    /// rule's force, weighted (what the rules summed before the clamp),
    /// and its neighbours; `None`
    /// unless [`Swarm::set_record_rules`] is on, before the first tick
    /// with it on, or under Couzin's zones (which have no rules).
    pub fn sample(&self, slot: usize) -> Option<ForceSample<V>> {
        self.samples.get(self.rank_of(slot)?).copied()
    }

    /// [`Swarm::sample`] of every fish, in the grid's order of the last
    /// tick (for statistics that do not care which fish is which); empty
    /// unless [`Swarm::set_record_rules`] is on.
    pub fn samples(&self) -> &[ForceSample<V>] {
        &self.samples
    }

    /// How many neighbours each fish saw in the last tick, in cell order
    /// (empty before the first tick).
    pub fn neighbour_counts(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.kicks.iter().map(|k| k.neighbours as u32)
    }

    /// Queues `command` for the start of `tick` (see [`FlockCommand`]).
    ///
    /// # Errors
    ///
    /// If the command holds an invalid number or an obstacle that would
    /// fill the tank, or `tick` has already been simulated; nothing is
    /// queued.
    pub fn schedule(&mut self, tick: u64, command: FlockCommand<V>) -> Result<(), CommandError> {
        command.validate_in(&self.tank)?;
        self.commands.schedule(self.next_command_tick(), tick, command)
    }

    /// Queues `command` for the start of the next tick.
    ///
    /// # Errors
    ///
    /// As [`Swarm::schedule`].
    pub fn submit(&mut self, command: FlockCommand<V>) -> Result<(), CommandError> {
        self.schedule(self.next_command_tick(), command)
    }

    /// The first tick whose commands have not been applied: this one
    /// between ticks, the next once this tick's commands are in.
    fn next_command_tick(&self) -> u64 {
        if self.stage.is_some() { self.tick + 1 } else { self.tick }
    }

    /// The last stage of the tick under way that has run, `None` between
    /// ticks.
    pub fn stage(&self) -> Option<TickStage> {
        self.stage
    }

    /// Commands waiting for their tick.
    pub fn pending(&self) -> &CommandQueue<FlockCommand<V>> {
        &self.commands
    }

    /// Commands applied so far, in the order they were applied.
    pub fn applied(&self) -> &[Stamped<FlockCommand<V>>] {
        &self.applied
    }

    /// The applied commands that were left out, wholly or in part, because
    /// applying them would break a promise of the tank — a rock that would
    /// close the last room, fish past [`MAX_FISH`] — each with why, in the
    /// order they were applied (a replay leaves out the same).
    pub fn left_out(&self) -> &[(Stamped<FlockCommand<V>>, ParamError)] {
        &self.left_out
    }

    /// Steps `ticks` ticks.
    pub fn run(&mut self, ticks: u64) {
        for _ in 0..ticks {
            self.step();
        }
    }

    /// One tick: every [`TickStage`] in order (those of this tick already
    /// run by [`Swarm::run_to`] are not run again).
    pub fn step(&mut self) {
        // The whole tick on one thread of the pool: each pass's own
        // parallel loop then starts at once (no hand-over to the pool and
        // back per pass).
        let pool = self.pool.clone();
        crate::step::run(pool.as_deref(), || self.run_to(TickStage::Predators));
    }

    /// Runs this tick's stages up to and including `stage`, skipping those
    /// already run; once [`TickStage::Predators`] has run the tick is done
    /// and the next call starts the next one. Between two stages a game may
    /// read the fish, add forces (before [`TickStage::Clamp`]) or move fish
    /// with [`Swarm::set`] (after [`TickStage::Integrate`]: the boundary
    /// then holds them in like any fish); [`Swarm::step`] after stages gives
    /// the same bits as a whole tick.
    pub fn run_to(&mut self, stage: TickStage) {
        for next in TickStage::ALL {
            if next > stage {
                break;
            }
            if self.stage.is_some_and(|done| next <= done) {
                continue;
            }
            match next {
                TickStage::Commands => self.apply_commands(),
                TickStage::SpatialIndex => self.index(),
                TickStage::Forces => {
                    self.forces();
                }
                TickStage::Clamp => self.add_extra_steering(),
                // Asked to run the boundary too, the integrator brings each
                // fish inside as it moves it: one pass over the fish, not
                // two, with the same bits (no game can act in between).
                TickStage::Integrate if stage >= TickStage::Boundary => {
                    self.integrate::<true>();
                    self.stage = Some(TickStage::Boundary);
                    continue;
                }
                TickStage::Integrate => self.integrate::<false>(),
                TickStage::Boundary => self.boundary(),
                TickStage::Predators => {
                    self.move_predators();
                    self.tick += 1;
                }
            }
            self.stage = Some(next);
        }
        if self.stage == Some(TickStage::Predators) {
            self.stage = None;
        }
    }

    /// The commands due this tick, applied in order and kept.
    fn apply_commands(&mut self) {
        if !self.commands.is_empty() {
            for stamped in self.commands.take_due(self.tick) {
                if let Err(why) = stamped.command.apply_to_swarm(self) {
                    self.left_out.push((stamped.clone(), why));
                }
                self.applied.push(stamped);
            }
        }
    }

    /// The grid rebuilt for this tick's positions, and what the force pass
    /// reads of the fish besides the grid's snapshot copied into its order
    /// (`sorted`; under [`SlotOrder::Spatial`] the integrator then stores
    /// the fish in it, [`Swarm::store_in_cell_order`]).
    ///
    /// The grid sorts the fish by slot and gathers the snapshot and the
    /// wander phases in one pass. Where the slots are ids, that is the
    /// order of their ids; where they follow last tick's cells, the fish of
    /// each cell are ordered by id (their ids gathered on the way), so that
    /// their neighbours are summed in the same order however they are
    /// stored. The rest is gathered where it can differ from fish to fish
    /// (the circles in a volume, fear once any fish has felt it, schools
    /// where there are several, leader flags where any fish leads), else
    /// written as the one value all share.
    fn index(&mut self) {
        let rules_radius =
            self.params.iter().map(|p| p.perception_radius.max(p.separation_radius)).fold(0.0, f32::max);
        // Under Couzin's zones a fish looks as far as its attraction zone
        // reaches, whatever the rules' radius: the cells must hold it.
        let radius = self.zones.as_ref().map_or(rules_radius, |z| rules_radius.max(z.reach()));
        let wrap = self.tank.boundary == BoundaryMode::Wrap;
        self.leading = any_set(&self.fish.leader);
        self.indexed = true;
        self.in_cell_order = false;
        let (grid, fish, tank, sorted) = (&mut self.grid, &self.fish, &self.tank, &mut self.sorted);
        let spatial = self.slot_order == SlotOrder::Spatial;
        let extras = Extras {
            gather: Some((&fish.phase[..], &mut sorted.phase)),
            ties: spatial.then_some((&fish.id[..], &mut sorted.id)),
        };
        crate::step::run(self.pool.as_deref(), || {
            grid.rebuild_gathering(&fish.position, &fish.velocity, tank, radius, wrap, extras);
        });
        let n = fish.id.len();
        let order = self.grid.order();
        let circles = core::mem::size_of::<V::Circle>() > 0;
        let (fear, schools, leaders) = (!all_zero(&fish.fright), self.params.len() > 1, self.leading);
        // Schools only grow: with one, every school index ever written is 0.
        sorted.school.resize(n, 0);
        sorted.fright.resize(n, 0.0);
        sorted.leader.resize(n, false);
        if !self.sorted_quiet {
            if !fear {
                sorted.fright.fill(0.0);
            }
            if !leaders {
                sorted.leader.fill(false);
            }
        }
        self.sorted_quiet = !(fear || leaders);
        sorted.circle.resize(n, V::Circle::default());
        if !(circles || fear || schools || leaders) {
            return;
        }
        let columns = (
            order.par_chunks(CHUNK),
            sorted.circle.par_chunks_mut(CHUNK),
            sorted.fright.par_chunks_mut(CHUNK),
            sorted.school.par_chunks_mut(CHUNK),
            sorted.leader.par_chunks_mut(CHUNK),
        );
        crate::step::run(self.pool.as_deref(), || {
            columns.into_par_iter().for_each(|(order, circle, fright, school, leader)| {
                if circles {
                    gather(circle, &fish.circle, order);
                }
                if fear {
                    gather(fright, &fish.fright, order);
                }
                if schools {
                    gather(school, &fish.school, order);
                }
                if leaders {
                    gather(leader, &fish.leader, order);
                }
            });
        });
    }

    /// Every fish's steering from the state at the start of the tick; the
    /// number of quartets scanned together, and of those whose rules went
    /// in lanes.
    fn forces(&mut self) -> [usize; 2] {
        // Fish removed since the index: the rest indexed again.
        if !self.indexed {
            self.index();
        }
        // The pass writes the kick of every fish the grid holds (those
        // added since coast): the room is kept, not zeroed.
        self.kicks.resize(self.grid.len(), Kick::default());
        let dt = self.dt;
        self.schools_now.clear();
        let (others, leaders) = (self.params.len() > 1, self.leading);
        self.schools_now.extend(self.params.iter().map(|p| SchoolNow {
            scan: SchoolCache::new(p, others, leaders),
            motion: SchoolMotion::new(p, dt),
        }));
        let (ids, fish) = pass_inputs(self.slot_order, &self.grid, &self.sorted);
        let pass = ForcePass {
            leaders: self.leading,
            route_goal: self.scene.route.as_ref().and_then(Route::goal),
            schools_now: &self.schools_now,
            zones: self.zones.as_ref(),
            one_school: self.params.len() == 1,
            grid: &self.grid,
            group: &self.group,
            ids,
            fish,
            params: &self.params,
            tank: &self.tank,
            scene: &self.scene,
            key: TickKey::new(self.seed, self.tick),
            quartets: self.quartets,
            search: self.search,
            avx2: self.kernel_path.avx2(),
            quiet: self.scene.leaves_fish_alone(!self.group.is_empty(), self.leading),
        };
        let kicks = &mut self.kicks;
        if self.record_rules && self.zones.is_none() {
            // Each rule kept beside the kick, from the very scan the kick
            // came from (where the cap thins a crowd, a quartet's scan
            // thins otherwise than a fish's own): the same kicks, fish by
            // fish from the quartets' neighbourhoods.
            self.samples.resize(kicks.len(), ForceSample::default());
            let samples = &mut self.samples;
            return crate::step::run(self.pool.as_deref(), || {
                kicks
                    .par_chunks_mut(CHUNK)
                    .zip(samples.par_chunks_mut(CHUNK))
                    .enumerate()
                    .with_max_len(1)
                    .map(|(c, (kicks, samples))| pass.run_recording(c * CHUNK, kicks, samples))
                    .reduce(|| [0, 0], |a, b| [a[0] + b[0], a[1] + b[1]])
            });
        }
        self.samples.clear();
        crate::step::run(self.pool.as_deref(), || {
            // Every chunk a task of its own, as on a plane: a run of chunks
            // a thread starts before another steals from it cannot be
            // split, and the other then waits for its end.
            kicks
                .par_chunks_mut(CHUNK)
                .enumerate()
                .with_max_len(1)
                .map(|(c, chunk)| pass.run(c * CHUNK, chunk))
                .reduce(|| [0, 0], |a, b| [a[0] + b[0], a[1] + b[1]])
        })
    }

    /// The game's forces ([`Swarm::add_steering`]) added to the rules'
    /// steering and clamped, fish by fish; then cleared.
    fn add_extra_steering(&mut self) {
        if self.extra.is_empty() {
            return;
        }
        if self.zones.is_none() {
            let (ids, fish) = pass_inputs(self.slot_order, &self.grid, &self.sorted);
            let (extra, schools, params) = (&self.extra, &fish.school, &self.params);
            let kicks = &mut self.kicks;
            crate::step::run(self.pool.as_deref(), || {
                kicks.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
                    for (k, kick) in chunk.iter_mut().enumerate() {
                        let slot = c * CHUNK + k;
                        let force = extra.get(ids[slot] as usize).copied().unwrap_or(V::ZERO);
                        if force != V::ZERO {
                            let max_force = params[usize::from(schools[slot])].max_force;
                            kick.acceleration = rules::clamp_length(kick.acceleration + force, max_force);
                        }
                    }
                });
            });
        }
        self.extra.clear();
    }

    /// Velocities, positions, fear and wander, each fish from its own state
    /// and its kick (any split gives the same bits): four fish of one
    /// school at a time in vector lanes where they can go together
    /// ([`swim_four`] and the wander's drift in lanes), else one at a time
    /// ([`swim`]); under Couzin's zones, fish by fish. With `WALLS`, each
    /// fish is then brought inside as [`Swarm::boundary`] would.
    fn integrate<const WALLS: bool>(&mut self) {
        let (dt, key) = (self.dt, TickKey::new(self.seed, self.tick));
        if self.slot_order == SlotOrder::Spatial && self.indexed && self.grid.len() == self.len() {
            self.store_in_cell_order();
        }
        let params = &self.params;
        let (schools_now, kicks, zones) = (&self.schools_now, &self.kicks, self.zones);
        // Each fish's kick: in its slot where the fish are stored in cell
        // order, else at its rank in it (read through the ranks, which
        // come in slot order).
        let rank = (!self.in_cell_order).then(|| self.grid.rank());
        let kick_of = |slot: usize| kick_at(slot, rank, kicks);
        let fish = &mut self.fish;
        let (id, school) = (&fish.id, &fish.school);
        let columns = (
            fish.position.par_chunks_mut(CHUNK),
            fish.velocity.par_chunks_mut(CHUNK),
            fish.phase.par_chunks_mut(CHUNK),
            fish.fright.par_chunks_mut(CHUNK),
        );
        let circle = &fish.circle;
        let (tank, scene) = (&self.tank, &self.scene);
        // The boundary's work on one fish, where asked for.
        let hold = |slot: usize, p: &mut V, v: &mut V| {
            if WALLS {
                hold_in([p, v], (tank, scene), || bounce_scatter(key, id[slot]));
            }
        };
        // Four fish that stay inside a tank without rocks need nothing
        // more: the lanes step says which stay.
        let inside = (WALLS && scene.obstacles.is_empty()).then_some(tank);
        crate::step::run(self.pool.as_deref(), || {
            columns.into_par_iter().enumerate().for_each(|(c, (position, velocity, phase, fright))| {
                let base = c * CHUNK;
                if let Some(z) = &zones {
                    for k in 0..position.len() {
                        let name = u64::from(id[base + k]);
                        let kick = kick_of(base + k).copied().unwrap_or_default();
                        // Constant speed, bounded turn towards the wish
                        // (or the heading, when the fish saw nobody),
                        // blurred by a little noise; no wander.
                        let own =
                            rules::heading(velocity[k], || wander_direction(phase[k], &circle[base + k]));
                        let wish = if kick.acceleration == V::ZERO { own } else { kick.acceleration };
                        let noise: V = key.in_unit_ball(name, Stream::Wander);
                        let wish = (wish + noise * z.noise).try_normalize().unwrap_or(own);
                        let heading = turn_towards(own, wish, z.turn_rate * dt);
                        let v = heading * z.speed;
                        (position[k], velocity[k]) = (position[k] + v * dt, v);
                        hold(base + k, &mut position[k], &mut velocity[k]);
                    }
                    return;
                }
                let mut k = 0;
                while k < position.len() {
                    let slot = base + k;
                    let one = usize::from(school[slot]);
                    // Four of one school whose constants this tick has
                    // (a school added since the forces has none).
                    let four = match (
                        four_kicks(slot, rank, kicks),
                        schools_now.get(one),
                        school.get(slot + 1..slot + LANES),
                        position[k..].first_chunk_mut::<LANES>(),
                        velocity[k..].first_chunk_mut::<LANES>(),
                        phase[k..].first_chunk_mut::<LANES>(),
                        fright[k..].first_chunk_mut::<LANES>(),
                    ) {
                        (Some(kicks), Some(now), Some(rest), Some(p), Some(v), Some(phase), Some(fear))
                            if rest.iter().all(|&s| usize::from(s) == one) =>
                        {
                            let a = core::array::from_fn(|i| {
                                if i < V::DIM {
                                    Vec4::from_array(kicks.map(|k| k.acceleration.axis(i)))
                                } else {
                                    Vec4::ZERO
                                }
                            });
                            let fright = kicks.map(|k| k.fear);
                            swim_four([p, v], [phase, fear], (a, fright), &now.motion, dt, inside)
                        }
                        _ => false,
                    };
                    if four {
                        if WALLS && inside.is_none() {
                            for j in k..k + LANES {
                                hold(base + j, &mut position[j], &mut velocity[j]);
                            }
                        }
                        k += LANES;
                        continue;
                    }
                    // A fish added after this tick's forces (between two
                    // stages) has none: it coasts until the next tick.
                    let kick = kick_of(slot).copied().unwrap_or_default();
                    // A school added after this tick's forces has no
                    // constants yet: its motion from its parameters.
                    let motion = match schools_now.get(one) {
                        Some(now) => now.motion,
                        None => SchoolMotion::new(&params[one], dt),
                    };
                    let fish = [&mut position[k], &mut velocity[k]];
                    swim(fish, [&mut phase[k], &mut fright[k]], (kick.acceleration, kick.fear), &motion, dt);
                    hold(slot, &mut position[k], &mut velocity[k]);
                    k += 1;
                }
            });
        });
    }

    /// Stores the fish in this tick's cell order, where the index found
    /// them (under [`SlotOrder::Spatial`], before the integrator moves
    /// them on): their positions and velocities copied from the grid's
    /// snapshot, the rest swapped with the index's copies in that order.
    /// Every read runs along memory, and the next tick's index finds the
    /// fish nearly in its order.
    fn store_in_cell_order(&mut self) {
        let (grid, fish) = (&self.grid, &mut self.fish);
        let columns = (fish.position.par_chunks_mut(CHUNK), fish.velocity.par_chunks_mut(CHUNK));
        crate::step::run(self.pool.as_deref(), || {
            columns.into_par_iter().enumerate().for_each(|(c, (position, velocity))| {
                for (k, (p, v)) in position.iter_mut().zip(velocity).enumerate() {
                    let record = &grid.snapshot()[c * CHUNK + k];
                    (*p, *v) = (V::record_position(record), V::record_velocity(record));
                }
            });
        });
        let sorted = &mut self.sorted;
        core::mem::swap(&mut fish.id, &mut sorted.id);
        core::mem::swap(&mut fish.phase, &mut sorted.phase);
        core::mem::swap(&mut fish.circle, &mut sorted.circle);
        core::mem::swap(&mut fish.fright, &mut sorted.fright);
        core::mem::swap(&mut fish.school, &mut sorted.school);
        core::mem::swap(&mut fish.leader, &mut sorted.leader);
        self.sorted_quiet = false;
        // Each fish's new slot is its place in cell order: by id, in pieces
        // on the pool.
        let rank = self.grid.rank();
        crate::step::run(self.pool.as_deref(), || {
            self.slots.par_iter_mut().with_min_len(CHUNK).for_each(|slot| *slot = rank[*slot as usize]);
        });
        self.in_cell_order = true;
    }

    /// Every fish back inside the tank and out of every rock.
    fn boundary(&mut self) {
        let key = TickKey::new(self.seed, self.tick);
        let (tank, scene) = (&self.tank, &self.scene);
        let fish = &mut self.fish;
        let id = &fish.id;
        let columns = (fish.position.par_chunks_mut(CHUNK), fish.velocity.par_chunks_mut(CHUNK));
        crate::step::run(self.pool.as_deref(), || {
            columns.into_par_iter().enumerate().for_each(|(c, (position, velocity))| {
                for (k, (p, v)) in position.iter_mut().zip(velocity).enumerate() {
                    hold_in([p, v], (tank, scene), || bounce_scatter(key, id[c * CHUNK + k]));
                }
            });
        });
    }

    /// After the fish ([`move_on`]): the route moves on, the predators hunt
    /// and move.
    fn move_predators(&mut self) {
        move_on(
            &mut self.scene,
            &self.fish.prey(self.slot_order),
            &mut self.leaders_by_id,
            &self.tank,
            self.dt,
        );
    }
}

/// A fish at `p` moving with `v` brought inside the tank and out of every
/// rock ([`contain`]). Inside the tank with no rock to leave, a fish stays
/// as it is (the walls would give back the same bits): no draw for the
/// scatter of a bounce that does not happen.
#[inline(always)]
fn hold_in<V: Vector>(
    [p, v]: [&mut V; 2],
    (tank, scene): (&TankOf<V>, &Scene<V>),
    scatter: impl FnOnce() -> f32,
) {
    if scene.obstacles.is_empty() && tank.contains(*p) {
        return;
    }
    (*p, *v) = contain(*p, *v, tank, scene, scatter);
}

/// The fish in this tick's cell order, as the force pass reads them: their
/// ids, and the columns with their wander, fear, schools and leader flags
/// ([`Swarm::index`]'s copies; positions and velocities are the grid's
/// snapshot). Of a swarm's parts, so that its kicks may be written
/// meanwhile.
fn pass_inputs<'a, V: Vector>(
    order: SlotOrder,
    grid: &'a CellGrid<V>,
    sorted: &'a Columns<V>,
) -> (&'a [u32], &'a Columns<V>) {
    match order {
        // Slots are ids: the grid's order is the ids in cell order.
        SlotOrder::Stable => (grid.order(), sorted),
        SlotOrder::Spatial => (&sorted.id, sorted),
    }
}

/// The kick of the fish in `slot`: at its `rank` in the force pass's
/// order, or in its own slot where the fish are stored in that order
/// (`None`). The ranks come in slot order, so the kick `AHEAD` slots on is
/// asked for early (see `crate::prefetch`).
#[inline(always)]
fn kick_at<'k, V: Vector>(slot: usize, rank: Option<&[u32]>, kicks: &'k [Kick<V>]) -> Option<&'k Kick<V>> {
    match rank {
        Some(rank) => {
            if let Some(&ahead) = rank.get(slot + AHEAD) {
                prefetch(kicks, ahead as usize);
            }
            rank.get(slot).and_then(|&s| kicks.get(s as usize))
        }
        None => kicks.get(slot),
    }
}

/// The kicks of the four fish from `slot` ([`kick_at`]), if all four have
/// one.
#[inline(always)]
fn four_kicks<V: Vector>(slot: usize, rank: Option<&[u32]>, kicks: &[Kick<V>]) -> Option<[Kick<V>; LANES]> {
    let mut four = [Kick::default(); LANES];
    for (l, kick) in four.iter_mut().enumerate() {
        *kick = *kick_at(slot + l, rank, kicks)?;
    }
    Some(four)
}

/// Checks a ball to start fish in: its centre inside `tank`, its radius
/// finite and not negative.
pub(crate) fn check_ball<V: Vector>(centre: V, radius: f32, tank: &TankOf<V>) -> Result<(), ParamError> {
    point("ball.centre", centre)?;
    check("ball.radius", radius, Range::NonNegative(MAX_LENGTH))?;
    if !tank.contains(centre) {
        return Err(ParamError {
            field: "ball.centre",
            value: centre.length(),
            expected: "a point inside the tank".into(),
        });
    }
    Ok(())
}

/// Everything the force pass reads: the state at the start of the tick,
/// in cell order where the neighbours are read.
struct ForcePass<'a, V: Vector> {
    /// The grid, with each fish's position and velocity in cell order (the
    /// only copy of them the pass reads).
    grid: &'a CellGrid<V>,
    /// Each fish's group by id (empty: nobody is in one).
    group: &'a [u16],
    /// Each fish's id, in this tick's cell order.
    ids: &'a [u32],
    /// The rest of the fish, in this tick's cell order: wander phase and
    /// circle, fear, school and leader flag (not their positions and
    /// velocities: the grid's snapshot holds those).
    fish: &'a Columns<V>,
    params: &'a [FlockParams],
    schools_now: &'a [SchoolNow],
    /// Couzin's zones, when they replace the rules.
    zones: Option<&'a Zones>,
    /// Whether every fish is of one school (no school test per pair).
    one_school: bool,
    /// Whether any fish leads (neighbours then weigh leaders).
    leaders: bool,
    /// Where the route sends the leaders this tick.
    route_goal: Option<Goal<V>>,
    tank: &'a TankOf<V>,
    scene: &'a Scene<V>,
    key: TickKey,
    /// Whether to scan by quartets where they qualify.
    quartets: bool,
    /// The grid's blocks, or every fish.
    search: NeighbourSearch,
    /// Run the AVX2 build of the pass: only where the CPU has AVX2 (the
    /// proof) and the swarm allows it ([`KernelPath`]).
    avx2: Option<Avx2>,
    /// Whether nothing in the scene steers a fish
    /// ([`Scene::leaves_fish_alone`]): a quartet of one school then takes
    /// its rules in lanes.
    quiet: bool,
}

/// The wander circle of the fish with id `id` placed by hand
/// ([`Swarm::add_fish`], [`Swarm::push_fish`]): drawn from the seed and
/// the id (nothing to draw on a plane).
fn circle_of<V: Vector>(seed: u64, id: u32) -> V::Circle {
    let mut rng = <rand_pcg::Pcg32 as rand::SeedableRng>::seed_from_u64(crate::rules::noise::mix64(
        seed ^ u64::from(id),
    ));
    crate::world::spawn::random_circle::<V>(&mut rng)
}

impl<V: Vector> ForcePass<'_, V> {
    /// The kicks of the fish from slot `base` (a multiple of four), one
    /// work item of the pass: by quartets where they qualify
    /// ([`ForcePass::quartet`]), else fish by fish; in the AVX2 build where
    /// it may ([`Avx2::run`]), where the quartet scan takes its candidates
    /// two at a time. Returns the number of quartets scanned together, and
    /// of those whose rules went in lanes.
    fn run(&self, base: usize, kicks: &mut [Kick<V>]) -> [usize; 2] {
        Avx2::run(self.avx2, self, (base, kicks))
    }

    /// [`ForcePass::run`] keeping each fish's rule forces in `samples`:
    /// the quartets scanned as that pass scans them, then their kicks fish
    /// by fish from the scanned neighbourhoods (the same bits as in lanes),
    /// on the portable build (the same bits as AVX2's). Returns the number
    /// of quartets scanned together (none go in lanes).
    fn run_recording(
        &self,
        base: usize,
        kicks: &mut [Kick<V>],
        samples: &mut [ForceSample<V>],
    ) -> [usize; 2] {
        if self.grid.wraps() {
            self.record_quartets::<true>(base, kicks, samples)
        } else {
            self.record_quartets::<false>(base, kicks, samples)
        }
    }

    /// [`ForcePass::run_recording`] on a torus (`WRAP`) or not.
    fn record_quartets<const WRAP: bool>(
        &self,
        base: usize,
        kicks: &mut [Kick<V>],
        samples: &mut [ForceSample<V>],
    ) -> [usize; 2] {
        let mut together = 0;
        for (q, (kicks, samples)) in kicks.chunks_mut(LANES).zip(samples.chunks_mut(LANES)).enumerate() {
            let s = base + q * LANES;
            let hoods = if self.quartets { self.quartet_hoods::<WRAP, false>(s) } else { None };
            together += usize::from(hoods.is_some());
            for (l, (kick, sample)) in kicks.iter_mut().zip(samples).enumerate() {
                let rules = Some(&mut sample.rules);
                *kick = match &hoods {
                    Some(hoods) => self.finish(s + l, &hoods.lane::<V>(l), rules),
                    None => self.fish(s + l, rules),
                };
                sample.neighbours = kick.neighbours as u32;
            }
        }
        [together, 0]
    }
}

impl<'k, V: Vector> TwoBuilds<(usize, &'k mut [Kick<V>])> for ForcePass<'_, V> {
    type Output = [usize; 2];

    /// [`ForcePass::run`] in one build, on a torus or not as the grid is.
    #[inline(always)]
    fn run_in<const AVX2: bool>(&self, (base, kicks): (usize, &'k mut [Kick<V>])) -> [usize; 2] {
        if self.grid.wraps() {
            self.run_quartets::<true, AVX2>(base, kicks)
        } else {
            self.run_quartets::<false, AVX2>(base, kicks)
        }
    }
}

impl<V: Vector> ForcePass<'_, V> {
    /// [`TwoBuilds::run_in`] on a torus (`WRAP`) or not.
    #[inline(always)]
    fn run_quartets<const WRAP: bool, const AVX2: bool>(
        &self,
        base: usize,
        kicks: &mut [Kick<V>],
    ) -> [usize; 2] {
        let mut together = [0, 0];
        let mut q = 0;
        while q * LANES < kicks.len() {
            let s = base + q * LANES;
            if AVX2
                && self.quiet
                && self.quartets
                && let Some((first, rest)) = kicks[q * LANES..].split_first_chunk_mut::<LANES>()
                && let Some(second) = rest.first_chunk_mut::<LANES>()
            {
                // Two quartets, scanned one after the other, then their
                // rules eight lanes wide where they can (a loop, not two
                // calls: two calls would inline the scan twice).
                let mut scanned = [None, None];
                for (i, scanned) in scanned.iter_mut().enumerate() {
                    *scanned = self.quartet_hoods::<WRAP, AVX2>(s + i * LANES);
                }
                let in_lanes = self.pair_kicks::<AVX2>(s, &scanned, [first, second]);
                for (scanned, in_lanes) in scanned.iter().zip(in_lanes) {
                    if scanned.is_some() {
                        together = [together[0] + 1, together[1] + usize::from(in_lanes)];
                    }
                }
                q += 2;
                continue;
            }
            let range = q * LANES..(q * LANES + LANES).min(kicks.len());
            let quartet = &mut kicks[range];
            // An `if`, not `bool::then`: a closure would be a function of
            // its own, without AVX2.
            let scanned = if self.quartets { self.quartet::<WRAP, AVX2>(s, quartet) } else { None };
            match scanned {
                Some(in_lanes) => together = [together[0] + 1, together[1] + usize::from(in_lanes)],
                None => self.each_fish(s, quartet),
            }
            q += 1;
        }
        together
    }

    /// The kicks of the two quartets from slot `base`, as scanned
    /// (`None`: fish by fish): where both are of one school, their rules
    /// eight lanes wide in the AVX2 build (`rules_octet`, the same bits as
    /// four at a time). Whether each quartet's rules went in lanes.
    #[inline(always)]
    fn pair_kicks<const AVX2: bool>(
        &self,
        base: usize,
        scanned: &[Option<QuartetHoods>; 2],
        [first, second]: [&mut [Kick<V>; LANES]; 2],
    ) -> [bool; 2] {
        #[cfg(target_arch = "x86_64")]
        if let (true, [Some(a), Some(b)]) = (AVX2, scanned) {
            // As many axes as the space has (the branch is decided when the
            // pass is compiled).
            let octet = if V::DIM == 2 {
                self.octet_kicks::<2>(base, [a, b], [&mut *first, &mut *second])
            } else {
                self.octet_kicks::<3>(base, [a, b], [&mut *first, &mut *second])
            };
            if let Some(in_lanes) = octet {
                return in_lanes;
            }
        }
        let mut in_lanes = [false; 2];
        for (i, (scanned, kicks)) in scanned.iter().zip([first, second]).enumerate() {
            let at = base + i * LANES;
            match scanned {
                Some(hoods) => in_lanes[i] = self.quartet_kicks(at, hoods, kicks),
                None => self.each_fish(at, kicks),
            }
        }
        in_lanes
    }
}

impl<V: Vector> ForcePass<'_, V> {
    /// [`ForcePass::pair_kicks`] of two scanned quartets of one school, in
    /// the AVX2 build, over `N` axes: their rules eight lanes wide
    /// (`rules_octet`), then each quartet's kicks in lanes, or fish by
    /// fish where a total is not finite. `None`, with nothing written,
    /// where the eight are not of one school or their rules cannot go in
    /// lanes.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn octet_kicks<const N: usize>(
        &self,
        base: usize,
        hoods: [&QuartetHoods; 2],
        kicks: [&mut [Kick<V>; LANES]; 2],
    ) -> Option<[bool; 2]> {
        let school = self.one_school_of(base, 2 * LANES)?;
        let params = &self.params[school];
        let (low, high) =
            (self.lane_inputs::<N>(base, params)?, self.lane_inputs::<N>(base + LANES, params)?);
        let lanes = [hoods[0].in_lanes::<N>(), hoods[1].in_lanes::<N>()];
        // SAFETY: this runs only in the AVX2 build of the pass (the
        // caller's `AVX2`), which runs only where the CPU has AVX2.
        #[expect(unsafe_code, reason = "the AVX2 rules, inlined into the AVX2 build of the pass")]
        let rules = unsafe {
            crate::step::kernel::quartet::avx2::rules_octet(
                [&lanes[0], &lanes[1]],
                [low.0, high.0],
                [low.1, high.1],
                params,
            )
        }?;
        let mut in_lanes = [false; 2];
        for (i, kicks) in kicks.into_iter().enumerate() {
            let at = base + i * LANES;
            in_lanes[i] = self.kicks_of_rules::<N>(at, hoods[i], rules[i], kicks);
            if !in_lanes[i] {
                self.kicks_one_by_one(at, hoods[i], kicks);
            }
        }
        Some(in_lanes)
    }

    /// The acceleration, fear and neighbour count of the fish in `slot`;
    /// each rule's force written to `rules` where asked.
    #[inline]
    fn fish(&self, slot: usize, rules: Option<&mut RuleForces<V>>) -> Kick<V> {
        if let Some(zones) = self.zones {
            return self.wish(slot, zones);
        }
        let (p, school) = (self.grid.sorted_position(slot), usize::from(self.fish.school[slot]));
        let (params, now) = (&self.params[school], &self.schools_now[school]);
        let me = Onlooker { s: slot, p, heading: self.heading_of(slot), id: self.ids[slot], school };
        // Crowding control: with more candidates than the cap allows, look
        // at every `step`-th of each run and scale back up. The runs
        // ascend, also across a wrap seam: the nearest are offered in
        // ascending sorted order.
        let (around, cap) = self.candidates(p, params.neighbour_cap);
        let step = lone_step::<V>(around.candidates(), cap);
        let eye = Eye { params, view: &now.scan.view, reach: &now.scan.reach };
        let others = self.others();
        let hood = alone::neighbourhood::<V, MAX_RUNS>(&others, &me, eye, &around, step);
        self.finish(slot, &hood, rules)
    }

    /// The kicks of the four fish from slot `base` (fewer at the end of
    /// the school: as many as `kicks` holds), scanned together
    /// ([`HoodScan::quartet`], as on a plane), where they can be: none of
    /// the four with a shaped view or an eye for its own school only, and
    /// all four of one school where it is topological. Within the crowding
    /// cap's budget, the same bits as [`ForcePass::fish`] one by one; past
    /// it, a quartet in one pass is thinned, and one of several passes goes
    /// fish by fish. `None` (nothing written) where the quartet does not
    /// qualify, else whether its rules went in lanes
    /// ([`ForcePass::finish_in_lanes`]; a partial quartet's go fish by
    /// fish, with the same bits).
    #[inline(always)]
    fn quartet<const WRAP: bool, const AVX2: bool>(
        &self,
        base: usize,
        kicks: &mut [Kick<V>],
    ) -> Option<bool> {
        let hoods = self.quartet_hoods::<WRAP, AVX2>(base)?;
        match <&mut [Kick<V>; LANES]>::try_from(&mut *kicks) {
            Ok(four) => Some(self.quartet_kicks(base, &hoods, four)),
            Err(_) => {
                self.kicks_one_by_one(base, &hoods, kicks);
                Some(false)
            }
        }
    }

    /// The neighbourhoods of the four fish from slot `base` (fewer at the
    /// end of the school: the lanes past it read the snapshot's padding)
    /// scanned together, as [`ForcePass::quartet`] takes them; `None` where
    /// they do not qualify.
    #[inline(always)]
    fn quartet_hoods<const WRAP: bool, const AVX2: bool>(&self, base: usize) -> Option<QuartetHoods> {
        match self.grid.len().checked_sub(base)? {
            0 => None,
            // The last quartet of the school, once a tick: out of line, so
            // that every whole one's scan is compiled for four lanes.
            m if m < LANES => self.last_quartet_hoods::<WRAP, AVX2>(base, m),
            _ => self.hoods_of::<WRAP, AVX2>(base, LANES),
        }
    }

    /// [`ForcePass::quartet_hoods`] of the school's last `m` fish, fewer
    /// than four.
    #[cold]
    #[inline(never)]
    fn last_quartet_hoods<const WRAP: bool, const AVX2: bool>(
        &self,
        base: usize,
        m: usize,
    ) -> Option<QuartetHoods> {
        self.hoods_of::<WRAP, AVX2>(base, m)
    }

    /// [`ForcePass::quartet_hoods`] of the `m` fish from slot `base`.
    #[inline(always)]
    fn hoods_of<const WRAP: bool, const AVX2: bool>(&self, base: usize, m: usize) -> Option<QuartetHoods> {
        if self.zones.is_some() {
            return None;
        }
        let fish = self.fish;
        // Loops and plain functions, no closures: this inlines into the
        // AVX2 build, where a closure may be left out of line.
        let first = fish.school[base];
        let (params, now) = (&self.params[usize::from(first)], &self.schools_now[usize::from(first)]);
        let topological = params.topological_neighbours;
        let mut reach = [&now.scan.reach; LANES];
        let mut caps = [params.neighbour_cap; LANES];
        // Whatever needs the one-fish scan (`SchoolCache::shaped`: a weight
        // per pair or a test of each candidate's school).
        if now.scan.shaped {
            return None;
        }
        // One school (the usual case): every lane reads as the first.
        if !self.one_school {
            for l in 1..m {
                let school = usize::from(fish.school[base + l]);
                let (params, now) = (&self.params[school], &self.schools_now[school]);
                // A topological school's nearest are kept by quartets of
                // its own fish only.
                let own = fish.school[base + l] == first
                    || (topological == 0 && params.topological_neighbours == 0);
                if now.scan.shaped || !own {
                    return None;
                }
                (reach[l], caps[l]) = (&now.scan.reach, params.neighbour_cap);
            }
        }
        let at = quartet_axes::<V>(self.records(base), record_position_axis::<V>);
        let ids = match self.ids.get(base..base + LANES) {
            Some(&[a, b, c, d]) => [a, b, c, d],
            _ => core::array::from_fn(|l| self.ids.get(base + l).copied().unwrap_or(0)),
        };
        let quartet = QuartetReach::new(base, at, reach, self.tank.size(), (ids, self.key));
        let cap = caps[0].min(caps[1]).min(caps[2]).min(caps[3]);
        if self.search == NeighbourSearch::BruteForce {
            // Every fish, as one run, and no cap: the exact reference.
            let every = CandidateRuns::single(0..self.grid.len());
            let survey = HoodScan::<V, PLANE_RUNS, PLANE_SAMPLE>::new(self.grid);
            return survey.runs::<WRAP, AVX2>(&quartet, &every, (0, 0), topological, true);
        }
        let cells = cells_of::<V, AVX2>(self.grid, &at);
        // A pass of part of the quartet (across rows, or spread far along
        // one) keeps the bits of its fish's own scans: where one has more
        // candidates than a fish alone looks at, the four go one at a time.
        // A plane's passes meet fewer runs and smaller samples: room for
        // those only (the branch is decided when the pass is compiled).
        if V::DIM == 2 {
            let survey = HoodScan::<V, PLANE_RUNS, PLANE_SAMPLE>::new(self.grid);
            survey.quartet::<WRAP, AVX2>(&quartet, &cells, m, (cap, topological))
        } else {
            let survey = HoodScan::<V, MAX_RUNS, VOLUME_SAMPLE>::new(self.grid);
            survey.quartet::<WRAP, AVX2>(&quartet, &cells, m, (cap, topological))
        }
    }

    /// The kicks of the quartet from slot `base` with its scanned `hoods`:
    /// its rules in lanes where it can ([`ForcePass::finish_in_lanes`]),
    /// else fish by fish. Whether they went in lanes.
    #[inline(always)]
    fn quartet_kicks(&self, base: usize, hoods: &QuartetHoods, kicks: &mut [Kick<V>; LANES]) -> bool {
        let in_lanes = self.one_school_of(base, LANES).is_some() && self.finish_in_lanes(base, hoods, kicks);
        if !in_lanes {
            self.kicks_one_by_one(base, hoods, kicks);
        }
        in_lanes
    }

    /// The kicks of the fish from slot `base`, each scanned alone
    /// ([`ForcePass::fish`]).
    #[inline(always)]
    fn each_fish(&self, base: usize, kicks: &mut [Kick<V>]) {
        for (k, kick) in kicks.iter_mut().enumerate() {
            *kick = self.fish(base + k, None);
        }
    }

    /// The kicks of the quartet from slot `base`, fish by fish, from its
    /// scanned neighbourhoods.
    #[inline(always)]
    fn kicks_one_by_one(&self, base: usize, hoods: &QuartetHoods, kicks: &mut [Kick<V>]) {
        for (l, kick) in kicks.iter_mut().enumerate() {
            *kick = self.finish(base + l, &hoods.lane::<V>(l), None);
        }
    }

    /// The school of the `n` fish from slot `base`, if they are all of one,
    /// in a scene that leaves them alone: then their rules may go in lanes.
    #[inline(always)]
    fn one_school_of(&self, base: usize, n: usize) -> Option<usize> {
        let schools = &self.fish.school[base..base + n];
        let school = schools[0];
        (self.quiet && schools[1..].iter().all(|&k| k == school)).then_some(usize::from(school))
    }

    /// [`ForcePass::finish`] of the quartet from slot `base`, all of one
    /// school, in a scene that leaves them alone, four fish at once: the
    /// same bits, written to `kicks`. `false`, with nothing written, where
    /// a fish needs the one-fish form (speed matching, a non-finite sum).
    #[inline]
    fn finish_in_lanes(&self, base: usize, hoods: &QuartetHoods, kicks: &mut [Kick<V>; LANES]) -> bool {
        // As many axes as the space has.
        if V::DIM == 2 {
            self.finish_in::<2>(base, hoods, kicks)
        } else {
            self.finish_in::<3>(base, hoods, kicks)
        }
    }

    /// [`ForcePass::finish_in_lanes`] over `N` axes.
    #[inline(always)]
    fn finish_in<const N: usize>(
        &self,
        base: usize,
        hoods: &QuartetHoods,
        kicks: &mut [Kick<V>; LANES],
    ) -> bool {
        let params = &self.params[usize::from(self.fish.school[base])];
        let Some((velocity, wander)) = self.lane_inputs::<N>(base, params) else { return false };
        match rules::rules_in_lanes(&hoods.in_lanes::<N>(), velocity, wander, params) {
            Some(rules) => self.kicks_of_rules::<N>(base, hoods, rules, kicks),
            None => false,
        }
    }

    /// The velocities and wandering velocities of the quartet from slot
    /// `base`, over the first `N` axes (those past the dimension's zero),
    /// for its rules in lanes.
    #[inline(always)]
    fn lane_inputs<const N: usize>(
        &self,
        base: usize,
        params: &FlockParams,
    ) -> Option<([Vec4; N], [Vec4; N])> {
        let fish = self.fish;
        let phase = Vec4::from_slice(&fish.phase[base..base + LANES]);
        let circles =
            <&[V::Circle; LANES]>::try_from(&fish.circle[base..base + LANES]).expect("a whole quartet");
        // A phase past the lanes' limit (never one the integrator keeps)
        // sends the four to the one-fish form, as on a plane.
        let (sin, cos) = sin_cos_lanes(phase)?;
        let on_circles = V::on_circles(circles, sin, cos);
        let velocity = first_axes(quartet_axes::<V>(self.records(base), record_velocity_axis::<V>));
        let mut wander = [Vec4::ZERO; N];
        for i in 0..V::DIM {
            wander[i] = on_circles[i] * params.desired_speed();
        }
        Some((velocity, wander))
    }

    /// [`ForcePass::finish_in_lanes`] once the rules are evaluated
    /// (`rules`: separation, alignment, cohesion, wander): fear's harder
    /// push, the soft margin, the jitter and the clamp. `false`, with
    /// nothing written, where a fish's total is not finite. Inlined into
    /// the pass's build, as the plane's is: out of line it is compiled
    /// without AVX2, and called once a quartet.
    #[inline(always)]
    fn kicks_of_rules<const N: usize>(
        &self,
        base: usize,
        hoods: &QuartetHoods,
        [separation, alignment, cohesion, wander]: [[Vec4; N]; 4],
        kicks: &mut [Kick<V>; LANES],
    ) -> bool {
        let fish = self.fish;
        let params = &self.params[usize::from(fish.school[base])];
        let quartet = base..base + LANES;
        let fear = <[f32; LANES]>::try_from(&fish.fright[quartet.clone()]).expect("a whole quartet");
        let ids = <[u32; LANES]>::try_from(&self.ids[quartet]).expect("a whole quartet");
        let rules = [separation, alignment, cohesion, wander];
        let records = self.records(base);
        let at = || first_axes(quartet_axes::<V>(records, record_position_axis::<V>));
        let velocity = || first_axes(quartet_axes::<V>(records, record_velocity_axis::<V>));
        let Some((acceleration, _)) =
            self.setting().kick_lanes(rules, fear, at, velocity, ids, LANES, params)
        else {
            return false;
        };
        let count = hoods.sums.count.to_array();
        for (l, kick) in kicks.iter_mut().enumerate() {
            *kick =
                Kick { acceleration: V::from_fn(|i| acceleration[i][l]), fear: 0.0, neighbours: count[l] };
        }
        true
    }

    /// The kick of the fish in `slot` with neighbourhood `hood`: its rules,
    /// the walls, the scene, the jitter and the clamp; each rule's force
    /// written to `rules` where asked.
    #[inline]
    fn finish(&self, slot: usize, hood: &Neighbourhood<V>, rules: Option<&mut RuleForces<V>>) -> Kick<V> {
        let sorted = self.fish;
        let (p, v, school) =
            (self.grid.sorted_position(slot), self.grid.sorted_velocity(slot), sorted.school[slot]);
        let params = &self.params[usize::from(school)];
        let mut forces = RuleForces::evaluate_towards(hood, v, self.wander_of(slot), params);
        let fish = react::Swimmer {
            position: p,
            velocity: v,
            // Fear at the start of the tick (the previous tick's).
            fear: sorted.fright[slot],
            school: usize::from(school),
            group: groups::group_of(self.group, self.ids[slot]),
            leads: sorted.leader[slot],
        };
        let (acceleration, fear) = self.setting().kick(&mut forces, &fish, self.ids[slot], params);
        if let Some(rules) = rules {
            *rules = forces;
        }
        Kick { acceleration, fear, neighbours: hood.count as f32 }
    }
}

impl<V: Vector> ForcePass<'_, V> {
    /// The candidates of a fish at `p` scanned alone, ascending, and the
    /// cap they are thinned to for a school capped at `cap`: its grid
    /// block and `cap`, or every fish and none (brute force, the exact
    /// reference).
    #[inline(always)]
    fn candidates(&self, p: V, cap: u32) -> (CandidateRuns<MAX_RUNS>, u32) {
        match self.search {
            NeighbourSearch::Grid => (self.grid.candidate_runs(p), cap),
            NeighbourSearch::BruteForce => (CandidateRuns::single(0..self.grid.len()), 0),
        }
    }

    /// The snapshot's records of the quartet from slot `base`.
    #[inline(always)]
    fn records(&self, base: usize) -> &[V::Record; LANES] {
        self.grid.snapshot()[base..base + LANES].try_into().expect("a whole quartet")
    }

    /// What every fish's kick reads of the tick besides its neighbourhood.
    #[inline(always)]
    fn setting(&self) -> Setting<'_, V> {
        Setting {
            tank: self.tank,
            scene: self.scene,
            route_goal: self.route_goal.as_ref(),
            quiet: self.quiet,
            key: self.key,
        }
    }

    /// What a fish scanned alone reads of the others.
    fn others(&self) -> Others<'_, V> {
        Others {
            grid: self.grid,
            school: &self.fish.school,
            leader: &self.fish.leader,
            schools: self.params.len(),
            leaders: self.leaders,
            key: self.key,
        }
    }
}

impl<V: Vector> ForcePass<'_, V> {
    /// The direction the fish in `slot` wanders along.
    #[inline]
    fn wander_of(&self, slot: usize) -> V {
        wander_direction(self.fish.phase[slot], &self.fish.circle[slot])
    }

    /// The heading of the fish in `slot`: its velocity's direction, or
    /// where it wanders when it stands still ([`rules::heading`]).
    #[inline]
    fn heading_of(&self, slot: usize) -> V {
        rules::heading(self.grid.sorted_velocity(slot), || self.wander_of(slot))
    }

    /// The direction the fish in `slot` wishes to head along under
    /// Couzin's zones (zero: keep its heading), as its kick.
    fn wish(&self, slot: usize, zones: &Zones) -> Kick<V> {
        let fish = self.fish;
        let (p, school) = (self.grid.sorted_position(slot), fish.school[slot]);
        let own = self.heading_of(slot);
        let cos_half_view = sin_cos(zones.field_of_view * 0.5).1;
        // Only neighbours within reach need their heading normalised.
        let reach2 = zones.reach() * zones.reach();
        let all_schools = self.one_school || self.params[usize::from(school)].sees_other_schools;
        let mut sums = ZoneSums::<V>::default();
        // Crowding control, as for the rules: past the cap, every `step`-th
        // candidate of each run.
        let (around, cap) = self.candidates(p, zones.neighbour_cap);
        let step = thinning_step::<V>(around.candidates(), cap);
        let neighbour = |s: usize, d: V, d2: f32| {
            if s != slot && (all_schools || fish.school[s] == school) {
                let heading = self.heading_of(s);
                sums.add(zones, own, cos_half_view, d, d2, heading);
            }
        };
        let looked = alone::visit(self.grid, (slot, p), &around, (step, reach2), neighbour);
        let mut neighbours = sums.repelled.0 + sums.oriented.0 + sums.attracted.0;
        if step > 1 {
            // The neighbours counted, scaled up as the rules' are: what a
            // full scan would have found, on average.
            let scale = around.candidates().saturating_sub(1) as f64 / looked.max(1) as f64;
            neighbours = (f64::from(neighbours) * scale).round() as u32;
        }
        Kick { acceleration: sums.wish(own).unwrap_or(V::ZERO), fear: 0.0, neighbours: neighbours as f32 }
    }
}

/// The first `N` of three axes in lanes (`N` is the space's dimension or
/// three: those past it are zero).
#[inline(always)]
fn first_axes<const N: usize>(axes: [Vec4; 3]) -> [Vec4; N] {
    let mut first = [Vec4::ZERO; N];
    first.copy_from_slice(&axes[..N]);
    first
}

/// The first four `records`' positions or velocities (as `axis` reads
/// them), axis by axis, one fish per lane (the axes past the dimension's
/// zero).
#[inline(always)]
fn quartet_axes<V: Vector>(records: &[V::Record; LANES], axis: fn(&V::Record, usize) -> f32) -> [Vec4; 3] {
    let mut axes = [Vec4::ZERO; 3];
    for (i, lanes) in axes.iter_mut().enumerate().take(V::DIM) {
        *lanes = Vec4::from_array(core::array::from_fn(|l| axis(&records[l], i)));
    }
    axes
}

impl Swarm<Vec2> {
    /// The fish's headings as angles, for drawing on a plane.
    pub fn angles(&self) -> impl Iterator<Item = f32> + '_ {
        self.fish.velocity.iter().map(|v| v.to_angle())
    }
}

impl<V: Vector> observe::HashedState for Swarm<V> {
    fn each_fish(&self, eat: &mut dyn FnMut(f32)) {
        let fish = &self.fish;
        for &slot in &self.slots {
            let s = slot as usize;
            for x in [fish.position[s], fish.velocity[s]] {
                for i in 0..V::DIM {
                    eat(x.axis(i));
                }
            }
            eat(fish.phase[s]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::state_hash;
    use crate::world::scene::Predator;

    /// Steps `a` and a copy that scans fish one at a time side by side:
    /// the same bits every tick, and a fair share of the quartets scanned
    /// together (else the comparison would prove nothing).
    fn quartets_agree<V: Vector>(mut a: Swarm<V>, ticks: u64, [share, lanes]: [f32; 2]) {
        let mut b = a.clone();
        b.quartets = false;
        // The portable build of the quartets' scan too, where the CPU has
        // the AVX2 one.
        let mut portable = a.clone();
        portable.set_kernel_path(KernelPath::Portable);
        for tick in 0..ticks {
            a.step();
            b.step();
            portable.step();
            assert_eq!(state_hash(&a), state_hash(&b), "tick {tick}");
            assert_eq!(state_hash(&a), state_hash(&portable), "tick {tick}, portable");
        }
        let mut c = a.clone();
        c.apply_commands();
        c.index();
        let [together, in_lanes] = c.forces();
        let quartets = c.len().div_ceil(LANES) as f32;
        assert!(together as f32 >= share * quartets, "{together} of {quartets} quartets scanned together");
        assert!(in_lanes as f32 >= lanes * quartets, "{in_lanes} of {quartets} quartets' rules in lanes");
        let mut d = c.clone();
        d.quartets = false;
        assert_eq!(d.forces(), [0, 0]);
        assert_eq!(c.kicks, d.kicks);
    }

    fn dense<V: Vector>(boundary: BoundaryMode, extent: f32) -> TankOf<V> {
        let mut tank = TankOf::centered(V::splat(extent));
        tank.boundary = boundary;
        tank
    }

    /// Nearly every quartet goes together: one whose fish span two rows of
    /// cells is scanned in a pass per row.
    #[test]
    fn a_fish_added_by_hand_takes_the_next_id_and_bad_ones_are_refused() {
        let mut swarm = Flock3d::new(FlockParams::default(), crate::Tank3d::default(), 50, 4).unwrap();
        let at = Vec3::new(100.0, 120.0, 140.0);
        assert_eq!(swarm.add_fish(0, at, Vec3::X * 30.0, 7.0).unwrap(), 50);
        assert_eq!(swarm.positions()[50], at);
        assert!((0.0..core::f32::consts::TAU).contains(&swarm.wander_phases()[50]));
        let refused = [
            swarm.add_fish(1, at, Vec3::ZERO, 0.0),
            swarm.add_fish(0, Vec3::splat(1.0e5), Vec3::ZERO, 0.0),
            swarm.add_fish(0, at, Vec3::NAN, 0.0),
            swarm.add_fish(0, at, Vec3::ZERO, f32::INFINITY),
        ];
        let fields: Vec<&str> = refused.iter().map(|r| r.as_ref().unwrap_err().field).collect();
        assert_eq!(fields, ["school", "position", "velocity", "wander_phase"]);
        assert_eq!(swarm.len(), 51, "nothing added by a refusal");
        let before = swarm.heap_bytes();
        swarm.run(3);
        assert!(swarm.heap_bytes() > before, "a tick's buffers count too");
        assert!(swarm.heap_bytes() > 51 * 2 * core::mem::size_of::<Vec3>());
        // Its wander turns round a circle of its own: it moves like any fish.
        assert!(swarm.positions().iter().chain(swarm.velocities()).all(|v| v.is_finite()));
        assert_eq!((swarm.seed(), swarm.grid().len()), (4, 51));
        // Not while a tick is under way.
        swarm.run_to(TickStage::Forces);
        assert_eq!(swarm.add_fish(0, at, Vec3::ZERO, 0.0).unwrap_err().field, "stage");
    }

    /// Every fish of `swarm` replaced by `fish`, as an engine holding its
    /// own copy of the fish hands them over: all removed, then pushed.
    fn hand_over<V: Vector>(swarm: &mut Swarm<V>, fish: impl IntoIterator<Item = (u16, V, V, f32)>) {
        let all: Vec<u32> = (0..swarm.len() as u32).collect();
        swarm.remove_fish(&all);
        swarm.push_fish(fish);
    }

    /// What an engine holding its own copy of the fish (the Bevy plugin)
    /// hands over: the whole set at once, or columns written in place, is
    /// the same school as the same fish spawned by the swarm itself.
    #[test]
    fn fish_handed_over_or_written_in_place_run_as_the_swarm_own() {
        let mut own = Swarm::<Vec2>::new(FlockParams::default(), crate::Tank::default(), 400, 9).unwrap();
        own.run(5);
        let handed: Vec<(u16, Vec2, Vec2, f32)> = (0..own.len())
            .map(|s| (own.schools()[s], own.positions()[s], own.velocities()[s], own.wander_phases()[s]))
            .collect();
        let mut copy = Swarm::<Vec2>::new(FlockParams::default(), crate::Tank::default(), 10, 9).unwrap();
        copy.run(5);
        hand_over(&mut copy, handed.iter().copied());
        assert_eq!(state_hash(&copy), state_hash(&own));
        // Written in place through the columns: the school as handed over.
        let moved: Vec<(u16, Vec2, Vec2, f32)> =
            handed.iter().map(|&(s, p, v, w)| (s, p * 0.5, -v, w + 1.0)).collect();
        let (mut written, mut replaced) = (copy.clone(), copy.clone());
        let inputs = written.inputs_mut(0..400);
        for (k, m) in moved.iter().enumerate() {
            (inputs.position[k], inputs.velocity[k], inputs.wander_phase[k]) = (m.1, m.2, m.3);
        }
        hand_over(&mut replaced, moved);
        written.run(3);
        replaced.run(3);
        assert_eq!(state_hash(&written), state_hash(&replaced));
        copy.run(3);
        own.run(3);
        assert_eq!(state_hash(&copy), state_hash(&own));
        // Taken as a game wrote them: not finite, outside, an unknown
        // school; they start calm, and the next tick brings them all in.
        let tank = *copy.tank();
        hand_over(
            &mut copy,
            [
                (7, Vec2::NAN, Vec2::INFINITY, f32::NAN),
                (0, Vec2::new(1.0e6, -1.0e6), Vec2::new(5.0, 0.0), 0.0),
            ],
        );
        assert_eq!((copy.schools(), copy.fears()), (&[0, 0][..], &[0.0, 0.0][..]));
        copy.run(2);
        assert!(copy.positions().iter().all(|&p| tank.contains(p)), "{:?}", copy.positions());
        assert!(copy.velocities().iter().all(|v| v.is_finite()));
        assert!(copy.wander_phases().iter().all(|w| w.is_finite()));
        // Pushed after a removal, a fish takes the next id.
        assert_eq!(copy.remove_fish(&[0]), [1]);
        assert_eq!(copy.push_fish([(0, Vec2::ZERO, Vec2::X, 0.0)]), 1..2);
        assert_eq!(copy.len(), 2);
        // Not while a tick is under way.
        copy.run_to(TickStage::Forces);
        assert_eq!(copy.push_fish([(0, Vec2::ZERO, Vec2::X, 0.0)]), 2..2);
        assert_eq!(copy.len(), 2);
    }

    /// The motion and the boundary as two stages (the plugins' sets) give
    /// the bits of the whole tick's one fused pass, in every wall mode,
    /// with rocks, a predator and fish hitting the walls.
    #[test]
    fn integrate_then_boundary_is_the_fused_pass() {
        let params = FlockParams { max_speed: 400.0, ..FlockParams::default() };
        for boundary in [BoundaryMode::Wrap, BoundaryMode::Bounce, BoundaryMode::SoftMargin] {
            let tank = crate::Tank { boundary, ..crate::Tank::centered(Vec2::new(300.0, 200.0)) };
            let mut fused = Swarm::<Vec2>::new(params, tank, 700, 11).unwrap();
            fused
                .edit_scene(|scene| {
                    scene.obstacles.push(crate::Obstacle { centre: Vec2::new(40.0, 10.0), radius: 30.0 });
                    scene.obstacles.push(crate::Obstacle { centre: Vec2::new(-90.0, -40.0), radius: 20.0 });
                    scene.predators.push(Predator::new(Vec2::ZERO, 120.0));
                })
                .unwrap();
            let mut split = fused.clone();
            for _ in 0..40 {
                fused.step();
                for stage in [TickStage::Integrate, TickStage::Boundary, TickStage::Predators] {
                    split.run_to(stage);
                }
            }
            assert_eq!(state_hash(&split), state_hash(&fused), "{boundary:?}");
            assert_eq!(split.tick(), fused.tick());
        }
    }

    /// A new school table: the fish of a school it lacks join its last one;
    /// an empty or invalid table changes nothing.
    #[test]
    fn a_new_school_table_keeps_every_fish_in_a_school_it_has() {
        let mut swarm = Swarm::<Vec2>::new(FlockParams::default(), crate::Tank::default(), 10, 3).unwrap();
        let calm = FlockParams { max_speed: 40.0, ..FlockParams::default() };
        swarm.add_school(calm, 5, 4).unwrap();
        swarm.set_schools(&[calm]).unwrap();
        assert!(swarm.schools().iter().all(|&s| s == 0));
        assert_eq!(swarm.params(), &[calm]);
        let bad = FlockParams { max_speed: f32::NAN, ..FlockParams::default() };
        assert_eq!(swarm.set_schools(&[calm, bad]).unwrap_err().field, "max_speed");
        assert_eq!(swarm.set_schools(&[]).unwrap_err().field, "schools");
        assert_eq!(swarm.params(), &[calm]);
        swarm.run(2);
        assert!(swarm.velocities().iter().all(|v| v.length() <= 40.0 * (1.0 + 1.0e-5)));
    }

    /// Within a tick: a fish moved between the integrator and the walls may
    /// stand outside (the walls bring it in), and a force added after the
    /// clamp acts at once, clamped again; elsewhere neither.
    #[test]
    fn a_game_acts_between_the_stages() {
        let mut swarm = Swarm::<Vec2>::new(FlockParams::default(), crate::Tank::default(), 50, 8).unwrap();
        swarm.run(2);
        let far = Vec2::new(1.0e4, 0.0);
        assert_eq!(swarm.set(3, far, Vec2::ZERO).unwrap_err().field, "position", "between ticks");
        swarm.run_to(TickStage::Integrate);
        swarm.set(3, far, Vec2::ZERO).expect("the walls are still to come");
        swarm.run_to(TickStage::Boundary);
        assert!(swarm.tank().contains(swarm.positions()[3]));
        swarm.run_to(TickStage::Predators);
        // A force after the clamp: this tick's steering, clamped.
        swarm.run_to(TickStage::Clamp);
        let before = swarm.steering_at(5).unwrap();
        swarm.add_steering(5, Vec2::new(1.0e6, 0.0)).unwrap();
        let after = swarm.steering_at(5).unwrap();
        let max_force = FlockParams::default().max_force;
        assert!(after.x > before.x && after.length() <= max_force * (1.0 + 1.0e-5), "{before} -> {after}");
        swarm.run_to(TickStage::Predators);
        // And the neighbours to draw are those within the radius.
        let r = FlockParams::default().perception_radius;
        let near = swarm.grid_neighbours(5, r);
        let p = swarm.grid().sorted_position(swarm.grid().rank()[5] as usize);
        for s in 0..swarm.len() as u32 {
            let q = swarm.grid().sorted_position(swarm.grid().rank()[s as usize] as usize);
            let within = s != 5 && p.distance(q) < r;
            assert_eq!(near.contains(&s), within, "fish {s}");
        }
        assert!(swarm.grid_neighbours(99, r).is_empty());
    }

    #[test]
    fn quartets_give_the_bits_of_fish_one_at_a_time_in_a_volume() {
        for boundary in [BoundaryMode::Bounce, BoundaryMode::Wrap, BoundaryMode::SoftMargin] {
            let swarm = Flock3d::new(FlockParams::default(), dense(boundary, 600.0), 3001, 7).unwrap();
            quartets_agree(swarm, 12, [0.97, 0.5]);
        }
    }

    /// A topological school goes by quartets too, each lane keeping its
    /// nearest as a fish alone does: the same bits, with and without a
    /// wrap seam, where the crowding cap leaves the scans whole.
    #[test]
    fn a_topological_school_goes_by_quartets_with_the_bits_of_one_at_a_time() {
        for boundary in [BoundaryMode::Bounce, BoundaryMode::Wrap] {
            for k in [1, 6] {
                let school = FlockParams { topological_neighbours: k, ..FlockParams::default() };
                let volume = Flock3d::new(school, dense(boundary, 600.0), 3001, 5).unwrap();
                quartets_agree(volume, 8, [0.97, 0.5]);
                let plane = Swarm::<Vec2>::new(school, dense(boundary, 2000.0), 2999, 5).unwrap();
                quartets_agree(plane, 8, [0.97, 0.5]);
            }
        }
    }

    /// On a plane a fish alone thins sooner than its quartet (see
    /// `lone_step`): the school is spread so that the cap leaves the
    /// scans whole.
    #[test]
    fn quartets_give_the_bits_of_fish_one_at_a_time_on_a_plane() {
        for boundary in [BoundaryMode::Bounce, BoundaryMode::Wrap] {
            let swarm = Swarm::<Vec2>::new(FlockParams::default(), dense(boundary, 2000.0), 2999, 3).unwrap();
            quartets_agree(swarm, 12, [0.97, 0.5]);
        }
    }

    /// The rules in lanes keep the bits of fish one at a time where their
    /// inputs vary most: afraid fish (a predator just gone, so the scene
    /// is quiet again), soft walls looked at ahead, two schools of other
    /// weights, on a plane and in a volume; and a scene that is not quiet
    /// sends every quartet to the one-fish rules.
    fn lanes_agree<V: Vector>(count: usize, extent: f32) {
        let mut tank = dense::<V>(BoundaryMode::SoftMargin, extent);
        tank.look_ahead = 1.5;
        let mut swarm = Swarm::<V>::new(FlockParams::default(), tank, count, 21).unwrap();
        let other =
            FlockParams { separation_weight: 2.5, wander_weight: 0.0, jitter: 0.3, ..FlockParams::default() };
        swarm.add_school(other, count / 3, 22).unwrap();
        let scene = Scene { predators: vec![Predator::new(V::ZERO, extent * 0.3)], ..Scene::default() };
        swarm.set_scene(scene).unwrap();
        swarm.run(4);
        let mut loud = swarm.clone();
        let [_, in_lanes] = loud.forces();
        assert_eq!(in_lanes, 0, "a predator about: no rules in lanes");
        swarm.set_scene(Scene::default()).unwrap();
        assert!(swarm.fears().iter().filter(|&&f| f > 0.0).count() > count / 20, "few fish afraid");
        quartets_agree(swarm, 6, [0.2, 0.2]);
    }

    /// The wander's direction four fish at a time gives each fish the bits
    /// of its own, in both spaces; on a plane it is the unit vector at the
    /// phase; in a volume it stays on its circle, a unit vector.
    #[test]
    fn four_wanders_turn_in_lanes_like_one_at_a_time() {
        fn check<V: Vector>() {
            let mut rng = <rand_pcg::Pcg32 as rand::SeedableRng>::seed_from_u64(5);
            for group in 0..400 {
                let phases: [f32; LANES] = core::array::from_fn(|l| (group * 4 + l) as f32 * 0.0157);
                let circles: [V::Circle; LANES] =
                    core::array::from_fn(|_| crate::world::spawn::random_circle::<V>(&mut rng));
                let (sin, cos) = sin_cos_lanes(Vec4::from_array(phases)).unwrap();
                let lanes = V::on_circles(&circles, sin, cos);
                for l in 0..LANES {
                    let one: V = wander_direction(phases[l], &circles[l]);
                    for (i, axis) in lanes.iter().enumerate().take(V::DIM) {
                        assert_eq!(axis[l].to_bits(), one.axis(i).to_bits(), "group {group}, lane {l}");
                    }
                    assert!((one.length() - 1.0).abs() < 1.0e-5, "{one:?}");
                    if V::DIM == 2 {
                        let unit = crate::math::angle::unit(phases[l]);
                        assert_eq!([unit.x, unit.y], [one.axis(0), one.axis(1)]);
                    }
                }
            }
        }
        check::<Vec2>();
        check::<Vec3>();
    }

    /// A school crowded past its cap, whose quartets thin their scans:
    /// keeping the rule forces (the health panel does) moves no fish
    /// differently, in either space.
    #[test]
    fn keeping_the_rule_forces_leaves_a_crowded_school_as_it_is() {
        fn check<V: Vector>(extent: f32, fish: usize) {
            let crowd =
                FlockParams { cohesion_weight: 3.0, separation_weight: 0.4, ..FlockParams::default() };
            let mut plain = Swarm::<V>::new(crowd, dense(BoundaryMode::Bounce, extent), fish, 4).unwrap();
            plain.run(40);
            let mut kept = plain.clone();
            kept.set_record_rules(true);
            for tick in 0..20 {
                plain.step();
                kept.step();
                assert_eq!(state_hash(&plain), state_hash(&kept), "{}D, tick {tick}", V::DIM);
            }
            let crowded = kept.neighbour_counts().filter(|&n| n > 2 * crowd.neighbour_cap).count();
            assert!(crowded > fish / 4, "{}D: {crowded} fish past the cap", V::DIM);
            // What a kept sample says of the neighbours is what the kick found.
            let counts: Vec<u32> = kept.neighbour_counts().collect();
            assert!(kept.samples().iter().zip(&counts).all(|(s, &n)| s.neighbours == n));
            // And its rules are the kick's, from the same thinned scan: their
            // clamped sum is the steering, give or take the jitter.
            let reach = crowd.jitter * crowd.max_force + 1e-2;
            for slot in 0..kept.len() {
                let rules = kept.sample(slot).expect("kept for every fish").rules;
                let sum = rules::clamp_length(rules.acceleration(), crowd.max_force);
                let kick = kept.steering_at(slot).unwrap();
                assert!((sum - kick).length() <= reach, "{}D, slot {slot}: {sum:?} against {kick:?}", V::DIM);
            }
        }
        check::<Vec3>(300.0, 2000);
        check::<Vec2>(500.0, 1500);
    }

    #[test]
    fn kept_rule_forces_keep_the_bits_and_add_up_to_the_steering() {
        let tank = dense::<Vec3>(BoundaryMode::SoftMargin, 600.0);
        let mut plain = Flock3d::new(FlockParams::default(), tank, 800, 9).unwrap();
        let predator = Predator {
            position: Vec3::ZERO,
            velocity: Vec3::X * 50.0,
            fear_radius: 150.0,
            max_speed: 200.0,
            max_force: 400.0,
            chase: true,
        };
        plain.set_scene(Scene { predators: vec![predator], ..Scene::default() }).unwrap();
        let mut kept = plain.clone();
        kept.set_record_rules(true);
        assert_eq!(kept.sample(0), None, "nothing before a tick");
        for tick in 0..25 {
            plain.step();
            kept.step();
            assert_eq!(state_hash(&plain), state_hash(&kept), "tick {tick}");
        }
        assert_eq!(plain.sample(0), None, "not kept unless asked");
        let params = FlockParams::default();
        let counts = kept.samples().iter().map(|s| s.neighbours);
        assert!(counts.eq(kept.neighbour_counts()), "the samples count the kicks' neighbours");
        let mut fleeing = 0;
        for slot in 0..kept.len() {
            let sample = kept.sample(slot).expect("kept for every fish");
            assert_eq!(kept.neighbours_at(slot), Some(sample.neighbours), "slot {slot}");
            let rules = sample.rules;
            // The kick is the rules' sum plus the jitter, clamped: the
            // clamp moves nothing further apart.
            let sum = rules::clamp_length(rules.acceleration(), params.max_force);
            let kick = kept.steering_at(slot).unwrap();
            assert!(sum.distance(kick) <= params.jitter * params.max_force + 1e-2, "slot {slot}");
            fleeing += usize::from(rules.flee != Vec3::ZERO);
        }
        assert!(fleeing > 0, "the fish near the predator flee");
        // The metrics carry the rules' mean forces while they are kept,
        // for the health check's force ratio, as a plane's do.
        let means = kept.metrics().rule_forces.expect("kept");
        let flee = kept.samples().iter().map(|s| s.rules.flee.length()).sum::<f32>() / kept.len() as f32;
        assert!(means.flee > 0.0 && (means.flee - flee).abs() <= 1e-3 * flee, "{means:?}");
        assert_eq!(plain.metrics().rule_forces, None);
        kept.set_record_rules(false);
        kept.step();
        assert_eq!(kept.sample(0), None);
    }

    #[test]
    fn a_volume_is_assessed_by_the_health_check() {
        use crate::observe::health::Health;
        let tank = dense::<Vec3>(BoundaryMode::SoftMargin, 600.0);
        let mut swarm = Flock3d::new(FlockParams::default(), tank, 1500, 4).unwrap();
        let mut rows: Vec<Metrics> = Vec::new();
        for _ in 0..3 {
            swarm.run(15);
            rows.push(swarm.metrics().into());
        }
        let bounds = swarm.metrics().bounds;
        assert_eq!(rows[2].bounding_box_area, bounds.x * bounds.y * bounds.z);
        let health = Health::assess(&rows, &FlockParams::default(), swarm.tank());
        let names: Vec<&str> = health.checks.iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "mean neighbours",
                "polarization",
                "nearest neighbour / radius",
                "share at the walls",
                "bounding-box change"
            ]
        );
        assert!(health.checks.iter().all(|c| c.value.is_finite()));
    }

    /// (The plane's school spread out, where its cap leaves the scans whole:
    /// see `quartets_give_the_bits_of_fish_one_at_a_time_on_a_plane`.)
    #[test]
    fn rules_in_lanes_keep_the_bits_with_fear_walls_ahead_and_two_schools() {
        lanes_agree::<Vec3>(2400, 500.0);
        lanes_agree::<Vec2>(2400, 2000.0);
    }

    /// Where some fish cannot go by quartets (a school that sees only its
    /// own, a shaped view, a quartet across a topological school and
    /// another), the rest still can, and
    /// the bits stay those of one at a time; with leaders about, every fish
    /// of their school goes one at a time.
    #[test]
    fn mixed_schools_and_leaders_keep_the_bits() {
        let mut swarm =
            Flock3d::new(FlockParams::default(), dense(BoundaryMode::Bounce, 500.0), 1500, 11).unwrap();
        let own_only = FlockParams { sees_other_schools: false, ..FlockParams::default() };
        swarm.add_school(own_only, 40, 12).unwrap();
        let shaped = FlockParams { view_angle: 4.0, ..FlockParams::default() };
        swarm.add_school(shaped, 40, 13).unwrap();
        let topological = FlockParams { topological_neighbours: 6, ..FlockParams::default() };
        swarm.add_school(topological, 40, 14).unwrap();
        quartets_agree(swarm.clone(), 10, [0.5, 0.1]);
        for id in (0..1500).step_by(97) {
            swarm.set_leader(id, true).unwrap();
        }
        quartets_agree(swarm, 10, [0.0, 0.0]);
    }

    /// A crowd past the cap goes by quartets too, each thinned in two
    /// strata as a quartet on a plane is (its own cells through a window,
    /// the rest on a stride): nearly every quartet is scanned together, and
    /// the neighbour counts it estimates are those fish scanned one at a
    /// time (each on a stride of its own) estimate, within a few percent.
    #[test]
    fn a_crowd_goes_by_quartets_thinned_in_strata() {
        for (school, cap) in [
            (FlockParams::default(), crate::world::params::MAX_NEIGHBOUR_CAP),
            (FlockParams { neighbour_cap: 4, ..FlockParams::default() }, 4),
        ] {
            let mut swarm = Flock3d::new(school, dense(BoundaryMode::Bounce, 500.0), 0, 11).unwrap();
            swarm.spawn_ball(0, 1200, 15, (Vec3::ZERO, 12.0)).unwrap();
            swarm.apply_commands();
            swarm.index();
            let [together, _] = swarm.forces();
            let quartets = swarm.len().div_ceil(LANES);
            assert!(together * 10 >= quartets * 9, "cap {cap}: {together} of {quartets} quartets together");
            let mut alone = swarm.clone();
            alone.quartets = false;
            assert_eq!(alone.forces(), [0, 0]);
            let mean =
                |s: &Flock3d| s.kicks.iter().map(|k| f64::from(k.neighbours)).sum::<f64>() / s.len() as f64;
            let (crowd, one_by_one) = (mean(&swarm), mean(&alone));
            assert!(crowd > 500.0, "a crowd: {crowd}");
            assert!(
                (crowd / one_by_one - 1.0).abs() < 0.05,
                "cap {cap}: {crowd} by quartets, {one_by_one} one by one"
            );
            assert!(swarm.kicks.iter().all(|k| k.acceleration.is_finite()));
        }
    }

    #[test]
    fn the_nearest_fish_and_the_leaders_centre_are_found_by_id() {
        let tank = TankOf::<Vec3>::centered(Vec3::splat(200.0)).with_boundary(BoundaryMode::Wrap);
        let mut swarm = Flock3d::new(FlockParams::default(), tank, 3, 2).unwrap();
        // Fish 0 and 1 as near the origin, on either side; fish 2 just
        // past the wall at -x.
        swarm.set(0, Vec3::X * 30.0, Vec3::ZERO).unwrap();
        swarm.set(1, Vec3::X * -30.0, Vec3::ZERO).unwrap();
        swarm.set(2, Vec3::X * -95.0, Vec3::ZERO).unwrap();
        swarm.run_to(TickStage::Integrate);
        for (id, p) in [(0, Vec3::X * 30.0), (1, Vec3::X * -30.0), (2, Vec3::X * -95.0)] {
            swarm.set(id, p, Vec3::ZERO).unwrap();
        }
        let id_of = |slot: Option<usize>| slot.map(|s| swarm.ids()[s]);
        assert_eq!(id_of(swarm.nearest_fish(Vec3::ZERO)), Some(0), "a tie goes to the lowest id");
        assert_eq!(id_of(swarm.nearest_fish(Vec3::X * 97.0)), Some(2), "through the seam");
        assert_eq!(swarm.leaders_centre(), None);
        swarm.set_leader(2, true).unwrap();
        swarm.set_leader(1, true).unwrap();
        assert_eq!(swarm.leaders_centre(), Some(Vec3::X * -62.5));
    }
}
