//! ACP agents (Agent Client Protocol v1, JSON-RPC 2.0 over stdio; Qwen Code's additions read
//! too) and Cursor's `agent acp` with its `cursor/*` extensions -> canonical events: sections 5.1-5.4 of the provider-runtime V2
//! proposal. [`ACP`] and [`CURSOR`] share this crate; they differ only in the provider they name
//! and in how a transcript is recognized.

#![warn(missing_docs)]

mod content;
mod normalizer;
mod offer;
mod qwen;
mod requests;
mod tools;
mod updates;
mod usage;
pub mod wire;

use agentwire_acp::{
    AgentNotification, AgentRequest, ClientNotification, ClientRequest, CursorAgentRequest, CursorClientRequest,
    MessageKind, QwenAgentNotification, QwenAgentRequest, RawEnvelope, UPSTREAM_VERSION,
};
use serde_json::Value;

use agentwire_canonical::ProviderKind;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::AcpNormalizer;
pub use offer::{AcpRequest, Offer, OfferedOption};

/// An ACP agent (Agent Client Protocol v1, JSON-RPC over stdio: Zed's Claude adapter,
/// `gemini --acp`, ...) as `{"dir","ts","msg"}` transcript records of its stdio.
pub static ACP: SourceSpec = SourceSpec {
    name: "acp",
    program: "the ACP agent",
    provider: ProviderKind::Acp,
    id_scope: "acp",
    normalizer: |options| Box::new(Lifecycle::new(AcpNormalizer::new(&ACP, options))),
    conformer: || Box::new(wire::Decoder::default()),
    claims: |frame| names_an_agent(frame) == Some(false),
    upstream,
    files: Files::LINES,
};

/// Cursor's `agent acp`: ACP plus Cursor's `cursor/*` extension requests, as transcript records.
pub static CURSOR: SourceSpec = SourceSpec {
    name: "cursor",
    program: "Cursor's agent acp",
    provider: ProviderKind::Cursor,
    id_scope: "acp",
    normalizer: |options| Box::new(Lifecycle::new(AcpNormalizer::new(&CURSOR, options))),
    conformer: || Box::new(wire::Decoder::default()),
    claims: |frame| names_an_agent(frame) == Some(true),
    upstream,
    files: Files::LINES,
};

/// The pinned schema, for `--version`.
pub fn upstream() -> String {
    format!(
        "@agentclientprotocol/sdk {UPSTREAM_VERSION} (ACP v1; Cursor's cursor/* and Qwen Code's extensions hand-written)"
    )
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

/// What a frame says of the agent of its transcript: `Some(true)` Cursor's, `Some(false)`
/// another ACP agent's, `None` nothing.
///
/// The client's `initialize` opens both and decides nothing: the agent's answer does (its
/// `agentInfo` names Cursor or not), and so does any `cursor/*` method. Any other ACP method
/// (`session/update`, `session/prompt`, `session/request_permission`, ...) is ACP's.
fn names_an_agent(frame: &Frame<'_>) -> Option<bool> {
    let envelope = serde_json::from_str::<RawEnvelope>(frame.msg.get()).ok()?;
    let cursor = match (envelope.kind(), envelope.method.as_deref()) {
        (Some(MessageKind::Response), None) => {
            let result = envelope
                .result
                .and_then(|result| serde_json::from_str::<Value>(result.get()).ok())?;
            if !result.get("protocolVersion").is_some_and(Value::is_u64) {
                return None;
            }
            result.get("agentInfo").is_some_and(names_cursor)
        }
        (Some(MessageKind::Request | MessageKind::Notification), Some("initialize")) => return None,
        (Some(MessageKind::Request | MessageKind::Notification), Some(method)) => {
            if CursorAgentRequest::METHODS.contains(&method) || CursorClientRequest::METHODS.contains(&method) {
                true
            } else if ClientRequest::METHODS.contains(&method)
                || ClientNotification::METHODS.contains(&method)
                || AgentRequest::METHODS.contains(&method)
                || AgentNotification::METHODS.contains(&method)
                || QwenAgentRequest::METHODS.contains(&method)
                || QwenAgentNotification::METHODS.contains(&method)
            {
                false
            } else {
                return None;
            }
        }
        (Some(MessageKind::Response | MessageKind::Error | MessageKind::Request | MessageKind::Notification), _)
        | (None, _) => return None,
    };
    Some(cursor)
}
