//! Behaviours beyond the three rules, checked through the whole tick:
//! field of view and neighbour weighting.

use mirofish_sim::space::TickStage;
use mirofish_sim::{FlockParams, Simulation, Tank, Vec2, observe};

fn tank() -> Tank {
    Tank::centered(Vec2::new(400.0, 400.0))
}

/// A school of `schools` (the first school's table first) in [`tank`]
/// holding `fish` (school, position, velocity, wander phase) placed by
/// hand, keeping each rule's force, run up to its first force pass.
fn forces_of(schools: &[FlockParams], fish: &[(u16, Vec2, Vec2, f32)]) -> Simulation {
    let mut sim = Simulation::new(schools[0], tank(), 0, 1).unwrap();
    sim.set_schools(schools).unwrap();
    sim.set_record_rules(true);
    for &(school, p, v, phase) in fish {
        sim.add_fish(school, p, v, phase).unwrap();
    }
    sim.run_to(TickStage::Forces);
    sim
}

/// Runs the force pass for fish 0 at the origin heading +X with one
/// neighbour at `other`, and returns how many neighbours it counted.
fn neighbours_seen(params: &FlockParams, velocity: Vec2, other: Vec2) -> u32 {
    let sim = forces_of(&[*params], &[(0, Vec2::ZERO, velocity, 0.0), (0, other, Vec2::Y * 10.0, 0.0)]);
    sim.sample(0).expect("fish 0 was sampled").neighbours
}

#[test]
fn a_neighbour_behind_is_ignored_one_in_front_is_counted() {
    let params = FlockParams { view_angle: 300f32.to_radians(), ..FlockParams::default() };
    let v = Vec2::X * 100.0;
    assert_eq!(neighbours_seen(&params, v, Vec2::new(20.0, 0.0)), 1, "in front");
    assert_eq!(neighbours_seen(&params, v, Vec2::new(0.0, 20.0)), 1, "beside");
    assert_eq!(neighbours_seen(&params, v, Vec2::new(-20.0, 0.0)), 0, "straight behind");
    // All-round view (the default) sees behind too.
    assert_eq!(neighbours_seen(&FlockParams::default(), v, Vec2::new(-20.0, 0.0)), 1);
}

#[test]
fn a_blind_spot_does_not_hide_a_neighbour_from_separation() {
    let params = FlockParams { view_angle: 180f32.to_radians(), ..FlockParams::default() };
    let behind = [(0, Vec2::ZERO, Vec2::X * 100.0, 0.0), (0, Vec2::new(-5.0, 0.0), Vec2::X * 100.0, 0.0)];
    let sim = forces_of(&[params], &behind);
    let sample = sim.sample(0).unwrap();
    assert_eq!(sample.neighbours, 0, "behind, so not seen");
    assert!(sample.rules.separation.x > 0.0, "but still pushed away");
}

#[test]
fn a_fish_at_rest_has_a_heading_and_no_nan() {
    let params =
        FlockParams { view_angle: 200f32.to_radians(), leader_weight: 5.0, ..FlockParams::default() };
    let mut sim = Simulation::new(params, tank(), 0, 1).unwrap();
    for (p, phase) in [(Vec2::ZERO, 1.0), (Vec2::ZERO, 2.0), (Vec2::new(3.0, 3.0), 3.0)] {
        sim.add_fish(0, p, Vec2::ZERO, phase).unwrap();
    }
    sim.set_leader(2, true).unwrap();
    sim.run(50);
    assert!(sim.positions().iter().chain(sim.velocities()).all(|v| v.is_finite()));
    assert!(sim.steering().all(|a| a.is_finite()));
}

#[test]
fn leaders_pull_their_followers_harder() {
    // One follower between two neighbours heading opposite ways, one of
    // them a leader: the follower's alignment turns towards the leader's
    // heading, and more so the more the leader weighs.
    let turn = |leader_weight: f32| {
        let params = FlockParams { leader_weight, ..FlockParams::default() };
        let mut sim = Simulation::new(params, tank(), 0, 1).unwrap();
        sim.set_record_rules(true);
        sim.add_fish(0, Vec2::ZERO, Vec2::X * 50.0, 0.0).unwrap();
        sim.add_fish(0, Vec2::new(0.0, 20.0), Vec2::Y * 100.0, 0.0).unwrap();
        sim.add_fish(0, Vec2::new(0.0, -20.0), -Vec2::Y * 100.0, 0.0).unwrap();
        sim.set_leader(1, true).unwrap();
        sim.run_to(TickStage::Forces);
        sim.sample(0).unwrap().rules.alignment.y
    };
    assert!(turn(1.0).abs() < 1e-3, "equal weights cancel: {}", turn(1.0));
    assert!(turn(3.0) > 0.0, "the leader's way wins");
}

#[test]
fn weighting_keeps_the_neighbour_count_and_stays_deterministic() {
    let params = FlockParams {
        view_angle: 270f32.to_radians(),
        front_weight: 1.0,
        side_weight: 0.5,
        back_weight: 0.2,
        distance_falloff: 0.5,
        ..FlockParams::default()
    };
    let run = || {
        let mut sim = mirofish_sim::Simulation::new(params, tank(), 300, 4).unwrap();
        sim.run(200);
        (observe::state_hash(&sim), observe::mean_neighbours(sim.neighbour_counts()))
    };
    let (a, n) = run();
    assert_eq!(a, run().0);
    assert!(n > 0.0);
}

/// The centre of the school.
fn centre(sim: &mut mirofish_sim::Simulation) -> Vec2 {
    sim.positions().iter().copied().sum::<Vec2>() / sim.len() as f32
}

#[test]
fn a_school_driven_at_an_obstacle_never_enters_it() {
    use mirofish_sim::{BoundaryMode, Goal, Obstacle, Simulation};
    for boundary in [BoundaryMode::SoftMargin, BoundaryMode::Wrap] {
        let tank = Tank::centered(Vec2::new(1200.0, 600.0)).with_boundary(boundary);
        // Fast fish, a strong goal straight through the rock.
        let params = FlockParams { max_speed: 400.0, max_force: 3000.0, ..FlockParams::default() };
        let mut sim = Simulation::new(params, tank, 0, 8).unwrap();
        for i in 0..300 {
            let row = (i / 20) as f32;
            let col = (i % 20) as f32;
            sim.add_fish(0, Vec2::new(-550.0 + row * 6.0, -60.0 + col * 6.0), Vec2::new(400.0, 0.0), 0.0)
                .unwrap();
        }
        let rock = Obstacle { centre: Vec2::new(0.0, 0.0), radius: 80.0 };
        sim.edit_scene(|scene| {
            scene.obstacles.push(rock);
            scene.goal = Some(Goal::seek(Vec2::new(500.0, 0.0), 3.0));
        })
        .unwrap();
        for tick in 0..3000 {
            sim.step();
            for (i, p) in sim.positions().iter().enumerate() {
                assert!(
                    p.distance(rock.centre) >= rock.radius,
                    "{boundary:?} tick {tick}: fish {i} inside at {p}"
                );
            }
        }
        // And they did get past it.
        assert!(centre(&mut sim).x > 100.0, "{boundary:?}: the school never passed the rock");
    }
}

#[test]
fn fish_flee_a_predator_and_calm_down_after() {
    use mirofish_sim::{Predator, Simulation};
    let tank = Tank::centered(Vec2::new(1600.0, 900.0));
    let mut sim = Simulation::new(FlockParams::default(), tank, 400, 21).unwrap();
    sim.run(300);
    // A still predator appears in the middle of the school; follow the fish
    // it frightens at once.
    let at = centre(&mut sim);
    let radius = 250.0;
    let near: Vec<usize> = (0..sim.len()).filter(|&i| sim.positions()[i].distance(at) < radius).collect();
    assert!(near.len() > 20, "too few fish near the predator ({})", near.len());
    let mean_distance = |sim: &Simulation| {
        near.iter().map(|&i| sim.positions()[i].distance(at)).sum::<f32>() / near.len() as f32
    };
    let before = mean_distance(&sim);
    sim.edit_scene(|scene| scene.predators.push(Predator { chase: false, ..Predator::new(at, radius) }))
        .unwrap();
    sim.run(60);
    let after = mean_distance(&sim);
    assert!(after > before * 1.3, "fish did not flee: {before} -> {after}");
    let afraid = sim.fears().iter().filter(|&&f| f > 0.1).count();
    assert!(afraid > 0, "nobody is afraid");
    // Gone again: fear fades.
    sim.edit_scene(|scene| scene.predators.clear()).unwrap();
    sim.run(600);
    let max_fear = sim.fears().iter().copied().fold(0.0f32, f32::max);
    assert!(max_fear < 0.01, "fear lingers: {max_fear}");
}

#[test]
fn a_chasing_predator_makes_the_school_scatter_without_nan() {
    use mirofish_sim::{Obstacle, Predator, Simulation};
    let tank = Tank::centered(Vec2::new(1000.0, 700.0));
    let mut sim = Simulation::new(FlockParams::default(), tank, 300, 5).unwrap();
    sim.edit_scene(|scene| {
        scene.predators =
            vec![Predator::new(Vec2::new(-300.0, 0.0), 150.0), Predator::new(Vec2::new(300.0, 0.0), 150.0)];
        scene.obstacles = vec![Obstacle { centre: Vec2::ZERO, radius: 60.0 }];
    })
    .unwrap();
    sim.run(1500);
    for p in sim.positions() {
        assert!(p.is_finite() && tank.contains(*p) && p.length() >= 60.0);
    }
    for pr in &sim.scene().predators {
        assert!(tank.contains(pr.position) && pr.velocity.length() <= pr.max_speed + 1e-3);
    }
}

#[test]
fn every_preset_runs_a_thousand_ticks_with_its_documented_values() {
    use mirofish_sim::{Preset, Simulation};
    for preset in Preset::all() {
        let mut sim = Simulation::new(preset.params, preset.tank, preset.count, 1).unwrap();
        sim.run(500);
        // A school's order comes and goes as it turns and splits: its mean
        // over the second half of the run, not one moment, says whether one
        // formed.
        let mut order = 0.0;
        for _ in 0..10 {
            sim.run(50);
            order += observe::polarization(sim.velocities()) / 10.0;
        }
        assert_eq!(sim.len(), preset.count);
        assert_eq!(sim.params()[0], preset.params, "{}: parameters changed while running", preset.name);
        for (p, v) in sim.positions().iter().zip(sim.velocities()) {
            assert!(preset.tank.contains(*p) && v.is_finite(), "{}", preset.name);
            assert!(v.length() <= preset.params.max_speed * 1.0001, "{}", preset.name);
        }
        assert!(order > 0.25, "{}: no school formed (mean polarization {order})", preset.name);
    }
}

#[test]
fn auto_radius_gives_five_to_eight_neighbours_at_three_densities() {
    use mirofish_sim::control::preset::with_auto_radius;
    use mirofish_sim::{BoundaryMode, Simulation};
    // Wrap, so the walls do not thin the neighbourhoods at the edge.
    let tank = Tank::centered(Vec2::new(1280.0, 720.0)).with_boundary(BoundaryMode::Wrap);
    for count in [150usize, 600, 2400] {
        let params = with_auto_radius(&FlockParams::default(), count, &tank, 6.5);
        let mut sim = Simulation::new(params, tank, count, 9).unwrap();
        sim.step();
        let measured = observe::mean_neighbours(sim.neighbour_counts());
        assert!(
            (5.0..=8.0).contains(&measured),
            "{count} fish, radius {}: {measured}",
            params.perception_radius
        );
    }
}

/// Two schools in one tank: fish 0..n/2 in school 0, the rest in school 1.
fn two_schools(seed: u64) -> Simulation {
    use mirofish_sim::world::spawn::scatter;
    // A torus, so no wall splits a school.
    let tank = Tank::centered(Vec2::new(600.0, 600.0)).with_boundary(mirofish_sim::BoundaryMode::Wrap);
    // School 0 aligns strongly (a marching school); school 1 does not align
    // at all and wanders a lot (a loose swarm). Neither follows the other.
    let marching = FlockParams {
        alignment_weight: 2.0,
        wander_weight: 0.05,
        sees_other_schools: false,
        ..FlockParams::reference()
    };
    let swarm = FlockParams {
        alignment_weight: 0.0,
        wander_weight: 1.0,
        max_speed: 120.0,
        sees_other_schools: false,
        ..FlockParams::reference()
    };
    let mut sim = Simulation::new(marching, tank, 0, seed).unwrap();
    sim.add_school(swarm, 0, seed).unwrap();
    for (i, f) in scatter(600, &tank, &marching, seed).into_iter().enumerate() {
        sim.add_fish(u16::from(i >= 300), f.position, f.velocity, f.wander_phase).unwrap();
    }
    sim
}

#[test]
fn two_schools_with_different_parameters_behave_differently_and_deterministically() {
    let run = |seed| {
        let mut sim = two_schools(seed);
        sim.run(900);
        sim
    };
    let flock = run(3);
    let (v0, v1) = flock.velocities().split_at(300);
    let (p0, p1) = (observe::polarization(v0), observe::polarization(v1));
    // Measured over seeds 1–6: 0.97–0.999 against 0.03–0.06.
    assert!(p0 > 0.8 && p1 < 0.3, "marching school {p0} vs swarm {p1}");
    // Each school keeps its own speed limit.
    assert!(v1.iter().all(|v| v.length() <= 120.0 * 1.0001));
    assert!(v0.iter().any(|v| v.length() > 130.0));
    assert_eq!(observe::state_hash(&flock), observe::state_hash(&run(3)));
    assert_ne!(observe::state_hash(&flock), observe::state_hash(&run(4)));
}

#[test]
fn a_school_that_ignores_others_does_not_count_them() {
    let count = |sees: bool| {
        let params = FlockParams { sees_other_schools: sees, ..FlockParams::default() };
        let v = Vec2::X * 100.0;
        let fish =
            [(0, Vec2::ZERO, v, 0.0), (1, Vec2::new(20.0, 0.0), v, 0.0), (0, Vec2::new(0.0, 20.0), v, 0.0)];
        forces_of(&[params, FlockParams::default()], &fish).sample(0).unwrap().neighbours
    };
    assert_eq!(count(true), 2);
    assert_eq!(count(false), 1);
}

#[test]
fn a_fish_in_a_school_that_does_not_exist_is_refused_by_name() {
    let mut sim = Simulation::new(FlockParams::default(), tank(), 0, 1).unwrap();
    let err = sim.add_fish(3, Vec2::ZERO, Vec2::X, 0.0).unwrap_err();
    assert_eq!(err.field, "school");
    assert_eq!(sim.set_schools(&[]).unwrap_err().field, "schools");
}

#[test]
fn a_school_follows_its_leaders_along_a_path() {
    use mirofish_sim::{Route, Simulation};
    // Followers match their neighbours' velocity, so they slow down with
    // leaders arriving at the last waypoint instead of overshooting them.
    // (With heading-only alignment the school orbits the end 300–600 units
    // out, or loses the stopped leaders: 0–1 of 6 seeds passed.)
    let tank = Tank::centered(Vec2::new(1600.0, 1000.0));
    let params = FlockParams { leader_weight: 8.0, match_speed: true, ..FlockParams::reference() };
    for seed in [1, 2, 3] {
        let mut sim = Simulation::new(params, tank, 0, seed).unwrap();
        // A compact school of 120 in the lower left, every twelfth a leader.
        for i in 0..120 {
            let p = Vec2::new(-650.0 + (i % 12) as f32 * 14.0, -400.0 + (i / 12) as f32 * 14.0);
            let id = sim.add_fish(0, p, Vec2::new(100.0, 0.0), i as f32 * 0.1).unwrap();
            sim.set_leader(id, i % 12 == 0).unwrap();
        }
        let end = Vec2::new(500.0, 300.0);
        let path = vec![Vec2::new(0.0, -300.0), Vec2::new(400.0, 0.0), end];
        sim.edit_scene(|scene| scene.route = Some(Route { arrive: true, ..Route::new(path, 100.0) }))
            .unwrap();
        sim.run(2400);
        assert_eq!(
            sim.scene().route.as_ref().unwrap().next,
            2,
            "seed {seed}: the leaders did not reach the end"
        );
        let c = centre(&mut sim);
        assert!(
            c.distance(end) < 200.0,
            "seed {seed}: the school's centre {c} is far from the path's end {end}"
        );
    }
}

#[test]
fn each_school_can_head_for_its_own_goal() {
    use mirofish_sim::{Goal, Scene};
    let mut sim = two_schools(5);
    let (left, right) = (Vec2::new(-200.0, 0.0), Vec2::new(200.0, 0.0));
    let scene = Scene {
        goal: Some(Goal::seek(right, 3.0)),
        school_goals: vec![Some(Goal::seek(left, 3.0))],
        ..Scene::default()
    };
    sim.set_scene(scene).unwrap();
    sim.run(600);
    let mean = |fish: &[Vec2]| fish.iter().copied().sum::<Vec2>() / fish.len() as f32;
    let (school0, school1) = sim.positions().split_at(300);
    // School 0 has its own goal (left); school 1 falls back to the shared one.
    assert!(mean(school0).distance(left) < 120.0, "school 0 at {}", mean(school0));
    assert!(mean(school1).distance(right) < 120.0, "school 1 at {}", mean(school1));
}

#[test]
fn a_game_force_between_the_passes_is_added_and_clamped() {
    let params = mirofish_sim::FlockParams::default();
    let mut sim = mirofish_sim::Simulation::new(params, mirofish_sim::Tank::default(), 200, 3).unwrap();
    sim.run(5);
    let mut pushed = sim.clone();
    for sim in [&mut sim, &mut pushed] {
        sim.run_to(mirofish_sim::space::TickStage::Forces);
    }
    let east = mirofish_sim::Vec2::new(1.0e6, 0.0);
    pushed.add_steering(7, east).unwrap();
    assert!(pushed.add_steering(7, mirofish_sim::Vec2::NAN).is_err(), "a NaN force is refused");
    assert!(pushed.add_steering(10_000, east).is_err(), "no such fish");
    for sim in [&mut sim, &mut pushed] {
        sim.run_to(mirofish_sim::space::TickStage::Integrate);
    }
    let (before, after) = (sim.steering_at(7).unwrap(), pushed.steering_at(7).unwrap());
    assert!(after.x > before.x, "{before} -> {after}");
    assert!(after.length() <= params.max_force * (1.0 + 1.0e-5), "not clamped: {after}");
    // Only that fish.
    assert_eq!(sim.steering_at(8), pushed.steering_at(8));
}

/// Every fish's game force handed over before the clamp gives the bits of
/// one force added after it, fish by fish, with two schools of different
/// limits, zero, NaN and missing forces.
#[test]
fn game_forces_for_all_fish_at_once_match_one_at_a_time() {
    let first = FlockParams::default();
    let second = FlockParams { max_force: 90.0, ..first };
    let tank = Tank::default();
    let mut sim = Simulation::new(first, tank, 0, 8).unwrap();
    sim.add_school(second, 0, 8).unwrap();
    for (slot, f) in mirofish_sim::world::spawn::scatter(500, &tank, &first, 8).into_iter().enumerate() {
        sim.add_fish(u16::from(slot < 250), f.position, f.velocity, f.wander_phase).unwrap();
    }
    sim.run(3);
    sim.run_to(TickStage::Forces);
    // Most fish pushed some way, some not at all, one NaN; the last ten
    // have no entry.
    let extra: Vec<Vec2> = (0..490)
        .map(|k| match k % 7 {
            0 => Vec2::ZERO,
            1 if k == 50 => Vec2::NAN,
            _ => Vec2::from_angle(k as f32) * (k as f32 * 3.0),
        })
        .collect();
    let (mut one, mut all) = (sim.clone(), sim.clone());
    one.run_to(TickStage::Clamp);
    for (id, &e) in extra.iter().enumerate() {
        if e != Vec2::ZERO {
            // The NaN is refused, as it would be before the clamp.
            let _ = one.add_steering(id as u32, e);
            let _ = all.add_steering(id as u32, e);
        }
    }
    for f in [&mut one, &mut all, &mut sim] {
        f.run_to(TickStage::Predators);
    }
    let bits = |f: &Simulation| f.steering().flat_map(|v| [v.x.to_bits(), v.y.to_bits()]).collect::<Vec<_>>();
    assert_eq!(bits(&all), bits(&one));
    assert_ne!(bits(&all), bits(&sim), "the forces changed something");
}
