//! Codex app-server (JSON-RPC over stdio) -> canonical events: spec sections 3.1 and 3.2.

mod canonicalize;
mod content;
mod lifecycle;
mod normalizer;
mod notifications;
mod offer;
mod requests;
pub mod wire;

use agentwire_codex_app_server::{ClientRequest, RawEnvelope, ServerNotification, ServerRequest, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::CodexAppServerNormalizer;

/// `codex app-server` JSON-RPC over stdio: `{"dir","ts","msg"}` transcript records, or the
/// server's stdout as is.
pub static SOURCE: SourceSpec = SourceSpec {
    name: "codex-app-server",
    program: "codex app-server",
    provider: ProviderKind::Codex,
    id_scope: "codex",
    normalizer: |options| Box::new(Lifecycle::new(CodexAppServerNormalizer::new(options))),
    conformer: || Box::new(wire::Decoder::default()),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a JSON-RPC message whose method the pinned schema defines.
pub fn claims(frame: &Frame<'_>) -> bool {
    let Ok(envelope) = serde_json::from_str::<RawEnvelope>(frame.msg.get()) else {
        return false;
    };
    envelope.method.as_deref().is_some_and(|method| {
        let defined = ServerNotification::METHODS.contains(&method)
            || ServerRequest::METHODS.contains(&method)
            || ClientRequest::METHODS.contains(&method);
        defined && !(method == "initialize" && names_protocol_version(&envelope))
    })
}

/// Codex's `initialize` names no protocol version; an `initialize` that does (ACP's, whose
/// method name is the same) belongs to another source.
fn names_protocol_version(envelope: &RawEnvelope<'_>) -> bool {
    envelope
        .params
        .and_then(|params| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(params.get()).ok())
        .is_some_and(|params| params.contains_key("protocolVersion"))
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@openai/codex {UPSTREAM_VERSION} (schema generated with --experimental)")
}
