//! The decision layer as a user runs it: deterministic with the rules,
//! never waiting for a slow or stuck decider, falling back on timeouts and
//! bad answers, caching, and replaying without any decider.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mirofish_decide::layer::MAX_PERIOD;
use mirofish_decide::{
    Budget, DecideError, Decider, DecisionConfig, DecisionLayer, FailureCause, Intent, Region,
    ScriptedDecider, SlowDecider, UnitView, Vocabulary,
};
use mirofish_sim::control::replay::Recorder;
use mirofish_sim::{ExperimentConfig, Predator, Simulation, Vec2, state_hash};

fn config(fish: usize, seed: u64) -> ExperimentConfig {
    ExperimentConfig { fish, seed, ..ExperimentConfig::default() }
}

/// `ticks` ticks of `sim` with `layer` planning before each.
fn drive(sim: &mut Simulation, layer: &mut DecisionLayer, ticks: u64) {
    for _ in 0..ticks {
        for command in layer.plan(&*sim, sim.tank(), sim.scene()) {
            sim.submit(command).unwrap();
        }
        sim.step();
    }
}

#[test]
fn the_rules_give_every_unit_an_intent_and_the_same_run_on_any_threads() {
    let decide = DecisionConfig { units: 30, follower_period: 120, ..DecisionConfig::default() };
    let run = |threads: usize| {
        let mut sim = Simulation::from_config(&config(1500, 4)).unwrap().with_threads(threads).unwrap();
        sim.submit(mirofish_sim::FlockCommand::AddPredator(Predator::new(Vec2::new(200.0, 100.0), 150.0)))
            .unwrap();
        let mut layer = DecisionLayer::with_rules(decide.clone()).unwrap();
        drive(&mut sim, &mut layer, 600);
        (state_hash(&sim), layer)
    };
    let (one, layer) = run(1);
    let (two, _) = run(2);
    assert_eq!(one, two);
    assert_eq!(layer.intents().filter(Option::is_some).count(), 30);
    let stats = layer.stats();
    assert_eq!((stats.requests, stats.timeouts, stats.fallbacks), (0, 0, 0), "{stats:?}");
    assert!(stats.commands >= 30, "{stats:?}");
}

/// A decider that answers only once it is let go.
struct Held {
    gate: Arc<Mutex<()>>,
}

impl Decider for Held {
    fn decide(&self, _unit: &UnitView, _words: &Vocabulary) -> Result<Intent, DecideError> {
        let _open = self.gate.lock().map_err(|e| DecideError::Backend(e.to_string()))?;
        Ok(Intent::Rest)
    }
}

#[test]
fn a_stuck_decider_never_holds_up_the_ticks() {
    let gate = Arc::new(Mutex::new(()));
    let closed = gate.lock().unwrap();
    let decide = DecisionConfig { units: 20, timeout_ms: 3_600_000, workers: 2, ..DecisionConfig::default() };
    let mut layer = DecisionLayer::new(decide, Held { gate: gate.clone() }).unwrap();
    let mut sim = Simulation::from_config(&config(800, 2)).unwrap();
    // Were `plan` to wait for an answer, this would never return.
    drive(&mut sim, &mut layer, 300);
    assert_eq!(sim.tick(), 300);
    // Two requests sent, two waiting for a worker, the other units due
    // until a worker is free: every unit keeps its last intent.
    assert_eq!(layer.in_flight(), 4);
    assert!(layer.stats().deferred > 0);
    assert!(layer.intents().all(|i| i.is_none()));
    drop(closed);
    // Let the answers in (bounded: the test fails rather than hangs).
    let start = Instant::now();
    while layer.intents().any(|i| i.is_none()) && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(layer.in_flight(), 0);
    assert!(layer.intents().all(|i| i == Some(Intent::Rest)));
}

/// With the decider's latency known, the layer starts as many workers as
/// the units due at that pace need, not `workers`.
#[test]
fn the_workers_are_sized_from_the_expected_latency() {
    let gate = Arc::new(Mutex::new(()));
    let closed = gate.lock().unwrap();
    let decide = DecisionConfig {
        units: 20,
        timeout_ms: 3_600_000,
        leader_period: 600,
        follower_period: 600,
        expected_latency_ms: Some(2000),
        workers: 1,
        ..DecisionConfig::default()
    };
    // 20 units every 10 s: 2 requests a second, 2 s each, half again: 6.
    assert_eq!(decide.workers_for(0), 6);
    let mut layer = DecisionLayer::new(decide, Held { gate: gate.clone() }).unwrap();
    let mut sim = Simulation::from_config(&config(800, 2)).unwrap();
    drive(&mut sim, &mut layer, 300);
    // Six stuck at the six workers and six waiting for them.
    assert_eq!(layer.in_flight(), 12);
    drop(closed);
    let start = Instant::now();
    while layer.intents().any(|i| i.is_none()) && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(layer.intents().all(|i| i == Some(Intent::Rest)));
}

/// A slow decider that counts the requests that reach it, and answers
/// once its gate is open.
struct Counted {
    delay: Duration,
    calls: Arc<std::sync::atomic::AtomicU64>,
    gate: Arc<Mutex<()>>,
}

impl Decider for Counted {
    fn decide(&self, _unit: &UnitView, _words: &Vocabulary) -> Result<Intent, DecideError> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let _open = self.gate.lock().map_err(|e| DecideError::Backend(e.to_string()))?;
        std::thread::sleep(self.delay);
        Ok(Intent::Gather)
    }
}

/// The decision layer with `units` units on `workers` workers, `timeout_ms`
/// and a [`Counted`] decider.
fn counted(units: u16, workers: usize, timeout_ms: u64, delay: Duration) -> (DecisionLayer, Counted) {
    let decider = Counted { delay, calls: Arc::default(), gate: Arc::default() };
    let watch = Counted { delay, calls: decider.calls.clone(), gate: decider.gate.clone() };
    let decide = DecisionConfig {
        units,
        workers,
        timeout_ms,
        leader_period: MAX_PERIOD,
        follower_period: MAX_PERIOD,
        cache_capacity: 0,
        ..DecisionConfig::default()
    };
    (DecisionLayer::new(decide, decider).unwrap(), watch)
}

/// More units than the workers serve at once: at most `workers` requests
/// wait for a worker, the other units stay due and are sent as workers
/// free up, and the timeout runs from sending, so every unit is answered
/// by a server slower than the timeout divided by the units.
#[test]
fn a_burst_of_due_units_is_sent_as_the_workers_free_up() {
    let (mut layer, watch) = counted(8, 1, 400, Duration::from_millis(150));
    let mut sim = Simulation::from_config(&config(400, 5)).unwrap();
    let start = Instant::now();
    while layer.stats().decisions < 8 && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
        assert!(layer.in_flight() <= 2, "one sent, one waiting at most");
        std::thread::sleep(Duration::from_millis(5));
    }
    let stats = layer.stats();
    assert_eq!(
        (stats.requests, stats.decisions, stats.timeouts, stats.dropped_unsent),
        (8, 8, 0, 0),
        "{stats:?}"
    );
    assert!(stats.deferred > 0, "{stats:?}");
    assert_eq!(watch.calls.load(std::sync::atomic::Ordering::SeqCst), 8);
}

/// A worker stuck on a dead request: the request waiting behind it is
/// given up after the timeout and never reaches the decider, even once
/// the worker frees up.
#[test]
fn requests_queued_too_long_are_given_up_unsent() {
    let (mut layer, watch) = counted(3, 1, 100, Duration::ZERO);
    let closed = watch.gate.lock().unwrap();
    let mut sim = Simulation::from_config(&config(300, 6)).unwrap();
    let start = Instant::now();
    while layer.stats().dropped_unsent < 2 && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(closed);
    // Whatever the freed worker still finds queued, it sends at once.
    std::thread::sleep(Duration::from_millis(300));
    let stats = layer.stats();
    let sent = watch.calls.load(std::sync::atomic::Ordering::SeqCst);
    assert!(stats.dropped_unsent >= 2 && stats.timeouts >= 1, "{stats:?}");
    assert_eq!(sent, stats.requests - stats.dropped_unsent, "a request given up was sent: {stats:?}");
    let unsent =
        layer.recent_failures().filter(|f| matches!(f.cause, FailureCause::Unsent { after_ms: 100 }));
    assert!(unsent.count() >= 2);
    let said = layer.recent_failures().map(|f| f.to_string()).collect::<Vec<_>>().join("\n");
    assert!(said.contains("not sent: no worker free within 100 ms"), "{said}");
}

/// A decider that answers at once off the simulation thread and reports
/// `per_answer` tokens spent per answer.
struct Spender {
    per_answer: u64,
    spent: std::sync::atomic::AtomicU64,
}

impl Decider for Spender {
    fn decide(&self, _unit: &UnitView, _words: &Vocabulary) -> Result<Intent, DecideError> {
        self.spent.fetch_add(self.per_answer, std::sync::atomic::Ordering::SeqCst);
        Ok(Intent::Gather)
    }

    fn tokens_spent(&self) -> u64 {
        self.spent.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Past a budget, units fall back instead of asking, each with the budget
/// named; within it, they ask.
#[test]
fn units_past_the_request_or_token_budget_fall_back_without_asking() {
    let run = |budget: DecisionConfig| {
        let decide = DecisionConfig {
            units: 6,
            workers: 1,
            leader_period: MAX_PERIOD,
            follower_period: MAX_PERIOD,
            cache_capacity: 0,
            ..budget
        };
        let spender = Spender { per_answer: 100, spent: std::sync::atomic::AtomicU64::new(0) };
        let mut layer = DecisionLayer::new(decide, spender).unwrap();
        let mut sim = Simulation::from_config(&config(300, 7)).unwrap();
        let start = Instant::now();
        while layer.stats().decisions + layer.stats().fallbacks < 6
            && start.elapsed() < Duration::from_secs(30)
        {
            drive(&mut sim, &mut layer, 1);
            std::thread::sleep(Duration::from_millis(2));
        }
        layer
    };
    let layer = run(DecisionConfig { requests_per_minute: Some(2), ..DecisionConfig::default() });
    let stats = layer.stats();
    assert_eq!(
        (stats.requests, stats.decisions, stats.over_budget, stats.fallbacks),
        (2, 2, 4, 4),
        "{stats:?}"
    );
    let said = layer.recent_failures().next().unwrap().to_string();
    assert!(said.contains("2 requests were sent in the last minute"), "{said}");
    // 100 tokens an answer against 250 an hour: the third answer passes
    // the budget, and the units after it do not ask (one more may have
    // been sent before the third's tokens were counted: a budget holds
    // what the decider has reported).
    let layer = run(DecisionConfig { tokens_per_hour: Some(250), ..DecisionConfig::default() });
    let stats = layer.stats();
    assert!((3..=4).contains(&stats.requests), "{stats:?}");
    assert_eq!(stats.over_budget, 6 - stats.requests, "{stats:?}");
    assert!(layer.recent_failures().all(|f| f.cause == FailureCause::OverBudget(Budget::TokensPerHour(250))));
    let refused = DecisionLayer::<Vec2>::with_rules(DecisionConfig {
        tokens_per_hour: Some(0),
        ..DecisionConfig::default()
    });
    assert!(refused.unwrap_err().to_string().contains("decision.tokens_per_hour"));
}

#[test]
fn timeouts_errors_and_bad_answers_fall_back_and_are_counted() {
    let decide = DecisionConfig {
        units: 4,
        timeout_ms: 40,
        default_intent: Intent::GoTo { region: Region::CENTRE },
        cache_capacity: 0,
        ..DecisionConfig::default()
    };
    let slow = SlowDecider { intent: Intent::Gather, delay: Duration::from_millis(400) };
    let mut layer = DecisionLayer::new(decide.clone(), slow).unwrap();
    let mut sim = Simulation::from_config(&config(200, 3)).unwrap();
    let start = Instant::now();
    while layer.stats().late < 4 && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
        std::thread::sleep(Duration::from_millis(10));
    }
    let stats = layer.stats();
    assert_eq!((stats.timeouts, stats.late, stats.fallbacks), (4, 4, 4), "{stats:?}");
    let timeouts =
        layer.recent_failures().filter(|f| f.cause == FailureCause::Timeout { after_ms: decide.timeout_ms });
    assert_eq!(timeouts.count(), 4);
    assert!(layer.intents().all(|i| i == Some(Intent::GoTo { region: Region::CENTRE })));

    let script = ScriptedDecider::new(vec![
        Err(DecideError::Malformed("\"dance\"".into())),
        Err(DecideError::Backend("HTTP 503".into())),
        Ok(Intent::Flee { threat: 5 }),
        Ok(Intent::Hide),
    ]);
    let mut layer = DecisionLayer::new(decide, script).unwrap();
    let mut sim = Simulation::from_config(&config(200, 3)).unwrap();
    let start = Instant::now();
    while layer.stats().fallbacks < 4 && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
    }
    let stats = layer.stats();
    // No predator and no rock: fleeing threat 5 and hiding do not fit.
    assert_eq!((stats.malformed, stats.errors, stats.unfit, stats.fallbacks), (1, 1, 2, 4), "{stats:?}");
    // Each fallback keeps its cause, in the decider's words.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let causes = sorted(layer.recent_failures().map(|f| f.cause.to_string()).collect());
    let expected = sorted(
        [
            "the decider's answer is not an intent: \"dance\"",
            "the decider failed: HTTP 503",
            "the intent does not fit the unit: flee: there is no threat 5",
            "the intent does not fit the unit: hide: there is no cover",
        ]
        .map(String::from)
        .to_vec(),
    );
    assert_eq!(causes, expected);
}

#[test]
fn a_calm_school_is_mostly_answered_from_the_cache() {
    let decide = DecisionConfig { units: 24, follower_period: 60, ..DecisionConfig::default() };
    let mut layer = DecisionLayer::with_rules(decide).unwrap();
    let mut sim = Simulation::from_config(&config(2000, 6)).unwrap();
    drive(&mut sim, &mut layer, 3600);
    let cache = layer.cache();
    assert!(cache.hits + cache.misses >= 24 * 59, "{} lookups", cache.hits + cache.misses);
    assert!(cache.hit_rate() > 0.6, "hit rate {:.2}", cache.hit_rate());
}

#[test]
fn a_run_decided_on_worker_threads_replays_without_the_decider() {
    // Answers arrive whenever the threads are done: the live run depends
    // on timing, its recording does not.
    let script = ScriptedDecider::new(vec![
        Ok(Intent::GoTo { region: Region::TOP_LEFT }),
        Ok(Intent::SpreadOut),
        Ok(Intent::Gather),
        Err(DecideError::Malformed("?".into())),
        Ok(Intent::GoTo { region: Region::BOTTOM }),
    ]);
    let decide =
        DecisionConfig { units: 12, follower_period: 40, cache_capacity: 0, ..DecisionConfig::default() };
    let mut layer = DecisionLayer::new(decide, script).unwrap();
    let mut recorder = Recorder::new(config(600, 8), 50).unwrap();
    for _ in 0..400 {
        let sim = recorder.simulation();
        let (tick, commands) = (sim.tick(), layer.plan(sim, sim.tank(), sim.scene()));
        for command in commands {
            recorder.schedule(tick, command).unwrap();
        }
        recorder.step().unwrap();
        std::thread::sleep(Duration::from_micros(200));
    }
    assert!(layer.stats().decisions > 12, "{:?}", layer.stats());
    let recording = recorder.finish();
    let text = recording.to_text();
    let replayed = mirofish_sim::Recording::from_text(&text).unwrap().replay().unwrap();
    assert_eq!(state_hash(&replayed), recording.checkpoints.last().unwrap().hash);
}

#[test]
fn bad_configurations_are_refused_by_name() {
    let refuse = |c: DecisionConfig| DecisionLayer::<Vec2>::with_rules(c).unwrap_err().field;
    assert_eq!(refuse(DecisionConfig { units: 0, ..Default::default() }), "units");
    assert_eq!(refuse(DecisionConfig { first_group: 4090, units: 10, ..Default::default() }), "units");
    assert_eq!(refuse(DecisionConfig { goal_weight: f32::NAN, ..Default::default() }), "goal_weight");
    assert_eq!(refuse(DecisionConfig { timeout_ms: 0, ..Default::default() }), "timeout_ms");
    assert_eq!(refuse(DecisionConfig { notice: f32::INFINITY, ..Default::default() }), "notice");
    assert_eq!(refuse(DecisionConfig { workers: 0, ..Default::default() }), "workers");
    assert_eq!(refuse(DecisionConfig { leader_period: 0, ..Default::default() }), "leader_period");
    // Periods that would overflow `now + period` are refused by name.
    assert_eq!(refuse(DecisionConfig { leader_period: u64::MAX, ..Default::default() }), "leader_period");
    assert_eq!(refuse(DecisionConfig { follower_period: u64::MAX, ..Default::default() }), "follower_period");
    assert_eq!(
        refuse(DecisionConfig { regroup_period: Some(u64::MAX), ..Default::default() }),
        "regroup_period"
    );
    let longest =
        DecisionConfig { leader_period: MAX_PERIOD, follower_period: MAX_PERIOD, ..Default::default() };
    assert!(DecisionLayer::<Vec2>::with_rules(longest).is_ok());
    // A first group past the last is named as such, not as `units`.
    let err =
        DecisionLayer::<Vec2>::with_rules(DecisionConfig { first_group: u16::MAX, ..Default::default() })
            .unwrap_err();
    assert_eq!(err.field, "first_group");
    assert!(err.to_string().contains("0 to"), "{err}");
}

/// A unit whose period is the longest allowed decides once and then waits,
/// without overflowing the tick it is next due.
#[test]
fn the_longest_period_decides_once_and_then_waits() {
    let slow = DecisionConfig {
        units: 4,
        leader_period: MAX_PERIOD,
        follower_period: MAX_PERIOD,
        ..Default::default()
    };
    let mut layer = DecisionLayer::with_rules(slow).unwrap();
    let mut sim = Simulation::from_config(&config(200, 5)).unwrap();
    drive(&mut sim, &mut layer, 30);
    assert_eq!(layer.stats().decisions, 4, "each unit once");
}

#[test]
fn a_layer_can_live_in_a_shared_resource() {
    fn shared<T: Send + Sync + 'static>() {}
    shared::<DecisionLayer>();
}

/// The layer decides for a school in a volume as on a plane: every unit
/// gets an intent, the goals lie in the volume's regions, the run is the
/// same on any threads, and a run decided on worker threads replays
/// without its decider.
#[test]
fn a_school_in_a_volume_decides_and_replays() {
    use mirofish_sim::state_hash as state_hash_of;
    use mirofish_sim::{Vec3, Vector, VolumeConfig, VolumeRecorder};
    let volume = VolumeConfig { fish: 900, seed: 11, ..VolumeConfig::default() };
    let decide = DecisionConfig { units: 12, follower_period: 90, ..DecisionConfig::default() };
    let run = |threads: usize| {
        let mut flock = volume.start().unwrap().with_threads(threads).unwrap();
        flock
            .submit(mirofish_sim::VolumeCommand::AddPredator(Predator::new(
                Vec3::new(300.0, 0.0, 0.0),
                120.0,
            )))
            .unwrap();
        let mut layer = DecisionLayer::<Vec3>::with_rules(decide.clone()).unwrap();
        for _ in 0..400 {
            for command in layer.plan(&flock, &flock.tank().clone(), &flock.scene().clone()) {
                flock.submit(command).unwrap();
            }
            flock.step();
        }
        (state_hash_of(&flock), layer, flock)
    };
    let (one, layer, flock) = run(1);
    let (two, _, _) = run(2);
    assert_eq!(one, two);
    assert_eq!(layer.intents().filter(Option::is_some).count(), 12);
    let regions: Vec<_> =
        layer.vocabulary().regions().places().iter().map(|p| p.region.name().to_string()).collect();
    assert_eq!(regions.len(), 27);
    // Units sent somewhere are sent to a volume's region, at its height.
    let tank = *flock.tank();
    let goals: Vec<_> = flock.scene().group_goals.iter().flatten().collect();
    assert!(!goals.is_empty());
    for goal in goals {
        assert!(
            (0..3)
                .all(|a| goal.target.axis(a) >= tank.min.axis(a) && goal.target.axis(a) <= tank.max.axis(a))
        );
    }
    assert!(
        layer
            .intents()
            .flatten()
            .any(|i| matches!(i, Intent::GoTo { region } if region.name().contains('_'))),
        "the tour goes round the volume's sides"
    );

    // On worker threads, recorded, replayed without the decider.
    let script = ScriptedDecider::new(vec![
        Ok(Intent::GoTo { region: Region::named("top_left_front").unwrap() }),
        Ok(Intent::Gather),
        Ok(Intent::GoTo { region: Region::named("bottom_back").unwrap() }),
    ]);
    let decide =
        DecisionConfig { units: 8, follower_period: 40, cache_capacity: 0, ..DecisionConfig::default() };
    let mut layer = DecisionLayer::<Vec3>::new(decide, script).unwrap();
    let mut recorder =
        VolumeRecorder::new(VolumeConfig { fish: 400, seed: 3, ..VolumeConfig::default() }, 50).unwrap();
    for _ in 0..300 {
        let flock = recorder.simulation();
        let (tick, tank, scene) = (flock.tick(), *flock.tank(), flock.scene().clone());
        for command in layer.plan(flock, &tank, &scene) {
            recorder.schedule(tick, command).unwrap();
        }
        recorder.step().unwrap();
        std::thread::sleep(Duration::from_micros(200));
    }
    assert!(layer.stats().decisions > 8, "{:?}", layer.stats());
    let recording = recorder.finish();
    let replayed = mirofish_sim::VolumeRecording::from_text(&recording.to_text()).unwrap().replay().unwrap();
    assert_eq!(state_hash_of(&replayed), recording.checkpoints.last().unwrap().hash);
}

/// A game's own intent and place, answered by a decider, set the goal the
/// game's function gives; an own intent that refuses a unit falls back
/// with the game's words; one the vocabulary lacks is counted unfit.
#[test]
fn a_games_own_intents_and_places_steer_its_units() {
    use mirofish_decide::{Aim, Name, OwnIntent, Takes, Unfit};
    use mirofish_sim::{Goal, GoalMode};
    let patrol = OwnIntent::new("patrol", "cruise to region R", Takes::Region, |aim: &Aim<'_, Vec2>| {
        Ok(aim.region.map(|c| Goal { mode: GoalMode::Seek, ..Goal::seek(c, aim.weight * 0.5) }))
    })
    .unwrap();
    let sulk = OwnIntent::new("sulk", "refuse everything", Takes::Nothing, |_: &Aim<'_, Vec2>| {
        Err(Unfit::Own("sulk: never fits".into()))
    })
    .unwrap();
    let words = Vocabulary::default()
        .with_region("reef", Vec2::new(0.9, 0.1))
        .unwrap()
        .with_intent(patrol)
        .unwrap()
        .with_intent(sulk)
        .unwrap();
    let reef = Region::named("reef").unwrap();
    let own = |name: &str, region| Intent::Own { name: Name::new(name).unwrap(), region, threat: None };
    let script = ScriptedDecider::new(vec![
        Ok(own("patrol", Some(reef))),
        Ok(own("sulk", None)),
        Ok(own("dance", None)),
    ]);
    let decide =
        DecisionConfig { units: 3, follower_period: 100_000, cache_capacity: 0, ..DecisionConfig::default() };
    let mut layer = DecisionLayer::with_vocabulary(decide, script, words).unwrap();
    let mut sim = Simulation::from_config(&config(300, 9)).unwrap();
    let start = Instant::now();
    while layer.stats().decisions + layer.stats().fallbacks < 3 && start.elapsed() < Duration::from_secs(30) {
        drive(&mut sim, &mut layer, 1);
    }
    drive(&mut sim, &mut layer, 1);
    let stats = layer.stats();
    assert_eq!((stats.decisions, stats.unfit, stats.fallbacks), (1, 2, 2), "{stats:?}");
    // The patrol's goal: the reef's centre, at half the weight, seeking.
    let reef_centre = sim.tank().min + sim.tank().size() * Vec2::new(0.9, 0.1);
    let goals: Vec<_> = sim.scene().group_goals.iter().flatten().collect();
    assert!(
        goals
            .iter()
            .any(|g| g.mode == GoalMode::Seek && g.target.distance(reef_centre) < 1e-3 && g.weight == 0.2),
        "{goals:?}"
    );
    let causes: Vec<String> = layer.recent_failures().map(|f| f.cause.to_string()).collect();
    assert!(causes.iter().any(|c| c.ends_with("sulk: never fits")), "{causes:?}");
    assert!(causes.iter().any(|c| c.ends_with("there is no intent `dance`")), "{causes:?}");
}
