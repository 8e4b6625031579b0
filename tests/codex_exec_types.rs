//! The generated `codex exec --json` types (`agentwire-codex-exec`) against the real corpus:
//!
//! - every line of every trace in `tests/corpus/codex-exec/` decodes into the `ThreadEvent`
//!   variant its `type` names and, for `item.*`, the `ThreadItem` variant its `item.type` names
//!   (what `agentwire conform --from codex-exec` checks, through the same conformer);
//! - re-encoding each typed line gives back the original JSON: no key is lost; the only keys that
//!   come back different are the `null`s of [`NULL_DROPPED`], each with why;
//! - a `type` the pinned schema does not declare, on the line or on its item, is `Undeclared`.
//!
//! Run with `--nocapture` to see the counts.

use std::collections::{BTreeMap, BTreeSet};

use agentwire::frame::{Frame, LineFormat};
use agentwire::normalizer::ProblemKind;
use agentwire::source::Source;
use agentwire_codex_exec::{SerdeJson, ThreadEvent, ThreadItem};
use serde_json::{Value, json};

/// Keys codex prints as `null` that the typed value leaves out on re-encoding (optional in the
/// SDK's types, absent and `null` mean the same): (item type, key).
const NULL_DROPPED: &[(&str, &str, &str)] = &[
    (
        "command_execution",
        "exit_code",
        "`null` while the command runs; optional in the SDK",
    ),
    (
        "mcp_tool_call",
        "result",
        "`null` until the call succeeds; optional in the SDK",
    ),
    (
        "mcp_tool_call",
        "error",
        "`null` unless the call fails; optional in the SDK",
    ),
];

struct Line {
    at: String,
    msg: Value,
    text: String,
}

fn corpus() -> Vec<Line> {
    let traces = agentwire_tests::traces(Source::CODEX_EXEC);
    assert!(!traces.is_empty(), "no codex-exec traces");
    let mut lines = Vec::new();
    for path in traces {
        let text = std::fs::read_to_string(&path).expect("readable trace");
        for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            lines.push(Line {
                at: format!("codex-exec/{}:{}", agentwire_tests::trace_name(&path), index + 1),
                msg: serde_json::from_str(line).expect("JSON"),
                text: line.to_string(),
            });
        }
    }
    lines
}

fn item_of(event: &ThreadEvent) -> Option<&ThreadItem> {
    match event {
        ThreadEvent::ItemStarted(e) => Some(&e.item),
        ThreadEvent::ItemUpdated(e) => Some(&e.item),
        ThreadEvent::ItemCompleted(e) => Some(&e.item),
        ThreadEvent::ThreadStarted(_)
        | ThreadEvent::TurnStarted
        | ThreadEvent::TurnCompleted(_)
        | ThreadEvent::TurnFailed(_)
        | ThreadEvent::Error(_) => None,
    }
}

#[test]
fn every_corpus_line_decodes_into_the_variant_its_type_names() {
    let mut conformer = Source::CODEX_EXEC.conformer();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let corpus = corpus();
    for line in &corpus {
        let frame = Frame::parse(&line.text, LineFormat::Bare).expect("a bare line");
        if let Err(problem) = conformer.decode(&frame) {
            failures.push(format!("{}: conform: {problem}", line.at));
            continue;
        }
        let event = ThreadEvent::decode(&line.text, &mut SerdeJson).expect("conform decoded it");
        let tag = line.msg["type"].as_str().expect("a type");
        if event.tag() != tag {
            failures.push(format!("{}: type {tag:?} decoded as {:?}", line.at, event.tag()));
        }
        let mut label = tag.to_string();
        match (item_of(&event), line.msg["item"]["type"].as_str()) {
            (Some(item), Some(item_tag)) if item.tag() == item_tag => label = format!("{tag} {item_tag}"),
            (None, None) => {}
            (item, item_tag) => failures.push(format!(
                "{}: item type {item_tag:?} decoded as {:?}",
                line.at,
                item.map(ThreadItem::tag)
            )),
        }
        *counts.entry(label).or_default() += 1;
    }
    println!("{} lines decoded by type:", corpus.len());
    for (label, count) in &counts {
        println!("  {count:4}  {label}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus reaches every event type but `item.updated`, and these item types.
    let seen: BTreeSet<&str> = counts.keys().map(String::as_str).collect();
    for expected in [
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "error",
        "item.started command_execution",
        "item.completed agent_message",
        "item.completed reasoning",
        "item.completed file_change",
        "item.completed mcp_tool_call",
        "item.completed todo_list",
        "item.completed error",
    ] {
        assert!(seen.contains(expected), "the corpus no longer has {expected}: {seen:?}");
    }
}

/// Keys lost re-encoding `original` as `encoded`, as `path (item type)`; `null`s that came back
/// absent go to `null_dropped` as (item type, key).
fn differences(
    original: &Value,
    encoded: &Value,
    path: &str,
    item_type: &str,
    lost: &mut Vec<String>,
    null_dropped: &mut Vec<(String, String)>,
) {
    match (original, encoded) {
        (Value::Object(a), Value::Object(b)) => {
            let item_type = match (path, a.get("type").and_then(Value::as_str)) {
                (".item", Some(tag)) => tag,
                _ => item_type,
            };
            for (key, value) in a {
                let at = format!("{path}.{key}");
                match b.get(key) {
                    Some(other) => differences(value, other, &at, item_type, lost, null_dropped),
                    None if value.is_null() => null_dropped.push((item_type.to_string(), key.clone())),
                    None => lost.push(format!("{at} dropped")),
                }
            }
            lost.extend(
                b.keys()
                    .filter(|key| !a.contains_key(*key))
                    .map(|key| format!("{path}.{key} added")),
            );
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{path}[{index}]"), item_type, lost, null_dropped);
            }
        }
        (a, b) if a == b => {}
        (a, b) => lost.push(format!("{path} changed from {a} to {b}")),
    }
}

#[test]
fn every_corpus_line_round_trips_without_loss() {
    let mut failures = Vec::new();
    let mut dropped: BTreeSet<(String, String)> = BTreeSet::new();
    for line in corpus() {
        let event = ThreadEvent::decode(&line.text, &mut SerdeJson).expect("decodes (see the decode test)");
        let encoded = serde_json::to_value(&event).expect("serializes");
        let (mut lost, mut null_dropped) = (Vec::new(), Vec::new());
        differences(&line.msg, &encoded, "", "", &mut lost, &mut null_dropped);
        failures.extend(lost.into_iter().map(|what| format!("{}: {what}", line.at)));
        dropped.extend(null_dropped);
    }
    assert!(
        failures.is_empty(),
        "values lost re-encoding the typed corpus:\n{}",
        failures.join("\n")
    );
    let listed: BTreeSet<(String, String)> = NULL_DROPPED
        .iter()
        .map(|(item, key, _)| ((*item).to_string(), (*key).to_string()))
        .collect();
    assert_eq!(
        dropped, listed,
        "the `null`s dropped on re-encoding are exactly the listed ones"
    );
}

#[test]
fn the_round_trip_comparison_can_fail() {
    let original = json!({"type": "item.completed", "item": {"type": "x", "a": null, "b": 1, "c": [1]}});
    let (mut lost, mut null_dropped) = (Vec::new(), Vec::new());
    differences(
        &original,
        &json!({"type": "item.completed", "item": {"type": "x", "c": [2], "d": 0}}),
        "",
        "",
        &mut lost,
        &mut null_dropped,
    );
    assert_eq!(null_dropped, [("x".to_string(), "a".to_string())]);
    assert_eq!(
        lost,
        [".item.b dropped", ".item.c[0] changed from 1 to 2", ".item.d added"]
    );
}

#[test]
fn an_undeclared_type_is_undeclared_and_a_bad_payload_undecodable() {
    let mut conformer = Source::CODEX_EXEC.conformer();
    let kind = |conformer: &mut Box<dyn agentwire::normalizer::Conformer>, line: &str| {
        let frame = Frame::parse(line, LineFormat::Bare).expect("JSON");
        conformer.decode(&frame).expect_err("does not decode").kind
    };
    assert_eq!(
        kind(&mut conformer, r#"{"type":"turn.paused"}"#),
        ProblemKind::Undeclared
    );
    assert_eq!(
        kind(
            &mut conformer,
            r#"{"type":"item.started","item":{"id":"item_0","type":"collab_tool_call"}}"#
        ),
        ProblemKind::Undeclared
    );
    assert_eq!(
        kind(
            &mut conformer,
            r#"{"type":"item.started","item":{"id":"item_0","type":"agent_message"}}"#
        ),
        ProblemKind::Undecodable
    );
    assert_eq!(
        kind(&mut conformer, r#"{"type":"turn.completed"}"#),
        ProblemKind::Undecodable
    );
}
