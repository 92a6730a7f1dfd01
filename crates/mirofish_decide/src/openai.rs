//! A decider that asks a language model through an OpenAI-compatible
//! chat-completions endpoint: a local llama.cpp server, Ollama, vLLM or a
//! hosted API. Each request carries the vocabulary and one unit's
//! description in words, and asks for one intent as a JSON object
//! ([`crate::prompt`]) of at most [`OpenAiDecider::max_tokens`] tokens.
//!
//! The client respects the server: after a rate limit (HTTP 429), a
//! server error (5xx) or a failed connection it backs off — for the
//! `Retry-After` the server asked for, else exponentially with jitter —
//! and while it backs off it sends nothing: [`Decider::decide`] fails at
//! once (the layer falls back to its rules), and the request is counted as
//! held back ([`ClientStats`]). The tokens each answer says it spent are
//! counted too.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mirofish_sim::Vector;

use crate::decider::{DecideError, Decider};
use crate::intent::Intent;
use crate::prompt::{chat_request, read_chat_response, read_usage};
use crate::unit::UnitView;
use crate::vocabulary::Vocabulary;

/// The first pause after a failure without a `Retry-After`; each failure
/// in a row doubles it, up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// The longest pause: also the most a `Retry-After` is obeyed for (a
/// server asking for an hour is asked again after this).
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// The longest pause after failures without a `Retry-After`.
const MAX_EXPONENTIAL: Duration = Duration::from_secs(60);

/// What a client (and its clones, which share it) has sent and spent, and
/// how the server has answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Requests sent.
    pub sent: u64,
    /// Requests not sent because the client was backing off.
    pub held_back: u64,
    /// Answers with HTTP 429 (too many requests).
    pub rate_limited: u64,
    /// Answers with a 5xx status.
    pub server_errors: u64,
    /// Requests that got no answer (refused connection, timeout, broken
    /// transfer).
    pub transport_errors: u64,
    /// Prompt tokens the answers say they spent.
    pub prompt_tokens: u64,
    /// Completion tokens the answers say they spent.
    pub completion_tokens: u64,
}

impl core::fmt::Display for ClientStats {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} requests sent, {} held back while backing off; {} rate-limited (429), {} server errors, {} without an answer; tokens: {} prompt + {} completion",
            self.sent,
            self.held_back,
            self.rate_limited,
            self.server_errors,
            self.transport_errors,
            self.prompt_tokens,
            self.completion_tokens
        )
    }
}

/// The pause in force and what caused it.
#[derive(Debug, Default)]
struct Backoff {
    /// No request before this instant.
    until: Option<Instant>,
    /// Failures in a row (reset by an answer).
    streak: u32,
    /// Why, for the error of a request held back.
    cause: String,
}

impl Backoff {
    /// The pause still to wait, if any.
    fn left(&self) -> Option<Duration> {
        self.until?.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())
    }
}

/// What the clones of one client share.
#[derive(Debug, Default)]
struct Shared {
    stats: Mutex<ClientStats>,
    backoff: Mutex<Backoff>,
}

/// The pause after the `streak`-th failure in a row with no `Retry-After`:
/// [`FIRST_BACKOFF`] doubled per failure, at most a minute, times a jitter
/// factor from `unit` (0–1) between 0.75 and 1.25, so that clients failing
/// together do not retry together.
pub fn exponential_backoff(streak: u32, unit: f64) -> Duration {
    let doubled = FIRST_BACKOFF.saturating_mul(1u32 << streak.saturating_sub(1).min(16));
    doubled.min(MAX_EXPONENTIAL).mul_f64(0.75 + 0.5 * unit.clamp(0.0, 1.0))
}

/// A `Retry-After` value in seconds (the HTTP-date form is not read: the
/// exponential pause applies), at most [`MAX_BACKOFF`].
pub fn retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0)
        .then(|| Duration::from_secs_f64(seconds.min(MAX_BACKOFF.as_secs_f64())))
}

/// A number in 0–1 that differs from call to call (for jitter; not part of
/// any simulation state).
fn jitter_unit() -> f64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let mixed = (nanos.as_nanos() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> 11) as f64 / (1u64 << 53) as f64
}

/// The chat-completions client. Its `Debug` never shows the API key.
/// Clones share their backoff and their [`ClientStats`].
#[derive(Clone)]
pub struct OpenAiDecider {
    /// The API's base URL, up to and including `/v1` (e.g.
    /// `http://localhost:11434/v1` for Ollama, `http://localhost:8080/v1`
    /// for a llama.cpp server, `https://api.openai.com/v1`).
    pub endpoint: String,
    /// The model name.
    pub model: String,
    /// The API key, sent as a bearer token if set.
    pub api_key: Option<String>,
    /// The HTTP request's own time limit (the layer's timeout falls back
    /// earlier if it is shorter; this one frees the worker thread).
    pub timeout: Duration,
    /// The most tokens an answer may take (`max_tokens`; an intent with a
    /// short reason takes a few dozen).
    pub max_tokens: u32,
    agent: ureq::Agent,
    shared: Arc<Shared>,
}

impl OpenAiDecider {
    /// A client for `model` at `endpoint`, with a 10 s request limit.
    pub fn new(endpoint: impl Into<String>, model: impl Into<String>, api_key: Option<String>) -> Self {
        Self::with_timeout(endpoint, model, api_key, Duration::from_secs(10))
    }

    /// A client whose requests give up after `timeout`.
    pub fn with_timeout(
        endpoint: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            // Statuses are read, not raised, so the error names them.
            .http_status_as_error(false)
            .build()
            .into();
        Self {
            endpoint: endpoint.into(),
            model: model.into(),
            api_key,
            timeout,
            max_tokens: 100,
            agent,
            shared: Arc::default(),
        }
    }

    /// A client configured from the environment ([`OpenAiDecider::from_vars`]
    /// over the process's variables).
    ///
    /// # Errors
    ///
    /// When no endpoint is named, naming the variables to set.
    pub fn from_env() -> Result<Self, DecideError> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// A client configured from variables read by `var`:
    ///
    /// - the endpoint from `MIROFISH_LLM_ENDPOINT`, else `OPENAI_BASE_URL`;
    ///   one of them must be set (there is no default server to guess);
    /// - the model from `MIROFISH_LLM_MODEL` (else `qwen2.5:7b`);
    /// - the key from `MIROFISH_LLM_API_KEY`; `OPENAI_API_KEY` only goes to
    ///   OpenAI's own host (`https://api.openai.com`) or to the endpoint
    ///   `OPENAI_BASE_URL` names (the pair that OpenAI's own clients read),
    ///   never to a server named by `MIROFISH_LLM_ENDPOINT`.
    ///
    /// Empty variables count as unset.
    ///
    /// # Errors
    ///
    /// When no endpoint is named, naming the variables to set.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, DecideError> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let (endpoint, paired) = match (var("MIROFISH_LLM_ENDPOINT"), var("OPENAI_BASE_URL")) {
            (Some(ours), _) => (ours, false),
            (None, Some(openai)) => (openai, true),
            (None, None) => {
                return Err(DecideError::Backend(
                    "no model server named: set MIROFISH_LLM_ENDPOINT (e.g. http://localhost:11434/v1 for \
                     Ollama) or OPENAI_BASE_URL"
                        .into(),
                ));
            }
        };
        let openai_host = endpoint.trim_end_matches('/').starts_with("https://api.openai.com");
        let key = var("MIROFISH_LLM_API_KEY")
            .or_else(|| (paired || openai_host).then(|| var("OPENAI_API_KEY")).flatten());
        let model = var("MIROFISH_LLM_MODEL").unwrap_or_else(|| "qwen2.5:7b".into());
        Ok(Self::new(endpoint, model, key))
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.endpoint.trim_end_matches('/'))
    }

    /// What this client and its clones have sent and spent so far.
    pub fn stats(&self) -> ClientStats {
        *self.shared.stats.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How long the client still backs off, if it does.
    pub fn backing_off(&self) -> Option<Duration> {
        self.shared.backoff.lock().unwrap_or_else(PoisonError::into_inner).left()
    }

    fn count(&self, update: impl FnOnce(&mut ClientStats)) {
        update(&mut self.shared.stats.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// Starts (or extends) a pause after a failure: `asked` if the server
    /// named one, else the exponential pause. Returns the pause.
    fn back_off(&self, cause: String, asked: Option<Duration>) -> Duration {
        let mut backoff = self.shared.backoff.lock().unwrap_or_else(PoisonError::into_inner);
        backoff.streak = backoff.streak.saturating_add(1);
        let pause = asked.unwrap_or_else(|| exponential_backoff(backoff.streak, jitter_unit()));
        let until = Instant::now() + pause;
        backoff.until = Some(backoff.until.map_or(until, |u| u.max(until)));
        backoff.cause = cause;
        pause
    }

    /// The pause in force, if any, as the error of a request held back.
    fn held_back(&self) -> Option<DecideError> {
        let backoff = self.shared.backoff.lock().unwrap_or_else(PoisonError::into_inner);
        let left = backoff.left()?;
        Some(DecideError::Backend(format!(
            "not sent: backing off for {:.1} s more after {}",
            left.as_secs_f64(),
            backoff.cause
        )))
    }
}

impl core::fmt::Debug for OpenAiDecider {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OpenAiDecider")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set, not shown)"))
            .field("timeout", &self.timeout)
            .field("max_tokens", &self.max_tokens)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl<V: Vector> Decider<V> for OpenAiDecider {
    fn decide(&self, unit: &UnitView<V>, vocabulary: &Vocabulary<V>) -> Result<Intent, DecideError> {
        if let Some(error) = self.held_back() {
            self.count(|s| s.held_back += 1);
            return Err(error);
        }
        let body = chat_request(&self.model, unit, vocabulary, self.max_tokens).to_string();
        let mut request = self.agent.post(self.url()).header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        self.count(|s| s.sent += 1);
        let fail = |e: ureq::Error| {
            self.count(|s| s.transport_errors += 1);
            let pause = self.back_off(format!("no answer ({e})"), None);
            DecideError::Backend(format!("{e}; backing off for {:.1} s", pause.as_secs_f64()))
        };
        let mut response = request.send(body.as_str()).map_err(fail)?;
        let status = response.status();
        let asked = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(retry_after);
        let text = response.body_mut().read_to_string().map_err(fail)?;
        if status.as_u16() == 429 || status.is_server_error() {
            self.count(|s| match status.as_u16() {
                429 => s.rate_limited += 1,
                _ => s.server_errors += 1,
            });
            let excerpt: String = text.chars().take(200).collect();
            let pause = self.back_off(format!("HTTP {status}"), asked);
            return Err(DecideError::Backend(format!(
                "HTTP {status}: {excerpt}; backing off for {:.1} s",
                pause.as_secs_f64()
            )));
        }
        self.shared.backoff.lock().unwrap_or_else(PoisonError::into_inner).streak = 0;
        let (prompt, completion) = read_usage(&text);
        self.count(|s| {
            s.prompt_tokens += prompt;
            s.completion_tokens += completion;
        });
        if !status.is_success() {
            let excerpt: String = text.chars().take(200).collect();
            return Err(DecideError::Backend(format!("HTTP {status}: {excerpt}")));
        }
        read_chat_response(&text, vocabulary)
    }

    fn tokens_spent(&self) -> u64 {
        let stats = self.stats();
        stats.prompt_tokens.saturating_add(stats.completion_tokens)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    use super::*;
    use crate::region::Region;

    /// An HTTP server answering one request per entry of `answers`
    /// (status, extra header lines, body), in turn; returns its base URL
    /// and, once it has answered them all, what it received.
    fn serve(
        answers: Vec<(&'static str, &'static str, String)>,
    ) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let mut received = Vec::new();
            for (status, headers, body) in answers {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let (mut head, mut length) = (String::new(), 0usize);
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                    head.push_str(&line);
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut payload = vec![0u8; length];
                reader.read_exact(&mut payload).unwrap();
                let mut stream = stream;
                write!(stream, "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
                received.push(head + &String::from_utf8(payload).unwrap());
            }
            received
        });
        (url, handle)
    }

    /// A one-request server answering `status` and `body`.
    fn serve_once(status: &'static str, body: String) -> (String, std::thread::JoinHandle<String>) {
        let (url, handle) = serve(vec![(status, "", body)]);
        (url, std::thread::spawn(move || handle.join().unwrap().remove(0)))
    }

    /// A chat-completions answer with `content` and the tokens it spent.
    fn answer(content: &str, prompt_tokens: u64, completion_tokens: u64) -> String {
        serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        })
        .to_string()
    }

    fn unit() -> UnitView {
        UnitView {
            unit: 0,
            school: 0,
            fish: 50,
            leaders: 1,
            representative: 3,
            centroid: mirofish_sim::Vec2::ZERO,
            heading: mirofish_sim::Vec2::Y,
            speed: 100.0,
            spread: 40.0,
            region: Region::CENTRE,
            threats: vec![],
            cover: None,
            school_centre: mirofish_sim::Vec2::ZERO,
            other_schools: vec![],
            intent: None,
            horizon_s: 30.0,
        }
    }

    #[test]
    fn asks_the_server_and_reads_its_answer() {
        let answer = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "{\"intent\": \"go_to\", \"region\": \"top\"}"}}]});
        let (url, server) = serve_once("200 OK", answer.to_string());
        let decider = OpenAiDecider::new(url, "tiny", Some("secret".into()));
        assert_eq!(
            decider.decide(&unit(), &Vocabulary::default()).unwrap(),
            Intent::GoTo { region: Region::TOP }
        );
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /v1/chat/completions"), "{request}");
        assert!(request.to_ascii_lowercase().contains("authorization: bearer secret"), "{request}");
        assert!(
            request.contains("\"model\":\"tiny\"") && request.contains("50 fish (1 leaders)"),
            "{request}"
        );
        assert!(request.contains("\"max_tokens\":100"), "{request}");
    }

    /// A 429 with `Retry-After` pauses the client (and its clones) for that
    /// long: nothing reaches the server meanwhile, then it is asked again;
    /// the tokens of the answer are counted.
    #[test]
    fn a_rate_limit_is_waited_out_without_sending() {
        let go_to = "{\"intent\": \"go_to\", \"region\": \"top\"}";
        let (url, server) = serve(vec![
            ("429 Too Many Requests", "Retry-After: 1\r\n", "{\"error\": \"slow down\"}".into()),
            ("200 OK", "", answer(go_to, 310, 12)),
        ]);
        let decider = OpenAiDecider::new(url, "tiny", None);
        let clone = decider.clone();
        let limited = decider.decide(&unit(), &Vocabulary::default()).unwrap_err().to_string();
        assert!(limited.contains("429") && limited.contains("backing off for 1.0 s"), "{limited}");
        for _ in 0..5 {
            let held = clone.decide(&unit(), &Vocabulary::default()).unwrap_err().to_string();
            assert!(held.contains("not sent") && held.contains("HTTP 429"), "{held}");
        }
        let left = decider.backing_off().expect("backing off");
        std::thread::sleep(left + Duration::from_millis(50));
        assert_eq!(
            decider.decide(&unit(), &Vocabulary::default()).unwrap(),
            Intent::GoTo { region: Region::TOP }
        );
        assert_eq!(server.join().unwrap().len(), 2, "two requests reached the server");
        let stats = clone.stats();
        assert_eq!(
            stats,
            ClientStats {
                sent: 2,
                held_back: 5,
                rate_limited: 1,
                prompt_tokens: 310,
                completion_tokens: 12,
                ..ClientStats::default()
            }
        );
        assert!(stats.to_string().contains("5 held back"), "{stats}");
    }

    /// Server errors and dead servers back off exponentially, with jitter,
    /// capped; an answer ends the streak.
    #[test]
    fn failures_back_off_exponentially() {
        assert_eq!(exponential_backoff(1, 0.5), FIRST_BACKOFF);
        assert_eq!(exponential_backoff(3, 0.5), FIRST_BACKOFF * 4);
        assert_eq!(exponential_backoff(40, 0.5), Duration::from_secs(60));
        assert_eq!(exponential_backoff(1, 0.0), Duration::from_millis(750));
        assert_eq!(exponential_backoff(1, 1.0), Duration::from_millis(1250));
        assert_eq!(retry_after(" 2.5 "), Some(Duration::from_millis(2500)));
        assert_eq!(retry_after("86400"), Some(MAX_BACKOFF));
        assert_eq!(retry_after("Wed, 21 Oct 2026 07:28:00 GMT"), None);
        assert_eq!(retry_after("-1"), None);
        let (url, server) = serve(vec![("500 Internal Server Error", "", "oops".into())]);
        let decider = OpenAiDecider::new(url, "tiny", None);
        let failed = decider.decide(&unit(), &Vocabulary::default()).unwrap_err().to_string();
        assert!(failed.contains("500") && failed.contains("backing off"), "{failed}");
        let left = decider.backing_off().unwrap();
        assert!(left <= Duration::from_millis(1250) && left >= Duration::from_millis(600), "{left:?}");
        assert!(
            decider.decide(&unit(), &Vocabulary::default()).unwrap_err().to_string().contains("not sent")
        );
        server.join().unwrap();
        assert_eq!((decider.stats().server_errors, decider.stats().held_back), (1, 1));
    }

    /// Variables from a list, as the environment would give them.
    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn the_key_is_never_shown_and_goes_only_where_it_belongs() {
        let decider = OpenAiDecider::new("http://127.0.0.1:9/v1", "m", Some("sk-very-secret".into()));
        let shown = format!("{decider:?} {decider:#?}");
        assert!(!shown.contains("sk-very-secret") && shown.contains("not shown"), "{shown}");
        // No endpoint: an error naming the variable, not a guessed server.
        let none = OpenAiDecider::from_vars(vars(&[("OPENAI_API_KEY", "sk-1")])).unwrap_err().to_string();
        assert!(none.contains("MIROFISH_LLM_ENDPOINT"), "{none}");
        // A custom endpoint never receives OpenAI's key; its own key it does.
        let custom = [("MIROFISH_LLM_ENDPOINT", "http://models.example:8080/v1"), ("OPENAI_API_KEY", "sk-1")];
        assert_eq!(OpenAiDecider::from_vars(vars(&custom)).unwrap().api_key, None);
        let own = [
            ("MIROFISH_LLM_ENDPOINT", "http://h/v1"),
            ("MIROFISH_LLM_API_KEY", "k2"),
            ("OPENAI_API_KEY", "sk-1"),
        ];
        assert_eq!(OpenAiDecider::from_vars(vars(&own)).unwrap().api_key.as_deref(), Some("k2"));
        // OpenAI's own host, or the endpoint OPENAI_BASE_URL names, does.
        let openai = [("MIROFISH_LLM_ENDPOINT", "https://api.openai.com/v1"), ("OPENAI_API_KEY", "sk-1")];
        assert_eq!(OpenAiDecider::from_vars(vars(&openai)).unwrap().api_key.as_deref(), Some("sk-1"));
        let paired =
            [("OPENAI_BASE_URL", "http://proxy/v1"), ("OPENAI_API_KEY", "sk-1"), ("MIROFISH_LLM_MODEL", "x")];
        let paired = OpenAiDecider::from_vars(vars(&paired)).unwrap();
        assert_eq!((paired.api_key.as_deref(), paired.model.as_str()), (Some("sk-1"), "x"));
    }

    #[test]
    fn http_errors_and_dead_servers_are_backend_errors() {
        let (url, server) = serve_once("503 Service Unavailable", "{\"error\": \"overloaded\"}".into());
        let err = OpenAiDecider::new(url, "tiny", None).decide(&unit(), &Vocabulary::default()).unwrap_err();
        assert!(matches!(&err, DecideError::Backend(e) if e.contains("503")), "{err}");
        server.join().unwrap();
        // Nobody listens on a port just freed.
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dead = OpenAiDecider::with_timeout(
            format!("http://127.0.0.1:{port}/v1"),
            "m",
            None,
            Duration::from_secs(2),
        );
        assert!(matches!(dead.decide(&unit(), &Vocabulary::default()), Err(DecideError::Backend(_))));
    }
}
