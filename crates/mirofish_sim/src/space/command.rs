//! Commands to a school in any dimension: every outside change to a
//! [`Swarm`], stamped with the tick it applies at.
//!
//! As on a plane ([`crate::FlockCommand`]), a predator dropped by a click, a
//! slider moved or a scripted experiment all change a swarm the same way:
//! by a [`SwarmCommand`] queued for a tick with [`Swarm::schedule`]. The
//! due commands apply at the start of their tick, in the order they were
//! queued, and the swarm keeps the list of those applied
//! ([`Swarm::applied`]): with the configuration it started from, that list
//! reproduces the run bit for bit ([`crate::control::replay`]).
//!
//! A command is checked when it is queued, so the queue only ever holds
//! commands whose numbers are valid. One that names something the swarm
//! does not have when it applies (a school not added, an obstacle index
//! past the end) changes nothing, the same way in every replay.

use glam::Vec3;

use super::{Swarm, Zones};
use crate::math::Vector;
use crate::step::command::{
    Command, MAX_SPAWN, check_form_groups, check_group_goal, check_join_group, check_school_goal,
    check_spawn, remove_at,
};
use crate::world::params::{FlockParams, ParamError, Range, check};
use crate::world::scene::{Attractor, Goal, Obstacle, Predator, Route, add_rock, set_goal_entry};
use crate::world::tank::{BoundaryMode, TankOf};

/// A command to a school in a volume.
pub type VolumeCommand = SwarmCommand<Vec3>;

/// One change to a running [`Swarm`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum SwarmCommand<V: Vector> {
    /// Replace one school's parameters (a school the swarm does not have
    /// is left alone).
    SetParams {
        /// The school (0 for the first).
        school: u16,
        /// Its new parameters.
        params: FlockParams,
    },
    /// Change what happens at the walls.
    SetBoundary(BoundaryMode),
    /// Move every fish by Couzin's zones, or by the weighted rules again
    /// with `None` (see [`Swarm::set_zones`]).
    SetZones(Option<Zones>),
    /// Add a predator.
    AddPredator(Predator<V>),
    /// Remove the predator at this index (later ones move down); an index
    /// past the end does nothing.
    RemovePredator(usize),
    /// Remove every predator.
    ClearPredators,
    /// Add an obstacle (refused when it would fill the tank).
    AddObstacle(Obstacle<V>),
    /// Remove the obstacle at this index; an index past the end does
    /// nothing.
    RemoveObstacle(usize),
    /// Remove every obstacle.
    ClearObstacles,
    /// Set or clear the goal every fish steers for.
    SetGoal(Option<Goal<V>>),
    /// Set or clear one school's own goal (added to the common one).
    SetSchoolGoal {
        /// The school (below [`crate::world::school::MAX_SCHOOLS`]).
        school: u16,
        /// Its goal, or none.
        goal: Option<Goal<V>>,
    },
    /// Set or clear the attract/repel point.
    SetAttractor(Option<Attractor<V>>),
    /// Set or clear the route the leaders follow.
    SetRoute(Option<Route<V>>),
    /// Add `count` fish to `school`, spread over a ball (clipped to the
    /// tank, pushed out of the rocks) heading every way at half to full
    /// speed; never beyond [`crate::MAX_FISH`] in all. Where they go
    /// depends only on the seed, the tick and the fish count.
    SpawnFish {
        /// The school (one the swarm does not have gets none).
        school: u16,
        /// How many (at most [`MAX_SPAWN`]).
        count: usize,
        /// Centre of the ball.
        centre: V,
        /// Radius of the ball (0: all at the centre).
        radius: f32,
    },
    /// Remove the `count` most recently added fish (all, if fewer).
    RemoveFish {
        /// How many.
        count: usize,
    },
    /// Make these fish leaders, or followers again (see
    /// [`Swarm::set_leader`]); ids of no fish are skipped.
    SetLeaders {
        /// The fish, by id (at most [`MAX_SPAWN`]).
        fish: Vec<u32>,
        /// Whether they lead.
        leads: bool,
    },
    /// Split the fish of a school (every fish if `school` is `None`) into
    /// `count` spatially compact groups of nearly equal size, numbered from
    /// `first` (see [`Swarm::form_groups`]): which fish land in which group
    /// depends only on where they are at that tick.
    FormGroups {
        /// The school to split, or every fish.
        school: Option<u16>,
        /// The number of the first group.
        first: u16,
        /// How many groups.
        count: u16,
    },
    /// Put the fish with these ids into `group`, or into none; ids of no
    /// fish are skipped. At most [`MAX_SPAWN`] ids.
    JoinGroup {
        /// The fish, by id.
        fish: Vec<u32>,
        /// Their group (below [`crate::MAX_GROUPS`]), or none.
        group: Option<u16>,
    },
    /// Set or clear the goal of one group ([`Scene::group_goals`](crate::Scene::group_goals)).
    SetGroupGoal {
        /// The group (below [`crate::MAX_GROUPS`]).
        group: u16,
        /// Its goal, or none.
        goal: Option<Goal<V>>,
    },
    /// Take every fish out of its group and clear every group's goal.
    ClearGroups,
}

impl<V: Vector> SwarmCommand<V> {
    /// Checks every number in the command; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            SwarmCommand::SetParams { params, .. } => params.validate(),
            SwarmCommand::SetZones(Some(zones)) => zones.validate(),
            SwarmCommand::AddPredator(p) => p.validate(),
            SwarmCommand::AddObstacle(o) => o.validate(),
            SwarmCommand::SetGoal(Some(g)) => g.validate(),
            SwarmCommand::SetSchoolGoal { school, goal } => check_school_goal(*school, goal.as_ref()),
            SwarmCommand::SetAttractor(Some(a)) => a.validate(),
            SwarmCommand::SetRoute(Some(r)) => r.validate(),
            SwarmCommand::SpawnFish { count, centre, radius, .. } => check_spawn(*count, *centre, *radius),
            SwarmCommand::SetLeaders { fish, .. } => {
                check("leaders.fish", fish.len() as f32, Range::Closed(0.0, MAX_SPAWN as f32))
            }
            SwarmCommand::FormGroups { first, count, .. } => check_form_groups(*first, *count),
            SwarmCommand::JoinGroup { fish, group } => check_join_group(fish, *group),
            SwarmCommand::SetGroupGoal { group, goal } => check_group_goal(*group, goal.as_ref()),
            SwarmCommand::SetZones(None)
            | SwarmCommand::SetBoundary(_)
            | SwarmCommand::RemovePredator(_)
            | SwarmCommand::ClearPredators
            | SwarmCommand::RemoveObstacle(_)
            | SwarmCommand::ClearObstacles
            | SwarmCommand::SetGoal(None)
            | SwarmCommand::SetAttractor(None)
            | SwarmCommand::SetRoute(None)
            | SwarmCommand::ClearGroups
            | SwarmCommand::RemoveFish { .. } => Ok(()),
        }
    }

    /// Checks the command for `tank`: [`SwarmCommand::validate`], and an
    /// obstacle must leave room in it.
    pub fn validate_in(&self, tank: &TankOf<V>) -> Result<(), ParamError> {
        match self {
            SwarmCommand::AddObstacle(o) => o.validate_in(tank),
            _ => self.validate(),
        }
    }

    /// Applies the (validated) command to `swarm` between ticks.
    /// Applies the command; an error says what was left out (a rock that
    /// would close the last room, fish past `MAX_FISH`) and why.
    pub(crate) fn apply(&self, swarm: &mut Swarm<V>) -> Result<(), ParamError> {
        let around = &mut swarm.scene;
        match self {
            // A school the swarm does not have: nothing to change.
            SwarmCommand::SetParams { school, params } => _ = swarm.set_params(*school, *params),
            SwarmCommand::SetBoundary(boundary) => swarm.tank.boundary = *boundary,
            SwarmCommand::SetZones(zones) => swarm.zones = *zones,
            SwarmCommand::AddPredator(p) => around.predators.push(*p),
            SwarmCommand::RemovePredator(i) => remove_at(&mut around.predators, *i),
            SwarmCommand::ClearPredators => around.predators.clear(),
            // Not added if it would close the last room (`add_rock`).
            SwarmCommand::AddObstacle(o) => return add_rock(&mut around.obstacles, *o, &swarm.tank),
            SwarmCommand::RemoveObstacle(i) => remove_at(&mut around.obstacles, *i),
            SwarmCommand::ClearObstacles => around.obstacles.clear(),
            SwarmCommand::SetGoal(goal) => around.goal = *goal,
            SwarmCommand::SetSchoolGoal { school, goal } => {
                set_goal_entry(&mut around.school_goals, usize::from(*school), *goal)
            }
            SwarmCommand::SetAttractor(a) => around.attractor = *a,
            SwarmCommand::SetRoute(route) => around.route = route.clone(),
            SwarmCommand::SpawnFish { school, count, centre, radius } => {
                return swarm.spawn_in_ball(*school, *count, *centre, *radius);
            }
            SwarmCommand::RemoveFish { count } => swarm.remove_last(*count),
            SwarmCommand::SetLeaders { fish, leads } => {
                for &id in fish {
                    // An id of no fish is skipped, as documented.
                    _ = swarm.set_leader(id, *leads);
                }
            }
            SwarmCommand::FormGroups { school, first, count } => {
                _ = swarm.form_groups(*school, *first, *count)
            }
            SwarmCommand::JoinGroup { fish, group } => {
                for &id in fish {
                    _ = swarm.set_group(id, *group);
                }
            }
            SwarmCommand::SetGroupGoal { group, goal } => {
                set_goal_entry(&mut swarm.scene.group_goals, usize::from(*group), *goal)
            }
            SwarmCommand::ClearGroups => {
                swarm.clear_groups();
                swarm.scene.group_goals.clear();
            }
        }
        Ok(())
    }
}

impl<V: Vector> Command for SwarmCommand<V> {
    fn check(&self) -> Result<(), ParamError> {
        self.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::{Flock3d, swarm_hash};
    use crate::step::command::CommandError;
    use crate::world::tank::Tank3d;

    fn volume(fish: usize) -> Flock3d {
        Flock3d::new(FlockParams::default(), Tank3d::default(), fish, 4).unwrap()
    }

    #[test]
    fn commands_apply_at_their_tick_in_the_order_queued() {
        let mut swarm = volume(50);
        let rock = Obstacle { centre: Vec3::new(100.0, 100.0, 100.0), radius: 30.0 };
        swarm.schedule(3, VolumeCommand::AddObstacle(rock)).unwrap();
        swarm.schedule(3, VolumeCommand::RemoveObstacle(0)).unwrap();
        swarm.schedule(5, VolumeCommand::AddPredator(Predator::new(Vec3::ZERO, 80.0))).unwrap();
        swarm.run(3);
        assert!(swarm.scene().obstacles.is_empty() && swarm.scene().predators.is_empty());
        swarm.step();
        // Added, then removed, in that order, at the start of tick 3.
        assert!(swarm.scene().obstacles.is_empty());
        assert_eq!(swarm.applied().len(), 2);
        swarm.run(2);
        assert_eq!(swarm.scene().predators.len(), 1);
        assert_eq!(swarm.applied().iter().map(|s| s.tick).collect::<Vec<_>>(), [3, 3, 5]);
        assert!(swarm.pending().is_empty());
    }

    #[test]
    fn bad_and_late_commands_are_refused_and_not_queued() {
        let mut swarm = volume(10);
        swarm.run(4);
        assert_eq!(
            swarm.schedule(2, VolumeCommand::ClearPredators).unwrap_err(),
            CommandError::Past { tick: 2, now: 4 }
        );
        let cases = [
            (
                VolumeCommand::AddObstacle(Obstacle { centre: Vec3::ZERO, radius: f32::NAN }),
                "obstacle.radius",
            ),
            (VolumeCommand::AddObstacle(Obstacle { centre: Vec3::ZERO, radius: 1.0e6 }), "obstacle.radius"),
            (
                VolumeCommand::SpawnFish { school: 0, count: 3, centre: Vec3::INFINITY, radius: 1.0 },
                "spawn.centre",
            ),
            (
                VolumeCommand::SpawnFish { school: 0, count: 3, centre: Vec3::ZERO, radius: -1.0 },
                "spawn.radius",
            ),
            (
                VolumeCommand::SpawnFish { school: 0, count: usize::MAX, centre: Vec3::ZERO, radius: 1.0 },
                "spawn.count",
            ),
            (
                VolumeCommand::SetParams {
                    school: 0,
                    params: FlockParams { max_speed: -1.0, ..FlockParams::default() },
                },
                "max_speed",
            ),
            (VolumeCommand::SetZones(Some(Zones { speed: f32::NAN, ..Zones::default() })), "speed"),
        ];
        for (command, field) in cases {
            let err = swarm.submit(command.clone()).unwrap_err().to_string();
            assert!(err.contains(field), "{command:?}: {err}");
        }
        assert!(swarm.pending().is_empty());
    }

    #[test]
    fn spawned_fish_fill_a_ball_and_the_newest_are_removed_first() {
        let mut swarm = volume(20);
        let centre = Vec3::new(300.0, 200.0, 250.0);
        swarm.submit(VolumeCommand::SpawnFish { school: 0, count: 40, centre, radius: 50.0 }).unwrap();
        swarm.submit(VolumeCommand::SpawnFish { school: 7, count: 40, centre, radius: 50.0 }).unwrap();
        swarm.step();
        assert_eq!(swarm.len(), 60, "school 7 does not exist: no fish for it");
        let dt = crate::DEFAULT_DT;
        let fastest = swarm.params()[0].max_speed * 1.5;
        for slot in 0..swarm.len() {
            if swarm.ids()[slot] >= 20 {
                // One tick after the spawn: still within the ball, give or
                // take a tick's travel.
                let p = swarm.positions()[slot];
                assert!(p.distance(centre) <= 50.0 + fastest * dt + 1e-3, "{p}");
            }
        }
        // The same command on the same state: the same fish.
        let mut again = volume(20);
        again.submit(VolumeCommand::SpawnFish { school: 0, count: 40, centre, radius: 50.0 }).unwrap();
        again.step();
        assert_eq!(swarm_hash(&again), swarm_hash(&swarm));
        swarm.submit(VolumeCommand::RemoveFish { count: 45 }).unwrap();
        swarm.step();
        assert_eq!(swarm.len(), 15);
        let mut ids = swarm.ids().to_vec();
        ids.sort_unstable();
        assert_eq!(ids, (0..15).collect::<Vec<u32>>(), "the oldest fish stay");
        for id in 0..15 {
            assert_eq!(swarm.ids()[swarm.slots()[id] as usize], id as u32);
        }
        swarm.submit(VolumeCommand::RemoveFish { count: 100 }).unwrap();
        swarm.step();
        assert!(swarm.is_empty());
    }

    #[test]
    fn groups_form_by_command_and_their_goal_pulls_only_them() {
        let corner = Tank3d::default().min + Vec3::splat(60.0);
        let goal = Goal::seek(corner, 2.0);
        // The same school split the same way, with and without a goal for
        // group 2.
        let split = |goal: Option<Goal<Vec3>>| {
            let mut swarm = volume(400);
            swarm.submit(VolumeCommand::FormGroups { school: None, first: 0, count: 4 }).unwrap();
            swarm.submit(VolumeCommand::SetGroupGoal { group: 2, goal }).unwrap();
            swarm.submit(VolumeCommand::JoinGroup { fish: vec![9999], group: Some(1) }).unwrap();
            swarm.step();
            swarm
        };
        let (mut swarm, mut control) = (split(Some(goal)), split(None));
        let mut sizes = [0usize; 4];
        for id in 0..400 {
            sizes[usize::from(swarm.group_of(id).expect("every fish in a group"))] += 1;
            assert_eq!(swarm.group_of(id), control.group_of(id));
        }
        assert_eq!(sizes, [100; 4]);
        let distance = |swarm: &Flock3d, group: u16| {
            let members: Vec<Vec3> = (0..400u32)
                .filter(|&id| swarm.group_of(id) == Some(group))
                .map(|id| swarm.positions()[swarm.slots()[id as usize] as usize])
                .collect();
            (members.iter().copied().sum::<Vec3>() / members.len() as f32).distance(corner)
        };
        swarm.run(300);
        control.run(300);
        let (pulled, free) = (distance(&swarm, 2), distance(&control, 2));
        assert!(pulled < free * 0.6, "the group with a goal went to it: {pulled} against {free}");
        // New fish are in no group; clearing takes everyone out.
        swarm.submit(VolumeCommand::SpawnFish { school: 0, count: 5, centre: corner, radius: 10.0 }).unwrap();
        swarm.step();
        assert_eq!(swarm.group_of(402), None);
        assert_eq!(swarm.groups().len(), 405);
        swarm.submit(VolumeCommand::ClearGroups).unwrap();
        swarm.step();
        assert!(swarm.groups().is_empty() && swarm.scene().group_goals.is_empty());
        // Group numbers past the limit are refused, naming the field.
        let school = VolumeCommand::SetSchoolGoal { school: u16::MAX, goal: None };
        assert!(swarm.submit(school).unwrap_err().to_string().contains("goal.school"));
        let late = VolumeCommand::SetGroupGoal { group: u16::MAX, goal: None };
        assert!(swarm.submit(late).unwrap_err().to_string().contains("groups.group"));
        let many = VolumeCommand::FormGroups { school: None, first: 4000, count: 200 };
        assert!(swarm.submit(many).unwrap_err().to_string().contains("groups.first"));
        let too_many = crate::world::scene::Scene3d {
            group_goals: vec![None; crate::MAX_GROUPS + 1],
            ..Default::default()
        };
        assert_eq!(swarm.set_scene(too_many).unwrap_err().field, "group_goals");
    }

    #[test]
    fn the_scene_zones_leaders_and_goals_change_by_command() {
        let mut swarm = volume(30);
        let goal = Goal::seek(Vec3::splat(10.0), 1.0);
        for command in [
            VolumeCommand::SetBoundary(BoundaryMode::Wrap),
            VolumeCommand::SetZones(Some(Zones::default())),
            VolumeCommand::SetSchoolGoal { school: 2, goal: Some(goal) },
            VolumeCommand::SetGoal(Some(goal)),
            VolumeCommand::SetLeaders { fish: vec![3, 5, 999], leads: true },
            VolumeCommand::SetParams { school: 9, params: FlockParams::default() },
        ] {
            swarm.submit(command).unwrap();
        }
        swarm.step();
        assert_eq!(swarm.tank().boundary, BoundaryMode::Wrap);
        assert!(swarm.zones().is_some());
        assert_eq!(swarm.scene().school_goals, [None, None, Some(goal)]);
        assert_eq!(swarm.scene().goal, Some(goal));
        let leading: Vec<u32> =
            (0..swarm.len()).filter(|&s| swarm.leaders()[s]).map(|s| swarm.ids()[s]).collect();
        assert_eq!(leading.len(), 2);
        assert!(leading.contains(&3) && leading.contains(&5));
        swarm.submit(VolumeCommand::SetSchoolGoal { school: 2, goal: None }).unwrap();
        swarm.submit(VolumeCommand::SetZones(None)).unwrap();
        swarm.step();
        assert_eq!(swarm.scene().school_goals, [None, None, None]);
        assert!(swarm.zones().is_none());
    }
}
