//! What shares the tank with the school: obstacles, predators, goals, an
//! attract/repel point and the leaders' route. This module holds the
//! things themselves and their validation; how fish react to them is in
//! [`crate::rules::scene`].

use glam::{Vec2, Vec3};

use crate::math::Vector;

use super::params::{MAX_ACCELERATION, MAX_LENGTH, MAX_TANK_SIDE, MAX_WEIGHT, ParamError, Range, check};
use super::tank::TankOf;

/// Most groups a scene may give goals to (group numbers run below it).
pub const MAX_GROUPS: usize = 4096;

/// A circular rock, coral or wall post that fish steer around and never
/// enter.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct Obstacle<V: Vector = Vec2> {
    /// Centre (world units).
    pub centre: V,
    /// Radius (world units, > 0).
    pub radius: f32,
}

impl<V: Vector> Obstacle<V> {
    /// Checks the obstacle; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        point("obstacle.centre", self.centre)?;
        check("obstacle.radius", self.radius, Range::Positive(MAX_LENGTH))
    }

    /// Checks the obstacle in `tank`: besides [`Obstacle::validate`], it
    /// must leave room for the fish (not cover every corner of the tank).
    pub fn validate_in(&self, tank: &TankOf<V>) -> Result<(), ParamError> {
        self.validate()?;
        if self.covers(tank) {
            return Err(ParamError {
                field: "obstacle.radius",
                value: self.radius,
                expected: "small enough to leave room in the tank (this obstacle covers all of it)".into(),
            });
        }
        Ok(())
    }

    /// Whether `p` lies inside (or on) the obstacle.
    #[inline]
    pub fn contains(&self, p: V) -> bool {
        p.distance_squared(self.centre) < self.radius * self.radius
    }

    /// Whether the obstacle covers the whole tank (all four corners).
    pub fn covers(&self, tank: &TankOf<V>) -> bool {
        let r2 = self.radius * self.radius;
        tank.corners().all(|c| c.distance_squared(self.centre) <= r2)
    }
}

/// Whether `p` lies in none of `obstacles`.
#[inline]
pub fn in_open_water<V: Vector>(p: V, obstacles: &[Obstacle<V>]) -> bool {
    !obstacles.iter().any(|o| o.contains(p))
}

/// Points tried per axis by [`check_room`]: about four thousand in all
/// on a plane (64²) and in a volume (16³).
fn room_lattice(dim: usize) -> usize {
    if dim == 2 { 64 } else { 16 }
}

/// The points [`check_room`] tries: the tank's corners, then the centres
/// of an even lattice of cells over it (64 × 64 on a plane, 16 × 16 × 16
/// in a volume). Where rocks leave room, one of these is free: the push
/// out of rocks puts a fish nowhere else can take on the nearest of them.
pub fn room_points<V: Vector>(tank: &TankOf<V>) -> impl Iterator<Item = V> + '_ {
    let n = room_lattice(V::DIM);
    let size = tank.max - tank.min;
    let lattice = (0..n.pow(V::DIM as u32)).map(move |cell| {
        V::from_fn(|i| {
            let k = (cell / n.pow(i as u32)) % n;
            tank.min.axis(i) + size.axis(i) * ((k as f32 + 0.5) / n as f32)
        })
    });
    tank.corners().chain(lattice)
}

/// Checks that `obstacles` together leave room in `tank`: a corner of the
/// tank, or some point of an even lattice over it (the centres of 64 × 64
/// cells on a plane, 16 × 16 × 16 in a volume), lies in none of them. Each
/// rock may pass [`Obstacle::validate_in`] (which leaves a corner free)
/// while two or more cover the tank between them; then no fish could be
/// anywhere, so the set is refused. One rock passes whenever
/// [`Obstacle::validate_in`] does.
///
/// # Errors
///
/// Names `obstacles`, with their number.
pub fn check_room<V: Vector>(obstacles: &[Obstacle<V>], tank: &TankOf<V>) -> Result<(), ParamError> {
    if obstacles.is_empty() {
        return Ok(());
    }
    if room_points(tank).any(|p| in_open_water(p, obstacles)) {
        return Ok(());
    }
    Err(ParamError {
        field: "obstacles",
        value: obstacles.len() as f32,
        expected: "rocks that together leave room in the tank (these cover all of it between them)".into(),
    })
}

/// Adds `rock` to `rocks` if, with them, it still leaves room in `tank`
/// ([`check_room`]); otherwise leaves `rocks` as they were. This is how a
/// rock arriving in a running tank (a command, a game's entity) is added:
/// each is checked alone when it is queued, so rocks added one by one
/// could otherwise cover the tank between them, and fish would have
/// nowhere to be. The rock that would close the last room is the one
/// left out, in the order the rocks arrive, so a replay leaves out the
/// same one.
///
/// # Errors
///
/// Names `obstacle` with its radius, and how many rocks were there.
pub fn add_rock<V: Vector>(
    rocks: &mut Vec<Obstacle<V>>,
    rock: Obstacle<V>,
    tank: &TankOf<V>,
) -> Result<(), ParamError> {
    rocks.push(rock);
    if check_room(rocks, tank).is_ok() {
        return Ok(());
    }
    rocks.pop();
    Err(ParamError {
        field: "obstacle",
        value: rock.radius,
        expected: format!(
            "a rock that leaves room beside the {} already in the tank (together they would cover all of it)",
            rocks.len()
        ),
    })
}

/// Sets (or clears) entry `index` of a goal table (per school or per
/// group), growing it only to hold a goal.
pub fn set_goal_entry<V: Vector>(goals: &mut Vec<Option<Goal<V>>>, index: usize, goal: Option<Goal<V>>) {
    if index >= goals.len() {
        if goal.is_none() {
            return;
        }
        goals.resize(index + 1, None);
    }
    goals[index] = goal;
}

/// Checks that every coordinate of a point (or a velocity) is finite and
/// within the largest admissible tank; the error names `field` and the bad
/// coordinate.
pub fn point<V: Vector>(field: &'static str, v: V) -> Result<(), ParamError> {
    (0..V::DIM).try_for_each(|i| check(field, v.axis(i), Range::Symmetric(MAX_TANK_SIDE)))
}

/// A moving source of fear. Fish within its fear radius flee, swim faster
/// and keep more distance from each other; a chasing predator steers at the
/// nearest fish.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct Predator<V: Vector = Vec2> {
    /// Position (world units).
    pub position: V,
    /// Velocity (world units per second).
    pub velocity: V,
    /// Fish closer than this are afraid (world units).
    pub fear_radius: f32,
    /// The predator's own speed limit.
    pub max_speed: f32,
    /// The predator's own steering limit.
    pub max_force: f32,
    /// Whether it hunts the nearest fish (else it keeps its velocity, e.g.
    /// when a player moves it).
    pub chase: bool,
}

impl<V: Vector> Predator<V> {
    /// A chasing predator at `position`, at rest, with a fear radius of
    /// `fear_radius`, a little faster than the reference school.
    pub fn new(position: V, fear_radius: f32) -> Self {
        Self { position, velocity: V::ZERO, fear_radius, max_speed: 200.0, max_force: 400.0, chase: true }
    }

    /// Checks the predator; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        point("predator.position", self.position)?;
        point("predator.velocity", self.velocity)?;
        check("predator.fear_radius", self.fear_radius, Range::NonNegative(MAX_LENGTH))?;
        check("predator.max_speed", self.max_speed, Range::NonNegative(MAX_LENGTH))?;
        check("predator.max_force", self.max_force, Range::NonNegative(MAX_ACCELERATION))
    }
}

/// How a school relates to its goal point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub enum GoalMode {
    /// Head for the point at full speed.
    #[default]
    Seek,
    /// Head for the point, slowing down within the slowing radius.
    Arrive,
    /// Keep away from the point.
    Flee,
}

/// A point the school as a whole is drawn to (or away from): a waypoint, the
/// cursor, a decision maker's answer.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct Goal<V: Vector = Vec2> {
    /// The point.
    pub target: V,
    /// Seek, arrive or flee.
    pub mode: GoalMode,
    /// Weight of the goal force.
    pub weight: f32,
    /// `Arrive` slows down within this distance.
    pub slowing_radius: f32,
}

impl<V: Vector> Goal<V> {
    /// Checks the goal; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        point("goal.target", self.target)?;
        check("goal.weight", self.weight, Range::Symmetric(MAX_WEIGHT))?;
        check("goal.slowing_radius", self.slowing_radius, Range::Positive(MAX_LENGTH))
    }

    /// Seek `target` with weight `weight`.
    pub fn seek(target: V, weight: f32) -> Self {
        Self { target, mode: GoalMode::Seek, weight, slowing_radius: 100.0 }
    }
}

/// A point force within a radius: positive strength attracts, negative
/// repels (e.g. dragging the mouse through the tank).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct Attractor<V: Vector = Vec2> {
    /// The point.
    pub point: V,
    /// Weight: > 0 attracts, < 0 repels.
    pub strength: f32,
    /// Fish farther than this feel nothing.
    pub radius: f32,
}

impl<V: Vector> Attractor<V> {
    /// Checks the attractor; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        point("attractor.point", self.point)?;
        check("attractor.strength", self.strength, Range::Symmetric(MAX_WEIGHT))?;
        check("attractor.radius", self.radius, Range::Positive(MAX_LENGTH))
    }
}

/// A waypoint path for the school's leaders: they seek the current
/// waypoint and arrive at the last; once the leaders' centre comes within
/// `reach` of a waypoint, the next one becomes current.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct Route<V: Vector = Vec2> {
    /// The waypoints, in order.
    pub waypoints: Vec<V>,
    /// Index of the current waypoint.
    pub next: usize,
    /// How close the leaders' centre must come to pass a waypoint.
    pub reach: f32,
    /// Start over after the last waypoint instead of stopping there.
    pub looping: bool,
    /// Weight of the leaders' pull towards the current waypoint.
    pub weight: f32,
    /// Slow down at the last waypoint (`Arrive`) rather than keep seeking
    /// it (and circle it, as a school does around a reef).
    pub arrive: bool,
}

impl<V: Vector> Route<V> {
    /// Checks the route; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        for &w in &self.waypoints {
            point("route.waypoints", w)?;
        }
        check("route.reach", self.reach, Range::Positive(MAX_LENGTH))?;
        check("route.weight", self.weight, Range::Symmetric(MAX_WEIGHT))?;
        // The current waypoint is one of them (0 for a route without any).
        let last = self.waypoints.len().saturating_sub(1);
        if self.next > last {
            return Err(ParamError {
                field: "route.next",
                value: self.next as f32,
                expected: format!("a waypoint's index, 0 to {last}"),
            });
        }
        Ok(())
    }

    /// A route through `waypoints`, passed within `reach`, pulling with
    /// weight 2, circling the last waypoint.
    pub fn new(waypoints: Vec<V>, reach: f32) -> Self {
        Self { waypoints, next: 0, reach, looping: false, weight: 2.0, arrive: false }
    }

    /// The goal the leaders steer for now, if the route has waypoints.
    pub fn goal(&self) -> Option<Goal<V>> {
        let target = *self.waypoints.get(self.next.min(self.waypoints.len().checked_sub(1)?))?;
        let last = self.next.saturating_add(1) >= self.waypoints.len() && !self.looping;
        let mode = if last && self.arrive { GoalMode::Arrive } else { GoalMode::Seek };
        Some(Goal { target, mode, weight: self.weight, slowing_radius: self.reach.max(1.0) * 2.0 })
    }

    /// Moves on to the next waypoint if `centre` (of the leaders) has
    /// reached the current one.
    pub fn advance(&mut self, centre: V) {
        let Some(&target) = self.waypoints.get(self.next) else { return };
        if (centre - target).length() <= self.reach {
            if self.next.saturating_add(1) < self.waypoints.len() {
                self.next += 1;
            } else if self.looping {
                self.next = 0;
            }
        }
    }
}

/// Everything in the tank besides the fish, on a plane (`Scene`, the
/// default) or in a volume ([`Scene3d`]): rocks, predators, goals, an
/// attract/repel point and the leaders' route.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct Scene<V: Vector = Vec2> {
    /// Obstacles: discs on a plane, spheres in a volume, that the fish
    /// steer round and cannot enter.
    pub obstacles: Vec<Obstacle<V>>,
    /// Predators.
    pub predators: Vec<Predator<V>>,
    /// The goal of every school, if any.
    pub goal: Option<Goal<V>>,
    /// Goals per school (index = school number); an entry replaces `goal`
    /// for that school.
    pub school_goals: Vec<Option<Goal<V>>>,
    /// The attract/repel point, if any.
    pub attractor: Option<Attractor<V>>,
    /// The leaders' waypoint path, if any (only fish marked as leaders
    /// follow it; the rest follow them).
    pub route: Option<Route<V>>,
    /// Goals per group (index = group number, see
    /// [`Swarm::groups`](crate::space::Swarm::groups)): a fish in a group steers for its group's
    /// goal on top of its school's. What a decision maker or a game sets
    /// for part of a school, or for one fish. At most [`MAX_GROUPS`].
    pub group_goals: Vec<Option<Goal<V>>>,
}

/// What shares a volume with the school.
pub type Scene3d = Scene<Vec3>;

impl<V: Vector> Default for Scene<V> {
    fn default() -> Self {
        Self {
            obstacles: Vec::new(),
            predators: Vec::new(),
            goal: None,
            school_goals: Vec::new(),
            attractor: None,
            route: None,
            group_goals: Vec::new(),
        }
    }
}

impl<V: Vector> Scene<V> {
    /// Whether nothing in the scene steers a fish: no rock, no predator,
    /// no goal (shared, a school's, or a group's where some fish are
    /// `grouped`), no attract/repel point, and no route where a fish
    /// `leads`. The force passes then leave the scene's reactions out,
    /// which add exact zeros there.
    pub(crate) fn leaves_fish_alone(&self, grouped: bool, leads: bool) -> bool {
        self.obstacles.is_empty()
            && self.predators.is_empty()
            && self.goal.is_none()
            && self.school_goals.iter().all(Option::is_none)
            && (!grouped || self.group_goals.iter().all(Option::is_none))
            && self.attractor.is_none()
            && (self.route.is_none() || !leads)
    }

    /// The goal that school `school` steers for: its own, else the shared
    /// one.
    pub fn goal_of(&self, school: usize) -> Option<Goal<V>> {
        school_goal(self.goal.as_ref(), &self.school_goals, school).copied()
    }

    /// The goal of group `group`, if it has one.
    #[inline]
    pub fn group_goal(&self, group: u16) -> Option<Goal<V>> {
        self.group_goals.get(usize::from(group)).copied().flatten()
    }

    /// Sets (or clears) the goal of group `group` (below [`MAX_GROUPS`]),
    /// growing the table as needed; a group beyond it is ignored.
    pub fn set_group_goal(&mut self, group: u16, goal: Option<Goal<V>>) {
        if usize::from(group) < MAX_GROUPS {
            set_goal_entry(&mut self.group_goals, usize::from(group), goal);
        }
    }

    /// Checks a scene as it arrives (a configuration, a whole new scene):
    /// [`Scene::validate_in`], and the obstacles together leave room in
    /// `tank` ([`check_room`]).
    pub fn validate_with_room(&self, tank: &TankOf<V>) -> Result<(), ParamError> {
        self.validate_in(tank)?;
        check_room(&self.obstacles, tank)
    }

    /// Checks every element in `tank`: each valid ([`Scene::validate`]),
    /// and no obstacle covering the whole tank. (Whether the obstacles
    /// cover it between them, [`check_room`], is checked when a scene
    /// arrives, [`Scene::validate_with_room`]: this one is cheap enough
    /// for every tick.)
    pub fn validate_in(&self, tank: &TankOf<V>) -> Result<(), ParamError> {
        for o in &self.obstacles {
            o.validate_in(tank)?;
        }
        self.validate()
    }

    /// Checks every element; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        for o in &self.obstacles {
            o.validate()?;
        }
        for p in &self.predators {
            p.validate()?;
        }
        check_goals(&self.goal, &self.school_goals, &self.group_goals)?;
        if let Some(r) = &self.route {
            r.validate()?;
        }
        if let Some(a) = &self.attractor {
            a.validate()?;
        }
        Ok(())
    }
}

/// The goal the fish of school `school` steer for, in either space: the
/// school's own entry in `school_goals` where it has one, else the shared
/// `goal`. A school's goal replaces the shared goal rather than adding to
/// it, so a school sent elsewhere goes there instead of stopping halfway
/// between the two. (A group's goal, by contrast, is added on top.)
#[inline]
pub fn school_goal<'a, V: Vector>(
    goal: Option<&'a Goal<V>>,
    school_goals: &'a [Option<Goal<V>>],
    school: usize,
) -> Option<&'a Goal<V>> {
    school_goals.get(school).and_then(Option::as_ref).or(goal)
}

/// Checks the goals of a scene: every one
/// valid, at most [`MAX_GROUPS`] groups' goals.
fn check_goals<V: Vector>(
    goal: &Option<Goal<V>>,
    school_goals: &[Option<Goal<V>>],
    group_goals: &[Option<Goal<V>>],
) -> Result<(), ParamError> {
    if group_goals.len() > MAX_GROUPS {
        return Err(ParamError {
            field: "group_goals",
            value: group_goals.len() as f32,
            expected: format!("at most {MAX_GROUPS} groups"),
        });
    }
    let goals = school_goals.iter().chain(group_goals).flatten();
    goal.iter().chain(goals).try_for_each(Goal::validate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_advances_and_arrives_at_its_end() {
        let mut r = Route::new(vec![Vec2::new(100.0, 0.0), Vec2::new(100.0, 100.0)], 10.0);
        assert_eq!(r.goal().unwrap().mode, GoalMode::Seek);
        r.advance(Vec2::ZERO);
        assert_eq!(r.next, 0);
        r.advance(Vec2::new(95.0, 0.0));
        assert_eq!(r.next, 1);
        assert_eq!(r.goal().unwrap().mode, GoalMode::Seek);
        assert_eq!(Route { arrive: true, ..r.clone() }.goal().unwrap().mode, GoalMode::Arrive);
        r.advance(Vec2::new(100.0, 100.0));
        assert_eq!(r.next, 1, "stays on the last waypoint");
        assert!(Route::<Vec2>::new(vec![], 1.0).goal().is_none());
    }

    #[test]
    fn invalid_scene_elements_are_named() {
        let mut s = Scene::default();
        s.obstacles.push(Obstacle { centre: Vec2::ZERO, radius: -1.0 });
        assert_eq!(s.validate().unwrap_err().field, "obstacle.radius");
        let s = Scene {
            predators: vec![Predator { fear_radius: f32::NAN, ..Predator::new(Vec2::ZERO, 1.0) }],
            ..Scene::default()
        };
        assert_eq!(s.validate().unwrap_err().field, "predator.fear_radius");
    }
}
