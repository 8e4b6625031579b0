//! Pi's session files -> canonical events.
//!
//! `~/.pi/agent/sessions/--<cwd>--/<time>_<session id>.jsonl`: a `session` header, then one entry
//! per line (format version 3), each with an `id` and the `parentId` it follows. The messages
//! are the ones json mode streams, written whole when they end; a retried call's failure stays in
//! the file, hidden from the model by a `context_edit` entry.

mod normalizer;

use agentwire_pi::{PiLine, SessionEntry, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::{PathTracking, Strict, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::normalizer::Problem;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::PiSessionNormalizer;

/// A Pi session file: its header, then its entries.
pub static PI_SESSION: SourceSpec = SourceSpec {
    name: "pi-session",
    program: "Pi (its session file)",
    provider: ProviderKind::Pi,
    id_scope: "pi",
    normalizer: |options| Box::new(Lifecycle::new(PiSessionNormalizer::new(options))),
    conformer: || Box::new(Strict(decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// One line of a session file.
// One line at a time, moved once into its mapping: boxing would allocate per line for nothing.
#[allow(clippy::large_enum_variant)]
pub enum FileLine {
    /// The first line: the session's id, working directory and start.
    Header(agentwire_pi::SessionHeader),
    /// An entry of the session's tree.
    Entry(SessionEntry),
}

/// Decodes one line: an entry by the entry union, else the header (the one line that is no
/// entry), whose problem is the entry union's when it is neither.
pub fn decode(frame: &Frame<'_>) -> Result<FileLine, Problem> {
    let text = frame.msg.get();
    match SessionEntry::decode(text, &mut PathTracking) {
        Ok(entry) => Ok(FileLine::Entry(entry)),
        Err(err) => {
            if let Ok(PiLine::Session(header)) = PiLine::decode(text, &mut PathTracking) {
                return Ok(FileLine::Header(header));
            }
            Err(tag_problem(&err))
        }
    }
}

/// Whether a frame is an entry of a session file: a bare line that decodes as one (the header,
/// which json mode's stdout starts with too, decides nothing: detection reads on).
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line() && SessionEntry::decode(frame.msg.get(), &mut agentwire_pi::SerdeJson).is_ok()
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@earendil-works/pi-coding-agent {UPSTREAM_VERSION} (session files)")
}
