//! What both Gemini sources build their turns and items from, over the core's
//! [`agentwire_core::conversation::Conversation`].
//!
//! Gemini CLI gives turns no id: a turn is a prompt, keyed by its position among the stream's or
//! the file's prompts, so the two sources write only what differs between them: when a turn
//! starts and ends, and what an item shows.

use agentwire_canonical::{
    CanonicalItemType, Json, RuntimeErrorClass, RuntimeErrorPayload, TurnCompletedPayload, TurnState,
};
use serde_json::Value;

use agentwire_core::ledger::{OpenItemFace, TurnEnd};

/// An item's face: its type, title and content.
pub fn face(item_type: CanonicalItemType, title: Option<String>, data: Json) -> OpenItemFace {
    OpenItemFace {
        item_type,
        title,
        data: Some(data),
    }
}

/// `turn.completed` of a turn that ended in `state` for `stop_reason` (none when the provider
/// gives none).
pub fn outcome(state: TurnState, stop_reason: Option<String>) -> TurnCompletedPayload {
    TurnCompletedPayload {
        state,
        stop_reason: Some(stop_reason),
        usage: None,
        model_usage: None,
        total_cost_usd: None,
        error_message: None,
    }
}

/// A turn that ended as the model finished.
pub fn completed() -> TurnEnd {
    TurnEnd::new(outcome(TurnState::Completed, None))
}

/// A turn that failed with `message`: its one `runtime.error` (`detail` the provider's), and
/// `turn.completed(failed)` saying it.
pub fn failed(stop_reason: Option<String>, message: String, detail: Option<Value>) -> TurnEnd {
    let mut end = TurnEnd::new(TurnCompletedPayload {
        error_message: Some(message.clone()),
        ..outcome(TurnState::Failed, stop_reason)
    });
    end.failure = Some(RuntimeErrorPayload {
        message,
        class: Some(RuntimeErrorClass::ProviderError),
        detail,
    });
    end
}
