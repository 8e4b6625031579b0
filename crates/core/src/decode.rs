//! Payload decoding that reports where in the payload a value did not fit.

use agentwire_protocol::tagged::TagDecodeError;
use agentwire_protocol::{DecodeError, PayloadDecoder, PayloadError};

use crate::frame::Frame;
use crate::normalizer::{Conformer, Problem, ProblemKind};

/// The one reading of a JSON-RPC decode error (codex app-server, ACP) as a problem kind: a method
/// the pinned schema does not know is a newer provider (`Undeclared`); a message without its
/// method or id, or with params that do not fit, is `Undecodable`.
pub fn method_problem_kind(err: &DecodeError) -> ProblemKind {
    match err {
        DecodeError::UnknownMethod { .. } => ProblemKind::Undeclared,
        DecodeError::NoMethod
        | DecodeError::MissingId { .. }
        | DecodeError::MissingParams { .. }
        | DecodeError::UnexpectedParams { .. }
        | DecodeError::Payload { .. } => ProblemKind::Undecodable,
    }
}

/// The one reading of a tag-first decode error (Claude, codex exec, rollout) as a problem kind:
/// a tag the pinned schema does not know, on the message or on a union nested in its payload, is
/// a newer provider (`Undeclared`); a message without
/// its tag, one that is not an object, or a payload that does not fit its tag's type is
/// `Undecodable`.
pub fn tag_problem_kind(err: &TagDecodeError) -> ProblemKind {
    match err {
        TagDecodeError::UnknownTag { .. } => ProblemKind::Undeclared,
        TagDecodeError::Payload { error, .. } if error.unknown_tag.is_some() => ProblemKind::Undeclared,
        TagDecodeError::MissingTag { .. } | TagDecodeError::NotAnObject { .. } | TagDecodeError::Payload { .. } => {
            ProblemKind::Undecodable
        }
    }
}

/// A tag-first decode error as the problem a host sees: its kind ([`tag_problem_kind`]) and its
/// text, which names the tag and the JSON path where the line did not fit.
pub fn tag_problem(err: &TagDecodeError) -> Problem {
    Problem::new(tag_problem_kind(err), err.to_string())
}

/// The strict decoder of `agentwire conform` for a source whose decoding keeps no state between
/// lines: its decode function, the typed value dropped.
pub struct Strict<T>(pub fn(&Frame<'_>) -> Result<T, Problem>);

impl<T> Conformer for Strict<T> {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem> {
        (self.0)(frame).map(drop)
    }
}

/// A [`PayloadDecoder`] that reports the JSON path of a failure (`.thread.status.type`), so a
/// decode error names the method and the exact field. Payloads decode with plain serde_json
/// first; only one that fails is decoded again with path tracking, which costs as much as the
/// decode itself and is wasted on the payloads that fit.
#[derive(Clone, Copy, Debug, Default)]
pub struct PathTracking;

impl PayloadDecoder for PathTracking {
    fn decode<T: serde::de::DeserializeOwned>(&mut self, json: &str) -> Result<T, PayloadError> {
        if let Ok(value) = serde_json::from_str(json) {
            return Ok(value);
        }
        let mut deserializer = serde_json::Deserializer::from_str(json);
        serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
            let path = err.path().to_string();
            PayloadError::new(
                if path == "." { String::new() } else { path },
                err.into_inner().to_string(),
            )
        })
    }
}
