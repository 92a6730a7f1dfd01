//! The water around the fish: a backdrop lit from above, with light shafts
//! and a sandy floor; weed swaying along the bottom. (The rocks are drawn
//! by the game kit's look, `mirofish_kit::FishLookPlugin`.)
//!
//! Every picture is computed when the aquarium starts (a copied binary
//! needs no assets folder), and each is one image shared by all the sprites
//! that show it, so the scenery costs a few draws. The weed is decoration:
//! the fish swim in front of it.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use mirofish_bevy::prelude::*;
use mirofish_kit::picture::{grain, rgba_image, to_byte};

/// Size of the backdrop picture, stretched over the tank (16:9, as the
/// default tank).
const BACKDROP: [usize; 2] = [512, 288];
/// Size of a weed blade's picture (width, height).
const WEED: [usize; 2] = [24, 128];
/// Depth of each layer: behind the rocks (-1) and the fish (0 and up).
const BACKDROP_Z: f32 = -10.0;
const WEED_Z: f32 = -5.0;

/// The scenery's shared pictures.
#[derive(Resource, Clone, Debug)]
pub struct SceneryImages {
    /// The water and the floor, stretched over the tank.
    pub backdrop: Handle<Image>,
    /// A weed blade in white, tinted per blade.
    pub weed: Handle<Image>,
}

/// Marks the backdrop and the weed, which are placed anew when the tank
/// changes.
#[derive(Component, Clone, Copy, Debug)]
pub struct Scenery;

/// How a weed blade sways: about its root, by `amplitude` radians, at
/// `rate` radians per second, from `phase`; turned `facing` radians about
/// the vertical first (in the 3D aquarium; 0 on a plane).
#[derive(Component, Clone, Copy, Debug)]
pub struct Sway {
    /// The blade's turn about the vertical (radians).
    pub facing: f32,
    /// Largest lean to either side (radians).
    pub amplitude: f32,
    /// Angular frequency (radians per second).
    pub rate: f32,
    /// Where in its swing the blade starts (radians).
    pub phase: f32,
}

pub(super) struct SceneryPlugin;

impl Plugin for SceneryPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(PreStartup, make_images).add_systems(Update, (place_scenery, sway));
    }
}

/// Height of the floor's top edge at `u` (0–1 across), as a share of the
/// picture's height from its top.
fn floor_line(u: f32) -> f32 {
    use core::f32::consts::TAU;
    0.91 + 0.017 * (u * TAU * 2.3 + 0.7).sin() + 0.008 * (u * TAU * 7.1 + 2.0).sin()
}

/// The backdrop, RGBA8 sRGB, `width × height`: water brighter near the
/// surface and darker below, slanted light shafts fading with depth, and a
/// grainy sand floor with an uneven edge along the bottom.
pub fn backdrop_pixels(width: usize, height: usize) -> Vec<u8> {
    use core::f32::consts::TAU;
    let (top, deep) = ([0.07, 0.19, 0.28], [0.015, 0.045, 0.09]);
    let sand = [0.30, 0.26, 0.18];
    let mut out = Vec::with_capacity(width * height * 4);
    for y in 0..height {
        let v = (y as f32 + 0.5) / height.max(1) as f32;
        for x in 0..width {
            let u = (x as f32 + 0.5) / width.max(1) as f32;
            let depth = v.powf(0.8);
            let mut rgb: [f32; 3] = core::array::from_fn(|c| top[c] + (deep[c] - top[c]) * depth);
            // Shafts: bands slanting down to the right, wobbling a little,
            // brightest just under the surface.
            let c = u + 0.35 * v;
            let band = 0.5 + 0.5 * (c * TAU * 4.0 + 1.3 * (c * TAU * 1.7).sin()).sin();
            let shaft = band.powi(6) * (1.0 - v).powf(1.5) * 0.08;
            rgb[0] += shaft * 0.6;
            rgb[1] += shaft;
            rgb[2] += shaft;
            // The floor, blended over two pixels at its edge.
            let edge = floor_line(u);
            let into = ((v - edge) * height as f32 * 0.5 + 0.5).clamp(0.0, 1.0);
            if into > 0.0 {
                let shade =
                    (0.8 + 0.2 * grain(x as u32, y as u32, 1)) * (1.0 - 0.35 * (v - edge) / (1.0 - edge));
                for (k, channel) in rgb.iter_mut().enumerate() {
                    *channel += (sand[k] * shade - *channel) * into;
                }
            }
            out.extend(rgb.map(to_byte));
            out.push(255);
        }
    }
    out
}

/// A weed blade, RGBA8, `width × height`, white: a ribbon from the root at
/// the bottom centre to a point at the top, curving a little.
pub fn weed_pixels(width: usize, height: usize) -> Vec<u8> {
    use core::f32::consts::PI;
    let mut out = Vec::with_capacity(width * height * 4);
    for y in 0..height {
        // From the root (0) to the tip (1).
        let t = 1.0 - (y as f32 + 0.5) / height as f32;
        let centre = 0.5 + 0.18 * (t * PI * 1.3).sin() * t;
        let half_width = 0.22 * (1.0 - t).powf(0.7) + 0.02;
        for x in 0..width {
            let u = (x as f32 + 0.5) / width as f32;
            let inside = ((half_width - (u - centre).abs()) * width as f32 + 0.5).clamp(0.0, 1.0);
            // A darker rib along the middle.
            let rib = 1.0 - 0.25 * (1.0 - ((u - centre).abs() / half_width).min(1.0)).powi(4);
            out.extend([to_byte(rib); 3]);
            out.push(to_byte(inside));
        }
    }
    out
}

fn make_images(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    let [bw, bh] = BACKDROP;
    let [ww, wh] = WEED;
    commands.insert_resource(SceneryImages {
        backdrop: images.add(rgba_image(backdrop_pixels(bw, bh), bw, bh)),
        weed: images.add(rgba_image(weed_pixels(ww, wh), ww, wh)),
    });
}

/// Lays the backdrop over the tank and plants weed along its floor, anew
/// whenever the tank changes.
fn place_scenery(
    mut commands: Commands,
    state: Res<FlockState>,
    images: Res<SceneryImages>,
    old: Query<Entity, With<Scenery>>,
    mut placed_for: Local<Option<Tank>>,
) {
    // The tank in force: a boundary command may have changed it.
    let tank = state.config().tank;
    if *placed_for == Some(tank) {
        return;
    }
    *placed_for = Some(tank);
    for entity in &old {
        commands.entity(entity).despawn();
    }
    let size = tank.size();
    commands.spawn((
        Scenery,
        Sprite { image: images.backdrop.clone(), custom_size: Some(size), ..default() },
        Transform::from_translation(((tank.min + tank.max) * 0.5).extend(BACKDROP_Z)),
    ));
    for blade in weed_layout(&tank) {
        commands.spawn((
            Scenery,
            blade.sway,
            Sprite {
                image: images.weed.clone(),
                color: blade.colour,
                custom_size: Some(blade.size),
                ..default()
            },
            Anchor::BOTTOM_CENTER,
            Transform::from_translation(blade.root.extend(WEED_Z)),
        ));
    }
}

/// One blade of weed.
#[derive(Clone, Copy, Debug)]
pub struct Blade {
    /// Where it grows from (on the floor).
    pub root: Vec2,
    /// Its width and height.
    pub size: Vec2,
    /// Its tint.
    pub colour: Color,
    /// How it sways.
    pub sway: Sway,
}

/// Clumps of weed along the tank's floor, one about every 160 units of
/// width, each of three to five blades of different heights and greens.
/// The same tank always gets the same weed.
pub fn weed_layout(tank: &Tank) -> Vec<Blade> {
    let size = tank.size();
    let clumps = ((size.x / 160.0) as u32).clamp(1, 200);
    let mut blades = Vec::new();
    for clump in 0..clumps {
        let u = (clump as f32 + 0.2 + 0.6 * grain(clump, 0, 3)) / clumps as f32;
        // Roots sit a little below the floor's edge in the backdrop.
        let floor = tank.max.y - size.y * (floor_line(u) + 0.02);
        let count = 3 + (grain(clump, 1, 3) * 3.0) as u32;
        for b in 0..count {
            let g = |salt: u32| grain(clump, b + 10, salt);
            let height = size.y * (0.05 + 0.1 * g(4));
            blades.push(Blade {
                root: Vec2::new(tank.min.x + u * size.x + (g(5) - 0.5) * 50.0, floor),
                size: Vec2::new(height * 0.22, height),
                colour: Color::srgb(0.08 + 0.08 * g(6), 0.21 + 0.12 * g(7), 0.14 + 0.08 * g(8)),
                sway: Sway {
                    facing: 0.0,
                    amplitude: 0.06 + 0.1 * g(9),
                    rate: 0.9 + 0.8 * g(10),
                    phase: core::f32::consts::TAU * g(11),
                },
            });
        }
    }
    blades
}

/// Sways the weed with the aquarium's clock (still while paused); the 3D
/// aquarium's too.
pub(crate) fn sway(time: Res<Time>, mut blades: Query<(&Sway, &mut Transform)>) {
    let t = time.elapsed_secs();
    for (s, mut transform) in &mut blades {
        transform.rotation = Quat::from_rotation_y(s.facing)
            * Quat::from_rotation_z(s.amplitude * (s.rate * t + s.phase).sin());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn luminance(px: &[u8]) -> u32 {
        px[..3].iter().map(|&c| u32::from(c)).sum()
    }

    #[test]
    fn the_backdrop_is_lighter_above_and_sandy_below() {
        let (w, h) = (64, 36);
        let p = backdrop_pixels(w, h);
        assert_eq!(p.len(), w * h * 4);
        let at = |x: usize, y: usize| &p[(y * w + x) * 4..(y * w + x) * 4 + 4];
        let row = |y: usize| (0..w).map(|x| luminance(at(x, y))).sum::<u32>();
        assert!(row(0) > row(h / 2), "the surface is brighter than mid-water");
        // The bottom row is sand: warmer (red above blue), the water is not.
        let bottom = at(w / 2, h - 1);
        assert!(bottom[0] > bottom[2], "{bottom:?}");
        let water = at(w / 2, h / 2);
        assert!(water[2] > water[0], "{water:?}");
        assert!(p.chunks_exact(4).all(|px| px[3] == 255), "opaque");
        // Dark enough for the fish to stand out: no pixel above half
        // brightness in any channel.
        assert!(p.chunks_exact(4).all(|px| px[..3].iter().all(|&c| c < 128)));
    }

    #[test]
    fn weed_grows_on_the_floor_of_any_tank() {
        let tank = Tank::centered(Vec2::new(1200.0, 600.0));
        let blades = weed_layout(&tank);
        assert!(blades.len() >= 3 * 7, "{} blades", blades.len());
        assert_eq!(blades.len(), weed_layout(&tank).len(), "the same layout every time");
        for b in &blades {
            assert!(b.root.y < tank.min.y + tank.size().y * 0.12, "{b:?}");
            assert!(b.root.x > tank.min.x - 30.0 && b.root.x < tank.max.x + 30.0, "{b:?}");
            assert!(b.size.y > 0.0 && b.size.y < tank.size().y * 0.2, "{b:?}");
        }
        // A narrow tank still gets one clump.
        let narrow = Tank::centered(Vec2::new(50.0, 400.0));
        assert!(!weed_layout(&narrow).is_empty());
        let p = weed_pixels(24, 128);
        assert_eq!(p.len(), 24 * 128 * 4);
        assert!(p[(127 * 24 + 12) * 4 + 3] == 255, "solid at the root");
    }
}
