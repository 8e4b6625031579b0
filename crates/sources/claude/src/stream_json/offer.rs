//! What an open request of the Claude CLI remembers beside the ledger's facts, so a canonical
//! [`Reply`] can be written back as the `control_response` the CLI waits for.
//!
//! A `can_use_tool` answer is chosen among the `PermissionResult`s the request allows (allow
//! with its input unchanged; allow with the rules it suggested, when it suggested any; deny;
//! deny and interrupt) by the decision each reads back as ([`permission_decision`], the
//! function that reads the client's answer), so both directions share one table. An allow that
//! grants rules the request did not suggest is what its reply type allows beyond the offer.

use agentwire_canonical::RuntimeRequestId;
use agentwire_claude::{
    ClaudeStreamLine, ControlSuccessResponse, PermissionResult, PermissionResultAllow, PermissionResultDeny,
    PermissionUpdate, SdkControlResponse, SdkControlResponsePayload,
};
use serde_json::{Map, Value};

use agentwire_core::answer::{AnswerError, Reply, ReplyFrame, choose_allowing, decode, ill_typed, to_value};
use agentwire_core::decision::Decision;

/// What the normalizer remembers of a `can_use_tool` request (the one control request of the
/// CLI a person decides; hook callbacks and MCP messages are the host's plumbing).
pub struct Pending {
    /// The request's `request_id`, which the answer carries back.
    pub request_id: String,
    pub tool_use_id: Option<String>,
    pub offer: Offer,
}

/// What a CLI request offered, as needed to write its answer.
pub enum Offer {
    /// `can_use_tool`: the tool's input (an allow passes it back unchanged) and the permission
    /// rules the CLI suggests granting with it.
    Permission {
        input: Map<String, Value>,
        suggestions: Vec<PermissionUpdate>,
    },
}

/// What a deny says when the host gives no reason (the CLI requires a message and shows it to
/// the model).
pub const DEFAULT_DENY_MESSAGE: &str = "The user declined this tool call.";

/// The canonical decision of a permission answer: rules granted beyond this call are
/// `acceptForSession`; a deny that interrupts stops the turn (`cancel`).
pub fn permission_decision(result: &PermissionResult) -> Decision {
    match result {
        PermissionResult::Allow(allow) => {
            if allow
                .updated_permissions
                .as_ref()
                .is_some_and(|updates| !updates.is_empty())
            {
                Decision::AcceptForSession
            } else {
                Decision::Accept
            }
        }
        PermissionResult::Deny(deny) => {
            if deny.interrupt == Some(true) {
                Decision::Cancel
            } else {
                Decision::Decline
            }
        }
    }
}

/// The members of an allow a host may set through [`Reply::result`]: the tool's input as it
/// should run (an `AskUserQuestion`'s answers go here), and the rules granted with it.
const ALLOW_RESULT: &[&str] = &["updatedInput", "updatedPermissions"];

impl Pending {
    /// The `control_response` answering this request with `reply`.
    ///
    /// The decision picks among the request's own candidates (allow; allow with the rules the
    /// request suggested, when it suggested any; deny; deny and interrupt). `acceptForSession` on
    /// a request that suggested no rule is still an allow granting rules, as the reply type
    /// allows (an `ExitPlanMode` approved with a `setMode`): sent flagged as not offered, with the
    /// rules the host gives as `result.updatedPermissions`. `result` holds an allow's members
    /// beyond the decision ([`ALLOW_RESULT`]); any other member, one of the wrong type, or rules
    /// that change what the decision reads back as, are errors.
    pub fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let (response, unoffered) = match &self.offer {
            Offer::Permission { input, suggestions } => {
                let message = reply
                    .message
                    .clone()
                    .unwrap_or_else(|| DEFAULT_DENY_MESSAGE.to_string());
                let allow = |updated_permissions| {
                    PermissionResult::Allow(PermissionResultAllow {
                        tool_use_id: self.tool_use_id.clone(),
                        updated_input: Some(input.clone()),
                        updated_permissions,
                    })
                };
                let deny = |interrupt| {
                    PermissionResult::Deny(PermissionResultDeny {
                        interrupt,
                        message: message.clone(),
                        tool_use_id: self.tool_use_id.clone(),
                    })
                };
                let mut offered = vec![allow(None)];
                let mut allowed = Vec::new();
                if suggestions.is_empty() {
                    // The rules come from the result (checked below).
                    allowed.push((Decision::AcceptForSession, allow(Some(Vec::new()))));
                } else {
                    offered.push(allow(Some(suggestions.clone())));
                }
                offered.extend([deny(None), deny(Some(true))]);
                let offered = offered.into_iter().map(|result| (permission_decision(&result), result));
                let (chosen, unoffered) = choose_allowing(request, METHOD, reply.decision, offered, allowed)?;
                let built = with_result(&chosen, reply)?;
                let read_back = permission_decision(&built);
                if read_back != reply.decision {
                    let error = match reply.decision {
                        Decision::AcceptForSession if unoffered.is_some() => format!(
                            "the request suggested no rules: {} grants the rules given here (PermissionUpdate[], \
                             e.g. a setMode)",
                            reply.decision
                        ),
                        _ => format!("these rules make the reply {read_back}, not {}", reply.decision),
                    };
                    return Err(ill_typed(METHOD, "result", "result.updatedPermissions", error));
                }
                (built, unoffered)
            }
        };
        let Value::Object(response) = to_value(&response) else {
            unreachable!("a PermissionResult is written as an object")
        };
        let line = ClaudeStreamLine::ControlResponse(SdkControlResponse {
            response: SdkControlResponsePayload::Success(ControlSuccessResponse {
                request_id: self.request_id.clone(),
                response: Some(response),
            }),
        });
        Ok(ReplyFrame {
            frame: to_value(&line),
            unoffered,
        })
    }
}

/// The request's method, as errors name it.
const METHOD: &str = "can_use_tool";

/// `chosen` with the members `reply.result` sets, decoded into the `PermissionResult` it makes.
fn with_result(chosen: &PermissionResult, reply: &Reply) -> Result<PermissionResult, AnswerError> {
    let Value::Object(mut members) = to_value(chosen) else {
        unreachable!("a PermissionResult is written as an object")
    };
    // The tag; each variant's members are decoded into its own type, for the JSON path of an
    // error in them.
    members.remove("behavior");
    let empty = Map::new();
    let given = match &reply.result {
        None => &empty,
        Some(Value::Object(given)) => given,
        Some(_) => {
            return Err(ill_typed(
                METHOD,
                "result",
                "result",
                format!(
                    "expected a JSON object of an allow's members ({})",
                    ALLOW_RESULT.join(", ")
                ),
            ));
        }
    };
    let is_allow = matches!(chosen, PermissionResult::Allow(_));
    for (key, value) in given {
        if is_allow && ALLOW_RESULT.contains(&key.as_str()) {
            members.insert(key.clone(), value.clone());
            continue;
        }
        let why = match key.as_str() {
            "behavior" => format!("the decision sets it ({} is {})", reply.decision, behavior(chosen)),
            "interrupt" if is_allow => "an allow has no such member (a deny that stops the turn is cancel)".to_string(),
            "interrupt" => "the decision sets it (cancel interrupts, decline does not)".to_string(),
            "message" if !is_allow => "the reply's message is the deny's message".to_string(),
            "toolUseID" => "the request's tool_use_id goes back as it came".to_string(),
            _ if is_allow => format!(
                "an allow has no such member; the result sets {}",
                ALLOW_RESULT.join(" or ")
            ),
            _ => format!("{} takes no result beyond its message", behavior(chosen)),
        };
        return Err(ill_typed(METHOD, "result", format!("result.{key}"), why));
    }
    let members = Value::Object(members);
    Ok(match chosen {
        PermissionResult::Allow(_) => PermissionResult::Allow(decode(METHOD, "result", &members)?),
        PermissionResult::Deny(_) => PermissionResult::Deny(decode(METHOD, "result", &members)?),
    })
}

/// `an allow` or `a deny`, as errors name them.
fn behavior(result: &PermissionResult) -> &'static str {
    match result {
        PermissionResult::Allow(_) => "an allow",
        PermissionResult::Deny(_) => "a deny",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id() -> RuntimeRequestId {
        RuntimeRequestId::new("00000000-0000-4000-8000-000000000003").expect("a uuid")
    }

    /// A `can_use_tool` as the CLI asks for `ExitPlanMode` (no rules suggested) or, with
    /// `suggestions`, for an edit.
    fn pending(suggestions: Value) -> Pending {
        let input = json!({ "plan": "1. Create hello.txt" });
        Pending {
            request_id: "r1".to_string(),
            tool_use_id: Some("toolu_1".to_string()),
            offer: Offer::Permission {
                input: input.as_object().expect("an object").clone(),
                suggestions: serde_json::from_value(suggestions).expect("rules"),
            },
        }
    }

    fn reply(decision: Decision, result: Value) -> Reply {
        Reply {
            result: Some(result),
            ..Reply::new(decision)
        }
    }

    /// The `PermissionResult` of a frame, and what it reads back as.
    fn response(frame: &ReplyFrame) -> (Value, Decision) {
        let response = frame.frame["response"]["response"].clone();
        let result = PermissionResult::decode(&response.to_string(), &mut agentwire_claude::SerdeJson)
            .expect("a PermissionResult");
        (response, permission_decision(&result))
    }

    fn ill_typed_at(err: &AnswerError) -> &str {
        match err {
            AnswerError::IllTyped { path, .. } => path,
            other => panic!("not ill-typed: {other}"),
        }
    }

    #[test]
    fn accept_for_session_without_suggested_rules_grants_the_rules_the_result_gives() {
        let request = pending(json!([]));
        let set_mode = json!([{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }]);
        let built = request
            .answer(
                &id(),
                &reply(Decision::AcceptForSession, json!({ "updatedPermissions": set_mode })),
            )
            .expect("the reply type allows it");
        let (response, decision) = response(&built);
        assert_eq!(
            response,
            json!({
                "behavior": "allow",
                "toolUseID": "toolu_1",
                "updatedInput": { "plan": "1. Create hello.txt" },
                "updatedPermissions": set_mode,
            })
        );
        assert_eq!(decision, Decision::AcceptForSession, "read back");
        let unoffered = built.unoffered.expect("flagged: the request suggested no rules");
        assert_eq!(
            unoffered.to_string(),
            "request 00000000-0000-4000-8000-000000000003 (can_use_tool) did not offer acceptForSession \
             (offered: accept, decline, cancel); sent as its reply type allows"
        );

        let err = request
            .answer(&id(), &Reply::new(Decision::AcceptForSession))
            .expect_err("no rules to grant");
        assert_eq!(ill_typed_at(&err), "result.updatedPermissions");
        assert!(err.to_string().contains("the request suggested no rules"), "{err}");
        let err = request
            .answer(
                &id(),
                &reply(Decision::AcceptForSession, json!({ "updatedPermissions": [] })),
            )
            .expect_err("an empty grant is an accept");
        assert_eq!(ill_typed_at(&err), "result.updatedPermissions");
    }

    #[test]
    fn suggested_rules_are_granted_unless_the_result_names_others() {
        let suggested = json!([{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }]);
        let request = pending(suggested.clone());
        let built = request
            .answer(&id(), &Reply::new(Decision::AcceptForSession))
            .expect("offered");
        assert_eq!(built.unoffered, None);
        assert_eq!(response(&built).0["updatedPermissions"], suggested);
        let own = json!([{ "type": "setMode", "mode": "bypassPermissions", "destination": "session" }]);
        let built = request
            .answer(
                &id(),
                &reply(Decision::AcceptForSession, json!({ "updatedPermissions": own })),
            )
            .expect("offered");
        assert_eq!(response(&built).0["updatedPermissions"], own);
    }

    #[test]
    fn an_allow_takes_its_input_and_rules_from_the_result_and_nothing_else() {
        let request = pending(json!([]));
        let answered = json!({ "questions": [], "answers": { "Which?": "this one" } });
        let built = request
            .answer(&id(), &reply(Decision::Accept, json!({ "updatedInput": answered })))
            .expect("an allow with its input changed");
        assert_eq!(
            response(&built),
            (
                json!({
                    "behavior": "allow",
                    "toolUseID": "toolu_1",
                    "updatedInput": answered,
                }),
                Decision::Accept
            )
        );

        let cases = [
            (
                Decision::Accept,
                json!({ "interrupt": true }),
                "result.interrupt",
                "an allow has no such member",
            ),
            (Decision::Accept, json!(42), "result", "expected a JSON object"),
            (
                Decision::Accept,
                json!({ "behavior": "deny" }),
                "result.behavior",
                "the decision sets it",
            ),
            (
                Decision::Accept,
                json!({ "updatedInput": "rm -rf /" }),
                "result.updatedInput",
                "invalid type",
            ),
            (
                Decision::Accept,
                json!({ "updatedPermissions": [{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }] }),
                "result.updatedPermissions",
                "these rules make the reply acceptForSession, not accept",
            ),
            (
                Decision::AcceptForSession,
                json!({ "updatedPermissions": [{ "type": "setMode", "destination": "session" }] }),
                "result.updatedPermissions",
                "",
            ),
            (
                Decision::Decline,
                json!({ "interrupt": true }),
                "result.interrupt",
                "cancel interrupts",
            ),
            (
                Decision::Decline,
                json!({ "reason": "no" }),
                "result.reason",
                "takes no result beyond its message",
            ),
            (
                Decision::Cancel,
                json!({ "message": "no" }),
                "result.message",
                "the reply's message",
            ),
        ];
        for (decision, result, path, reason) in cases {
            let err = request
                .answer(&id(), &reply(decision, result.clone()))
                .expect_err("ill-typed");
            let at = ill_typed_at(&err);
            assert!(at.starts_with(path), "{decision} {result}: {err}");
            assert!(err.to_string().contains(reason), "{decision} {result}: {err}");
            assert!(
                err.to_string()
                    .starts_with("the result of a can_use_tool reply does not fit at "),
                "{err}"
            );
        }
    }

    #[test]
    fn a_decision_no_permission_result_carries_lists_what_the_type_allows() {
        let err = pending(json!([]))
            .answer(&id(), &Reply::new(Decision::Answered))
            .expect_err("no reply carries it");
        assert!(
            err.to_string()
                .ends_with("offered: accept, decline, cancel; its reply type also allows: acceptForSession"),
            "{err}"
        );
    }
}
