//! The Codex app-server normalizer over the whole corpus: golden outputs and the invariants of
//! spec sections 1.6 and 8.
//!
//! Goldens live in `tests/golden/codex-app-server/<trace>.jsonl`, exactly what
//! `agentwire normalize tests/corpus/codex-app-server/<trace>.jsonl` prints. After a deliberate
//! mapping change, regenerate them with `AGENTWIRE_BLESS=1 cargo test -p agentwire-tests --test
//! codex_app_server_normalize` and review the diff like code.

use std::collections::BTreeSet;
use std::path::Path;

use agentwire_canonical::{CanonicalRuntimeEventType as T, ProviderRuntimeEvent, RuntimeEvent};
use agentwire_tests::{Normalized, codex_app_server_traces, normalize_codex_app_server, tests_dir, workspace_root};
use serde_json::Value;
use serde_json::value::RawValue;

fn name(path: &Path) -> String {
    path.file_stem().expect("a file name").to_string_lossy().into_owned()
}

#[test]
fn goldens_match() {
    let bless = std::env::var_os("AGENTWIRE_BLESS").is_some();
    let golden_dir = tests_dir().join("golden/codex-app-server");
    let mut failures = Vec::new();
    let traces = codex_app_server_traces();
    assert!(
        traces.len() >= 26,
        "the corpus has {} codex app-server traces",
        traces.len()
    );
    for trace in &traces {
        let actual = normalize_codex_app_server(trace).jsonl;
        let golden = golden_dir.join(format!("{}.jsonl", name(trace)));
        if bless {
            std::fs::create_dir_all(&golden_dir).expect("create the golden folder");
            std::fs::write(&golden, &actual).expect("write a golden");
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != actual {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(e, a)| e != a)
                .map_or_else(
                    || {
                        format!(
                            "line counts differ: golden {}, now {}",
                            expected.lines().count(),
                            actual.lines().count()
                        )
                    },
                    |index| format!("first difference at line {}", index + 1),
                );
            failures.push(format!("{}: {line}", golden.display()));
        }
    }
    let orphans: Vec<String> = std::fs::read_dir(&golden_dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| !traces.iter().any(|trace| name(trace) == name(path)))
                .map(|path| path.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert!(orphans.is_empty(), "goldens without a trace: {orphans:?}");
    assert!(
        failures.is_empty(),
        "normalized output differs from the goldens:\n{}\nIf the change is deliberate: AGENTWIRE_BLESS=1 cargo test -p agentwire-tests --test codex_app_server_normalize, then review the diff",
        failures.join("\n")
    );
}

/// The records of a trace: (1-based line, dir, the raw `msg`).
fn records(trace: &Path) -> Vec<(usize, String, String)> {
    #[derive(serde::Deserialize)]
    struct Record<'a> {
        dir: String,
        #[serde(borrow)]
        msg: &'a RawValue,
    }
    let text = std::fs::read_to_string(trace).expect("readable trace");
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            let record: Record<'_> = serde_json::from_str(line).expect("corpus lines are records");
            (index + 1, record.dir, record.msg.get().to_string())
        })
        .collect()
}

#[test]
fn every_provider_frame_yields_an_event_carrying_it() {
    for trace in codex_app_server_traces() {
        let Normalized { events, lines, .. } = normalize_codex_app_server(&trace);
        for (line, dir, msg) in records(&trace) {
            if dir != "in" {
                continue;
            }
            let carried = events.iter().zip(&lines).any(|(event, from)| {
                *from == Some(line) && event.raw.as_ref().is_some_and(|raw| raw.payload.get() == msg)
            });
            assert!(
                carried,
                "{}:{line}: no event carries this frame as raw.payload",
                trace.display()
            );
        }
    }
}

#[test]
fn every_event_validates_against_the_canonical_schema() {
    let schema_path = workspace_root().join("schemas/canonical/provider-runtime.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&schema_path).expect("the schema")).expect("JSON");
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("compiles");
    for trace in codex_app_server_traces() {
        let normalized = normalize_codex_app_server(&trace);
        for (index, line) in normalized.jsonl.lines().enumerate() {
            let event: Value = serde_json::from_str(line).expect("JSON");
            let errors: Vec<String> = validator
                .iter_errors(&event)
                .map(|e| format!("{}: {e}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{} event {}: {errors:?}", trace.display(), index + 1);
        }
    }
}

#[test]
fn every_request_opened_is_resolved_and_every_turn_ends() {
    for trace in codex_app_server_traces() {
        let events = normalize_codex_app_server(&trace).events;
        let mut open_requests = BTreeSet::new();
        let mut open_turns = BTreeSet::new();
        for (index, event) in events.iter().enumerate() {
            let at = || format!("{} event {}", trace.display(), index + 1);
            match event.event.event_type() {
                T::RequestOpened => {
                    let id = event
                        .request_id
                        .clone()
                        .unwrap_or_else(|| panic!("{}: request.opened without requestId", at()));
                    assert!(open_requests.insert(id), "{}: request opened twice", at());
                }
                T::RequestResolved => {
                    let id = event
                        .request_id
                        .clone()
                        .unwrap_or_else(|| panic!("{}: request.resolved without requestId", at()));
                    assert!(
                        open_requests.remove(&id),
                        "{}: request.resolved for a request never opened",
                        at()
                    );
                }
                T::TurnStarted => {
                    let id = event
                        .turn_id
                        .clone()
                        .unwrap_or_else(|| panic!("{}: turn.started without turnId", at()));
                    assert!(open_turns.insert(id), "{}: turn started twice", at());
                }
                T::TurnCompleted | T::TurnAborted => {
                    let id = event
                        .turn_id
                        .clone()
                        .unwrap_or_else(|| panic!("{}: terminal turn event without turnId", at()));
                    assert!(open_turns.remove(&id), "{}: a turn ended that never started", at());
                }
                _ => {}
            }
        }
        assert!(
            open_requests.is_empty(),
            "{}: requests left open after finish(): {open_requests:?}",
            trace.display()
        );
        assert!(
            open_turns.is_empty(),
            "{}: turns left open after finish(): {open_turns:?}",
            trace.display()
        );
    }
}

/// Every string anywhere in a JSON value.
fn strings(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => {
            into.insert(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| strings(item, into)),
        Value::Object(map) => map.iter().for_each(|(key, item)| {
            into.insert(key.clone());
            strings(item, into);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn canonical_ids(event: &ProviderRuntimeEvent) -> Vec<String> {
    let mut ids = vec![event.event_id.to_string(), event.session_id.to_string()];
    ids.extend(event.thread_id.as_ref().map(ToString::to_string));
    ids.extend(event.turn_id.as_ref().map(ToString::to_string));
    ids.extend(event.item_id.as_ref().map(ToString::to_string));
    ids.extend(event.request_id.as_ref().map(ToString::to_string));
    if let RuntimeEvent::TaskStarted(p) = &event.event {
        ids.push(p.task_id.to_string());
    }
    ids
}

#[test]
fn no_canonical_id_is_a_provider_id() {
    for trace in codex_app_server_traces() {
        let mut provider_strings = BTreeSet::new();
        for (_, _, msg) in records(&trace) {
            strings(&serde_json::from_str(&msg).expect("JSON"), &mut provider_strings);
        }
        let events = normalize_codex_app_server(&trace).events;
        let mut seen_event_ids = BTreeSet::new();
        for (index, event) in events.iter().enumerate() {
            for id in canonical_ids(event) {
                assert!(
                    !provider_strings.contains(&id),
                    "{} event {}: canonical id {id} appears in the provider's messages",
                    trace.display(),
                    index + 1
                );
            }
            assert!(
                seen_event_ids.insert(event.event_id.clone()),
                "{} event {}: eventId repeats",
                trace.display(),
                index + 1
            );
            if let Some(refs) = &event.provider_refs {
                let provider = [
                    refs.provider_thread_id.as_ref().map(ToString::to_string),
                    refs.provider_turn_id.as_ref().map(ToString::to_string),
                    refs.provider_item_id.as_ref().map(ToString::to_string),
                ];
                for id in provider.into_iter().flatten() {
                    assert!(
                        provider_strings.contains(&id),
                        "{} event {}: providerRefs id {id} is not the provider's",
                        trace.display(),
                        index + 1
                    );
                }
            }
        }
    }
}

#[test]
fn two_runs_give_identical_bytes() {
    for trace in codex_app_server_traces() {
        assert_eq!(
            normalize_codex_app_server(&trace).jsonl,
            normalize_codex_app_server(&trace).jsonl,
            "{}",
            trace.display()
        );
    }
}

#[test]
fn a_resumed_thread_keeps_its_canonical_id() {
    // The same provider thread seen on two connections (two sessions) gets one canonical id.
    let trace = tests_dir().join("corpus/codex-app-server/text.jsonl");
    let first = normalize_codex_app_server(&trace).events;
    let thread_of = |events: &[ProviderRuntimeEvent]| {
        events
            .iter()
            .find(|e| e.event.event_type() == T::ThreadStarted)
            .and_then(|e| e.thread_id.clone())
    };
    let text = std::fs::read_to_string(&trace).expect("trace");
    let other = std::env::temp_dir().join(format!("agentwire-resume-{}.jsonl", std::process::id()));
    // A different first line gives a different session; the thread is the same provider thread.
    std::fs::write(
        &other,
        format!("{{\"dir\":\"out\",\"ts\":1,\"msg\":{{\"method\":\"initialized\"}}}}\n{text}"),
    )
    .expect("temp file");
    let second = normalize_codex_app_server(&other).events;
    std::fs::remove_file(&other).ok();
    assert_ne!(
        first[0].session_id, second[0].session_id,
        "two connections are two sessions"
    );
    assert_eq!(
        thread_of(&first),
        thread_of(&second),
        "the thread keeps its canonical id"
    );
    assert!(thread_of(&first).is_some());
}

#[test]
fn a_different_provider_version_is_reported_once() {
    let text = std::fs::read_to_string(tests_dir().join("corpus/codex-app-server/multi_turn.jsonl")).expect("trace");
    assert!(
        text.matches("0.171.0").count() >= 3,
        "the user agent and every thread carry the version"
    );
    let other = std::env::temp_dir().join(format!("agentwire-version-{}.jsonl", std::process::id()));
    std::fs::write(&other, text.replace("0.171.0", "0.999.0")).expect("temp file");
    let events = normalize_codex_app_server(&other).events;
    std::fs::remove_file(&other).ok();
    let reports: Vec<&ProviderRuntimeEvent> = events
        .iter()
        .filter(|e| matches!(&e.event, RuntimeEvent::RuntimeWarning(w) if w.message.contains("version 0.999.0")))
        .collect();
    assert_eq!(reports.len(), 1, "reported once per connection");
    let pinned = normalize_codex_app_server(&tests_dir().join("corpus/codex-app-server/multi_turn.jsonl")).events;
    assert!(
        !pinned
            .iter()
            .any(|e| matches!(&e.event, RuntimeEvent::RuntimeWarning(w) if w.message.contains("version")))
    );
}
