//! The flock's arrays as a resource: the bridge between entities and the
//! pure simulation core.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use mirofish_sim::{Flock, FlockParams, ParamError, Scene};

use crate::config::FlockConfig;

/// The simulation core's view of the school, refreshed from the entities at
/// the start of every tick and written back at its end.
#[derive(Resource, Debug)]
pub struct FlockState {
    /// The flock's arrays, in the order of [`FlockState::entities`].
    pub flock: Flock,
    /// The entity of each slot of the flock, as gathered this tick.
    pub entities: Vec<Entity>,
    /// Obstacles, predators, goal and attractor, as gathered this tick from
    /// the [`crate::Obstacle`] and [`crate::Predator`] entities and the
    /// [`FlockConfig`]. Its `route` (the leaders' waypoint path) is not
    /// gathered but kept from tick to tick: set it here.
    pub scene: Scene,
    /// The entity of each predator in [`FlockState::scene`].
    pub predator_entities: Vec<Entity>,
    /// The configuration in force (the last one that validated).
    pub active: FlockConfig,
    /// Its school table ([`FlockConfig::school_table`]), kept so the tick
    /// does not rebuild it.
    pub schools: Vec<FlockParams>,
    /// Why the latest [`FlockConfig`] was refused, while it is.
    pub rejected: Option<ParamError>,
    /// Why the latest refused [`crate::SpawnSchool`] was refused (it would
    /// have taken the flock past [`mirofish_sim::MAX_FISH`] fish).
    pub refused_spawn: Option<ParamError>,
    /// Schools spawned so far; mixed into each [`crate::SpawnSchool`]'s seed
    /// so that two spawns do not stack fish on the same points.
    pub spawned_schools: u64,
    /// Whether the tick runs in `FixedUpdate` (so `Transform`s are
    /// interpolated by the fixed clock's overstep).
    pub(crate) fixed_schedule: bool,
    /// Scene entities refused and reported, so that each is reported once
    /// while it stays invalid.
    pub(crate) refused_entities: EntityHashSet,
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
        }
    }
}
