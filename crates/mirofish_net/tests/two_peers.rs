//! Two peers on 127.0.0.1 playing one school for ten seconds through a
//! link that delays every message by 50 ms and loses 5 % of them, one peer
//! on the portable build of the force pass and the other on AVX2 (where
//! the processor has it): GGRS predicts, rolls back and runs again, and at
//! every frame both peers have confirmed, both schools hold the same bits.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use ggrs::{DesyncDetection, GgrsError, GgrsEvent, GgrsRequest, Message, NonBlockingSocket, P2PSession};
use ggrs::{PlayerType, SessionBuilder, SessionState};
use mirofish_net::{NetConfig, NetSchool, NetSocket, PlayerInput};
use mirofish_sim::{ExperimentConfig, KernelPath, Obstacle, Predator, SchoolConfig, Simulation, Vec2};

/// A socket whose received messages arrive `delay` late, and of which one
/// in twenty never arrives (the same ones on every run).
struct BadLink {
    socket: NetSocket,
    delay: Duration,
    held: Vec<(Instant, SocketAddr, Message)>,
    noise: u64,
    lost: Arc<AtomicU32>,
}

impl BadLink {
    fn new(socket: NetSocket, seed: u64) -> Self {
        let lost = Arc::new(AtomicU32::new(0));
        Self { socket, delay: Duration::from_millis(50), held: Vec::new(), noise: seed | 1, lost }
    }

    /// One in twenty, by a fixed sequence.
    fn lose(&mut self) -> bool {
        self.noise ^= self.noise << 13;
        self.noise ^= self.noise >> 7;
        self.noise ^= self.noise << 17;
        self.noise.is_multiple_of(20)
    }
}

impl NonBlockingSocket<SocketAddr> for BadLink {
    fn send_to(&mut self, message: &Message, address: &SocketAddr) {
        self.socket.send_to(message, address);
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let now = Instant::now();
        for (from, message) in self.socket.receive_all_messages() {
            if self.lose() {
                self.lost.fetch_add(1, Ordering::Relaxed);
            } else {
                self.held.push((now + self.delay, from, message));
            }
        }
        let (due, later): (Vec<_>, Vec<_>) = self.held.drain(..).partition(|(at, ..)| *at <= now);
        self.held = later;
        due.into_iter().map(|(_, from, message)| (from, message)).collect()
    }
}

/// The shared school; `path` chooses the build of its force pass.
fn school(path: KernelPath) -> NetSchool {
    let mut config = ExperimentConfig { fish: 800, seed: 4, ..Default::default() };
    config.schools.push(SchoolConfig { fish: 200, leaders: 3, ..Default::default() });
    config.scene.obstacles.push(Obstacle { centre: Vec2::new(100.0, -40.0), radius: 40.0 });
    config.scene.predators.push(Predator { chase: true, ..Predator::new(Vec2::new(250.0, 80.0), 120.0) });
    let mut sim = Simulation::from_config(&config).expect("a valid configuration");
    sim.set_kernel_path(path);
    NetSchool::new(sim)
}

/// Player `p`'s input at `frame`: a pointer sweeping the tank, pulling or
/// pushing in turns, a rock now and then, the player's predator following
/// the pointer now and then.
fn input(p: usize, frame: i32) -> PlayerInput {
    let angle = frame as f32 * 0.02 + p as f32 * 3.0;
    let at = PlayerInput::pointer((angle.cos() * 260.0) as i32, (angle.sin() * 130.0) as i32);
    let hold = if (frame / 40 + p as i32) % 2 == 0 { PlayerInput::ATTRACT } else { PlayerInput::REPEL };
    let rock = if frame % 120 == 30 + 50 * p as i32 { PlayerInput::ROCK } else { 0 };
    let hunt = if (frame / 90 + p as i32) % 3 == 0 { PlayerInput::PREDATOR } else { 0 };
    at.with(hold | rock | hunt)
}

struct Peer {
    handle: usize,
    session: P2PSession<NetConfig>,
    school: NetSchool,
    /// The checksum of each frame as last saved (a rollback saves again).
    checksums: BTreeMap<i32, u128>,
    skip: u32,
    desyncs: Vec<String>,
    /// Messages the link lost on the way to this peer.
    lost: Arc<AtomicU32>,
    /// The confirmed frame as of this peer's last advance: a later poll
    /// may confirm more before the next advance runs the correction, so
    /// only the frames up to here are final on this peer.
    settled: i32,
}

impl Peer {
    fn new(handle: usize, socket: BadLink, other: SocketAddr, path: KernelPath) -> Self {
        let players = [(handle, PlayerType::Local), (1 - handle, PlayerType::Remote(other))];
        let mut builder = SessionBuilder::<NetConfig>::new()
            .with_num_players(2)
            .unwrap()
            .with_input_delay(2)
            .with_max_prediction_window(12)
            .with_desync_detection_mode(DesyncDetection::On { interval: 1 });
        for (h, kind) in players {
            builder = builder.add_player(kind, h).unwrap();
        }
        let lost = socket.lost.clone();
        let session = builder.start_p2p_session(socket).unwrap();
        Self {
            handle,
            session,
            school: school(path),
            checksums: BTreeMap::new(),
            skip: 0,
            desyncs: Vec::new(),
            lost,
            settled: -1,
        }
    }

    /// One frame of this peer's game loop.
    fn frame(&mut self) {
        self.session.poll_remote_clients();
        for event in self.session.events() {
            match event {
                GgrsEvent::WaitRecommendation { skip_frames } => self.skip += skip_frames,
                GgrsEvent::DesyncDetected { frame, local_checksum, remote_checksum, .. } => self
                    .desyncs
                    .push(format!("frame {frame}: local {local_checksum:x}, remote {remote_checksum:x}")),
                _ => {}
            }
        }
        if self.session.current_state() != SessionState::Running {
            return;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        let frame = self.session.current_frame();
        self.session.add_local_input(self.handle, input(self.handle, frame)).unwrap();
        match self.session.advance_frame() {
            Ok(requests) => {
                for request in requests {
                    if let GgrsRequest::SaveGameState { frame, .. } = &request {
                        self.checksums.insert(*frame, self.school.checksum());
                    }
                    self.school.handle(vec![request]).unwrap();
                }
                self.settled = self.session.confirmed_frame();
            }
            Err(GgrsError::PredictionThreshold) => {}
            Err(e) => panic!("peer {}: {e}", self.handle),
        }
    }
}

#[test]
fn two_peers_over_a_slow_lossy_link_agree_at_every_confirmed_frame() {
    let sockets = [NetSocket::bind("127.0.0.1:0").unwrap(), NetSocket::bind("127.0.0.1:0").unwrap()];
    let addresses = [sockets[0].local_addr().unwrap(), sockets[1].local_addr().unwrap()];
    let [a, b] = sockets;
    // One peer runs the portable build of the force pass, the other the
    // fastest this processor has (AVX2 where it has it), as two players'
    // machines may.
    let mut peers = [
        Peer::new(0, BadLink::new(a, 7), addresses[1], KernelPath::Portable),
        Peer::new(1, BadLink::new(b, 99), addresses[0], KernelPath::Fastest),
    ];

    // Ten seconds of play at 60 frames a second, each peer on its own
    // clock; the test gives up after a minute.
    let (start, frame_time) = (Instant::now(), Duration::from_secs_f64(1.0 / 60.0));
    let mut next = [start; 2];
    while peers.iter().any(|p| p.settled < 600) {
        assert!(start.elapsed() < Duration::from_secs(60), "no 600 confirmed frames within a minute");
        for (peer, next) in peers.iter_mut().zip(&mut next) {
            if Instant::now() >= *next {
                peer.frame();
                *next += frame_time;
            } else {
                peer.session.poll_remote_clients();
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }

    let confirmed = peers[0].settled.min(peers[1].settled);
    let mut compared = 0;
    for frame in 0..=confirmed {
        let (a, b) = (peers[0].checksums.get(&frame), peers[1].checksums.get(&frame));
        assert!(a.is_some() && b.is_some(), "frame {frame} saved by both");
        assert_eq!(a, b, "frame {frame}");
        compared += 1;
    }
    for peer in &peers {
        assert!(peer.desyncs.is_empty(), "peer {}: {:?}", peer.handle, peer.desyncs);
    }
    let rollbacks = [peers[0].school.rollbacks(), peers[1].school.rollbacks()];
    let lost = [peers[0].lost.load(Ordering::Relaxed), peers[1].lost.load(Ordering::Relaxed)];
    println!("{compared} confirmed frames compared, rollbacks {rollbacks:?}, messages lost {lost:?}");
    assert!(compared > 600);
    assert!(lost.iter().all(|&n| n > 0), "the link lost messages");
    assert!(
        rollbacks.iter().all(|&r| r > 0),
        "the delayed inputs were predicted and rolled back: {rollbacks:?}"
    );
}
