//! The turn that points a fish's model along its heading, computed for
//! every fish in every frame: without trigonometry and without normalising
//! the heading first (an arc tangent, a sine and a cosine per fish and
//! frame, or glam's general arc between two unit vectors, cost more than
//! the rest of the `Transform` update).
//!
//! The shortest turn taking a unit vector `a` to `h / |h|` is the
//! quaternion `(a × h, |h| + a · h)`, normalised: its real part and its
//! vector part are in the ratio of the half angle's cosine and sine. One
//! square root for `|h|`, one for the norm.

use bevy::math::{Quat, Vec2, Vec3, Vec4};

/// The turn about +Z that takes +X (a sprite's forward) along `heading`;
/// `None` for a zero or non-finite heading (the fish keeps its last turn).
#[inline]
pub(crate) fn plane(heading: Vec2) -> Option<Quat> {
    let len = finite_length(heading.length())?;
    // a = +X: a × h = (0, 0, h.y), a · h = h.x.
    let (w, z) = (len + heading.x, heading.y);
    let norm = (w * w + z * z).sqrt();
    Some(match norm > 0.0 {
        true => Quat::from_xyzw(0.0, 0.0, z / norm, w / norm),
        // Straight along −X (or so close the sine underflowed): half a turn.
        false => Quat::from_xyzw(0.0, 0.0, 1.0, 0.0),
    })
}

/// The turn that takes −Z (Bevy's forward, a model's nose) along `heading`
/// without roll: the shortest arc, as glam's `Quat::from_rotation_arc`
/// gives for the normalised heading. `None` for a zero or non-finite
/// heading.
#[inline]
pub(crate) fn volume(heading: Vec3) -> Option<Quat> {
    let len = finite_length(heading.length())?;
    // a = −Z: a × h = (h.y, −h.x, 0), a · h = −h.z.
    let q = Vec4::new(heading.y, -heading.x, 0.0, len - heading.z);
    let norm = q.length();
    Some(match norm > 0.0 {
        true => Quat::from_vec4(q / norm),
        // Straight along +Z: half a turn, about the axis glam picks.
        false => Quat::from_rotation_arc(Vec3::NEG_Z, Vec3::Z),
    })
}

/// `upright` (a fish turned along its heading without roll) rolled about
/// the heading towards the side `steering` pulls to: by `bank` radians at
/// `max_force` sideways, less below it.
pub(crate) fn banked(upright: Quat, steering: Vec3, max_force: f32, bank: f32) -> Quat {
    if bank <= 0.0 || max_force <= 0.0 {
        return upright;
    }
    let heading = upright * Vec3::NEG_Z;
    let right = upright * Vec3::X;
    let side = (steering.dot(right) / max_force).clamp(-1.0, 1.0);
    if !side.is_finite() {
        return upright;
    }
    // A positive turn about the heading carries the fish's up towards its
    // right: into a turn to the right.
    Quat::from_axis_angle(heading, side * bank) * upright
}

/// `len` if it is a length a heading can be normalised by.
#[inline]
fn finite_length(len: f32) -> Option<f32> {
    (len > 0.0 && len.is_finite()).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LENGTHS: [f32; 6] = [1.0e-6, 1.0e-3, 0.7, 1.0, 45.0, 1.0e18];

    /// `turn` is `arc` (glam's) to a few ulps, unit, and takes `forward`
    /// along `heading`.
    fn agrees(turn: Quat, arc: Quat, forward: Vec3, heading: Vec3) {
        assert!(turn.is_normalized(), "{heading}: {turn}");
        assert!(turn.dot(arc).abs() > 1.0 - 1.0e-6, "{heading}: {turn} vs {arc}");
        assert!((turn * forward).dot(heading.normalize()) > 1.0 - 1.0e-5, "{heading}");
    }

    /// On a plane: glam's arc from +X at every angle and length, the half
    /// turn included; a zero or broken heading has none.
    #[test]
    fn a_plane_turn_is_the_arc_from_x() {
        for step in 0..3600 {
            let angle = step as f32 * core::f32::consts::TAU / 3600.0;
            for length in LENGTHS {
                let heading = Vec2::from_angle(angle) * length;
                let arc = Quat::from_rotation_arc_2d(Vec2::X, heading.normalize());
                agrees(plane(heading).expect("a heading"), arc, Vec3::X, heading.extend(0.0));
            }
        }
        assert_eq!(plane(Vec2::NEG_X), Some(Quat::from_xyzw(0.0, 0.0, 1.0, 0.0)));
        assert_eq!(plane(Vec2::new(-1.0, 1.0e-30)).map(|q| q * Vec3::X), Some(Vec3::NEG_X));
        for broken in [Vec2::ZERO, Vec2::NAN, Vec2::new(f32::INFINITY, 0.0), Vec2::new(1.0, f32::NAN)] {
            assert_eq!(plane(broken), None, "{broken}");
        }
    }

    /// In a volume: glam's arc from −Z over a sphere of headings and every
    /// length, straight up and down included; a zero or broken heading has
    /// none.
    #[test]
    fn a_volume_turn_is_the_arc_from_minus_z() {
        for i in 0..90 {
            for j in 0..=60 {
                let (azimuth, polar) = (i as f32 * 4.0_f32.to_radians(), j as f32 * 3.0_f32.to_radians());
                let unit = Vec3::new(polar.sin() * azimuth.cos(), polar.sin() * azimuth.sin(), polar.cos());
                for length in LENGTHS {
                    let heading = unit * length;
                    let arc = Quat::from_rotation_arc(Vec3::NEG_Z, heading.normalize());
                    agrees(volume(heading).expect("a heading"), arc, Vec3::NEG_Z, heading);
                }
            }
        }
        assert_eq!(volume(Vec3::Z), Some(Quat::from_rotation_arc(Vec3::NEG_Z, Vec3::Z)));
        assert_eq!(volume(Vec3::NEG_Z), Some(Quat::IDENTITY));
        for broken in
            [Vec3::ZERO, Vec3::NAN, Vec3::new(0.0, f32::INFINITY, 0.0), Vec3::new(1.0, 0.0, f32::NAN)]
        {
            assert_eq!(volume(broken), None, "{broken}");
        }
    }
}
