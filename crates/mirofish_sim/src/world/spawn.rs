//! Seeded initial placement of a school.

use glam::Vec2;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;

use crate::world::params::FlockParams;
use crate::world::tank::Tank;

/// The starting state of one fish.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FishStart {
    /// Position inside the tank.
    pub position: Vec2,
    /// Velocity: a random heading at 50–100 % of `max_speed`.
    pub velocity: Vec2,
    /// Initial wander phase (radians).
    pub wander_phase: f32,
}

/// `count` fish spread uniformly over the tank with random headings, drawn
/// from a PCG32 generator seeded with `seed`: the same arguments always give
/// the same school, on every platform.
pub fn scatter(count: usize, tank: &Tank, params: &FlockParams, seed: u64) -> Vec<FishStart> {
    let mut rng = Pcg32::seed_from_u64(seed);
    let size = tank.size();
    (0..count)
        .map(|_| {
            let unit = Vec2::new(rng.random::<f32>(), rng.random::<f32>());
            // Draws in [0, 1) keep the point strictly below `max`.
            let position = (tank.min + unit * size).min(tank.max.map(f32::next_down));
            let heading = rng.random::<f32>() * core::f32::consts::TAU;
            let speed = params.max_speed * (0.5 + 0.5 * rng.random::<f32>());
            let wander_phase = rng.random::<f32>() * core::f32::consts::TAU;
            FishStart { position, velocity: crate::rules::angle::unit(heading) * speed, wander_phase }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_school_inside_the_tank() {
        let tank = Tank::default();
        let p = FlockParams::default();
        let a = scatter(500, &tank, &p, 42);
        assert_eq!(a, scatter(500, &tank, &p, 42));
        assert_ne!(a, scatter(500, &tank, &p, 43));
        for f in &a {
            assert!(tank.contains(f.position));
            assert!(f.velocity.length() <= p.max_speed * 1.0001);
        }
    }
}
