//! Reading inputs line by line: files or stdin, with line numbers and UTF-8 checked per line.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

/// An opened input: its display name and a buffered reader.
pub struct Input {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// The size in bytes when the input is a regular file (for progress).
    pub len: Option<u64>,
    reader: BufReader<Box<dyn Read>>,
}

impl Input {
    /// Opens `path`; `-` is stdin.
    pub fn open(path: &str) -> io::Result<Self> {
        let (name, len, source): (String, Option<u64>, Box<dyn Read>) = if path == "-" {
            ("<stdin>".into(), None, Box::new(io::stdin()))
        } else {
            let file = File::open(path).map_err(|err| io::Error::new(err.kind(), format!("{path}: {err}")))?;
            let len = file
                .metadata()
                .ok()
                .filter(|meta| meta.is_file())
                .map(|meta| meta.len());
            (path.into(), len, Box::new(file))
        };
        Ok(Input {
            name,
            len,
            reader: BufReader::with_capacity(1 << 16, source),
        })
    }

    /// Reads the next line into `buf` (without its line ending). Returns `Ok(false)` at the end.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        buf.clear();
        if self.reader.read_until(b'\n', buf)? == 0 {
            return Ok(false);
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        Ok(true)
    }

    /// Whether the next line can be read without waiting for the producer. Output is flushed
    /// when it cannot, so a live pipe shows each event at once while a file stays buffered.
    pub fn has_ready_data(&self) -> bool {
        !self.reader.buffer().is_empty()
    }
}
