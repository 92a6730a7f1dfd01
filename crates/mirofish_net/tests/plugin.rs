//! The shared school in a Bevy app, through `bevy_ggrs`: a sync test that
//! goes back and runs again every frame, a game's state left out of the
//! rollback caught by it, two apps over UDP on 127.0.0.1 agreeing at every
//! confirmed frame (each compared with the same inputs run straight), a
//! change made on one peer only reported as a desync on both, and the fish
//! shown as entities where the school has them.

mod common;

use std::time::{Duration, Instant};

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::{busy, busy_seeded, input, straight_run, sync_test_session};
use mirofish_net::bevy_ggrs::{
    GgrsSchedule, LocalInputs, LocalPlayers, ReadInputs, RollbackFrameCount, Session, SyncTestMismatch,
};
use mirofish_net::ggrs::{DesyncDetection, PlayerType, SessionBuilder};
use mirofish_net::{
    NetConfig, NetDesync, NetFish, NetPredator, NetSchool, NetSchoolPlugin, NetSocket, NetStatus, NetSystems,
};
use mirofish_sim::{Attractor, FlockCommand, Vec2};

/// Fills each local player's input from the script, for the frame about to
/// run.
fn scripted(mut commands: Commands, players: Res<LocalPlayers>, frame: Res<RollbackFrameCount>) {
    let inputs: HashMap<_, _> = players.0.iter().map(|&p| (p, input(p, frame.0))).collect();
    commands.insert_resource(LocalInputs::<NetConfig>(inputs));
}

/// An app with the busy school and `session`, one frame per update.
fn app(session: Session<NetConfig>) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
        .add_plugins(NetSchoolPlugin::without_local_input())
        .add_systems(ReadInputs, scripted)
        .insert_resource(NetSchool::new(busy()))
        .insert_resource(session);
    app
}

/// A sync test of two local players going back `distance` frames every
/// frame, counting the mismatches it finds.
fn sync_test_app(distance: usize) -> App {
    let session = sync_test_session(distance);
    let mut app = app(Session::SyncTest(session));
    app.init_resource::<Mismatches>().add_observer(
        |m: On<SyncTestMismatch>, mut found: ResMut<Mismatches>| {
            found.0.push(m.current_frame);
        },
    );
    app
}

#[derive(Resource, Default)]
struct Mismatches(Vec<i32>);

fn frame(app: &App) -> i32 {
    app.world().resource::<RollbackFrameCount>().0
}

#[test]
fn a_sync_test_in_an_app_goes_back_every_frame_and_ends_where_a_straight_run_does() {
    let mut app = sync_test_app(3);
    for _ in 0..700 {
        if app.world().get_resource::<RollbackFrameCount>().is_some_and(|f| f.0 >= 600) {
            break;
        }
        app.update();
    }
    assert_eq!(frame(&app), 600);
    assert!(
        app.world().resource::<Mismatches>().0.is_empty(),
        "{:?}",
        app.world().resource::<Mismatches>().0
    );
    let status = app.world().resource::<NetStatus>();
    assert!(status.rollbacks >= 590, "went back every frame: {}", status.rollbacks);
    assert!(status.frames_again >= 3 * 590, "three frames each time: {}", status.frames_again);

    let school = app.world().resource::<NetSchool>();
    let straight = straight_run(600);
    assert_eq!(school.state_hash(), straight.state_hash());
    assert_eq!(school.simulation().applied(), straight.simulation().applied());
    // The confirmed frames' hashes are the straight run's.
    assert!(status.confirmed >= 590, "confirmed up to {}", status.confirmed);
    assert_eq!(status.confirmed_hash(status.confirmed), Some(straight_run(status.confirmed).state_hash()));

    // One entity per fish, at its fish; one per predator, the players' named.
    app.update();
    let world = app.world_mut();
    let school = world.resource::<NetSchool>();
    let flock = school.simulation();
    let at: std::collections::HashMap<u32, Vec2> =
        flock.ids().iter().zip(flock.positions()).map(|(&id, &p)| (id, p)).collect();
    let predators = school.simulation().scene().predators.len();
    let fish: Vec<(NetFish, Transform)> =
        world.query::<(&NetFish, &Transform)>().iter(world).map(|(f, t)| (*f, *t)).collect();
    assert_eq!(fish.len(), 1000);
    for (f, t) in &fish {
        assert_eq!(t.translation.truncate(), at[&f.id], "fish {}", f.id);
    }
    let shown = world.query::<&NetPredator>().iter(world).count();
    assert_eq!(shown, predators);
}

#[test]
fn a_game_state_left_out_of_the_rollback_is_caught() {
    let mut app = sync_test_app(2);
    // A game system in the rollback schedule that counts its runs in a
    // `Local`, which is not rolled back: run again after a rollback, it
    // acts on other frames than the first time.
    app.add_systems(
        GgrsSchedule,
        (|mut school: ResMut<NetSchool>, mut runs: Local<u32>| {
            *runs += 1;
            if (*runs).is_multiple_of(10) {
                let pull = Attractor { point: Vec2::new(200.0, 0.0), strength: 900.0, radius: 400.0 };
                school.submit(FlockCommand::SetAttractor(Some(pull))).unwrap();
            }
        })
        .before(NetSystems::Tick),
    );
    for _ in 0..120 {
        app.update();
    }
    assert!(!app.world().resource::<Mismatches>().0.is_empty(), "the sync test saw the difference");
}

#[test]
fn a_session_without_a_school_runs_on_and_ticks_nothing() {
    let mut app = sync_test_app(2);
    app.world_mut().remove_resource::<NetSchool>();
    for _ in 0..30 {
        app.update();
    }
    assert!(frame(&app) >= 25, "the session ran: frame {}", frame(&app));
    assert!(app.world().resource::<Mismatches>().0.is_empty());
    assert_eq!(app.world_mut().query::<&NetFish>().iter(app.world()).count(), 0);
}

/// One peer of a two-player session on 127.0.0.1.
fn peer(handle: usize, socket: NetSocket, other: std::net::SocketAddr, input_delay: usize) -> App {
    let mut builder = SessionBuilder::<NetConfig>::new()
        .with_num_players(2)
        .unwrap()
        .with_max_prediction_window(12)
        .with_input_delay(input_delay)
        .with_desync_detection_mode(DesyncDetection::On { interval: 1 });
    for (h, kind) in [(handle, PlayerType::Local), (1 - handle, PlayerType::Remote(other))] {
        builder = builder.add_player(kind, h).unwrap();
    }
    let mut app = app(Session::P2P(builder.start_p2p_session(socket).unwrap()));
    app.init_resource::<Heard>().add_systems(
        Update,
        |mut told: MessageReader<NetDesync>, mut heard: ResMut<Heard>| {
            heard.0.extend(told.read().cloned());
        },
    );
    app
}

/// The desyncs a peer's game was told of.
#[derive(Resource, Default)]
struct Heard(Vec<NetDesync>);

/// Two peers on 127.0.0.1, the first changed by `first` before they start,
/// played until both have confirmed frame `until`.
fn play(first: impl FnOnce(&mut App), until: i32) -> [App; 2] {
    play_with_delay(first, until, 0)
}

/// [`play`], each peer's inputs delayed by `input_delay` frames.
fn play_with_delay(first: impl FnOnce(&mut App), until: i32, input_delay: usize) -> [App; 2] {
    let sockets = [NetSocket::bind("127.0.0.1:0").unwrap(), NetSocket::bind("127.0.0.1:0").unwrap()];
    let addresses = [sockets[0].local_addr().unwrap(), sockets[1].local_addr().unwrap()];
    let [a, b] = sockets;
    let mut peers = [peer(0, a, addresses[1], input_delay), peer(1, b, addresses[0], input_delay)];
    first(&mut peers[0]);
    let confirmed = |app: &App| app.world().resource::<NetStatus>().confirmed;
    let start = Instant::now();
    while peers.iter().any(|p| confirmed(p) < until) {
        assert!(start.elapsed() < Duration::from_secs(60), "no {until} confirmed frames within a minute");
        for peer in &mut peers {
            peer.update();
            // A confirmed frame is one this peer has run: its hash is kept.
            let status = peer.world().resource::<NetStatus>();
            if status.confirmed >= 0 {
                assert!(
                    status.confirmed_hash(status.confirmed).is_some(),
                    "frame {} confirmed, no hash",
                    status.confirmed
                );
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    peers
}

#[test]
fn with_an_input_delay_a_frame_counts_as_confirmed_only_once_this_peer_has_run_it() {
    // Every peer knows its inputs two frames before it runs them (as the
    // networked aquarium plays), so GGRS confirms frames a peer has not
    // run yet; `play` checks after every update that the confirmed frame's
    // hash is there.
    let peers = play_with_delay(|_| {}, 200, 2);
    let [a, b] = peers.each_ref().map(|p| p.world().resource::<NetStatus>());
    assert!(
        a.confirmed <= a.frame && b.confirmed <= b.frame,
        "{} {} / {} {}",
        a.confirmed,
        a.frame,
        b.confirmed,
        b.frame
    );
    assert_eq!(a.confirmed_hash(200), b.confirmed_hash(200));
    assert!(a.confirmed_hash(200).is_some());
}

#[test]
fn two_apps_over_udp_agree_at_every_confirmed_frame() {
    let peers = play(|_| {}, 300);
    let [a, b] = peers.each_ref().map(|p| p.world().resource::<NetStatus>());
    let mut compared = 0;
    for (frame, hash) in a.confirmed_hashes() {
        if let Some(other) = b.confirmed_hash(frame) {
            assert_eq!(hash, other, "frame {frame}");
            compared += 1;
        }
    }
    assert!(compared >= 250, "{compared} frames compared");
    assert!(a.desyncs.is_empty() && b.desyncs.is_empty(), "{:?} {:?}", a.desyncs, b.desyncs);
    assert_eq!(a.confirmed_hash(300), Some(straight_run(300).state_hash()));
    assert!(a.rollbacks + b.rollbacks > 0, "the remote inputs were predicted and corrected");
    assert_eq!((a.local_players.clone(), b.local_players.clone()), (vec![0], vec![1]));
    assert_eq!(a.peers.len(), 1);
    println!(
        "{compared} confirmed frames compared; rollbacks {} and {}; frames run again {} and {}",
        a.rollbacks, b.rollbacks, a.frames_again, b.frames_again
    );
}

#[test]
fn peers_that_started_from_different_schools_report_a_desync() {
    // The first peer's school starts from another seed: a peer started
    // with other settings than the rest.
    let peers = play(
        |app| {
            app.insert_resource(NetSchool::new(busy_seeded(12)));
        },
        120,
    );
    for peer in &peers {
        let status = peer.world().resource::<NetStatus>();
        let first =
            status.desyncs.first().unwrap_or_else(|| panic!("no desync reported: {:?}", status.desyncs));
        assert!(first.local != first.remote, "{first:?}");
        assert_eq!(peer.world().resource::<Heard>().0, status.desyncs, "each desync written as a message");
    }
}
