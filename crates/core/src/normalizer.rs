//! The one small trait every source's normalizer implements.

use agentwire_canonical::{ProviderKind, ProviderRuntimeEvent, RuntimeRequestId, RuntimeSessionId};

use crate::answer::{AnswerError, Reply, ReplyFrame};
use crate::clock::ClockSource;
use crate::frame::{Direction, Frame, FrameError, LineFormat};

/// Why a line did not map cleanly. The events, including the `runtime.warning` that reports
/// it, were emitted anyway; a host logs this with the line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// How bad it is, for the host's exit status.
    pub kind: ProblemKind,
    /// What went wrong, naming the method and the JSON path where known.
    pub message: String,
}

/// How bad a [`Problem`] is for a host deciding its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// The line could not be read at all: not UTF-8, not JSON, not a transcript record.
    Unreadable,
    /// A message whose method or type the pinned schema does not declare (a newer provider).
    Undeclared,
    /// A declared message whose payload does not fit the pinned schema.
    Undecodable,
}

impl Problem {
    /// A problem of `kind`, described by `message`.
    pub fn new(kind: ProblemKind, message: impl Into<String>) -> Self {
        Problem {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

/// Turns one source's frames into canonical events.
///
/// Events are appended to `out` so a host reuses one buffer for a whole stream. Every frame from
/// the provider yields at least one event whose `raw.payload` is that message; frames the client
/// sent yield events only where a mapping uses them. Nothing is dropped: what cannot be decoded
/// becomes `runtime.warning` with the raw message.
///
/// `Send` is a supertrait so `Box<dyn Normalizer>` is `Send` as it is: a host may move a
/// normalizer to whichever thread serves the stream (a Node addon's object, an async task), and
/// a source whose state could not cross threads does not compile.
pub trait Normalizer: Send {
    /// Maps one frame; `Err` says why it did not decode (a `runtime.warning` was emitted).
    fn push(&mut self, frame: &Frame<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> Result<(), Problem>;

    /// Reports a line that is not a frame at all (not JSON, not a record): a `runtime.warning`
    /// with the line in `detail` and no `raw`.
    fn push_unreadable(&mut self, line: &str, reason: &str, out: &mut Vec<ProviderRuntimeEvent>);

    /// Maps one input line in `format`: a frame, or an unreadable line.
    fn push_line(
        &mut self,
        line: &str,
        format: LineFormat,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> Result<(), Problem> {
        push_read(self, line, Frame::parse(line, format), out)
    }

    /// Maps one input line in `format` as read, bytes that may not be UTF-8: such a line is
    /// reported as unreadable (its text, lossily decoded, in the `runtime.warning`'s `detail`).
    fn push_bytes(
        &mut self,
        line: &[u8],
        format: LineFormat,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> Result<(), Problem> {
        match std::str::from_utf8(line) {
            Ok(line) => self.push_line(line, format, out),
            Err(err) => {
                let reason = format!("not UTF-8: {err}");
                self.push_unreadable(&String::from_utf8_lossy(line), &reason, out);
                Err(Problem::new(ProblemKind::Unreadable, reason))
            }
        }
    }

    /// Maps one line the agent wrote (its stdout), the bare message as the program printed it,
    /// received at `at` (Unix milliseconds) when the host knows when. A live host holds no
    /// transcript records: the events are those [`Normalizer::push_line`] gives for the record
    /// `{"dir":"in","ts":at,"msg":line}`, but for two things that make a live session a live
    /// one. The default session id is a fresh UUIDv7 (every session of a host begins with the
    /// same `initialize`; [`Options::session_id`] fixes it), and a line with no `at` and no time
    /// of its own is stamped with the wall clock as it arrives, so its events come back from
    /// this call: nothing waits for a time that a stream without times never gives. Replaying a
    /// file ([`Normalizer::push_line`]) keeps the derived id and the recorded clock. An
    /// unreadable line is reported as `push_line` reports it.
    fn received(&mut self, line: &str, at: Option<i64>, out: &mut Vec<ProviderRuntimeEvent>) -> Result<(), Problem> {
        self.live(at);
        push_read(self, line, Frame::parse_message(line, Direction::In, at), out)
    }

    /// Maps one line the host wrote to the agent (its stdin), sent at `at`: as
    /// [`Normalizer::received`], for the record `{"dir":"out","ts":at,"msg":line}`. A reply built
    /// by [`Normalizer::answer`] resolves its request once it is pushed here.
    fn sent(&mut self, line: &str, at: Option<i64>, out: &mut Vec<ProviderRuntimeEvent>) -> Result<(), Problem> {
        self.live(at);
        push_read(self, line, Frame::parse_message(line, Direction::Out, at), out)
    }

    /// Readies the normalizer for a live host's line given at `at` (what
    /// [`Normalizer::received`] and [`Normalizer::sent`] do first): a fresh session id unless one
    /// is fixed, the wall clock for a line with no time.
    fn live(&mut self, at: Option<i64>);

    /// Settles what is still open at the end of the stream: a turn never completed gets
    /// `turn.aborted`, open items complete as `failed`, open requests resolve as `cancelled`.
    fn finish(&mut self, out: &mut Vec<ProviderRuntimeEvent>);

    /// What the `createdAt` of the events so far comes from: the stream's own times, the host's
    /// clock, a UUIDv7 id, the input file's modification time ([`Options::with_file_modified`]),
    /// or nothing (the Unix epoch). A page or an index says it beside the session's start.
    fn time_source(&mut self) -> crate::clock::TimeSource;

    /// The way back: the provider-native frame answering the open request `request` (the
    /// `requestId` of its `request.opened`) with `reply`, as the client writes it to the agent's
    /// stdin (in a transcript, the record's bare `msg`), flagged when the request did not offer
    /// the decision its reply type allows. The request stays open: the reply, once sent and
    /// pushed like any other frame, resolves it.
    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError>;
}

/// Maps `line` read as `frame`, or reports why it is not one: a `runtime.warning` with the line
/// in `detail`, and the reason as an [`ProblemKind::Unreadable`] problem.
fn push_read<N: Normalizer + ?Sized>(
    normalizer: &mut N,
    line: &str,
    frame: Result<Frame<'_>, FrameError>,
    out: &mut Vec<ProviderRuntimeEvent>,
) -> Result<(), Problem> {
    match frame {
        Ok(frame) => normalizer.push(&frame, out),
        Err(err) => {
            let reason = err.to_string();
            normalizer.push_unreadable(line, &reason, out);
            Err(Problem::new(ProblemKind::Unreadable, reason))
        }
    }
}

/// `Box<dyn Normalizer>` is `Send`, checked where it is promised rather than by a test.
const _: fn() = || {
    fn assert_send<T: Send + ?Sized>() {}
    assert_send::<Box<dyn Normalizer>>();
};

/// What a host may choose; the defaults give byte-identical output for the same input.
///
/// Built from [`Options::default`] with the `with_*` methods, so an option added later breaks no
/// host: `Options::default().with_session_id(id).with_keep_secrets(true)`.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// The canonical session id; default: [`crate::ids::default_session`] of the first line.
    pub session_id: Option<RuntimeSessionId>,
    /// The `provider` of every event; default: the source's own kind.
    pub provider: Option<ProviderKind>,
    /// Where `createdAt` falls back to when a frame carries no time.
    pub clock: ClockSource,
    /// Keep credentials (tokens, API keys, `Authorization` headers) in `raw` and payloads; by
    /// default they are replaced by `[redacted]` ([`crate::secrets`]).
    pub keep_secrets: bool,
    /// The input file's modification time (Unix milliseconds): the session's time when its
    /// lines give none and no id says one ([`crate::clock::TimeSource::FileModified`]).
    pub file_modified_ms: Option<i64>,
}

impl Options {
    /// The canonical session id of every event, instead of the one derived from the first line
    /// (a replayed file) or a fresh UUIDv7 (a live host); `None` keeps that default.
    pub fn with_session_id(mut self, session_id: impl Into<Option<RuntimeSessionId>>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// The `provider` of every event, instead of the source's own kind; `None` keeps that.
    pub fn with_provider(mut self, provider: impl Into<Option<ProviderKind>>) -> Self {
        self.provider = provider.into();
        self
    }

    /// Where `createdAt` falls back to when a frame carries no time.
    pub fn with_clock(mut self, clock: ClockSource) -> Self {
        self.clock = clock;
        self
    }

    /// The input file's modification time, in Unix milliseconds: `createdAt` when nothing in
    /// the stream gives a time (`agentwire import` and `show` pass it; `normalize` does not, so
    /// its output depends on the input's bytes alone).
    pub fn with_file_modified(mut self, ms: impl Into<Option<i64>>) -> Self {
        self.file_modified_ms = ms.into();
        self
    }

    /// Whether credentials stay in `raw` and payloads (by default they are redacted).
    pub fn with_keep_secrets(mut self, keep_secrets: bool) -> Self {
        self.keep_secrets = keep_secrets;
        self
    }
}

/// Decodes one source's frames into its generated types, for `agentwire conform`: strict, every
/// line that does not fit is an error naming the method, the JSON path and the reason.
pub trait Conformer {
    /// Decodes `frame`, remembering what later frames need (a request's method, for its
    /// response); the error says why the frame does not fit.
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem>;
}
