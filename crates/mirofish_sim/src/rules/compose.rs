//! One fish's kick, whole: its rules' weighted forces, the soft margin,
//! what the scene asks of it, the jitter and the one clamp of the total.
//!
//! Both spaces' force passes end every fish here, one at a time
//! ([`Setting::kick`]) or four in vector lanes where nothing in the scene
//! steers them ([`Setting::kick_lanes`]), with the same bits either way:
//! there is one force composition, whatever the dimension and whichever
//! way the fish were scanned. The rules themselves are evaluated before
//! (a plane has a faster form of them with the same bits,
//! [`RuleForces::evaluate`]).

use glam::Vec4;

use super::noise::{Stream, TickKey};
use super::scene::{Swimmer, panic_separation_gain, react};
use super::{RuleForces, boundary, kick_lanes};
use crate::math::Vector;
use crate::world::params::FlockParams;
use crate::world::scene::{Goal, Scene};
use crate::world::tank::{BoundaryMode, TankOf};

/// What a fish's kick reads besides the fish and its neighbourhood: the
/// same for every fish of a tick.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setting<'a, V: Vector> {
    /// The tank, whose soft margin steers.
    pub tank: &'a TankOf<V>,
    /// Rocks, predators, goals and the attract/repel point.
    pub scene: &'a Scene<V>,
    /// Where the route sends the leaders this tick.
    pub route_goal: Option<&'a Goal<V>>,
    /// Whether nothing in the scene steers a fish (at least
    /// [`Scene::leaves_fish_alone`]): a calm fish then leaves the scene's
    /// reactions out, which add exact zeros for it.
    pub quiet: bool,
    /// This tick's noise.
    pub key: TickKey,
}

impl<V: Vector> Setting<'_, V> {
    /// The kick of `fish`, named `id` (its jitter's key), whose rules weigh
    /// `forces`: the soft margin and the scene's reactions
    /// ([`react`]) are added to `forces`, then the jitter, and the total
    /// is clamped to `max_force`. Returns the clamped acceleration and the
    /// fright predators cause the fish this tick.
    #[inline]
    pub fn kick(
        &self,
        forces: &mut RuleForces<V>,
        fish: &Swimmer<V>,
        id: u32,
        params: &FlockParams,
    ) -> (V, f32) {
        if self.tank.boundary == BoundaryMode::SoftMargin {
            forces.boundary = boundary::wall_steer(fish.position, fish.velocity, self.tank, params);
        }
        let fright = if self.quiet && fish.fear == 0.0 {
            0.0
        } else {
            react(forces, fish, self.scene, self.route_goal, params)
        };
        let jitter: V = self.key.in_unit_ball(u64::from(id), Stream::Jitter);
        (forces.kick(jitter, params), fright)
    }

    /// [`Setting::kick`] of the first `m` of four fish of one school in
    /// lanes over `N` axes (the axes past the dimension's zero), in a
    /// quiet setting: `rules` (separation, alignment, cohesion, wander) as
    /// evaluated in lanes, `fear` each fish's (its harder push), `at` and
    /// `velocity` their positions and velocities (asked for only where a
    /// soft margin needs them), `ids` their names. The same bits as one
    /// fish at a time; returns the clamped accelerations and the soft
    /// margin's steering, or `None` where a fish's total is not finite
    /// (the one-fish form handles it).
    #[expect(clippy::too_many_arguments, reason = "four fish's inputs, each a lane array")]
    #[inline(always)]
    pub fn kick_lanes<const N: usize>(
        &self,
        [separation, alignment, cohesion, wander]: [[Vec4; N]; 4],
        fear: [f32; 4],
        at: impl FnOnce() -> [Vec4; N],
        velocity: impl FnOnce() -> [Vec4; N],
        ids: [u32; 4],
        m: usize,
        params: &FlockParams,
    ) -> Option<([Vec4; N], [Vec4; N])> {
        debug_assert!(self.quiet, "the scene's reactions are left out");
        let mut separation = separation;
        if fear != [0.0; 4] {
            // Fear's harder push, exactly 1 for a calm fish.
            let gain = Vec4::from_array(fear.map(|f| panic_separation_gain(f, params)));
            separation = separation.map(|axis| axis * gain);
        }
        let mut margin = [Vec4::ZERO; N];
        if self.tank.boundary == BoundaryMode::SoftMargin {
            margin = boundary::wall_steer_lanes(at(), velocity, self.tank, params, m);
        }
        let drawn = self.key.in_unit_ball_lanes::<V>(
            [u64::from(ids[0]), u64::from(ids[1]), u64::from(ids[2]), u64::from(ids[3])],
            Stream::Jitter,
        );
        let mut jitter = [Vec4::ZERO; N];
        jitter.copy_from_slice(&drawn[..N]);
        let rules = [separation, alignment, cohesion, wander];
        Some((kick_lanes(rules, margin, jitter, params)?, margin))
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3};

    use super::*;
    use crate::world::scene::{Obstacle, Predator};

    fn lanes<V: Vector, const N: usize>(v: [V; 4]) -> [Vec4; N] {
        core::array::from_fn(|i| if i < V::DIM { Vec4::from_array(v.map(|v| v.axis(i))) } else { Vec4::ZERO })
    }

    /// Four fish, two of them near a wall of the soft margin and one
    /// afraid, kicked in lanes and one at a time: the same bits.
    fn lanes_and_one_at_a_time_agree<V: Vector, const N: usize>() {
        let params = FlockParams::default();
        let tank = TankOf::<V>::centered(V::splat(400.0)).with_boundary(BoundaryMode::SoftMargin);
        let scene = Scene::default();
        let setting =
            Setting { tank: &tank, scene: &scene, route_goal: None, quiet: true, key: TickKey::new(5, 9) };
        let at = [V::ZERO, V::splat(195.0), V::splat(-60.0), V::X * -198.0];
        let velocity = [V::X * 40.0, V::splat(30.0), V::ZERO, V::X * -50.0];
        let fear = [0.0, 0.0, 0.75, 0.0];
        let ids = [3, 17, 4, 90];
        let forces: [RuleForces<V>; 4] = core::array::from_fn(|l| {
            let s = l as f32;
            RuleForces {
                separation: V::splat(3.0 - s),
                alignment: V::X * s,
                cohesion: V::splat(-0.5 * s),
                wander: V::splat(0.25),
                ..RuleForces::default()
            }
        });
        let part = |f: fn(&RuleForces<V>) -> V| lanes::<V, N>(forces.map(|r| f(&r)));
        let rules = [part(|r| r.separation), part(|r| r.alignment), part(|r| r.cohesion), part(|r| r.wander)];
        let (kicked, margin) = setting
            .kick_lanes(rules, fear, || lanes(at), || lanes(velocity), ids, 4, &params)
            .expect("finite");
        for l in 0..4 {
            let mut one = forces[l];
            let fish = Swimmer {
                position: at[l],
                velocity: velocity[l],
                fear: fear[l],
                school: 0,
                group: None,
                leads: false,
            };
            let (kick, fright) = setting.kick(&mut one, &fish, ids[l], &params);
            assert_eq!(fright, 0.0);
            for i in 0..V::DIM {
                assert_eq!(kicked[i][l].to_bits(), kick.axis(i).to_bits(), "fish {l}, axis {i}");
                assert_eq!(margin[i][l].to_bits(), one.boundary.axis(i).to_bits(), "fish {l}, axis {i}");
            }
        }
        assert_ne!(lanes::<V, N>([V::ZERO; 4]), margin, "the walls steer");
    }

    #[test]
    fn four_fish_in_lanes_are_kicked_as_one_at_a_time_in_both_spaces() {
        lanes_and_one_at_a_time_agree::<Vec2, 2>();
        lanes_and_one_at_a_time_agree::<Vec3, 3>();
    }

    /// A scene that steers is never left out, quiet or not, and a fish
    /// afraid is never left out of it.
    #[test]
    fn the_scene_is_left_out_only_for_a_calm_fish_in_a_quiet_setting() {
        let params = FlockParams::default();
        let tank = TankOf::<Vec2>::centered(Vec2::splat(400.0));
        let mut scene = Scene::default();
        scene.obstacles.push(Obstacle { centre: Vec2::new(20.0, 0.0), radius: 15.0 });
        scene.predators.push(Predator::new(Vec2::new(-30.0, 0.0), 100.0));
        let fish = Swimmer {
            position: Vec2::ZERO,
            velocity: Vec2::X * 40.0,
            fear: 0.0,
            school: 0,
            group: None,
            leads: false,
        };
        let loud =
            Setting { tank: &tank, scene: &scene, route_goal: None, quiet: false, key: TickKey::new(1, 2) };
        let mut forces = RuleForces::default();
        let (_, fright) = loud.kick(&mut forces, &fish, 7, &params);
        assert!(fright > 0.0 && forces.flee != Vec2::ZERO && forces.obstacle != Vec2::ZERO);
        // An afraid fish in a quiet setting still pushes harder.
        let calm_scene = Scene::default();
        let quiet = Setting { scene: &calm_scene, quiet: true, ..loud };
        let push = RuleForces { separation: Vec2::X, ..RuleForces::default() };
        let (mut calm, mut afraid) = (push, push);
        quiet.kick(&mut calm, &fish, 7, &params);
        quiet.kick(&mut afraid, &Swimmer { fear: 1.0, ..fish }, 7, &params);
        assert_eq!(calm.separation, Vec2::X);
        assert_eq!(afraid.separation, Vec2::X * params.panic_separation);
    }
}
