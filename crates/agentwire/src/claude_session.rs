//! Claude Code session files -> canonical events: a past Claude session replayed from the
//! transcript the CLI keeps (`~/.claude/projects/<project>/<session id>.jsonl`).
//!
//! The file holds what the conversation was, not how it streamed: one `user` or `assistant`
//! record per message block, chained by `parentUuid`, each with its `timestamp` (the events'
//! `createdAt`), plus records about the session (`system` compact boundaries and API retries,
//! `summary` and `custom-title` names, the prompt queue). The ids are those the live source
//! (`claude`, `claude-control`) derives from the same session, so a run read live and read back
//! from its file names the same thread, turns and items: the thread is the `sessionId`, a turn
//! is a prompt's position, a text block `<message id>:<block index>`, a tool call its `tool_use`
//! id. The file has no turn boundaries of its own: a turn starts with a prompt and ends with the
//! model's last stop (`end_turn`, ...), the interrupt note, an API error, or the next prompt.

mod normalizer;
pub mod wire;

use agentwire_claude_session::{SessionRecord, UPSTREAM_VERSION};

use crate::frame::{Direction, Frame};

pub use normalizer::ClaudeSessionNormalizer;

/// The record kinds only a session file has; `user`, `assistant`, `system` and `progress` are
/// told from the stream-json messages of the same name by their camel-case `sessionId` and
/// their `uuid` (stream-json says `session_id`).
const FILE_ONLY: [&str; 4] = ["summary", "custom-title", "queue-operation", "file-history-snapshot"];

/// Whether a frame is a session-file record: an object whose `type` the schema declares, and
/// which carries the session envelope unless its kind is one only a session file has.
pub fn claims(frame: &Frame<'_>) -> bool {
    #[derive(serde::Deserialize)]
    struct Shape<'a> {
        #[serde(borrow)]
        r#type: std::borrow::Cow<'a, str>,
        #[serde(rename = "sessionId")]
        session_id: Option<serde::de::IgnoredAny>,
        uuid: Option<serde::de::IgnoredAny>,
    }
    frame.dir == Direction::In
        && serde_json::from_str::<Shape<'_>>(frame.msg.get()).is_ok_and(|shape| {
            let kind = shape.r#type.as_ref();
            SessionRecord::TAGS.contains(&kind)
                && (FILE_ONLY.contains(&kind) || (shape.session_id.is_some() && shape.uuid.is_some()))
        })
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("Claude Code {UPSTREAM_VERSION} (session files)")
}
