//! The core's school as a resource: the bridge between entities and the
//! pure simulation core.

use bevy::ecs::change_detection::Tick;
use bevy::prelude::*;
use mirofish_sim::{FlockParams, ParamError, Scene, Simulation};

use crate::components::FishId;
use crate::config::FlockConfig;
use crate::fish_entities::{FishEntities, FishOwner};
use crate::scene_entities::SceneEntities;

/// The simulation core's view of the school: it owns the fish (each
/// entity names its fish with a [`FishId`]), takes at the start of each
/// tick the fish a game spawned or despawned and whatever it wrote to the
/// fish entities since the last tick, and writes its result back to them
/// at the end.
///
/// Read it anywhere: the core's school by slot ([`FlockState::flock`], the
/// engine that runs every headless school too, with
/// [`FlockState::entities`] naming each slot's fish), the scene it
/// sees, the configuration in force and the latest refusals. Change it
/// only through the methods below, each documented with the stage of
/// [`crate::BoidSystems`] where the change is valid; everything else
/// (fish, config, scene) is changed through entities, [`FlockConfig`] and
/// [`crate::FlockCommands`].
#[derive(Resource, Debug)]
pub struct FlockState {
    /// The core's school, its fish stored by id (slots are ids: the
    /// plugin never stores them in space order); it also holds the scene,
    /// the school table and the tank in force.
    pub(crate) flock: Simulation,
    /// The entity of each fish, by id.
    pub(crate) entities: FishEntities,
    /// The configuration in force (the last one that validated).
    pub(crate) active: FlockConfig,
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
    /// The length of every tick, when a recorded session fixes it (else
    /// the schedule's clock gives it).
    pub(crate) dt: Option<f32>,
    /// The entities of the scene's rocks and predators.
    pub(crate) scene_entities: SceneEntities<Vec2>,
    /// How many of the core's applied commands the entities have caught
    /// up with.
    pub(crate) seen_commands: usize,
    /// The scene being gathered (kept, so that a tick reuses its buffers).
    pub(crate) scene: Scene,
    /// When the last write-back ran: a fish component changed after it was
    /// written by a game, and the next gather takes it.
    pub(crate) written: Tick,
}

impl FlockState {
    /// A state for `config`, whose seed drives all per-tick noise.
    pub fn new(config: FlockConfig) -> Self {
        Self {
            flock: empty_school(&config),
            entities: FishEntities::default(),
            scene: Scene::default(),
            active: config,
            rejected: None,
            refused_spawn: None,
            spawned_schools: 0,
            fixed_schedule: true,
            dt: None,
            scene_entities: SceneEntities::default(),
            seen_commands: 0,
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

    /// The core's school (positions, velocities, steering, … by slot) as
    /// the last stage left it: after [`crate::BoidSystems::Writeback`] it
    /// holds the tick's result, between the stages its work so far.
    pub fn flock(&self) -> &Simulation {
        &self.flock
    }

    /// The entity of each fish of [`FlockState::flock`], by id (and slot:
    /// the plugin stores the fish by id); [`Entity::PLACEHOLDER`] for a
    /// fish whose entity went since the tick began (the next tick takes
    /// the fish out).
    pub fn entities(&self) -> &[Entity] {
        self.entities.by_id()
    }

    /// The slot of `entity` in [`FlockState::flock`], given its
    /// [`FishId`]: `None` for a fish the core has not taken in (just
    /// spawned) or no longer holds (despawned).
    pub fn slot_of(&self, entity: Entity, id: FishId) -> Option<usize> {
        self.entities.id_of(entity, id).map(|id| id as usize)
    }

    /// The obstacles, predators, goals, attractor and route the fish see.
    pub fn scene(&self) -> &Scene {
        self.flock.scene()
    }

    /// The configuration in force: the last [`FlockConfig`] that validated.
    pub fn config(&self) -> &FlockConfig {
        &self.active
    }

    /// The parameters of each school in force ([`FlockConfig::school_table`]).
    pub fn schools(&self) -> &[FlockParams] {
        self.flock.params()
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
    /// ([`Simulation::samples`](mirofish_sim::space::Swarm::samples)), for metrics and
    /// debug drawing; off by default (it costs memory traffic every tick).
    pub fn set_record_rules(&mut self, record: bool) {
        self.flock.set_record_rules(record);
    }

    /// Ticks run so far.
    pub fn tick(&self) -> u64 {
        self.flock.tick()
    }

    /// Moves the fish in `slot` to `position` with `velocity`, within the
    /// tick: after [`crate::BoidSystems::Integrate`] and before
    /// [`crate::BoidSystems::Boundary`], which then brings it inside the
    /// tank and out of the rocks like any fish (a current, a net, a
    /// teleport); elsewhere the position must lie inside the tank. The
    /// fish's entity shows the change only after the next write-back.
    /// Between ticks, write the fish's [`crate::Position`] and
    /// [`crate::Velocity`] instead: a game's write of either since the last
    /// write-back wins over this.
    ///
    /// # Errors
    ///
    /// If `slot` holds no fish, a value is not finite, or the position is
    /// outside the tank where no boundary is to come; nothing changes.
    pub fn set_motion(&mut self, slot: usize, position: Vec2, velocity: Vec2) -> Result<(), ParamError> {
        if slot >= self.flock.len() {
            return Err(ParamError {
                field: "slot",
                value: slot as f32,
                expected: format!("a slot below the {} fish", self.flock.len()),
            });
        }
        self.flock.set(slot as u32, position, velocity)
    }

    /// Adds `extra` (an acceleration) to the steering of the fish in
    /// `slot` and clamps the sum to its school's `max_force`; what
    /// [`crate::ExtraSteering`] does, for a system that computes its forces
    /// from the flock's arrays. Valid after [`crate::BoidSystems::Forces`]
    /// and before [`crate::BoidSystems::Integrate`]. `false`, with nothing
    /// changed, if `slot` holds no fish or `extra` is not finite.
    pub fn add_steering(&mut self, slot: usize, extra: Vec2) -> bool {
        u32::try_from(slot).is_ok_and(|id| self.flock.add_steering(id, extra).is_ok())
    }
}

impl FishOwner for FlockState {
    type V = Vec2;

    fn fish(&mut self) -> (&mut Simulation, &mut FishEntities) {
        (&mut self.flock, &mut self.entities)
    }
}

/// An empty school for `config` (valid, or the defaults with its seed).
fn empty_school(config: &FlockConfig) -> Simulation {
    let build = |config: &FlockConfig| -> Result<Simulation, ParamError> {
        let mut school = Simulation::new(config.params, config.tank, 0, config.seed)?;
        crate::systems::apply_config(&mut school, config)?;
        Ok(school)
    };
    build(config)
        .or_else(|_| build(&FlockConfig { seed: config.seed, ..FlockConfig::default() }))
        .expect("the default configuration is valid")
}
