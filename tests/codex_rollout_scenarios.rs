//! Scenario assertions on Codex rollout files replayed into canonical events (spec 3.3): the
//! same run read from its rollout file and through app-server gives the same canonical thread,
//! turn and item ids; each scenario's turn, items, plan, question and failure read as a UI needs.
//! The corpus README maps the numbered files to their scenarios.

use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType as I, CanonicalRequestType, CanonicalRuntimeEventType as T, ItemContent, ItemStatus,
    RuntimeEvent, RuntimeEventRawSource, SessionState, TurnState,
};
use agentwire_tests::payload;
use agentwire_tests::scenario::Scenario;
use serde_json::Value;

fn rollout(name: &str) -> Scenario {
    Scenario::load(Source::CODEX_ROLLOUT, name)
}

/// The canonical ids (thread, turn, item) of every event of a trace.
fn ids(sc: &Scenario) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut threads = Vec::new();
    let mut turns = Vec::new();
    let mut items = Vec::new();
    for event in sc.events() {
        threads.extend(event.thread_id.as_ref().map(ToString::to_string));
        turns.extend(event.turn_id.as_ref().map(ToString::to_string));
        items.extend(event.item_id.as_ref().map(ToString::to_string));
    }
    for list in [&mut threads, &mut turns, &mut items] {
        list.sort();
        list.dedup();
    }
    (threads, turns, items)
}

#[test]
fn a_run_replayed_from_its_rollout_file_has_the_ids_it_had_through_app_server() {
    // (rollout file, app-server transcript of the same run): the corpus README pairs them by
    // the thread id they share.
    for (file, transcript) in [
        ("rollout-22", "text"),
        ("rollout-24", "shell"),
        ("rollout-41", "patch_approval_accept"),
        ("rollout-55", "user_input_plan_mode"),
        ("rollout-36", "shell_approval_accept"),
        ("rollout-38", "shell_approval_cancel"),
        ("rollout-42", "patch_approval_decline"),
        ("rollout-52", "mcp"),
        ("rollout-54", "dynamic_tool"),
        ("rollout-33", "error500"),
        ("rollout-43", "interrupt"),
        ("rollout-86", "all"),
    ] {
        let replayed = rollout(file);
        let live = Scenario::load(Source::CODEX_APP_SERVER, transcript);
        let (threads, turns, items) = ids(&replayed);
        let (live_threads, live_turns, live_items) = ids(&live);
        assert_eq!(threads, live_threads, "{file} vs {transcript}: threads");
        assert_eq!(threads.len(), 1, "{file}: one thread");
        assert_eq!(turns, live_turns, "{file} vs {transcript}: turns");
        // Every item the rollout file reports is the item app-server reported.
        let missing: Vec<&String> = items.iter().filter(|item| !live_items.contains(item)).collect();
        assert!(missing.is_empty(), "{file}: items app-server never showed: {missing:?}");
    }
}

#[test]
fn every_line_rides_whole_and_derived_events_carry_the_event_msg() {
    for sc in Scenario::all(Source::CODEX_ROLLOUT) {
        for (index, event) in sc.events().iter().enumerate() {
            let Some(raw) = &event.raw else { continue };
            let payload: Value = serde_json::from_str(raw.payload.get()).expect("JSON");
            match raw.source {
                RuntimeEventRawSource::CodexRollout => {
                    assert!(payload["timestamp"].is_string(), "{}: a whole line", sc.at(index));
                }
                RuntimeEventRawSource::CodexEventmsg => {
                    let line = sc.line_of(index).expect("from a line");
                    assert_eq!(
                        &payload,
                        &sc.msg(line)["payload"],
                        "{}: the line's EventMsg",
                        sc.at(index)
                    );
                    assert_eq!(sc.msg(line)["type"], "event_msg", "{}", sc.at(index));
                }
                other => panic!("{}: raw source {other:?}", sc.at(index)),
            }
        }
    }
}

#[test]
fn created_at_is_each_lines_timestamp() {
    let sc = rollout("rollout-24");
    for (index, event) in sc.events().iter().enumerate() {
        let Some(line) = sc.line_of(index) else { continue };
        let stamp = sc.msg(line)["timestamp"].as_str().expect("a timestamp");
        assert_eq!(event.created_at.as_str(), stamp, "{}", sc.at(index));
    }
}

#[test]
fn text_is_one_turn_with_the_users_message_and_the_answer() {
    let sc = rollout("rollout-22");
    let (started, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Completed);
    let thread = sc.indices_of(T::ThreadStarted);
    assert_eq!(thread.len(), 1);
    assert!(thread[0] < started, "the thread starts before its turn");
    let answers = sc.items(I::AssistantMessage);
    assert_eq!(answers.len(), 1);
    let (_, done) = answers[0];
    let data = payload!(sc.event(done), ItemCompleted)
        .and_then(|p| p.data.as_ref())
        .expect("data")
        .to_value();
    assert_eq!(data["text"], "Hi! I am the mock model. How can I help you today?");
    assert_eq!(sc.items(I::UserMessage).len(), 1);
    sc.assert_no_item_left_open();
}

#[test]
fn shell_opens_the_command_from_its_tool_call_and_completes_it_from_its_item() {
    let sc = rollout("rollout-24");
    let commands = sc.items(I::CommandExecution);
    assert_eq!(commands.len(), 1);
    let (started, completed) = commands[0];
    assert_eq!(
        sc.msg(sc.line_of(started).expect("a line"))["payload"]["type"],
        "function_call"
    );
    let start = payload!(sc.event(started), ItemStarted).expect("item.started");
    assert_eq!(start.title.as_deref(), Some("echo hello"));
    let end = payload!(sc.event(completed), ItemCompleted).expect("item.completed");
    assert_eq!(end.status, Some(ItemStatus::Completed));
    assert_eq!(end.data.as_ref().expect("data").to_value()["output"], "hello\n");
    let summaries = sc.indices_of(T::ToolSummary);
    assert_eq!(summaries.len(), 1, "the output the model saw");
    assert_eq!(sc.event(summaries[0]).item_id, sc.event(started).item_id);
}

#[test]
fn a_failed_turn_is_one_error_and_a_failed_turn_completion() {
    for name in ["rollout-10", "rollout-79", "rollout-33"] {
        let sc = rollout(name);
        let errors = sc.indices_of(T::RuntimeError);
        assert_eq!(errors.len(), 1, "{name}: one failure, one runtime.error");
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Failed, "{name}");
        assert!(errors[0] < completed, "{name}: the error comes first");
        let message = payload!(sc.event(completed), TurnCompleted).and_then(|p| p.error_message.clone());
        assert!(message.is_some(), "{name}: the turn says why");
        let last = payload!(sc.events().last().expect("events"), SessionStateChanged).expect("state");
        assert_eq!(last.state, SessionState::Error, "{name}");
    }
}

#[test]
fn an_interrupted_turn_completes_as_interrupted() {
    let sc = rollout("rollout-43");
    let (_, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Interrupted);
    assert_eq!(
        sc.msg(sc.line_of(completed).expect("a line"))["payload"]["type"],
        "turn_aborted"
    );
    sc.assert_no_item_left_open();
}

#[test]
fn update_plan_is_the_turns_plan() {
    let sc = rollout("rollout-71");
    let plans = sc.indices_of(T::TurnPlanUpdated);
    assert!(!plans.is_empty(), "a plan");
    let plan = payload!(sc.event(plans[0]), TurnPlanUpdated).expect("plan");
    assert!(!plan.plan.is_empty(), "with steps");
    assert!(sc.items(I::Plan).is_empty(), "as in app-server, the plan is no item");
}

#[test]
fn a_question_waits_on_the_user_and_its_retained_answer_settles_it() {
    let sc = rollout("rollout-55");
    let opened = sc.indices_of(T::RequestOpened);
    assert_eq!(opened.len(), 1);
    let request = payload!(sc.event(opened[0]), RequestOpened).expect("request");
    assert_eq!(request.request_type, CanonicalRequestType::ToolUserInput);
    assert_eq!(request.detail.as_deref(), Some("Which color should I use?"));
    sc.next_for_request(opened[0], T::UserInputRequested);
    let answered = sc.next_for_request(opened[0], T::UserInputResolved);
    let resolved = sc.next_for_request(opened[0], T::RequestResolved);
    assert!(answered < resolved);
    assert_eq!(sc.decision(resolved), Some("answered"));
    let waiting = sc
        .indices_of(T::SessionStateChanged)
        .into_iter()
        .filter(|&i| payload!(sc.event(i), SessionStateChanged).is_some_and(|p| p.state == SessionState::Waiting))
        .count();
    assert_eq!(waiting, 1, "the session waits while the question is open");
}

/// A question no `verified_answer` settles ends with its `function_call_output`: before, the
/// session stayed `waiting` until `turn.completed` cut the request off. rollout-55 without its
/// retained answer, the output once the refusal codex writes outside Plan mode and once the
/// tool's answer itself.
#[test]
fn a_question_ends_with_its_output_when_no_retained_answer_settles_it() {
    let path = agentwire_tests::corpus_dir(Source::CODEX_ROLLOUT).join("rollout-55.jsonl");
    let clean = std::fs::read_to_string(&path).expect("the trace");
    let answer = r#""output":"{\"answers\":{\"favorite_color\":{\"answers\":[\"yes\"]}}}""#;
    assert!(clean.contains(answer), "rollout-55's output");
    let without_retained: String = clean
        .lines()
        .filter(|line| !line.contains(r#""type":"verified_answer""#))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(without_retained.lines().count() + 1, clean.lines().count());
    let refused = r#""output":"request_user_input is unavailable in Default mode""#;
    for (output, decision, answers) in [
        (refused, "error", Value::Null),
        (
            answer,
            "answered",
            serde_json::json!({ "favorite_color": { "answers": ["yes"] } }),
        ),
    ] {
        let text = without_retained.replacen(answer, output, 1);
        let norm = agentwire_tests::normalize_text(Source::CODEX_ROLLOUT, &text);
        let output_line = text
            .lines()
            .position(|line| line.contains(r#""type":"function_call_output""#))
            .expect("the output")
            + 1;
        let of_line: Vec<&agentwire_canonical::ProviderRuntimeEvent> = (0..norm.events.len())
            .filter(|&i| norm.lines[i] == Some(output_line))
            .map(|i| &norm.events[i])
            .collect();
        let kinds: Vec<T> = of_line.iter().map(|event| event.event.event_type()).collect();
        assert_eq!(
            kinds,
            [T::UserInputResolved, T::RequestResolved, T::SessionStateChanged],
            "{decision}: {}",
            norm.jsonl
        );
        assert_eq!(
            payload!(of_line[0], UserInputResolved).expect("answers").answers,
            answers
        );
        let resolved = payload!(of_line[1], RequestResolved).expect("request.resolved");
        assert_eq!(resolved.request_type, CanonicalRequestType::ToolUserInput);
        assert_eq!(resolved.decision.as_deref(), Some(decision));
        assert_eq!(
            payload!(of_line[2], SessionStateChanged).expect("state").state,
            SessionState::Running,
            "{decision}: the session runs on before the turn ends"
        );
        let states: Vec<SessionState> = norm
            .events
            .iter()
            .filter_map(|event| payload!(event, SessionStateChanged).map(|p| p.state))
            .collect();
        assert_eq!(
            states,
            [
                SessionState::Running,
                SessionState::Waiting,
                SessionState::Running,
                SessionState::Ready,
                SessionState::Stopped
            ],
            "{decision}"
        );
    }
}

#[test]
fn a_patch_codex_reports_no_item_for_failed() {
    let sc = rollout("rollout-30");
    let patches = sc.items(I::FileChange);
    assert!(!patches.is_empty());
    let statuses: Vec<Option<ItemStatus>> = patches
        .iter()
        .map(|&(_, done)| payload!(sc.event(done), ItemCompleted).and_then(|p| p.status))
        .collect();
    assert!(statuses.contains(&Some(ItemStatus::Failed)), "{statuses:?}");
}

#[test]
fn a_patch_that_applied_completes_from_its_file_change_item() {
    let sc = rollout("rollout-41");
    let patches = sc.items(I::FileChange);
    assert_eq!(patches.len(), 1);
    let (_, done) = patches[0];
    let end = payload!(sc.event(done), ItemCompleted).expect("item.completed");
    assert_eq!(end.status, Some(ItemStatus::Completed));
    assert_eq!(
        sc.msg(sc.line_of(done).expect("a line"))["payload"]["type"],
        "item_completed"
    );
}

#[test]
fn a_command_refused_before_it_ran_is_declined() {
    // 37: the user rejected it; 38: the user aborted it; 18: the approval policy refused it.
    for name in ["rollout-37", "rollout-38", "rollout-18"] {
        let sc = rollout(name);
        let commands = sc.items(I::CommandExecution);
        assert_eq!(commands.len(), 1, "{name}");
        let (_, done) = commands[0];
        let end = payload!(sc.event(done), ItemCompleted).expect("item.completed");
        assert_eq!(end.status, Some(ItemStatus::Declined), "{}", sc.at(done));
    }
}

/// A `timestamp` that is no RFC 3339 instant moves nothing. Before, `2026-02-31T25:61:61Z` was
/// read as 2026-03-04T02:02:01.000Z and an offset of `+99:99` as 100 hours: the line's events
/// jumped months or days away. Now they keep the time of the line before, a `runtime.warning`
/// carrying the line names the value and why, and the host is told (to name the line's number).
#[test]
fn a_timestamp_that_is_no_instant_is_a_warning_and_moves_nothing() {
    let path = agentwire_tests::corpus_dir(Source::CODEX_ROLLOUT).join("rollout-22.jsonl");
    let clean = std::fs::read_to_string(&path).expect("the trace");
    // Line 10: the agent's message (`item_completed`), written at 05:25:05.211Z after line 9's
    // 05:25:05.132Z; line 11 at 05:25:05.215Z.
    let original = r#"{"timestamp":"2026-11-30T05:25:05.211Z","ordinal":9,"#;
    assert!(clean.lines().nth(9).expect("line 10").starts_with(original));
    for (bad, reason) in [
        ("2026-02-31T25:61:61Z", "the day is out of range"),
        ("2026-11-30T05:25:05.211+99:99", "the UTC offset is out of range"),
        ("2026-11-30T24:00:00Z", "the time of day is out of range"),
    ] {
        let text = clean.replacen(original, &format!(r#"{{"timestamp":"{bad}","ordinal":9,"#), 1);
        let norm = agentwire_tests::normalize_text(Source::CODEX_ROLLOUT, &text);
        let of_line = |line: usize| -> Vec<usize> {
            (0..norm.events.len())
                .filter(|&i| norm.lines[i] == Some(line))
                .collect()
        };
        let warnings: Vec<usize> = (0..norm.events.len())
            .filter(|&i| payload!(norm.events[i], RuntimeWarning).is_some())
            .collect();
        assert_eq!(warnings.len(), 1, "{bad}: one warning");
        let warning = &norm.events[warnings[0]];
        assert_eq!(norm.lines[warnings[0]], Some(10), "{bad}: reported with line 10");
        let payload = payload!(warning, RuntimeWarning).expect("a warning");
        assert_eq!(
            payload.message,
            format!(
                "the line's `timestamp` \"{bad}\" is not an RFC 3339 instant: {reason}; its events keep the time before it"
            )
        );
        assert_eq!(
            payload.detail,
            Some(serde_json::json!({ "field": "timestamp", "value": bad, "reason": reason }))
        );
        let raw = warning.raw.as_ref().expect("the line as raw");
        assert_eq!(raw.source, RuntimeEventRawSource::CodexRollout);
        assert_eq!(raw.method.as_deref(), Some("event_msg"));
        assert_eq!(
            raw.payload.get(),
            text.lines().nth(9).expect("line 10"),
            "{bad}: raw keeps the time as sent"
        );
        assert!(
            warning.thread_id.is_some() && warning.turn_id.is_some(),
            "{bad}: in the running turn"
        );
        // The agent's message still maps, at line 9's time; line 11 has its own again.
        let line_10 = of_line(10);
        assert!(line_10.len() > 1, "{bad}: the line maps beside its warning");
        for &index in &line_10 {
            assert_eq!(
                norm.events[index].created_at.as_str(),
                "2026-11-30T05:25:05.132Z",
                "{bad}: event {index}"
            );
        }
        assert!(
            line_10
                .iter()
                .any(|&i| payload!(norm.events[i], ItemCompleted).is_some()),
            "{bad}"
        );
        for index in of_line(11) {
            assert_eq!(
                norm.events[index].created_at.as_str(),
                "2026-11-30T05:25:05.215Z",
                "{bad}: event {index}"
            );
        }
        let clean_norm = agentwire_tests::normalize_text(Source::CODEX_ROLLOUT, &clean);
        assert_eq!(
            norm.events.len(),
            clean_norm.events.len() + 1,
            "{bad}: nothing else changes"
        );

        // The host learns of it as a problem of that line, after the line mapped.
        let format = agentwire::frame::LineFormat::Bare;
        let mut normalizer = Source::CODEX_ROLLOUT.normalizer(agentwire::normalizer::Options::default());
        let mut events = Vec::new();
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines[..9] {
            normalizer.push_line(line, format, &mut events).expect("a clean line");
        }
        let problem = normalizer
            .push_line(lines[9], format, &mut events)
            .expect_err("a problem to report with the line's number");
        assert_eq!(problem.kind, agentwire::normalizer::ProblemKind::Undecodable, "{bad}");
        assert_eq!(problem.message, payload.message, "{bad}");
    }
}

/// Each `token_count` with usage is `thread.token-usage.updated` (its `info`); its rate limits
/// are an event only when a limit has a value (codex writes them all null when the model server
/// reports none).
#[test]
fn token_counts_report_usage_and_limits_with_a_value_or_no_usage_beside_them() {
    for sc in Scenario::all(Source::CODEX_ROLLOUT) {
        for line in sc.provider_lines_where(|msg| msg["payload"]["type"] == "token_count") {
            let count = &sc.msg(line)["payload"];
            let kinds: Vec<String> = sc
                .events_of_line(line)
                .into_iter()
                .map(|index| {
                    serde_json::to_value(sc.event(index)).unwrap()["type"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect();
            let usage = kinds
                .iter()
                .filter(|kind| *kind == "thread.token-usage.updated")
                .count();
            assert_eq!(
                usage,
                usize::from(!count["info"].is_null()),
                "{}: line {line}",
                sc.label()
            );
            // A limit with a value is news; so are the limits of a count with no usage, whose
            // ids no other event would carry.
            let any_limit = count["rate_limits"].as_object().is_some_and(|limits| {
                count["info"].is_null() || limits.iter().any(|(key, value)| key != "limit_id" && !value.is_null())
            });
            let limits = kinds
                .iter()
                .filter(|kind| *kind == "account.rate-limits.updated")
                .count();
            assert_eq!(limits, usize::from(any_limit), "{}: line {line}", sc.label());
        }
    }
}

#[test]
fn a_file_another_codex_wrote_says_so_once_and_maps_on() {
    let path = agentwire_tests::corpus_dir(Source::CODEX_ROLLOUT).join("rollout-64.jsonl");
    let clean = std::fs::read_to_string(&path).expect("the trace");
    assert!(clean.contains(r#""cli_version":"0.171.0""#));
    let text = clean.replace(r#""cli_version":"0.171.0""#, r#""cli_version":"0.999.0""#);
    let norm = agentwire_tests::normalize_text(Source::CODEX_ROLLOUT, &text);
    let warnings: Vec<Value> = norm
        .jsonl
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .filter(|event| event["type"] == "runtime.warning")
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0]["payload"]["message"],
        "codex reports version 0.999.0; agentwire's types were generated from 0.171.0"
    );
    assert_eq!(
        warnings[0]["payload"]["detail"],
        serde_json::json!({ "reported": "0.999.0", "pinned": "0.171.0" })
    );
    let clean_norm = agentwire_tests::normalize_text(Source::CODEX_ROLLOUT, &clean);
    assert_eq!(
        norm.events.len(),
        clean_norm.events.len() + 1,
        "the file maps as before"
    );
}

/// Every tool item of the three Codex sources is titled as what it does, never by the tool's
/// bare name: "Add all.txt", "Edit README.md", "Call echo.write_note", "Search: query".
#[test]
fn codex_tool_items_are_titled_as_actions() {
    let bare = [
        "apply_patch",
        "update_plan",
        "exec_command",
        "shell",
        "web_search",
        "view_image",
    ];
    for source in [Source::CODEX_ROLLOUT, Source::CODEX_EXEC, Source::CODEX_APP_SERVER] {
        for sc in Scenario::all(source) {
            for (index, event) in sc.events().iter().enumerate() {
                let (RuntimeEvent::ItemStarted(payload)
                | RuntimeEvent::ItemUpdated(payload)
                | RuntimeEvent::ItemCompleted(payload)) = &event.event
                else {
                    continue;
                };
                let Some(title) = payload.title.as_deref() else {
                    continue;
                };
                assert!(!bare.contains(&title), "{}: titled `{title}`", sc.at(index));
                let prefixes: &[&str] = match payload.item_type {
                    I::FileChange => &["Add ", "Edit ", "Delete "],
                    I::McpToolCall | I::DynamicToolCall => &["Call "],
                    I::WebSearch => &["Search: ", "Fetch "],
                    _ => &[""],
                };
                assert!(
                    prefixes.iter().any(|prefix| title.starts_with(prefix)),
                    "{}: a {} titled `{title}`",
                    sc.at(index),
                    payload.item_type
                );
            }
        }
    }
}

/// The events of older sessions (`exec_command_begin` / `_end`, `mcp_tool_call_*`,
/// `patch_apply_*`, `collab_*`, the legacy whole messages, ...), replayed from the hand-written
/// examples of every line kind: each item event carries its type's content, and a tool item
/// reads as what it does.
#[test]
fn older_sessions_items_carry_their_types_content() {
    let path = agentwire_tests::tests_dir().join("fixtures/codex-rollout/examples.jsonl");
    let examples = std::fs::read_to_string(&path).expect("the examples");
    let lines: String = examples
        .lines()
        .map(|example| {
            let example: Value = serde_json::from_str(example).expect("JSON");
            format!("{}\n", example["line"])
        })
        .collect();
    let events = agentwire_tests::normalize_text(Source::CODEX_ROLLOUT, &lines).events;
    let mut items = 0;
    for event in &events {
        let (RuntimeEvent::ItemStarted(payload)
        | RuntimeEvent::ItemUpdated(payload)
        | RuntimeEvent::ItemCompleted(payload)) = &event.event
        else {
            continue;
        };
        items += 1;
        let data = payload.data.as_ref().expect("data").to_value();
        if let Err(error) = ItemContent::decode(payload.item_type, &data) {
            panic!("a {} item's data: {error}: {data}", payload.item_type);
        }
    }
    assert!(items > 20, "the examples' items: {items}");
}
