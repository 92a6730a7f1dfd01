//! Record, stop, replay and save a session: the buttons a player presses,
//! over the core plugin's [`FlockRecorder`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_kit::prelude::*;
//! use mirofish_kit::recorder::Ask;
//!
//! fn keys(keys: Res<ButtonInput<KeyCode>>, mut recorder: ResMut<RecorderControls>) {
//!     if keys.just_pressed(KeyCode::Home) {
//!         recorder.asked = Some(Ask::Record);
//!     }
//!     if keys.just_pressed(KeyCode::End) {
//!         recorder.asked = Some(Ask::Stop);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), RecorderPlugin))
//!     .add_systems(Update, keys)
//!     .run();
//! ```
//!
//! A recording starts from a configuration, so pressing record restarts
//! the school from one: by default the running configuration (each
//! school's fish count and parameters as tuned, the tank, the seed, the
//! rocks, predators, goals and route as they stand), or what a game puts
//! in [`SessionConfigs`]. Every input that went through [`FlockCommands`]
//! (the mouse tools' clicks, the panel's sliders) is in the recording;
//! stopping saves it, and `mirofish-lab replay` runs the file to the same
//! bits. With the tuning panel added, its "record & replay" section holds
//! the buttons.
//!
//! In a volume ([`MiroFish3dPlugin`](mirofish_bevy::volume::MiroFish3dPlugin))
//! the same buttons work the same way over the volume's recorder
//! ([`Flock3dRecorder`]): record restarts from
//! [`SessionConfigs::volume_start`] (by default the running volume), stop
//! saves the session, replay plays the last one
//! ([`RecorderControls::last_volume`]), and save config writes the running
//! volume's configuration.
//!
//! [`Flock3dRecorder`]: mirofish_bevy::volume::Flock3dRecorder

use std::any::Any;
use std::path::PathBuf;

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::volume::{Flock3dConfig, Flock3dState};
use mirofish_bevy::{FlockCommands, FlockRecorderOf, Session, Space};
use mirofish_sim::control::replay::{RecordingOf, Scenario};
use mirofish_sim::{ExperimentConfig, Recording, RunConfig, SchoolConfig, VolumeConfig, VolumeRecording};

/// A session button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Restart from the start configuration ([`SessionConfigs::start`])
    /// and record.
    Record,
    /// Stop recording (and save) or stop replaying.
    Stop,
    /// Replay the last recording.
    Replay,
    /// Save the running configuration as a `.flock.ron` file.
    SaveConfig,
}

/// What the session buttons asked for, and what happened.
#[derive(Resource, Debug)]
pub struct RecorderControls {
    /// The button pressed this frame, if any (set it to press one).
    pub asked: Option<Ask>,
    /// The last recording, stopped or replayed.
    pub last: Option<Recording>,
    /// The last recording of a volume, saved or replayed.
    pub last_volume: Option<VolumeRecording>,
    /// What the last action did, for a player to read.
    pub message: String,
    /// Where files are saved (`None`: the working folder).
    pub folder: Option<PathBuf>,
    /// The file a stopped recording is saved to, in `folder`.
    pub recording_file: String,
    /// The file the running configuration is saved to, in `folder`.
    pub config_file: String,
    /// Ticks between two checkpoints (state hashes) of a recording.
    pub checkpoint_every: u64,
}

impl RecorderControls {
    /// The last recording of `V`'s space: [`RecorderControls::last`] on
    /// a plane, [`RecorderControls::last_volume`] in a volume.
    pub fn last_of<V: Space>(&mut self) -> &mut Option<RecordingOf<RunConfig<V>>>
    where
        RunConfig<V>: Scenario,
    {
        let kept: &mut dyn Any = if V::DIM == 2 { &mut self.last } else { &mut self.last_volume };
        kept.downcast_mut().expect("a space is a plane or a volume")
    }
}

impl Default for RecorderControls {
    fn default() -> Self {
        Self {
            asked: None,
            last: None,
            last_volume: None,
            message: String::new(),
            folder: None,
            recording_file: "session.replay".into(),
            config_file: "session.flock.ron".into(),
            checkpoint_every: 60,
        }
    }
}

/// The configurations a session is made of, each read from the world:
/// what a recording restarts from, and what "save config" writes.
#[derive(Resource, Clone, Copy, Debug)]
pub struct SessionConfigs {
    /// The start of a recording (default: [`running_config`]).
    pub start: fn(&World) -> ExperimentConfig,
    /// The configuration saved (default: [`running_config`]).
    pub running: fn(&World) -> ExperimentConfig,
    /// In a volume, the start of a recording (default:
    /// [`running_volume_config`]).
    pub volume_start: fn(&World) -> VolumeConfig,
    /// In a volume, the configuration saved (default:
    /// [`running_volume_config`]).
    pub volume_running: fn(&World) -> VolumeConfig,
}

impl Default for SessionConfigs {
    fn default() -> Self {
        let running =
            |world: &World| running_config(world.resource::<FlockConfig>(), world.resource::<FlockState>());
        let volume = |world: &World| {
            let seed = world.get_resource::<Flock3dConfig>().map_or(0, |c| c.seed);
            running_volume_config(world.resource::<Flock3dState>(), seed)
        };
        Self { start: running, running, volume_start: volume, volume_running: volume }
    }
}

/// The session buttons' plugin ([`RecorderControls`], [`SessionConfigs`]);
/// needs no window.
pub struct RecorderPlugin;

impl Plugin for RecorderPlugin {
    fn build(&self, app: &mut App) {
        // An exclusive system: it runs (and holds the world) only on a press.
        app.init_resource::<RecorderControls>()
            .init_resource::<SessionConfigs>()
            .add_systems(Update, act.run_if(|controls: Res<RecorderControls>| controls.asked.is_some()));
    }
}

/// The running school as a configuration file: every school's fish count,
/// parameters and colour, the tank, the seed, and the scene as it stands
/// (rocks, predators, goals, route; no attract/repel point, which follows
/// a pointer, and no group goals, which a decision layer sets). Leaders
/// are not kept: a file names how many lead, not which.
pub fn running_config(config: &FlockConfig, state: &FlockState) -> ExperimentConfig {
    let fish = fish_per_school(state.flock().schools(), config.school_table().len());
    let scene = saved_scene(state.scene());
    ExperimentConfig {
        fish: fish.first().copied().unwrap_or(0),
        params: config.params,
        colour: Some(config.colour_of(0)),
        schools: config
            .schools
            .iter()
            .enumerate()
            .map(|(k, params)| SchoolConfig {
                fish: fish.get(k + 1).copied().unwrap_or(0),
                params: *params,
                colour: Some(config.colour_of(k as u16 + 1)),
                ..SchoolConfig::default()
            })
            .collect(),
        tank: config.tank,
        seed: config.seed,
        scene,
        ..ExperimentConfig::default()
    }
}

/// The running volume as a configuration file, as [`running_config`] is a
/// plane's: every school's fish count and parameters, the tank, `seed`,
/// the tick's length, Couzin's zones if they run, and the scene as it
/// stands (no attract/repel point, no group goals).
pub fn running_volume_config(state: &Flock3dState, seed: u64) -> VolumeConfig {
    let flock = state.flock();
    let params = flock.params();
    let fish = fish_per_school(flock.schools(), params.len());
    let scene = saved_scene(flock.scene());
    VolumeConfig {
        fish: fish.first().copied().unwrap_or(0),
        params: params.first().copied().unwrap_or_default(),
        schools: params
            .iter()
            .zip(&fish)
            .skip(1)
            .map(|(&params, &fish)| SchoolConfig { fish, params, ..SchoolConfig::default() })
            .collect(),
        tank: *flock.tank(),
        seed,
        dt: flock.dt(),
        zones: flock.zones().copied(),
        scene,
        ..VolumeConfig::default()
    }
}

/// How many of the fish (each fish's school, by slot) are in each of
/// `schools` schools.
fn fish_per_school(school_of: &[u16], schools: usize) -> Vec<usize> {
    let mut fish = vec![0usize; schools];
    for &school in school_of {
        if let Some(n) = fish.get_mut(usize::from(school)) {
            *n += 1;
        }
    }
    fish
}

/// The scene as a configuration file keeps it: without the attract/repel
/// point (it follows a pointer) and the group goals (a decision layer sets
/// them).
fn saved_scene<V: mirofish_sim::Vector>(scene: &mirofish_sim::Scene<V>) -> mirofish_sim::Scene<V> {
    mirofish_sim::Scene { attractor: None, group_goals: Vec::new(), ..scene.clone() }
}

/// Carries out the button pressed ([`RecorderControls::asked`]), in
/// `Update` (order a game's systems after it to see what it did): over
/// the plane's recorder ([`FlockRecorder`]), or where only a volume runs,
/// the volume's ([`Flock3dRecorder`]).
///
/// [`Flock3dRecorder`]: mirofish_bevy::volume::Flock3dRecorder
pub fn act(world: &mut World) {
    let Some(asked) = world.resource_mut::<RecorderControls>().asked.take() else { return };
    let configs = *world.resource::<SessionConfigs>();
    let volume = world.contains_resource::<Flock3dState>() && !world.contains_resource::<FlockState>();
    let message = match (asked, volume) {
        (Ask::SaveConfig, _) => {
            let file = folder(world.resource::<RecorderControls>())
                .join(&world.resource::<RecorderControls>().config_file);
            let saved = match volume {
                true => (configs.volume_running)(world).save(&file),
                false => (configs.running)(world).save(&file),
            };
            match saved {
                Ok(()) => format!("configuration saved to {}", file.display()),
                Err(e) => format!("configuration not saved: {e}"),
            }
        }
        (Ask::Record, true) => record::<Vec3>(world, configs.volume_start),
        (Ask::Record, false) => record::<Vec2>(world, configs.start),
        (Ask::Stop, true) => stop::<Vec3>(world),
        (Ask::Stop, false) => stop::<Vec2>(world),
        (Ask::Replay, true) => replay::<Vec3>(world),
        (Ask::Replay, false) => replay::<Vec2>(world),
    };
    world.resource_mut::<RecorderControls>().message = message;
}

/// Where the files go: the controls' folder, or the working folder.
fn folder(controls: &RecorderControls) -> PathBuf {
    controls.folder.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default()
}

/// Restarts from what `start` reads and records, in `V`'s space.
fn record<V: Space>(world: &mut World, start: fn(&World) -> RunConfig<V>) -> String {
    let start = start(world);
    let every = world.resource::<RecorderControls>().checkpoint_every;
    world.resource_mut::<FlockRecorderOf<V>>().record(start, every);
    "recording from a fresh start".to_owned()
}

/// Stops `V`'s recorder, saves what it recorded and keeps it as the
/// space's last recording.
fn stop<V: Space>(world: &mut World) -> String
where
    RunConfig<V>: Scenario<Command = FlockCommand<V>>,
{
    let (stopped, was) = world.resource_scope(|world, mut recorder: Mut<FlockRecorderOf<V>>| {
        let (state, was) = (world.resource::<FlockState<V>>(), recorder.session().clone());
        let outside = recorder.changed_outside_commands(state);
        (recorder.stop(state, world.resource::<FlockCommands<V>>()).map(|r| (r, outside)), was)
    });
    let Some((recording, outside)) = stopped else {
        return match was {
            Session::Idle => "nothing recorded: press record first".to_owned(),
            _ => "replay stopped".to_owned(),
        };
    };
    let controls = world.resource::<RecorderControls>();
    let file = folder(controls).join(&controls.recording_file);
    let mut said = match recording.save(&file) {
        Ok(()) => format!("{} ticks saved to {}", recording.ticks, file.display()),
        Err(e) => format!("{} ticks recorded, not saved: {e}", recording.ticks),
    };
    if outside {
        said.push_str(" (the school was changed outside the commands: it will not replay to its end)");
    }
    *world.resource_mut::<RecorderControls>().last_of::<V>() = Some(recording);
    said
}

/// Replays the space's last recording with `V`'s recorder.
fn replay<V: Space>(world: &mut World) -> String
where
    RunConfig<V>: Scenario<Command = FlockCommand<V>>,
{
    match world.resource_mut::<RecorderControls>().last_of::<V>().clone() {
        Some(recording) => {
            world.resource_mut::<FlockRecorderOf<V>>().replay(recording);
            "replaying the last recording".to_owned()
        }
        None => "nothing recorded yet".to_owned(),
    }
}

/// How the session stands, in words.
pub fn session_words(session: &Session) -> String {
    match session {
        Session::Idle => "no session".to_owned(),
        Session::Recording => "● recording".to_owned(),
        Session::Replaying => "▶ replaying".to_owned(),
        Session::Matched { ticks } => format!("replay matched, {ticks} ticks bit for bit"),
        Session::Diverged { tick, .. } => format!("replay diverged at tick {tick}"),
    }
}
