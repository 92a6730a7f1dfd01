//! After the fish, in both spaces: the leaders' route moves on, and the
//! predators hunt and move.
//!
//! The engine ends its tick with one pass (`move_on`), so a predator reads
//! the same on a plane and in a volume: one that chases steers at
//! the fish nearest to it (across a torus's seam, ties to the lowest id),
//! one that does not keeps its course; the route moves on once the
//! leaders' centre, summed in the order of their ids, reaches its
//! waypoint.

use crate::math::Vector;
use crate::rules::scene as scene_rules;
use crate::world::grid::offset;
use crate::world::scene::Scene;
use crate::world::tank::{BoundaryMode, TankOf};

/// The fish as the end of a tick reads them, by slot.
pub(crate) struct Prey<'a, V: Vector> {
    /// Positions.
    pub position: &'a [V],
    /// Ids.
    pub id: &'a [u32],
    /// Whether each fish leads.
    pub leader: &'a [bool],
    /// Whether every fish's slot is its id (no sort needed to go by id).
    pub slots_are_ids: bool,
}

/// After the fish: the leaders' route moves on if their centre reached its
/// current waypoint ([`leaders_centre`]); each chasing predator steers at
/// the fish nearest to it ([`nearest`]), then every predator moves.
/// `by_id` is a buffer for the leaders' sort, kept so that a tick does not
/// allocate.
pub(crate) fn move_on<V: Vector>(
    scene: &mut Scene<V>,
    fish: &Prey<'_, V>,
    by_id: &mut Vec<(u32, V)>,
    tank: &TankOf<V>,
    dt: f32,
) {
    if let Some(route) = &mut scene.route
        && let Some(centre) = leaders_centre(fish, by_id)
    {
        route.advance(centre);
    }
    let (size, wrap) = (tank.size(), tank.boundary == BoundaryMode::Wrap);
    for predator in &mut scene.predators {
        let prey = predator.chase.then(|| nearest(fish.position, fish.id, predator.position, size, wrap));
        // The prey's image nearest the predator, across a torus's seam.
        let target = prey
            .flatten()
            .map(|slot| predator.position + offset(predator.position, fish.position[slot], size, wrap));
        scene_rules::move_predator(predator, target, tank, dt);
    }
}

/// The mean position of the leaders, if there are any: summed in the order
/// of their ids, so that the bits do not depend on where each fish is
/// stored; `by_id` is the buffer the leaders are sorted in, where slots are
/// not ids.
pub(crate) fn leaders_centre<V: Vector>(fish: &Prey<'_, V>, by_id: &mut Vec<(u32, V)>) -> Option<V> {
    let leaders = fish.position.iter().zip(fish.leader).zip(fish.id).filter(|((_, l), _)| **l);
    let mean = |positions: &mut dyn Iterator<Item = V>| {
        let (sum, n) = positions.fold((V::ZERO, 0u32), |(s, n), p| (s + p, n + 1));
        (n > 0).then(|| sum / n as f32)
    };
    if fish.slots_are_ids {
        // No sort, and no allocation.
        return mean(&mut leaders.map(|((p, _), _)| *p));
    }
    by_id.clear();
    by_id.extend(leaders.map(|((p, _), &id)| (id, *p)));
    by_id.sort_unstable_by_key(|&(id, _)| id);
    mean(&mut by_id.iter().map(|&(_, p)| p))
}

/// The slot of the fish nearest to `p` (across a torus's seam where
/// `wrap`), if any; of fish as near, the one with the lowest id.
pub(crate) fn nearest<V: Vector>(position: &[V], id: &[u32], p: V, size: V, wrap: bool) -> Option<usize> {
    let mut best: Option<(f32, u32, usize)> = None;
    for (slot, (&q, &id)) in position.iter().zip(id).enumerate() {
        let d2 = offset(p, q, size, wrap).length_squared();
        if best.is_none_or(|(b, best_id, _)| d2 < b || (d2 == b && id < best_id)) {
            best = Some((d2, id, slot));
        }
    }
    best.map(|(.., slot)| slot)
}
