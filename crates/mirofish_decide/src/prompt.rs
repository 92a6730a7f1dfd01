//! What a language model is asked and how its answer is read: an
//! OpenAI-style chat-completions request that asks for one intent of the
//! vocabulary as a JSON object, and a reader that accepts exactly that
//! (fenced or surrounded by prose, as models like to answer; see
//! [`Vocabulary::read`]) and nothing else.

use mirofish_sim::Vector;

use crate::decider::DecideError;
use crate::intent::Intent;
use crate::unit::UnitView;
use crate::vocabulary::Vocabulary;

/// The system message: the role, the directions (in a volume) and the
/// vocabulary.
pub fn system_message<V: Vector>(vocabulary: &Vocabulary<V>) -> String {
    let space = if V::DIM == 3 {
        "The tank is a volume: up is towards the surface, north is its back (away from the viewer), \
         and its regions name height, side and depth (top_left_front). "
    } else {
        ""
    };
    format!(
        "You decide where a unit of fish in a tank swims next, until you are asked again. \
         The fish steer themselves (they keep apart, align and stay together); you only choose their intent. \
         {space}Answer with exactly one JSON object from this list and nothing else:\n{}",
        vocabulary.lines()
    )
}

/// The body of a chat-completions request for `unit` to `model`:
/// temperature 0, a JSON-object answer of at most `max_tokens` tokens.
pub fn chat_request<V: Vector>(
    model: &str,
    unit: &UnitView<V>,
    vocabulary: &Vocabulary<V>,
    max_tokens: u32,
) -> serde_json::Value {
    serde_json::json!({
        "model": model,
        "temperature": 0,
        "max_tokens": max_tokens,
        "response_format": { "type": "json_object" },
        "messages": [
            { "role": "system", "content": system_message(vocabulary) },
            { "role": "user", "content": unit.in_words() },
        ],
    })
}

/// The intent in a chat-completions response body (the first choice's
/// message content), read against `vocabulary`.
pub fn read_chat_response<V: Vector>(body: &str, vocabulary: &Vocabulary<V>) -> Result<Intent, DecideError> {
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| DecideError::Malformed(format!("response is not JSON: {e}")))?;
    let content = value
        .pointer("/choices/0/message/content")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| DecideError::Malformed("no choices[0].message.content in the response".into()))?;
    vocabulary.read(content)
}

/// The tokens a chat-completions response says it spent:
/// `(prompt_tokens, completion_tokens)` from its `usage`, zero where a
/// server does not say.
pub fn read_usage(body: &str) -> (u64, u64) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else { return (0, 0) };
    let count = |key: &str| value.pointer(&format!("/usage/{key}")).and_then(serde_json::Value::as_u64);
    (count("prompt_tokens").unwrap_or(0), count("completion_tokens").unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::region::Region;
    use mirofish_sim::Vec2;

    #[test]
    fn answers_are_read_strictly() {
        let words = Vocabulary::<Vec2>::default();
        let read_chat_response = |body: &str| read_chat_response(body, &words);
        let wrap =
            |content: &str| serde_json::json!({"choices": [{"message": {"content": content}}]}).to_string();
        assert_eq!(
            read_chat_response(&wrap(r#"{"intent": "go_to", "region": "bottom_right"}"#)).unwrap(),
            Intent::GoTo { region: Region::BOTTOM_RIGHT }
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
            region: Region::CENTRE,
            threats: vec![],
            cover: None,
            school_centre: mirofish_sim::Vec2::ZERO,
            other_schools: vec![],
            intent: Some(Intent::Rest),
            horizon_s: 10.0,
        };
        let body = chat_request("qwen2.5:7b", &unit, &Vocabulary::default(), 100);
        assert_eq!(body["model"], "qwen2.5:7b");
        assert_eq!(body["max_tokens"], 100);
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("follow_leaders") && system.contains("bottom_right"));
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("120 fish") && user.contains("Current intent: rest."), "{user}");
        assert!(
            user.contains("asked again in about 10 seconds") && system.contains("until you are asked again")
        );
        assert!(!system.contains("volume"), "a plane's prompt says nothing of depth");
        let volume = system_message(&Vocabulary::<mirofish_sim::Vec3>::default());
        assert!(
            volume.contains("up is towards the surface") && volume.contains("top_left_front"),
            "{volume}"
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
