//! The generated Claude types (`agentwire-claude`) against the real corpus: every message of
//! every trace in `tests/corpus/claude/` and `tests/corpus/claude-control/` decodes into the
//! variant its `type` (and `subtype`) names, and re-encoding a message of the pinned SDK (0.2.62)
//! gives back the original JSON with no key lost and none added. The newest SDK's traces (`v0.3.332-*`) carry fields the pinned schema does not
//! declare; the generated types drop them on re-encoding (the normalizer keeps every message
//! whole in `raw`), and the test prints how many distinct paths that is.
//!
//! Run with `--nocapture` to see the counts.

use std::collections::BTreeMap;

use agentwire::claude::stream_json::wire;
use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;
use serde_json::Value;

/// Lines of the corpus that are not provider traffic: the capture driver's record that
/// `query()` threw (`{"_driver_error": ...}`), in these traces.
const HARNESS_LINES: &[&str] = &[
    "sdk_error529",
    "v0.3.332-sdk_error529",
    "v0.3.332-sdk_bash_touch_deny_interrupt",
    "v0.3.332-sdk_interrupt_midstream",
];

/// The name prefix of the newest SDK's traces.
const NEWEST: &str = "v0.3.332-";

/// `(path, key)` differences between an original message and its re-encoding.
fn compare(original: &Value, encoded: &Value, path: &str, lost: &mut Vec<String>, added: &mut Vec<String>) {
    match (original, encoded) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                match b.get(key) {
                    Some(other) => compare(value, other, &format!("{path}.{key}"), lost, added),
                    None if value.is_null() => {}
                    None => lost.push(format!("{path}.{key}")),
                }
            }
            for key in b.keys().filter(|key| !a.contains_key(*key)) {
                added.push(key.clone());
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}[{index}]"), lost, added);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            if a.as_f64() != b.as_f64() {
                lost.push(format!("{path} (number {a} became {b})"));
            }
        }
        (a, b) if a == b => {}
        (a, b) => lost.push(format!("{path} ({a} became {b})")),
    }
}

#[test]
fn every_corpus_message_decodes_and_round_trips_without_loss() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let (mut lost, mut added, mut harness) = (Vec::new(), Vec::new(), 0);
    let mut newest_undeclared = std::collections::BTreeSet::new();
    for source in [Source::CLAUDE, Source::CLAUDE_CONTROL] {
        let traces = agentwire_tests::traces(source);
        assert!(!traces.is_empty(), "{source}: traces");
        for path in traces {
            let name = agentwire_tests::trace_name(&path);
            let text = std::fs::read_to_string(&path).expect("a readable trace");
            let format = LineFormat::of(text.lines().next().expect("a line"));
            for (index, line) in text.lines().enumerate() {
                let place = format!("{source}/{name}:{}", index + 1);
                let frame = Frame::parse(line, format).unwrap_or_else(|err| panic!("{place}: {err}"));
                let original: Value = serde_json::from_str(frame.msg.get()).expect("JSON");
                if original.get("_driver_error").is_some() {
                    assert!(
                        HARNESS_LINES.contains(&name.as_str()),
                        "{place}: unexpected harness line"
                    );
                    harness += 1;
                    continue;
                }
                let decoded = wire::decode(&frame).unwrap_or_else(|err| panic!("{place}: {err}"));
                assert_eq!(
                    Some(decoded.tag()),
                    original["type"].as_str(),
                    "{place}: the variant its tag names"
                );
                let sub = match decoded.tag() {
                    "control_request" => original["request"]["subtype"].as_str(),
                    "control_response" => original["response"]["subtype"].as_str(),
                    _ => original["subtype"].as_str(),
                };
                *counts
                    .entry(format!(
                        "{}{}",
                        decoded.tag(),
                        sub.map(|s| format!("/{s}")).unwrap_or_default()
                    ))
                    .or_default() += 1;
                let encoded = serde_json::to_value(&decoded).expect("re-encodes");
                let (mut line_lost, mut line_added) = (Vec::new(), Vec::new());
                compare(&original, &encoded, "", &mut line_lost, &mut line_added);
                if name.starts_with(NEWEST) {
                    newest_undeclared.extend(line_lost);
                } else {
                    lost.extend(line_lost.into_iter().map(|key| format!("{place}: {key}")));
                }
                added.extend(line_added.into_iter().map(|key| (place.clone(), key)));
            }
        }
    }
    println!("messages per type: {counts:#?}");
    assert_eq!(harness, HARNESS_LINES.len(), "each harness line is seen once");
    let lost_list = lost.iter().take(20).cloned().collect::<Vec<_>>().join("\n");
    assert!(
        lost.is_empty(),
        "{} keys lost on re-encoding, e.g.:\n{lost_list}",
        lost.len()
    );
    // No schema default is written back where the message had none.
    assert!(added.is_empty(), "re-encoding added keys: {added:?}");
    println!(
        "fields of the newest SDK the pinned schema does not declare (dropped by the types): {}",
        newest_undeclared.len()
    );
}
