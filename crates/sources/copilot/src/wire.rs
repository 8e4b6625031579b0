//! Copilot CLI lines -> typed [`SessionEvent`]s, for the normalizer and `conform`.

use agentwire_copilot::SessionEvent;

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::Problem;

/// Decodes one event; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<SessionEvent, Problem> {
    SessionEvent::decode(frame.msg.get(), &mut PathTracking).map_err(|err| tag_problem(&err))
}

/// When the CLI wrote the event: every line says, in its `timestamp`.
pub fn timestamp<'a>(frame: &Frame<'a>) -> Option<&'a str> {
    frame.tag("timestamp")
}

/// The sub-agent whose event it is (the envelope's `agentId`): none for the main agent's.
pub fn agent<'a>(frame: &Frame<'a>) -> Option<&'a str> {
    frame.tag("agentId")
}
