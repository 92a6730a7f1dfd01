//! Seeded initial placement of a school.

use glam::Vec2;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;

use crate::math::Vector;
use crate::world::params::FlockParams;
use crate::world::tank::{Tank, TankOf};

/// How the fish fill a starting ball (a disc on a plane).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Spread {
    /// Evenly over the ball, at 50–100 % of the top speed.
    #[default]
    Even,
    /// Normally about the centre, the ball's radius the standard deviation
    /// (so about two fish in three within it, none beyond 3.5 radii; the
    /// tank clips it), nearly still: at a tenth of [`Spread::Even`]'s
    /// speeds. The start the tuning literature recommends: a blob in the
    /// middle of the tank whose σ is an eighth of its width, from which the
    /// school forms instead of gathering from every corner.
    Normal,
}

impl Spread {
    /// Whether this is [`Spread::Even`] (a configuration file leaves it out).
    pub fn is_even(&self) -> bool {
        *self == Spread::Even
    }

    /// What a fish's starting speed (drawn for an even start) is multiplied
    /// by.
    pub fn speed_factor(self) -> f32 {
        match self {
            Spread::Even => 1.0,
            Spread::Normal => 0.1,
        }
    }

    /// A point of the ball of `radius` about `centre`, from `rng`: for
    /// [`Spread::Normal`], each axis the sum of four uniform draws, centred
    /// and scaled to unit variance (close to normal, bounded, and made of
    /// additions only: the same bits on every platform).
    pub(crate) fn point<V: Vector>(self, centre: V, radius: f32, rng: &mut Pcg32) -> V {
        match self {
            Spread::Even => {
                // Even over the ball: the distance from the centre drawn as
                // the DIM-th root of a uniform number, then a direction.
                let depth = root(rng.random::<f32>(), V::DIM);
                centre + random_unit::<V>(rng) * (radius * depth)
            }
            Spread::Normal => {
                // Four uniforms sum to a variance of 4/12: centre the sum
                // and scale by √3.
                let normal = |rng: &mut Pcg32| {
                    let sum =
                        rng.random::<f32>() + rng.random::<f32>() + rng.random::<f32>() + rng.random::<f32>();
                    (sum - 2.0) * 3.0f32.sqrt()
                };
                centre + V::from_fn(|_| normal(rng)) * radius
            }
        }
    }
}

/// A direction drawn evenly from `rng`: on a plane one draw, the angle;
/// in a volume two, the azimuth and the height ([`Vector::unit_at`]).
pub(crate) fn random_unit<V: Vector>(rng: &mut Pcg32) -> V {
    let angle = rng.random::<f32>() * core::f32::consts::TAU;
    let z = if V::DIM > 2 { rng.random::<f32>() * 2.0 - 1.0 } else { 0.0 };
    V::unit_at(angle, z)
}

/// The circle a fish's wander turns round, drawn from `rng`: on a plane
/// the plane's, with no draw; in a volume round an even direction.
pub(crate) fn random_circle<V: Vector>(rng: &mut Pcg32) -> V::Circle {
    let axis = if V::DIM > 2 { random_unit::<V>(rng) } else { V::X };
    V::circle_around(axis)
}

/// The starting state of one fish.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FishStart<V: Vector = Vec2> {
    /// Position inside the tank.
    pub position: V,
    /// Velocity: a random heading at 50–100 % of `max_speed`.
    pub velocity: V,
    /// Initial wander phase (radians).
    pub wander_phase: f32,
    /// The circle its wander turns round (a volume's; nothing on a plane).
    pub circle: V::Circle,
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

/// [`scatter_heading`] in either space, the fish spread over the ball
/// `(centre, radius)` as `Spread` says, clipped to the tank, instead of over
/// the whole tank, where one is given: a packed start. Spread evenly, the
/// same headings and speeds as over the tank with the same seed. A heading
/// is a plane's (an angle); in a volume, and where it is not finite, the
/// fish head every way.
pub fn scatter_in<V: Vector>(
    count: usize,
    tank: &TankOf<V>,
    params: &FlockParams,
    seed: u64,
    heading: Option<f32>,
    ball: Option<(V, f32, Spread)>,
) -> Vec<FishStart<V>> {
    match heading.filter(|h| h.is_finite() && V::DIM == 2) {
        None => scatter_over(count, tank, params, seed, ball),
        Some(h) => starts(count, tank, params, seed, ball, |rng| {
            let u = crate::math::angle::unit(h + (rng.random::<f32>() - 0.5) * HEADING_SPREAD);
            V::from_fn(|axis| u[axis])
        }),
    }
}

/// `count` fish in either space, spread over the tank or over the ball
/// `(centre, radius)` as `Spread` says (clipped to the tank), heading every
/// way at 50–100 % of `max_speed` (times the spread's
/// [`Spread::speed_factor`]): the start of every school, the same draws in
/// both spaces ([`scatter_in`]'s with no heading).
pub fn scatter_over<V: Vector>(
    count: usize,
    tank: &TankOf<V>,
    params: &FlockParams,
    seed: u64,
    ball: Option<(V, f32, Spread)>,
) -> Vec<FishStart<V>> {
    starts(count, tank, params, seed, ball, random_unit::<V>)
}

/// The draws of every start, in this order for each fish: its place (one
/// per axis over the tank, or the ball's), its heading (`heading`), its
/// speed, its wander phase, its wander's circle.
fn starts<V: Vector>(
    count: usize,
    tank: &TankOf<V>,
    params: &FlockParams,
    seed: u64,
    ball: Option<(V, f32, Spread)>,
    heading: impl Fn(&mut Pcg32) -> V,
) -> Vec<FishStart<V>> {
    let mut rng = Pcg32::seed_from_u64(seed);
    let size = tank.size();
    let factor = ball.map_or(1.0, |(_, _, spread)| spread.speed_factor());
    (0..count)
        .map(|_| {
            let point = match ball {
                None => tank.min + V::from_fn(|_| rng.random::<f32>()).scale_by(size),
                Some((centre, radius, spread)) => spread.point(centre, radius, &mut rng),
            };
            // Draws in [0, 1) keep the point strictly below `max`.
            let position = tank.clamp_inside(point);
            let heading = heading(&mut rng);
            let speed = params.max_speed * (0.5 + 0.5 * rng.random::<f32>()) * factor;
            let wander_phase = rng.random::<f32>() * core::f32::consts::TAU;
            let circle = random_circle::<V>(&mut rng);
            FishStart { position, velocity: heading * speed, wander_phase, circle }
        })
        .collect()
}

/// The `dim`-th root of `u` in `[0, 1]` (1, 2 or 3), from IEEE arithmetic
/// alone (the C library's `powf` differs between platforms in its last
/// bit).
fn root(u: f32, dim: usize) -> f32 {
    let u = u.clamp(0.0, 1.0);
    match dim {
        0 | 1 => u,
        2 => u.sqrt(),
        _ => crate::math::root::cbrt(u),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disc_start_packs_the_school_and_keeps_its_headings() {
        let tank = Tank::default();
        let p = FlockParams::default();
        let (centre, radius) = (Vec2::new(500.0, -300.0), 120.0);
        let packed = scatter_in(400, &tank, &p, 9, Some(1.0), Some((centre, radius, Spread::Even)));
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
    fn a_normal_blob_gathers_the_school_slowly_about_its_centre() {
        let tank = Tank::default();
        let p = FlockParams::default();
        let sigma = tank.size().x / 8.0;
        let blob = scatter_in(2000, &tank, &p, 4, None, Some((Vec2::ZERO, sigma, Spread::Normal)));
        assert_eq!(blob, scatter_in(2000, &tank, &p, 4, None, Some((Vec2::ZERO, sigma, Spread::Normal))));
        assert!(blob.iter().all(|f| tank.contains(f.position)));
        // About 68 % within one σ on each axis, 95 % within two; none far out.
        let within = |k: f32| blob.iter().filter(|f| f.position.x.abs() <= k * sigma).count() as f32 / 2000.0;
        assert!((0.64..0.73).contains(&within(1.0)), "{}", within(1.0));
        assert!((0.93..0.985).contains(&within(2.0)), "{}", within(2.0));
        assert_eq!(within(3.5), 1.0);
        let mean = blob.iter().map(|f| f.position).sum::<Vec2>() / 2000.0;
        assert!(mean.length() < sigma * 0.1, "{mean}");
        // Nearly still: at most a tenth of the top speed.
        assert!(blob.iter().all(|f| f.velocity.length() <= p.max_speed * 0.1 * 1.0001));
        assert!(blob.iter().all(|f| f.velocity.length() >= p.max_speed * 0.05 * 0.9999));
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
        // A heading is a plane's: in a volume the fish head every way.
        let volume = crate::world::tank::Tank3d::default();
        let every_way = scatter_over(300, &volume, &p, 5, None);
        assert_eq!(scatter_in(300, &volume, &p, 5, Some(0.0), None), every_way);
    }

    #[test]
    fn the_depth_is_the_dimension_s_root() {
        assert_eq!((root(0.25, 2), root(0.125, 3), root(0.5, 1)), (0.5, 0.5, 0.5));
        assert_eq!((root(-1.0, 3), root(2.0, 2)), (0.0, 1.0));
    }
}
