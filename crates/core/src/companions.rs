//! A session some sources record in several files: the session's own, and files beside it that
//! belong to it (Claude Code writes each subagent's records to a transcript of its own). The
//! source says which files those are ([`Companions`], in its [`crate::source::SourceSpec`]); a
//! host reads them with the session, merged into one stream by [`joined`]: by each record's
//! `timestamp` (RFC 3339 in UTC, so text order is time order), the session's first on a tie; a
//! record with no time keeps its place after the record before it in its file.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Where a source keeps the files that belong to a session file.
#[derive(Debug)]
pub struct Companions {
    /// The files beside the session file `path` that belong to it, sorted; none for any other file.
    pub of: fn(&Path) -> Vec<PathBuf>,
    /// Whether `path` is such a file, of a session file that exists: it is read with that
    /// session, not as a session of its own.
    pub belongs: fn(&Path) -> bool,
}

/// The lines of the session file `path` and of its `companions`, merged by time, as one text.
pub fn joined(path: &Path, companions: &[PathBuf]) -> io::Result<Vec<u8>> {
    let mut files = Vec::with_capacity(companions.len() + 1);
    for file in std::iter::once(path).chain(companions.iter().map(PathBuf::as_path)) {
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
    use super::joined;

    /// The session's records and a companion's interleave by time; an untimed record stays after
    /// the one before it in its file, and the session's record wins a tie.
    #[test]
    fn a_companion_file_joins_its_session_by_time() {
        let dir = std::env::temp_dir().join(format!("agentwire-companions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let session = dir.join("s1.jsonl");
        std::fs::write(
            &session,
            "{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"n\":1}\n{\"n\":2}\n{\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"n\":3}\n",
        )
        .unwrap();
        let agent = dir.join("agent-a.jsonl");
        std::fs::write(
            &agent,
            "{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"a\":1}\n{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"a\":2}\n",
        )
        .unwrap();
        let text = String::from_utf8(joined(&session, &[agent]).unwrap()).unwrap();
        let order: Vec<&str> = text
            .lines()
            .map(|line| &line[line.rfind(',').map_or(1, |at| at + 1)..line.len() - 1])
            .collect();
        assert_eq!(order, ["\"n\":1", "\"n\":2", "\"a\":1", "\"a\":2", "\"n\":3"], "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
