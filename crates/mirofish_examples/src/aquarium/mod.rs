//! The aquarium: a ready-made scene around the plugin and the game kit
//! (`mirofish_kit`: the fish's look, the mouse tools that spawn predators
//! and rocks and drag an attractor, the gizmo debug overlay) — water with
//! light shafts, sand, weed and rocks, an egui panel with every parameter
//! live, keys and session buttons. `cargo run --release --example
//! aquarium` shows it.
//!
//! Everything the mouse, the keyboard and the panel change goes through the
//! plugin's [`FlockCommands`], so an aquarium session
//! is as reproducible as a scripted one.
//!
//! The module is part of the `render` feature.

pub mod input;
pub mod inspect;
pub mod intent;
pub mod panel;
pub mod scenery;
pub mod session;
pub mod smoke;
mod stats;

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockCommands, FlockMetrics};
use mirofish_kit::{DebugOverlayPlugin, FishLookPlugin, PanelSettings, RecorderPlugin, TuningPanelPlugin};
use mirofish_sim::ExperimentConfig;
use mirofish_sim::step::command::FlockCommand;

pub use intent::{DecisionSettings, Decisions, decision_settings};
pub use mirofish_kit::{CursorWorld, FishReport, Inspected, OverlaySettings, PointerOverUi, ToolSettings};
pub use smoke::{Coverage, SmokeTest};
pub use stats::TickStats;

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
    /// Seed of the next reset.
    pub seed: u64,
    /// Whether the simulation clock is stopped.
    pub paused: bool,
    /// Run one tick at the next frame (while paused).
    pub step: bool,
    /// Start over at the next frame: despawn everything, respawn from `seed`.
    pub reset: bool,
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
            paused: false,
            step: false,
            reset: false,
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

/// The whole aquarium: the simulation plugin, its configuration, the
/// camera, the fish's looks, the panel, the mouse tools and the overlay.
/// Needs `DefaultPlugins` (a window and a renderer).
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
            .add_plugins((
                input::InputToolsPlugin,
                FishLookPlugin,
                scenery::SceneryPlugin,
                DebugOverlayPlugin,
                smoke::SmokeTestPlugin,
            ))
            .init_resource::<TickStats>()
            .add_plugins(RecorderPlugin)
            .add_systems(Startup, setup)
            .add_systems(
                FixedUpdate,
                (
                    stats::tick_started.before(BoidSystems::Commands),
                    stats::tick_finished.after(BoidSystems::Writeback),
                ),
            )
            .add_systems(
                Update,
                // A recording's restart first: `reset` then sees it.
                (stats::frame_time, sync_fish_count, pause_and_step, reset, frame_tank)
                    .chain()
                    .after(mirofish_kit::recorder::act),
            )
            .add_systems(Update, inspect::follow.after(mirofish_kit::tools::mouse_tools));
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

fn setup(
    mut commands: Commands,
    config: Res<FlockConfig>,
    settings: Res<AquariumSettings>,
    panel: Res<PanelSettings>,
) {
    let (projection, transform) = framing(&config.tank, panel.show);
    commands.spawn((Camera2d, projection, transform));
    spawn_schools(&mut commands, &settings);
}

/// Share of the window's width the panel covers (290 px of 1280 plus
/// margins).
const PANEL_SHARE: f32 = 0.24;

/// A projection and camera position that show the whole tank with a little
/// water around it — right of the panel when it is shown.
pub(crate) fn framing(tank: &Tank, panel: bool) -> (Projection, Transform) {
    let size = tank.size() * 1.04;
    let free = if panel { 1.0 - PANEL_SHARE } else { 1.0 };
    let width = size.x / free;
    let centre = (tank.min + tank.max) * 0.5 - Vec2::X * (width - size.x) * 0.5;
    let projection = Projection::Orthographic(OrthographicProjection {
        scaling_mode: ScalingMode::AutoMin { min_width: width, min_height: size.y },
        ..OrthographicProjection::default_2d()
    });
    (projection, Transform::from_translation(centre.extend(0.0)))
}

/// Re-frames the tank when the panel is shown or hidden.
fn frame_tank(
    panel: Res<PanelSettings>,
    config: Res<FlockConfig>,
    mut camera: Query<(&mut Projection, &mut Transform), With<Camera2d>>,
    mut shown: Local<Option<bool>>,
) {
    if *shown == Some(panel.show) {
        return;
    }
    *shown = Some(panel.show);
    for (mut projection, mut transform) in &mut camera {
        (*projection, *transform) = framing(&config.tank, panel.show);
    }
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
    mut asked: Local<Option<usize>>,
) {
    if !settings.is_changed() || *asked == Some(settings.fish) || settings.reset {
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

/// Pause, resume and single-step through `Time<Virtual>` and a direct run
/// of the fixed schedule.
fn pause_and_step(world: &mut World) {
    let (paused, step) = {
        let s = world.resource::<AquariumSettings>();
        (s.paused, s.step)
    };
    let mut time = world.resource_mut::<Time<Virtual>>();
    if paused != time.is_paused() {
        if paused { time.pause() } else { time.unpause() }
    }
    if step {
        world.resource_mut::<AquariumSettings>().step = false;
        if paused {
            world.run_schedule(FixedUpdate);
        }
    }
}

/// Starts over from the settings' seed: every fish, predator and obstacle
/// goes, the state and the command log are renewed, the schools respawn.
fn reset(world: &mut World) {
    if !world.resource::<AquariumSettings>().reset {
        return;
    }
    let settings = {
        let mut s = world.resource_mut::<AquariumSettings>();
        s.reset = false;
        s.clone()
    };
    // A reset ends a recording or replay: it is not a command.
    world.resource_scope(|world, mut recorder: Mut<FlockRecorder>| {
        let _ = recorder.stop(world.resource(), world.resource());
    });
    let doomed: Vec<Entity> = world
        .query_filtered::<Entity, Or<(With<Boid>, With<Predator2d>, With<Obstacle2d>)>>()
        .iter(world)
        .collect();
    for e in doomed {
        world.despawn(e);
    }
    let mut config = world.resource::<FlockConfig>().clone();
    config.seed = settings.seed;
    config.attractor = None;
    world.insert_resource(config.clone());
    world.insert_resource(FlockState::new(config));
    world.insert_resource(FlockCommands::default());
    world.resource_mut::<FlockMetrics>().clear();
    let mut commands = world.commands();
    spawn_schools(&mut commands, &settings);
    world.flush();
}
