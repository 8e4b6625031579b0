//! ACP agents (Agent Client Protocol v1, JSON-RPC 2.0 over stdio) and Cursor's `agent acp` with
//! its `cursor/*` extensions -> canonical events: sections 5.1-5.4 of the provider-runtime V2
//! proposal. [`crate::source::Source::Acp`] and [`crate::source::Source::Cursor`] share this
//! module; they differ only in the provider they name and in how a transcript is recognized.

mod content;
mod normalizer;
mod offer;
mod requests;
mod tools;
mod updates;
pub mod wire;

use agentwire_acp::{
    AgentNotification, AgentRequest, ClientNotification, ClientRequest, CursorAgentRequest, CursorClientRequest,
    MessageKind, RawEnvelope, UPSTREAM_VERSION,
};
use serde_json::Value;

use crate::frame::Frame;
use crate::source::Source;

pub use normalizer::AcpNormalizer;
pub use offer::{AcpRequest, Offer, OfferedOption};

/// The pinned schema, for `--version`.
pub fn upstream() -> String {
    format!("@agentclientprotocol/sdk {UPSTREAM_VERSION} (ACP v1; Cursor's cursor/* extensions hand-written)")
}

/// Whether the agent named in an `initialize` result is Cursor's.
pub(crate) fn names_cursor(agent_info: &Value) -> bool {
    ["name", "title"].iter().any(|key| {
        agent_info
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|text| text.to_ascii_lowercase().contains("cursor"))
    })
}

/// Whether a frame tells a transcript of `source` (`Acp` or `Cursor`) apart.
///
/// The client's `initialize` opens both and decides nothing: the agent's answer does (its
/// `agentInfo` names Cursor or not), and so does any `cursor/*` method. Any other ACP method
/// (`session/update`, `session/prompt`, `session/request_permission`, ...) is ACP's.
pub fn claims(frame: &Frame<'_>, source: Source) -> bool {
    let Ok(envelope) = serde_json::from_str::<RawEnvelope>(frame.msg.get()) else {
        return false;
    };
    let cursor = match (envelope.kind(), envelope.method.as_deref()) {
        (Some(MessageKind::Response), None) => {
            let Some(result) = envelope
                .result
                .and_then(|result| serde_json::from_str::<Value>(result.get()).ok())
            else {
                return false;
            };
            if !result.get("protocolVersion").is_some_and(Value::is_u64) {
                return false;
            }
            result.get("agentInfo").is_some_and(names_cursor)
        }
        (Some(MessageKind::Request | MessageKind::Notification), Some("initialize")) => return false,
        (Some(MessageKind::Request | MessageKind::Notification), Some(method)) => {
            if CursorAgentRequest::METHODS.contains(&method) || CursorClientRequest::METHODS.contains(&method) {
                true
            } else if ClientRequest::METHODS.contains(&method)
                || ClientNotification::METHODS.contains(&method)
                || AgentRequest::METHODS.contains(&method)
                || AgentNotification::METHODS.contains(&method)
            {
                false
            } else {
                return false;
            }
        }
        (Some(MessageKind::Response | MessageKind::Error | MessageKind::Request | MessageKind::Notification), _)
        | (None, _) => return false,
    };
    match source {
        Source::Cursor => cursor,
        Source::Acp => !cursor,
        #[cfg(feature = "codex-app-server")]
        Source::CodexAppServer => false,
        #[cfg(feature = "claude")]
        Source::Claude => false,
        #[cfg(feature = "claude")]
        Source::ClaudeControl => false,
        #[cfg(feature = "codex-exec")]
        Source::CodexExec => false,
        #[cfg(feature = "codex-rollout")]
        Source::CodexRollout => false,
        #[cfg(feature = "claude-session")]
        Source::ClaudeSession => false,
    }
}
