//! `schemas/codex-exec/codex-exec.schema.json` (the `codex exec --json` stream) against the real
//! corpus and the Codex TypeScript SDK's types:
//!
//! - the schema is valid draft-07 and its `x-dispatch` annotations agree with its `oneOf`s;
//! - every line of every trace in `tests/corpus/codex-exec/` is valid, lands in the `ThreadEvent`
//!   branch its `type` names (and, for `item.*`, the `ThreadItem` branch its `item.type` names),
//!   is valid under that branch and under no other;
//! - the unions list exactly the `ThreadEvent` and `ThreadItem` variants of `@openai/codex-sdk`
//!   0.163.0;
//! - the hand-written examples of `tests/fixtures/codex-exec/examples.jsonl` pass the same check,
//!   and with the corpus they reach every branch of both unions;
//! - lines that break the SDK's types are rejected.
//!
//! Run with `--nocapture` to see how many lines land in each branch.

mod schema_corpus;

use std::collections::BTreeSet;

use schema_corpus::SchemaUnderTest;
use serde_json::{Value, json};

const SCHEMA: &str = "codex-exec/codex-exec.schema.json";

/// `ThreadEvent['type']` in `@openai/codex-sdk` 0.163.0 (`dist/index.d.ts`).
const SDK_THREAD_EVENTS: &[&str] = &[
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
];

/// `ThreadItem['type']` in `@openai/codex-sdk` 0.163.0.
const SDK_THREAD_ITEMS: &[&str] = &[
    "agent_message",
    "reasoning",
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "todo_list",
    "error",
];

fn schema() -> SchemaUnderTest {
    SchemaUnderTest::load(SCHEMA, "ThreadEvent")
}

fn sorted(tags: &[&str]) -> Vec<String> {
    let mut tags: Vec<String> = tags.iter().map(|tag| (*tag).to_owned()).collect();
    tags.sort();
    tags
}

#[test]
fn the_unions_are_the_sdk_types() {
    let schema = schema();
    assert_eq!(schema.tags("ThreadEvent"), sorted(SDK_THREAD_EVENTS));
    assert_eq!(schema.tags("ThreadItem"), sorted(SDK_THREAD_ITEMS));
}

#[test]
fn every_corpus_line_lands_in_the_branch_its_tags_name() {
    let mut schema = schema();
    let landings = schema.check_corpus("codex-exec");
    // Every `item.*` event landed in a `ThreadItem` branch as well.
    let item_events: usize = landings
        .iter()
        .filter(|((union, tag), _)| union == "ThreadEvent" && tag.starts_with("item."))
        .map(|(_, count)| count)
        .sum();
    let items: usize = landings
        .iter()
        .filter(|((union, _), _)| union == "ThreadItem")
        .map(|(_, count)| count)
        .sum();
    assert!(item_events > 0, "the corpus has no item events");
    assert_eq!(items, item_events, "an item event did not dispatch its item");
}

#[test]
fn the_corpus_and_the_examples_exercise_every_branch() {
    let mut schema = schema();
    let mut exercised: BTreeSet<(String, String)> = schema.check_corpus("codex-exec").into_keys().collect();
    let path = agentwire_tests::tests_dir().join("fixtures/codex-exec/examples.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    for (index, line) in text.lines().enumerate() {
        let example: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("examples.jsonl:{}: {e}", index + 1));
        let landings = schema
            .check(&example["line"])
            .unwrap_or_else(|errors| panic!("{}: {}", example["why"], errors.join("; ")));
        exercised.extend(landings.into_iter().map(|l| (l.union, l.tag)));
    }
    for union in ["ThreadEvent", "ThreadItem"] {
        let unexercised: Vec<String> = schema
            .tags(union)
            .into_iter()
            .filter(|tag| !exercised.contains(&(union.to_owned(), tag.clone())))
            .collect();
        assert!(
            unexercised.is_empty(),
            "neither the corpus nor the examples reach {union} {unexercised:?}"
        );
    }
}

/// A valid line of each kind the negative cases start from.
fn command_completed() -> Value {
    json!({"type": "item.completed", "item": {"id": "item_0", "type": "command_execution", "command": "ls",
        "aggregated_output": "", "exit_code": 0, "status": "completed"}})
}

fn turn_completed() -> Value {
    json!({"type": "turn.completed", "usage": {"input_tokens": 1, "cached_input_tokens": 0,
        "cache_write_input_tokens": 0, "output_tokens": 1, "reasoning_output_tokens": 0}})
}

#[test]
fn lines_that_break_the_sdk_types_are_rejected() {
    let mut schema = schema();
    assert!(schema.check(&command_completed()).is_ok());
    assert!(schema.check(&turn_completed()).is_ok());
    let mut cases: Vec<(&str, Value)> = vec![
        ("unknown event type", json!({"type": "turn.paused"})),
        ("no type", json!({"thread_id": "t"})),
        ("thread.started without thread_id", json!({"type": "thread.started"})),
        ("turn.failed without error", json!({"type": "turn.failed"})),
        ("error without message", json!({"type": "error"})),
        ("item.updated without item", json!({"type": "item.updated"})),
    ];
    let mut usage_missing = turn_completed();
    usage_missing["usage"].as_object_mut().unwrap().remove("output_tokens");
    cases.push(("usage without output_tokens", usage_missing));
    let mut usage_text = turn_completed();
    usage_text["usage"]["input_tokens"] = json!("1");
    cases.push(("usage count as a string", usage_text));
    let mut unknown_item = command_completed();
    unknown_item["item"]["type"] = json!("image_view");
    cases.push(("unknown item type", unknown_item));
    let mut bad_status = command_completed();
    bad_status["item"]["status"] = json!("running");
    cases.push(("command status outside the enum", bad_status));
    let mut no_output = command_completed();
    no_output["item"].as_object_mut().unwrap().remove("aggregated_output");
    cases.push(("command without aggregated_output", no_output));
    let mut no_id = command_completed();
    no_id["item"].as_object_mut().unwrap().remove("id");
    cases.push(("item without id", no_id));
    cases.push((
        "todo entry without completed",
        json!({"type": "item.started", "item": {"id": "item_0", "type": "todo_list", "items": [{"text": "a"}]}}),
    ));
    cases.push((
        "file change kind outside the enum",
        json!({"type": "item.completed", "item": {"id": "item_0", "type": "file_change",
            "changes": [{"path": "/a", "kind": "rename"}], "status": "completed"}}),
    ));
    for (why, line) in cases {
        assert!(schema.rejects(&line), "accepted a line with {why}: {line}");
    }
}

#[test]
fn unknown_fields_are_tolerated() {
    let mut schema = schema();
    let mut line = command_completed();
    line["item"]["cwd"] = json!("/home/dev/project");
    line["extra"] = json!({"any": 1});
    assert!(schema.check(&line).is_ok(), "objects must stay open");
}
