//! The core's school as a resource: the bridge between entities and the
//! pure simulation core.

use bevy::ecs::change_detection::Tick;
use bevy::prelude::*;
use mirofish_sim::space::Swarm;
use mirofish_sim::{FlockParams, ParamError, Scene};

use crate::components::FishId;
use crate::config::FlockConfigOf;
use crate::fish_entities::FishEntities;
use crate::scene_entities::SceneEntities;
use crate::space::Space;

/// The simulation core's view of the school: it owns the fish (each
/// entity names its fish with a [`FishId`]), takes at the start of each
/// tick the fish a game spawned or despawned and whatever it wrote to the
/// fish entities since the last tick, and writes its result back to them
/// at the end. One type for both spaces: `FlockState` on a plane (the
/// default), [`Flock3dState`](crate::volume::Flock3dState)
/// (`FlockState<Vec3>`) in a volume.
///
/// Read it anywhere: the core's school by slot ([`FlockState::flock`], the
/// engine that runs every headless school too, with
/// [`FlockState::entities`] naming each fish's entity), the scene it
/// sees, the configuration in force and the latest refusals. Change it
/// only through the methods below, each documented with the stage of
/// [`crate::BoidSystems`] where the change is valid; everything else
/// (fish, config, scene) is changed through entities, the configuration
/// resource and [`crate::FlockCommands`].
#[derive(Resource, Debug)]
pub struct FlockState<V: Space = Vec2> {
    /// The core's school; it also holds the scene, the school table and
    /// the tank in force. On a plane its slots are its ids (the plugin
    /// never stores the fish in space order).
    pub(crate) flock: Swarm<V>,
    /// The entity of each fish, by id.
    pub(crate) entities: FishEntities,
    /// Whether the tick runs in `FixedUpdate` (so `Transform`s are
    /// interpolated by the fixed clock's overstep).
    pub(crate) fixed_schedule: bool,
    /// The length of every tick, when a recorded session fixes it (else
    /// the schedule's clock gives it).
    pub(crate) dt: Option<f32>,
    /// The entities of the scene's rocks and predators.
    pub(crate) scene_entities: SceneEntities<V>,
    /// How many of the core's applied commands the entities have caught
    /// up with.
    pub(crate) seen_commands: usize,
    /// When the last write-back ran: a fish component changed after it was
    /// written by a game, and the next gather takes it.
    pub(crate) written: Tick,
    /// The configuration in force (the last one that validated).
    pub(crate) active: FlockConfigOf<V>,
    /// Why the latest configuration was refused, while it is.
    pub(crate) rejected: Option<ParamError>,
    /// How many times the school was changed outside the commands (see
    /// [`FlockState::changes_outside_commands`]).
    pub(crate) outside_commands: u64,
    /// Why the latest refused [`crate::SpawnSchoolOf`] was refused.
    pub(crate) refused_spawn: Option<ParamError>,
    /// Schools spawned since the start; mixed into each
    /// [`crate::SpawnSchoolOf`]'s seed so that two spawns do not stack
    /// fish on the same points.
    pub(crate) spawned_schools: u64,
    /// The most a fish's `Transform` rolls into a turn (radians; 0: no
    /// banking, always so on a plane).
    pub(crate) bank: f32,
}

impl<V: Space> FlockState<V> {
    /// A state for `config` (or, if it is not valid, the defaults with its
    /// seed), whose seed drives all per-tick noise.
    pub fn new(config: FlockConfigOf<V>) -> Self {
        let (flock, config) = match config.build() {
            Ok(flock) => (flock, config),
            Err(_) => {
                let defaults = FlockConfigOf { seed: config.seed, ..FlockConfigOf::default() };
                (defaults.build().expect("the default configuration is valid"), defaults)
            }
        };
        Self {
            flock,
            active: config,
            rejected: None,
            entities: FishEntities::default(),
            fixed_schedule: true,
            dt: None,
            scene_entities: SceneEntities::default(),
            seen_commands: 0,
            written: Tick::new(0),
            outside_commands: 0,
            refused_spawn: None,
            spawned_schools: 0,
            bank: 0.0,
        }
    }

    /// The core's school (positions, velocities, steering, … by slot, its
    /// parameters, tank and scene) as the last stage left it: after
    /// [`crate::BoidSystems::Writeback`] it holds the tick's result,
    /// between the stages its work so far. Change it by command
    /// ([`crate::FlockCommands`]).
    pub fn flock(&self) -> &Swarm<V> {
        &self.flock
    }

    /// Ticks run so far.
    pub fn tick(&self) -> u64 {
        self.flock.tick()
    }

    /// The entity of each fish of [`FlockState::flock`], by id;
    /// [`Entity::PLACEHOLDER`] for a fish whose entity went since the tick
    /// began (the next tick takes the fish out).
    pub fn entities(&self) -> &[Entity] {
        self.entities.by_id()
    }

    /// The entity showing fish `id`, if any.
    pub fn entity(&self, id: u32) -> Option<Entity> {
        self.entities.get(id)
    }

    /// The slot of `entity` in [`FlockState::flock`], given its
    /// [`FishId`]: `None` for a fish the core has not taken in (just
    /// spawned) or no longer holds (despawned).
    pub fn slot_of(&self, entity: Entity, id: FishId) -> Option<usize> {
        let id = self.entities.id_of(entity, id)?;
        self.flock.slots().get(id as usize).map(|&slot| slot as usize)
    }

    /// The obstacles, predators, goals, attractor and route the fish see.
    pub fn scene(&self) -> &Scene<V> {
        self.flock.scene()
    }

    /// Why the latest refused [`crate::SpawnSchoolOf`] was refused (it
    /// would have taken the school past [`mirofish_sim::MAX_FISH`] fish, or
    /// its new school's parameters were invalid).
    pub fn refused_spawn(&self) -> Option<&ParamError> {
        self.refused_spawn.as_ref()
    }

    /// The school was changed outside the commands.
    pub(crate) fn changed_outside_commands(&mut self) {
        self.outside_commands += 1;
    }

    /// How many times the school was changed outside the commands since
    /// the plugin was added: a configuration written, fish spawned or
    /// despawned as entities, a school spawned ([`crate::SpawnSchoolOf`]),
    /// a volume's scene replaced.
    /// A recorded session holds only commands, so one during which this
    /// count grew will not replay to its end
    /// ([`FlockRecorderOf::changed_outside_commands`](crate::FlockRecorderOf::changed_outside_commands)).
    /// A fish moved by hand or pushed by [`crate::ExtraSteering`] is not
    /// counted (the replay's checkpoints find it).
    pub fn changes_outside_commands(&self) -> u64 {
        self.outside_commands
    }

    /// The configuration in force: the last [`crate::FlockConfig`] that
    /// validated, with what commands changed since.
    pub fn config(&self) -> &FlockConfigOf<V> {
        &self.active
    }

    /// Why the latest [`crate::FlockConfig`] was refused, while it is.
    pub fn rejected(&self) -> Option<&ParamError> {
        self.rejected.as_ref()
    }

    /// The parameters of each school in force.
    pub fn schools(&self) -> &[FlockParams] {
        self.flock.params()
    }

    /// Keeps (or stops keeping) each rule's force for every fish
    /// ([`Swarm::samples`]), for metrics and debug drawing; off by default
    /// (it costs memory traffic every tick).
    pub fn set_record_rules(&mut self, record: bool) {
        self.flock.set_record_rules(record);
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
    pub fn set_motion(&mut self, slot: usize, position: V, velocity: V) -> Result<(), ParamError> {
        let Some(&id) = self.flock.ids().get(slot) else {
            return Err(ParamError {
                field: "slot",
                value: slot as f32,
                expected: format!("a slot below the {} fish", self.flock.len()),
            });
        };
        self.flock.set(id, position, velocity)
    }

    /// Adds `extra` (an acceleration) to the steering of the fish in
    /// `slot` and clamps the sum to its school's `max_force`; what
    /// [`crate::ExtraSteering`] does, for a system that computes its forces
    /// from the flock's arrays. Valid after [`crate::BoidSystems::Forces`]
    /// and before [`crate::BoidSystems::Integrate`]. `false`, with nothing
    /// changed, if `slot` holds no fish or `extra` is not finite.
    pub fn add_steering(&mut self, slot: usize, extra: V) -> bool {
        let Some(&id) = self.flock.ids().get(slot) else { return false };
        self.flock.add_steering(id, extra).is_ok()
    }
}
