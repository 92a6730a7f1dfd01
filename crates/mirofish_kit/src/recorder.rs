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
//! the same buttons work over the volume plugin's session: record loads the
//! start ([`SessionConfigs::volume_start`], by default the running volume)
//! with [`LoadVolume3d`], stop saves [`Flock3dState::recording`] (the
//! session since that load: the volume runs on), replay plays the last one
//! with [`ReplayVolume3d`], and save config writes the running volume's
//! configuration.

use std::path::PathBuf;

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::volume::{Flock3dConfig, Flock3dState, LoadVolume3d, ReplayVolume3d};
use mirofish_bevy::{FlockCommands, Session};
use mirofish_sim::{ExperimentConfig, Recording, SchoolConfig, VolumeConfig, VolumeRecording};

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
/// the plane plugin's recorder, or where only a volume runs, over the
/// volume plugin's session.
pub fn act(world: &mut World) {
    let Some(asked) = world.resource_mut::<RecorderControls>().asked.take() else { return };
    let configs = *world.resource::<SessionConfigs>();
    let controls = world.resource::<RecorderControls>();
    let folder = controls.folder.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
    let (recording_file, config_file) =
        (folder.join(&controls.recording_file), folder.join(&controls.config_file));
    let every = controls.checkpoint_every;
    let volume = world.contains_resource::<Flock3dState>() && !world.contains_resource::<FlockState>();
    let saved = |ticks: u64, result: Result<(), mirofish_sim::ReplayError>| match result {
        Ok(()) => format!("{ticks} ticks saved to {}", recording_file.display()),
        Err(e) => format!("{ticks} ticks recorded, not saved: {e}"),
    };
    let message = match (asked, volume) {
        (Ask::Record, false) => {
            let start = (configs.start)(world);
            world.resource_mut::<FlockRecorder>().record(start, every);
            "recording from a fresh start".to_owned()
        }
        (Ask::Record, true) => {
            LoadVolume3d((configs.volume_start)(world)).apply(world);
            match world.resource::<Flock3dState>().loaded() {
                Some(_) => "recording from a fresh start".to_owned(),
                None => "not recording: the start was refused (see the refusals)".to_owned(),
            }
        }
        (Ask::Stop, false) => {
            let stopped = world.resource_scope(|world, mut recorder: Mut<FlockRecorder>| {
                recorder.stop(world.resource::<FlockState>(), world.resource::<FlockCommands>())
            });
            match stopped {
                Some(recording) => {
                    let said = saved(recording.ticks, recording.save(&recording_file));
                    world.resource_mut::<RecorderControls>().last = Some(recording);
                    said
                }
                None => "replay stopped".to_owned(),
            }
        }
        (Ask::Stop, true) => match world.resource::<Flock3dState>().recording() {
            Some(Ok(recording)) => {
                let said = saved(recording.ticks, recording.save(&recording_file));
                world.resource_mut::<RecorderControls>().last_volume = Some(recording);
                said
            }
            Some(Err(e)) => format!("not recorded: {e}"),
            None => "nothing recorded: press record first".to_owned(),
        },
        (Ask::Replay, false) => match world.resource::<RecorderControls>().last.clone() {
            Some(recording) => {
                world.resource_mut::<FlockRecorder>().replay(recording);
                "replaying the last recording".to_owned()
            }
            None => "nothing recorded yet".to_owned(),
        },
        (Ask::Replay, true) => match world.resource::<RecorderControls>().last_volume.clone() {
            Some(recording) => {
                ReplayVolume3d(recording).apply(world);
                "replaying the last recording".to_owned()
            }
            None => "nothing recorded yet".to_owned(),
        },
        (Ask::SaveConfig, _) => {
            let result = match volume {
                true => (configs.volume_running)(world).save(&config_file),
                false => (configs.running)(world).save(&config_file),
            };
            match result {
                Ok(()) => format!("configuration saved to {}", config_file.display()),
                Err(e) => format!("configuration not saved: {e}"),
            }
        }
    };
    world.resource_mut::<RecorderControls>().message = message;
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
