//! Rollout lines -> typed [`RolloutLine`]s, with the problem a host reports when one does not fit.

use agentwire_codex_rollout::{RolloutLine, TagDecodeError};

use crate::decode::{PathTracking, tag_problem_kind};
use crate::frame::Frame;
use crate::normalizer::{Conformer, Problem, ProblemKind};

/// Decodes one line: the line kind by `type`, then the payload its kind names (an `event_msg`'s
/// `EventMsg` by its own `type`), tracking JSON paths on failure.
pub fn decode(frame: &Frame<'_>) -> Result<RolloutLine, TagDecodeError> {
    RolloutLine::decode(frame.msg.get(), &mut PathTracking)
}

/// The problem a decoding error is: a line kind, `EventMsg`, response item or turn item the
/// pinned schema does not declare is `Undeclared`, anything else `Undecodable`.
pub fn problem(err: &TagDecodeError) -> Problem {
    let text = err.to_string();
    let kind = match err {
        // A nested union's unknown tag arrives as a payload error that says so.
        TagDecodeError::Payload { .. } if text.contains(": unknown `type`") => ProblemKind::Undeclared,
        TagDecodeError::UnknownTag { .. }
        | TagDecodeError::Payload { .. }
        | TagDecodeError::NotAnObject { .. }
        | TagDecodeError::MissingTag { .. } => tag_problem_kind(err),
    };
    Problem::new(kind, text)
}

/// The strict decoder of `agentwire conform --from codex-rollout`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decoder;

impl Conformer for Decoder {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem> {
        decode(frame).map(drop).map_err(|err| problem(&err))
    }
}
