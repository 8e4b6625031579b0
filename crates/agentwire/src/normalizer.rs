//! The one small trait every source's normalizer implements.

use agentwire_canonical::{ProviderKind, ProviderRuntimeEvent, RuntimeRequestId, RuntimeSessionId};

use crate::answer::{AnswerError, Reply, ReplyFrame};
use crate::clock::ClockSource;
use crate::frame::{Frame, LineFormat};

/// Why a line did not map cleanly. The events, including the `runtime.warning` that reports
/// it, were emitted anyway; a host logs this with the line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
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
pub trait Normalizer {
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
        match Frame::parse(line, format) {
            Ok(frame) => self.push(&frame, out),
            Err(err) => {
                let reason = err.to_string();
                self.push_unreadable(line, &reason, out);
                Err(Problem::new(ProblemKind::Unreadable, reason))
            }
        }
    }

    /// Settles what is still open at the end of the stream: a turn never completed gets
    /// `turn.aborted`, open items complete as `failed`, open requests resolve as `cancelled`.
    fn finish(&mut self, out: &mut Vec<ProviderRuntimeEvent>);

    /// The way back: the provider-native frame answering the open request `request` (the
    /// `requestId` of its `request.opened`) with `reply`, as the client writes it to the agent's
    /// stdin (in a transcript, the record's bare `msg`), flagged when the request did not offer
    /// the decision its reply type allows. The request stays open: the reply, once sent and
    /// pushed like any other frame, resolves it.
    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError>;
}

/// What a host may choose; the defaults give byte-identical output for the same input.
#[derive(Clone, Debug, Default)]
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
}

/// Decodes one source's frames into its generated types, for `agentwire conform`: strict, every
/// line that does not fit is an error naming the method, the JSON path and the reason.
pub trait Conformer {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem>;
}
