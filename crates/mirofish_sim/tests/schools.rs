//! Several schools from one configuration: each with its fish, its
//! parameters and its starting heading; commands reach the right school;
//! recordings of such runs replay bit for bit.

use mirofish_sim::control::config::SchoolConfig;
use mirofish_sim::{ExperimentConfig, FlockCommand, FlockParams, Recorder, Simulation, observe, state_hash};

fn two_schools() -> ExperimentConfig {
    let quick = FlockParams { max_speed: 240.0, cohesion_weight: 0.4, ..FlockParams::default() };
    ExperimentConfig {
        fish: 300,
        seed: 11,
        heading: Some(0.0),
        schools: vec![SchoolConfig {
            fish: 120,
            params: quick,
            heading: Some(core::f32::consts::PI),
            leaders: 0,
            colour: None,
        }],
        ..ExperimentConfig::default()
    }
}

fn school_velocities(sim: &Simulation, school: u16) -> Vec<mirofish_sim::Vec2> {
    let schools = sim.schools();
    sim.velocities().iter().zip(schools).filter(|(_, s)| **s == school).map(|(v, _)| *v).collect()
}

#[test]
fn each_school_starts_with_its_fish_and_heading() {
    let sim = Simulation::from_config(&two_schools()).unwrap();
    assert_eq!(sim.len(), 420);
    let (east, west) = (school_velocities(&sim, 0), school_velocities(&sim, 1));
    assert_eq!((east.len(), west.len()), (300, 120));
    assert!(observe::polarization(&east) > 0.85 && observe::polarization(&west) > 0.85);
    let mean = |v: &[mirofish_sim::Vec2]| v.iter().copied().sum::<mirofish_sim::Vec2>() / v.len() as f32;
    assert!(mean(&east).x > 0.0 && mean(&west).x < 0.0, "school 0 heads east, school 1 west");
    assert_eq!(sim.params()[1..], [two_schools().schools[0].params]);
}

#[test]
fn one_school_configurations_start_as_before() {
    let config = ExperimentConfig { fish: 200, seed: 4, ..ExperimentConfig::default() };
    let from_config = Simulation::from_config(&config).unwrap();
    let direct = Simulation::new(config.params, config.tank, 200, 4).unwrap();
    assert_eq!(state_hash(&from_config), state_hash(&direct));
}

#[test]
fn school_parameters_reach_their_school_and_change_its_motion() {
    let mut sim = Simulation::from_config(&two_schools()).unwrap();
    let mut still = sim.clone();
    let slow = FlockParams { max_speed: 10.0, ..FlockParams::default() };
    sim.submit(FlockCommand::SetSchoolParams { school: 1, params: slow }).unwrap();
    sim.run(60);
    still.run(60);
    assert_eq!(sim.params()[1..][0], slow);
    assert_eq!(sim.params()[0], still.params()[0], "school 0 untouched");
    let top = |v: Vec<mirofish_sim::Vec2>| v.iter().map(|v| v.length()).fold(0.0f32, f32::max);
    assert!(top(school_velocities(&sim, 1)) <= 10.0 * 1.001);
    assert!(top(school_velocities(&still, 1)) > 100.0);
}

#[test]
fn a_recording_of_several_schools_replays_bit_for_bit() {
    let mut recorder = Recorder::new(two_schools(), 50).unwrap();
    let slow = FlockParams { max_speed: 60.0, ..FlockParams::default() };
    recorder.schedule(40, FlockCommand::SetSchoolParams { school: 1, params: slow }).unwrap();
    recorder.run(150).unwrap();
    let live = state_hash(&recorder.simulation());
    let recording = recorder.finish();
    let again = mirofish_sim::Recording::from_text(&recording.to_text()).unwrap();
    assert_eq!(state_hash(&again.replay().unwrap()), live);
}

#[test]
fn the_first_fish_of_each_school_lead_as_configured() {
    let config = ExperimentConfig {
        fish: 50,
        leaders: 4,
        schools: vec![SchoolConfig { fish: 30, leaders: 2, ..SchoolConfig::default() }],
        ..ExperimentConfig::default()
    };
    let sim = Simulation::from_config(&config).unwrap();
    let leads: Vec<usize> = (0..sim.len()).filter(|&s| sim.leaders()[s]).collect();
    assert_eq!(leads, [0, 1, 2, 3, 50, 51]);
}
