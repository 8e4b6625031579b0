//! Codex app-server (JSON-RPC over stdio) -> canonical events: spec sections 3.1 and 3.2.

mod canonicalize;
mod lifecycle;
mod normalizer;
mod notifications;
mod offer;
mod requests;
pub mod wire;

use agentwire_codex_app_server::{ClientRequest, RawEnvelope, ServerNotification, ServerRequest, UPSTREAM_VERSION};

use crate::frame::Frame;

pub use normalizer::{CodexAppServerNormalizer, PushError};

/// Whether a frame is a JSON-RPC message whose method the pinned schema defines.
pub fn claims(frame: &Frame<'_>) -> bool {
    let Ok(envelope) = serde_json::from_str::<RawEnvelope>(frame.msg.get()) else {
        return false;
    };
    envelope.method.as_deref().is_some_and(|method| {
        ServerNotification::METHODS.contains(&method)
            || ServerRequest::METHODS.contains(&method)
            || ClientRequest::METHODS.contains(&method)
    })
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@openai/codex {UPSTREAM_VERSION} (schema generated with --experimental)")
}
