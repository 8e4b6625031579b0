//! A session some sources record in several files: the session's own, and files beside it that
//! belong to it (Claude Code writes each subagent's records to a transcript of its own). The
//! source says which files those are ([`Companions`], in its [`crate::source::SourceSpec`]); a
//! host reads them with the session, merged into one stream by [`joined`]: by each record's
//! `timestamp` (RFC 3339 in UTC, so text order is time order), the session's first on a tie; a
//! record with no time keeps its place after the record before it in its file.

use std::fs;
use std::io::{self, BufRead, BufReader, Read};
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

/// The lines of the session file `path` and of its `companions`, merged by time, as one text
/// read as it is handed out: one line of each file is held at a time, so a session of any size
/// reads in bounded memory.
pub fn joined(path: &Path, companions: &[PathBuf]) -> io::Result<Joined> {
    let mut files = Vec::with_capacity(companions.len() + 1);
    let mut file_bytes = 0;
    for file in std::iter::once(path).chain(companions.iter().map(PathBuf::as_path)) {
        let opened = fs::File::open(file).map_err(|err| named(file, &err))?;
        file_bytes += opened.metadata().map_err(|err| named(file, &err))?.len();
        let mut lines = TimedLines {
            path: file.to_path_buf(),
            reader: BufReader::new(opened),
            time: String::new(),
            next: None,
        };
        lines.advance()?;
        files.push(lines);
    }
    Ok(Joined {
        files,
        file_bytes,
        line: Vec::new(),
        at: 0,
    })
}

/// The merged text of a session file and its companions ([`joined`]).
pub struct Joined {
    files: Vec<TimedLines>,
    file_bytes: u64,
    /// The line being handed out, with its `\n`, and how much of it is.
    line: Vec<u8>,
    at: usize,
}

impl Joined {
    /// The files' sizes summed: about the length of the text (blank lines are left out), for
    /// progress.
    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }
}

impl Read for Joined {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.line.len() {
            // The earliest next line; the session file (first) wins a tie.
            let pick = (0..self.files.len())
                .filter(|&file| self.files[file].next.is_some())
                .min_by(|&a, &b| self.files[a].time.cmp(&self.files[b].time).then(a.cmp(&b)));
            let Some(file) = pick else {
                return Ok(0);
            };
            self.line = self.files[file].next.take().unwrap_or_default();
            self.line.push(b'\n');
            self.at = 0;
            self.files[file].advance()?;
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// One file's lines, read one ahead, with the time the next sorts by: its `timestamp`, else the
/// time of the line before it (the empty text before any).
struct TimedLines {
    path: PathBuf,
    reader: BufReader<fs::File>,
    time: String,
    /// The next non-blank line, without its `\n`; `None` at the end of the file.
    next: Option<Vec<u8>>,
}

impl TimedLines {
    fn advance(&mut self) -> io::Result<()> {
        #[derive(serde::Deserialize)]
        struct Timed {
            timestamp: Option<String>,
        }
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|err| named(&self.path, &err))?;
            if read == 0 {
                self.next = None;
                return Ok(());
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                break;
            }
        }
        if let Ok(Timed { timestamp: Some(time) }) = serde_json::from_slice::<Timed>(&line) {
            self.time = time;
        }
        self.next = Some(line);
        Ok(())
    }
}

/// An I/O error that names the file it happened on.
fn named(file: &Path, err: &io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::joined;
    use std::io::Read;

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
        let mut text = String::new();
        joined(&session, &[agent]).unwrap().read_to_string(&mut text).unwrap();
        let order: Vec<&str> = text
            .lines()
            .map(|line| &line[line.rfind(',').map_or(1, |at| at + 1)..line.len() - 1])
            .collect();
        assert_eq!(order, ["\"n\":1", "\"n\":2", "\"a\":1", "\"a\":2", "\"n\":3"], "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
