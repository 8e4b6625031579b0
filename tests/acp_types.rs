//! The generated ACP types (`agentwire-acp`) against the real corpus, `conform`-style.
//!
//! Every message of every trace in `tests/corpus/acp/` decodes through the union named after
//! its sender (requests and notifications by `method`; replies through the `<Union>Result`
//! table, by the method of the request with the same id that the other side sent; errors as
//! `Error`), each `session/update` into the `SessionUpdate` variant its `sessionUpdate` names
//! (asserted per line), each permission outcome into the variant its `outcome` names, and
//! re-encoding the typed message loses no key of the original.
//!
//! Run with `--nocapture` to see the counts.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use agentwire_acp::{
    AgentNotification, AgentRequest, AgentRequestResult, ClientNotification, ClientRequest, ClientRequestResult,
    ContentBlock, CursorAgentRequest, CursorAgentRequestResult, CursorClientRequest, CursorClientRequestResult,
    ProtocolNotification, RawEnvelope, RequestId, RequestPermissionOutcome, SerdeJson, SessionUpdate,
};
use serde::Serialize;
use serde_json::Value;

const CORPUS: &str = "corpus/acp";

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Side {
    Client,
    Agent,
}

/// The tag each `SessionUpdate` variant is named after, matched exhaustively.
fn session_update_tag(update: &SessionUpdate) -> &'static str {
    match update {
        SessionUpdate::UserMessageChunk { .. } => "user_message_chunk",
        SessionUpdate::AgentMessageChunk { .. } => "agent_message_chunk",
        SessionUpdate::AgentThoughtChunk { .. } => "agent_thought_chunk",
        SessionUpdate::ToolCall { .. } => "tool_call",
        SessionUpdate::ToolCallUpdate { .. } => "tool_call_update",
        SessionUpdate::Plan { .. } => "plan",
        SessionUpdate::AvailableCommandsUpdate { .. } => "available_commands_update",
        SessionUpdate::CurrentModeUpdate { .. } => "current_mode_update",
        SessionUpdate::ConfigOptionUpdate { .. } => "config_option_update",
        SessionUpdate::SessionInfoUpdate { .. } => "session_info_update",
        SessionUpdate::UsageUpdate { .. } => "usage_update",
        SessionUpdate::Notice { .. } => "notice",
        SessionUpdate::CompactionUpdate { .. } => "compaction_update",
        SessionUpdate::CompactionSummaryChunk { .. } => "compaction_summary_chunk",
    }
}

fn content_tag(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text { .. } => "text",
        ContentBlock::Image { .. } => "image",
        ContentBlock::Audio { .. } => "audio",
        ContentBlock::ResourceLink { .. } => "resource_link",
        ContentBlock::Resource { .. } => "resource",
    }
}

fn traces() -> Vec<(String, Vec<(Side, Value)>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no traces in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("trace");
            let records = text
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| {
                    let record: Value = serde_json::from_str(line).expect("record");
                    let side = match record["dir"].as_str() {
                        Some("out") => Side::Client,
                        Some("in") => Side::Agent,
                        other => panic!("{}: dir {other:?}", path.display()),
                    };
                    (side, record["msg"].clone())
                })
                .collect();
            (path.file_name().unwrap().to_string_lossy().into_owned(), records)
        })
        .collect()
}

/// Every key path of `value` (object members; array items by index), `null`s left out.
fn key_paths(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if child.is_null() {
                    continue;
                }
                let path = format!("{at}.{key}");
                out.push(path.clone());
                key_paths(child, &path, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                key_paths(item, &format!("{at}[{index}]"), out);
            }
        }
        _ => {}
    }
}

fn assert_no_key_lost(label: &str, original: &Value, typed: &impl Serialize) {
    let encoded = serde_json::to_value(typed).expect("encode");
    let (mut before, mut after) = (Vec::new(), Vec::new());
    key_paths(original, "", &mut before);
    key_paths(&encoded, "", &mut after);
    let lost: Vec<_> = before.iter().filter(|path| !after.contains(path)).collect();
    assert!(lost.is_empty(), "{label}: keys lost on re-encoding: {lost:?}");
}

/// Decodes one message; returns a description of its variant for the counts.
fn decode(label: &str, side: Side, message: &Value, pending: &mut HashMap<(Side, RequestId), String>) -> String {
    let text = message.to_string();
    let envelope: RawEnvelope = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{label}: envelope: {e}"));
    let decoder = &mut SerdeJson;
    match (&envelope.method, &envelope.id) {
        (Some(method), Some(id)) => {
            pending.insert((side, id.clone()), method.clone());
            if method.starts_with("cursor/") {
                match side {
                    Side::Agent => check(label, message, &CursorAgentRequest::decode(&envelope, decoder)),
                    Side::Client => check(label, message, &CursorClientRequest::decode(&envelope, decoder)),
                }
            } else {
                match side {
                    Side::Client => check(label, message, &ClientRequest::decode(&envelope, decoder)),
                    Side::Agent => {
                        let request = AgentRequest::decode(&envelope, decoder);
                        if let Ok(AgentRequest::SessionRequestPermission { params, .. }) = &request {
                            assert!(!params.options.is_empty(), "{label}: no options");
                        }
                        check(label, message, &request)
                    }
                }
            }
            format!("request {method}")
        }
        (Some(method), None) => {
            if method.starts_with("$/") {
                check(label, message, &ProtocolNotification::decode(&envelope, decoder));
                return format!("notification {method}");
            }
            match side {
                Side::Client => check(label, message, &ClientNotification::decode(&envelope, decoder)),
                Side::Agent => {
                    let notification = AgentNotification::decode(&envelope, decoder);
                    if let Ok(AgentNotification::SessionUpdate { params }) = &notification {
                        let tag = session_update_tag(&params.update);
                        assert_eq!(
                            Some(tag),
                            message["params"]["update"]["sessionUpdate"].as_str(),
                            "{label}: decoded into the wrong SessionUpdate variant"
                        );
                        if let SessionUpdate::AgentMessageChunk { content, .. }
                        | SessionUpdate::AgentThoughtChunk { content, .. }
                        | SessionUpdate::UserMessageChunk { content, .. } = &params.update
                        {
                            assert_eq!(
                                Some(content_tag(content)),
                                message["params"]["update"]["content"]["type"].as_str()
                            );
                        }
                        check(label, message, &notification);
                        return format!("session/update {tag}");
                    }
                    check(label, message, &notification)
                }
            }
            format!("notification {method}")
        }
        (None, Some(id)) => {
            let asker = match side {
                Side::Client => Side::Agent,
                Side::Agent => Side::Client,
            };
            let method = pending
                .remove(&(asker, id.clone()))
                .unwrap_or_else(|| panic!("{label}: reply to unknown request {id:?}"));
            if let Some(error) = message.get("error") {
                let typed: agentwire_acp::Error =
                    serde_json::from_value(error.clone()).unwrap_or_else(|e| panic!("{label}: error: {e}"));
                assert_no_key_lost(label, error, &typed);
                return format!("error to {method}");
            }
            let result = envelope
                .result
                .as_deref()
                .unwrap_or_else(|| panic!("{label}: no result"));
            let reencode = |typed: &dyn erased::Encode| typed.encode();
            let encoded = match (method.starts_with("cursor/"), asker) {
                (true, Side::Agent) => reencode(
                    &CursorAgentRequestResult::decode(&method, result, decoder)
                        .unwrap_or_else(|e| panic!("{label}: {e}")),
                ),
                (true, Side::Client) => reencode(
                    &CursorClientRequestResult::decode(&method, result, decoder)
                        .unwrap_or_else(|e| panic!("{label}: {e}")),
                ),
                (false, Side::Client) => reencode(
                    &ClientRequestResult::decode(&method, result, decoder).unwrap_or_else(|e| panic!("{label}: {e}")),
                ),
                (false, Side::Agent) => {
                    let typed =
                        AgentRequestResult::decode(&method, result, decoder).unwrap_or_else(|e| panic!("{label}: {e}"));
                    if let AgentRequestResult::SessionRequestPermission(response) = &typed {
                        let tag = match &response.outcome {
                            RequestPermissionOutcome::Cancelled => "cancelled",
                            RequestPermissionOutcome::Selected { .. } => "selected",
                        };
                        assert_eq!(Some(tag), message["result"]["outcome"]["outcome"].as_str(), "{label}");
                    }
                    reencode(&typed)
                }
            };
            let (mut before, mut after) = (Vec::new(), Vec::new());
            key_paths(&message["result"], "", &mut before);
            key_paths(&encoded, "", &mut after);
            let lost: Vec<_> = before.iter().filter(|path| !after.contains(path)).collect();
            assert!(
                lost.is_empty(),
                "{label}: keys lost on re-encoding the reply to {method}: {lost:?}"
            );
            format!("reply to {method}")
        }
        (None, None) => panic!("{label}: neither method nor id"),
    }
}

/// Re-encoding through a trait object, so the four result tables share one path.
mod erased {
    pub trait Encode {
        fn encode(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Encode for T {
        fn encode(&self) -> serde_json::Value {
            serde_json::to_value(self).expect("encode")
        }
    }
}

fn check<T: Serialize, E: std::fmt::Display>(label: &str, original: &Value, decoded: &Result<T, E>) {
    match decoded {
        Ok(typed) => assert_no_key_lost(label, original, typed),
        Err(error) => panic!("{label}: {error}"),
    }
}

#[test]
fn every_corpus_message_decodes_into_its_variant_with_no_key_lost() {
    let mut counts = BTreeMap::<String, usize>::new();
    let mut total = 0;
    for (name, records) in traces() {
        let mut pending = HashMap::new();
        for (line, (side, message)) in records.iter().enumerate() {
            let label = format!("{name}:{}", line + 1);
            *counts.entry(decode(&label, *side, message, &mut pending)).or_default() += 1;
            total += 1;
        }
    }
    for (what, count) in &counts {
        println!("{count:5} {what}");
    }
    println!("{total} messages decoded");
    for tag in [
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "usage_update",
    ] {
        assert!(
            counts.contains_key(&format!("session/update {tag}")),
            "the corpus reaches {tag}"
        );
    }
}

/// The checks can fail: an `agent_message_chunk` relabelled `user_message_chunk` decodes into
/// `UserMessageChunk`, and a `selected` outcome without its `optionId` does not decode.
#[test]
fn tags_decide_the_variant() {
    let chunk = r#"{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}"#;
    let update: SessionUpdate = serde_json::from_str(chunk).expect("decodes");
    assert_eq!(session_update_tag(&update), "user_message_chunk");
    let chunk = r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}"#;
    let update: SessionUpdate = serde_json::from_str(chunk).expect("decodes");
    assert_eq!(session_update_tag(&update), "agent_message_chunk");
    assert!(serde_json::from_str::<RequestPermissionOutcome>(r#"{"outcome":"selected"}"#).is_err());
    assert!(serde_json::from_str::<SessionUpdate>(r#"{"sessionUpdate":"nope"}"#).is_err());
    let code: agentwire_acp::ErrorCode = serde_json::from_str("400").expect("any integer");
    assert_eq!(code.0, 400);
    assert_eq!(agentwire_acp::ErrorCode::METHOD_NOT_FOUND.0, -32601);
}
