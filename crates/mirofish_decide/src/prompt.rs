//! What a language model is asked and how its answer is read: an
//! OpenAI-style chat-completions request that asks for one intent of the
//! vocabulary as a JSON object, and a reader that accepts exactly that
//! (fenced or surrounded by prose, as models like to answer) and nothing
//! else.

use crate::decider::DecideError;
use crate::intent::Intent;
use crate::unit::UnitView;

/// The system message: the role and the vocabulary.
pub fn system_message() -> String {
    format!(
        "You decide where a unit of fish in a tank swims next, until you are asked again. \
         The fish steer themselves (they keep apart, align and stay together); you only choose their intent. \
         Answer with exactly one JSON object from this list and nothing else:\n{}",
        Intent::VOCABULARY
    )
}

/// The body of a chat-completions request for `unit` to `model`:
/// temperature 0, a JSON-object answer of at most `max_tokens` tokens.
pub fn chat_request(model: &str, unit: &UnitView, max_tokens: u32) -> serde_json::Value {
    serde_json::json!({
        "model": model,
        "temperature": 0,
        "max_tokens": max_tokens,
        "response_format": { "type": "json_object" },
        "messages": [
            { "role": "system", "content": system_message() },
            { "role": "user", "content": unit.in_words() },
        ],
    })
}

/// The intent in a chat-completions response body (the first choice's
/// message content).
pub fn read_chat_response(body: &str) -> Result<Intent, DecideError> {
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| DecideError::Malformed(format!("response is not JSON: {e}")))?;
    let content = value
        .pointer("/choices/0/message/content")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| DecideError::Malformed("no choices[0].message.content in the response".into()))?;
    read_intent(content)
}

/// The tokens a chat-completions response says it spent:
/// `(prompt_tokens, completion_tokens)` from its `usage`, zero where a
/// server does not say.
pub fn read_usage(body: &str) -> (u64, u64) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else { return (0, 0) };
    let count = |key: &str| value.pointer(&format!("/usage/{key}")).and_then(serde_json::Value::as_u64);
    (count("prompt_tokens").unwrap_or(0), count("completion_tokens").unwrap_or(0))
}

/// The intent in a model's answer: the first `{…}` object in it, which
/// must be an intent of the vocabulary.
pub fn read_intent(answer: &str) -> Result<Intent, DecideError> {
    let start =
        answer.find('{').ok_or_else(|| DecideError::Malformed(format!("no JSON object in {answer:?}")))?;
    let end = answer.rfind('}').filter(|&e| e > start);
    let object = end
        .map(|e| &answer[start..=e])
        .ok_or_else(|| DecideError::Malformed(format!("unclosed object in {answer:?}")))?;
    serde_json::from_str(object).map_err(|e| DecideError::Malformed(format!("{e} in {object:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Region;

    #[test]
    fn answers_are_read_strictly() {
        let wrap =
            |content: &str| serde_json::json!({"choices": [{"message": {"content": content}}]}).to_string();
        assert_eq!(
            read_chat_response(&wrap(r#"{"intent": "go_to", "region": "bottom_right"}"#)).unwrap(),
            Intent::GoTo { region: Region::BottomRight }
        );
        assert_eq!(
            read_chat_response(&wrap("Sure!\n```json\n{\"intent\": \"hide\"}\n```")).unwrap(),
            Intent::Hide
        );
        for bad in ["", "go left", r#"{"intent": "teleport"}"#, r#"{"intent": "go_to", "x": 3}"#, "{"] {
            assert!(matches!(read_chat_response(&wrap(bad)), Err(DecideError::Malformed(_))), "{bad}");
        }
        assert!(matches!(read_chat_response("<html>"), Err(DecideError::Malformed(_))));
        assert!(matches!(read_chat_response(r#"{"error": "quota"}"#), Err(DecideError::Malformed(_))));
    }

    #[test]
    fn the_request_carries_the_vocabulary_and_the_unit() {
        let unit = crate::unit::UnitView {
            unit: 3,
            school: 0,
            fish: 120,
            leaders: 0,
            representative: 7,
            centroid: mirofish_sim::Vec2::ZERO,
            heading: mirofish_sim::Vec2::X,
            speed: 90.0,
            spread: 60.0,
            region: Region::Centre,
            threats: vec![],
            cover: None,
            school_centre: mirofish_sim::Vec2::ZERO,
            other_schools: vec![],
            intent: Some(Intent::Rest),
            horizon_s: 10.0,
        };
        let body = chat_request("qwen2.5:7b", &unit, 100);
        assert_eq!(body["model"], "qwen2.5:7b");
        assert_eq!(body["max_tokens"], 100);
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("follow_leaders") && system.contains("bottom_right"));
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("120 fish") && user.contains("Current intent: rest."), "{user}");
        assert!(
            user.contains("asked again in about 10 seconds") && system.contains("until you are asked again")
        );
    }

    #[test]
    fn the_tokens_spent_are_read_from_the_usage() {
        let body = r#"{"choices": [], "usage": {"prompt_tokens": 310, "completion_tokens": 12, "total_tokens": 322}}"#;
        assert_eq!(read_usage(body), (310, 12));
        assert_eq!(read_usage(r#"{"choices": []}"#), (0, 0));
        assert_eq!(read_usage("not json"), (0, 0));
    }
}
