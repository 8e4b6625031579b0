//! OpenCode: the server `opencode serve` runs, read from a transcript of its event stream and
//! the client's HTTP calls (`{"dir","ts","msg"}` records: `in` one event, `out` one request with
//! its answer), and the sessions OpenCode stores ([`session`]: `opencode export` and
//! `opencode.db`).
//!
//! [`wire`] reads each record into the types generated from the server's own OpenAPI document
//! (`agentwire-opencode`), whichever of its three event streams sent it; [`normalizer`] maps
//! them onto canonical events, and answers a request with the HTTP call that replies to it.
//! [`run`] reads what `opencode run --format json` prints. The sources make a message part the
//! same item through `parts`, so a live session, its run output and its stored copy name the
//! same thread and items.

#![warn(missing_docs)]

#[cfg(feature = "serve")]
pub mod normalizer;
// What both sources share; a build with one of them leaves part of it unused.
#[cfg_attr(not(all(feature = "serve", feature = "run", feature = "session")), allow(dead_code))]
mod parts;
#[cfg(feature = "run")]
pub mod run;
#[cfg(feature = "session")]
pub mod session;
// What the live server's mapping, the run's and the stored sessions' share (how a session error
// ends a turn); a build without one of them leaves part of it unused.
#[cfg(any(feature = "serve", feature = "run", feature = "session"))]
#[cfg_attr(not(all(feature = "serve", feature = "run", feature = "session")), allow(dead_code))]
mod session_error;
// What every source reads of a step's or a message's end (whether the loop goes on, its tokens);
// a build with some of them leaves part of it unused.
#[cfg_attr(not(all(feature = "serve", feature = "run", feature = "session")), allow(dead_code))]
mod steps;
#[cfg(feature = "serve")]
pub mod wire;

#[cfg(feature = "serve")]
use agentwire_canonical::ProviderKind;
#[cfg(feature = "serve")]
use agentwire_core::decode::Strict;
#[cfg(feature = "serve")]
use agentwire_core::frame::{Direction, Frame};
#[cfg(feature = "serve")]
use agentwire_core::lifecycle::Lifecycle;
#[cfg(feature = "serve")]
use agentwire_core::normalizer::Problem;
#[cfg(feature = "serve")]
use agentwire_core::source::{Files, SourceSpec};

#[cfg(feature = "serve")]
pub use normalizer::OpencodeNormalizer;
#[cfg(feature = "run")]
pub use run::OPENCODE_RUN;
#[cfg(feature = "session")]
pub use session::OPENCODE_SESSION;

/// `opencode serve`: its event streams and the client's HTTP calls, as transcript records.
#[cfg(feature = "serve")]
pub static OPENCODE: SourceSpec = SourceSpec {
    name: "opencode",
    program: "opencode serve",
    provider: ProviderKind::Opencode,
    id_scope: "opencode",
    normalizer: |options| Box::new(Lifecycle::new(OpencodeNormalizer::new(options))),
    conformer: || Box::new(Strict(conform)),
    claims,
    upstream,
    files: Files::LINES,
};

/// The strict decoder of `agentwire conform`: the record decodes, its value dropped.
#[cfg(feature = "serve")]
fn conform(frame: &Frame<'_>) -> Result<(), Problem> {
    wire::decode(frame).map(drop)
}

/// Whether a frame is an OpenCode server event: an `in` record whose `type` is one the server's
/// `Event` union names and that decodes whole.
#[cfg(feature = "serve")]
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.dir == Direction::In && matches!(wire::decode(frame), Ok(wire::Message::Event(_)))
}

/// The pinned program version, for `--version`.
#[cfg(feature = "serve")]
pub fn upstream() -> String {
    format!(
        "opencode-ai {} (`opencode serve`, its OpenAPI document)",
        agentwire_opencode::UPSTREAM_VERSION
    )
}
