//! OpenCode's stored sessions (source `opencode-session`): the document `opencode export ID`
//! prints, and OpenCode's SQLite store (`opencode.db`), each session of which is read as that
//! document.
//!
//! The frame unit: an export is ONE JSON document (`{"info": Session, "messages": [{"info":
//! Message, "parts": [Part]}]}`), pretty-printed over many lines, so a line is no message. The
//! core cuts it ([`agentwire_core::document`]): the session's `info` is the first frame, then each
//! message with its parts is one. A message is the unit OpenCode stores and updates (its row and
//! its parts' rows); its parts share its turn and its end, so one frame per message keeps each
//! event's `raw` the message it came from, not the whole file, and a compact export (`opencode
//! export ID | jq -c`) gives the same frames. [`store`] writes each session of `opencode.db` as
//! such a document, so the database and the export read alike.

pub mod normalizer;
pub mod store;
pub mod wire;

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::document::Document;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};
use agentwire_core::store::Store;

pub use normalizer::SessionNormalizer;

/// A stored OpenCode session: an `opencode export` document, or a session of `opencode.db`.
pub static OPENCODE_SESSION: SourceSpec = SourceSpec {
    name: "opencode-session",
    program: "opencode export",
    provider: ProviderKind::Opencode,
    id_scope: "opencode",
    normalizer: |options| Box::new(Lifecycle::new(SessionNormalizer::new(options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files {
        document: Some(Document { each: "messages" }),
        store: Some(Store {
            extension: "db",
            opens: store::opens,
            sessions: store::sessions,
            document: store::document,
        }),
        ..Files::LINES
    },
};

/// Whether a frame is the first of a stored session: the session's `info`.
pub fn claims(frame: &Frame<'_>) -> bool {
    matches!(wire::decode(frame), Ok(wire::Stored::Session(_)))
}

/// The pinned program version, for `--version`.
pub fn upstream() -> String {
    format!(
        "opencode-ai {} (`opencode export`, `opencode.db`; its OpenAPI document's types)",
        agentwire_opencode::UPSTREAM_VERSION
    )
}
