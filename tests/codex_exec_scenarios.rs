//! Scenario assertions: what each `codex exec --json` trace of the corpus must become, asserted
//! on the typed canonical events. Expected values are read from the trace (the item's own
//! status, the to-do steps, the error message, the usage), so a test checks that the normalizer
//! carries what codex said, not a copy of today's output.
//!
//! Also here: what only exec has (turns keyed by position, a stream with no time, items outside
//! a turn) and format detection against every other source's corpus, both ways.

use agentwire::frame::{Frame, LineFormat};
use agentwire::ids;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRuntimeEventType as T, ItemStatus, PlanStepStatus, RuntimeErrorClass,
    RuntimeEventRawSource, SessionState, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{normalize_text, payload, traces};
use serde_json::Value;

const EXEC: Source = Source::CODEX_EXEC;

fn load(name: &str) -> Scenario {
    Scenario::load(EXEC, name)
}

/// The input lines whose `type` is `tag` (and, given, whose `item.type` is `item_type`).
fn lines_of(sc: &Scenario, tag: &str, item_type: Option<&str>) -> Vec<usize> {
    sc.provider_lines_where(|msg| msg["type"] == tag && item_type.is_none_or(|item| msg["item"]["type"] == item))
}

/// The one event of `kind` line `line` produced, checked to carry that line as its raw
/// `codex.sdk.thread-event` payload with `raw.method` the line's type.
fn event_of(sc: &Scenario, line: usize, kind: T) -> usize {
    let index = sc.one_event_of_line(line, kind);
    assert_eq!(
        sc.raw_source(index),
        Some(RuntimeEventRawSource::CodexSdkThreadEvent),
        "{}",
        sc.at(index)
    );
    assert_eq!(sc.raw_payload(index), *sc.msg(line), "{}: raw.payload", sc.at(index));
    assert_eq!(
        sc.raw_method(index),
        sc.msg(line)["type"].as_str(),
        "{}: raw.method",
        sc.at(index)
    );
    index
}

/// Every item line of a trace maps to the item event of its phase, with the canonical type
/// section 6 gives its item type, and the item's own status where it has one.
fn assert_items(sc: &Scenario) {
    for (tag, kind) in [
        ("item.started", T::ItemStarted),
        ("item.updated", T::ItemUpdated),
        ("item.completed", T::ItemCompleted),
    ] {
        for line in lines_of(sc, tag, None) {
            let index = event_of(sc, line, kind);
            let item = &sc.msg(line)["item"];
            let expected_type = match item["type"].as_str().expect("an item type") {
                "agent_message" => CanonicalItemType::AssistantMessage,
                "reasoning" => CanonicalItemType::Reasoning,
                "command_execution" => CanonicalItemType::CommandExecution,
                "file_change" => CanonicalItemType::FileChange,
                "mcp_tool_call" => CanonicalItemType::McpToolCall,
                "web_search" => CanonicalItemType::WebSearch,
                "todo_list" => CanonicalItemType::Plan,
                "error" => CanonicalItemType::Error,
                other => panic!("{}: item type {other} not in the SDK", sc.at(index)),
            };
            assert_eq!(sc.item_type(index), Some(expected_type), "{}", sc.at(index));
            let refs = sc.event(index).provider_refs.as_ref().expect("providerRefs");
            assert_eq!(
                refs.provider_item_id.as_ref().map(|id| id.as_str()),
                item["id"].as_str(),
                "{}: providerItemId",
                sc.at(index)
            );
            assert_ne!(
                sc.item_id(index).as_str(),
                item["id"].as_str().unwrap(),
                "{}: a canonical id",
                sc.at(index)
            );
            let lifecycle = match &sc.event(index).event {
                agentwire_canonical::RuntimeEvent::ItemStarted(p)
                | agentwire_canonical::RuntimeEvent::ItemUpdated(p)
                | agentwire_canonical::RuntimeEvent::ItemCompleted(p) => p,
                _ => unreachable!("an item event"),
            };
            let expected_status = match (item["status"].as_str(), kind) {
                (Some("in_progress"), _) => ItemStatus::InProgress,
                (Some("completed"), _) => ItemStatus::Completed,
                (Some("failed"), _) => ItemStatus::Failed,
                (Some("declined"), _) => ItemStatus::Declined,
                (None, T::ItemCompleted) => ItemStatus::Completed,
                (None, _) => ItemStatus::InProgress,
                (Some(other), _) => panic!("{}: status {other}", sc.at(index)),
            };
            assert_eq!(lifecycle.status, Some(expected_status), "{}: status", sc.at(index));
        }
    }
    sc.assert_no_item_left_open();
}

/// A single successful turn: `turn.started` running, `turn.completed(completed)` with the usage
/// codex reported, `ready` after it, `stopped` at the end.
fn assert_completed_turn(sc: &Scenario) {
    let (started, completed) = sc.single_turn();
    let started_line = lines_of(sc, "turn.started", None)[0];
    assert_eq!(event_of(sc, started_line, T::TurnStarted), started);
    let completed_line = lines_of(sc, "turn.completed", None)[0];
    assert_eq!(event_of(sc, completed_line, T::TurnCompleted), completed);
    assert_eq!(sc.turn_state(completed), TurnState::Completed);
    // Codex's counts as sent: its input holds the cached tokens, its output the reasoning.
    let usage = payload!(sc.event(completed), TurnCompleted).and_then(|p| p.usage.clone());
    let usage = usage.unwrap_or_else(|| panic!("{}: usage", sc.at(completed)));
    let sent = &sc.msg(completed_line)["usage"];
    let figures = [
        (usage.input_tokens, "input_tokens"),
        (usage.cached_input_tokens, "cached_input_tokens"),
        (usage.cache_write_tokens, "cache_write_input_tokens"),
        (usage.output_tokens, "output_tokens"),
        (usage.reasoning_tokens, "reasoning_output_tokens"),
    ];
    for (figure, name) in figures {
        assert_eq!(figure, sent[name].as_i64(), "{}: usage {name}", sc.at(completed));
    }
    assert_eq!(usage.scope, agentwire_canonical::UsageScope::Turn);
    assert!(
        sc.indices_of(T::RuntimeError).is_empty(),
        "trace `{}`: no runtime.error",
        sc.label()
    );
    assert_states(sc, &[SessionState::Running, SessionState::Ready, SessionState::Stopped]);
    assert_items(sc);
}

fn assert_states(sc: &Scenario, expected: &[SessionState]) {
    let states: Vec<SessionState> = sc
        .indices_of(T::SessionStateChanged)
        .into_iter()
        .map(|i| payload!(sc.event(i), SessionStateChanged).unwrap().state)
        .collect();
    assert_eq!(states, expected, "trace `{}`: session states", sc.label());
}

#[test]
fn successful_turns() {
    for name in [
        "text",
        "reasoning",
        "shell",
        "patch",
        "patch_fail",
        "plan",
        "mcp",
        "flaky500",
        "shell_escalate_readonly",
        "shell_readonly_sandbox",
        "text_fallback_model",
        "user_input",
    ] {
        assert_completed_turn(&load(name));
    }
}

#[test]
fn thread_started_opens_the_thread_once_under_a_canonical_id() {
    for sc in Scenario::all(EXEC) {
        let line = lines_of(&sc, "thread.started", None)[0];
        let index = event_of(&sc, line, T::ThreadStarted);
        let provider = sc.msg(line)["thread_id"].as_str().expect("a thread id");
        let started = payload!(sc.event(index), ThreadStarted).unwrap();
        assert_eq!(
            started.provider_thread_id.as_ref().map(|id| id.as_str()),
            Some(provider)
        );
        let thread = ids::thread(EXEC.spec(), provider);
        assert_eq!(sc.event(index).thread_id.as_ref(), Some(&thread));
        // Every Codex source names the same thread alike.
        assert_eq!(thread, ids::thread(Source::CODEX_APP_SERVER.spec(), provider));
        for event in sc.events().iter().filter(|event| event.thread_id.is_some()) {
            assert_eq!(
                event.thread_id.as_ref(),
                Some(&thread),
                "trace `{}`: one thread",
                sc.label()
            );
        }
        assert_eq!(sc.indices_of(T::ThreadStarted).len(), 1);
    }
}

#[test]
fn turns_are_keyed_by_position_and_claim_no_provider_turn_id() {
    for sc in Scenario::all(EXEC) {
        let (started, _) = sc.single_turn();
        let provider_thread = sc.msg(1)["thread_id"].as_str().unwrap();
        assert_eq!(
            *sc.turn_id(started),
            ids::turn_at(EXEC.spec(), &sc.events()[0].session_id, provider_thread, 1),
            "{}: the first turn of the stream",
            sc.at(started)
        );
        for event in sc.events() {
            let claimed = event
                .provider_refs
                .as_ref()
                .and_then(|refs| refs.provider_turn_id.as_ref());
            assert!(
                claimed.is_none(),
                "trace `{}`: exec has no turn ids, yet {claimed:?}",
                sc.label()
            );
        }
    }
    // Two turns in one stream (a resumed thread's next run appended): positions 1 and 2, and the
    // repeated `thread.started` opens no second thread.
    let text = std::fs::read_to_string(agentwire_tests::corpus_dir(EXEC).join("text.jsonl")).unwrap();
    let twice = format!("{text}{text}");
    let events = normalize_text(EXEC, &twice).events;
    let turns: Vec<_> = events
        .iter()
        .filter(|e| e.event.event_type() == T::TurnStarted)
        .collect();
    assert_eq!(turns.len(), 2);
    let thread = serde_json::from_str::<Value>(text.lines().next().unwrap()).unwrap()["thread_id"].clone();
    let session = &events[0].session_id;
    assert_eq!(
        turns[0].turn_id,
        Some(ids::turn_at(EXEC.spec(), session, thread.as_str().unwrap(), 1))
    );
    assert_eq!(
        turns[1].turn_id,
        Some(ids::turn_at(EXEC.spec(), session, thread.as_str().unwrap(), 2))
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e.event.event_type() == T::ThreadStarted)
            .count(),
        1
    );
}

#[test]
fn a_stream_without_times_is_not_held() {
    // Each line's events come out with that line (nothing waits for a time that never comes),
    // all stamped alike.
    for sc in Scenario::all(EXEC) {
        for line in sc.provider_lines_where(|_| true) {
            assert!(
                !sc.events_of_line(line).is_empty(),
                "trace `{}`, line {line}: no event of its own",
                sc.label()
            );
        }
        let stamps: std::collections::BTreeSet<&str> = sc.events().iter().map(|e| e.created_at.as_str()).collect();
        assert_eq!(stamps.len(), 1, "trace `{}`: {stamps:?}", sc.label());
    }
}

#[test]
fn failed_turns_report_one_runtime_error_and_end_failed() {
    for name in ["error500", "failed"] {
        let sc = load(name);
        let (_, completed) = sc.single_turn();
        let error_line = lines_of(&sc, "error", None)[0];
        let failed_line = lines_of(&sc, "turn.failed", None)[0];
        let message = sc.msg(failed_line)["error"]["message"].as_str().unwrap();
        // Section 6: `error` -> runtime.error; `turn.failed` -> turn.completed(failed), its
        // runtime.error already given by the `error` codex printed first (one failure, one
        // runtime.error).
        let error = event_of(&sc, error_line, T::RuntimeError);
        let runtime_error = payload!(sc.event(error), RuntimeError).unwrap();
        assert_eq!(runtime_error.message, sc.msg(error_line)["message"].as_str().unwrap());
        assert_eq!(runtime_error.class, Some(RuntimeErrorClass::ProviderError));
        assert_eq!(
            sc.indices_of(T::RuntimeError),
            [error],
            "trace `{}`: one runtime.error",
            sc.label()
        );
        assert_eq!(
            sc.event(error).turn_id,
            sc.event(completed).turn_id,
            "{}: in the turn",
            sc.at(error)
        );
        assert_eq!(event_of(&sc, failed_line, T::TurnCompleted), completed);
        assert_eq!(sc.turn_state(completed), TurnState::Failed);
        let payload = payload!(sc.event(completed), TurnCompleted).unwrap();
        assert_eq!(payload.error_message.as_deref(), Some(message));
        assert_states(&sc, &[SessionState::Running, SessionState::Ready, SessionState::Error]);
    }
    // `turn.failed` alone (no `error` before it) still gives its runtime.error, once.
    let text = std::fs::read_to_string(agentwire_tests::corpus_dir(EXEC).join("failed.jsonl")).unwrap();
    let without_error: String = text
        .lines()
        .filter(|l| !l.starts_with(r#"{"type":"error""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let events = normalize_text(EXEC, &without_error).events;
    let kinds: Vec<T> = events.iter().map(|e| e.event.event_type()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == T::RuntimeError).count(), 1, "{kinds:?}");
    let error = kinds.iter().position(|k| *k == T::RuntimeError).unwrap();
    assert_eq!(kinds[error + 1], T::TurnCompleted);
}

#[test]
fn commands_carry_the_command_as_written_and_their_outcome() {
    for (name, status) in [
        ("shell", ItemStatus::Completed),
        ("shell_readonly_sandbox", ItemStatus::Failed),
    ] {
        let sc = load(name);
        let items = sc.items(CanonicalItemType::CommandExecution);
        assert_eq!(items.len(), 1, "trace `{}`", sc.label());
        let (started, completed) = items[0];
        let done = payload!(sc.event(completed), ItemCompleted).unwrap();
        assert_eq!(done.status, Some(status), "{}", sc.at(completed));
        // The card's title is the command inside codex's `/bin/bash -lc '...'`.
        let command = sc.raw_payload(started)["item"]["command"].as_str().unwrap().to_string();
        let inner = command
            .strip_prefix("/bin/bash -lc '")
            .and_then(|c| c.strip_suffix('\''))
            .unwrap();
        assert_eq!(done.title.as_deref(), Some(inner));
        // Its content: the command as a person reads it, and its output.
        let output = sc.raw_payload(completed)["item"]["aggregated_output"].clone();
        let data = done.data.as_ref().unwrap().to_value();
        assert_eq!(data["command"], inner);
        assert_eq!(data["output"].as_str().unwrap_or_default(), output);
        let exit = sc.raw_payload(completed)["item"]["exit_code"].as_i64().unwrap();
        assert!(
            done.detail
                .as_deref()
                .unwrap()
                .starts_with(&format!("exit code {exit}"))
        );
    }
}

#[test]
fn patches_mcp_calls_and_reasoning_are_their_items() {
    let sc = load("patch");
    let (_, completed) = sc.items(CanonicalItemType::FileChange)[0];
    let done = payload!(sc.event(completed), ItemCompleted).unwrap();
    assert_eq!(done.title.as_deref(), Some("Add hello.txt"));
    assert_eq!(done.detail.as_deref(), Some("add /home/dev/project/hello.txt"));

    let sc = load("mcp");
    let (_, completed) = sc.items(CanonicalItemType::McpToolCall)[0];
    let done = payload!(sc.event(completed), ItemCompleted).unwrap();
    assert_eq!(done.title.as_deref(), Some("Call echo.echo_text"));
    // The tool returned only text: the result is that text.
    assert_eq!(
        done.data.as_ref().unwrap().to_value()["result"],
        sc.raw_payload(completed)["item"]["result"]["content"][0]["text"]
    );

    let sc = load("reasoning");
    let line = lines_of(&sc, "item.completed", Some("reasoning"))[0];
    let index = event_of(&sc, line, T::ItemCompleted);
    let done = payload!(sc.event(index), ItemCompleted).unwrap();
    // Exec's reasoning item is Codex's summary of the reasoning.
    assert_eq!(
        done.data.as_ref().unwrap().to_value()["summary"],
        sc.msg(line)["item"]["text"]
    );
}

#[test]
fn a_todo_list_is_a_plan_item_and_its_steps_the_turn_plan() {
    let sc = load("plan");
    let started_line = lines_of(&sc, "item.started", Some("todo_list"))[0];
    let plan = event_of(&sc, started_line, T::TurnPlanUpdated);
    let steps = &payload!(sc.event(plan), TurnPlanUpdated).unwrap().plan;
    let todos = sc.msg(started_line)["item"]["items"].as_array().unwrap();
    assert_eq!(steps.len(), todos.len());
    for (step, todo) in steps.iter().zip(todos) {
        assert_eq!(step.step, todo["text"].as_str().unwrap());
        let expected = if todo["completed"] == true {
            PlanStepStatus::Completed
        } else {
            PlanStepStatus::Pending
        };
        assert_eq!(step.status, expected);
    }
    let (started, _) = sc.single_turn();
    assert_eq!(
        sc.event(plan).turn_id,
        sc.event(started).turn_id,
        "{}: the turn's plan",
        sc.at(plan)
    );
    // The list completes with the same steps: no second plan.
    assert_eq!(sc.indices_of(T::TurnPlanUpdated), [plan]);
    let items = sc.items(CanonicalItemType::Plan);
    assert_eq!(items.len(), 1);
    // A list that changes on completion reports its new plan.
    let text = std::fs::read_to_string(agentwire_tests::corpus_dir(EXEC).join("plan.jsonl")).unwrap();
    let changed = text.replacen(
        r#""text":"Write the code","completed":false}"#,
        r#""text":"Write the code","completed":true}"#,
        2,
    );
    let changed: Vec<&str> = changed.lines().collect();
    let last_list = changed.iter().rposition(|l| l.contains("todo_list")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[last_list] = changed[last_list].to_string();
    let events = normalize_text(EXEC, &(lines.join("\n") + "\n")).events;
    let plans: Vec<_> = events.iter().filter_map(|e| payload!(e, TurnPlanUpdated)).collect();
    assert_eq!(plans.len(), 2);
    assert_eq!(plans[1].plan[1].status, PlanStepStatus::Completed);
}

#[test]
fn an_item_before_the_turn_belongs_to_the_thread() {
    let sc = load("text_fallback_model");
    let line = lines_of(&sc, "item.completed", Some("error"))[0];
    let index = event_of(&sc, line, T::ItemCompleted);
    let event = sc.event(index);
    assert!(event.turn_id.is_none(), "{}: no turn runs yet", sc.at(index));
    assert!(event.thread_id.is_some() && event.item_id.is_some());
    let done = payload!(event, ItemCompleted).unwrap();
    assert_eq!(done.detail.as_deref(), sc.msg(line)["item"]["message"].as_str());
    assert!(
        sc.indices_of(T::RuntimeError).is_empty(),
        "a configuration warning is no failure"
    );
}

#[test]
fn items_cut_off_keep_their_face() {
    // The stream ends while the command runs: the turn is aborted and the command completes as
    // failed with its title and last data.
    let text = std::fs::read_to_string(agentwire_tests::corpus_dir(EXEC).join("shell.jsonl")).unwrap();
    let cut: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    let events = normalize_text(EXEC, &cut).events;
    let done = events
        .iter()
        .filter_map(|e| payload!(e, ItemCompleted))
        .next()
        .expect("the command is completed");
    assert_eq!(done.item_type, CanonicalItemType::CommandExecution);
    assert_eq!(done.status, Some(ItemStatus::Failed));
    assert_eq!(done.title.as_deref(), Some("echo hello"));
    assert_eq!(done.data.as_ref().unwrap().to_value()["command"], "echo hello");
    assert!(done.detail.as_deref().unwrap().contains("stream ended"));
    assert!(events.iter().any(|e| e.event.event_type() == T::TurnAborted));
    // The turn fails while the command runs: the command fails with the turn, one runtime.error.
    let failed = format!("{cut}{}\n", r#"{"type":"turn.failed","error":{"message":"boom"}}"#);
    let events = normalize_text(EXEC, &failed).events;
    let kinds: Vec<T> = events.iter().map(|e| e.event.event_type()).collect();
    let done = events.iter().filter_map(|e| payload!(e, ItemCompleted)).next().unwrap();
    assert_eq!(done.status, Some(ItemStatus::Failed));
    assert_eq!(done.title.as_deref(), Some("echo hello"));
    assert_eq!(kinds.iter().filter(|k| **k == T::RuntimeError).count(), 1);
}

#[test]
fn undeclared_and_broken_lines_are_warnings_carrying_the_line() {
    let text = std::fs::read_to_string(agentwire_tests::corpus_dir(EXEC).join("text.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(
        2,
        r#"{"type":"item.started","item":{"id":"item_9","type":"collab_tool_call"}}"#,
    );
    let events = normalize_text(EXEC, &(lines.join("\n") + "\n")).events;
    let warning = events
        .iter()
        .find(|e| e.event.event_type() == T::RuntimeWarning)
        .expect("a warning");
    let message = &payload!(warning, RuntimeWarning).unwrap().message;
    assert!(
        message.contains("does not declare") && message.contains("collab_tool_call"),
        "{message}"
    );
    assert_eq!(warning.raw.as_ref().unwrap().payload.get(), lines[2]);
}

/// Format detection, both ways: every exec line is claimed by exec alone, and no line of any
/// other source's corpus is claimed by exec.
#[test]
fn exec_lines_and_other_sources_lines_are_told_apart() {
    let folders = std::fs::read_dir(agentwire_tests::tests_dir().join("corpus")).unwrap();
    let mut checked = 0;
    for folder in folders.map(|entry| entry.unwrap().path()).filter(|path| path.is_dir()) {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for trace in agentwire_tests::corpus_traces(&name) {
            let text = std::fs::read_to_string(&trace).unwrap();
            for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let Ok(frame) = Frame::parse(line, LineFormat::of(line)) else {
                    continue;
                };
                let claimed_by: Vec<Source> = Source::ALL.iter().copied().filter(|s| s.claims(&frame)).collect();
                let at = format!("{}:{}", trace.display(), index + 1);
                if name == EXEC.name() {
                    assert_eq!(claimed_by, [EXEC], "{at}");
                } else {
                    assert!(!claimed_by.contains(&EXEC), "{at}: a {name} line claimed by codex-exec");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} lines");
    assert!(traces(EXEC).len() >= 14);
}

/// Codex retrying a dropped stream prints `error` "Reconnecting... n/m" and the turn goes on:
/// a warning, as app-server's `error` with `willRetry: true` is, not the turn's failure.
#[test]
fn a_retry_is_a_warning_and_the_turn_completes() {
    let text = std::fs::read_to_string(agentwire_tests::corpus_dir(EXEC).join("text.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let retry = r#"{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: error sending request)"}"#;
    lines.insert(2, retry);
    let events = normalize_text(EXEC, &(lines.join("\n") + "\n")).events;
    let kinds: Vec<T> = events.iter().map(|e| e.event.event_type()).collect();
    assert!(!kinds.contains(&T::RuntimeError), "{kinds:?}");
    let warning = events
        .iter()
        .find_map(|e| payload!(e, RuntimeWarning))
        .expect("a runtime.warning");
    assert!(
        warning.message.starts_with("Reconnecting... 1/5"),
        "{}",
        warning.message
    );
    let completed = events
        .iter()
        .find_map(|e| payload!(e, TurnCompleted))
        .expect("the turn completes");
    assert_eq!(completed.state, agentwire_canonical::TurnState::Completed);
}

/// codex exec completes some items it never started (agent messages, a reasoning summary): an
/// item's first event is `item.started` all the same, so a UI opens each card before it fills it.
#[test]
fn every_items_first_event_is_item_started() {
    for sc in Scenario::all(Source::CODEX_EXEC) {
        let mut seen = std::collections::BTreeSet::new();
        for event in sc.events() {
            let Some(item) = &event.item_id else { continue };
            if seen.insert(item.as_str().to_string()) {
                assert!(
                    matches!(event.event, agentwire_canonical::RuntimeEvent::ItemStarted(_)),
                    "{}: item {} begins with {}",
                    sc.label(),
                    item.as_str(),
                    event.event.event_type().as_str()
                );
            }
        }
    }
}
