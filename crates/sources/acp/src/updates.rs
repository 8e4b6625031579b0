//! `session/update` (section 5.2) and the other notifications: messages as items with a
//! lifecycle, tool calls as items (deduplicated starts, partial updates merged; a subagent's
//! calls as updates of its Task's item), plans, configuration, usage, compaction.
//!
//! Mapped to nothing richer than `runtime.warning`, deliberately:
//! - `notice`: a message the agent shows the user (info, warning or error) that belongs to no
//!   turn or item and has no canonical event of its own; its severity rides in `detail`;
//! - `$/cancel_request` from the agent for a request that is not open: nothing to settle.

use agentwire_acp::{
    AgentNotification, ClientNotification, CompactionStatus, CompactionStatusKnown, ContentBlock, ProtocolNotification,
    RawJson, Sent, SessionUpdate, ToolCallStatus, ToolKind,
};
use agentwire_canonical::{
    CanonicalItemType, ContentStreamKind, ItemLifecyclePayload, ItemStatus, ProviderRuntimeEvent, RuntimeEvent,
    TaskProgressPayload, ThreadMetadataUpdatedPayload, ThreadTokenUsageUpdatedPayload, ToolProgressPayload,
    ToolSummaryPayload, TurnPlanStep, TurnPlanUpdatedPayload,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::content::{self, TextKind};
use super::normalizer::{AcpNormalizer, OpenText, ToolState, delta, to_value};
use super::tools;
use super::usage;
use agentwire_core::decision::Decision;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ids;
use agentwire_core::ledger::{Answer, OpenItemFace};
use agentwire_core::object_text;

/// The names Claude's adapter gives Claude's subagent tool in `_meta.claudeCode.toolName`
/// (`Task`, `Agent` in newer Claude Code releases).
const CLAUDE_SUBAGENT_TOOLS: &[&str] = &["Task", "Agent"];

/// `{key: value}`, the value as the agent wrote it (`schemas/acp/as-sent.json` makes the command
/// and option lists of a session update `RawJson`: a command list is a sixth of the ACP corpus's
/// bytes).
fn sent_member(key: &str, value: &RawJson) -> Box<RawValue> {
    object_text::object([(key, &*value.0)])
}

impl AcpNormalizer {
    pub(super) fn on_agent_notification(
        &mut self,
        frame: &Frame<'_>,
        notification: &AgentNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match notification {
            AgentNotification::SessionUpdate { params } => {
                let raw = self
                    .raw(frame, Some(notification.method()))
                    .with_type(params.update.tag());
                self.on_session_update(raw, &params.session_id.0, &params.update, out);
            }
            // A URL-mode elicitation finished out of band: progress of the client-side work.
            AgentNotification::ElicitationComplete { params } => {
                let raw = self.raw(frame, Some(notification.method()));
                let payload = ToolProgressPayload {
                    tool_use_id: None,
                    tool_name: Some("elicitation".to_string()),
                    summary: Some(format!("elicitation {} completed", params.elicitation_id.0)),
                    elapsed_seconds: None,
                };
                self.emit(&Context::bare(raw), RuntimeEvent::ToolProgress(payload), out);
            }
        }
    }

    /// The client's notifications carry no canonical fact of their own: `session/cancel` is
    /// answered by the prompt's `stopReason: cancelled`, which ends the turn `interrupted` (the
    /// person stopped it).
    pub(super) fn on_client_notification(
        &mut self,
        _frame: &Frame<'_>,
        notification: &ClientNotification,
        _out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match notification {
            ClientNotification::SessionCancel { params } => {
                if let Some(session) = self.sessions.get_mut(params.session_id.as_str()) {
                    session.stopped_by_client = true;
                }
            }
        }
    }

    /// `$/cancel_request`: the agent withdrawing a request of its own settles it as `cancel`;
    /// the client withdrawing one of its own is answered by the agent (an error or a result).
    pub(super) fn on_protocol(
        &mut self,
        frame: &Frame<'_>,
        dir: Direction,
        notification: &ProtocolNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match notification {
            ProtocolNotification::CancelRequest { params } => {
                if dir == Direction::Out {
                    return;
                }
                let raw = self.raw(frame, Some(notification.method()));
                let key = serde_json::to_string(&params.request_id).unwrap_or_default();
                match self.ledger.request_mut(&key) {
                    Some(request) => {
                        request.answer = Some(Answer {
                            decision: Decision::Cancel,
                            resolution: json!({ "cancelledBy": "agent" }),
                            answers: None,
                        });
                        self.ledger.resolve_request(&key, Some(raw), out);
                    }
                    None => {
                        let message = format!("the agent cancelled request {}, which is not open", params.request_id);
                        self.ledger.warn(&Context::bare(raw), message, None, out);
                    }
                }
            }
        }
    }

    /// `update` is typed and kept as sent (`schemas/acp/as-sent.json`): a tool call's and a usage
    /// update's members go into events as the agent wrote them.
    fn on_session_update(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        update: &Sent<SessionUpdate>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match update.value() {
            SessionUpdate::UserMessageChunk {
                content,
                message_id,
                meta,
            } => {
                if let Some(parent) = parent_tool_use(meta.as_ref()) {
                    return self.subagent(raw, session, parent, "reads a message", out);
                }
                let id = message_id.as_ref().map(|id| id.0.as_str());
                self.on_chunk(raw, session, TextKind::User, content, id, out);
            }
            SessionUpdate::AgentMessageChunk {
                content,
                message_id,
                meta,
            } => {
                if let Some(parent) = parent_tool_use(meta.as_ref()) {
                    return self.subagent(raw, session, parent, "streams", out);
                }
                let id = message_id.as_ref().map(|id| id.0.as_str());
                self.on_chunk(raw, session, TextKind::Assistant, content, id, out);
                // Qwen Code states a model call's tokens on the empty chunk after its response.
                if let Some(tokens) = usage::chunk_tokens(meta.as_ref()) {
                    let context = self.session_context(session, Some(raw));
                    let call = tokens.usage(agentwire_canonical::UsageScope::Call);
                    let usage = self.session_mut(session).meter.call(call);
                    let payload = ThreadTokenUsageUpdatedPayload { usage };
                    self.emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
                }
            }
            SessionUpdate::AgentThoughtChunk {
                content,
                message_id,
                meta,
            } => {
                if let Some(parent) = parent_tool_use(meta.as_ref()) {
                    return self.subagent(raw, session, parent, "streams", out);
                }
                let id = message_id.as_ref().map(|id| id.0.as_str());
                self.on_chunk(raw, session, TextKind::Thought, content, id, out);
            }
            SessionUpdate::ToolCall { kind, status, .. } | SessionUpdate::ToolCallUpdate { kind, status, .. } => {
                let mut fields = object(update.to_json());
                fields.remove("sessionUpdate");
                self.on_tool(raw, session, fields, kind.as_ref(), status.as_ref(), out);
            }
            SessionUpdate::Plan { entries, .. } => {
                let plan = entries
                    .iter()
                    .map(|entry| TurnPlanStep {
                        step: entry.content.clone(),
                        status: tools::plan_status(&entry.status),
                    })
                    .collect();
                let context = self.session_context(session, Some(raw));
                let payload = TurnPlanUpdatedPayload {
                    explanation: None,
                    plan,
                };
                self.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
            }
            SessionUpdate::AvailableCommandsUpdate { available_commands, .. } => {
                let config = sent_member("availableCommands", available_commands);
                self.configured(raw, Some(session), config, out);
            }
            SessionUpdate::CurrentModeUpdate { current_mode_id, .. } => {
                let mut config = Map::new();
                config.insert("currentModeId".into(), Value::String(current_mode_id.0.clone()));
                self.configured(raw, Some(session), object_text::from_map(&config), out);
            }
            SessionUpdate::ConfigOptionUpdate { config_options, .. } => {
                let config = sent_member("configOptions", config_options);
                self.configured(raw, Some(session), config, out);
            }
            SessionUpdate::SessionInfoUpdate { title, updated_at, .. } => {
                let context = self.ledger.thread_context(session, Some(raw));
                let metadata = updated_at.as_ref().map(|at| {
                    let mut metadata = Map::new();
                    metadata.insert("updatedAt".into(), Value::String(at.clone()));
                    metadata
                });
                let payload = ThreadMetadataUpdatedPayload {
                    name: title.clone(),
                    metadata,
                };
                self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
            }
            SessionUpdate::UsageUpdate { cost, size, used, .. } => {
                let context = self.session_context(session, Some(raw));
                let usage = usage::update(&mut self.session_mut(session).meter, *used, *size, cost.as_ref());
                let payload = ThreadTokenUsageUpdatedPayload { usage };
                self.emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
            }
            SessionUpdate::Notice {
                severity,
                title,
                description,
                ..
            } => {
                let context = self.session_context(session, Some(raw));
                let message = match description {
                    Some(description) => format!("{}: {description}", title.as_str()),
                    None => title.as_str().to_string(),
                };
                self.ledger
                    .warn(&context, message, Some(json!({ "severity": severity })), out);
            }
            SessionUpdate::CompactionUpdate {
                compaction_id,
                status,
                summary,
                error,
                ..
            } => {
                let mut fields = Map::new();
                fields.insert("compactionId".into(), Value::String(compaction_id.0.clone()));
                fields.insert("status".into(), to_value(status));
                if let Some(summary) = summary {
                    fields.insert("summary".into(), to_value(summary));
                }
                if let Some(error) = error {
                    fields.insert("error".into(), Value::String(error.clone()));
                }
                let end = match status {
                    CompactionStatus::CompactionStatusKnown(known) => match known {
                        CompactionStatusKnown::InProgress => None,
                        CompactionStatusKnown::Completed => Some(ItemStatus::Completed),
                        CompactionStatusKnown::Failed | CompactionStatusKnown::Cancelled => Some(ItemStatus::Failed),
                    },
                    CompactionStatus::Other(_) => None,
                };
                let item = Item {
                    id: &compaction_id.0,
                    item_type: CanonicalItemType::ContextCompaction,
                    title: Some("Compacting the conversation".to_string()),
                };
                self.item_step(raw, session, item, fields, end, out);
            }
            SessionUpdate::CompactionSummaryChunk {
                compaction_id, content, ..
            } => {
                let item = Item {
                    id: &compaction_id.0,
                    item_type: CanonicalItemType::ContextCompaction,
                    title: Some("Compacting the conversation".to_string()),
                };
                let started = self.ensure_item(raw, session, &item, Map::new(), out);
                let turn = self.tool_turn(session, item.id);
                let context = self.item_context(session, turn.as_deref(), item.id, true, Some(raw));
                match content {
                    ContentBlock::Text { text, .. } => {
                        self.stream_into(session, item.id, text);
                        self.emit(&context, delta(ContentStreamKind::Unknown, text), out)
                    }
                    // Not text: the summary reads as it was; the block rides in `raw`.
                    ContentBlock::Image { .. }
                    | ContentBlock::Audio { .. }
                    | ContentBlock::ResourceLink { .. }
                    | ContentBlock::Resource { .. } => {
                        let data = self
                            .sessions
                            .get(session)
                            .and_then(|s| s.tools.get(item.id))
                            .map(ToolState::content);
                        if !started {
                            let payload = ItemLifecyclePayload {
                                item_type: item.item_type,
                                status: Some(ItemStatus::InProgress),
                                title: item.title,
                                detail: None,
                                data,
                            };
                            self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
                        }
                    }
                }
            }
        }
    }

    /// A message chunk: the run of its kind goes on, or a new message item starts.
    fn on_chunk(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        kind: TextKind,
        content: &ContentBlock,
        message_id: Option<&str>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let continues = self
            .sessions
            .get(session)
            .and_then(|s| s.text.as_ref())
            .is_some_and(|open| open.kind == kind && message_id.is_none_or(|id| open.provider_keyed && open.key == id));
        if !continues {
            self.close_text(session, out);
            let turn = self.update_turn(session);
            let (key, provider_keyed) = match message_id {
                Some(id) => (id.to_string(), true),
                None => (self.next_text_key(session, kind), false),
            };
            let context = self.item_context(session, turn.as_deref(), &key, provider_keyed, Some(raw));
            let payload = ItemLifecyclePayload {
                item_type: kind.item_type(),
                status: Some(ItemStatus::InProgress),
                title: None,
                detail: None,
                data: Some(agentwire_core::content::data(content::message(kind, "", &[]))),
            };
            self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
            self.session_mut(session).text = Some(OpenText {
                kind,
                key,
                provider_keyed,
                turn,
                text: String::new(),
                attachments: Vec::new(),
            });
        }
        let Some(open) = self.sessions.get_mut(session).and_then(|s| s.text.as_mut()) else {
            return;
        };
        let (key, provider_keyed, turn) = (open.key.clone(), open.provider_keyed, open.turn.clone());
        let text = match content {
            ContentBlock::Text { text, .. } => {
                open.text.push_str(text);
                Some(text.as_str())
            }
            ContentBlock::Image { .. }
            | ContentBlock::Audio { .. }
            | ContentBlock::ResourceLink { .. }
            | ContentBlock::Resource { .. } => {
                if kind == TextKind::User {
                    open.attachments.extend(content::attachment(content));
                }
                None
            }
        };
        // Only the user's words, and a block that is no text, carry the whole content so far
        // (a copy per chunk); streamed text is deltas, its item's end carries it whole.
        let so_far = match (kind, text) {
            (TextKind::User, _) | (_, None) => Some(agentwire_core::content::data(content::message(
                kind,
                &open.text,
                &open.attachments,
            ))),
            (TextKind::Assistant | TextKind::Thought, Some(_)) => None,
        };
        let context = self.item_context(session, turn.as_deref(), &key, provider_keyed, Some(raw));
        match (kind, text) {
            // The start already carried an empty chunk.
            (_, Some("")) if !continues => {}
            (TextKind::Assistant, Some(text)) => {
                self.emit(&context, delta(ContentStreamKind::AssistantText, text), out)
            }
            (TextKind::Thought, Some(text)) => self.emit(&context, delta(ContentStreamKind::ReasoningText, text), out),
            // The user's words are not streamed to a UI as they are typed: the item grows.
            (TextKind::User, Some(_)) | (TextKind::User | TextKind::Assistant | TextKind::Thought, None) => {
                let payload = ItemLifecyclePayload {
                    item_type: kind.item_type(),
                    status: Some(ItemStatus::InProgress),
                    title: None,
                    detail: None,
                    data: so_far,
                };
                self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
            }
        }
    }

    /// `tool_call` / `tool_call_update` (and the tool call a permission request names): the
    /// first report of a `toolCallId` starts its item, later ones update it, a final status
    /// completes it. `fields` are ACP's, merged into what the item's content is read from.
    pub(super) fn on_tool(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        fields: Map<String, Value>,
        kind: Option<&ToolKind>,
        status: Option<&ToolCallStatus>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(id) = fields.get("toolCallId").and_then(Value::as_str).map(str::to_string) else {
            return;
        };
        // Claude's adapter marks a subagent's calls with the Task's id, but not every report
        // of them (not its PostToolUse update, nor its permission request).
        let parent = fields
            .get("_meta")
            .and_then(Value::as_object)
            .and_then(|meta| parent_tool_use(Some(meta)))
            .map(str::to_string)
            .or_else(|| {
                self.sessions
                    .get(session)
                    .and_then(|s| s.tools.get(&id))
                    .and_then(|tool| tool.parent.clone())
            });
        if let Some(parent) = parent {
            return self.subagent_tool(raw, session, &id, parent, fields, kind, status, out);
        }
        let output = fields
            .get("_meta")
            .and_then(|meta| meta.get("terminal_output"))
            .and_then(|output| output.get("data"))
            .and_then(Value::as_str)
            .map(str::to_string);
        // Cursor marks a subagent's tool call with `rawInput._toolName: "task"`; Claude's adapter
        // files its Task (`Agent`) under kind `think`, the tool in `_meta.claudeCode.toolName`.
        let subagent = fields
            .get("rawInput")
            .and_then(|input| input.get("_toolName"))
            .is_some_and(|name| name == "task")
            || tools::claude_tool_name(&fields).is_some_and(|name| CLAUDE_SUBAGENT_TOOLS.contains(&name));
        let item = Item {
            id: &id,
            item_type: if subagent {
                CanonicalItemType::CollabAgentToolCall
            } else {
                tools::tool_item_type(kind, &fields)
            },
            title: None,
        };
        let end = status.and_then(tools::final_status);
        self.item_step(raw, session, item, fields, end, out);
        if let Some(output) = output.filter(|output| !output.is_empty()) {
            self.stream_into(session, &id, &output);
            let turn = self.tool_turn(session, &id);
            let context = self.item_context(session, turn.as_deref(), &id, true, Some(raw));
            self.emit(&context, delta(ContentStreamKind::CommandOutput, &output), out);
        }
    }

    /// A report about a subagent's tool call (`parent` is the Task's `toolCallId`): merged into
    /// what the call has said so far, and shown on the Task's item, as the direct Claude source
    /// shows a subagent's messages. The call gets no item of its own, so a UI draws one tree
    /// whichever source carried it.
    #[allow(clippy::too_many_arguments)]
    fn subagent_tool(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        id: &str,
        parent: String,
        fields: Map<String, Value>,
        kind: Option<&ToolKind>,
        status: Option<&ToolCallStatus>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let turn = self.update_turn(session);
        let tool = self
            .session_mut(session)
            .tools
            .entry(id.to_string())
            .or_insert_with(|| ToolState {
                item_type: tools::item_type(kind),
                turn,
                title: None,
                data: Map::new(),
                done: false,
                declined: false,
                output_delivered: 0,
                streamed: String::new(),
                parent: Some(parent.clone()),
            });
        for (key, value) in fields {
            if !value.is_null() {
                tool.data.insert(key, value);
            }
        }
        tool.done |= status.and_then(tools::final_status).is_some();
        let name = tools::claude_tool_name(&tool.data)
            .or_else(|| tool.data.get("title").and_then(Value::as_str))
            .unwrap_or("a tool");
        let said = format!("uses {name}");
        self.subagent(raw, session, &parent, &said, out);
    }

    /// What a subagent reports: `item.updated` of its Task's item, the Task's content as `data`
    /// and the report (the update, or the permission request) in `raw`. A Task item that
    /// completed (a subagent in the background) never reopens: the subagent's later work is
    /// `task.progress` of the task the Task's `toolCallId` names, `said` its description.
    fn subagent(&mut self, raw: Raw<'_>, session: &str, parent: &str, said: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        let task = self
            .sessions
            .get(session)
            .and_then(|s| s.tools.get(parent))
            .filter(|task| !task.done)
            .map(|task| (task.item_type, task.turn.clone(), task.title.clone(), task.content()));
        let Some((item_type, turn, title, data)) = task else {
            let turn = self.tool_turn(session, parent).or_else(|| self.update_turn(session));
            let context = self.item_context(session, turn.as_deref(), parent, true, Some(raw));
            let payload = TaskProgressPayload {
                task_id: ids::task(self.ledger.source(), self.ledger.session(), parent),
                description: format!("the subagent {said}"),
                usage: None,
                last_tool_name: None,
            };
            return self.emit(&context, RuntimeEvent::TaskProgress(payload), out);
        };
        let context = self.item_context(session, turn.as_deref(), parent, true, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(ItemStatus::InProgress),
            title,
            detail: Some("subagent message".to_string()),
            data: Some(data),
        };
        self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
    }

    /// Text a tool call streamed as it ran (a terminal's output, a summary's chunk): part of
    /// its content from now on, and of the face its cut-off keeps.
    pub(super) fn stream_into(&mut self, session: &str, id: &str, text: &str) {
        let Some(tool) = self.sessions.get_mut(session).and_then(|s| s.tools.get_mut(id)) else {
            return;
        };
        tool.streamed.push_str(text);
        if !tool.done {
            let data = tool.content();
            self.ledger.update_item(session, id, data);
        }
    }

    /// The turn a session's tool call belongs to.
    pub(super) fn tool_turn(&self, session: &str, id: &str) -> Option<String> {
        self.sessions
            .get(session)
            .and_then(|s| s.tools.get(id))
            .and_then(|tool| tool.turn.clone())
    }

    /// Starts an item if it is new (true if this call started it).
    pub(super) fn ensure_item(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        item: &Item<'_>,
        fields: Map<String, Value>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        if self
            .sessions
            .get(session)
            .is_some_and(|s| s.tools.contains_key(item.id))
        {
            return false;
        }
        self.close_text(session, out);
        let turn = self.update_turn(session);
        let title = content::tool_title(item.item_type, &fields).or_else(|| item.title.clone());
        let tool = ToolState {
            item_type: item.item_type,
            turn: turn.clone(),
            title: title.clone(),
            data: fields,
            done: false,
            declined: false,
            output_delivered: 0,
            streamed: String::new(),
            parent: None,
        };
        let data = tool.content();
        if let Some(turn) = &turn {
            let face = OpenItemFace {
                item_type: item.item_type,
                title: title.clone(),
                data: Some(data.clone()),
            };
            self.ledger.open_item((session, turn, item.id), face);
        }
        let context = self.item_context(session, turn.as_deref(), item.id, true, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: item.item_type,
            status: Some(ItemStatus::InProgress),
            title,
            detail: None,
            data: Some(data),
        };
        self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
        self.session_mut(session).tools.insert(item.id.to_string(), tool);
        true
    }

    /// One report about an item: started if new, else updated; completed when `end` says so.
    pub(super) fn item_step(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        item: Item<'_>,
        fields: Map<String, Value>,
        end: Option<ItemStatus>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        // A new item starts with `fields`; a known one takes in their non-null members.
        let known = self
            .sessions
            .get(session)
            .is_some_and(|s| s.tools.contains_key(item.id));
        let update = if known {
            fields
        } else {
            self.ensure_item(raw, session, &item, fields, out);
            Map::new()
        };
        let Some(tool) = self.sessions.get_mut(session).and_then(|s| s.tools.get_mut(item.id)) else {
            return;
        };
        for (key, value) in update {
            if !value.is_null() {
                tool.data.insert(key, value);
            }
        }
        let title = content::tool_title(tool.item_type, &tool.data)
            .or(item.title)
            .or_else(|| tool.title.clone());
        tool.title.clone_from(&title);
        let (item_type, turn, done, declined) = (tool.item_type, tool.turn.clone(), tool.done, tool.declined);
        // A new item's `item.started` already carries its data.
        if !known && end.is_none() && !done {
            return;
        }
        let data = tool.content();
        let context = self.item_context(session, turn.as_deref(), item.id, true, Some(raw));
        // The client's `session/cancel` stopped the turn it runs in: ACP v1 has no status for a
        // call the stop cut off, so agents report it `failed` (Qwen Code does, with the killed
        // command's output) before they answer the prompt `cancelled`.
        let stopped = turn.as_ref().is_some_and(|turn| {
            self.sessions
                .get(session)
                .is_some_and(|open| open.stopped_by_client && open.turns.contains(turn))
        });
        // A tool call the user refused did not run: the agent's `failed` is a refusal. One the
        // person's stop cut off did not fail either: it keeps the face of an interrupted turn's
        // actions.
        let (end, detail) = match end {
            Some(ItemStatus::Failed) if declined => (Some(ItemStatus::Declined), None),
            Some(ItemStatus::Failed) if stopped => (
                Some(ItemStatus::Declined),
                Some("interrupted: the person stopped the turn while it ran".to_string()),
            ),
            other => (other, None),
        };
        match (end, done) {
            (Some(status), false) => {
                if let Some(tool) = self.sessions.get_mut(session).and_then(|s| s.tools.get_mut(item.id)) {
                    tool.done = true;
                }
                self.ledger.close_item(session, item.id);
                let payload = ItemLifecyclePayload {
                    item_type,
                    status: Some(status),
                    title,
                    detail,
                    data: Some(data),
                };
                self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
            }
            // A report on a tool call that already ended (a `cursor/task` after its call
            // completed, a loaded session's history replayed): nothing follows an item's
            // completion; the report rides on a summary of that call.
            (None | Some(_), true) => {
                let context = Context {
                    item_id: None,
                    ..context
                };
                let payload = ToolSummaryPayload {
                    summary: "a report on a tool call that had ended".to_string(),
                    preceding_tool_use_ids: Some(vec![item.id.to_string()]),
                };
                self.emit(&context, RuntimeEvent::ToolSummary(payload), out);
            }
            (None, false) => {
                // The face a cut-off keeps follows the updates (the title too: ACP's first
                // report of a tool call is often a placeholder like "Terminal").
                if let Some(turn) = &turn {
                    let face = OpenItemFace {
                        item_type,
                        title: title.clone(),
                        data: Some(data.clone()),
                    };
                    self.ledger.open_item((session, turn, item.id), face);
                }
                let payload = ItemLifecyclePayload {
                    item_type,
                    status: Some(ItemStatus::InProgress),
                    title,
                    detail: None,
                    data: Some(data),
                };
                self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
            }
        }
    }
}

/// An item some report names: its key (a `toolCallId`, a `compactionId`), its type if it
/// starts, a title for when the report gives none.
pub(super) struct Item<'a> {
    pub id: &'a str,
    pub item_type: CanonicalItemType,
    pub title: Option<String>,
}

/// The members of a JSON object (none if it is not one).
pub(super) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Array(_) => Map::new(),
    }
}

/// The Task a report of Claude's adapter says it belongs to: its
/// `_meta.claudeCode.parentToolUseId`, set on what a subagent does.
fn parent_tool_use(meta: Option<&Map<String, Value>>) -> Option<&str> {
    meta?.get("claudeCode")?.get("parentToolUseId")?.as_str()
}
