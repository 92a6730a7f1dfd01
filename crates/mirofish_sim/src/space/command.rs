//! How the generic engine applies the commands: every outside change to a
//! [`Swarm`], stamped with the tick it applies at.
//!
//! The commands are the plane's ([`FlockCommand`], over the swarm's
//! vector; [`crate::step::command::VolumeCommand`] in a volume): a predator
//! dropped by a click, a slider moved or a scripted experiment all change a
//! swarm the same way, by a command queued for a tick with
//! [`Swarm::schedule`]. What a command does to the scene, the tank and the
//! schools' parameters is one function for every engine
//! ([`FlockCommand::apply_to_scene`]), and so is what it does to the fish
//! ([`FlockCommand::apply_to_fish`]): this file says how a swarm does each
//! of those things ([`CommandedFish`]). The
//! due commands apply at the start of their tick, in the order they were
//! queued, and the swarm keeps the list of those applied
//! ([`Swarm::applied`]): with the configuration it started from, that list
//! reproduces the run bit for bit ([`crate::control::replay`]).
//!
//! A command is checked when it is queued, so the queue only ever holds
//! commands whose numbers are valid. One that names something the swarm
//! does not have when it applies (a school not added, an obstacle index
//! past the end) changes nothing, the same way in every replay.

use super::Swarm;
use crate::math::Vector;
use crate::step::command::{CommandedFish, FlockCommand};
use crate::world::params::ParamError;
use crate::world::zones::Zones;

impl<V: Vector> FlockCommand<V> {
    /// Applies the (validated) command to `swarm` between ticks; an error
    /// says what was left out (a rock that would close the last room, fish
    /// past `MAX_FISH`) and why.
    pub(crate) fn apply_to_swarm(&self, swarm: &mut Swarm<V>) -> Result<(), ParamError> {
        self.apply_to_scene(&mut swarm.params, &mut swarm.tank, &mut swarm.scene)?;
        self.apply_to_fish(swarm)
    }
}

impl<V: Vector> CommandedFish<V> for Swarm<V> {
    fn spawn(&mut self, school: u16, count: usize, centre: V, radius: f32) -> Result<(), ParamError> {
        self.spawn_in_ball(school, count, centre, radius)
    }

    fn remove_last(&mut self, count: usize) {
        Swarm::remove_last(self, count);
    }

    fn set_leaders(&mut self, fish: &[u32], leads: bool) {
        for &id in fish {
            // An id of no fish is skipped, as documented.
            _ = self.set_leader(id, leads);
        }
    }

    fn form_groups(&mut self, school: Option<u16>, first: u16, count: u16) {
        _ = Swarm::form_groups(self, school, first, count);
    }

    fn set_group(&mut self, id: u32, group: Option<u16>) {
        _ = Swarm::set_group(self, id, group);
    }

    fn clear_groups(&mut self) {
        Swarm::clear_groups(self);
    }

    fn set_zones(&mut self, zones: Option<Zones>) -> Result<(), ParamError> {
        self.zones = zones;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use crate::observe::state_hash;
    use crate::space::{Flock3d, Zones};
    use crate::step::command::{CommandError, VolumeCommand};
    use crate::world::params::FlockParams;
    use crate::world::scene::{Goal, Obstacle, Predator};
    use crate::world::tank::{BoundaryMode, Tank3d};

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
                VolumeCommand::SetParams(FlockParams { max_speed: -1.0, ..FlockParams::default() }),
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
        assert_eq!(state_hash(&again), state_hash(&swarm));
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
            VolumeCommand::SetSchoolParams { school: 9, params: FlockParams::default() },
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
