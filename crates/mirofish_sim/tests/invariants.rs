//! Over thousands of ticks and hostile parameter sets, in all three boundary
//! modes: no NaN or inf anywhere, no fish faster than `max_speed`, no fish
//! outside the tank.

use mirofish_sim::{
    Attractor, BoundaryMode, FlockParams, Goal, GoalMode, Obstacle, Predator, Route, Scene, Simulation,
    SlotOrder, Tank, Vec2,
};
use proptest::prelude::*;

mod common;
use common::hostile_params;

const MODES: [BoundaryMode; 3] = [BoundaryMode::Wrap, BoundaryMode::Bounce, BoundaryMode::SoftMargin];

fn check(sim: &Simulation, label: &str) {
    let max_speed = sim.params()[0].max_speed * sim.params()[0].panic_speed;
    for (i, (p, v)) in sim.positions().iter().zip(sim.velocities()).enumerate() {
        assert!(p.is_finite() && v.is_finite(), "{label}: fish {i} not finite: {p} {v}");
        assert!(sim.tank().contains(*p), "{label}: fish {i} outside the tank at {p}");
        for o in &sim.scene().obstacles {
            assert!(p.distance(o.centre) >= o.radius, "{label}: fish {i} inside an obstacle at {p}");
        }
        assert!(v.length() <= max_speed * (1.0 + 1e-5) + 1e-6, "{label}: fish {i} too fast: {}", v.length());
    }
    for (i, a) in sim.steering().enumerate() {
        assert!(a.is_finite(), "{label}: steering of fish {i} not finite");
        assert!(a.length() <= sim.params()[0].max_force * (1.0 + 1e-5) + 1e-6, "{label}: force not clamped");
    }
    assert!(!sim.records_rules() || sim.samples().len() == sim.len());
    for s in sim.samples() {
        let r = s.rules;
        for f in [r.separation, r.alignment, r.cohesion, r.wander, r.boundary, r.obstacle, r.flee, r.goal] {
            assert!(f.is_finite(), "{label}: a rule force is not finite");
        }
    }
}

/// Two obstacles (one across a wall), three predators (two chasing), a
/// goal, a repeller and goals for groups, scaled to the tank.
fn busy_scene(tank: &Tank) -> Scene {
    let size = tank.size();
    let at = |fx: f32, fy: f32| tank.min + size * Vec2::new(fx, fy);
    let r = size.min_element();
    Scene {
        obstacles: vec![
            Obstacle { centre: at(0.3, 0.5), radius: r * 0.1 },
            Obstacle { centre: at(1.0, 0.2), radius: r * 0.15 },
        ],
        predators: vec![
            Predator::new(at(0.7, 0.7), r * 0.3),
            Predator::new(at(0.2, 0.2), r * 0.2),
            Predator {
                chase: false,
                velocity: Vec2::new(50.0, -20.0),
                ..Predator::new(at(0.5, 0.9), r * 0.25)
            },
        ],
        goal: Some(Goal::seek(at(0.9, 0.9), 1.0)),
        school_goals: vec![None, Some(Goal { mode: GoalMode::Flee, ..Goal::seek(at(0.1, 0.9), 2.0) })],
        attractor: Some(Attractor { point: at(0.5, 0.5), strength: -2.0, radius: r * 0.3 }),
        route: Some(Route { looping: true, ..Route::new(vec![at(0.1, 0.1), at(0.9, 0.5)], r * 0.1) }),
        group_goals: vec![
            Some(Goal { mode: GoalMode::Arrive, slowing_radius: 1.0e-3, ..Goal::seek(at(0.6, 0.4), 3.0) }),
            None,
            Some(Goal::seek(at(0.0, 1.0), -1.0)),
        ],
    }
}

/// The busy scene, with the first five fish as leaders and the fish in
/// four groups (one without a goal).
fn crowd(sim: &mut Simulation) {
    sim.set_scene(busy_scene(sim.tank())).unwrap();
    sim.form_groups(None, 0, 4);
    sim.set_record_rules(true);
    for id in 0..sim.len().min(5) as u32 {
        sim.set_leader(id, true).unwrap();
    }
}

/// Hand-picked hostile sets, each named for the failure it provokes.
fn hostile() -> Vec<(&'static str, FlockParams)> {
    let base = FlockParams::default();
    vec![
        ("reference", base),
        (
            "all zeros",
            FlockParams {
                separation_radius: 0.0,
                max_speed: 0.0,
                max_force: 0.0,
                separation_weight: 0.0,
                alignment_weight: 0.0,
                cohesion_weight: 0.0,
                wander_weight: 0.0,
                wander_rate: 0.0,
                jitter: 0.0,
                ..base
            },
        ),
        ("max_force 0", FlockParams { max_force: 0.0, ..base }),
        (
            "huge weights",
            FlockParams {
                separation_weight: 1000.0,
                alignment_weight: 1000.0,
                cohesion_weight: 1000.0,
                wander_weight: 1000.0,
                max_force: 1.0e9,
                ..base
            },
        ),
        ("negative weights", FlockParams { separation_weight: -1000.0, cohesion_weight: -1000.0, ..base }),
        (
            "separation > perception",
            FlockParams { separation_radius: 200.0, perception_radius: 10.0, ..base },
        ),
        (
            "collapse: cohesion only, huge force",
            FlockParams {
                separation_weight: 0.0,
                alignment_weight: 0.0,
                cohesion_weight: 1000.0,
                max_force: 1.0e9,
                max_speed: 1.0e6,
                separation_floor: 1.0e-6,
                ..base
            },
        ),
        ("tiny radius", FlockParams { perception_radius: 1.0e-3, separation_radius: 1.0e-3, ..base }),
        (
            "radius larger than tank",
            FlockParams { perception_radius: 1.0e6, separation_radius: 5.0e5, ..base },
        ),
        (
            "instant reaction",
            FlockParams { reaction_time: 1.0e-4, max_force: 1.0e9, max_speed: 1.0e6, ..base },
        ),
    ]
}

#[test]
fn hostile_parameter_sets_stay_finite_bounded_and_inside() {
    for (name, params) in hostile() {
        params.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        for mode in MODES {
            let tank = Tank::centered(Vec2::new(400.0, 300.0)).with_boundary(mode);
            let mut sim = Simulation::new(params, tank, 150, 11).unwrap();
            crowd(&mut sim);
            let label = format!("{name} / {mode:?}");
            for tick in 0..2000 {
                sim.step();
                if tick % 100 == 99 {
                    check(&sim, &label);
                }
            }
            check(&sim, &label);
        }
    }
}

#[test]
fn a_school_started_on_one_point_separates_without_nan() {
    // In both slot orders, with the same bits: all 200 fish start in one
    // cell, the one case where a cell's ties need more than an insertion.
    for mode in MODES {
        let tank = Tank::centered(Vec2::new(300.0, 300.0)).with_boundary(mode);
        let mut hashes = Vec::new();
        for order in [SlotOrder::Stable, SlotOrder::Spatial] {
            let mut sim = Simulation::new(FlockParams::default(), tank, 0, 3).unwrap();
            sim.set_slot_order(order);
            for _ in 0..200 {
                sim.add_fish(0, Vec2::ZERO, Vec2::ZERO, 0.0).unwrap();
            }
            sim.run(300);
            check(&sim, &format!("coincident start / {mode:?} / {order:?}"));
            let spread = sim.positions().iter().map(|p| p.length()).fold(0.0f32, f32::max);
            assert!(spread > 10.0, "{mode:?}: fish did not separate ({spread})");
            hashes.push(mirofish_sim::state_hash(&sim));
        }
        assert_eq!(hashes[0], hashes[1], "{mode:?}: the slot order changed a bit");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_hostile_parameters_keep_the_invariants(
        params in hostile_params(),
        mode in prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)],
        w in 1.0f32..2000.0,
        h in 1.0f32..2000.0,
        dt in prop_oneof![Just(1.0f32 / 60.0), 1.0e-6f32..1.0],
        seed in any::<u64>(),
        spatial in any::<bool>(),
    ) {
        prop_assert!(params.validate().is_ok(), "{:?}", params.validate());
        let tank = Tank::centered(Vec2::new(w, h)).with_boundary(mode);
        let mut sim = Simulation::new(params, tank, 80, seed).unwrap().with_dt(dt).unwrap();
        if spatial {
            sim.set_slot_order(SlotOrder::Spatial);
        }
        crowd(&mut sim);
        for _ in 0..300 {
            sim.step();
        }
        check(&sim, &format!("{params:?} / {mode:?} / dt {dt}"));
    }
}

/// Runs the busy scene with `params` in every boundary mode.
fn survive(params: FlockParams, label: &str, ticks: u32) {
    for mode in MODES {
        let tank = Tank::default().with_boundary(mode);
        let mut sim = Simulation::new(params, tank, 150, 5).unwrap();
        crowd(&mut sim);
        for _ in 0..ticks {
            sim.step();
        }
        check(&sim, &format!("{label} / {mode:?}"));
    }
}

/// The aquarium's sliders are the knobs of `tuning::KNOBS`: every knob at
/// each end of its range, alone and all together, keeps the invariants.
#[test]
fn every_slider_extreme_is_safe() {
    use mirofish_sim::control::tuning::KNOBS;
    for knob in &KNOBS {
        for value in [knob.min, knob.max] {
            let mut params = FlockParams::default();
            (knob.set)(&mut params, value);
            survive(params, &format!("{} = {value}", knob.name), 200);
        }
    }
    for pick_max in [false, true] {
        let mut params = FlockParams::default();
        for knob in &KNOBS {
            (knob.set)(&mut params, if pick_max { knob.max } else { knob.min });
        }
        survive(params, &format!("every knob at its {}", if pick_max { "max" } else { "min" }), 400);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random corners of the slider box: each knob at its minimum or its
    /// maximum.
    #[test]
    fn random_slider_corners_are_safe(corner in proptest::collection::vec(any::<bool>(), mirofish_sim::control::tuning::KNOBS.len())) {
        use mirofish_sim::control::tuning::KNOBS;
        let mut params = FlockParams::default();
        for (knob, &hi) in KNOBS.iter().zip(&corner) {
            (knob.set)(&mut params, if hi { knob.max } else { knob.min });
        }
        survive(params, &format!("corner {corner:?}"), 200);
    }
}
