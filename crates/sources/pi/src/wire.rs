//! Pi's lines -> typed messages, for the normalizer and `conform`: what Pi prints is a
//! [`PiLine`], what an RPC client writes an [`RpcCommand`].

use agentwire_pi::{AgentMessage, PiLine, RpcCommand};

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::normalizer::Problem;

/// One message of either direction.
// One line at a time, moved once into its mapping: boxing would allocate per line for nothing.
#[allow(clippy::large_enum_variant)]
pub enum PiMessage {
    /// A line Pi printed.
    Line(PiLine),
    /// A command an RPC client wrote.
    Command(RpcCommand),
}

impl PiMessage {
    /// The message's `type`.
    pub fn tag(&self) -> &'static str {
        match self {
            PiMessage::Line(line) => line.tag(),
            PiMessage::Command(command) => command.tag(),
        }
    }
}

/// Decodes one message; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<PiMessage, Problem> {
    let text = frame.msg.get();
    match frame.dir {
        Direction::In => PiLine::decode(text, &mut PathTracking)
            .map(PiMessage::Line)
            .map_err(|err| tag_problem(&err)),
        Direction::Out => RpcCommand::decode(text, &mut PathTracking)
            .map(PiMessage::Command)
            .map_err(|err| tag_problem(&err)),
    }
}

/// When a message was made, in Unix milliseconds, where it says: a message's own `timestamp`
/// when a `message_start` announces it (a finished message's is when its request started).
pub fn millis(line: &PiLine) -> Option<i64> {
    match line {
        PiLine::MessageStart(start) => Some(timestamp(&start.message)),
        PiLine::Session(_)
        | PiLine::AgentStart
        | PiLine::AgentEnd(_)
        | PiLine::AgentSettled(_)
        | PiLine::TurnStart
        | PiLine::TurnEnd(_)
        | PiLine::MessageUpdate(_)
        | PiLine::MessageEnd(_)
        | PiLine::ToolExecutionStart(_)
        | PiLine::ToolExecutionUpdate(_)
        | PiLine::ToolExecutionEnd(_)
        | PiLine::QueueUpdate(_)
        | PiLine::EntryAppended(_)
        | PiLine::SessionInfoChanged(_)
        | PiLine::ThinkingLevelChanged(_)
        | PiLine::CompactionStart(_)
        | PiLine::CompactionEnd(_)
        | PiLine::AutoRetryStart(_)
        | PiLine::AutoRetryEnd(_)
        | PiLine::SummarizationRetryScheduled(_)
        | PiLine::SummarizationRetryAttemptStart(_)
        | PiLine::SummarizationRetryFinished
        | PiLine::BashExecutionUpdate(_)
        | PiLine::ExtensionError(_)
        | PiLine::Response(_)
        | PiLine::ExtensionUiRequest(_) => None,
    }
}

/// A message's `timestamp` (Unix milliseconds).
pub fn timestamp(message: &AgentMessage) -> i64 {
    match message {
        AgentMessage::System(message) => message.timestamp,
        AgentMessage::User(message) => message.timestamp,
        AgentMessage::Assistant(message) => message.timestamp,
        AgentMessage::ToolResult(message) => message.timestamp,
        AgentMessage::BashExecution(message) => message.timestamp,
        AgentMessage::Custom(message) => message.timestamp,
        AgentMessage::BranchSummary(message) => message.timestamp,
        AgentMessage::CompactionSummary(message) => message.timestamp,
    }
}
