//! The generated rollout types (`agentwire-codex-rollout`) against the real corpus: every line
//! of every rollout file decodes into the variant its tags name (the line's `type`, and the
//! `type` of an `event_msg` or `response_item` payload and of an item inside it), and re-encoding
//! the typed line loses no key that carried a value.

use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;
use agentwire_codex_rollout::{EventMsg, ResponseItem, RolloutLine};
use serde_json::Value;

/// Every key path of `original` holding a non-null value that `encoded` lacks or changes.
fn losses(original: &Value, encoded: &Value, path: &str, out: &mut Vec<String>) {
    match (original, encoded) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = format!("{path}.{key}");
                match b.get(key) {
                    Some(other) => losses(value, other, &here, out),
                    None if value.is_null() => {}
                    None => out.push(format!("{here}: lost")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                losses(x, y, &format!("{path}[{index}]"), out);
            }
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{path}: {a} came back as {b}")),
    }
}

#[test]
fn every_corpus_line_decodes_into_its_variant_without_loss() {
    let conformer_source = Source::CODEX_ROLLOUT;
    let mut lines = 0;
    let mut failures = Vec::new();
    for trace in agentwire_tests::traces(conformer_source) {
        let text = std::fs::read_to_string(&trace).expect("readable trace");
        let mut conformer = conformer_source.conformer();
        for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            lines += 1;
            let at = format!("{}:{}", trace.display(), index + 1);
            let frame = Frame::parse(line, LineFormat::Bare).expect("JSON");
            if let Err(problem) = conformer.decode(&frame) {
                failures.push(format!("{at}: conform: {problem}"));
                continue;
            }
            let original: Value = serde_json::from_str(line).expect("JSON");
            let typed: RolloutLine = serde_json::from_str(line).expect("decoded above");
            assert_eq!(typed.tag(), original["type"], "{at}: line kind");
            let inner = &original["payload"]["type"];
            match &typed {
                RolloutLine::EventMsg(event) => {
                    assert_eq!(EventMsg::tag(&event.payload), inner, "{at}: EventMsg variant");
                }
                RolloutLine::ResponseItem(item) => {
                    assert_eq!(ResponseItem::tag(&item.payload), inner, "{at}: response item variant");
                }
                RolloutLine::SessionMeta(_)
                | RolloutLine::Compacted(_)
                | RolloutLine::TurnContext(_)
                | RolloutLine::WorldState(_)
                | RolloutLine::TokenUsageRecord(_)
                | RolloutLine::RetainedContext(_) => {}
            }
            let encoded = serde_json::to_value(&typed).expect("encodes");
            let mut lost = Vec::new();
            losses(&original, &encoded, "", &mut lost);
            failures.extend(lost.into_iter().map(|loss| format!("{at}: {loss}")));
        }
    }
    assert!(lines > 1000, "the rollout corpus has {lines} lines");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_loss_check_can_fail() {
    let mut lost = Vec::new();
    losses(
        &serde_json::json!({"a": 1, "b": {"c": "x", "d": null}}),
        &serde_json::json!({"a": 1, "b": {}}),
        "",
        &mut lost,
    );
    assert_eq!(lost, vec![".b.c: lost".to_string()]);
}

#[test]
fn a_nested_undeclared_type_is_undeclared_and_a_bad_nested_payload_undecodable() {
    let kind = |line: &str| {
        let frame = Frame::parse(line, LineFormat::Bare).expect("JSON");
        Source::CODEX_ROLLOUT
            .conformer()
            .decode(&frame)
            .expect_err("does not decode")
            .kind
    };
    let at = r#""timestamp":"2026-11-30T05:25:05.102Z""#;
    assert_eq!(
        kind(&format!(
            r#"{{{at},"type":"response_item","payload":{{"type":"hologram_call"}}}}"#
        )),
        agentwire::normalizer::ProblemKind::Undeclared
    );
    assert_eq!(
        kind(&format!(
            r#"{{{at},"type":"response_item","payload":{{"type":"function_call"}}}}"#
        )),
        agentwire::normalizer::ProblemKind::Undecodable
    );
}

#[test]
fn an_undeclared_event_msg_is_named() {
    let line = r#"{"timestamp":"2026-11-30T05:25:05.102Z","type":"event_msg","payload":{"type":"brand_new_event"}}"#;
    let frame = Frame::parse(line, LineFormat::Bare).expect("JSON");
    let problem = Source::CODEX_ROLLOUT
        .conformer()
        .decode(&frame)
        .expect_err("undeclared");
    assert_eq!(
        problem.kind,
        agentwire::normalizer::ProblemKind::Undeclared,
        "{problem}"
    );
    assert!(problem.message.contains("brand_new_event"), "{problem}");
}
