//! Claude frames -> typed messages ([`ClaudeStreamLine`]), for the normalizer and `conform`.

use agentwire_claude::ClaudeStreamLine;

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::Problem;

/// Decodes one message; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<ClaudeStreamLine, Problem> {
    ClaudeStreamLine::decode(frame.msg.get(), &mut PathTracking).map_err(|err| tag_problem(&err))
}

/// The time the CLI wrote a message, where it says (0.3.x stamps its `assistant` and `user`
/// messages); the other messages carry none.
pub fn timestamp(line: &ClaudeStreamLine) -> Option<&str> {
    match line {
        ClaudeStreamLine::Assistant(message) => message.timestamp.as_deref(),
        ClaudeStreamLine::User(message) => message.timestamp.as_deref(),
        ClaudeStreamLine::Result(_)
        | ClaudeStreamLine::System(_)
        | ClaudeStreamLine::StreamEvent(_)
        | ClaudeStreamLine::ToolProgress(_)
        | ClaudeStreamLine::ToolUseSummary(_)
        | ClaudeStreamLine::AuthStatus(_)
        | ClaudeStreamLine::RateLimitEvent(_)
        | ClaudeStreamLine::PromptSuggestion(_)
        | ClaudeStreamLine::ControlRequest(_)
        | ClaudeStreamLine::ControlResponse(_)
        | ClaudeStreamLine::ControlCancelRequest(_)
        | ClaudeStreamLine::KeepAlive => None,
    }
}
