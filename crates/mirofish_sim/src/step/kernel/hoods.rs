//! A quartet's four neighbourhoods, as both spaces' force passes scan them:
//! the passes over its stretch of row, the crowding cap's thinning, and a
//! topological school's nearest.
//!
//! Four fish sorted next to each other usually lie in one row of cells,
//! within a few columns of each other: one pass walks the blocks of cells
//! around that stretch ([`CellGrid::runs_across`]) with the candidate loop
//! ([`scan`]), and each lane takes from it what its own fish's block
//! holds. A quartet across rows, or spread further along one than the
//! space's `spread`, takes a pass per stretch, each lane from its own.
//!
//! The bits are those of each fish's own scan: a lane meets its candidates
//! in the order its fish's scan would (the runs around one cell of the
//! stretch are a subsequence of the stretch's), with the same operations,
//! and a candidate out of its reach adds exact zeros (a sum that starts at
//! `+0.0` never becomes `-0.0`, and `x + 0.0 == x` for every other `x`).
//! Past the crowding cap's budget a pass is thinned: in two strata
//! ([`Strata`]) for a metric school, on a stride for a topological one,
//! each scaled back up. A space that keeps the fish-alone bits for every
//! partial pass ([`HoodScan::thin_parts`] false) does not thin those:
//! their fish go one at a time.

use core::ops::Range;

use glam::{BVec4A, Vec4};

use super::scan::{self, LANES, Pass, QuartetReach, QuartetSeparation, QuartetSums};
use crate::math::Vector;
use crate::rules::nearest::Nearest;
use crate::rules::{Neighbourhood, NeighbourhoodLanes};
use crate::step::crowding::{Strata, on_stride, stretch_cap, thinning_step};
use crate::world::grid::{COLUMNS_PER_RADIUS, CandidateRuns, CellGrid, offset};

/// Lane numbers, for the masks of a quartet's lanes.
const LANE_INDEX: Vec4 = Vec4::new(0.0, 1.0, 2.0, 3.0);

/// The four neighbourhoods of a quartet as its scan left them (ties
/// settled), axis by axis, with each lane's nearest neighbour where the
/// scan looked for it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QuartetHoods {
    /// Counts, velocities and offsets.
    pub sums: QuartetSums,
    /// The separation sums.
    pub close: QuartetSeparation,
}

impl QuartetHoods {
    /// Lane `l` as one fish's neighbourhood.
    #[inline(always)]
    pub fn lane<V: Vector>(&self, l: usize) -> Neighbourhood<V> {
        let (sums, close) = (&self.sums, &self.close);
        Neighbourhood {
            count: sums.count[l] as u32,
            velocity_sum: V::from_fn(|i| sums.velocity[i][l]),
            offset_sum: V::from_fn(|i| sums.offset[i][l]),
            separation_count: close.count[l] as u32,
            separation_sum: V::from_fn(|i| close.push[i][l]),
            // The lanes' ties are settled before they become
            // neighbourhoods.
            tie_strength: 0.0,
        }
    }

    /// Sets lane `l` to one fish's neighbourhood.
    #[inline(always)]
    pub fn set_lane<V: Vector>(&mut self, l: usize, hood: &Neighbourhood<V>) {
        let (sums, close) = (&mut self.sums, &mut self.close);
        sums.count[l] = hood.count as f32;
        close.count[l] = hood.separation_count as f32;
        for i in 0..V::DIM {
            sums.velocity[i][l] = hood.velocity_sum.axis(i);
            sums.offset[i][l] = hood.offset_sum.axis(i);
            close.push[i][l] = hood.separation_sum.axis(i);
        }
    }

    /// `other`'s lanes where `lanes` is set, this one's elsewhere.
    #[inline(always)]
    fn take(&mut self, lanes: BVec4A, other: &Self) {
        self.take_neighbours(lanes, other);
        let pick = |a: &mut Vec4, b: Vec4| *a = Vec4::select(lanes, b, *a);
        pick(&mut self.close.count, other.close.count);
        for (a, &b) in self.close.push.iter_mut().zip(&other.close.push) {
            pick(a, b);
        }
    }

    /// [`QuartetHoods::take`] of the alignment and cohesion sums (count,
    /// velocities, offsets) only.
    #[inline(always)]
    fn take_neighbours(&mut self, lanes: BVec4A, other: &Self) {
        let pick = |a: &mut Vec4, b: Vec4| *a = Vec4::select(lanes, b, *a);
        pick(&mut self.sums.count, other.sums.count);
        for i in 0..3 {
            pick(&mut self.sums.velocity[i], other.sums.velocity[i]);
            pick(&mut self.sums.offset[i], other.sums.offset[i]);
        }
    }

    /// The four neighbourhoods in lanes over the first `N` axes, for the
    /// rules in lanes.
    #[inline(always)]
    pub fn in_lanes<const N: usize>(&self) -> NeighbourhoodLanes<Vec4, N> {
        let (sums, close) = (&self.sums, &self.close);
        let mut hoods = NeighbourhoodLanes::<Vec4, N> {
            count: sums.count,
            separation_count: close.count,
            ..NeighbourhoodLanes::default()
        };
        // Loops, no closures: this inlines into the AVX2 builds of the
        // passes.
        for i in 0..N {
            hoods.velocity[i] = sums.velocity[i];
            hoods.offset[i] = sums.offset[i];
            hoods.separation[i] = close.push[i];
        }
        hoods
    }
}

/// How the quartets of a space scan the grid's cells: the grid, how far
/// along a row one pass may reach, and whether a pass of part of a
/// quartet may be thinned. `RUNS`: the most runs of cells a block has in
/// the space; `SAMPLE`: the most candidates one stratum of a thinned scan
/// looks at.
pub(crate) struct HoodScan<'a, V: Vector, const RUNS: usize, const SAMPLE: usize> {
    /// The grid, with this tick's snapshot.
    pub grid: &'a CellGrid<V>,
    /// Columns a pass's fish may span past its first fish's column.
    pub spread: u32,
    /// Whether a pass of part of a quartet may be thinned. If not, a
    /// quartet with such a pass is not scanned together (its fish's own
    /// scans would thin differently): [`HoodScan::quartet`] gives `None`.
    pub thin_parts: bool,
}

impl<'a, V: Vector, const RUNS: usize, const SAMPLE: usize> HoodScan<'a, V, RUNS, SAMPLE> {
    /// The scan of `grid` as its dimension is tuned, whichever engine
    /// runs it (the bits depend on it wherever the cap thins): on a plane
    /// a pass reaches four radii along a row (at the usual density that
    /// merges more quartets into one pass than two would: fewer, and no
    /// shorter, scans) and a partial pass may be thinned; in a volume, whose
    /// blocks are three layers deep, six radii (four fish spread over that
    /// much of a row still share most of their blocks: 9 rows of at most
    /// 17 columns cost less than four scans of their own blocks), and a
    /// partial pass keeps the fish-alone bits.
    pub(crate) fn new(grid: &'a CellGrid<V>) -> Self {
        let plane = V::DIM == 2;
        let radii = if plane { 4 } else { 6 };
        Self { grid, spread: radii * COLUMNS_PER_RADIUS, thin_parts: plane }
    }
}

impl<V: Vector, const RUNS: usize, const SAMPLE: usize> HoodScan<'_, V, RUNS, SAMPLE> {
    /// The neighbourhoods of the first `m` lanes of `q` (up to four),
    /// whose fish lie in the grid cells `cells`, under a neighbour `cap`
    /// (0: none) and, for a `topological` school, of its nearest (0:
    /// metric). `None`
    /// where a pass of part of the quartet would need thinning and may not
    /// be ([`HoodScan::thin_parts`]).
    #[inline(always)]
    pub fn quartet<const WRAP: bool, const AVX2: bool>(
        &self,
        q: &QuartetReach,
        cells: &[[u32; 3]; LANES],
        m: usize,
        (cap, topological): (u32, u32),
    ) -> Option<QuartetHoods> {
        let mut hoods = QuartetHoods::default();
        let mut l = 0;
        while l < m {
            // Fish of one row, sorted by column: the pass covers the
            // blocks of all the fish from `l` to `end`.
            let stretch = Pass::from(cells, m, l, self.spread);
            let runs = self.grid.runs_across::<RUNS>(stretch.last_x, stretch.first);
            let end = stretch.lanes.end;
            let whole = l == 0 && end == m;
            let columns = stretch.columns();
            let pass =
                self.runs::<WRAP, AVX2>(q, &runs, (cap, columns), topological, whole || self.thin_parts)?;
            if whole {
                // One pass for the whole quartet (the usual case).
                return Some(pass);
            }
            let lanes = LANE_INDEX.cmpge(Vec4::splat(l as f32)) & LANE_INDEX.cmplt(Vec4::splat(end as f32));
            hoods.take(lanes, &pass);
            l = end;
        }
        Some(hoods)
    }

    /// The neighbourhoods of all four lanes of `q` over the candidates of
    /// `runs` (ascending and disjoint; a pass's blocks, or every fish for
    /// brute force), `columns` wide (0: not a pass of the grid). Past the
    /// crowding cap's budget for them, thinned where `may_thin`, else
    /// `None`.
    #[inline(always)]
    pub fn runs<const WRAP: bool, const AVX2: bool>(
        &self,
        q: &QuartetReach,
        runs: &CandidateRuns<RUNS>,
        (cap, columns): (u32, u32),
        topological: u32,
        may_thin: bool,
    ) -> Option<QuartetHoods> {
        if !may_thin && thinning_step::<V>(runs.candidates(), cap) > 1 {
            // Some fish of the pass may have more candidates than a fish
            // alone looks at.
            return None;
        }
        // The budget, `3 × cap` candidates for one fish's block of columns,
        // and in proportion for a wider stretch.
        let Some(cap) = stretch_cap::<V, RUNS>(runs, cap, columns) else {
            return Some(self.scan::<WRAP, AVX2, _>(q, runs, topological, |_, a, b| a..b));
        };
        if !may_thin {
            return None;
        }
        if topological == 0 {
            return Some(self.strata::<WRAP, AVX2>(q, runs, cap));
        }
        // A topological school's sample on one stride: each quartet starts
        // it elsewhere, so that neighbouring quartets look at different
        // samples.
        let candidates = runs.candidates();
        let step = thinning_step::<V>(candidates, cap);
        let offset = (q.base / LANES) % step;
        // The indices of `a..b`, a piece of `run`, on the run's stride.
        let on_its_stride =
            |run: &Range<usize>, a: usize, b: usize| on_stride(run.start + offset, step, a, b);
        let mut looked = [0usize; LANES];
        for run in runs.iter() {
            let all = on_its_stride(&run, run.start, run.end).len();
            for (l, looked) in looked.iter_mut().enumerate() {
                let me = q.base + l;
                *looked += all - usize::from(on_its_stride(&run, me, me + 1).len() == 1 && run.contains(&me));
            }
        }
        let mut hoods = self.scan::<WRAP, AVX2, _>(q, runs, topological, on_its_stride);
        for (l, looked) in looked.into_iter().enumerate() {
            let mut hood = hoods.lane::<V>(l);
            let kept = (hood.count, hood.velocity_sum, hood.offset_sum);
            hood.scale_sample(candidates.saturating_sub(1), looked);
            // The nearest of the sample are not scaled: their number is
            // the point.
            (hood.count, hood.velocity_sum, hood.offset_sum) = kept;
            hoods.set_lane(l, &hood);
        }
        Some(hoods)
    }

    /// The sums of all four lanes over the candidates of `runs`, one
    /// candidate at a time (two under `AVX2`): within the piece `a..b` of
    /// a run, the candidates `pick(run, a, b)` gives. A `topological`
    /// school's lanes with more neighbours in range than it counts then
    /// take their nearest instead.
    #[inline(always)]
    fn scan<const WRAP: bool, const AVX2: bool, I: Iterator<Item = usize>>(
        &self,
        q: &QuartetReach,
        runs: &CandidateRuns<RUNS>,
        topological: u32,
        pick: impl Fn(&Range<usize>, usize, usize) -> I,
    ) -> QuartetHoods {
        let (mut sums, mut close) = (QuartetSums::default(), QuartetSeparation::default());
        let snapshot = self.grid.snapshot();
        scan::scan_runs::<V, WRAP, AVX2, I>(snapshot, (&mut sums, &mut close), runs.iter(), &pick, q);
        let mut hoods = QuartetHoods { sums, close };
        // A topological neighbourhood is the metric one where a fish has no
        // more neighbours in range than it counts (the usual case at the
        // usual density); only the others need their nearest picked.
        if topological > 0 {
            let crowded = hoods.sums.count.cmpgt(Vec4::splat(topological as f32));
            if crowded.any() {
                hoods
                    .take_neighbours(crowded, &self.nearest::<WRAP, _>(q, runs, &pick, crowded, topological));
            }
        }
        hoods
    }

    /// The sums of a crowded metric quartet (`cap` from [`stretch_cap`]):
    /// its own cells through a window of consecutive fish around it, the
    /// rest of the runs on a stride, each stratum scaled by its candidates
    /// over those looked at ([`crate::step::crowding`]). Inlined, so that
    /// the AVX2 build's intrinsics inline into it too.
    #[inline(always)]
    fn strata<const WRAP: bool, const AVX2: bool>(
        &self,
        q: &QuartetReach,
        runs: &CandidateRuns<RUNS>,
        cap: u32,
    ) -> QuartetHoods {
        let g = self.grid;
        let base = q.base;
        let last = (base + LANES).min(g.len()) - 1;
        let own = g.cells_between(g.sorted_position(base), g.sorted_position(last));
        let strata = Strata::<SAMPLE>::new::<V, RUNS>(runs, own, cap, base);
        // A loop, not a `map` over the two: a closure would be a function
        // of its own, without AVX2.
        let mut sampled = [QuartetHoods::default(); 2];
        for (hoods, sample) in sampled.iter_mut().zip([strata.own.indices(), strata.rest.indices()]) {
            let QuartetHoods { sums, close } = hoods;
            scan::scan_sample::<V, WRAP, AVX2>(g.snapshot(), (sums, close), sample, q);
        }
        let [own, rest] = &sampled;
        let mut hoods = QuartetHoods::default();
        for l in 0..LANES {
            let hood = strata.estimate(base + l, runs, &own.lane::<V>(l), &rest.lane::<V>(l));
            hoods.set_lane(l, &hood);
        }
        hoods
    }

    /// The alignment and cohesion sums (count, velocities, offsets; no
    /// separation) of the fish of a topological school with more than `k`
    /// neighbours in range (the `crowded` lanes): each lane is offered its
    /// candidates in range in ascending sorted order, keeps the `k` nearest
    /// (ties to the lower sorted index) and sums them in that order — the
    /// order the one-fish scan sums them in, so the same set gives the
    /// same bits whichever search found it.
    #[inline(never)]
    fn nearest<const WRAP: bool, I: Iterator<Item = usize>>(
        &self,
        q: &QuartetReach,
        runs: &CandidateRuns<RUNS>,
        pick: &impl Fn(&Range<usize>, usize, usize) -> I,
        crowded: BVec4A,
        k: u32,
    ) -> QuartetHoods {
        let g = self.grid;
        let snapshot = g.snapshot();
        let mut nearest: [Nearest; LANES] = core::array::from_fn(|_| Nearest::new(k));
        // The lanes with `k` or fewer in range are not needed (their
        // metric sums are): nothing is within a radius of zero.
        let within = Vec4::select(crowded, q.perception2, Vec4::ZERO);
        let own = q.base..q.base + LANES;
        for run in runs.iter() {
            for (piece, candidates) in scan::around_own(&run, &own, pick).into_iter().enumerate() {
                for j in candidates {
                    let fish_x = if piece == 1 { q.x_without[j - q.base] } else { q.at[0] };
                    let (_, d2) = q.offsets::<V, WRAP>(&snapshot[j], fish_x);
                    let close = d2.cmplt(within);
                    if close.any() {
                        let d2s = d2.to_array();
                        for l in (0..LANES).filter(|&l| close.test(l)) {
                            nearest[l].offer(d2s[l], j);
                        }
                    }
                }
            }
        }
        let size = g.tank_size();
        let mut hoods = QuartetHoods::default();
        for (l, nearest) in nearest.iter().enumerate() {
            let me = V::from_fn(|i| q.at[i][l]);
            let mut hood = Neighbourhood::<V>::default();
            nearest.for_each_kept(|_, j| {
                hood.count += 1;
                hood.velocity_sum += g.sorted_velocity(j);
                hood.offset_sum += offset(me, g.sorted_position(j), size, WRAP);
            });
            hoods.set_lane(l, &hood);
        }
        hoods
    }
}

/// The grid cells of the four fish at `at` (axis by axis, one fish per
/// lane), as [`CellGrid::coords`] finds them; under `AVX2` (only where the
/// CPU has it) four at once.
#[inline(always)]
pub(crate) fn cells_of<V: Vector, const AVX2: bool>(grid: &CellGrid<V>, at: &[Vec4; 3]) -> [[u32; 3]; LANES] {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is true only within the AVX2 builds of the force
        // passes, which run only where the CPU has AVX2.
        #[expect(unsafe_code, reason = "AVX2 intrinsics, inlined into the AVX2 build of a pass")]
        return unsafe { super::quartet::avx2::cells_of(grid, at) };
    }
    core::array::from_fn(|l| grid.coords(V::from_fn(|i| at[i][l])))
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3};

    use super::*;

    /// Some neighbourhood for lane `l`, every field different.
    fn hood<V: Vector>(l: usize) -> Neighbourhood<V> {
        let f = l as f32;
        Neighbourhood {
            count: 3 + l as u32,
            velocity_sum: V::from_fn(|i| f - 2.5 * i as f32),
            offset_sum: V::from_fn(|i| -0.25 * f + i as f32),
            separation_count: l as u32,
            separation_sum: V::from_fn(|i| 1e-3 * (f + i as f32)),
            tie_strength: 0.0,
        }
    }

    fn lanes_keep_each_neighbourhood<V: Vector, const N: usize>() {
        let mut hoods = QuartetHoods::default();
        for l in 0..LANES {
            hoods.set_lane(l, &hood::<V>(l));
        }
        let lanes = hoods.in_lanes::<N>();
        for l in 0..LANES {
            assert_eq!(hoods.lane::<V>(l), hood::<V>(l));
            assert_eq!(lanes.count[l], hood::<V>(l).count as f32);
            assert_eq!(lanes.separation_count[l], hood::<V>(l).separation_count as f32);
            for i in 0..N {
                assert_eq!(lanes.velocity[i][l], hood::<V>(l).velocity_sum.axis(i));
                assert_eq!(lanes.offset[i][l], hood::<V>(l).offset_sum.axis(i));
                assert_eq!(lanes.separation[i][l], hood::<V>(l).separation_sum.axis(i));
            }
        }
    }

    #[test]
    fn lanes_keep_each_fishs_neighbourhood_on_a_plane_and_in_a_volume() {
        lanes_keep_each_neighbourhood::<Vec2, 2>();
        lanes_keep_each_neighbourhood::<Vec3, 3>();
    }

    #[test]
    fn taking_lanes_takes_those_only() {
        let (mut mine, mut theirs) = (QuartetHoods::default(), QuartetHoods::default());
        for l in 0..LANES {
            mine.set_lane(l, &hood::<Vec3>(l));
            theirs.set_lane(l, &hood::<Vec3>(l + 4));
        }
        let middle = LANE_INDEX.cmpge(Vec4::splat(1.0)) & LANE_INDEX.cmplt(Vec4::splat(3.0));
        let mut all = mine;
        all.take(middle, &theirs);
        let mut neighbours = mine;
        neighbours.take_neighbours(middle, &theirs);
        for l in 0..LANES {
            let taken = (1..3).contains(&l);
            assert_eq!(all.lane::<Vec3>(l), if taken { theirs } else { mine }.lane::<Vec3>(l));
            // Alignment and cohesion from the other, separation kept.
            let mut expected = mine.lane::<Vec3>(l);
            if taken {
                let other = theirs.lane::<Vec3>(l);
                (expected.count, expected.velocity_sum, expected.offset_sum) =
                    (other.count, other.velocity_sum, other.offset_sum);
            }
            assert_eq!(neighbours.lane::<Vec3>(l), expected);
        }
    }
}
