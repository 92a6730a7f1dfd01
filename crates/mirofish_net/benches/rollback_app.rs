//! What going back 8 frames costs through the Bevy plugin: a `bevy_ggrs`
//! sync test that goes back 8 frames at every frame (one restore, the 8
//! frames run and saved again, then the new frame), in a headless app with
//! `NetSchoolPlugin`, two players' inputs and the fish shown as entities,
//! at 1,000, 10,000 and 50,000 fish on two threads. Each app update is one
//! such rollback; the median of many is printed in milliseconds:
//!
//! ```text
//! cargo bench -p mirofish_net --features bevy --bench rollback_app
//! cargo bench -p mirofish_net --features bevy --bench rollback_app -- --threads 1 --sizes 1000,12000
//! ```
//!
//! The core alone is `cargo run --release -p mirofish_probes --bin rollback`.

use std::time::{Duration, Instant};

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use ggrs::{PlayerType, SessionBuilder};
use mirofish_net::bevy_ggrs::{LocalInputs, LocalPlayers, ReadInputs, RollbackFrameCount, Session};
use mirofish_net::{NetConfig, NetSchool, NetSchoolPlugin, NetStatus, PlayerInput};
use mirofish_sim::observe::stats::median;
use mirofish_sim::{FlockParams, Simulation, Tank};

/// Frames each rollback goes back.
const FRAMES: usize = 8;

/// Two players' pointers circling, pulling in turns.
fn inputs(mut commands: Commands, players: Res<LocalPlayers>, frame: Res<RollbackFrameCount>) {
    let turn = frame.0 as f32 * 0.02;
    let input = |p: usize| {
        let at = PlayerInput::pointer(
            (turn.cos() * 250.0) as i32,
            (turn.sin() * 120.0) as i32 * (p as i32 * 2 - 1),
        );
        if (frame.0 / 60) % 2 == p as i32 { at.with(PlayerInput::ATTRACT) } else { at }
    };
    let all: HashMap<_, _> = players.0.iter().map(|&p| (p, input(p))).collect();
    commands.insert_resource(LocalInputs::<NetConfig>(all));
}

fn app(fish: usize, threads: usize) -> App {
    let params = FlockParams::reference();
    let tank = Tank::for_mean_neighbours(fish, params.perception_radius, 6.5, 16.0 / 9.0);
    let sim = Simulation::new(params, tank, fish, 1)
        .and_then(|s| s.with_dt(1.0 / 60.0))
        .expect("valid parameters")
        .with_threads(threads)
        .expect("a thread pool");
    let session = SessionBuilder::<NetConfig>::new()
        .with_num_players(2)
        .map(|b| b.with_max_prediction_window(FRAMES + 4))
        .and_then(|b| b.add_player(PlayerType::Local, 0))
        .and_then(|b| b.add_player(PlayerType::Local, 1))
        .map(|b| b.with_check_distance(FRAMES))
        .and_then(|b| b.start_synctest_session())
        .expect("a sync test session");
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
        .add_plugins(NetSchoolPlugin::without_local_input())
        .add_systems(ReadInputs, inputs)
        .insert_resource(NetSchool::new(sim))
        .insert_resource(Session::SyncTest(session));
    app
}

fn main() {
    let (mut threads, mut sizes) = (2usize, vec![1_000usize, 10_000, 50_000]);
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--threads" => threads = value.parse().expect("--threads takes a count"),
            "--sizes" => sizes = value.split(',').map(|n| n.parse().expect("--sizes takes counts")).collect(),
            other => panic!("unknown argument {other} (--threads N, --sizes A,B,…)"),
        }
    }
    println!("{threads} threads; milliseconds per frame that goes back {FRAMES} frames, median");
    println!("{:>8} {:>12} {:>8}", "fish", "back 8 + 1", "rounds");
    for fish in sizes {
        let mut app = app(fish, threads);
        // Past the first frames, where the sync test has nothing to go back to.
        for _ in 0..2 * FRAMES {
            app.update();
        }
        let rounds = (2_000_000 / fish).clamp(10, 200);
        let mut samples = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t = Instant::now();
            app.update();
            samples.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let status = app.world().resource::<NetStatus>();
        assert_eq!(status.last_rollback as usize, FRAMES, "each update went back {FRAMES} frames");
        println!("{fish:>8} {:>12.2} {rounds:>8}", median(samples));
    }
}
