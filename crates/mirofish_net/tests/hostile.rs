//! Whatever a peer sends — any pointer, any buttons (unknown ones too),
//! every frame, a player dropping out — the shared school takes it as
//! commands the core validates: no panic, no NaN or infinity, and two
//! peers given the same inputs stay equal.

use ggrs::InputStatus;
use mirofish_net::{NetSchool, PlayerInput};
use mirofish_sim::{FlockParams, Simulation, Tank};
use proptest::prelude::*;

fn school() -> NetSchool {
    NetSchool::new(Simulation::new(FlockParams::default(), Tank::default(), 120, 5).expect("a valid school"))
}

/// One frame of two players' inputs: the first's as sent, the second's
/// predicted or, when `gone`, from a player who disconnected.
fn frame() -> impl Strategy<Value = [(PlayerInput, InputStatus); 2]> {
    let input =
        (any::<i16>(), any::<i16>(), any::<u8>()).prop_map(|(x, y, buttons)| PlayerInput { x, y, buttons });
    (input.clone(), input, any::<bool>()).prop_map(|(a, b, gone)| {
        let status = if gone { InputStatus::Disconnected } else { InputStatus::Predicted };
        [(a, InputStatus::Confirmed), (b, status)]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_inputs_leave_every_fish_finite_and_the_peers_equal(frames in prop::collection::vec(frame(), 1..40)) {
        let (mut a, mut b) = (school(), school());
        for inputs in &frames {
            a.advance(inputs).expect("a valid school ticks");
            b.advance(inputs).expect("a valid school ticks");
        }
        let sim = a.simulation();
        prop_assert_eq!(sim.tick(), frames.len() as u64);
        prop_assert!(sim.positions().iter().chain(sim.velocities()).all(|v| v.is_finite()));
        prop_assert!(sim.scene().predators.iter().all(|p| p.position.is_finite()));
        prop_assert_eq!(a.state_hash(), b.state_hash());
    }
}
