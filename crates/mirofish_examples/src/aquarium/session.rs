//! Record, stop, replay and save: the panel's session buttons over the
//! plugin's [`FlockRecorder`].
//!
//! Recording restarts the scene from the panel's settings (fish count,
//! seed, each school's parameters as tuned, the tank, the scene file's
//! rocks, predators and route), laid out as the core lays out a
//! configuration, so that `mirofish-lab replay` runs the saved file to the
//! same bits. Every click and key of the tools is a command, so it is in
//! the recording; stopping saves it next to the program.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::egui;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockCommands, Session};
use mirofish_sim::{ExperimentConfig, Recording, SchoolConfig};

use super::AquariumSettings;

/// File a stopped recording is saved to.
pub const RECORDING_FILE: &str = "aquarium-session.replay";
/// File the running configuration is saved to.
pub const CONFIG_FILE: &str = "aquarium.flock.ron";

/// What the session buttons asked for, and what happened.
#[derive(Resource, Debug, Default)]
pub struct SessionControls {
    /// The button pressed this frame, if any.
    pub asked: Option<Ask>,
    /// The last recording, stopped or loaded.
    pub last: Option<Recording>,
    /// What the last action did, for the panel.
    pub message: String,
    /// Where files are saved (`None`: the working folder).
    pub folder: Option<PathBuf>,
}

/// A session button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Restart the scene and record.
    Record,
    /// Stop recording (and save) or stop replaying.
    Stop,
    /// Replay the last recording.
    Replay,
    /// Save the running configuration as a `.flock.ron` file.
    SaveConfig,
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

/// The running configuration as a file: every school's fish count,
/// parameters and colour, the tank, the seed, and the scene as it stands
/// (rocks, predators, goals, route).
pub fn running_config(
    settings: &AquariumSettings,
    config: &FlockConfig,
    state: &FlockState,
) -> ExperimentConfig {
    let mut fish = vec![0usize; config.school_table().len()];
    for &school in state.flock().school_indices() {
        if let Some(n) = fish.get_mut(usize::from(school)) {
            *n += 1;
        }
    }
    let mut file = start_config(settings, config);
    file.fish = fish.first().copied().unwrap_or(0);
    file.colour = Some(config.colour_of(0));
    file.schools = config
        .schools
        .iter()
        .enumerate()
        .map(|(k, params)| SchoolConfig {
            fish: fish.get(k + 1).copied().unwrap_or(0),
            params: *params,
            heading: settings.scene.schools.get(k).and_then(|s| s.heading),
            leaders: 0,
            colour: Some(config.colour_of(k as u16 + 1)),
        })
        .collect();
    file.leaders = 0;
    file.scene = state.scene().clone();
    file.scene.group_goals.clear();
    file
}

/// The session section of the panel.
pub fn controls(ui: &mut egui::Ui, session: &mut SessionControls, recorder: &FlockRecorder) {
    let state = match recorder.session() {
        Session::Idle => "no session".to_owned(),
        Session::Recording => "● recording".to_owned(),
        Session::Replaying => "▶ replaying".to_owned(),
        Session::Matched { ticks } => format!("replay matched, {ticks} ticks bit for bit"),
        Session::Diverged { tick, .. } => format!("replay diverged at tick {tick}"),
    };
    ui.label(state);
    ui.horizontal(|ui| {
        let busy = matches!(recorder.session(), Session::Recording | Session::Replaying);
        if ui.add_enabled(!busy, egui::Button::new("● record")).on_hover_text("restarts the scene").clicked()
        {
            session.asked = Some(Ask::Record);
        }
        if ui.add_enabled(busy, egui::Button::new("■ stop")).clicked() {
            session.asked = Some(Ask::Stop);
        }
        if ui.add_enabled(!busy && session.last.is_some(), egui::Button::new("▶ replay")).clicked() {
            session.asked = Some(Ask::Replay);
        }
        if ui.button("save config").clicked() {
            session.asked = Some(Ask::SaveConfig);
        }
    });
    if !session.message.is_empty() {
        ui.label(&session.message);
    }
}

/// Carries out the button pressed.
pub fn act(
    mut session: ResMut<SessionControls>,
    mut recorder: ResMut<FlockRecorder>,
    settings: Res<AquariumSettings>,
    config: Res<FlockConfig>,
    state: Res<FlockState>,
    commands: Res<FlockCommands>,
) {
    let Some(asked) = session.asked.take() else { return };
    let folder = session.folder.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
    let here = |name: &str| folder.join(name);
    session.message = match asked {
        Ask::Record => {
            recorder.record(start_config(&settings, &config), 60);
            "recording from a fresh start".to_owned()
        }
        Ask::Stop => match recorder.stop(&state, &commands) {
            Some(recording) => {
                let path = here(RECORDING_FILE);
                let said = match recording.save(&path) {
                    Ok(()) => format!("{} ticks saved to {}", recording.ticks, path.display()),
                    Err(e) => format!("{} ticks recorded, not saved: {e}", recording.ticks),
                };
                session.last = Some(recording);
                said
            }
            None => "replay stopped".to_owned(),
        },
        Ask::Replay => match session.last.clone() {
            Some(recording) => {
                recorder.replay(recording);
                "replaying the last recording".to_owned()
            }
            None => "nothing recorded yet".to_owned(),
        },
        Ask::SaveConfig => {
            let path = here(CONFIG_FILE);
            match running_config(&settings, &config, &state).save(&path) {
                Ok(()) => format!("configuration saved to {}", path.display()),
                Err(e) => format!("configuration not saved: {e}"),
            }
        }
    };
}
