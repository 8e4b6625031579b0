//! The v2 session runner (`POST /api/session/{id}/prompt`): its `session.next.*` events on
//! `GET /event` and `GET /api/event`, and its `permission.v2.*` and `question.v2.*` requests.
//!
//! The v2 runner sends no `message.*` event, no `session.status` and no `session.idle`: a turn
//! starts when a prompt is admitted (or, for one already running, the prompt steers it) and ends
//! at the step whose `finish` ends OpenCode's loop, or at a `step.failed`. An item is a text or a
//! reasoning block of an assistant message (keyed `<assistant message id>:<block id>`, the block
//! ids restart at `text-0` in every message, a key no provider message holds and so left out of
//! `providerRefs`) or a tool call (keyed by its call id), each started, streamed and ended by
//! events of its own.

use agentwire_canonical::UsageScope;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, ContextCompactionContent, ItemContent, ItemLifecyclePayload, ItemStatus,
    ProviderRuntimeEvent, RuntimeEvent, ThreadTokenUsageUpdatedPayload, TurnState,
};
use agentwire_core::conversation;
use agentwire_core::decision::Decision;
use agentwire_core::emit::Raw;
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{TurnEnd, turn_outcome};
use agentwire_core::usage;
use agentwire_opencode::{
    EventPermissionV2AskedProperties, EventQuestionV2AskedProperties, EventSessionNextStepEndedProperties,
    EventSessionNextStepFailedProperties, LlmToolContent, PermissionV2Reply, Prompt, SessionErrorUnknown,
};
use serde_json::{Map, Value};

use super::{Asked, OpencodeNormalizer};
use crate::parts::{
    ToolView, error_status, reasoning_content, text_content, tool_content, tool_output, tool_title, tool_type,
};
use crate::session_error::{Ending, next_ending};
use crate::steps::{self, GOES_ON, add, add_tokens, next_tokens};

/// A v2 tool call as its events told it so far: the tool and its input.
pub(super) struct NextCall {
    tool: String,
    input: Map<String, Value>,
}

/// How far a v2 tool call is.
enum CallState<'a> {
    /// Its input streams in, or it runs (with the output it reported so far).
    Running(Option<(String, &'a Map<String, Value>)>),
    /// It ended with its output and structured result.
    Succeeded(String, &'a Map<String, Value>),
    /// It ended with an error.
    Failed(&'a SessionErrorUnknown),
}

/// The key of an assistant message's text or reasoning block.
pub(super) fn block(message: &str, block: &str) -> String {
    conversation::part(message, block)
}

impl OpencodeNormalizer {
    /// A prompt the runner admitted (`admitted`) or took into the conversation: the turn starts
    /// at the first of the two when none runs; the prompt's text is the user's item once the
    /// runner takes it. A prompt admitted while a turn runs waits (`queue`) or steers the running
    /// turn: it is carried as the session's input of the moment until the runner takes it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn next_prompt(
        &mut self,
        session: &str,
        message: &str,
        prompt: &Prompt,
        admitted: bool,
        frame: &Frame<'_>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let running = self.turns.contains_key(session);
        match (admitted, running) {
            (true, true) => self.configured(frame, raw, out),
            (true, false) => self.start_turn(session, message, raw, out),
            (false, running) => {
                if !running {
                    self.start_turn(session, message, raw, out);
                }
                let parent = self.parents.get(session).cloned();
                let data = text_content(true, &prompt.text, parent);
                self.item(
                    session,
                    message,
                    CanonicalItemType::UserMessage,
                    None,
                    data,
                    ItemStatus::Completed,
                    raw,
                    out,
                );
            }
        }
    }

    /// A step starts: the turn it belongs to when the stream joined a turn already running (its
    /// prompt not seen), else the agent and model it runs with, as the session's configuration.
    pub(super) fn next_step_started(
        &mut self,
        session: &str,
        message: &str,
        frame: &Frame<'_>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if self.turns.contains_key(session) {
            self.configured(frame, raw, out);
        } else {
            self.start_turn(session, message, raw, out);
        }
    }

    /// A text or reasoning block: started empty, streamed, ended with its whole text.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn next_block(
        &mut self,
        session: &str,
        key: &str,
        item_type: CanonicalItemType,
        text: Option<&str>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let parent = self.parents.get(session).cloned();
        let whole = text.unwrap_or_default();
        let data = if item_type == CanonicalItemType::Reasoning {
            reasoning_content(whole, parent)
        } else {
            text_content(false, whole, parent)
        };
        let status = match text {
            Some(_) => ItemStatus::Completed,
            None => ItemStatus::InProgress,
        };
        self.item(session, key, item_type, None, data, status, raw, out);
    }

    /// A tool call's input starts streaming: its item starts, with the tool's name.
    pub(super) fn next_tool_started(
        &mut self,
        session: &str,
        call: &str,
        tool: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.next_calls.insert(
            call.to_string(),
            NextCall {
                tool: tool.to_string(),
                input: Map::new(),
            },
        );
        self.calls.insert(call.to_string(), call.to_string());
        self.next_tool(session, call, CallState::Running(None), raw, out);
    }

    /// A piece of the call's input, or its end: the item as it stands.
    pub(super) fn next_tool_input(
        &mut self,
        session: &str,
        call: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.next_tool(session, call, CallState::Running(None), raw, out);
    }

    /// The tool's whole input (`tool.called`): the call runs.
    pub(super) fn next_tool_called(
        &mut self,
        session: &str,
        call: &str,
        tool: &str,
        input: &Map<String, Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let entry = self.next_calls.entry(call.to_string()).or_insert_with(|| NextCall {
            tool: tool.to_string(),
            input: Map::new(),
        });
        entry.tool = tool.to_string();
        entry.input = input.clone();
        self.calls.insert(call.to_string(), call.to_string());
        if tool_type(tool) == CanonicalItemType::CollabAgentToolCall {
            let turn = self.turns.get(session).cloned();
            let context = self.ledger.item_context_in(session, turn.as_deref(), call, None);
            if let Some(item) = context.item_id {
                self.tasks.insert(session.to_string(), item);
            }
        }
        self.next_tool(session, call, CallState::Running(None), raw, out);
    }

    /// What a call reported while it runs (`tool.progress`), or how it ended.
    pub(super) fn next_tool_progress(
        &mut self,
        session: &str,
        call: &str,
        content: &[LlmToolContent],
        structured: &Map<String, Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let state = CallState::Running(Some((tool_output(content), structured)));
        self.next_tool(session, call, state, raw, out);
    }

    /// A call that ended: with its output (`tool.success`) or an error (`tool.failed`).
    pub(super) fn next_tool_ended(
        &mut self,
        session: &str,
        call: &str,
        result: Result<(&[LlmToolContent], &Map<String, Value>), &SessionErrorUnknown>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let state = match result {
            Ok((content, structured)) => CallState::Succeeded(tool_output(content), structured),
            Err(error) => CallState::Failed(error),
        };
        self.next_tool(session, call, state, raw, out);
        self.calls.remove(call);
        if let Some(ended) = self.next_calls.remove(call)
            && tool_type(&ended.tool) == CanonicalItemType::CollabAgentToolCall
        {
            self.tasks.remove(session);
        }
    }

    /// A command a person ran with `!` starts: a command item.
    pub(super) fn next_shell_started(
        &mut self,
        session: &str,
        call: &str,
        command: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let mut input = Map::new();
        input.insert("command".to_string(), Value::String(command.to_string()));
        let tool = "bash".to_string();
        self.next_calls.insert(call.to_string(), NextCall { tool, input });
        self.next_tool(session, call, CallState::Running(None), raw, out);
    }

    /// The person's command ended with its output.
    pub(super) fn next_shell_ended(
        &mut self,
        session: &str,
        call: &str,
        output: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let structured = Map::new();
        self.next_tool(
            session,
            call,
            CallState::Succeeded(output.to_string(), &structured),
            raw,
            out,
        );
        self.next_calls.remove(call);
    }

    /// The runner compacts the conversation: a context-compaction item, started with what
    /// triggered it and completed with its summary.
    pub(super) fn next_compaction(
        &mut self,
        session: &str,
        message: &str,
        trigger: &str,
        summary: Option<&str>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let data = ItemContent::ContextCompaction(ContextCompactionContent {
            summary: summary.map(str::to_string),
            trigger: Some(trigger.to_string()),
            parent_item_id: self.parents.get(session).cloned(),
        });
        let status = match summary {
            Some(_) => ItemStatus::Completed,
            None => ItemStatus::InProgress,
        };
        let item_type = CanonicalItemType::ContextCompaction;
        self.item(session, message, item_type, None, data, status, raw, out);
    }

    /// A piece of the compaction's summary: the item, its summary so far.
    pub(super) fn next_compaction_delta(
        &mut self,
        session: &str,
        message: &str,
        delta: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.ledger.append_item_text(session, message, "summary", delta);
        let turn = self.turns.get(session).cloned();
        let context = self
            .ledger
            .item_context_in(session, turn.as_deref(), message, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: CanonicalItemType::ContextCompaction,
            status: Some(ItemStatus::InProgress),
            title: None,
            detail: None,
            data: self.ledger.item(session, message).and_then(|open| open.data.clone()),
        };
        self.ledger.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
    }

    /// The call's item as it stands: its input, what it output and its status.
    fn next_tool(
        &mut self,
        session: &str,
        call: &str,
        state: CallState<'_>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let empty = Map::new();
        let (tool, input) = match self.next_calls.get(call) {
            Some(known) => (known.tool.clone(), known.input.clone()),
            None => (String::new(), Map::new()),
        };
        let view = match &state {
            CallState::Running(progress) => ToolView {
                input: &input,
                output: progress.as_ref().map(|(output, _)| output.as_str()),
                error: None,
                title: None,
                metadata: progress.as_ref().map(|(_, structured)| *structured),
                status: ItemStatus::InProgress,
                done: false,
            },
            CallState::Succeeded(output, structured) => ToolView {
                input: &input,
                output: Some(output),
                error: None,
                title: None,
                metadata: Some(structured),
                status: ItemStatus::Completed,
                done: true,
            },
            CallState::Failed(error) => ToolView {
                input: &input,
                output: None,
                error: Some(&error.message),
                title: None,
                metadata: Some(&empty),
                status: error_status(&error.message),
                done: true,
            },
        };
        let parent = self.parents.get(session).cloned();
        let data = tool_content(&tool, &view, parent);
        let title = Some(tool_title(&tool, &view));
        self.item(session, call, tool_type(&tool), title, data, view.status, raw, out);
    }

    /// A step's end: the thread's tokens (the step's and the thread's so far), then the turn's
    /// end when OpenCode's loop ends with this step.
    pub(super) fn next_step_ended(
        &mut self,
        step: &EventSessionNextStepEndedProperties,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let session = step.session_id.as_str();
        let tokens = next_tokens(&step.tokens);
        let sums = self.steps.entry(session.to_string()).or_default();
        let total = add_tokens(sums.thread.as_ref(), &tokens);
        sums.thread = Some(total.clone());
        sums.turn = Some(add_tokens(sums.turn.as_ref(), &tokens));
        sums.cost = Some(match &sums.cost {
            Some(sum) => add(sum, &step.cost),
            None => step.cost.clone(),
        });
        let context = self.session_context(session, raw);
        let usage = usage::snapshot(
            Some(steps::usage(&total, None, UsageScope::Thread)),
            Some(steps::usage(&tokens, Some(&step.cost), UsageScope::Call)),
        );
        let payload = ThreadTokenUsageUpdatedPayload { usage };
        self.ledger
            .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
        if !GOES_ON.contains(&step.finish.as_str()) {
            let end = TurnEnd::new(turn_outcome(TurnState::Completed, Some(step.finish.clone())));
            self.end_turn_as(session, raw, end, out);
        }
    }

    /// A step that failed ends its turn: interrupted by a person's stop, else failed with the
    /// error as the turn's one `runtime.error`.
    pub(super) fn next_step_failed(
        &mut self,
        step: &EventSessionNextStepFailedProperties,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Ending {
            state,
            name,
            message,
            detail,
        } = next_ending(&step.error);
        let outcome = turn_outcome(state, name.map(str::to_string));
        let end = TurnEnd::with_error(outcome, Some((message.clone(), detail.clone())));
        if !self.end_turn_as(&step.session_id, raw, end, out) {
            self.session_failed(&step.session_id, message, detail, raw, out);
        }
    }

    /// A v2 permission: on the item of the tool call it names.
    pub(super) fn next_permission(
        &mut self,
        asked: &EventPermissionV2AskedProperties,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let request_type = super::permission_type(&asked.action);
        let args = serde_json::to_value(asked).ok();
        let call = asked.source.as_ref().map(|source| source.call_id.as_str());
        self.ask(
            &asked.session_id,
            &asked.id,
            call,
            Asked::PermissionV2,
            (request_type, super::permission_detail(&asked.action, &asked.resources)),
            args,
            None,
            raw,
            out,
        );
    }

    /// A v2 question: on the item of the tool call it names.
    pub(super) fn next_question(
        &mut self,
        asked: &EventQuestionV2AskedProperties,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let questions = serde_json::to_value(&asked.questions).ok();
        let args = serde_json::to_value(asked).ok();
        let call = asked.tool.as_ref().map(|tool| tool.call_id.as_str());
        self.ask(
            &asked.session_id,
            &asked.id,
            call,
            Asked::QuestionV2,
            (
                CanonicalRequestType::ToolUserInput,
                super::questions_detail(asked.questions.iter().map(|question| question.question.as_str())),
            ),
            args,
            questions,
            raw,
            out,
        );
    }
}

/// The decision a v2 permission reply says.
pub(super) fn permission_decision(reply: PermissionV2Reply) -> Decision {
    match reply {
        PermissionV2Reply::Once => Decision::Accept,
        PermissionV2Reply::Always => Decision::AcceptForSession,
        PermissionV2Reply::Reject => Decision::Decline,
    }
}
