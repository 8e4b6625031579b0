//! Claude frames -> typed messages ([`ClaudeStreamLine`]), for the normalizer and `conform`.

use agentwire_claude::{ClaudeStreamLine, TagDecodeError};

use crate::decode::PathTracking;
use crate::frame::Frame;
use crate::normalizer::{Conformer, Problem, ProblemKind};

/// Decodes one message; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<ClaudeStreamLine, Problem> {
    ClaudeStreamLine::decode(frame.msg.get(), &mut PathTracking).map_err(|err| {
        let kind = match &err {
            TagDecodeError::UnknownTag { .. } | TagDecodeError::MissingTag { .. } => ProblemKind::Undeclared,
            TagDecodeError::NotAnObject { .. } | TagDecodeError::Payload { .. } => ProblemKind::Undecodable,
        };
        Problem::new(kind, err.to_string())
    })
}

/// The strict decoder of `agentwire conform --from claude|claude-control`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decoder;

impl Conformer for Decoder {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem> {
        decode(frame).map(|_| ())
    }
}
