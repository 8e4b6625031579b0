//! Scenario assertions: what the `opencode serve` traces of the corpus must become, asserted on
//! the typed canonical events, and the HTTP call `answer` builds for a request, compared with the
//! one the client of the trace sent.

use agentwire::answer::Reply;
use agentwire::decision::Decision;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, CanonicalRuntimeEventType as T, ItemStatus, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{normalizer_after, payload};
use serde_json::{Value, json};

const OPENCODE: Source = Source::OPENCODE;

fn load(name: &str) -> Scenario {
    Scenario::load(OPENCODE, name)
}

/// The one client `POST` of a trace whose path starts with `prefix`.
fn client_post(sc: &Scenario, prefix: &str) -> usize {
    let lines = sc.client_lines_where(|msg| {
        msg["method"] == "POST" && msg["path"].as_str().is_some_and(|path| path.starts_with(prefix))
    });
    assert_eq!(lines.len(), 1, "trace `{}`: POST {prefix}…", sc.label());
    lines[0]
}

/// The trace's one request: its `request.opened` (of `request_type`), its `request.resolved`
/// (carried by the client's reply) and the decision.
fn request_cycle(sc: &Scenario, request_type: CanonicalRequestType, reply_prefix: &str) -> (usize, usize, String) {
    let opened = sc.indices_of(T::RequestOpened);
    assert_eq!(opened.len(), 1, "trace `{}`", sc.label());
    let opened = opened[0];
    let request = payload!(sc.event(opened), RequestOpened).expect("request.opened");
    assert_eq!(request.request_type, request_type, "{}", sc.at(opened));
    let resolved = sc.next_for_request(opened, T::RequestResolved);
    let reply = client_post(sc, reply_prefix);
    assert_eq!(sc.raw_payload(resolved), *sc.msg(reply), "{}", sc.at(resolved));
    assert_eq!(sc.turn_id(resolved), sc.turn_id(opened));
    let decision = sc.decision(resolved).expect("a decision").to_string();
    (opened, resolved, decision)
}

/// `answer`, asked by a session that has read the trace up to the client's reply, builds the
/// request the client sent (its method, path and body).
fn assert_answer_rebuilds(sc: &Scenario, opened: usize, reply_line: usize, reply: Reply) {
    let text: String = std::fs::read_to_string(
        agentwire_tests::corpus_dir(OPENCODE)
            .join(format!("{}.jsonl", sc.label().rsplit('/').next().unwrap_or_default())),
    )
    .expect("the trace")
    .lines()
    .take(reply_line - 1)
    .map(|line| format!("{line}\n"))
    .collect();
    let session = normalizer_after(OPENCODE, &text);
    let built = session.answer(sc.request_id(opened), &reply).expect("an answer");
    let mut sent = sc.msg(reply_line).clone();
    sent.as_object_mut().expect("a call").remove("response");
    assert_eq!(built.frame, sent, "trace `{}`", sc.label());
}

#[test]
fn a_permission_allowed_once_or_always_is_accepted_and_the_command_runs() {
    for (name, decision, expected) in [
        ("shell_allow", Decision::Accept, "accept"),
        ("shell_always", Decision::AcceptForSession, "acceptForSession"),
    ] {
        let sc = load(name);
        let (opened, _, got) = request_cycle(&sc, CanonicalRequestType::CommandExecutionApproval, "/permission/");
        assert_eq!(got, expected, "trace `{name}`");
        let reply = client_post(&sc, "/permission/");
        assert_answer_rebuilds(&sc, opened, reply, Reply::new(decision));
        let commands = sc.items(CanonicalItemType::CommandExecution);
        assert_eq!(commands.len(), 1, "trace `{name}`");
        // The approval's card is the command's: the request names the call it asks for.
        assert_eq!(
            sc.event(opened).item_id,
            sc.event(commands[0].1).item_id,
            "trace `{name}`"
        );
        let done = payload!(sc.event(commands[0].1), ItemCompleted).expect("item.completed");
        assert_eq!(done.status, Some(ItemStatus::Completed));
        assert_eq!(
            done.data.as_ref().map(|data| data.to_value()["output"].clone()),
            Some(json!("hello\n"))
        );
        sc.assert_no_item_left_open();
    }
}

#[test]
fn a_permission_rejected_is_declined_with_the_persons_message_and_so_is_the_command() {
    for name in ["shell_reject", "shell_reject_message"] {
        let sc = load(name);
        let (opened, resolved, got) =
            request_cycle(&sc, CanonicalRequestType::CommandExecutionApproval, "/permission/");
        assert_eq!(got, "decline", "trace `{name}`");
        let reply = client_post(&sc, "/permission/");
        let message = sc.msg(reply)["body"]["message"].as_str().map(str::to_string);
        let resolution = payload!(sc.event(resolved), RequestResolved)
            .and_then(|payload| payload.resolution.clone())
            .unwrap_or(Value::Null);
        assert_eq!(
            resolution["message"].as_str().map(str::to_string),
            message,
            "trace `{name}`"
        );
        assert_answer_rebuilds(
            &sc,
            opened,
            reply,
            Reply {
                message,
                ..Reply::new(Decision::Decline)
            },
        );
        let commands = sc.items(CanonicalItemType::CommandExecution);
        let done = payload!(sc.event(commands[0].1), ItemCompleted).expect("item.completed");
        assert_eq!(done.status, Some(ItemStatus::Declined), "trace `{name}`");
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Completed);
    }
}

#[test]
fn a_question_is_answered_or_rejected_over_http() {
    let sc = load("question");
    let (opened, _, got) = request_cycle(&sc, CanonicalRequestType::ToolUserInput, "/question/");
    assert_eq!(got, "answered");
    let reply = client_post(&sc, "/question/");
    let answers = sc.msg(reply)["body"]["answers"].clone();
    assert_answer_rebuilds(
        &sc,
        opened,
        reply,
        Reply {
            answers: Some(answers),
            ..Reply::new(Decision::Answered)
        },
    );
    let sc = load("question_reject");
    let (opened, _, got) = request_cycle(&sc, CanonicalRequestType::ToolUserInput, "/question/");
    assert_eq!(got, "decline");
    let reply = client_post(&sc, "/question/");
    assert_answer_rebuilds(&sc, opened, reply, Reply::new(Decision::Decline));
}

/// A person's stop: the v1 runner's `session.error` `MessageAbortedError`, the v2 runner's
/// `step.failed` "Provider turn interrupted".
#[test]
fn a_persons_stop_ends_the_turn_interrupted_keeping_what_was_said() {
    for name in ["interrupt", "v2_interrupt", "v2_interrupt.api-event"] {
        let sc = load(name);
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Interrupted, "trace `{name}`");
        assert!(
            sc.indices_of(T::RuntimeError).is_empty(),
            "trace `{name}`: a stop is no error"
        );
        let messages = sc.items(CanonicalItemType::AssistantMessage);
        assert_eq!(
            messages.len(),
            1,
            "trace `{name}`: one answer, not started again by its late update"
        );
        let done = payload!(sc.event(messages[0].1), ItemCompleted).expect("item.completed");
        assert_eq!(
            done.data.as_ref().map(|data| data.to_value()["text"].clone()),
            Some(json!("word0")),
            "trace `{name}`"
        );
    }
}

#[test]
fn an_api_error_fails_the_turn_once_and_a_retry_is_a_warning() {
    let sc = load("error400");
    let (_, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Failed);
    assert_eq!(sc.indices_of(T::RuntimeError).len(), 1);
    for name in ["error500_retry", "error529_retry"] {
        let sc = load(name);
        let (_, completed) = sc.single_turn();
        assert_eq!(sc.turn_state(completed), TurnState::Completed, "trace `{name}`");
        assert_eq!(sc.indices_of(T::RuntimeWarning).len(), 1, "trace `{name}`: the retry");
    }
}

#[test]
fn a_subagents_items_sit_under_the_parents_task_item() {
    let sc = load("subagent");
    let tasks = sc.items(CanonicalItemType::CollabAgentToolCall);
    assert_eq!(tasks.len(), 1);
    let task = sc.item_id(tasks[0].0).to_string();
    let threads = sc.indices_of(T::ThreadStarted);
    assert_eq!(threads.len(), 2, "the parent's session and the child's");
    let child = sc.event(threads[1]).thread_id.clone();
    let under: Vec<usize> = sc
        .indices_of(T::ItemStarted)
        .into_iter()
        .filter(|&i| sc.event(i).thread_id == child)
        .collect();
    assert!(under.len() >= 3, "the child's prompt, reasoning, command and answer");
    for i in under {
        let started = payload!(sc.event(i), ItemStarted).expect("item.started");
        let parent = started
            .data
            .as_ref()
            .map(|data| data.to_value()["parentItemId"].clone());
        assert_eq!(parent, Some(json!(task)), "{}", sc.at(i));
    }
}

/// What a UI draws of a trace: each item and turn event's type, item type, status and content,
/// in order (ids and `raw` aside).
fn drawn(sc: &Scenario) -> Vec<Value> {
    sc.events()
        .iter()
        .map(|event| serde_json::to_value(event).expect("events serialize"))
        .filter(|event| {
            let kind = event["type"].as_str().unwrap_or_default();
            kind.starts_with("item.") || kind.starts_with("turn.") || kind == "content.delta"
        })
        .map(|event| json!([event["type"], event["payload"]]))
        .collect()
}

#[test]
fn the_v2_runner_gives_a_turn_its_prompt_answers_command_and_usage() {
    for name in ["v2_shell", "v2_shell.api-event"] {
        let sc = load(name);
        let (_, completed) = sc.single_turn();
        let end = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
        assert_eq!(end.state, TurnState::Completed, "trace `{name}`");
        assert_eq!(end.stop_reason, Some(Some("stop".to_string())), "trace `{name}`");
        assert_eq!(
            end.usage.as_ref().and_then(|usage| usage.output_tokens),
            Some(84),
            "trace `{name}`: the two steps' tokens"
        );
        assert_eq!(sc.items(CanonicalItemType::UserMessage).len(), 1, "trace `{name}`");
        assert_eq!(sc.items(CanonicalItemType::AssistantMessage).len(), 2, "trace `{name}`");
        let commands = sc.items(CanonicalItemType::CommandExecution);
        assert_eq!(commands.len(), 1, "trace `{name}`");
        let done = payload!(sc.event(commands[0].1), ItemCompleted).expect("item.completed");
        assert_eq!(done.status, Some(ItemStatus::Completed));
        let data = done.data.as_ref().map(|data| data.to_value()).unwrap_or_default();
        assert_eq!(data["command"], "echo hello", "trace `{name}`");
        assert_eq!(data["exitCode"], 0, "trace `{name}`");
        assert_eq!(data["output"], "hello\nCommand exited with code 0.", "trace `{name}`");
        assert!(
            sc.indices_of(T::RuntimeWarning).is_empty(),
            "trace `{name}`: every event mapped"
        );
        sc.assert_no_item_left_open();
    }
    // `GET /event` and `GET /api/event` send the same events: a UI draws the same.
    for name in ["v2_plain", "v2_shell", "v2_shell_ask", "v2_interrupt"] {
        let event = load(name);
        let api_event = load(&format!("{name}.api-event"));
        assert_eq!(drawn(&event), drawn(&api_event), "trace `{name}`");
    }
}

/// The v2 runner of 1.18.33 asked no permission in the capture (`tests/corpus/opencode/README.md`):
/// its `permission.v2.asked`, as the server's OpenAPI document declares it, is added to a real
/// trace while the command's call runs.
#[test]
fn a_v2_permission_sits_on_its_call_and_is_answered_under_its_session() {
    let trace = agentwire_tests::corpus_dir(OPENCODE).join("v2_shell_ask.jsonl");
    let text = std::fs::read_to_string(trace).expect("the trace");
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        lines.push(line.to_string());
        if line.contains("\"session.next.tool.called\"") {
            break;
        }
    }
    let called: Value = serde_json::from_str(lines.last().expect("a line")).expect("a record");
    let properties = &called["msg"]["properties"];
    let session = properties["sessionID"].as_str().expect("a session");
    let asked = json!({"dir": "in", "ts": called["ts"], "msg": {
        "id": "evt_permission_v2",
        "type": "permission.v2.asked",
        "properties": {
            "id": "per_v2",
            "sessionID": session,
            "action": "bash",
            "resources": ["echo hello"],
            "source": {"type": "tool", "messageID": properties["assistantMessageID"], "callID": properties["callID"]},
        },
    }});
    lines.push(asked.to_string());
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let events = agentwire_tests::normalize_text(OPENCODE, &text);
    let opened = events
        .events
        .iter()
        .find(|event| event.event.event_type() == T::RequestOpened)
        .expect("request.opened");
    let request = payload!(opened, RequestOpened).expect("request.opened");
    assert_eq!(request.request_type, CanonicalRequestType::CommandExecutionApproval);
    let command = events
        .events
        .iter()
        .find(|event| {
            event.event.event_type() == T::ItemStarted
                && payload!(event, ItemStarted)
                    .is_some_and(|item| item.item_type == CanonicalItemType::CommandExecution)
        })
        .expect("the command's item");
    assert_eq!(opened.item_id, command.item_id, "the request sits on its call's item");
    let session_after = normalizer_after(OPENCODE, &text);
    let request_id = opened.request_id.clone().expect("a request id");
    let reply = Reply {
        message: Some("not now".to_string()),
        ..Reply::new(Decision::Decline)
    };
    let built = session_after.answer(&request_id, &reply).expect("an answer");
    assert_eq!(
        built.frame,
        json!({
            "method": "POST",
            "path": format!("/api/session/{session}/permission/per_v2/reply"),
            "body": {"reply": "reject", "message": "not now"},
        })
    );
}
