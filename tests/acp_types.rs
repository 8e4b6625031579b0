//! The generated ACP types (`agentwire-acp`) against the real corpus, `conform`-style.
//!
//! Every message of every trace in `tests/corpus/acp/` (and of the hand-made Cursor transcripts
//! in `tests/corpus/cursor/`) decodes, but for a client's `session/cancel` sent as a request
//! (see `REQUEST_CANCEL`), through the mapping crate's wire
//! decoder (what `agentwire conform` runs), by the union named after
//! its sender (requests and notifications by `method`; replies through the `<Union>Result`
//! table, by the method of the request with the same id that the other side sent; errors as
//! `Error`), each `session/update` into the `SessionUpdate` variant its `sessionUpdate` names
//! (asserted per line), each permission outcome into the variant its `outcome` names, and
//! re-encoding the typed message loses no key of the original.
//!
//! Run with `--nocapture` to see the counts.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentwire::acp::wire::{Decoder, Message};
use agentwire::frame::{Direction, Frame};
use agentwire::normalizer::ProblemKind;
use agentwire_acp::{
    AgentNotification, AgentRequest, AgentRequestResult, ContentBlock, RequestPermissionOutcome, SessionUpdate,
};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

const CORPUS: &str = "corpus/acp";

/// Hand-made Cursor transcripts (see the folder's README: built from documented shapes, not
/// captured).
const CURSOR_CORPUS: &str = "corpus/cursor";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
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

fn traces(folder: &str) -> Vec<(String, Vec<(Side, Value)>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder);
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

/// Decodes one message through the mapping crate's wire decoder (what `conform` runs); returns
/// a description of its variant for the counts.
fn decode(label: &str, side: Side, message: &Value, decoder: &mut Decoder) -> String {
    let text = message.to_string();
    let raw: Box<RawValue> = serde_json::from_str(&text).expect("raw");
    let dir = match side {
        Side::Client => Direction::Out,
        Side::Agent => Direction::In,
    };
    let frame = Frame::new(dir, None, &raw);
    let decoded = decoder
        .decode(&frame)
        .unwrap_or_else(|error| panic!("{label}: {}", error.problem()));
    let method = message["method"].as_str().unwrap_or_default();
    match &decoded {
        Message::ClientRequest(typed) => check(label, message, typed),
        Message::ClientNotification(typed) => check(label, message, typed),
        Message::AgentRequest(typed) => {
            if let AgentRequest::SessionRequestPermission { params, .. } = typed {
                assert!(!params.options.is_empty(), "{label}: no options");
            }
            check(label, message, typed)
        }
        Message::AgentNotification(typed) => {
            check(label, message, typed);
            if let AgentNotification::SessionUpdate { params } = typed {
                let tag = session_update_tag(&params.update);
                assert_eq!(
                    Some(tag),
                    message["params"]["update"]["sessionUpdate"].as_str(),
                    "{label}: decoded into the wrong SessionUpdate variant"
                );
                if let SessionUpdate::AgentMessageChunk { content, .. }
                | SessionUpdate::AgentThoughtChunk { content, .. }
                | SessionUpdate::UserMessageChunk { content, .. } = params.update.value()
                {
                    assert_eq!(
                        Some(content_tag(content)),
                        message["params"]["update"]["content"]["type"].as_str()
                    );
                }
                return format!("session/update {tag}");
            }
        }
        Message::Protocol { notification, .. } => check(label, message, notification),
        Message::CursorAgentRequest(typed) => check(label, message, typed),
        Message::CursorClientRequest(typed) => check(label, message, typed),
        Message::QwenAgentRequest(typed) => check(label, message, typed),
        Message::QwenAgentNotification(typed) => check(label, message, typed),
        Message::ClientRequestResult { result, .. } => check_reply(label, message, result),
        Message::AgentRequestResult { result, .. } => {
            if let AgentRequestResult::SessionRequestPermission(response) = result {
                let tag = match &response.outcome {
                    RequestPermissionOutcome::Cancelled => "cancelled",
                    RequestPermissionOutcome::Selected { .. } => "selected",
                };
                assert_eq!(Some(tag), message["result"]["outcome"]["outcome"].as_str(), "{label}");
            }
            check_reply(label, message, result)
        }
        Message::CursorAgentRequestResult { result, .. } => check_reply(label, message, result),
        Message::CursorClientRequestResult { result, .. } => check_reply(label, message, result),
        Message::QwenAgentRequestResult { result, .. } => check_reply(label, message, result),
        Message::Error { method, error, .. } => {
            assert_no_key_lost(label, &message["error"], error);
            return format!("error to {}", method.as_deref().unwrap_or("?"));
        }
    }
    match &decoded {
        Message::ClientRequestResult { result, .. } => format!("reply to {}", result.method()),
        Message::AgentRequestResult { result, .. } => format!("reply to {}", result.method()),
        Message::CursorAgentRequestResult { result, .. } => format!("reply to {}", result.method()),
        Message::CursorClientRequestResult { result, .. } => format!("reply to {}", result.method()),
        Message::QwenAgentRequestResult { result, .. } => format!("reply to {}", result.method()),
        Message::ClientRequest(_)
        | Message::AgentRequest(_)
        | Message::CursorAgentRequest(_)
        | Message::CursorClientRequest(_)
        | Message::QwenAgentRequest(_) => {
            format!("request {method}")
        }
        Message::ClientNotification(_)
        | Message::AgentNotification(_)
        | Message::QwenAgentNotification(_)
        | Message::Protocol { .. }
        | Message::Error { .. } => {
            format!("notification {method}")
        }
    }
}

/// What a client's `session/cancel` sent with an `id` counts as: ACP defines `session/cancel`
/// as a notification only, so the request form is a method the schema does not declare and the
/// decoder reports it `Undeclared` (the agent's `-32601` reply then decodes as an error answering
/// `session/cancel`). Clients do send it (`codex_acp_cancel_as_request.jsonl`, captured;
/// Cursor's `cancel_unsupported.jsonl`, hand-made), so both corpus tests expect exactly this.
const REQUEST_CANCEL: &str = "undeclared request session/cancel";

/// [`decode`], except that a request-form `session/cancel` must fail as `Undeclared`.
fn decode_line(label: &str, side: Side, message: &Value, decoder: &mut Decoder) -> String {
    if message["method"] != "session/cancel" || message.get("id").is_none() {
        return decode(label, side, message, decoder);
    }
    assert_eq!(side, Side::Client, "{label}");
    let text = message.to_string();
    let raw: Box<RawValue> = serde_json::from_str(&text).expect("raw");
    let frame = Frame::new(Direction::Out, None, &raw);
    let problem = decoder
        .decode(&frame)
        .map(drop)
        .expect_err("ACP declares no `session/cancel` request")
        .problem();
    assert_eq!(problem.kind, ProblemKind::Undeclared, "{label}: {}", problem.message);
    REQUEST_CANCEL.into()
}

fn check_reply(label: &str, message: &Value, typed: &impl Serialize) {
    assert_no_key_lost(label, &message["result"], typed);
}

fn check(label: &str, original: &Value, typed: &impl Serialize) {
    assert_no_key_lost(label, original, typed);
}

#[test]
fn every_corpus_message_decodes_into_its_variant_with_no_key_lost() {
    let mut counts = BTreeMap::<String, usize>::new();
    let mut total = 0;
    for (name, records) in traces(CORPUS) {
        let mut decoder = Decoder::default();
        for (line, (side, message)) in records.iter().enumerate() {
            let label = format!("{name}:{}", line + 1);
            *counts
                .entry(decode_line(&label, *side, message, &mut decoder))
                .or_default() += 1;
            total += 1;
        }
    }
    for (what, count) in &counts {
        println!("{count:5} {what}");
    }
    println!("{total} messages");
    assert_eq!(
        counts.get(REQUEST_CANCEL),
        Some(&1),
        "codex_acp_cancel_as_request.jsonl"
    );
    assert_eq!(counts.get("error to session/cancel"), Some(&1), "its -32601 reply");
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
    let env_var = r#"{"type":"env_var","id":"openai","name":"OpenAI key","vars":[{"name":"OPENAI_API_KEY"}]}"#;
    match serde_json::from_str(env_var).expect("decodes") {
        agentwire_acp::AuthMethod::EnvVar { vars, .. } => assert_eq!(vars[0].name, "OPENAI_API_KEY"),
        other => panic!("an `env_var` auth method decoded as {other:?}"),
    }
    let unknown = r#"{"type":"oauth","id":"openai","name":"OpenAI"}"#;
    assert!(
        matches!(serde_json::from_str(unknown), Ok(agentwire_acp::AuthMethod::Agent(_))),
        "an unknown `type` falls back to the untagged `agent` default, as ACP says"
    );
    let code: agentwire_acp::ErrorCode = serde_json::from_str("400").expect("any integer");
    assert_eq!(code.0, 400);
    assert_eq!(agentwire_acp::ErrorCode::METHOD_NOT_FOUND.0, -32601);
}

/// Cursor's documented examples (`tests/fixtures/cursor/examples.jsonl`: method, params and the
/// client's reply) decode as requests of Cursor's agent and replies through its table, through
/// the same wire decoder, with no key lost.
#[test]
fn cursor_examples_decode_through_the_cursor_tables() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/cursor/examples.jsonl");
    let text = std::fs::read_to_string(&path).expect("examples");
    let mut decoder = Decoder::default();
    let mut methods = BTreeMap::<String, usize>::new();
    for (index, line) in text.lines().enumerate() {
        let example: Value = serde_json::from_str(line).expect("example");
        let label = format!("examples.jsonl:{}", index + 1);
        let method = example["method"].as_str().expect("method").to_string();
        let (request_side, reply_side) = if method == "cursor/list_available_models" {
            (Side::Client, Side::Agent)
        } else {
            (Side::Agent, Side::Client)
        };
        let request = serde_json::json!({"jsonrpc": "2.0", "id": index, "method": method, "params": example["params"]});
        assert_eq!(
            decode(&label, request_side, &request, &mut decoder),
            format!("request {method}")
        );
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": index, "result": example["result"]});
        assert_eq!(
            decode(&label, reply_side, &reply, &mut decoder),
            format!("reply to {method}")
        );
        *methods.entry(method).or_default() += 1;
    }
    assert_eq!(
        methods.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "cursor/ask_question",
            "cursor/create_plan",
            "cursor/generate_image",
            "cursor/list_available_models",
            "cursor/task",
            "cursor/update_todos"
        ]
    );
}

/// The hand-made Cursor transcripts decode line by line through the same wire decoder, each
/// `session/update` into the variant its tag names, each `cursor/*` request and reply through
/// Cursor's tables, with no key lost; the one exception is the request-form `session/cancel` of
/// `cancel_unsupported.jsonl` (see [`REQUEST_CANCEL`]).
#[test]
fn every_cursor_transcript_line_decodes_into_its_variant_with_no_key_lost() {
    let mut counts = BTreeMap::<String, usize>::new();
    let mut total = 0;
    for (name, records) in traces(CURSOR_CORPUS) {
        let mut decoder = Decoder::default();
        for (line, (side, message)) in records.iter().enumerate() {
            let label = format!("{name}:{}", line + 1);
            *counts
                .entry(decode_line(&label, *side, message, &mut decoder))
                .or_default() += 1;
            total += 1;
        }
    }
    for (what, count) in &counts {
        println!("{count:5} {what}");
    }
    println!("{total} lines");
    assert_eq!(counts.get(REQUEST_CANCEL), Some(&1), "cancel_unsupported.jsonl");
    for what in [
        "request cursor/ask_question",
        "reply to cursor/ask_question",
        "request cursor/create_plan",
        "reply to cursor/create_plan",
        "request cursor/update_todos",
        "reply to cursor/update_todos",
        "request cursor/task",
        "reply to cursor/task",
        "request cursor/list_available_models",
        "reply to cursor/list_available_models",
        "request session/request_permission",
        "reply to session/request_permission",
        "error to session/cancel",
        "notification session/cancel",
        "session/update tool_call",
        "session/update tool_call_update",
        "session/update agent_message_chunk",
    ] {
        assert!(counts.contains_key(what), "the Cursor transcripts reach {what}");
    }
}
