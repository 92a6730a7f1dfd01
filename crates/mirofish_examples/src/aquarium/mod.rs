//! The aquarium: a ready-made scene around the plugin and the game kit
//! (`mirofish_kit`: the fish's look, the mouse tools that spawn predators
//! and rocks and drag an attractor, the gizmo debug overlay) — water with
//! light shafts, sand, weed and rocks, an egui panel with every parameter
//! live, keys and session buttons. `cargo run --release --example
//! aquarium` shows it.
//!
//! Everything the mouse, the keyboard and the panel change goes through the
//! plugin's [`FlockCommands`], so an aquarium session
//! is as reproducible as a scripted one. The camera, the keys and the run
//! controls are the kit's ([`TankCameraPlugin`], [`ShortcutsPlugin`],
//! [`RunControlsPlugin`]); what is the aquarium's own is its scene, its
//! scenery, the fish count that follows the panel's slider, its restart
//! and its screenshot self-test.
//!
//! The module is part of the `render` feature.

pub mod intent;
pub mod panel;
pub mod scenery;
pub mod session;
pub mod smoke;

use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockCommands, FlockMetrics};
use mirofish_kit::run::RunSystems;
use mirofish_kit::{
    DebugOverlayPlugin, FishLookPlugin, MouseToolsPlugin, PanelSettings, RecorderPlugin, RunControls,
    RunControlsPlugin, ShortcutsPlugin, TankCamera, TankCameraPlugin, TuningPanelPlugin,
};
use mirofish_sim::ExperimentConfig;
use mirofish_sim::step::command::FlockCommand;

pub use intent::{DecisionSettings, Decisions, decision_settings};
pub use mirofish_kit::{CursorWorld, FishReport, Inspected, OverlaySettings, PointerOverUi, ToolSettings};
pub use smoke::{Coverage, SmokeTest};

/// Background colour of the water.
pub const WATER: Color = Color::srgb(0.03, 0.07, 0.13);

/// What the aquarium starts with and what the panel changes.
#[derive(Resource, Clone, Debug)]
pub struct AquariumSettings {
    /// Fish wanted, over all schools; the panel's count slider. The
    /// difference to the fish present is added or removed by commands.
    pub fish: usize,
    /// Share of the fish in school 1 (the rest are school 0).
    pub second_school_share: f32,
    /// Seed of the next restart ([`RunControls::restart`]: everything
    /// despawned, the schools respawned from it).
    pub seed: u64,
    /// Whether the perception radius follows the fish count: when the
    /// count changes, every school's radius (and its separation radius,
    /// in proportion) is re-sized for `neighbours` neighbours per fish
    /// spread over the tank ([`mirofish_sim::with_auto_radius`]). The same
    /// parameters that look right for 1,000 fish make a blob of 10,000.
    pub auto_radius: bool,
    /// The mean neighbour count, for fish spread evenly over the tank,
    /// the automatic radius aims at: the scene's own (its fish, tank and
    /// perception radius), so its starting count keeps its radius.
    /// Schooling gathers the fish to about three times as many.
    pub neighbours: f32,
    /// The scene the aquarium starts from: each school's parameters and
    /// starting heading, the tank and the goals. Its fish counts give the
    /// default `fish` and `second_school_share`.
    pub scene: ExperimentConfig,
}

/// The aquarium's default scene, `assets/scenes/aquarium.ron`, compiled in
/// (a copied binary needs no assets folder): the same file
/// `mirofish-lab run --config` runs.
pub const SCENE_RON: &str = include_str!("../../../../assets/scenes/aquarium.ron");

/// [`SCENE_RON`], parsed.
pub fn default_scene() -> ExperimentConfig {
    // A test parses it: a broken file fails CI, not a user's start.
    ExperimentConfig::from_ron(SCENE_RON).expect("assets/scenes/aquarium.ron is a valid configuration")
}

impl Default for AquariumSettings {
    fn default() -> Self {
        Self::from_scene(default_scene())
    }
}

impl AquariumSettings {
    /// Settings that start from `scene`: its fish counts, its schools and
    /// the neighbour count its own radius gives (which the automatic radius
    /// then keeps).
    pub fn from_scene(scene: ExperimentConfig) -> Self {
        let fish = scene.total_fish();
        let second = scene.schools.first().map_or(0, |s| s.fish);
        Self {
            fish,
            second_school_share: second as f32 / fish.max(1) as f32,
            seed: scene.seed,
            auto_radius: true,
            neighbours: mirofish_sim::control::preset::spread_neighbours(
                fish,
                scene.tank.size().x * scene.tank.size().y,
                scene.params.perception_radius,
            ),
            scene,
        }
    }
}

/// The whole aquarium: the simulation plugin, its configuration, and the
/// kit's camera, fish's looks, panel, mouse tools, keys, run controls,
/// overlay and recorder, around the aquarium's scene and scenery. Needs
/// `DefaultPlugins` (a window and a renderer).
#[derive(Clone, Debug, Default)]
pub struct AquariumPlugin {
    /// Starting settings.
    pub settings: AquariumSettings,
}

/// The plugin's configuration for the settings' scene: its schools'
/// parameters (the radii re-sized for the settings' fish count where they
/// follow it), its tank and goals, and the settings' seed.
pub fn aquarium_config(settings: &AquariumSettings) -> FlockConfig {
    let scene = &settings.scene;
    let sized = |params: &FlockParams| {
        if settings.auto_radius {
            mirofish_sim::with_auto_radius(params, settings.fish, &scene.tank, settings.neighbours)
        } else {
            *params
        }
    };
    FlockConfig {
        params: sized(&scene.params),
        schools: scene.schools.iter().map(|s| sized(&s.params)).collect(),
        tank: scene.tank,
        seed: settings.seed,
        goal: scene.scene.goal,
        school_goals: scene.scene.school_goals.clone(),
        colours: FlockConfig::from(scene).colours,
        ..default()
    }
}

impl Plugin for AquariumPlugin {
    fn build(&self, app: &mut App) {
        let config = aquarium_config(&self.settings);
        app.insert_resource(ClearColor(WATER))
            .insert_resource(config)
            .insert_resource(self.settings.clone())
            .insert_resource(FlockMetrics::new(15).with_rule_forces())
            .add_plugins((
                MiroFishPlugin::default()
                    .with_tick_rate(60.0)
                    .with_max_catch_up(mirofish_bevy::MAX_CATCH_UP_TICKS),
                TuningPanelPlugin,
            ))
            .insert_resource(PanelSettings { title: "MiroFish aquarium".into(), ..default() })
            .insert_resource(RunControls { restartable: true, ..default() })
            .add_plugins((
                MouseToolsPlugin,
                ShortcutsPlugin,
                RunControlsPlugin,
                TankCameraPlugin,
                FishLookPlugin,
                DebugOverlayPlugin,
                RecorderPlugin,
            ))
            .add_plugins((scenery::SceneryPlugin, smoke::SmokeTestPlugin))
            .add_systems(Startup, setup)
            .add_systems(
                Update,
                // A recording's restart first: `restart` then sees it.
                (sync_fish_count, restart).chain().after(mirofish_kit::recorder::act).after(RunSystems),
            );
        // The decision layer asks its deciders on worker threads, which a
        // browser page does not have: the web build leaves it out.
        #[cfg(not(target_arch = "wasm32"))]
        app.add_plugins(intent::IntentPlugin);
        #[cfg(target_arch = "wasm32")]
        info!("aquarium: the decision layer needs threads; the web build leaves it out");
        let (controls, configs) = session::recorder(None);
        app.insert_resource(controls).insert_resource(configs);
        panel::add_sections(app);
    }
}

fn setup(mut commands: Commands, settings: Res<AquariumSettings>) {
    commands.spawn((Camera2d, TankCamera));
    spawn_schools(&mut commands, &settings);
}

/// Spawns the scene's schools (with their leaders) and sends its rocks,
/// predators and route as commands for the first tick.
fn spawn_schools(commands: &mut Commands, settings: &AquariumSettings) {
    let second = (settings.fish as f32 * settings.second_school_share.clamp(0.0, 1.0)) as usize;
    let scene = &settings.scene;
    commands.queue(SpawnSchool {
        heading: scene.heading,
        ..SpawnSchool::new(settings.fish - second).with_leaders(scene.leaders)
    });
    if second > 0 {
        let first = scene.schools.first();
        let heading = first.and_then(|s| s.heading);
        let leaders = first.map_or(0, |s| s.leaders);
        commands
            .queue(SpawnSchool { heading, ..SpawnSchool::new(second).in_school(1).with_leaders(leaders) });
    }
    let sent = mirofish_sim::step::command::scene_commands(&scene.scene);
    if !sent.is_empty() {
        commands.queue(move |world: &mut World| {
            let mut queue = world.resource_mut::<FlockCommands>();
            for command in sent {
                if let Err(e) = queue.submit(command) {
                    warn!("aquarium scene: {e}");
                }
            }
        });
    }
}

/// Adds or removes fish (through commands) until the count matches the
/// panel's slider, re-sizing the radii first where they follow the count
/// ([`AquariumSettings::auto_radius`]). Only whole-school spawns above;
/// here new fish join school 0 in a disc at the tank's centre.
pub fn sync_fish_count(
    settings: Res<AquariumSettings>,
    fish: Query<(), With<Boid>>,
    mut commands: ResMut<FlockCommands>,
    config: Res<FlockConfig>,
    run: Option<Res<RunControls>>,
    mut asked: Local<Option<usize>>,
) {
    // A restart respawns the count itself.
    let restarting = run.is_some_and(|r| r.restart);
    if !settings.is_changed() || *asked == Some(settings.fish) || restarting {
        return;
    }
    let present = fish.iter().len();
    if asked.is_none() {
        // The first run sees the starting spawn, not a change.
        *asked = Some(settings.fish);
        return;
    }
    *asked = Some(settings.fish);
    if settings.auto_radius {
        follow_fish_count(&settings, &config, &mut commands);
    }
    let command = match settings.fish.cmp(&present) {
        core::cmp::Ordering::Greater => FlockCommand::SpawnFish {
            school: 0,
            count: settings.fish - present,
            centre: (config.tank.min + config.tank.max) * 0.5,
            radius: config.tank.size().min_element() * 0.45,
        },
        core::cmp::Ordering::Less => FlockCommand::RemoveFish { count: present - settings.fish },
        core::cmp::Ordering::Equal => return,
    };
    if let Err(e) = commands.submit(command) {
        warn!("aquarium: {e}");
    }
}

/// Re-sizes every school's radii for the fish count wanted (see
/// [`AquariumSettings::auto_radius`]), through commands.
fn follow_fish_count(settings: &AquariumSettings, config: &FlockConfig, commands: &mut FlockCommands) {
    for (school, params) in config.school_table().iter().enumerate() {
        let sized = mirofish_sim::with_auto_radius(params, settings.fish, &config.tank, settings.neighbours);
        if sized != *params
            && let Err(e) =
                commands.submit(FlockCommand::SetSchoolParams { school: school as u16, params: sized })
        {
            warn!("aquarium: {e}");
        }
    }
}

/// Starts over from the settings' seed when asked ([`RunControls::restart`],
/// the kit's button and key): every fish, predator and obstacle goes, the
/// state and the command log are renewed, the schools respawn.
fn restart(world: &mut World) {
    if !world.resource::<RunControls>().restart {
        return;
    }
    world.resource_mut::<RunControls>().restart = false;
    let settings = world.resource::<AquariumSettings>().clone();
    // The configuration as edited, or the one in force while an edit is
    // refused: a restart is never refused, and never adds to the school.
    let edited = world.resource::<FlockConfig>();
    let mut config = match edited.validate() {
        Ok(()) => edited.clone(),
        Err(_) => world.resource::<FlockState>().config().clone(),
    };
    config.seed = settings.seed;
    config.attractor = None;
    // It ends a recording or replay too: a reset is not a command.
    Restart(config).apply(world);
    let mut commands = world.commands();
    spawn_schools(&mut commands, &settings);
    world.flush();
}
