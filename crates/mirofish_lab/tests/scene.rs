//! The scene files, run headless as the lab runs them (seeded,
//! deterministic, not timed). The aquarium's default scene,
//! `assets/scenes/aquarium.ron`: its schools do not pack into balls in
//! their first minute. The natural range itself (4–12 neighbours at every
//! moment) is not held yet: schools meeting at the walls crowd to a few
//! dozen neighbours for a while. The leaders' scene,
//! `assets/scenes/leaders.ron`: the leaders go round their route and the
//! school goes with them, round the rocks. The volume's scenes,
//! `assets/scenes/torus.ron` and `volume.ron`: a torus forms, the schools
//! and leaders start as written.

use mirofish_sim::{ExperimentConfig, Metrics, Simulation};

fn load(name: &str) -> ExperimentConfig {
    let path = format!("{}/../../assets/scenes/{name}", env!("CARGO_MANIFEST_DIR"));
    ExperimentConfig::load(path).expect("the scene file loads")
}

fn scene() -> ExperimentConfig {
    load("aquarium.ron")
}

#[test]
fn the_default_scene_does_not_pack_into_balls_in_its_first_minute() {
    let config = scene();
    assert_eq!(config.schools.len(), 1, "two schools");
    let radius = config.params.perception_radius;
    for seed in 1..=2 {
        let mut sim = Simulation::from_config(&ExperimentConfig { seed, ..config.clone() }).unwrap();
        for second in (10..=60).step_by(10) {
            sim.run(600);
            let m = Metrics::from(sim.metrics());
            let nearest = m.nearest_neighbour.expect("schooling fish have neighbours") / radius;
            let at = format!("seed {seed}, {second} s: {m:?}");
            // A school packed into balls has dozens to hundreds of
            // neighbours and its nearest at a tenth of the radius.
            assert!((4.0..=45.0).contains(&m.mean_neighbours), "{at}");
            assert!((0.25..=0.65).contains(&nearest), "{at}");
        }
    }
}

#[test]
fn the_leaders_take_the_school_round_the_rocks() {
    let config = load("leaders.ron");
    let mut sim = Simulation::from_config(&config).unwrap();
    let leaders = sim.leaders().iter().filter(|&&l| l).count();
    assert_eq!(leaders, 40);
    let waypoints = sim.scene().route.as_ref().unwrap().waypoints.len();
    let (mut passed, mut last) = (0, 0);
    // Where the fish that do not lead are, on average: a school that
    // follows its leaders round the loop carries it round the rocks too.
    let followers = |sim: &Simulation| {
        let (mut sum, mut n) = (mirofish_sim::Vec2::ZERO, 0.0);
        for (p, &l) in sim.positions().iter().zip(sim.leaders()) {
            if !l {
                sum += *p;
                n += 1.0;
            }
        }
        sum / n
    };
    let (mut turned, mut away) = (0.0f32, 0);
    let mut before = followers(&sim);
    for _ in 0..60 {
        sim.run(60);
        let next = sim.scene().route.as_ref().unwrap().next;
        if next != last {
            passed += 1;
            last = next;
        }
        let now = followers(&sim);
        turned += before.angle_to(now);
        away += usize::from(now.length() > 150.0);
        before = now;
        for p in sim.positions() {
            assert!(sim.scene().obstacles.iter().all(|o| !o.contains(*p)), "a fish inside a rock at {p}");
        }
    }
    assert!(passed >= waypoints, "in a minute the leaders passed {passed} waypoints of {waypoints}");
    // At least half way round the loop (the leaders are ahead: about 0.7
    // of a turn for their 1.5), away from the middle most of the time:
    // followers spread all over would stay there.
    assert!(turned.abs() > core::f32::consts::PI, "the followers' centre turned {turned} rad");
    assert!(away >= 40, "the followers' centre was away from the middle {away} s of 60");
}

fn load_volume(name: &str) -> mirofish_sim::VolumeConfig {
    let path = format!("{}/../../assets/scenes/{name}", env!("CARGO_MANIFEST_DIR"));
    mirofish_sim::VolumeConfig::load(path).expect("the volume scene loads")
}

/// `assets/scenes/torus.ron`: Couzin's torus from a ball — after a minute
/// the school mills round its centre and is not a parallel group.
#[test]
fn the_torus_scene_mills_within_a_minute() {
    let mut swarm = load_volume("torus.ron").start().unwrap();
    swarm.run(3600);
    let m = swarm.metrics();
    assert!(m.milling > 0.7 && m.polarization < 0.4, "{m:?}");
}

/// `assets/scenes/volume.ron`: two schools, leaders on a route, rocks.
#[test]
fn the_volume_scene_starts_its_schools_and_leaders() {
    let config = load_volume("volume.ron");
    let mut swarm = config.start().unwrap();
    assert_eq!(swarm.len(), config.total_fish());
    assert_eq!(swarm.leaders().iter().filter(|&&l| l).count(), config.leaders);
    swarm.run(120);
    assert!(swarm.positions().iter().all(|p| p.is_finite() && swarm.tank().contains(*p)));
}
