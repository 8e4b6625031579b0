//! Scenario assertions: what the Claude traces of the corpus must become (issue "Claude Agent
//! SDK", "Must show"), for the bare stream (`claude`) and the control transcripts
//! (`claude-control`), pinned SDK (0.2.62) and newest (`v0.3.332-*`) alike.
//!
//! Expected values are read from the trace where it states them (the streamed text, the tool
//! name, the client's permission answer, the result's subtype).

use agentwire::answer::Reply;
use agentwire::decision::Decision;
use agentwire::source::Source;
use agentwire_tests::scenario::Scenario;
use serde_json::Value;

/// The events of a trace as JSON, in order.
fn events(sc: &Scenario) -> Vec<Value> {
    sc.events()
        .iter()
        .map(|event| serde_json::to_value(event).expect("events serialize"))
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|event| event["type"] == kind).collect()
}

/// The stream-json messages of the trace, in order.
fn messages(sc: &Scenario) -> Vec<Value> {
    sc.lines_where(|_| true)
        .into_iter()
        .map(|line| sc.msg(line).clone())
        .collect()
}

fn streamed(sc: &Scenario, delta_type: &str, field: &str) -> String {
    messages(sc)
        .iter()
        .filter(|msg| msg["type"] == "stream_event" && msg["parent_tool_use_id"].is_null())
        .filter(|msg| msg["event"]["delta"]["type"] == delta_type)
        .map(|msg| msg["event"]["delta"][field].as_str().unwrap_or_default().to_string())
        .collect()
}

fn deltas(events: &[Value], kind: &str) -> String {
    of_type(events, "content.delta")
        .into_iter()
        .filter(|event| event["payload"]["streamKind"] == kind)
        .map(|event| event["payload"]["delta"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The one `turn.completed` of a single-prompt trace.
fn last_turn(events: &[Value]) -> &Value {
    of_type(events, "turn.completed")
        .into_iter()
        .next_back()
        .expect("a turn.completed")
}

const BARE: Source = Source::CLAUDE;
const CONTROL: Source = Source::CLAUDE_CONTROL;

#[test]
fn streamed_text_and_reasoning() {
    for (source, name) in [
        (BARE, "plain"),
        (BARE, "thinking"),
        (BARE, "sdk_thinking"),
        (CONTROL, "sdk_thinking"),
        (BARE, "v0.3.332-sdk_thinking"),
        (CONTROL, "v0.3.332-sdk_plain"),
    ] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        let text = streamed(&sc, "text_delta", "text");
        assert!(!text.is_empty(), "{name}: the trace streams text");
        assert_eq!(
            deltas(&events, "assistant_text"),
            text,
            "{source}/{name}: assistant_text"
        );
        assert_eq!(
            deltas(&events, "reasoning_text"),
            streamed(&sc, "thinking_delta", "thinking"),
            "{source}/{name}: reasoning_text"
        );
        if name.contains("thinking") {
            assert!(
                !deltas(&events, "reasoning_text").is_empty(),
                "{name}: reasoning streamed"
            );
        }
        let messages = of_type(&events, "item.completed")
            .into_iter()
            .filter(|event| event["payload"]["itemType"] == "assistant_message")
            .count();
        assert!(messages > 0, "{name}: an assistant message completes");
        assert_eq!(last_turn(&events)["payload"]["state"], "completed", "{name}");
    }
    // Without partial messages the text arrives whole, as a completed item.
    let sc = Scenario::load(BARE, "nopartial_thinking");
    let events = events(&sc);
    assert!(of_type(&events, "content.delta").is_empty());
    let kinds: Vec<&Value> = of_type(&events, "item.completed")
        .iter()
        .map(|e| &e["payload"]["itemType"])
        .collect();
    assert!(kinds.contains(&&Value::from("reasoning")) && kinds.contains(&&Value::from("assistant_message")));
}

/// The `tool_use` ids of the calls to `tool` in the trace.
fn calls_to(sc: &Scenario, tool: &str) -> Vec<Value> {
    messages(sc)
        .iter()
        .filter(|msg| msg["type"] == "assistant")
        .flat_map(|msg| msg["message"]["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "tool_use" && block["name"] == tool)
        .map(|block| block["id"].clone())
        .collect()
}

/// The events of the items of the calls to `tool` of `kind` (`item.started`, ...).
fn tool_events<'a>(sc: &Scenario, events: &'a [Value], kind: &str, tool: &str) -> Vec<&'a Value> {
    let calls = calls_to(sc, tool);
    of_type(events, kind)
        .into_iter()
        .filter(|event| calls.contains(&event["providerRefs"]["providerItemId"]))
        .collect()
}

/// The tool item of `tool`: started with `item_type`, completed with `status` on its result.
fn tool_item(source: Source, name: &str, tool: &str, item_type: &str, status: &str) {
    let sc = Scenario::load(source, name);
    let events = events(&sc);
    let started = tool_events(&sc, &events, "item.started", tool);
    assert!(!started.is_empty(), "{source}/{name}: a {tool} item starts");
    for start in started {
        assert_eq!(start["payload"]["itemType"], item_type, "{source}/{name}: {tool}");
        let completed: Vec<&Value> = of_type(&events, "item.completed")
            .into_iter()
            .filter(|event| event["itemId"] == start["itemId"])
            .collect();
        assert_eq!(completed.len(), 1, "{source}/{name}: the {tool} item completes once");
        assert_eq!(completed[0]["payload"]["status"], status, "{source}/{name}: {tool}");
        assert_eq!(
            completed[0]["raw"]["method"], "user",
            "{source}/{name}: completed by its tool_result"
        );
        // Before its result, the input block's stop is an update, not a completion.
        let updates = of_type(&events, "item.updated")
            .into_iter()
            .filter(|event| event["itemId"] == start["itemId"] && event["payload"]["detail"] == "input final")
            .count();
        assert!(updates > 0, "{source}/{name}: input final is item.updated");
    }
}

#[test]
fn bash_and_write_items_complete_on_their_results() {
    tool_item(BARE, "bash_bypass", "Bash", "command_execution", "completed");
    tool_item(BARE, "bash_allowedtools", "Bash", "command_execution", "completed");
    tool_item(BARE, "write_bypass", "Write", "file_change", "completed");
    tool_item(CONTROL, "sdk_write_allow", "Write", "file_change", "completed");
    tool_item(
        CONTROL,
        "sdk_bash_touch_allow",
        "Bash",
        "command_execution",
        "completed",
    );
    tool_item(
        BARE,
        "v0.3.332-sdk_bash_touch_allow",
        "Bash",
        "command_execution",
        "completed",
    );
    // A call the person or the permission rules refused was declined, not failed.
    tool_item(CONTROL, "sdk_bash_touch_deny", "Bash", "command_execution", "declined");
    tool_item(CONTROL, "v0.3.332-sdk_write_deny", "Write", "file_change", "declined");
    tool_item(BARE, "write_planmode", "Write", "file_change", "declined");
    tool_item(BARE, "denied_write_default", "Write", "file_change", "declined");
    tool_item(
        BARE,
        "v0.3.332-denied_bash_touch",
        "Bash",
        "command_execution",
        "declined",
    );
    // One cut off when the person stopped the turn too.
    tool_item(
        CONTROL,
        "acp-cancel_during_tool",
        "Bash",
        "command_execution",
        "declined",
    );
    // The command's output is a command_output delta on its item.
    let sc = Scenario::load(BARE, "bash_bypass");
    assert!(deltas(&events(&sc), "command_output").contains("hello"));
}

#[test]
fn todo_updates_the_plan() {
    for (source, name) in [(BARE, "todo"), (BARE, "sdk_todo"), (CONTROL, "sdk_todo")] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        let plans = of_type(&events, "turn.plan.updated");
        assert!(!plans.is_empty(), "{source}/{name}: turn.plan.updated");
        let todos = messages(&sc)
            .iter()
            .filter(|msg| msg["type"] == "assistant")
            .flat_map(|msg| msg["message"]["content"].as_array().cloned().unwrap_or_default())
            .find(|block| block["name"] == "TodoWrite")
            .expect("a TodoWrite call");
        let steps: Vec<&Value> = todos["input"]["todos"]
            .as_array()
            .expect("todos")
            .iter()
            .map(|t| &t["content"])
            .collect();
        let plan: Vec<&Value> = plans[0]["payload"]["plan"]
            .as_array()
            .expect("plan")
            .iter()
            .map(|s| &s["step"])
            .collect();
        assert_eq!(plan, steps, "{source}/{name}: the plan's steps are the todos");
    }
}

/// The decisions of the `request.resolved` events of a trace.
fn decisions(events: &[Value]) -> Vec<String> {
    of_type(events, "request.resolved")
        .into_iter()
        .map(|event| event["payload"]["decision"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn denials_are_resolved_requests_with_deny() {
    for (source, name, request_type) in [
        (BARE, "denied_default", "command_execution_approval"),
        (BARE, "denied_write_default", "file_change_approval"),
        (BARE, "nopartial_denied_touch", "command_execution_approval"),
        (BARE, "write_planmode", "file_change_approval"),
        (BARE, "v0.3.332-denied_bash_touch", "command_execution_approval"),
        (CONTROL, "sdk_bash_touch_deny", "command_execution_approval"),
        (CONTROL, "sdk_write_deny", "file_change_approval"),
        (CONTROL, "sdk_bash_touch_deny_interrupt", "command_execution_approval"),
        (CONTROL, "v0.3.332-sdk_bash_touch_deny", "command_execution_approval"),
        (CONTROL, "v0.3.332-sdk_write_deny", "file_change_approval"),
    ] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        let opened = of_type(&events, "request.opened");
        assert_eq!(opened.len(), 1, "{source}/{name}: one request");
        assert_eq!(opened[0]["payload"]["requestType"], request_type, "{source}/{name}");
        let decisions = decisions(&events);
        let expected = if name.contains("interrupt") {
            "cancel"
        } else {
            "decline"
        };
        assert_eq!(decisions, [expected], "{source}/{name}");
    }
    // The client's own answer travels with the decision.
    let sc = Scenario::load(CONTROL, "sdk_bash_touch_deny");
    let events = events(&sc);
    let resolved = of_type(&events, "request.resolved")[0];
    assert_eq!(resolved["payload"]["resolution"]["behavior"], "deny");
    assert_eq!(resolved["raw"]["source"], "claude.sdk.permission");
    let opened = of_type(&events, "request.opened")[0];
    assert_eq!(opened["payload"]["args"]["toolName"], "Bash");
    assert!(opened["payload"]["args"]["toolUseID"].is_string());
    assert!(opened["payload"]["args"]["suggestions"].is_array());
}

#[test]
fn allows_are_resolved_requests_with_accept() {
    for name in [
        "sdk_bash_touch_allow",
        "sdk_write_allow",
        "sdk_exit_plan_mode_allow",
        "v0.3.332-sdk_bash_touch_allow",
        "v0.3.332-sdk_write_allow",
    ] {
        let sc = Scenario::load(CONTROL, name);
        let events = events(&sc);
        let decisions = decisions(&events);
        assert!(!decisions.is_empty(), "{name}: a request");
        assert!(
            decisions.iter().all(|d| d == "accept" || d == "acceptForSession"),
            "{name}: {decisions:?}"
        );
        assert_eq!(last_turn(&events)["payload"]["state"], "completed", "{name}");
    }
}

#[test]
fn api_errors_fail_the_turn_with_one_runtime_error() {
    for (source, name) in [
        (BARE, "error400"),
        (BARE, "error400_ctx"),
        (BARE, "error413"),
        (BARE, "error500_noretry"),
        (BARE, "error529_noretry"),
        (BARE, "sdk_error529"),
        (CONTROL, "sdk_error529"),
        (BARE, "v0.3.332-sdk_error529"),
        (BARE, "v0.3.332-error529_retry2"),
    ] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        let errors = of_type(&events, "runtime.error");
        assert_eq!(errors.len(), 1, "{source}/{name}: one failure, one runtime.error");
        assert_eq!(errors[0]["payload"]["class"], "provider_error", "{source}/{name}");
        let turn = last_turn(&events);
        assert_eq!(turn["payload"]["state"], "failed", "{source}/{name}");
        // The error code of the `<synthetic>` assistant message is kept.
        let code = messages(&sc)
            .iter()
            .find(|msg| msg["type"] == "assistant" && msg["error"].is_string())
            .map(|msg| msg["error"].clone());
        if let Some(code) = code {
            assert_eq!(errors[0]["payload"]["detail"]["error"], code, "{source}/{name}");
        }
    }
    // A retried API error is a warning, not a failure.
    let sc = Scenario::load(BARE, "v0.3.332-error529_retry2");
    let warnings = of_type(&events(&sc), "runtime.warning").len();
    assert!(warnings >= 2, "api_retry is reported as runtime.warning");
}

#[test]
fn limits_fail_with_their_subtype() {
    for (name, subtype) in [
        ("max_turns", "error_max_turns"),
        ("v0.3.332-max_turns", "error_max_turns"),
        ("v0.3.332-max_budget", "error_max_budget_usd"),
    ] {
        let sc = Scenario::load(BARE, name);
        let events = events(&sc);
        let turn = last_turn(&events);
        assert_eq!(turn["payload"]["state"], "failed", "{name}");
        assert_eq!(turn["payload"]["stopReason"], subtype, "{name}");
        let errors = of_type(&events, "runtime.error");
        assert_eq!(errors.len(), 1, "{name}");
        assert_eq!(errors[0]["payload"]["detail"]["subtype"], subtype, "{name}");
    }
}

#[test]
fn interrupts_end_the_turn_interrupted_without_runtime_error() {
    for (source, name) in [
        (BARE, "sdk_interrupt_midstream"),
        (CONTROL, "sdk_interrupt_midstream"),
        (BARE, "v0.3.332-sdk_interrupt_midstream"),
        (CONTROL, "v0.3.332-sdk_interrupt_midstream"),
        (CONTROL, "sdk_bash_touch_deny_interrupt"),
        (CONTROL, "v0.3.332-sdk_bash_touch_deny_interrupt"),
    ] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        assert_eq!(last_turn(&events)["payload"]["state"], "interrupted", "{source}/{name}");
        assert!(
            of_type(&events, "runtime.error").is_empty(),
            "{source}/{name}: no runtime.error"
        );
    }
}

#[test]
fn subagent_messages_are_items_under_their_task_item() {
    for (source, name) in [
        (BARE, "sdk_task_subagent"),
        (CONTROL, "sdk_task_subagent"),
        (BARE, "v0.3.332-task_subagent"),
        (CONTROL, "v0.3.332-sdk_task_subagent"),
    ] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        let task = of_type(&events, "item.started")
            .into_iter()
            .find(|event| event["payload"]["itemType"] == "collab_agent_tool_call")
            .unwrap_or_else(|| panic!("{source}/{name}: a Task item"));
        let task_use_id = task["providerRefs"]["providerItemId"].clone();
        let sub_events: Vec<&Value> = events
            .iter()
            .filter(|event| event["raw"]["payload"]["parent_tool_use_id"] == task_use_id)
            .collect();
        assert!(!sub_events.is_empty(), "{source}/{name}: the subagent's messages");
        let mut items = 0;
        for event in &sub_events {
            if !event["type"].as_str().is_some_and(|kind| kind.starts_with("task.")) {
                assert_ne!(
                    event["itemId"], task["itemId"],
                    "{source}/{name}: nothing on the Task item"
                );
            }
            assert_ne!(
                event["payload"]["streamKind"], "assistant_text",
                "{source}/{name}: not in the turn's text"
            );
            if event["type"].as_str().is_some_and(|kind| kind.starts_with("item.")) {
                assert_eq!(
                    event["payload"]["data"]["parentItemId"], task["itemId"],
                    "{source}/{name}: naming the Task item"
                );
                items += 1;
            }
        }
        assert!(items > 0, "{source}/{name}: the subagent's work is items");
        assert!(
            !of_type(&events, "task.started").is_empty(),
            "{source}/{name}: task.started"
        );
        if name.starts_with("v0.3.332") {
            assert!(
                !of_type(&events, "task.completed").is_empty(),
                "{source}/{name}: task.completed"
            );
        }
    }
    // A second `result` for one prompt (the background subagent finished) is a turn of its own.
    let sc = Scenario::load(BARE, "v0.3.332-task_subagent");
    let events = events(&sc);
    let turns: std::collections::BTreeSet<String> = of_type(&events, "turn.completed")
        .iter()
        .map(|e| e["turnId"].to_string())
        .collect();
    assert_eq!(turns.len(), 2, "two results, two turns");
}

/// The control requests of a transcript by subtype: `(line, request_id)`.
fn control_requests(sc: &Scenario, subtype: &str) -> Vec<(usize, String)> {
    sc.provider_lines_where(|msg| msg["type"] == "control_request" && msg["request"]["subtype"] == subtype)
        .into_iter()
        .map(|line| {
            (
                line,
                sc.msg(line)["request_id"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The claude-agent-acp transcripts: the adapter registers hooks and serves Claude's tools from
/// an MCP server of its own, so the CLI sends `hook_callback` and `mcp_message` requests.
fn adapter_transcripts() -> Vec<Scenario> {
    Scenario::all(CONTROL)
        .into_iter()
        .filter(|sc| sc.label().contains("/acp-"))
        .collect()
}

#[test]
fn plumbing_is_no_decision() {
    let mut hooks = 0;
    let mut mcp = 0;
    for sc in adapter_transcripts() {
        let events = events(&sc);
        // Only `can_use_tool` opens a card.
        let opened = of_type(&events, "request.opened");
        let asked = control_requests(&sc, "can_use_tool").len();
        assert_eq!(opened.len(), asked, "{}: one card per can_use_tool", sc.label());
        assert!(
            opened
                .iter()
                .all(|event| event["raw"]["payload"]["request"]["subtype"] == "can_use_tool"),
            "{}: every card is a can_use_tool",
            sc.label()
        );
        // A hook callback is hook.started, and the host's answer hook.completed.
        for (line, request_id) in control_requests(&sc, "hook_callback") {
            let input = &sc.msg(line)["request"]["input"];
            let started: Vec<&Value> = of_type(&events, "hook.started")
                .into_iter()
                .filter(|event| event["payload"]["hookId"] == request_id.as_str())
                .collect();
            assert_eq!(started.len(), 1, "{}: line {line}", sc.label());
            assert_eq!(started[0]["payload"]["hookEvent"], input["hook_event_name"]);
            assert_eq!(
                started[0]["providerRefs"]["providerItemId"],
                input["tool_use_id"],
                "{}: on the tool call it serves",
                sc.label()
            );
            let completed = of_type(&events, "hook.completed")
                .into_iter()
                .filter(|event| event["payload"]["hookId"] == request_id.as_str())
                .count();
            assert_eq!(completed, 1, "{}: line {line}", sc.label());
            hooks += 1;
        }
        // An MCP message is tool progress, on the call a tools/call serves.
        for (line, _) in control_requests(&sc, "mcp_message") {
            let message = &sc.msg(line)["request"]["message"];
            let progress: Vec<&Value> = of_type(&events, "tool.progress")
                .into_iter()
                .filter(|event| event["raw"]["payload"] == *sc.msg(line))
                .collect();
            assert_eq!(progress.len(), 1, "{}: line {line}", sc.label());
            assert_eq!(progress[0]["raw"]["source"], "claude.sdk.control");
            if message["method"] == "tools/call" {
                assert_eq!(
                    progress[0]["payload"]["toolUseId"],
                    message["params"]["_meta"]["claudecode/toolUseId"]
                );
            }
            mcp += 1;
        }
        // Plumbing never moves the session state.
        for event in of_type(&events, "session.state.changed") {
            assert_ne!(event["raw"]["source"], "claude.sdk.control", "{}: {event}", sc.label());
        }
    }
    assert!(
        hooks >= 16 && mcp >= 24,
        "the corpus has plumbing: {hooks} hooks, {mcp} MCP messages"
    );
}

#[test]
fn an_api_error_is_no_assistant_message() {
    for (source, name) in [
        (BARE, "error400"),
        (BARE, "error529_noretry"),
        (CONTROL, "sdk_error529"),
        (CONTROL, "acp-error529"),
        (BARE, "v0.3.332-sdk_error529"),
    ] {
        let sc = Scenario::load(source, name);
        let events = events(&sc);
        let synthetic = messages(&sc)
            .into_iter()
            .find(|msg| msg["type"] == "assistant" && msg["message"]["model"] == "<synthetic>")
            .unwrap_or_else(|| panic!("{source}/{name}: the CLI's synthetic message"));
        let text = synthetic["message"]["content"][0]["text"].as_str().unwrap().to_string();
        let said: Vec<&Value> = of_type(&events, "item.started")
            .into_iter()
            .filter(|event| event["payload"]["itemType"] == "assistant_message")
            .filter(|event| event["payload"]["data"]["text"] == text.as_str())
            .collect();
        assert!(said.is_empty(), "{source}/{name}: the error is not said by the model");
        let errors = of_type(&events, "runtime.error");
        assert_eq!(errors.len(), 1, "{source}/{name}");
        // The CLI's text, its API's JSON error document read as the sentence it holds.
        let readable = agentwire::content::readable_error(&text).unwrap_or(text);
        assert_eq!(errors[0]["payload"]["message"], readable.as_str(), "{source}/{name}");
        assert_eq!(errors[0]["raw"]["payload"], synthetic, "{source}/{name}: raw keeps it");
    }
}

#[test]
fn the_persons_prompt_is_shown_and_the_clis_notes_are_marked() {
    /// The CLI's notes, and a subagent's prompt: not what the person typed.
    fn from_cli(event: &Value) -> bool {
        event["payload"]["data"]["origin"] == "cli" || event["payload"]["data"]["parentItemId"].is_string()
    }
    for sc in Scenario::all(CONTROL) {
        let events = events(&sc);
        let prompts: Vec<String> = sc
            .client_lines_where(|msg| msg["type"] == "user")
            .into_iter()
            .map(|line| {
                sc.msg(line)["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let user_items: Vec<&Value> = of_type(&events, "item.completed")
            .into_iter()
            .filter(|event| event["payload"]["itemType"] == "user_message")
            .collect();
        let text = |event: &Value| {
            event["payload"]["data"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let shown: Vec<String> = user_items
            .iter()
            .filter(|event| !from_cli(event))
            .map(|event| text(event))
            .collect();
        assert_eq!(shown, prompts, "{}: what the person typed, and only that", sc.label());
        // What the CLI injected is an item too, marked as the CLI's: never the person's words,
        // never lost. Every interrupt note the CLI sent is one.
        let notes: Vec<String> = user_items
            .iter()
            .filter(|event| from_cli(event))
            .map(|event| text(event))
            .collect();
        let interrupt_notes = sc
            .provider_lines_where(|msg| {
                msg["type"] == "user"
                    && msg["message"]["content"][0]["text"]
                        .as_str()
                        .is_some_and(|text| text.starts_with("[Request interrupted"))
            })
            .len();
        let noted = notes
            .iter()
            .filter(|note| note.starts_with("[Request interrupted"))
            .count();
        assert_eq!(noted, interrupt_notes, "{}: {notes:?}", sc.label());
        // Each prompt is the first item of its turn.
        for prompt in of_type(&events, "item.started")
            .into_iter()
            .filter(|event| event["payload"]["itemType"] == "user_message" && !from_cli(event))
        {
            let first = events
                .iter()
                .find(|event| event["type"] == "item.started" && event["turnId"] == prompt["turnId"]);
            assert_eq!(first, Some(prompt), "{}", sc.label());
        }
    }
    // The bare stream shows the interrupt note only as the CLI's.
    for sc in Scenario::all(BARE) {
        for event in of_type(&events(&sc), "item.started") {
            let text = event["payload"]["data"]["text"].as_str().unwrap_or_default();
            if text.starts_with("[Request interrupted") {
                assert!(from_cli(event), "{}: {text}", sc.label());
            }
        }
    }
}

#[test]
fn background_subagents_never_reopen_their_item_and_every_task_ends() {
    for sc in Scenario::all(BARE).into_iter().chain(Scenario::all(CONTROL)) {
        let events = events(&sc);
        let mut completed = std::collections::BTreeSet::new();
        for event in &events {
            let item = event["itemId"].to_string();
            match event["type"].as_str().unwrap_or_default() {
                "item.completed" => {
                    completed.insert(item);
                }
                "item.started" | "item.updated" | "content.delta" => {
                    assert!(
                        !completed.contains(&item),
                        "{}: a completed item reopened: {event}",
                        sc.label()
                    )
                }
                _ => {}
            }
        }
        let tasks = |kind: &str| {
            of_type(&events, kind)
                .iter()
                .map(|event| event["payload"]["taskId"].to_string())
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(
            tasks("task.started"),
            tasks("task.completed"),
            "{}: every task ends",
            sc.label()
        );
    }
    let sc = Scenario::load(CONTROL, "v0.3.332-sdk_task_subagent");
    let events = events(&sc);
    // The background subagent's messages are items naming its Task item, in the turn that
    // started the task, also those after that turn's `result`: its command is not failed by the
    // turn's end but completes with its own result, and nothing of it is mere progress.
    let task_turn = of_type(&events, "task.started")[0]["turnId"].clone();
    let late: Vec<&Value> = events
        .iter()
        .filter(|event| event["raw"]["payload"]["parent_tool_use_id"].is_string())
        .filter(|event| event["type"] == "task.progress")
        .collect();
    assert!(late.is_empty(), "the subagent's messages are items: {late:?}");
    let items: Vec<&Value> = of_type(&events, "item.started")
        .into_iter()
        .filter(|event| event["payload"]["data"]["parentItemId"].is_string())
        .collect();
    assert!(items.len() >= 3, "the subagent's messages are items");
    for item in &items {
        assert_eq!(item["turnId"], task_turn, "in the turn that started the task: {item}");
    }
    let command = of_type(&events, "item.completed")
        .into_iter()
        .find(|event| event["payload"]["itemType"] == "command_execution")
        .expect("the subagent's command");
    assert_eq!(command["payload"]["status"], "completed", "{command}");
    assert_eq!(command["payload"]["data"]["output"], "sub", "{command}");
}

#[test]
fn message_start_reports_the_input_usage() {
    let sc = Scenario::load(CONTROL, "v0.3.332-sdk_plain");
    let events = events(&sc);
    let usage: Vec<&Value> = of_type(&events, "thread.token-usage.updated")
        .into_iter()
        .filter(|event| event["raw"]["payload"]["event"]["type"] == "message_start")
        .collect();
    assert!(!usage.is_empty());
    // The call's figures: Claude's input and its cache's tokens together as the input.
    for event in usage {
        let sent = &event["raw"]["payload"]["event"]["message"]["usage"];
        let count = |key: &str| sent[key].as_i64().unwrap_or(0);
        let last = &event["payload"]["usage"]["last"];
        assert_eq!(last["scope"], "call");
        let input = count("input_tokens") + count("cache_read_input_tokens") + count("cache_creation_input_tokens");
        assert_eq!(last["inputTokens"].as_i64(), Some(input));
        assert_eq!(
            last["cachedInputTokens"].as_i64(),
            Some(count("cache_read_input_tokens"))
        );
        assert_eq!(last["outputTokens"].as_i64(), Some(count("output_tokens")));
    }
}

#[test]
fn lines_stamped_by_the_cli_carry_their_time() {
    let sc = Scenario::load(BARE, "v0.3.332-sdk_plain");
    let events = events(&sc);
    let stamped: Vec<&Value> = events
        .iter()
        .filter(|event| event["raw"]["payload"]["timestamp"].is_string())
        .collect();
    assert!(!stamped.is_empty());
    for event in stamped {
        assert_eq!(event["createdAt"], event["raw"]["payload"]["timestamp"], "{event}");
    }
    assert!(
        events
            .iter()
            .all(|event| event["createdAt"] != "1970-01-01T00:00:00.000Z")
    );
}

#[test]
fn cards_and_items_say_what_they_act_on() {
    // The plan to approve is on the card.
    let sc = Scenario::load(CONTROL, "sdk_exit_plan_mode_allow");
    let plan_events = events(&sc);
    let card = of_type(&plan_events, "request.opened")
        .into_iter()
        .find(|event| event["payload"]["args"]["toolName"] == "ExitPlanMode")
        .expect("an ExitPlanMode card");
    let plan = card["payload"]["args"]["input"]["plan"].as_str().unwrap();
    assert!(card["payload"]["detail"].as_str().unwrap().contains(plan));
    // The adapter's mirror of Bash is a command approval with its command.
    let sc = Scenario::load(CONTROL, "acp-old_terminal_allow");
    let bash_events = events(&sc);
    let card = of_type(&bash_events, "request.opened")[0];
    assert_eq!(card["payload"]["args"]["toolName"], "mcp__acp__Bash");
    assert_eq!(card["payload"]["requestType"], "command_execution_approval");
    let command = card["payload"]["args"]["input"]["command"].as_str().unwrap();
    assert!(card["payload"]["detail"].as_str().unwrap().contains(command));
    // A read is titled with its file.
    let sc = Scenario::load(CONTROL, "acp-old_fs_read_edit");
    let read_events = events(&sc);
    let read = tool_events(&sc, &read_events, "item.completed", "mcp__acp__Read")
        .into_iter()
        .next()
        .expect("a Read item");
    let path = read["payload"]["data"]["arguments"]["file_path"].as_str().unwrap();
    assert_eq!(read["payload"]["title"], format!("Read {path}"));
    assert_eq!(read["payload"]["data"]["tool"], "Read");
    // One "input final" per tool call.
    for sc in Scenario::all(BARE).into_iter().chain(Scenario::all(CONTROL)) {
        let events = events(&sc);
        let mut seen = std::collections::BTreeSet::new();
        for event in of_type(&events, "item.updated") {
            if event["payload"]["detail"] == "input final" {
                assert!(seen.insert(event["itemId"].to_string()), "{}: {event}", sc.label());
            }
        }
    }
}

#[test]
fn a_timestamp_that_is_no_instant_is_a_warning_not_a_moved_event() {
    let path = agentwire_tests::corpus_dir(BARE).join("v0.3.332-sdk_plain.jsonl");
    let text = std::fs::read_to_string(path).expect("corpus");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines
        .iter()
        .position(|line| line.contains(r#""type":"assistant""#) && line.contains(r#""timestamp":""#))
        .expect("a stamped assistant message");
    let mut message: Value = serde_json::from_str(&lines[at]).unwrap();
    let good = message["timestamp"].as_str().unwrap().to_string();
    message["timestamp"] = Value::from("2026-02-31T25:61:61Z");
    lines[at] = message.to_string();
    let norm = agentwire_tests::normalize_text(BARE, &(lines.join("\n") + "\n"));
    let events: Vec<Value> = norm.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    let warnings: Vec<&Value> = of_type(&events, "runtime.warning")
        .into_iter()
        .filter(|event| event["payload"]["detail"]["value"] == "2026-02-31T25:61:61Z")
        .collect();
    assert_eq!(warnings.len(), 1, "the bad time is named once");
    assert!(
        warnings[0]["payload"]["message"]
            .as_str()
            .unwrap()
            .contains("timestamp")
    );
    // The line's events keep the time before it, never a moved one (March 4th).
    for (event, line) in events.iter().zip(&norm.lines) {
        if *line == Some(at + 1) {
            assert!(event["createdAt"].as_str().unwrap() <= good.as_str(), "{event}");
            assert!(!event["createdAt"].as_str().unwrap().starts_with("2026-03-04"));
        }
    }
}

// -------------------------------------------------------------------------------------------
// The task list of Claude Code 0.3.x (`TaskCreate` / `TaskUpdate`), inline: no corpus trace uses
// it. Shapes from `sdk-tools.d.ts` of `@anthropic-ai/claude-agent-sdk` 0.3.336
// (`TaskCreateInput`, `TaskCreateOutput`, `TaskUpdateInput`, `TaskUpdateOutput`); result texts
// as the CLI writes them ("Task #1 created successfully: ...", "Updated task #1 status").

const TASKS_SESSION: &str = "5d1c7a52-8f0e-4b6a-9c1d-2e3f4a5b6c7d";

/// A `tool_use` of `name` with `input`, as the `assistant` message `n` of the session.
fn task_call(n: u32, id: &str, name: &str, input: Value) -> String {
    serde_json::json!({
        "type": "assistant",
        "message": {
            "id": format!("msg_tasks_{n}"), "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [{ "type": "tool_use", "id": id, "name": name, "input": input }],
            "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": 10, "output_tokens": 5 }
        },
        "parent_tool_use_id": null, "session_id": TASKS_SESSION, "uuid": format!("a-{n}"),
        "timestamp": format!("2026-12-01T03:00:{:02}.000Z", 10 + n)
    })
    .to_string()
}

/// The `tool_result` of call `id`: `text`, and the structured output if the CLI gives one.
fn task_result(n: u32, id: &str, text: &str, structured: Option<Value>) -> String {
    let mut message = serde_json::json!({
        "type": "user",
        "message": { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": id, "content": text, "is_error": false }
        ] },
        "parent_tool_use_id": null, "session_id": TASKS_SESSION, "uuid": format!("u-{n}"),
        "timestamp": format!("2026-12-01T03:00:{:02}.500Z", 10 + n)
    });
    if let Some(structured) = structured {
        message["tool_use_result"] = structured;
    }
    message.to_string()
}

#[test]
fn task_create_and_update_keep_the_plan() {
    // The CLI's own `init` and `result` (every field its schema asks), moved to this session.
    let corpus = std::fs::read_to_string(agentwire_tests::corpus_dir(BARE).join("v0.3.332-plain.jsonl")).unwrap();
    let of_session = |kind: &str| {
        let mut message: Value = corpus
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|message| message["type"] == kind)
            .expect(kind);
        message["session_id"] = Value::from(TASKS_SESSION);
        message.to_string()
    };
    let (init, result) = (of_session("system"), of_session("result"));
    let lines = [
        init,
        task_call(
            1,
            "toolu_tc1",
            "TaskCreate",
            serde_json::json!({
                "subject": "Install ffmpeg",
                "description": "Install ffmpeg with the package manager",
                "activeForm": "Installing ffmpeg"
            }),
        ),
        // The structured output names the id (newer CLIs)...
        task_result(
            1,
            "toolu_tc1",
            "Task #1 created successfully: Install ffmpeg",
            Some(serde_json::json!({ "task": { "id": "1", "subject": "Install ffmpeg" } })),
        ),
        task_call(
            2,
            "toolu_tc2",
            "TaskCreate",
            serde_json::json!({ "subject": "Convert the video", "description": "Convert clip.mov to mp4" }),
        ),
        // ... only the text does here.
        task_result(2, "toolu_tc2", "Task #2 created successfully: Convert the video", None),
        task_call(
            3,
            "toolu_tu1",
            "TaskUpdate",
            serde_json::json!({ "taskId": "1", "status": "in_progress" }),
        ),
        task_result(
            3,
            "toolu_tu1",
            "Updated task #1 status",
            Some(serde_json::json!({
                "success": true, "taskId": "1", "updatedFields": ["status"],
                "statusChange": { "from": "pending", "to": "in_progress" }
            })),
        ),
        task_call(
            4,
            "toolu_tu2",
            "TaskUpdate",
            serde_json::json!({ "taskId": "1", "status": "completed" }),
        ),
        task_result(
            4,
            "toolu_tu2",
            "Updated task #1 status",
            Some(serde_json::json!({
                "success": true, "taskId": "1", "updatedFields": ["status"],
                "statusChange": { "from": "in_progress", "to": "completed" }
            })),
        ),
        result,
    ];
    let norm = agentwire_tests::normalize_text(BARE, &(lines.join("\n") + "\n"));
    let events: Vec<Value> = norm.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    assert!(of_type(&events, "runtime.warning").is_empty(), "{}", norm.jsonl);

    // One whole plan after each change, each on the line of the result that made it.
    let plans: Vec<Vec<(String, String)>> = of_type(&events, "turn.plan.updated")
        .into_iter()
        .map(|event| {
            event["payload"]["plan"]
                .as_array()
                .expect("plan")
                .iter()
                .map(|step| {
                    (
                        step["step"].as_str().unwrap().to_string(),
                        step["status"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .collect();
    let step = |text: &str, status: &str| (text.to_string(), status.to_string());
    assert_eq!(
        plans,
        vec![
            vec![step("Install ffmpeg", "pending")],
            vec![step("Install ffmpeg", "pending"), step("Convert the video", "pending")],
            vec![
                step("Install ffmpeg", "inProgress"),
                step("Convert the video", "pending")
            ],
            vec![
                step("Install ffmpeg", "completed"),
                step("Convert the video", "pending")
            ],
        ],
        "{}",
        norm.jsonl
    );
    let plan_lines: Vec<Option<usize>> = events
        .iter()
        .zip(&norm.lines)
        .filter(|(event, _)| event["type"] == "turn.plan.updated")
        .map(|(_, line)| *line)
        .collect();
    assert_eq!(plan_lines, [Some(3), Some(5), Some(7), Some(9)]);

    // Each call stays its own completed tool item, titled by what it does.
    let started: Vec<(&str, &str)> = of_type(&events, "item.started")
        .into_iter()
        .map(|event| {
            (
                event["payload"]["itemType"].as_str().unwrap(),
                event["payload"]["title"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        started,
        [
            ("dynamic_tool_call", "Add task: Install ffmpeg"),
            ("dynamic_tool_call", "Add task: Convert the video"),
            ("dynamic_tool_call", "Update task #1"),
            ("dynamic_tool_call", "Update task #1"),
        ]
    );
    let completed = of_type(&events, "item.completed");
    assert_eq!(completed.len(), 4);
    assert!(completed.iter().all(|event| event["payload"]["status"] == "completed"));
}

#[test]
fn a_failed_task_update_leaves_the_plan() {
    let lines = [
        task_call(1, "toolu_tc1", "TaskCreate", serde_json::json!({ "subject": "Run tests", "description": "d" })),
        task_result(1, "toolu_tc1", "Task #1 created successfully: Run tests", None),
        // An error result, a refused update and an update of a task never created change nothing.
        task_call(2, "toolu_tu1", "TaskUpdate", serde_json::json!({ "taskId": "1", "status": "completed" })),
        serde_json::json!({
            "type": "user",
            "message": { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "toolu_tu1", "content": "<tool_use_error>boom</tool_use_error>", "is_error": true }
            ] },
            "parent_tool_use_id": null, "session_id": TASKS_SESSION, "uuid": "u-err"
        })
        .to_string(),
        task_call(3, "toolu_tu2", "TaskUpdate", serde_json::json!({ "taskId": "1", "status": "completed" })),
        task_result(
            3,
            "toolu_tu2",
            "Task #1 not found",
            Some(serde_json::json!({ "success": false, "taskId": "1", "updatedFields": [], "error": "Task not found" })),
        ),
        task_call(4, "toolu_tu3", "TaskUpdate", serde_json::json!({ "taskId": "7", "status": "completed" })),
        task_result(4, "toolu_tu3", "Updated task #7 status", None),
        // A deleted task leaves the plan.
        task_call(5, "toolu_tu4", "TaskUpdate", serde_json::json!({ "taskId": "1", "status": "deleted" })),
        task_result(5, "toolu_tu4", "Updated task #1 deleted", None),
    ];
    let norm = agentwire_tests::normalize_text(BARE, &(lines.join("\n") + "\n"));
    let events: Vec<Value> = norm.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    let plans: Vec<&Value> = of_type(&events, "turn.plan.updated")
        .into_iter()
        .map(|event| &event["payload"]["plan"])
        .collect();
    assert_eq!(
        plans,
        [
            &serde_json::json!([{ "step": "Run tests", "status": "pending" }]),
            &serde_json::json!([]),
        ],
        "{}",
        norm.jsonl
    );
}

#[test]
fn a_task_list_result_is_the_whole_plan() {
    let listed = |second: &str| {
        serde_json::json!({ "tasks": [
            { "id": "1", "subject": "Write the migration", "status": "completed", "blockedBy": [] },
            { "id": "3", "subject": "Review the patch", "status": second, "blockedBy": ["1"] }
        ] })
    };
    let lines = [
        // Tasks of an earlier session: an update of one this session never saw changes nothing...
        task_call(
            1,
            "toolu_tu1",
            "TaskUpdate",
            serde_json::json!({ "taskId": "3", "status": "in_progress" }),
        ),
        task_result(1, "toolu_tu1", "Updated task #3 status", None),
        // ... until TaskList names them all.
        task_call(2, "toolu_tl1", "TaskList", serde_json::json!({})),
        task_result(
            2,
            "toolu_tl1",
            "#1 [completed] Write the migration\n#3 [in_progress] Review the patch",
            Some(listed("in_progress")),
        ),
        task_call(
            3,
            "toolu_tu2",
            "TaskUpdate",
            serde_json::json!({ "taskId": "3", "status": "completed" }),
        ),
        task_result(3, "toolu_tu2", "Updated task #3 status", None),
        // A list that says what is known already is no change.
        task_call(4, "toolu_tl2", "TaskList", serde_json::json!({})),
        task_result(
            4,
            "toolu_tl2",
            "#1 [completed] Write the migration\n#3 [completed] Review the patch",
            Some(listed("completed")),
        ),
    ];
    let norm = agentwire_tests::normalize_text(BARE, &(lines.join("\n") + "\n"));
    let events: Vec<Value> = norm.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    let plans: Vec<&Value> = of_type(&events, "turn.plan.updated")
        .into_iter()
        .map(|event| &event["payload"]["plan"])
        .collect();
    assert_eq!(
        plans,
        [
            &serde_json::json!([
                { "step": "Write the migration", "status": "completed" },
                { "step": "Review the patch", "status": "inProgress" }
            ]),
            &serde_json::json!([
                { "step": "Write the migration", "status": "completed" },
                { "step": "Review the patch", "status": "completed" }
            ]),
        ],
        "{}",
        norm.jsonl
    );
}

#[test]
fn rate_limit_numbers_print_as_claude_wrote_them() {
    let path = agentwire_tests::corpus_dir(BARE).join("v0.3.332-sdk_plain.jsonl");
    let text = std::fs::read_to_string(path).expect("corpus");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // The CLI writes epoch seconds as integers and utilization as a fraction.
    let rate_limit = r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1771606800,"rateLimitType":"five_hour","utilization":0.91,"overageResetsAt":1772000000},"uuid":"0b6f2f5e-2d0c-4d53-9d36-0d2a4c1e7a11","session_id":"85a30629-3b84-4b33-9573-83d619e3fbee"}"#;
    lines.insert(1, rate_limit.to_string());
    let norm = agentwire_tests::normalize_text(BARE, &(lines.join("\n") + "\n"));
    let updates: Vec<String> = norm
        .events
        .iter()
        .map(|event| serde_json::to_string(event).unwrap())
        .filter(|event| event.contains(r#""type":"account.rate-limits.updated""#))
        .collect();
    assert_eq!(updates.len(), 1, "one rate-limit update");
    let event: Value = serde_json::from_str(&updates[0]).unwrap();
    let limits = &event["payload"]["rateLimits"];
    assert_eq!(limits["resetsAt"].as_u64(), Some(1_771_606_800), "{limits}");
    assert_eq!(limits["overageResetsAt"].as_u64(), Some(1_772_000_000), "{limits}");
    assert_eq!(limits["utilization"].as_f64(), Some(0.91), "{limits}");
    // The text a UI receives, not only the value: no `1771606800.0`.
    assert!(updates[0].contains(r#""resetsAt":1771606800,"#), "{}", updates[0]);
    assert!(updates[0].contains(r#""overageResetsAt":1772000000"#), "{}", updates[0]);
}

#[test]
fn a_hook_exit_code_that_is_no_integer_is_a_warning() {
    let path = agentwire_tests::corpus_dir(BARE).join("v0.3.332-sdk_plain.jsonl");
    let text = std::fs::read_to_string(path).expect("corpus");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let hook = |id: &str, code: &str| {
        format!(
            r#"{{"type":"system","subtype":"hook_response","hook_id":"{id}","hook_name":"SessionStart:startup","hook_event":"SessionStart","output":"","stdout":"","stderr":"","exit_code":{code},"outcome":"success","uuid":"5d1c1f0e-8a4b-4a55-9d0e-1c2b3a4d5e6f","session_id":"85a30629-3b84-4b33-9573-83d619e3fbee"}}"#
        )
    };
    lines.insert(1, hook("h-whole", "2"));
    lines.insert(2, hook("h-half", "1.5"));
    let norm = agentwire_tests::normalize_text(BARE, &(lines.join("\n") + "\n"));
    let events: Vec<Value> = norm.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    let hooks = of_type(&events, "hook.completed");
    assert_eq!(hooks.len(), 2, "both hooks complete");
    assert_eq!(hooks[0]["payload"]["exitCode"], 2);
    // 1.5 is no exit status: it is not truncated to 1, and it is named.
    assert!(hooks[1]["payload"].get("exitCode").is_none(), "{}", hooks[1]);
    let warnings: Vec<&Value> = of_type(&events, "runtime.warning")
        .into_iter()
        .filter(|event| event["payload"]["message"] == "hook exit code 1.5 is not an integer")
        .collect();
    assert_eq!(warnings.len(), 1, "the fractional exit code is named once");
}

/// One control transcript holding two CLI sessions, one after the other (a host that restarts
/// the CLI, or the bench's repeated corpus): the second session's prompt, sent before its CLI
/// names the session, opens its turn in that session, not a turn in the first that never ends.
/// Each session runs one turn, and nothing is left open for the end of the stream to settle, so
/// the first session can be forgotten once idle.
#[test]
fn a_second_cli_session_in_one_transcript_opens_its_turn_in_its_own_thread() {
    let path = agentwire_tests::corpus_dir(CONTROL).join("sdk_error529.jsonl");
    let once = std::fs::read_to_string(&path).unwrap();
    let first_session = "b20536dc-416a-48a2-94ae-4554ab9eaaa9";
    assert!(once.contains(first_session), "the trace names its session");
    let twice = format!(
        "{once}{}",
        once.replace(first_session, "b20536dc-416a-48a2-94ae-4554ab9eaaa0")
    );
    let events: Vec<Value> = agentwire_tests::normalize_text(CONTROL, &twice)
        .events
        .iter()
        .map(|event| serde_json::to_value(event).unwrap())
        .collect();
    let threads: Vec<&Value> = of_type(&events, "thread.started")
        .into_iter()
        .map(|event| &event["threadId"])
        .collect();
    assert_eq!(threads.len(), 2, "two sessions");
    for thread in threads {
        let in_thread = |kind: &str| {
            of_type(&events, kind)
                .into_iter()
                .filter(|event| &event["threadId"] == thread)
                .count()
        };
        assert_eq!(in_thread("turn.started"), 1, "one turn in {thread}");
        assert_eq!(in_thread("turn.completed"), 1, "its turn ends in {thread}");
    }
    let settled_at_end = events
        .iter()
        .filter(|event| event["payload"]["reason"] == "the stream ended")
        .filter(|event| event["type"] == "turn.completed")
        .count();
    assert_eq!(settled_at_end, 0, "no turn left open for the end of the stream");
}

/// A plan comes from a `TodoWrite` that succeeded: drawn on its `tool_result`, never on the call
/// (0.3.x refuses `TodoWrite`, "No such tool available", after the model called it).
#[test]
fn a_plan_is_drawn_from_a_todo_write_that_succeeded() {
    let sc = Scenario::load(BARE, "v0.3.332-todo");
    let refused = events(&sc);
    assert!(
        of_type(&refused, "turn.plan.updated").is_empty(),
        "a TodoWrite that failed draws no plan"
    );
    let failed = tool_events(&sc, &refused, "item.completed", "TodoWrite");
    assert!(!failed.is_empty());
    for item in failed {
        assert_eq!(item["payload"]["status"], "failed");
        assert_eq!(item["payload"]["title"], "Update plan");
    }
    for (source, name) in [(BARE, "todo"), (BARE, "sdk_todo"), (CONTROL, "sdk_todo")] {
        let sc = Scenario::load(source, name);
        let drawn = events(&sc);
        for plan in of_type(&drawn, "turn.plan.updated") {
            assert_eq!(plan["raw"]["method"], "user", "{source}/{name}: on the tool_result");
        }
    }
}

/// The newest SDK says in the tool result's `tool_result_meta` how a call was decided: a call a
/// person or a rule refused is `declined`, never `failed`; a person's refusal (their card was in
/// the host) opens no second card when the `result` lists it; and a refusal of a turn the person
/// stopped is never worded as the permission rules'.
#[test]
fn a_refusal_the_tool_result_reports_is_declined_once() {
    for (name, tool) in [
        ("v0.3.332-sdk_bash_touch_deny", "Bash"),
        ("v0.3.332-sdk_bash_touch_deny_interrupt", "Bash"),
        ("v0.3.332-sdk_write_deny", "Write"),
    ] {
        let sc = Scenario::load(BARE, name);
        let refused = events(&sc);
        let completed = tool_events(&sc, &refused, "item.completed", tool);
        assert_eq!(completed.len(), 1, "{name}");
        assert_eq!(completed[0]["payload"]["status"], "declined", "{name}");
        assert!(of_type(&refused, "request.opened").is_empty(), "{name}: no second card");
    }
    // The CLI's own rules refused it: declined, and the result's denial is the one card.
    let sc = Scenario::load(BARE, "v0.3.332-denied_bash_touch");
    let by_rules = events(&sc);
    assert_eq!(
        tool_events(&sc, &by_rules, "item.completed", "Bash")[0]["payload"]["status"],
        "declined"
    );
    assert_eq!(of_type(&by_rules, "request.opened").len(), 1);
    // Before 0.3.x only the `result` tells: a turn the person stopped refused the call.
    let sc = Scenario::load(BARE, "sdk_bash_touch_deny_interrupt");
    let stopped = events(&sc);
    let opened = of_type(&stopped, "request.opened");
    assert_eq!(opened.len(), 1);
    let detail = opened[0]["payload"]["detail"].as_str().unwrap();
    assert!(!detail.contains("permission rules"), "{detail}");
    assert_eq!(decisions(&stopped), ["cancel"]);
}

/// `ExitPlanMode` asks to approve a plan: a `plan_approval` card whose detail is the plan (the
/// newest CLI asks with an empty input: the plan is the call's), a `plan` item with its text, and
/// the answer offers allow and deny.
#[test]
fn exit_plan_mode_is_a_plan_to_approve() {
    for name in ["sdk_exit_plan_mode_allow", "v0.3.332-sdk_exit_plan_mode_allow"] {
        let sc = Scenario::load(CONTROL, name);
        let events = events(&sc);
        let call = messages(&sc)
            .iter()
            .filter(|msg| msg["type"] == "assistant")
            .flat_map(|msg| msg["message"]["content"].as_array().cloned().unwrap_or_default())
            .find(|block| block["name"] == "ExitPlanMode")
            .expect("an ExitPlanMode call");
        let plan = call["input"]["plan"].as_str().expect("the plan");
        let card = of_type(&events, "request.opened")
            .into_iter()
            .find(|event| event["payload"]["args"]["toolName"] == "ExitPlanMode")
            .expect("a card");
        assert_eq!(card["payload"]["requestType"], "plan_approval", "{name}");
        assert_eq!(card["payload"]["detail"], plan, "{name}");
        let item = tool_events(&sc, &events, "item.completed", "ExitPlanMode")[0];
        assert_eq!(item["payload"]["itemType"], "plan", "{name}");
        assert_eq!(item["payload"]["data"]["markdown"], plan, "{name}");
        assert_eq!(decisions(&events), ["accept", "accept"], "{name}");

        let case = agentwire_tests::round_trip::replies(CONTROL)
            .answered
            .into_iter()
            .find(|case| case.trace == name)
            .expect("an answered request");
        let normalizer = case.session_before_reply();
        for decision in [Decision::Accept, Decision::Decline] {
            let built = normalizer
                .answer(&case.request, &Reply::new(decision))
                .unwrap_or_else(|err| panic!("{name}: {decision}: {err}"));
            let behavior = &built.frame["response"]["response"]["behavior"];
            let expected = if decision == Decision::Accept { "allow" } else { "deny" };
            assert_eq!(behavior, expected, "{name}: {decision}");
        }
    }
}

/// `result.total_cost_usd` is the session's running cost: each `turn.completed` carries what its
/// turn added (`totalCostUsd`, the proposal's turn cost), so the turns add up to the last total.
#[test]
fn each_turn_carries_its_own_cost() {
    let sc = Scenario::load(BARE, "v0.3.332-stream_input_two_turns");
    let events = events(&sc);
    let costs: Vec<f64> = of_type(&events, "turn.completed")
        .iter()
        .filter_map(|event| event["payload"]["totalCostUsd"].as_f64())
        .collect();
    let totals: Vec<f64> = messages(&sc)
        .iter()
        .filter(|message| message["type"] == "result")
        .filter_map(|message| message["total_cost_usd"].as_f64())
        .collect();
    assert_eq!(totals, [0.002272, 0.003084], "the running totals the CLI reports");
    assert_eq!(costs, [0.002272, 0.000812], "each turn's own cost");
}

/// A transcript cut before the CLI named its session still draws what is whole: the person's
/// prompt, a `user_message` of no turn carrying the prompt's record.
#[test]
fn a_cut_transcript_draws_its_whole_prompt() {
    let path = agentwire_tests::corpus_dir(CONTROL).join("sdk_bash_touch_deny.jsonl");
    let trace = std::fs::read_to_string(path).unwrap();
    let cut: String = trace.lines().take(3).map(|line| format!("{line}\n")).collect();
    assert!(
        cut.lines().nth(1).unwrap().contains(r#""type":"user""#),
        "the prompt record"
    );
    let norm = agentwire_tests::normalize_text(CONTROL, &cut);
    let events: Vec<Value> = norm
        .events
        .iter()
        .map(|event| serde_json::to_value(event).unwrap())
        .collect();
    let prompts: Vec<&Value> = of_type(&events, "item.completed")
        .into_iter()
        .filter(|event| event["payload"]["itemType"] == "user_message")
        .collect();
    assert_eq!(prompts.len(), 1, "{}", norm.jsonl);
    assert_eq!(prompts[0]["payload"]["data"]["text"], "please do the task");
    let started = of_type(&events, "item.started");
    assert_eq!(
        started[0]["raw"]["payload"]["type"], "user",
        "the prompt's record is carried"
    );
}
