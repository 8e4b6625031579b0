//! `codex exec --json` (the `ThreadEvent` lines the Codex TypeScript SDK reads) -> canonical
//! events: section 6 of the provider-runtime V2 proposal, row by row.
//!
//! The stream is one-way, carries no time and gives turns no id: turns are keyed by their
//! position in the stream (`Ledger::with_positional_turns`) and events are stamped with the
//! clock's fallback as they come (`Ledger::with_untimed_stream`).

mod items;
mod normalizer;
pub mod wire;

use agentwire_codex_exec::{ThreadEvent, UPSTREAM_SDK_VERSION, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::CodexExecNormalizer;

/// `codex exec --json` stdout: one `ThreadEvent` per line, the stream the Codex TypeScript SDK
/// reads.
pub static SOURCE: SourceSpec = SourceSpec {
    name: "codex-exec",
    program: "codex exec",
    provider: ProviderKind::Codex,
    id_scope: "codex",
    normalizer: |options| Box::new(Lifecycle::new(CodexExecNormalizer::new(options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a `ThreadEvent` of the pinned schema: a bare line from the provider that
/// decodes whole (a tag alone is not enough: other sources tag their lines on `type` too).
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.dir == Direction::In && ThreadEvent::decode(frame.msg.get(), &mut agentwire_codex_exec::SerdeJson).is_ok()
}

/// The pinned program and SDK versions, for `--version`.
pub fn upstream() -> String {
    format!("@openai/codex {UPSTREAM_VERSION} (`exec --json`, the stream of @openai/codex-sdk {UPSTREAM_SDK_VERSION})")
}
