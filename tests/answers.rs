//! The way back's errors and choices, on real requests of the corpus: a decision the request
//! does not offer, an unknown or answered request, missing or ill-typed answers and results,
//! read-only sources, and what a Claude grant or cancel carries (rules the request did not
//! suggest included). Each case is a request a real
//! client answered ([`agentwire_tests::round_trip`]), asked again just before that reply; the
//! round trip of every real reply is `answer_round_trip.rs`.

use agentwire::answer::{AnswerError, Reply};
use agentwire::decision::Decision;
use agentwire::source::Source;
use agentwire_canonical::RuntimeRequestId;
use agentwire_tests::round_trip::{Answered, SOURCES, replies};
use agentwire_tests::{normalizer_after, traces};
use serde_json::{Value, json};

/// The first answered request of a trace.
fn first_answered(source: Source, trace: &str) -> Answered {
    replies(source)
        .answered
        .into_iter()
        .find(|case| case.trace == trace)
        .unwrap_or_else(|| panic!("{trace} has an answered request"))
}

/// The canonical reply the full trace reports for a case.
fn canonical(case: &Answered) -> &Reply {
    case.reply
        .as_ref()
        .unwrap_or_else(|why| panic!("{}: {why}", case.label()))
}

#[test]
fn a_decision_the_provider_did_not_offer_is_an_error_listing_the_offer() {
    let cases = [
        (
            Source::CODEX_APP_SERVER,
            "shell_approval_accept",
            Decision::Answered,
            "accept, acceptForSession, cancel; its reply type also allows: decline",
        ),
        (
            Source::CODEX_APP_SERVER,
            "user_input_plan_mode",
            Decision::Accept,
            "answered",
        ),
        (
            Source::CLAUDE_CONTROL,
            "sdk_exit_plan_mode_allow",
            Decision::Answered,
            "accept, decline, cancel; its reply type also allows: acceptForSession",
        ),
        (
            Source::ACP,
            "tool_allow",
            Decision::Answered,
            "acceptForSession, accept, decline, cancel",
        ),
        (
            Source::CURSOR,
            "create_plan_accepted",
            Decision::AcceptForSession,
            "accept, decline, cancel",
        ),
    ];
    for (source, trace, decision, offered) in cases {
        let case = first_answered(source, trace);
        let normalizer = case.session_before_reply();
        let err = normalizer
            .answer(&case.request, &Reply::new(decision))
            .expect_err("not offered");
        assert!(matches!(err, AnswerError::NotOffered { .. }), "{trace}: {err}");
        assert!(
            err.to_string()
                .ends_with(&format!("does not offer {decision}; offered: {offered}")),
            "{trace}: {err}"
        );
    }
}

#[test]
fn an_unknown_or_answered_request_is_an_error() {
    for &source in SOURCES {
        let case = replies(source)
            .answered
            .into_iter()
            .next()
            .expect("an answered request");
        let path = agentwire_tests::corpus_dir(source).join(format!("{}.jsonl", case.trace));
        let whole = std::fs::read_to_string(path).expect("readable trace");
        let normalizer = normalizer_after(source, &whole);
        let err = normalizer
            .answer(&case.request, canonical(&case))
            .expect_err("answered");
        assert_eq!(err, AnswerError::AlreadyResolved(case.request.clone()), "{source}");
        assert_eq!(
            err.to_string(),
            format!("request {} was already answered", case.request)
        );
        let unknown = RuntimeRequestId::new("00000000-0000-4000-8000-000000000000").unwrap();
        let err = normalizer.answer(&unknown, canonical(&case)).expect_err("unknown");
        assert_eq!(err, AnswerError::Unknown(unknown.clone()), "{source}");
        assert!(err.to_string().contains("no request"), "{err}");
    }
}

#[test]
fn answers_and_results_are_required_and_typed() {
    let case = first_answered(Source::CODEX_APP_SERVER, "user_input_plan_mode");
    let normalizer = case.session_before_reply();
    let err = normalizer
        .answer(&case.request, &Reply::new(Decision::Answered))
        .expect_err("no answers");
    assert!(matches!(err, AnswerError::MissingAnswers { .. }), "{err}");
    let ill_typed = Reply {
        answers: Some(json!({ "favorite_color": "blue" })),
        ..Reply::new(Decision::Answered)
    };
    let err = normalizer.answer(&case.request, &ill_typed).expect_err("ill-typed");
    assert!(matches!(err, AnswerError::IllTyped { what: "answers", .. }), "{err}");

    let case = first_answered(Source::CODEX_APP_SERVER, "dynamic_tool");
    let normalizer = case.session_before_reply();
    let err = normalizer
        .answer(&case.request, &Reply::new(Decision::Answered))
        .expect_err("no result");
    assert!(matches!(err, AnswerError::MissingResult { .. }), "{err}");

    let case = first_answered(Source::CURSOR, "update_todos");
    let normalizer = case.session_before_reply();
    let err = normalizer
        .answer(&case.request, &Reply::new(Decision::Answered))
        .expect_err("no todos");
    assert!(matches!(err, AnswerError::MissingResult { .. }), "{err}");
    let ill_typed = Reply {
        result: Some(json!({ "todos": "all done" })),
        ..Reply::new(Decision::Answered)
    };
    let err = normalizer.answer(&case.request, &ill_typed).expect_err("ill-typed");
    assert!(matches!(err, AnswerError::IllTyped { what: "result", .. }), "{err}");
}

#[test]
fn read_only_sources_cannot_be_answered() {
    let any = RuntimeRequestId::new("00000000-0000-4000-8000-000000000000").unwrap();
    for source in [Source::CODEX_EXEC, Source::CODEX_ROLLOUT, Source::CLAUDE] {
        let trace = traces(source).into_iter().next().expect("a trace");
        let text = std::fs::read_to_string(trace).expect("readable trace");
        let err = normalizer_after(source, &text)
            .answer(&any, &Reply::new(Decision::Accept))
            .expect_err("read-only");
        assert_eq!(err, AnswerError::Unanswerable(source.spec()));
    }
}

#[test]
fn every_transcript_source_with_a_client_is_counted() {
    let any = RuntimeRequestId::new("00000000-0000-4000-8000-000000000000").unwrap();
    for &source in Source::ALL {
        let trace = traces(source).into_iter().next().expect("a trace");
        let text = std::fs::read_to_string(trace).expect("readable trace");
        let answerable = !matches!(
            normalizer_after(source, &text).answer(&any, &Reply::new(Decision::Accept)),
            Err(AnswerError::Unanswerable(_))
        );
        // OpenCode's replies are HTTP calls, round-tripped by tests/opencode_scenarios.rs.
        let counted = SOURCES.contains(&source) || source == Source::OPENCODE;
        assert_eq!(answerable, counted, "{source}");
    }
}

#[test]
fn a_claude_grant_for_the_session_carries_the_suggested_rules_and_a_cancel_interrupts() {
    let case = first_answered(Source::CLAUDE_CONTROL, "sdk_bash_touch_allow");
    let before = case.text_before_reply();
    let request_line = before.lines().last().expect("the request is the line before the reply");
    let request: Value = serde_json::from_str(request_line).expect("a record");
    let suggestions = &request["msg"]["request"]["permission_suggestions"];
    assert!(suggestions.as_array().is_some_and(|rules| !rules.is_empty()));
    let normalizer = normalizer_after(Source::CLAUDE_CONTROL, &before);

    let frame = normalizer
        .answer(&case.request, &Reply::new(Decision::AcceptForSession))
        .expect("offered: the request suggests rules")
        .frame;
    let response = &frame["response"]["response"];
    assert_eq!(response["behavior"], "allow");
    assert_eq!(&response["updatedPermissions"], suggestions);
    assert_eq!(response["updatedInput"], request["msg"]["request"]["input"]);

    let frame = normalizer
        .answer(&case.request, &Reply::new(Decision::Cancel))
        .expect("offered")
        .frame;
    let response = &frame["response"]["response"];
    assert_eq!(
        (&response["behavior"], &response["interrupt"]),
        (&json!("deny"), &json!(true))
    );
    assert_eq!(
        response["message"],
        agentwire::claude::stream_json::DEFAULT_DENY_MESSAGE
    );
    for decision in [Decision::AcceptForSession, Decision::Cancel] {
        let frame = normalizer
            .answer(&case.request, &Reply::new(decision))
            .expect("offered")
            .frame;
        let result = agentwire_claude::PermissionResult::decode(
            &frame["response"]["response"].to_string(),
            &mut agentwire_claude::SerdeJson,
        )
        .expect("a PermissionResult");
        assert_eq!(
            agentwire::claude::stream_json::permission_decision(&result),
            decision,
            "read back"
        );
    }
}

/// `ExitPlanMode` suggests no rule, and a real client (the Claude ACP adapter) approves it with a
/// `setMode`: `acceptForSession` grants the rules the host gives as `result.updatedPermissions`,
/// flagged as not offered; without them, or with an ill-typed result, there is no reply.
#[test]
fn a_claude_grant_the_request_did_not_suggest_carries_the_hosts_rules() {
    let case = first_answered(Source::CLAUDE_CONTROL, "sdk_exit_plan_mode_allow");
    let before = case.text_before_reply();
    let request: Value = serde_json::from_str(before.lines().last().expect("the request")).expect("a record");
    assert_eq!(request["msg"]["request"]["tool_name"], "ExitPlanMode");
    assert!(request["msg"]["request"].get("permission_suggestions").is_none());
    let normalizer = normalizer_after(Source::CLAUDE_CONTROL, &before);

    let set_mode = json!([{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }]);
    let reply = Reply {
        result: Some(json!({ "updatedPermissions": set_mode })),
        ..Reply::new(Decision::AcceptForSession)
    };
    let built = normalizer
        .answer(&case.request, &reply)
        .expect("the reply type allows it");
    let response = &built.frame["response"]["response"];
    assert_eq!(response["behavior"], "allow");
    assert_eq!(response["updatedPermissions"], set_mode);
    assert_eq!(response["updatedInput"], request["msg"]["request"]["input"]);
    let unoffered = built.unoffered.expect("flagged");
    assert_eq!(unoffered.decision, Decision::AcceptForSession);
    let result = agentwire_claude::PermissionResult::decode(&response.to_string(), &mut agentwire_claude::SerdeJson)
        .expect("a PermissionResult");
    assert_eq!(
        agentwire::claude::stream_json::permission_decision(&result),
        Decision::AcceptForSession,
        "read back"
    );

    for result in [None, Some(json!({ "interrupt": true })), Some(json!(42))] {
        let reply = Reply {
            result: result.clone(),
            ..Reply::new(Decision::AcceptForSession)
        };
        let err = normalizer.answer(&case.request, &reply).expect_err("no rules");
        assert!(
            matches!(err, AnswerError::IllTyped { what: "result", .. }),
            "{result:?}: {err}"
        );
    }
}

/// ACP wants every pending permission request answered, `cancelled` after `session/cancel`: a
/// card its turn's end settled still gets that reply from the way back, and no other; the reply,
/// once sent, is read as the answer the turn's end already gave, not as a stray response.
#[test]
fn an_acp_request_its_turn_ended_still_gets_its_cancelled_reply() {
    let path = agentwire_tests::corpus_dir(Source::ACP).join("tool_allow.jsonl");
    let trace = std::fs::read_to_string(path).expect("readable trace");
    let mut lines: Vec<String> = trace.lines().take(13).map(str::to_owned).collect();
    assert!(
        lines[12].contains("session/request_permission"),
        "the permission request"
    );
    let session = "a9ae658f-00f7-4134-b117-5e7edbefd375";
    lines.push(
        json!({"dir": "out", "msg": {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}})
            .to_string(),
    );
    lines.push(
        json!({"dir": "in", "msg": {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "cancelled"}}}).to_string(),
    );
    let text = lines.join("\n");
    let normalizer = normalizer_after(Source::ACP, &text);
    let events = agentwire_tests::normalize_text(Source::ACP, &text).events;
    let request = events
        .iter()
        .find(|event| event.event.event_type().as_str() == "request.opened")
        .and_then(|event| event.request_id.clone())
        .expect("the card");
    let resolved = events
        .iter()
        .find(|event| event.event.event_type().as_str() == "request.resolved")
        .expect("settled by the turn's end");
    let resolved = serde_json::to_value(resolved).unwrap();
    assert_eq!(resolved["payload"]["decision"], "cancel");

    let reply = Reply::new;
    let frame = normalizer
        .answer(&request, &reply(Decision::Cancel))
        .expect("the reply ACP wants");
    let sent = frame.frame;
    assert_eq!(
        sent,
        json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}})
    );
    let err = normalizer
        .answer(&request, &reply(Decision::Accept))
        .expect_err("the turn ended: only cancel answers it");
    assert_eq!(err, AnswerError::AlreadyResolved(request.clone()));

    lines.push(json!({"dir": "out", "msg": sent}).to_string());
    let after = agentwire_tests::normalize_text(Source::ACP, &lines.join("\n")).events;
    let warnings: Vec<Value> = after
        .iter()
        .map(|event| serde_json::to_value(event).unwrap())
        .filter(|event| event["type"] == "runtime.warning")
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
}
