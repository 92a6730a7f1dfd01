//! Couzin's four collective states and the hysteresis between the torus
//! and the parallel school, reproduced by the zone model in a volume (one
//! seed, deterministic: a state the model no longer reaches fails here).

use mirofish_lab::collective::{Hysteresis, state};
use mirofish_sim::Vec3;

#[test]
fn the_zone_model_walks_through_the_four_states_and_remembers() {
    let sweep = Hysteresis { widths: vec![0.0, 10.0, 40.0, 120.0], seeds: vec![1], ..Hysteresis::default() };
    let steps = sweep.run::<Vec3>(|_| {}).unwrap();
    let seen: Vec<(f32, bool, &str)> =
        steps.iter().map(|s| (s.width, s.rising, state(s.polarization.0, s.milling.0))).collect();
    assert_eq!(
        seen,
        [
            (0.0, true, "swarm"),
            (10.0, true, "torus"),
            (40.0, true, "dynamic parallel"),
            (120.0, true, "highly parallel"),
            (40.0, false, "dynamic parallel"),
            // Collective memory: the parallel school does not fall back
            // into the torus it came from at this width.
            (10.0, false, "dynamic parallel"),
            (0.0, false, "swarm"),
        ],
        "{steps:#?}"
    );
}
