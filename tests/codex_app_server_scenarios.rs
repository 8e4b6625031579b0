//! Scenario assertions: what each Codex app-server trace of the corpus must become, asserted on
//! the typed canonical events (`agentwire_canonical::ProviderRuntimeEvent`), not on JSON text.
//!
//! Expected values are read from the trace itself wherever the trace states them (the decision in
//! the client's `dir: "out"` response, the plan steps of `turn/plan/updated`, the answers of a
//! user-input response, the `willRetry` flag of an `error` notification), so a test checks that
//! the normalizer carries what the provider and the client said, not a copy of today's output.
//! The shared [`Scenario`] helper ties events to the trace line they came from and names the
//! trace, the event index and that line in every failure; what only Codex has is here.

use std::collections::BTreeSet;

use agentwire::answer::{Reply, ReplyFrame};
use agentwire::decision::Decision;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, CanonicalRuntimeEventType, ContentStreamKind, ItemStatus,
    ProviderRuntimeEvent, RuntimeEvent, RuntimeEventRawSource, ThreadId, TurnId, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::scenario::jsonrpc::RequestCycle;
use agentwire_tests::{corpus_dir, normalize, normalize_text, normalizer_after, payload, traces};
use serde_json::{Value, json};

const CODEX: Source = Source::CODEX_APP_SERVER;

/// The Codex app-server trace `name`.
fn load(name: &str) -> Scenario {
    Scenario::load(CODEX, name)
}

/// For each provider notification `method`, the one `content.delta` its line produced, with
/// `kind` and the notification's `params.delta` text; returns the delta event indices.
fn deltas_for(sc: &Scenario, method: &str, kind: ContentStreamKind) -> Vec<usize> {
    let lines = sc.provider_lines(method);
    assert!(!lines.is_empty(), "trace `{}`: no `{method}` notification", sc.name);
    lines
        .into_iter()
        .map(|line| {
            let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::ContentDelta);
            let delta = payload!(sc.event(index), ContentDelta).expect("a content.delta");
            assert_eq!(delta.stream_kind, kind, "{}: streamKind", sc.at(index));
            let params = &sc.msg(line)["params"];
            assert_eq!(
                delta.delta,
                params["delta"].as_str().expect("a delta string"),
                "{}: delta text",
                sc.at(index)
            );
            index
        })
        .collect()
}

/// The cycle of the provider's request `method` (see [`Scenario::request_cycle`]), its
/// `request.opened` carrying the request as a Codex app-server request.
fn request_cycle(sc: &Scenario, method: &str, request_type: CanonicalRequestType) -> RequestCycle {
    sc.request_cycle(method, request_type, RuntimeEventRawSource::CodexAppServerRequest)
}

// ---------------------------------------------------------------------------------------------
// Approvals
// ---------------------------------------------------------------------------------------------

/// A command approval: `request.opened(command_execution_approval)` on the command item, then its
/// `request.resolved` carrying the decision of the client's response, which must be `expected`.
fn command_approval(name: &str, expected: &str) -> (Scenario, RequestCycle) {
    let sc = load(name);
    let cycle = request_cycle(
        &sc,
        "item/commandExecution/requestApproval",
        CanonicalRequestType::CommandExecutionApproval,
    );
    let said = cycle.response["decision"]
        .as_str()
        .unwrap_or_else(|| panic!("trace `{name}`: response has no decision"));
    assert_eq!(said, expected, "trace `{name}`: the client's decision in the trace");
    assert_eq!(
        sc.decision(cycle.resolved),
        Some(said),
        "{}: decision",
        sc.at(cycle.resolved)
    );
    let commands = sc.items(CanonicalItemType::CommandExecution);
    let (started, _) = *commands
        .iter()
        .find(|(started, _)| sc.event(*started).item_id == sc.event(cycle.opened).item_id)
        .unwrap_or_else(|| panic!("{}: its itemId is no command_execution item", sc.at(cycle.opened)));
    assert!(
        started < cycle.opened,
        "{}: the request comes before its item ({})",
        sc.at(cycle.opened),
        sc.at(started)
    );
    (sc, cycle)
}

#[test]
fn shell_approval_accept() {
    let (sc, _) = command_approval("shell_approval_accept", "accept");
    command_output(&sc);
    let (_, completed) = sc.items(CanonicalItemType::CommandExecution)[0];
    let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(
        status,
        Some(ItemStatus::Completed),
        "{}: the accepted command's status",
        sc.at(completed)
    );
}

#[test]
fn shell_approval_cancel() {
    let (sc, cycle) = command_approval("shell_approval_cancel", "cancel");
    let (_, completed) = sc.items(CanonicalItemType::CommandExecution)[0];
    assert!(
        cycle.resolved < completed,
        "{}: the command completes before its request resolves",
        sc.at(completed)
    );
    let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(
        status,
        Some(ItemStatus::Declined),
        "{}: the cancelled command's status",
        sc.at(completed)
    );
    let (_, turn) = sc.single_turn();
    assert_eq!(
        sc.turn_state(turn),
        TurnState::Interrupted,
        "{}: state after a cancel",
        sc.at(turn)
    );
}

/// The way back on a real reply: the trace read up to the client's response to the provider's
/// request `method` (not finished, as a host holds it while the request waits) answers that
/// request with `reply`; returns what `answer` built and the frame the client sent.
fn answered_as_sent(sc: &Scenario, method: &str, cycle: &RequestCycle, reply: &Reply) -> (ReplyFrame, Value) {
    let request_line = sc.one_provider_line(method);
    let response_line = sc.client_response(&sc.msg(request_line)["id"]);
    let text = std::fs::read_to_string(corpus_dir(CODEX).join(format!("{}.jsonl", sc.name))).expect("corpus");
    let before: String = text
        .lines()
        .take(response_line - 1)
        .map(|line| format!("{line}\n"))
        .collect();
    let built = normalizer_after(CODEX, &before)
        .answer(sc.request_id(cycle.opened), reply)
        .unwrap_or_else(|err| panic!("{}: {err}", sc.at(cycle.opened)));
    (built, sc.msg(response_line).clone())
}

#[test]
fn shell_approval_decline() {
    let method = "item/commandExecution/requestApproval";
    let (sc, cycle) = command_approval("shell_approval_decline", "decline");
    let offered = &sc.msg(sc.one_provider_line(method))["params"]["availableDecisions"];
    assert!(
        offered
            .as_array()
            .is_some_and(|offered| !offered.contains(&json!("decline"))),
        "the approval does not offer decline: {offered}"
    );
    let (_, completed) = sc.items(CanonicalItemType::CommandExecution)[0];
    let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(
        status,
        Some(ItemStatus::Declined),
        "{}: Codex honoured the decline",
        sc.at(completed)
    );
    let (built, sent) = answered_as_sent(&sc, method, &cycle, &Reply::new(Decision::Decline));
    assert_eq!(built.frame, sent, "the decline is sent as the client sent it");
    let unoffered = built.unoffered.expect("flagged as not offered");
    assert_eq!(
        (unoffered.decision, unoffered.offered),
        (
            Decision::Decline,
            vec![Decision::Accept, Decision::AcceptForSession, Decision::Cancel]
        )
    );
}

#[test]
fn an_mcp_elicitation_is_declined_with_an_empty_form() {
    let method = "mcpServer/elicitation/request";
    let sc = load("mcp_write_approval_decline");
    let cycle = request_cycle(&sc, method, CanonicalRequestType::McpServerElicitation);
    assert_eq!(cycle.response, json!({ "action": "decline", "content": {} }));
    let (built, sent) = answered_as_sent(&sc, method, &cycle, &Reply::new(Decision::Decline));
    assert_eq!(built, ReplyFrame::offered(sent), "Codex's own client's decline");
}

// ---------------------------------------------------------------------------------------------
// Content streams
// ---------------------------------------------------------------------------------------------

/// Every `content.delta(command_output)` (one per `item/commandExecution/outputDelta`, same text)
/// is on the open `command_execution` item started before it.
fn command_output(sc: &Scenario) {
    let from_notifications = deltas_for(
        sc,
        "item/commandExecution/outputDelta",
        ContentStreamKind::CommandOutput,
    );
    let all: Vec<usize> = sc
        .indices_of(CanonicalRuntimeEventType::ContentDelta)
        .into_iter()
        .filter(|&i| {
            payload!(sc.event(i), ContentDelta).map(|payload| payload.stream_kind)
                == Some(ContentStreamKind::CommandOutput)
        })
        .collect();
    assert_eq!(
        all, from_notifications,
        "trace `{}`: command_output deltas vs outputDelta notifications",
        sc.name
    );
    for delta in all {
        sc.assert_delta_on_open_item(delta, CanonicalItemType::CommandExecution);
    }
}

#[test]
fn shell() {
    let sc = load("shell");
    command_output(&sc);
}

#[test]
fn reasoning() {
    let sc = load("reasoning");
    let summary = deltas_for(
        &sc,
        "item/reasoning/summaryTextDelta",
        ContentStreamKind::ReasoningSummaryText,
    );
    let text = deltas_for(&sc, "item/reasoning/textDelta", ContentStreamKind::ReasoningText);
    for (deltas, index_key) in [(&summary, "summaryIndex"), (&text, "contentIndex")] {
        for &index in deltas {
            let line = sc.line_of(index).expect("a delta from a line");
            let expected = sc.msg(line)["params"][index_key].as_i64();
            assert!(expected.is_some(), "trace `reasoning`, line {line}: no {index_key}");
            let delta = payload!(sc.event(index), ContentDelta).expect("a content.delta");
            let (summary_index, content_index) = (delta.summary_index, delta.content_index);
            if index_key == "summaryIndex" {
                assert_eq!(
                    (summary_index, content_index),
                    (expected, None),
                    "{}: (summaryIndex, contentIndex)",
                    sc.at(index)
                );
            } else {
                assert_eq!(
                    (summary_index, content_index),
                    (None, expected),
                    "{}: (summaryIndex, contentIndex)",
                    sc.at(index)
                );
            }
            sc.assert_delta_on_open_item(index, CanonicalItemType::Reasoning);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Plans and file changes
// ---------------------------------------------------------------------------------------------

/// Each `turn/plan/updated` becomes a `turn.plan.updated` with the same explanation and steps.
fn plan_updates(name: &str) {
    let sc = load(name);
    let lines = sc.provider_lines("turn/plan/updated");
    assert!(!lines.is_empty(), "trace `{name}`: no turn/plan/updated");
    let (turn, _) = sc.single_turn();
    for line in &lines {
        let index = sc.one_event_of_line(*line, CanonicalRuntimeEventType::TurnPlanUpdated);
        let plan = payload!(sc.event(index), TurnPlanUpdated).expect("a turn.plan.updated");
        let params = &sc.msg(*line)["params"];
        let expected: Vec<(&str, &str)> = params["plan"]
            .as_array()
            .expect("a plan array")
            .iter()
            .map(|step| {
                (
                    step["step"].as_str().expect("a step"),
                    step["status"].as_str().expect("a status"),
                )
            })
            .collect();
        let got: Vec<(&str, &str)> = plan
            .plan
            .iter()
            .map(|step| (step.step.as_str(), step.status.as_str()))
            .collect();
        assert_eq!(got, expected, "{}: (step, status) of the plan", sc.at(index));
        assert_eq!(
            plan.explanation.clone().flatten().as_deref(),
            params["explanation"].as_str(),
            "{}: explanation",
            sc.at(index)
        );
        assert_eq!(
            sc.event(index).turn_id,
            sc.event(turn).turn_id,
            "{}: turnId",
            sc.at(index)
        );
    }
    assert_eq!(
        sc.indices_of(CanonicalRuntimeEventType::TurnPlanUpdated).len(),
        lines.len(),
        "trace `{name}`: plan events"
    );
}

#[test]
fn plan() {
    plan_updates("plan");
}

#[test]
fn plan2() {
    plan_updates("plan2");
}

/// A `file_change` item started and completed (completed with `status`), and, unless declined,
/// a `turn.diff.updated` per `turn/diff/updated` carrying its diff in the item's turn. Returns
/// the scenario and the item's `(started, completed)`.
fn file_change(name: &str, status: ItemStatus) -> (Scenario, (usize, usize)) {
    let sc = load(name);
    let items = sc.items(CanonicalItemType::FileChange);
    assert_eq!(
        items.len(),
        1,
        "trace `{name}`: file_change items (started, completed): {items:?}"
    );
    let (started, completed) = items[0];
    let got = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(got, Some(status), "{}: status", sc.at(completed));
    let diffs = sc.provider_lines("turn/diff/updated");
    if status != ItemStatus::Declined {
        assert!(!diffs.is_empty(), "trace `{name}`: no turn/diff/updated");
    }
    for line in diffs {
        let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::TurnDiffUpdated);
        let diff = payload!(sc.event(index), TurnDiffUpdated).expect("a turn.diff.updated");
        assert_eq!(
            Some(diff.unified_diff.as_str()),
            sc.msg(line)["params"]["diff"].as_str(),
            "{}: diff",
            sc.at(index)
        );
        assert_eq!(
            sc.event(index).turn_id,
            sc.event(started).turn_id,
            "{}: turn of the file change",
            sc.at(index)
        );
    }
    (sc, (started, completed))
}

/// A file-change approval with the client's `expected` decision, on the file_change item.
fn file_change_approval(sc: &Scenario, item: usize, expected: &str) {
    let cycle = request_cycle(
        sc,
        "item/fileChange/requestApproval",
        CanonicalRequestType::FileChangeApproval,
    );
    let said = cycle.response["decision"].as_str().expect("a decision in the response");
    assert_eq!(
        said, expected,
        "trace `{}`: the client's decision in the trace",
        sc.name
    );
    assert_eq!(
        sc.decision(cycle.resolved),
        Some(said),
        "{}: decision",
        sc.at(cycle.resolved)
    );
    assert_eq!(
        sc.event(cycle.opened).item_id,
        sc.event(item).item_id,
        "{}: itemId of the file change",
        sc.at(cycle.opened)
    );
}

#[test]
fn patch() {
    file_change("patch", ItemStatus::Completed);
}

#[test]
fn patch_update() {
    file_change("patch_update", ItemStatus::Completed);
}

#[test]
fn patch_approval_accept() {
    let (sc, (started, _)) = file_change("patch_approval_accept", ItemStatus::Completed);
    file_change_approval(&sc, started, "accept");
}

#[test]
fn patch_approval_decline() {
    let (sc, (started, _)) = file_change("patch_approval_decline", ItemStatus::Declined);
    file_change_approval(&sc, started, "decline");
}

#[test]
fn patch_streaming_events() {
    let (sc, (started, completed)) = file_change("patch_streaming_events", ItemStatus::Completed);
    let lines = sc.provider_lines("item/fileChange/patchUpdated");
    assert!(
        !lines.is_empty(),
        "trace `patch_streaming_events`: no item/fileChange/patchUpdated"
    );
    for line in lines {
        let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::ItemUpdated);
        assert_eq!(
            sc.item_type(index),
            Some(CanonicalItemType::FileChange),
            "{}: itemType",
            sc.at(index)
        );
        assert_eq!(
            sc.item_id(index),
            sc.item_id(started),
            "{}: itemId of the file change ({})",
            sc.at(index),
            sc.at(started)
        );
        assert_eq!(
            sc.event(index).turn_id,
            sc.event(started).turn_id,
            "{}: turnId",
            sc.at(index)
        );
        assert!(
            index < completed,
            "{}: after the item completed ({})",
            sc.at(index),
            sc.at(completed)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Tools and user input
// ---------------------------------------------------------------------------------------------

#[test]
fn mcp_traces() {
    let traces: Vec<_> = traces(CODEX)
        .into_iter()
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("mcp"))
        })
        .collect();
    assert!(traces.len() >= 3, "the mcp* traces: {traces:?}");
    for path in traces {
        let sc = Scenario::from_path(CODEX, &path);
        let items = sc.items(CanonicalItemType::McpToolCall);
        let expected = sc.provider_lines_where(|msg| {
            msg["method"] == "item/started" && msg["params"]["item"]["type"] == "mcpToolCall"
        });
        assert!(!items.is_empty(), "trace `{}`: no mcp_tool_call item", sc.name);
        assert_eq!(
            items.len(),
            expected.len(),
            "trace `{}`: mcp_tool_call items vs mcpToolCall item/started",
            sc.name
        );
        // Codex's own status, except a call the user declined (`mcp_write_approval_decline`):
        // Codex says `failed`, with the error "user rejected MCP tool call".
        let completions = sc.provider_lines_where(|msg| {
            msg["method"] == "item/completed" && msg["params"]["item"]["type"] == "mcpToolCall"
        });
        assert_eq!(items.len(), completions.len(), "trace `{}`: completions", sc.name);
        for ((_, completed), line) in items.into_iter().zip(completions) {
            let item = &sc.msg(line)["params"]["item"];
            let expected = match item["status"].as_str() {
                Some("completed") => ItemStatus::Completed,
                // Codex fails a call whose approval the person declined: it was declined.
                Some("failed") if item["error"]["message"] == "user rejected MCP tool call" => ItemStatus::Declined,
                Some("failed") => ItemStatus::Failed,
                other => panic!("{}: mcpToolCall status {other:?}", sc.at(completed)),
            };
            let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
            assert_eq!(status, Some(expected), "{}: status", sc.at(completed));
        }
    }
}

/// Codex asks to approve an MCP tool call with an elicitation that names no item: the request
/// is on the open `mcp_tool_call` item it approves, and a call the person declined is drawn
/// `declined` (Codex completes it `failed`), one they accepted `completed`.
#[test]
fn an_mcp_approval_is_on_its_call() {
    for (name, status) in [
        ("mcp_write_approval_decline", ItemStatus::Declined),
        ("mcp_write_approval_accept", ItemStatus::Completed),
    ] {
        let sc = load(name);
        let cycle = request_cycle(
            &sc,
            "mcpServer/elicitation/request",
            CanonicalRequestType::McpServerElicitation,
        );
        let items = sc.items(CanonicalItemType::McpToolCall);
        let [(started, completed)] = items[..] else {
            panic!("trace `{name}`: one mcp_tool_call item, not {items:?}");
        };
        assert_eq!(
            sc.event(cycle.opened).item_id.as_ref(),
            Some(sc.item_id(started)),
            "{}: the approval's item is the call's",
            sc.at(cycle.opened)
        );
        assert!(
            started < cycle.opened && cycle.resolved < completed,
            "trace `{name}`: the approval is asked while the call is open"
        );
        let drawn = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
        assert_eq!(drawn, Some(status), "{}: status", sc.at(completed));
    }
}

#[test]
fn mcp_server_elicitation() {
    let method = "mcpServer/elicitation/request";
    let traces: Vec<Scenario> = Scenario::all(CODEX)
        .into_iter()
        .filter(|sc| !sc.provider_lines(method).is_empty())
        .collect();
    assert!(!traces.is_empty(), "no trace has `{method}`");
    for sc in traces {
        let cycle = request_cycle(&sc, method, CanonicalRequestType::McpServerElicitation);
        let action = cycle.response["action"]
            .as_str()
            .expect("an action in the elicitation response");
        assert_eq!(
            sc.decision(cycle.resolved),
            Some(action),
            "{}: decision is the response's action",
            sc.at(cycle.resolved)
        );
        let resolution =
            payload!(sc.event(cycle.resolved), RequestResolved).and_then(|payload| payload.resolution.as_ref());
        assert_eq!(
            resolution,
            Some(&cycle.response),
            "{}: resolution is the client's response",
            sc.at(cycle.resolved)
        );
    }
}

#[test]
fn dynamic_tool() {
    let sc = load("dynamic_tool");
    assert!(
        sc.provider_lines("serverRequest/resolved").is_empty(),
        "trace `dynamic_tool`: has a serverRequest/resolved; the test assumes Codex sends none for item/tool/call"
    );
    let cycle = request_cycle(&sc, "item/tool/call", CanonicalRequestType::DynamicToolCall);
    let resolved = cycle.resolved;
    assert_eq!(
        sc.raw_source(resolved),
        Some(RuntimeEventRawSource::CodexAppServerClientResponse),
        "{}: raw.source",
        sc.at(resolved)
    );
    let line = sc
        .line_of(resolved)
        .unwrap_or_else(|| panic!("{}: from no line", sc.at(resolved)));
    assert_eq!(
        sc.record(line)["dir"],
        "out",
        "{}: not from the client's response",
        sc.at(resolved)
    );
    assert_eq!(
        sc.raw_payload(resolved),
        *sc.msg(line),
        "{}: raw.payload is the client's response",
        sc.at(resolved)
    );
    let resolution = payload!(sc.event(resolved), RequestResolved).and_then(|payload| payload.resolution.as_ref());
    assert_eq!(
        resolution,
        Some(&cycle.response),
        "{}: resolution is the tool result",
        sc.at(resolved)
    );
    let items = sc.items(CanonicalItemType::DynamicToolCall);
    assert_eq!(
        items.len(),
        1,
        "trace `dynamic_tool`: dynamic_tool_call items {items:?}"
    );
    let (started, completed) = items[0];
    assert_eq!(
        sc.event(cycle.opened).item_id,
        sc.event(started).item_id,
        "{}: itemId of the tool call",
        sc.at(cycle.opened)
    );
    assert!(
        started < cycle.opened && resolved < completed,
        "trace `dynamic_tool`: the request is not inside its item"
    );
}

#[test]
fn user_input_plan_mode() {
    let sc = load("user_input_plan_mode");
    let method = "item/tool/requestUserInput";
    let cycle = request_cycle(&sc, method, CanonicalRequestType::ToolUserInput);
    let line = sc.one_provider_line(method);
    let requested = sc.one_event_of_line(line, CanonicalRuntimeEventType::UserInputRequested);
    assert_eq!(
        sc.request_id(requested),
        sc.request_id(cycle.opened),
        "{}: requestId of the request.opened",
        sc.at(requested)
    );
    assert!(
        cycle.opened < requested,
        "{}: the questions follow the request they belong to",
        sc.at(requested)
    );
    let questions = &payload!(sc.event(requested), UserInputRequested)
        .expect("a user-input.requested")
        .questions;
    let ids = |questions: &Value| -> Vec<String> {
        questions
            .as_array()
            .into_iter()
            .flatten()
            .map(|question| question["id"].to_string())
            .collect()
    };
    let asked = ids(&sc.msg(line)["params"]["questions"]);
    assert!(
        !asked.is_empty(),
        "trace `user_input_plan_mode`, line {line}: no questions"
    );
    assert_eq!(ids(questions), asked, "{}: the question ids", sc.at(requested));

    let answered = sc.next_for_request(requested, CanonicalRuntimeEventType::UserInputResolved);
    let answers = &payload!(sc.event(answered), UserInputResolved)
        .expect("a user-input.resolved")
        .answers;
    assert_eq!(
        *answers,
        cycle.response["answers"],
        "{}: the answers of the client's response",
        sc.at(answered)
    );
    assert!(
        answered <= cycle.resolved,
        "{}: after the request.resolved ({})",
        sc.at(answered),
        sc.at(cycle.resolved)
    );
}

// ---------------------------------------------------------------------------------------------
// Turn endings: interrupt, retries, failures
// ---------------------------------------------------------------------------------------------

#[test]
fn interrupt() {
    let sc = load("interrupt");
    let (_, completed) = sc.single_turn();
    // The interrupted turn is the last thing that happens: only the session's state follows it.
    let after: Vec<String> = (completed + 1..sc.events().len())
        .filter(|&i| sc.event(i).event.event_type() != CanonicalRuntimeEventType::SessionStateChanged)
        .map(|i| sc.at(i))
        .collect();
    assert!(
        after.is_empty(),
        "{}: events after the interrupted turn: {after:?}",
        sc.at(completed)
    );
    assert_eq!(
        sc.turn_state(completed),
        TurnState::Interrupted,
        "{}: state",
        sc.at(completed)
    );
    sc.assert_no_item_left_open();
}

/// The single turn completes (`completed`) and nothing is a `runtime.error`.
fn recovers(name: &str) -> Scenario {
    let sc = load(name);
    let (_, completed) = sc.single_turn();
    assert_eq!(
        sc.turn_state(completed),
        TurnState::Completed,
        "{}: state",
        sc.at(completed)
    );
    let errors: Vec<String> = sc
        .indices_of(CanonicalRuntimeEventType::RuntimeError)
        .into_iter()
        .map(|i| sc.at(i))
        .collect();
    assert!(errors.is_empty(), "trace `{name}`: runtime.error events: {errors:?}");
    sc
}

#[test]
fn flaky500_retry() {
    recovers("flaky500_retry");
}

#[test]
fn stream_drop_retry() {
    let sc = recovers("stream_drop_retry");
    let retrying = sc.provider_lines_where(|msg| msg["method"] == "error" && msg["params"]["willRetry"] == true);
    assert!(
        !retrying.is_empty(),
        "trace `stream_drop_retry`: no `error` notification with willRetry: true"
    );
    for line in retrying {
        let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::RuntimeWarning);
        assert_eq!(sc.raw_method(index), Some("error"), "{}: raw.method", sc.at(index));
        assert_eq!(
            sc.raw_payload(index),
            *sc.msg(line),
            "{}: raw.payload is the error notification",
            sc.at(index)
        );
        assert_eq!(
            sc.raw_payload(index)["params"]["willRetry"],
            true,
            "{}: raw willRetry",
            sc.at(index)
        );
    }
}

/// A retry replaced the message the dropped stream was writing: that message ends `completed`
/// with the text it had streamed, not `failed` in a turn that completed.
#[test]
fn a_message_a_retry_replaced_is_not_failed() {
    let sc = recovers("stream_drop_retry");
    let failed: Vec<String> = sc
        .indices_of(CanonicalRuntimeEventType::ItemCompleted)
        .into_iter()
        .filter(|&index| {
            payload!(sc.event(index), ItemCompleted).and_then(|payload| payload.status) == Some(ItemStatus::Failed)
        })
        .map(|index| sc.at(index))
        .collect();
    assert!(failed.is_empty(), "items failed in a completed turn: {failed:?}");
    let messages = sc.items(CanonicalItemType::AssistantMessage);
    assert_eq!(
        messages.len(),
        2,
        "the partial message and the retried one: {messages:?}"
    );
    let (started, completed) = messages[0];
    let deltas: String = sc
        .indices_of(CanonicalRuntimeEventType::ContentDelta)
        .into_iter()
        .filter(|&index| sc.event(index).item_id.as_ref() == Some(sc.item_id(started)))
        .filter_map(|index| payload!(sc.event(index), ContentDelta).map(|delta| delta.delta.clone()))
        .collect();
    let data = payload!(sc.event(completed), ItemCompleted)
        .and_then(|payload| payload.data.as_ref())
        .map(|data| data.to_value().into_owned());
    assert_eq!(
        data,
        Some(json!({ "text": deltas })),
        "{}: the partial message keeps what it said",
        sc.at(completed)
    );
}

/// Every item's first event is `item.started`, whatever Codex sent about it first (a patch
/// streamed before its `fileChange` started, in `patch_streaming_events`).
#[test]
fn an_items_first_event_is_item_started() {
    for sc in Scenario::all(CODEX) {
        let mut seen = BTreeSet::new();
        for (index, event) in sc.events().iter().enumerate() {
            let about_an_item = matches!(
                event.event,
                RuntimeEvent::ItemStarted(_)
                    | RuntimeEvent::ItemUpdated(_)
                    | RuntimeEvent::ItemCompleted(_)
                    | RuntimeEvent::ContentDelta(_)
            );
            let Some(item) = event.item_id.as_ref().filter(|_| about_an_item) else {
                continue;
            };
            if seen.insert(item.clone()) {
                assert!(
                    matches!(event.event, RuntimeEvent::ItemStarted(_)),
                    "{}: the item's first event is {}",
                    sc.at(index),
                    event.event.event_type().as_str()
                );
            }
        }
    }
}

/// A message Codex completes without starting it is started first, and a delta arriving after
/// its completion starts it no second time.
#[test]
fn a_message_completed_unstarted_is_started_once() {
    let text = std::fs::read_to_string(corpus_dir(CODEX).join("text.jsonl")).expect("the trace");
    let is = |line: &str, method: &str| line.contains(&format!(r#""method":"{method}""#));
    let late_delta = text
        .lines()
        .find(|line| is(line, "item/agentMessage/delta"))
        .expect("a delta");
    let mut edited = String::new();
    for line in text.lines() {
        let message_start = is(line, "item/started") && line.contains(r#""type":"agentMessage""#);
        if message_start || is(line, "item/agentMessage/delta") {
            continue;
        }
        edited.push_str(line);
        edited.push('\n');
        if is(line, "item/completed") && line.contains(r#""type":"agentMessage""#) {
            edited.push_str(late_delta);
            edited.push('\n');
        }
    }
    let events = normalize_text(CODEX, &edited).events;
    let message: Vec<&ProviderRuntimeEvent> = events
        .iter()
        .filter(|event| match &event.event {
            RuntimeEvent::ItemStarted(payload) | RuntimeEvent::ItemCompleted(payload) => {
                payload.item_type == CanonicalItemType::AssistantMessage
            }
            _ => false,
        })
        .collect();
    let kinds: Vec<&str> = message.iter().map(|event| event.event.event_type().as_str()).collect();
    assert_eq!(kinds, ["item.started", "item.completed"]);
    assert_eq!(message[0].item_id, message[1].item_id);
}

/// Exactly one `runtime.error` and one `turn.completed(failed)`, both for the trace's turn, the
/// error first; the turn's `errorMessage` is the provider's.
fn fails(name: &str) {
    let sc = load(name);
    let (started, completed) = sc.single_turn();
    assert_eq!(
        sc.turn_state(completed),
        TurnState::Failed,
        "{}: state",
        sc.at(completed)
    );
    let errors = sc.indices_of(CanonicalRuntimeEventType::RuntimeError);
    let described: Vec<String> = errors.iter().map(|&i| sc.at(i)).collect();
    assert_eq!(errors.len(), 1, "trace `{name}`: runtime.error events: {described:?}");
    let error = errors[0];
    assert_eq!(
        sc.turn_id(error),
        sc.turn_id(started),
        "{}: turnId of the turn",
        sc.at(error)
    );
    assert!(
        error < completed,
        "{}: after the turn.completed ({})",
        sc.at(error),
        sc.at(completed)
    );
    let line = sc.one_provider_line("turn/completed");
    let provider_message = sc.msg(line)["params"]["turn"]["error"]["message"].as_str();
    assert!(
        provider_message.is_some(),
        "trace `{name}`, line {line}: a failed turn without error.message"
    );
    let payload = payload!(sc.event(completed), TurnCompleted).expect("a turn.completed");
    assert_eq!(
        payload.error_message.as_deref(),
        provider_message,
        "{}: errorMessage",
        sc.at(completed)
    );
}

#[test]
fn error500() {
    fails("error500");
}

#[test]
fn failed() {
    fails("failed");
}

// ---------------------------------------------------------------------------------------------
// Several turns
// ---------------------------------------------------------------------------------------------

#[test]
fn multi_turn() {
    let sc = load("multi_turn");
    let started = sc.indices_of(CanonicalRuntimeEventType::TurnStarted);
    let completed = sc.indices_of(CanonicalRuntimeEventType::TurnCompleted);
    assert_eq!(
        (started.len(), completed.len()),
        (3, 3),
        "trace `multi_turn`: turn.started {started:?}, turn.completed {completed:?}"
    );

    let thread = sc.event(started[0]).thread_id.clone();
    assert!(thread.is_some(), "{}: no threadId", sc.at(started[0]));
    let threads: BTreeSet<_> = sc
        .events()
        .iter()
        .filter_map(|event| event.thread_id.as_ref())
        .collect();
    assert_eq!(threads.len(), 1, "trace `multi_turn`: canonical threadIds {threads:?}");

    let provider_turns: Vec<&str> = sc
        .provider_lines("turn/started")
        .into_iter()
        .map(|line| sc.msg(line)["params"]["turn"]["id"].as_str().expect("a turn id"))
        .collect();
    assert_eq!(
        provider_turns.len(),
        3,
        "trace `multi_turn`: turn/started notifications"
    );

    let turns: BTreeSet<&TurnId> = started.iter().map(|&i| sc.turn_id(i)).collect();
    assert_eq!(
        turns.len(),
        3,
        "trace `multi_turn`: the turnIds are not distinct: {turns:?}"
    );
    let mut previous_end = 0;
    for (k, (&start, &end)) in started.iter().zip(&completed).enumerate() {
        assert!(
            previous_end <= start && start < end,
            "{}: turn {k} overlaps or is out of order",
            sc.at(start)
        );
        previous_end = end;
        let turn = sc.turn_id(start);
        assert_eq!(sc.event(start).thread_id, thread, "{}: threadId", sc.at(start));
        assert_eq!(sc.event(end).thread_id, thread, "{}: threadId", sc.at(end));
        assert_eq!(sc.turn_id(end), turn, "{}: turnId of turn {k}", sc.at(end));
        assert_eq!(sc.turn_state(end), TurnState::Completed, "{}: state", sc.at(end));
        let mut items = 0;
        for index in start..=end {
            let event = sc.event(index);
            if event.item_id.is_none() {
                continue;
            }
            items += 1;
            assert_eq!(
                event.turn_id.as_ref(),
                Some(turn),
                "{}: turnId of turn {k}",
                sc.at(index)
            );
            assert_eq!(event.thread_id, thread, "{}: threadId", sc.at(index));
            let provider_turn = event
                .provider_refs
                .as_ref()
                .and_then(|refs| refs.provider_turn_id.as_ref());
            assert_eq!(
                provider_turn.map(|id| id.as_str()),
                Some(provider_turns[k]),
                "{}: providerTurnId",
                sc.at(index)
            );
        }
        assert!(items > 0, "trace `multi_turn`: turn {k} has no item events");
    }
    let outside: Vec<String> = (0..sc.events().len())
        .filter(|&i| sc.event(i).item_id.is_some())
        .filter(|&i| {
            !started
                .iter()
                .zip(&completed)
                .any(|(&start, &end)| start <= i && i <= end)
        })
        .map(|i| sc.at(i))
        .collect();
    assert!(
        outside.is_empty(),
        "trace `multi_turn`: item events outside every turn: {outside:?}"
    );
    sc.assert_no_item_left_open();
}

// ---------------------------------------------------------------------------------------------
// Threads across connections, provider versions
// ---------------------------------------------------------------------------------------------

/// The canonical id of the first thread started in `events`.
fn first_thread(events: &[ProviderRuntimeEvent]) -> Option<ThreadId> {
    events
        .iter()
        .find(|e| e.event.event_type() == CanonicalRuntimeEventType::ThreadStarted)
        .and_then(|e| e.thread_id.clone())
}

#[test]
fn a_resumed_thread_keeps_its_canonical_id() {
    // The same provider thread seen on two connections (two sessions) gets one canonical id.
    let text = std::fs::read_to_string(corpus_dir(CODEX).join("text.jsonl")).expect("trace");
    let first = normalize_text(CODEX, &text).events;
    // A different first line gives a different session; the thread is the same provider thread.
    let second = normalize_text(
        CODEX,
        &format!("{{\"dir\":\"out\",\"ts\":1,\"msg\":{{\"method\":\"initialized\"}}}}\n{text}"),
    )
    .events;
    assert_ne!(
        first[0].session_id, second[0].session_id,
        "two connections are two sessions"
    );
    assert!(first_thread(&first).is_some(), "trace `text`: no thread.started");
    assert_eq!(
        first_thread(&first),
        first_thread(&second),
        "the thread keeps its canonical id"
    );
}

#[test]
fn a_different_provider_version_is_reported_once() {
    let path = corpus_dir(CODEX).join("multi_turn.jsonl");
    let text = std::fs::read_to_string(&path).expect("trace");
    assert!(
        text.matches("0.171.0").count() >= 3,
        "the user agent and every thread carry the version"
    );
    let events = normalize_text(CODEX, &text.replace("0.171.0", "0.999.0")).events;
    let reports: Vec<&ProviderRuntimeEvent> = events
        .iter()
        .filter(|e| matches!(&e.event, RuntimeEvent::RuntimeWarning(w) if w.message.contains("version 0.999.0")))
        .collect();
    assert_eq!(reports.len(), 1, "reported once per connection");
    let pinned = normalize(CODEX, &path).events;
    assert!(
        !pinned
            .iter()
            .any(|e| matches!(&e.event, RuntimeEvent::RuntimeWarning(w) if w.message.contains("version"))),
        "the pinned version is not reported"
    );
}

/// A command's card is titled by the whole command as a person reads it, not by the part of it
/// Codex parsed into an action (`all`: `echo hello && ls`, not `ls`).
#[test]
fn a_command_is_titled_by_the_whole_command() {
    for sc in Scenario::all(CODEX) {
        for (started, _) in sc.items(CanonicalItemType::CommandExecution) {
            let start = payload!(sc.event(started), ItemStarted).expect("item.started");
            let data = start.data.as_ref().expect("data").to_value();
            assert_eq!(start.title.as_deref(), data["command"].as_str(), "{}", sc.at(started));
        }
    }
}
