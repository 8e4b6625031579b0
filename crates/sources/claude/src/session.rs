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
//!
//! Claude Code writes each subagent's records to `<project>/<session id>/subagents/
//! agent-<agent id>.jsonl` (beside an `agent-<agent id>.meta.json` naming the Task call): one run
//! is one session, so those files are the session file's [`Companions`], read with it.

mod normalizer;
pub mod wire;

use std::fs;
use std::path::{Path, PathBuf};

use agentwire_claude_session::{SessionRecord, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::ClaudeSessionNormalizer;

/// Claude Code session files (`~/.claude/projects/<project>/<session id>.jsonl`): one record
/// per line, replayed into the session they record.
pub static SOURCE: SourceSpec = SourceSpec {
    name: "claude-session",
    program: "Claude Code (its session file)",
    provider: ProviderKind::ClaudeAgent,
    id_scope: "claude",
    normalizer: |options| Box::new(Lifecycle::new(ClaudeSessionNormalizer::new(options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::with_companions(subagent_files, is_a_subagent_file),
};

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

/// The subagent transcripts beside the session file `path`, sorted; none for any other file.
fn subagent_files(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(dir.join(stem).join("subagents")) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|file| {
            file.extension().is_some_and(|ext| ext == "jsonl")
                && file
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("agent-"))
        })
        .collect();
    files.sort();
    files
}

/// Whether `path` is a subagent transcript whose session file exists: it is read with that
/// session, not on its own.
fn is_a_subagent_file(path: &Path) -> bool {
    let subagents = path.parent();
    let session_dir = subagents.and_then(Path::parent);
    let (Some(subagents), Some(session_dir)) = (subagents, session_dir) else {
        return false;
    };
    let is_agent = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("agent-"));
    let session_file = session_dir.with_extension("jsonl");
    is_agent && subagents.file_name().is_some_and(|name| name == "subagents") && session_file.is_file()
}

#[cfg(test)]
mod tests {
    use super::{is_a_subagent_file, subagent_files};

    #[test]
    fn a_subagent_file_belongs_to_its_session() {
        let dir = std::env::temp_dir().join(format!("agentwire-subagents-{}", std::process::id()));
        let subagents = dir.join("s1/subagents");
        std::fs::create_dir_all(&subagents).unwrap();
        let session = dir.join("s1.jsonl");
        std::fs::write(&session, "{}\n").unwrap();
        let agent = subagents.join("agent-a.jsonl");
        std::fs::write(&agent, "{}\n").unwrap();
        std::fs::write(subagents.join("agent-a.meta.json"), "{}").unwrap();
        assert_eq!(subagent_files(&session), vec![agent.clone()]);
        assert!(is_a_subagent_file(&agent));
        assert!(!is_a_subagent_file(&session));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
