//! A whole trace as an iterator: [`events`] reads the lines of a reader into a normalizer and
//! yields the canonical events it emits, as `agentwire normalize` writes them.
//!
//! The `agentwire` crate's documentation shows it reading a file.
//!
//! The iterator is [`Normalizer::push_bytes`] per line and [`Normalizer::finish`] at the end:
//! the same calls a host makes by hand, so its events are the CLI's, byte for byte.

use std::borrow::BorrowMut;
use std::io::{self, BufRead};

use agentwire_canonical::ProviderRuntimeEvent;

use crate::frame::LineFormat;
use crate::normalizer::{Normalizer, Problem};

/// The canonical events of every line `reader` holds, pushed into `normalizer` (a
/// `Box<dyn Normalizer>` as [`crate::source::Source::normalizer`] makes it, or a `&mut` one the
/// caller keeps).
///
/// Lines end at `\n` (a `\r` before it is dropped, as is a UTF-8 byte order mark before the first
/// line); blank lines are skipped but counted. The line format (transcript records or bare
/// messages) is that of the first non-blank line. At the end of the input the normalizer is
/// finished, so what is still open settles (`turn.aborted`, items `failed`, requests
/// `cancelled`) before the iterator ends.
pub fn events<R: BufRead, N: BorrowMut<dyn Normalizer>>(reader: R, normalizer: N) -> Events<R, N> {
    Events {
        reader,
        normalizer,
        format: None,
        line: 0,
        started: false,
        buf: Vec::new(),
        pending: Vec::new(),
        problem: None,
        done: false,
    }
}

/// Why an item of [`Events`] is not an event.
#[derive(Debug)]
pub enum StreamError {
    /// Reading line `line` (1-based) failed. The iterator ends without finishing the
    /// normalizer: the stream's end is unknown ([`Events::into_normalizer`] gives it back).
    Read {
        /// The line number.
        line: usize,
        /// The reader's error.
        error: io::Error,
    },
    /// Line `line` (1-based) did not map cleanly. Its events, the `runtime.warning` reporting it
    /// among them, came before; the stream goes on.
    Line {
        /// The line number.
        line: usize,
        /// Why it did not map cleanly.
        problem: Problem,
    },
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Read { line, error } => write!(f, "line {line}: {error}"),
            Self::Line { line, problem } => write!(f, "line {line}: {problem}"),
        }
    }
}

impl std::error::Error for StreamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { error, .. } => Some(error),
            Self::Line { problem, .. } => Some(problem),
        }
    }
}

/// The iterator [`events`] returns.
pub struct Events<R, N> {
    reader: R,
    normalizer: N,
    /// The line format, once the first non-blank line told it.
    format: Option<LineFormat>,
    /// The number of the last line read.
    line: usize,
    /// Whether any byte was read (a byte order mark is dropped only before the first line).
    started: bool,
    buf: Vec<u8>,
    /// The events of the last line, last first: handed out by `pop`.
    pending: Vec<ProviderRuntimeEvent>,
    /// The last line's problem, handed out after its events.
    problem: Option<StreamError>,
    /// The input ended (the normalizer finished) or could not be read.
    done: bool,
}

impl<R, N> Events<R, N> {
    /// The normalizer, to answer a request it holds open or to go on with another reader.
    pub fn into_normalizer(self) -> N {
        self.normalizer
    }
}

impl<R: BufRead, N: BorrowMut<dyn Normalizer>> Iterator for Events<R, N> {
    type Item = Result<ProviderRuntimeEvent, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(event) = self.pending.pop() {
                return Some(Ok(event));
            }
            if let Some(problem) = self.problem.take() {
                return Some(Err(problem));
            }
            if self.done {
                return None;
            }
            let normalizer = self.normalizer.borrow_mut();
            match read_line(&mut self.reader, &mut self.buf, !self.started) {
                Err(error) => {
                    self.done = true;
                    return Some(Err(StreamError::Read {
                        line: self.line + 1,
                        error,
                    }));
                }
                Ok(0) => {
                    self.done = true;
                    normalizer.finish(&mut self.pending);
                }
                Ok(_) => {
                    self.started = true;
                    self.line += 1;
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let format = *self
                        .format
                        .get_or_insert_with(|| LineFormat::of(&String::from_utf8_lossy(&self.buf)));
                    if let Err(problem) = normalizer.push_bytes(&self.buf, format, &mut self.pending) {
                        self.problem = Some(StreamError::Line {
                            line: self.line,
                            problem,
                        });
                    }
                }
            }
            self.pending.reverse();
        }
    }
}

/// Reads one line of `reader` into `buf` without its `\n` or `\r\n` (nor a UTF-8 byte order mark
/// when `first`: some editors put one before the first line). Returns the bytes consumed, 0 at
/// the end of the input. The one line reading of [`events`] and `agentwire normalize`.
pub fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, first: bool) -> io::Result<usize> {
    buf.clear();
    let n = reader.read_until(b'\n', buf)?;
    if first && buf.starts_with(b"\xEF\xBB\xBF") {
        buf.drain(..3);
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(n)
}
