//! Qwen Code's additions to ACP (`qwen --acp`, declared in `schemas/acp/qwen-extensions.schema.json`):
//! the agent asking its client for the messages the person queued during a turn
//! (`craft/drainMidTurnQueue`), and a suggestion for the person's next prompt
//! (`qwen/notify/session/prompt-suggestion`).
//!
//! The drain is plumbing between the agent and its host, no decision of the person's: the
//! request is `tool.progress` of the turn it serves, and so is an answer that hands over
//! nothing, an empty list or the `-32601` with which a host that keeps no queue says so (Qwen
//! reads it as "unsupported" and stops asking). Messages the answer hands over are the person's
//! words entering the turn: a `user_message` item each.

use agentwire_acp::{
    QwenAgentNotification, QwenAgentRequest, QwenAgentRequestResult, QwenDrainMidTurnQueueResponse, RequestId,
};
use agentwire_canonical::{
    CanonicalItemType, ItemLifecyclePayload, ItemStatus, ProviderRuntimeEvent, ProviderSessionId, RuntimeEvent,
    SessionConfiguredPayload, ToolProgressPayload,
};
use serde_json::{Map, Value};

use super::content::{self, TextKind};
use super::normalizer::AcpNormalizer;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::object_text;

/// A `craft/drainMidTurnQueue` the client has not answered yet.
pub(super) struct Drain {
    /// The method, as the request named it.
    pub method: &'static str,
    /// The session asking.
    pub session: String,
    /// The turn it was asked in (the session's current one then).
    pub turn: Option<String>,
}

impl AcpNormalizer {
    pub(super) fn on_qwen_request(
        &mut self,
        frame: &Frame<'_>,
        request: &QwenAgentRequest,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let method = request.method();
        let raw = self.raw(frame, Some(method));
        match request {
            QwenAgentRequest::CraftDrainMidTurnQueue { id, params } => {
                let session = params.session_id.0.clone();
                let turn = self.update_turn(&session);
                let summary = "asking the client for the messages queued during the turn".to_string();
                self.drain_progress(raw, &session, turn.as_deref(), method, summary, out);
                self.drains.insert(id.clone(), Drain { method, session, turn });
            }
        }
    }

    pub(super) fn on_qwen_notification(
        &mut self,
        frame: &Frame<'_>,
        notification: &QwenAgentNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = self.raw(frame, Some(notification.method()));
        match notification {
            // A suggested next prompt belongs to no turn: what the session offers the person,
            // as Claude's `prompt_suggestion` reads.
            QwenAgentNotification::QwenNotifySessionPromptSuggestion { params } => {
                let session = params.session_id.0.as_str();
                let mut context = self.ledger.thread_context(session, Some(raw));
                context.refs.provider_session_id = ProviderSessionId::new(session).ok();
                let mut config = Map::new();
                config.insert("promptSuggestion".into(), Value::String(params.suggestion.clone()));
                let payload = SessionConfiguredPayload {
                    config: object_text::from_map(&config),
                };
                self.emit(&context, RuntimeEvent::SessionConfigured(payload), out);
            }
        }
    }

    /// The client's answer to a request of Qwen's agent.
    pub(super) fn on_qwen_result(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &QwenAgentRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = self.raw(frame, Some(result.method())).with_type("result");
        match result {
            QwenAgentRequestResult::CraftDrainMidTurnQueue(response) => {
                let Some(drain) = self.drains.remove(id) else {
                    let message = format!("the client answered request {id} of the agent, which is not open");
                    return self.ledger.warn(&Context::bare(raw), message, None, out);
                };
                self.drained(raw, &drain, response, out);
            }
        }
    }

    /// The client answered a drain with an error: `-32601` (or any other code) says it keeps no
    /// queue, and the agent goes on without one. `false` when `id` is no open drain.
    pub(super) fn on_qwen_error(
        &mut self,
        raw: Raw<'_>,
        id: &RequestId,
        error: &agentwire_acp::Error,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let Some(drain) = self.drains.remove(id) else {
            return false;
        };
        let summary = format!(
            "the client keeps no queue of mid-turn messages: {} (JSON-RPC error {})",
            error.message, error.code.0
        );
        self.drain_progress(raw, &drain.session, drain.turn.as_deref(), drain.method, summary, out);
        true
    }

    /// What a drain's answer handed over: each message a `user_message` item of the turn, or
    /// progress saying nothing was queued.
    fn drained(
        &mut self,
        raw: Raw<'_>,
        drain: &Drain,
        response: &QwenDrainMidTurnQueueResponse,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        // `items` is read first when present, as the agent reads it.
        let messages: Vec<agentwire_canonical::ItemContent> = match (&response.items, &response.messages) {
            (Some(items), _) => items.iter().map(|item| content::prompt(&item.content)).collect(),
            (None, Some(messages)) => messages
                .iter()
                .filter(|message| !message.trim().is_empty())
                .map(|message| content::message(TextKind::User, message, &[]))
                .collect(),
            (None, None) => Vec::new(),
        };
        let Some(turn) = drain.turn.as_deref().filter(|_| !messages.is_empty()) else {
            let summary = "no messages were queued during the turn".to_string();
            return self.drain_progress(raw, &drain.session, drain.turn.as_deref(), drain.method, summary, out);
        };
        self.close_text(&drain.session, out);
        for (index, message) in messages.into_iter().enumerate() {
            let key = self.next_text_key(&drain.session, TextKind::User);
            let context = self.item_context(&drain.session, Some(turn), &key, false, Some(raw));
            let data = agentwire_core::content::data(message);
            for (status, started) in [(ItemStatus::InProgress, true), (ItemStatus::Completed, false)] {
                let payload = ItemLifecyclePayload {
                    item_type: CanonicalItemType::UserMessage,
                    status: Some(status),
                    title: None,
                    detail: Some(format!("queued during the turn (message {})", index + 1)),
                    data: Some(data.clone()),
                };
                let event = if started {
                    RuntimeEvent::ItemStarted(payload)
                } else {
                    RuntimeEvent::ItemCompleted(payload)
                };
                self.emit(&context, event, out);
            }
        }
    }

    /// `tool.progress` of the turn a drain serves (of the session's thread when it came
    /// between turns).
    fn drain_progress(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        turn: Option<&str>,
        method: &'static str,
        summary: String,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let mut context = match turn {
            Some(turn) => self.ledger.turn_context(session, turn, Some(raw)),
            None => self.ledger.thread_context(session, Some(raw)),
        };
        context.refs.provider_session_id = ProviderSessionId::new(session).ok();
        let payload = ToolProgressPayload {
            tool_use_id: None,
            tool_name: Some(method.to_string()),
            summary: Some(summary),
            elapsed_seconds: None,
        };
        self.emit(&context, RuntimeEvent::ToolProgress(payload), out);
    }
}
