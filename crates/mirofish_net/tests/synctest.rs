//! GGRS's sync test over a busy school: every frame is rolled back and run
//! again, and the checksums of the two runs compared. A state the snapshot
//! left out, a command applied twice or a tick that depends on anything
//! but its inputs shows as a mismatch.

use ggrs::{PlayerType, SessionBuilder};
use mirofish_net::{NetConfig, NetSchool, PlayerInput};
use mirofish_sim::{
    ExperimentConfig, FlockCommand, Obstacle, Predator, SchoolConfig, Simulation, Vec2, state_hash,
};

/// 1,000 fish in two schools with leaders, two rocks and a chasing
/// predator.
fn busy() -> Simulation {
    let mut config = ExperimentConfig { fish: 800, seed: 11, ..Default::default() };
    config.schools.push(SchoolConfig { fish: 200, leaders: 4, ..Default::default() });
    config.scene.obstacles.push(Obstacle { centre: Vec2::new(150.0, 60.0), radius: 45.0 });
    config.scene.obstacles.push(Obstacle { centre: Vec2::new(-220.0, -90.0), radius: 35.0 });
    config.scene.predators.push(Predator { chase: true, ..Predator::new(Vec2::new(-300.0, 100.0), 120.0) });
    Simulation::from_config(&config).expect("a valid configuration")
}

/// Player `p`'s scripted input at `frame`: a pointer circling the tank,
/// pulling or pushing in turns, a rock now and then, a goal, a clearing,
/// the player's predator following the pointer now and then.
fn input(p: usize, frame: i32) -> PlayerInput {
    let angle = frame as f32 * 0.03 + p as f32 * 2.0;
    let at = PlayerInput::pointer((angle.cos() * 250.0) as i32, (angle.sin() * 120.0) as i32);
    let mut buttons = 0;
    if (frame / 45 + p as i32) % 3 == 0 {
        buttons |= if p == 0 { PlayerInput::ATTRACT } else { PlayerInput::REPEL };
    }
    if frame % 97 == 13 + p as i32 * 40 {
        buttons |= PlayerInput::ROCK;
    }
    if frame % 150 == 70 && p == 1 {
        buttons |= PlayerInput::GOAL;
    }
    if frame == 400 {
        buttons |= PlayerInput::CLEAR;
    }
    // Each player's own predator at the pointer, in windows of their own.
    if (frame / 60 + p as i32) % 4 == 1 {
        buttons |= PlayerInput::PREDATOR;
    }
    at.with(buttons)
}

#[test]
fn six_hundred_frames_rolled_back_every_frame_agree_with_a_straight_run() {
    let mut school = NetSchool::new(busy());
    let mut session = SessionBuilder::<NetConfig>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(3)
        .add_player(PlayerType::Local, 0)
        .unwrap()
        .add_player(PlayerType::Local, 1)
        .unwrap()
        .start_synctest_session()
        .unwrap();
    for frame in 0..600 {
        for p in 0..2 {
            session.add_local_input(p, input(p, frame)).unwrap();
        }
        let requests = session.advance_frame().unwrap_or_else(|e| panic!("frame {frame}: {e}"));
        school.handle(requests).unwrap_or_else(|e| panic!("frame {frame}: {e}"));
    }
    assert_eq!(school.simulation().tick(), 600);
    assert!(school.rollbacks() >= 590, "rolled back every frame: {}", school.rollbacks());
    let sim = school.simulation();
    // Every kind of input became commands.
    let kinds = |want: fn(&FlockCommand) -> bool| sim.applied().iter().filter(|s| want(&s.command)).count();
    assert!(kinds(|c| matches!(c, FlockCommand::SetAttractor(Some(_)))) > 0);
    assert!(kinds(|c| matches!(c, FlockCommand::AddObstacle(_))) > 0);
    assert!(kinds(|c| matches!(c, FlockCommand::AddPredator(_))) > 0);
    assert!(kinds(|c| matches!(c, FlockCommand::MovePredator { .. })) > 0);
    assert!(kinds(|c| matches!(c, FlockCommand::SetGoal(Some(_)))) > 0);

    // The same inputs without a session: the same school.
    let mut straight = NetSchool::new(busy());
    for frame in 0..600 {
        let inputs = (0..2).map(|p| (input(p, frame), ggrs::InputStatus::Confirmed)).collect();
        straight.handle(vec![ggrs::GgrsRequest::AdvanceFrame { inputs }]).unwrap();
    }
    assert_eq!(state_hash(&straight.simulation().flock), state_hash(&sim.flock));
    assert_eq!(straight.simulation().applied(), sim.applied());
}
