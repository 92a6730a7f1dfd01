//! Groups: a goal given to one group moves that group and not the rest,
//! group commands replay bit for bit, and the threads do not matter.

use mirofish_sim::control::config::ExperimentConfig;
use mirofish_sim::control::replay::Recorder;
use mirofish_sim::{FlockCommand, Goal, Simulation, Vec2, state_hash};

/// Each group's mean distance to `target`.
fn distances(sim: &Simulation, groups: usize, target: Vec2) -> Vec<f32> {
    let mut sums = vec![(0.0f32, 0usize); groups];
    for (slot, &p) in sim.positions().iter().enumerate() {
        let id = sim.ids()[slot];
        if let Some(g) = sim.group_of(id) {
            sums[usize::from(g)].0 += p.distance(target);
            sums[usize::from(g)].1 += 1;
        }
    }
    sums.into_iter().map(|(d, n)| d / n.max(1) as f32).collect()
}

#[test]
fn a_group_goal_moves_its_group_only() {
    let config = ExperimentConfig { fish: 600, seed: 5, ..ExperimentConfig::default() };
    let mut sim = Simulation::from_config(&config).unwrap();
    let target = sim.tank().min + sim.tank().size() * Vec2::new(0.9, 0.9);
    sim.submit(FlockCommand::FormGroups { school: None, first: 0, count: 4 }).unwrap();
    sim.run(1);
    let before = distances(&sim, 4, target);
    sim.submit(FlockCommand::SetGroupGoal { group: 2, goal: Some(Goal::seek(target, 1.5)) }).unwrap();
    sim.run(240);
    let after = distances(&sim, 4, target);
    let closer: Vec<f32> = before.iter().zip(&after).map(|(b, a)| b - a).collect();
    assert!(closer[2] > 0.4 * before[2], "group 2 went for its goal: {before:?} -> {after:?}");
    for g in [0, 1, 3] {
        assert!(closer[2] > 2.0 * closer[g].max(0.0), "group {g} stayed: {closer:?}");
    }
}

#[test]
fn group_commands_replay_bit_for_bit_on_any_threads() {
    let config = ExperimentConfig { fish: 500, seed: 9, ..ExperimentConfig::default() };
    let script = |rec: &mut Recorder| {
        let goal = |x: f32, y: f32| Some(Goal::seek(Vec2::new(x, y), 1.0));
        rec.schedule(3, FlockCommand::FormGroups { school: None, first: 0, count: 7 }).unwrap();
        rec.schedule(3, FlockCommand::SetGroupGoal { group: 1, goal: goal(300.0, 200.0) }).unwrap();
        rec.schedule(50, FlockCommand::SetGroupGoal { group: 5, goal: goal(-300.0, 100.0) }).unwrap();
        rec.schedule(80, FlockCommand::JoinGroup { fish: vec![0, 4, 9, 499, 10_000], group: Some(9) })
            .unwrap();
        rec.schedule(80, FlockCommand::SetGroupGoal { group: 9, goal: goal(0.0, -200.0) }).unwrap();
        rec.schedule(120, FlockCommand::FormGroups { school: None, first: 0, count: 3 }).unwrap();
        rec.schedule(160, FlockCommand::ClearGroups).unwrap();
        rec.run(200).unwrap();
    };
    let mut rec = Recorder::new(config.clone(), 20).unwrap();
    script(&mut rec);
    let recording = rec.finish();
    let replayed = recording.replay().unwrap();
    assert_eq!(state_hash(&replayed), recording.checkpoints.last().unwrap().hash);
    let on_threads = |threads: usize| {
        let mut sim = Simulation::from_config(&config).unwrap().with_threads(threads).unwrap();
        for c in &recording.commands {
            sim.schedule(c.tick, c.command.clone()).unwrap();
        }
        sim.run(200);
        state_hash(&sim)
    };
    assert_eq!(on_threads(1), on_threads(2));
    assert_eq!(on_threads(1), recording.checkpoints.last().unwrap().hash);
}

#[test]
fn bad_group_commands_are_refused() {
    let mut sim =
        Simulation::from_config(&ExperimentConfig { fish: 10, ..ExperimentConfig::default() }).unwrap();
    let huge = mirofish_sim::MAX_GROUPS as u16;
    assert!(sim.submit(FlockCommand::SetGroupGoal { group: huge, goal: None }).is_err());
    assert!(sim.submit(FlockCommand::FormGroups { school: None, first: huge - 1, count: 2 }).is_err());
    let nan = Goal::seek(Vec2::new(f32::NAN, 0.0), 1.0);
    let err = sim.submit(FlockCommand::SetGroupGoal { group: 0, goal: Some(nan) }).unwrap_err();
    assert!(err.to_string().contains("goal.target"), "{err}");
    assert!(sim.pending().is_empty());
}
