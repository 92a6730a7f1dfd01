//! Random sequences of hostile operations on a recorded run: commands
//! (valid and invalid, with non-finite and huge numbers), spawns and
//! removals, scene changes, ticks on one or two threads. After every step
//! nothing is NaN or inf, every fish is in the tank and out of every
//! obstacle (rocks are drawn across the walls and in overlapping clusters
//! too); at the end the recording replays to the same hashes.
//!
//! CI runs the default number of cases; a long run:
//! `PROPTEST_CASES=2000 cargo test --release -p mirofish_sim --test stateful`.

use std::sync::OnceLock;

use mirofish_sim::world::scene::check_room;
use mirofish_sim::{
    Attractor, BoundaryMode, ExperimentConfig, FlockCommand, FlockParams, Goal, GoalMode, Obstacle, Predator,
    Recorder, Recording, Route, Simulation, Tank, Vec2, state_hash,
};
use proptest::prelude::*;

/// Numbers a careless or hostile caller might type.
fn wild() -> impl Strategy<Value = f32> {
    prop_oneof![
        12 => -500.0f32..500.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(1.0e30f32),
        1 => Just(0.0f32),
        1 => Just(-1.0e-30f32),
    ]
}

fn point() -> impl Strategy<Value = Vec2> {
    (wild(), wild()).prop_map(|(x, y)| Vec2::new(x, y))
}

fn params() -> impl Strategy<Value = FlockParams> {
    let sane = (5.0f32..120.0, 10.0f32..400.0, 0.0f32..4.0, 0.0f32..4.0, 0.0f32..3.0, 1u32..=16);
    let hostile = (wild(), wild(), wild(), wild(), 0.0f32..3.0, 0u32..=20);
    prop_oneof![sane, hostile].prop_map(|(radius, speed, sep, coh, align, cap)| FlockParams {
        perception_radius: radius.abs(),
        max_speed: speed,
        separation_weight: sep,
        cohesion_weight: coh,
        alignment_weight: align,
        neighbour_cap: cap,
        ..FlockParams::default()
    })
}

/// Rocks where fish get caught: across the walls and corners of the
/// 400 × 300 tank, and in clusters near its middle that overlap.
fn awkward_rock() -> impl Strategy<Value = Obstacle> {
    // Each coordinate across one wall or the other, or anywhere between.
    let near = |half: f32| prop_oneof![-half - 40.0..-half + 40.0, half - 40.0..half + 40.0, -half..half];
    let on_a_wall = (near(200.0), near(150.0), 30.0f32..220.0);
    let clustered = (-70.0f32..70.0, -70.0f32..70.0, 40.0f32..160.0);
    prop_oneof![on_a_wall, clustered].prop_map(|(x, y, radius)| Obstacle { centre: Vec2::new(x, y), radius })
}

fn command() -> impl Strategy<Value = FlockCommand> {
    prop_oneof![1 => awkward_rock().prop_map(FlockCommand::AddObstacle), 4 => any_command()]
}

fn any_command() -> impl Strategy<Value = FlockCommand> {
    prop_oneof![
        params().prop_map(FlockCommand::SetParams),
        prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)]
            .prop_map(FlockCommand::SetBoundary),
        (point(), wild()).prop_map(|(p, r)| FlockCommand::AddPredator(Predator::new(p, r))),
        (0usize..4).prop_map(FlockCommand::RemovePredator),
        (point(), wild()).prop_map(|(centre, radius)| FlockCommand::AddObstacle(Obstacle { centre, radius })),
        (0usize..4).prop_map(FlockCommand::RemoveObstacle),
        Just(FlockCommand::ClearObstacles),
        (point(), wild()).prop_map(|(p, w)| FlockCommand::SetGoal(Some(Goal::seek(p, w)))),
        (point(), wild(), wild()).prop_map(|(p, w, slowing)| FlockCommand::SetGoal(Some(Goal {
            target: p,
            weight: w,
            mode: GoalMode::Flee,
            slowing_radius: slowing,
        }))),
        (point(), wild(), wild()).prop_map(|(p, s, r)| FlockCommand::SetAttractor(Some(Attractor {
            point: p,
            strength: s,
            radius: r
        }))),
        Just(FlockCommand::SetAttractor(None)),
        (point(), point(), wild())
            .prop_map(|(a, b, reach)| FlockCommand::SetRoute(Some(Route::new(vec![a, b], reach)))),
        (prop_oneof![0usize..200, Just(usize::MAX), Just(2_000_000usize)], point(), wild())
            .prop_map(|(count, centre, radius)| FlockCommand::SpawnFish { school: 0, count, centre, radius }),
        prop_oneof![0usize..100, Just(usize::MAX)].prop_map(|count| FlockCommand::RemoveFish { count }),
        (prop::option::of(0u16..3), 0u16..5000, 0u16..60)
            .prop_map(|(school, first, count)| FlockCommand::FormGroups { school, first, count }),
        (prop::collection::vec(0u32..400, 0..20), prop::option::of(0u16..5000))
            .prop_map(|(fish, group)| FlockCommand::JoinGroup { fish, group }),
        (0u16..5000, point(), wild(), wild()).prop_map(|(group, p, w, slowing)| FlockCommand::SetGroupGoal {
            group,
            goal: Some(Goal { target: p, weight: w, mode: GoalMode::Arrive, slowing_radius: slowing }),
        }),
        Just(FlockCommand::ClearGroups),
        (0u16..2000, point(), wild())
            .prop_map(|(school, p, w)| FlockCommand::SetSchoolGoal { school, goal: Some(Goal::seek(p, w)) }),
    ]
}

#[derive(Clone, Debug)]
enum Step {
    /// Queue a command `delay` ticks ahead.
    Schedule { delay: u64, command: FlockCommand },
    /// Run ticks on a pool of this many threads.
    Run { ticks: u64, threads: usize },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => (0u64..3, command()).prop_map(|(delay, command)| Step::Schedule { delay, command }),
        1 => (1u64..8, 1usize..=2).prop_map(|(ticks, threads)| Step::Run { ticks, threads }),
    ]
}

fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: OnceLock<[rayon::ThreadPool; 2]> = OnceLock::new();
    let pools = POOLS.get_or_init(|| {
        [1, 2].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a thread pool"))
    });
    &pools[threads - 1]
}

/// Every number finite, the rocks leaving room between them (a rock that
/// would close it is not added), every fish in the tank and out of every
/// obstacle.
fn check(sim: &Simulation, label: &str) {
    let flock = &sim;
    let rocks = &sim.scene().obstacles;
    assert!(check_room(rocks, sim.tank()).is_ok(), "{label}: the rocks cover the tank: {rocks:?}");
    for (i, (p, v)) in flock.positions().iter().zip(flock.velocities()).enumerate() {
        assert!(p.is_finite() && v.is_finite(), "{label}: fish {i} at {p} moving {v}");
        assert!(sim.tank().contains(*p), "{label}: fish {i} outside the tank at {p}");
        for o in rocks {
            assert!(!o.contains(*p), "{label}: fish {i} inside {o:?} at {p}");
        }
    }
    assert!(flock.steering().all(|s| s.is_finite()), "{label}: steering not finite");
    for predator in &sim.scene().predators {
        assert!(predator.position.is_finite() && predator.velocity.is_finite(), "{label}: {predator:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn hostile_sequences_keep_the_state_sound_and_replayable(
        seed in any::<u64>(),
        fish in 0usize..300,
        steps in prop::collection::vec(step(), 1..40),
    ) {
        let config = ExperimentConfig {
            fish,
            seed,
            tank: Tank::centered(Vec2::new(400.0, 300.0)),
            ..ExperimentConfig::default()
        };
        let mut recorder = Recorder::new(config, 5).expect("a valid start");
        let mut refused = 0;
        for (n, step) in steps.iter().enumerate() {
            match step {
                Step::Schedule { delay, command } => {
                    let tick = recorder.simulation().tick() + delay;
                    if recorder.schedule(tick, command.clone()).is_err() {
                        refused += 1;
                    }
                }
                Step::Run { ticks, threads } => {
                    pool(*threads).install(|| recorder.run(*ticks)).expect("a valid step");
                }
            }
            check(recorder.simulation(), &format!("step {n} ({step:?})"));
        }
        let hash = state_hash(&recorder.simulation());
        let recording = recorder.finish();
        // Through the file format and back, on the other thread count.
        let reloaded = Recording::from_text(&recording.to_text()).expect("its own recording loads");
        let replayed = pool(2).install(|| reloaded.replay()).expect("the recording replays");
        prop_assert_eq!(state_hash(&replayed), hash, "{} commands refused", refused);
        if std::env::var_os("MIROFISH_STATEFUL_STATS").is_some() {
            eprintln!("refused {refused} of {} steps, applied {}", steps.len(), recording.commands.len());
        }
    }
}
