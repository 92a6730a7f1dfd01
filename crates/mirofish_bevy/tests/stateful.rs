//! Random sequences of what game code may do to the plugin: spawn and
//! despawn fish, remove and put back their components, write NaN, inf or
//! huge numbers into them, change the configuration (valid or not), add
//! obstacle and predator entities, submit commands (valid or not), run
//! ticks. After every run of ticks: nothing gathered is NaN or inf, every
//! fish of the flock is in the tank and out of every obstacle, the
//! entities agree with the flock, and the metrics are finite.
//!
//! CI runs the default number of cases; a long run:
//! `PROPTEST_CASES=500 cargo test --release -p mirofish_bevy --test stateful`.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;
use mirofish_sim::{BoundaryMode, FlockCommand};
use proptest::prelude::*;

fn wild() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -500.0f32..500.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(1.0e30f32),
    ]
}

fn point() -> impl Strategy<Value = Vec2> {
    (wild(), wild()).prop_map(|(x, y)| Vec2::new(x, y))
}

/// Which component game code takes away.
#[derive(Clone, Copy, Debug)]
enum Part {
    Id,
    Previous,
    Steering,
    Phase,
    Position,
    Velocity,
}

#[derive(Clone, Debug)]
enum Step {
    Spawn { count: usize, school: u16 },
    Despawn(usize),
    Remove(usize, Part),
    PutBack(usize),
    MoveTo(usize, Vec2),
    Push(usize, Vec2),
    Phase(usize, f32),
    Radius(f32),
    MaxSpeed(f32),
    Boundary(BoundaryMode),
    Rock(Vec2, f32),
    Shark(Vec2, f32),
    Submit(FlockCommand),
    Ticks(u32),
}

fn step() -> impl Strategy<Value = Step> {
    let part = prop_oneof![
        Just(Part::Id),
        Just(Part::Previous),
        Just(Part::Steering),
        Just(Part::Phase),
        Just(Part::Position),
        Just(Part::Velocity),
    ];
    let boundary =
        prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)];
    let command = prop_oneof![
        (point(), wild()).prop_map(|(p, r)| FlockCommand::AddPredator(mirofish_sim::Predator::new(p, r))),
        (point(), wild()).prop_map(|(centre, radius)| FlockCommand::AddObstacle(mirofish_sim::Obstacle {
            centre,
            radius
        })),
        Just(FlockCommand::ClearObstacles),
        (prop_oneof![0usize..30, Just(usize::MAX)], point(), wild())
            .prop_map(|(count, centre, radius)| FlockCommand::SpawnFish { school: 0, count, centre, radius }),
        prop_oneof![4 => 0usize..30, 1 => Just(usize::MAX)]
            .prop_map(|count| FlockCommand::RemoveFish { count }),
    ];
    prop_oneof![
        3 => (prop_oneof![4 => 0usize..60, 1 => Just(usize::MAX)], 0u16..3).prop_map(|(count, school)| Step::Spawn { count, school }),
        1 => any::<usize>().prop_map(Step::Despawn),
        2 => (any::<usize>(), part).prop_map(|(k, part)| Step::Remove(k, part)),
        1 => any::<usize>().prop_map(Step::PutBack),
        2 => (any::<usize>(), point()).prop_map(|(k, p)| Step::MoveTo(k, p)),
        1 => (any::<usize>(), point()).prop_map(|(k, v)| Step::Push(k, v)),
        1 => (any::<usize>(), wild()).prop_map(|(k, w)| Step::Phase(k, w)),
        1 => wild().prop_map(Step::Radius),
        1 => wild().prop_map(Step::MaxSpeed),
        1 => boundary.prop_map(Step::Boundary),
        1 => (point(), wild()).prop_map(|(p, r)| Step::Rock(p, r)),
        1 => (point(), wild()).prop_map(|(p, r)| Step::Shark(p, r)),
        2 => command.prop_map(Step::Submit),
        3 => (1u32..4).prop_map(Step::Ticks),
    ]
}

/// The `k`-th fish (modulo their number), if there is one.
fn nth_fish(app: &mut App, k: usize) -> Option<Entity> {
    let fish: Vec<Entity> =
        app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).collect();
    (!fish.is_empty()).then(|| fish[k % fish.len()])
}

fn apply(app: &mut App, step: &Step) {
    match *step {
        Step::Spawn { count, school } => {
            app.world_mut().commands().queue(SpawnSchool::new(count).in_school(school));
            app.world_mut().flush();
        }
        Step::Despawn(k) => {
            if let Some(e) = nth_fish(app, k) {
                app.world_mut().despawn(e);
            }
        }
        Step::Remove(k, part) => {
            if let Some(e) = nth_fish(app, k) {
                let mut fish = app.world_mut().entity_mut(e);
                match part {
                    Part::Id => fish.remove::<FishId>(),
                    Part::Previous => fish.remove::<PreviousPosition>(),
                    Part::Steering => fish.remove::<Steering>(),
                    Part::Phase => fish.remove::<WanderPhase>(),
                    Part::Position => fish.remove::<Position>(),
                    Part::Velocity => fish.remove::<Velocity>(),
                };
            }
        }
        Step::PutBack(k) => {
            if let Some(e) = nth_fish(app, k) {
                app.world_mut().entity_mut(e).insert_if_new((
                    FishId::default(),
                    PreviousPosition(Vec2::ZERO),
                    Steering(Vec2::ZERO),
                    WanderPhase::default(),
                    Position(Vec2::ZERO),
                    Velocity(Vec2::ZERO),
                ));
            }
        }
        Step::MoveTo(k, p) => {
            if let Some(mut pos) = nth_fish(app, k).and_then(|e| app.world_mut().get_mut::<Position>(e)) {
                pos.0 = p;
            }
        }
        Step::Push(k, v) => {
            if let Some(mut vel) = nth_fish(app, k).and_then(|e| app.world_mut().get_mut::<Velocity>(e)) {
                vel.0 = v;
            }
        }
        Step::Phase(k, w) => {
            if let Some(mut phase) = nth_fish(app, k).and_then(|e| app.world_mut().get_mut::<WanderPhase>(e))
            {
                phase.0 = w;
            }
        }
        Step::Radius(r) => app.world_mut().resource_mut::<FlockConfig>().params.perception_radius = r,
        Step::MaxSpeed(s) => app.world_mut().resource_mut::<FlockConfig>().params.max_speed = s,
        Step::Boundary(mode) => app.world_mut().resource_mut::<FlockConfig>().tank.boundary = mode,
        Step::Rock(p, radius) => {
            app.world_mut().spawn((Obstacle2d { radius }, Position(p)));
        }
        Step::Shark(p, fear_radius) => {
            app.world_mut().spawn((Predator2d { fear_radius, ..default() }, Position(p)));
        }
        Step::Submit(ref command) => {
            // Refusal is an answer too; it must not panic.
            let _ = app.world_mut().resource_mut::<FlockCommands>().submit(command.clone());
        }
        Step::Ticks(n) => run_ticks(app, u64::from(n)),
    }
}

fn check(app: &mut App, label: &str) {
    let state = app.world().resource::<FlockState>();
    let (tank, rocks) = (state.config().tank, state.scene().obstacles.clone());
    let separate = rocks
        .iter()
        .enumerate()
        .all(|(i, a)| rocks[i + 1..].iter().all(|b| a.centre.distance(b.centre) > a.radius + b.radius));
    let flock = &state.flock();
    for (i, (p, v)) in flock.positions().iter().zip(flock.velocities()).enumerate() {
        assert!(p.is_finite() && v.is_finite(), "{label}: fish {i} at {p} moving {v}");
        assert!(tank.contains(*p), "{label}: fish {i} outside the tank at {p}");
        if separate {
            assert!(rocks.iter().all(|o| !o.contains(*p)), "{label}: fish {i} in a rock at {p}");
        }
    }
    let written: Vec<(Entity, Vec2)> =
        state.entities().iter().copied().zip(flock.positions().iter().copied()).collect();
    for (e, p) in written {
        if let Some(ecs) = app.world().get::<Position>(e) {
            assert_eq!(ecs.0, p, "{label}: the entity and the flock disagree");
        }
        if let Some(t) = app.world().get::<Transform>(e) {
            assert!(t.translation.is_finite() && t.rotation.is_finite(), "{label}: {t:?}");
        }
    }
    if let Some(m) = app.world().resource::<FlockMetrics>().latest() {
        assert!(m.values().iter().flatten().all(|v| v.is_finite()), "{label}: {m:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn whatever_game_code_does_the_flock_stays_sound(
        seed in any::<u64>(),
        fish in 1usize..300,
        steps in prop::collection::vec(step(), 1..40),
    ) {
        let mut app = headless_app(config(seed), 1);
        app.insert_resource(FlockMetrics::new(1));
        spawn(&mut app, fish);
        for (n, step) in steps.iter().enumerate() {
            apply(&mut app, step);
            if matches!(step, Step::Ticks(_)) {
                check(&mut app, &format!("step {n} ({step:?})"));
            }
        }
        run_ticks(&mut app, 1);
        check(&mut app, "the last tick");
        if std::env::var_os("MIROFISH_STATEFUL_STATS").is_some() {
            let state = app.world().resource::<FlockState>();
            eprintln!("steps {} ticks {} fish {}", steps.len(), state.flock().tick(), state.flock().len());
        }
    }
}
