//! Spawning a whole school with one command.

use bevy::prelude::*;
use mirofish_sim::FlockParams;
use mirofish_sim::rules::noise::mix64;
use mirofish_sim::world::params::validate_fish;
use mirofish_sim::world::spawn::scatter_heading;

use crate::components::{Boid, Leader, Position, PreviousPosition, School, Velocity, WanderPhase};
use crate::config::FlockConfig;
use crate::refusals::{self, FlockRefusal, Refused};
use crate::state::FlockState;

/// A command that spawns `count` fish scattered over the tank with random
/// headings, deterministically from [`FlockConfig::seed`] (and how many
/// schools were spawned before, so two spawns differ).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use mirofish_bevy::SpawnSchool;
/// fn setup(mut commands: Commands) {
///     commands.queue(SpawnSchool::new(500));
/// }
/// ```
///
/// A spawn that would take the flock past [`mirofish_sim::MAX_FISH`] fish
/// spawns none: it is refused, reported (see [`crate::FlockRefusals`]) and
/// the error is kept in [`FlockState::refused_spawn`].
///
/// To give the fish a look, observe their arrival:
/// `app.add_observer(|add: On<Add, Boid>, mut commands: Commands| { ... })`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnSchool {
    /// How many fish.
    pub count: usize,
    /// Which school they join (see [`School`]).
    pub school: u16,
    /// The direction they start heading (radians, counter-clockwise from
    /// +x, give or take an eighth of a turn); `None`: every way.
    pub heading: Option<f32>,
    /// How many of them lead (get [`Leader`]): the first ones placed.
    pub leaders: usize,
    /// Parameters of a new school the fish form (appended to
    /// [`FlockConfig::schools`], in force from the next tick), in place of
    /// joining `school`; `None`: they join `school`.
    pub params: Option<FlockParams>,
}

impl SpawnSchool {
    /// A school of `count` fish, in school 0, heading every way.
    pub fn new(count: usize) -> Self {
        Self { count, school: 0, heading: None, leaders: 0, params: None }
    }

    /// The same fish, the first `leaders` of them leading (see
    /// [`Leader`]; at most all of them).
    pub fn with_leaders(mut self, leaders: usize) -> Self {
        self.leaders = leaders;
        self
    }

    /// The same fish, in school `school`.
    pub fn in_school(mut self, school: u16) -> Self {
        self.school = school;
        self
    }

    /// The same fish, forming a new school with `params`, as
    /// [`SpawnSchool3d::with_params`](crate::volume::SpawnSchool3d::with_params)
    /// does in a volume: the parameters are appended to the configuration's
    /// schools (while the configuration in the resource is refused, the
    /// fish swim in its last school in force until it is mended).
    pub fn with_params(mut self, params: FlockParams) -> Self {
        self.params = Some(params);
        self
    }

    /// The same fish, all starting along `heading` (radians) give or take
    /// an eighth of a turn: a school that starts out schooled. A heading
    /// that is not finite counts as none.
    pub fn heading(mut self, heading: f32) -> Self {
        self.heading = Some(heading);
        self
    }
}

impl Command for SpawnSchool {
    type Out = ();

    fn apply(mut self, world: &mut World) {
        let present = world.query_filtered::<(), With<Boid>>().iter(world).count();
        if let Err(err) = validate_fish("SpawnSchool.count", present.saturating_add(self.count)) {
            let tick = {
                let mut state = world.resource_mut::<FlockState>();
                state.space.refused_spawn = Some(err.clone());
                state.flock.tick()
            };
            refusals::report_in(world, FlockRefusal { tick, what: Refused::Spawn, error: err });
            return;
        }
        if let Some(params) = self.params {
            // A new school: its parameters join the configuration, which the
            // next tick applies before it takes the new fish in.
            let mut config = world.resource_mut::<FlockConfig>();
            config.schools.push(params);
            self.school = config.schools.len() as u16;
        }
        let requested = world.resource::<FlockConfig>().clone();
        let (config, batch) = {
            let mut state = world.resource_mut::<FlockState>();
            state.space.spawned_schools += 1;
            // An invalid configuration must not place fish at NaN: scatter
            // over the one in force instead.
            let config = if requested.validate().is_ok() { requested } else { state.active.clone() };
            (config, state.space.spawned_schools)
        };
        let table = config.school_table();
        let params = self.params.unwrap_or(table[usize::from(self.school).min(table.len() - 1)]);
        let seed = mix64(config.seed ^ mix64(batch));
        let starts = scatter_heading(self.count, &config.tank, &params, seed, self.heading);
        let school = School(self.school);
        let leaders = self.leaders.min(starts.len());
        let led: Vec<Entity> = world
            .spawn_batch(starts.into_iter().map(|f| {
                (
                    Boid,
                    Position(f.position),
                    PreviousPosition(f.position),
                    Velocity(f.velocity),
                    WanderPhase(f.wander_phase),
                    Transform::from_translation(f.position.extend(0.0)),
                    school,
                )
            }))
            .take(leaders)
            .collect();
        for fish in led {
            world.entity_mut(fish).insert(Leader);
        }
    }
}
