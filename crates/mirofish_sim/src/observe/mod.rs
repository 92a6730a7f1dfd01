//! Observation: what one can measure of a flock without changing it.
//!
//! Here, the state hash that proves determinism and the order parameters
//! and shape measures of the whole school (questions about single fish,
//! such as its nearest or its neighbours, are the engine's:
//! [`crate::space::Swarm`]); in [`metrics`], those measures sampled over a run; in
//! [`stats`], their summary (mean, variance, autocorrelation time); in
//! [`health`], the latest sample against a natural school's ranges, with a
//! diagnosis.
//!
//! Every function is total: an empty flock, fish at rest or fish stacked on
//! one point give a finite number (usually 0), never NaN. A fish whose
//! position or velocity is not finite (written so by outside code, before
//! the next tick repairs it) is left out, so that one fish can never poison
//! a measure of the whole school.

pub mod health;
pub mod metrics;
pub mod stats;

use glam::Vec2;

use crate::math::Vector;
use crate::step::ForceSample;
use crate::world::grid::CellGrid;
use crate::world::tank::{BoundaryMode, TankOf};

/// A state [`state_hash`] hashes: fish with positions, velocities and
/// wander phases, each fish known by an id.
pub trait HashedState {
    /// Calls `eat` with every fish's position, velocity (axis by axis) and
    /// wander phase, fish by fish in the order of their ids.
    fn each_fish(&self, eat: &mut dyn FnMut(f32));
}

/// FNV-1a over the bits of every position, velocity and wander phase, in
/// the order of the fish's ids (whichever way the slots are numbered), in
/// either space. Equal hashes mean bit-identical states (up to the 2⁻⁶⁴
/// chance of a collision); one flipped bit anywhere changes it.
pub fn state_hash(state: &(impl HashedState + ?Sized)) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    state.each_fish(&mut |x: f32| {
        for byte in x.to_bits().to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    });
    h
}

impl<T: HashedState + ?Sized> HashedState for &T {
    fn each_fish(&self, eat: &mut dyn FnMut(f32)) {
        (**self).each_fish(eat);
    }
}

impl<T: HashedState + ?Sized> HashedState for &mut T {
    fn each_fish(&self, eat: &mut dyn FnMut(f32)) {
        (**self).each_fish(eat);
    }
}

/// Polarization order parameter: the length of the mean unit heading, 1 when
/// all fish swim the same way, near 0 when headings are disordered. Fish at
/// rest contribute no heading; an empty flock gives 0.
pub fn polarization<V: Vector>(velocities: &[V]) -> f32 {
    let (sum, n) = velocities
        .iter()
        .filter(|v| v.is_finite())
        .fold((V::ZERO, 0usize), |(sum, n), v| (sum + v.normalize_or_zero(), n + 1));
    if n == 0 { 0.0 } else { sum.length() / n as f32 }
}

/// Milling (rotation) order parameter: the mean of `r̂ × v̂` about the
/// school's centre of mass, where `r̂` points from the centre to a fish and
/// `v̂` is its heading. Its absolute value is 1 when every fish circles the
/// centre the same way (a mill or torus), and near 0 for a polarized school
/// or a disordered one. Fish at rest or on the centre count as 0.
///
/// Returned as the absolute value, so clockwise and anticlockwise mills both
/// read 1. An empty flock gives 0. In a volume `r̂ × v̂` is a vector and
/// the parameter is the length of its mean (Couzin's group angular
/// momentum): 1 for a torus whose fish all circle the same axis.
pub fn milling<V: Vector>(positions: &[V], velocities: &[V]) -> f32 {
    let fish = || positions.iter().zip(velocities).filter(|(p, v)| p.is_finite() && v.is_finite());
    let n = fish().count();
    if n == 0 {
        return 0.0;
    }
    let centre = centroid(positions);
    let turn = fish().fold(glam::Vec3::ZERO, |sum, (&p, &v)| {
        sum + (p - centre).normalize_or_zero().cross3(v.normalize_or_zero())
    });
    turn.length() / n as f32
}

/// The mean position; the origin for an empty slice. Accumulated in `f64`
/// so a million fish far from the origin still give the right centre.
pub fn centroid<V: Vector>(positions: &[V]) -> V {
    let (mut sum, mut n) = ([0.0f64; 3], 0usize);
    for p in positions.iter().filter(|p| p.is_finite()) {
        for (i, s) in sum.iter_mut().enumerate().take(V::DIM) {
            *s += f64::from(p.axis(i));
        }
        n += 1;
    }
    if n == 0 { V::ZERO } else { V::from_fn(|i| (sum[i] / n as f64) as f32) }
}

/// Area of the axis-aligned box around every fish (world units²); 0 for
/// fewer than two fish. On a wrapping tank a school that straddles the seam
/// reads as wide as the tank: the box is measured in tank coordinates.
pub fn bounding_box_area(positions: &[Vec2]) -> f32 {
    bounding_box_size(positions).product()
}

/// Size of the axis-aligned box around every fish, axis by axis (its
/// [`Vector::product`] is the box's area on a plane, its volume in a
/// volume); zero for fewer than two fish.
pub fn bounding_box_size<V: Vector>(positions: &[V]) -> V {
    let mut finite = positions.iter().filter(|p| p.is_finite());
    let Some(&first) = finite.next() else { return V::ZERO };
    let (lo, hi) = finite.fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    hi - lo
}

/// The school's shape along its heading: `[length, width]` (world units).
/// Length is the spread of the fish along the mean heading and width their
/// spread across it, each from the 10th to the 90th percentile, so that a
/// few stragglers do not count (in a volume, width is twice the 80th
/// percentile of the distance from the axis through the centre along the
/// heading). A school swimming in file is long and narrow, one abreast
/// short and wide. Zero without fish or without a mean heading (a mill, a
/// school at rest).
pub fn formation<V: Vector>(positions: &[V], velocities: &[V]) -> [f32; 2] {
    let fish = || positions.iter().zip(velocities).filter(|(p, v)| p.is_finite() && v.is_finite());
    let heading = fish().fold(V::ZERO, |sum, (_, v)| sum + v.normalize_or_zero());
    // A mean heading shorter than this is no heading: the shape along it
    // would follow noise.
    let Some(h) = heading.try_normalize().filter(|_| heading.length() > 1.0e-3 * fish().count() as f32)
    else {
        return [0.0; 2];
    };
    let centre = centroid(positions);
    let (mut along, mut across): (Vec<f32>, Vec<f32>) = fish()
        .map(|(p, _)| {
            let o = *p - centre;
            let a = o.dot(h);
            let side = o - h * a;
            // In a plane the side is signed; in a volume, a distance.
            let across = if V::DIM == 2 {
                side.dot(V::from_fn(|i| [-h.axis(1), h.axis(0)][i]))
            } else {
                side.length()
            };
            (a, across)
        })
        .unzip();
    let spread = |values: &mut [f32], lo: f32, hi: f32| percentile(values, hi) - percentile(values, lo);
    let length = spread(&mut along, 0.1, 0.9);
    let width = if V::DIM == 2 { spread(&mut across, 0.1, 0.9) } else { 2.0 * percentile(&mut across, 0.8) };
    [length, width]
}

/// The `q`-quantile (0–1) of `values` by the nearest rank (reorders them);
/// 0 when empty.
fn percentile(values: &mut [f32], q: f32) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let k = ((values.len() - 1) as f32 * q.clamp(0.0, 1.0)).round() as usize;
    *values.select_nth_unstable_by(k, f32::total_cmp).1
}

/// How many fish are within `distance` of a wall. A wrapping tank has no
/// walls, so it always gives 0.
pub fn boundary_contacts<V: Vector>(positions: &[V], tank: &TankOf<V>, distance: f32) -> usize {
    if tank.boundary == BoundaryMode::Wrap {
        return 0;
    }
    positions
        .iter()
        .filter(|p| {
            let gap = (**p - tank.min).min(tank.max - **p).min_element();
            p.is_finite() && gap < distance
        })
        .count()
}

/// Mean speed; 0 for an empty flock.
pub fn mean_speed<V: Vector>(velocities: &[V]) -> f32 {
    let (sum, n) = velocities
        .iter()
        .filter(|v| v.is_finite())
        .fold((0.0f32, 0usize), |(s, n), v| (s + v.length(), n + 1));
    if n == 0 { 0.0 } else { sum / n as f32 }
}

/// Mean number of neighbours within the perception radius, from the last
/// tick's force pass (`neighbour_counts()` of either engine); 0 for none.
pub fn mean_neighbours(counts: impl ExactSizeIterator<Item = u32>) -> f32 {
    let n = counts.len();
    if n == 0 {
        return 0.0;
    }
    counts.map(|c| c as f32).sum::<f32>() / n as f32
}

/// Mean magnitude of each weighted rule force over the force pass's
/// `samples` (`samples()` of either engine, while it records them), from
/// the last tick. A health check: in a calm school the three rules are of
/// the same order. `None` for none.
pub fn mean_rule_forces<V: Vector>(samples: &[ForceSample<V>]) -> Option<RuleForceMeans> {
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
        m.obstacle += s.rules.obstacle.length();
        m.flee += s.rules.flee.length();
        m.goal += s.rules.goal.length();
    }
    let n = samples.len() as f32;
    Some(RuleForceMeans {
        separation: m.separation / n,
        alignment: m.alignment / n,
        cohesion: m.cohesion / n,
        wander: m.wander / n,
        boundary: m.boundary / n,
        obstacle: m.obstacle / n,
        flee: m.flee / n,
        goal: m.goal / n,
    })
}

/// Mean magnitudes of the weighted rule forces (see [`mean_rule_forces`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Obstacle avoidance.
    pub obstacle: f32,
    /// Flight from predators.
    pub flee: f32,
    /// Goal, route and attract/repel point.
    pub goal: f32,
}

/// Mean distance from each fish of `grid` to its nearest neighbour within
/// `radius` (fish with none farther are left out), in any dimension:
/// `None` when no fish has a neighbour that close (what
/// [`Swarm::metrics`](crate::space::Swarm::metrics) reports).
///
/// In parallel on `pool` (or rayon's global pool), in pieces of a fixed
/// size whose sums are added in order: the same bits on any number of
/// threads.
pub(crate) fn mean_nearest_in<V: Vector>(
    grid: &CellGrid<V>,
    radius: f32,
    pool: Option<&rayon::ThreadPool>,
) -> Option<f32> {
    use rayon::prelude::*;
    /// Fish per piece: enough to amortise the hand-over.
    const PIECE: usize = 4096;
    let n = grid.len();
    let pieces: Vec<(f64, usize)> = crate::step::run(pool, || {
        (0..n.div_ceil(PIECE))
            .into_par_iter()
            .map(|piece| {
                let slots = piece * PIECE..((piece + 1) * PIECE).min(n);
                slots
                    .filter_map(|s| nearest_in(grid, s, radius))
                    .fold((0.0, 0), |(sum, count), d| (sum + f64::from(d), count + 1))
            })
            .collect()
    });
    let (sum, count) = pieces.iter().fold((0.0, 0), |(sum, count), &(s, c)| (sum + s, count + c));
    (count > 0).then(|| (sum / count as f64) as f32)
}

/// The distance from the fish at sorted index `s` of `grid` to its
/// nearest neighbour, if one is within `radius` (the grid's cells must be
/// at least that wide). Every fish of its block is looked at, whatever a
/// crowding cap thins.
pub(crate) fn nearest_in<V: Vector>(grid: &CellGrid<V>, s: usize, radius: f32) -> Option<f32> {
    let (size, wrap) = (grid.tank_size(), grid.wraps());
    let p = grid.sorted_position(s);
    let mut best = radius * radius;
    let mut found = false;
    for run in grid.candidate_runs(p).iter() {
        for j in run {
            let d2 = crate::world::grid::offset(p, grid.sorted_position(j), size, wrap).length_squared();
            if j != s && d2 < best {
                best = d2;
                found = true;
            }
        }
    }
    found.then(|| best.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tank;

    /// A block of fish 100 long and 20 wide, heading along its length: long
    /// and narrow; heading across it: short and wide; turned in the plane,
    /// the same shape; a mill has none; stragglers do not widen it.
    #[test]
    fn formation_measures_a_school_along_and_across_its_heading() {
        let grid: Vec<Vec2> =
            (0..=100).flat_map(|x| (0..=20).map(move |y| Vec2::new(x as f32, y as f32))).collect();
        let heading = |v: Vec2| vec![v; grid.len()];
        let [length, width] = formation(&grid, &heading(Vec2::X));
        assert!((length - 80.0).abs() < 1.0 && (width - 16.0).abs() < 1.0, "{length} {width}");
        let [length, width] = formation(&grid, &heading(Vec2::Y * 3.0));
        assert!((length - 16.0).abs() < 1.0 && (width - 80.0).abs() < 1.0, "{length} {width}");
        let turn = Vec2::from_angle(0.7);
        let turned: Vec<Vec2> = grid.iter().map(|p| turn.rotate(*p)).collect();
        let [l, w] = formation(&turned, &heading(turn));
        assert!((l - 80.0).abs() < 1.0 && (w - 16.0).abs() < 1.0, "{l} {w}");
        let (p, v) = ring(60, 50.0, true);
        assert_eq!(formation(&p, &v), [0.0, 0.0], "a mill has no heading to measure along");
        let mut stray = grid.clone();
        stray.extend([Vec2::new(50.0, 900.0), Vec2::new(50.0, -900.0)]);
        let [_, w] = formation(&stray, &heading(Vec2::X)[..1].repeat(stray.len()));
        assert!((w - 16.0).abs() < 1.0, "{w}");
        assert_eq!(formation::<Vec2>(&[], &[]), [0.0, 0.0]);
        // In a volume: a rod along x, 2 across, is long and narrow.
        let rod: Vec<glam::Vec3> = (0..=100)
            .flat_map(|x| [glam::Vec3::new(x as f32, 1.0, 0.0), glam::Vec3::new(x as f32, -1.0, 0.0)])
            .collect();
        let [l, w] = formation(&rod, &vec![glam::Vec3::X; rod.len()]);
        assert!((l - 80.0).abs() < 1.5 && (w - 2.0).abs() < 1e-3, "{l} {w}");
    }

    #[test]
    fn polarization_of_aligned_and_opposed_fish() {
        assert_eq!(polarization::<Vec2>(&[]), 0.0);
        assert!((polarization(&[Vec2::X * 3.0, Vec2::X, Vec2::X * 0.1]) - 1.0).abs() < 1e-6);
        assert!(polarization(&[Vec2::X, -Vec2::X, Vec2::Y, -Vec2::Y]) < 1e-6);
        assert!((polarization(&[Vec2::X, Vec2::ZERO]) - 0.5).abs() < 1e-6);
    }

    /// Fish evenly spaced on a ring of radius `r`, heading tangentially.
    fn ring(n: usize, r: f32, clockwise: bool) -> (Vec<Vec2>, Vec<Vec2>) {
        (0..n)
            .map(|i| {
                let a = i as f32 / n as f32 * core::f32::consts::TAU;
                let radial = crate::math::angle::unit(a);
                let tangent = if clockwise { -radial.perp() } else { radial.perp() };
                (Vec2::new(300.0, -50.0) + radial * r, tangent * 100.0)
            })
            .unzip()
    }

    #[test]
    fn one_fish_that_is_not_a_number_does_not_poison_a_measure() {
        let (mut p, mut v) = ring(64, 40.0, false);
        let (mill, order, centre) = (milling(&p, &v), polarization(&v), centroid(&p));
        let (area, speed) = (bounding_box_area(&p), mean_speed(&v));
        p.push(Vec2::NAN);
        v.push(Vec2::new(f32::INFINITY, 1.0));
        p.push(Vec2::new(f32::NEG_INFINITY, 0.0));
        v.push(Vec2::NAN);
        assert_eq!(milling(&p, &v), mill);
        assert_eq!(polarization(&v), order);
        assert_eq!(centroid(&p), centre);
        assert_eq!((bounding_box_area(&p), mean_speed(&v)), (area, speed));
        let tank = Tank::centered(Vec2::new(1000.0, 1000.0));
        assert_eq!(boundary_contacts(&[Vec2::NAN, Vec2::ZERO], &tank, 1.0e6), 1);
    }

    #[test]
    fn a_ring_mills_and_is_not_polarized() {
        for clockwise in [false, true] {
            let (p, v) = ring(64, 40.0, clockwise);
            assert!((milling(&p, &v) - 1.0).abs() < 1e-4, "{}", milling(&p, &v));
            assert!(polarization(&v) < 1e-4);
        }
    }

    #[test]
    fn an_aligned_school_is_polarized_and_does_not_mill() {
        let (p, _) = ring(64, 40.0, false);
        let v = vec![Vec2::new(3.0, 4.0); 64];
        assert!((polarization(&v) - 1.0).abs() < 1e-6);
        assert!(milling(&p, &v) < 1e-4);
        // Radial motion (an exploding ring) neither mills nor polarizes.
        let out: Vec<Vec2> = p.iter().map(|&q| q - Vec2::new(300.0, -50.0)).collect();
        assert!(milling(&p, &out) < 1e-4);
        assert!(polarization(&out) < 1e-4);
    }

    #[test]
    fn degenerate_flocks_give_zero_not_nan() {
        assert_eq!(milling::<Vec2>(&[], &[]), 0.0);
        assert_eq!(milling(&[Vec2::ONE; 3], &[Vec2::ZERO; 3]), 0.0);
        assert_eq!(bounding_box_area(&[]), 0.0);
        assert_eq!(bounding_box_area(&[Vec2::ONE]), 0.0);
        assert_eq!(centroid::<Vec2>(&[]), Vec2::ZERO);
    }

    #[test]
    fn box_and_wall_contacts() {
        let p = [Vec2::new(-10.0, 0.0), Vec2::new(30.0, 5.0), Vec2::new(0.0, -15.0)];
        assert_eq!(bounding_box_area(&p), 40.0 * 20.0);
        let tank = Tank::centered(Vec2::new(100.0, 100.0));
        let fish = [Vec2::new(-49.0, 0.0), Vec2::new(0.0, 0.0), Vec2::new(10.0, 47.5), Vec2::new(45.0, 44.0)];
        assert_eq!(boundary_contacts(&fish, &tank, 3.0), 2);
        assert_eq!(boundary_contacts(&fish, &tank, 6.0), 3);
        assert_eq!(boundary_contacts(&fish, &tank.with_boundary(BoundaryMode::Wrap), 6.0), 0);
    }

    #[test]
    fn nearest_neighbour_distance_on_a_lattice() {
        // A square lattice of spacing 7: every fish's nearest neighbour is 7 away.
        let params = crate::FlockParams { perception_radius: 20.0, ..crate::FlockParams::default() };
        let mut flock = crate::Simulation::new(params, Tank::default(), 0, 1).unwrap();
        for i in 0..10 {
            for j in 0..10 {
                let at = Vec2::new(i as f32 * 7.0 - 30.0, j as f32 * 7.0 - 30.0);
                flock.add_fish(0, at, Vec2::X, 0.0).unwrap();
            }
        }
        flock.run_to(crate::space::TickStage::SpatialIndex);
        let d = mean_nearest_in(flock.grid(), 20.0, None).unwrap();
        assert!((d - 7.0).abs() < 1e-4, "{d}");
        assert_eq!(mean_nearest_in(flock.grid(), 5.0, None), None);
    }

    /// Over many pieces: every fish's nearest neighbour found by brute
    /// force gives the same mean, and one thread and two the same bits.
    #[test]
    fn nearest_neighbour_distance_of_a_school_in_pieces_on_any_pool() {
        use crate::Simulation;
        let pool = |threads| {
            std::sync::Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap())
        };
        let mut sim = Simulation::new(crate::FlockParams::default(), Tank::default(), 10_000, 3).unwrap();
        sim.run(5);
        let radius = sim.params()[0].interaction_radius();
        // The positions the grid was built from (the last tick's start).
        let p: Vec<Vec2> = sim.grid().sorted_positions().collect();
        let brute: Vec<f32> = (0..p.len())
            .filter_map(|i| {
                let d = (0..p.len())
                    .filter(|&j| j != i)
                    .map(|j| p[i].distance_squared(p[j]))
                    .fold(f32::MAX, f32::min);
                (d < radius * radius).then(|| d.sqrt())
            })
            .collect();
        let expected = brute.iter().map(|&d| f64::from(d)).sum::<f64>() / brute.len() as f64;
        let at = |threads| mean_nearest_in(sim.grid(), radius, Some(&pool(threads)));
        let (one, two) = (at(1).unwrap(), at(2).unwrap());
        assert_eq!(one.to_bits(), two.to_bits());
        assert!((f64::from(one) - expected).abs() < 1e-5 * expected, "{one} vs {expected}");
    }

    #[test]
    fn hash_sees_one_bit() {
        let mut a = crate::Simulation::new(crate::FlockParams::default(), Tank::default(), 0, 1).unwrap();
        a.add_fish(0, Vec2::new(1.0, 2.0), Vec2::new(3.0, 4.0), 0.5).unwrap();
        let mut b = a.clone();
        assert_eq!(state_hash(&a), state_hash(&b));
        b.set(0, Vec2::new(f32::from_bits(1.0f32.to_bits() + 1), 2.0), Vec2::new(3.0, 4.0)).unwrap();
        assert_ne!(state_hash(&a), state_hash(&b));
        assert!((mean_speed(a.velocities()) - 5.0).abs() < 1e-6);
    }
}
