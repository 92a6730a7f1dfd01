//! Counter-based randomness for the per-tick noise (jitter, bounce scatter,
//! tie-breaking of coincident fish).
//!
//! A stateful generator shared by all fish would make each draw depend on
//! the order in which threads reach it. Instead every draw is a pure
//! function of `(seed, tick, fish, stream)` through a SplitMix64-style
//! mixer: the same inputs give the same bits on every platform and for any
//! thread count, and no state has to be stored or replayed.

use glam::Vec2;

/// Independent purposes of noise, so that two draws for the same fish and
/// tick never share bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Symmetry-breaking acceleration added before the force clamp.
    Jitter = 1,
    /// Tangential scatter after a bounce off a wall.
    Bounce = 2,
    /// Direction to separate two exactly coincident fish.
    Coincident = 3,
    /// Place and heading of a fish added by a command.
    Spawn = 4,
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
    const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = mix64(seed ^ GOLDEN);
    h = mix64(h ^ tick.wrapping_mul(GOLDEN));
    h = mix64(h ^ fish.wrapping_add(stream as u64).wrapping_mul(0xd6e8_feb8_6659_fd93));
    mix64(h ^ stream as u64)
}

/// Two uniform numbers in `[-1, 1)` from 64 bits (24 bits of mantissa each).
#[inline]
pub fn signed_pair(bits: u64) -> Vec2 {
    let unit = |b: u64| (b >> 40) as f32 * (1.0 / (1u64 << 24) as f32);
    Vec2::new(unit(bits) * 2.0 - 1.0, unit(bits << 32) * 2.0 - 1.0)
}

/// A random vector inside the unit disc (bounded by 1 in length), for
/// `(seed, tick, fish, stream)`.
#[inline]
pub fn in_unit_disc(seed: u64, tick: u64, fish: u64, stream: Stream) -> Vec2 {
    let v = signed_pair(bits(seed, tick, fish, stream));
    // The square [-1,1)² is folded into the disc by clamping, which keeps
    // the draw bounded without a rejection loop.
    let len2 = v.length_squared();
    if len2 > 1.0 { v / len2.sqrt() } else { v }
}

/// A unit direction for an unordered pair of fish, with the sign chosen so
/// that `pair_direction(a, b) == -pair_direction(b, a)`: two coincident
/// fish are pushed apart in opposite directions.
#[inline]
pub fn pair_direction(seed: u64, a: u32, b: u32) -> Vec2 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let key = (u64::from(lo) << 32) | u64::from(hi);
    let angle = signed_pair(bits(seed, 0, key, Stream::Coincident)).x * core::f32::consts::PI;
    let dir = Vec2::from_angle(angle);
    if a < b { dir } else { -dir }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_pure_functions_of_their_inputs() {
        assert_eq!(bits(7, 3, 11, Stream::Jitter), bits(7, 3, 11, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(8, 3, 11, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(7, 4, 11, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(7, 3, 12, Stream::Jitter));
        assert_ne!(bits(7, 3, 11, Stream::Jitter), bits(7, 3, 11, Stream::Bounce));
    }

    #[test]
    fn disc_draws_are_bounded_and_spread() {
        let mut sum = Vec2::ZERO;
        let mut max_len: f32 = 0.0;
        for fish in 0..10_000 {
            let v = in_unit_disc(1, 2, fish, Stream::Jitter);
            assert!(v.is_finite());
            max_len = max_len.max(v.length());
            sum += v;
        }
        assert!(max_len <= 1.0 + 1e-6);
        assert!(max_len > 0.9, "draws reach the rim");
        assert!((sum / 10_000.0).length() < 0.05, "no bias: {sum}");
    }

    #[test]
    fn pair_directions_are_opposite_units() {
        let d = pair_direction(5, 3, 9);
        assert!((d.length() - 1.0).abs() < 1e-6);
        assert_eq!(pair_direction(5, 9, 3), -d);
    }
}
