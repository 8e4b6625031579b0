//! Claude Code stream-json and the Agent SDK control protocol -> canonical events: spec
//! sections 4.1 and 4.2. One mapping serves both sources: `claude` (the bare stream)
//! and `claude-control` (the SDK <-> CLI transcript, where permission requests and the
//! client's answers travel too).

mod normalizer;
mod offer;
pub mod wire;

use agentwire_claude::{ClaudeStreamLine, UPSTREAM_CLAUDE_CODE_VERSION, UPSTREAM_VERSION};

use crate::frame::{Frame, LineFormat};

pub use crate::claude_code::{ToolKind, tool_kind};
pub use normalizer::ClaudeNormalizer;
pub use offer::{DEFAULT_DENY_MESSAGE, permission_decision};

/// Whether a frame is a Claude stream-json line in `format` (bare lines are
/// [`crate::source::Source::Claude`], transcript records
/// [`crate::source::Source::ClaudeControl`]): an object whose `type` the schema declares.
pub fn claims(frame: &Frame<'_>, format: LineFormat) -> bool {
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
