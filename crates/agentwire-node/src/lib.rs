//! The Node addon behind the npm package `@agentwire/node`: agentwire's mapping inside a live
//! TypeScript host (T3 Code's server), fed the lines the agent writes and the lines the host
//! writes to it.
//!
//! The binding is thin: the library's [`agentwire::normalizer::Normalizer`] does the work
//! ([`Normalizer::received`], [`Normalizer::sent`], `finish`, `answer`), built with the options
//! `agentwire normalize` takes, [`agentwire::document::split`] cuts a whole exported session
//! (`opencode export`) into frames as that command does, and
//! [`agentwire::source::Source::detect`] names the source. Events
//! cross into JavaScript as one JSON text per call, which `index.js` parses: measured faster than
//! building the objects here (the crate's README has the figures).
//!
//! Every error it throws carries a `code` a host can branch on ([`Code`], `index.d.ts`'s
//! `ErrorCode`): napi-rs gives a thrown error the status it was built with as its `code`, and
//! this crate builds its errors with its own.

use agentwire::answer::{AnswerError, Reply};
use agentwire::clock::{ClockSource, TIMES, rfc3339_millis};
use agentwire::document;
use agentwire::frame::LineFormat;
use agentwire::normalizer::{Normalizer, Options, ProblemKind};
use agentwire::snapshot::Fold;
use agentwire::source::{Source, unknown_name};
use agentwire_canonical::{
    ProviderKind, ProviderRuntimeEvent, RuntimeRequestId, RuntimeSessionId, SnapshotChange, WriteJson,
};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The `code` of an error the addon throws, one per thing a host can do about it (`index.d.ts`
/// declares the same names as `ErrorCode`; the README lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// `new Normalizer(options)`: an unknown `from`, `providerKind` or `clock`, an invalid
    /// `sessionId`.
    BadOption,
    /// `at` is not Unix milliseconds: not an integer, a `Date`, a time before 1973 (seconds
    /// passed by mistake) or after the year 9999.
    BadAt,
    /// `answer`: no request with this `requestId` was opened in the session (or it is no id).
    UnknownRequest,
    /// `answer`: the request was answered or settled already.
    AlreadyAnswered,
    /// `answer`: the request did not offer the decision, and its reply type cannot carry it.
    NotOffered,
    /// `answer`: an unknown decision, or `answers` or `result` missing, ill-typed, or given to a
    /// reply that takes none.
    BadAnswer,
    /// `answer`: the source is a record nobody answers (`codex-exec`, `codex-rollout`,
    /// `claude-session`, `claude`).
    Unanswerable,
    /// `fold`: a line is not a canonical event.
    BadEvent,
    /// `document`: the source has no document form; its messages are lines, each given to
    /// `received` or `sent`.
    NoDocumentForm,
    /// `document` on a normalizer that was given anything before (a document, a line, `finish`),
    /// or `received` or `sent` after `document`: a document is a whole session, read by a
    /// normalizer of its own.
    AlreadyFed,
}

impl Code {
    /// Every code, in `index.d.ts`'s order.
    pub const ALL: &'static [Code] = &[
        Code::BadOption,
        Code::BadAt,
        Code::UnknownRequest,
        Code::AlreadyAnswered,
        Code::NotOffered,
        Code::BadAnswer,
        Code::Unanswerable,
        Code::BadEvent,
        Code::NoDocumentForm,
        Code::AlreadyFed,
    ];

    /// The error's `code`, as JavaScript reads it.
    pub fn name(self) -> &'static str {
        match self {
            Code::BadOption => "AGENTWIRE_BAD_OPTION",
            Code::BadAt => "AGENTWIRE_BAD_AT",
            Code::UnknownRequest => "AGENTWIRE_UNKNOWN_REQUEST",
            Code::AlreadyAnswered => "AGENTWIRE_ALREADY_ANSWERED",
            Code::NotOffered => "AGENTWIRE_NOT_OFFERED",
            Code::BadAnswer => "AGENTWIRE_BAD_ANSWER",
            Code::Unanswerable => "AGENTWIRE_UNANSWERABLE",
            Code::BadEvent => "AGENTWIRE_BAD_EVENT",
            Code::NoDocumentForm => "AGENTWIRE_NO_DOCUMENT_FORM",
            Code::AlreadyFed => "AGENTWIRE_ALREADY_FED",
        }
    }

    /// The code of an answer that cannot be built.
    fn of_answer(err: &AnswerError) -> Code {
        match err {
            AnswerError::Unknown(_) => Code::UnknownRequest,
            AnswerError::AlreadyResolved(_) => Code::AlreadyAnswered,
            AnswerError::NotOffered { .. } => Code::NotOffered,
            AnswerError::MissingAnswers { .. } | AnswerError::MissingResult { .. } | AnswerError::IllTyped { .. } => {
                Code::BadAnswer
            }
            AnswerError::Unanswerable(_) => Code::Unanswerable,
        }
    }

    /// An error of this code.
    fn error(self, reason: impl Into<String>) -> Error<Code> {
        Error::new(self, reason.into())
    }
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.name()
    }
}

/// What a call gives, or the error it throws with its [`Code`].
type Result<T> = std::result::Result<T, Error<Code>>;

/// What `new Normalizer(options)` takes: the options of `agentwire normalize`.
#[napi(object)]
pub struct NormalizerOptions {
    /// The source, as `--from` names it (`codex-app-server`, `claude`, `acp`, ...).
    pub from: String,
    /// The canonical session id; default: a fresh UUIDv7 for each normalizer (every session of
    /// a host begins with the same `initialize`: an id derived from it would be shared).
    pub session_id: Option<String>,
    /// The `provider` of every event (`codex`, `claudeAgent`, `cursor`, `acp`); default: the
    /// source's.
    pub provider_kind: Option<String>,
    /// Keep credentials in `raw` and payloads; by default they are `[redacted]`.
    pub keep_secrets: Option<bool>,
    /// `agentwire normalize --clock`'s `recorded` (default) or `wall`. It changes nothing live:
    /// a line given `at` is stamped with it, and a line given none that carries no time of its
    /// own with the wall clock as it arrives, so its events come back from that very call.
    pub clock: Option<String>,
}

/// What `answer` takes: the decision in `request.resolved`'s vocabulary and what some requests
/// need besides it (as `agentwire answer`'s flags).
#[napi(object)]
pub struct AnswerOptions {
    /// The `requestId` of the `request.opened` to answer.
    pub request_id: String,
    /// `accept`, `acceptForSession`, `decline`, `cancel`, `answered` or `error`.
    pub decision: String,
    /// Answers to questions (as `user-input.resolved` carries them), or an MCP form's content.
    pub answers: Option<serde_json::Value>,
    /// A tool's result, or the fields of an outcome beyond the decision (a Claude allow's
    /// `updatedInput` and `updatedPermissions`); a reply that takes none refuses one.
    pub result: Option<serde_json::Value>,
    /// Why the request was refused.
    pub message: Option<String>,
}

/// A line that did not map cleanly. Its events, the `runtime.warning` reporting it included,
/// were returned all the same.
#[napi(object)]
#[derive(Clone)]
pub struct LineProblem {
    /// The line's number among the lines pushed (`received` and `sent` together), from 1; for a
    /// frame of a document, the document's line where the frame begins (as `agentwire normalize`
    /// names it).
    pub line: u32,
    /// `unreadable` (not JSON), `undeclared` (a message the pinned schema does not declare) or
    /// `undecodable` (a declared message that does not fit).
    pub kind: String,
    /// The reason, naming the method and the JSON path where known.
    pub message: String,
}

/// One agent session's normalizer: the lines of one agent process, or the document of one
/// exported session, in; canonical events out.
#[napi]
pub struct NativeNormalizer {
    inner: Box<dyn Normalizer + Send>,
    source: Source,
    /// What the normalizer was given so far: a document is a whole session and comes alone.
    fed: Fed,
    /// Lines pushed so far, for the problems' line numbers.
    lines: u32,
    problems: Vec<LineProblem>,
    events: Vec<ProviderRuntimeEvent>,
    /// Every event handed over so far, folded: what `snapshot()` gives.
    fold: Fold,
    /// What the last call's events changed in the snapshot.
    change: SnapshotChange,
}

#[napi]
impl NativeNormalizer {
    #[napi(constructor)]
    pub fn new(options: NormalizerOptions) -> Result<Self> {
        let source: Source = options.from.parse().map_err(|err: String| Code::BadOption.error(err))?;
        let session_id = options
            .session_id
            .map(|id| RuntimeSessionId::new(id).map_err(|err| Code::BadOption.error(format!("sessionId: {err}"))))
            .transpose()?;
        let provider = options.provider_kind.map(|kind| provider_kind(&kind)).transpose()?;
        let clock = match options.clock.as_deref() {
            None | Some("recorded") => ClockSource::Recorded,
            Some("wall") => ClockSource::Wall,
            Some(other) => {
                return Err(Code::BadOption.error(unknown_name("clock", other, &["recorded", "wall"])));
            }
        };
        let options = Options::default()
            .with_session_id(session_id)
            .with_provider(provider)
            .with_clock(clock)
            .with_keep_secrets(options.keep_secrets.unwrap_or(false));
        if !options.keep_secrets {
            agentwire::secrets::prepare();
        }
        Ok(NativeNormalizer {
            inner: source.normalizer(options),
            source,
            fed: Fed::Nothing,
            lines: 0,
            problems: Vec::new(),
            events: Vec::new(),
            fold: Fold::default(),
            change: agentwire::snapshot::unchanged(),
        })
    }

    /// A line the agent wrote (its stdout): the events as one JSON array text.
    #[napi]
    pub fn received(&mut self, line: String, at: Option<Either<f64, Unknown<'_>>>) -> Result<String> {
        self.push(&line, at, Direction::Received)?;
        Ok(self.take_json())
    }

    /// A line the host wrote to the agent (its stdin): the events as one JSON array text.
    #[napi]
    pub fn sent(&mut self, line: String, at: Option<Either<f64, Unknown<'_>>>) -> Result<String> {
        self.push(&line, at, Direction::Sent)?;
        Ok(self.take_json())
    }

    /// A whole document of a source that has a document form (an `opencode export`), replayed
    /// as `agentwire normalize` replays the file: cut into frames by [`document::split`], each
    /// pushed as a bare line (the session id derived from the first frame unless one was given,
    /// the recorded clock unless `clock` says `wall`), a frame that did not map cleanly recorded
    /// in `problems` with the document's line, the unreadable rest of a document cut short
    /// reported as an unreadable line after the events read before it, and the session settled
    /// (`finish`). The events as one JSON array text.
    #[napi]
    pub fn document(&mut self, text: String) -> Result<String> {
        let Some(shape) = self.source.spec().files.document.as_ref() else {
            return Err(Code::NoDocumentForm.error(format!(
                "{} has no document form: give each of its lines to received or sent",
                self.source.name()
            )));
        };
        match self.fed {
            Fed::Nothing => {}
            Fed::Lines => {
                return Err(Code::AlreadyFed.error(
                    "document: this normalizer was given lines or finished already; a document is \
                     a whole session: read it with a new Normalizer",
                ));
            }
            Fed::Document => {
                return Err(Code::AlreadyFed.error(
                    "document: this normalizer read a document already; a document is a whole \
                     session: read each with a new Normalizer",
                ));
            }
        }
        self.fed = Fed::Document;
        let split = document::split(&text, shape);
        for piece in split.pieces {
            let pushed = self.inner.push_line(&piece.text, LineFormat::Bare, &mut self.events);
            if let Err(problem) = pushed {
                self.problem(piece.line, problem.kind, problem.message);
            }
        }
        if let Some(broken) = split.broken {
            self.inner
                .push_unreadable(&broken.rest, &broken.reason, &mut self.events);
            self.problem(broken.line, ProblemKind::Unreadable, broken.reason);
        }
        self.inner.finish(&mut self.events);
        Ok(self.take_json())
    }

    /// Settles what is still open: the events as one JSON array text. After `document`, which
    /// settled its session, nothing.
    #[napi]
    pub fn finish(&mut self) -> String {
        match self.fed {
            Fed::Document => {}
            Fed::Nothing | Fed::Lines => {
                self.fed = Fed::Lines;
                self.inner.finish(&mut self.events);
            }
        }
        self.take_json()
    }

    /// The provider-native reply to an open request, as the line to write to the agent's stdin.
    #[napi]
    pub fn answer(&self, answer: AnswerOptions) -> Result<String> {
        let request = RuntimeRequestId::new(answer.request_id)
            .map_err(|err| Code::UnknownRequest.error(format!("requestId: {err}")))?;
        let reply = Reply {
            decision: answer
                .decision
                .parse()
                .map_err(|err: String| Code::BadAnswer.error(err))?,
            answers: answer.answers,
            result: answer.result,
            message: answer.message,
        };
        let frame = self
            .inner
            .answer(&request, &reply)
            .map_err(|err| Code::of_answer(&err).error(err.to_string()))?;
        Ok(serde_json::to_string(&frame.frame).expect("a JSON value is written as text"))
    }

    /// The session as a UI draws it, every event handed over so far folded in, as JSON text
    /// (`null` before the first event).
    #[napi]
    pub fn snapshot(&self) -> String {
        snapshot_json(&self.fold)
    }

    /// What the last call's events (`received`, `sent`, `document` or `finish`) changed in the
    /// snapshot, as JSON text.
    #[napi]
    pub fn changes(&self) -> String {
        serde_json::to_string(&self.change).expect("a change is written as JSON")
    }

    /// The problems of the lines (or the document's frames) pushed so far, in order.
    #[napi(getter)]
    pub fn problems(&self) -> Vec<LineProblem> {
        self.problems.clone()
    }
}

/// Which way a line travelled, as the host saw it.
#[derive(Clone, Copy)]
enum Direction {
    Received,
    Sent,
}

/// What a normalizer was given so far.
#[derive(Clone, Copy)]
enum Fed {
    Nothing,
    /// Lines (`received`, `sent`), or `finish`.
    Lines,
    /// A whole document, settled.
    Document,
}

impl NativeNormalizer {
    /// Maps one line; a line that did not map cleanly is recorded in `problems` (its events
    /// are kept). Throws only for a call that cannot be served: after a document (its session is
    /// whole and settled), or with an `at` that is not Unix milliseconds ([`millis`]); such a call
    /// pushes nothing and numbers no line.
    fn push(&mut self, line: &str, at: Option<Either<f64, Unknown<'_>>>, direction: Direction) -> Result<()> {
        if let Fed::Document = self.fed {
            let call = match direction {
                Direction::Received => "received",
                Direction::Sent => "sent",
            };
            return Err(Code::AlreadyFed.error(format!(
                "{call}: this normalizer read a whole document, its session settled; give lines to a \
                 new Normalizer"
            )));
        }
        let number = self.lines.saturating_add(1);
        let at = at
            .map(millis)
            .transpose()
            .map_err(|reason| Code::BadAt.error(format!("line {number}: {reason}")))?;
        self.lines = number;
        self.fed = Fed::Lines;
        // A host splitting a stream on line ends may hand over the empty text after the last
        // one: `agentwire normalize` ignores empty lines too.
        if line.trim().is_empty() {
            return Ok(());
        }
        let pushed = match direction {
            Direction::Received => self.inner.received(line, at, &mut self.events),
            Direction::Sent => self.inner.sent(line, at, &mut self.events),
        };
        if let Err(problem) = pushed {
            self.problems.push(LineProblem {
                line: self.lines,
                kind: problem_kind(problem.kind).into(),
                message: problem.message,
            });
        }
        Ok(())
    }

    /// Records the problem of a document's frame that begins on the document's `line`.
    fn problem(&mut self, line: usize, kind: ProblemKind, message: String) {
        self.problems.push(LineProblem {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            kind: problem_kind(kind).into(),
            message,
        });
    }

    /// The pending events as one JSON array text, each written as `agentwire normalize` writes
    /// it.
    fn take_json(&mut self) -> String {
        self.change = self.fold.apply_all(&self.events);
        let mut text = vec![b'['];
        for (index, event) in self.events.drain(..).enumerate() {
            if index > 0 {
                text.push(b',');
            }
            event.write_json(&mut text).expect("writing into a Vec cannot fail");
        }
        text.push(b']');
        String::from_utf8(text).expect("events are written as UTF-8")
    }
}

/// The earliest `at` taken: 1973-03-03T09:46:40Z, 10^11 ms. A live host's line arrives now; a
/// smaller number is a time in seconds passed by mistake (`Date.now() / 1000` reads as January
/// 1970 in milliseconds, and seconds stay below 10^11 until the year 5138), not a line of 1972.
pub const EARLIEST_AT: i64 = 100_000_000_000;

/// `at` as Unix milliseconds: a JavaScript number that is an integer (`Date.now()`), from
/// [`EARLIEST_AT`] to the end of the year 9999 (the last time `createdAt` can carry); anything
/// else is refused with what it was.
fn millis(at: Either<f64, Unknown<'_>>) -> std::result::Result<i64, String> {
    const EXPECTED: &str = "`at` must be Unix milliseconds (Date.now())";
    let at = match at {
        Either::A(at) => at,
        Either::B(other) => {
            let what = match other.get_type() {
                Ok(ValueType::Object) if other.is_date().unwrap_or(false) => "a Date: pass date.getTime()",
                Ok(ValueType::String) => "a string",
                Ok(ValueType::Boolean) => "a boolean",
                Ok(ValueType::Object) => "an object",
                Ok(ValueType::Function) => "a function",
                Ok(ValueType::Symbol) => "a symbol",
                Ok(_) | Err(_) => "a value that is no number",
            };
            return Err(format!("{EXPECTED}, got {what}"));
        }
    };
    if at.fract() != 0.0 || !at.is_finite() {
        return Err(format!("{EXPECTED}, an integer, got {at}"));
    }
    // Within the i64 range here: `TIMES` and `EARLIEST_AT` bound what is taken.
    if at < EARLIEST_AT as f64 {
        let reads_as = if at >= *TIMES.start() as f64 {
            rfc3339_millis(at as i64)
        } else {
            "a time before the year 0000".to_string()
        };
        return Err(format!(
            "{EXPECTED}, got {at}, which reads as {reads_as}: seconds? (an `at` before \
             1973-03-03, 10^11 ms, is taken for one)"
        ));
    }
    if at > *TIMES.end() as f64 {
        let at = if at < 1e21 { format!("{at}") } else { format!("{at:e}") };
        return Err(format!(
            "{EXPECTED}, got {at}, which is after the year 9999: microseconds or nanoseconds?"
        ));
    }
    Ok(at as i64)
}

fn problem_kind(kind: ProblemKind) -> &'static str {
    match kind {
        ProblemKind::Unreadable => "unreadable",
        ProblemKind::Undeclared => "undeclared",
        ProblemKind::Undecodable => "undecodable",
    }
}

fn provider_kind(name: &str) -> Result<ProviderKind> {
    ProviderKind::ALL
        .iter()
        .copied()
        .find(|kind| kind.as_str() == name)
        .ok_or_else(|| {
            let known: Vec<&str> = ProviderKind::ALL.iter().map(|kind| kind.as_str()).collect();
            Code::BadOption.error(unknown_name("provider kind", name, &known))
        })
}

/// The snapshot of canonical events a host already has (the JSONL `agentwire normalize` or
/// `import` wrote), as JSON text: the same fold as a normalizer's `snapshot()`. A line that is
/// not a canonical event throws `AGENTWIRE_BAD_EVENT` naming it; blank lines are skipped.
#[napi]
pub fn fold(jsonl: String) -> Result<String> {
    let mut fold = Fold::default();
    for (index, line) in jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let event: ProviderRuntimeEvent = serde_json::from_str(line)
            .map_err(|err| Code::BadEvent.error(format!("line {}: not a canonical event: {err}", index + 1)))?;
        fold.apply(&event);
    }
    Ok(snapshot_json(&fold))
}

/// A fold's snapshot as JSON text, `null` before any event.
fn snapshot_json(fold: &Fold) -> String {
    let mut text = Vec::new();
    match fold.snapshot() {
        Some(snapshot) => snapshot.write_json(&mut text).expect("writing into a Vec cannot fail"),
        None => text.extend_from_slice(b"null"),
    }
    String::from_utf8(text).expect("a snapshot is written as UTF-8")
}

/// The source of an agent's first lines, as `--from` names it; else, when the lines are a whole
/// document a source reads (an `opencode export`, pretty-printed or on one line), that source;
/// `null` when neither.
#[napi]
pub fn detect(lines: Vec<String>) -> Option<String> {
    Source::detect(lines.iter().map(String::as_str))
        .map(|(source, _)| source)
        .or_else(|| Source::detect_document(&lines.join("\n")).map(|(source, _)| source))
        .map(|source| source.name().to_string())
}

/// Every source `from` takes, as `agentwire normalize --from` names them (`Source::ALL`): what
/// `sources.d.ts`'s `Source` union (generated from the registry) lists, as the TypeScript harness
/// checks.
#[napi]
pub fn sources() -> Vec<String> {
    Source::ALL.iter().map(|source| source.name().to_string()).collect()
}

/// Every error `code` the addon throws ([`Code::ALL`]): what `index.d.ts`'s `ErrorCode` union
/// must list, as the TypeScript harness checks.
#[napi]
pub fn error_codes() -> Vec<String> {
    Code::ALL.iter().map(|code| code.name().to_string()).collect()
}
