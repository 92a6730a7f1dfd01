//! Commands: every outside input to a run, stamped with the tick at
//! which it applies.
//!
//! A game's clicks, a parameter slider and a scripted experiment all change
//! the simulation the same way: by a [`FlockCommand`] scheduled for a tick. At the
//! start of that tick — before the neighbour index is rebuilt — the due
//! commands are applied in a fixed order (by tick, then in the order they were
//! scheduled). Because nothing else touches the state, the seed, the initial
//! configuration and the list of applied commands reproduce a run bit for bit
//! ([`crate::control::replay`]).
//!
//! Commands are validated when they are scheduled, so a queue, and any log
//! made from it, only ever holds commands that can be applied.

use core::fmt;
use std::borrow::Cow;
use std::collections::BTreeMap;

use glam::{Vec2, Vec3};

use crate::math::Vector;
use crate::rules::noise::{self, Stream, TickKey};
use crate::world::params::{FlockParams, MAX_FISH, MAX_LENGTH, ParamError, Range, check};
use crate::world::scene::{
    Attractor, Goal, MAX_GROUPS, Obstacle, Predator, Route, Scene, add_rock, point, set_goal_entry,
};
use crate::world::spawn::FishStart;
use crate::world::tank::{BoundaryMode, TankOf};
use crate::world::zones::Zones;

/// Most fish one command may add: keeps a typo from allocating gigabytes.
pub const MAX_SPAWN: usize = 1_000_000;

/// One change to a running school, on a plane (`FlockCommand`, the
/// default) or in a volume ([`VolumeCommand`]): the same commands with the
/// same meaning in both spaces, over the vector of the space.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(serialize = "V: serde::Serialize", deserialize = "V: serde::Deserialize<'de>"))]
pub enum FlockCommand<V: Vector = Vec2> {
    /// Replace the parameters of school 0 (the only school of a
    /// [`crate::Simulation`]).
    SetParams(FlockParams),
    /// Replace the parameters of one school of several (the Bevy plugin's
    /// `FlockConfig` table, a volume's schools). A school the run does not
    /// have is left alone.
    SetSchoolParams {
        /// The school (0 for the first).
        school: u16,
        /// Its new parameters.
        params: FlockParams,
    },
    /// Change what happens at the walls.
    SetBoundary(BoundaryMode),
    /// Move every fish by Couzin's zones, or by the weighted rules again
    /// with `None` (see [`Swarm::set_zones`](crate::space::Swarm::set_zones)).
    /// The engine of both spaces ([`crate::space::Swarm`]) has the zone
    /// model, headless and in either plugin.
    SetZones(Option<Zones>),
    /// Add a predator.
    AddPredator(Predator<V>),
    /// Remove the predator at this index of [`Scene::predators`] (later
    /// ones move down); an index past the end does nothing.
    RemovePredator(usize),
    /// Put the predator at this index of [`Scene::predators`] at `to` (a
    /// player's pointer, a scripted path), keeping its velocity; an index
    /// past the end does nothing.
    MovePredator {
        /// The predator's index.
        predator: usize,
        /// Where it goes.
        to: V,
    },
    /// Remove every predator.
    ClearPredators,
    /// Add an obstacle (left out when it would close the last room).
    AddObstacle(Obstacle<V>),
    /// Remove the obstacle at this index of [`Scene::obstacles`]; an index
    /// past the end does nothing.
    RemoveObstacle(usize),
    /// Remove every obstacle.
    ClearObstacles,
    /// Set or clear the goal every school steers for (a school's own goal,
    /// [`FlockCommand::SetSchoolGoal`], replaces it for that school).
    SetGoal(Option<Goal<V>>),
    /// Set or clear one school's own goal (see [`Scene::school_goals`]).
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
    /// Add `count` fish to `school`, spread over a disc on a plane or a
    /// ball in a volume (clipped to the tank), with random headings; never
    /// beyond [`crate::MAX_FISH`] in all. Where they go depends only on
    /// the seed, the tick and the fish count, never on threads. A school
    /// the run does not have gets none.
    SpawnFish {
        /// The school (0 for the first; files that leave it out mean 0).
        #[serde(default)]
        school: u16,
        /// How many (at most [`MAX_SPAWN`]).
        count: usize,
        /// Centre of the disc or ball.
        centre: V,
        /// Its radius (0: all at the centre).
        radius: f32,
    },
    /// Remove the `count` most recently added fish (all, if fewer).
    RemoveFish {
        /// How many.
        count: usize,
    },
    /// Make these fish leaders, or followers again; ids of no fish are
    /// skipped.
    SetLeaders {
        /// The fish, by id (at most [`MAX_SPAWN`]).
        fish: Vec<u32>,
        /// Whether they lead.
        leads: bool,
    },
    /// Split the fish of a school (every fish if `school` is `None`) into
    /// `count` spatially compact groups of nearly equal size, numbered from
    /// `first` (see [`Swarm::form_groups`](crate::space::Swarm::form_groups)).
    /// Which fish land in which group depends only on where the fish are at
    /// that tick, so a replay forms the same groups.
    FormGroups {
        /// The school to split, or every fish.
        school: Option<u16>,
        /// The number of the first group.
        first: u16,
        /// How many groups.
        count: u16,
    },
    /// Put the fish with these ids (see
    /// [`Swarm::ids`](crate::space::Swarm::ids)) into `group`, or into
    /// none; ids of no fish are skipped. At most [`MAX_SPAWN`] ids.
    JoinGroup {
        /// The fish, by id.
        fish: Vec<u32>,
        /// Their group (below [`MAX_GROUPS`]), or none.
        group: Option<u16>,
    },
    /// Set or clear the goal of one group (see [`Scene::group_goals`]).
    SetGroupGoal {
        /// The group (below [`MAX_GROUPS`]).
        group: u16,
        /// Its goal, or none.
        goal: Option<Goal<V>>,
    },
    /// Take every fish out of its group and clear every group's goal.
    ClearGroups,
}

/// A command to a school in a volume.
pub type VolumeCommand = FlockCommand<Vec3>;

impl<V: Vector> FlockCommand<V> {
    /// Checks every number in the command; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            FlockCommand::SetParams(p) | FlockCommand::SetSchoolParams { params: p, .. } => p.validate(),
            FlockCommand::SetZones(Some(zones)) => zones.validate(),
            FlockCommand::AddPredator(p) => p.validate(),
            FlockCommand::AddObstacle(o) => o.validate(),
            FlockCommand::SetGoal(Some(g)) => g.validate(),
            FlockCommand::SetAttractor(Some(a)) => a.validate(),
            FlockCommand::SetRoute(Some(r)) => r.validate(),
            FlockCommand::SpawnFish { count, centre, radius, .. } => check_spawn(*count, *centre, *radius),
            FlockCommand::SetLeaders { fish, .. } => {
                check("leaders.fish", fish.len() as f32, Range::Closed(0.0, MAX_SPAWN as f32))
            }
            FlockCommand::FormGroups { first, count, .. } => check_form_groups(*first, *count),
            FlockCommand::JoinGroup { fish, group } => check_join_group(fish, *group),
            FlockCommand::SetGroupGoal { group, goal } => check_group_goal(*group, goal.as_ref()),
            FlockCommand::SetSchoolGoal { school, goal } => check_school_goal(*school, goal.as_ref()),
            FlockCommand::MovePredator { to, .. } => point("predator.to", *to),
            FlockCommand::SetBoundary(_)
            | FlockCommand::SetZones(None)
            | FlockCommand::ClearGroups
            | FlockCommand::RemovePredator(_)
            | FlockCommand::ClearPredators
            | FlockCommand::RemoveObstacle(_)
            | FlockCommand::ClearObstacles
            | FlockCommand::SetGoal(None)
            | FlockCommand::SetAttractor(None)
            | FlockCommand::SetRoute(None)
            | FlockCommand::RemoveFish { .. } => Ok(()),
        }
    }

    /// Checks the command for `tank`: [`FlockCommand::validate`], and an
    /// obstacle must leave room in it.
    pub fn validate_in(&self, tank: &TankOf<V>) -> Result<(), ParamError> {
        match self {
            FlockCommand::AddObstacle(o) => o.validate_in(tank),
            _ => self.validate(),
        }
    }

    /// Applies the parts of the command that change the scene, the tank or
    /// a school's parameters (`params[school]`), the same way for every
    /// engine; what it does to the fish themselves (spawn, remove, lead,
    /// group, zones) is left to the engine.
    ///
    /// # Errors
    ///
    /// A rock that would close the last room is left out ([`add_rock`]).
    pub fn apply_to_scene(
        &self,
        params: &mut [FlockParams],
        tank: &mut TankOf<V>,
        scene: &mut Scene<V>,
    ) -> Result<(), ParamError> {
        match self {
            FlockCommand::SetParams(p) => {
                if let Some(to) = params.first_mut() {
                    *to = *p;
                }
            }
            FlockCommand::SetSchoolParams { school, params: p } => {
                if let Some(to) = params.get_mut(usize::from(*school)) {
                    *to = *p;
                }
            }
            FlockCommand::SetBoundary(b) => tank.boundary = *b,
            FlockCommand::AddPredator(p) => scene.predators.push(*p),
            FlockCommand::RemovePredator(i) => remove_at(&mut scene.predators, *i),
            FlockCommand::MovePredator { predator, to } => {
                if let Some(p) = scene.predators.get_mut(*predator) {
                    p.position = *to;
                }
            }
            FlockCommand::ClearPredators => scene.predators.clear(),
            // Not added if it would close the last room (`add_rock`), as a
            // spawn past MAX_FISH adds nothing.
            FlockCommand::AddObstacle(o) => add_rock(&mut scene.obstacles, *o, tank)?,
            FlockCommand::RemoveObstacle(i) => remove_at(&mut scene.obstacles, *i),
            FlockCommand::ClearObstacles => scene.obstacles.clear(),
            FlockCommand::SetGoal(g) => scene.goal = *g,
            FlockCommand::SetSchoolGoal { school, goal } => {
                set_goal_entry(&mut scene.school_goals, usize::from(*school), *goal)
            }
            FlockCommand::SetAttractor(a) => scene.attractor = *a,
            FlockCommand::SetRoute(r) => scene.route = r.clone(),
            FlockCommand::SetGroupGoal { group, goal } => scene.set_group_goal(*group, *goal),
            // The fish leave their groups in the engine.
            FlockCommand::ClearGroups => scene.group_goals.clear(),
            FlockCommand::SetZones(_)
            | FlockCommand::SpawnFish { .. }
            | FlockCommand::RemoveFish { .. }
            | FlockCommand::SetLeaders { .. }
            | FlockCommand::FormGroups { .. }
            | FlockCommand::JoinGroup { .. } => {}
        }
        Ok(())
    }
}

/// What a command does to the fish an engine holds (spawn, remove, lead,
/// group, Couzin's zones): each engine's own way of doing it, behind one
/// interpreter ([`FlockCommand::apply_to_fish`]). What a command does to
/// the scene, the tank and the schools' parameters is one function for
/// every engine ([`FlockCommand::apply_to_scene`]).
pub trait CommandedFish<V: Vector> {
    /// Adds `count` fish of `school` evenly in the ball at `centre` of
    /// `radius` (nothing for a school the engine has not); `Err` names
    /// what was left out (the fish past [`MAX_FISH`]).
    fn spawn(&mut self, school: u16, count: usize, centre: V, radius: f32) -> Result<(), ParamError>;
    /// Removes the `count` fish with the highest ids (all, if fewer).
    fn remove_last(&mut self, count: usize);
    /// Makes the fish with these ids lead or follow (an id of no fish is
    /// skipped).
    fn set_leaders(&mut self, fish: &[u32], leads: bool);
    /// Splits `school` (`None`: every fish) into `count` compact groups
    /// numbered from `first`.
    fn form_groups(&mut self, school: Option<u16>, first: u16, count: u16);
    /// Puts the fish with id `id` into `group` (`None`: into none).
    fn set_group(&mut self, id: u32, group: Option<u16>);
    /// Takes every fish out of its group.
    fn clear_groups(&mut self);
    /// Couzin's zones in place of the weighted rules (`None`: the rules);
    /// `Err` where the engine has no zones.
    fn set_zones(&mut self, zones: Option<Zones>) -> Result<(), ParamError>;
}

impl<V: Vector> FlockCommand<V> {
    /// Applies the part of the command that is about the fish themselves to
    /// `fish` (after [`FlockCommand::apply_to_scene`]): the one interpreter
    /// of the commands over every engine.
    ///
    /// # Errors
    ///
    /// What was left out, and why: fish past [`MAX_FISH`], Couzin's zones
    /// where the engine has none.
    pub fn apply_to_fish(&self, fish: &mut impl CommandedFish<V>) -> Result<(), ParamError> {
        match self {
            FlockCommand::SetZones(zones) => return fish.set_zones(*zones),
            FlockCommand::SpawnFish { school, count, centre, radius } => {
                return fish.spawn(*school, *count, *centre, *radius);
            }
            FlockCommand::RemoveFish { count } => fish.remove_last(*count),
            FlockCommand::SetLeaders { fish: ids, leads } => fish.set_leaders(ids, *leads),
            FlockCommand::FormGroups { school, first, count } => fish.form_groups(*school, *first, *count),
            FlockCommand::JoinGroup { fish: ids, group } => {
                for &id in ids {
                    fish.set_group(id, *group);
                }
            }
            FlockCommand::ClearGroups => fish.clear_groups(),
            _ => {}
        }
        Ok(())
    }
}

/// Commands written by an earlier build, in today's words: before a plane
/// and a volume shared one command type, a volume wrote a school's new
/// parameters as `SetParams(school: k, params: …)`, which is now
/// `SetSchoolParams` (`SetParams(…)` holds school 0's parameters alone, as
/// on a plane). The one command whose words changed; recordings and the
/// lab's scripts are read through this, so such files still load. Text in
/// today's words comes back unchanged.
pub fn upgrade_words(text: &str) -> Cow<'_, str> {
    const OLD: &str = "SetParams(";
    if !text.contains(OLD) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(at) = rest.find(OLD) {
        let after = &rest[at + OLD.len()..];
        let word_starts = !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let old_shape = word_starts && after.trim_start().starts_with("school");
        out.push_str(&rest[..at]);
        out.push_str(if old_shape { "SetSchoolParams(" } else { OLD });
        rest = after;
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Whether a spawn of `count` fish, of which `room` fitted, added them
/// all; if not, an error saying how many did.
pub(crate) fn spawned_all(count: usize, room: usize) -> Result<(), ParamError> {
    if room == count {
        return Ok(());
    }
    Err(ParamError {
        field: "count",
        value: count as f32,
        expected: format!("at most {room} more fish (MAX_FISH, {MAX_FISH}, in all): {room} added"),
    })
}

/// The commands that put `scene`'s rocks, predators and route into a
/// running flock (its goals and attractor belong to the configuration):
/// what starting from a scene file sends on its first tick.
pub fn scene_commands(scene: &Scene) -> Vec<FlockCommand> {
    let rocks = scene.obstacles.iter().map(|o| FlockCommand::AddObstacle(*o));
    let predators = scene.predators.iter().map(|p| FlockCommand::AddPredator(*p));
    let route = scene.route.clone().map(|r| FlockCommand::SetRoute(Some(r)));
    rocks.chain(predators).chain(route).collect()
}

/// Checks a spawn: at most [`MAX_SPAWN`] fish, a finite centre, a radius
/// not negative.
pub(crate) fn check_spawn<V: crate::math::Vector>(
    count: usize,
    centre: V,
    radius: f32,
) -> Result<(), ParamError> {
    check("spawn.count", count as f32, Range::Closed(0.0, MAX_SPAWN as f32))?;
    point("spawn.centre", centre)?;
    check("spawn.radius", radius, Range::NonNegative(MAX_LENGTH))
}

/// How many of `count` fish a spawn adds to `present` ones: all of them, up
/// to [`MAX_FISH`] fish in all. Every interpreter of a spawn command
/// (plane, volume, the Bevy plugin's entities) takes this many, so that
/// no run of spawns takes a school past the limit.
pub fn spawn_room(count: usize, present: usize) -> usize {
    count.min(MAX_FISH.saturating_sub(present))
}

/// Removes the item at `index` (later ones move down); an index past the
/// end removes nothing.
pub(crate) fn remove_at<T>(items: &mut Vec<T>, index: usize) {
    if index < items.len() {
        items.remove(index);
    }
}

/// Checks a group number: below [`MAX_GROUPS`].
/// Checks a split into groups: `first + count` groups at most
/// [`MAX_GROUPS`].
pub(crate) fn check_form_groups(first: u16, count: u16) -> Result<(), ParamError> {
    let last = f32::from(first) + f32::from(count);
    check("groups.first + groups.count", last, Range::Closed(0.0, MAX_GROUPS as f32))
}

/// Checks fish joining a group: at most [`MAX_SPAWN`] of them, a group
/// below [`MAX_GROUPS`].
pub(crate) fn check_join_group(fish: &[u32], group: Option<u16>) -> Result<(), ParamError> {
    check("groups.fish", fish.len() as f32, Range::Closed(0.0, MAX_SPAWN as f32))?;
    group_number(group)
}

/// Checks a school's goal: a school number below
/// [`MAX_SCHOOLS`](crate::world::school::MAX_SCHOOLS), a valid goal.
pub(crate) fn check_school_goal<V: crate::math::Vector>(
    school: u16,
    goal: Option<&Goal<V>>,
) -> Result<(), ParamError> {
    let most = crate::world::school::MAX_SCHOOLS as f32 - 1.0;
    check("goal.school", f32::from(school), Range::Closed(0.0, most))?;
    goal.map_or(Ok(()), Goal::validate)
}

/// Checks a group's goal: a group below [`MAX_GROUPS`], a valid goal.
pub(crate) fn check_group_goal<V: crate::math::Vector>(
    group: u16,
    goal: Option<&Goal<V>>,
) -> Result<(), ParamError> {
    group_number(Some(group))?;
    goal.map_or(Ok(()), Goal::validate)
}

fn group_number(group: Option<u16>) -> Result<(), ParamError> {
    let g = group.map_or(0.0, f32::from);
    check("groups.group", g, Range::Closed(0.0, MAX_GROUPS as f32 - 1.0))
}

/// What the noise of a spawn is keyed by: the seed, the tick and the slot
/// the first new fish will take (so two spawns in one tick differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpawnKey {
    /// The run's seed.
    pub seed: u64,
    /// The tick of the spawn.
    pub tick: u64,
    /// Slot of the first new fish (the fish count before the spawn).
    pub first_slot: u64,
}

/// `count` new fish spread over the ball `(centre, radius)` (a disc on a
/// plane, clipped to the tank), heading randomly at half the top speed:
/// the fish of a `SpawnFish` command in either space, a pure function of
/// its arguments (counter-based noise keyed by the spawn, no generator).
pub fn spawn_disc<V: Vector>(
    key: SpawnKey,
    count: usize,
    centre: V,
    radius: f32,
    tank: &TankOf<V>,
    params: &FlockParams,
) -> Vec<FishStart<V>> {
    use core::f32::consts::PI;
    let draw = TickKey::new(key.seed, key.tick);
    (0..count as u64)
        .map(|k| {
            let slot = key.first_slot + k;
            let offset = draw.in_unit_ball::<V>(slot, Stream::Spawn) * radius;
            let position = tank.clamp_inside(centre + offset);
            let turn = noise::signed_pair(draw.bits(!slot, Stream::Spawn));
            // A volume's heading has a height, and its wander a circle of
            // its own: draws a plane does not make.
            let (height, circle) = if V::DIM > 2 {
                let axis = draw.in_unit_ball::<V>(slot, Stream::SpawnTilt).try_normalize().unwrap_or(V::X);
                (draw.signed(!slot, Stream::SpawnTilt), V::circle_around(axis))
            } else {
                (0.0, V::circle_around(V::X))
            };
            let heading = V::unit_at(turn.x * PI, height);
            FishStart {
                position,
                velocity: heading * params.max_speed * 0.5,
                wander_phase: turn.y * PI,
                circle,
            }
        })
        .collect()
}

/// A change a run's [`CommandQueue`] holds until its tick: a
/// [`FlockCommand`] on a plane, a [`VolumeCommand`] in a volume.
pub trait Command: Clone {
    /// Checks every number in the command; the error names the field.
    fn check(&self) -> Result<(), ParamError>;
}

impl<V: Vector> Command for FlockCommand<V> {
    fn check(&self) -> Result<(), ParamError> {
        self.validate()
    }
}

/// A command and the tick at the start of which it applies.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stamped<C = FlockCommand> {
    /// The tick: the command applies before the flock's tick counter moves
    /// from `tick` to `tick + 1`.
    pub tick: u64,
    /// What to do.
    pub command: C,
}

/// Why a command was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandError {
    /// A number in the command is out of range.
    Invalid(ParamError),
    /// The tick has already been simulated.
    Past {
        /// The tick asked for.
        tick: u64,
        /// The next tick to be simulated.
        now: u64,
    },
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Invalid(e) => write!(f, "command refused: {e}"),
            CommandError::Past { tick, now } => {
                write!(f, "command for tick {tick} refused: tick {now} is the earliest still to come")
            }
        }
    }
}

impl std::error::Error for CommandError {}

impl From<ParamError> for CommandError {
    fn from(e: ParamError) -> Self {
        CommandError::Invalid(e)
    }
}

/// Commands waiting for their tick, kept in the order they will apply:
/// by tick, then by the order they were scheduled.
#[derive(Clone, Debug, PartialEq)]
pub struct CommandQueue<C = FlockCommand> {
    pending: BTreeMap<(u64, u64), C>,
    scheduled: u64,
}

impl<C> Default for CommandQueue<C> {
    fn default() -> Self {
        Self { pending: BTreeMap::new(), scheduled: 0 }
    }
}

impl<C: Command> CommandQueue<C> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates `command` and queues it for `tick`. `now` is the next tick
    /// to be simulated; earlier ticks are refused.
    pub fn schedule(&mut self, now: u64, tick: u64, command: C) -> Result<(), CommandError> {
        if tick < now {
            return Err(CommandError::Past { tick, now });
        }
        command.check()?;
        self.pending.insert((tick, self.scheduled), command);
        self.scheduled += 1;
        Ok(())
    }

    /// Removes and returns every command due at or before `tick`, in the
    /// order they apply.
    pub fn take_due(&mut self, tick: u64) -> Vec<Stamped<C>> {
        let later = self.pending.split_off(&(tick + 1, 0));
        let due = core::mem::replace(&mut self.pending, later);
        due.into_iter().map(|((tick, _), command)| Stamped { tick, command }).collect()
    }

    /// Commands still waiting.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether no command is waiting.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The waiting commands, in the order they will apply.
    pub fn iter(&self) -> impl Iterator<Item = Stamped<C>> + '_ {
        self.pending.iter().map(|(&(tick, _), command)| Stamped { tick, command: command.clone() })
    }

    /// Drops every waiting command.
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::tank::Tank;

    #[test]
    fn due_commands_come_out_by_tick_then_by_order_scheduled() {
        let mut q = CommandQueue::new();
        q.schedule(0, 5, FlockCommand::ClearObstacles).unwrap();
        q.schedule(0, 2, FlockCommand::ClearPredators).unwrap();
        q.schedule(0, 5, FlockCommand::RemoveFish { count: 1 }).unwrap();
        q.schedule(0, 9, FlockCommand::SetGoal(None)).unwrap();
        let due = q.take_due(5);
        let order: Vec<(u64, FlockCommand)> = due.into_iter().map(|s| (s.tick, s.command)).collect();
        assert_eq!(
            order,
            [
                (2, FlockCommand::ClearPredators),
                (5, FlockCommand::ClearObstacles),
                (5, FlockCommand::RemoveFish { count: 1 })
            ]
        );
        assert_eq!(q.len(), 1);
        assert!(q.take_due(8).is_empty());
        assert_eq!(q.take_due(9).len(), 1);
        assert!(q.is_empty());
    }

    #[test]
    fn bad_and_late_commands_are_refused_and_not_queued() {
        let mut q = CommandQueue::new();
        let err = q.schedule(10, 3, FlockCommand::ClearObstacles).unwrap_err();
        assert_eq!(err, CommandError::Past { tick: 3, now: 10 });
        let bad = FlockCommand::AddObstacle(Obstacle { centre: Vec2::ZERO, radius: f32::NAN });
        let err = q.schedule(10, 12, bad).unwrap_err();
        assert!(err.to_string().contains("obstacle.radius"), "{err}");
        let params = FlockParams { max_speed: -1.0, ..FlockParams::default() };
        assert!(
            q.schedule(10, 12, FlockCommand::SetParams(params))
                .unwrap_err()
                .to_string()
                .contains("max_speed")
        );
        let spawn = FlockCommand::SpawnFish {
            school: 0,
            count: 5,
            centre: Vec2::new(f32::INFINITY, 0.0),
            radius: 1.0,
        };
        assert!(q.schedule(10, 12, spawn).is_err());
        assert!(q.is_empty());
    }

    #[test]
    fn old_words_are_upgraded_and_todays_left_alone() {
        let old = "[(tick: 3, command: SetParams(\n  school: 1, params: ())), (tick: 4, command: SetParams((max_speed: 9.0)))]";
        assert_eq!(
            upgrade_words(old),
            "[(tick: 3, command: SetSchoolParams(\n  school: 1, params: ())), (tick: 4, command: SetParams((max_speed: 9.0)))]"
        );
        let today =
            "[SetSchoolParams(school: 1, params: ()), SetParams((max_speed: 1.0)), MySetParams(school: 1)]";
        assert_eq!(upgrade_words(today), today);
    }

    #[test]
    fn spawns_stop_at_the_most_fish_a_run_holds() {
        assert_eq!(spawn_room(1_000_000, 0), 1_000_000);
        // Eleven spawns of a million: ten million, not eleven.
        let total = (0..11).fold(0, |present, _| present + spawn_room(1_000_000, present));
        assert_eq!(total, MAX_FISH);
        assert_eq!(spawn_room(usize::MAX, MAX_FISH - 3), 3);
        assert_eq!(spawn_room(5, MAX_FISH + 10), 0, "already past it: none");
        assert!(spawned_all(7, 7).is_ok());
        let partly = spawned_all(7, 3).unwrap_err();
        assert_eq!(partly.field, "count");
        assert!(partly.to_string().contains("3 added"), "{partly}");
    }

    #[test]
    fn spawn_and_remove_fish() {
        use crate::space::TickStage;
        let params = FlockParams::default();
        let start = || crate::Simulation::new(params, Tank::default(), 0, 4).unwrap();
        let spawn =
            FlockCommand::SpawnFish { school: 0, count: 40, centre: Vec2::new(600.0, 0.0), radius: 100.0 };
        let mut sim = start();
        sim.submit(spawn.clone()).unwrap();
        sim.run_to(TickStage::Commands);
        assert_eq!(sim.len(), 40);
        for (p, v) in sim.positions().iter().zip(sim.velocities()) {
            assert!(sim.tank().contains(*p), "{p}");
            assert!(p.distance(Vec2::new(600.0, 0.0)) <= 100.0 + 1e-3);
            assert!((v.length() - params.max_speed * 0.5).abs() < 1e-3);
        }
        // The same command on the same state places the fish identically.
        let mut again = start();
        again.submit(spawn).unwrap();
        again.run_to(TickStage::Commands);
        assert_eq!(crate::state_hash(&sim), crate::state_hash(&again));
        sim.step();
        sim.submit(FlockCommand::RemoveFish { count: 15 }).unwrap();
        sim.step();
        assert_eq!(sim.len(), 25);
        sim.submit(FlockCommand::RemoveFish { count: 100 }).unwrap();
        sim.step();
        assert!(sim.is_empty());
    }

    #[test]
    fn scene_commands() {
        let (mut params, mut tank, mut scene) = ([FlockParams::default()], Tank::default(), Scene::default());
        let mut run = |c: FlockCommand| c.apply_to_scene(&mut params, &mut tank, &mut scene).unwrap();
        run(FlockCommand::AddPredator(Predator::new(Vec2::ONE, 50.0)));
        run(FlockCommand::AddPredator(Predator::new(Vec2::ZERO, 60.0)));
        run(FlockCommand::AddObstacle(Obstacle { centre: Vec2::X, radius: 3.0 }));
        run(FlockCommand::RemovePredator(0));
        run(FlockCommand::RemovePredator(7));
        run(FlockCommand::RemoveObstacle(3));
        run(FlockCommand::SetBoundary(BoundaryMode::Wrap));
        run(FlockCommand::SetAttractor(Some(Attractor { point: Vec2::ONE, strength: -2.0, radius: 80.0 })));
        run(FlockCommand::MovePredator { predator: 0, to: Vec2::new(5.0, -7.0) });
        run(FlockCommand::MovePredator { predator: 3, to: Vec2::ONE });
        assert_eq!(scene.predators.len(), 1);
        assert_eq!(
            (scene.predators[0].fear_radius, scene.predators[0].position),
            (60.0, Vec2::new(5.0, -7.0))
        );
        let nowhere = FlockCommand::MovePredator { predator: 0, to: Vec2::new(f32::NAN, 0.0) };
        assert_eq!(nowhere.validate().unwrap_err().field, "predator.to");
        assert_eq!(scene.obstacles.len(), 1);
        assert_eq!(tank.boundary, BoundaryMode::Wrap);
        assert!(scene.attractor.is_some());
        let mut run = |c: FlockCommand| c.apply_to_scene(&mut params, &mut tank, &mut scene).unwrap();
        run(FlockCommand::ClearPredators);
        run(FlockCommand::ClearObstacles);
        assert!(scene.predators.is_empty() && scene.obstacles.is_empty());
        let goal = Goal::seek(Vec2::ONE, 1.0);
        let mut run = |c: FlockCommand| c.apply_to_scene(&mut params, &mut tank, &mut scene).unwrap();
        run(FlockCommand::SetSchoolGoal { school: 2, goal: Some(goal) });
        assert_eq!(scene.school_goals, [None, None, Some(goal)]);
        assert_eq!(scene.goal_of(2), Some(goal));
        let mut run = |c: FlockCommand| c.apply_to_scene(&mut params, &mut tank, &mut scene).unwrap();
        run(FlockCommand::SetSchoolGoal { school: 2, goal: None });
        run(FlockCommand::SetSchoolGoal { school: 9, goal: None });
        assert_eq!(scene.school_goals, [None, None, None]);
        let far: FlockCommand = FlockCommand::SetSchoolGoal { school: u16::MAX, goal: None };
        assert_eq!(far.validate().unwrap_err().field, "goal.school");
    }
}
