//! Four fish at once: the neighbourhood sums of a *quartet*, four fish in a
//! row of the cell-sorted order, one fish per vector lane.
//!
//! Fish sorted next to each other live in the same cell or the next few of
//! one row, so they share most of their candidates. The quartet walks the
//! cells around that stretch of row once
//! ([`CellGrid::runs_across`](crate::world::grid::CellGrid::runs_across))
//! and tests each candidate against its four fish with the same vector
//! operations, instead of each fish finding its cells and testing its
//! candidates apart.
//!
//! The bits are those of the one-fish scan ([`super::scan`]): a lane meets
//! its own candidates in the order the fish's own scan would (the runs
//! around one cell of the stretch are a subsequence of the stretch's), its
//! offsets and squared distances are computed with the same operations,
//! and a candidate out of a lane's reach adds exact zeros to its sums (a
//! sum that starts at `+0.0` never becomes `-0.0`, and `x + 0.0 == x` for
//! every other `x`). The rare neighbour inside a separation radius is added
//! lane by lane with the one-fish rule.

use core::ops::Range;

use glam::{BVec4A, Vec4};

use super::scan::{Axes, nearest_image};
use crate::math::Vector;
use crate::rules::{Neighbourhood, NeighbourhoodLanes, Reach};
use crate::world::grid::{CandidateRuns, MAX_RUNS};

/// Fish per quartet: one per lane of a `Vec4`.
pub(super) const LANES: usize = 4;

/// Every lane but one, to keep a fish out of its own sums.
const NOT_LANE: [BVec4A; LANES] = [
    BVec4A::new(false, true, true, true),
    BVec4A::new(true, false, true, true),
    BVec4A::new(true, true, false, true),
    BVec4A::new(true, true, true, false),
];

/// The four fish of a quartet, in lanes: where they are and how far each
/// looks.
#[derive(Clone, Copy, Debug)]
pub(super) struct QuartetReach {
    /// Slot of lane 0; the lanes hold `base..base + 4`.
    base: usize,
    at: [Vec4; 3],
    size: [Vec4; 3],
    half: [Vec4; 3],
    wrap: bool,
    /// Each lane's interaction radius, squared ([`Reach::max2`]).
    within2: Vec4,
    /// Each lane's perception radius, squared.
    perception2: Vec4,
    /// Each lane's separation radius, squared.
    separation2: Vec4,
    /// Each lane's radii, for the separation rule.
    reach: [Reach; LANES],
}

impl QuartetReach {
    /// The quartet of the fish at `positions`, in slots `base..base + 4`,
    /// with each fish's `reach`, on a torus of `size` when `wrap`.
    pub fn new<V: Vector>(
        base: usize,
        positions: [V; LANES],
        reach: [Reach; LANES],
        size: V,
        wrap: bool,
    ) -> Self {
        let (mut at, mut sizes, mut half) = ([Vec4::ZERO; 3], [Vec4::ZERO; 3], [Vec4::ZERO; 3]);
        let half_size = size * 0.5;
        for i in 0..V::DIM {
            at[i] = Vec4::from_array(positions.map(|p| p.axis(i)));
            sizes[i] = Vec4::splat(size.axis(i));
            half[i] = Vec4::splat(half_size.axis(i));
        }
        Self {
            base,
            at,
            size: sizes,
            half,
            wrap,
            within2: Vec4::from_array(reach.map(|r| r.max2())),
            perception2: Vec4::from_array(reach.map(|r| r.perception2)),
            separation2: Vec4::from_array(reach.map(|r| r.separation2)),
            reach,
        }
    }
}

impl QuartetReach {
    /// The same quartet with only the lanes `lanes` looking: every
    /// candidate is out of the others' reach, so they sum nothing.
    pub fn only(&self, lanes: Range<usize>) -> Self {
        let keep = BVec4A::from_array(core::array::from_fn(|l| lanes.contains(&l)));
        // No squared distance is below -1 (a NaN is below nothing).
        Self { within2: Vec4::select(keep, self.within2, Vec4::NEG_ONE), ..*self }
    }

    /// Slot of lane 0.
    pub fn base(&self) -> usize {
        self.base
    }

    /// The offsets of a candidate at `at` from the four fish, axis by
    /// axis, and their squared lengths (the nearest image on a torus).
    #[inline(always)]
    fn offsets<V: Vector>(&self, at: [f32; 3]) -> ([Vec4; 3], Vec4) {
        let mut d = [Vec4::ZERO; 3];
        let mut d2 = Vec4::ZERO;
        for (i, di) in d.iter_mut().enumerate().take(V::DIM) {
            let mut x = Vec4::splat(at[i]) - self.at[i];
            if self.wrap {
                x = nearest_image(x, self.half[i], self.size[i]);
            }
            d2 = if i == 0 { x * x } else { d2 + x * x };
            *di = x;
        }
        (d, d2)
    }
}

/// A quartet's sums, one fish per lane.
#[derive(Clone, Copy, Debug)]
pub(super) struct QuartetSums<V: Vector> {
    /// Neighbours within the perception radius (whole numbers, exact in
    /// `f32` up to 2²⁴).
    count: Vec4,
    velocity: [Vec4; 3],
    offset: [Vec4; 3],
    /// Squared distance to the nearest other fish within reach.
    nearest2: Vec4,
    /// The separation sums, added lane by lane.
    separation: [Neighbourhood<V>; LANES],
}

impl<V: Vector> QuartetSums<V> {
    /// Lane `l`'s neighbourhood and the squared distance to its nearest
    /// neighbour, as the one-fish scan would have summed them.
    pub fn lane(&self, l: usize) -> (Neighbourhood<V>, f32) {
        let mut hood = self.separation[l];
        hood.count = self.count[l] as u32;
        hood.velocity_sum = V::from_fn(|i| self.velocity[i][l]);
        hood.offset_sum = V::from_fn(|i| self.offset[i][l]);
        (hood, self.nearest2[l])
    }

    /// Lane `l`'s separation sums, to settle its ties before the rules.
    pub fn separation_mut(&mut self, l: usize) -> &mut Neighbourhood<V> {
        &mut self.separation[l]
    }

    /// The four neighbourhoods in lanes, axis by axis (the axes past
    /// `V::DIM` zero), for the rules in lanes.
    pub fn in_lanes(&self) -> NeighbourhoodLanes<Vec4, 3> {
        let separation = |i: usize| Vec4::from_array(self.separation.map(|n| n.separation_sum.axis(i)));
        let mut hoods = NeighbourhoodLanes {
            count: self.count,
            velocity: self.velocity,
            offset: self.offset,
            separation_count: Vec4::from_array(self.separation.map(|n| n.separation_count as f32)),
            separation: [Vec4::ZERO; 3],
        };
        for (i, axis) in hoods.separation.iter_mut().enumerate().take(V::DIM) {
            *axis = separation(i);
        }
        hoods
    }

    /// The count of neighbours of each lane.
    pub fn counts(&self) -> Vec4 {
        self.count
    }

    /// Each lane's squared distance to its nearest neighbour.
    pub fn nearest2(&self) -> Vec4 {
        self.nearest2
    }
}

impl<V: Vector> QuartetSums<V> {
    /// Nothing summed yet.
    pub fn new() -> Self {
        Self {
            count: Vec4::ZERO,
            velocity: [Vec4::ZERO; 3],
            offset: [Vec4::ZERO; 3],
            nearest2: Vec4::INFINITY,
            separation: [Neighbourhood::default(); LANES],
        }
    }

    /// The candidate in slot `s`, at `at` with velocity `v`, added to the
    /// lanes it is within reach of (but its own lane's), in each lane after
    /// the candidates added before.
    #[inline(always)]
    fn add(&mut self, s: usize, at: [f32; 3], v: V, quartet: &QuartetReach) {
        let (d, d2) = quartet.offsets::<V>(at);
        let mut within = d2.cmplt(quartet.within2);
        let own = s.wrapping_sub(quartet.base);
        if own < LANES {
            within &= NOT_LANE[own];
        }
        if !within.any() {
            // Out of every lane's reach (most candidates): it would add
            // exact zeros.
            return;
        }
        let seen = within & d2.cmplt(quartet.perception2);
        self.count += Vec4::select(seen, Vec4::ONE, Vec4::ZERO);
        let axes = self.velocity.iter_mut().zip(&mut self.offset).zip(d);
        for (i, ((velocity, offset), d)) in axes.enumerate().take(V::DIM) {
            *velocity += Vec4::select(seen, Vec4::splat(v.axis(i)), Vec4::ZERO);
            *offset += Vec4::select(seen, d, Vec4::ZERO);
        }
        self.nearest2 = Vec4::select(within, self.nearest2.min(d2), self.nearest2);
        let mut close = (within & d2.cmplt(quartet.separation2)).bitmask();
        while close != 0 {
            let l = close.trailing_zeros() as usize;
            close &= close - 1;
            self.separation[l].add_separation(V::from_fn(|i| d[i][l]), d2[l], &quartet.reach[l]);
        }
    }

    /// Lanes `lanes` of `other` in place of this one's.
    pub fn take_lanes(&mut self, other: &Self, lanes: Range<usize>) {
        let take = BVec4A::from_array(core::array::from_fn(|l| lanes.contains(&l)));
        self.count = Vec4::select(take, other.count, self.count);
        for i in 0..3 {
            self.velocity[i] = Vec4::select(take, other.velocity[i], self.velocity[i]);
            self.offset[i] = Vec4::select(take, other.offset[i], self.offset[i]);
        }
        self.nearest2 = Vec4::select(take, other.nearest2, self.nearest2);
        self.separation[lanes.clone()].copy_from_slice(&other.separation[lanes]);
    }

    /// The sums of four lanes, each a neighbourhood and the squared
    /// distance to its nearest neighbour ([`QuartetSums::lane`]'s parts).
    pub fn from_lanes(lanes: [(Neighbourhood<V>, f32); LANES]) -> Self {
        let mut sums = Self::new();
        for (l, (hood, nearest2)) in lanes.into_iter().enumerate() {
            sums.count[l] = hood.count as f32;
            for i in 0..V::DIM {
                sums.velocity[i][l] = hood.velocity_sum.axis(i);
                sums.offset[i][l] = hood.offset_sum.axis(i);
            }
            sums.nearest2[l] = nearest2;
            sums.separation[l] = hood;
        }
        sums
    }
}

/// The sums of the quartet over the candidates of `runs`, in ascending
/// order within each run, the runs in the order given: every candidate
/// within a lane's reach but the lane's own fish, of any school.
#[inline(always)]
pub(super) fn scan_quartet<V: Vector>(
    axes: &Axes,
    velocities: &[V],
    runs: &CandidateRuns<MAX_RUNS>,
    quartet: &QuartetReach,
) -> QuartetSums<V> {
    let mut sums = QuartetSums::new();
    for run in runs.iter() {
        let (start, end) = (run.start, run.end);
        let [xs, ys, zs] = axes.run::<V>(start..end);
        let candidates = velocities[start..end].iter().zip(xs).zip(ys).zip(zs);
        for (k, (((&v, &x), &y), &z)) in candidates.enumerate() {
            sums.add(start + k, [x, y, z], v, quartet);
        }
    }
    sums
}

/// [`scan_quartet`] over the candidates in the slots of `sample`
/// (ascending): a thinned scan's stratum.
#[inline(always)]
pub(super) fn scan_sample<V: Vector>(
    axes: &Axes,
    velocities: &[V],
    sample: &[u32],
    quartet: &QuartetReach,
) -> QuartetSums<V> {
    let mut sums = QuartetSums::new();
    for &s in sample {
        let s = s as usize;
        sums.add(s, axes.at::<V>(s), velocities[s], quartet);
    }
    sums
}
