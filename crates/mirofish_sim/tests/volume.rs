//! Schools in a volume: the same guarantees as on a plane. Bit-identical
//! states on 1 and 2 threads, no NaN or inf and no fish outside the tank or
//! inside a rock whatever valid parameters are typed, and the rules doing
//! in three dimensions what they do in two.

use glam::Vec3;
use mirofish_sim::space::{Flock3d, Swarm};
use mirofish_sim::state_hash;
use mirofish_sim::{BoundaryMode, FlockParams, Goal, Obstacle, Predator, Route, Tank3d, observe};
use mirofish_sim::{Scene, Scene3d, TankOf};
use proptest::prelude::*;

mod common;
use common::hostile_params;

const MODES: [BoundaryMode; 3] = [BoundaryMode::Wrap, BoundaryMode::Bounce, BoundaryMode::SoftMargin];

fn busy(tank: &Tank3d) -> Scene3d {
    let size = tank.size();
    Scene3d {
        obstacles: vec![
            Obstacle { centre: Vec3::ZERO, radius: size.min_element() * 0.1 },
            Obstacle { centre: tank.max * 0.6, radius: size.min_element() * 0.05 },
        ],
        predators: vec![Predator::new(tank.min * 0.5, size.min_element() * 0.3)],
        goal: Some(Goal::seek(tank.max * 0.3, 0.5)),
        school_goals: vec![None, Some(Goal::seek(tank.min * 0.3, 1.0))],
        group_goals: vec![None, Some(Goal::seek(tank.max * 0.2, 1.5))],
        attractor: None,
        route: Some(Route::new(vec![tank.min * 0.4, tank.max * 0.4], size.min_element() * 0.1)),
    }
}

fn check(flock: &Flock3d, label: &str) {
    let tank = flock.tank();
    for (i, (p, v)) in flock.positions().iter().zip(flock.velocities()).enumerate() {
        assert!(p.is_finite() && v.is_finite(), "{label}: fish {i} not finite: {p} {v}");
        assert!(tank.contains(*p), "{label}: fish {i} outside the tank at {p}");
        for o in &flock.scene().obstacles {
            assert!(p.distance(o.centre) >= o.radius, "{label}: fish {i} inside a rock at {p}");
        }
    }
}

#[test]
fn one_and_two_threads_give_the_same_bits_in_a_volume() {
    for mode in MODES {
        let hashes: Vec<u64> = [1, 2]
            .into_iter()
            .map(|threads| {
                let tank = Tank3d::for_mean_neighbours_3d(3000, 45.0, 7.0).with_boundary(mode);
                let mut flock = Flock3d::new(FlockParams::default(), tank, 3000, 11).unwrap();
                flock.add_school(FlockParams { max_speed: 90.0, ..FlockParams::default() }, 500, 12).unwrap();
                flock.set_scene(busy(&tank)).unwrap();
                for id in (0..3500).step_by(50) {
                    flock.set_leader(id, true).unwrap();
                }
                flock.form_groups(Some(0), 0, 4);
                let mut flock = flock.with_threads(threads).unwrap();
                flock.run(120);
                check(&flock, &format!("{mode:?}"));
                state_hash(&flock)
            })
            .collect();
        assert_eq!(hashes[0], hashes[1], "{mode:?}");
    }
}

#[test]
fn alignment_orders_a_school_in_a_volume_and_separation_keeps_it_apart() {
    let tank = Tank3d::for_mean_neighbours_3d(1500, 45.0, 8.0).with_boundary(BoundaryMode::Wrap);
    let mut flock = Flock3d::new(FlockParams::default(), tank, 1500, 5).unwrap();
    let start = observe::polarization(flock.velocities());
    flock.run(1200);
    let end = observe::polarization(flock.velocities());
    assert!(start < 0.1 && end > 0.6, "polarization {start} -> {end}");
    let mut without =
        Flock3d::new(FlockParams { alignment_weight: 0.0, ..FlockParams::default() }, tank, 1500, 5).unwrap();
    without.run(1200);
    assert!(observe::polarization(without.velocities()) < end - 0.3);
    // No two fish closer than a tenth of the separation radius, on average.
    let p = flock.positions();
    let close = (0..p.len())
        .filter(|&i| {
            (0..p.len())
                .any(|j| j != i && p[i].distance(p[j]) < FlockParams::default().separation_radius * 0.1)
        })
        .count();
    assert!(close < p.len() / 20, "{close} fish nearly touching");
}

#[test]
fn predators_scatter_and_goals_draw_a_school_in_a_volume() {
    let tank = Tank3d::centered(Vec3::splat(800.0));
    let mut flock = Flock3d::new(FlockParams::default(), tank, 400, 3).unwrap();
    let goal = Vec3::new(250.0, -200.0, 150.0);
    flock.set_scene(Scene3d { goal: Some(Goal::seek(goal, 2.0)), ..Default::default() }).unwrap();
    let before = observe::centroid(flock.positions()).distance(goal);
    flock.run(600);
    let after = observe::centroid(flock.positions()).distance(goal);
    assert!(after < before * 0.5, "{before} -> {after}");
    // A predator at the school's centre: the fish near it run.
    let centre = observe::centroid(flock.positions());
    let near = |f: &Flock3d| f.positions().iter().filter(|p| p.distance(centre) < 60.0).count();
    let crowd = near(&flock);
    let mut shark = Predator::new(centre, 200.0);
    shark.chase = false;
    flock.set_scene(Scene3d { predators: vec![shark], ..Default::default() }).unwrap();
    flock.run(60);
    assert!(near(&flock) < crowd / 3 + 1, "{crowd} -> {}", near(&flock));
}

#[test]
fn bad_scenes_and_parameters_are_refused_with_the_field_named() {
    let tank = Tank3d::centered(Vec3::splat(100.0));
    let mut flock = Flock3d::new(FlockParams::default(), tank, 10, 1).unwrap();
    let covering =
        Scene3d { obstacles: vec![Obstacle { centre: Vec3::ZERO, radius: 1000.0 }], ..Default::default() };
    assert_eq!(flock.set_scene(covering).unwrap_err().field, "obstacle.radius");
    let nan = Scene3d { goal: Some(Goal::seek(Vec3::new(0.0, 0.0, f32::NAN), 1.0)), ..Default::default() };
    assert_eq!(flock.set_scene(nan).unwrap_err().field, "goal.target");
    let flat = Tank3d { max: Vec3::new(50.0, 50.0, -50.0), ..tank };
    assert!(Flock3d::new(FlockParams::default(), flat, 10, 1).unwrap_err().field.contains("depth"));
    let bad = FlockParams { max_speed: f32::INFINITY, ..FlockParams::default() };
    assert_eq!(flock.set_params(0, bad).unwrap_err().field, "max_speed");
    assert_eq!(flock.set_params(7, FlockParams::default()).unwrap_err().field, "school");
    assert!(Flock3d::new(FlockParams::default(), tank, usize::MAX, 1).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_hostile_parameters_keep_a_volume_finite_and_contained(
        params in hostile_params(),
        mode in prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)],
        size in (1.0f32..2000.0, 1.0f32..2000.0, 1.0f32..2000.0),
        dt in prop_oneof![Just(1.0f32 / 60.0), 1.0e-6f32..1.0],
        seed in any::<u64>(),
    ) {
        let tank = Tank3d::centered(Vec3::new(size.0, size.1, size.2)).with_boundary(mode);
        let mut flock = Flock3d::new(params, tank, 60, seed).unwrap().with_dt(dt).unwrap();
        flock.add_school(params, 20, seed ^ 1).unwrap();
        // Rocks only away from the walls: a rock across a wall can leave a
        // fish on its rim for one tick (see `contain`).
        let scene = busy(&tank);
        let inner: Vec<_> = scene
            .obstacles
            .iter()
            .copied()
            .filter(|o| (0..3).all(|i| o.centre[i] - o.radius > tank.min[i] && o.centre[i] + o.radius < tank.max[i]))
            .collect();
        flock.set_scene(Scene3d { obstacles: inner, ..scene }).unwrap();
        for _ in 0..20 {
            flock.run(10);
            check(&flock, &format!("{params:?} {mode:?}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_zone_models_keep_a_volume_finite_and_contained(
        repulsion in prop_oneof![Just(0.0f32), 0.0f32..50.0, Just(1.0e6f32)],
        widths in (0.0f32..200.0, 0.0f32..200.0),
        view in 0.0f32..=core::f32::consts::TAU,
        turn in prop_oneof![Just(0.0f32), 0.0f32..10.0, Just(1.0e6f32)],
        speed in prop_oneof![Just(0.0f32), 0.0f32..500.0, Just(1.0e6f32)],
        noise in 0.0f32..=10.0,
        cap in prop_oneof![Just(1u32), 1u32..300, Just(mirofish_sim::space::zones::MAX_ZONE_NEIGHBOUR_CAP)],
        mode in prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)],
        seed in any::<u64>(),
    ) {
        let zones = mirofish_sim::space::Zones {
            repulsion,
            orientation_width: widths.0,
            attraction_width: widths.1,
            field_of_view: view,
            turn_rate: turn,
            speed,
            noise,
            neighbour_cap: cap,
        };
        let tank = Tank3d::centered(Vec3::new(400.0, 300.0, 200.0)).with_boundary(mode);
        let mut flock = Flock3d::new(FlockParams::default(), tank, 80, seed).unwrap().with_dt(0.1).unwrap();
        flock.set_zones(Some(zones)).unwrap();
        for _ in 0..10 {
            flock.run(10);
            check(&flock, &format!("{zones:?} {mode:?}"));
        }
    }
}

/// One fish heading +x at the centre and neighbours placed around it, each
/// with its velocity; after one tick, how far the first fish turned
/// towards +y.
fn pull_of(neighbours: &[(Vec3, Vec3)], params: FlockParams) -> f32 {
    let params = FlockParams { wander_weight: 0.0, jitter: 0.0, cohesion_weight: 0.0, ..params };
    let tank = Tank3d { boundary: BoundaryMode::Wrap, ..Tank3d::centered(Vec3::splat(1000.0)) };
    let mut flock = Flock3d::new(params, tank, 1 + neighbours.len(), 1).unwrap();
    flock.set(0, Vec3::ZERO, Vec3::X * 60.0).unwrap();
    for (k, &(p, v)) in neighbours.iter().enumerate() {
        flock.set(k as u32 + 1, p, v).unwrap();
    }
    flock.step();
    let slot = flock.slots()[0] as usize;
    flock.velocities()[slot].y
}

#[test]
fn the_view_cone_and_its_zone_weights_shape_whom_a_fish_follows_in_a_volume() {
    // Beyond the separation radius, within perception.
    let up = Vec3::Y * 60.0;
    let (behind, side, front) =
        (Vec3::new(-40.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 40.0), Vec3::new(40.0, 0.0, 0.0));
    let all_round = FlockParams { view_angle: core::f32::consts::TAU, ..FlockParams::default() };
    let blind_behind = FlockParams { view_angle: 300f32.to_radians(), ..FlockParams::default() };
    assert!(pull_of(&[(behind, up)], all_round) > 0.01, "a neighbour all round is followed");
    assert_eq!(pull_of(&[(behind, up)], blind_behind), 0.0, "one in the blind cone behind is not");
    assert!(pull_of(&[(front, up)], blind_behind) > 0.01, "one in front is");
    // Zone weights: one neighbour to the side going up, one in front going
    // down; whichever zone weighs more wins, and a zone weighted zero is
    // not followed at all.
    let tug =
        |side_weight: f32| pull_of(&[(side, up), (front, -up)], FlockParams { side_weight, ..all_round });
    assert!(tug(3.0) > 0.01, "the side wins: {}", tug(3.0));
    assert!(tug(0.3) < -0.01, "the front wins: {}", tug(0.3));
    assert_eq!(pull_of(&[(side, up)], FlockParams { side_weight: 0.0, ..all_round }), 0.0);
}

#[test]
fn setting_a_fish_is_checked() {
    let tank = Tank3d::centered(Vec3::splat(200.0));
    let mut flock = Flock3d::new(FlockParams::default(), tank, 3, 2).unwrap();
    assert_eq!(flock.set(3, Vec3::ZERO, Vec3::ZERO).unwrap_err().field, "id");
    assert_eq!(flock.set(0, Vec3::NAN, Vec3::ZERO).unwrap_err().field, "position");
    assert_eq!(flock.set(0, Vec3::ZERO, Vec3::new(0.0, f32::INFINITY, 0.0)).unwrap_err().field, "velocity");
    assert_eq!(flock.set(0, Vec3::splat(500.0), Vec3::ZERO).unwrap_err().field, "position");
    flock.set(2, Vec3::splat(10.0), Vec3::X).unwrap();
    assert_eq!(flock.positions()[flock.slots()[2] as usize], Vec3::splat(10.0));
}

/// A school crammed into a small box has hundreds of fish in reach: the
/// crowding cap looks at a sample of them and scales it back up, so the
/// neighbour count each fish reports still estimates the true one; the run
/// stays finite, inside the box and the same on 1 and 2 threads.
#[test]
fn a_crowded_volume_is_sampled_and_still_estimates_its_neighbours() {
    let params = FlockParams { view_angle: core::f32::consts::TAU, ..FlockParams::default() };
    let tank = Tank3d::centered(Vec3::splat(120.0)).with_boundary(BoundaryMode::Bounce);
    let hashes: Vec<u64> = [1, 2]
        .into_iter()
        .map(|threads| {
            let flock = Flock3d::new(params, tank, 1500, 4).unwrap().with_threads(threads).unwrap();
            let mut before = flock.clone();
            before.run(3);
            let mut after = before.clone();
            after.step();
            // The true mean neighbours, by brute force on the fish as the
            // tick saw them.
            let p = before.positions();
            let r2 = params.perception_radius * params.perception_radius;
            let exact = p
                .iter()
                .map(|a| p.iter().filter(|b| (**b - *a).length_squared() < r2).count() - 1)
                .sum::<usize>() as f64
                / p.len() as f64;
            let estimated =
                after.neighbour_counts().map(f64::from).sum::<f64>() / after.neighbour_counts().len() as f64;
            assert!(exact > 200.0, "crowded: {exact}");
            assert!((estimated / exact - 1.0).abs() < 0.2, "estimated {estimated} of {exact}");
            check(&after, "crowded");
            state_hash(&after)
        })
        .collect();
    assert_eq!(hashes[0], hashes[1]);
}

/// Three fish in a row, 30 apart, all swimming +x: the metrics read a
/// parallel school with its nearest neighbours 30 away, two neighbours for
/// the middle one, and a shape long across the heading.
#[test]
fn a_volume_measures_its_school() {
    let params = FlockParams {
        wander_weight: 0.0,
        jitter: 0.0,
        view_angle: core::f32::consts::TAU,
        ..FlockParams::default()
    };
    let tank = Tank3d::centered(Vec3::splat(1000.0)).with_boundary(BoundaryMode::Wrap);
    let mut flock = Flock3d::new(params, tank, 3, 1).unwrap();
    for (id, y) in [(0, -30.0), (1, 0.0), (2, 30.0)] {
        flock.set(id, Vec3::new(0.0, y, 0.0), Vec3::X * 100.0).unwrap();
    }
    flock.step();
    let m = flock.metrics();
    assert_eq!((m.tick, m.fish), (1, 3));
    assert!(m.polarization > 0.999, "{m:?}");
    let nearest = m.nearest_neighbour.expect("neighbours in reach");
    assert!((nearest - 30.0).abs() < 0.5, "{nearest}");
    assert!((m.mean_neighbours - 4.0 / 3.0).abs() < 1e-6, "{m:?}");
    assert!(m.formation[1] > m.formation[0], "wider than long: {:?}", m.formation);
    assert_eq!(m.boundary_contacts, 0, "a wrapping tank has no walls");
    // Alone, a fish has no nearest neighbour.
    let lonely = Flock3d::new(params, tank, 1, 1).unwrap();
    let mut lonely = lonely;
    lonely.step();
    assert_eq!(lonely.metrics().nearest_neighbour, None);
}

/// Under Couzin's zones a fish is drawn by a neighbour anywhere in its
/// attraction zone, far beyond the rules' perception radius: the grid's
/// cells are sized for the zones' reach, not the rules'.
#[test]
fn zones_see_as_far_as_their_attraction_zone_reaches() {
    let zones = mirofish_sim::space::Zones::default();
    let apart = zones.reach() * 0.9;
    assert!(apart > 3.0 * FlockParams::default().perception_radius, "beyond the rules' reach");
    let tank = Tank3d::centered(Vec3::splat(2000.0));
    let mut flock = Flock3d::new(FlockParams::default(), tank, 2, 1).unwrap();
    flock.set(0, Vec3::ZERO, Vec3::Y * zones.speed).unwrap();
    flock.set(1, Vec3::new(apart, 0.0, 0.0), Vec3::Y * zones.speed).unwrap();
    flock.set_zones(Some(mirofish_sim::space::Zones { noise: 0.0, ..zones })).unwrap();
    flock.step();
    let v = |id: usize| flock.velocities()[flock.slots()[id] as usize];
    assert!(v(0).x > 0.0 && v(1).x < 0.0, "each turns towards the other: {} {}", v(0), v(1));
    assert_eq!(flock.neighbour_counts().sum::<u32>(), 2);
}

/// A game's own force joins the rules' steering for one tick, clamped with
/// it; none at all leaves the bits as they were; bad ones are refused.
#[test]
fn a_games_force_steers_a_fish_for_one_tick_in_a_volume() {
    let tank = Tank3d::for_mean_neighbours_3d(600, 45.0, 7.0);
    let make = |threads: usize| {
        let flock = Flock3d::new(FlockParams::default(), tank, 600, 4).unwrap();
        flock.with_threads(threads).unwrap()
    };
    let (mut plain, mut pushed) = (make(1), make(1));
    plain.run(10);
    pushed.run(10);
    let max_force = FlockParams::default().max_force;
    // Two halves of a large push on fish 7: they add up, the sum is clamped.
    pushed.add_steering(7, Vec3::X * max_force * 5.0).unwrap();
    pushed.add_steering(7, Vec3::X * max_force * 5.0).unwrap();
    let before = pushed.velocities()[pushed.slots()[7] as usize];
    pushed.step();
    plain.step();
    let slot = pushed.slots()[7] as usize;
    let steering = pushed.steering_at(slot).unwrap();
    assert!((steering.length() - max_force).abs() < 1e-2, "clamped to max_force: {steering}");
    assert!(steering.x > 0.9 * max_force, "mostly the push: {steering}");
    assert!(pushed.velocities()[slot].x > before.x, "{} vs {before}", pushed.velocities()[slot]);
    // Only fish 7 (and, through it, its neighbours next tick) differ.
    let differs = (0..600u32)
        .filter(|&id| {
            let (a, b) = (plain.slots()[id as usize] as usize, pushed.slots()[id as usize] as usize);
            plain.velocities()[a] != pushed.velocities()[b]
        })
        .count();
    assert_eq!(differs, 1);
    // The force is used once: the next tick adds nothing more. A zero force
    // keeps the bits, on 1 and 2 threads.
    let (mut a, mut b) = (make(1), make(2));
    a.run(5);
    b.run(5);
    b.add_steering(3, Vec3::ZERO).unwrap();
    a.run(5);
    b.run(5);
    assert_eq!(state_hash(&a), state_hash(&b));
    assert_eq!(pushed.add_steering(600, Vec3::X).unwrap_err().field, "id");
    assert_eq!(pushed.add_steering(0, Vec3::NAN).unwrap_err().field, "force");
}

/// A few leaders on a route guide a school through a volume: the route
/// moves on as they reach each waypoint, and the rest follow them, where
/// the same school without leaders stays where it was.
#[test]
fn leaders_on_a_route_guide_a_school_through_a_volume() {
    let tank = Tank3d::centered(Vec3::splat(800.0));
    let first = Vec3::new(250.0, 100.0, -150.0);
    let followers_centre = |flock: &Flock3d| {
        let (sum, n) = flock
            .positions()
            .iter()
            .zip(flock.leaders())
            .filter(|(_, l)| !**l)
            .fold((Vec3::ZERO, 0.0), |(sum, n), (p, _)| (sum + *p, n + 1.0));
        sum / n
    };
    // Fifteen seconds towards `waypoints`: whether the route moved on,
    // and how far the followers went towards the first waypoint.
    let run = |leaders: bool, waypoints: Vec<Vec3>| {
        let params = FlockParams { leader_weight: 30.0, cohesion_weight: 0.4, ..FlockParams::default() };
        let mut flock = Flock3d::new(params, Tank3d::centered(Vec3::splat(200.0)), 300, 6).unwrap();
        flock.set_tank(tank).unwrap();
        let route = Route { weight: 1.0, ..Route::new(waypoints, 80.0) };
        flock.set_scene(Scene3d { route: Some(route), ..Default::default() }).unwrap();
        if leaders {
            for id in 0..60 {
                flock.set_leader(id, true).unwrap();
            }
        }
        assert_eq!(flock.leaders().iter().filter(|&&l| l).count(), if leaders { 60 } else { 0 });
        let start = followers_centre(&flock);
        flock.run(900);
        let moved_on = flock.scene().route.as_ref().unwrap().next > 0;
        (moved_on, (followers_centre(&flock) - start).dot((first - start).normalize()))
    };
    let there_and_back = vec![first, -first];
    assert!(run(true, there_and_back.clone()).0, "the leaders reached the first waypoint");
    assert!(!run(false, there_and_back).0, "without leaders the route never moves on");
    let (_, led) = run(true, vec![first]);
    let (_, alone) = run(false, vec![first]);
    assert!(
        led > 0.3 * first.length() && led > alone + 50.0,
        "followers went {led} with leaders, {alone} without"
    );
}

/// A topological neighbourhood in a volume: a fish follows its `k` nearest
/// whatever the others in reach do, and one with no more than `k` in reach
/// keeps its metric neighbourhood; the same bits on 1 and 2 threads.
#[test]
fn a_topological_neighbourhood_follows_the_nearest_in_a_volume() {
    let up = Vec3::Y * 60.0;
    // Two near fish going up, five farther ones going down, all beyond the
    // separation radius and within perception.
    let near = [(Vec3::new(27.0, 0.0, 0.0), up), (Vec3::new(0.0, 0.0, 27.0), up)];
    let far: Vec<(Vec3, Vec3)> = (0..5)
        .map(|i| {
            let a = i as f32 * 1.2;
            (Vec3::new(40.0 * a.cos(), -15.0, 40.0 * a.sin()), -up)
        })
        .collect();
    let all: Vec<(Vec3, Vec3)> = near.iter().copied().chain(far.iter().copied()).collect();
    let metric = FlockParams::default();
    let nearest_two = FlockParams { topological_neighbours: 2, ..metric };
    assert!(pull_of(&all, metric) < -0.01, "all in reach: the many going down win");
    assert!(pull_of(&all, nearest_two) > 0.01, "the two nearest: up");
    // No more in reach than it counts: the metric neighbourhood.
    let wide = FlockParams { topological_neighbours: 12, ..metric };
    assert_eq!(pull_of(&all, wide), pull_of(&all, metric));

    let run = |threads: usize| {
        let params = FlockParams { topological_neighbours: 6, ..FlockParams::default() };
        let tank = Tank3d::for_mean_neighbours_3d(2000, 45.0, 20.0);
        let mut flock = Flock3d::new(params, tank, 2000, 8).unwrap().with_threads(threads).unwrap();
        flock.run(60);
        check(&flock, "topological");
        state_hash(&flock)
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn a_tick_run_stage_by_stage_gives_the_bits_of_a_whole_tick() {
    use mirofish_sim::space::{TickStage, VolumeCommand};
    let start = || {
        let tank = Tank3d::for_mean_neighbours_3d(800, 45.0, 7.0);
        let mut flock = Flock3d::new(FlockParams::default(), tank, 800, 5).unwrap();
        flock.set_scene(busy(&tank)).unwrap();
        flock
    };
    let (mut whole, mut staged) = (start(), start());
    for _ in 0..20 {
        whole.step();
        for stage in TickStage::ALL {
            staged.run_to(stage);
            let done = if stage == TickStage::Predators { None } else { Some(stage) };
            assert_eq!(staged.stage(), done);
            // A stage already run is not run again.
            staged.run_to(TickStage::Commands.min(stage));
        }
    }
    assert_eq!(state_hash(&whole), state_hash(&staged));
    // A whole tick brings each fish inside as it moves it; stage by stage
    // the boundary does, after: the same bits at every wall, with rocks
    // and without, on a plane and in a volume.
    fn apart_and_together<V: mirofish_sim::Vector>(tank: TankOf<V>, rocks: Vec<Obstacle<V>>) {
        let params = FlockParams { max_speed: 400.0, ..FlockParams::default() };
        let start = || {
            let mut swarm = Swarm::new(params, tank, 600, 4).unwrap();
            swarm.set_scene(Scene { obstacles: rocks.clone(), ..Scene::default() }).unwrap();
            swarm
        };
        let (mut whole, mut staged) = (start(), start());
        let label = format!("{:?}, {} rocks, {} axes", tank.boundary, rocks.len(), V::DIM);
        let mut crossed = 0;
        for tick in 0..30 {
            whole.step();
            staged.run_to(TickStage::Integrate);
            crossed += staged.positions().iter().filter(|p| !tank.contains(**p)).count();
            staged.step();
            assert_eq!(state_hash(&whole), state_hash(&staged), "{label}, tick {tick}");
        }
        assert!(crossed > 0, "{label}: some fish reach a wall");
    }
    for mode in MODES {
        let tank = Tank3d::for_mean_neighbours_3d(600, 45.0, 7.0).with_boundary(mode);
        apart_and_together(tank, Vec::new());
        apart_and_together(tank, busy(&tank).obstacles);
        let plane = mirofish_sim::Tank::for_mean_neighbours(600, 45.0, 7.0, 1.0).with_boundary(mode);
        apart_and_together(plane, Vec::new());
        let rock = Obstacle { centre: glam::Vec2::ZERO, radius: plane.size().min_element() * 0.1 };
        apart_and_together(plane, vec![rock]);
    }
    // Part of a tick, then the rest by `step`: still one tick.
    staged.run_to(TickStage::Forces);
    // A command sent now is for the next tick: this tick's are in.
    staged.submit(VolumeCommand::ClearPredators).unwrap();
    assert_eq!(staged.pending().iter().next().unwrap().tick, 21);
    staged.step();
    whole.step();
    assert_eq!((staged.tick(), state_hash(&staged)), (whole.tick(), state_hash(&whole)));
    assert_eq!(staged.scene().predators.len(), 1);
    staged.step();
    assert!(staged.scene().predators.is_empty());
    assert_eq!(staged.applied()[0].tick, 21);
}

#[test]
fn fish_added_between_stages_join_at_the_next_tick() {
    use mirofish_sim::space::TickStage;
    let tank = Tank3d::for_mean_neighbours_3d(300, 45.0, 7.0);
    let mut flock = Flock3d::new(FlockParams::default(), tank, 300, 3).unwrap();
    for stage in [TickStage::Commands, TickStage::SpatialIndex, TickStage::Forces, TickStage::Clamp] {
        flock.run_to(stage);
        flock.spawn_school(0, 10, stage as u64).unwrap();
        flock.add_school(FlockParams::default(), 5, 9).unwrap();
    }
    flock.run(30);
    assert_eq!(flock.len(), 360);
    check(&flock, "fish added mid-tick");
    assert_eq!(flock.metrics().fish, 360);
}

/// Fish taken out by id leave as on a plane: highest id first, the fish
/// with the highest id left taking the freed id; what each fish carries
/// goes with it, and the volume runs on.
#[test]
fn fish_removed_by_id_leave_their_ids_to_the_last() {
    let mut flock = Flock3d::new(FlockParams::default(), Tank3d::default(), 10, 4).unwrap();
    flock.set_group(8, Some(2));
    flock.run(3);
    let position_of = |f: &Flock3d, id: u32| f.positions()[f.slots()[id as usize] as usize];
    let (eight, four) = (position_of(&flock, 8), position_of(&flock, 4));
    let was = flock.remove_fish(&[3, 9, 3, 42]);
    assert_eq!(was, [0, 1, 2, 8, 4, 5, 6, 7], "9 goes, 8 takes 3's id; repeats and unknown ids skipped");
    assert_eq!(flock.len(), 8);
    assert_eq!(position_of(&flock, 3), eight);
    assert_eq!(position_of(&flock, 4), four);
    assert_eq!(flock.group_of(3), Some(2), "the group goes with the fish");
    let mut ids: Vec<u32> = flock.ids().to_vec();
    ids.sort_unstable();
    assert_eq!(ids, (0..8).collect::<Vec<_>>());
    assert!(flock.remove_fish(&[]).iter().copied().eq(0..8), "nothing removed, nothing moved");
    flock.run(5);
    check(&flock, "after removals");
}
