//! Fish in a volume that look like fish (the `look3d` feature): every fish
//! of [`MiroFish3dPlugin`](mirofish_bevy::volume::MiroFish3dPlugin) gets
//! one shared fish-shaped mesh (a body narrower than it is tall, a forked
//! tail and a dorsal fin) and its school's material, and swims: its body
//! bends in a wave that runs from the head to the tail, still at the snout
//! and widest at the tail fin, beating faster and harder the faster the
//! fish goes (a vertex shader, `swim.wgsl`, fed each fish's stroke through
//! its [`MeshTag`]).
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
//! a school in a few instanced draws whatever its size: a fish's own place
//! in its stroke is its `MeshTag`, not a material of its own. A fish that
//! already has a `Mesh3d` (the game's own) keeps it. The bend is drawn in
//! the main pass; a shadow or depth prepass, where a game turns one on,
//! sees the fish straight.

use bevy::asset::{RenderAssetUsages, embedded_asset};
use bevy::mesh::{Indices, MeshTag, PrimitiveTopology};
use bevy::pbr::{ExtendedMaterial, MaterialExtension};
use bevy::prelude::*;
use bevy::render::render_resource::AsBindGroup;
use bevy::shader::ShaderRef;
use mirofish_bevy::volume::{Boid3d, FishId, Flock3dState, School, Velocity};

/// How fish in a volume look.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct FishLook3d {
    /// A fish's length, head to tail (world units).
    pub length: f32,
    /// Each school's colour (sRGB; the schools past the list take its
    /// colours again).
    pub colours: Vec<[f32; 3]>,
    /// How far the tail fin's tip swings to each side at a full stroke,
    /// as a share of the fish's length (0 swims without bending; at most
    /// 0.5).
    pub bend: f32,
}

impl Default for FishLook3d {
    fn default() -> Self {
        Self {
            length: 24.0,
            colours: vec![[1.0, 0.55, 0.12], [0.15, 0.75, 0.85], [0.9, 0.9, 0.95]],
            bend: 0.12,
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
    pub materials: Vec<Handle<FishMaterial3d>>,
}

/// A fish's material: the standard material (its school's colour, lit
/// as usual) with the swimming stroke added to its vertex stage.
pub type FishMaterial3d = ExtendedMaterial<StandardMaterial, SwimStroke>;

/// The swimming stroke's shape, shared by a school: what the vertex
/// shader bends each fish by (its phase and strength come from the fish's
/// [`MeshTag`], see [`swim_tag`]).
#[derive(Asset, AsBindGroup, TypePath, Clone, Copy, Debug, PartialEq)]
pub struct SwimStroke {
    /// The mesh's length (x), the tail tip's swing as a share of it (y),
    /// the waves along the body (z); w unused.
    #[uniform(100)]
    pub shape: Vec4,
}

impl SwimStroke {
    /// Waves along the body at once: a little under one, as in a fish
    /// that swims with the back of its body (a carp, a perch).
    pub const WAVES: f32 = 0.8;

    /// The stroke for a fish `length` long whose tail swings `bend` of it,
    /// both made safe (a hostile look still draws a finite fish).
    pub fn new(length: f32, bend: f32) -> Self {
        let length = if length.is_finite() && length > 0.0 { length } else { 1.0 };
        let bend = if bend.is_finite() { bend.clamp(0.0, 0.5) } else { 0.0 };
        Self { shape: Vec4::new(length, bend, Self::WAVES, 0.0) }
    }
}

impl MaterialExtension for SwimStroke {
    fn vertex_shader() -> ShaderRef {
        ShaderRef::Path("embedded://mirofish_kit/swim.wgsl".into())
    }
}

/// A fish's `MeshTag` for the swimming shader: its phase (radians, taken
/// round the circle) in the low 16 bits, its stroke's strength (0 to 1)
/// in the next 8. What is not finite counts as 0.
pub fn swim_tag(phase: f32, strength: f32) -> u32 {
    let turn = if phase.is_finite() { (phase / core::f32::consts::TAU).rem_euclid(1.0) } else { 0.0 };
    let strength = if strength.is_finite() { strength.clamp(0.0, 1.0) } else { 0.0 };
    // `rem_euclid` can round up to 1.0 itself: wrap that to 0.
    let phase_bits = ((turn * 65_536.0) as u32) & 0xffff;
    phase_bits | (((strength * 255.0).round() as u32) << 16)
}

/// Where a fish is in its swimming stroke (radians), from its own start so
/// that neighbours do not beat in step.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct Swim3d {
    /// The stroke's phase.
    pub phase: f32,
}

/// Gives every fish in a volume a fish's mesh, its school's material and
/// a swimming stroke ([`FishLook3d`], [`FishAssets3d`], [`Swim3d`]). Needs
/// Bevy's 3D renderer (`DefaultPlugins`) and a light to see them by.
pub struct FishLook3dPlugin;

impl Plugin for FishLook3dPlugin {
    fn build(&self, app: &mut App) {
        embedded_asset!(app, "swim.wgsl");
        if !app.is_plugin_added::<MaterialPlugin<FishMaterial3d>>() {
            app.add_plugins(MaterialPlugin::<FishMaterial3d>::default());
        }
        app.init_resource::<FishLook3d>()
            .add_systems(Startup, make_assets)
            .add_systems(Update, (dress, swim).chain());
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
    mut materials: ResMut<Assets<FishMaterial3d>>,
) {
    let colours = if look.colours.is_empty() { FishLook3d::default().colours } else { look.colours.clone() };
    let stroke = SwimStroke::new(look.length, look.bend);
    let materials = colours
        .iter()
        .map(|&[r, g, b]| {
            materials.add(FishMaterial3d {
                base: StandardMaterial {
                    base_color: Color::srgb(r, g, b),
                    perceptual_roughness: 0.45,
                    // The fins are single sheets.
                    double_sided: true,
                    cull_mode: None,
                    ..default()
                },
                extension: stroke,
            })
        })
        .collect();
    commands.insert_resource(FishAssets3d { mesh: meshes.add(fish_mesh(look.length)), materials });
}

/// Dresses every fish without a mesh: the shared one, its school's
/// material, and a stroke starting where its id says.
fn dress(
    assets: Option<Res<FishAssets3d>>,
    fish: Query<(Entity, &FishId, Option<&School>), (With<Boid3d>, Without<Mesh3d>)>,
    mut commands: Commands,
) {
    let Some(assets) = assets else { return };
    for (entity, id, school) in &fish {
        let school = usize::from(school.map_or(0, |s| s.0));
        let material = assets.materials[school % assets.materials.len()].clone();
        // A golden-ratio spread of starting phases.
        let phase = (id.get().unwrap_or(0) as f32 * 0.618_034).fract() * core::f32::consts::TAU;
        commands.entity(entity).insert((
            Mesh3d(assets.mesh.clone()),
            MeshMaterial3d(material),
            Swim3d { phase },
            MeshTag(swim_tag(phase, 0.0)),
        ));
    }
}

/// Moves each fish on in its stroke: 1.2 strokes a second at rest plus 3.4
/// per unit of speed over its school's top speed (the 2D tail beat's
/// rate), and as hard as its speed says (a third of a full stroke at rest,
/// all of it from its top speed on); the shader bends it by its tag.
fn swim(
    time: Res<Time>,
    state: Res<Flock3dState>,
    mut fish: Query<(&mut Swim3d, &mut MeshTag, &Velocity<Vec3>, Option<&School>), With<Boid3d>>,
) {
    let dt = time.delta_secs();
    let params = state.flock().params();
    fish.par_iter_mut().for_each(|(mut swim, mut tag, v, school)| {
        let top = params.get(usize::from(school.map_or(0, |s| s.0))).map_or(1.0, |p| p.max_speed).max(1e-3);
        let pace = if v.0.is_finite() { (v.0.length() / top).min(2.0) } else { 0.0 };
        let phase = (swim.phase + (1.2 + 3.4 * pace) * core::f32::consts::TAU * dt)
            .rem_euclid(core::f32::consts::TAU);
        if !phase.is_finite() {
            return;
        }
        // Written only when it moved: a paused school's fish stay unchanged
        // (nothing for the renderer to take again).
        swim.set_if_neq(Swim3d { phase });
        tag.set_if_neq(MeshTag(swim_tag(phase, 0.35 + 0.65 * pace.min(1.0))));
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

    #[test]
    fn a_swim_tag_holds_the_phase_round_the_circle_and_the_strength() {
        use core::f32::consts::TAU;
        assert_eq!(swim_tag(0.0, 0.0), 0);
        assert_eq!(swim_tag(TAU * 0.25, 1.0), 0x4000 | (255 << 16));
        // Round the circle either way.
        assert_eq!(swim_tag(TAU * 1.25, 1.0), swim_tag(TAU * 0.25, 1.0));
        assert_eq!(swim_tag(-TAU * 0.75, 1.0), swim_tag(TAU * 0.25, 1.0));
        assert_eq!(swim_tag(TAU * 0.5, 0.5) >> 16, 128);
        // Just under a whole turn stays under 16 bits.
        assert!(swim_tag(TAU - 1e-7, 0.0) <= 0xffff);
        // What is not finite counts as nothing; strength is clamped.
        assert_eq!(swim_tag(f32::NAN, f32::NAN), 0);
        assert_eq!(swim_tag(f32::INFINITY, 7.0), 255 << 16);
        assert_eq!(swim_tag(1.0, -3.0) >> 16, 0);
    }

    #[test]
    fn a_hostile_look_still_makes_a_finite_stroke() {
        for (length, bend) in [(f32::NAN, f32::NAN), (-2.0, 9.0), (f32::INFINITY, -1.0), (0.0, f32::INFINITY)]
        {
            let stroke = SwimStroke::new(length, bend);
            assert!(stroke.shape.is_finite() && stroke.shape.x > 0.0, "{stroke:?}");
            assert!((0.0..=0.5).contains(&stroke.shape.y), "{stroke:?}");
        }
        assert_eq!(SwimStroke::new(24.0, 0.12).shape, Vec4::new(24.0, 0.12, SwimStroke::WAVES, 0.0));
    }
}
