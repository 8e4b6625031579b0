//! A v2 session's messages (the store's `session_message` rows, `SessionMessage` of the OpenAPI
//! document) mapped as the v1 messages are: a `user` message starts a turn and is its
//! `user_message` item; an `assistant` message's `content` blocks are its items in order (`text`
//! an `assistant_message`, `reasoning` a `reasoning` item, `tool` the tool's item as a v1 tool part
//! gives it, [`crate::parts`]); its `finish` ends the turn, but `tool-calls`, after which the next
//! assistant message goes on. Items are keyed as the live v2 mapping keys them
//! (`crate::normalizer`'s `next` module), so a session read live and from the store names the same
//! turns and items: the turn and the prompt's item by the user message's id, a text or reasoning
//! block by `<message id>:<block id>` (block ids restart at `text-0` in every message: a key no
//! provider message holds, so no `providerItemId`), a tool call by its call id.
//!
//! The other kinds: `agent-switched` and `model-switched` are the session's configuration
//! (`session.configured` with the new `agent` or `model`); `system` and `synthetic` are text the
//! program adds to the conversation (a `user_message` item of origin `cli`, in the open turn);
//! `shell` is a person's `!command` (a `command_execution` item with its output); `compaction` a
//! `context_compaction` item with its summary. None maps to a warning only.

use agentwire_canonical::{
    CanonicalItemType, CommandExecutionContent, ContextCompactionContent, ItemContent, ItemStatus, MessageOrigin,
    ProviderRuntimeEvent, RuntimeEvent, SessionConfiguredPayload, UserMessageContent,
};
use agentwire_core::conversation;
use agentwire_core::emit::{Context, Raw};
use agentwire_opencode::{
    SessionErrorUnknown, SessionMessage, SessionMessageAssistantContentItem as Block,
    SessionMessageAssistantToolState as ToolState,
};
use serde_json::{Map, Value, json};

use super::{Ending, SessionNormalizer};
use crate::parts::{
    ToolView, error_status, reasoning_content, text_content, tool_content, tool_output, tool_title, tool_type,
};
use crate::session_error::next_ending;
use crate::steps::stored_next_tokens;

impl SessionNormalizer {
    /// One v2 message of the session the frames so far opened (`info`); a row before it has no
    /// thread to go to and is a warning carrying it.
    pub(super) fn on_v2(&mut self, message: &SessionMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let Some(session) = self.session.clone() else {
            let context = Context {
                raw: Some(raw),
                ..Context::default()
            };
            let text = "a v2 session's message before the session's `info`: no thread to put it in";
            self.ledger.warn(&context, text.to_string(), None, out);
            return;
        };
        let before = out.len();
        match message {
            SessionMessage::User { id, text, .. } => {
                self.begin_turn(&session, id, self.model.clone(), raw, out);
                let data = text_content(true, text, self.parent_of(&session));
                let face = (CanonicalItemType::UserMessage, None, data, ItemStatus::Completed);
                self.item(&session, id, Some(id), face, raw, out);
            }
            SessionMessage::Assistant {
                id,
                content,
                error,
                finish,
                time,
                tokens,
                cost,
                ..
            } => {
                for block in content.iter() {
                    self.on_block(&session, id, block, raw, out);
                }
                let ended = (
                    time.completed.is_some(),
                    finish.as_deref(),
                    error.as_ref().map(ended_by),
                );
                let tokens = tokens.as_ref().map(stored_next_tokens);
                self.assistant_ended(&session, tokens, cost.as_ref(), ended, raw, out);
            }
            SessionMessage::AgentSwitched { agent, .. } => self.configured_with(json!({ "agent": agent }), raw, out),
            SessionMessage::ModelSwitched { model, .. } => {
                self.model = Some(model.id.clone());
                let model = serde_json::to_value(model).expect("generated types serialize");
                self.configured_with(json!({ "model": model }), raw, out);
            }
            SessionMessage::System { id, text, .. } | SessionMessage::Synthetic { id, text, .. } => {
                let data = ItemContent::UserMessage(UserMessageContent {
                    text: text.clone(),
                    attachments: None,
                    origin: Some(MessageOrigin::Cli),
                    parent_item_id: None,
                });
                let face = (CanonicalItemType::UserMessage, None, data, ItemStatus::Completed);
                self.item(&session, id, Some(id), face, raw, out);
            }
            SessionMessage::Shell {
                call_id,
                command,
                output,
                time,
                ..
            } => {
                let status = match time.completed {
                    Some(_) => ItemStatus::Completed,
                    None => ItemStatus::InProgress,
                };
                let data = ItemContent::CommandExecution(CommandExecutionContent {
                    command: command.clone(),
                    cwd: None,
                    exit_code: None,
                    output: Some(output.clone()),
                    duration_ms: None,
                    description: None,
                    parent_item_id: None,
                });
                let face = (CanonicalItemType::CommandExecution, Some(command.clone()), data, status);
                self.item(&session, call_id, Some(call_id), face, raw, out);
            }
            SessionMessage::Compaction {
                id, reason, summary, ..
            } => {
                let data = ItemContent::ContextCompaction(ContextCompactionContent {
                    summary: Some(summary.clone()),
                    trigger: Some(reason.to_string()),
                    parent_item_id: None,
                });
                let face = (
                    CanonicalItemType::ContextCompaction,
                    Some("context compaction".to_string()),
                    data,
                    ItemStatus::Completed,
                );
                self.item(&session, id, Some(id), face, raw, out);
            }
        }
        if out.len() == before {
            // An assistant message with no content that keeps its turn going (`tool-calls`), or
            // one outside a turn: the session's configuration of the moment, as in v1.
            self.configured(raw, out);
        }
    }

    /// The session's configuration as a v2 message changes it.
    fn configured_with(&mut self, config: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let payload = SessionConfiguredPayload {
            config: serde_json::value::to_raw_value(&config).expect("JSON serializes"),
        };
        self.ledger
            .emit(&Context::bare(raw), RuntimeEvent::SessionConfigured(payload), out);
    }

    /// One block of an assistant message's `content` as its item.
    fn on_block(
        &mut self,
        session: &str,
        message: &str,
        block: &Block,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let (key, provider, face) = match block {
            Block::Text { id, text } => {
                let data = text_content(false, text, self.parent_of(session));
                let face = (CanonicalItemType::AssistantMessage, None, data, ItemStatus::Completed);
                (conversation::part(message, id), None, face)
            }
            Block::Reasoning { id, text, time, .. } => {
                let status = match time.as_ref().and_then(|time| time.completed.as_ref()) {
                    Some(_) => ItemStatus::Completed,
                    None => ItemStatus::InProgress,
                };
                let data = reasoning_content(text, self.parent_of(session));
                let face = (CanonicalItemType::Reasoning, None, data, status);
                (conversation::part(message, id), None, face)
            }
            Block::Tool { id, name, state, .. } => {
                let empty = Map::new();
                let (input, content, structured, error, status) = match state {
                    // The input as the model streams it, JSON text not yet whole: no arguments yet.
                    ToolState::Pending { .. } => (&empty, None, None, None, ItemStatus::InProgress),
                    ToolState::Running {
                        input,
                        content,
                        structured,
                    } => (input, Some(content), Some(structured), None, ItemStatus::InProgress),
                    ToolState::Completed {
                        input,
                        content,
                        structured,
                        ..
                    } => (input, Some(content), Some(structured), None, ItemStatus::Completed),
                    ToolState::Error {
                        input,
                        content,
                        structured,
                        error,
                        ..
                    } => (
                        input,
                        Some(content),
                        Some(structured),
                        Some(error.message.as_str()),
                        error_status(&error.message),
                    ),
                };
                let output = content.map(|content| tool_output(content));
                let view = ToolView {
                    input,
                    output: output.as_deref(),
                    error,
                    title: None,
                    metadata: structured,
                    status,
                    done: !matches!(status, ItemStatus::InProgress),
                };
                // A v2 call has no title of its own: what the tool does, as the live v2 mapping says.
                let data = tool_content(name, &view, self.parent_of(session));
                let face = (tool_type(name), Some(tool_title(name, &view)), data, status);
                (id.clone(), Some(id.as_str()), face)
            }
        };
        self.item(session, &key, provider, face, raw, out);
    }
}

/// How an assistant message's error ends its turn, as the live v2 mapping reads a `step.failed`
/// ([`next_ending`]): the v2 runner gives every error the one `SessionErrorUnknown` shape, and its
/// words for a person's stop ("Provider turn interrupted", `POST /api/session/{id}/interrupt`)
/// interrupt the turn without a `runtime.error`, so a stop never reads as a crash; any other error
/// fails it. Its message and the error are the turn's.
fn ended_by(error: &SessionErrorUnknown) -> Ending {
    let ending = next_ending(error);
    (ending.state, None, Some((ending.message, ending.detail)))
}
