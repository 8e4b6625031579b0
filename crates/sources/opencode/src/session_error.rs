//! What a `session.error` says about the turn it ends, for every OpenCode source: the server's
//! event, and the `error` line `opencode run --format json` prints from it.

use agentwire_canonical::TurnState;
use agentwire_opencode::{EventSessionErrorPropertiesError, SessionErrorUnknown};
use serde_json::Value;

/// How a session error ends its turn: the person's stop (`MessageAbortedError`) interrupts it,
/// any other error fails it. Also the error's name (the turn's stop reason), its message and the
/// error as sent (the detail of the turn's `runtime.error`).
pub struct Ending {
    pub state: TurnState,
    pub name: Option<&'static str>,
    pub message: String,
    pub detail: Value,
}

/// The ending `error` says; no error at all fails the turn without a message of its own.
pub fn ending(error: Option<&EventSessionErrorPropertiesError>) -> Ending {
    use EventSessionErrorPropertiesError as E;
    let (state, name) = match error {
        Some(E::MessageAbortedError(_)) => (TurnState::Interrupted, Some("MessageAbortedError")),
        Some(E::ProviderAuthError(_)) => (TurnState::Failed, Some("ProviderAuthError")),
        Some(E::UnknownError(_)) => (TurnState::Failed, Some("UnknownError")),
        Some(E::MessageOutputLengthError(_)) => (TurnState::Failed, Some("MessageOutputLengthError")),
        Some(E::StructuredOutputError(_)) => (TurnState::Failed, Some("StructuredOutputError")),
        Some(E::ContextOverflowError(_)) => (TurnState::Failed, Some("ContextOverflowError")),
        Some(E::ContentFilterError(_)) => (TurnState::Failed, Some("ContentFilterError")),
        Some(E::ApiError(_)) => (TurnState::Failed, Some("APIError")),
        None => (TurnState::Failed, None),
    };
    let detail = serde_json::to_value(error).unwrap_or(Value::Null);
    let message = detail
        .pointer("/data/message")
        .and_then(Value::as_str)
        .unwrap_or("the session failed")
        .to_string();
    Ending {
        state,
        name,
        message,
        detail,
    }
}

/// The words of the v2 runner for a turn a person stopped: its assistant error is always of type
/// `unknown`, and OpenCode's own projection of a v2 message onto a v1 one reads exactly "Provider
/// turn interrupted" as `MessageAbortedError` (`tests/corpus/opencode/v2_interrupt.jsonl:61`).
/// The runner also says so "before it started" and "before checkpoint completion" when the stop
/// came before the model answered or before the step was saved: the same stop.
const INTERRUPTED: &str = "Provider turn interrupted";

/// The ending a v2 runner's error says (`step.failed`, a stored assistant message's `error`): the
/// person's stop interrupts the turn, any other error fails it with its message.
pub fn next_ending(error: &SessionErrorUnknown) -> Ending {
    let interrupted = error.message == INTERRUPTED
        || error
            .message
            .strip_prefix(INTERRUPTED)
            .is_some_and(|rest| rest.starts_with(" before "));
    let (state, name) = match interrupted {
        true => (TurnState::Interrupted, Some("MessageAbortedError")),
        false => (TurnState::Failed, Some("UnknownError")),
    };
    Ending {
        state,
        name,
        message: error.message.clone(),
        detail: serde_json::to_value(error).unwrap_or(Value::Null),
    }
}
