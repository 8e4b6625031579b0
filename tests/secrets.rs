//! Credentials never reach the event log: secrets planted in every message of every source's
//! corpus (as keys, and as `Authorization`/bearer/`sk-` text inside strings the mapping copies)
//! are found nowhere in the normalized output, while `keep_secrets` lets them through (so the
//! planting reaches the output and the test can fail).

use agentwire::frame::LineFormat;
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_tests::{trace_name, traces};
use serde_json::{Value, json};

const MARKER: &str = "PLANTEDSECRET";

/// The text secret appended to strings the mapping is likely to copy into payloads.
fn text_secret() -> String {
    format!(" curl -H 'Authorization: Bearer {MARKER}1' -H 'x-api-key: {MARKER}2' OPENAI_API_KEY=sk-{MARKER}0123456789")
}

fn plant_in_object(object: &mut serde_json::Map<String, Value>) {
    object.insert("accessToken".into(), json!(format!("{MARKER}3")));
    object.insert("headers".into(), json!({ "Authorization": format!("Basic {MARKER}4") }));
}

/// Plants secrets in a message: keys beside its own and its payload's, text in copied strings.
fn plant(message: &mut Value) {
    fn strings(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match item {
                        Value::String(text)
                            if matches!(
                                key.as_str(),
                                "delta" | "text" | "command" | "aggregatedOutput" | "message" | "output" | "result"
                            ) =>
                        {
                            text.push_str(&text_secret());
                        }
                        other => strings(other),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strings),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    strings(message);
    if let Value::Object(map) = message {
        for key in ["params", "result", "payload"] {
            if let Some(Value::Object(inner)) = map.get_mut(key) {
                plant_in_object(inner);
            }
        }
        plant_in_object(map);
    }
}

fn planted_trace(text: &str) -> String {
    let transcript = LineFormat::of(text.lines().next().unwrap_or_default()) == LineFormat::Transcript;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).expect("corpus lines are JSON");
            if transcript {
                plant(&mut record["msg"]);
            } else {
                plant(&mut record);
            }
            record.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn normalize(source: Source, text: &str, keep_secrets: bool) -> String {
    let format = LineFormat::of(text.lines().next().unwrap_or_default());
    let mut normalizer = source.normalizer(Options {
        keep_secrets,
        ..Options::default()
    });
    let mut events = Vec::new();
    for line in text.lines() {
        let _ = normalizer.push_line(line, format, &mut events);
    }
    normalizer.finish(&mut events);
    events
        .iter()
        .map(|event| serde_json::to_string(event).expect("events serialize"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn planted_secrets_never_reach_the_output() {
    let (mut checked, mut texts_kept) = (0, 0);
    for &source in Source::ALL {
        let traces = traces(source);
        assert!(!traces.is_empty(), "{source}: a corpus to plant secrets in");
        let (mut source_kept, source_traces) = (0, traces.len());
        for trace in traces {
            let text = planted_trace(&std::fs::read_to_string(&trace).expect("a trace"));
            let redacted = normalize(source, &text, false);
            if let Some(at) = redacted.find(MARKER) {
                let start = redacted[..at].rfind('\n').map_or(0, |newline| newline + 1);
                let end = redacted[at..].find('\n').map_or(redacted.len(), |newline| at + newline);
                panic!(
                    "{source} {}: a planted secret leaked: {}",
                    trace_name(&trace),
                    &redacted[start..end]
                );
            }
            let kept = normalize(source, &text, true);
            assert!(
                kept.contains(&format!("{MARKER}3")),
                "{source} {}: with keep_secrets the planted keys reach the output",
                trace_name(&trace)
            );
            // Not every trace has a string the planting reaches; across the corpus many do.
            source_kept += usize::from(kept.contains(&format!("Bearer {MARKER}1")));
            checked += 1;
        }
        // Every source copies some provider text into its output, so every source is tested
        // for text secrets, not only keys.
        assert!(
            source_kept > 0,
            "{source}: with keep_secrets, text secrets reach the output of some trace (of {source_traces})"
        );
        texts_kept += source_kept;
    }
    assert!(checked >= 26, "every trace of every source was planted ({checked})");
    assert!(
        texts_kept * 2 >= checked,
        "with keep_secrets, text secrets reach the output of most traces ({texts_kept} of {checked})"
    );
}
