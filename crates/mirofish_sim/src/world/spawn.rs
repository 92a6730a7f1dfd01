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
    scatter_heading(count, tank, params, seed, None)
}

/// How far from a school's common heading its fish start
/// ([`scatter_heading`]): ± a quarter turn in all.
pub const HEADING_SPREAD: f32 = core::f32::consts::FRAC_PI_2;

/// [`scatter`], the fish heading along `heading` (radians,
/// counter-clockwise from +x) give or take `HEADING_SPREAD / 2` instead of
/// every way: a school that starts out schooled. The same positions and
/// speeds as [`scatter`] with the same seed; `None` is [`scatter`] itself,
/// and a heading that is not finite counts as `None`.
pub fn scatter_heading(
    count: usize,
    tank: &Tank,
    params: &FlockParams,
    seed: u64,
    heading: Option<f32>,
) -> Vec<FishStart> {
    scatter_in(count, tank, params, seed, heading, None)
}

/// [`scatter_heading`], the fish spread evenly over the disc `(centre,
/// radius)` clipped to the tank instead of over the whole tank, where one
/// is given: a packed start. The same headings and speeds as over the
/// tank with the same seed.
pub fn scatter_in(
    count: usize,
    tank: &Tank,
    params: &FlockParams,
    seed: u64,
    heading: Option<f32>,
    disc: Option<(Vec2, f32)>,
) -> Vec<FishStart> {
    let heading = heading.filter(|h| h.is_finite());
    let mut rng = Pcg32::seed_from_u64(seed);
    let size = tank.size();
    (0..count)
        .map(|_| {
            let unit = Vec2::new(rng.random::<f32>(), rng.random::<f32>());
            let point = match disc {
                None => tank.min + unit * size,
                // Even over the disc: the distance from the centre drawn
                // as the square root of a uniform number.
                Some((centre, radius)) => {
                    centre
                        + crate::math::angle::unit(unit.y * core::f32::consts::TAU) * (radius * unit.x.sqrt())
                }
            };
            // Draws in [0, 1) keep the point strictly below `max`.
            let position = point.max(tank.min).min(tank.max.map(f32::next_down));
            let draw = rng.random::<f32>();
            let heading = match heading {
                Some(h) => h + (draw - 0.5) * HEADING_SPREAD,
                None => draw * core::f32::consts::TAU,
            };
            let speed = params.max_speed * (0.5 + 0.5 * rng.random::<f32>());
            let wander_phase = rng.random::<f32>() * core::f32::consts::TAU;
            FishStart { position, velocity: crate::math::angle::unit(heading) * speed, wander_phase }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disc_start_packs_the_school_and_keeps_its_headings() {
        let tank = Tank::default();
        let p = FlockParams::default();
        let (centre, radius) = (Vec2::new(500.0, -300.0), 120.0);
        let packed = scatter_in(400, &tank, &p, 9, Some(1.0), Some((centre, radius)));
        let spread = scatter_heading(400, &tank, &p, 9, Some(1.0));
        // Within the disc, clipped to the tank (it reaches past the corner).
        assert!(
            packed.iter().all(|f| tank.contains(f.position) && f.position.distance(centre) <= radius + 1e-3)
        );
        assert!(packed.iter().any(|f| f.position.y == tank.min.y), "clipped at the wall");
        // Even over the disc: about a quarter of the fish within half the radius.
        let inner = packed.iter().filter(|f| f.position.distance(centre) < radius * 0.5).count();
        assert!((60..=140).contains(&inner), "{inner}");
        for (a, b) in packed.iter().zip(&spread) {
            assert_eq!((a.velocity, a.wander_phase), (b.velocity, b.wander_phase));
        }
        assert_eq!(scatter_in(50, &tank, &p, 3, None, None), scatter(50, &tank, &p, 3));
    }

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

    #[test]
    fn a_heading_turns_the_fish_and_nothing_else() {
        let (tank, p) = (Tank::default(), FlockParams::default());
        let all_ways = scatter(300, &tank, &p, 5);
        assert_eq!(scatter_heading(300, &tank, &p, 5, None), all_ways);
        assert_eq!(scatter_heading(300, &tank, &p, 5, Some(f32::NAN)), all_ways);
        let east = scatter_heading(300, &tank, &p, 5, Some(0.0));
        for (a, b) in all_ways.iter().zip(&east) {
            assert_eq!((a.position, a.wander_phase), (b.position, b.wander_phase));
            assert!((a.velocity.length() - b.velocity.length()).abs() < 1e-3);
            // Within a quarter turn's half of east, whatever the draw.
            assert!(b.velocity.x >= b.velocity.length() * (HEADING_SPREAD / 2.0).cos() - 1e-3, "{b:?}");
        }
        let v: Vec<Vec2> = east.iter().map(|f| f.velocity).collect();
        assert!(crate::observe::polarization(&v) > 0.85);
    }
}
