//! Spawning a whole school with one command, in either space.

use core::marker::PhantomData;

use bevy::prelude::*;
use mirofish_sim::FlockParams;
use mirofish_sim::rules::noise::mix64;
use mirofish_sim::world::params::validate_fish;

use crate::config::FlockConfigOf;
use crate::refusals::{self, FlockRefusal, Refused};
use crate::space::Space;
use crate::state::FlockState;

/// A command that adds `count` fish to the school, scattered over the tank
/// with random headings, deterministically from the configuration's seed,
/// how many schools were spawned before (so two spawns differ) and
/// [`SpawnSchoolOf::seed`]. One command for both spaces:
/// [`SpawnSchool`] on a plane, [`SpawnSchool3d`](crate::volume::SpawnSchool3d)
/// in a volume.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use mirofish_bevy::SpawnSchool;
/// fn setup(mut commands: Commands) {
///     commands.queue(SpawnSchool::new(500));
/// }
/// ```
///
/// The core takes the fish in at once and each gets its entity (with its
/// [`FishId`](crate::FishId)) before the command returns. A spawn that
/// would take the school past [`mirofish_sim::MAX_FISH`] fish, or whose
/// new school's parameters are invalid, spawns none: it is refused,
/// reported (see [`crate::FlockRefusals`]) and the error is kept in
/// [`FlockState::refused_spawn`]. Fish spawned so are not one of the
/// session's commands: see [`FlockState::changes_outside_commands`].
///
/// To give the fish a look, observe their arrival:
/// `app.add_observer(|add: On<Add, Boid>, mut commands: Commands| { ... })`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnSchoolOf<V: Space> {
    /// How many fish.
    pub count: usize,
    /// Which school they join (see [`School`](crate::School); one beyond the table swims
    /// as its last, its fish keeping this number).
    pub school: u16,
    /// The direction they start heading on a plane (radians,
    /// counter-clockwise from +x, give or take an eighth of a turn);
    /// `None`, or in a volume: every way.
    pub heading: Option<f32>,
    /// How many of them lead (get [`Leader`](crate::Leader)): the first ones
    /// placed.
    pub leaders: usize,
    /// Parameters of a new school the fish form (appended to
    /// [`FlockConfigOf::schools`], in force at once), in place of joining
    /// `school`; `None`: they join `school`.
    pub params: Option<FlockParams>,
    /// Mixed into the seed of their scattering: two otherwise equal
    /// spawns with different seeds place their fish differently.
    pub seed: u64,
    /// The space the school swims in.
    pub space: PhantomData<V>,
}

/// [`SpawnSchoolOf`] on a plane.
pub type SpawnSchool = SpawnSchoolOf<Vec2>;

impl<V: Space> SpawnSchoolOf<V> {
    /// A school of `count` fish, in school 0, heading every way.
    pub fn new(count: usize) -> Self {
        Self { count, school: 0, heading: None, leaders: 0, params: None, seed: 0, space: PhantomData }
    }

    /// The same fish, the first `leaders` of them leading (see
    /// [`Leader`](crate::Leader); at most all of them).
    pub fn with_leaders(mut self, leaders: usize) -> Self {
        self.leaders = leaders;
        self
    }

    /// The same fish, in school `school`.
    pub fn in_school(mut self, school: u16) -> Self {
        self.school = school;
        self
    }

    /// The same fish, forming a new school with `params`: the parameters
    /// are appended to the school table, in the core at once and in
    /// [`FlockConfigOf::schools`].
    pub fn with_params(mut self, params: FlockParams) -> Self {
        self.params = Some(params);
        self
    }

    /// The same fish, all starting along `heading` (radians) give or take
    /// an eighth of a turn: a school that starts out schooled. A plane's
    /// heading; in a volume, and where it is not finite, the fish head
    /// every way.
    pub fn heading(mut self, heading: f32) -> Self {
        self.heading = Some(heading);
        self
    }

    /// The same fish, their scattering mixed with `seed`.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

impl<V: Space> Command for SpawnSchoolOf<V> {
    type Out = ();

    fn apply(self, world: &mut World) {
        if !world.contains_resource::<FlockState<V>>() {
            log::warn!("MiroFish: a SpawnSchool before the plugin of its space was added; nothing spawned");
            return;
        }
        // Fish a game spawned that the next tick takes in count too.
        let present = world.query_filtered::<(), With<V::Boid>>().iter(world).count();
        let mut state = world.resource_mut::<FlockState<V>>();
        let present = present.max(state.flock.len());
        let spawned = validate_fish("SpawnSchool.count", present.saturating_add(self.count))
            .and_then(|()| state.spawn_school(&self));
        let first = match spawned {
            Ok(first) => first,
            Err(error) => {
                state.refused_spawn = Some(error.clone());
                let tick = state.flock.tick();
                refusals::report_in(world, FlockRefusal { tick, what: Refused::Spawn, error });
                return;
            }
        };
        // Fish no configuration or command holds.
        state.changed_outside_commands();
        for id in first..first.saturating_add(self.leaders.min(self.count) as u32) {
            // Every id in the range was just spawned.
            let _ = state.flock.set_leader(id, true);
        }
        // A new school is in the configuration from now on, in force and
        // in the resource, so that the next edit of it keeps the school.
        world.resource_scope(|world, mut config: Mut<FlockConfigOf<V>>| {
            crate::commands::follow_config(&mut config, &mut world.resource_mut::<FlockState<V>>());
        });
        // Their entities, now rather than after the next tick. A school
        // beyond the table swims as its last, but its fish keep the number
        // asked for (a look may tell them apart), as fish a game spawns
        // with that `School` do.
        let label = self.params.is_none().then_some(self.school);
        crate::commands::sync_entities::<V>(world, label);
    }
}

impl<V: Space> FlockState<V> {
    /// Adds the fish of `spawn` to the core, forming its new school first
    /// if it has one; the id of the first.
    fn spawn_school(&mut self, spawn: &SpawnSchoolOf<V>) -> Result<u32, mirofish_sim::ParamError> {
        self.spawned_schools += 1;
        let seed = mix64(self.active.seed ^ mix64(self.spawned_schools)) ^ spawn.seed;
        let school = match spawn.params {
            // No fish yet: the count was checked, so the spawn below fits.
            Some(params) => self.flock.add_school(params, 0, seed)?,
            None => spawn.school.min(self.flock.params().len().saturating_sub(1) as u16),
        };
        self.flock.spawn_school_heading(school, spawn.count, seed, spawn.heading)
    }
}
