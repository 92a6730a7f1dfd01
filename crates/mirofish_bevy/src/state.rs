//! The flock's arrays as a resource: the bridge between entities and the
//! pure simulation core.

use bevy::ecs::change_detection::Tick;
use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use mirofish_sim::{Flock, FlockParams, ParamError, Scene};

use crate::components::{FishSlot, SceneOrder};
use crate::config::FlockConfig;

/// The simulation core's view of the school: it holds the fish between
/// ticks, takes at the start of each tick whatever a game wrote to the
/// fish entities since the last one, and writes its result back to them
/// at the end.
///
/// Read it anywhere: the flock's arrays by slot ([`FlockState::flock`],
/// with [`FlockState::entities`] naming each slot's fish), the scene it
/// sees, the configuration in force and the latest refusals. Change it
/// only through the methods below, each documented with the stage of
/// [`crate::BoidSystems`] where the change is valid; everything else
/// (fish, config, scene) is changed through entities, [`FlockConfig`] and
/// [`crate::FlockCommands`].
#[derive(Resource, Debug)]
pub struct FlockState {
    /// The flock's arrays, in the order of [`FlockState::entities`].
    pub(crate) flock: Flock,
    /// The entity of each slot of the flock, as gathered this tick.
    pub(crate) entities: Vec<Entity>,
    /// Obstacles, predators, goal and attractor, as gathered this tick from
    /// the obstacle and predator entities and the [`FlockConfig`]; the
    /// route and group goals are kept from tick to tick.
    pub(crate) scene: Scene,
    /// The entity of each predator in [`FlockState::scene`].
    pub(crate) predator_entities: Vec<Entity>,
    /// The configuration in force (the last one that validated).
    pub(crate) active: FlockConfig,
    /// Its school table, kept so the tick does not rebuild it.
    pub(crate) schools: Vec<FlockParams>,
    /// Why the latest [`FlockConfig`] was refused, while it is.
    pub(crate) rejected: Option<ParamError>,
    /// Why the latest refused [`crate::SpawnSchool`] was refused.
    pub(crate) refused_spawn: Option<ParamError>,
    /// Schools spawned so far; mixed into each [`crate::SpawnSchool`]'s seed
    /// so that two spawns do not stack fish on the same points.
    pub(crate) spawned_schools: u64,
    /// Whether the tick runs in `FixedUpdate` (so `Transform`s are
    /// interpolated by the fixed clock's overstep).
    pub(crate) fixed_schedule: bool,
    /// Scene entities refused and reported, so that each is reported once
    /// while it stays invalid.
    pub(crate) refused_entities: EntityHashSet,
    /// The length of every tick, when a recorded session fixes it (else
    /// the schedule's clock gives it).
    pub(crate) dt: Option<f32>,
    /// Rocks and predators as gathered, sorted by arrival (kept, so that
    /// a tick does not allocate).
    pub(crate) rocks: Vec<(SceneOrder, Entity, mirofish_sim::Obstacle)>,
    pub(crate) hunters: Vec<(SceneOrder, Entity, mirofish_sim::Predator)>,
    /// Every fish's [`crate::ExtraSteering`] by slot (kept, so that a tick
    /// does not allocate).
    pub(crate) extra: Vec<Vec2>,
    /// When the last write-back ran: a fish component changed after it was
    /// written by a game, and the next gather takes it.
    pub(crate) written: Tick,
}

impl FlockState {
    /// A state for `config`, whose seed drives all per-tick noise.
    pub fn new(config: FlockConfig) -> Self {
        Self {
            flock: Flock::new(config.seed),
            entities: Vec::new(),
            scene: Scene::default(),
            predator_entities: Vec::new(),
            schools: config.school_table(),
            active: config,
            rejected: None,
            refused_spawn: None,
            spawned_schools: 0,
            fixed_schedule: true,
            refused_entities: EntityHashSet::default(),
            dt: None,
            rocks: Vec::new(),
            hunters: Vec::new(),
            extra: Vec::new(),
            written: Tick::new(0),
        }
    }

    /// Starts over at tick 0 with `config` and ticks of `dt` seconds (a
    /// recorded session), keeping how the plugin was scheduled.
    pub(crate) fn restart(&mut self, config: FlockConfig, dt: f32) {
        let (fixed_schedule, records) = (self.fixed_schedule, self.flock.records_rules());
        *self = Self { fixed_schedule, dt: Some(dt), ..Self::new(config) };
        self.flock.set_record_rules(records);
    }

    /// The flock's arrays (positions, velocities, steering, … by slot) as
    /// the last stage left them: after [`crate::BoidSystems::Writeback`]
    /// they hold the tick's result, between the stages its work so far.
    pub fn flock(&self) -> &Flock {
        &self.flock
    }

    /// The entity of each slot of [`FlockState::flock`], as gathered at the
    /// start of the last tick.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The slot of `entity` in [`FlockState::flock`], given its
    /// [`FishSlot`]: `None` for a fish not gathered by the last tick (just
    /// spawned, or despawned).
    pub fn slot_of(&self, entity: Entity, slot: FishSlot) -> Option<usize> {
        slot.get().filter(|&s| self.entities.get(s) == Some(&entity))
    }

    /// The obstacles, predators, goals, attractor and route the fish see.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The configuration in force: the last [`FlockConfig`] that validated.
    pub fn config(&self) -> &FlockConfig {
        &self.active
    }

    /// The parameters of each school in force ([`FlockConfig::school_table`]).
    pub fn schools(&self) -> &[FlockParams] {
        &self.schools
    }

    /// Why the latest [`FlockConfig`] was refused, while it is.
    pub fn rejected(&self) -> Option<&ParamError> {
        self.rejected.as_ref()
    }

    /// Why the latest refused [`crate::SpawnSchool`] was refused (it would
    /// have taken the flock past [`mirofish_sim::MAX_FISH`] fish).
    pub fn refused_spawn(&self) -> Option<&ParamError> {
        self.refused_spawn.as_ref()
    }

    /// Keeps (or stops keeping) each rule's force for every fish
    /// ([`Flock::samples`](mirofish_sim::Flock::samples)), for metrics and
    /// debug drawing; off by default (it costs memory traffic every tick).
    pub fn set_record_rules(&mut self, record: bool) {
        self.flock.set_record_rules(record);
    }

    /// Ticks run so far.
    pub fn tick(&self) -> u64 {
        self.flock.tick()
    }

    /// Moves the fish in `slot` to `position` with `velocity`, within the
    /// tick: best after [`crate::BoidSystems::Integrate`] and before
    /// [`crate::BoidSystems::Boundary`], which then brings it inside the
    /// tank and out of the rocks like any fish (a current, a net, a
    /// teleport). After the boundary the change stands unchecked until
    /// the next tick, and the fish's entity shows it only after the next
    /// write-back. Between ticks, write the fish's [`crate::Position`] and
    /// [`crate::Velocity`] instead: a game's write of either since the last
    /// write-back wins over this.
    ///
    /// # Errors
    ///
    /// If `slot` holds no fish or a value is not finite (or beyond any
    /// tank); nothing changes.
    pub fn set_motion(&mut self, slot: usize, position: Vec2, velocity: Vec2) -> Result<(), ParamError> {
        use mirofish_sim::world::scene::point;
        if slot >= self.flock.len() {
            return Err(ParamError {
                field: "slot",
                value: slot as f32,
                expected: format!("a slot below the {} fish", self.flock.len()),
            });
        }
        point("position", position)?;
        point("velocity", velocity)?;
        let phase = self.flock.wander_phases()[slot];
        self.flock.set(slot, position, velocity, phase);
        Ok(())
    }

    /// Adds `extra` (an acceleration) to the steering of the fish in
    /// `slot` and clamps the sum to its school's `max_force`; what
    /// [`crate::ExtraSteering`] does, for a system that computes its forces
    /// from the flock's arrays. Valid after [`crate::BoidSystems::Forces`]
    /// and before [`crate::BoidSystems::Integrate`]. `false`, with nothing
    /// changed, if `slot` holds no fish or `extra` is not finite.
    pub fn add_steering(&mut self, slot: usize, extra: Vec2) -> bool {
        self.flock.add_steering(&self.schools, slot, extra)
    }
}
