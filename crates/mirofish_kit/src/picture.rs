//! Pictures computed in code (so a copied binary needs no `assets/`
//! folder): the rock the 2D look draws each obstacle with, and the small
//! tools such pictures are made with, for a game's own.

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

/// A number in `0..1` from integer coordinates and a `salt`: a hash, not a
/// random stream, so a picture is the same every run.
pub fn grain(x: u32, y: u32, salt: u32) -> f32 {
    let mut h = x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ salt.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// A channel in `0..1` as a byte (clamped).
pub fn to_byte(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// An sRGB RGBA8 image of `pixels` (rows top down), `width × height`, for
/// the renderer only.
pub fn rgba_image(pixels: Vec<u8>, width: usize, height: usize) -> Image {
    Image::new(
        Extent3d { width: width as u32, height: height as u32, depth_or_array_layers: 1 },
        TextureDimension::D2,
        pixels,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    )
}

/// A rock, RGBA8 sRGB, `size × size`: an uneven outline between 0.84 and
/// 1.0 of the picture's half-width (so it stays inside the circle the fish
/// avoid and still fills it), lit from the upper left, grainy.
pub fn rock_pixels(size: usize) -> Vec<u8> {
    let half = (size as f32 * 0.5).max(0.5);
    let light = Vec3::new(-0.5, 0.6, 0.62).normalize();
    let mut out = Vec::with_capacity(size * size * 4);
    for y in 0..size {
        for x in 0..size {
            // Picture rows run downwards; +Y is up on screen.
            let p = Vec2::new(x as f32 + 0.5 - half, half - (y as f32 + 0.5)) / half;
            let angle = p.y.atan2(p.x);
            let wobble = ((3.0 * angle + 1.0).sin() + 0.5 * (5.0 * angle + 2.0).sin()) / 1.5;
            let outline = 0.92 + 0.08 * wobble;
            let r = p.length() / outline;
            let alpha = ((1.0 - r) * half * 0.9 + 0.5).clamp(0.0, 1.0);
            let z = (1.0 - (r * r).min(1.0)).sqrt();
            let normal = Vec3::new(p.x / outline, p.y / outline, z).normalize_or_zero();
            let lit = 0.45 + 0.55 * normal.dot(light).max(0.0);
            let shade = lit * (0.85 + 0.15 * grain(x as u32, y as u32, 2));
            out.extend([0.31, 0.34, 0.37].map(|c: f32| to_byte(c * shade)));
            out.push(to_byte(alpha));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn luminance(px: &[u8]) -> u32 {
        px[..3].iter().map(|&c| u32::from(c)).sum()
    }

    #[test]
    fn a_rock_fills_its_circle_and_stays_inside_it() {
        let n = 64;
        let p = rock_pixels(n);
        let alpha = |x: usize, y: usize| p[(y * n + x) * 4 + 3];
        assert_eq!(alpha(n / 2, n / 2), 255, "solid in the middle");
        assert_eq!(alpha(0, 0), 0, "clear in the corners");
        // Nothing beyond the circle; solid within 0.8 of it.
        for y in 0..n {
            for x in 0..n {
                let d = Vec2::new(x as f32 + 0.5, y as f32 + 0.5).distance(Vec2::splat(n as f32 / 2.0));
                let r = d / (n as f32 / 2.0);
                if r > 1.02 {
                    assert_eq!(alpha(x, y), 0, "({x}, {y})");
                } else if r < 0.8 {
                    assert_eq!(alpha(x, y), 255, "({x}, {y})");
                }
            }
        }
        // Lit from the upper left: that side is brighter.
        let lum = |x: usize, y: usize| luminance(&p[(y * n + x) * 4..]);
        assert!(lum(n / 4, n / 4) > lum(3 * n / 4, 3 * n / 4));
    }

    #[test]
    fn a_tiny_or_empty_rock_is_still_a_picture() {
        assert!(rock_pixels(0).is_empty());
        assert_eq!(rock_pixels(1).len(), 4);
        assert_eq!(to_byte(f32::NAN), 0);
        assert_eq!((to_byte(-1.0), to_byte(2.0)), (0, 255));
        let g = grain(7, 9, 3);
        assert!((0.0..1.0).contains(&g) && g == grain(7, 9, 3));
    }
}
