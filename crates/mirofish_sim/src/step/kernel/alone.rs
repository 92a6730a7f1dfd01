//! One fish's neighbourhood, scanned alone: for a fish that needs more
//! than its quartet's shared sums (a shaped view, leaders that weigh more,
//! a topological neighbourhood, an eye for its own school only, Couzin's
//! zones), in both spaces.
//!
//! Most of the fish in the cells around a fish are out of its reach (in a
//! volume its block of 2.5 × 3 × 3 radii holds about five times the fish
//! of the sphere it encloses), so the scan spends most of its time
//! rejecting them. It reads four candidates' records from the grid's
//! sorted snapshot, turns them into one column per axis (a 4 × 4
//! transpose), tests the four at once, each axis of their offsets in one
//! vector lane, and hands the ones within reach to the caller one by one,
//! in ascending sorted order ([`scan`]): the caller's sums see the same
//! neighbours in the same order as a one-by-one loop would, and the
//! offsets and squared distances are computed with the same operations in
//! the same order ([`offset`], then `x² + y² + z²`), so the bits do not
//! change. Under the crowding cap a fish looks at every `step`-th
//! candidate of each run instead ([`visit`]).
//!
//! [`neighbourhood`] sums what a fish makes of those it meets: within its
//! perception radius and its view, each neighbour with its weight (zone,
//! distance, leader) for alignment and cohesion, only its own school's
//! where it sees no other; all round, every fish, for separation; and for
//! a topological school, the nearest it sees.

use core::ops::Range;

use glam::{Mat4, Vec4};

use crate::math::Vector;
use crate::rules::nearest::Nearest;
use crate::rules::noise::TickKey;
use crate::rules::view::View;
use crate::rules::{Neighbourhood, Reach};
use crate::step::kernel::scan::nearest_image;
use crate::world::grid::{CandidateRuns, CellGrid, offset};
use crate::world::params::FlockParams;
use crate::world::school;

/// Candidates tested per step.
const LANES: usize = 4;

/// A fish's position and reach, in lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reach2 {
    at: [Vec4; 3],
    size: [f32; 3],
    half: [f32; 3],
    wrap: bool,
    within2: Vec4,
}

impl Reach2 {
    /// From `p`, within a squared distance of `within2` (strictly less), on
    /// a torus of `size` when `wrap`.
    #[inline(always)]
    pub fn new<V: Vector>(p: V, within2: f32, size: V, wrap: bool) -> Self {
        let (mut at, mut sizes, mut half) = ([Vec4::ZERO; 3], [0.0; 3], [0.0; 3]);
        let half_size = size * 0.5;
        for i in 0..V::DIM {
            at[i] = Vec4::splat(p.axis(i));
            sizes[i] = size.axis(i);
            half[i] = half_size.axis(i);
        }
        Self { at, size: sizes, half, wrap, within2: Vec4::splat(within2) }
    }
}

/// Calls `near(slot, offset, squared distance)` for every slot of `run`
/// strictly within reach, in ascending order.
#[inline(always)]
pub(crate) fn scan<V: Vector>(
    snapshot: &[V::Record],
    run: Range<usize>,
    reach: &Reach2,
    mut near: impl FnMut(usize, V, f32),
) {
    let mut s = run.start;
    while s < run.end {
        let columns = match snapshot.get(s..s + LANES) {
            Some(four) => columns::<V>(four),
            None => last_columns::<V>(snapshot, s),
        };
        let mut d = [Vec4::ZERO; 3];
        let mut d2 = Vec4::ZERO;
        for (i, (di, q)) in d.iter_mut().zip(columns).enumerate().take(V::DIM) {
            let mut x = q - reach.at[i];
            if reach.wrap {
                x = nearest_image(x, reach.half[i], reach.size[i]);
            }
            d2 = if i == 0 { x * x } else { d2 + x * x };
            *di = x;
        }
        let mut mask = d2.cmplt(reach.within2).bitmask();
        let left = run.end - s;
        if left < LANES {
            mask &= (1 << left) - 1;
        }
        while mask != 0 {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            near(s + l, V::from_fn(|i| d[i][l]), d2[l]);
        }
        s += LANES;
    }
}

/// Offers `neighbour` the candidates of `runs` within `max2` (a squared
/// distance) of the fish at sorted index `s` at `p` (itself included), in
/// the runs' order: every one when `step` is 1, else every `step`-th of
/// each run, starting where the fish's index says so that neighbours
/// sample differently. Returns how many others were looked at (counted
/// only when thinned, for scaling the sums back up).
#[inline]
pub(crate) fn visit<V: Vector, const N: usize>(
    grid: &CellGrid<V>,
    (s, p): (usize, V),
    runs: &CandidateRuns<N>,
    (step, max2): (usize, f32),
    neighbour: impl FnMut(usize, V, f32),
) -> usize {
    if grid.wraps() {
        visit_in::<V, true, N>(grid, (s, p), runs, (step, max2), neighbour)
    } else {
        visit_in::<V, false, N>(grid, (s, p), runs, (step, max2), neighbour)
    }
}

/// [`visit`] on a torus (`WRAP`, as the grid is) or not: a constant, so
/// that the offsets test no flag per candidate.
#[inline]
fn visit_in<V: Vector, const WRAP: bool, const N: usize>(
    grid: &CellGrid<V>,
    (s, p): (usize, V),
    runs: &CandidateRuns<N>,
    (step, max2): (usize, f32),
    mut neighbour: impl FnMut(usize, V, f32),
) -> usize {
    let size = grid.tank_size();
    if step == 1 {
        let within = Reach2::new(p, max2, size, WRAP);
        for run in runs.iter() {
            scan(grid.snapshot(), run, &within, &mut neighbour);
        }
        return 0;
    }
    let mut looked = 0;
    for run in runs.iter() {
        let first = (run.start + s % step).min(run.end);
        for j in (first..run.end).step_by(step) {
            looked += usize::from(j != s);
            let d = offset(p, grid.sorted_position(j), size, WRAP);
            let d2 = d.length_squared();
            if d2 < max2 {
                neighbour(j, d, d2);
            }
        }
    }
    looked
}

/// The fish whose neighbourhood a one-fish scan sums.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Onlooker<V: Vector> {
    /// Its sorted index (left out of its own sums).
    pub s: usize,
    /// Its position.
    pub p: V,
    /// Its heading (unit), for the view test.
    pub heading: V,
    /// Its id, for the direction it escapes along from fish on top of it.
    pub id: u32,
    /// Its school (already clamped to the table).
    pub school: usize,
}

/// What a fish scanned alone reads of the others, besides the grid: their
/// schools and leader flags in sorted order, and the tick's noise.
pub(crate) struct Others<'a, V: Vector> {
    /// The grid, with this tick's snapshot.
    pub grid: &'a CellGrid<V>,
    /// Each fish's school, in sorted order.
    pub school: &'a [u16],
    /// Whether each fish leads, in sorted order.
    pub leader: &'a [bool],
    /// How many schools there are.
    pub schools: usize,
    /// Whether any fish may lead (else a leader weight changes nothing).
    pub leaders: bool,
    /// The tick's noise.
    pub key: TickKey,
}

/// How a fish's school looks at its neighbours.
#[derive(Clone, Copy)]
pub(crate) struct Eye<'a> {
    pub params: &'a FlockParams,
    pub view: &'a View,
    pub reach: &'a Reach,
}

/// The neighbourhood of fish `me` over the candidates of `runs` (every
/// `step`-th of each where thinned, then scaled back up).
#[inline]
pub(crate) fn neighbourhood<V: Vector, const N: usize>(
    others: &Others<'_, V>,
    me: &Onlooker<V>,
    eye: Eye<'_>,
    runs: &CandidateRuns<N>,
    step: usize,
) -> Neighbourhood<V> {
    if others.grid.wraps() {
        neighbourhood_in::<V, true, N>(others, me, eye, runs, step)
    } else {
        neighbourhood_in::<V, false, N>(others, me, eye, runs, step)
    }
}

/// [`neighbourhood`] on a torus (`WRAP`, as the grid is) or not.
#[inline]
fn neighbourhood_in<V: Vector, const WRAP: bool, const N: usize>(
    others: &Others<'_, V>,
    me: &Onlooker<V>,
    Eye { params, view, reach }: Eye<'_>,
    runs: &CandidateRuns<N>,
    step: usize,
) -> Neighbourhood<V> {
    let g = others.grid;
    let all_schools = others.schools == 1 || params.sees_other_schools;
    // A leader counts `leader_weight` times, and a topological
    // neighbourhood keeps only the nearest: only the scan neighbour by
    // neighbour knows who leads and who is nearest.
    let k = params.topological_neighbours;
    let weighed = view.is_shaped() || (others.leaders && params.leader_weight != 1.0) || k > 0;
    let mut hood = Neighbourhood::<V>::default();
    let mut nearest = (k > 0).then(|| Nearest::new(k));
    let neighbour = |j: usize, d: V, d2: f32| {
        if j == me.s {
            return;
        }
        // A school that sees only its own still keeps its distance from
        // the others.
        if !(all_schools || school::clamp_index(others.school[j], others.schools) == me.school) {
            hood.add_separation(d, d2, reach);
            return;
        }
        if !weighed {
            hood.add(d, d2, g.sorted_velocity(j), reach);
            return;
        }
        // Seen, with its zone's and distance's weight, for alignment and
        // cohesion; felt all round for separation.
        if d2 < reach.perception2 && view.sees(me.heading, d, d2) {
            hood.add_seen(d, g.sorted_velocity(j), view.weight(me.heading, d, d2.sqrt(), others.leader[j]));
            if let Some(nearest) = &mut nearest {
                nearest.offer(d2, j);
            }
        }
        hood.add_separation(d, d2, reach);
    };
    let looked = visit_in::<V, WRAP, N>(g, (me.s, me.p), runs, (step, reach.max2()), neighbour);
    if hood.tie_strength > 0.0 {
        hood.settle_ties(others.key.tie_direction::<V>(me.id));
    }
    let metric = (hood.count, hood.velocity_sum, hood.offset_sum);
    if step > 1 {
        hood.scale_sample(runs.candidates().saturating_sub(1), looked);
    }
    if let Some(nearest) = &nearest {
        // Topological: with no more in range than it counts, a fish's
        // neighbourhood is the metric one; otherwise its nearest, in
        // ascending sorted order (a fixed order for the same set, whichever
        // search found it). Not scaled: their number is the point.
        (hood.count, hood.velocity_sum, hood.offset_sum) = metric;
        if metric.0 > k {
            (hood.count, hood.velocity_sum, hood.offset_sum) = (0, V::ZERO, V::ZERO);
            let size = g.tank_size();
            nearest.for_each_kept(|d2, j| {
                let d = offset(me.p, g.sorted_position(j), size, WRAP);
                let weight = view.weight(me.heading, d, d2.sqrt(), others.leader[j]);
                hood.add_seen(d, g.sorted_velocity(j), weight);
            });
        }
    }
    hood
}

/// The positions of four records (`four`: four of them) as one column per
/// axis, `[x, y, z, _]`.
#[inline(always)]
fn columns<V: Vector>(four: &[V::Record]) -> [Vec4; LANES] {
    let position = |l: usize| V::record_vectors(&four[l])[0];
    let m = Mat4::from_cols(position(0), position(1), position(2), position(3)).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

/// [`columns`] of the records from `s` on where fewer than four are left
/// (zeros past the end: the scan masks those lanes off).
#[cold]
#[inline(never)]
fn last_columns<V: Vector>(snapshot: &[V::Record], s: usize) -> [Vec4; LANES] {
    let mut four = [V::Record::default(); LANES];
    for (to, from) in four.iter_mut().zip(&snapshot[s.min(snapshot.len())..]) {
        *to = *from;
    }
    columns::<V>(&four)
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3};

    use super::*;

    /// The scan finds exactly the slots a one-by-one loop finds, with the
    /// same offsets and distances to the bit, across wrap seams and for
    /// runs of every length and start.
    fn agrees<V: Vector>(points: &[V], size: V) {
        // No padding: the last candidates take the slow way.
        let snapshot: Vec<V::Record> = points.iter().map(|&p| V::pack(p, -p)).collect();
        for wrap in [false, true] {
            for (f, &p) in points.iter().enumerate().step_by(7) {
                let within2 = 30.0f32 * 30.0;
                let reach = Reach2::new(p, within2, size, wrap);
                for start in 0..6 {
                    let run = start..points.len() - start % 3;
                    let mut lanes = Vec::new();
                    scan(&snapshot, run.clone(), &reach, |s, d: V, d2| lanes.push((s, d, d2.to_bits())));
                    let one_by_one: Vec<_> = run
                        .filter_map(|s| {
                            let d = offset(p, points[s], size, wrap);
                            let d2 = d.length_squared();
                            (d2 < within2).then_some((s, d, d2.to_bits()))
                        })
                        .collect();
                    assert_eq!(lanes, one_by_one, "fish {f}, wrap {wrap}, from {start}");
                }
            }
        }
    }

    #[test]
    fn the_scan_finds_what_a_loop_finds() {
        let mut state = 0x9e37_79b9u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32
        };
        let size3 = Vec3::new(100.0, 80.0, 60.0);
        let points: Vec<Vec3> =
            (0..203).map(|_| Vec3::new(next(), next(), next()) * size3 - size3 * 0.5).collect();
        agrees(&points, size3);
        let size2 = Vec2::new(100.0, 80.0);
        let points: Vec<Vec2> = (0..97).map(|_| Vec2::new(next(), next()) * size2 - size2 * 0.5).collect();
        agrees(&points, size2);
    }

    #[test]
    fn an_empty_run_calls_nothing() {
        let snapshot = [Vec3::pack(Vec3::ZERO, Vec3::ZERO); 5];
        let reach = Reach2::new(Vec3::ZERO, 1.0, Vec3::splat(10.0), false);
        scan(&snapshot, 2..2, &reach, |_, _: Vec3, _| panic!("nothing to find"));
        let mut found = 0;
        scan(&snapshot, 0..5, &reach, |_, _: Vec3, _| found += 1);
        assert_eq!(found, 5);
    }
}
