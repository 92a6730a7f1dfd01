//! Four fish at once in any dimension: the neighbourhood sums of a
//! *quartet*, four fish in a row of the cell-sorted order, one fish per
//! vector lane, as the force pass of the generic engine hands them to the
//! rules.
//!
//! The quartet walks the cells around its stretch of row once
//! ([`CellGrid::runs_across`](crate::world::grid::CellGrid::runs_across))
//! with the candidate loop of both spaces (`step::kernel::scan`, with its
//! AVX2 form), which tests each candidate against its four fish with the
//! same vector operations. The bits are those of the one-fish scan: a lane
//! meets its own candidates in the order the fish's own scan would (the
//! runs around one cell of the stretch are a subsequence of the
//! stretch's), its offsets and squared distances are computed with the
//! same operations, a candidate out of a lane's reach adds exact zeros to
//! its sums (a sum that starts at `+0.0` never becomes `-0.0`, and `x +
//! 0.0 == x` for every other `x`), and a separation push is the one-fish
//! rule's to the bit. Here the scan's sums become the four fish's
//! [`Neighbourhood`]s.

use core::ops::Range;

use glam::{BVec4A, Vec4};

use crate::math::Vector;
use crate::rules::{Neighbourhood, NeighbourhoodLanes};
use crate::step::kernel::scan::{self, QuartetSeparation};

pub(super) use crate::step::kernel::scan::LANES;

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
    /// Each lane's separation sums.
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

    /// The four neighbourhoods in lanes, axis by axis (the axes past
    /// `V::DIM` zero), for the rules in lanes.
    #[inline(always)]
    pub fn in_lanes(&self) -> NeighbourhoodLanes<Vec4, 3> {
        // No closures: this inlines into the AVX2 build of the force pass.
        let [a, b, c, d] = &self.separation;
        let mut hoods = NeighbourhoodLanes {
            count: self.count,
            velocity: self.velocity,
            offset: self.offset,
            separation_count: Vec4::new(
                a.separation_count as f32,
                b.separation_count as f32,
                c.separation_count as f32,
                d.separation_count as f32,
            ),
            separation: [Vec4::ZERO; 3],
        };
        for (i, axis) in hoods.separation.iter_mut().enumerate().take(V::DIM) {
            let push = |n: &Neighbourhood<V>| n.separation_sum.axis(i);
            *axis = Vec4::new(push(a), push(b), push(c), push(d));
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
    /// The four fish's sums as a scan left them (`sums` and `separation`,
    /// its ties settled).
    pub fn from_scan(sums: &scan::QuartetSums, separation: &QuartetSeparation) -> Self {
        Self {
            count: sums.count,
            velocity: sums.velocity,
            offset: sums.offset,
            nearest2: sums.nearest2,
            separation: core::array::from_fn(|l| Neighbourhood {
                separation_count: separation.count[l] as u32,
                separation_sum: V::from_fn(|i| separation.push[i][l]),
                ..Neighbourhood::default()
            }),
        }
    }

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
