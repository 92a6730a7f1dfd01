//! The crowding cap ([`FlockParams::neighbour_cap`](crate::FlockParams::neighbour_cap)),
//! in both spaces: how a scan over more candidates than a cap allows is
//! thinned to a deterministic sample and scaled back up.
//!
//! A quartet (four fish sorted next to each other, scanned together) over
//! its budget looks at its candidates in two strata: its own cells, where
//! most of its fish's separation neighbours lie, through a window of
//! consecutive fish around it, and the rest of its block on a stride; each
//! stratum is scaled by its candidates over those looked at. A fish
//! scanned alone over its budget looks at every `step`-th candidate of
//! each run. The budgets come from how many candidates a block holds per
//! neighbour in a uniform school ([`candidates_per_capped_neighbour`]), so
//! that the cap thins crowds, never a school of the usual density.

use core::ops::Range;

use crate::math::Vector;
use crate::rules::Neighbourhood;
use crate::world::grid::{COLUMNS_PER_RADIUS, CandidateRuns};

/// Candidates looked at per capped neighbour, by dimension (index `DIM -
/// 1`): about the candidates a block holds per neighbour in a uniform
/// school, its 2.5 × 3 (× 3) radii against the disc (ball) of one radius,
/// rounded up (7.5/π on a plane, 67.5/(4π) in a volume).
const CANDIDATES_PER_CAPPED_NEIGHBOUR: [usize; 3] = [3, 3, 6];

/// [`CANDIDATES_PER_CAPPED_NEIGHBOUR`] in `V`'s dimension.
#[inline(always)]
pub(crate) const fn candidates_per_capped_neighbour<V: Vector>() -> usize {
    CANDIDATES_PER_CAPPED_NEIGHBOUR[V::DIM - 1]
}

/// The stride of a scan over `candidates` candidates: 1 (every candidate)
/// unless a cap is set and there are more than
/// [`candidates_per_capped_neighbour`] `× cap` of them; then every
/// `step`-th candidate of each run is looked at.
#[inline]
pub(crate) fn thinning_step<V: Vector>(candidates: usize, cap: u32) -> usize {
    if cap == 0 {
        return 1;
    }
    candidates.div_ceil(cap as usize * candidates_per_capped_neighbour::<V>()).max(1)
}

/// The stride of a fish scanned alone over `candidates` candidates,
/// whichever engine scans it: on a plane a [`thinning_step`] over a fifth
/// more of them, so that it looks at five sixths of what a quartet would
/// (it pays for each candidate alone, where a quartet shares one by four);
/// in a volume the quartet's own budget, so that a quartet scanned
/// together and its fish scanned alone thin alike (a volume's partial
/// passes keep the fish-alone bits, see `HoodScan::new`).
#[inline]
pub(crate) fn lone_step<V: Vector>(candidates: usize, cap: u32) -> usize {
    let looked_at = if V::DIM == 2 { candidates * 6 / 5 } else { candidates };
    thinning_step::<V>(looked_at, cap)
}

/// The cap of a quartet whose fish span `columns` columns of a row (their
/// blocks together), over the candidates of `runs`: `None` (look at every
/// candidate) without a cap (0) or within the budget of one fish's block
/// scaled to the stretch, else the cap scaled to the stretch, which the
/// strata ([`strata_steps`]) share.
#[inline(always)]
pub(crate) fn stretch_cap<V: Vector, const N: usize>(
    runs: &CandidateRuns<N>,
    cap: u32,
    columns: u32,
) -> Option<u32> {
    if cap == 0 {
        return None;
    }
    // Compared without a division: this runs for every quartet.
    let block = 1 + 2 * COLUMNS_PER_RADIUS;
    let budget = cap as usize * candidates_per_capped_neighbour::<V>() * columns as usize;
    (runs.candidates() * block as usize > budget).then(|| (cap * columns).div_ceil(block))
}

/// Of a thinned scan's budget, the share (in thirds) the quartet's own
/// cells get; the rest goes to the other cells of its block. Separation
/// reaches a few fish around each fish, most of them in its own cell: a
/// sample weighted towards it estimates separation from several times more
/// of them than a uniform sample (about 1.4 per fish in a uniform crowd on
/// a plane: the noise of so few pushes weakens separation, and a thinned
/// crowd packs tighter than the exact one).
const OWN_CELL_THIRDS: usize = 2;

/// The strides of a thinned scan over `own` candidates in the quartet's own
/// cells and `rest` elsewhere in its block, under `cap`: each stratum
/// keeps its share of the budget.
#[inline]
pub(crate) fn strata_steps<V: Vector>(own: usize, rest: usize, cap: u32) -> (usize, usize) {
    let budget = cap as usize * candidates_per_capped_neighbour::<V>();
    let own_budget = budget * OWN_CELL_THIRDS / 3;
    let rest_budget = budget - own_budget;
    (own.div_ceil(own_budget).max(1), rest.div_ceil(rest_budget).max(1))
}

/// The own cells' sample of a thinned scan: `len` consecutive sorted
/// indices of `own` centred on `at`, wrapping around the end of `own` to
/// its start. As two ranges, the wrapped part first, so that both are
/// visited in ascending order.
#[inline]
pub(crate) fn own_window(own: Range<usize>, len: usize, at: usize) -> [Range<usize>; 2] {
    let size = own.len();
    if len >= size {
        return [own.start..own.start, own];
    }
    let from = (at.saturating_sub(own.start) + size - len / 2) % size;
    let start = own.start + from;
    let end = start + len;
    if end <= own.end {
        [own.start..own.start, start..end]
    } else {
        [own.start..own.start + (end - own.end), start..own.end]
    }
}

/// The neighbourhood estimated from two strata of a thinned scan, each
/// scaled by its own `others` (its candidates but the fish itself) over the
/// `looked` at (Horvitz–Thompson): means stay, and sums and counts
/// estimate the full neighbourhood's.
pub(crate) fn combine_strata<V: Vector>(
    a: &Neighbourhood<V>,
    (others_a, looked_a): (usize, usize),
    b: &Neighbourhood<V>,
    (others_b, looked_b): (usize, usize),
) -> Neighbourhood<V> {
    let fa = others_a as f32 / looked_a.max(1) as f32;
    let fb = others_b as f32 / looked_b.max(1) as f32;
    // Rounded to the nearest (the sum is never negative): `round` is a
    // library call without SSE4.1.
    let count = |x: u32, y: u32| (x as f32 * fa + y as f32 * fb + 0.5) as u32;
    Neighbourhood {
        count: count(a.count, b.count),
        velocity_sum: a.velocity_sum * fa + b.velocity_sum * fb,
        offset_sum: a.offset_sum * fa + b.offset_sum * fb,
        separation_count: count(a.separation_count, b.separation_count),
        separation_sum: a.separation_sum * fa + b.separation_sum * fb,
        tie_strength: 0.0,
    }
}

/// The two samples of a crowded quartet's scan: its own cells' candidates
/// through a window of consecutive fish around it, and the other cells'
/// on a stride, each in ascending sorted order, with what it takes to
/// scale each back up.
pub(crate) struct Strata<const N: usize> {
    /// The own cells' sample.
    pub own: Sample<N>,
    /// The other cells' sample.
    pub rest: Sample<N>,
    /// The sorted places of the quartet's own cells.
    own_cells: Range<usize>,
    /// The own cells' window.
    window: [Range<usize>; 2],
    /// Candidates in the own cells, and in all the runs.
    in_own: usize,
    total: usize,
}

impl<const N: usize> Strata<N> {
    /// The strata of the quartet from sorted place `base` (a multiple of
    /// four), whose own cells are the sorted places `own_cells` and whose
    /// candidates are the runs `runs`, under `cap` ([`stretch_cap`]).
    #[inline(always)]
    pub fn new<V: Vector, const R: usize>(
        runs: &CandidateRuns<R>,
        own_cells: Range<usize>,
        cap: u32,
        base: usize,
    ) -> Self {
        let own = own_cells.clone();
        let (mut in_own, mut total) = (0, 0);
        for run in runs.iter() {
            in_own += run.end.min(own.end).saturating_sub(run.start.max(own.start));
            total += run.len();
        }
        let (own_step, rest_step) = strata_steps::<V>(in_own, total - in_own, cap);
        // The own cells' sample is a window of consecutive candidates
        // around the quartet itself (cyclic within the own cells): the
        // next quartet's window is this one moved by four, so a pile's
        // sample streams through memory instead of striding over it,
        // where each candidate looked at would be a miss of its own.
        let window = own_window(own.clone(), in_own.div_ceil(own_step), base);
        let rest_offset = (base / 4) % rest_step;
        // The sample, in ascending sorted order within each stratum: the
        // own cells' window, and the others' candidates on their stride
        // (counted from the start of their run).
        let (mut own_sample, mut rest) = (Sample::default(), Sample::default());
        for run in runs.iter() {
            let start = run.start + rest_offset;
            rest.extend(on_stride(start, rest_step, run.start, run.end.min(own.start)));
            let (a, b) = (run.start.max(own.start), run.end.min(own.end));
            for part in &window {
                own_sample.extend(a.max(part.start)..b.min(part.end));
            }
            rest.extend(on_stride(start, rest_step, run.start.max(own.end), run.end));
        }
        Self { own: own_sample, rest, own_cells, window, in_own, total }
    }

    /// The neighbourhood of the fish in sorted place `me` estimated from
    /// its sums over the own cells' sample (`own`) and the others' (`rest`)
    /// ([`combine_strata`]).
    #[inline(always)]
    pub fn estimate<V: Vector, const R: usize>(
        &self,
        me: usize,
        runs: &CandidateRuns<R>,
        own: &Neighbourhood<V>,
        rest: &Neighbourhood<V>,
    ) -> Neighbourhood<V> {
        // The fish itself is one of its own cells' candidates (where its
        // cell is among the runs: a quartet that spans the end of a row has
        // own cells outside them), maybe one looked at, and never a
        // neighbour of its own.
        let counted = self.own_cells.contains(&me) && runs.iter().any(|run| run.contains(&me));
        let seen_self = usize::from(counted && self.window.iter().any(|part| part.contains(&me)));
        combine_strata(
            own,
            (self.in_own - usize::from(counted), self.own.len() - seen_self),
            rest,
            (self.total - self.in_own, self.rest.len()),
        )
    }
}

/// The indices of `a..b` on the stride `step` counted from `start`.
#[inline(always)]
pub(crate) fn on_stride(start: usize, step: usize, a: usize, b: usize) -> core::iter::StepBy<Range<usize>> {
    let b = b.max(a);
    let first = if a <= start { start } else { start + (a - start).div_ceil(step) * step };
    (first.min(b)..b).step_by(step)
}

/// One stratum's sample of a thinned scan, on the stack: at most `N`
/// sorted indices (its share of the budget for the widest stretch a
/// quartet walks, and one more per run for the strides' rounding).
pub(crate) struct Sample<const N: usize> {
    idx: [u32; N],
    len: usize,
}

impl<const N: usize> Default for Sample<N> {
    fn default() -> Self {
        Self { idx: [0; N], len: 0 }
    }
}

impl<const N: usize> Sample<N> {
    /// Adds `indices` (beyond the capacity, which the strides keep
    /// clear of, they are dropped).
    #[inline(always)]
    pub fn extend(&mut self, indices: impl Iterator<Item = usize>) {
        for j in indices {
            if let Some(slot) = self.idx.get_mut(self.len) {
                *slot = j as u32;
                self.len += 1;
            }
        }
    }

    /// The indices added, in the order they were.
    #[inline(always)]
    pub fn indices(&self) -> &[u32] {
        &self.idx[..self.len]
    }

    /// How many indices were added.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    #[test]
    fn the_own_window_is_centred_and_wraps_within_the_own_cells() {
        let covered = |w: &[Range<usize>; 2]| w.iter().map(|r| r.len()).sum::<usize>();
        // Centred on the quartet, inside the own cells.
        let w = own_window(100..200, 10, 150);
        assert_eq!(w, [100..100, 145..155]);
        // Near the start: wraps to the end, the wrapped part first.
        let w = own_window(100..200, 10, 101);
        assert_eq!(w, [100..106, 196..200]);
        assert_eq!(covered(&w), 10);
        // Wider than the cells: all of them.
        assert_eq!(own_window(100..105, 10, 101), [100..100, 100..105]);
        // Every start covers exactly `len`, all inside.
        for at in 100..200 {
            let w = own_window(100..200, 7, at);
            assert_eq!(covered(&w), 7);
            assert!(w.iter().all(|r| r.start >= 100 && r.end <= 200));
        }
    }

    #[test]
    fn the_budgets_follow_the_dimension() {
        assert_eq!(thinning_step::<Vec2>(101, 0), 1);
        assert_eq!(thinning_step::<Vec2>(101, 8), 5, "101 candidates, a budget of 24");
        assert_eq!(thinning_step::<Vec2>(20, 8), 1, "within the budget");
        assert_eq!(thinning_step::<Vec3>(101, 8), 3, "101 candidates, a budget of 48");
        // Two thirds of the budget to the own cells, in both spaces.
        assert_eq!(strata_steps::<Vec2>(160, 80, 16), (5, 5));
        assert_eq!(strata_steps::<Vec3>(160, 80, 16), (3, 3));
        // A quartet's budget grows with its stretch of row.
        let runs = CandidateRuns::<4>::single(0..100);
        assert_eq!(stretch_cap::<Vec2, 4>(&runs, 0, 5), None, "no cap");
        assert_eq!(stretch_cap::<Vec2, 4>(&runs, 8, 5), Some(8), "100 candidates, a budget of 24");
        assert_eq!(stretch_cap::<Vec2, 4>(&runs, 8, 25), None, "a budget of 120");
        assert_eq!(stretch_cap::<Vec3, 4>(&runs, 8, 11), None, "a budget of 528 for 500");
        assert_eq!(stretch_cap::<Vec3, 4>(&runs, 8, 9), Some(15), "a budget of 86: 8 × 9 / 5, up");
    }

    #[test]
    fn strata_are_scaled_each_by_its_own_share() {
        let a = Neighbourhood { count: 2, velocity_sum: Vec3::X, ..Neighbourhood::default() };
        let b = Neighbourhood { count: 1, offset_sum: Vec3::Y, ..Neighbourhood::default() };
        let both = combine_strata(&a, (10, 5), &b, (30, 10));
        assert_eq!(both.count, 7);
        assert_eq!(both.velocity_sum, Vec3::X * 2.0);
        assert_eq!(both.offset_sum, Vec3::Y * 3.0);
    }
}
