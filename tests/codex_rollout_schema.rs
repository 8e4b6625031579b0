//! `schemas/codex-rollout/codex-rollout.schema.json` (Codex rollout files) against the real corpus
//! and the variants the provider-runtime V2 proposal maps (issue 10):
//!
//! - the schema is valid draft-07 and its `x-dispatch` annotations agree with its `oneOf`s;
//! - every line of every file in `tests/corpus/codex-rollout/` is valid and lands in the branch
//!   its tags name at every level (`RolloutLine` on `type`, then `EventMsg` / `ResponseItem` /
//!   `RetainedContext` on the payload's `type`, then `TurnItem`, `ContentItem`, `FileChange`
//!   inside), is valid under that branch and under no other;
//! - `RolloutLine` and `EventMsg` cover every line kind and every event the proposal names;
//! - the hand-written examples of `tests/fixtures/codex-rollout/examples.jsonl` (shaped after
//!   upstream's structs) pass the same check, and with the corpus they reach every branch of
//!   every union;
//! - lines that break upstream's shapes are rejected.
//!
//! Run with `--nocapture` to see how many lines land in each branch.

mod schema_corpus;

use std::collections::BTreeSet;

use agentwire_tests::x_dispatch;
use schema_corpus::SchemaUnderTest;
use serde_json::{Value, json};

const SCHEMA: &str = "codex-rollout/codex-rollout.schema.json";

/// Rollout line kinds issue 10 names, plus the ones codex 0.171.0 writes.
const LINE_KINDS: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "token_usage_record",
    "retained_context",
];

/// `EventMsg` variants the provider-runtime V2 proposal (section 3.3) maps, as issue 10 lists them.
const SPEC_EVENTS: &[&str] = &[
    "task_started",
    "task_complete",
    "agent_message_delta",
    "agent_message_content_delta",
    "agent_reasoning_delta",
    "reasoning_content_delta",
    "reasoning_raw_content_delta",
    "exec_command_begin",
    "exec_command_output_delta",
    "exec_command_end",
    "patch_apply_begin",
    "patch_apply_end",
    "exec_approval_request",
    "apply_patch_approval_request",
    "request_user_input",
    "plan_update",
    "plan_delta",
    "turn_diff",
    "turn_aborted",
    "thread_rolled_back",
    "context_compacted",
    "model_reroute",
    "collab_agent_spawn_begin",
    "collab_agent_spawn_end",
    "collab_agent_interaction_begin",
    "collab_agent_interaction_end",
    "collab_waiting_begin",
    "collab_waiting_end",
    "collab_close_begin",
    "collab_close_end",
    "collab_resume_begin",
    "collab_resume_end",
];

fn schema() -> SchemaUnderTest {
    SchemaUnderTest::load(SCHEMA, "RolloutLine")
}

fn missing(schema: &SchemaUnderTest, union: &str, wanted: &[&str]) -> Vec<String> {
    let tags: BTreeSet<String> = schema.tags(union).into_iter().collect();
    wanted
        .iter()
        .filter(|tag| !tags.contains(**tag))
        .map(|tag| (*tag).to_owned())
        .collect()
}

#[test]
fn the_unions_cover_every_named_variant() {
    let schema = schema();
    assert_eq!(missing(&schema, "RolloutLine", LINE_KINDS), Vec::<String>::new());
    assert_eq!(missing(&schema, "EventMsg", SPEC_EVENTS), Vec::<String>::new());
    let collab: Vec<String> = schema
        .tags("EventMsg")
        .into_iter()
        .filter(|tag| tag.starts_with("collab_"))
        .collect();
    let named: Vec<&str> = SPEC_EVENTS
        .iter()
        .copied()
        .filter(|tag| tag.starts_with("collab_"))
        .collect();
    assert_eq!(
        collab.len(),
        named.len(),
        "`collab_*` variants beyond the named ones: {collab:?}"
    );
}

#[test]
fn every_corpus_line_lands_in_the_branch_its_tags_name() {
    let mut schema = schema();
    let landings = schema.check_corpus("codex-rollout");
    let count = |union: &str, tag: &str| landings.get(&(union.to_owned(), tag.to_owned())).copied().unwrap_or(0);
    // Every line dispatched its payload one level further where the payload is itself a union.
    assert_eq!(
        count("RolloutLine", "event_msg"),
        schema
            .tags("EventMsg")
            .iter()
            .map(|tag| count("EventMsg", tag))
            .sum::<usize>(),
        "an event_msg line did not dispatch its EventMsg"
    );
    assert_eq!(
        count("RolloutLine", "response_item"),
        schema
            .tags("ResponseItem")
            .iter()
            .map(|tag| count("ResponseItem", tag))
            .sum::<usize>(),
        "a response_item line did not dispatch its ResponseItem"
    );
    let item_events = count("EventMsg", "item_started") + count("EventMsg", "item_completed");
    assert_eq!(
        item_events,
        schema
            .tags("TurnItem")
            .iter()
            .map(|tag| count("TurnItem", tag))
            .sum::<usize>(),
        "an item event did not dispatch its TurnItem"
    );
}

/// The examples file: one rollout line per variant, each `{"why": ..., "line": ...}`.
fn examples() -> Vec<(String, Value)> {
    let path = agentwire_tests::tests_dir().join("fixtures/codex-rollout/examples.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("examples.jsonl:{}: not JSON: {e}", index + 1));
            let why = value["why"]
                .as_str()
                .unwrap_or_else(|| panic!("examples.jsonl:{}: no `why`", index + 1));
            (why.to_owned(), value["line"].clone())
        })
        .collect()
}

#[test]
fn the_corpus_and_the_examples_exercise_every_branch() {
    let mut schema = schema();
    let mut exercised: BTreeSet<(String, String)> = schema.check_corpus("codex-rollout").into_keys().collect();
    let mut failures = Vec::new();
    for (why, line) in examples() {
        match schema.check(&line) {
            Ok(landings) => exercised.extend(landings.into_iter().map(|l| (l.union, l.tag))),
            Err(errors) => failures.push(format!("{why}:\n  {}", errors.join("\n  "))),
        }
    }
    assert!(
        failures.is_empty(),
        "examples fail the schema:\n{}",
        failures.join("\n")
    );
    let unions: Vec<String> = x_dispatch::unions(&schema.schema)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let unexercised: Vec<String> = unions
        .iter()
        .flat_map(|union| schema.tags(union).into_iter().map(move |tag| (union.clone(), tag)))
        .filter(|branch| !exercised.contains(branch))
        .map(|(union, tag)| format!("{union} {tag}"))
        .collect();
    assert!(
        unexercised.is_empty(),
        "neither the corpus nor the examples reach {unexercised:?}"
    );
}

fn task_complete() -> Value {
    json!({"timestamp": "2026-11-30T05:23:25.347Z", "ordinal": 13, "type": "event_msg",
        "payload": {"type": "task_complete", "turn_id": "t1", "last_agent_message": null}})
}

#[test]
fn lines_that_break_upstream_shapes_are_rejected() {
    let mut schema = schema();
    assert!(schema.check(&task_complete()).is_ok());
    let mut cases: Vec<(&str, Value)> = vec![
        (
            "unknown line type",
            json!({"timestamp": "x", "type": "bookmark", "payload": {}}),
        ),
        (
            "unknown event type",
            json!({"timestamp": "x", "type": "event_msg", "payload": {"type": "agent_dance"}}),
        ),
        (
            "unknown response item type",
            json!({"timestamp": "x", "type": "response_item", "payload": {"type": "telepathy"}}),
        ),
        (
            "turn item type in snake case",
            json!({"timestamp": "x", "type": "event_msg", "payload": {"type": "item_completed", "thread_id": "a",
                "turn_id": "b", "item": {"type": "agent_message", "id": "i", "content": []}}}),
        ),
        (
            "patch change of unknown kind",
            json!({"timestamp": "x", "type": "event_msg", "payload": {"type": "patch_apply_begin", "call_id": "c",
                "auto_approved": true, "changes": {"/a": {"type": "rename"}}}}),
        ),
        (
            "exec_command_end without exit_code",
            json!({"timestamp": "x", "type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "c",
                "turn_id": "t", "command": ["ls"], "cwd": "/", "parsed_cmd": [], "stdout": "", "stderr": "",
                "duration": {"secs": 0, "nanos": 0}, "formatted_output": "", "status": "completed"}}),
        ),
        (
            "session_meta without cli_version",
            json!({"timestamp": "x", "type": "session_meta", "payload": {"id": "s", "timestamp": "x", "cwd": "/",
                "originator": "o"}}),
        ),
    ];
    let mut no_timestamp = task_complete();
    no_timestamp.as_object_mut().unwrap().remove("timestamp");
    cases.push(("line without timestamp", no_timestamp));
    let mut no_payload = task_complete();
    no_payload.as_object_mut().unwrap().remove("payload");
    cases.push(("line without payload", no_payload));
    let mut no_turn = task_complete();
    no_turn["payload"].as_object_mut().unwrap().remove("turn_id");
    cases.push(("task_complete without turn_id", no_turn));
    let mut wrong_kind = task_complete();
    wrong_kind["type"] = json!("response_item");
    cases.push(("an EventMsg payload on a response_item line", wrong_kind));
    for (why, line) in cases {
        assert!(schema.rejects(&line), "accepted a line with {why}: {line}");
    }
}
