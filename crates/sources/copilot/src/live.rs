//! `copilot -p PROMPT --output-format json` -> canonical events.
//!
//! One run is one prompt of one session: the CLI prints its session events as they happen (the
//! ephemeral ones too: the model's text and reasoning as deltas, a command's output as it
//! comes), and last a `result` line with the session id and the exit code. Headless runs never
//! ask a person: a tool the rules deny, or one that would need approval, is refused as its
//! result (`error.code: denied`).

use agentwire_canonical::ProviderKind;
use agentwire_copilot::{SessionEvent, UPSTREAM_VERSION};
use agentwire_core::decode::Strict;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

use crate::normalizer::{CopilotNormalizer, Log};
use crate::wire;

/// `copilot -p PROMPT --output-format json` stdout: one session event per line, then `result`.
pub static COPILOT: SourceSpec = SourceSpec {
    name: "copilot",
    program: "copilot -p --output-format json",
    provider: ProviderKind::Copilot,
    id_scope: "copilot",
    normalizer: |options| Box::new(Lifecycle::new(CopilotNormalizer::new(&COPILOT, Log::Live, options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a line of `-p` output: a bare line that decodes whole as a session event
/// (its `type` values, `assistant.message` and the rest, are no other source's, and every event
/// also carries `id`, `timestamp`, `parentId` and `data`) other than `session.start`, which only
/// the session log holds (its first line).
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line()
        && SessionEvent::decode(frame.msg.get(), &mut agentwire_copilot::SerdeJson)
            .is_ok_and(|event| !matches!(event, SessionEvent::SessionStart(_)))
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@github/copilot {UPSTREAM_VERSION} (`-p --output-format json`)")
}
