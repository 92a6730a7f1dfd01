//! The nearest neighbours of one fish, for a topological neighbourhood
//! ([`FlockParams::topological_neighbours`](crate::FlockParams::topological_neighbours)).
//!
//! A fish with more neighbours in range than it counts aligns with and
//! coheres to its `k` nearest only (ties to the fish sorted first). Which
//! `k` is fixed by the pairs `(squared distance, sorted index)`; the order
//! they are summed in is the order they were offered, which every scan
//! makes ascending in sorted index, so that the sums have the same bits
//! whichever scan (four fish at a time, one at a time, brute force) found
//! them.
//!
//! Candidates are kept unsorted and the `k` nearest found by selection
//! when they are asked for (and whenever the room fills): a crowd's
//! candidate costs an append, where keeping a sorted list cost a shift of
//! half the list (in a pile most candidates are nearer than the farthest
//! kept, and that was most of the tick).

use crate::world::params::MAX_TOPOLOGICAL_NEIGHBOURS;

/// Candidates a [`Nearest`] holds before it drops all but the `k` nearest.
const ROOM: usize = 128;
const _: () = assert!(ROOM > 2 * MAX_TOPOLOGICAL_NEIGHBOURS as usize, "a full room keeps less than half");

/// The candidates offered to one fish, of which the `k` nearest count.
pub(crate) struct Nearest {
    k: usize,
    len: usize,
    /// `(squared distance bits << 32) | sorted index`, in the order offered.
    /// Squared distances are never negative, so their bits order as their
    /// values, and the keys as the pairs `(distance, index)`.
    keys: [u64; ROOM],
}

impl Nearest {
    /// Room for the `k` nearest (at least one, at most
    /// [`MAX_TOPOLOGICAL_NEIGHBOURS`]).
    pub(crate) fn new(k: u32) -> Self {
        let k = (k as usize).clamp(1, MAX_TOPOLOGICAL_NEIGHBOURS as usize);
        Self { k, len: 0, keys: [0; ROOM] }
    }

    /// Offers the neighbour at squared distance `d2` (finite, not
    /// negative), sorted index `j`. Each candidate is offered once.
    #[inline]
    pub(crate) fn offer(&mut self, d2: f32, j: usize) {
        debug_assert!(d2 >= 0.0, "a squared distance: {d2}");
        if self.len == ROOM {
            self.keep_nearest();
        }
        self.keys[self.len] = (u64::from(d2.to_bits()) << 32) | j as u64;
        self.len += 1;
    }

    /// The key of the `k`-th nearest held, where more than `k` are held.
    fn threshold(&self) -> Option<u64> {
        if self.len <= self.k {
            return None;
        }
        let mut scratch = [0u64; ROOM];
        let scratch = &mut scratch[..self.len];
        scratch.copy_from_slice(&self.keys[..self.len]);
        Some(*scratch.select_nth_unstable(self.k - 1).1)
    }

    /// Drops all but the `k` nearest, keeping their order.
    fn keep_nearest(&mut self) {
        let Some(t) = self.threshold() else { return };
        let mut kept = 0;
        for i in 0..self.len {
            if self.keys[i] <= t {
                self.keys[kept] = self.keys[i];
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// Calls `f(squared distance, sorted index)` for each of the `k` nearest
    /// (all, where `k` or fewer were offered), in the order offered.
    #[inline]
    pub(crate) fn for_each_kept(&self, mut f: impl FnMut(f32, usize)) {
        let t = self.threshold().unwrap_or(u64::MAX);
        for &key in &self.keys[..self.len] {
            if key <= t {
                f(f32::from_bits((key >> 32) as u32), (key & u64::from(u32::MAX)) as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(n: &Nearest) -> Vec<(f32, usize)> {
        let mut out = Vec::new();
        n.for_each_kept(|d2, j| out.push((d2, j)));
        out
    }

    #[test]
    fn keeps_the_k_nearest_in_the_order_offered_ties_to_the_lower_index() {
        let mut n = Nearest::new(3);
        for (j, d2) in [9.0, 1.0, 4.0, 1.0, 16.0, 0.0].into_iter().enumerate() {
            n.offer(d2, j);
        }
        // 0.0 (5), 1.0 (1) and 1.0 (3): the tie at 1.0 is kept whole; 4.0
        // is the fourth nearest.
        assert_eq!(kept(&n), [(1.0, 1), (1.0, 3), (0.0, 5)]);
        let mut tie = Nearest::new(2);
        for j in [4, 7, 9] {
            tie.offer(2.0, j);
        }
        assert_eq!(kept(&tie), [(2.0, 4), (2.0, 7)]);
    }

    #[test]
    fn a_full_room_keeps_the_same_nearest_as_a_sort() {
        // More candidates than the room, in a scrambled order of distances.
        let d2 = |j: usize| ((j * 7919) % 1000) as f32 * 0.25;
        let mut n = Nearest::new(32);
        for j in 0..1000 {
            n.offer(d2(j), j);
        }
        let mut want: Vec<(f32, usize)> = (0..1000).map(|j| (d2(j), j)).collect();
        want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        want.truncate(32);
        want.sort_by_key(|&(_, j)| j);
        assert_eq!(kept(&n), want);
        // Fewer than k: every one, in order.
        let mut few = Nearest::new(32);
        few.offer(3.0, 8);
        few.offer(1.0, 9);
        assert_eq!(kept(&few), [(3.0, 8), (1.0, 9)]);
    }
}
