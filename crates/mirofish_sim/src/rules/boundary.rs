//! The tank's walls: wrap, bounce and the soft margin, as pure functions.
//!
//! Whatever the mode, a fish leaves these functions inside `[min, max)` on
//! both axes with a finite velocity; that is the invariant the property
//! tests hold the whole simulation to. A position that is not a number
//! (outside code may write one) is put in the middle of the tank.

use glam::Vec2;

use crate::world::params::FlockParams;
use crate::world::tank::Tank;

/// Fraction of the current speed given as tangential scatter on a bounce, so
/// that fish hitting a wall together do not slide along it in a line.
pub const BOUNCE_SCATTER: f32 = 0.05;

/// The soft margin's inward steering (a desired velocity, unweighted):
/// zero in the interior, ramping linearly to `max_speed` at the wall.
#[inline]
pub fn soft_margin_steer(p: Vec2, tank: &Tank, params: &FlockParams) -> Vec2 {
    let margin = tank.margin();
    if margin <= 0.0 {
        return Vec2::ZERO;
    }
    let inv = 1.0 / margin;
    let ramp = |lo_gap: f32, hi_gap: f32| {
        // Linear, not a step: fish feel the wall before they reach it and
        // turn smoothly instead of being shoved at the margin's edge.
        let inward = ((margin - lo_gap) * inv).clamp(0.0, 1.0);
        let outward = ((margin - hi_gap) * inv).clamp(0.0, 1.0);
        inward - outward
    };
    Vec2::new(ramp(p.x - tank.min.x, tank.max.x - p.x), ramp(p.y - tank.min.y, tank.max.y - p.y))
        * params.max_speed
}

/// Torus: brings `p` back into `[min, max)` on both axes.
#[inline]
pub fn wrap(p: Vec2, tank: &Tank) -> Vec2 {
    Vec2::new(wrap_axis(p.x, tank.min.x, tank.max.x), wrap_axis(p.y, tank.min.y, tank.max.y))
}

#[inline]
fn wrap_axis(x: f32, lo: f32, hi: f32) -> f32 {
    if x >= lo && x < hi {
        return x;
    }
    if !x.is_finite() {
        // A position that is not a number or infinite (written so from
        // outside; `rem_euclid` of either is NaN): the middle of the tank,
        // where the other walls' repair puts it too.
        return middle(lo, hi);
    }
    let w = hi - lo;
    let r = lo + (x - lo).rem_euclid(w);
    // `rem_euclid` of a tiny negative number rounds up to exactly `w`.
    if r >= hi || r < lo { lo } else { r }
}

/// Hard walls: mirrors a fish that crossed a wall back inside and reverses
/// the normal component of its velocity. `scatter` (in `[-1, 1]`) adds a
/// tangential nudge of at most [`BOUNCE_SCATTER`] × speed on a bounce.
/// Returns the new position and velocity.
#[inline]
pub fn bounce(p: Vec2, v: Vec2, tank: &Tank, scatter: f32) -> (Vec2, Vec2) {
    let (x, vx, hit_x) = bounce_axis(p.x, v.x, tank.min.x, tank.max.x);
    let (y, vy, hit_y) = bounce_axis(p.y, v.y, tank.min.y, tank.max.y);
    let mut v = Vec2::new(vx, vy);
    if hit_x || hit_y {
        let speed = v.length();
        let tangent = if hit_x { Vec2::Y } else { Vec2::X };
        let scattered = v + tangent * (scatter * BOUNCE_SCATTER * speed);
        // Keep the speed: scatter turns the fish, it does not push it.
        v = scattered.normalize_or_zero() * speed;
    }
    (Vec2::new(x, y), v)
}

#[inline]
fn bounce_axis(x: f32, v: f32, lo: f32, hi: f32) -> (f32, f32, bool) {
    if x.is_nan() {
        // Not a number (written so from outside): the middle, at rest.
        return (middle(lo, hi), 0.0, true);
    }
    if x < lo {
        (inside(lo + (lo - x), lo, hi), v.abs(), true)
    } else if x >= hi {
        (inside(hi - (x - hi), lo, hi), -v.abs(), true)
    } else {
        (x, v, false)
    }
}

/// The middle of `[lo, hi)`, inside it however narrow.
#[inline]
fn middle(lo: f32, hi: f32) -> f32 {
    inside(lo + (hi - lo) * 0.5, lo, hi)
}

/// Clamps into `[lo, hi)`: a mirror image can still overshoot when a fish
/// moved more than a whole tank in one tick.
#[inline]
fn inside(x: f32, lo: f32, hi: f32) -> f32 {
    x.clamp(lo, hi.next_down())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tank() -> Tank {
        Tank::centered(Vec2::new(200.0, 100.0))
    }

    #[test]
    fn wrap_brings_points_back_inside() {
        let t = tank();
        assert_eq!(wrap(Vec2::new(101.0, 0.0), &t), Vec2::new(-99.0, 0.0));
        assert_eq!(wrap(Vec2::new(100.0, -50.0), &t), Vec2::new(-100.0, -50.0));
        assert_eq!(wrap(Vec2::new(-100.0 - 1e-9, 0.0), &t).x, -100.0);
        for x in [-1.0e6, -301.5, -100.000_01, 99.999_99, 1.0e6] {
            assert!(t.contains(wrap(Vec2::new(x, x), &t)), "{x}");
        }
    }

    #[test]
    fn bounce_reverses_the_normal_component() {
        let t = tank();
        let (p, v) = bounce(Vec2::new(103.0, 0.0), Vec2::new(5.0, 1.0), &t, 0.0);
        assert_eq!(p, Vec2::new(97.0, 0.0));
        assert_eq!(v, Vec2::new(-5.0, 1.0));
        let (p, v) = bounce(Vec2::new(0.0, -51.0), Vec2::new(1.0, -5.0), &t, 0.0);
        assert_eq!(p, Vec2::new(0.0, -49.0));
        assert_eq!(v, Vec2::new(1.0, 5.0));
        // Far overshoot still ends inside.
        let (p, _) = bounce(Vec2::new(1.0e5, -1.0e5), Vec2::ONE, &t, 1.0);
        assert!(t.contains(p), "{p}");
    }

    #[test]
    fn a_position_that_is_not_a_number_or_infinite_goes_to_the_middle() {
        let t = Tank { min: Vec2::new(0.0, -50.0), max: Vec2::new(200.0, 50.0), ..tank() };
        assert_eq!(wrap(Vec2::new(f32::NAN, 7.0), &t), Vec2::new(100.0, 7.0));
        assert_eq!(wrap(Vec2::new(5.0, f32::INFINITY), &t), Vec2::new(5.0, 0.0));
        assert_eq!(wrap(Vec2::new(f32::NEG_INFINITY, 7.0), &t), Vec2::new(100.0, 7.0));
        let (p, v) = bounce(Vec2::NAN, Vec2::new(3.0, 4.0), &t, 1.0);
        assert_eq!(p, Vec2::new(100.0, 0.0));
        assert!(t.contains(p) && v == Vec2::ZERO, "{v}");
    }

    #[test]
    fn bounce_scatter_keeps_speed_and_is_bounded() {
        let t = tank();
        let v0 = Vec2::new(5.0, 0.0);
        let (_, v) = bounce(Vec2::new(101.0, 0.0), v0, &t, 1.0);
        assert!((v.length() - 5.0).abs() < 1e-4);
        assert!(v.y.abs() <= 5.0 * BOUNCE_SCATTER + 1e-4 && v.y != 0.0);
    }

    #[test]
    fn soft_margin_ramps_linearly_inwards() {
        let t = tank();
        let p = FlockParams::default();
        let m = t.margin();
        assert_eq!(m, 10.0);
        assert_eq!(soft_margin_steer(Vec2::ZERO, &t, &p), Vec2::ZERO);
        let half = soft_margin_steer(Vec2::new(t.max.x - m * 0.5, 0.0), &t, &p);
        assert!((half.x + 0.5 * p.max_speed).abs() < 1e-3, "{half}");
        let wall = soft_margin_steer(Vec2::new(t.min.x, t.min.y), &t, &p);
        assert!((wall - Vec2::splat(p.max_speed)).length() < 1e-3, "{wall}");
    }
}
