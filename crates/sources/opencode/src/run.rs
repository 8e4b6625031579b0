//! `opencode run --format json`: what the CLI prints while it runs one prompt, one line per part
//! the model finished (`step_start`, `text`, `reasoning`, `tool_use`, `step_finish`) or the
//! session's error (`error`), each `{"type", "timestamp", "sessionID", "part" | "error"}`.
//!
//! The lines carry the server's own `Part` and `session.error` union, so they decode into the
//! types generated from the server's OpenAPI document ([`RunLine`], declared beside it in
//! `schemas/opencode/run.schema.json`) and map through the family's part mapping: the same part
//! is the same item, with the same canonical id, live, from the run and from the store.

mod normalizer;

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::{PathTracking, Strict, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::normalizer::Problem;
use agentwire_core::source::{Files, SourceSpec};
use agentwire_opencode::{RunLine, SerdeJson};

pub use normalizer::RunNormalizer;

/// `opencode run --format json` stdout: one [`RunLine`] per line.
pub static OPENCODE_RUN: SourceSpec = SourceSpec {
    name: "opencode-run",
    program: "opencode run --format json",
    provider: ProviderKind::Opencode,
    id_scope: "opencode",
    normalizer: |options| Box::new(Lifecycle::new(RunNormalizer::new(options))),
    conformer: || Box::new(Strict(decode)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Decodes one line; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<RunLine, Problem> {
    RunLine::decode(frame.msg.get(), &mut PathTracking).map_err(|err| tag_problem(&err))
}

/// When the CLI printed the line (epoch milliseconds): every line says.
pub fn timestamp(line: &RunLine) -> i64 {
    match line {
        RunLine::StepStart(line) => line.timestamp,
        RunLine::Text(line) => line.timestamp,
        RunLine::Reasoning(line) => line.timestamp,
        RunLine::ToolUse(line) => line.timestamp,
        RunLine::StepFinish(line) => line.timestamp,
        RunLine::Error(line) => line.timestamp,
    }
}

/// Whether a frame is a line of `opencode run --format json`: a bare line (no transcript record:
/// the live server's events come as records) that decodes whole as one. A tag alone is not
/// enough: Gemini's stream-json has `tool_use` and `error` lines with a `timestamp` too, and
/// only these carry a `sessionID` with a `part` or an `error`.
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line() && RunLine::decode(frame.msg.get(), &mut SerdeJson).is_ok()
}

/// The pinned program version, for `--version`.
pub fn upstream() -> String {
    format!(
        "opencode-ai {} (`opencode run --format json`)",
        agentwire_opencode::UPSTREAM_VERSION
    )
}
