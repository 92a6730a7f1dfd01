//! The whole decision layer against a real HTTP server on 127.0.0.1 that
//! answers slowly, rate-limits or fails, paced at 60 ticks a second as a
//! game would run it. Each test is bounded in time.

#![cfg(feature = "openai")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mirofish_decide::{DecisionConfig, DecisionLayer, DecisionStats, OpenAiDecider};
use mirofish_sim::{ExperimentConfig, Simulation};

/// How the stand-in server answers a request.
#[derive(Clone, Debug)]
struct Reply {
    delay: Duration,
    status: &'static str,
    headers: &'static str,
    body: String,
}

impl Reply {
    /// A valid answer (with a `reason` the layer ignores) after `delay`,
    /// reporting 300 + 20 tokens.
    fn intent(delay: Duration) -> Self {
        let content = r#"{"intent": "gather", "reason": "the unit is spread out"}"#;
        let body = serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 20},
        });
        Self { delay, status: "200 OK", headers: "", body: body.to_string() }
    }
}

/// A threaded HTTP server: every connection on its own thread, answered
/// by `reply` (given the request's number). Counts what it received.
struct Server {
    url: String,
    received: Arc<AtomicU64>,
}

impl Server {
    fn start(reply: impl Fn(u64) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(AtomicU64::new(0));
        let (count, reply) = (received.clone(), Arc::new(reply));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (count, reply) = (count.clone(), reply.clone());
                std::thread::spawn(move || answer(stream, &count, &*reply));
            }
        });
        Self { url, received }
    }

    fn received(&self) -> u64 {
        self.received.load(Ordering::SeqCst)
    }
}

/// Reads one request from `stream` and answers it as `reply` says.
fn answer(stream: TcpStream, count: &AtomicU64, reply: &dyn Fn(u64) -> Reply) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut payload = vec![0u8; length];
    if reader.read_exact(&mut payload).is_err() {
        return;
    }
    let n = count.fetch_add(1, Ordering::SeqCst);
    let r = reply(n);
    std::thread::sleep(r.delay);
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {}\r\nContent-Type: application/json\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        r.status,
        r.headers,
        r.body.len(),
        r.body
    );
}

/// What a paced run saw.
struct Outcome {
    stats: DecisionStats,
    late_ticks: u64,
    client: OpenAiDecider,
}

/// `seconds` of a school paced at 60 ticks a second, decided through
/// `client`: the layer's counts, and the ticks that started late (a tick
/// that waited on the layer would start late).
fn paced(client: &OpenAiDecider, config: DecisionConfig, seconds: f32) -> Outcome {
    let mut sim =
        Simulation::from_config(&ExperimentConfig { fish: 400, seed: 3, ..ExperimentConfig::default() })
            .unwrap();
    let mut layer = DecisionLayer::new(config, client.clone()).unwrap();
    let tick = Duration::from_secs_f64(1.0 / 60.0);
    let start = Instant::now();
    let ticks = (seconds * 60.0) as u32;
    let mut late_ticks = 0;
    for t in 0..ticks {
        let due = start + tick * t;
        let now = Instant::now();
        if now < due {
            std::thread::sleep(due - now);
        } else if now - due > tick * 2 {
            late_ticks += 1;
        }
        for command in layer.plan(&sim, sim.tank(), sim.scene()) {
            sim.submit(command).unwrap();
        }
        sim.step();
    }
    Outcome { stats: layer.stats(), late_ticks, client: client.clone() }
}

/// Twelve units, answered by a `delay`-slow server within a timeout that
/// allows it: every unit's decision comes from the model (none falls
/// back, none is given up), the tokens of every answer are counted, and no
/// tick waits.
fn every_unit_answered(delay: Duration, timeout_ms: u64, seconds: f32) -> Outcome {
    let server = Server::start(move |_| Reply::intent(delay));
    let client = OpenAiDecider::new(server.url.clone(), "stand-in", None);
    let config = DecisionConfig {
        units: 12,
        workers: 4,
        timeout_ms,
        leader_period: 600,
        follower_period: 600,
        cache_capacity: 0,
        ..DecisionConfig::default()
    };
    let outcome = paced(&client, config, seconds);
    let s = outcome.stats;
    eprintln!("{delay:?} server: {s:?}; received {}; {}", server.received(), outcome.client.stats());
    assert!(s.decisions >= 12, "every unit answered by the model: {delay:?}: {s:?}");
    assert_eq!((s.fallbacks, s.timeouts, s.dropped_unsent), (0, 0, 0), "{delay:?}: {s:?}");
    let client = outcome.client.stats();
    assert_eq!(server.received(), client.sent, "every request sent reached the server, no more");
    assert_eq!(client.prompt_tokens, 300 * s.decisions);
    assert_eq!(outcome.late_ticks, 0);
    outcome
}

#[test]
fn a_fast_server_answers_every_unit() {
    every_unit_answered(Duration::from_millis(200), 3000, 2.0);
}

#[test]
fn a_server_taking_a_second_answers_every_unit() {
    every_unit_answered(Duration::from_secs(1), 3000, 4.5);
}

/// Five seconds an answer, with a timeout to match: the twelve units go out
/// four at a time as the workers free up, and every one is answered.
#[test]
fn a_server_taking_five_seconds_answers_every_unit_given_the_time() {
    every_unit_answered(Duration::from_secs(5), 8000, 16.5);
}

/// A server that rate-limits: after its 429 the client sends nothing for
/// the `Retry-After`, the units due meanwhile fall back naming it, and the
/// server hears from the client again only once the pause is over.
#[test]
fn a_rate_limit_is_respected_through_the_layer() {
    let first_seen = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let seen = first_seen.clone();
    let server = Server::start(move |n| {
        seen.lock().unwrap().push(Instant::now());
        match n {
            0 => Reply {
                delay: Duration::ZERO,
                status: "429 Too Many Requests",
                headers: "Retry-After: 2\r\n",
                body: "{\"error\": \"rate limited\"}".into(),
            },
            _ => Reply::intent(Duration::ZERO),
        }
    });
    let client = OpenAiDecider::new(server.url.clone(), "stand-in", None);
    let config = DecisionConfig {
        units: 6,
        workers: 1,
        leader_period: 30,
        follower_period: 30,
        cache_capacity: 0,
        ..DecisionConfig::default()
    };
    let outcome = paced(&client, config, 3.0);
    let times = first_seen.lock().unwrap().clone();
    let s = outcome.stats;
    assert_eq!(outcome.client.stats().rate_limited, 1, "{s:?}");
    assert!(outcome.client.stats().held_back > 0, "{}", outcome.client.stats());
    assert!(times.len() >= 2, "asked again after the pause: {s:?}");
    let pause = times[1] - times[0];
    assert!(pause >= Duration::from_secs(2), "the second request came {pause:?} after the 429");
    assert!(s.decisions > 0 && s.errors > 0, "{s:?}");
    assert_eq!(outcome.late_ticks, 0);
}

/// Server errors, a body of 20 MB and a dead port: each request fails, the
/// units fall back, and the ticks go on at their pace.
#[test]
fn failing_servers_leave_the_ticks_alone() {
    let huge = Server::start(|_| Reply {
        delay: Duration::ZERO,
        status: "200 OK",
        headers: "",
        body: format!("{{\"choices\": [], \"pad\": \"{}\"}}", "x".repeat(20 << 20)),
    });
    let failing = Server::start(|_| Reply {
        delay: Duration::from_millis(50),
        status: "500 Internal Server Error",
        headers: "",
        body: "oops".into(),
    });
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = DecisionConfig {
        units: 4,
        workers: 2,
        timeout_ms: 1500,
        leader_period: 20,
        follower_period: 20,
        cache_capacity: 0,
        ..DecisionConfig::default()
    };
    for url in [huge.url.clone(), failing.url.clone(), format!("http://127.0.0.1:{port}/v1")] {
        let client = OpenAiDecider::with_timeout(url.clone(), "stand-in", None, Duration::from_secs(2));
        let outcome = paced(&client, config.clone(), 1.5);
        let s = outcome.stats;
        assert!(s.fallbacks > 0 && s.decisions == 0, "{url}: {s:?}");
        assert_eq!(outcome.late_ticks, 0, "{url}");
    }
}

/// A run decided by the model server, recorded, replays without the
/// server (or any network) to the recording's last hash.
#[test]
fn a_run_decided_over_http_replays_without_the_server() {
    let server = Server::start(|n| {
        let mut reply = Reply::intent(Duration::from_millis(30));
        if n % 3 == 1 {
            // Some answers send the units elsewhere.
            reply.body = reply.body.replace("gather", "spread_out");
        }
        reply
    });
    let client = OpenAiDecider::new(server.url.clone(), "stand-in", None);
    let decide = DecisionConfig {
        units: 8,
        follower_period: 30,
        leader_period: 30,
        cache_capacity: 0,
        ..DecisionConfig::default()
    };
    let mut layer = DecisionLayer::new(decide, client).unwrap();
    let config = ExperimentConfig { fish: 400, seed: 9, ..ExperimentConfig::default() };
    let mut recorder = mirofish_sim::Recorder::new(config, 50).unwrap();
    let start = Instant::now();
    while layer.stats().decisions < 12 && start.elapsed() < Duration::from_secs(20) {
        let sim = recorder.simulation();
        let (tick, commands) = (sim.tick(), layer.plan(sim, sim.tank(), sim.scene()));
        for command in commands {
            recorder.schedule(tick, command).unwrap();
        }
        recorder.step().unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(layer.stats().decisions >= 12, "{:?}", layer.stats());
    assert!(server.received() >= 12);
    let recording = recorder.finish();
    let text = recording.to_text();
    drop(server);
    let replayed = mirofish_sim::Recording::from_text(&text).unwrap().replay().unwrap();
    let last = recording.checkpoints.last().unwrap();
    assert_eq!(mirofish_sim::state_hash(&replayed), last.hash);
}
