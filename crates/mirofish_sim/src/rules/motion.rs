//! How much one tick may change a fish's velocity: the speed limit, the
//! cruise speed its speed relaxes to and the fastest turn
//! ([`FlockParams::cruise_speed`], [`FlockParams::turn_rate`]).
//!
//! The forces say where a fish would like to go; its body says how fast it
//! can get there. A fish that only obeys a speed limit snaps to whatever
//! its neighbours do and races at the limit; a school of them either locks
//! into one rigid heading or scatters. Fish keep a preferred cruising speed
//! and turn at a bounded rate, and a school made of them turns as a body,
//! with the loose, lasting order real schools show.

use crate::math::Vector;
use crate::math::angle::sin_cos;
use crate::rules::clamp_length;
use crate::world::params::FlockParams;

/// A school's limits on the change of velocity in one tick, worked out
/// once per tick from its parameters and the tick's length.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gait {
    /// The calm speed limit ([`FlockParams::max_speed`]).
    pub max_speed: f32,
    /// How much full fear raises speeds and turns: `panic_speed - 1`.
    pub panic: f32,
    /// The calm cruise speed; 0 when speed is left to the forces.
    pub cruise: f32,
    /// Share of the gap to the cruise speed closed in one tick
    /// (`dt / cruise_time`, at most 1).
    pub relax: f32,
    /// The largest turn of a calm fish in one tick (radians); 0 when
    /// turning is unbounded.
    pub turn: f32,
    /// Cosine and sine of `turn`.
    turn_cos_sin: (f32, f32),
}

impl Gait {
    /// The gait of a school with `params`, for ticks of `dt` seconds.
    pub fn new(params: &FlockParams, dt: f32) -> Self {
        let turn = params.turn_rate * dt;
        let (sin, cos) = sin_cos(turn);
        Self {
            max_speed: params.max_speed,
            panic: params.panic_speed - 1.0,
            cruise: params.cruise_speed,
            relax: (dt / params.cruise_time).clamp(0.0, 1.0),
            turn: if turn.is_finite() { turn } else { 0.0 },
            turn_cos_sin: (cos, sin),
        }
    }

    /// Whether the velocity is only clipped at the speed limit (the
    /// reference model): no cruise speed, no bounded turn.
    pub fn is_clip_only(&self) -> bool {
        self.cruise == 0.0 && self.turn == 0.0
    }

    /// The speed limit of a fish with `fear` (0–1).
    #[inline]
    pub fn limit(&self, fear: f32) -> f32 {
        self.max_speed * (1.0 + self.panic * fear)
    }

    /// A fish's velocity after one tick: `old` its velocity before, `wanted`
    /// its velocity plus the tick's acceleration, `fear` its fear (0–1).
    /// `wanted` is clipped to the speed limit, turned at most the fastest
    /// turn away from `old`'s heading, and its speed relaxed towards the
    /// cruise speed; fear raises all three as it raises the limit. Finite
    /// for any input (a non-finite `wanted` becomes zero).
    #[inline]
    pub fn next<V: Vector>(&self, old: V, wanted: V, fear: f32) -> V {
        let limit = self.limit(fear);
        let v = clamp_length(wanted, limit);
        if self.is_clip_only() {
            return v;
        }
        let raise = 1.0 + self.panic * fear;
        let speed = v.length();
        let mut v = v;
        if self.turn > 0.0 {
            let turn = self.turn * raise;
            // A calm fish's sine and cosine are the school's, worked out
            // once a tick; a frightened one turns faster.
            let cos_sin = if fear == 0.0 {
                self.turn_cos_sin
            } else {
                let (sin, cos) = sin_cos(turn);
                (cos, sin)
            };
            // Within the turn (the common case) with two square roots and
            // no division: `old · v ≥ cos · |old| · |v|`.
            let old_len = old.length();
            let within = old.dot(v) >= cos_sin.0 * old_len * speed;
            if turn < core::f32::consts::PI && !within && old_len.is_finite() {
                v = turn_at_most(old, v, cos_sin);
            }
        }
        if self.cruise > 0.0 && speed > 0.0 {
            // Along the heading it now has, at the relaxed speed.
            let to = speed + ((self.cruise * raise).min(limit) - speed) * self.relax;
            v *= to / speed;
        }
        v
    }
}

/// `v` turned back towards the heading of `old` so that the two differ by
/// at most the angle whose cosine and sine are `(cos, sin)`, its speed
/// kept. Unchanged when either has no heading or the turn is within
/// bounds. A wish straight behind turns the fish towards the axis least
/// aligned with its heading.
#[inline]
pub fn turn_at_most<V: Vector>(old: V, v: V, (cos, sin): (f32, f32)) -> V {
    let Some(heading) = old.try_normalize() else { return v };
    let speed = v.length();
    if speed.is_nan() || speed <= 0.0 {
        return v;
    }
    let wish = v / speed;
    let c = heading.dot(wish);
    if c >= cos {
        return v;
    }
    let side = (wish - heading * c).try_normalize().unwrap_or_else(|| perpendicular(heading));
    (heading * cos + side * sin) * speed
}

/// A unit vector perpendicular to the unit vector `v`: along the axis
/// least aligned with it, with `v`'s part removed.
pub fn perpendicular<V: Vector>(v: V) -> V {
    let axis = (0..V::DIM).min_by(|&a, &b| v.axis(a).abs().total_cmp(&v.axis(b).abs())).unwrap_or(0);
    let e = V::from_fn(|i| if i == axis { 1.0 } else { 0.0 });
    (e - v * v.dot(e)).normalize_or_zero()
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3};

    use super::*;

    fn modelled() -> FlockParams {
        FlockParams { cruise_speed: 60.0, cruise_time: 0.5, turn_rate: 3.0, ..FlockParams::default() }
    }

    /// With neither a cruise speed nor a turning limit the gait is the
    /// reference model's clip, to the bit.
    #[test]
    fn the_reference_model_only_clips() {
        let params = FlockParams::reference();
        let gait = Gait::new(&params, 1.0 / 60.0);
        assert!(gait.is_clip_only());
        for (old, wanted, fear) in [
            (Vec2::new(1.0, 2.0), Vec2::new(500.0, -3.0), 0.0),
            (Vec2::X, Vec2::new(-0.5, 0.25), 0.7),
            (Vec2::ZERO, Vec2::new(f32::NAN, 1.0), 1.0),
        ] {
            let limit = params.max_speed * (1.0 + (params.panic_speed - 1.0) * fear);
            let clipped = clamp_length(wanted, limit);
            assert_eq!(
                gait.next(old, wanted, fear).to_array().map(f32::to_bits),
                clipped.to_array().map(f32::to_bits)
            );
        }
    }

    #[test]
    fn a_sharp_wish_is_turned_back_to_the_fastest_turn_and_keeps_its_speed() {
        let gait = Gait::new(&modelled(), 0.1); // 0.3 rad a tick
        let old = Vec2::new(60.0, 0.0);
        // A wish at right angles, at the cruise speed.
        let v = gait.next(old, Vec2::new(0.0, 60.0), 0.0);
        assert!((v.length() - 60.0).abs() < 1e-3, "{v}");
        assert!((v.y.atan2(v.x) - 0.3).abs() < 1e-5, "{v}");
        // A gentle wish keeps its heading (its speed relaxes).
        let gentle = Vec2::new(60.0, 6.0);
        let kept = gait.next(old, gentle, 0.0);
        assert!(kept.perp_dot(gentle).abs() < 1e-3 && kept.dot(gentle) > 0.0, "{kept}");
        // Straight behind: turned to one side by the full turn, in 3D too.
        let back = gait.next(Vec3::X * 60.0, Vec3::X * -60.0, 0.0);
        assert!((back.normalize().dot(Vec3::X) - 0.3f32.cos()).abs() < 1e-5, "{back}");
        // Fear turns faster: a frightened fish gets further round.
        let afraid = gait.next(old, Vec2::new(0.0, 60.0), 1.0);
        assert!(afraid.y.atan2(afraid.x) > 0.3 + 0.1, "{afraid}");
    }

    #[test]
    fn speed_relaxes_to_the_cruise_speed_from_either_side() {
        let params = FlockParams { turn_rate: 0.0, ..modelled() };
        let gait = Gait::new(&params, 0.1); // a fifth of the gap a tick
        let fast = gait.next(Vec2::X * 100.0, Vec2::X * 100.0, 0.0);
        assert!((fast.x - 92.0).abs() < 1e-3, "{fast}");
        let slow = gait.next(Vec2::X * 10.0, Vec2::X * 10.0, 0.0);
        assert!((slow.x - 20.0).abs() < 1e-3, "{slow}");
        // Fear raises the cruise speed with the limit, never above it.
        let afraid = gait.next(Vec2::X * 60.0, Vec2::X * 60.0, 1.0);
        assert!(afraid.x > 60.0 && afraid.x <= gait.limit(1.0), "{afraid}");
        // Many ticks settle on it.
        let mut v = Vec3::new(3.0, -4.0, 1.0);
        for _ in 0..200 {
            v = gait.next(v, v, 0.0);
        }
        assert!((v.length() - 60.0).abs() < 1e-3, "{v}");
        // At rest there is no heading to cruise along.
        assert_eq!(gait.next(Vec2::ZERO, Vec2::ZERO, 0.0), Vec2::ZERO);
    }

    #[test]
    fn hostile_velocities_stay_finite() {
        let gait = Gait::new(&FlockParams { turn_rate: 1.0e4, cruise_time: 1.0e-3, ..modelled() }, 1.0);
        let odd = [0.0, -0.0, 1.0e-38, 1.0e38, -1.0e38, f32::MAX, f32::INFINITY, f32::NAN];
        for &a in &odd {
            for &b in &odd {
                for fear in [0.0, 0.5, 1.0] {
                    let v = gait.next(Vec2::new(a, b), Vec2::new(b, a), fear);
                    assert!(v.is_finite() && v.length() <= gait.limit(fear) * 1.0001, "{a} {b} {fear}: {v}");
                    let w = gait.next(Vec3::new(a, b, a), Vec3::new(b, -a, 1.0), fear);
                    assert!(w.is_finite(), "{a} {b} {fear}: {w}");
                }
            }
        }
    }
}
