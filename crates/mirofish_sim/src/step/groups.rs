//! A flock's groups: which fish belong to which group, kept by fish id,
//! and the split of a school into compact groups (the bisection itself is
//! [`crate::world::groups::bisect`], written once for any dimension).

use super::flock::Flock;
use crate::world::groups;

impl Flock {
    /// Each fish's group by id ([`NO_GROUP`](crate::NO_GROUP): none). Empty while no fish
    /// has ever been put in a group.
    pub fn groups(&self) -> &[u16] {
        &self.group
    }

    /// The group of the fish with id `id`, if it is in one.
    pub fn group_of(&self, id: u32) -> Option<u16> {
        groups::group_of(&self.group, id)
    }

    /// Puts the fish with id `id` into group `group` (`None`: into none).
    /// `false`, and nothing changes, if there is no such fish or the group
    /// is not below [`MAX_GROUPS`](crate::MAX_GROUPS).
    pub fn set_group(&mut self, id: u32, group: Option<u16>) -> bool {
        let len = self.len();
        groups::set_group(&mut self.group, len, id, group)
    }

    /// Takes every fish out of its group.
    pub fn clear_groups(&mut self) {
        self.group.clear();
    }

    /// Splits the fish of `school` (every fish if `None`) into `count`
    /// spatially compact groups of nearly equal size, numbered `first`,
    /// `first + 1`, …; numbers that would reach [`MAX_GROUPS`](crate::MAX_GROUPS) are not
    /// used (fewer, larger groups). Fish of other schools keep their
    /// groups. With fewer fish than groups, each fish gets a group of its
    /// own and the last groups stay empty. Returns how many groups were
    /// formed.
    pub fn form_groups(&mut self, school: Option<u16>, first: u16, count: u16) -> usize {
        let len = self.len();
        let members = (&self.id[..], &self.position[..], &self.school[..]);
        groups::form_groups(&mut self.group, len, members, school, first, count)
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::world::scene::MAX_GROUPS;

    fn grid_of_fish(n: u32) -> Flock {
        let mut flock = Flock::new(1);
        for k in 0..n {
            flock.push(Vec2::new((k % 20) as f32 * 10.0, (k / 20) as f32 * 10.0), Vec2::X, 0.0);
        }
        flock
    }

    #[test]
    fn groups_are_compact_and_nearly_equal() {
        let mut flock = grid_of_fish(400);
        assert_eq!(flock.form_groups(None, 0, 8), 8);
        let mut sizes = [0usize; 8];
        let mut boxes = [(Vec2::MAX, Vec2::MIN); 8];
        for (id, &p) in flock.positions().iter().enumerate() {
            let g = usize::from(flock.group_of(id as u32).unwrap());
            sizes[g] += 1;
            boxes[g] = (boxes[g].0.min(p), boxes[g].1.max(p));
        }
        assert_eq!(sizes, [50; 8]);
        for (lo, hi) in boxes {
            // 400 fish on a 20 x 20 lattice: an eighth is about 5 x 10.
            assert!((hi - lo).x * (hi - lo).y <= 10.0 * 10.0 * 5.0 * 10.0, "{lo} {hi}");
        }
    }

    #[test]
    fn membership_follows_fish_through_removals() {
        let mut flock = grid_of_fish(10);
        assert!(flock.set_group(9, Some(4)));
        assert!(!flock.set_group(10, Some(1)), "no such fish");
        assert!(!flock.set_group(1, Some(MAX_GROUPS as u16)), "no such group");
        flock.swap_remove(3);
        // The fish with the highest id took id 3, and its group with it.
        assert_eq!(flock.group_of(3), Some(4));
        flock.push(Vec2::ZERO, Vec2::X, 0.0);
        assert_eq!(flock.group_of(9), None);
        flock.truncate(4);
        assert_eq!(flock.groups().len(), 4);
        flock.clear_groups();
        assert_eq!(flock.group_of(3), None);
    }

    #[test]
    fn fewer_fish_than_groups_and_one_school_only() {
        let mut flock = grid_of_fish(3);
        flock.set_school(2, 1);
        assert_eq!(flock.form_groups(Some(0), 10, 5), 5);
        assert_eq!((flock.group_of(0), flock.group_of(1), flock.group_of(2)), (Some(10), Some(12), None));
        assert_eq!(flock.form_groups(None, MAX_GROUPS as u16 - 2, 5), 2, "numbers stop below the limit");
    }
}
