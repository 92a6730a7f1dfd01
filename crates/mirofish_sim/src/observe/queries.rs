//! Questions about single fish: their neighbours (through the grid or by
//! brute force), the nearest fish to a point, and what the last force pass
//! saw of each.

use glam::Vec2;

use crate::step::ForceSample;
use crate::step::flock::Flock;
use crate::world::grid::offset;
use crate::world::tank::{BoundaryMode, Tank};

impl Flock {
    /// Neighbours within the perception radius of every fish in the last
    /// tick, in grid order (always kept, unlike the samples).
    pub fn neighbour_counts(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.sorted_kick.iter().map(|k| k.neighbours())
    }

    /// The force-pass observation of the fish in `slot`, from the last tick;
    /// `None` unless [`Flock::set_record_rules`] is on.
    pub fn sample(&self, slot: usize) -> Option<ForceSample> {
        let s = *self.grid.rank().get(slot)? as usize;
        self.sorted_samples.get(s).copied()
    }

    /// Force-pass observations of every fish, in grid order (for statistics
    /// that do not care which fish is which); empty unless
    /// [`Flock::set_record_rules`] is on.
    pub fn samples(&self) -> &[ForceSample] {
        &self.sorted_samples
    }

    /// The slot of the fish nearest to `p` (wrap-aware), if any; of fish
    /// as near, the one with the lowest id.
    pub fn nearest_fish(&self, p: Vec2, size: Vec2, wrap: bool) -> Option<usize> {
        crate::step::predators::nearest(&self.position, &self.id, p, size, wrap)
    }

    /// Slots of the neighbours of `slot` within `radius`, found through the
    /// grid built by the last [`Flock::rebuild_index`], sorted ascending.
    pub fn grid_neighbours(&self, slot: usize, radius: f32) -> Vec<u32> {
        let g = &self.grid;
        let me = g.rank()[slot] as usize;
        let p = g.sorted_position(me);
        let size = g.tank_size();
        let mut out = Vec::new();
        for run in g.candidate_runs(p).iter() {
            for j in run {
                let d = offset(p, g.sorted_position(j), size, g.wraps());
                if j != me && d.length_squared() < radius * radius {
                    out.push(g.order()[j]);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Slots of the neighbours of `slot` within `radius` by brute force over
    /// every fish, sorted ascending: the grid's reference.
    pub fn brute_force_neighbours(&self, slot: usize, radius: f32, tank: &Tank) -> Vec<u32> {
        let wrap = tank.boundary == BoundaryMode::Wrap;
        let p = self.position[slot];
        (0..self.len())
            .filter(|&j| {
                j != slot && offset(p, self.position[j], tank.size(), wrap).length_squared() < radius * radius
            })
            .map(|j| j as u32)
            .collect()
    }
}
