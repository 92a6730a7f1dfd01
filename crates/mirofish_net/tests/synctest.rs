//! GGRS's sync test over a busy school: every frame is rolled back and run
//! again, and the checksums of the two runs compared. A state the snapshot
//! left out, a command applied twice or a tick that depends on anything
//! but its inputs shows as a mismatch.

mod common;

use common::{busy, input, straight_run, sync_test_session};
use mirofish_net::NetSchool;
use mirofish_sim::{FlockCommand, state_hash};

#[test]
fn six_hundred_frames_rolled_back_every_frame_agree_with_a_straight_run() {
    let mut school = NetSchool::new(busy());
    let mut session = sync_test_session(3);
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
    let straight = straight_run(600);
    assert_eq!(state_hash(straight.simulation()), state_hash(&sim));
    assert_eq!(straight.simulation().applied(), sim.applied());
}
