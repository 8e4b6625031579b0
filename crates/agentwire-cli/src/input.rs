//! Reading inputs line by line: files or stdin, with line numbers, a look-ahead for format
//! detection, and UTF-8 checked per line by the caller. An input that is one JSON document of a
//! source that reads documents (`SourceSpec::document`) is handed out as that document's frames,
//! one per line, each numbered by the document's line where it begins.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use agentwire::companions;
use agentwire::document;
use agentwire::frame::LineFormat;
use agentwire::source::Source;

/// How many lines format detection may look at.
const DETECT_LINES: usize = 64;

/// What an input with no line to read is said to be.
const EMPTY: &str = "empty: no line to read, so no session";

/// How many lines that fit no source are kept to say which source the input looks like.
const UNFIT_KEPT: usize = DETECT_LINES;

/// Whether the lines of an input fitted the source they were read as. Until one has, the first
/// lines are kept (at most 64), so that an input read with the wrong `--from` can be told to
/// the person with the source it looks like, instead of an empty session and success.
#[derive(Default)]
pub struct Fit {
    lines: usize,
    fitted: usize,
    unfit: Vec<String>,
}

impl Fit {
    /// Counts a line read; `fitted` when the source took it without a problem.
    pub fn record(&mut self, line: &[u8], fitted: bool) {
        self.lines += 1;
        if fitted {
            // The first line that fits makes the kept ones useless.
            if self.fitted == 0 {
                self.unfit = Vec::new();
            }
            self.fitted += 1;
        } else if self.fitted == 0 && self.unfit.len() < UNFIT_KEPT {
            self.unfit.push(String::from_utf8_lossy(line).into_owned());
        }
    }

    /// Why the input gave no session of `source`, when it did not: it was empty, or no line of
    /// it fitted (with the source its first lines look like, when one claims them).
    pub fn verdict(&self, name: &str, source: Source) -> Option<String> {
        if self.lines == 0 {
            return Some(format!("{name}: {EMPTY}"));
        }
        if self.fitted > 0 {
            return None;
        }
        let looks_like = Source::detect(self.unfit.iter().map(String::as_str))
            .map(|(found, _)| found)
            .filter(|found| *found != source);
        Some(match looks_like {
            Some(found) => format!(
                "{name}: no line is a {} message; it looks like {} (try --from {})",
                source.name(),
                found.name(),
                found.name()
            ),
            None => format!(
                "{name}: no line is a {} message, and no other source's ({})",
                source.name(),
                UNDETECTED
            ),
        })
    }
}

/// The read buffer of a whole input.
const READ_BUFFER: usize = 1 << 16;

/// The read buffer of an input read for its first lines only.
const HEAD_BUFFER: usize = 1 << 13;

/// Why an input's source is unknown when detection found none.
pub const UNDETECTED: &str = "cannot tell the format from its first 64 lines";

/// An opened input: its display name and a buffered reader.
pub struct Input {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// The size in bytes when the input is a regular file (for progress).
    pub len: Option<u64>,
    /// Bytes read so far (for progress).
    pub read: u64,
    /// The file's modification time in Unix milliseconds, when the input is a file that has
    /// one: the session's time when its lines give none.
    pub modified_ms: Option<i64>,
    /// Lines handed out so far, blank ones included (the 1-based number of the last one).
    number: usize,
    reader: BufReader<Box<dyn Read + Send>>,
    /// Lines read ahead by [`Input::detect`], handed out before reading more.
    ahead: VecDeque<Vec<u8>>,
    /// The frames of a document, once the input is read as one, handed out instead of lines.
    pieces: Option<VecDeque<Piece>>,
    /// Why the line handed out last cannot be read, when the input itself knows.
    unreadable: Option<String>,
}

/// A file's modification time in Unix milliseconds, where the file system keeps one.
fn modified_ms(meta: &std::fs::Metadata) -> Option<i64> {
    let since = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

/// One frame of a document, as a line.
struct Piece {
    /// The document's line where the frame begins.
    line: usize,
    text: Vec<u8>,
    /// Why the frame cannot be read: the rest of a document cut short, or text that is no document.
    unreadable: Option<String>,
}

impl Input {
    /// Opens `path`; `-` is stdin.
    pub fn open(path: &str) -> anyhow::Result<Self> {
        if path == "-" {
            return Ok(Self::from_reader(
                "<stdin>".into(),
                None,
                Box::new(io::stdin()),
                READ_BUFFER,
            ));
        }
        Self::open_file(Path::new(path)).map_err(|err| anyhow::anyhow!("{path}: {err}"))
    }

    /// Opens the file at `path` (never stdin), named by its path as displayed.
    pub fn open_file(path: &Path) -> io::Result<Self> {
        Self::open_file_buffered(path, READ_BUFFER)
    }

    /// Opens the file at `path` to read its first lines only: a buffer of a few pages reads
    /// little more than those lines, where [`Input::open_file`]'s reads the first 64 KiB.
    pub fn open_file_head(path: &Path) -> io::Result<Self> {
        Self::open_file_buffered(path, HEAD_BUFFER)
    }

    fn open_file_buffered(path: &Path, capacity: usize) -> io::Result<Self> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other(
                "is a directory, not a trace (give a file, or - for stdin)",
            ));
        }
        let len = meta.is_file().then_some(meta.len());
        let mut input = Self::from_reader(path.display().to_string(), len, Box::new(file), capacity);
        input.modified_ms = modified_ms(&meta);
        Ok(input)
    }

    /// A session file read with the files beside it that belong to it (a Claude Code session's
    /// subagent transcripts: the source's `companions`), when it has any: the merged lines, named
    /// after the session file and the number of those files. `None` for any other input.
    pub fn with_companions(path: &str, source: Source) -> io::Result<Option<Self>> {
        let Some(companions) = source.spec().files.companions.as_ref().filter(|_| path != "-") else {
            return Ok(None);
        };
        let path = Path::new(path);
        let files = (companions.of)(path);
        if files.is_empty() {
            return Ok(None);
        }
        let joined = companions::joined(path, &files)?;
        let name = format!("{} (with {} subagent file(s))", path.display(), files.len());
        let mut input = Self::from_reader(name, Some(joined.file_bytes()), Box::new(joined), READ_BUFFER);
        input.modified_ms = std::fs::metadata(path).ok().as_ref().and_then(modified_ms);
        Ok(Some(input))
    }

    fn from_reader(name: String, len: Option<u64>, source: Box<dyn Read + Send>, capacity: usize) -> Self {
        Input {
            name,
            len,
            read: 0,
            modified_ms: None,
            number: 0,
            reader: BufReader::with_capacity(capacity, source),
            ahead: VecDeque::new(),
            pieces: None,
            unreadable: None,
        }
    }

    /// An input that is the document `text` of `source`, named `name` (a session of a store).
    pub fn from_document(name: String, text: &str, source: Source) -> Self {
        let mut input = Self::from_reader(name, None, Box::new(io::empty()), HEAD_BUFFER);
        input.pieces = source
            .spec()
            .files
            .document
            .as_ref()
            .map(|shape| pieces(document::split(text, shape)));
        input.len = u64::try_from(text.len()).ok();
        input.read = input.len.unwrap_or(0);
        input
    }

    /// Reads the rest of the input as one document of `source` and hands out its frames from
    /// now on; false (nothing changed) when the source reads no documents.
    fn read_as_document(&mut self, source: Source) -> io::Result<bool> {
        let Some(shape) = source.spec().files.document.as_ref() else {
            return Ok(false);
        };
        let text = self.read_rest()?;
        self.pieces = Some(pieces(document::split(&String::from_utf8_lossy(&text), shape)));
        Ok(true)
    }

    /// The lines read ahead and the rest of the input, as one text.
    fn read_rest(&mut self) -> io::Result<Vec<u8>> {
        let mut text = Vec::new();
        for line in self.ahead.drain(..) {
            text.extend_from_slice(&line);
            text.push(b'\n');
        }
        let n = self
            .reader
            .read_to_end(&mut text)
            .map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", self.name)))?;
        self.read += n as u64;
        Ok(text)
    }

    /// Why the line handed out last cannot be read, when the input itself knows (the rest of a
    /// document cut short); the caller reports it as an unreadable line.
    pub fn unreadable(&self) -> Option<&str> {
        self.unreadable.as_deref()
    }

    /// Reads the next line that is not blank into `buf` (without its line ending) and returns
    /// its 1-based line number; `None` at the end.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
        if let Some(pieces) = &mut self.pieces {
            let Some(piece) = pieces.pop_front() else {
                return Ok(None);
            };
            *buf = piece.text;
            self.unreadable = piece.unreadable;
            self.number = piece.line;
            return Ok(Some(piece.line));
        }
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
        let n = agentwire::stream::read_line(&mut self.reader, buf, self.read == 0)
            .map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", self.name)))?;
        self.read += n as u64;
        Ok(n > 0)
    }

    /// The source and line format: `from` if given (the line format then comes from the first
    /// non-empty line), else detected from up to 64 lines read ahead.
    pub fn detect(&mut self, from: Option<Source>) -> anyhow::Result<(Source, LineFormat)> {
        match from {
            Some(source) if self.read_as_document(source)? => Ok((source, LineFormat::Bare)),
            Some(source) => Ok((source, self.line_format()?)),
            None => match self.detect_source()? {
                Some(found) => Ok(found),
                None if self.ahead.iter().all(|line| line.iter().all(u8::is_ascii_whitespace)) => {
                    anyhow::bail!("{}: {EMPTY}", self.name)
                }
                None => anyhow::bail!(
                    "{}: {}; pass --from ({})",
                    self.name,
                    UNDETECTED,
                    Source::names().join(", ")
                ),
            },
        }
    }

    /// The source and line format [`Source::detect`] finds in up to 64 lines read ahead (those
    /// [`Input::peek`] read first), `None` when none of them tells (the lines stay ahead, handed
    /// out by [`Input::next_line`]).
    pub fn detect_source(&mut self) -> io::Result<Option<(Source, LineFormat)>> {
        let peeked = self.ahead.iter().find_map(|line| {
            let text = String::from_utf8_lossy(line);
            Source::detect([text.as_ref()])
        });
        if peeked.is_some() {
            return Ok(peeked);
        }
        while let Some(text) = self.read_ahead()? {
            if let Some(found) = Source::detect([text.as_str()]) {
                return Ok(Some(found));
            }
        }
        self.detect_document()
    }

    /// The source whose document the whole input is, when its first line is no whole JSON value
    /// (a pretty-printed document) or the input is one line (a compact one): the first source that
    /// reads documents and claims the document's first frame. The input then hands out its frames.
    fn detect_document(&mut self) -> io::Result<Option<(Source, LineFormat)>> {
        let mut lines = self
            .ahead
            .iter()
            .filter(|line| !line.iter().all(u8::is_ascii_whitespace));
        let Some(first) = lines.next() else {
            return Ok(None);
        };
        let whole = serde_json::from_slice::<serde::de::IgnoredAny>(first).is_ok();
        let one_line = lines.next().is_none() && self.ahead.len() < DETECT_LINES;
        if whole && !one_line {
            return Ok(None);
        }
        let text = self.read_rest()?;
        let lossy = String::from_utf8_lossy(&text);
        if let Some((source, split)) = Source::detect_document(&lossy) {
            self.pieces = Some(pieces(split));
            return Ok(Some((source, LineFormat::Bare)));
        }
        // No source's document: the text is handed out again, line by line.
        self.ahead = text.split(|&byte| byte == b'\n').map(<[u8]>::to_vec).collect();
        Ok(None)
    }

    /// The first non-blank line (lossy UTF-8), read ahead and handed out again by
    /// [`Input::next_line`]: what tells canonical JSONL from a provider trace. Call it before
    /// reading anything else.
    pub fn peek(&mut self) -> io::Result<Option<String>> {
        self.read_ahead()
    }

    /// The line format of the first non-empty line, transcript records when there is none.
    fn line_format(&mut self) -> io::Result<LineFormat> {
        let peeked = self
            .ahead
            .iter()
            .map(|line| String::from_utf8_lossy(line))
            .find(|text| !text.trim().is_empty())
            .map(|text| text.into_owned());
        let first = match peeked {
            Some(text) => Some(text),
            None => self.read_ahead()?,
        };
        Ok(first.map_or(LineFormat::Transcript, |text| LineFormat::of(&text)))
    }

    /// Reads lines ahead up to the next non-blank one and returns its text (lossy UTF-8), or
    /// `None` at the end of the input or when 64 lines are ahead.
    fn read_ahead(&mut self) -> io::Result<Option<String>> {
        while self.ahead.len() < DETECT_LINES {
            let mut line = Vec::new();
            if !self.read_line(&mut line)? {
                return Ok(None);
            }
            let text = String::from_utf8_lossy(&line).into_owned();
            self.ahead.push_back(line);
            if !text.trim().is_empty() {
                return Ok(Some(text));
            }
        }
        Ok(None)
    }

    /// Whether the next line can be read without waiting for the producer. Output is flushed
    /// when it cannot, so a live pipe shows each event at once while a file stays buffered.
    pub fn has_ready_data(&self) -> bool {
        self.pieces.as_ref().is_some_and(|pieces| !pieces.is_empty())
            || !self.ahead.is_empty()
            || !self.reader.buffer().is_empty()
    }
}

/// The frames of a document cut by `document::split`, as lines: the rest of a document cut short
/// is the last one, unreadable, on one line.
fn pieces(split: document::Split) -> VecDeque<Piece> {
    let mut pieces: VecDeque<Piece> = split
        .pieces
        .into_iter()
        .map(|piece| Piece {
            line: piece.line,
            text: piece.text.into_bytes(),
            unreadable: None,
        })
        .collect();
    if let Some(broken) = split.broken {
        pieces.push_back(Piece {
            line: broken.line,
            text: broken.rest.into_bytes(),
            unreadable: Some(broken.reason),
        });
    }
    pieces
}
