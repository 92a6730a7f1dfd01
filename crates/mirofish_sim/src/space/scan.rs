//! Which of a run of candidates lie within reach of one fish, four at a
//! time: the scan of a fish that goes alone (a shaped view, leaders that
//! weigh more, a topological neighbourhood, Couzin's zones).
//!
//! Most of the fish in the cells around a fish are out of its reach (in a
//! volume its block of 2.5 × 3 × 3 radii holds about five times the fish
//! of the sphere it encloses), so the scan spends most of its time
//! rejecting them. It reads four candidates' records from the grid's
//! sorted snapshot, turns them into one column per axis (a 4 × 4
//! transpose), tests the four at once, each axis of their offsets in one
//! vector lane, and hands the ones within reach to the caller one by one,
//! in ascending slot order: the caller's sums see the same neighbours in
//! the same order as a one-by-one loop would, and the offsets and squared
//! distances are computed with the same operations in the same order
//! ([`offset`](crate::world::grid::offset), then `x² + y² + z²`), so the
//! bits do not change.

use core::ops::Range;

use glam::{Mat4, Vec4};

use crate::math::Vector;
use crate::step::kernel::scan::nearest_image;

/// Candidates tested per step.
const LANES: usize = 4;

/// A fish's position and reach, in lanes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reach2 {
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
pub(super) fn scan<V: Vector>(
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
    use crate::world::grid::offset;

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
