//! Configuration files as assets: a `.flock.ron` file — the lab's
//! configuration format (`mirofish_sim::ExperimentConfig`) — loaded through
//! Bevy's asset server and followed as it changes. Edit the file while the
//! game runs (with Bevy's `file_watcher` feature) and the school takes the
//! new parameters at the next tick.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_bevy::{FlockAssetPlugin, FlockConfigAsset};
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), FlockAssetPlugin))
//!     .add_systems(Startup, |mut commands: Commands, assets: Res<AssetServer>| {
//!         commands.insert_resource(FlockConfigAsset::spawning(assets.load("school.flock.ron")));
//!     })
//!     .run();
//! ```

use core::fmt;

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoadFailedEvent, AssetLoader, LoadContext};
use bevy::prelude::*;
use mirofish_sim::{ConfigError, ExperimentConfig, ParamError};

use crate::commands::FlockCommands;
use crate::config::FlockConfig;
use crate::refusals::{self, FlockRefusal, FlockRefusals, Refused};
use crate::spawn::SpawnSchool;
use crate::state::FlockState;

/// A loaded `.flock.ron` file.
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct FlockAsset {
    /// What the file says.
    pub config: ExperimentConfig,
}

/// Reads `.flock.ron` files (a valid configuration, or an error naming the
/// field and the line).
#[derive(Clone, Copy, Debug, Default, TypePath)]
pub struct FlockAssetLoader;

/// Why a `.flock.ron` file did not load.
#[derive(Debug)]
pub enum FlockAssetError {
    /// It could not be read.
    Io(std::io::Error),
    /// It is not valid UTF-8.
    Text(core::str::Utf8Error),
    /// It is not a valid configuration.
    Config(ConfigError),
}

impl fmt::Display for FlockAssetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlockAssetError::Io(e) => write!(f, "flock configuration unreadable: {e}"),
            FlockAssetError::Text(e) => write!(f, "flock configuration is not text: {e}"),
            FlockAssetError::Config(e) => write!(f, "flock configuration refused: {e}"),
        }
    }
}

impl std::error::Error for FlockAssetError {}

impl AssetLoader for FlockAssetLoader {
    type Asset = FlockAsset;
    type Settings = ();
    type Error = FlockAssetError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _context: &mut LoadContext<'_>,
    ) -> Result<FlockAsset, FlockAssetError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await.map_err(FlockAssetError::Io)?;
        let text = core::str::from_utf8(&bytes).map_err(FlockAssetError::Text)?;
        let config = ExperimentConfig::from_ron(text).map_err(FlockAssetError::Config)?;
        Ok(FlockAsset { config })
    }

    fn extensions(&self) -> &[&str] {
        &["flock.ron"]
    }
}

/// The configuration file the flock follows: each time it loads or
/// changes, [`FlockConfig`] becomes what it says (parameters of every
/// school, tank, seed, goals, attractor, and the colour of each school
/// that names one).
#[derive(Resource, Clone, Debug)]
pub struct FlockConfigAsset {
    /// The file.
    pub handle: Handle<FlockAsset>,
    /// On its first load, also spawn its schools (with their headings and
    /// leaders) and send its rocks, predators and route as commands.
    pub spawn: bool,
    spawned: bool,
}

impl FlockConfigAsset {
    /// Follow `handle`'s configuration (fish are spawned by the game).
    pub fn new(handle: Handle<FlockAsset>) -> Self {
        Self { handle, spawn: false, spawned: false }
    }

    /// Follow `handle`'s configuration, and on its first load spawn what
    /// it describes.
    pub fn spawning(handle: Handle<FlockAsset>) -> Self {
        Self { spawn: true, ..Self::new(handle) }
    }
}

/// Loads `.flock.ron` files and keeps [`FlockConfig`] in step with the one
/// named by the [`FlockConfigAsset`] resource. Needs Bevy's `AssetPlugin`
/// (in `DefaultPlugins`).
pub struct FlockAssetPlugin;

impl Plugin for FlockAssetPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<FlockAsset>()
            .init_asset_loader::<FlockAssetLoader>()
            .add_systems(PreUpdate, follow_config_asset);
    }
}

/// Applies the followed file when it loads or changes; reports it when it
/// does not load.
#[expect(clippy::too_many_arguments, reason = "a system's parameters")]
fn follow_config_asset(
    mut events: MessageReader<AssetEvent<FlockAsset>>,
    mut failures: MessageReader<AssetLoadFailedEvent<FlockAsset>>,
    assets: Res<Assets<FlockAsset>>,
    source: Option<ResMut<FlockConfigAsset>>,
    mut config: ResMut<FlockConfig>,
    mut queue: ResMut<FlockCommands>,
    mut commands: Commands,
    (state, mut refusals, mut messages): (
        Res<FlockState>,
        ResMut<FlockRefusals>,
        MessageWriter<FlockRefusal>,
    ),
) {
    let Some(mut source) = source else {
        events.clear();
        failures.clear();
        return;
    };
    let followed = source.handle.id();
    for failure in failures.read().filter(|f| f.id == followed) {
        let error = ParamError {
            field: "file",
            value: f32::NAN,
            expected: format!("a configuration that loads ({})", failure.error),
        };
        let refusal =
            FlockRefusal { tick: state.flock.tick(), what: Refused::File(failure.path.to_string()), error };
        refusals::report(&mut refusals, &mut messages, refusal);
    }
    let changed = events.read().any(|event| match event {
        AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id } => *id == followed,
        _ => false,
    });
    let Some(asset) = assets.get(followed).filter(|_| changed) else { return };
    let file = &asset.config;
    // A school's colour comes from the file where it gives one, else it
    // stays the game's.
    *config = FlockConfig { colours: config.colours_with(file), ..FlockConfig::from(file) };
    if source.spawn && !source.spawned {
        source.spawned = true;
        for (school, s) in file.all_schools().enumerate() {
            commands.queue(SpawnSchool {
                heading: s.heading,
                ..SpawnSchool::new(s.fish).in_school(school as u16).with_leaders(s.leaders)
            });
        }
        for command in mirofish_sim::step::command::scene_commands(&file.scene) {
            if let Err(e) = queue.submit(command) {
                log::warn!("MiroFish: {e}");
            }
        }
    }
}
