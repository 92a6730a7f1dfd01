//! Turn response: in an aligned school a turn of its front travels back
//! through it, well above what the fish do on their own, and sooner the
//! stronger the alignment; a disordered school is refused.

use mirofish_lab::turn::TurnResponse;
use mirofish_sim::{BoundaryMode, ExperimentConfig, FlockParams, Tank, Vec2};

fn school(alignment: f32, cohesion: f32) -> ExperimentConfig {
    let params = FlockParams {
        alignment_weight: alignment,
        cohesion_weight: cohesion,
        wander_weight: 0.2,
        ..FlockParams::default()
    };
    ExperimentConfig {
        fish: 300,
        seed: 5,
        params,
        tank: Tank { boundary: BoundaryMode::Wrap, ..Tank::centered(Vec2::splat(6000.0)) },
        ..ExperimentConfig::default()
    }
}

#[test]
fn a_turn_of_the_front_travels_through_an_aligned_school() {
    let experiment = TurnResponse { settle: 240, watch: 360, ..TurnResponse::default() };
    let result = experiment.run(&school(1.5, 0.5)).expect("a polarized school");
    assert!(result.polarization >= 0.5);
    let half = result.time_to(0.5).expect("half the school followed the turn");
    assert!(half > 0.0 && half < 6.0, "{half} s");
    let followed = *result.responded.last().unwrap();
    assert!(followed > 2.0 * result.spontaneous() + 0.2, "{followed} vs {} alone", result.spontaneous());
    // The farther behind the front, the later: the turn travels.
    assert!(result.speed().is_some_and(|v| v > 0.0), "{:?}", result.speed());
}

#[test]
fn a_weakly_aligned_school_follows_later() {
    let experiment = TurnResponse { settle: 300, watch: 480, ..TurnResponse::default() };
    let strong = experiment.run(&school(1.5, 0.5)).expect("a polarized school");
    let weak = experiment.run(&school(0.5, 0.5)).expect("a polarized school");
    let (fast, slow) = (strong.time_to(0.5).unwrap(), weak.time_to(0.5).unwrap_or(f32::INFINITY));
    assert!(fast < slow, "{fast} s with strong alignment, {slow} s with weak");
}

#[test]
fn a_disordered_school_and_bad_shares_are_refused() {
    // Without alignment, wandering fish lose the heading they started with.
    let mut disordered = school(0.0, 0.0);
    disordered.params.wander_weight = 1.5;
    let err = TurnResponse { settle: 900, ..TurnResponse::default() }.run(&disordered).unwrap_err();
    assert!(err.to_string().contains("polarization"), "{err}");
    for front in [0.0, 1.0, f32::NAN] {
        let err = TurnResponse { front, ..TurnResponse::default() }.run(&school(1.0, 0.5)).unwrap_err();
        assert!(err.to_string().contains("front"), "{err}");
    }
}
