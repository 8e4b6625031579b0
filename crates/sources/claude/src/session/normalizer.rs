//! The session-file normalizer: one Claude Code session file, record by record.
//!
//! What the file has and the live stream has not: every record's `timestamp`, `cwd`, `gitBranch`
//! and `version` (`session.configured` when they change). What it lacks: turn boundaries (see
//! the module docs), permission requests and their answers (a refused call is a failed tool
//! result), streaming (each block arrives whole), and the text of a message cut off by an
//! interrupt. A subagent's records (`isSidechain`) are items of their own naming their Task item as
//! `parentItemId`, as the live source draws them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use agentwire_canonical::{
    CanonicalItemType, ContentDeltaPayload, ContextCompactionContent, ItemAttachment, ItemStatus, ProviderRuntimeEvent,
    RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent, RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId,
    ThreadMetadataUpdatedPayload, ThreadState, ThreadStateChangedPayload, TokenUsage, ToolProgressPayload,
    TurnCompletedPayload, TurnState, UsageScope, UserMessageContent,
};
use agentwire_claude::{BetaContentBlock, BetaMessage, BetaStopReason, ContentBlockParam, MessageParamContent};
use agentwire_claude_session::{
    AssistantRecord, CostStateRecord, ProgressRecord, SessionRecord, SystemRecord, UPSTREAM_VERSION, UserRecord,
};
use serde_json::{Map, Value, json};

use super::wire;
use crate::claude_code::{
    AssistantBlock, CLI_NOTES, INTERRUPT_NOTE, SYNTHETIC_MODEL, ToolKind, ToolOutcome, UserBlock, assistant_block,
    attachments, cli_denial, message_text, todo_plan, tool_face, tool_kind, tool_outcome, user_block, user_content,
    user_text_content,
};
use crate::conversation::Cursor;
use crate::usage;
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::drop_synthesized_refs;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ids;
use agentwire_core::ledger::{Ledger, OpenItemFace};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage::{Meter, with_provider_cost};

/// A tool call seen and not yet answered by its `tool_result`.
struct Tool {
    kind: ToolKind,
    name: String,
    input: Value,
    /// The subagent call whose work it is.
    parent: Option<RuntimeItemId>,
}

/// The session settings a record carries, as last reported in `session.configured`.
#[derive(Default, PartialEq)]
struct Settings {
    cwd: Option<String>,
    git_branch: Option<String>,
    version: Option<String>,
    permission_mode: Option<String>,
    model: Option<String>,
}

/// The normalizer of one session file.
pub struct ClaudeSessionNormalizer {
    ledger: Ledger<()>,
    /// The session (the thread), once known, and the open turn: its key (its position), whether
    /// it was interrupted (the interrupt note, or a tool result cut off by it) and the item keys
    /// of its messages' content blocks (one record per block).
    at: Cursor,
    /// The turn a model message ended, not yet completed: Claude Code 2.1.33x writes each block
    /// of a message as a record of its own and repeats the final stop reason on every one, so
    /// the turn ends when a record of another message (or anything else) follows. The message's
    /// id, the turn's state and the stop reason.
    ending: Option<(String, TurnState, String)>,
    /// The model message whose usage was reported last: one usage per message, however many
    /// records repeat it.
    usage_of: Option<String>,
    /// The tokens of the model's calls, and the running totals `cost-state` records state.
    meter: Meter,
    /// The text of the last prompt the CLI queued (`queue-operation` `enqueue`).
    queued: Option<String>,
    /// Tool calls not yet answered, by `tool_use` id.
    tools: BTreeMap<String, Tool>,
    /// Subagents by `agentId` -> the `tool_use` id of the Task call that runs them.
    agents: BTreeMap<String, String>,
    /// The subagent call whose record is being mapped (its canonical item id): a subagent's
    /// records (`isSidechain`) are items of their own, each naming it as `parentItemId`.
    subagent: Option<RuntimeItemId>,
    /// What started the last compaction (`compact_boundary`'s `trigger`), for its summary.
    compact_trigger: Option<String>,
    settings: Settings,
}

impl ClaudeSessionNormalizer {
    /// A normalizer for one session file.
    pub fn new(options: Options) -> Self {
        ClaudeSessionNormalizer {
            ledger: Ledger::new(&crate::session::SOURCE, options).with_provider_refs(drop_synthesized_refs),
            at: Cursor::default(),
            ending: None,
            usage_of: None,
            meter: Meter::default(),
            queued: None,
            tools: BTreeMap::new(),
            agents: BTreeMap::new(),
            subagent: None,
            compact_trigger: None,
            settings: Settings::default(),
        }
    }

    /// `session.configured` with the settings a record states that differ from the last ones
    /// reported (where the session runs, on which branch, with which CLI, mode and model).
    fn configure(&mut self, settings: Settings, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let mut config = Map::new();
        let mut note = |key: &str, new: Option<String>, old: &mut Option<String>| {
            if new.is_some() && new != *old {
                config.insert(key.to_string(), json!(new));
                *old = new;
            }
        };
        let old = &mut self.settings;
        note("cwd", settings.cwd, &mut old.cwd);
        note("gitBranch", settings.git_branch, &mut old.git_branch);
        note("version", settings.version.clone(), &mut old.version);
        note("permissionMode", settings.permission_mode, &mut old.permission_mode);
        note("model", settings.model, &mut old.model);
        if config.is_empty() {
            return;
        }
        self.at.configured(&mut self.ledger, &config, raw, out);
        // The schema reads every version from 2.1.62 to the pinned one (both in the corpus):
        // only a newer one is reported.
        if let Some(version) = settings.version
            && agentwire_core::ledger::newer_version(&version, UPSTREAM_VERSION)
        {
            let context = self.at.context(&mut self.ledger, None);
            self.ledger.check_version(&version, UPSTREAM_VERSION, &context, out);
        }
    }

    /// Opens a turn on the model last reported: `turn.started`, the session `running`.
    fn start_turn(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let model = self.settings.model.clone();
        self.at.start_turn(&mut self.ledger, model, raw, out);
    }

    /// Ends the open turn as `state`: its open items cut off, `turn.completed`, the session
    /// `ready`.
    fn end_turn(
        &mut self,
        state: TurnState,
        stop_reason: Option<String>,
        error: Option<String>,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.ending = None;
        // The turn's calls added up (the file states no cost per call or turn).
        let usage = if self.at.at.turn.is_some() {
            self.meter.end_turn()
        } else {
            None
        };
        let outcome = TurnCompletedPayload {
            state,
            stop_reason: Some(stop_reason),
            usage,
            model_usage: None,
            total_cost_usd: None,
            error_message: error,
        };
        self.at.end_turn(&mut self.ledger, outcome, raw, out);
    }

    /// A model message's usage, counted once (a subagent's too: its calls are the session's):
    /// at the first record that carries its stop reason (2.1.62 writes it on the last block's
    /// record only, 2.1.33x on every block's).
    fn count_call(&mut self, message: &BetaMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.usage_of.as_deref() == Some(message.id.as_str()) {
            return;
        }
        self.usage_of = Some(message.id.clone());
        let call = usage::message(&message.usage, UsageScope::Call).map(|mut call| {
            call.model = Some(message.model.clone());
            self.meter.call(call)
        });
        usage::report(
            &mut self.ledger,
            &mut self.at,
            call,
            "assistant record's usage",
            raw,
            out,
        );
    }

    /// Completes the turn a model message ended ([`Self::ending`]), once a record of anything
    /// else follows, or at the end of the file: derived, the message rode on its own events.
    fn end_pending_turn(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        if let Some((_, state, stop)) = self.ending.take() {
            self.end_turn(state, Some(stop), None, None, out);
        }
    }

    /// Ends the open turn, if any, as what was seen of it says: a turn a new prompt follows, or
    /// whose end a `turn_duration` record reports.
    fn end_open_turn(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> bool {
        if self.at.turn.is_none() {
            return false;
        }
        let state = if self.at.interrupted {
            TurnState::Interrupted
        } else {
            TurnState::Completed
        };
        self.end_turn(state, None, None, Some(raw), out);
        true
    }

    // --- items ---

    /// An item the file holds whole (a text, a prompt, a summary): started and completed at once.
    fn whole_item(&mut self, key: &str, face: OpenItemFace, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.at
            .whole_item(&mut self.ledger, key, face, ItemStatus::Completed, raw, out);
    }

    /// The person's words that start the open turn, and what they sent with them.
    fn prompt_item(
        &mut self,
        text: &str,
        attachments: Option<Vec<ItemAttachment>>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = format!("prompt:{}", self.at.turns);
        let prompt = UserMessageContent {
            attachments,
            ..user_text_content(text, None, None)
        };
        let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
        self.whole_item(&key, face, raw, out);
    }

    // --- records ---

    fn user(&mut self, record: &UserRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if record.is_sidechain == Some(true) {
            let prompt = match &record.message.content {
                MessageParamContent::String(text) => Some(text.as_str()),
                MessageParamContent::Array(_) => None,
            };
            if !self.enter_subagent(record.agent_id.as_deref(), prompt, raw, out) {
                return;
            }
        } else {
            self.at.see_thread(&mut self.ledger, &record.session_id, raw, out);
        }
        let blocks: Vec<&ContentBlockParam> = match &record.message.content {
            MessageParamContent::String(text) => return self.user_text(record, text, raw, out),
            // A prompt of several parts (text beside an image, ...) is one message.
            MessageParamContent::Array(blocks) if !has_tool_result(blocks) => {
                let text = user_content(blocks, None, None).text;
                return self.user_text(record, &text, raw, out);
            }
            MessageParamContent::Array(blocks) => blocks.iter().collect(),
        };
        let mut mapped = false;
        for block in blocks {
            match user_block(block) {
                UserBlock::ToolResult {
                    tool_use_id,
                    text,
                    failed,
                    content,
                } => {
                    let outcome = ToolOutcome {
                        text: &text,
                        content: serde_json::to_value(content).unwrap_or(Value::Null),
                        structured: record.tool_use_result.as_ref(),
                        failed,
                    };
                    // Since 2.1.33x the record says how the call was decided: a refusal is
                    // `declined` from the file as it is live.
                    let refused = record
                        .permission_decision
                        .as_ref()
                        .is_some_and(|decided| decided.decision == "reject")
                        || record.tool_denial_kind.is_some();
                    self.tool_result(tool_use_id, &outcome, refused, raw, out);
                    mapped = true;
                }
                UserBlock::Text(text) => {
                    self.user_text(record, text, raw, out);
                    mapped = true;
                }
                UserBlock::Other => {}
            }
        }
        if !mapped {
            self.at.current_state(
                &mut self.ledger,
                "a user record with no prompt or tool result",
                raw,
                out,
            );
        }
    }

    /// The text of a user record: a prompt (a new turn, its first item the person's words), the
    /// summary that replaces the history after a compaction, or a note the CLI injects (context
    /// for the model, the interrupt note, which ends the turn `interrupted`).
    fn user_text(&mut self, record: &UserRecord, text: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if let Some(parent) = &self.subagent {
            // A subagent's prompt, the first item of its work.
            let prompt = user_text_content(text, None, Some(parent));
            let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
            return self.whole_item(&record.uuid, face, raw, out);
        }
        if record.is_compact_summary == Some(true) {
            let compaction = ContextCompactionContent {
                summary: Some(text.to_string()),
                trigger: self.compact_trigger.take(),
                parent_item_id: None,
            };
            let face = OpenItemFace::untitled(CanonicalItemType::ContextCompaction, content::data(compaction));
            return self.whole_item(&record.uuid, face, raw, out);
        }
        if text.starts_with(INTERRUPT_NOTE) {
            self.at.interrupted = true;
            if self.at.turn.is_some() {
                self.at.cli_note(&mut self.ledger, &record.uuid, text, raw, out);
                let stop = Some("interrupted".to_string());
                return self.end_turn(TurnState::Interrupted, stop, None, Some(raw), out);
            }
        }
        if record.is_meta == Some(true) || CLI_NOTES.iter().any(|note| text.starts_with(note)) {
            return self.at.cli_note(&mut self.ledger, &record.uuid, text, raw, out);
        }
        self.end_open_turn(raw, out);
        self.configure(
            Settings {
                cwd: record.cwd.clone(),
                git_branch: record.git_branch.clone(),
                version: record.version.clone(),
                permission_mode: record.permission_mode.clone(),
                model: None,
            },
            raw,
            out,
        );
        self.queued = None;
        self.start_turn(raw, out);
        // A prompt the CLI made itself (since 2.1.33x, a background task's report, `origin`)
        // starts its turn as a person's does, but is the CLI's words.
        match &record.origin {
            Some(_) => {
                let key = format!("prompt:{}", self.at.turns);
                self.at.cli_note(&mut self.ledger, &key, text, raw, out);
            }
            None => {
                let attached = match &record.message.content {
                    MessageParamContent::String(_) => None,
                    MessageParamContent::Array(blocks) => attachments(blocks),
                };
                self.prompt_item(text, attached, raw, out);
            }
        }
    }

    fn assistant(&mut self, record: &AssistantRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if record.is_sidechain == Some(true) {
            // A subagent's message: its blocks are items of their own; its stop ends no turn.
            if self.enter_subagent(record.agent_id.as_deref(), None, raw, out) {
                for block in &record.message.content {
                    let key = self.at.blocks.next(&record.message.id);
                    self.assistant_block(&key, block, raw, out);
                }
                if record.message.stop_reason.is_some() {
                    self.count_call(&record.message, raw, out);
                }
            }
            return;
        }
        self.at.see_thread(&mut self.ledger, &record.session_id, raw, out);
        let message = &record.message;
        let synthetic = message.model == SYNTHETIC_MODEL;
        if !synthetic {
            let settings = Settings {
                model: Some(message.model.clone()),
                ..Settings::default()
            };
            self.configure(settings, raw, out);
        }
        if self.at.turn.is_none() {
            // A file that begins inside a turn (a session resumed from a summary, a copy cut
            // short): the turn has no prompt.
            self.start_turn(raw, out);
        }
        if synthetic {
            return self.api_error(record, raw, out);
        }
        for block in &message.content {
            let key = self.at.blocks.next(&message.id);
            self.assistant_block(&key, block, raw, out);
        }
        let Some(stop) = message.stop_reason else {
            if message.content.is_empty() {
                self.at
                    .current_state(&mut self.ledger, "an empty assistant record", raw, out);
            }
            return;
        };
        self.count_call(message, raw, out);
        match stop {
            BetaStopReason::ToolUse | BetaStopReason::PauseTurn | BetaStopReason::Compaction => {}
            BetaStopReason::EndTurn
            | BetaStopReason::MaxTokens
            | BetaStopReason::StopSequence
            | BetaStopReason::Refusal
            | BetaStopReason::ModelContextWindowExceeded => {
                let state = if self.at.interrupted {
                    TurnState::Interrupted
                } else {
                    TurnState::Completed
                };
                self.ending = Some((message.id.clone(), state, stop.to_string()));
            }
        }
    }

    fn assistant_block(
        &mut self,
        key: &str,
        block: &BetaContentBlock,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match assistant_block(block, self.subagent.as_ref()) {
            AssistantBlock::Item(face) => self.whole_item(key, face, raw, out),
            AssistantBlock::ToolCall { id, name, input } => self.tool_call(id, &name, input, raw, out),
            AssistantBlock::ServerToolResult {
                tool_use_id,
                text,
                failed,
                block,
            } => {
                let outcome = ToolOutcome::of_server_result(&text, failed, &block);
                self.tool_result(&tool_use_id, &outcome, false, raw, out);
            }
            AssistantBlock::Unpaired => self
                .at
                .current_state(&mut self.ledger, "an assistant content block", raw, out),
        }
    }

    /// The message the CLI writes in the model's name when the API failed: the turn's
    /// `runtime.error` (its text the message), and the turn ends `failed`.
    fn api_error(&mut self, record: &AssistantRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let message = message_text(&record.message.content);
        if let (Some(thread), Some(turn)) = (self.at.thread.clone(), self.at.turn.clone())
            && self.ledger.report_turn_error(&thread, &turn)
        {
            let context = self.ledger.turn_context(&thread, &turn, Some(raw));
            let payload = RuntimeErrorPayload {
                message: message.clone(),
                class: Some(RuntimeErrorClass::ProviderError),
                detail: Some(json!({ "error": record.error })),
            };
            self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
        }
        self.end_turn(TurnState::Failed, None, Some(message), Some(raw), out);
    }

    /// A `tool_use` block: the call's item starts (its input is whole).
    fn tool_call(&mut self, id: &str, name: &str, input: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let kind = tool_kind(name);
        let face = tool_face(name, kind, &input, self.subagent.as_ref());
        self.at.start_item(&mut self.ledger, id, face, raw, out);
        let tool = Tool {
            kind,
            name: name.to_string(),
            input,
            parent: self.subagent.clone(),
        };
        self.tools.insert(id.to_string(), tool);
    }

    /// A tool's result: its output as a delta where the item streams one, then `item.completed`
    /// (`declined` when the CLI refused the call, as the record says (`refused_as_written`) or
    /// its text does, or an interrupt cut it off; `failed` for any other error). A `TodoWrite`
    /// that succeeded is the turn's plan: one that failed drew none.
    fn tool_result(
        &mut self,
        tool_use_id: &str,
        outcome: &ToolOutcome<'_>,
        refused_as_written: bool,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let tool = self.tools.remove(tool_use_id);
        let (kind, name, input, parent) = match tool {
            Some(tool) => (tool.kind, tool.name, tool.input, tool.parent),
            None => (ToolKind::Other, String::new(), Value::Null, self.subagent.clone()),
        };
        let text = outcome.text;
        if let Some(stream) = kind.output_stream()
            && !text.is_empty()
        {
            let context = self.at.item_context(&mut self.ledger, tool_use_id, Some(raw));
            let payload = ContentDeltaPayload {
                stream_kind: stream,
                delta: text.to_string(),
                content_index: None,
                summary_index: None,
            };
            self.ledger.emit(&context, RuntimeEvent::ContentDelta(payload), out);
        }
        if let Some(agent) = outcome
            .structured
            .and_then(|reported| reported.get("agentId"))
            .and_then(Value::as_str)
        {
            self.agents.insert(agent.to_string(), tool_use_id.to_string());
        }
        if text.contains(INTERRUPT_NOTE) {
            self.at.interrupted = true;
        }
        let refused = refused_as_written || self.at.interrupted || cli_denial(text);
        let (face, status) = tool_outcome(&name, kind, &input, outcome, refused, parent.as_ref());
        self.at
            .complete_item(&mut self.ledger, tool_use_id, face, status, raw, out);
        if kind == ToolKind::Plan
            && !outcome.failed
            && let Some(plan) = todo_plan(&input)
        {
            self.at.plan(&mut self.ledger, plan, raw, out);
        }
    }

    /// Enters a subagent's record: the Task call that runs it is the one whose result named the
    /// agent, else the open Task call whose prompt the subagent's first message is, else the open
    /// Task call started last. False (and a warning) when no Task call of this file runs it.
    fn enter_subagent(
        &mut self,
        agent: Option<&str>,
        prompt: Option<&str>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let known = agent.and_then(|agent| self.agents.get(agent)).cloned();
        let task = known.or_else(|| {
            let open: Vec<(&String, &Tool)> = self
                .tools
                .iter()
                .filter(|(_, tool)| tool.kind == ToolKind::Subagent)
                .collect();
            let by_prompt = open
                .iter()
                .find(|(_, tool)| prompt.is_some() && tool.input.get("prompt").and_then(Value::as_str) == prompt);
            by_prompt.or(open.last()).map(|(id, _)| (*id).clone())
        });
        let (Some(thread), Some(task)) = (self.at.thread.clone(), task) else {
            let context = self.at.context(&mut self.ledger, Some(raw));
            let message = format!(
                "a subagent's record (agent {}) while no Task call of this file is open",
                agent.unwrap_or("unnamed")
            );
            self.ledger.warn(&context, message, None, out);
            return false;
        };
        if let Some(agent) = agent {
            self.agents.insert(agent.to_string(), task.clone());
        }
        self.subagent = Some(ids::item(self.ledger.source(), &thread, &task));
        true
    }

    fn system(&mut self, record: &SystemRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let compacted = |detail: Option<Value>| ThreadStateChangedPayload {
            state: ThreadState::Compacted,
            detail,
        };
        match record {
            SystemRecord::CompactBoundary(boundary) => {
                self.compact_trigger = boundary
                    .compact_metadata
                    .as_ref()
                    .and_then(|metadata| metadata.trigger.clone());
                // A `/compact` the person typed is a turn of its own, as the live CLI runs it:
                // the file writes no prompt record for it (its command echoes come after the
                // summary), so the command the queue took is its prompt.
                let manual = boundary
                    .compact_metadata
                    .as_ref()
                    .is_some_and(|metadata| metadata.trigger.as_deref() == Some("manual"));
                if manual && self.at.turn.is_none() {
                    let command = self.queued.take().unwrap_or_else(|| "/compact".to_string());
                    self.start_turn(raw, out);
                    self.prompt_item(&command, None, raw, out);
                }
                let detail = serde_json::to_value(&boundary.compact_metadata).ok();
                let context = self.at.context(&mut self.ledger, Some(raw));
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadStateChanged(compacted(detail)), out);
            }
            SystemRecord::MicrocompactBoundary(boundary) => {
                let detail = boundary.microcompact_metadata.clone().map(Value::Object);
                let context = self.at.context(&mut self.ledger, Some(raw));
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadStateChanged(compacted(detail)), out);
            }
            // The record as read (its members the schema declares; `raw` has it as written).
            SystemRecord::ApiError(error) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let detail = serde_json::to_value(error).ok();
                let message = "Claude API error, retrying".to_string();
                self.ledger.warn(&context, message, detail, out);
            }
            SystemRecord::Informational(notice) => match notice.level.as_deref() {
                Some("warning" | "error") => {
                    let context = self.at.context(&mut self.ledger, Some(raw));
                    let message = notice.content.clone().unwrap_or_default();
                    self.ledger.warn(&context, message, None, out);
                }
                _ => self
                    .at
                    .current_state(&mut self.ledger, "a notice the CLI showed", raw, out),
            },
            SystemRecord::TurnDuration(_) => {
                if !self.end_open_turn(raw, out) {
                    self.at.current_state(&mut self.ledger, "the turn's duration", raw, out);
                }
            }
            // The output of a local command and the Stop hooks' summary: what the CLI showed
            // the person, no conversation.
            SystemRecord::LocalCommand(_) | SystemRecord::StopHookSummary(_) => {
                self.at
                    .current_state(&mut self.ledger, "the CLI's own output", raw, out)
            }
        }
    }

    /// A running tool's progress: `tool.progress` on its item (a subagent's tool has an item of
    /// its own, as the main conversation's).
    fn progress(&mut self, record: &ProgressRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let tool_name = record
            .tool_use_id
            .as_ref()
            .and_then(|id| self.tools.get(id))
            .map(|tool| tool.name.clone());
        let context = match &record.tool_use_id {
            Some(id) => self.at.item_context(&mut self.ledger, id, Some(raw)),
            None => self.at.context(&mut self.ledger, Some(raw)),
        };
        let payload = ToolProgressPayload {
            tool_use_id: record.tool_use_id.clone(),
            tool_name,
            summary: record.data.get("type").and_then(Value::as_str).map(str::to_string),
            elapsed_seconds: None,
        };
        self.ledger.emit(&context, RuntimeEvent::ToolProgress(payload), out);
    }

    /// The session's name: a `summary` (the CLI's title for a conversation) or `custom-title`.
    fn name(
        &mut self,
        name: &str,
        metadata: Option<Map<String, Value>>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.at.context(&mut self.ledger, Some(raw));
        let payload = ThreadMetadataUpdatedPayload {
            name: Some(name.to_string()),
            metadata,
        };
        self.ledger
            .emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
    }

    fn map_record(&mut self, record: &SessionRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.subagent = None;
        let ended_message = self.ending.as_ref().map(|(message, ..)| message.as_str());
        let same_message =
            matches!(record, SessionRecord::Assistant(next) if Some(next.message.id.as_str()) == ended_message);
        if !same_message {
            self.end_pending_turn(out);
        }
        match record {
            SessionRecord::User(record) => self.user(record, raw, out),
            SessionRecord::Assistant(record) => self.assistant(record, raw, out),
            SessionRecord::System(record) => self.system(record, raw, out),
            SessionRecord::Progress(record) => self.progress(record, raw, out),
            SessionRecord::Summary(summary) => {
                let metadata = summary.leaf_uuid.as_ref().map(|leaf| {
                    let mut metadata = Map::new();
                    metadata.insert("leafUuid".into(), json!(leaf));
                    metadata
                });
                self.name(&summary.summary, metadata, raw, out)
            }
            SessionRecord::CustomTitle(title) => self.name(&title.custom_title, None, raw, out),
            // The prompt queue and the file backups for rewinding: the prompt record that
            // follows a dequeue starts its turn (the queue's text is kept for a `/compact`,
            // which has none), and a backup is no conversation. Thread metadata, not a state:
            // the session has none before its first prompt, as live.
            SessionRecord::QueueOperation(queue) => {
                if queue.operation == "enqueue" {
                    self.queued = queue.content.clone();
                }
                if let Some(session_id) = &queue.session_id {
                    self.at.see_thread(&mut self.ledger, session_id, raw, out);
                }
                self.at.carry(&mut self.ledger, "promptQueue", queue, raw, out);
            }
            SessionRecord::FileHistorySnapshot(snapshot) => {
                self.at
                    .carry(&mut self.ledger, "fileHistorySnapshot", snapshot, raw, out);
            }
            // Context the CLI hands the model (the environment, the model's identity, the date,
            // the tools and agents it lists, its system prompt, mode reminders): it describes the
            // session and draws nothing in the conversation. Thread metadata under the
            // attachment's own kind, as the CLI wrote it.
            SessionRecord::Attachment(record) => {
                let attachment = serde_json::to_value(&record.attachment).unwrap_or(Value::Null);
                let kind = attachment["type"].as_str().unwrap_or("unknown");
                let key = format!("attachment.{kind}");
                self.at.carry(&mut self.ledger, &key, &attachment, raw, out);
            }
            // The CLI's bookkeeping of its API requests (their route, parameters, prompt shapes
            // and blobs by hash, a latch before each), of the tools used, the last prompt and
            // what it counted (cost, durations, usage per model): thread metadata by kind.
            SessionRecord::ApiRequest(record) => self.at.carry(&mut self.ledger, "apiRequest", record, raw, out),
            SessionRecord::ApiRequestRoute(record) => {
                self.at.carry(&mut self.ledger, "apiRequestRoute", record, raw, out);
            }
            SessionRecord::ApiRequestBlob(record) => {
                self.at.carry(&mut self.ledger, "apiRequestBlob", record, raw, out);
            }
            SessionRecord::ApiRequestShape(record) => {
                self.at.carry(&mut self.ledger, "apiRequestShape", record, raw, out);
            }
            SessionRecord::AtisLatch(record) => self.at.carry(&mut self.ledger, "atisLatch", record, raw, out),
            SessionRecord::LastPrompt(record) => self.at.carry(&mut self.ledger, "lastPrompt", record, raw, out),
            // The session's running total, the provider's own (calls the file has no record of
            // included: a compaction's, a stream that failed).
            SessionRecord::CostState(record) => {
                let total = cost_state_total(record);
                let usage = self.meter.running(total, None);
                usage::report(&mut self.ledger, &mut self.at, Ok(usage), "cost-state record", raw, out);
            }
            SessionRecord::ToolsUsed(record) => self.at.carry(&mut self.ledger, "toolsUsed", record, raw, out),
            // The session's mode is how it runs: `session.configured`.
            SessionRecord::Mode(record) => {
                let config = Map::from_iter([("mode".to_string(), Value::String(record.mode.clone()))]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
        }
    }
}

/// Whether a message's blocks answer a tool call.
fn has_tool_result(blocks: &[ContentBlockParam]) -> bool {
    blocks
        .iter()
        .any(|block| matches!(block, ContentBlockParam::ToolResult(_)))
}

impl Mapping for ClaudeSessionNormalizer {
    type Request = ();
    type Message<'a> = SessionRecord;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, SessionRecord>, Box<Misfit<'a>>> {
        let source = RuntimeEventRawSource::ClaudeSessionRecord;
        match wire::decode(frame) {
            Ok(record) => Ok(Decoded {
                raw: Raw::new(source, Some(record.tag()), frame.msg),
                time: wire::timestamp(&record).map_or(ProviderTime::None, |text| ProviderTime::Text {
                    field: "timestamp",
                    text: Cow::Owned(text.to_string()),
                }),
                message: record,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(source, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: frame
                    .tag("timestamp")
                    .map_or(ProviderTime::None, |text| ProviderTime::Text {
                        field: "timestamp",
                        text: Cow::Borrowed(text),
                    }),
            })),
        }
    }

    fn map<'a>(
        &mut self,
        _frame: &Frame<'a>,
        record: SessionRecord,
        raw: Raw<'a>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.map_record(&record, raw, out);
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// A file that ends right after the message that ended its turn: the turn ends as it said.
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        self.end_pending_turn(out);
    }

    /// A file is a record of the past: no one can answer from it.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&crate::session::SOURCE))
    }
}

/// A `cost-state` record's running total (`scope: thread`): every model's counts added up, at the
/// record's `totalCostUSD`; thinking tokens are the reasoning.
fn cost_state_total(record: &CostStateRecord) -> TokenUsage {
    let models = record.model_usage.as_ref();
    let mut total = agentwire_core::usage::empty(UsageScope::Thread);
    for model in models.into_iter().flat_map(|models| models.values()) {
        let mut part = usage::tokens(
            usage::count(&model.input_tokens),
            model.cache_read_input_tokens.as_ref().map(usage::count),
            model.cache_creation_input_tokens.as_ref().map(usage::count),
            Some(usage::count(&model.output_tokens)),
        )
        .usage(UsageScope::Thread);
        part.reasoning_tokens = model.thinking_tokens.as_ref().map(usage::count);
        agentwire_core::usage::add(&mut total, &part);
    }
    total.model = models.and_then(|models| usage::single(models.keys()));
    let cost = record.total_cost_usd.as_ref().and_then(serde_json::Number::as_f64);
    with_provider_cost(total, cost)
}
