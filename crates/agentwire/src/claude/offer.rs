//! What an open request of the Claude CLI remembers beside the ledger's facts, so a canonical
//! [`Reply`] can be written back as the `control_response` the CLI waits for.
//!
//! A `can_use_tool` answer is chosen among the `PermissionResult`s the request allows (allow
//! with its input unchanged; allow with the rules it suggested, when it suggested any; deny;
//! deny and interrupt) by the decision each reads back as ([`permission_decision`], the
//! function that reads the client's answer), so both directions share one table.

use agentwire_canonical::RuntimeRequestId;
use agentwire_claude::{
    ClaudeStreamLine, ControlSuccessResponse, PermissionResult, PermissionResultAllow, PermissionResultDeny,
    PermissionUpdate, SdkControlResponse, SdkControlResponsePayload,
};
use serde_json::{Map, Value};

use crate::answer::{AnswerError, Reply, ReplyFrame, choose, decode, to_value};
use crate::decision::Decision;

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

impl Pending {
    /// The `control_response` answering this request with `reply`.
    pub fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let response = match &self.offer {
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
                let mut candidates = vec![allow(None)];
                if !suggestions.is_empty() {
                    candidates.push(allow(Some(suggestions.clone())));
                }
                candidates.extend([deny(None), deny(Some(true))]);
                let candidates = candidates
                    .into_iter()
                    .map(|result| (permission_decision(&result), result));
                let result = choose(request, "can_use_tool", reply.decision, candidates)?;
                decode("can_use_tool", "response", &to_value(&result))?
            }
        };
        let line = ClaudeStreamLine::ControlResponse(SdkControlResponse {
            response: SdkControlResponsePayload::Success(ControlSuccessResponse {
                request_id: self.request_id.clone(),
                response: Some(response),
            }),
        });
        Ok(ReplyFrame::offered(to_value(&line)))
    }
}
