//! What shares the tank with the fish, as the plugin sees it: walls,
//! leaders, predators, obstacles, goals, attractors and several schools.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;

#[test]
fn fish_move_and_stay_inside_headless() {
    let mut app = headless_app(config(3), 1);
    spawn(&mut app, 300);
    let before = ecs_hash(&mut app);
    for _ in 0..120 {
        app.update();
    }
    assert_ne!(before, ecs_hash(&mut app), "nothing moved");
    let tank = app.world().resource::<FlockState>().config().tank;
    let mut q = app.world_mut().query::<(&Position, &Velocity, &Transform)>();
    let mut n = 0;
    for (p, v, t) in q.iter(app.world()) {
        assert!(tank.contains(p.0) && v.0.is_finite() && t.translation.is_finite());
        n += 1;
    }
    assert_eq!(n, 300);
}

#[test]
fn a_leader_component_reaches_the_flock() {
    let mut app = headless_app(config(1), 1);
    spawn(&mut app, 5);
    let first = app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).next().unwrap();
    app.world_mut().entity_mut(first).insert(Leader);
    app.update();
    app.update();
    let state = app.world().resource::<FlockState>();
    let slot = state.entities().iter().position(|&e| e == first).unwrap();
    assert!(state.flock().leaders()[slot]);
    assert_eq!(state.flock().leaders().iter().filter(|&&l| l).count(), 1);
}

#[test]
fn fear_lingers_after_the_predator_leaves_and_survives_spawns() {
    let mut app = headless_app(config(8), 1);
    spawn(&mut app, 300);
    let shark = app.world_mut().spawn((Predator2d::default(), Position(Vec2::ZERO))).id();
    for _ in 0..20 {
        app.update();
    }
    let afraid = |app: &App| -> Vec<(Entity, f32)> {
        let state = app.world().resource::<FlockState>();
        state
            .entities()
            .iter()
            .copied()
            .zip(state.flock().fears().iter().copied())
            .filter(|(_, f)| *f > 0.05)
            .collect()
    };
    let before = afraid(&app);
    assert!(before.len() > 10, "the predator frightened the school: {} afraid", before.len());
    // The predator leaves and new fish arrive: the flock takes them in,
    // and every frightened fish calms down from where it was.
    app.world_mut().despawn(shark);
    spawn(&mut app, 50);
    app.update();
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.flock().len(), 350);
    let params = FlockParams::default();
    let calm = (-params.calm_rate / 60.0).exp();
    for (entity, fear) in before {
        let slot = state.entities().iter().position(|&e| e == entity).expect("still in the flock");
        let now = state.flock().fears()[slot];
        assert!(
            (now - fear * calm).abs() <= 1.0e-6,
            "{entity}: {fear} should decay to {}, is {now}",
            fear * calm
        );
        // Each fish knows its id (and slot) in the flock.
        assert_eq!(app.world().get::<FishId>(entity).and_then(|s| s.get()), Some(slot as u32));
    }
}

#[test]
fn predator_and_obstacle_entities_act_on_the_school() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 300);
    let rock = app.world_mut().spawn((Obstacle2d { radius: 50.0 }, Position(Vec2::new(100.0, 0.0)))).id();
    let shark = app.world_mut().spawn((Predator2d::default(), Position(Vec2::new(-200.0, 0.0)))).id();
    for _ in 0..300 {
        app.update();
    }
    // The predator hunted (it moved and has a velocity) and was drawn there.
    let p = app.world().get::<Position>(shark).unwrap().0;
    assert_ne!(p, Vec2::new(-200.0, 0.0));
    assert!(app.world().get::<Velocity>(shark).unwrap().0.length() > 0.0);
    assert!(app.world().get::<Transform>(shark).unwrap().translation.truncate().is_finite());
    // Nobody inside the rock, and the rock's transform follows its position.
    let mut q = app.world_mut().query_filtered::<&Position, With<Boid>>();
    for fish in q.iter(app.world()) {
        assert!(fish.0.distance(Vec2::new(100.0, 0.0)) >= 50.0);
    }
    assert_eq!(app.world().get::<Transform>(rock).unwrap().translation.truncate(), Vec2::new(100.0, 0.0));
    let state = app.world().resource::<FlockState>();
    assert_eq!((state.scene().obstacles.len(), state.scene().predators.len()), (1, 1));
}

#[test]
fn an_obstacle_covering_the_whole_tank_is_ignored_and_fish_stay_out_of_the_others() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 200);
    app.world_mut().spawn((Obstacle2d { radius: 5_000.0 }, Position(Vec2::ZERO)));
    app.world_mut().spawn((Obstacle2d { radius: 120.0 }, Position(Vec2::new(50.0, 0.0))));
    for _ in 0..5 {
        app.update();
    }
    let state = app.world().resource::<FlockState>();
    assert_eq!(state.scene().obstacles.len(), 1);
    let rock = state.scene().obstacles[0];
    for &p in state.flock().positions() {
        assert!(p.distance(rock.centre) >= rock.radius * 0.999, "a fish inside the rock at {p}");
    }
}

/// Two rock entities, each leaving room alone, that would cover the tank
/// between them: the later one is left out and reported once, and fits
/// once the first is gone.
#[test]
fn rock_entities_that_would_cover_the_tank_between_them_leave_the_later_out() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 200);
    let (left, right) = (Vec2::new(-200.0, 0.0), Vec2::new(200.0, 0.0));
    let first = app.world_mut().spawn((Obstacle2d { radius: 350.0 }, Position(left))).id();
    run_ticks(&mut app, 1);
    let second = app.world_mut().spawn((Obstacle2d { radius: 350.0 }, Position(right))).id();
    run_ticks(&mut app, 5);
    let state = app.world().resource::<FlockState>();
    let rocks = &state.scene().obstacles;
    assert_eq!(rocks.iter().map(|o| o.centre).collect::<Vec<_>>(), [left]);
    for &p in state.flock().positions() {
        assert!(!rocks[0].contains(p), "a fish inside the rock at {p}");
    }
    let refusals = app.world().resource::<FlockRefusals>();
    let why: Vec<_> = refusals.recent().filter(|r| r.what == Refused::Obstacle(second)).collect();
    assert_eq!(why.len(), 1, "reported once: {why:?}");
    assert_eq!(why[0].error.field, "obstacle");
    app.world_mut().despawn(first);
    run_ticks(&mut app, 2);
    let rocks = &app.world().resource::<FlockState>().scene().obstacles;
    assert_eq!(rocks.iter().map(|o| o.centre).collect::<Vec<_>>(), [right]);
}

#[test]
fn an_invalid_obstacle_is_ignored_not_fatal() {
    let mut app = headless_app(config(6), 1);
    spawn(&mut app, 20);
    app.world_mut().spawn((Obstacle2d { radius: f32::NAN }, Position(Vec2::ZERO)));
    for _ in 0..5 {
        app.update();
    }
    assert!(app.world().resource::<FlockState>().scene().obstacles.is_empty());
}

#[test]
fn a_goal_and_an_attractor_in_the_config_are_validated_and_steer_the_school() {
    let mut app = headless_app(config(3), 1);
    spawn(&mut app, 200);
    app.update();
    // A NaN goal is refused, naming the field; the last valid config stays.
    app.world_mut().resource_mut::<FlockConfig>().goal = Some(Goal::seek(Vec2::new(f32::NAN, 0.0), 1.0));
    app.update();
    let err = app.world().resource::<FlockState>().rejected().cloned().expect("NaN goal accepted");
    assert_eq!(err.field, "goal.target");
    // A valid goal on the right pulls the school's centre that way.
    let centre = |app: &mut App| {
        let mut q = app.world_mut().query_filtered::<&Position, With<Boid>>();
        let (sum, n) = q.iter(app.world()).fold((Vec2::ZERO, 0.0), |(s, n), p| (s + p.0, n + 1.0));
        sum / n
    };
    let before = centre(&mut app);
    app.world_mut().resource_mut::<FlockConfig>().goal = Some(Goal::seek(Vec2::new(350.0, 0.0), 3.0));
    for _ in 0..180 {
        app.update();
    }
    assert!(app.world().resource::<FlockState>().rejected().is_none());
    assert!(centre(&mut app).x > before.x + 100.0, "the goal did not pull the school");
}

#[test]
fn schools_spawned_into_the_plugin_keep_their_own_parameters() {
    // The reference start swims fast (180 a second), the second school is
    // held to 60.
    let slow = FlockParams { max_speed: 60.0, ..FlockParams::default() };
    let fast = FlockParams::reference();
    let mut app = headless_app(FlockConfig { params: fast, schools: vec![slow], ..config(8) }, 1);
    app.world_mut().commands().queue(SpawnSchool::new(150));
    app.world_mut().commands().queue(SpawnSchool::new(150).in_school(1));
    app.world_mut().flush();
    for _ in 0..120 {
        app.update();
    }
    let mut q = app.world_mut().query::<(&Velocity, &School)>();
    let (mut fast, mut slow_count) = (0, 0);
    for (v, school) in q.iter(app.world()) {
        match school.0 {
            0 => fast += usize::from(v.0.length() > 61.0),
            1 => {
                assert!(v.0.length() <= 60.0 * 1.0001, "school 1 broke its speed limit");
                slow_count += 1;
            }
            other => panic!("unexpected school {other}"),
        }
    }
    assert_eq!(slow_count, 150);
    assert!(fast > 100, "school 0 should swim faster than school 1's limit");
    assert_eq!(app.world().resource::<FlockState>().schools().len(), 2);
}

#[test]
fn every_school_has_a_display_colour() {
    let config = FlockConfig { colours: vec![[0.1, 0.2, 0.3]], ..default() };
    assert_eq!(config.colour_of(0), [0.1, 0.2, 0.3]);
    assert_eq!(config.colour_of(1), mirofish_bevy::SCHOOL_PALETTE[1]);
    assert_eq!(config.colour_of(7), mirofish_bevy::SCHOOL_PALETTE[1], "the palette cycles");
    assert_ne!(config.colour_of(1), config.colour_of(2));
}

#[test]
fn a_school_spawned_with_leaders_has_them() {
    let mut app = headless_app(config(6), 1);
    app.world_mut().commands().queue(SpawnSchool::new(50).with_leaders(5));
    app.world_mut().commands().queue(SpawnSchool::new(3).in_school(0).with_leaders(10));
    app.world_mut().flush();
    run_ticks(&mut app, 1);
    assert_eq!(count::<Leader>(&mut app), 8, "5, and all 3 of the second spawn");
    assert_eq!(app.world().resource::<FlockState>().flock().leaders().iter().filter(|&&l| l).count(), 8);
}
