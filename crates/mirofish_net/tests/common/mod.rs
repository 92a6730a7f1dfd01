//! What the tests share: a busy school and two players' scripted inputs.

#![allow(dead_code, reason = "each test binary uses part of it")]

use ggrs::{PlayerType, SessionBuilder, SyncTestSession};
use mirofish_net::{NetConfig, NetSchool, PlayerInput};
use mirofish_sim::{ExperimentConfig, Obstacle, Predator, SchoolConfig, Simulation, Vec2};

/// 1,000 fish in two schools with leaders, two rocks and a chasing
/// predator.
pub fn busy() -> Simulation {
    busy_seeded(11)
}

/// [`busy`] from another seed.
pub fn busy_seeded(seed: u64) -> Simulation {
    let mut config = ExperimentConfig { fish: 800, seed, ..Default::default() };
    config.schools.push(SchoolConfig { fish: 200, leaders: 4, ..Default::default() });
    config.scene.obstacles.push(Obstacle { centre: Vec2::new(150.0, 60.0), radius: 45.0 });
    config.scene.obstacles.push(Obstacle { centre: Vec2::new(-220.0, -90.0), radius: 35.0 });
    config.scene.predators.push(Predator { chase: true, ..Predator::new(Vec2::new(-300.0, 100.0), 120.0) });
    Simulation::from_config(&config).expect("a valid configuration")
}

/// Player `p`'s scripted input at `frame`: a pointer circling the tank,
/// pulling or pushing in turns, a rock now and then, a goal, a clearing,
/// the player's predator following the pointer now and then.
pub fn input(p: usize, frame: i32) -> PlayerInput {
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

/// The school of [`busy`] after `frames` frames of the scripted inputs of
/// two players, without a session: what every session must come to.
pub fn straight_run(frames: i32) -> NetSchool {
    let mut school = NetSchool::new(busy());
    for frame in 0..frames {
        let inputs: Vec<_> = (0..2).map(|p| (input(p, frame), ggrs::InputStatus::Confirmed)).collect();
        school.advance(&inputs).expect("a valid school ticks");
    }
    school
}

/// A GGRS sync test of two local players that goes back `distance` frames
/// at every frame and compares the checksums of both runs.
pub fn sync_test_session(distance: usize) -> SyncTestSession<NetConfig> {
    SessionBuilder::<NetConfig>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(distance)
        .add_player(PlayerType::Local, 0)
        .unwrap()
        .add_player(PlayerType::Local, 1)
        .unwrap()
        .start_synctest_session()
        .unwrap()
}
