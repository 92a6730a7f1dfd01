//! A decider that asks a language model through an OpenAI-compatible
//! chat-completions endpoint: a local llama.cpp server, Ollama, vLLM or a
//! hosted API. Each request carries the vocabulary and one unit's
//! description in words, and asks for one intent as a JSON object
//! ([`crate::prompt`]).

use std::time::Duration;

use crate::decider::{DecideError, Decider};
use crate::intent::Intent;
use crate::prompt::{chat_request, read_chat_response};
use crate::unit::UnitView;

/// The chat-completions client.
#[derive(Clone, Debug)]
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
    agent: ureq::Agent,
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
        Self { endpoint: endpoint.into(), model: model.into(), api_key, timeout, agent }
    }

    /// A client configured from the environment: `MIROFISH_LLM_ENDPOINT`
    /// (else `OPENAI_BASE_URL`, else `http://localhost:11434/v1`),
    /// `MIROFISH_LLM_MODEL` (else `qwen2.5:7b`) and `OPENAI_API_KEY`.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let endpoint = var("MIROFISH_LLM_ENDPOINT")
            .or_else(|| var("OPENAI_BASE_URL"))
            .unwrap_or_else(|| "http://localhost:11434/v1".into());
        let model = var("MIROFISH_LLM_MODEL").unwrap_or_else(|| "qwen2.5:7b".into());
        Self::new(endpoint, model, var("OPENAI_API_KEY"))
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.endpoint.trim_end_matches('/'))
    }
}

impl Decider for OpenAiDecider {
    fn decide(&self, unit: &UnitView) -> Result<Intent, DecideError> {
        let body = chat_request(&self.model, unit).to_string();
        let mut request = self.agent.post(self.url()).header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(body.as_str()).map_err(|e| DecideError::Backend(e.to_string()))?;
        let status = response.status();
        let text = response.body_mut().read_to_string().map_err(|e| DecideError::Backend(e.to_string()))?;
        if !status.is_success() {
            let excerpt: String = text.chars().take(200).collect();
            return Err(DecideError::Backend(format!("HTTP {status}: {excerpt}")));
        }
        read_chat_response(&text)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    use super::*;
    use crate::intent::Region;

    /// A one-request HTTP server answering `status` and `body`; returns
    /// its base URL and what it received.
    fn serve_once(status: &'static str, body: String) -> (String, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
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
            write!(stream, "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
            head + &String::from_utf8(payload).unwrap()
        });
        (url, handle)
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
            region: Region::Centre,
            threats: vec![],
            cover: None,
            school_centre: mirofish_sim::Vec2::ZERO,
            other_schools: vec![],
            intent: None,
        }
    }

    #[test]
    fn asks_the_server_and_reads_its_answer() {
        let answer = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "{\"intent\": \"go_to\", \"region\": \"top\"}"}}]});
        let (url, server) = serve_once("200 OK", answer.to_string());
        let decider = OpenAiDecider::new(url, "tiny", Some("secret".into()));
        assert_eq!(decider.decide(&unit()).unwrap(), Intent::GoTo { region: Region::Top });
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /v1/chat/completions"), "{request}");
        assert!(request.to_ascii_lowercase().contains("authorization: bearer secret"), "{request}");
        assert!(
            request.contains("\"model\":\"tiny\"") && request.contains("50 fish (1 leaders)"),
            "{request}"
        );
    }

    #[test]
    fn http_errors_and_dead_servers_are_backend_errors() {
        let (url, server) = serve_once("503 Service Unavailable", "{\"error\": \"overloaded\"}".into());
        let err = OpenAiDecider::new(url, "tiny", None).decide(&unit()).unwrap_err();
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
        assert!(matches!(dead.decide(&unit()), Err(DecideError::Backend(_))));
    }
}
