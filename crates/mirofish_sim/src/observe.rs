//! Observations of a flock: the state hash that proves determinism, and the
//! first order parameters.

use glam::Vec2;

use crate::flock::Flock;

/// FNV-1a over the bits of every position, velocity and wander phase, in
/// slot order. Equal hashes mean bit-identical states (up to the 2⁻⁶⁴
/// chance of a collision); one flipped bit anywhere changes it.
pub fn state_hash(flock: &Flock) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    let mut eat = |word: u32| {
        for byte in word.to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    };
    for ((p, v), phase) in flock.positions().iter().zip(flock.velocities()).zip(flock.wander_phases()) {
        for x in [p.x, p.y, v.x, v.y, *phase] {
            eat(x.to_bits());
        }
    }
    h
}

/// Polarization order parameter: the length of the mean unit heading, 1 when
/// all fish swim the same way, near 0 when headings are disordered. Fish at
/// rest contribute no heading; an empty flock gives 0.
pub fn polarization(velocities: &[Vec2]) -> f32 {
    if velocities.is_empty() {
        return 0.0;
    }
    let sum: Vec2 = velocities.iter().map(|v| v.normalize_or_zero()).sum();
    sum.length() / velocities.len() as f32
}

/// Mean speed; 0 for an empty flock.
pub fn mean_speed(velocities: &[Vec2]) -> f32 {
    if velocities.is_empty() {
        return 0.0;
    }
    velocities.iter().map(|v| v.length()).sum::<f32>() / velocities.len() as f32
}

/// Mean number of neighbours within the perception radius, from the last
/// tick's force pass; 0 for an empty flock.
pub fn mean_neighbours(flock: &Flock) -> f32 {
    let counts = flock.neighbour_counts();
    let n = counts.len();
    if n == 0 {
        return 0.0;
    }
    counts.map(|c| c as f32).sum::<f32>() / n as f32
}

/// Mean magnitude of each weighted rule force over the flock, from the last
/// tick's force pass. The seeds' health check: in a calm school the three
/// rules are of the same order. `None` for an empty flock, or when the
/// flock does not record rule forces ([`Flock::set_record_rules`]).
pub fn mean_rule_forces(flock: &Flock) -> Option<RuleForceMeans> {
    let samples = flock.samples();
    let mut m = RuleForceMeans::default();
    if samples.is_empty() {
        return None;
    }
    for s in samples {
        m.separation += s.rules.separation.length();
        m.alignment += s.rules.alignment.length();
        m.cohesion += s.rules.cohesion.length();
        m.wander += s.rules.wander.length();
        m.boundary += s.rules.boundary.length();
    }
    let n = samples.len() as f32;
    Some(RuleForceMeans {
        separation: m.separation / n,
        alignment: m.alignment / n,
        cohesion: m.cohesion / n,
        wander: m.wander / n,
        boundary: m.boundary / n,
    })
}

/// Mean magnitudes of the weighted rule forces (see [`mean_rule_forces`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RuleForceMeans {
    /// Separation.
    pub separation: f32,
    /// Alignment.
    pub alignment: f32,
    /// Cohesion.
    pub cohesion: f32,
    /// Wander.
    pub wander: f32,
    /// Soft margin.
    pub boundary: f32,
}

/// Mean distance from each fish to its nearest neighbour within `radius`
/// (fish with none farther are left out), using the grid of the last tick.
/// `None` when no fish has a neighbour that close.
pub fn mean_nearest_neighbour_distance(flock: &Flock, radius: f32) -> Option<f32> {
    let g = flock.grid();
    let (pos, size, wrap) = (g.sorted_position(), g.tank_size(), g.wraps());
    let (mut sum, mut count) = (0.0f64, 0usize);
    for (s, &p) in pos.iter().enumerate() {
        let mut best = radius * radius;
        let mut found = false;
        for run in g.candidate_runs(p).iter() {
            for j in run {
                let d2 = crate::grid::offset(p, pos[j], size, wrap).length_squared();
                if j != s && d2 < best {
                    best = d2;
                    found = true;
                }
            }
        }
        if found {
            sum += f64::from(best.sqrt());
            count += 1;
        }
    }
    (count > 0).then(|| (sum / count as f64) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polarization_of_aligned_and_opposed_fish() {
        assert_eq!(polarization(&[]), 0.0);
        assert!((polarization(&[Vec2::X * 3.0, Vec2::X, Vec2::X * 0.1]) - 1.0).abs() < 1e-6);
        assert!(polarization(&[Vec2::X, -Vec2::X, Vec2::Y, -Vec2::Y]) < 1e-6);
        assert!((polarization(&[Vec2::X, Vec2::ZERO]) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn hash_sees_one_bit() {
        let mut a = Flock::new(1);
        a.push(Vec2::new(1.0, 2.0), Vec2::new(3.0, 4.0), 0.5);
        let mut b = a.clone();
        assert_eq!(state_hash(&a), state_hash(&b));
        b.set(0, Vec2::new(f32::from_bits(1.0f32.to_bits() + 1), 2.0), Vec2::new(3.0, 4.0), 0.5);
        assert_ne!(state_hash(&a), state_hash(&b));
        assert!((mean_speed(a.velocities()) - 5.0).abs() < 1e-6);
    }
}
