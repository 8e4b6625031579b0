//! Reading inputs line by line: files or stdin, with line numbers, a look-ahead for format
//! detection, and UTF-8 checked per line by the caller.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use agentwire::frame::LineFormat;
use agentwire::source::Source;

/// How many lines format detection may look at.
const DETECT_LINES: usize = 64;

/// An opened input: its display name and a buffered reader.
pub struct Input {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// The size in bytes when the input is a regular file (for progress).
    pub len: Option<u64>,
    /// Bytes read so far (for progress).
    pub read: u64,
    /// Lines handed out so far, blank ones included (the 1-based number of the last one).
    number: usize,
    reader: BufReader<Box<dyn Read>>,
    /// Lines read ahead by [`Input::detect`], handed out before reading more.
    ahead: VecDeque<Vec<u8>>,
}

impl Input {
    /// Opens `path`; `-` is stdin.
    pub fn open(path: &str) -> anyhow::Result<Self> {
        let (name, len, source): (String, Option<u64>, Box<dyn Read>) = if path == "-" {
            ("<stdin>".into(), None, Box::new(io::stdin()))
        } else {
            let file = File::open(path).map_err(|err| anyhow::anyhow!("{path}: {err}"))?;
            let meta = file.metadata().map_err(|err| anyhow::anyhow!("{path}: {err}"))?;
            if meta.is_dir() {
                anyhow::bail!("{path}: is a directory, not a trace (give a file, or - for stdin)");
            }
            let len = meta.is_file().then_some(meta.len());
            (path.into(), len, Box::new(file))
        };
        Ok(Input {
            name,
            len,
            read: 0,
            number: 0,
            reader: BufReader::with_capacity(1 << 16, source),
            ahead: VecDeque::new(),
        })
    }

    /// Reads the next line that is not blank into `buf` (without its line ending) and returns
    /// its 1-based line number; `None` at the end.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
        loop {
            match self.ahead.pop_front() {
                Some(line) => *buf = line,
                None if self.read_line(buf)? => {}
                None => return Ok(None),
            }
            self.number += 1;
            if !buf.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some(self.number));
            }
        }
    }

    fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        buf.clear();
        let n = self
            .reader
            .read_until(b'\n', buf)
            .map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", self.name)))?;
        if n == 0 {
            return Ok(false);
        }
        // A UTF-8 byte order mark some editors put first is no part of the first line.
        if self.read == 0 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
        }
        self.read += n as u64;
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        Ok(true)
    }

    /// The source and line format: `from` if given (the line format then comes from the first
    /// non-empty line), else detected from up to 64 lines read ahead.
    pub fn detect(&mut self, from: Option<Source>) -> anyhow::Result<(Source, LineFormat)> {
        while self.ahead.len() < DETECT_LINES {
            let mut line = Vec::new();
            if !self.read_line(&mut line)? {
                break;
            }
            let text = String::from_utf8_lossy(&line).into_owned();
            self.ahead.push_back(line);
            if text.trim().is_empty() {
                continue;
            }
            match from {
                Some(source) => return Ok((source, LineFormat::of(&text))),
                None => {
                    if let Some(found) = Source::detect([text.as_str()]) {
                        return Ok(found);
                    }
                }
            }
        }
        match from {
            Some(source) => Ok((source, LineFormat::Transcript)),
            None => {
                anyhow::bail!(
                    "{}: cannot tell the format from its first {DETECT_LINES} lines; pass --from ({})",
                    self.name,
                    Source::names().join(", ")
                )
            }
        }
    }

    /// Whether the next line can be read without waiting for the producer. Output is flushed
    /// when it cannot, so a live pipe shows each event at once while a file stays buffered.
    pub fn has_ready_data(&self) -> bool {
        !self.ahead.is_empty() || !self.reader.buffer().is_empty()
    }
}
