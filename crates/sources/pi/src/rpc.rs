//! `pi --mode rpc` -> canonical events.
//!
//! A client writes commands (`prompt`, `steer`, `abort`, `get_state`, ...) to Pi's stdin; Pi
//! answers each with a `response` and prints the session's events as json mode does, without the
//! session header. A transcript holds both directions as `{"dir","ts","msg"}` records. The way
//! back is a command: Pi asks nothing of the client (its built-in tools run without asking).

use agentwire_pi::{PiLine, RpcCommand, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

use crate::normalizer::{Mode, PiNormalizer};
use crate::wire;

/// A `pi --mode rpc` transcript: the client's commands and Pi's lines.
pub static PI_RPC: SourceSpec = SourceSpec {
    name: "pi-rpc",
    program: "pi --mode rpc",
    provider: ProviderKind::Pi,
    id_scope: "pi",
    normalizer: |options| Box::new(Lifecycle::new(PiNormalizer::new(Mode::Rpc, options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a record of an RPC transcript: a command the client wrote, or a line Pi
/// printed.
pub fn claims(frame: &Frame<'_>) -> bool {
    if frame.is_bare_line() {
        return false;
    }
    let text = frame.msg.get();
    match frame.dir {
        Direction::Out => RpcCommand::decode(text, &mut agentwire_pi::SerdeJson).is_ok(),
        Direction::In => PiLine::decode(text, &mut agentwire_pi::SerdeJson).is_ok(),
    }
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@earendil-works/pi-coding-agent {UPSTREAM_VERSION} (`--mode rpc`)")
}
