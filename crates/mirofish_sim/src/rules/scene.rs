//! How fish react to what shares their tank — obstacles, predators, goals,
//! the attract/repel point — and how a predator moves. Pure functions:
//! each returns a velocity change (like the three rules), which the force
//! kernel weights and adds before the single clamp of the total; the
//! integrator's [`push_out`] is the hard constraint behind avoidance.

use super::{RuleForces, boundary, steer};
use crate::math::Vector;
use crate::world::params::FlockParams;
use crate::world::scene::{Attractor, Goal, GoalMode, Obstacle, Predator, Scene, in_open_water, room_points};
use crate::world::tank::{BoundaryMode, TankOf};

/// One fish as the scene's reactions see it ([`react`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Swimmer<V> {
    /// Where it is.
    pub position: V,
    /// How it moves.
    pub velocity: V,
    /// Its fear at the start of the tick (the fright of the tick before).
    pub fear: f32,
    /// Its school (an index into the school table).
    pub school: usize,
    /// Its group, if it is in one.
    pub group: Option<u16>,
    /// Whether it leads: a leader steers for the route's goal too.
    pub leads: bool,
}

/// Adds what the scene asks of a fish to its rule `forces`, in both spaces
/// and in this order: fear's harder push from the fish inside its
/// separation radius ([`panic_separation_gain`]); rocks and predators,
/// looked at with the fear-raised speed ([`panic_speed_limit`]); then, at
/// the calm speed, its school's goal (else the shared one), its group's
/// goal, the attract/repel point and, for a leader, the route's goal
/// (`route_goal`). Returns the fright predators cause it this tick.
///
/// Where the scene holds nothing that steers and the fish is calm, every
/// term is an exact zero and the factor is exactly one: a caller may leave
/// the call out there, with the same bits.
#[inline]
pub fn react<V: Vector>(
    forces: &mut RuleForces<V>,
    fish: &Swimmer<V>,
    scene: &Scene<V>,
    route_goal: Option<&Goal<V>>,
    params: &FlockParams,
) -> f32 {
    let (p, v) = (fish.position, fish.velocity);
    forces.separation *= panic_separation_gain(fish.fear, params);
    let look = panic_speed_limit(fish.fear, params);
    if !scene.obstacles.is_empty() {
        let away =
            scene.obstacles.iter().fold(V::ZERO, |sum, o| sum + avoid(p, o, params.obstacle_look, look));
        forces.obstacle = steer(away, params.obstacle_weight, params);
    }
    let mut fright = 0.0f32;
    if !scene.predators.is_empty() {
        let mut flight = V::ZERO;
        for predator in &scene.predators {
            let (f, change) = flee(p, v, predator, look);
            fright = fright.max(f);
            flight += change;
        }
        forces.flee = steer(flight, params.flee_weight, params);
    }
    let calm = params.desired_speed();
    let group = fish.group.and_then(|g| scene.group_goal(g));
    for goal in scene.goal_of(fish.school).into_iter().chain(group) {
        forces.goal += steer(pursue(p, v, &goal, calm), goal.weight, params);
    }
    if let Some(a) = &scene.attractor {
        forces.goal += steer(attract(p, a, calm), a.strength.abs(), params);
    }
    if let Some(goal) = route_goal.filter(|_| fish.leads) {
        forces.goal += steer(pursue(p, v, goal, calm), goal.weight, params);
    }
    fright
}

/// Obstacle avoidance: within `look` of an obstacle's surface, a desired
/// velocity straight away from its centre, ramping from 0 at `look` to
/// `max_speed` at the surface. Zero when far.
#[inline]
pub fn avoid<V: Vector>(p: V, obstacle: &Obstacle<V>, look: f32, max_speed: f32) -> V {
    let away = p - obstacle.centre;
    let dist = away.length();
    let gap = dist - obstacle.radius;
    if gap >= look || look <= 0.0 {
        return V::ZERO;
    }
    let ramp = (1.0 - gap / look).clamp(0.0, 1.0);
    away.try_normalize().unwrap_or(V::X) * (max_speed * ramp)
}

/// Flight from a predator: how afraid a fish at `p` is (0 outside the fear
/// radius, 1 on top of the predator) and the velocity change that flees
/// (desired velocity away at full speed, scaled by that fear).
#[inline]
pub fn flee<V: Vector>(p: V, velocity: V, predator: &Predator<V>, max_speed: f32) -> (f32, V) {
    let away = p - predator.position;
    let d = away.length();
    if d >= predator.fear_radius || predator.fear_radius <= 0.0 {
        return (0.0, V::ZERO);
    }
    let fear = 1.0 - d / predator.fear_radius;
    let desired = away.try_normalize().unwrap_or(V::X) * max_speed;
    (fear, (desired - velocity) * fear)
}

/// How much harder a fish with fear `fear` (0 calm, 1 fully afraid)
/// pushes away from the fish inside its separation radius:
/// `panic_separation` times at full fear. Fear scales the push, not the
/// radius, in both spaces: a frightened school packs less tightly without
/// every fish suddenly feeling neighbours it did not feel before.
#[inline]
pub fn panic_separation_gain(fear: f32, params: &FlockParams) -> f32 {
    1.0 + (params.panic_separation - 1.0) * fear
}

/// The speed limit of a fish with fear `fear`: `max_speed`, raised to
/// `panic_speed` times it at full fear. It is also the speed a fish looks
/// ahead with when it steers round rocks and away from predators: a fish
/// that flees faster reacts sooner. Goals and the attract/repel point keep
/// the calm speed (fear does not make a fish hurry towards a goal).
#[inline]
pub fn panic_speed_limit(fear: f32, params: &FlockParams) -> f32 {
    params.max_speed * (1.0 + (params.panic_speed - 1.0) * fear)
}

/// Seek, arrive or flee a goal: desired velocity minus current velocity.
#[inline]
pub fn pursue<V: Vector>(p: V, velocity: V, goal: &Goal<V>, max_speed: f32) -> V {
    let to = goal.target - p;
    let d = to.length();
    let dir = to.try_normalize().unwrap_or(V::ZERO);
    let desired = match goal.mode {
        GoalMode::Seek => dir * max_speed,
        GoalMode::Arrive => dir * max_speed * (d / goal.slowing_radius).min(1.0),
        GoalMode::Flee => -dir * max_speed,
    };
    desired - velocity
}

/// The attract/repel point: towards (strength > 0) or away from it at full
/// speed, fading linearly to zero at its radius. Unweighted: the caller
/// multiplies by `strength`'s magnitude.
#[inline]
pub fn attract<V: Vector>(p: V, attractor: &Attractor<V>, max_speed: f32) -> V {
    let to = attractor.point - p;
    let d = to.length();
    if d >= attractor.radius {
        return V::ZERO;
    }
    let ramp = 1.0 - d / attractor.radius;
    to.try_normalize().unwrap_or(V::ZERO) * (max_speed * ramp * attractor.strength.signum())
}

/// Puts a fish that ended a tick inside an obstacle back on its surface and
/// removes the inward part of its velocity. Returns the new position and
/// velocity (unchanged if it was outside).
#[inline]
pub fn push_out<V: Vector>(p: V, v: V, obstacle: &Obstacle<V>) -> (V, V) {
    let away = p - obstacle.centre;
    let d2 = away.length_squared();
    if d2 >= obstacle.radius * obstacle.radius {
        return (p, v);
    }
    let n = away.try_normalize().unwrap_or(V::X);
    let surface = obstacle.centre + n * rim(obstacle);
    let inward = v.dot(n).min(0.0);
    (surface, v - n * inward)
}

/// [`push_out`] inside `tank`: where the nearest point of the rock's rim
/// lies beyond a wall (a rock across a wall or a corner), the fish goes to
/// the nearest point of the rim that is still in the tank, where the rim
/// meets a wall. Unchanged if no point of the rim is in the tank (the rock
/// covers it all, which validation refuses). In any dimension: on a plane
/// the rim meets a wall in the two ends of a chord; in a volume in a
/// circle, whose point nearest the fish is taken, or, where that point is
/// beyond another wall, the two points where the circle meets that wall.
pub fn push_out_in<V: Vector>(p: V, v: V, obstacle: &Obstacle<V>, tank: &TankOf<V>) -> (V, V) {
    let (q, w) = push_out(p, v, obstacle);
    if q == p || tank.contains(q) {
        return (q, w);
    }
    // From inside a ball the distance to its rim grows with the angle from
    // the radial direction, so the nearest rim point in the (convex) tank
    // lies where the rim meets a wall.
    let (c, r) = (obstacle.centre, rim(obstacle));
    let inside = |x: V| V::from_fn(|i| x.axis(i).clamp(tank.min.axis(i), tank.max.axis(i).next_down()));
    let mut best: Option<V> = None;
    let mut consider = |cand: V| {
        if tank.contains(cand)
            && !obstacle.contains(cand)
            && best.is_none_or(|b| cand.distance_squared(p) < b.distance_squared(p))
        {
            best = Some(cand);
        }
    };
    for wall in [tank.min, tank.max] {
        for a in 0..V::DIM {
            let d = wall.axis(a) - c.axis(a);
            let h2 = r * r - d * d;
            if h2 < 0.0 {
                continue;
            }
            let h = h2.sqrt();
            let on_wall = |f: &dyn Fn(usize) -> f32| V::from_fn(|i| if i == a { wall.axis(a) } else { f(i) });
            if V::DIM == 2 {
                // The chord's two ends.
                let b = 1 - a;
                consider(inside(on_wall(&|_| c.axis(b) - h)));
                consider(inside(on_wall(&|_| c.axis(b) + h)));
                continue;
            }
            // The circle's point nearest the fish (any, if the fish is on
            // its axis).
            let towards = V::from_fn(|i| if i == a { 0.0 } else { p.axis(i) - c.axis(i) });
            let unit = towards.try_normalize().unwrap_or(V::from_fn(|i| f32::from(i == (a + 1) % V::DIM)));
            consider(inside(on_wall(&|i| c.axis(i) + unit.axis(i) * h)));
            // Where the circle meets a second wall.
            for wall2 in [tank.min, tank.max] {
                for b in (0..V::DIM).filter(|&b| b != a) {
                    let e = wall2.axis(b) - c.axis(b);
                    let k2 = h2 - e * e;
                    if k2 < 0.0 {
                        continue;
                    }
                    let k = k2.sqrt();
                    for side in [-k, k] {
                        let third = |i: usize| if i == b { wall2.axis(b) } else { c.axis(i) + side };
                        consider(inside(on_wall(&third)));
                    }
                }
            }
        }
    }
    let Some(rim) = best else { return (q, w) };
    let n = (rim - c).try_normalize().unwrap_or(V::X);
    (rim, v - n * v.dot(n).min(0.0))
}

/// Out of every obstacle onto the nearest free point of its rim in the
/// tank ([`push_out_in`]). Pushed out of one rock a fish may land in
/// another that overlaps it: a few rounds settle such a cluster where it
/// leaves room, each bringing the fish back into the tank if a push took it
/// through a wall. A fish still inside then goes to the nearest free point
/// where the rims of two rocks meet (from the lens between two rocks no
/// push along a radius gets out), or, where no rim leads out, to the
/// nearest free point of [`room_points`]: wherever the rocks leave room
/// ([`check_room`](crate::world::scene::check_room)), no fish ends inside
/// one. Unchanged for a fish in no obstacle.
pub fn push_out_of_all<V: Vector>(mut p: V, mut v: V, obstacles: &[Obstacle<V>], tank: &TankOf<V>) -> (V, V) {
    for _ in 0..PUSH_OUT_ROUNDS {
        if in_open_water(p, obstacles) {
            return (p, v);
        }
        for o in obstacles {
            (p, v) = push_out_in(p, v, o, tank);
        }
        if !tank.contains(p) {
            p = match tank.boundary {
                BoundaryMode::Wrap => boundary::wrap(p, tank),
                _ => boundary::bounce(p, v, tank, 0.0).0,
            };
        }
    }
    if in_open_water(p, obstacles) {
        return (p, v);
    }
    if let Some(q) = where_rims_meet(p, obstacles, tank) {
        // Nothing of the velocity into a rock it now touches.
        for o in obstacles.iter().filter(|o| q.distance_squared(o.centre) <= rim(o) * rim(o) * 1.0001) {
            let n = (q - o.centre).try_normalize().unwrap_or(V::X);
            v -= n * v.dot(n).min(0.0);
        }
        return (q, v);
    }
    // Caught where no rim leads out (rims that meet only outside the tank
    // or inside a third rock): the nearest of the points that show the
    // rocks leave room (`check_room`), which a valid scene always has.
    let open = room_points(tank)
        .filter(|q| in_open_water(*q, obstacles))
        .min_by(|a, b| a.distance_squared(p).total_cmp(&b.distance_squared(p)));
    (open.unwrap_or(p), v)
}

/// An obstacle's radius and a hair: where a fish put on its rim stands
/// (a hair outside, so rounding cannot leave it on the inside).
#[inline]
fn rim<V: Vector>(o: &Obstacle<V>) -> f32 {
    o.radius * (1.0 + 1.0e-5) + 1.0e-4
}

/// The point nearest `p`, in the tank and in no obstacle, where the rims
/// of two overlapping obstacles meet (on a plane the two points where two
/// circles cross; in a volume the circle where two spheres do); `None` if
/// there is none.
fn where_rims_meet<V: Vector>(p: V, obstacles: &[Obstacle<V>], tank: &TankOf<V>) -> Option<V> {
    let mut best: Option<V> = None;
    for (i, a) in obstacles.iter().enumerate() {
        for b in &obstacles[i + 1..] {
            let (ra, rb) = (rim(a), rim(b));
            let axis = b.centre - a.centre;
            let d = axis.length();
            if !(d > 0.0 && d < ra + rb && d > (ra - rb).abs()) {
                continue;
            }
            let n = axis / d;
            // The plane of the crossing, `x` along the axis from `a`.
            let x = (d * d + ra * ra - rb * rb) / (2.0 * d);
            let h = (ra * ra - x * x).max(0.0).sqrt();
            let base = a.centre + n * x;
            let off = (p - base) - n * (p - base).dot(n);
            // Towards the fish, or any way across the axis if it is on it.
            let across = off.try_normalize().unwrap_or_else(|| {
                let k = (0..V::DIM).fold(0, |k, i| if n.axis(i).abs() < n.axis(k).abs() { i } else { k });
                let e = V::from_fn(|i| f32::from(i == k));
                (e - n * e.dot(n)).normalize_or_zero()
            });
            for q in [base + across * h, base - across * h] {
                let free = tank.contains(q) && in_open_water(q, obstacles);
                if free && best.is_none_or(|b| q.distance_squared(p) < b.distance_squared(p)) {
                    best = Some(q);
                }
            }
        }
    }
    best
}

/// Most rounds of [`push_out_of_all`] in one tick.
const PUSH_OUT_ROUNDS: usize = 4;

/// Moves a predator one tick: a chasing one steers (seek) at `prey`, if
/// any; all integrate semi-implicitly and stay inside the tank.
pub fn move_predator<V: Vector>(predator: &mut Predator<V>, prey: Option<V>, tank: &TankOf<V>, dt: f32) {
    if predator.chase
        && let Some(target) = prey
    {
        let desired = (target - predator.position).try_normalize().unwrap_or(V::ZERO) * predator.max_speed;
        let accel = super::clamp_length((desired - predator.velocity) / dt, predator.max_force);
        predator.velocity += accel * dt;
    }
    predator.velocity = super::clamp_length(predator.velocity, predator.max_speed);
    let moved = predator.position + predator.velocity * dt;
    let (p, v) = match tank.boundary {
        BoundaryMode::Wrap => (boundary::wrap(moved, tank), predator.velocity),
        _ => boundary::bounce(moved, predator.velocity, tank, 0.0),
    };
    predator.position = p;
    predator.velocity = v;
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::world::tank::Tank;

    /// A fish at the origin heading east, of school 0, in no group.
    fn swimmer<V: Vector>(velocity: V) -> Swimmer<V> {
        Swimmer { position: V::ZERO, velocity, fear: 0.0, school: 0, group: None, leads: false }
    }

    /// Some rule forces, none of them zero.
    fn some_forces<V: Vector>() -> RuleForces<V> {
        let f = |k: f32| V::from_fn(|i| k + i as f32);
        RuleForces {
            separation: f(1.0),
            alignment: f(2.0),
            cohesion: f(3.0),
            wander: f(4.0),
            boundary: f(5.0),
            ..RuleForces::default()
        }
    }

    fn react_leaves_a_calm_fish_in_an_empty_scene_as_it_was<V: Vector>() {
        let params = FlockParams::default();
        let mut forces = some_forces::<V>();
        let fish = swimmer(V::X * 50.0);
        let fright = react(&mut forces, &fish, &Scene::default(), None, &params);
        assert_eq!((fright, forces), (0.0, some_forces::<V>()));
        // A route's goal is a leader's only.
        let route = Goal::seek(V::X * 100.0, 1.0);
        react(&mut forces, &fish, &Scene::default(), Some(&route), &params);
        assert_eq!(forces, some_forces::<V>());
    }

    #[test]
    fn react_leaves_a_calm_fish_in_an_empty_scene_as_it_was_in_both_spaces() {
        react_leaves_a_calm_fish_in_an_empty_scene_as_it_was::<Vec2>();
        react_leaves_a_calm_fish_in_an_empty_scene_as_it_was::<glam::Vec3>();
    }

    fn react_steers_for_what_the_scene_holds<V: Vector>() {
        let params = FlockParams::default();
        let fish = swimmer(V::X * 50.0);
        let east = V::X * 100.0;
        // A predator to the west frightens and sends the fish east; a rock
        // just east of it pushes it west.
        let mut scene =
            Scene::<V> { predators: vec![Predator::new(-V::X * 30.0, 100.0)], ..Scene::default() };
        let mut forces = RuleForces::default();
        let fright = react(&mut forces, &fish, &scene, None, &params);
        assert!(fright > 0.5 && forces.flee.axis(0) > 0.0, "{fright} {:?}", forces.flee);
        scene.predators.clear();
        scene.obstacles.push(Obstacle { centre: V::X * 20.0, radius: 10.0 });
        let mut forces = RuleForces::default();
        assert_eq!(react(&mut forces, &fish, &scene, None, &params), 0.0);
        assert!(forces.obstacle.axis(0) < 0.0, "{:?}", forces.obstacle);
        // A school's own goal replaces the shared one; a group's adds to it.
        scene.obstacles.clear();
        scene.goal = Some(Goal::seek(-east, 1.0));
        let goal_force = |scene: &Scene<V>, fish: &Swimmer<V>| {
            let mut forces = RuleForces::default();
            react(&mut forces, fish, scene, None, &params);
            forces.goal
        };
        assert!(goal_force(&scene, &fish).axis(0) < 0.0);
        scene.school_goals = vec![Some(Goal::seek(east, 1.0))];
        let own = goal_force(&scene, &fish);
        assert!(own.axis(0) > 0.0, "{own:?}");
        scene.group_goals =
            vec![None, Some(Goal::seek(V::from_fn(|i| if i == 1 { 100.0 } else { 0.0 }), 1.0))];
        let grouped = Swimmer { group: Some(1), ..fish };
        let both = goal_force(&scene, &grouped);
        assert!(both.axis(0) > 0.0 && (both - own).axis(1) > 0.0, "{own:?} {both:?}");
        // Fear raises the separation push.
        let mut forces = some_forces::<V>();
        let afraid = Swimmer { fear: 1.0, ..fish };
        react(&mut forces, &afraid, &Scene::default(), None, &params);
        assert_eq!(forces.separation, some_forces::<V>().separation * params.panic_separation);
        // A leader steers for the route's goal.
        let mut forces = RuleForces::default();
        let leader = Swimmer { leads: true, ..fish };
        react(
            &mut forces,
            &leader,
            &Scene::default(),
            Some(&Goal::seek(V::from_fn(|i| if i == 1 { 100.0 } else { 0.0 }), 1.0)),
            &params,
        );
        assert!(forces.goal.axis(1) > 0.0, "{:?}", forces.goal);
    }

    #[test]
    fn react_steers_for_what_the_scene_holds_in_both_spaces() {
        react_steers_for_what_the_scene_holds::<Vec2>();
        react_steers_for_what_the_scene_holds::<glam::Vec3>();
    }

    #[test]
    fn a_fish_no_rim_leads_out_for_goes_to_the_nearest_open_water() {
        use glam::Vec3;
        // A flat volume (200 high): two spheres meet on a circle of radius
        // about 299 across x = 0, which leaves the tank above and below the
        // fish. Pushed along a radius the fish only swaps rocks, and the
        // points where the rims meet towards it and away from it are both
        // outside the tank.
        let tank = TankOf::<Vec3>::centered(Vec3::new(2000.0, 200.0, 2000.0));
        let rocks = [-200.0, 200.0].map(|x| Obstacle { centre: Vec3::new(x, 0.0, 0.0), radius: 360.0 });
        let p = Vec3::new(10.0, 5.0, 0.0);
        assert!(rocks.iter().all(|o| o.contains(p)));
        let (q, v) = push_out_of_all(p, Vec3::new(3.0, 0.0, 0.0), &rocks, &tank);
        assert!(tank.contains(q) && !rocks.iter().any(|o| o.contains(q)), "left at {q}");
        assert!(v.is_finite());
    }

    #[test]
    fn fear_scales_the_push_and_the_speed_from_calm_to_panic() {
        let params = FlockParams {
            panic_separation: 3.0,
            panic_speed: 2.0,
            max_speed: 100.0,
            ..FlockParams::default()
        };
        assert_eq!(panic_separation_gain(0.0, &params), 1.0);
        assert_eq!(panic_separation_gain(0.5, &params), 2.0);
        assert_eq!(panic_separation_gain(1.0, &params), 3.0);
        assert_eq!(panic_speed_limit(0.0, &params), 100.0);
        assert_eq!(panic_speed_limit(1.0, &params), 200.0);
        // A calm fish's limit is its max_speed to the bit.
        let odd = FlockParams { max_speed: 123.456, ..params };
        assert_eq!(panic_speed_limit(0.0, &odd).to_bits(), 123.456f32.to_bits());
    }

    #[test]
    fn avoidance_ramps_up_towards_the_surface() {
        let rock = Obstacle { centre: Vec2::ZERO, radius: 10.0 };
        assert_eq!(avoid(Vec2::new(40.0, 0.0), &rock, 20.0, 100.0), Vec2::ZERO);
        let far = avoid(Vec2::new(25.0, 0.0), &rock, 20.0, 100.0);
        let near = avoid(Vec2::new(12.0, 0.0), &rock, 20.0, 100.0);
        assert!(far.x > 0.0 && near.x > far.x);
        assert!(avoid(Vec2::ZERO, &rock, 20.0, 100.0).is_finite());
    }

    #[test]
    fn fleeing_points_away_and_fear_grows_near() {
        let shark = Predator::new(Vec2::ZERO, 100.0);
        let (f1, s1) = flee(Vec2::new(50.0, 0.0), Vec2::ZERO, &shark, 100.0);
        let (f2, _) = flee(Vec2::new(10.0, 0.0), Vec2::ZERO, &shark, 100.0);
        assert!(s1.x > 0.0 && f2 > f1 && (f1 - 0.5).abs() < 1e-6);
        assert_eq!(flee(Vec2::new(150.0, 0.0), Vec2::ZERO, &shark, 100.0), (0.0, Vec2::ZERO));
        let (f, s) = flee(Vec2::ZERO, Vec2::ZERO, &shark, 100.0);
        assert!(f == 1.0 && s.is_finite());
    }

    #[test]
    fn seek_arrive_flee() {
        let g =
            Goal { target: Vec2::new(100.0, 0.0), mode: GoalMode::Seek, weight: 1.0, slowing_radius: 50.0 };
        assert_eq!(pursue(Vec2::ZERO, Vec2::ZERO, &g, 10.0), Vec2::new(10.0, 0.0));
        let arrive = Goal { mode: GoalMode::Arrive, ..g };
        assert_eq!(pursue(Vec2::new(75.0, 0.0), Vec2::ZERO, &arrive, 10.0), Vec2::new(5.0, 0.0));
        assert_eq!(pursue(Vec2::new(100.0, 0.0), Vec2::ZERO, &arrive, 10.0), Vec2::ZERO);
        let flee = Goal { mode: GoalMode::Flee, ..g };
        assert_eq!(pursue(Vec2::ZERO, Vec2::ZERO, &flee, 10.0), Vec2::new(-10.0, 0.0));
    }

    #[test]
    fn attract_and_repel_fade_at_the_radius() {
        let a = Attractor { point: Vec2::ZERO, strength: 2.0, radius: 100.0 };
        assert!(attract(Vec2::new(50.0, 0.0), &a, 10.0).x < 0.0);
        let r = Attractor { strength: -2.0, ..a };
        assert!(attract(Vec2::new(50.0, 0.0), &r, 10.0).x > 0.0);
        assert_eq!(attract(Vec2::new(150.0, 0.0), &a, 10.0), Vec2::ZERO);
    }

    #[test]
    fn push_out_lands_outside_and_stops_inward_motion() {
        let rock = Obstacle { centre: Vec2::new(5.0, 5.0), radius: 10.0 };
        let (p, v) = push_out(Vec2::new(7.0, 5.0), Vec2::new(-3.0, 1.0), &rock);
        assert!(p.distance(rock.centre) >= rock.radius);
        assert_eq!(v, Vec2::new(0.0, 1.0));
        let (p, _) = push_out(rock.centre, Vec2::ZERO, &rock);
        assert!(p.distance(rock.centre) >= rock.radius);
        let outside = Vec2::new(30.0, 5.0);
        assert_eq!(push_out(outside, Vec2::ONE, &rock), (outside, Vec2::ONE));
    }

    #[test]
    fn push_out_in_a_tank_lands_on_the_rim_where_it_crosses_a_wall() {
        // A rock across the left half of the tank, reaching past its top
        // and bottom: straight out of it is beyond the wall.
        let tank = Tank::centered(Vec2::new(400.0, 300.0));
        let rock = Obstacle { centre: Vec2::new(-150.0, 0.0), radius: 195.0 };
        let fish = Vec2::new(-186.0, 115.0);
        assert!(!tank.contains(push_out(fish, Vec2::ZERO, &rock).0));
        let (p, v) = push_out_in(fish, Vec2::new(0.0, 10.0), &rock, &tank);
        assert!(tank.contains(p) && !rock.contains(p), "{p}");
        // On the top wall, at the rim's right crossing, going along the wall.
        assert!((p.y - tank.max.y).abs() < 1e-3 && p.x > rock.centre.x, "{p}");
        assert!(v.is_finite());
        // Inside the tank already: the same as push_out.
        let near = Vec2::new(0.0, 0.0);
        assert_eq!(push_out_in(near, Vec2::ONE, &rock, &tank), push_out(near, Vec2::ONE, &rock));
    }

    /// Pushed out of the second of two overlapping rocks into the first, a
    /// fish is pushed out again: free of both, in the tank, in any
    /// dimension (one pass over the rocks leaves it inside the first).
    #[test]
    fn a_fish_between_overlapping_rocks_is_settled_in_rounds() {
        let tank = Tank::centered(Vec2::new(400.0, 300.0));
        let rocks = [
            Obstacle { centre: Vec2::ZERO, radius: 100.0 },
            Obstacle { centre: Vec2::new(150.0, 0.0), radius: 100.0 },
        ];
        let fish = Vec2::new(110.0, 0.0);
        let once = rocks.iter().fold((fish, Vec2::ZERO), |(p, v), o| push_out_in(p, v, o, &tank));
        assert!(rocks[0].contains(once.0), "one pass leaves it in the first rock: {}", once.0);
        let (p, _) = push_out_of_all(fish, Vec2::ZERO, &rocks, &tank);
        assert!(tank.contains(p) && rocks.iter().all(|r| !r.contains(p)), "{p}");

        let volume = crate::Tank3d::default();
        let rocks3 = rocks.map(|r| Obstacle { centre: r.centre.extend(5.0), radius: r.radius });
        let (p, _) = push_out_of_all(fish.extend(5.0), glam::Vec3::ZERO, &rocks3, &volume);
        assert!(volume.contains(p) && rocks3.iter().all(|r| !r.contains(p)), "{p}");
        // A fish in no rock is left alone.
        let free = Vec2::new(-300.0, 200.0);
        assert_eq!(push_out_of_all(free, Vec2::ONE, &rocks, &tank), (free, Vec2::ONE));
    }

    #[test]
    fn a_chasing_predator_closes_in() {
        let tank = Tank::centered(Vec2::new(1000.0, 1000.0));
        let mut shark = Predator::new(Vec2::ZERO, 100.0);
        let prey = Vec2::new(300.0, 0.0);
        for _ in 0..60 {
            move_predator(&mut shark, Some(prey), &tank, 1.0 / 60.0);
        }
        assert!(shark.position.x > 50.0 && shark.velocity.length() <= shark.max_speed + 1e-3);
    }
}
