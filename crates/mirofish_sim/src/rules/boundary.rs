//! The tank's walls: wrap, bounce and the soft margin, as pure functions.
//!
//! Whatever the mode, a fish leaves these functions inside `[min, max)` on
//! both axes with a finite velocity; that is the invariant the property
//! tests hold the whole simulation to. A position that is not a number
//! (outside code may write one) is put in the middle of the tank.

#[cfg(test)]
use glam::Vec2;
use glam::{BVec4A, Vec4};

use crate::math::Vector;
use crate::world::params::FlockParams;
#[cfg(test)]
use crate::world::tank::Tank;
use crate::world::tank::TankOf;

/// Fraction of the current speed given as tangential scatter on a bounce, so
/// that fish hitting a wall together do not slide along it in a line.
pub const BOUNCE_SCATTER: f32 = 0.05;

/// The soft margin's inward steering (a desired velocity, unweighted):
/// zero in the interior, ramping linearly to the desired speed
/// ([`FlockParams::desired_speed`]) at the wall.
#[inline]
pub fn soft_margin_steer<V: Vector>(p: V, tank: &TankOf<V>, params: &FlockParams) -> V {
    let margin = tank.margin();
    if margin <= 0.0 {
        return V::ZERO;
    }
    let inv = 1.0 / margin;
    let ramp = |lo_gap: f32, hi_gap: f32| {
        // Linear, not a step: fish feel the wall before they reach it and
        // turn smoothly instead of being shoved at the margin's edge.
        let inward = ((margin - lo_gap) * inv).clamp(0.0, 1.0);
        let outward = ((margin - hi_gap) * inv).clamp(0.0, 1.0);
        inward - outward
    };
    V::from_fn(|i| ramp(p.axis(i) - tank.min.axis(i), tank.max.axis(i) - p.axis(i))) * params.desired_speed()
}

/// The soft margin's weighted steer of a fish at `p` moving at `v`
/// ([`TankOf::ahead`] of them is what it steers by): [`soft_margin_steer`]
/// weighted by the tank's `boundary_weight` and clamped like every rule.
/// Clear of every wall's margin (most fish) it is the exact zero that
/// steer would give, its sign included, without computing it.
#[inline]
pub fn wall_steer<V: Vector>(p: V, v: V, tank: &TankOf<V>, params: &FlockParams) -> V {
    let (ahead, margin) = (tank.ahead(p, v), tank.margin());
    let clear = (0..V::DIM).all(|i| {
        let x = ahead.axis(i);
        x >= tank.min.axis(i) + margin && x <= tank.max.axis(i) - margin
    });
    if clear {
        V::ZERO * tank.boundary_weight
    } else {
        super::steer(soft_margin_steer(ahead, tank, params), tank.boundary_weight, params)
    }
}

/// [`wall_steer`] of the first `lanes` of four fish in lanes, axis by axis
/// (`at` their positions, `velocity` their velocities, asked for only
/// where the tank looks ahead; the axes past `V::DIM` and the lanes past
/// `lanes` are left at the clear zero): the same bits. Only a fish near a
/// wall goes through the one-fish form.
#[inline(always)]
pub(crate) fn wall_steer_lanes<V: Vector, const N: usize>(
    at: [Vec4; N],
    velocity: impl FnOnce() -> [Vec4; N],
    tank: &TankOf<V>,
    params: &FlockParams,
    lanes: usize,
) -> [Vec4; N] {
    debug_assert!(V::DIM <= N && lanes <= 4);
    let margin = tank.margin();
    // Where each fish steers by (`TankOf::ahead`, lane by lane).
    let mut ahead = at;
    if tank.look_ahead > 0.0 {
        let velocity = velocity();
        for (axis, v) in ahead.iter_mut().zip(velocity) {
            *axis += v * tank.look_ahead;
        }
    }
    let mut within = BVec4A::splat(true);
    for (i, axis) in ahead.iter().enumerate().take(V::DIM) {
        within &= axis.cmpge(Vec4::splat(tank.min.axis(i) + margin))
            & axis.cmple(Vec4::splat(tank.max.axis(i) - margin));
    }
    let clear = within.bitmask() | (!0u32 << lanes);
    let steer = [Vec4::splat(0.0 * tank.boundary_weight); N];
    if clear & 0b1111 == 0b1111 {
        return steer;
    }
    // Lane by lane in plain arrays: the vectors stay in registers on the
    // path every fish clear of the walls takes.
    let (ahead, mut parts) = (ahead.map(|a| a.to_array()), steer.map(|s| s.to_array()));
    for l in (0..lanes).filter(|&l| clear & (1 << l) == 0) {
        let p = V::from_fn(|i| ahead[i][l]);
        let wall = super::steer(soft_margin_steer(p, tank, params), tank.boundary_weight, params);
        for (i, axis) in parts.iter_mut().enumerate().take(V::DIM) {
            axis[l] = wall.axis(i);
        }
    }
    parts.map(Vec4::from_array)
}

/// Torus: brings `p` back into `[min, max)` on every axis.
#[inline]
pub fn wrap<V: Vector>(p: V, tank: &TankOf<V>) -> V {
    V::from_fn(|i| wrap_axis(p.axis(i), tank.min.axis(i), tank.max.axis(i)))
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
pub fn bounce<V: Vector>(p: V, v: V, tank: &TankOf<V>, scatter: f32) -> (V, V) {
    // Each axis on its own (at most three; the unused ones stay idle).
    let axes: [(f32, f32, bool); 3] = core::array::from_fn(|i| {
        if i < V::DIM {
            bounce_axis(p.axis(i), v.axis(i), tank.min.axis(i), tank.max.axis(i))
        } else {
            (0.0, 0.0, false)
        }
    });
    let position = V::from_fn(|i| axes[i].0);
    let mut v = V::from_fn(|i| axes[i].1);
    let hit = (0..V::DIM).find(|&i| axes[i].2);
    if let Some(axis) = hit {
        let speed = v.length();
        // Along the axis after the first wall hit: a direction in the wall.
        let tangent = V::from_fn(|j| if j == (axis + 1) % V::DIM { 1.0 } else { 0.0 });
        let scattered = v + tangent * (scatter * BOUNCE_SCATTER * speed);
        // Keep the speed: scatter turns the fish, it does not push it.
        v = scattered.normalize_or_zero() * speed;
    }
    (position, v)
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
    fn the_wall_steer_is_the_weighted_soft_margin_with_its_zero_clear_of_the_walls() {
        let (t, params) = (tank(), FlockParams::default());
        let at_rest = Vec2::ZERO;
        for k in 0..=400 {
            let p = Vec2::new(-100.0 + k as f32 * 0.5, 49.9 - k as f32 * 0.25);
            let slow = super::super::steer(soft_margin_steer(p, &t, &params), t.boundary_weight, &params);
            let fast = wall_steer(p, at_rest, &t, &params);
            assert_eq!(fast.to_array().map(f32::to_bits), slow.to_array().map(f32::to_bits), "at {p}");
        }
        let clear = wall_steer(Vec2::ZERO, at_rest, &t, &params);
        assert!(clear == Vec2::ZERO && clear.x.is_sign_positive() && clear.y.is_sign_positive());
        assert!(wall_steer(Vec2::new(99.0, 0.0), at_rest, &t, &params).x < 0.0);
    }

    fn wall_steer_in_lanes_is_the_one_fish_form<V: Vector>(tank: TankOf<V>) {
        let params = FlockParams::default();
        for look_ahead in [0.0, 0.5] {
            let tank = TankOf { look_ahead, ..tank };
            for k in 0..60 {
                // Four fish from deep inside to past a corner, moving out.
                let at: [V; 4] =
                    core::array::from_fn(|l| tank.max * ((k as f32 * 0.02 + l as f32 * 0.1) - 0.3));
                let velocity: [V; 4] = core::array::from_fn(|l| V::splat(10.0 * l as f32 - 15.0));
                let axes = |v: [V; 4]| {
                    core::array::from_fn(|i| {
                        if i < V::DIM { Vec4::from_array(v.map(|p| p.axis(i))) } else { Vec4::ZERO }
                    })
                };
                for lanes in [4, 3] {
                    let steer: [Vec4; 3] =
                        wall_steer_lanes(axes(at), || axes(velocity), &tank, &params, lanes);
                    for l in 0..4 {
                        let one =
                            if l < lanes { wall_steer(at[l], velocity[l], &tank, &params) } else { V::ZERO };
                        for (i, axis) in steer.iter().enumerate().take(V::DIM) {
                            assert_eq!(axis[l].to_bits(), one.axis(i).to_bits(), "lane {l} axis {i} at {k}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn wall_steer_in_lanes_is_the_one_fish_form_in_both_spaces() {
        wall_steer_in_lanes_is_the_one_fish_form(tank());
        wall_steer_in_lanes_is_the_one_fish_form(TankOf::<glam::Vec3>::centered(glam::Vec3::new(
            200.0, 100.0, 150.0,
        )));
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
