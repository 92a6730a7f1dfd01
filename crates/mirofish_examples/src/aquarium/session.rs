//! What the aquarium records and saves, for the game kit's recorder
//! ([`mirofish_kit::RecorderPlugin`]).
//!
//! Recording restarts the scene from the panel's settings (fish count,
//! seed, each school's parameters as tuned, the tank, the scene file's
//! rocks, predators and route), laid out as the core lays out a
//! configuration, so that `mirofish-lab replay` runs the saved file to the
//! same bits. Every click and key of the tools is a command, so it is in
//! the recording; stopping saves it next to the program.

use std::path::PathBuf;

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_kit::{RecorderControls, SessionConfigs};
use mirofish_sim::{ExperimentConfig, SchoolConfig};

use super::AquariumSettings;

/// File a stopped recording is saved to.
pub const RECORDING_FILE: &str = "aquarium-session.replay";
/// File the running configuration is saved to.
pub const CONFIG_FILE: &str = "aquarium.flock.ron";

/// The kit's recorder with the aquarium's files and configurations.
pub fn recorder(folder: Option<PathBuf>) -> (RecorderControls, SessionConfigs) {
    let controls = RecorderControls {
        folder,
        recording_file: RECORDING_FILE.into(),
        config_file: CONFIG_FILE.into(),
        ..default()
    };
    let configs = SessionConfigs {
        start: |world| start_config(world.resource::<AquariumSettings>(), world.resource::<FlockConfig>()),
        running: |world| {
            let settings = world.resource::<AquariumSettings>();
            running_config(settings, world.resource::<FlockConfig>(), world.resource::<FlockState>())
        },
        ..default()
    };
    (controls, configs)
}

/// A recording's start for the panel's settings: the scene file with the
/// settings' fish count (shared between the schools as the aquarium
/// shares it) and seed, and each school's parameters as they are now.
pub fn start_config(settings: &AquariumSettings, config: &FlockConfig) -> ExperimentConfig {
    let mut start = settings.scene.clone();
    let second = (settings.fish as f32 * settings.second_school_share.clamp(0.0, 1.0)) as usize;
    start.fish = settings.fish - second;
    start.seed = settings.seed;
    start.params = config.params;
    start.tank = config.tank;
    start.leaders = start.leaders.min(start.fish);
    start.schools.truncate(1);
    if second > 0 {
        let first = start.schools.first().cloned().unwrap_or_default();
        let params = config.schools.first().copied().unwrap_or(first.params);
        start.schools =
            vec![SchoolConfig { fish: second, params, leaders: first.leaders.min(second), ..first }];
    } else {
        start.schools.clear();
    }
    start.scene.goal = config.goal;
    start.scene.school_goals.clone_from(&config.school_goals);
    start.scene.attractor = None;
    start
}

/// The running configuration as a file ([`mirofish_kit::recorder::running_config`]:
/// every school's fish count, parameters and colour, the tank, the seed,
/// the scene as it stands), with the scene file's starting headings, time
/// step and metrics interval.
pub fn running_config(
    settings: &AquariumSettings,
    config: &FlockConfig,
    state: &FlockState,
) -> ExperimentConfig {
    let scene = &settings.scene;
    let mut file = mirofish_kit::recorder::running_config(config, state);
    (file.dt, file.metrics_every, file.heading) = (scene.dt, scene.metrics_every, scene.heading);
    for (school, from) in file.schools.iter_mut().zip(&scene.schools) {
        school.heading = from.heading;
    }
    file
}
