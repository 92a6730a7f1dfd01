//! What the 3D aquarium draws around the fish: the sandy floor with weed
//! swaying on it, the light, the fog, the camera (the kit's orbiting
//! `TankCamera3d`), the order parameters in the window's title, and the
//! count of draw commands. (The glass is the kit's overlay; the rocks are
//! the volume's obstacles, drawn by the kit's 3D tools.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::core_pipeline::core_3d::Opaque3d;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy::render::render_phase::ViewBinnedRenderPhases;
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::window::PrimaryWindow;
use mirofish_bevy::volume::*;
use mirofish_kit::camera3d::TankCamera3d;
use mirofish_kit::picture::grain;
use mirofish_sim::Tank3d;

use crate::aquarium::scenery::{Sway, sway};

/// The floor's colour (sRGB).
pub const SAND: [f32; 3] = [0.76, 0.66, 0.46];

/// The scene, the camera and the draw count.
pub(super) struct ScenePlugin;

impl Plugin for ScenePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, setup).add_systems(Update, (status, sway));
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

fn srgb([r, g, b]: [f32; 3]) -> Color {
    Color::srgb(r, g, b)
}

/// The weed's greens (sRGB): a blade takes one of them, so the weed is
/// drawn in as many instanced draws.
const WEED_GREENS: [[f32; 3]; 3] = [[0.16, 0.36, 0.2], [0.22, 0.45, 0.22], [0.12, 0.3, 0.22]];

/// One blade of weed on the floor.
#[derive(Clone, Copy, Debug)]
pub struct Blade3d {
    /// Where it grows from (on the floor).
    pub root: Vec3,
    /// Its height (its width is a fifth of it at the root).
    pub height: f32,
    /// Which of the greens.
    pub green: usize,
    /// How it sways (and which way it faces).
    pub sway: Sway,
}

/// Clumps of weed over the tank's floor, one about every 170 units each
/// way where a hash says so (about half the places), thicker along the
/// back and the sides than in the middle, each of three to five blades.
/// The same tank always gets the same weed.
pub fn weed_layout3d(tank: &Tank3d) -> Vec<Blade3d> {
    let size = tank.size();
    let (nx, nz) = (((size.x / 170.0) as u32).clamp(1, 60), ((size.z / 170.0) as u32).clamp(1, 60));
    let mut blades = Vec::new();
    for i in 0..nx {
        for k in 0..nz {
            let (u, w) = ((i as f32 + 0.5) / nx as f32, (k as f32 + 0.5) / nz as f32);
            // Near an edge (0) or in the middle (1): the middle is sparser.
            let inward = 2.0 * (0.5 - (u - 0.5).abs()).min(0.5 - (w - 0.5).abs());
            let clump = i * 61 + k;
            // (A floor of one place always gets its clump.)
            if nx * nz > 1 && grain(clump, 0, 21) > 0.75 - 0.5 * inward {
                continue;
            }
            let centre = Vec3::new(
                tank.min.x + (u + (grain(clump, 1, 21) - 0.5) * 0.6 / nx as f32) * size.x,
                tank.min.y,
                tank.min.z + (w + (grain(clump, 2, 21) - 0.5) * 0.6 / nz as f32) * size.z,
            );
            let count = 3 + (grain(clump, 3, 21) * 3.0) as u32;
            for b in 0..count {
                let g = |salt: u32| grain(clump, b + 10, salt);
                blades.push(Blade3d {
                    root: centre + Vec3::new((g(4) - 0.5) * 40.0, 0.0, (g(5) - 0.5) * 40.0),
                    height: size.y * (0.05 + 0.11 * g(6)),
                    green: (g(7) * WEED_GREENS.len() as f32) as usize % WEED_GREENS.len(),
                    sway: Sway {
                        facing: core::f32::consts::TAU * g(8),
                        amplitude: 0.08 + 0.12 * g(9),
                        rate: 0.8 + 0.7 * g(10),
                        phase: core::f32::consts::TAU * g(11),
                    },
                });
            }
        }
    }
    blades
}

/// A blade of weed one unit tall, its root at the origin: a ribbon a fifth
/// as wide as tall at the root, narrowing to a point, curving a little to
/// one side; one-sided (draw it with a double-sided material).
pub fn blade_mesh() -> Mesh {
    use bevy::asset::RenderAssetUsages;
    use bevy::mesh::{Indices, PrimitiveTopology};
    const ROWS: u32 = 6;
    let mut positions = Vec::new();
    for r in 0..=ROWS {
        let t = r as f32 / ROWS as f32;
        let half = 0.1 * (1.0 - t).powf(0.7) + 0.005;
        let bend = 0.12 * (t * core::f32::consts::PI * 0.8).sin() * t;
        positions.push([bend - half, t, 0.0]);
        positions.push([bend + half, t, 0.0]);
    }
    let indices: Vec<u32> =
        (0..ROWS).flat_map(|r| [2 * r, 2 * r + 1, 2 * r + 2, 2 * r + 1, 2 * r + 3, 2 * r + 2]).collect();
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_indices(Indices::U32(indices))
        .with_computed_smooth_normals()
}

/// The floor and its weed, the light and the camera.
pub(super) fn setup(
    config: Res<Flock3dConfig>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let tank = config.tank;
    let blade = meshes.add(blade_mesh());
    let greens: Vec<Handle<StandardMaterial>> = WEED_GREENS
        .iter()
        .map(|&green| {
            materials.add(StandardMaterial {
                base_color: srgb(green),
                perceptual_roughness: 0.8,
                double_sided: true,
                cull_mode: None,
                ..default()
            })
        })
        .collect();
    for b in weed_layout3d(&tank) {
        commands.spawn((
            Mesh3d(blade.clone()),
            MeshMaterial3d(greens[b.green].clone()),
            b.sway,
            Transform::from_translation(b.root - Vec3::Y * 2.0).with_scale(Vec3::splat(b.height)),
        ));
    }
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
        TankCamera3d { distance: 1850.0, ..default() },
        DistanceFog {
            color: Color::srgb(0.05, 0.16, 0.24),
            falloff: FogFalloff::Linear { start: 1600.0, end: 4200.0 },
            ..default()
        },
    ));
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
    let m = state.flock().metrics();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weed_grows_on_the_floor_of_any_tank_thicker_at_the_edges() {
        let tank = Tank3d::centered(Vec3::new(1400.0, 600.0, 900.0));
        let blades = weed_layout3d(&tank);
        assert!(blades.len() > 40, "{} blades", blades.len());
        assert_eq!(blades.len(), weed_layout3d(&tank).len(), "the same weed every time");
        let middle = |p: Vec3| p.x.abs() < 350.0 && p.z.abs() < 225.0;
        let (inner, outer) =
            blades.iter().fold((0, 0), |(i, o), b| if middle(b.root) { (i + 1, o) } else { (i, o + 1) });
        // The middle quarter of the floor holds fewer than a quarter.
        assert!(inner * 3 < outer, "{inner} in the middle, {outer} round it");
        for b in &blades {
            assert_eq!(b.root.y, tank.min.y);
            assert!(b.root.x > tank.min.x - 60.0 && b.root.x < tank.max.x + 60.0, "{b:?}");
            assert!(b.root.z > tank.min.z - 60.0 && b.root.z < tank.max.z + 60.0, "{b:?}");
            assert!(b.height > 0.0 && b.height < tank.size().y * 0.2, "{b:?}");
            assert!(b.green < WEED_GREENS.len());
        }
        // A small tank still gets weed; the blade is a finite ribbon.
        assert!(!weed_layout3d(&Tank3d::centered(Vec3::splat(100.0))).is_empty());
        let mesh = blade_mesh();
        let positions = mesh.attribute(Mesh::ATTRIBUTE_POSITION).and_then(|a| a.as_float3()).unwrap();
        assert!(positions.iter().all(|p| p.iter().all(|x| x.is_finite()) && (0.0..=1.0).contains(&p[1])));
    }
}
