//! `gemini -p PROMPT --output-format stream-json` -> canonical events.
//!
//! One run is one prompt: `init` names the session (the thread), the prompt's `message` starts
//! the turn, the model's text streams as `message` deltas, each tool call is a `tool_use` and its
//! `tool_result`, and `result` ends the turn. Headless runs never ask a person: the policy
//! decides alone, and a refusal is the call's result (`error.type: policy_violation`).

mod normalizer;
pub mod wire;

use agentwire_gemini_cli::{JsonStreamEvent, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::GeminiNormalizer;

/// `gemini -p PROMPT --output-format stream-json` stdout: one `JsonStreamEvent` per line.
pub static GEMINI: SourceSpec = SourceSpec {
    name: "gemini",
    program: "gemini --output-format stream-json",
    provider: ProviderKind::Gemini,
    id_scope: "gemini",
    normalizer: |options| Box::new(Lifecycle::new(GeminiNormalizer::new(options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a Gemini stream-json event: a bare line from the CLI that decodes whole as
/// one (a tag alone is not enough: Claude's stream-json tags its lines on `type` too, and every
/// Gemini event carries the `timestamp` no Claude message does).
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line() && JsonStreamEvent::decode(frame.msg.get(), &mut agentwire_gemini_cli::SerdeJson).is_ok()
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@google/gemini-cli {UPSTREAM_VERSION} (`--output-format stream-json`)")
}
