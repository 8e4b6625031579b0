//! A whole trace as an iterator: [`events`] reads the lines of a reader into a normalizer and
//! yields the canonical events it emits, as `agentwire normalize` writes them.
//!
//! ```no_run
//! use agentwire::normalizer::Options;
//! use agentwire::source::Source;
//! use agentwire::stream::{self, StreamError};
//!
//! let file = std::io::BufReader::new(std::fs::File::open("trace.jsonl")?);
//! for item in stream::events(file, Source::CodexAppServer.normalizer(Options::default())) {
//!     match item {
//!         Ok(event) => println!("{}", serde_json::to_string(&event)?),
//!         // Its `runtime.warning` came first; the stream goes on.
//!         Err(StreamError::Line { line, problem }) => eprintln!("trace.jsonl:{line}: {problem}"),
//!         Err(err @ StreamError::Read { .. }) => return Err(err.into()),
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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

#[cfg(test)]
mod tests {
    use std::io::BufReader;

    use agentwire_canonical::ProviderRuntimeEvent;

    use super::{StreamError, events};
    use crate::normalizer::Options;

    fn jsonl(events: &[ProviderRuntimeEvent]) -> String {
        events
            .iter()
            .map(|event| serde_json::to_string(event).expect("events serialize") + "\n")
            .collect()
    }

    /// Every corpus trace of a compiled source read through the iterator gives its golden: what
    /// `agentwire normalize` prints for it (`tests/golden/<source>/<trace>.jsonl`).
    #[test]
    fn a_trace_read_as_an_iterator_is_its_golden() {
        let golden_root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
        let (mut traces, mut problems) = (0, 0);
        for (source, path) in crate::test_corpus::traces() {
            let name = path.file_stem().and_then(|stem| stem.to_str()).expect("a trace name");
            let golden = golden_root.join(source.name()).join(format!("{name}.jsonl"));
            let Ok(expected) = std::fs::read_to_string(&golden) else {
                continue;
            };
            let file = std::fs::File::open(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            let mut actual = Vec::new();
            for item in events(BufReader::new(file), source.normalizer(Options::default())) {
                match item {
                    Ok(event) => actual.push(event),
                    Err(StreamError::Line { .. }) => problems += 1,
                    Err(err @ StreamError::Read { .. }) => panic!("{}: {err}", path.display()),
                }
            }
            assert!(jsonl(&actual) == expected, "{}: not its golden", path.display());
            traces += 1;
        }
        assert!(traces > 0, "no trace with a golden");
        let every_source = cfg!(all(
            feature = "codex-app-server",
            feature = "codex-exec",
            feature = "codex-rollout",
            feature = "claude",
            feature = "claude-session",
            feature = "acp"
        ));
        if every_source {
            assert!(traces > 200, "{traces} traces with a golden");
            // The corpus holds lines that do not map on purpose; each is a problem the caller sees.
            assert!(problems > 0, "{problems} problems in {traces} traces");
        }
    }

    /// What needs a Codex app-server message: a turn left open.
    #[cfg(feature = "codex-app-server")]
    mod codex_app_server {
        use std::io::{BufReader, Read};

        use super::{StreamError, events, jsonl};
        use crate::normalizer::{Options, ProblemKind};
        use crate::source::Source;

        /// A Codex app-server `turn/started` as the server prints it: a turn left open.
        const TURN_STARTED: &[u8] = br#"{"method":"turn/started","params":{"threadId":"t","turn":{"id":"u","rootTurnId":"u","items":[],"itemsView":"notLoaded","status":"inProgress","error":null,"startedAt":1796016487,"completedAt":null,"durationMs":null}},"emittedAtMs":1796016487712}"#;

        /// A line that is no frame yields its `runtime.warning` and then a problem naming its line
        /// number (blank lines counted); the end of the input settles the open turn.
        #[test]
        fn an_unreadable_line_is_a_warning_then_a_problem_with_its_number() {
            let input = [b"\xEF\xBB\xBF", TURN_STARTED, b"\r\n\n{\"id\":1,\n\xFF\n"].concat();
            let items: Vec<_> =
                events(input.as_slice(), Source::CodexAppServer.normalizer(Options::default())).collect();
            let kinds: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Ok(event) => serde_json::to_value(event).expect("an event")["type"]
                        .as_str()
                        .expect("a type")
                        .to_string(),
                    Err(StreamError::Line { line, problem }) => format!("line {line}: {:?}", problem.kind),
                    Err(err @ StreamError::Read { .. }) => panic!("{err}"),
                })
                .collect();
            let unreadable = format!("{:?}", ProblemKind::Unreadable);
            let warnings = kinds.iter().filter(|kind| *kind == "runtime.warning").count();
            assert_eq!(warnings, 2, "{kinds:?}");
            let problems: Vec<&String> = kinds.iter().filter(|kind| kind.starts_with("line ")).collect();
            assert_eq!(
                problems,
                [&format!("line 3: {unreadable}"), &format!("line 4: {unreadable}")],
                "{kinds:?}"
            );
            let third = kinds
                .iter()
                .position(|kind| kind == "line 3: Unreadable")
                .expect("line 3");
            assert_eq!(
                kinds[third - 1],
                "runtime.warning",
                "the warning comes first: {kinds:?}"
            );
            assert!(kinds.contains(&"turn.started".to_string()), "{kinds:?}");
            assert_eq!(
                kinds.last().map(String::as_str),
                Some("session.state.changed"),
                "{kinds:?}"
            );
            assert!(
                kinds.contains(&"turn.aborted".to_string()),
                "finished at the end: {kinds:?}"
            );
        }

        /// A reader that fails once what it holds is read.
        struct Failing(std::io::Cursor<Vec<u8>>);

        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(std::io::Error::other("the pipe broke")),
                    n => Ok(n),
                }
            }
        }

        /// A read error names the line it was reading and ends the iterator, the normalizer
        /// unfinished (no `turn.aborted`: the stream did not end, it broke).
        #[test]
        fn a_read_error_names_its_line_and_ends_the_stream() {
            let reader = BufReader::new(Failing(std::io::Cursor::new([TURN_STARTED, b"\n"].concat())));
            let mut iter = events(reader, Source::CodexAppServer.normalizer(Options::default()));
            let mut seen = Vec::new();
            let error = loop {
                match iter.next().expect("an item before the end") {
                    Ok(event) => seen.push(event),
                    Err(err) => break err,
                }
            };
            assert!(matches!(error, StreamError::Read { line: 2, .. }), "{error}");
            assert_eq!(error.to_string(), "line 2: the pipe broke");
            assert!(iter.next().is_none());
            assert!(!jsonl(&seen).contains("turn.aborted"), "{}", jsonl(&seen));
            let mut normalizer = iter.into_normalizer();
            let mut settled = Vec::new();
            normalizer.finish(&mut settled);
            assert!(jsonl(&settled).contains("turn.aborted"), "{}", jsonl(&settled));
        }
    }
}
