//! What an open server request remembers beside the ledger's facts: its JSON-RPC id as sent and
//! what it offered, so a canonical [`Reply`] can be written back as the response app-server
//! expects.
//!
//! A reply is chosen among the request's own candidates by the decision each reads back as,
//! through the very functions that read the client's answer (below, used by `requests.rs`), so
//! the two directions share one table. A command approval's `availableDecisions` is an offer, not
//! the reply type: a plain decision it leaves out is still sent, flagged (Codex honours a
//! `decline` its approval did not offer).

use agentwire_canonical::RuntimeRequestId;
use agentwire_codex_app_server::{
    self as codex, CommandExecutionApprovalDecision as CommandDecision, FileChangeApprovalDecision, RequestId,
    ReviewDecision, ServerRequest,
};
use serde_json::Value;

use agentwire_core::answer::{AnswerError, Reply, ReplyFrame, choose, choose_allowing, decode, no_result, to_value};
use agentwire_core::decision::Decision;
use agentwire_core::jsonrpc;

/// What Codex remembers of an open server request beyond the ledger's facts.
pub struct CodexRequest {
    /// The request's method, for `raw.method` of its resolution.
    pub method: &'static str,
    /// The JSON-RPC id, with its type (a reply carries it back as sent).
    pub id: RequestId,
    /// The request carried `"jsonrpc": "2.0"` (app-server's own requests do not).
    pub jsonrpc: bool,
    pub offer: Offer,
}

/// What a server request offered, as needed to write its answer.
pub enum Offer {
    /// A command approval: the decisions offered (`availableDecisions`, else the four plain ones).
    Command(Vec<CommandDecision>),
    FileChange,
    /// `item/tool/requestUserInput`: answered with `answers`.
    UserInput,
    /// An MCP server's elicitation: `accept` (with the form's content), `decline`, `cancel`.
    Elicitation,
    /// The permissions asked for; accepting grants them for the turn or the session.
    Permissions(codex::RequestPermissionProfile),
    /// A dynamic tool call: answered with the tool's result.
    DynamicTool,
    AuthTokensRefresh,
    Attestation,
    /// The legacy (v1) approvals, answered with a `ReviewDecision`.
    ApplyPatch,
    ExecCommand,
}

impl Offer {
    pub fn of(request: &ServerRequest) -> Offer {
        use ServerRequest as R;
        match request {
            R::ItemCommandExecutionRequestApproval { params, .. } => Offer::Command(
                params
                    .available_decisions
                    .clone()
                    .unwrap_or_else(|| PLAIN_COMMAND_DECISIONS.to_vec()),
            ),
            R::ItemFileChangeRequestApproval { .. } => Offer::FileChange,
            R::ItemToolRequestUserInput { .. } => Offer::UserInput,
            R::McpServerElicitationRequest { .. } => Offer::Elicitation,
            R::ItemPermissionsRequestApproval { params, .. } => Offer::Permissions(params.permissions.clone()),
            R::ItemToolCall { .. } => Offer::DynamicTool,
            R::AccountChatgptAuthTokensRefresh { .. } => Offer::AuthTokensRefresh,
            R::AttestationGenerate { .. } => Offer::Attestation,
            R::ApplyPatchApproval { .. } => Offer::ApplyPatch,
            R::ExecCommandApproval { .. } => Offer::ExecCommand,
        }
    }
}

/// What a v2 command approval offers when it does not list `availableDecisions`, and what its
/// reply type allows whatever it lists (the amendments need the amendment the request proposed).
const PLAIN_COMMAND_DECISIONS: &[CommandDecision] = &[
    CommandDecision::Accept,
    CommandDecision::AcceptForSession,
    CommandDecision::Decline,
    CommandDecision::Cancel,
];

/// Every file-change decision (the request lists none: all are offered).
const FILE_CHANGE_DECISIONS: &[FileChangeApprovalDecision] = &[
    FileChangeApprovalDecision::Accept,
    FileChangeApprovalDecision::AcceptForSession,
    FileChangeApprovalDecision::Decline,
    FileChangeApprovalDecision::Cancel,
];

/// What a refused legacy approval says when the host gives no reason (`denied` requires one).
pub const DEFAULT_REJECTION: &str = "The user declined.";

impl CodexRequest {
    /// The JSON-RPC response answering this request with `reply`.
    pub fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let method = self.method;
        let decision = reply.decision;
        let mut unoffered = None;
        let takes_result = matches!(
            self.offer,
            Offer::DynamicTool | Offer::AuthTokensRefresh | Offer::Attestation
        );
        let result = match &self.offer {
            Offer::Command(offered) => {
                let candidates = offered.iter().map(|d| (command_decision(d), d.clone()));
                let plain = PLAIN_COMMAND_DECISIONS.iter().map(|d| (command_decision(d), d.clone()));
                let (decision, not_offered) = choose_allowing(request, method, decision, candidates, plain)?;
                unoffered = not_offered;
                to_value(&codex::CommandExecutionRequestApprovalResponse { decision })
            }
            Offer::FileChange => {
                let candidates = FILE_CHANGE_DECISIONS.iter().map(|d| (file_change_decision(d), *d));
                let decision = choose(request, method, decision, candidates)?;
                to_value(&codex::FileChangeRequestApprovalResponse { decision })
            }
            Offer::UserInput => {
                choose(request, method, decision, [(Decision::Answered, ())])?;
                let answers = reply
                    .answers
                    .as_ref()
                    .ok_or_else(|| missing_answers(method, decision))?;
                let answers = decode(method, "answers", answers)?;
                to_value(&codex::ToolRequestUserInputResponse { answers })
            }
            Offer::Elicitation => {
                use codex::McpServerElicitationAction as A;
                let actions = [A::Accept, A::Decline, A::Cancel];
                let candidates = actions
                    .into_iter()
                    .map(|action| (elicitation_decision(&action), action));
                let action = choose(request, method, decision, candidates)?;
                // Codex's own client declines with an empty form (`content: {}`).
                let content = match action {
                    A::Accept => reply.answers.clone(),
                    A::Decline => Some(Value::Object(serde_json::Map::new())),
                    A::Cancel => None,
                };
                to_value(&codex::McpServerElicitationRequestResponse {
                    action,
                    content,
                    meta: None,
                })
            }
            Offer::Permissions(asked) => {
                let granted = codex::GrantedPermissionProfile {
                    file_system: asked.file_system.clone(),
                    network: asked.network.clone(),
                };
                let none = codex::GrantedPermissionProfile {
                    file_system: None,
                    network: None,
                };
                let response = |permissions, scope| codex::PermissionsRequestApprovalResponse {
                    permissions,
                    scope,
                    strict_auto_review: None,
                };
                let candidates = [
                    response(granted.clone(), Some(codex::PermissionGrantScope::Turn)),
                    response(granted, Some(codex::PermissionGrantScope::Session)),
                    response(none, Some(codex::PermissionGrantScope::Turn)),
                ]
                .into_iter()
                .map(|response| (permissions_decision(&response), response));
                to_value(&choose(request, method, decision, candidates)?)
            }
            Offer::DynamicTool => to_value(&self.result::<codex::DynamicToolCallResponse>(request, reply)?),
            Offer::AuthTokensRefresh => {
                to_value(&self.result::<codex::ChatgptAuthTokensRefreshResponse>(request, reply)?)
            }
            Offer::Attestation => to_value(&self.result::<codex::AttestationGenerateResponse>(request, reply)?),
            Offer::ApplyPatch => to_value(&codex::ApplyPatchApprovalResponse {
                decision: self.review(request, reply)?,
            }),
            Offer::ExecCommand => to_value(&codex::ExecCommandApprovalResponse {
                decision: self.review(request, reply)?,
            }),
        };
        if !takes_result {
            no_result(method, reply)?;
        }
        Ok(ReplyFrame {
            frame: jsonrpc::response(&self.id, self.jsonrpc, result),
            unoffered,
        })
    }

    /// A legacy approval's `ReviewDecision`; a refusal carries the host's reason.
    fn review(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReviewDecision, AnswerError> {
        let rejection = reply.message.clone().unwrap_or_else(|| DEFAULT_REJECTION.to_string());
        let candidates = [
            ReviewDecision::Approved,
            ReviewDecision::ApprovedForSession,
            ReviewDecision::Denied { rejection },
            ReviewDecision::Abort,
        ]
        .into_iter()
        .map(|d| (review_decision(&d), d));
        choose(request, self.method, reply.decision, candidates)
    }

    /// The result a host supplies (`answered`), in the provider's type for it.
    fn result<T: serde::de::DeserializeOwned + serde::Serialize>(
        &self,
        request: &RuntimeRequestId,
        reply: &Reply,
    ) -> Result<T, AnswerError> {
        choose(request, self.method, reply.decision, [(Decision::Answered, ())])?;
        let result = reply.result.as_ref().ok_or_else(|| AnswerError::MissingResult {
            method: self.method.to_string(),
            decision: reply.decision,
        })?;
        decode(self.method, "result", result)
    }
}

fn missing_answers(method: &str, decision: Decision) -> AnswerError {
    AnswerError::MissingAnswers {
        method: method.to_string(),
        decision,
    }
}

// --- the decision tables: a client's answer in canonical terms (read by `requests.rs`) ---

pub fn file_change_decision(decision: &codex::FileChangeApprovalDecision) -> Decision {
    use codex::FileChangeApprovalDecision as D;
    match decision {
        D::Accept => Decision::Accept,
        D::AcceptForSession => Decision::AcceptForSession,
        D::Decline => Decision::Decline,
        D::Cancel => Decision::Cancel,
    }
}

pub fn elicitation_decision(action: &codex::McpServerElicitationAction) -> Decision {
    use codex::McpServerElicitationAction as A;
    match action {
        A::Accept => Decision::Accept,
        A::Decline => Decision::Decline,
        A::Cancel => Decision::Cancel,
    }
}

/// Granting nothing is a refusal, whatever the scope; a grant for the session is more than this
/// one request. An answer that names no scope grants for the turn (the schema's default).
pub fn permissions_decision(answer: &codex::PermissionsRequestApprovalResponse) -> Decision {
    let scope = answer.scope.unwrap_or(codex::PermissionGrantScope::Turn);
    match (permissions_granted(&answer.permissions), scope) {
        (false, _) => Decision::Decline,
        (true, codex::PermissionGrantScope::Turn) => Decision::Accept,
        (true, codex::PermissionGrantScope::Session) => Decision::AcceptForSession,
    }
}

/// A standing rule (an execpolicy or network amendment) allows more than this one request.
pub fn command_decision(decision: &codex::CommandExecutionApprovalDecision) -> Decision {
    use codex::CommandExecutionApprovalDecision as D;
    match decision {
        D::Accept => Decision::Accept,
        D::AcceptForSession | D::AcceptWithExecpolicyAmendment { .. } => Decision::AcceptForSession,
        D::ApplyNetworkPolicyAmendment {
            network_policy_amendment,
        } => network_decision(network_policy_amendment),
        D::Decline => Decision::Decline,
        D::Cancel => Decision::Cancel,
    }
}

/// The legacy approvals' `ReviewDecision`, on the same vocabulary as the v2 ones.
pub fn review_decision(decision: &codex::ReviewDecision) -> Decision {
    use codex::ReviewDecision as D;
    match decision {
        D::Approved => Decision::Accept,
        D::ApprovedForSession | D::ApprovedExecpolicyAmendment { .. } | D::ApprovedMcpPolicyAmendment => {
            Decision::AcceptForSession
        }
        D::NetworkPolicyAmendment {
            network_policy_amendment,
        } => network_decision(network_policy_amendment),
        D::Denied { .. } => Decision::Decline,
        // Nobody answered in time, or the user stopped the turn.
        D::TimedOut | D::Abort => Decision::Cancel,
    }
}

/// Why the client refused a legacy approval (a `denied` decision's `rejection`): the `message` of
/// its resolution, and of a reply that rebuilds it.
pub fn review_rejection(decision: &codex::ReviewDecision) -> Option<&str> {
    use codex::ReviewDecision as D;
    match decision {
        D::Denied { rejection } => Some(rejection),
        D::Approved
        | D::ApprovedForSession
        | D::ApprovedExecpolicyAmendment { .. }
        | D::ApprovedMcpPolicyAmendment
        | D::NetworkPolicyAmendment { .. }
        | D::TimedOut
        | D::Abort => None,
    }
}

fn network_decision(amendment: &codex::NetworkPolicyAmendment) -> Decision {
    match amendment.action {
        codex::NetworkPolicyRuleAction::Allow => Decision::AcceptForSession,
        codex::NetworkPolicyRuleAction::Deny => Decision::Decline,
    }
}

/// Whether a permissions answer grants anything at all (an empty profile is a refusal).
fn permissions_granted(granted: &codex::GrantedPermissionProfile) -> bool {
    let files = granted.file_system.as_ref().is_some_and(|fs| {
        fs.read.as_ref().is_some_and(|paths| !paths.is_empty())
            || fs.write.as_ref().is_some_and(|paths| !paths.is_empty())
            || fs.entries.as_ref().is_some_and(|entries| !entries.is_empty())
    });
    let network = granted
        .network
        .as_ref()
        .is_some_and(|network| network.enabled == Some(true));
    files || network
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn open(offer: Offer) -> CodexRequest {
        CodexRequest {
            method: "m",
            id: RequestId::String("r1".to_string()),
            jsonrpc: false,
            offer,
        }
    }

    fn id() -> RuntimeRequestId {
        RuntimeRequestId::new("00000000-0000-4000-8000-000000000001").expect("a uuid")
    }

    fn result(request: &CodexRequest, reply: Reply) -> Result<Value, AnswerError> {
        request.answer(&id(), &reply).map(|ReplyFrame { frame, unoffered }| {
            assert_eq!(unoffered, None, "offered");
            assert_eq!(frame["id"], "r1", "the id goes back as a string");
            assert!(frame.get("jsonrpc").is_none(), "the request carried none");
            frame["result"].clone()
        })
    }

    #[test]
    fn permissions_are_granted_for_the_turn_or_the_session_or_not_at_all() {
        let asked: codex::RequestPermissionProfile =
            serde_json::from_value(json!({ "network": { "enabled": true } })).expect("a profile");
        let request = open(Offer::Permissions(asked));
        let cases = [
            (
                Decision::Accept,
                json!({ "permissions": { "network": { "enabled": true } }, "scope": "turn" }),
            ),
            (
                Decision::AcceptForSession,
                json!({ "permissions": { "network": { "enabled": true } }, "scope": "session" }),
            ),
            (Decision::Decline, json!({ "permissions": {}, "scope": "turn" })),
        ];
        for (decision, expected) in cases {
            let built = result(&request, Reply::new(decision)).expect("offered");
            assert_eq!(built, expected, "{decision}");
            let read: codex::PermissionsRequestApprovalResponse = serde_json::from_value(built).expect("typed");
            assert_eq!(permissions_decision(&read), decision, "read back");
        }
        let err = result(&request, Reply::new(Decision::Cancel)).expect_err("no cancel");
        assert_eq!(
            err.to_string(),
            "request 00000000-0000-4000-8000-000000000001 (m) does not offer cancel; offered: accept, \
             acceptForSession, decline"
        );
    }

    #[test]
    fn legacy_approvals_answer_with_a_review_decision() {
        let request = open(Offer::ExecCommand);
        let declined = Reply {
            message: Some("not that one".to_string()),
            ..Reply::new(Decision::Decline)
        };
        let cases = [
            (Reply::new(Decision::Accept), json!({ "decision": "approved" })),
            (
                Reply::new(Decision::AcceptForSession),
                json!({ "decision": "approved_for_session" }),
            ),
            (
                declined,
                json!({ "decision": { "denied": { "rejection": "not that one" } } }),
            ),
            (Reply::new(Decision::Cancel), json!({ "decision": "abort" })),
        ];
        for (reply, expected) in cases {
            let decision = reply.decision;
            let built = result(&request, reply).expect("offered");
            assert_eq!(built, expected, "{decision}");
            let read: codex::ExecCommandApprovalResponse = serde_json::from_value(built).expect("typed");
            assert_eq!(review_decision(&read.decision), decision, "read back");
        }
        let built = result(&request, Reply::new(Decision::Decline)).expect("offered");
        assert_eq!(built["decision"]["denied"]["rejection"], DEFAULT_REJECTION);
    }

    #[test]
    fn a_plain_command_decision_the_approval_left_out_is_sent_and_flagged() {
        let offered: Vec<CommandDecision> = serde_json::from_value(json!([
            "accept",
            { "acceptWithExecpolicyAmendment": { "execpolicy_amendment": ["touch", "a.txt"] } },
            "cancel"
        ]))
        .expect("decisions");
        let request = open(Offer::Command(offered));
        let built = result(&request, Reply::new(Decision::AcceptForSession)).expect("offered");
        assert_eq!(
            built,
            json!({ "decision": { "acceptWithExecpolicyAmendment": { "execpolicy_amendment": ["touch", "a.txt"] } } }),
            "the offered amendment comes before the plain acceptForSession"
        );
        let ReplyFrame { frame, unoffered } = request
            .answer(&id(), &Reply::new(Decision::Decline))
            .expect("the reply type allows decline");
        assert_eq!(frame["result"], json!({ "decision": "decline" }));
        let unoffered = unoffered.expect("flagged");
        assert_eq!(
            (unoffered.decision, unoffered.offered),
            (
                Decision::Decline,
                vec![Decision::Accept, Decision::AcceptForSession, Decision::Cancel]
            )
        );
        let err = request
            .answer(&id(), &Reply::new(Decision::Answered))
            .expect_err("no reply type carries it");
        assert!(
            err.to_string()
                .ends_with("offered: accept, acceptForSession, cancel; its reply type also allows: decline"),
            "{err}"
        );
    }

    #[test]
    fn a_command_approval_without_a_list_offers_the_four_plain_decisions() {
        let request = open(Offer::Command(PLAIN_COMMAND_DECISIONS.to_vec()));
        for decision in [
            Decision::Accept,
            Decision::AcceptForSession,
            Decision::Decline,
            Decision::Cancel,
        ] {
            let built = result(&request, Reply::new(decision)).expect("offered");
            assert_eq!(built["decision"], decision.as_str());
        }
        let err = result(&request, Reply::new(Decision::Answered)).expect_err("not offered");
        assert!(matches!(err, AnswerError::NotOffered { .. }), "{err}");
    }

    #[test]
    fn an_approval_takes_no_result_and_a_tool_result_is_typed() {
        let with_result = |decision, result| Reply {
            result: Some(result),
            ..Reply::new(decision)
        };
        for offer in [
            Offer::FileChange,
            Offer::Command(PLAIN_COMMAND_DECISIONS.to_vec()),
            Offer::ExecCommand,
        ] {
            let request = open(offer);
            let err =
                result(&request, with_result(Decision::Accept, json!({ "interrupt": true }))).expect_err("no result");
            assert_eq!(
                err.to_string(),
                "the result of a m reply does not fit at result: a m reply answered accept takes no result"
            );
        }
        let request = open(Offer::DynamicTool);
        let cases = [
            (json!(42), "result"),
            (json!({ "contentItems": [], "success": "yes" }), "result.success"),
            (
                json!({ "contentItems": [], "success": true, "exitCode": 0 }),
                "result.exitCode",
            ),
        ];
        for (given, path) in cases {
            let err = result(&request, with_result(Decision::Answered, given.clone())).expect_err("ill-typed");
            let AnswerError::IllTyped { path: at, .. } = &err else {
                panic!("{err}")
            };
            assert_eq!(at, path, "{given}: {err}");
        }
        let built = result(
            &request,
            with_result(Decision::Answered, json!({ "contentItems": [], "success": true })),
        )
        .expect("typed");
        assert_eq!(built, json!({ "contentItems": [], "success": true }));
    }
}
