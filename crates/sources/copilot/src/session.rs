//! `~/.copilot/session-state/<session id>/events.jsonl` -> canonical events.
//!
//! The session log the CLI writes as it runs (interactive, `-p` or `--acp`): the same session
//! events as `-p` prints, without the ephemeral ones (no deltas, no `assistant.idle`), with a
//! `session.start` first, the system prompt, each model call's tokens (`session.usage_record`),
//! the permission requests and how they were decided, and a `session.shutdown` per process. A
//! resumed session goes on in the same file (`session.resume`).

use agentwire_canonical::ProviderKind;
use agentwire_copilot::{SessionEvent, UPSTREAM_VERSION};
use agentwire_core::decode::Strict;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

use crate::normalizer::{CopilotNormalizer, Log};
use crate::wire;

/// A Copilot CLI session log: one session event per line, `session.start` first.
pub static COPILOT_SESSION: SourceSpec = SourceSpec {
    name: "copilot-session",
    program: "copilot (session-state/<id>/events.jsonl)",
    provider: ProviderKind::Copilot,
    id_scope: "copilot",
    normalizer: |options| {
        Box::new(Lifecycle::new(CopilotNormalizer::new(
            &COPILOT_SESSION,
            Log::Stored,
            options,
        )))
    },
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is the first line of a session log: a bare `session.start` event, which the
/// CLI writes to the log only (`-p` never prints it).
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line()
        && SessionEvent::decode(frame.msg.get(), &mut agentwire_copilot::SerdeJson)
            .is_ok_and(|event| matches!(event, SessionEvent::SessionStart(_)))
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@github/copilot {UPSTREAM_VERSION} (`~/.copilot/session-state/<id>/events.jsonl`)")
}
