//! Claude Code's subagent transcripts, joined to the session that ran them.
//!
//! Claude Code writes a session to `<project>/<session id>.jsonl` and each subagent's records to
//! `<project>/<session id>/subagents/agent-<agent id>.jsonl` (beside an `agent-<agent id>.meta.json`
//! naming the Task call). One run is one session: `normalize` of the session file reads its
//! subagents' records with it, and `import` takes a subagent's file as part of its session, not as
//! a session of its own. The records are merged by their `timestamp` (RFC 3339 in UTC as Claude
//! Code writes it, so text order is time order), the session's first on a tie; a record with no
//! time keeps its place after the record before it in its file.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The subagent transcripts beside the session file `path`, sorted; none for any other file.
pub fn of(path: &Path) -> Vec<PathBuf> {
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
pub fn belongs_to_a_session(path: &Path) -> bool {
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

/// The lines of the session file `path` and of `sidechains`, merged by time, as one text.
pub fn joined(path: &Path, sidechains: &[PathBuf]) -> io::Result<Vec<u8>> {
    let mut files = Vec::with_capacity(sidechains.len() + 1);
    for file in std::iter::once(path).chain(sidechains.iter().map(PathBuf::as_path)) {
        let text = fs::read(file).map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", file.display())))?;
        files.push(timed_lines(text));
    }
    let mut next = vec![0; files.len()];
    let mut out = Vec::new();
    loop {
        // The earliest next line; the session file (first) wins a tie.
        let pick = (0..files.len())
            .filter(|&file| next[file] < files[file].len())
            .min_by(|&a, &b| files[a][next[a]].0.cmp(&files[b][next[b]].0).then(a.cmp(&b)));
        let Some(file) = pick else { break };
        out.extend_from_slice(&files[file][next[file]].1);
        out.push(b'\n');
        next[file] += 1;
    }
    Ok(out)
}

/// Each non-blank line of `text` with the time it sorts by: its `timestamp`, else the time of
/// the line before it (the empty text before any).
fn timed_lines(text: Vec<u8>) -> Vec<(String, Vec<u8>)> {
    #[derive(serde::Deserialize)]
    struct Timed {
        timestamp: Option<String>,
    }
    let mut last = String::new();
    text.split(|&byte| byte == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .map(|line| {
            if let Ok(Timed { timestamp: Some(time) }) = serde_json::from_slice::<Timed>(line) {
                last = time;
            }
            (last.clone(), line.to_vec())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subagent_file_joins_its_session_by_time() {
        let dir = std::env::temp_dir().join(format!("agentwire-sidechains-{}", std::process::id()));
        let subagents = dir.join("s1/subagents");
        fs::create_dir_all(&subagents).unwrap();
        let session = dir.join("s1.jsonl");
        fs::write(
            &session,
            "{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"n\":1}\n{\"n\":2}\n{\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"n\":3}\n",
        )
        .unwrap();
        let agent = subagents.join("agent-a.jsonl");
        fs::write(
            &agent,
            "{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"a\":1}\n{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"a\":2}\n",
        )
        .unwrap();
        fs::write(subagents.join("agent-a.meta.json"), "{}").unwrap();
        assert_eq!(of(&session), vec![agent.clone()]);
        assert!(belongs_to_a_session(&agent));
        assert!(!belongs_to_a_session(&session));
        let text = String::from_utf8(joined(&session, &of(&session)).unwrap()).unwrap();
        let order: Vec<&str> = text
            .lines()
            .map(|line| &line[line.rfind(',').map_or(1, |at| at + 1)..line.len() - 1])
            .collect();
        assert_eq!(order, ["\"n\":1", "\"n\":2", "\"a\":1", "\"a\":2", "\"n\":3"], "{text}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
