//! Gemini CLI session files -> canonical events: a past Gemini session replayed from the log the
//! CLI keeps (`~/.gemini/tmp/<project slug>/chats/session-<time>-<id8>.jsonl`).
//!
//! The file is a log to replay, not a transcript: a metadata line per writer, message records (a
//! record whose `id` was seen before replaces that message: a model message is written again
//! with its tool calls and their final state), and `$set` records whose fields replace the
//! conversation's, the whole message list included (a checkpoint: a failed or cancelled turn is
//! erased by one, a resumed run writes its history with one). The normalizer replays it into the
//! session as it stands: every message once, as it was last written, and a message a checkpoint
//! or a rewind drops said plainly (`turn.aborted` for the turn it was, the ids in
//! `thread.metadata.updated`), never silently gone.
//!
//! The ids are those the live source (`gemini`) derives: the thread is the `sessionId`, a tool
//! item its call id (the stream's `tool_id`). A subagent's conversation is a file of its own,
//! `chats/<parent session id>/<agent id>.jsonl`: one run is one session, so those files are the
//! session file's [`Companions`], read with it.

mod normalizer;
pub mod wire;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use agentwire_gemini_cli_session::UPSTREAM_VERSION;

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::Frame;
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::GeminiSessionNormalizer;

/// Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-*.jsonl`): one record per
/// line, replayed into the session they record.
pub static GEMINI_SESSION: SourceSpec = SourceSpec {
    name: "gemini-session",
    program: "Gemini CLI (its session file)",
    provider: ProviderKind::Gemini,
    id_scope: "gemini",
    normalizer: |options| Box::new(Lifecycle::new(GeminiSessionNormalizer::new(options))),
    conformer: || Box::new(Strict(wire::decode)),
    claims,
    upstream,
    files: Files::with_companions(subagent_files, is_a_subagent_file),
};

/// Whether a frame is a session-file line: a bare line that decodes as one of the four kinds.
pub fn claims(frame: &Frame<'_>) -> bool {
    frame.is_bare_line() && wire::decode(frame).is_ok()
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@google/gemini-cli {UPSTREAM_VERSION} (session files)")
}

/// The session id a session file starts with (its metadata line's `sessionId`). Only that line
/// is read: the file may be hundreds of megabytes, and it is read again, line by line, when
/// normalized.
fn session_id(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Metadata {
        #[serde(rename = "sessionId")]
        session_id: String,
    }
    let mut first = String::new();
    BufReader::new(fs::File::open(path).ok()?).read_line(&mut first).ok()?;
    serde_json::from_str::<Metadata>(&first)
        .ok()
        .map(|metadata| metadata.session_id)
}

/// Whether `name` is a main session file's: `session-<time>-<id8>.jsonl`.
fn is_session_file_name(name: &str) -> bool {
    name.starts_with("session-") && name.ends_with(".jsonl")
}

/// The subagents' files of the session file `path` (`chats/<its session id>/*.jsonl`), sorted;
/// none for any other file.
fn subagent_files(path: &Path) -> Vec<PathBuf> {
    let is_session = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(is_session_file_name);
    let Some(chats) = path.parent().filter(|_| is_session) else {
        return Vec::new();
    };
    let Some(id) = session_id(path) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(chats.join(id)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|file| file.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    files
}

/// Whether `path` is a subagent's file whose session file exists beside its folder
/// (`chats/<session id>/<agent id>.jsonl` with a `chats/session-*-<id8>.jsonl`): it is read with
/// that session, not on its own.
fn is_a_subagent_file(path: &Path) -> bool {
    let folder = path.parent();
    let chats = folder.and_then(Path::parent);
    let (Some(folder), Some(chats)) = (folder, chats) else {
        return false;
    };
    let Some(id) = folder.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    let Ok(entries) = fs::read_dir(chats) else {
        return false;
    };
    path.extension().is_some_and(|ext| ext == "jsonl")
        && entries.filter_map(Result::ok).any(|entry| {
            let file = entry.path();
            file.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(is_session_file_name)
                && session_id(&file).as_deref() == Some(id)
        })
}

#[cfg(test)]
mod tests {
    use super::{is_a_subagent_file, subagent_files};

    #[test]
    fn a_subagent_file_belongs_to_its_session() {
        let dir = std::env::temp_dir().join(format!("agentwire-gemini-subagents-{}", std::process::id()));
        let chats = dir.join("chats");
        let agents = chats.join("s1-uuid");
        std::fs::create_dir_all(&agents).unwrap();
        let session = chats.join("session-2026-01-01T00-00-s1-uuid.jsonl");
        // Only the first line names the session: a later line that is not even UTF-8 (a record
        // cut short mid-character) does not hide the session's subagents.
        let mut text = b"{\"sessionId\":\"s1-uuid\",\"projectHash\":\"h\"}\n".to_vec();
        text.extend_from_slice(b"{\"type\":\"user\",\"content\":\"\xe2\x82\n");
        std::fs::write(&session, text).unwrap();
        let agent = agents.join("a1.jsonl");
        std::fs::write(
            &agent,
            "{\"sessionId\":\"a1\",\"projectHash\":\"h\",\"kind\":\"subagent\"}\n",
        )
        .unwrap();
        assert_eq!(subagent_files(&session), vec![agent.clone()]);
        assert!(subagent_files(&agent).is_empty());
        assert!(is_a_subagent_file(&agent));
        assert!(!is_a_subagent_file(&session));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
