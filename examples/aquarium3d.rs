//! The aquarium in three dimensions: two schools in a lit glass tank with a
//! sandy floor and fog, drawn as one shared fish mesh and one material per
//! school (Bevy batches them into a few instanced draws).
//!
//! ```text
//! cargo run --release --example aquarium3d
//! cargo run --release --example aquarium3d -- --fish 10000 --seed 7
//! cargo run --release --example aquarium3d -- --smoke shot.png   # CI's self-test
//! cargo run --release --example aquarium3d -- --start torus      # Couzin's states
//! cargo run --release --example aquarium3d -- --scene assets/scenes/volume.ron
//! cargo run --release --example aquarium3d -- --replay aquarium3d.replay  # a saved session
//! ```
//!
//! Controls: drag to orbit, wheel to zoom; a click on the floor drops a
//! predator above it, a right click a rock on it; C clears them (each a
//! command to the core, kept with the run). The panel
//! shows polarization, milling and the collective state they name, plots
//! them, sets every rule of each school, and starts the fish over under
//! Couzin's zone model in one of its four states (swarm, torus, dynamic
//! parallel, highly parallel), whose orientation zone you then slide.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::core_pipeline::core_3d::Opaque3d;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::light::GlobalAmbientLight;
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy::render::render_phase::ViewBinnedRenderPhases;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::window::{PrimaryWindow, WindowResolution};
use mirofish::kit::PointerOverUi;
use mirofish::kit::look3d::{FishLook3d, FishLook3dPlugin};
use mirofish::kit::tools3d::{MouseTools3dPlugin, click_command};
use mirofish::sim::space::swarm_hash;
use mirofish::sim::{FlockParams, Tank3d, VolumeConfig, VolumeRecording};
use mirofish::volume::*;
use mirofish_examples::aquarium3d::{Panel3d, Panel3dPlugin, Start, restart};

/// The schools' colours (sRGB): orange and teal.
const SCHOOL_COLOURS: [[f32; 3]; 2] = [[1.0, 0.55, 0.12], [0.15, 0.75, 0.85]];
/// The floor's colour.
const SAND: [f32; 3] = [0.76, 0.66, 0.46];

fn main() -> AppExit {
    let (mut fish, mut seed, mut smoke, mut settle) = (4000usize, 1u64, None, 3.0f32);
    let mut start = Start::Rules;
    let mut scene: Option<VolumeConfig> = None;
    let mut replay: Option<VolumeRecording> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match arg.as_str() {
            "--fish" => fish = value("--fish").parse().unwrap_or_else(|_| fail("--fish takes a count")),
            "--seed" => seed = value("--seed").parse().unwrap_or_else(|_| fail("--seed takes a number")),
            "--smoke" => smoke = Some(PathBuf::from(value("--smoke"))),
            "--settle" => {
                settle = value("--settle").parse().unwrap_or_else(|_| fail("--settle takes seconds"))
            }
            "--scene" => {
                let path = value("--scene");
                scene = Some(VolumeConfig::load(&path).unwrap_or_else(|e| fail(&e.to_string())));
            }
            "--replay" => {
                let path = value("--replay");
                replay = Some(VolumeRecording::load(&path).unwrap_or_else(|e| fail(&e.to_string())));
            }
            "--start" => {
                let name = value("--start").replace('-', " ");
                start = *Start::ALL.iter().find(|s| s.label() == name).unwrap_or_else(|| {
                    fail("--start takes rules, swarm, torus, dynamic-parallel or highly-parallel")
                });
            }
            "--help" | "-h" => {
                println!(
                    "aquarium3d [--fish N] [--seed N] [--start rules|swarm|torus|dynamic-parallel|highly-parallel] \
                     [--scene volume.ron | --replay session.replay] [--smoke shot.png [--settle seconds]]"
                );
                return AppExit::Success;
            }
            other => fail(&format!("unknown argument {other} (try --help)")),
        }
    }
    if let Some(recording) = &replay {
        scene = Some(recording.config.clone());
    }
    let tank = scene.as_ref().map_or(Tank3d::centered(Vec3::new(1400.0, 600.0, 900.0)), |s| s.tank);
    let config = Flock3dConfig { params: FlockParams::default(), tank, seed, ..default() };
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "MiroFish aquarium 3D".into(),
            resolution: WindowResolution::new(1280, 720),
            ..default()
        }),
        ..default()
    }))
    .insert_resource(ClearColor(Color::srgb(0.02, 0.07, 0.12)))
    .insert_resource(GlobalAmbientLight { brightness: 150.0, ..default() })
    .insert_resource(config.clone())
    .insert_resource(Panel3d::new(config, fish))
    .insert_resource(Orbit { yaw: 0.5, pitch: 0.35, distance: 1850.0 })
    .insert_resource(FishLook3d { colours: SCHOOL_COLOURS.to_vec(), ..default() })
    .add_plugins((MiroFish3dPlugin::default().with_banking(0.6), Panel3dPlugin, FishLook3dPlugin))
    .add_plugins(MouseTools3dPlugin)
    .add_systems(
        Startup,
        (setup, move |mut commands: Commands, panel: Res<Panel3d>| match (&replay, &scene) {
            (Some(recording), _) => commands.queue(ReplayVolume3d(recording.clone())),
            (None, Some(scene)) => commands.queue(LoadVolume3d(scene.clone())),
            (None, None) => restart(&mut commands, &panel, start),
        })
            .chain(),
    )
    .add_systems(Update, (orbit, draw_glass, status));
    // The draw commands of the opaque pass, counted where they are made.
    let draws = OpaqueDraws::default();
    app.insert_resource(draws.clone());
    app.sub_app_mut(RenderApp)
        .insert_resource(draws)
        .add_systems(Render, count_draws.in_set(RenderSystems::PrepareResources));
    if let Some(out) = smoke {
        app.insert_resource(Smoke { out, settle, frames: 0, dropped_at: None, shot: false, start })
            .add_systems(Update, drive_smoke);
    }
    app.run()
}

fn fail(message: &str) -> ! {
    eprintln!("aquarium3d: {message}");
    std::process::exit(2)
}

fn srgb([r, g, b]: [f32; 3]) -> Color {
    Color::srgb(r, g, b)
}

/// How far the camera slides left of the tank's centre, per unit of its
/// distance, to keep the tank clear of the panel.
const PANEL_SHIFT: f32 = 0.14;

/// The camera's place on a sphere round the tank's centre.
#[derive(Resource)]
struct Orbit {
    yaw: f32,
    pitch: f32,
    distance: f32,
}

fn setup(
    config: Res<Flock3dConfig>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let tank = config.tank;
    let floor = Plane3d::default().mesh().size(tank.size().x * 1.6, tank.size().z * 1.6);
    commands.spawn((
        Mesh3d(meshes.add(floor)),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: srgb(SAND),
            perceptual_roughness: 1.0,
            ..default()
        })),
        Transform::from_xyz(0.0, tank.min.y - 2.0, 0.0),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 2_500.0, shadow_maps_enabled: false, ..default() },
        Transform::from_xyz(300.0, 1000.0, 400.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Camera3d::default(),
        // The default tone mapping needs lookup tables the minimal Bevy
        // here does not build; colours are drawn as chosen.
        Tonemapping::None,
        Transform::default(),
        DistanceFog {
            color: Color::srgb(0.05, 0.16, 0.24),
            falloff: FogFalloff::Linear { start: 1600.0, end: 4200.0 },
            ..default()
        },
    ));
}

fn orbit(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    mut orbit: ResMut<Orbit>,
    (panel, mut over_ui): (Res<Panel3d>, ResMut<PointerOverUi>),
    mut camera: Single<&mut Transform, With<Camera3d>>,
    mut on_panel: Local<bool>,
) {
    // The kit's mouse tools leave clicks on the panel alone.
    over_ui.0 = panel.pointer_over;
    if buttons.any_just_pressed([MouseButton::Left, MouseButton::Right]) {
        *on_panel = panel.pointer_over;
    }
    if buttons.pressed(MouseButton::Left) && !*on_panel {
        orbit.yaw -= motion.delta.x * 0.005;
        orbit.pitch = (orbit.pitch + motion.delta.y * 0.005).clamp(-0.2, 1.45);
    }
    if !panel.pointer_over {
        orbit.distance = (orbit.distance * (1.0 - scroll.delta.y * 0.1)).clamp(300.0, 6000.0);
    }
    let (sy, cy) = orbit.yaw.sin_cos();
    let (sp, cp) = orbit.pitch.sin_cos();
    let eye = Vec3::new(sy * cp, sp, cy * cp) * orbit.distance;
    let mut view = Transform::from_translation(eye).looking_at(Vec3::ZERO, Vec3::Y);
    // The panel covers the left of the window: slide the camera left so
    // the tank sits in the free part on the right.
    view.translation -= view.right() * orbit.distance * PANEL_SHIFT;
    **camera = view;
}

/// The glass: the tank's edges.
fn draw_glass(state: Res<Flock3dState>, mut gizmos: Gizmos) {
    let tank = state.flock.tank();
    let box_ = Transform::from_translation((tank.min + tank.max) * 0.5).with_scale(tank.size());
    gizmos.cube(box_, Color::srgba(0.7, 0.9, 1.0, 0.6));
}

/// The order parameters and the controls, in the window's title (twice a
/// second).
fn status(
    state: Res<Flock3dState>,
    time: Res<Time<Real>>,
    mut window: Single<&mut Window, With<PrimaryWindow>>,
) {
    if time.elapsed_secs() % 0.5 >= time.delta_secs() {
        return;
    }
    let m = state.flock.metrics();
    window.title = format!(
        "MiroFish 3D · {} fish · tick {} · polarization {:.2} · milling {:.2} · neighbours {:.1} · \
         nearest {:.1} · drag: orbit, wheel: zoom, click the floor: predator, right click: rock, C: clear",
        m.fish,
        m.tick,
        m.polarization,
        m.milling,
        m.mean_neighbours,
        m.nearest_neighbour.unwrap_or(0.0),
    );
}

/// How many draw commands the last frame's opaque pass issued, counted in
/// the render world: one per multidraw batch set, one per instanced bin,
/// one per unbatchable mesh. Every fish of a school shares a mesh and a
/// material, so a school costs one bin, not one draw per fish.
#[derive(Resource, Clone, Default)]
struct OpaqueDraws(Arc<[AtomicUsize; 3]>);

fn count_draws(phases: Res<ViewBinnedRenderPhases<Opaque3d>>, draws: Res<OpaqueDraws>) {
    let mut counts = [0; 3];
    for phase in phases.0.values() {
        counts[0] += phase.multidrawable_meshes.len();
        counts[1] += phase.batchable_meshes.len();
        let single: usize = phase.unbatchable_meshes.values().map(|u| u.entities.len()).sum();
        counts[2] += single + phase.non_mesh_items.len();
    }
    for (to, count) in draws.0.iter().zip(counts) {
        to.store(count, Ordering::Relaxed);
    }
}

/// CI's self-test: drop a predator, wait, take a screenshot and check that
/// it shows fish of both schools, the predator and the sandy floor. Under
/// one of Couzin's starts (one school, no predator: it would break the
/// state up) it waits and checks for the school and the floor.
#[derive(Resource)]
struct Smoke {
    out: PathBuf,
    settle: f32,
    frames: u32,
    dropped_at: Option<f32>,
    shot: bool,
    start: Start,
}

fn smoke_failed(exit: &mut MessageWriter<AppExit>, why: String) {
    error!("smoke test failed: {why}");
    exit.write(AppExit::error());
}

fn drive_smoke(
    mut commands: Commands,
    mut smoke: ResMut<Smoke>,
    time: Res<Time<Real>>,
    mut state: ResMut<Flock3dState>,
    mut exit: MessageWriter<AppExit>,
    draws: Res<OpaqueDraws>,
) {
    let now = time.elapsed_secs();
    smoke.frames += 1;
    if now > 240.0 {
        error!("smoke test: no verdict after {now:.0} s");
        exit.write(AppExit::error());
    }
    if smoke.dropped_at.is_none() && smoke.frames >= 30 && smoke.start != Start::Rules {
        smoke.dropped_at = Some(now);
    }
    if smoke.dropped_at.is_none() && smoke.frames >= 30 {
        let tank = *state.flock.tank();
        // As a click does: a command for the next tick.
        let drop = click_command(MouseButton::Left, Vec3::new(150.0, tank.min.y, 100.0), &tank, &default())
            .expect("a left click drops a predator");
        state.flock.submit(drop).expect("a predator inside the tank");
        smoke.dropped_at = Some(now);
    }
    if smoke.shot || !smoke.dropped_at.is_some_and(|t| now - t >= smoke.settle) {
        return;
    }
    smoke.shot = true;
    let [sets, bins, single] = [0, 1, 2].map(|i| draws.0[i].load(Ordering::Relaxed));
    println!(
        "opaque pass: {} draw commands for {} fish ({sets} multidraw sets, {bins} instanced bins, {single} single meshes)",
        sets + bins + single,
        state.flock.len()
    );
    // The session so far (the rules' start and the dropped predator, both
    // through the core) replays headless to the state on screen.
    if let Some(recording) = state.recording() {
        let end = recording.map_err(|e| e.to_string()).and_then(|r| r.replay().map_err(|e| e.to_string()));
        match end {
            Ok(end) if swarm_hash(&end) == swarm_hash(&state.flock) => {
                println!("the session replays: {} ticks, state hash {:016x}", end.tick(), swarm_hash(&end))
            }
            Ok(_) => return smoke_failed(&mut exit, "the session replayed to another state".into()),
            Err(e) => return smoke_failed(&mut exit, format!("the session does not replay: {e}")),
        }
    }
    let rules = smoke.start == Start::Rules;
    commands.spawn(Screenshot::primary_window()).observe(save_to_disk(smoke.out.clone())).observe(
        move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            let verdict = match captured.image.clone().try_into_dynamic() {
                Ok(image) => {
                    let rgb = image.to_rgb8();
                    Ok(Seen::count(rgb.as_raw(), rgb.width() as usize))
                }
                Err(e) => Err(format!("cannot read the screenshot: {e:?}")),
            };
            match verdict {
                Ok(seen) if seen.shows_the_scene(rules) => {
                    println!("smoke test passed: {seen:?}");
                    exit.write(AppExit::Success);
                }
                Ok(seen) => {
                    error!("smoke test failed: the picture lacks fish, predator or floor: {seen:?}");
                    exit.write(AppExit::error());
                }
                Err(e) => {
                    error!("smoke test failed: {e}");
                    exit.write(AppExit::error());
                }
            }
        },
    );
}

/// What a screenshot shows, by colour family (lit and fogged colours keep
/// their hue, not their exact value).
#[derive(Debug, Default)]
struct Seen {
    /// Pixels of the orange school.
    orange: usize,
    /// Pixels of the teal school.
    teal: usize,
    /// Pixels of the red predator.
    red: usize,
    /// Pixels of the sandy floor.
    sand: usize,
    /// Columns of a 16-column split holding fish pixels.
    columns_with_fish: usize,
}

impl Seen {
    fn count(rgb: &[u8], width: usize) -> Self {
        let mut seen = Seen::default();
        let mut columns = [false; 16];
        for (i, px) in rgb.chunks_exact(3).enumerate() {
            let [r, g, b] = [px[0], px[1], px[2]].map(f32::from);
            let fish = if r > 110.0 && g > 0.35 * r && g < 0.75 * r && b < 0.3 * r {
                seen.orange += 1;
                true
            } else if b > 90.0 && g > 0.75 * b && r < 0.5 * b {
                seen.teal += 1;
                true
            } else {
                if r > 110.0 && g < 0.3 * r && b < 0.3 * r {
                    seen.red += 1;
                } else if r > 70.0 && g > 0.78 * r && g < 0.95 * r && b > 0.5 * r && b < 0.72 * r {
                    seen.sand += 1;
                }
                false
            };
            if fish {
                columns[(i % width) * 16 / width.max(1)] = true;
            }
        }
        seen.columns_with_fish = columns.iter().filter(|&&c| c).count();
        seen
    }

    /// Both schools and the predator with the rules; the one school
    /// (fewer fish, gathered) under Couzin's zones; the floor always.
    fn shows_the_scene(&self, rules: bool) -> bool {
        let school = if rules {
            self.orange >= 500 && self.teal >= 100 && self.red >= 40 && self.columns_with_fish >= 6
        } else {
            self.orange >= 200
        };
        school && self.sand >= 20_000
    }
}
