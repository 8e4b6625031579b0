//! What an open server request remembers beside the ledger's facts: its JSON-RPC id as sent and
//! what it offered, so a canonical [`Reply`] can be written back as the response app-server
//! expects.
//!
//! A reply is chosen among the request's own candidates by the decision each reads back as,
//! through the very functions that read the client's answer ([`super::requests`]), so the two
//! directions share one table.

use agentwire_canonical::RuntimeRequestId;
use agentwire_codex_app_server::{
    self as codex, CommandExecutionApprovalDecision as CommandDecision, FileChangeApprovalDecision, RequestId,
    ReviewDecision, ServerRequest,
};
use serde_json::Value;

use super::requests::{
    command_decision, elicitation_decision, file_change_decision, permissions_decision, review_decision,
};
use crate::answer::{AnswerError, Reply, choose, decode, to_value};
use crate::decision::Decision;
use crate::jsonrpc;

/// What Codex remembers of an open server request beyond the ledger's facts.
pub(super) struct CodexRequest {
    /// The request's method, for `raw.method` of its resolution.
    pub method: &'static str,
    /// The JSON-RPC id, with its type (a reply carries it back as sent).
    pub id: RequestId,
    /// The request carried `"jsonrpc": "2.0"` (app-server's own requests do not).
    pub jsonrpc: bool,
    pub offer: Offer,
}

/// What a server request offered, as needed to write its answer.
pub(super) enum Offer {
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

/// What a v2 command approval offers when it does not list `availableDecisions`.
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
    pub fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<Value, AnswerError> {
        let method = self.method;
        let decision = reply.decision;
        let result = match &self.offer {
            Offer::Command(offered) => {
                let candidates = offered.iter().map(|d| (command_decision(d), d.clone()));
                let decision = choose(request, method, decision, candidates)?;
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
                let content = match action {
                    A::Accept => reply.answers.clone(),
                    A::Decline | A::Cancel => None,
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
                    response(granted.clone(), codex::PermissionGrantScope::Turn),
                    response(granted, codex::PermissionGrantScope::Session),
                    response(none, codex::PermissionGrantScope::Turn),
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
        Ok(jsonrpc::response(&self.id, self.jsonrpc, result))
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
    fn result<T: serde::de::DeserializeOwned>(
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
