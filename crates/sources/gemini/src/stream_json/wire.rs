//! Gemini stream-json lines -> typed [`JsonStreamEvent`]s, for the normalizer and `conform`.

use agentwire_gemini_cli::JsonStreamEvent;

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::Problem;

/// Decodes one event; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<JsonStreamEvent, Problem> {
    JsonStreamEvent::decode(frame.msg.get(), &mut PathTracking).map_err(|err| tag_problem(&err))
}

/// When the CLI emitted the event: every event says.
pub fn timestamp(event: &JsonStreamEvent) -> &str {
    match event {
        JsonStreamEvent::Init(event) => &event.timestamp,
        JsonStreamEvent::Message(event) => &event.timestamp,
        JsonStreamEvent::ToolUse(event) => &event.timestamp,
        JsonStreamEvent::ToolResult(event) => &event.timestamp,
        JsonStreamEvent::Error(event) => &event.timestamp,
        JsonStreamEvent::Result(event) => &event.timestamp,
    }
}
