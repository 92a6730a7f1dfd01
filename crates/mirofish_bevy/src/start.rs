//! Starting a school over from a configuration, in either space: the core
//! built anew and every entity of the old run replaced by the new run's.
//! A game does it with [`LoadConfig`] (a configuration file's contents,
//! fish and scene included) or [`Restart`] (the plugin's configuration,
//! with no fish); a recorded session ([`crate::FlockRecorderOf`]) starts
//! through the same steps.
//!
//! ```
//! use bevy::app::ScheduleRunnerPlugin;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use mirofish_bevy::prelude::*;
//! use mirofish_bevy::LoadConfig;
//! use mirofish_sim::ExperimentConfig;
//!
//! let mut app = App::new();
//! app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
//!     .add_plugins(MiroFishPlugin::default())
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! let file = ExperimentConfig { fish: 300, leaders: 3, seed: 9, ..default() };
//! app.world_mut().commands().queue(LoadConfig(file));
//! app.update();
//! let state = app.world().resource::<FlockState>();
//! assert_eq!(state.flock().len(), 300);
//! assert_eq!(app.world().resource::<FlockConfig>().seed, 9);
//! ```

use bevy::prelude::*;
use mirofish_sim::space::Swarm;
use mirofish_sim::{ConfigError, ParamError, RunConfig};

use crate::commands::{FlockCommands, sync_entities};
use crate::config::FlockConfigOf;
use crate::metrics::FlockMetrics;
use crate::recording::FlockRecorderOf;
use crate::refusals::{FlockRefusal, Refused, report_in};
use crate::scene_entities::respawn_scene;
use crate::space::Space;
use crate::state::FlockState;

/// Starts the school over from a configuration file's contents (an
/// [`ExperimentConfig`](mirofish_sim::ExperimentConfig) on a plane, a
/// [`VolumeConfig`](mirofish_sim::VolumeConfig) in a volume): its schools
/// with their leaders, its tank, seed, zones and scene, laid out as the
/// core's `Swarm::from_config` lays them out, so that the lab given the
/// same file runs the same fish. Every fish entity of the old run is
/// despawned and one spawned for each new fish, and the rock and predator
/// entities follow the new scene; the configuration resource
/// ([`FlockConfigOf`]) takes the file's parameters, tank, seed, zones and
/// goals (and its colours, where it names them); queued commands, the
/// metrics and a running recorded session end. A tick lasts the plugin's
/// schedule's step, not the file's `dt` (a recorded session keeps the
/// file's). A file that does not validate is refused with a
/// [`FlockRefusal`] and changes nothing. A command.
#[derive(Clone, Debug)]
pub struct LoadConfig<V: Space>(pub RunConfig<V>);

impl<V: Space> Command for LoadConfig<V> {
    type Out = ();

    fn apply(self, world: &mut World) {
        load(world, "LoadConfig", &self.0, Refused::Config, None);
    }
}

/// Starts the school over from the plugin's configuration
/// ([`FlockConfigOf`]: [`crate::FlockConfig`] on a plane,
/// [`Flock3dConfig`](crate::volume::Flock3dConfig) in a volume) with no
/// fish, rocks or predators: every fish entity of the old run is
/// despawned (and the scene's rock and predator entities, the game's
/// refused ones aside), the configuration resource becomes `config`, and
/// queued commands, the metrics and a running recorded session end. Spawn
/// schools after it ([`crate::SpawnSchool`], a volume's
/// [`SpawnSchool3d`](crate::volume::SpawnSchool3d)). A configuration that
/// does not validate is refused with a [`FlockRefusal`] and changes
/// nothing. A command.
#[derive(Clone, Debug)]
pub struct Restart<V: Space>(pub FlockConfigOf<V>);

impl<V: Space> Command for Restart<V> {
    type Out = ();

    fn apply(self, world: &mut World) {
        let built = self.0.build();
        start_over(world, "Restart", built, self.0, Refused::Config, None);
    }
}

/// Starts over from `config` (`what` names the refusal if it is refused),
/// with every tick `dt` seconds long where given. Whether it started over.
pub(crate) fn load<V: Space>(
    world: &mut World,
    command: &str,
    config: &RunConfig<V>,
    what: Refused,
    dt: Option<f32>,
) -> bool {
    let built = Swarm::from_config(config).map_err(|e| match e.root() {
        ConfigError::Invalid { error, .. } => error.clone(),
        other => ParamError {
            field: if what == Refused::Session { "recording" } else { "config" },
            value: f32::NAN,
            expected: format!("a valid start ({other})"),
        },
    });
    // The file's colours where it names them, the game's elsewhere.
    let colours = world.get_resource::<FlockConfigOf<V>>().map(|c| c.colours_with(config));
    let from_file = FlockConfigOf::from(config);
    let resource =
        FlockConfigOf { colours: colours.unwrap_or_else(|| from_file.colours.clone()), ..from_file };
    start_over(world, command, built, resource, what, dt)
}

/// Starts over with `built` (configured by `config`): every fish entity
/// despawned and the core replaced, then an entity for each of its fish,
/// rock and predator; or, if it was refused, a [`FlockRefusal`] naming
/// `what` and nothing changed. Whether it started over.
pub(crate) fn start_over<V: Space>(
    world: &mut World,
    command: &str,
    built: Result<Swarm<V>, ParamError>,
    config: FlockConfigOf<V>,
    what: Refused,
    dt: Option<f32>,
) -> bool {
    let Some(tick) = world.get_resource::<FlockState<V>>().map(FlockState::tick) else {
        log::warn!("MiroFish: {command} before the plugin was added; nothing changed");
        return false;
    };
    let mut flock = match built {
        Ok(flock) => flock,
        Err(error) => {
            report_in(world, FlockRefusal { tick, what, error });
            return false;
        }
    };
    // Not one of the session's commands: a running session ends here (a
    // session starting starts it again after).
    if let Some(mut recorder) = world.get_resource_mut::<FlockRecorderOf<V>>() {
        recorder.end();
    }
    // The entities are forgotten before they go, so that their fish are
    // not taken out of the new run as despawned by the game.
    world.resource_mut::<FlockState<V>>().entities.clear();
    let fish: Vec<Entity> = world.query_filtered::<Entity, With<V::Boid>>().iter(world).collect();
    for entity in fish {
        world.despawn(entity);
    }
    let mut state = world.resource_mut::<FlockState<V>>();
    // What the game asked the core to keep stays asked.
    flock.set_record_rules(state.flock.records_rules());
    state.flock = flock;
    state.seen_commands = 0;
    state.scene_entities.started_over();
    state.spawned_schools = 0;
    state.refused_spawn = None;
    state.dt = dt;
    // The configuration in force and the resource agree: the next tick
    // finds nothing to apply.
    state.active = config.clone();
    state.rejected = None;
    world.insert_resource(config);
    // Commands queued for the old run's ticks do not carry over.
    world.insert_resource(FlockCommands::<V>::default());
    // The old run's samples would read as this one's (its ticks count from
    // 0 again).
    if let Some(mut metrics) = world.get_resource_mut::<FlockMetrics>() {
        metrics.clear();
    }
    // The rocks and predators of the new scene, in place of the old ones
    // (a game's refused entities stay, refused or not), then the fish.
    respawn_scene::<V>(world, 0);
    sync_entities::<V>(world, None);
    true
}
