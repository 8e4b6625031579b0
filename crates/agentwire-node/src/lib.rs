//! The Node addon behind the npm package `@agentwire/node`: agentwire's mapping inside a live
//! TypeScript host (T3 Code's server), fed the lines the agent writes and the lines the host
//! writes to it.
//!
//! The binding is thin: the library's [`agentwire::normalizer::Normalizer`] does the work
//! ([`Normalizer::received`], [`Normalizer::sent`], `finish`, `answer`), built with the options
//! `agentwire normalize` takes, and [`agentwire::source::Source::detect`] names the source. Events
//! cross into JavaScript as one JSON text per call, which `index.js` parses: measured faster than
//! building the objects here (the crate's README has the figures).

use agentwire::answer::Reply;
use agentwire::clock::ClockSource;
use agentwire::normalizer::{Normalizer, Options, ProblemKind};
use agentwire::source::{Source, unknown_name};
use agentwire_canonical::{ProviderKind, ProviderRuntimeEvent, RuntimeRequestId, RuntimeSessionId, WriteJson};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// What `new Normalizer(options)` takes: the options of `agentwire normalize`.
#[napi(object)]
pub struct NormalizerOptions {
    /// The source, as `--from` names it (`codex-app-server`, `claude`, `acp`, ...).
    pub from: String,
    /// The canonical session id; default: UUIDv5 of the first line pushed.
    pub session_id: Option<String>,
    /// The `provider` of every event (`codex`, `claudeAgent`, `cursor`, `acp`); default: the
    /// source's.
    pub provider_kind: Option<String>,
    /// Keep credentials in `raw` and payloads; by default they are `[redacted]`.
    pub keep_secrets: Option<bool>,
    /// Where `createdAt` comes from when a line carries no time: `recorded` (default, the same
    /// input gives the same output) or `wall` (live use).
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
    /// A tool's result, or the fields of an outcome beyond the decision.
    pub result: Option<serde_json::Value>,
    /// Why the request was refused.
    pub message: Option<String>,
}

/// A line that did not map cleanly. Its events, the `runtime.warning` reporting it included,
/// were returned all the same.
#[napi(object)]
#[derive(Clone)]
pub struct LineProblem {
    /// The line's number among the lines pushed (`received` and `sent` together), from 1.
    pub line: u32,
    /// `unreadable` (not UTF-8, not JSON, an `at` out of range), `undeclared` (a message the
    /// pinned schema does not declare) or `undecodable` (a declared message that does not fit).
    pub kind: String,
    /// The reason, naming the method and the JSON path where known.
    pub message: String,
}

/// One agent session's normalizer: the lines of one agent process in, canonical events out.
#[napi]
pub struct NativeNormalizer {
    inner: Box<dyn Normalizer + Send>,
    /// Lines pushed so far, for the problems' line numbers.
    lines: u32,
    problems: Vec<LineProblem>,
    events: Vec<ProviderRuntimeEvent>,
}

#[napi]
impl NativeNormalizer {
    #[napi(constructor)]
    pub fn new(options: NormalizerOptions) -> Result<Self> {
        let source: Source = options.from.parse().map_err(Error::from_reason)?;
        let session_id = options
            .session_id
            .map(|id| RuntimeSessionId::new(id).map_err(|err| Error::from_reason(format!("sessionId: {err}"))))
            .transpose()?;
        let provider = options.provider_kind.map(|kind| provider_kind(&kind)).transpose()?;
        let clock = match options.clock.as_deref() {
            None | Some("recorded") => ClockSource::Recorded,
            Some("wall") => ClockSource::Wall,
            Some(other) => return Err(Error::from_reason(unknown_name("clock", other, &["recorded", "wall"]))),
        };
        let options = Options {
            session_id,
            provider,
            clock,
            keep_secrets: options.keep_secrets.unwrap_or(false),
        };
        if !options.keep_secrets {
            agentwire::secrets::prepare();
        }
        Ok(NativeNormalizer {
            inner: source.normalizer(options),
            lines: 0,
            problems: Vec::new(),
            events: Vec::new(),
        })
    }

    /// A line the agent wrote (its stdout): the events as one JSON array text.
    #[napi]
    pub fn received(&mut self, line: String, at: Option<f64>) -> Result<String> {
        self.push(&line, at, Direction::Received)?;
        Ok(self.take_json())
    }

    /// A line the host wrote to the agent (its stdin): the events as one JSON array text.
    #[napi]
    pub fn sent(&mut self, line: String, at: Option<f64>) -> Result<String> {
        self.push(&line, at, Direction::Sent)?;
        Ok(self.take_json())
    }

    /// Settles what is still open: the events as one JSON array text.
    #[napi]
    pub fn finish(&mut self) -> String {
        self.inner.finish(&mut self.events);
        self.take_json()
    }

    /// The provider-native reply to an open request, as the line to write to the agent's stdin.
    #[napi]
    pub fn answer(&self, answer: AnswerOptions) -> Result<String> {
        let request =
            RuntimeRequestId::new(answer.request_id).map_err(|err| Error::from_reason(format!("requestId: {err}")))?;
        let reply = Reply {
            decision: answer.decision.parse().map_err(Error::from_reason)?,
            answers: answer.answers,
            result: answer.result,
            message: answer.message,
        };
        let frame = self
            .inner
            .answer(&request, &reply)
            .map_err(|err| Error::from_reason(err.to_string()))?;
        serde_json::to_string(&frame.frame).map_err(|err| Error::from_reason(err.to_string()))
    }

    /// The problems of the lines pushed so far, in order.
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

impl NativeNormalizer {
    /// Maps one line; a line that did not map cleanly is recorded in `problems` (its events
    /// are kept). Throws only for a call that cannot be a line's time: `at` not an integer.
    fn push(&mut self, line: &str, at: Option<f64>, direction: Direction) -> Result<()> {
        self.lines = self.lines.saturating_add(1);
        let at = at
            .map(millis)
            .transpose()
            .map_err(|reason| Error::new(Status::InvalidArg, format!("line {}: {reason}", self.lines)))?;
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

    /// The pending events as one JSON array text, each written as `agentwire normalize` writes
    /// it.
    fn take_json(&mut self) -> String {
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

/// `at` as Unix milliseconds: a JavaScript number that is an integer (`Date.now()`).
fn millis(at: f64) -> std::result::Result<i64, String> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if at.fract() != 0.0 || !(-SAFE..=SAFE).contains(&at) {
        return Err(format!("`at` must be an integer of Unix milliseconds, got {at}"));
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
            Error::from_reason(unknown_name("provider kind", name, &known))
        })
}

/// The source of an agent's first lines, as `--from` names it; `null` when no line is a
/// message of a known source.
#[napi]
pub fn detect(lines: Vec<String>) -> Option<String> {
    Source::detect(lines.iter().map(String::as_str)).map(|(source, _)| source.name().to_string())
}
