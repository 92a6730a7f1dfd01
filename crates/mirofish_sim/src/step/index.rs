//! Pass 1 of the tick: the fish sorted into the neighbour grid, and the
//! sorted copies of what the force pass reads.

use rayon::prelude::*;

use super::{CHUNK, all_zero_u16, any_set, run};
use crate::step::flock::{Flock, SlotOrder};
use crate::world::grid::Extras;
use crate::world::params::FlockParams;
use crate::world::school::SchoolTable;
use crate::world::tank::{BoundaryMode, Tank};

/// Which columns besides the snapshot and the wander phases the index
/// sorted ([`Flock::rebuild_index`]): the integrator moves those with the
/// fish when it renumbers them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortedColumns {
    /// The leader flags.
    pub(crate) leaders: bool,
    /// The schools.
    pub(crate) schools: bool,
}

impl Flock {
    /// Pass 1: sorts the fish into the grid (cells at least the interaction
    /// radius wide) and snapshots position and velocity. The passes of one
    /// tick must be given the same school table.
    pub fn rebuild_index<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank) {
        let wrap = tank.boundary == BoundaryMode::Wrap;
        let radius = schools.table().iter().map(FlockParams::interaction_radius).fold(0.0f32, f32::max);
        // The per-fish inputs the force pass reads, in sorted order too: read
        // by slot they would be a cache miss per fish (the wander phase
        // alone cost a sixth of the pass). The wander phases are gathered
        // with the snapshot, in the same pass.
        let spatial = self.slot_order == SlotOrder::Spatial;
        if !spatial {
            self.sorted_id.clear();
        }
        let (grid, position, velocity) = (&mut self.grid, &self.position, &self.velocity);
        let extras = Extras {
            gather: Some((&self.wander_phase[..], &mut self.sorted_phase)),
            // Renumbered slots are not the fish's identity: ties follow the
            // ids (gathered for the force pass's noise on the way).
            ties: spatial.then_some((&self.id[..], &mut self.sorted_id)),
        };
        run(self.pool.as_deref(), || grid.rebuild_gathering(position, velocity, tank, radius, wrap, extras));
        let (order, leader, school) = (self.grid.order(), &self.leader, &self.school);
        let n = order.len();
        self.sorted_leader.resize(n, false);
        self.sorted_school.resize(n, 0);
        // Leader flags and schools only where they can differ (see
        // `columns_to_sort`).
        let (leaders, several) = self.columns_to_sort(schools.table().len());
        if !leaders {
            self.sorted_leader.fill(false);
        }
        if leaders || several {
            let chunks = (
                order.par_chunks(CHUNK),
                self.sorted_leader.par_chunks_mut(CHUNK),
                self.sorted_school.par_chunks_mut(CHUNK),
            );
            run(self.pool.as_deref(), || {
                chunks.into_par_iter().for_each(|(order, sorted_leader, sorted_school)| {
                    if leaders {
                        for (&i, to) in order.iter().zip(sorted_leader.iter_mut()) {
                            *to = leader[i as usize];
                        }
                    }
                    if several {
                        for (&i, to) in order.iter().zip(sorted_school.iter_mut()) {
                            *to = school[i as usize];
                        }
                    }
                });
            });
        }
        self.indexed = Some(SortedColumns { leaders, schools: several });
    }

    /// Whether the index sorts the leader flags and the schools (for a
    /// table of `schools`): where they can differ for the force pass — with
    /// no leader every flag is false, with one school every index is 0 once
    /// clamped to the table — and, where the slots follow space, wherever
    /// they are not all the same (they then move with their fish).
    fn columns_to_sort(&self, schools: usize) -> (bool, bool) {
        let spatial = self.slot_order == SlotOrder::Spatial;
        (any_set(&self.leader), schools > 1 || (spatial && !all_zero_u16(&self.school)))
    }
}
