//! Claude Code stream-json and the Agent SDK control protocol -> canonical events: spec
//! sections 4.1 and 4.2. One mapping serves both sources: `claude` (the bare stream)
//! and `claude-control` (the SDK <-> CLI transcript, where permission requests and the
//! client's answers travel too).

mod normalizer;
mod offer;
pub mod wire;

use agentwire_claude::{ClaudeStreamLine, UPSTREAM_CLAUDE_CODE_VERSION, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::{Frame, LineFormat};
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use crate::claude_code::{ToolKind, tool_kind};
pub use normalizer::ClaudeNormalizer;
pub use offer::{DEFAULT_DENY_MESSAGE, permission_decision};

/// Claude Code stream-json: the bare lines `claude -p --output-format stream-json --verbose`
/// prints (the messages the Agent SDK's `query()` yields).
pub static CLAUDE: SourceSpec = SourceSpec {
    name: "claude",
    program: "claude -p --output-format stream-json",
    provider: ProviderKind::ClaudeAgent,
    id_scope: "claude",
    normalizer: |options| Box::new(Lifecycle::new(ClaudeNormalizer::new(&CLAUDE, options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims: |frame| claims(frame, LineFormat::Bare),
    upstream,
    files: Files::LINES,
};

/// The Claude Agent SDK <-> CLI stdio as `{"dir","ts","msg"}` transcript records: the
/// stream-json messages plus the control protocol (`can_use_tool` and the client's answers).
pub static CLAUDE_CONTROL: SourceSpec = SourceSpec {
    name: "claude-control",
    program: "the Claude Agent SDK's claude process",
    provider: ProviderKind::ClaudeAgent,
    id_scope: "claude",
    normalizer: |options| Box::new(Lifecycle::new(ClaudeNormalizer::new(&CLAUDE_CONTROL, options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims: |frame| claims(frame, LineFormat::Transcript),
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a Claude stream-json line in `format` (bare lines are [`CLAUDE`]'s,
/// transcript records [`CLAUDE_CONTROL`]'s): an object whose `type` the schema declares.
fn claims(frame: &Frame<'_>, format: LineFormat) -> bool {
    let is_record = !std::ptr::eq(frame.line.as_ptr(), frame.msg.get().as_ptr());
    let wanted = matches!(format, LineFormat::Transcript);
    if is_record != wanted {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Tag<'a> {
        #[serde(borrow, rename = "type")]
        kind: Option<&'a str>,
    }
    serde_json::from_str::<Tag<'_>>(frame.msg.get())
        .ok()
        .and_then(|tag| tag.kind)
        .is_some_and(|kind| ClaudeStreamLine::TAGS.contains(&kind))
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@anthropic-ai/claude-agent-sdk {UPSTREAM_VERSION} (Claude Code {UPSTREAM_CLAUDE_CODE_VERSION})")
}
