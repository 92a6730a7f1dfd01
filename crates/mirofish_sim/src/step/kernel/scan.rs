//! The quartet's candidate loop, over any dimension: the neighbourhood sums
//! of four fish in a row of the sorted snapshot, one fish per vector lane,
//! read from the grid's records ([`Vector::Record`]).
//!
//! Each candidate is loaded once, broadcast to the four lanes and tested
//! against all four fish with the same vector operations, axis by axis;
//! its terms are added to every lane, exact zeros where it is out of a
//! lane's perception radius, so a lane's sums do not depend on which
//! superset of its neighbours was walked, only on their order (ascending
//! sorted order within a run). A candidate within a separation radius is
//! pushed away in the same lanes, out of line ([`separate_quartet`]). Both
//! engines' quartets (the plane's kernel, the generic swarm) run this one
//! loop; where the CPU has AVX2 the candidates go two at a time
//! (`scan/avx2.rs`), each lane still adding them one after the other, so
//! the bits are the portable loop's.

use core::cell::Cell;
use core::ops::Range;

use glam::{BVec4A, Vec4};

use crate::math::Vector;
use crate::math::vector::{record_position_axis, record_velocity_axis};
use crate::rules::Reach;
use crate::rules::noise::TickKey;
use crate::world::grid::COLUMNS_PER_RADIUS;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

/// Fish per quartet: one per lane of a `Vec4`.
pub(crate) const LANES: usize = 4;

/// Every lane but one, to take a fish out of its own sums.
const NOT_LANE: [BVec4A; LANES] = [
    BVec4A::new(false, true, true, true),
    BVec4A::new(true, false, true, true),
    BVec4A::new(true, true, false, true),
    BVec4A::new(true, true, true, false),
];

/// One pass of a quartet's scan: the lanes `lanes`, whose fish lie in one
/// row of cells (and one layer), from cell `first` to column `last_x`. The
/// pass walks the blocks around that stretch of row once
/// ([`crate::world::grid::CellGrid::runs_across`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pass {
    pub lanes: Range<usize>,
    pub first: [u32; 3],
    pub last_x: u32,
}

impl Pass {
    /// The pass from lane `l` of the first `m` fish in `cells` (one per
    /// lane, in sorted order): the lanes after it in its row, as long as
    /// they lie at most `spread` columns further along it. A quartet's
    /// first pass usually takes all four; the next lane starts the next
    /// pass.
    #[inline(always)]
    pub fn from(cells: &[[u32; 3]; LANES], m: usize, l: usize, spread: u32) -> Self {
        let first = cells[l];
        let mut end = l + 1;
        // Same row and layer; along the row, `first` and at most `spread`
        // columns on (a fish in an earlier column wraps round to a huge
        // difference).
        while end < m.min(LANES)
            && (cells[end][1], cells[end][2]) == (first[1], first[2])
            && cells[end][0].wrapping_sub(first[0]) <= spread
        {
            end += 1;
        }
        Self { lanes: l..end, first, last_x: cells[end - 1][0] }
    }

    /// The columns its blocks cover (its stretch and a block's reach on
    /// each side): the crowding cap's budget grows with them, so that a
    /// school is thinned by its density alone, never by how its quartets
    /// happen to fall.
    #[inline(always)]
    pub fn columns(&self) -> u32 {
        self.last_x - self.first[0] + 1 + 2 * COLUMNS_PER_RADIUS
    }
}

/// The four fish whose neighbourhoods one scan sums, lane by lane: where
/// they are and how far each looks.
pub(crate) struct QuartetReach {
    /// Sorted index of lane 0.
    pub base: usize,
    /// Positions, axis by axis (the axes past the dimension's zero).
    pub at: [Vec4; 3],
    /// `at[0]` with one lane NaN: scanning its own four, lane `l` meets
    /// itself as candidate `base + l` and must not count it (a NaN
    /// distance is never within reach).
    pub x_without: [Vec4; LANES],
    /// Each lane's radii, squared where named so.
    pub perception2: Vec4,
    pub separation: Vec4,
    pub separation2: Vec4,
    /// Each lane's separation floor ([`crate::FlockParams::separation_floor`]).
    pub floor: Vec4,
    /// The torus's size and half size along each axis.
    size: [f32; 3],
    half: [f32; 3],
    /// The summed strength of the candidates exactly on top of each fish
    /// ([`crate::rules::Neighbourhood::tie_strength`]): only piles of fish
    /// add to it, so it stays out of the scan's sums.
    pub tie: Cell<Vec4>,
    /// The four fish's ids and the tick's noise: each fish with others on
    /// top of it escapes along a direction of its own.
    pub id: [u32; LANES],
    key: TickKey,
}

impl QuartetReach {
    /// The quartet from sorted index `base`, at `at` (axis by axis), with
    /// each lane's radii (its fish's school's `reach`), in a
    /// tank (a torus, where the scan wraps) of `size`; its fish's ids `id`,
    /// this tick's noise `key`.
    #[inline(always)]
    pub fn new<V: Vector>(
        base: usize,
        at: [Vec4; 3],
        reach: [&Reach; LANES],
        size: V,
        (id, key): ([u32; LANES], TickKey),
    ) -> Self {
        let [a, b, c, d] = reach;
        // One school (the usual case): each radius is one value in all lanes.
        let one = core::ptr::eq(a, b) && core::ptr::eq(a, c) && core::ptr::eq(a, d);
        let lanes = |radius: fn(&Reach) -> f32| {
            if one { Vec4::splat(radius(a)) } else { Vec4::new(radius(a), radius(b), radius(c), radius(d)) }
        };
        let (perception2, separation) = (lanes(|r| r.perception2), lanes(|r| r.separation));
        let (separation2, floor) = (lanes(|r| r.separation2), lanes(|r| r.floor));
        let size = core::array::from_fn(|i| if i < V::DIM { size.axis(i) } else { 0.0 });
        Self {
            base,
            at,
            x_without: core::array::from_fn(|l| Vec4::select(NOT_LANE[l], at[0], Vec4::NAN)),
            perception2,
            separation,
            separation2,
            floor,
            size,
            half: size.map(|s| s * 0.5),
            tie: Cell::new(Vec4::ZERO),
            id,
            key,
        }
    }

    /// The quartet's own positions along axis 0 as seen by candidate `j`:
    /// lane `j - base` NaN where `j` is one of the quartet.
    #[inline(always)]
    pub fn x_for(&self, j: usize) -> Vec4 {
        match self.x_without.get(j.wrapping_sub(self.base)) {
            Some(&x) => x,
            None => self.at[0],
        }
    }

    /// Offsets from the four fish (axis 0 at `fish_x`) to the candidate
    /// `record`, axis by axis (nearest images under `WRAP`), and their
    /// squared lengths.
    #[inline(always)]
    pub fn offsets<V: Vector, const WRAP: bool>(
        &self,
        record: &V::Record,
        fish_x: Vec4,
    ) -> ([Vec4; 3], Vec4) {
        let mut d = [Vec4::ZERO; 3];
        let mut d2 = Vec4::ZERO;
        for (i, di) in d.iter_mut().enumerate().take(V::DIM) {
            let fish = if i == 0 { fish_x } else { self.at[i] };
            let mut x = Vec4::splat(record_position_axis::<V>(record, i)) - fish;
            if WRAP {
                x = nearest_image(x, self.half[i], self.size[i]);
            }
            d2 = if i == 0 { x * x } else { d2 + x * x };
            *di = x;
        }
        (d, d2)
    }
}

/// The offsets `d` along one axis of a torus `size` wide brought to their
/// nearest image, lane by lane, as [`crate::world::grid::offset`] takes
/// it.
#[inline(always)]
pub(crate) fn nearest_image(d: Vec4, half: f32, size: f32) -> Vec4 {
    let above = d.cmpgt(Vec4::splat(half));
    let below = d.cmplt(Vec4::splat(-half));
    Vec4::select(above, d - Vec4::splat(size), Vec4::select(below, d + Vec4::splat(size), d))
}

/// The sums of a quartet's scan, one fish per lane, axis by axis (counts
/// are whole numbers, exact in `f32` up to 2²⁴ neighbours). Kept in
/// registers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QuartetSums {
    pub count: Vec4,
    pub velocity: [Vec4; 3],
    pub offset: [Vec4; 3],
}

/// The separation sums, updated only when a candidate is that close to one
/// of the fish; kept apart so that the hot sums stay in registers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QuartetSeparation {
    pub count: Vec4,
    pub push: [Vec4; 3],
}

/// Both sums of a scan.
pub(crate) type Sums<'a> = (&'a mut QuartetSums, &'a mut QuartetSeparation);

/// The pieces of `run` before, among and after the quartet's own fish
/// (`own`), each as `pick` takes it: scanning its own fish, a lane must
/// skip itself.
#[inline(always)]
pub(crate) fn around_own<I>(
    run: &Range<usize>,
    own: &Range<usize>,
    pick: &impl Fn(&Range<usize>, usize, usize) -> I,
) -> [I; 3] {
    [
        pick(run, run.start, run.end.min(own.start)),
        pick(run, run.start.max(own.start), run.end.min(own.end)),
        pick(run, run.start.max(own.end), run.end),
    ]
}

/// The candidate loop over `snapshot`, one candidate at a time, or two
/// under `AVX2` (only where the CPU has it): adds the candidates at sorted
/// indices `candidates` (ascending, all below `end`) to the sums of every
/// lane, comparing candidate `j` with the fish whose axis 0 is `fish_x(j)`.
#[inline(always)]
pub(crate) fn scan<V: Vector, const WRAP: bool, const AVX2: bool>(
    snapshot: &[V::Record],
    sums: Sums<'_>,
    candidates: impl Iterator<Item = usize>,
    end: usize,
    fish_x: impl Fn(usize) -> Vec4,
    q: &QuartetReach,
) {
    // Thinned scans meet many empty pieces: skip their setup.
    if candidates.size_hint().1 == Some(0) {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is true only within the AVX2 builds of the force
        // passes, which run only where the CPU has AVX2.
        #[expect(unsafe_code, reason = "the AVX2 scan, inlined into the AVX2 build of a pass")]
        unsafe {
            avx2::scan_pairs::<V, WRAP>(snapshot, sums, candidates, end, fish_x, q);
        }
        return;
    }
    scan_candidates::<V, WRAP>(snapshot, sums, candidates, end, fish_x, q);
}

/// [`scan`] one candidate at a time.
#[inline(always)]
pub(crate) fn scan_candidates<V: Vector, const WRAP: bool>(
    snapshot: &[V::Record],
    (acc, close): Sums<'_>,
    candidates: impl Iterator<Item = usize>,
    end: usize,
    fish_x: impl Fn(usize) -> Vec4,
    q: &QuartetReach,
) {
    // Cut to `end` once, so that the loop's loads need no bounds check of
    // their own.
    let snapshot = &snapshot[..end];
    for j in candidates {
        let candidate = &snapshot[j];
        let (d, d2) = q.offsets::<V, WRAP>(candidate, fish_x(j));
        let seen = d2.cmplt(q.perception2);
        acc.count += Vec4::select(seen, Vec4::ONE, Vec4::ZERO);
        let axes = acc.velocity.iter_mut().zip(&mut acc.offset).zip(d);
        for (i, ((velocity, offset), d)) in axes.enumerate().take(V::DIM) {
            *velocity += Vec4::select(seen, Vec4::splat(record_velocity_axis::<V>(candidate, i)), Vec4::ZERO);
            *offset += Vec4::select(seen, d, Vec4::ZERO);
        }
        let near = d2.cmplt(q.separation2);
        if near.any() {
            separate_quartet::<V>(close, near, (d, d2), q);
        }
    }
}

/// The sums of the quartet over the candidates at the sorted indices
/// `sample` (ascending), each lane skipping its own fish: a thinned scan's
/// stratum. Ties settled ([`settle_ties`]).
#[inline(always)]
pub(crate) fn scan_sample<V: Vector, const WRAP: bool, const AVX2: bool>(
    snapshot: &[V::Record],
    (acc, close): Sums<'_>,
    sample: &[u32],
    q: &QuartetReach,
) {
    let candidates = sample.iter().map(|&j| j as usize);
    scan::<V, WRAP, AVX2>(snapshot, (acc, close), candidates, snapshot.len(), |j| q.x_for(j), q);
    if q.tie.get().cmpgt(Vec4::ZERO).any() {
        settle_ties::<V>(close, q);
    }
}

/// The sums of the quartet over the candidates of `runs` (ascending and
/// disjoint): within the piece `a..b` of a run, those `pick(run, a, b)`
/// gives (`a..b` itself for all of them), each lane skipping its own fish.
/// Ties settled ([`settle_ties`]).
#[inline(always)]
pub(crate) fn scan_runs<V: Vector, const WRAP: bool, const AVX2: bool, I>(
    snapshot: &[V::Record],
    (acc, close): Sums<'_>,
    runs: impl Iterator<Item = Range<usize>>,
    pick: &impl Fn(&Range<usize>, usize, usize) -> I,
    q: &QuartetReach,
) where
    I: Iterator<Item = usize>,
{
    let own = q.base..q.base + LANES;
    for run in runs {
        if run.end <= own.start || own.end <= run.start {
            // A run without the quartet's own fish (most of them).
            let candidates = pick(&run, run.start, run.end);
            scan::<V, WRAP, AVX2>(snapshot, (acc, close), candidates, run.end, |_| q.at[0], q);
            continue;
        }
        // The quartet's own fish apart: each must skip itself.
        let [before, mine, after] = around_own(&run, &own, pick);
        scan::<V, WRAP, AVX2>(snapshot, (acc, close), before, run.end, |_| q.at[0], q);
        let without_self = |j: usize| q.x_without[j - q.base];
        scan::<V, WRAP, AVX2>(snapshot, (acc, close), mine, run.end, without_self, q);
        scan::<V, WRAP, AVX2>(snapshot, (acc, close), after, run.end, |_| q.at[0], q);
    }
    if q.tie.get().cmpgt(Vec4::ZERO).any() {
        settle_ties::<V>(close, q);
    }
}

/// Adds the pushes of the candidates exactly on top of a fish (`q`'s
/// ties, which it takes) along the fish's own escape direction, on the
/// lanes that have any, to `sums`: what
/// [`crate::rules::Neighbourhood::settle_ties`] does for each.
#[cold]
#[inline(never)]
fn settle_ties<V: Vector>(sums: &mut QuartetSeparation, q: &QuartetReach) {
    let (key, ids) = (q.key, q.id);
    let tie = q.tie.replace(Vec4::ZERO);
    let tied = tie.cmpgt(Vec4::ZERO);
    let direction = if V::DIM == 2 {
        let [x, y] = key.tie_direction_lanes(ids);
        [x, y, Vec4::ZERO]
    } else {
        let each: [V; LANES] = ids.map(|id| key.tie_direction::<V>(id));
        core::array::from_fn(
            |i| if i < V::DIM { Vec4::from_array(each.map(|d| d.axis(i))) } else { Vec4::ZERO },
        )
    };
    for (push, direction) in sums.push.iter_mut().zip(direction).take(V::DIM) {
        *push = Vec4::select(tied, *push + direction * tie, *push);
    }
}

/// Adds the separation pushes of a candidate at offsets `d` (squared
/// lengths `d2`) on the `near` lanes, each exactly what
/// [`crate::rules::Neighbourhood::add_separation`] adds. Out of line, with
/// its sums in memory: inlined, it would keep the scan's values alive
/// across its branch, and the scan's loop would spill them.
#[inline(never)]
pub(crate) fn separate_quartet<V: Vector>(
    sums: &mut QuartetSeparation,
    near: BVec4A,
    (d, d2): ([Vec4; 3], Vec4),
    q: &QuartetReach,
) {
    let length = d2.sqrt();
    let strength = (q.separation / length.max(q.floor) - Vec4::ONE).max(Vec4::ZERO);
    let coincident = near & d2.cmpeq(Vec4::ZERO);
    let apart = near & !coincident;
    sums.count += Vec4::select(near, Vec4::ONE, Vec4::ZERO);
    for (push, d) in sums.push.iter_mut().zip(d).take(V::DIM) {
        *push += Vec4::select(apart, -d / length * strength, Vec4::ZERO);
    }
    if coincident.any() {
        q.tie.set(q.tie.get() + Vec4::select(coincident, strength, Vec4::ZERO));
    }
}
