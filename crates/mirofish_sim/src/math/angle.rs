//! Sine and cosine in plain `f32` arithmetic, the same bits on every
//! platform.
//!
//! `f32::sin_cos` calls the platform's maths library, whose last bit may
//! differ between libc versions and CPUs (glibc picks an FMA variant where
//! the CPU has one). The wander rule takes a sine and a cosine per fish and
//! tick, so a replay recorded on one machine would drift on another. These
//! polynomials use only `+ - ×` and a rounding, which IEEE 754 fixes to the
//! bit, and cost about a third of the library call.

use core::f32::consts::FRAC_2_PI;

use glam::Vec2;
#[cfg(test)]
use glam::Vec4;

use crate::math::lanes::Lanes;

/// π/2 split in two, so that `x - k·π/2` keeps its precision for the
/// angles a simulation sees (Cody–Waite reduction).
const HALF_PI_HI: f32 = 1.570_312_5;
const HALF_PI_LO: f32 = 4.838_268e-4;

/// `(sin r, cos r)` for `r = x - k·π/2` (`k` the whole number nearest
/// `x·2/π`), one angle (`f32`) or four (`Vec4`) with the same operations in
/// the same order, hence the same bits.
#[inline(always)]
fn reduced<T>(x: T, k: T) -> (T, T)
where
    T: Copy
        + core::ops::Add<Output = T>
        + core::ops::Sub<Output = T>
        + core::ops::Mul<Output = T>
        + core::ops::Mul<f32, Output = T>
        + core::ops::Add<f32, Output = T>
        + core::ops::Sub<f32, Output = T>,
{
    let r = (x - k * HALF_PI_HI) - k * HALF_PI_LO;
    let z = r * r;
    // Minimax polynomials on [-π/4, π/4] (Cephes' sinf/cosf).
    let s = ((z * -1.951_529_6e-4 + 8.332_161e-3) * z - 1.666_665_5e-1) * z * r + r;
    let c = ((z * 2.443_315_7e-5 - 1.388_731_6e-3) * z + 4.166_664_6e-2) * z * z - z * 0.5 + 1.0;
    (s, c)
}

/// Angles beyond which [`sin_cos`] first takes them modulo a turn: past
/// a million the reduction by quadrants loses the angle anyway, and far
/// enough past it would square an overflowing remainder.
const HUGE: f32 = 1.0e6;

/// `(sin x, cos x)`, within 2 ulp of the true values for `|x| ≤ 1000`
/// (a phase is kept in `[0, 2π)`), finite for every finite `x`; `(0, 1)`
/// for a non-finite `x`.
#[inline]
pub fn sin_cos(x: f32) -> (f32, f32) {
    if !x.is_finite() {
        return (0.0, 1.0);
    }
    // Past a million, first the angle modulo a turn (`%` is exact, so the
    // same bits everywhere). Nearer angles keep their bits.
    let x = if x.abs() > HUGE { x % core::f32::consts::TAU } else { x };
    // Quadrant and the remainder in [-π/4, π/4]. Rounded by hand: without
    // SSE4.1, `f32::round` is a library call.
    let q = x * FRAC_2_PI;
    let quadrant = if q >= 0.0 { (q + 0.5) as i64 } else { (q - 0.5) as i64 };
    let (s, c) = reduced(x, quadrant as f32);
    match quadrant.rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// Largest angle [`sin_cos_lanes`] takes: its quadrant is then a small
/// whole number in `f32` and the lanes round it exactly as [`sin_cos`]
/// does.
const LANE_LIMIT: f32 = HUGE;

/// [`sin_cos`] of four angles at once (or eight, [`Lanes`]), the same bits
/// lane by lane: the force kernel's wander for four fish. `None` if an
/// angle is non-finite or beyond ±10⁶ (the one-angle form handles those).
#[inline(always)]
pub(crate) fn sin_cos_lanes<V: Lanes>(x: V) -> Option<(V, V)> {
    // NaN fails the comparison too.
    if !V::all(x.abs().cmple(x.splat(LANE_LIMIT))) {
        return None;
    }
    let q = x * FRAC_2_PI;
    // Round half away from zero, as the scalar form's `as i64` does.
    let k = V::select(q.cmpge(x.splat(0.0)), q + 0.5, q - 0.5).trunc();
    let (s, c) = reduced(x, k);
    // The quadrant modulo 4, exact in `f32` for these magnitudes.
    let quadrant = k - (k * 0.25).floor() * 4.0;
    let one = quadrant.cmpeq(x.splat(1.0));
    let swap = one | quadrant.cmpeq(x.splat(3.0));
    let (sin, cos) = (V::select(swap, c, s), V::select(swap, s, c));
    let sin = V::select(quadrant.cmpge(x.splat(2.0)), -sin, sin);
    let cos = V::select(one | quadrant.cmpeq(x.splat(2.0)), -cos, cos);
    Some((sin, cos))
}

/// The unit vector at angle `x` (radians, counter-clockwise from +X):
/// `(cos x, sin x)`.
#[inline]
pub fn unit(x: f32) -> Vec2 {
    let (s, c) = sin_cos(x);
    Vec2::new(c, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_library_to_a_few_ulp() {
        let mut worst = 0.0f64;
        for i in -200_000..=200_000 {
            let x = i as f32 * 1.0e-4 * core::f32::consts::PI;
            let (s, c) = sin_cos(x);
            let (es, ec) = f64::from(x).sin_cos();
            worst = worst.max((f64::from(s) - es).abs()).max((f64::from(c) - ec).abs());
        }
        assert!(worst < 2.0e-7, "worst error {worst}");
    }

    #[test]
    fn every_finite_angle_has_a_finite_sine_and_cosine() {
        for x in [1.0e6 + 1.0, 1.0e9, 1.0e18, 1.0e19, 1.0e30, f32::MAX, -f32::MAX, -7.5e25] {
            let (s, c) = sin_cos(x);
            assert!(s.is_finite() && c.is_finite() && (s * s + c * c - 1.0).abs() < 1.0e-5, "{x}: {s} {c}");
        }
    }

    #[test]
    fn four_lanes_give_the_bits_of_one() {
        let mut angles: Vec<f32> = (-4000..4000).map(|i| i as f32 * 0.0123).collect();
        // Zeros, the limits, and the quadrant borders where the rounding turns.
        let quarter = core::f32::consts::FRAC_PI_4;
        angles.extend([0.0, -0.0, 1.0e6, -1.0e6, quarter, -quarter, 5.0 * quarter, quarter.next_up()]);
        for x in angles.chunks(4).filter(|c| c.len() == 4) {
            let (s, c) = sin_cos_lanes(Vec4::from_slice(x)).expect("within the limit");
            for l in 0..4 {
                let (es, ec) = sin_cos(x[l]);
                assert_eq!((s[l].to_bits(), c[l].to_bits()), (es.to_bits(), ec.to_bits()), "{}", x[l]);
            }
        }
        assert!(sin_cos_lanes(Vec4::new(0.0, 1.0, f32::NAN, 2.0)).is_none());
        assert!(sin_cos_lanes(Vec4::new(0.0, 1.0, 2.0e6, 2.0)).is_none());
    }

    #[test]
    fn unit_vectors_have_unit_length_and_exact_axes() {
        for i in 0..1000 {
            let v = unit(i as f32 * 0.007);
            assert!((v.length() - 1.0).abs() < 1.0e-6);
        }
        assert_eq!(unit(0.0), Vec2::X);
        assert_eq!(sin_cos(f32::NAN), (0.0, 1.0));
        assert_eq!(sin_cos(f32::INFINITY), (0.0, 1.0));
    }
}
