//! The aquarium in three dimensions: two schools in a lit glass tank with
//! a sandy floor, weed and rocks, and fog, drawn as one shared fish mesh and one material
//! per school (Bevy batches them into a few instanced draws), an orbiting
//! camera, the kit's mouse tools on the floor and its debug overlay, the
//! decision layer (off until switched on in the panel), the kit's keys
//! and run controls (pause, step), and the kit's
//! panel (the school's numbers, health, the rules of each school, the
//! decision units, record and replay, plots) with Couzin's zone model and
//! a start for each of its four states.
//!
//! [`Aquarium3dPlugin`] is all of it; the `aquarium3d` example and the web
//! page add it to a window. Needs `DefaultPlugins` (a window and a 3D
//! renderer).

mod panel;
mod scene;
mod smoke;

use bevy::light::GlobalAmbientLight;
use bevy::prelude::*;
use mirofish_bevy::volume::*;
use mirofish_decide::plugin::{DecisionPlugin3d, DecisionSettings};
use mirofish_kit::camera3d::TankCamera3dPlugin;
use mirofish_kit::look3d::{FishLook3d, FishLook3dPlugin};
use mirofish_kit::tools3d::MouseTools3dPlugin;
use mirofish_kit::{DebugOverlay3dPlugin, RunControlsPlugin, ShortcutsPlugin};
use mirofish_sim::{FlockParams, Tank3d, VolumeConfig, VolumeRecording};

pub use panel::{
    COUZIN_FISH, Panel3d, Panel3dPlugin, Start, aquarium_zones, floor_rocks, quick_school, record_from,
    restart, rules_start, start_config,
};
pub use smoke::{Smoke3d, judge_picture};

/// The schools' colours (sRGB): orange and teal.
pub const SCHOOL_COLOURS: [[f32; 3]; 2] = [[1.0, 0.55, 0.12], [0.15, 0.75, 0.85]];

/// The whole 3D aquarium: the plugin for a volume, the fish's look, the
/// floor, light and fog, the orbiting camera, the mouse tools and the
/// panel. With a [`Smoke3d`] resource, the screenshot self-test runs too.
#[derive(Clone, Debug)]
pub struct Aquarium3dPlugin {
    /// Fish in the rules' start (a quarter in the quicker second school).
    pub fish: usize,
    /// The seed of every start.
    pub seed: u64,
    /// How the volume starts, unless `scene` or `replay` say otherwise.
    pub start: Start,
    /// A configuration to start from instead (its tank is the aquarium's).
    pub scene: Option<VolumeConfig>,
    /// A recorded session to replay instead (its configuration's tank).
    pub replay: Option<VolumeRecording>,
}

impl Default for Aquarium3dPlugin {
    fn default() -> Self {
        Self { fish: 4000, seed: 1, start: Start::Rules, scene: None, replay: None }
    }
}

impl Plugin for Aquarium3dPlugin {
    fn build(&self, app: &mut App) {
        let scene = self.replay.as_ref().map(|r| r.config.clone()).or_else(|| self.scene.clone());
        let tank = scene.as_ref().map_or(Tank3d::centered(Vec3::new(1400.0, 600.0, 900.0)), |s| s.tank);
        let config = Flock3dConfig { params: FlockParams::default(), tank, seed: self.seed, ..default() };
        let (replay, start) = (self.replay.clone(), self.start);
        app.insert_resource(ClearColor(Color::srgb(0.02, 0.07, 0.12)))
            .insert_resource(GlobalAmbientLight { brightness: 150.0, ..default() })
            .insert_resource(config.clone())
            // About ten samples a second, for the panel's plots and state.
            .insert_resource(mirofish_bevy::FlockMetrics::new(6))
            .insert_resource(Panel3d::new(config, self.fish))
            .insert_resource(FishLook3d { colours: SCHOOL_COLOURS.to_vec(), ..default() })
            .add_plugins((MiroFish3dPlugin::default().with_banking(0.6), Panel3dPlugin, FishLook3dPlugin))
            .add_plugins((MouseTools3dPlugin, TankCamera3dPlugin, scene::ScenePlugin, smoke::Smoke3dPlugin))
            // The kit's overlay draws the glass (the tank's edges), the
            // predators' reach and, once switched on in the panel, each
            // decision unit's goal.
            .insert_resource(DecisionSettings { on: false, ..default() })
            .add_plugins((DebugOverlay3dPlugin, DecisionPlugin3d))
            // Space pauses, N steps, C clears, H hides the panel.
            .add_plugins((RunControlsPlugin, ShortcutsPlugin))
            .add_systems(
                Startup,
                (move |mut commands: Commands,
                       panel: Res<Panel3d>,
                       mut recorder: ResMut<Flock3dRecorder>| {
                    match (&replay, &scene) {
                        (Some(recording), _) => recorder.replay(recording.clone()),
                        (None, Some(scene)) => record_from(&mut commands, scene.clone()),
                        (None, None) => restart(&mut commands, &panel, start),
                    }
                })
                .after(scene::setup),
            );
    }
}
