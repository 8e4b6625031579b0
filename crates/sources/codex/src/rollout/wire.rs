//! Rollout lines -> typed [`RolloutLine`]s, with the problem a host reports when one does not fit.

use std::borrow::Cow;

use agentwire_codex_rollout::{RolloutLine, TagDecodeError};
use agentwire_protocol::tagged::Str;
use serde::Deserialize;
use serde_json::value::RawValue;

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::Problem;

/// Decodes one line: the line kind by `type`, then the payload its kind names (an `event_msg`'s
/// `EventMsg` by its own `type`), tracking JSON paths on failure.
pub fn decode(frame: &Frame<'_>) -> Result<RolloutLine, TagDecodeError> {
    RolloutLine::decode(frame.msg.get(), &mut PathTracking)
}

/// Decodes one frame's line, the error as the problem a host sees.
pub fn decode_line(frame: &Frame<'_>) -> Result<RolloutLine, Problem> {
    decode(frame).map_err(|err| tag_problem(&err))
}

/// A rollout line's envelope: its `payload` as written and its `timestamp`.
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(borrow)]
    pub(crate) payload: &'a RawValue,
    /// Borrowed unless it holds an escape.
    #[serde(borrow)]
    pub(crate) timestamp: Option<Cow<'a, str>>,
}

impl<'a> Envelope<'a> {
    /// The line's envelope: from the members the line's check found, or read with serde_json
    /// when it found none or they are not a plain envelope (a member given twice, a `timestamp`
    /// that is not a string), which serde_json then reports.
    pub(crate) fn of(frame: &Frame<'a>) -> serde_json::Result<Self> {
        match frame.fields().and_then(Self::from_members) {
            Some(envelope) => Ok(envelope),
            None => serde_json::from_str(frame.msg.get()),
        }
    }

    fn from_members(members: impl Iterator<Item = (&'a str, &'a RawValue)>) -> Option<Self> {
        let (mut payload, mut timestamp) = (None, None);
        for (key, value) in members {
            let slot = match key {
                "payload" => payload.replace(value).is_none(),
                "timestamp" => timestamp.replace(value).is_none(),
                _ => true,
            };
            if !slot {
                return None;
            }
        }
        let timestamp = match timestamp.map(RawValue::get) {
            None | Some("null") => None,
            Some(text) => Some(serde_json::from_str::<Str<'a>>(text).ok()?.0),
        };
        Some(Envelope {
            payload: payload?,
            timestamp,
        })
    }
}
