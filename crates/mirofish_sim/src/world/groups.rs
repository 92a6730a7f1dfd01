//! Groups: parts of a school that share a goal of their own.
//!
//! A fish may belong to one group (a number below [`MAX_GROUPS`]); a group
//! with a goal in [`Scene::group_goals`](crate::Scene::group_goals) pulls
//! its fish towards (or away from) that goal on top of whatever their
//! school does. A decision maker splits a school into units and gives each
//! its own destination; a game gives one fish a group of its own to send it
//! somewhere.
//!
//! Membership is kept by fish id (see [`Flock::ids`]), so it stays with
//! each fish whatever the slots' order. [`Flock::form_groups`] splits fish
//! into spatially compact groups of nearly equal size by recursive
//! bisection: a pure function of the positions and ids, so a replay forms
//! the same groups.

use super::flock::Flock;
use super::scene::MAX_GROUPS;
use crate::space::Vector;

/// The group number of a fish in no group.
pub const NO_GROUP: u16 = u16::MAX;

impl Flock {
    /// Each fish's group by id ([`NO_GROUP`]: none). Empty while no fish
    /// has ever been put in a group.
    pub fn groups(&self) -> &[u16] {
        &self.group
    }

    /// The group of the fish with id `id`, if it is in one.
    pub fn group_of(&self, id: u32) -> Option<u16> {
        group_of(&self.group, id)
    }

    /// Puts the fish with id `id` into group `group` (`None`: into none).
    /// `false`, and nothing changes, if there is no such fish or the group
    /// is not below [`MAX_GROUPS`].
    pub fn set_group(&mut self, id: u32, group: Option<u16>) -> bool {
        let len = self.len();
        set_group(&mut self.group, len, id, group)
    }

    /// Takes every fish out of its group.
    pub fn clear_groups(&mut self) {
        self.group.clear();
    }

    /// Splits the fish of `school` (every fish if `None`) into `count`
    /// spatially compact groups of nearly equal size, numbered `first`,
    /// `first + 1`, …; numbers that would reach [`MAX_GROUPS`] are not
    /// used (fewer, larger groups). Fish of other schools keep their
    /// groups. With fewer fish than groups, each fish gets a group of its
    /// own and the last groups stay empty. Returns how many groups were
    /// formed.
    pub fn form_groups(&mut self, school: Option<u16>, first: u16, count: u16) -> usize {
        let len = self.len();
        let members = (&self.id[..], &self.position[..], &self.school[..]);
        form_groups(&mut self.group, len, members, school, first, count)
    }
}

/// The group of fish `id` in `groups` (by id, [`NO_GROUP`] for none; empty
/// while nobody is in a group).
pub(crate) fn group_of(groups: &[u16], id: u32) -> Option<u16> {
    groups.get(id as usize).copied().filter(|&g| g != NO_GROUP)
}

/// Puts fish `id` (of `len` fish) into `group` in `groups`: see
/// [`Flock::set_group`].
pub(crate) fn set_group(groups: &mut Vec<u16>, len: usize, id: u32, group: Option<u16>) -> bool {
    let id = id as usize;
    if id >= len || group.is_some_and(|g| usize::from(g) >= MAX_GROUPS) {
        return false;
    }
    if groups.is_empty() {
        if group.is_none() {
            return true;
        }
        groups.resize(len, NO_GROUP);
    }
    groups[id] = group.unwrap_or(NO_GROUP);
    true
}

/// Splits the fish (`len` of them; ids, positions and schools by slot) of
/// `school` into compact groups in `groups`: see [`Flock::form_groups`].
pub(crate) fn form_groups<V: Vector>(
    groups: &mut Vec<u16>,
    len: usize,
    (ids, positions, schools): (&[u32], &[V], &[u16]),
    school: Option<u16>,
    first: u16,
    count: u16,
) -> usize {
    let count = usize::from(count).min(MAX_GROUPS.saturating_sub(usize::from(first)));
    let mut members: Vec<(u32, V)> = ids
        .iter()
        .zip(positions)
        .zip(schools)
        .filter(|(_, s)| school.is_none_or(|k| **s == k))
        .map(|((&id, &p), _)| (id, p))
        .collect();
    if count == 0 || members.is_empty() {
        return 0;
    }
    if groups.is_empty() {
        groups.resize(len, NO_GROUP);
    }
    bisect(&mut members, count, &mut |id, k| groups[id as usize] = first + k as u16);
    count
}

/// Splits `members` into `count` groups by recursive bisection — the
/// longest side of their bounding box halved at the point that leaves each
/// side its share of groups — and calls `assign(id, group)` for each
/// member. Ties along an axis follow the ids, so the result depends only
/// on the members, never on their order in the slice. In any dimension.
pub fn bisect<V: Vector>(members: &mut [(u32, V)], count: usize, assign: &mut impl FnMut(u32, usize)) {
    bisect_from(members, count, 0, assign);
}

fn bisect_from<V: Vector>(
    members: &mut [(u32, V)],
    count: usize,
    first: usize,
    assign: &mut impl FnMut(u32, usize),
) {
    if count <= 1 || members.len() <= 1 {
        for &(id, _) in members.iter() {
            assign(id, first);
        }
        return;
    }
    let start = (V::splat(f32::MAX), V::splat(f32::MIN));
    let (lo, hi) = members.iter().fold(start, |(lo, hi), &(_, p)| (lo.min(p), hi.max(p)));
    let extent = hi - lo;
    // The first of the longest axes.
    let axis = (1..V::DIM).fold(0, |axis, i| if extent.axis(i) > extent.axis(axis) { i } else { axis });
    members.sort_unstable_by(|a, b| a.1.axis(axis).total_cmp(&b.1.axis(axis)).then(a.0.cmp(&b.0)));
    let left_groups = count / 2;
    // Each side gets members in proportion to its groups (at least one
    // member each, while there are members to give).
    let split = (members.len() * left_groups / count).clamp(1, members.len() - 1);
    let (left, right) = members.split_at_mut(split);
    bisect_from(left, left_groups, first, assign);
    bisect_from(right, count - left_groups, first + left_groups, assign);
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3};

    use super::*;

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
    fn the_split_ignores_the_members_order() {
        let pts: Vec<(u32, Vec2)> =
            (0..97).map(|k| (k, Vec2::new((k * 37 % 11) as f32, (k * 13 % 7) as f32))).collect();
        let run = |mut v: Vec<(u32, Vec2)>| {
            let mut out = vec![0usize; 97];
            bisect(&mut v, 6, &mut |id, g| out[id as usize] = g);
            out
        };
        let mut reversed = pts.clone();
        reversed.reverse();
        assert_eq!(run(pts), run(reversed));
    }

    /// In a volume the bisection halves the longest side too: a slab of
    /// fish deepest along z is cut along z first.
    #[test]
    fn a_volume_is_cut_along_its_longest_side() {
        let mut members: Vec<(u32, Vec3)> = (0..200u32)
            .map(|k| (k, Vec3::new((k % 5) as f32, (k / 5 % 4) as f32, (k / 20) as f32 * 10.0)))
            .collect();
        let mut group = vec![0usize; 200];
        bisect(&mut members, 2, &mut |id, g| group[id as usize] = g);
        for (k, &g) in group.iter().enumerate() {
            assert_eq!(g, usize::from(k >= 100), "fish {k}");
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
