//! `pi -p PROMPT --mode json` -> canonical events.
//!
//! The first line is the session header (the session's id and working directory), then the
//! events of the prompt's run. The mode asks nobody: Pi's built-in tools run without asking.

use agentwire_pi::{PiLine, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

use crate::normalizer::{Mode, PiNormalizer};
use crate::wire;

/// `pi -p PROMPT --mode json` stdout: one `PiLine` per line.
pub static PI: SourceSpec = SourceSpec {
    name: "pi",
    program: "pi --mode json",
    provider: ProviderKind::Pi,
    id_scope: "pi",
    normalizer: |options| Box::new(Lifecycle::new(PiNormalizer::new(Mode::Json, options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a line of json mode: a bare line that decodes whole as a Pi line other
/// than the session header, which a session file starts with too (detection reads on to the
/// next line).
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line()
        && PiLine::decode(frame.msg.get(), &mut agentwire_pi::SerdeJson)
            .is_ok_and(|line| !matches!(line, PiLine::Session(_)))
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@earendil-works/pi-coding-agent {UPSTREAM_VERSION} (`--mode json`)")
}
