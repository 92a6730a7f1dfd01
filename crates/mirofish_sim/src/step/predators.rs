//! After the fish: the leaders' route moves on, and the predators hunt and
//! move.

use glam::Vec2;

use crate::rules::scene as scene_rules;
use crate::step::flock::{Flock, SlotOrder};
use crate::world::grid::offset;
use crate::world::scene::Scene;
use crate::world::tank::{BoundaryMode, Tank};

impl Flock {
    /// After the fish: the leaders' route moves on if they reached its
    /// current waypoint; each chasing predator steers at the fish nearest to
    /// it (ties go to the lowest id), then every predator moves.
    pub fn move_predators(&mut self, scene: &mut Scene, tank: &Tank, dt: f32) {
        if let Some(route) = &mut scene.route {
            let mut by_id = core::mem::take(&mut self.leaders_by_id);
            if let Some(centre) = self.leaders_centre_with(&mut by_id) {
                route.advance(centre);
            }
            self.leaders_by_id = by_id;
        }
        let wrap = tank.boundary == BoundaryMode::Wrap;
        for predator in &mut scene.predators {
            let prey =
                predator.chase.then(|| self.nearest_fish(predator.position, tank.size(), wrap)).flatten();
            let target = prey.map(|slot| {
                predator.position + offset(predator.position, self.position[slot], tank.size(), wrap)
            });
            scene_rules::move_predator(predator, target, tank, dt);
        }
    }

    /// The mean position of the leaders, if there are any: summed in the
    /// order of their ids, so that the bits do not depend on the
    /// [`SlotOrder`].
    pub fn leaders_centre(&self) -> Option<Vec2> {
        self.leaders_centre_with(&mut Vec::new())
    }

    /// [`Flock::leaders_centre`], sorting the leaders by id (under
    /// [`SlotOrder::Spatial`]) in `by_id`, whose buffer it reuses.
    fn leaders_centre_with(&self, by_id: &mut Vec<(u32, Vec2)>) -> Option<Vec2> {
        let leaders = self.position.iter().zip(&self.leader).zip(&self.id).filter(|((_, l), _)| **l);
        let mean = |positions: &mut dyn Iterator<Item = Vec2>| {
            let (sum, n) = positions.fold((Vec2::ZERO, 0u32), |(s, n), p| (s + p, n + 1));
            (n > 0).then(|| sum / n as f32)
        };
        if self.slot_order == SlotOrder::Stable {
            // Slots are ids: no sort, and no allocation.
            return mean(&mut leaders.map(|((p, _), _)| *p));
        }
        by_id.clear();
        by_id.extend(leaders.map(|((p, _), &id)| (id, *p)));
        by_id.sort_unstable_by_key(|&(id, _)| id);
        mean(&mut by_id.iter().map(|&(_, p)| p))
    }
}
