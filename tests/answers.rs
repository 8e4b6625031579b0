//! The way back, over the real corpus: for every request the provider opened and the real
//! client answered in a transcript, the reply agentwire builds from the canonical decision that
//! client gave equals (as JSON) the frame the client sent.
//!
//! For each `request.opened` of each transcript: the full trace is normalized to learn the
//! canonical `request.resolved` (decision, resolution) and `user-input.resolved` (answers); the
//! trace is cut just before the client's reply line and normalized without finishing (the
//! session as a host holds it while the request waits); `Normalizer::answer` builds the reply;
//! it must equal the reply's `msg`. A host fills the [`Reply`] from the canonical events alone,
//! as [`reply_of`] does.

use std::collections::BTreeMap;
use std::path::Path;

use agentwire::answer::{AnswerError, Reply};
use agentwire::decision::Decision;
use agentwire::source::Source;
use agentwire_canonical::RuntimeRequestId;
use agentwire_tests::{normalize, normalizer_after, trace_name, traces};
use serde_json::{Value, json};

/// Every transcript source whose client answers requests, with how many replies in its corpus
/// must round-trip (a drop is a failure, as is a new reply nobody counted).
const EXPECTED_REPLIES: &[(Source, usize)] = &[
    (Source::CodexAppServer, 8),
    (Source::ClaudeControl, 25),
    (Source::Acp, 15),
    (Source::Cursor, 9),
];

/// One request the client answered in a trace.
struct Answered {
    trace: String,
    request: RuntimeRequestId,
    /// The 1-based line of the client's reply.
    reply_line: usize,
    reply: Value,
    /// The canonical reply, from the full trace's events.
    canonical: Reply,
    method: String,
}

fn events_as_json(source: Source, path: &Path) -> Vec<Value> {
    normalize(source, path)
        .events
        .iter()
        .map(|event| serde_json::to_value(event).expect("events serialize"))
        .collect()
}

/// The request frame's id for pairing: the JSON-RPC id, or a Claude control request's
/// `request_id`.
fn request_key(msg: &Value) -> Option<Value> {
    match msg.get("type").and_then(Value::as_str) {
        Some("control_request") => msg.get("request_id").cloned(),
        _ => msg.get("method").and(msg.get("id")).cloned(),
    }
}

/// Whether `msg` (sent by the client) answers the request keyed `key`.
fn answers_request(msg: &Value, key: &Value) -> bool {
    match msg.get("type").and_then(Value::as_str) {
        Some("control_response") => msg["response"].get("request_id") == Some(key),
        _ => msg.get("method").is_none() && msg.get("id") == Some(key),
    }
}

/// The canonical reply a host builds from the events of a request: the decision of
/// `request.resolved`; the answers of `user-input.resolved` (or an MCP form's `content`); a
/// dynamic tool's result (the whole resolution) or a Cursor outcome's fields; the refusal's
/// message or reason.
fn reply_of(source: Source, request_type: &str, resolved: &Value, answers: Option<&Value>) -> Reply {
    let decision: Decision = resolved["decision"]
        .as_str()
        .expect("a settled request has a decision")
        .parse()
        .expect("a canonical decision");
    let resolution = &resolved["resolution"];
    let answers = answers
        .filter(|answers| !answers.is_null())
        .or_else(|| resolution.get("content"))
        .cloned();
    let outcome = resolution.get("outcome").filter(|outcome| outcome.is_object());
    let result = match (source, request_type) {
        (Source::CodexAppServer, "dynamic_tool_call") => Some(resolution.clone()),
        (Source::Cursor, _) => outcome.and_then(|outcome| {
            let mut fields = outcome.as_object().cloned().unwrap_or_default();
            for key in ["outcome", "reason", "answers"] {
                fields.remove(key);
            }
            (!fields.is_empty()).then_some(Value::Object(fields))
        }),
        _ => None,
    };
    let message = resolution
        .get("message")
        .or_else(|| outcome.and_then(|outcome| outcome.get("reason")))
        .and_then(Value::as_str)
        .map(str::to_string);
    Reply {
        decision,
        answers,
        result,
        message,
    }
}

/// Every request of `source`'s corpus the real client answered.
fn answered(source: Source) -> Vec<Answered> {
    let mut found = Vec::new();
    for path in traces(source) {
        let text = std::fs::read_to_string(&path).expect("readable trace");
        let records: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or(Value::Null))
            .collect();
        let events = events_as_json(source, &path);
        for opened in &events {
            if opened["type"] != "request.opened" {
                continue;
            }
            let request_id = opened["requestId"].as_str().expect("a request id").to_string();
            // The request frame is the event's raw payload (events of a trace without times
            // are held to its end, so the event's line does not tell it).
            let request = &opened["raw"]["payload"];
            let Some(line) = records
                .iter()
                .position(|record| record["dir"] == "in" && &record["msg"] == request)
            else {
                continue;
            };
            let Some(key) = request_key(request) else {
                // Opened by no request frame of its own (a denial the CLI decided alone).
                continue;
            };
            let reply_line = records
                .iter()
                .enumerate()
                .skip(line)
                .find(|(_, record)| record["dir"] == "out" && answers_request(&record["msg"], &key))
                .map(|(at, _)| at + 1);
            let Some(reply_line) = reply_line else {
                continue;
            };
            let of_request = |kind: &str| {
                events
                    .iter()
                    .find(|event| event["type"] == kind && event["requestId"] == opened["requestId"])
            };
            let resolved = of_request("request.resolved").expect("an answered request is resolved");
            if resolved["payload"]["resolution"]["cancelledBy"].is_string() {
                // The provider withdrew the request first: the client's late reply decides nothing.
                continue;
            }
            let answers = of_request("user-input.resolved").map(|event| &event["payload"]["answers"]);
            let request_type = opened["payload"]["requestType"].as_str().unwrap_or_default();
            found.push(Answered {
                trace: trace_name(&path),
                request: RuntimeRequestId::new(request_id).expect("a canonical request id"),
                reply_line,
                reply: records[reply_line - 1]["msg"].clone(),
                canonical: reply_of(source, request_type, &resolved["payload"], answers),
                method: opened["raw"]["method"].as_str().unwrap_or_default().to_string(),
            });
        }
    }
    found
}

/// The first `lines` lines of a trace.
fn prefix(source: Source, trace: &str, lines: usize) -> String {
    let path = agentwire_tests::corpus_dir(source).join(format!("{trace}.jsonl"));
    let text = std::fs::read_to_string(path).expect("readable trace");
    text.lines().take(lines).map(|line| format!("{line}\n")).collect()
}

#[test]
fn every_real_reply_is_rebuilt_from_its_canonical_decision() {
    let mut counts = BTreeMap::new();
    let mut failures = Vec::new();
    for &(source, _) in EXPECTED_REPLIES {
        for case in answered(source) {
            let normalizer = normalizer_after(source, &prefix(source, &case.trace, case.reply_line - 1));
            let label = format!(
                "{source}/{}.jsonl:{} ({}, {})",
                case.trace, case.reply_line, case.method, case.canonical.decision
            );
            match normalizer.answer(&case.request, &case.canonical) {
                Ok(built) if built == case.reply => {
                    *counts.entry(source.name()).or_insert(0) += 1;
                }
                Ok(built) => failures.push(format!("{label}:\n  built {built}\n  sent  {}", case.reply)),
                Err(err) => failures.push(format!("{label}: {err}")),
            }
        }
    }
    for (source, count) in &counts {
        println!("{source}: {count} replies rebuilt");
    }
    assert!(failures.is_empty(), "replies not rebuilt:\n{}", failures.join("\n"));
    let expected: BTreeMap<&str, usize> = EXPECTED_REPLIES
        .iter()
        .map(|(source, count)| (source.name(), *count))
        .collect();
    assert_eq!(counts, expected, "replies rebuilt per source");
}

/// The first answered request of a trace.
fn first_answered(source: Source, trace: &str) -> Answered {
    answered(source)
        .into_iter()
        .find(|case| case.trace == trace)
        .unwrap_or_else(|| panic!("{trace} has an answered request"))
}

#[test]
fn a_decision_the_provider_did_not_offer_is_an_error_listing_the_offer() {
    let cases = [
        (
            Source::CodexAppServer,
            "shell_approval_accept",
            Decision::Decline,
            "accept, acceptForSession, cancel",
        ),
        (
            Source::CodexAppServer,
            "user_input_plan_mode",
            Decision::Accept,
            "answered",
        ),
        (
            Source::ClaudeControl,
            "sdk_exit_plan_mode_allow",
            Decision::AcceptForSession,
            "accept, decline, cancel",
        ),
        (
            Source::Acp,
            "tool_allow",
            Decision::Answered,
            "acceptForSession, accept, decline, cancel",
        ),
        (
            Source::Cursor,
            "create_plan_accepted",
            Decision::AcceptForSession,
            "accept, decline, cancel",
        ),
    ];
    for (source, trace, decision, offered) in cases {
        let case = first_answered(source, trace);
        let normalizer = normalizer_after(source, &prefix(source, trace, case.reply_line - 1));
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
    for &(source, _) in EXPECTED_REPLIES {
        let case = answered(source).into_iter().next().expect("an answered request");
        let path = agentwire_tests::corpus_dir(source).join(format!("{}.jsonl", case.trace));
        let whole = std::fs::read_to_string(path).expect("readable trace");
        let normalizer = normalizer_after(source, &whole);
        let err = normalizer.answer(&case.request, &case.canonical).expect_err("answered");
        assert_eq!(err, AnswerError::AlreadyResolved(case.request.clone()), "{source}");
        assert_eq!(
            err.to_string(),
            format!("request {} was already answered", case.request)
        );
        let unknown = RuntimeRequestId::new("00000000-0000-4000-8000-000000000000").unwrap();
        let err = normalizer.answer(&unknown, &case.canonical).expect_err("unknown");
        assert_eq!(err, AnswerError::Unknown(unknown.clone()), "{source}");
        assert!(err.to_string().contains("no request"), "{err}");
    }
}

#[test]
fn answers_and_results_are_required_and_typed() {
    let case = first_answered(Source::CodexAppServer, "user_input_plan_mode");
    let normalizer = normalizer_after(
        Source::CodexAppServer,
        &prefix(Source::CodexAppServer, &case.trace, case.reply_line - 1),
    );
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

    let case = first_answered(Source::CodexAppServer, "dynamic_tool");
    let normalizer = normalizer_after(
        Source::CodexAppServer,
        &prefix(Source::CodexAppServer, &case.trace, case.reply_line - 1),
    );
    let err = normalizer
        .answer(&case.request, &Reply::new(Decision::Answered))
        .expect_err("no result");
    assert!(matches!(err, AnswerError::MissingResult { .. }), "{err}");

    let case = first_answered(Source::Cursor, "update_todos");
    let normalizer = normalizer_after(
        Source::Cursor,
        &prefix(Source::Cursor, &case.trace, case.reply_line - 1),
    );
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
    for source in [Source::CodexExec, Source::CodexRollout, Source::Claude] {
        let trace = traces(source).into_iter().next().expect("a trace");
        let text = std::fs::read_to_string(trace).expect("readable trace");
        let err = normalizer_after(source, &text)
            .answer(&any, &Reply::new(Decision::Accept))
            .expect_err("read-only");
        assert_eq!(err, AnswerError::Unanswerable(source));
    }
}

#[test]
fn every_transcript_source_with_a_client_is_counted() {
    let counted: Vec<Source> = EXPECTED_REPLIES.iter().map(|(source, _)| *source).collect();
    let any = RuntimeRequestId::new("00000000-0000-4000-8000-000000000000").unwrap();
    for &source in Source::ALL {
        let trace = traces(source).into_iter().next().expect("a trace");
        let text = std::fs::read_to_string(trace).expect("readable trace");
        let answerable = !matches!(
            normalizer_after(source, &text).answer(&any, &Reply::new(Decision::Accept)),
            Err(AnswerError::Unanswerable(_))
        );
        assert_eq!(answerable, counted.contains(&source), "{source}");
    }
}

#[test]
fn a_claude_grant_for_the_session_carries_the_suggested_rules_and_a_cancel_interrupts() {
    let case = first_answered(Source::ClaudeControl, "sdk_bash_touch_allow");
    let before = prefix(Source::ClaudeControl, &case.trace, case.reply_line - 1);
    let request_line = before.lines().last().expect("the request is the line before the reply");
    let request: Value = serde_json::from_str(request_line).expect("a record");
    let suggestions = &request["msg"]["request"]["permission_suggestions"];
    assert!(suggestions.as_array().is_some_and(|rules| !rules.is_empty()));
    let normalizer = normalizer_after(Source::ClaudeControl, &before);

    let frame = normalizer
        .answer(&case.request, &Reply::new(Decision::AcceptForSession))
        .expect("offered: the request suggests rules");
    let response = &frame["response"]["response"];
    assert_eq!(response["behavior"], "allow");
    assert_eq!(&response["updatedPermissions"], suggestions);
    assert_eq!(response["updatedInput"], request["msg"]["request"]["input"]);

    let frame = normalizer
        .answer(&case.request, &Reply::new(Decision::Cancel))
        .expect("offered");
    let response = &frame["response"]["response"];
    assert_eq!(
        (&response["behavior"], &response["interrupt"]),
        (&json!("deny"), &json!(true))
    );
    assert_eq!(response["message"], agentwire::claude::DEFAULT_DENY_MESSAGE);
    for decision in [Decision::AcceptForSession, Decision::Cancel] {
        let frame = normalizer
            .answer(&case.request, &Reply::new(decision))
            .expect("offered");
        let result = agentwire_claude::PermissionResult::decode(
            &frame["response"]["response"].to_string(),
            &mut agentwire_claude::SerdeJson,
        )
        .expect("a PermissionResult");
        assert_eq!(agentwire::claude::permission_decision(&result), decision, "read back");
    }
}
