//! Fish in a volume that look like fish (the `look3d` feature): every fish
//! of [`MiroFish3dPlugin`](mirofish_bevy::volume::MiroFish3dPlugin) gets
//! one shared fish-shaped mesh (a body narrower than it is tall, a forked
//! tail and a dorsal fin) and its school's material, and swims: its body
//! sways from side to side, faster the faster it goes.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::volume::*;
//! use mirofish_kit::look3d::FishLook3dPlugin;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFish3dPlugin::default(), FishLook3dPlugin))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 200.0, 1600.0)));
//!         commands.spawn(DirectionalLight::default());
//!         commands.queue(SpawnSchool3d::new(2000));
//!     })
//!     .run();
//! ```
//!
//! Every fish of a school shares one mesh and one material, so Bevy draws
//! a school in a few instanced draws whatever its size. A fish that
//! already has a `Mesh3d` (the game's own) keeps it.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy::transform::TransformSystems;
use mirofish_bevy::volume::{Boid3d, FishId, Flock3dState, School3d, Velocity3d, follow};

/// How fish in a volume look.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct FishLook3d {
    /// A fish's length, head to tail (world units).
    pub length: f32,
    /// Each school's colour (sRGB; the schools past the list take its
    /// colours again).
    pub colours: Vec<[f32; 3]>,
    /// How far the body sways to each side at the swim's widest (radians).
    pub sway: f32,
}

impl Default for FishLook3d {
    fn default() -> Self {
        Self {
            length: 24.0,
            colours: vec![[1.0, 0.55, 0.12], [0.15, 0.75, 0.85], [0.9, 0.9, 0.95]],
            sway: 0.18,
        }
    }
}

/// The shared mesh and each school's material, made at startup from
/// [`FishLook3d`].
#[derive(Resource, Clone, Debug)]
pub struct FishAssets3d {
    /// The fish's mesh, head towards −Z (Bevy's forward).
    pub mesh: Handle<Mesh>,
    /// Each school's material, in the order of [`FishLook3d::colours`].
    pub materials: Vec<Handle<StandardMaterial>>,
}

/// Where a fish is in its swimming stroke (radians), and how fast it
/// beats, from its own start so that neighbours do not sway in step.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Swim3d {
    /// The stroke's phase.
    pub phase: f32,
}

/// Gives every fish in a volume a fish's mesh, its school's material and
/// a swimming sway ([`FishLook3d`], [`FishAssets3d`], [`Swim3d`]). Needs
/// Bevy's 3D renderer (`DefaultPlugins`) and a light to see them by.
pub struct FishLook3dPlugin;

impl Plugin for FishLook3dPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FishLook3d>()
            .add_systems(Startup, make_assets)
            .add_systems(Update, dress)
            .add_systems(PostUpdate, swim.after(follow).before(TransformSystems::Propagate));
    }
}

/// A fish `length` long, head towards −Z: a body of elliptic sections,
/// taller than wide, thickest a third of the way back; a forked tail fin
/// and a dorsal fin, each one-sided (draw with a double-sided material).
pub fn fish_mesh(length: f32) -> Mesh {
    const SECTIONS: usize = 14;
    const AROUND: usize = 12;
    let length = if length.is_finite() && length > 0.0 { length } else { 1.0 };
    let (mut positions, mut indices) = (Vec::<[f32; 3]>::new(), Vec::<u32>::new());
    // Body: from the snout (t = 0) to the tail's root (t = 1).
    let body = 0.8 * length;
    let z_of = |t: f32| -0.5 * length + t * body;
    for k in 0..=SECTIONS {
        let t = k as f32 / SECTIONS as f32;
        // Thickest at a third of the way back; closed at the snout, a
        // narrow stalk at the tail.
        let girth =
            (t.sqrt() * (1.0 - t).powf(0.8) / 0.56).min(1.0).max(if k == SECTIONS { 0.06 } else { 0.0 });
        let (half_height, half_width) = (0.13 * length * girth, 0.07 * length * girth);
        for j in 0..AROUND {
            let a = j as f32 / AROUND as f32 * core::f32::consts::TAU;
            positions.push([half_width * a.cos(), half_height * a.sin(), z_of(t)]);
        }
    }
    for k in 0..SECTIONS {
        for j in 0..AROUND {
            let (a, b) = ((k * AROUND + j) as u32, (k * AROUND + (j + 1) % AROUND) as u32);
            let (c, d) = (a + AROUND as u32, b + AROUND as u32);
            indices.extend([a, c, b, b, c, d]);
        }
    }
    // The tail fin: two lobes from the stalk, swept back.
    let root = z_of(1.0);
    let mut fin = |points: [[f32; 3]; 3]| {
        let first = positions.len() as u32;
        positions.extend(points);
        indices.extend([first, first + 1, first + 2]);
    };
    let (tip, spread) = (root + 0.22 * length, 0.17 * length);
    fin([
        [0.0, 0.01 * length, root - 0.02 * length],
        [0.0, spread, tip],
        [0.0, 0.02 * length, root + 0.1 * length],
    ]);
    fin([
        [0.0, -0.01 * length, root - 0.02 * length],
        [0.0, -0.02 * length, root + 0.1 * length],
        [0.0, -spread, tip],
    ]);
    // The dorsal fin, on the back behind the thickest section.
    let back = z_of(0.35);
    fin([
        [0.0, 0.12 * length, back],
        [0.0, 0.22 * length, back + 0.12 * length],
        [0.0, 0.1 * length, back + 0.2 * length],
    ]);
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_indices(Indices::U32(indices))
        .with_computed_smooth_normals()
}

fn make_assets(
    look: Res<FishLook3d>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let colours = if look.colours.is_empty() { FishLook3d::default().colours } else { look.colours.clone() };
    let materials = colours
        .iter()
        .map(|&[r, g, b]| {
            materials.add(StandardMaterial {
                base_color: Color::srgb(r, g, b),
                perceptual_roughness: 0.45,
                // The fins are single sheets.
                double_sided: true,
                cull_mode: None,
                ..default()
            })
        })
        .collect();
    commands.insert_resource(FishAssets3d { mesh: meshes.add(fish_mesh(look.length)), materials });
}

/// Dresses every fish without a mesh: the shared one, its school's
/// material, and a stroke starting where its id says.
fn dress(
    assets: Option<Res<FishAssets3d>>,
    fish: Query<(Entity, &FishId, Option<&School3d>), (With<Boid3d>, Without<Mesh3d>)>,
    mut commands: Commands,
) {
    let Some(assets) = assets else { return };
    for (entity, id, school) in &fish {
        let school = usize::from(school.map_or(0, |s| s.0));
        let material = assets.materials[school % assets.materials.len()].clone();
        // A golden-ratio spread of starting phases.
        let phase = (id.0 as f32 * 0.618_034).fract() * core::f32::consts::TAU;
        commands.entity(entity).insert((
            Mesh3d(assets.mesh.clone()),
            MeshMaterial3d(material),
            Swim3d { phase },
        ));
    }
}

/// Sways each fish about its vertical axis: 1.2 strokes a second at rest
/// plus 3.4 per unit of speed over its school's top speed (the 2D tail
/// beat's rate), by [`FishLook3d::sway`].
fn swim(
    time: Res<Time>,
    look: Res<FishLook3d>,
    state: Res<Flock3dState>,
    mut fish: Query<(&mut Swim3d, &Velocity3d, Option<&School3d>, &mut Transform), With<Boid3d>>,
) {
    let dt = time.delta_secs();
    let params = state.flock.params();
    let sway = if look.sway.is_finite() { look.sway.clamp(0.0, 1.0) } else { 0.0 };
    fish.par_iter_mut().for_each(|(mut swim, v, school, mut transform)| {
        // `follow` turned only a moving fish this frame: a resting one
        // keeps last frame's pose, which a sway on top would wind up.
        if v.0.try_normalize().is_none() {
            return;
        }
        let top = params.get(usize::from(school.map_or(0, |s| s.0))).map_or(1.0, |p| p.max_speed).max(1e-3);
        let rate = 1.2 + 3.4 * (v.0.length() / top).min(2.0);
        let phase = (swim.phase + rate * core::f32::consts::TAU * dt).rem_euclid(core::f32::consts::TAU);
        if !phase.is_finite() {
            return;
        }
        swim.phase = phase;
        transform.rotation *= Quat::from_rotation_y(sway * phase.sin());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fish_mesh_is_a_fish_length_long_head_forward_and_taller_than_wide() {
        let mesh = fish_mesh(24.0);
        let positions = mesh.attribute(Mesh::ATTRIBUTE_POSITION).and_then(|a| a.as_float3()).unwrap();
        let (min, max) = positions
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| (lo.min(Vec3::from(p)), hi.max(Vec3::from(p))));
        let size = max - min;
        assert!((size.z - 24.0).abs() < 1.0, "{size}");
        assert!(size.y > 1.5 * size.x, "taller than wide: {size}");
        // The head at −Z: the widest section lies in the front half.
        let widest = positions.iter().max_by(|a, b| a[0].total_cmp(&b[0])).unwrap();
        assert!(widest[2] < 0.0, "{widest:?}");
        assert!(mesh.attribute(Mesh::ATTRIBUTE_NORMAL).is_some());
        assert!(positions.iter().all(|p| p.iter().all(|x| x.is_finite())));
        // A hostile length still makes a finite mesh.
        for length in [0.0, -3.0, f32::NAN, f32::INFINITY] {
            let mesh = fish_mesh(length);
            let positions = mesh.attribute(Mesh::ATTRIBUTE_POSITION).and_then(|a| a.as_float3()).unwrap();
            assert!(positions.iter().all(|p| p.iter().all(|x| x.is_finite())), "{length}");
        }
    }
}
