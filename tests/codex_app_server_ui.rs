//! The Codex events read as a chat UI reads them: is the session state right at every moment,
//! can each request card be drawn from its event alone, do both approval API generations speak
//! one decision vocabulary, does an item cut off keep its face, do quiet facts stay quiet.
//!
//! Real traces come from the corpus; where the corpus has no example (the legacy v1 approvals,
//! client listings), a trace is built from real messages with one field changed, said at the spot.

use agentwire::answer::{Reply, ReplyFrame};
use agentwire::decision::Decision;
use agentwire::source::Source;
use agentwire_canonical::{CanonicalItemType, ItemStatus, ProviderRuntimeEvent, RuntimeEvent, SessionState, TurnState};
use serde_json::{Value, json};

fn normalize_text(text: &str) -> Vec<ProviderRuntimeEvent> {
    agentwire_tests::normalize_text(Source::CODEX_APP_SERVER, text).events
}

fn trace(name: &str) -> String {
    let path = agentwire_tests::corpus_dir(Source::CODEX_APP_SERVER).join(format!("{name}.jsonl"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn normalize(name: &str) -> Vec<ProviderRuntimeEvent> {
    normalize_text(&trace(name))
}

fn kind(event: &ProviderRuntimeEvent) -> &'static str {
    event.event.event_type().as_str()
}

/// The session state in force after each event (`None` before the first report).
fn states(events: &[ProviderRuntimeEvent]) -> Vec<Option<SessionState>> {
    let mut state = None;
    events
        .iter()
        .map(|event| {
            if let RuntimeEvent::SessionStateChanged(payload) = &event.event {
                state = Some(payload.state);
            }
            state
        })
        .collect()
}

fn position(events: &[ProviderRuntimeEvent], what: &str, keep: impl Fn(&ProviderRuntimeEvent) -> bool) -> usize {
    events.iter().position(keep).unwrap_or_else(|| panic!("no {what}"))
}

fn last_state(events: &[ProviderRuntimeEvent]) -> SessionState {
    match &events.last().expect("events").event {
        RuntimeEvent::SessionStateChanged(payload) => payload.state,
        other => panic!("the stream ends with {other:?}, not session.state.changed"),
    }
}

#[test]
fn session_state_around_an_approval() {
    let events = normalize("shell_approval_accept");
    let states = states(&events);
    let started = position(&events, "turn.started", |e| kind(e) == "turn.started");
    let opened = position(&events, "request.opened", |e| kind(e) == "request.opened");
    let resolved = position(&events, "request.resolved", |e| kind(e) == "request.resolved");
    let completed = position(&events, "turn.completed", |e| kind(e) == "turn.completed");
    assert_eq!(states[started + 1], Some(SessionState::Running), "a started turn runs");
    assert_eq!(states[opened - 1], Some(SessionState::Running));
    assert_eq!(
        states[opened + 1],
        Some(SessionState::Waiting),
        "the approval waits on a person"
    );
    assert_eq!(
        states[resolved + 1],
        Some(SessionState::Running),
        "answered, the turn runs on"
    );
    assert_eq!(
        states[completed + 1],
        Some(SessionState::Ready),
        "the turn ended: ready for the next"
    );
    assert_eq!(last_state(&events), SessionState::Stopped);
    // Every state is one of the spec's and none is reported twice in a row without a message.
    for (index, event) in events.iter().enumerate() {
        if let RuntimeEvent::SessionStateChanged(payload) = &event.event
            && index > 0
            && states[index - 1] == Some(payload.state)
        {
            assert!(
                event.raw.is_some(),
                "event {index}: a repeated state carries the message it rides for"
            );
        }
    }
}

#[test]
fn session_state_around_an_interrupt() {
    let events = normalize("interrupt");
    let states = states(&events);
    // The acknowledgement changes nothing: the turn runs until turn/completed says it ended,
    // so it yields no state change.
    assert!(
        !events
            .iter()
            .any(|e| e.raw.as_ref().and_then(|raw| raw.method.as_deref()) == Some("turn/interrupt")),
        "the interrupt's acknowledgement repeats nothing"
    );
    let started = position(&events, "turn.started", |e| kind(e) == "turn.started");
    let completed = position(&events, "turn.completed", |e| kind(e) == "turn.completed");
    assert!(matches!(&events[completed].event, RuntimeEvent::TurnCompleted(p) if p.state == TurnState::Interrupted));
    assert!(
        states[started + 1..completed]
            .iter()
            .all(|state| *state == Some(SessionState::Running)),
        "the turn runs until turn/completed says it ended"
    );
    assert_eq!(
        states[completed + 1],
        Some(SessionState::Ready),
        "a UI's working indicator stops"
    );
    assert_eq!(last_state(&events), SessionState::Stopped);
}

#[test]
fn an_interrupted_message_keeps_its_text_and_is_no_crash() {
    let events = normalize("interrupt");
    let deltas: String = events
        .iter()
        .filter_map(|e| match &e.event {
            RuntimeEvent::ContentDelta(p) => Some(p.delta.as_str()),
            _ => None,
        })
        .collect();
    let cut = events
        .iter()
        .find_map(|e| match &e.event {
            RuntimeEvent::ItemCompleted(p) if p.item_type == CanonicalItemType::AssistantMessage => Some(p),
            _ => None,
        })
        .expect("the message completes");
    assert_eq!(cut.status, Some(ItemStatus::Completed), "what was said stands: {cut:?}");
    assert!(
        cut.detail.as_deref().is_some_and(|d| d.starts_with("interrupted")),
        "{cut:?}"
    );
    let data = cut.data.as_ref().expect("the item keeps its last data").to_value();
    assert_eq!(
        data.as_object().map(|data| data.len()),
        Some(1),
        "an assistant message's content: {data}"
    );
    assert_eq!(data["text"], deltas, "the streamed text so far");
}

/// The `request.opened` event of a trace.
fn opened(events: &[ProviderRuntimeEvent]) -> &agentwire_canonical::RequestOpenedPayload {
    events
        .iter()
        .find_map(|e| match &e.event {
            RuntimeEvent::RequestOpened(p) => Some(p),
            _ => None,
        })
        .expect("a request.opened")
}

/// The `params` of the provider's request with `method` in a trace's text.
fn request_params(text: &str, method: &str) -> Value {
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .find(|record| record["dir"] == "in" && record["msg"]["method"] == method)
        .map(|record| record["msg"]["params"].clone())
        .unwrap_or_else(|| panic!("no {method}"))
}

#[test]
fn request_cards_need_no_joins() {
    let text = trace("shell_approval_accept");
    let params = request_params(&text, "item/commandExecution/requestApproval");
    let card = opened(&normalize_text(&text)).clone();
    assert_eq!(
        card.detail.as_deref(),
        params["commandActions"][0]["command"].as_str(),
        "the command as a person wrote it, not the shell wrapper {}",
        params["command"]
    );

    let text = trace("patch_approval_accept");
    let events = normalize_text(&text);
    let item = events
        .iter()
        .find_map(|e| match &e.event {
            RuntimeEvent::ItemStarted(p) if p.item_type == CanonicalItemType::FileChange => {
                p.data.as_ref().map(|data| data.to_value().into_owned())
            }
            _ => None,
        })
        .expect("the file change item");
    let card = opened(&events);
    let path = item["changes"][0]["path"].as_str().expect("a path");
    assert!(card.detail.as_deref().is_some_and(|d| d.contains(path)), "{card:?}");
    assert_eq!(
        card.args.as_ref().expect("args")["changes"],
        item["changes"],
        "the diff is on the card"
    );

    let text = trace("mcp_write_approval_accept");
    let params = request_params(&text, "mcpServer/elicitation/request");
    assert_eq!(
        opened(&normalize_text(&text)).detail.as_deref(),
        params["message"].as_str()
    );

    let text = trace("user_input_plan_mode");
    let params = request_params(&text, "item/tool/requestUserInput");
    assert_eq!(
        opened(&normalize_text(&text)).detail.as_deref(),
        params["questions"][0]["question"].as_str()
    );

    let text = trace("dynamic_tool");
    let params = request_params(&text, "item/tool/call");
    assert_eq!(
        opened(&normalize_text(&text)).detail.as_deref(),
        params["tool"].as_str()
    );
}

fn decisions(events: &[ProviderRuntimeEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RuntimeEvent::RequestResolved(p) => p.decision.clone(),
            _ => None,
        })
        .collect()
}

#[test]
fn v2_decisions_use_the_canonical_vocabulary() {
    assert_eq!(decisions(&normalize("shell_approval_accept")), ["accept"]);
    assert_eq!(decisions(&normalize("shell_approval_cancel")), ["cancel"]);
    assert_eq!(decisions(&normalize("patch_approval_accept")), ["accept"]);
    assert_eq!(decisions(&normalize("patch_approval_decline")), ["decline"]);
    assert_eq!(decisions(&normalize("mcp_write_approval_accept")), ["accept"]);
    assert_eq!(decisions(&normalize("user_input_plan_mode")), ["answered"]);
    assert_eq!(decisions(&normalize("dynamic_tool")), ["answered"]);
}

/// A legacy (v1) `execCommandApproval` and its answer, built on a real trace's records: the
/// corpus has no v1 approval, so the v2 request of `shell_approval_accept` is replaced by the v1
/// request codex sends for the same command, answered with `review`.
fn legacy_trace(review: &Value) -> String {
    let text = trace("shell_approval_accept");
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut record: Value = serde_json::from_str(line).expect("JSON");
        if record["msg"]["method"] == "item/commandExecution/requestApproval" {
            let params = record["msg"]["params"].clone();
            record["msg"]["method"] = json!("execCommandApproval");
            record["msg"]["params"] = json!({
                "conversationId": params["threadId"],
                "callId": params["itemId"],
                "approvalId": null,
                "command": ["/bin/bash", "-lc", "touch approved.txt && echo approved"],
                "cwd": params["cwd"],
                "reason": null,
                "parsedCmd": [],
            });
        } else if record["dir"] == "out" && record["msg"].get("result").is_some() && record["msg"]["id"] == json!(0) {
            record["msg"]["result"] = json!({ "decision": review });
        }
        lines.push(record.to_string());
    }
    lines.join("\n")
}

#[test]
fn v1_decisions_land_on_the_same_values() {
    for (review, expected) in [
        (json!("approved"), "accept"),
        (json!("approved_for_session"), "acceptForSession"),
        (json!({ "denied": { "rejection": "no" } }), "decline"),
        (json!("abort"), "cancel"),
    ] {
        let events = normalize_text(&legacy_trace(&review));
        let resolved = events
            .iter()
            .find_map(|e| match &e.event {
                RuntimeEvent::RequestResolved(p) => Some(p),
                _ => None,
            })
            .expect("a request.resolved");
        assert_eq!(resolved.decision.as_deref(), Some(expected), "{review}");
        assert_eq!(
            resolved.resolution.as_ref().expect("the provider's answer")["decision"],
            review,
            "the provider's own value is kept"
        );
    }
}

#[test]
fn a_v1_denial_carries_its_rejection_as_the_message_both_ways() {
    let review = json!({ "denied": { "rejection": "not in this repo" } });
    let text = legacy_trace(&review);
    let events = normalize_text(&text);
    let (request, resolution) = events
        .iter()
        .find_map(|e| match &e.event {
            RuntimeEvent::RequestResolved(p) => Some((e.request_id.clone(), p.resolution.clone())),
            _ => None,
        })
        .expect("a request.resolved");
    let resolution = resolution.expect("the provider's answer");
    assert_eq!(
        resolution["message"], "not in this repo",
        "the rejection, where a host reads it"
    );
    assert_eq!(resolution["decision"], review, "the provider's own value is kept");

    let reply_at = text
        .lines()
        .position(|line| line.contains(r#""dir":"out""#) && line.contains(r#""denied""#))
        .expect("the client's answer");
    let before: String = text.lines().take(reply_at).map(|line| format!("{line}\n")).collect();
    let sent: Value = serde_json::from_str(text.lines().nth(reply_at).expect("a line")).expect("JSON");
    let reply = Reply {
        message: resolution["message"].as_str().map(str::to_string),
        ..Reply::new(Decision::Decline)
    };
    let built = agentwire_tests::normalizer_after(Source::CODEX_APP_SERVER, &before)
        .answer(&request.expect("a request id"), &reply)
        .expect("offered");
    assert_eq!(built, ReplyFrame::offered(sent["msg"].clone()));
}

#[test]
fn an_unanswered_question_is_resolved_at_the_end() {
    let text = trace("user_input_plan_mode");
    let cut: Vec<&str> = text
        .lines()
        .take_while(|line| !line.contains(r#""dir":"out","ts":1796016417321"#))
        .collect();
    assert!(cut.len() < text.lines().count(), "the trace was cut before the answer");
    let events = normalize_text(&cut.join("\n"));
    let tail: Vec<&str> = events.iter().rev().take(6).map(kind).collect();
    let answers = events
        .iter()
        .find_map(|e| match &e.event {
            RuntimeEvent::UserInputResolved(p) => Some(p.answers.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no user-input.resolved: {tail:?}"));
    assert_eq!(answers, Value::Null, "nobody answered");
    assert_eq!(decisions(&events), ["cancel"]);
    let resolved_at = position(&events, "request.resolved", |e| kind(e) == "request.resolved");
    let user_input_at = position(&events, "user-input.resolved", |e| kind(e) == "user-input.resolved");
    assert!(user_input_at < resolved_at, "{tail:?}");
    assert_eq!(last_state(&events), SessionState::Stopped);
}

/// A client listing and a client command, answered: facts about the session, not warnings.
#[test]
fn results_the_client_asked_for_are_quiet() {
    let text = trace("text");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let extra = [
        json!({"dir":"out","ts":1796016332000_u64,"msg":{"id":90,"method":"model/list","params":{}}}),
        json!({"dir":"in","ts":1796016332001_u64,"msg":{"id":90,"result":{"data":[],"nextCursor":null}}}),
        json!({"dir":"out","ts":1796016332002_u64,"msg":{"id":91,"method":"fs/createDirectory","params":{"path":"/tmp/x","recursive":true}}}),
        json!({"dir":"in","ts":1796016332003_u64,"msg":{"id":91,"result":{}}}),
    ];
    let at = lines.len() - 1;
    for (offset, record) in extra.iter().enumerate() {
        lines.insert(at + offset, record.to_string());
    }
    let events = normalize_text(&lines.join("\n"));
    let by_method = |method: &str| {
        events
            .iter()
            .filter(|e| e.raw.as_ref().and_then(|raw| raw.method.as_deref()) == Some(method))
            .map(kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(by_method("model/list"), ["session.configured"]);
    assert_eq!(by_method("fs/createDirectory"), ["tool.summary"]);
    assert!(events.iter().all(|e| kind(e) != "runtime.warning"), "no warnings");
}
