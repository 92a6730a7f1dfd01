//! What the 3D aquarium draws around the fish and how it is looked at: the
//! sandy floor, the light, the fog, the glass, an orbiting camera, the
//! order parameters in the window's title, and the count of draw commands.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::core_pipeline::core_3d::Opaque3d;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy::render::render_phase::ViewBinnedRenderPhases;
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::window::PrimaryWindow;
use mirofish_bevy::volume::*;
use mirofish_kit::PointerOverUi;

/// The floor's colour (sRGB).
pub const SAND: [f32; 3] = [0.76, 0.66, 0.46];

/// How far the camera slides left of the tank's centre, per unit of its
/// distance, to keep the tank clear of the panel.
const PANEL_SHIFT: f32 = 0.14;

/// The scene, the camera and the draw count.
pub(super) struct ScenePlugin;

impl Plugin for ScenePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Orbit { yaw: 0.5, pitch: 0.35, distance: 1850.0 })
            .add_systems(Startup, setup)
            .add_systems(Update, (orbit, status));
        // The draw commands of the opaque pass, counted where they are made.
        let draws = OpaqueDraws::default();
        app.insert_resource(draws.clone());
        if let Some(render) = app.get_sub_app_mut(RenderApp) {
            render
                .insert_resource(draws)
                .add_systems(Render, count_draws.in_set(RenderSystems::PrepareResources));
        }
    }
}

/// The camera's place on a sphere round the tank's centre.
#[derive(Resource)]
struct Orbit {
    yaw: f32,
    pitch: f32,
    distance: f32,
}

fn srgb([r, g, b]: [f32; 3]) -> Color {
    Color::srgb(r, g, b)
}

/// The floor, the light and the camera.
pub(super) fn setup(
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
    over_ui: Res<PointerOverUi>,
    mut camera: Single<&mut Transform, With<Camera3d>>,
    mut on_panel: Local<bool>,
) {
    // The kit's panel says whether the pointer is over it.
    if buttons.any_just_pressed([MouseButton::Left, MouseButton::Right]) {
        *on_panel = over_ui.0;
    }
    if buttons.pressed(MouseButton::Left) && !*on_panel {
        orbit.yaw -= motion.delta.x * 0.005;
        orbit.pitch = (orbit.pitch + motion.delta.y * 0.005).clamp(-0.2, 1.45);
    }
    if !over_ui.0 {
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
pub(super) struct OpaqueDraws(Arc<[AtomicUsize; 3]>);

impl OpaqueDraws {
    /// (multidraw sets, instanced bins, single meshes) of the last frame.
    pub(super) fn counts(&self) -> [usize; 3] {
        [0, 1, 2].map(|i| self.0[i].load(Ordering::Relaxed))
    }
}

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
