//! Counter-based randomness for the per-tick noise (jitter, bounce scatter,
//! the escape direction of fish on top of each other).
//!
//! A stateful generator shared by all fish would make each draw depend on
//! the order in which threads reach it. Instead every draw is a pure
//! function of `(seed, tick, fish, stream)` through a SplitMix64-style
//! mixer: the same inputs give the same bits on every platform and for any
//! thread count, and no state has to be stored or replayed.

use glam::{Vec2, Vec4};

use crate::math::Vector;

/// Independent purposes of noise, so that two draws for the same fish and
/// tick never share bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Symmetry-breaking acceleration added before the force clamp.
    Jitter = 1,
    /// Tangential scatter after a bounce off a wall.
    Bounce = 2,
    /// Direction a fish escapes the fish exactly on top of it along.
    Coincident = 3,
    /// Place and heading of a fish added by a command.
    Spawn = 4,
    /// The noise of a fish's wish under Couzin's zones.
    Wander = 5,
    /// What a fish added by a command in a volume draws besides its
    /// place, heading and phase: its heading's height and its wander's
    /// circle.
    SpawnTilt = 6,
}

/// The SplitMix64 finaliser: a bijective 64-bit mixer with good avalanche.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// 64 random bits for one `(seed, tick, fish, stream)`.
#[inline]
pub fn bits(seed: u64, tick: u64, fish: u64, stream: Stream) -> u64 {
    TickKey::new(seed, tick).bits(fish, stream)
}

/// The part of [`bits`] that depends on the seed and tick only, mixed once
/// per tick instead of once per fish: the force pass draws a jitter for
/// every fish. Gives exactly the bits [`bits`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickKey(u64);

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
/// Room for the streams in a draw's counter: a power of two above every
/// [`Stream`].
const STREAMS: u64 = 8;
const _: () = assert!((Stream::Wander as u64) < STREAMS);

impl TickKey {
    /// The key of `tick` under `seed`.
    #[inline]
    pub fn new(seed: u64, tick: u64) -> Self {
        Self(mix64(mix64(seed ^ GOLDEN) ^ tick.wrapping_mul(GOLDEN)))
    }

    /// 64 random bits for one `(fish, stream)` of this tick: SplitMix64's
    /// output at the counter `fish · 8 + stream` of a generator seeded with
    /// the tick's key (one mix of a Weyl step, the generator's own
    /// construction). Every `(fish, stream)` of a tick has its own counter
    /// (fish numbers up to 2⁶¹), and a draw costs one mix: the jitter draws
    /// for every fish in every tick, in the hot loop.
    #[inline(always)]
    pub fn bits(self, fish: u64, stream: Stream) -> u64 {
        let counter = fish.wrapping_mul(STREAMS) | stream as u64;
        mix64(self.0.wrapping_add(counter.wrapping_mul(GOLDEN)))
    }

    /// A point of the unit ball (the unit disc on a plane) for one `(fish,
    /// stream)` of this tick: each axis a uniform number in `[-1, 1)` from
    /// its own slice of the draw's bits, the cube's corners that
    /// fall outside the ball folded onto its surface (the length clamped to
    /// 1: bounded without a rejection loop).
    #[inline]
    pub fn in_unit_ball<V: Vector>(self, fish: u64, stream: Stream) -> V {
        let bits = self.bits(fish, stream);
        let p = V::from_fn(|i| ball_axis::<V>(bits, i));
        let len2 = p.length_squared();
        if len2 > 1.0 { p / len2.sqrt() } else { p }
    }

    /// A number uniform in `[-1, 1)` for one `(fish, stream)` of this
    /// tick: the top 24 bits of its draw, as many as an `f32` holds.
    #[inline]
    pub fn signed(self, fish: u64, stream: Stream) -> f32 {
        signed_of((self.bits(fish, stream) >> 40) as u32, 24)
    }

    /// [`TickKey::in_unit_ball`] for four fish at once, axis by axis with
    /// one fish per lane (the axes past `V::DIM` zero): the same bits. The
    /// hashing stays scalar (64-bit products); the conversion and the fold
    /// into the ball, whose branch would go either way for a fifth of the
    /// fish, run in the lanes.
    #[inline(always)]
    pub(crate) fn in_unit_ball_lanes<V: Vector>(self, fish: [u64; 4], stream: Stream) -> [Vec4; 3] {
        // Indexed, not `map`ped: the arrays' `map` was left out of line
        // in the generic force pass (a call per quartet for four mixes).
        let [a, b, c, d] = fish;
        let bits = [self.bits(a, stream), self.bits(b, stream), self.bits(c, stream), self.bits(d, stream)];
        let mut p = [Vec4::ZERO; 3];
        for (i, axis) in p.iter_mut().enumerate().take(V::DIM) {
            let [a, b, c, d] = bits;
            *axis = Vec4::new(
                ball_axis::<V>(a, i),
                ball_axis::<V>(b, i),
                ball_axis::<V>(c, i),
                ball_axis::<V>(d, i),
            );
        }
        let mut len2 = p[0] * p[0];
        for axis in &p[1..V::DIM] {
            len2 += *axis * *axis;
        }
        let (outside, len) = (len2.cmpgt(Vec4::ONE), len2.sqrt());
        for axis in &mut p {
            *axis = Vec4::select(outside, *axis / len, *axis);
        }
        p
    }

    /// The unit direction along which `fish` escapes, this tick, the
    /// neighbours exactly on top of it (whose offset gives no direction):
    /// a direction of its own, so that each fish of a pile leaves its own
    /// way. One draw, for the fish alone, whatever the number of fish on
    /// the pile. On a plane an angle drawn evenly; in a volume a point of
    /// the ball ([`TickKey::in_unit_ball`]) brought to unit length (+x in
    /// the rare draw at its centre).
    #[inline]
    pub fn tie_direction<V: Vector>(self, fish: u32) -> V {
        if V::DIM == 2 {
            let unit = crate::math::angle::unit(tie_angle(self.bits(u64::from(fish), Stream::Coincident)));
            V::from_fn(|i| unit[i])
        } else {
            self.in_unit_ball::<V>(u64::from(fish), Stream::Coincident).try_normalize().unwrap_or(V::X)
        }
    }

    /// [`TickKey::tie_direction`] of four fish, `[x, y]` with one fish per
    /// lane: the same bits.
    #[inline]
    pub(crate) fn tie_direction_lanes(self, fish: [u32; 4]) -> [Vec4; 2] {
        let angle = Vec4::from_array(fish.map(|f| tie_angle(self.bits(u64::from(f), Stream::Coincident))));
        // The angles lie within ±π, where the lanes give the one-angle bits.
        let (sin, cos) = crate::math::angle::sin_cos_lanes(angle).unwrap_or((Vec4::ZERO, Vec4::ONE));
        [cos, sin]
    }
}

/// An angle in `[-π, π)` from a draw.
#[inline]
fn tie_angle(bits: u64) -> f32 {
    signed_pair(bits).x * core::f32::consts::PI
}

/// Two uniform numbers in `[-1, 1)` from 64 bits (24 bits of mantissa
/// each): a point of the square a plane's [`TickKey::in_unit_ball`] folds
/// into the disc.
#[inline]
pub fn signed_pair(bits: u64) -> Vec2 {
    Vec2::new(ball_axis::<Vec2>(bits, 0), ball_axis::<Vec2>(bits, 1))
}

/// Axis `i` of a draw in the unit cube `[-1, 1)^DIM` from its 64 `bits`:
/// the bits are cut into `DIM` equal slices from the top (32 bits on a
/// plane, 21 in a volume), and the axis takes the top 24 bits of its slice
/// (all of a 21-bit one): as many as an `f32` holds, through `u32` (one
/// conversion instruction).
#[inline(always)]
fn ball_axis<V: Vector>(bits: u64, i: usize) -> f32 {
    let slice = 64 / V::DIM as u32;
    let width = slice.min(24);
    let b = (bits >> (64 - slice * (i as u32 + 1) + (slice - width))) & ((1 << width) - 1);
    signed_of(b as u32, width)
}

/// The `width` (at most 24) random bits `b` as a number in `[-1, 1)`,
/// exactly (through `u32`: one conversion instruction).
#[inline(always)]
fn signed_of(b: u32, width: u32) -> f32 {
    b as f32 * (1.0 / (1u64 << width) as f32) * 2.0 - 1.0
}

/// A random vector inside the unit ball (the unit disc on a plane, bounded
/// by 1 in length), for `(seed, tick, fish, stream)`.
#[inline]
pub fn in_unit_ball<V: Vector>(seed: u64, tick: u64, fish: u64, stream: Stream) -> V {
    TickKey::new(seed, tick).in_unit_ball(fish, stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn balls_in_lanes_are_the_draws_one_at_a_time<V: Vector>() {
        let key = TickKey::new(11, 5);
        for first in (0..4000u64).step_by(4) {
            let fish = [first, first + 1, first * 977 + 5, u64::MAX - first];
            let lanes = key.in_unit_ball_lanes::<V>(fish, Stream::Jitter);
            for (l, &f) in fish.iter().enumerate() {
                let one: V = key.in_unit_ball(f, Stream::Jitter);
                for (i, axis) in lanes.iter().enumerate() {
                    let expected = if i < V::DIM { one.axis(i) } else { 0.0 };
                    assert_eq!(axis[l].to_bits(), expected.to_bits(), "fish {f}, axis {i}");
                }
            }
        }
    }

    #[test]
    fn four_balls_in_lanes_are_the_balls_one_at_a_time_in_both_dimensions() {
        balls_in_lanes_are_the_draws_one_at_a_time::<Vec2>();
        balls_in_lanes_are_the_draws_one_at_a_time::<Vec3>();
    }

    #[test]
    fn draws_are_pure_functions_of_their_inputs() {
        assert_eq!(bits(7, 3, 11, Stream::Jitter), bits(7, 3, 11, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(8, 3, 11, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(7, 4, 11, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(7, 3, 12, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(7, 3, 11, Stream::Bounce));
    }

    #[test]
    fn every_fish_and_stream_of_a_tick_draws_its_own_bits() {
        let key = TickKey::new(7, 3);
        let streams = [Stream::Jitter, Stream::Bounce, Stream::Coincident, Stream::Spawn];
        let mut seen = std::collections::HashSet::new();
        for fish in (0..2000u64).chain([u64::MAX, u64::MAX - 1, 1 << 60]) {
            for stream in streams {
                assert!(seen.insert(key.bits(fish, stream)), "fish {fish}, {stream:?}");
            }
        }
        // Each bit of a draw is set about half the time.
        let ones = (0..4096u64).map(|f| key.bits(f, Stream::Jitter)).fold([0u32; 64], |mut n, b| {
            (0..64).for_each(|i| n[i] += ((b >> i) & 1) as u32);
            n
        });
        assert!(ones.iter().all(|&n| (1800..2300).contains(&n)), "{ones:?}");
    }

    #[test]
    fn tick_keys_give_the_same_bits() {
        let key = TickKey::new(7, 3);
        for fish in 0..100 {
            assert_eq!(key.bits(fish, Stream::Jitter), bits(7, 3, fish, Stream::Jitter));
            assert_eq!(
                key.in_unit_ball::<Vec2>(fish, Stream::Bounce),
                in_unit_ball(7, 3, fish, Stream::Bounce)
            );
            assert_eq!(
                key.in_unit_ball::<Vec3>(fish, Stream::Bounce),
                in_unit_ball(7, 3, fish, Stream::Bounce)
            );
        }
    }

    fn draws_are_bounded_and_spread<V: Vector>() {
        let mut sum = V::ZERO;
        let mut max_len: f32 = 0.0;
        for fish in 0..10_000 {
            let v: V = in_unit_ball(1, 2, fish, Stream::Jitter);
            assert!(v.is_finite());
            max_len = max_len.max(v.length());
            sum += v;
        }
        assert!(max_len <= 1.0 + 1e-6);
        assert!(max_len > 0.9, "draws reach the rim");
        assert!((sum / 10_000.0).length() < 0.05, "no bias: {sum:?}");
    }

    #[test]
    fn draws_are_bounded_and_spread_in_both_dimensions() {
        draws_are_bounded_and_spread::<Vec2>();
        draws_are_bounded_and_spread::<Vec3>();
    }

    /// On a plane a draw is the top 24 bits of each 32-bit half folded into
    /// the disc (and [`signed_pair`] is the square's point); in a volume
    /// three 21-bit slices from the top.
    #[test]
    fn each_axis_takes_its_own_slice_of_the_draw() {
        let key = TickKey::new(3, 9);
        for fish in 0..2000 {
            let bits = key.bits(fish, Stream::Jitter);
            let half = |shift: u32| ((bits >> shift) & 0xff_ffff) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0;
            let pair = Vec2::new(half(40), half(8));
            assert_eq!(signed_pair(bits), pair);
            let disc = if pair.length_squared() > 1.0 { pair / pair.length_squared().sqrt() } else { pair };
            let plane: Vec2 = key.in_unit_ball(fish, Stream::Jitter);
            assert_eq!(plane.to_array().map(f32::to_bits), disc.to_array().map(f32::to_bits), "fish {fish}");
            let slice = |i: u32| ((bits >> (43 - 21 * i)) & 0x1f_ffff) as f32 / (1u32 << 20) as f32 - 1.0;
            let cube = Vec3::new(slice(0), slice(1), slice(2));
            let ball = if cube.length_squared() > 1.0 { cube / cube.length_squared().sqrt() } else { cube };
            let volume: Vec3 = key.in_unit_ball(fish, Stream::Jitter);
            assert_eq!(volume.to_array().map(f32::to_bits), ball.to_array().map(f32::to_bits), "fish {fish}");
        }
    }

    #[test]
    fn tie_directions_are_units_of_their_own_and_the_same_in_lanes() {
        let key = TickKey::new(5, 3);
        let mut seen = Vec::new();
        for first in (0..4000u32).step_by(4) {
            let fish = [first, first + 1, first.wrapping_mul(7919), u32::MAX - first];
            let [x, y] = key.tie_direction_lanes(fish);
            for (l, &f) in fish.iter().enumerate() {
                let one: Vec2 = key.tie_direction(f);
                assert!((one.length() - 1.0).abs() < 1e-6, "{one}");
                let lane = (x.to_array()[l].to_bits(), y.to_array()[l].to_bits());
                assert_eq!(lane, (one.x.to_bits(), one.y.to_bits()), "fish {f}");
                seen.push(one);
            }
        }
        // Spread all round: the mean of many is near the centre.
        let mean = seen.iter().sum::<Vec2>() / seen.len() as f32;
        assert!(mean.length() < 0.05, "{mean}");
        // In a volume too: units, spread all round.
        let balls: Vec<Vec3> = (0..4000u32).map(|f| key.tie_direction(f)).collect();
        assert!(balls.iter().all(|d| (d.length() - 1.0).abs() < 1e-6));
        let mean = balls.iter().sum::<Vec3>() / balls.len() as f32;
        assert!(mean.length() < 0.05, "{mean}");
    }
}
