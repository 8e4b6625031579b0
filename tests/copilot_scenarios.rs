//! Scenario assertions on GitHub Copilot CLI 1.0.102 read live (`corpus/copilot/`, the stdout of
//! `copilot -p PROMPT --output-format json`): the key behaviours of each, written from the traces
//! (see the corpus README).

use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType as I, CanonicalRuntimeEventType as T, ContentStreamKind, ItemStatus, RuntimeEventRawSource,
    SessionState, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{payload, traces};

fn live(name: &str) -> Scenario {
    Scenario::load(Source::COPILOT, name)
}

/// The completed tool items of a trace: (type, status).
fn tools(sc: &Scenario) -> Vec<(I, ItemStatus)> {
    sc.indices_of(T::ItemCompleted)
        .into_iter()
        .filter_map(|index| {
            let item = payload!(sc.event(index), ItemCompleted)?;
            let tool = !matches!(item.item_type, I::UserMessage | I::AssistantMessage | I::Reasoning);
            tool.then(|| (item.item_type, item.status.expect("a status")))
        })
        .collect()
}

fn last_state(sc: &Scenario) -> SessionState {
    let last = *sc.indices_of(T::SessionStateChanged).last().expect("a state");
    payload!(sc.event(last), SessionStateChanged).expect("a state").state
}

#[test]
fn every_line_rides_with_its_own_raw_source_and_is_claimed_by_copilot_alone() {
    for sc in Scenario::all(Source::COPILOT) {
        for (index, event) in sc.events().iter().enumerate() {
            if let Some(raw) = &event.raw {
                assert_eq!(raw.source, RuntimeEventRawSource::CopilotEvent, "{}", sc.at(index));
            }
        }
    }
    let lines = |path: &std::path::Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).expect("a trace");
        text.lines().map(str::to_owned).collect()
    };
    let claims =
        |source: Source, line: &str| source.claims(&Frame::parse(line, LineFormat::of(line)).expect("a frame"));
    let others = [Source::GEMINI, Source::CLAUDE, Source::CODEX_EXEC, Source::OPENCODE_RUN];
    for trace in traces(Source::COPILOT) {
        let lines = lines(&trace);
        for line in &lines {
            assert!(claims(Source::COPILOT, line), "{}: {line}", trace.display());
        }
        // Detection reads the first line: no other source claims it (Claude's lenient `result`
        // would take Copilot's last line, which is why Copilot is tried first).
        for other in others {
            assert!(!claims(other, &lines[0]), "{} claims {}", other.name(), trace.display());
        }
    }
    for other in others {
        for trace in traces(other) {
            for line in lines(&trace).iter().filter(|line| line.starts_with('{')) {
                assert!(!claims(Source::COPILOT, line), "{}: {line}", trace.display());
            }
        }
    }
}

#[test]
fn a_run_is_a_turn_whose_text_streams_and_whose_answer_ends_it() {
    let sc = live("plain");
    let (started, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Completed);
    let turn = payload!(sc.event(started), TurnStarted).expect("turn.started");
    assert_eq!(turn.model.as_deref(), Some("gpt-5"));
    for delta in sc.indices_of(T::ContentDelta) {
        sc.assert_delta_on_open_item(delta, I::AssistantMessage);
    }
    let (_, text) = sc.items(I::AssistantMessage)[0];
    let text = payload!(sc.event(text), ItemCompleted).expect("the answer");
    assert_eq!(
        text.data.as_ref().expect("data").to_value()["text"],
        "Hello from the mock model. How can I help?"
    );
    // The live stream states no tokens.
    let outcome = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    assert!(outcome.usage.is_none());
    // The session id, which only the last line names, is the thread's metadata.
    let session = sc.indices_of(T::ThreadMetadataUpdated).into_iter().find_map(|index| {
        payload!(sc.event(index), ThreadMetadataUpdated)?
            .metadata
            .clone()?
            .get("sessionId")
            .cloned()
    });
    assert_eq!(
        session.and_then(|id| id.as_str().map(str::to_owned)).as_deref(),
        Some("6fede0a9-db8b-494f-bf5d-cddcce55a996")
    );
    sc.assert_no_item_left_open();
}

/// A call the rules deny, or one a headless run cannot ask approval for, is `declined`; a command
/// that exits non-zero `failed`, with its exit code; the turn goes on and completes.
#[test]
fn a_denied_command_is_declined_and_a_failing_one_failed() {
    for (scenario, status) in [
        ("shell_deny_tool", ItemStatus::Declined),
        ("shell_no_permission", ItemStatus::Declined),
        ("shell_fail", ItemStatus::Failed),
        ("shell_allow", ItemStatus::Completed),
    ] {
        let sc = live(scenario);
        assert_eq!(tools(&sc), [(I::CommandExecution, status)], "{}", sc.label());
        assert!(sc.indices_of(T::RuntimeError).is_empty(), "{}", sc.label());
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Completed, "{}", sc.label());
    }
    let sc = live("shell_fail");
    let (_, command) = sc.items(I::CommandExecution)[0];
    let command = payload!(sc.event(command), ItemCompleted).expect("the command");
    assert_eq!(command.data.as_ref().expect("data").to_value()["exitCode"], 3);
    let output: String = sc
        .indices_of(T::ContentDelta)
        .into_iter()
        .filter_map(|index| {
            let delta = payload!(sc.event(index), ContentDelta)?;
            (delta.stream_kind == ContentStreamKind::CommandOutput).then(|| delta.delta.clone())
        })
        .collect();
    assert_eq!(
        output,
        "ls: cannot access '/nonexistent_dir_xyz': No such file or directory\n"
    );
}

/// SIGINT is `interrupted`, not a failure, mid-stream and during a tool (whose item is cut off).
#[test]
fn an_interrupt_is_interrupted() {
    for scenario in ["interrupt_stream", "interrupt_tool"] {
        let sc = live(scenario);
        assert!(sc.indices_of(T::RuntimeError).is_empty(), "{scenario}");
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Interrupted, "{scenario}");
    }
    let sc = live("interrupt_tool");
    assert_eq!(tools(&sc), [(I::CommandExecution, ItemStatus::Declined)]);
}

/// An API error fails the turn with one `runtime.error`; the retries before it are warnings where
/// they happen, and a retry that succeeds leaves a completed turn.
#[test]
fn an_api_error_fails_the_turn_once_and_retries_warn() {
    for (scenario, retries) in [("error400", 0), ("error500", 5)] {
        let sc = live(scenario);
        assert_eq!(sc.indices_of(T::RuntimeError).len(), 1, "{scenario}");
        assert_eq!(sc.indices_of(T::RuntimeWarning).len(), retries, "{scenario}");
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Failed, "{scenario}");
        assert_eq!(last_state(&sc), SessionState::Error, "{scenario}");
    }
    let sc = live("retry500");
    assert_eq!(sc.indices_of(T::RuntimeWarning).len(), 1);
    assert!(sc.indices_of(T::RuntimeError).is_empty());
    let (_, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Completed);
}

/// A `task` call is a collab agent call; the sub-agent's prompt, reasoning, tool call and answer
/// are items under it (`parentItemId`).
#[test]
fn a_subagents_work_is_under_its_task() {
    let sc = live("subagent");
    let (_, task) = sc.items(I::CollabAgentToolCall)[0];
    let task_id = sc.item_id(task).clone();
    let task = payload!(sc.event(task), ItemCompleted).expect("the task");
    assert_eq!(task.status, Some(ItemStatus::Completed));
    assert_eq!(task.data.as_ref().expect("data").to_value()["agent"], "explore");
    let parent_of = |item_type: I| -> Vec<Option<String>> {
        sc.items(item_type)
            .into_iter()
            .map(|(_, completed)| {
                let item = payload!(sc.event(completed), ItemCompleted).expect("an item");
                item.data.as_ref().expect("data").to_value()["parentItemId"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect()
    };
    let task_id = Some(task_id.as_str().to_owned());
    assert_eq!(parent_of(I::Reasoning), vec![task_id.clone()]);
    assert_eq!(parent_of(I::DynamicToolCall), vec![task_id.clone()]);
    assert_eq!(parent_of(I::AssistantMessage), vec![task_id, None]);
}

/// The todo list is the `sql` tool on the session's `todos` table: each such call is a plan item,
/// its steps the list as the statements so far left it.
#[test]
fn todo_writes_are_plan_items() {
    let sc = live("todo");
    assert_eq!(
        tools(&sc),
        [(I::Plan, ItemStatus::Completed), (I::Plan, ItemStatus::Completed)]
    );
    let (_, last) = *sc.items(I::Plan).last().expect("a plan");
    let plan = payload!(sc.event(last), ItemCompleted).expect("the plan");
    assert_eq!(
        plan.data.as_ref().expect("data").to_value()["steps"],
        serde_json::json!([
            {"step": "Inspect notes", "status": "completed"},
            {"step": "Report", "status": "pending"}
        ])
    );
}

fn stored(scenario: &str) -> Scenario {
    let name = traces(Source::COPILOT_SESSION)
        .iter()
        .map(|path| agentwire_tests::trace_name(path))
        .find(|name| name.starts_with(&format!("{scenario}/")))
        .unwrap_or_else(|| panic!("no session log {scenario}/*"));
    Scenario::load(Source::COPILOT_SESSION, &name)
}

/// The session log names its session first (the thread is the session id), has no deltas, and
/// states each model call's tokens: the turns carry them.
#[test]
fn a_session_log_is_the_same_session_with_its_tokens() {
    let sc = stored("plain");
    let thread = payload!(sc.event(sc.indices_of(T::ThreadStarted)[0]), ThreadStarted).expect("thread.started");
    assert_eq!(
        thread.provider_thread_id.as_ref().map(|id| id.as_str()),
        Some("6fede0a9-db8b-494f-bf5d-cddcce55a996")
    );
    assert!(sc.indices_of(T::ContentDelta).is_empty());
    let (_, completed) = sc.single_turn();
    let turn = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    let usage = turn.usage.as_ref().expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(1001), Some(20)));
    for (scenario, turns) in [("two_turns", 2), ("resume", 2)] {
        let sc = stored(scenario);
        assert_eq!(sc.indices_of(T::ThreadStarted).len(), 1, "{scenario}");
        assert_eq!(sc.indices_of(T::TurnCompleted).len(), turns, "{scenario}");
    }
}

/// The log's turns end as the live ones do: a denial declined, an interrupt interrupted, an API
/// error failed with one `runtime.error`.
#[test]
fn a_session_logs_turns_end_as_the_runs_did() {
    for (scenario, state) in [
        ("shell_deny_tool", TurnState::Completed),
        ("shell_no_permission", TurnState::Completed),
        ("interrupt_stream", TurnState::Interrupted),
        ("interrupt_tool", TurnState::Interrupted),
        ("error400", TurnState::Failed),
        ("error500", TurnState::Failed),
    ] {
        let sc = stored(scenario);
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), state, "{scenario}");
        let errors = usize::from(state == TurnState::Failed);
        assert_eq!(sc.indices_of(T::RuntimeError).len(), errors, "{scenario}");
    }
    for scenario in ["shell_deny_tool", "shell_no_permission"] {
        assert_eq!(
            tools(&stored(scenario)),
            [(I::CommandExecution, ItemStatus::Declined)],
            "{scenario}"
        );
    }
}

/// A session log starts with `session.start`, which only the log source claims; its events ride
/// with the log's raw source.
#[test]
fn a_session_log_is_told_from_the_live_stream() {
    for trace in traces(Source::COPILOT_SESSION) {
        let text = std::fs::read_to_string(&trace).expect("a trace");
        let first = text.lines().next().expect("a line");
        let frame = Frame::parse(first, LineFormat::of(first)).expect("a frame");
        assert!(Source::COPILOT_SESSION.claims(&frame), "{}", trace.display());
        assert!(!Source::COPILOT.claims(&frame), "{}", trace.display());
    }
    for sc in Scenario::all(Source::COPILOT_SESSION) {
        for (index, event) in sc.events().iter().enumerate() {
            if let Some(raw) = &event.raw {
                assert_eq!(
                    raw.source,
                    RuntimeEventRawSource::CopilotSessionEvent,
                    "{}",
                    sc.at(index)
                );
            }
        }
    }
}
