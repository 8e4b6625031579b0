//! Scenario assertions on Gemini CLI 0.61.0 read live (`corpus/gemini/`, the stdout of
//! `gemini -p --output-format stream-json`) and read back from its session files
//! (`corpus/gemini-session/<scenario>/<project>/chats/`, the files the same runs wrote): the
//! key behaviours of each, written from the traces (see the corpus READMEs). That both name the
//! same thread and tool items is `tests/equivalence.rs`.

use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType as I, CanonicalRuntimeEventType as T, ContentStreamKind, ItemStatus, RuntimeEventRawSource,
    SessionState, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{payload, trace_name, traces};
use serde_json::json;

fn live(name: &str) -> Scenario {
    Scenario::load(Source::GEMINI, name)
}

/// The session file of a scenario that holds `id8` (the session id's first 8 characters; for a
/// session resumed in a later minute, `at` picks the file by its minute).
fn file(scenario: &str, id8: &str, at: &str) -> Scenario {
    let name = traces(Source::GEMINI_SESSION)
        .iter()
        .map(|path| trace_name(path))
        .find(|name| name.starts_with(&format!("{scenario}/")) && name.ends_with(&format!("{at}-{id8}")))
        .unwrap_or_else(|| panic!("no session file {scenario}/*{at}-{id8}"));
    Scenario::load(Source::GEMINI_SESSION, &name)
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
fn every_line_rides_with_its_own_raw_source() {
    for (source, label) in [
        (Source::GEMINI, RuntimeEventRawSource::GeminiStreamJson),
        (Source::GEMINI_SESSION, RuntimeEventRawSource::GeminiSessionRecord),
    ] {
        for sc in Scenario::all(source) {
            for (index, event) in sc.events().iter().enumerate() {
                if let Some(raw) = &event.raw {
                    assert_eq!(raw.source, label, "{}", sc.at(index));
                }
            }
        }
    }
}

/// Gemini's stream is told from Claude's by its lines: Gemini's source claims every line of its
/// own, none of Claude's, and the first line of a Gemini trace is no Claude message.
#[test]
fn gemini_and_claude_stream_json_are_told_apart() {
    let claims = |source: Source, path: &std::path::Path| -> Vec<bool> {
        std::fs::read_to_string(path)
            .expect("a trace")
            .lines()
            .map(|line| source.claims(&Frame::parse(line, LineFormat::of(line)).expect("a frame")))
            .collect()
    };
    for trace in traces(Source::GEMINI) {
        assert!(
            claims(Source::GEMINI, &trace).iter().all(|&claimed| claimed),
            "{}",
            trace.display()
        );
        assert!(!claims(Source::CLAUDE, &trace)[0], "{}", trace.display());
    }
    for trace in traces(Source::CLAUDE) {
        assert!(!claims(Source::GEMINI, &trace).contains(&true), "{}", trace.display());
        assert!(
            !claims(Source::GEMINI_SESSION, &trace).contains(&true),
            "{}",
            trace.display()
        );
    }
}

#[test]
fn a_run_is_a_turn_whose_first_item_is_the_prompt_and_whose_text_streams() {
    let sc = live("plain");
    let (started, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Completed);
    let turn = payload!(sc.event(started), TurnStarted).expect("turn.started");
    assert_eq!(turn.model.as_deref(), Some("gemini-2.5-flash"));
    let items = sc.items(I::UserMessage);
    assert_eq!(items.len(), 1);
    let prompt = payload!(sc.event(items[0].1), ItemCompleted).expect("the prompt");
    assert_eq!(prompt.data.as_ref().expect("data").to_value()["text"], "hi");
    for delta in sc.indices_of(T::ContentDelta) {
        sc.assert_delta_on_open_item(delta, I::AssistantMessage);
    }
    let (_, text) = sc.items(I::AssistantMessage)[0];
    let text = payload!(sc.event(text), ItemCompleted).expect("the answer");
    assert_eq!(
        text.data.as_ref().expect("data").to_value()["text"],
        "Hello from the mock Gemini model. How can I help?"
    );
    let usage = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    let usage = usage.usage.as_ref().expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(1001), Some(20), Some(1021))
    );
    assert_eq!(usage.model.as_deref(), Some("gemini-2.5-flash"));
    sc.assert_no_item_left_open();
}

/// A refusal by the policy is the call's result, not a question: the call is `declined`, no
/// request opens, and the turn goes on. A tool never offered failed.
#[test]
fn a_refused_call_is_declined_and_a_tool_never_offered_failed_live_and_from_the_file() {
    for (scenario, id8, status) in [
        ("shell_refused", "7c775627", ItemStatus::Declined),
        ("shell_not_offered", "aa996777", ItemStatus::Failed),
        ("shell_allow", "4ad43ce3", ItemStatus::Completed),
    ] {
        for sc in [live(scenario), file(scenario, id8, "")] {
            assert_eq!(tools(&sc), [(I::CommandExecution, status)], "{}", sc.label());
            assert!(sc.indices_of(T::RequestOpened).is_empty(), "{}", sc.label());
            assert!(sc.indices_of(T::RuntimeError).is_empty(), "{}", sc.label());
            let completed = *sc.indices_of(T::TurnCompleted).last().expect("a turn");
            assert_eq!(sc.turn_state(completed), TurnState::Completed, "{}", sc.label());
        }
    }
    let sc = live("resume-1");
    let output = sc.indices_of(T::ContentDelta).into_iter().find_map(|index| {
        let delta = payload!(sc.event(index), ContentDelta)?;
        (delta.stream_kind == ContentStreamKind::CommandOutput).then(|| delta.delta.clone())
    });
    assert_eq!(output.as_deref(), Some("hello"));
}

/// An API error is no `error` event, only the `result`: one `runtime.error`, the turn failed,
/// the session ends in `error`. The file erases the failed turn: it is aborted, the prompt it no
/// longer holds named, and nothing claims why.
#[test]
fn an_api_error_fails_the_turn_live_and_the_file_erases_it() {
    let sc = live("error400");
    let errors = sc.indices_of(T::RuntimeError);
    assert_eq!(errors.len(), 1);
    let error = payload!(sc.event(errors[0]), RuntimeError).expect("runtime.error");
    assert!(error.message.contains("Invalid argument (mock)."), "{}", error.message);
    let (_, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Failed);
    assert_eq!(last_state(&sc), SessionState::Error);

    let sc = file("error400", "605bf0ee", "");
    let prompt = sc.items(I::UserMessage).into_iter().find(|(started, _)| {
        payload!(sc.event(*started), ItemStarted)
            .is_some_and(|item| item.data.as_ref().expect("data").to_value()["text"] == "hi")
    });
    assert!(prompt.is_some(), "the prompt was drawn before it was erased");
    let aborted = sc.indices_of(T::TurnAborted);
    assert_eq!(aborted.len(), 1);
    assert_eq!(
        sc.line_of(aborted[0]),
        Some(5),
        "the checkpoint that dropped the prompt"
    );
    let erased = sc.indices_of(T::ThreadMetadataUpdated).into_iter().find_map(|index| {
        payload!(sc.event(index), ThreadMetadataUpdated)?
            .metadata
            .clone()?
            .get("erasedMessages")
            .cloned()
    });
    assert_eq!(erased, Some(json!(["f1b6c81a-5ab4-476c-ab3c-a6c914f080b2"])));
    assert!(sc.indices_of(T::RuntimeError).is_empty());
    assert!(sc.indices_of(T::TurnCompleted).is_empty());
}

/// A person's Ctrl-C is `interrupted`, not a failure: what the model had said stands, marked as
/// cut off.
#[test]
fn an_interrupt_is_interrupted_and_keeps_what_was_said() {
    let sc = live("interrupt");
    assert!(sc.indices_of(T::RuntimeError).is_empty());
    let (_, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Interrupted);
    let (_, text) = sc.items(I::AssistantMessage)[0];
    let text = payload!(sc.event(text), ItemCompleted).expect("the cut-off text");
    assert_eq!(text.status, Some(ItemStatus::Completed));
    assert!(
        text.detail
            .as_deref()
            .is_some_and(|detail| detail.starts_with("interrupted"))
    );
    assert!(
        text.data.as_ref().expect("data").to_value()["text"]
            .as_str()
            .is_some_and(|said| said.ends_with("word16 word17 word"))
    );
    assert_eq!(last_state(&sc), SessionState::Stopped);

    let sc = file("interrupt", "2fdcd14a", "");
    assert_eq!(sc.indices_of(T::TurnAborted).len(), 1);
    assert_eq!(last_state(&sc), SessionState::Stopped);
}

/// A resumed session is one thread: each run's stream names it, and the file holds both turns,
/// the second writer's metadata ending the first; its checkpoints restate the history and erase
/// nothing.
#[test]
fn a_resumed_session_is_one_thread_with_its_turns() {
    let first = live("two_turns-1");
    let second = live("two_turns-2");
    let thread = |sc: &Scenario| sc.events()[0].thread_id.clone().expect("a thread");
    assert_eq!(thread(&first), thread(&second));
    second.single_turn();

    for (sc, run) in [
        (file("two_turns", "d30b5d29", ""), first),
        (file("resume", "e0bb8d99", "T13-38"), live("resume-1")),
    ] {
        assert_eq!(sc.indices_of(T::ThreadStarted).len(), 1, "{}", sc.label());
        assert_eq!(thread(&sc), thread(&run), "{}", sc.label());
        let turns = sc.indices_of(T::TurnCompleted);
        assert_eq!(turns.len(), 2, "{}", sc.label());
        assert!(turns.iter().all(|&end| sc.turn_state(end) == TurnState::Completed));
        assert!(sc.indices_of(T::TurnAborted).is_empty(), "{}", sc.label());
    }
    // The file a resume in a later minute starts holds the preamble alone: no turn.
    let later = file("resume", "e0bb8d99", "T13-39");
    assert!(later.indices_of(T::TurnStarted).is_empty());
}

/// A subagent's conversation is a file of its own, read with its session: its prompt, thoughts
/// and tool calls are items of the parent's turn under the `invoke_agent` item
/// (`data.parentItemId`). Live, only the `invoke_agent` call is printed.
#[test]
fn a_subagents_items_sit_under_its_invoke_agent_item() {
    let sc = live("subagent");
    assert_eq!(tools(&sc), [(I::CollabAgentToolCall, ItemStatus::Completed)]);

    let sc = file("subagent", "f2f21a24", "");
    let (call, _) = sc.items(I::CollabAgentToolCall)[0];
    let parent = sc.item_id(call).clone();
    let (_, turn_end) = sc.single_turn();
    let mut children = 0;
    for index in sc.indices_of(T::ItemCompleted) {
        let item = payload!(sc.event(index), ItemCompleted).expect("an item");
        let data = item.data.as_ref().expect("data").to_value();
        let child = data.get("parentItemId").is_some();
        if child {
            children += 1;
            assert_eq!(data["parentItemId"], json!(parent.as_str()), "{}", sc.at(index));
            assert_eq!(sc.event(index).turn_id, sc.event(call).turn_id, "{}", sc.at(index));
            assert!(index < turn_end);
        }
    }
    // Its prompt, its thoughts, `list_directory` and `complete_task`.
    assert_eq!(children, 4);
    assert!(sc.indices_of(T::RuntimeWarning).is_empty());
}
