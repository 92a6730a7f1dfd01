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

/// The chat-completions client. Its `Debug` never shows the API key.
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
}

impl core::fmt::Debug for OpenAiDecider {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OpenAiDecider")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set, not shown)"))
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
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
