//! The aquarium's default scene, `assets/scenes/aquarium.ron`, run headless
//! as the lab runs it: its schools do not pack into balls in their first
//! minute (seeded, deterministic, not timed). The natural range itself (4–12
//! neighbours at every moment) is not held yet: schools meeting at the walls
//! crowd to a few dozen neighbours for a while.

use mirofish_sim::{ExperimentConfig, Metrics, Simulation};

fn scene() -> ExperimentConfig {
    ExperimentConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/scenes/aquarium.ron"))
        .expect("the scene file loads")
}

#[test]
fn the_default_scene_does_not_pack_into_balls_in_its_first_minute() {
    let config = scene();
    assert_eq!(config.schools.len(), 1, "two schools");
    let radius = config.params.perception_radius;
    for seed in 1..=2 {
        let mut sim = Simulation::from_config(&ExperimentConfig { seed, ..config.clone() }).unwrap();
        for second in (10..=60).step_by(10) {
            sim.run(600).unwrap();
            let m = Metrics::measure(&sim.flock, &sim.params, &sim.tank);
            let nearest = m.nearest_neighbour.expect("schooling fish have neighbours") / radius;
            let at = format!("seed {seed}, {second} s: {m:?}");
            // A school packed into balls has dozens to hundreds of
            // neighbours and its nearest at a tenth of the radius.
            assert!((4.0..=45.0).contains(&m.mean_neighbours), "{at}");
            assert!((0.25..=0.65).contains(&nearest), "{at}");
        }
    }
}
