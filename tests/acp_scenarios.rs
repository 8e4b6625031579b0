//! Scenario assertions: what the ACP traces of the corpus (Zed's Claude adapters, gemini-cli,
//! codex-acp) and the hand-made Cursor transcripts must become, asserted on the typed canonical
//! events; and one small inline transcript per Cursor extension request and per error path the
//! corpus lacks.
//!
//! Expected values are read from the trace itself wherever it states them (the option the
//! client chose and the kind the agent gave it, the plan entries, the terminal output), so a test
//! checks that the normalizer carries what the agent and the client said.

use agentwire::frame::LineFormat;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, CanonicalRuntimeEventType as T, ContentStreamKind, ItemStatus, Json,
    PlanStepStatus, ProviderKind, ProviderRuntimeEvent, RuntimeErrorClass, RuntimeEvent, RuntimeEventRawSource,
    TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{Normalized, corpus_traces, normalize_text, payload, tests_dir};
use serde_json::{Value, json};

const ACP: Source = Source::ACP;

fn load(name: &str) -> Scenario {
    Scenario::load(ACP, name)
}

/// The one event of `kind` carrying the message of `line` as `raw.payload`. (ACP traces carry
/// no times, so the library holds their events until the end: they are found by what they
/// carry, not by the line that let them out.)
fn carrying(sc: &Scenario, line: usize, kind: T) -> usize {
    let found: Vec<usize> = sc
        .indices_of(kind)
        .into_iter()
        .filter(|&i| sc.raw_payload(i) == *sc.msg(line))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "trace `{}`, line {line}: {} events of type {} carry it",
        sc.label(),
        found.len(),
        kind.as_str()
    );
    found[0]
}

/// The permission request of a trace (one), the client's answer and their canonical pair:
/// `request.opened` of `request_type` carrying the request with its id as `providerRequestId`,
/// then one `request.resolved` carrying the answer, same request and turn.
fn permission_cycle(sc: &Scenario, request_type: CanonicalRequestType) -> (usize, usize, Value) {
    let line = sc.one_provider_line("session/request_permission");
    let id = sc.msg(line)["id"].clone();
    let answer = sc.client_response(&id);
    let opened = carrying(sc, line, T::RequestOpened);
    let request = payload!(sc.event(opened), RequestOpened).expect("request.opened");
    assert_eq!(request.request_type, request_type, "{}", sc.at(opened));
    assert_eq!(sc.raw_source(opened), Some(RuntimeEventRawSource::AcpRequest));
    assert_eq!(sc.provider_request_id(opened), Some(id.to_string().as_str()));
    let resolved = carrying(sc, answer, T::RequestResolved);
    assert_eq!(
        sc.event(resolved).request_id,
        sc.event(opened).request_id,
        "{}",
        sc.at(resolved)
    );
    assert_eq!(
        sc.event(resolved).turn_id,
        sc.event(opened).turn_id,
        "{}",
        sc.at(resolved)
    );
    assert_eq!(sc.raw_source(resolved), Some(RuntimeEventRawSource::AcpResponse));
    assert!(opened < resolved);
    (opened, resolved, sc.msg(answer)["result"].clone())
}

/// The canonical decision an option kind stands for.
fn decision_of(kind: &str) -> &'static str {
    match kind {
        "allow_once" => "accept",
        "allow_always" => "acceptForSession",
        "reject_once" | "reject_always" => "decline",
        other => panic!("unknown permission option kind {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Permissions

/// The permission request of a trace opens with `request_type` and resolves with the decision
/// the kind of the option the client chose stands for, the chosen option in `resolution`.
fn assert_permission(name: &str, request_type: CanonicalRequestType, expected: &str) {
    let sc = load(name);
    let (opened, resolved, response) = permission_cycle(&sc, request_type);
    let request_line = sc.one_provider_line("session/request_permission");
    let chosen = response["outcome"]["optionId"]
        .as_str()
        .expect("the client selected an option");
    let offered = sc.msg(request_line)["params"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|option| option["optionId"] == chosen)
        .expect("the chosen option was offered")
        .clone();
    let kind = offered["kind"].as_str().expect("a kind");
    assert_eq!(sc.decision(resolved), Some(decision_of(kind)), "{}", sc.at(resolved));
    assert_eq!(decision_of(kind), expected, "trace `{name}`: the scenario's own answer");
    let resolution = payload!(sc.event(resolved), RequestResolved)
        .and_then(|p| p.resolution.clone())
        .expect("a resolution");
    assert_eq!(resolution["optionId"], chosen, "{}", sc.at(resolved));
    assert_eq!(resolution["kind"], kind, "{}", sc.at(resolved));
    // The request belongs to the tool call it asks about.
    let tool_call = sc.msg(request_line)["params"]["toolCall"]["toolCallId"].clone();
    let refs = sc.event(opened).provider_refs.as_ref().expect("providerRefs");
    assert_eq!(
        refs.provider_item_id.as_ref().map(ToString::to_string),
        tool_call.as_str().map(str::to_string),
        "{}: the tool call's id",
        sc.at(opened)
    );
    // The session waits while the request is open, and runs again once it is answered.
    let states: Vec<_> = (opened..=resolved + 1)
        .filter_map(|i| payload!(sc.event(i), SessionStateChanged).map(|p| p.state))
        .collect();
    assert_eq!(
        states,
        [
            agentwire_canonical::SessionState::Waiting,
            agentwire_canonical::SessionState::Running
        ],
        "trace `{name}`"
    );
}

#[test]
fn tool_allow_and_tool_reject_resolve_with_the_chosen_option() {
    assert_permission("tool_allow", CanonicalRequestType::CommandExecutionApproval, "accept");
    assert_permission("tool_reject", CanonicalRequestType::CommandExecutionApproval, "decline");
    assert_permission(
        "gemini_shell_allow",
        CanonicalRequestType::CommandExecutionApproval,
        "accept",
    );
    assert_permission(
        "gemini_shell_reject",
        CanonicalRequestType::CommandExecutionApproval,
        "decline",
    );
    assert_permission("write_allow", CanonicalRequestType::FileChangeApproval, "accept");
    assert_permission(
        "gemini_write_existing_allow",
        CanonicalRequestType::FileChangeApproval,
        "accept",
    );
}

#[test]
fn a_permission_before_any_tool_call_starts_the_item_first() {
    // gemini asks before it reports the tool call: the request's `toolCall` starts the item,
    // the request then belongs to it, and gemini's `tool_call_update` completes it.
    let sc = load("gemini_shell_allow");
    assert!(
        sc.provider_lines_where(|msg| msg["params"]["update"]["sessionUpdate"] == "tool_call")
            .is_empty(),
        "the trace reports no tool_call"
    );
    let line = sc.one_provider_line("session/request_permission");
    let started = carrying(&sc, line, T::ItemStarted);
    let opened = carrying(&sc, line, T::RequestOpened);
    assert!(
        started < opened,
        "{}: the item starts before the request",
        sc.at(started)
    );
    assert_eq!(sc.item_type(started), Some(CanonicalItemType::CommandExecution));
    assert_eq!(sc.event(opened).item_id, sc.event(started).item_id, "{}", sc.at(opened));
    let completed = sc.completion_of(started);
    let status = payload!(sc.event(completed), ItemCompleted).and_then(|p| p.status);
    assert_eq!(status, Some(ItemStatus::Completed), "{}", sc.at(completed));
    assert!(
        completed > sc.next_for_request(opened, T::RequestResolved),
        "{}",
        sc.at(completed)
    );
}

#[test]
fn repeated_tool_call_starts_are_one_item() {
    let sc = load("old_terminal_allow");
    let starts = sc.provider_lines_where(|msg| msg["params"]["update"]["sessionUpdate"] == "tool_call");
    assert_eq!(starts.len(), 2, "the trace reports its tool call twice");
    let first = carrying(&sc, starts[0], T::ItemStarted);
    let again = carrying(&sc, starts[1], T::ItemUpdated);
    assert_eq!(sc.event(again).item_id, sc.event(first).item_id, "{}", sc.at(again));
    assert_eq!(sc.items(CanonicalItemType::CommandExecution).len(), 1);
}

// ---------------------------------------------------------------------------------------------
// Cancellation, errors, turns

#[test]
fn a_persons_stop_ends_the_turn_interrupted_with_nothing_left_open() {
    // The person's stop is `interrupted` whichever provider carried it (Claude, Codex); the
    // spec keeps `cancelled` for a prompt a newer one superseded (`a_superseded_prompt_ends_cancelled`).
    for name in [
        "cancel_during_tool",
        "cancel_midstream",
        "gemini_cancel_midstream",
        "codex_acp_cancel_midstream",
    ] {
        let sc = load(name);
        assert!(
            !sc.client_lines_where(|msg| msg["method"] == "session/cancel")
                .is_empty(),
            "trace `{name}`: the client cancels"
        );
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Interrupted, "{}", sc.at(completed));
        sc.assert_no_item_left_open();
        let late: Vec<usize> = sc
            .indices_of(T::ItemCompleted)
            .into_iter()
            .filter(|&i| i > completed)
            .collect();
        assert!(
            late.is_empty(),
            "trace `{name}`: items completed after the turn: {late:?}"
        );
        assert!(
            sc.indices_of(T::RuntimeError).is_empty(),
            "trace `{name}`: a cancel is no error"
        );
    }
    // The command cut off by the cancel was stopped, not crashed.
    let sc = load("cancel_during_tool");
    let (started, completed) = sc.items(CanonicalItemType::CommandExecution)[0];
    let payload = payload!(sc.event(completed), ItemCompleted).expect("item.completed");
    assert_eq!(payload.status, Some(ItemStatus::Declined), "{}", sc.at(completed));
    let title = payload!(sc.event(started), ItemStarted).and_then(|p| p.title.clone());
    assert_ne!(
        payload.title,
        title,
        "{}: the cut-off keeps the latest title",
        sc.at(completed)
    );
}

#[test]
fn error529_is_a_runtime_error_and_a_failed_turn() {
    let sc = load("error529");
    let (_, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Failed, "{}", sc.at(completed));
    let errors = sc.indices_of(T::RuntimeError);
    assert_eq!(errors.len(), 1, "one failure, one runtime.error");
    let error = payload!(sc.event(errors[0]), RuntimeError).expect("runtime.error");
    assert_eq!(error.class, Some(RuntimeErrorClass::ProviderError));
    assert!(error.message.contains("529"), "{}", sc.at(errors[0]));
    assert_eq!(sc.event(errors[0]).turn_id, sc.event(completed).turn_id);
    assert!(errors[0] < completed);
}

/// A transcript from the lines given, as `{"dir","msg"}` records.
fn transcript(lines: &[(&str, Value)]) -> String {
    lines
        .iter()
        .map(|(dir, msg)| json!({ "dir": dir, "msg": msg }).to_string() + "\n")
        .collect()
}

/// `initialize` (the agent named `agent`), `session/new` of session `s1` and a prompt (id 3).
fn opening(agent: &str) -> Vec<(&'static str, Value)> {
    vec![
        (
            "out",
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":agent,"version":"1.0.0"}}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}})),
        (
            "out",
            json!({"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}),
        ),
    ]
}

/// The events of `kind`, but for the person's prompt (every turn's first item, a `user_message`
/// keyed `prompt:<turn>`): these scenarios look at what the agent did.
fn events_of(norm: &Normalized, kind: T) -> Vec<usize> {
    (0..norm.events.len())
        .filter(|&i| norm.events[i].event.event_type() == kind && !is_prompt(&norm.events[i]))
        .collect()
}

fn is_prompt(event: &ProviderRuntimeEvent) -> bool {
    match &event.event {
        RuntimeEvent::ItemStarted(item) | RuntimeEvent::ItemCompleted(item) => {
            item.item_type == CanonicalItemType::UserMessage
                && event.raw.as_ref().and_then(|raw| raw.method.as_deref()) == Some("session/prompt")
        }
        _ => false,
    }
}

#[test]
fn the_persons_prompt_is_the_turns_first_item() {
    let mut lines = opening("gemini-cli");
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    let prompts: Vec<_> = norm.events.iter().filter(|event| is_prompt(event)).collect();
    assert_eq!(prompts.len(), 2, "started and completed: {}", norm.jsonl);
    let sent = lines
        .iter()
        .find(|(_, msg)| msg["method"] == "session/prompt")
        .map(|(_, msg)| msg["params"]["prompt"].clone())
        .expect("a prompt");
    for prompt in prompts {
        let data = match &prompt.event {
            RuntimeEvent::ItemStarted(item) | RuntimeEvent::ItemCompleted(item) => {
                item.data.as_ref().expect("data").to_value()
            }
            _ => unreachable!("a prompt is an item event"),
        };
        let text: Vec<&str> = sent
            .as_array()
            .expect("blocks")
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect();
        assert_eq!(
            data.into_owned(),
            json!({ "text": text.join("\n\n") }),
            "the prompt's text, no attachment"
        );
    }
    let first_item = norm
        .events
        .iter()
        .position(|event| matches!(event.event, RuntimeEvent::ItemStarted(_)));
    assert!(
        first_item.is_some_and(|at| is_prompt(&norm.events[at])),
        "{}",
        norm.jsonl
    );
}

#[test]
fn an_error_code_the_agent_chose_is_still_an_error() {
    // gemini answers a failed prompt with the model API's HTTP status as the JSON-RPC code.
    let mut lines = opening("gemini-cli");
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","id":3,"error":{"code":400,"message":"Request contains an invalid argument."}}),
    ));
    let norm = normalize_text(ACP, &transcript(&lines));
    let errors = events_of(&norm, T::RuntimeError);
    assert_eq!(errors.len(), 1);
    let error = payload!(norm.events[errors[0]], RuntimeError).expect("runtime.error");
    assert_eq!(error.class, Some(RuntimeErrorClass::ProviderError));
    let completed = events_of(&norm, T::TurnCompleted);
    let turn = payload!(norm.events[completed[0]], TurnCompleted).expect("turn.completed");
    assert_eq!(turn.state, TurnState::Failed);
    assert_eq!(
        turn.error_message.as_deref(),
        Some("Request contains an invalid argument.")
    );
}

#[test]
fn a_method_the_agent_lacks_is_a_warning_and_bad_params_an_error() {
    let mut lines = opening("some-agent");
    lines.push((
        "out",
        json!({"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"plan"}}),
    ));
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}),
    ));
    lines.push((
        "out",
        json!({"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"x"}}),
    ));
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params"}}),
    ));
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    let warnings = events_of(&norm, T::RuntimeWarning);
    assert_eq!(warnings.len(), 1, "{}", norm.jsonl);
    let errors = events_of(&norm, T::RuntimeError);
    assert_eq!(errors.len(), 1);
    let error = payload!(norm.events[errors[0]], RuntimeError).expect("runtime.error");
    assert_eq!(error.class, Some(RuntimeErrorClass::ValidationError));
    let completed = events_of(&norm, T::TurnCompleted);
    let turn = payload!(norm.events[completed[0]], TurnCompleted).expect("turn.completed");
    assert_eq!(
        turn.state,
        TurnState::Completed,
        "the session's errors do not fail the turn"
    );
}

#[test]
fn an_answer_that_stops_the_turn_ends_it_interrupted() {
    // codex-acp's one refusal option is Codex's `abort`: the agent answers the prompt
    // `cancelled` with no `session/cancel` and no newer prompt. The person stopped the turn.
    let sc = load("codex_acp_shell_reject");
    assert!(
        sc.client_lines_where(|msg| msg["method"] == "session/cancel")
            .is_empty(),
        "the client sends no session/cancel"
    );
    let (_, completed) = sc.single_turn();
    let turn = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    assert_eq!(
        turn.stop_reason,
        Some(Some("cancelled".to_string())),
        "{}",
        sc.at(completed)
    );
    assert_eq!(turn.state, TurnState::Interrupted, "{}", sc.at(completed));
}

#[test]
fn a_superseded_prompt_ends_cancelled() {
    let mut lines = opening("some-agent");
    lines.push((
        "out",
        json!({"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"instead"}]}}),
    ));
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}),
    ));
    lines.push(("in", json!({"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    let started = events_of(&norm, T::TurnStarted);
    let completed = events_of(&norm, T::TurnCompleted);
    assert_eq!((started.len(), completed.len()), (2, 2));
    let first = payload!(norm.events[completed[0]], TurnCompleted).expect("turn.completed");
    assert_eq!(first.state, TurnState::Cancelled);
    assert_eq!(norm.events[completed[0]].turn_id, norm.events[started[0]].turn_id);
    assert_eq!(norm.events[completed[1]].turn_id, norm.events[started[1]].turn_id);
}

#[test]
fn multi_prompt_keeps_turns_apart() {
    let sc = load("multi_prompt");
    let prompts = sc.client_lines_where(|msg| msg["method"] == "session/prompt");
    let started = sc.indices_of(T::TurnStarted);
    let completed = sc.indices_of(T::TurnCompleted);
    assert_eq!(started.len(), prompts.len());
    assert_eq!(completed.len(), prompts.len());
    assert!(prompts.len() >= 2);
    for (turn, (&start, &end)) in started.iter().zip(&completed).enumerate() {
        assert_eq!(sc.turn_id(start), sc.turn_id(end), "turn {turn}");
        for index in start..=end {
            if let Some(id) = &sc.event(index).turn_id {
                assert_eq!(id, sc.turn_id(start), "{}: outside its turn", sc.at(index));
            }
        }
        if let Some(&next) = started.get(turn + 1) {
            assert!(end < next, "turn {turn} ends before the next starts");
            assert_ne!(sc.turn_id(start), sc.turn_id(next));
        }
    }
    let ids: Vec<_> = sc.items(CanonicalItemType::AssistantMessage);
    assert!(ids.len() >= 2, "each turn has its answer");
}

// ---------------------------------------------------------------------------------------------
// Plans, terminals, messages

#[test]
fn todo_plan_gives_the_plan_entries() {
    let sc = load("todo_plan");
    let line = sc
        .provider_lines_where(|msg| msg["params"]["update"]["sessionUpdate"] == "plan")
        .first()
        .copied()
        .expect("a plan update");
    let index = carrying(&sc, line, T::TurnPlanUpdated);
    let plan = payload!(sc.event(index), TurnPlanUpdated).expect("turn.plan.updated");
    let entries = sc.msg(line)["params"]["update"]["entries"].as_array().expect("entries");
    assert_eq!(plan.plan.len(), entries.len());
    for (step, entry) in plan.plan.iter().zip(entries) {
        assert_eq!(step.step, entry["content"].as_str().expect("content"));
        let status = match entry["status"].as_str() {
            Some("pending") => PlanStepStatus::Pending,
            Some("in_progress") => PlanStepStatus::InProgress,
            Some("completed") => PlanStepStatus::Completed,
            other => panic!("status {other:?}"),
        };
        assert_eq!(step.status, status);
    }
    assert!(sc.event(index).turn_id.is_some(), "{}: in its turn", sc.at(index));
}

#[test]
fn gemini_todos_are_a_tool_call_without_entries() {
    // gemini-cli 0.61 reports its write_todos tool as a `kind: other` tool call titled
    // "Set 3 todo(s)" and sends no `plan` update: the entries are nowhere on the wire, so there
    // is no turn.plan.updated to give, only the tool call.
    let sc = load("gemini_todos");
    assert!(
        sc.provider_lines_where(|msg| msg["params"]["update"]["sessionUpdate"] == "plan")
            .is_empty()
    );
    assert!(sc.indices_of(T::TurnPlanUpdated).is_empty());
    let items = sc.items(CanonicalItemType::DynamicToolCall);
    assert_eq!(items.len(), 1);
    let title = payload!(sc.event(items[0].1), ItemCompleted).and_then(|p| p.title.clone());
    assert_eq!(title.as_deref(), Some("Set 3 todo(s)"));
}

#[test]
fn old_terminal_work_is_tied_to_its_tool_call() {
    let sc = load("old_terminal_allow");
    let (started, _) = sc.items(CanonicalItemType::CommandExecution)[0];
    let item = sc.event(started).item_id.clone();
    for method in [
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release",
    ] {
        let line = sc.one_provider_line(method);
        let progress = carrying(&sc, line, T::ToolProgress);
        assert_eq!(sc.event(progress).item_id, item, "{}", sc.at(progress));
    }
    // The output the client read back from the terminal is the command's output.
    let output_request = sc.one_provider_line("terminal/output");
    let id = sc.msg(output_request)["id"].clone();
    let response = sc.client_response(&id);
    let delta = carrying(&sc, response, T::ContentDelta);
    let payload = payload!(sc.event(delta), ContentDelta).expect("content.delta");
    assert_eq!(payload.stream_kind, ContentStreamKind::CommandOutput);
    assert_eq!(
        payload.delta,
        sc.msg(response)["result"]["output"].as_str().expect("output")
    );
    sc.assert_delta_on_open_item(delta, CanonicalItemType::CommandExecution);
    assert_eq!(sc.event(delta).item_id, item);

    let sc = load("old_terminal_reject");
    sc.assert_no_item_left_open();
    let (_, resolved, _) = permission_cycle(&sc, CanonicalRequestType::CommandExecutionApproval);
    assert_eq!(sc.decision(resolved), Some("decline"));
}

#[test]
fn terminal_output_in_meta_is_command_output() {
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","kind":"execute","status":"in_progress"}}}),
    ));
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","_meta":{"terminal_output":{"terminal_id":"t1","data":"a.txt\n"}}}}}),
    ));
    lines.push((
        "in",
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}),
    ));
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    let deltas = events_of(&norm, T::ContentDelta);
    assert_eq!(deltas.len(), 1);
    let delta = payload!(norm.events[deltas[0]], ContentDelta).expect("content.delta");
    assert_eq!(
        (delta.stream_kind, delta.delta.as_str()),
        (ContentStreamKind::CommandOutput, "a.txt\n")
    );
    let started = events_of(&norm, T::ItemStarted);
    assert_eq!(norm.events[deltas[0]].item_id, norm.events[started[0]].item_id);
}

#[test]
fn every_acp_trace_leaves_nothing_open_and_every_message_has_its_text() {
    for sc in Scenario::all(ACP) {
        sc.assert_no_item_left_open();
        for (started, completed) in sc.items(CanonicalItemType::AssistantMessage) {
            let streamed: String = (started..completed)
                .filter(|&i| sc.event(i).item_id == sc.event(started).item_id)
                .filter_map(|i| payload!(sc.event(i), ContentDelta).map(|p| p.delta.clone()))
                .collect();
            let data = payload!(sc.event(completed), ItemCompleted)
                .and_then(|p| p.data.clone())
                .map(Json::into_value);
            assert_eq!(
                data.as_ref().and_then(|d| d["text"].as_str()),
                Some(streamed.as_str()),
                "{}: the completed message holds what was streamed",
                sc.at(completed)
            );
        }
        for index in 0..sc.events().len() {
            assert_eq!(sc.event(index).provider, ProviderKind::Acp, "{}", sc.at(index));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Detection

#[test]
fn every_corpus_folder_is_detected_as_its_own_source() {
    let folders = std::fs::read_dir(tests_dir().join("corpus")).expect("the corpus folder");
    let mut checked = 0;
    for folder in folders {
        let folder = folder.expect("an entry").path();
        let Some(name) = folder.file_name().and_then(|name| name.to_str()).map(str::to_string) else {
            continue;
        };
        let Ok(source) = name.parse::<Source>() else {
            continue;
        };
        for trace in corpus_traces(&name) {
            let text = std::fs::read_to_string(&trace).expect("a trace");
            let detected = Source::detect(text.lines().take(64)).map(|(source, _)| source);
            assert_eq!(detected, Some(source), "{}", trace.display());
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn acp_initialize_alone_decides_nothing_and_the_agent_answer_does() {
    let lines = opening("Cursor Agent");
    let initialize = transcript(&lines[..1]);
    assert_eq!(
        Source::detect(initialize.lines()),
        None,
        "neither Codex nor ACP claims it"
    );
    let answered = transcript(&lines[..2]);
    assert_eq!(
        Source::detect(answered.lines()),
        Some((Source::CURSOR, LineFormat::Transcript))
    );
    let gemini = transcript(&opening("gemini-cli")[..2]);
    assert_eq!(
        Source::detect(gemini.lines()),
        Some((Source::ACP, LineFormat::Transcript))
    );
    let codex = r#"{"dir":"out","ts":1,"msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"}}}}"#;
    assert_eq!(
        Source::detect([codex]),
        Some((Source::CODEX_APP_SERVER, LineFormat::Transcript))
    );
}

// ---------------------------------------------------------------------------------------------
// Cursor

/// A Cursor session: `initialize` (agentInfo names Cursor), `session/new`, a prompt, then
/// `extra`, then the prompt's answer.
fn cursor(extra: Vec<(&'static str, Value)>) -> Normalized {
    let mut lines = opening("Cursor Agent");
    lines.extend(extra);
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(Source::CURSOR, &transcript(&lines));
    assert!(norm.events.iter().all(|event| event.provider == ProviderKind::Cursor));
    assert!(events_of(&norm, T::RuntimeWarning).is_empty(), "{}", norm.jsonl);
    norm
}

fn one(norm: &Normalized, kind: T) -> usize {
    let found = events_of(norm, kind);
    assert_eq!(found.len(), 1, "{}: {}", kind.as_str(), norm.jsonl);
    found[0]
}

fn decision(norm: &Normalized) -> Option<String> {
    payload!(norm.events[one(norm, T::RequestResolved)], RequestResolved).and_then(|p| p.decision.clone())
}

#[test]
fn an_acp_agent_named_cursor_is_provider_cursor() {
    let mut lines = opening("Cursor Agent");
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    assert!(norm.events.iter().all(|event| event.provider == ProviderKind::Cursor));
}

#[test]
fn cursor_ask_question_is_user_input() {
    let norm = cursor(vec![
        (
            "in",
            json!({"jsonrpc":"2.0","id":7,"method":"cursor/ask_question","params":{"toolCallId":"q1","title":"Pick","questions":[{"id":"lang","prompt":"Which?","options":[{"id":"rs","label":"Rust"},{"id":"ts","label":"TS"}]}]}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"answered","answers":[{"questionId":"lang","selectedOptionIds":["rs"]}]}}}),
        ),
    ]);
    let opened = one(&norm, T::RequestOpened);
    let request = payload!(norm.events[opened], RequestOpened).expect("request.opened");
    assert_eq!(request.request_type, CanonicalRequestType::ToolUserInput);
    let asked = one(&norm, T::UserInputRequested);
    let questions = &payload!(norm.events[asked], UserInputRequested)
        .expect("questions")
        .questions;
    assert_eq!(questions[0]["id"], "lang");
    let answered = one(&norm, T::UserInputResolved);
    let answers = &payload!(norm.events[answered], UserInputResolved)
        .expect("answers")
        .answers;
    assert_eq!(answers[0]["selectedOptionIds"][0], "rs");
    assert_eq!(decision(&norm).as_deref(), Some("answered"));
    let states: Vec<_> = norm
        .events
        .iter()
        .filter_map(|e| payload!(e, SessionStateChanged).map(|p| p.state))
        .collect();
    assert!(states.contains(&agentwire_canonical::SessionState::Waiting));
}

#[test]
fn cursor_create_plan_is_a_plan_to_approve() {
    let norm = cursor(vec![
        (
            "in",
            json!({"jsonrpc":"2.0","id":8,"method":"cursor/create_plan","params":{"toolCallId":"p1","name":"Refactor","overview":"Split it","plan":"# Plan\n1. split","todos":[{"id":"a","content":"split","status":"pending"}]}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":8,"result":{"outcome":{"outcome":"rejected","reason":"no"}}}),
        ),
    ]);
    let started = one(&norm, T::ItemStarted);
    assert_eq!(
        payload!(norm.events[started], ItemStarted).map(|p| p.item_type),
        Some(CanonicalItemType::Plan)
    );
    let delta = one(&norm, T::ContentDelta);
    let text = payload!(norm.events[delta], ContentDelta).expect("delta");
    assert_eq!(
        (text.stream_kind, text.delta.as_str()),
        (ContentStreamKind::PlanText, "# Plan\n1. split")
    );
    let plan = payload!(norm.events[one(&norm, T::TurnPlanUpdated)], TurnPlanUpdated).expect("plan");
    assert_eq!(plan.plan[0].step, "split");
    let request = payload!(norm.events[one(&norm, T::RequestOpened)], RequestOpened).expect("request");
    assert_eq!(
        (request.request_type, request.detail.as_deref()),
        (CanonicalRequestType::PlanApproval, Some("# Plan\n1. split")),
        "a plan to approve, read by its text"
    );
    let completed = one(&norm, T::ItemCompleted);
    let item = payload!(norm.events[completed], ItemCompleted).expect("item.completed");
    assert_eq!(
        item.data.as_ref().map(|data| data.to_value().into_owned()),
        Some(json!({
            "steps": [{ "step": "split", "status": "pending" }],
            "markdown": "# Plan\n1. split",
            "explanation": "Split it"
        }))
    );
    assert_eq!(decision(&norm).as_deref(), Some("decline"));
}

#[test]
fn a_cursor_refusal_carries_its_reason_as_the_message() {
    for name in ["ask_question_skipped", "create_plan_rejected"] {
        let sc = Scenario::load(Source::CURSOR, name);
        let answers = sc.client_lines_where(|msg| msg["result"]["outcome"]["reason"].is_string());
        assert_eq!(answers.len(), 1, "trace `{name}`: one refusal with a reason");
        let reason = &sc.msg(answers[0])["result"]["outcome"]["reason"];
        let resolved = sc.indices_of(T::RequestResolved);
        assert_eq!(resolved.len(), 1, "trace `{name}`: one request.resolved");
        let payload = payload!(sc.event(resolved[0]), RequestResolved).expect("request.resolved");
        assert_eq!(payload.decision.as_deref(), Some("decline"), "{}", sc.at(resolved[0]));
        let resolution = payload.resolution.as_ref().expect("a resolution");
        assert_eq!(&resolution["message"], reason, "{}: the message", sc.at(resolved[0]));
        assert_eq!(
            resolution["outcome"],
            sc.msg(answers[0])["result"]["outcome"],
            "{}: the client's outcome kept whole",
            sc.at(resolved[0])
        );
    }
}

#[test]
fn cursor_update_todos_is_the_plan_merged_by_id() {
    let norm = cursor(vec![
        (
            "in",
            json!({"jsonrpc":"2.0","id":9,"method":"cursor/update_todos","params":{"toolCallId":"u1","merge":false,"todos":[{"id":"a","content":"one","status":"in_progress"},{"id":"b","content":"two","status":"pending"}]}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":9,"result":{"outcome":{"outcome":"accepted","todos":[]}}}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","id":10,"method":"cursor/update_todos","params":{"toolCallId":"u2","merge":true,"todos":[{"id":"a","status":"completed"}]}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":10,"result":{"outcome":{"outcome":"accepted","todos":[]}}}),
        ),
    ]);
    let plans = events_of(&norm, T::TurnPlanUpdated);
    assert_eq!(plans.len(), 2);
    let last = payload!(norm.events[plans[1]], TurnPlanUpdated).expect("plan");
    let steps: Vec<_> = last.plan.iter().map(|s| (s.step.as_str(), s.status)).collect();
    assert_eq!(
        steps,
        [("one", PlanStepStatus::Completed), ("two", PlanStepStatus::Pending)]
    );
    let resolved = events_of(&norm, T::RequestResolved);
    assert_eq!(resolved.len(), 2);
    for index in resolved {
        let decision = payload!(norm.events[index], RequestResolved).and_then(|p| p.decision.clone());
        assert_eq!(decision.as_deref(), Some("answered"));
    }
}

#[test]
fn cursor_task_is_a_subagent_item() {
    let norm = cursor(vec![
        (
            "in",
            json!({"jsonrpc":"2.0","id":11,"method":"cursor/task","params":{"toolCallId":"k1","description":"Explore the repo","prompt":"look around","subagentType":"explore"}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":11,"result":{"outcome":{"outcome":"completed","durationMs":1200}}}),
        ),
    ]);
    let started = one(&norm, T::ItemStarted);
    let completed = one(&norm, T::ItemCompleted);
    let item = payload!(norm.events[completed], ItemCompleted).expect("item.completed");
    assert_eq!(item.item_type, CanonicalItemType::CollabAgentToolCall);
    assert_eq!(item.status, Some(ItemStatus::Completed));
    assert_eq!(item.title.as_deref(), Some("Explore the repo"));
    assert_eq!(norm.events[started].item_id, norm.events[completed].item_id);
    assert_eq!(decision(&norm).as_deref(), Some("answered"));
}

#[test]
fn cursor_generate_image_is_an_image_item() {
    let norm = cursor(vec![
        (
            "in",
            json!({"jsonrpc":"2.0","id":12,"method":"cursor/generate_image","params":{"toolCallId":"g1","description":"a cat"}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":12,"result":{"outcome":{"outcome":"generated","filePath":"/w/cat.png"}}}),
        ),
    ]);
    let completed = one(&norm, T::ItemCompleted);
    let item = payload!(norm.events[completed], ItemCompleted).expect("item.completed");
    assert_eq!(item.item_type, CanonicalItemType::ImageGeneration);
    assert_eq!(item.status, Some(ItemStatus::Completed));
    assert_eq!(
        item.data.as_ref().map(|d| d.to_value().into_owned()),
        Some(json!({ "prompt": "a cat", "path": "/w/cat.png" }))
    );
    assert_eq!(decision(&norm).as_deref(), Some("answered"));
}

#[test]
fn a_client_error_answering_a_cursor_request_fails_it() {
    let norm = cursor(vec![
        (
            "in",
            json!({"jsonrpc":"2.0","id":13,"method":"cursor/generate_image","params":{"toolCallId":"g2","description":"a dog"}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":13,"error":{"code":-32601,"message":"Method not found"}}),
        ),
    ]);
    assert_eq!(decision(&norm).as_deref(), Some("error"));
    let completed = one(&norm, T::ItemCompleted);
    let item = payload!(norm.events[completed], ItemCompleted).expect("item.completed");
    assert_eq!(item.status, Some(ItemStatus::Failed));
}

#[test]
fn a_loaded_session_replays_its_history_as_items_outside_any_turn() {
    let lines = vec![
        (
            "out",
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"s1","cwd":"/w","mcpServers":[]}}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","kind":"execute","status":"pending"}}}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":2,"result":{}})),
    ];
    let norm = normalize_text(ACP, &transcript(&lines));
    assert!(events_of(&norm, T::TurnStarted).is_empty());
    let started = events_of(&norm, T::SessionStarted);
    assert_eq!(started.len(), 1);
    let resume = payload!(norm.events[started[0]], SessionStarted).and_then(|p| p.resume.clone());
    assert_eq!(resume.map(|r| r["sessionId"].clone()), Some(json!("s1")));
    let types: Vec<_> = events_of(&norm, T::ItemCompleted)
        .into_iter()
        .filter_map(|i| payload!(norm.events[i], ItemCompleted).map(|p| (p.item_type, p.status)))
        .collect();
    assert_eq!(
        types,
        [
            (CanonicalItemType::UserMessage, Some(ItemStatus::Completed)),
            (CanonicalItemType::AssistantMessage, Some(ItemStatus::Completed)),
            (CanonicalItemType::CommandExecution, Some(ItemStatus::Failed)),
        ]
    );
    for index in events_of(&norm, T::ItemCompleted) {
        assert!(norm.events[index].turn_id.is_none());
        assert!(norm.events[index].thread_id.is_some());
    }
}

#[test]
fn a_refused_tool_call_ends_declined_not_failed() {
    // Claude's adapter reports the refused call `failed`; gemini reports nothing more of it.
    for name in ["tool_reject", "gemini_shell_reject", "old_terminal_reject"] {
        let sc = load(name);
        let items = sc.items(CanonicalItemType::CommandExecution);
        assert_eq!(items.len(), 1, "trace `{name}`");
        let status = payload!(sc.event(items[0].1), ItemCompleted).and_then(|p| p.status);
        assert_eq!(status, Some(ItemStatus::Declined), "{}", sc.at(items[0].1));
    }
}

#[test]
fn every_cursor_transcript_is_provider_cursor_with_nothing_left_open() {
    let all = Scenario::all(Source::CURSOR);
    assert!(!all.is_empty());
    for sc in all {
        sc.assert_no_item_left_open();
        for index in 0..sc.events().len() {
            assert_eq!(sc.event(index).provider, ProviderKind::Cursor, "{}", sc.at(index));
        }
    }
}

#[test]
fn a_cancel_the_agent_does_not_support_is_a_warning_and_the_turn_runs_on() {
    // A client sending `session/cancel` as a request gets -32601: the spec's `runtime.warning`,
    // and the prompt completes as the agent answers it.
    for (source, name) in [
        (ACP, "codex_acp_cancel_as_request"),
        (Source::CURSOR, "cancel_unsupported"),
    ] {
        let sc = Scenario::load(source, name);
        let cancel = sc.client_lines_where(|msg| msg["method"] == "session/cancel" && msg.get("id").is_some());
        assert_eq!(cancel.len(), 1, "trace `{name}`");
        let answer = sc.provider_lines_where(|msg| msg["id"] == sc.msg(cancel[0])["id"] && msg.get("error").is_some());
        assert_eq!(answer.len(), 1, "trace `{name}`");
        let warning = carrying(&sc, answer[0], T::RuntimeWarning);
        let message = &payload!(sc.event(warning), RuntimeWarning)
            .expect("runtime.warning")
            .message;
        assert!(message.contains("session/cancel"), "{}", sc.at(warning));
        assert!(sc.indices_of(T::RuntimeError).is_empty(), "trace `{name}`");
        let completed = sc.indices_of(T::TurnCompleted);
        assert!(!completed.is_empty());
        assert!(
            completed.iter().any(|&i| sc.turn_state(i) == TurnState::Completed),
            "trace `{name}`"
        );
    }
}

/// An agent's generic "Internal error" with the cause in `data.message`: the message a person
/// reads carries the cause.
#[test]
fn an_error_message_carries_its_cause() {
    for name in ["codex_acp_error400", "codex_acp_error500"] {
        let sc = load(name);
        let line = sc.provider_lines_where(|msg| msg["error"]["data"]["message"].is_string())[0];
        let cause = sc.msg(line)["error"]["data"]["message"].as_str().unwrap().to_string();
        // A cause that is an API's JSON error document reads as its sentence.
        let cause = agentwire::content::readable_error(&cause).unwrap_or(cause);
        let errors = sc.indices_of(T::RuntimeError);
        assert_eq!(errors.len(), 1, "{name}");
        let error = payload!(sc.event(errors[0]), RuntimeError).expect("runtime.error");
        assert!(error.message.contains(&cause), "{name}: {}", error.message);
    }
}

// ---------------------------------------------------------------------------------------------
// Claude's adapter: subagents

/// A `session/update` of session `s1`.
fn update(update: Value) -> (&'static str, Value) {
    (
        "in",
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":update}}),
    )
}

/// The events that carry `msg` as `raw.payload`, as JSON.
fn carried(norm: &Normalized, msg: &Value) -> Vec<Value> {
    norm.events
        .iter()
        .map(|event| serde_json::to_value(event).expect("an event serializes"))
        .filter(|event| event["raw"]["payload"] == *msg)
        .collect()
}

/// A Task run through `claude-agent-acp` (0.19.1's shapes, `dist/acp-agent.js`
/// `toAcpNotifications` and `tools.js`): the Task's `tool_call` (kind `think`,
/// `_meta.claudeCode.toolName: "Task"`), the subagent's Bash call marked
/// `_meta.claudeCode.parentToolUseId`, its permission (no `_meta`), its PostToolUse update (no
/// parent either), its result, a text chunk of the subagent, then the Task's result.
fn task_through_the_adapter() -> Vec<(&'static str, Value)> {
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.extend([
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Task"}},"toolCallId":"toolu_task","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Task","kind":"think","content":[]}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Task"}},"toolCallId":"toolu_task","sessionUpdate":"tool_call_update","rawInput":{"description":"List the files","prompt":"Run ls and report the files","subagent_type":"general-purpose"},"title":"List the files","kind":"think","content":[{"type":"content","content":{"type":"text","text":"Run ls and report the files"}}]}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Bash","parentToolUseId":"toolu_task"}},"toolCallId":"toolu_ls","sessionUpdate":"tool_call","rawInput":{"command":"ls","description":"List files"},"status":"pending","title":"ls","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"List files"}}]}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"options":[{"kind":"allow_always","name":"Always Allow","optionId":"allow_always"},{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Reject","optionId":"reject"}],"sessionId":"s1","toolCall":{"toolCallId":"toolu_ls","rawInput":{"command":"ls","description":"List files"},"title":"ls","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"List files"}}]}}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolResponse":{"stdout":"a.txt\nb.txt","stderr":"","interrupted":false,"isImage":false},"toolName":"Bash"}},"toolCallId":"toolu_ls","sessionUpdate":"tool_call_update"}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Bash","parentToolUseId":"toolu_task"}},"toolCallId":"toolu_ls","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"a.txt\nb.txt","content":[{"type":"content","content":{"type":"text","text":"```console\na.txt\nb.txt\n```"}}]}),
        ),
        update(
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"I found two files."},"_meta":{"claudeCode":{"parentToolUseId":"toolu_task"}}}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Task"}},"toolCallId":"toolu_task","sessionUpdate":"tool_call_update","status":"completed","rawOutput":[{"type":"text","text":"Two files: a.txt and b.txt."}],"content":[{"type":"content","content":{"type":"text","text":"Two files: a.txt and b.txt."}}]}),
        ),
        update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"There are two files."}})),
    ]);
    lines
}

#[test]
fn a_claude_task_through_acp_is_a_subagent_item_with_its_calls_under_it() {
    let mut lines = task_through_the_adapter();
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    assert!(events_of(&norm, T::RuntimeWarning).is_empty(), "{}", norm.jsonl);
    // Two cards: the Task and the answer; the subagent's Bash call is none of its own.
    let started: Vec<_> = events_of(&norm, T::ItemStarted)
        .into_iter()
        .filter_map(|i| payload!(norm.events[i], ItemStarted).map(|p| (i, p.item_type)))
        .collect();
    assert_eq!(
        started.iter().map(|(_, item_type)| *item_type).collect::<Vec<_>>(),
        [
            CanonicalItemType::CollabAgentToolCall,
            CanonicalItemType::AssistantMessage
        ],
        "{}",
        norm.jsonl
    );
    let task = &norm.events[started[0].0];
    assert_eq!(
        task.provider_refs
            .as_ref()
            .and_then(|r| r.provider_item_id.as_ref())
            .map(ToString::to_string)
            .as_deref(),
        Some("toolu_task")
    );
    let completed = events_of(&norm, T::ItemCompleted);
    let task_end = completed
        .iter()
        .find(|&&i| norm.events[i].item_id == task.item_id)
        .expect("the Task completes");
    let end = payload!(norm.events[*task_end], ItemCompleted).expect("item.completed");
    assert_eq!(end.item_type, CanonicalItemType::CollabAgentToolCall);
    assert_eq!(end.status, Some(ItemStatus::Completed));
    assert_eq!(end.title.as_deref(), Some("List the files"));
    // Each report of the subagent's call (the two marked with the Task's id, and the one that
    // is not) and its text are updates of the Task item carrying the report, never text of the
    // turn.
    let task_id = serde_json::to_value(&task.item_id).expect("an item id");
    for line in [8, 11, 12, 13] {
        let msg = &lines[line - 1].1;
        let events = carried(&norm, msg);
        assert_eq!(events.len(), 1, "line {line}: {}", norm.jsonl);
        let event = &events[0];
        assert_eq!(event["type"], "item.updated", "line {line}");
        assert_eq!(event["itemId"], task_id, "line {line}: under the Task item");
        assert_eq!(event["payload"]["itemType"], "collab_agent_tool_call", "line {line}");
        assert_eq!(event["payload"]["status"], "inProgress", "line {line}");
        assert_eq!(event["payload"]["title"], "List the files", "line {line}");
        assert_eq!(
            event["payload"]["data"]["tool"], "Task",
            "line {line}: the Task's content"
        );
        assert_eq!(event["payload"]["data"]["description"], "List the files", "line {line}");
    }
    // The subagent's permission asks for a command, on the Task's card.
    let request = &lines[8].1;
    let opened: Vec<Value> = carried(&norm, request)
        .into_iter()
        .filter(|event| event["type"] == "request.opened")
        .collect();
    assert_eq!(opened.len(), 1, "{}", norm.jsonl);
    assert_eq!(opened[0]["payload"]["requestType"], "command_execution_approval");
    assert_eq!(opened[0]["itemId"], task_id);
    assert_eq!(decision_in(&norm).as_deref(), Some("accept"));
    assert!(
        norm.events.iter().all(|event| event
            .provider_refs
            .as_ref()
            .and_then(|r| r.provider_item_id.as_ref())
            .is_none_or(|id| id.to_string() != "toolu_ls")),
        "no event names the subagent's call as an item: {}",
        norm.jsonl
    );
}

fn decision_in(norm: &Normalized) -> Option<String> {
    payload!(norm.events[one(norm, T::RequestResolved)], RequestResolved).and_then(|p| p.decision.clone())
}

#[test]
fn a_subagent_still_working_after_its_task_completed_is_task_progress() {
    // A background subagent (`run_in_background`): the Task's result comes first, the
    // subagent's calls after it; a completed item never reopens.
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.extend([
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Agent"}},"toolCallId":"toolu_bg","sessionUpdate":"tool_call","rawInput":{"description":"Watch the build","prompt":"watch","run_in_background":true},"status":"pending","title":"Watch the build","kind":"think","content":[]}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Agent"}},"toolCallId":"toolu_bg","sessionUpdate":"tool_call_update","status":"completed","rawOutput":[{"type":"text","text":"Async agent launched successfully."}]}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Bash","parentToolUseId":"toolu_bg"}},"toolCallId":"toolu_make","sessionUpdate":"tool_call","rawInput":{"command":"make"},"status":"pending","title":"make","kind":"execute","content":[]}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})),
    ]);
    let norm = normalize_text(ACP, &transcript(&lines));
    let started = one(&norm, T::ItemStarted);
    let item = payload!(norm.events[started], ItemStarted).expect("item.started");
    assert_eq!(item.item_type, CanonicalItemType::CollabAgentToolCall);
    let late = carried(&norm, &lines[7].1);
    assert_eq!(late.len(), 1, "{}", norm.jsonl);
    assert_eq!(late[0]["type"], "task.progress");
    assert_eq!(late[0]["payload"]["description"], "the subagent uses Bash");
    assert_eq!(
        late[0]["itemId"],
        serde_json::to_value(&norm.events[started].item_id).unwrap()
    );
}

#[test]
fn a_think_tool_call_that_is_no_task_stays_reasoning() {
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.extend([
        update(
            json!({"_meta":{"claudeCode":{"toolName":"TodoWrite"}},"toolCallId":"toolu_todo","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Update TODOs","kind":"think","content":[]}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})),
    ]);
    let norm = normalize_text(ACP, &transcript(&lines));
    let started = one(&norm, T::ItemStarted);
    let item = payload!(norm.events[started], ItemStarted).expect("item.started");
    assert_eq!(item.item_type, CanonicalItemType::Reasoning);
}

// ---------------------------------------------------------------------------------------------
// Typed item content

/// The `data` of the last item event of the item a `toolCallId` names (its content at the end).
fn last_data(norm: &Normalized, msg: &Value) -> (String, Value) {
    let event = carried(norm, msg)
        .into_iter()
        .rfind(|event| event["type"].as_str().is_some_and(|kind| kind.starts_with("item.")))
        .unwrap_or_else(|| panic!("an item event carries {msg}: {}", norm.jsonl));
    (
        event["payload"]["itemType"].as_str().unwrap_or_default().to_owned(),
        event["payload"]["data"].clone(),
    )
}

#[test]
fn a_codex_acp_search_command_is_a_command_and_its_mcp_call_an_mcp_tool_call() {
    // codex-acp (`thread.rs`, `parse_command_tool_call`) files a command that searches under
    // kind `search`, its argv in `rawInput.command`; an MCP call under no kind, Codex's
    // invocation `{server, tool, arguments}` in `rawInput`. The other Codex sources call them a
    // `command_execution` and an `mcp_tool_call`.
    let mut lines = opening("codex-acp");
    lines.extend([
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"call_rg","title":"Search fetchUser in src","kind":"search","status":"in_progress","rawInput":{"call_id":"call_rg","command":["/bin/bash","-lc","rg fetchUser src"],"cwd":"/w","parsed_cmd":[{"type":"search","cmd":"rg fetchUser src","query":"fetchUser","path":"src"}]}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"call_rg","status":"completed","rawOutput":{"call_id":"call_rg","command":["/bin/bash","-lc","rg fetchUser src"],"cwd":"/w","aggregated_output":"src/user.ts:12\n","exit_code":0,"duration":{"secs":0,"nanos":7000000}}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"call_mcp","title":"Tool: echo/echo_text","status":"in_progress","rawInput":{"server":"echo","tool":"echo_text","arguments":{"text":"hi"}}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"call_mcp","status":"completed","rawOutput":{"content":[{"type":"text","text":"echo: hi"}]},"content":[{"type":"content","content":{"type":"text","text":"echo: hi"}}]}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})),
    ]);
    let norm = normalize_text(ACP, &transcript(&lines));
    let (item_type, data) = last_data(&norm, &lines[6].1);
    assert_eq!(item_type, "command_execution", "{}", norm.jsonl);
    assert_eq!(
        data,
        json!({"command":"rg fetchUser src","cwd":"/w","exitCode":0,"output":"src/user.ts:12\n","durationMs":7})
    );
    let (item_type, data) = last_data(&norm, &lines[8].1);
    assert_eq!(item_type, "mcp_tool_call", "{}", norm.jsonl);
    assert_eq!(
        data,
        json!({"server":"echo","tool":"echo_text","arguments":{"text":"hi"},"result":"echo: hi"})
    );
}

#[test]
fn a_permission_left_open_when_its_turn_ends_is_cancelled_with_the_turn() {
    // The person stops the turn while a permission is asked; the agent answers the prompt
    // `cancelled` and the client answers the permission only later.
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.extend([
        update(
            json!({"toolCallId":"toolu_1","sessionUpdate":"tool_call","rawInput":{"command":"touch x"},"status":"pending","title":"touch x","kind":"execute","content":[]}),
        ),
        (
            "in",
            json!({"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Reject","optionId":"reject"}],"sessionId":"s1","toolCall":{"toolCallId":"toolu_1","rawInput":{"command":"touch x"},"title":"touch x","kind":"execute"}}}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}})),
        (
            "out",
            json!({"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}),
        ),
    ]);
    let norm = normalize_text(ACP, &transcript(&lines));
    let resolved = one(&norm, T::RequestResolved);
    let completed = one(&norm, T::TurnCompleted);
    assert!(
        resolved < completed,
        "the card is settled with its turn: {}",
        norm.jsonl
    );
    assert_eq!(decision_in(&norm).as_deref(), Some("cancel"));
    let turn = payload!(norm.events[completed], TurnCompleted).expect("turn.completed");
    assert_eq!(turn.state, TurnState::Interrupted);
    // The `cancelled` reply ACP asks for after `session/cancel` repeats the answer the
    // settlement gave: no warning, and, as any message that repeats a fact and changes no
    // state, no event (`QUIET_FRAMES` of `tests/normalize.rs`: OpenCode's confirmation of a
    // reply settled already is the same).
    let late = carried(&norm, &lines[9].1);
    assert!(late.is_empty(), "the owed reply is quiet: {}", norm.jsonl);
    assert!(!norm.jsonl.contains("runtime.warning"), "{}", norm.jsonl);
    // Any other late answer changes nothing and is said.
    let allowed = json!({"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}});
    lines[9] = ("out", allowed);
    let norm = normalize_text(ACP, &transcript(&lines));
    let late = carried(&norm, &lines[9].1);
    assert_eq!(late.len(), 1, "{}", norm.jsonl);
    assert_eq!(late[0]["type"], "runtime.warning");
}

#[test]
fn claude_acps_ready_to_code_is_a_plan_approval_with_the_plan() {
    let sc = load("exit_plan_mode_approve");
    let line = sc
        .provider_lines_where(|msg| {
            msg["method"] == "session/request_permission" && msg["params"]["toolCall"]["kind"] == "switch_mode"
        })
        .into_iter()
        .next()
        .expect("the plan's permission");
    let plan = sc.msg(line)["params"]["toolCall"]["rawInput"]["plan"].clone();
    let opened = carrying(&sc, line, T::RequestOpened);
    let request = payload!(sc.event(opened), RequestOpened).expect("request.opened");
    assert_eq!(
        request.request_type,
        CanonicalRequestType::PlanApproval,
        "{}",
        sc.at(opened)
    );
    assert_eq!(request.detail.as_deref(), plan.as_str(), "the plan's text");
    // The card is the plan's: a `plan` item whose text is the plan.
    let item = sc
        .indices_of(T::ItemCompleted)
        .into_iter()
        .find(|&i| sc.event(i).item_id == sc.event(opened).item_id)
        .expect("the plan's item completes");
    let payload = payload!(sc.event(item), ItemCompleted).expect("item.completed");
    assert_eq!(payload.item_type, CanonicalItemType::Plan, "{}", sc.at(item));
    assert_eq!(
        payload.data.as_ref().map(|data| data.to_value().into_owned()),
        Some(json!({ "steps": [], "markdown": plan }))
    );
}

#[test]
fn a_prompts_text_is_joined_and_its_other_blocks_are_attachments() {
    let mut lines = opening("gemini-cli");
    lines[4].1["params"]["prompt"] = json!([
        {"type":"text","text":"look at these"},
        {"type":"resource_link","name":"main.rs","uri":"file:///w/src/main.rs","mimeType":"text/x-rust"},
        {"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},
        {"type":"resource","resource":{"uri":"https://example.com/spec","text":"the spec","mimeType":"text/plain"}},
        {"type":"text","text":"and answer"},
    ]);
    lines.push(("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})));
    let norm = normalize_text(ACP, &transcript(&lines));
    let (item_type, data) = last_data(&norm, &lines[4].1);
    assert_eq!(item_type, "user_message");
    assert_eq!(
        data,
        json!({
            "text": "look at these\n\nand answer",
            "attachments": [
                {"kind": "file", "name": "main.rs", "path": "/w/src/main.rs", "mimeType": "text/x-rust"},
                {"kind": "image", "mimeType": "image/png"},
                {"kind": "resource", "url": "https://example.com/spec", "mimeType": "text/plain"},
            ]
        })
    );
}

/// Every item event's `data` is the content of its item type.
fn assert_typed(norm: &Normalized) {
    for event in &norm.events {
        let (RuntimeEvent::ItemStarted(item) | RuntimeEvent::ItemUpdated(item) | RuntimeEvent::ItemCompleted(item)) =
            &event.event
        else {
            continue;
        };
        let data = item.data.as_ref().expect("every item event carries data").to_value();
        if let Err(error) = agentwire_canonical::ItemContent::decode(item.item_type, &data) {
            panic!("{} item: {error}: {data}\n{}", item.item_type, norm.jsonl);
        }
    }
}

#[test]
fn every_shape_of_acp_item_carries_its_types_content() {
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.extend([
        update(json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}})),
        update(
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}}),
        ),
        update(
            json!({"sessionUpdate":"user_message_chunk","content":{"type":"resource_link","name":"a.txt","uri":"file:///w/a.txt"}}),
        ),
        update(
            json!({"_meta":{"claudeCode":{"toolName":"mcp__github__create_issue"}},"toolCallId":"t_mcp","sessionUpdate":"tool_call","rawInput":{"title":"bug"},"status":"pending","title":"mcp__github__create_issue","kind":"other"}),
        ),
        update(
            json!({"toolCallId":"t_mcp","sessionUpdate":"tool_call_update","status":"failed","rawOutput":{"error":"forbidden"}}),
        ),
        update(
            json!({"toolCallId":"t_rm","sessionUpdate":"tool_call","title":"Delete a.txt","kind":"delete","status":"completed","locations":[{"path":"/w/a.txt"}]}),
        ),
        update(
            json!({"toolCallId":"t_mv","sessionUpdate":"tool_call","title":"Move","kind":"move","status":"in_progress","rawInput":{"path":"/w/b.txt","destination":"/w/c.txt"}}),
        ),
        update(
            json!({"toolCallId":"t_fetch","sessionUpdate":"tool_call","title":"Fetch","kind":"fetch","status":"completed","rawInput":{"url":"https://example.com"},"content":[{"type":"content","content":{"type":"text","text":"Example Domain"}}]}),
        ),
        update(
            json!({"toolCallId":"t_think","sessionUpdate":"tool_call","title":"Thinking","kind":"think","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a thought"}}]}),
        ),
        update(json!({"sessionUpdate":"compaction_update","compactionId":"c1","status":"in_progress"})),
        update(
            json!({"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"We talked."}}),
        ),
        update(
            json!({"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}}),
        ),
        update(json!({"sessionUpdate":"compaction_update","compactionId":"c1","status":"completed"})),
        ("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}})),
    ]);
    let norm = normalize_text(ACP, &transcript(&lines));
    assert_typed(&norm);
    let mcp = carried(&norm, &lines[9].1);
    assert_eq!(mcp[0]["payload"]["title"], "Tool: github/create_issue");
    let (item_type, data) = last_data(&norm, &lines[9].1);
    assert_eq!(item_type, "mcp_tool_call");
    assert_eq!(
        data,
        json!({"server":"github","tool":"create_issue","arguments":{"title":"bug"},"error":"forbidden"})
    );
    let (_, data) = last_data(&norm, &lines[11].1);
    assert_eq!(
        data["changes"],
        json!([{"path":"/w/b.txt","kind":"update","movePath":"/w/c.txt"}])
    );
    let (item_type, data) = last_data(&norm, &lines[17].1);
    assert_eq!(item_type, "context_compaction");
    assert_eq!(data, json!({"summary":"We talked."}));
    let norm = normalize_text(ACP, &transcript(&task_through_the_adapter()));
    assert_typed(&norm);
}

#[test]
fn a_command_cut_off_by_its_turns_end_keeps_the_output_it_streamed() {
    let mut lines = opening("@zed-industries/claude-agent-acp");
    lines.extend([
        update(
            json!({"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"toolu_s","sessionUpdate":"tool_call","rawInput":{"command":"make"},"status":"pending","title":"make","kind":"execute","content":[{"type":"terminal","terminalId":"toolu_s"}]}),
        ),
        update(
            json!({"_meta":{"terminal_output":{"terminal_id":"toolu_s","data":"building...\n"}},"toolCallId":"toolu_s","sessionUpdate":"tool_call_update"}),
        ),
        (
            "out",
            json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}),
        ),
        ("in", json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}})),
    ]);
    let norm = normalize_text(ACP, &transcript(&lines));
    let completed = one(&norm, T::ItemCompleted);
    let item = payload!(norm.events[completed], ItemCompleted).expect("item.completed");
    assert_eq!(item.item_type, CanonicalItemType::CommandExecution);
    assert_eq!(
        item.data.as_ref().map(|data| data.to_value().into_owned()),
        Some(json!({ "command": "make", "output": "building...\n" })),
        "{}",
        norm.jsonl
    );
}
