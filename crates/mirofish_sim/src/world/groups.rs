//! Groups: parts of a school that share a goal of their own.
//!
//! A fish may belong to one group (a number below [`MAX_GROUPS`]); a group
//! with a goal in [`Scene::group_goals`](crate::Scene::group_goals) pulls
//! its fish towards (or away from) that goal on top of whatever their
//! school does. A decision maker splits a school into units and gives each
//! its own destination; a game gives one fish a group of its own to send it
//! somewhere.
//!
//! Membership is kept by fish id (see [`Swarm::ids`](crate::space::Swarm::ids)), so it stays with
//! each fish whatever the slots' order. [`Swarm::form_groups`](crate::space::Swarm::form_groups) splits fish
//! into spatially compact groups of nearly equal size by recursive
//! bisection: a pure function of the positions and ids, so a replay forms
//! the same groups.

use super::scene::MAX_GROUPS;
use crate::math::Vector;

/// The group number of a fish in no group.
pub const NO_GROUP: u16 = u16::MAX;

/// The group of fish `id` in `groups` (by id, [`NO_GROUP`] for none; empty
/// while nobody is in a group).
pub(crate) fn group_of(groups: &[u16], id: u32) -> Option<u16> {
    groups.get(id as usize).copied().filter(|&g| g != NO_GROUP)
}

/// Puts fish `id` (of `len` fish) into `group` in `groups`: see
/// [`Swarm::set_group`](crate::space::Swarm::set_group).
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
/// `school` into compact groups in `groups`: see
/// [`Swarm::form_groups`](crate::space::Swarm::form_groups).
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
}
