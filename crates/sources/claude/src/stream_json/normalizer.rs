//! The Claude normalizer: one session of stream-json, bare or with its control frames.
//!
//! Claude has no turn or item ids of its own; they are synthesized (spec 8.5) and derived
//! through [`agentwire_core::ids`] like every other id:
//! - the thread is Claude's `session_id`;
//! - a turn is a prompt's position in the session (`1`, `2`, ...): it starts with the first
//!   message the CLI sends for a prompt (`system/init`, or any message of the turn) and ends with
//!   its `result`; a second `result` for one prompt (a background subagent finished, 0.3.x) is a
//!   turn of its own;
//! - text and reasoning items are `<message id>:<block index>`; tool items are the `tool_use` id.
//!
//! A tool item is not complete when its input block stops (that is `item.updated`, the input
//! final): it completes when its `tool_result` arrives in a `user` message, `failed` when
//! `is_error`. A subagent's messages (`parent_tool_use_id`) are items of their own, each
//! naming the Task item as `parentItemId`, never in the parent turn's text.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

use agentwire_canonical::{
    AccountRateLimitsUpdatedPayload, AuthStatusPayload, CanonicalItemType, ContentDeltaPayload, ContentStreamKind,
    ContextCompactionContent, FilesPersistedPayload, HookCompletedPayload, HookOutcome, HookProgressPayload,
    HookStartedPayload, ItemLifecyclePayload, ItemStatus, Json, PersistedFile, PersistedFileFailure, PlanStepStatus,
    ProviderRuntimeEvent, RequestOpenedPayload, RequestResolvedPayload, RuntimeErrorClass, RuntimeErrorPayload,
    RuntimeEvent, RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId, RuntimeWarningPayload,
    SessionConfiguredPayload, TaskCompletedPayload, TaskProgressPayload, TaskStartedPayload, TaskStatus, ThreadState,
    ThreadStateChangedPayload, TokenUsage, ToolProgressPayload, ToolSummaryPayload, TurnCompletedPayload, TurnPlanStep,
    TurnState, UsageScope, UserMessageContent,
};
use agentwire_claude::{
    BetaContentBlock, BetaRawContentBlockDelta, BetaRawMessageStreamEvent, ClaudeStreamLine, ContentBlockParam,
    MessageParamContent, PermissionResult, RawJson, SdkAssistantMessage, SdkControlMcpMessageRequest,
    SdkControlPermissionRequest, SdkControlRequestInner, SdkControlResponsePayload, SdkHookCallbackRequest,
    SdkHookResponseMessageOutcome, SdkPartialAssistantMessage, SdkPermissionDenial, SdkResultMessage, SdkSystemMessage,
    SdkTaskNotificationMessageStatus, SdkTaskUpdatedMessagePatch, SdkUserMessage, TerminalReason,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::offer::{Offer, Pending, permission_decision};
use super::wire;
use crate::claude_code::{
    AssistantBlock, CLI_NOTES, INTERRUPT_NOTE, SYNTHETIC_MODEL, ToolKind, ToolOutcome, UserBlock, assistant_block,
    builtin, cli_denial, message_text, subject_key, task_status, text_content, todo_plan, tool_face, tool_kind,
    tool_outcome, tool_title, user_block, user_content, user_text_content,
};
use crate::conversation::Cursor;
use crate::usage;
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::drop_synthesized_refs;
use agentwire_core::decision::Decision;
use agentwire_core::decode::PathTracking;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ids;
use agentwire_core::ledger::{Answer, Ledger, OpenItemFace, OpenRequest, Place};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::source::SourceSpec;
use agentwire_core::usage::{empty as empty_usage, snapshot as usage_snapshot, with_provider_cost};

/// The key under `params._meta` of an MCP `tools/call` naming the `tool_use` it serves.
const MCP_TOOL_USE_ID: &str = "claudecode/toolUseId";

/// How many reported denials a session remembers: a result repeats the denials of its own
/// turn, so the recent ones suffice, and memory stays bounded over a long session.
const DENIALS_REMEMBERED: usize = 256;

/// A tool call seen and not yet answered by its `tool_result`.
struct Tool {
    kind: ToolKind,
    name: String,
    input: Value,
    /// Whether `item.updated` "input final" was sent (the block's stop and the `assistant`
    /// message both say it; one is enough).
    input_final: bool,
    /// The subagent call whose work it is.
    parent: Option<RuntimeItemId>,
}

impl Tool {
    /// The call's face as its input stands.
    fn face(&self) -> OpenItemFace {
        tool_face(&self.name, self.kind, &self.input, self.parent.as_ref())
    }
}

/// A task of the session's task list (Claude Code's `TaskCreate`/`TaskUpdate` tools): the id
/// the CLI assigned, the subject (the plan step's text) and where it stands. The description has
/// no place in a canonical plan step, so it is not kept.
#[derive(PartialEq)]
struct ListedTask {
    id: String,
    subject: String,
    status: PlanStepStatus,
}

/// What a streamed content block opens.
enum Streamed {
    /// A tool call: its `tool_use` id, tool name and (empty) input.
    Tool(String, String, Value),
    /// A text, reasoning or compaction item.
    Text(CanonicalItemType),
}

/// The normalizer of one Claude session.
pub struct ClaudeNormalizer {
    ledger: Ledger<Pending>,
    /// The session (the thread), once known, and the open turn: its key (its position), whether
    /// it was interrupted (by the user, or a deny with `interrupt`) and the item keys of its
    /// `assistant` messages' content blocks (one message per block).
    at: Cursor,
    /// The `error` of the last `<synthetic>` assistant message of the open turn.
    assistant_error: Option<String>,
    /// The message being streamed (`message_start`), and its blocks by index -> item key.
    streamed_message: Option<String>,
    /// The streamed message's usage so far (`message_start`'s input side, `message_delta`'s
    /// output): the call's figures each update reports.
    streamed_usage: Option<TokenUsage>,
    streamed_blocks: BTreeMap<i64, String>,
    /// A `compact_boundary` was reported: the next user message the CLI writes is the summary,
    /// of a compaction the boundary's `trigger` started.
    summary_due: Option<Option<String>>,
    /// Tool calls not yet completed, by `tool_use` id.
    tools: BTreeMap<String, Tool>,
    /// Tool calls whose denial was already reported as a request, the most recent
    /// [`DENIALS_REMEMBERED`] (a result lists the denials a `can_use_tool` answer reported).
    denials_reported: VecDeque<String>,
    /// Control requests the client sent, by `request_id` -> subtype (to read their answers).
    client_requests: BTreeMap<String, &'static str>,
    /// Hook callbacks the CLI asked the client to run and it has not answered, by `request_id`
    /// -> the tool call the hook serves (the hook's `hook.completed` rides on the answer).
    hooks: BTreeMap<String, Option<String>>,
    /// Prompts the client sent that no turn shows yet (the first one comes before the CLI names
    /// the session; one sent while a turn runs starts the next).
    prompts: VecDeque<(Box<RawValue>, UserMessageContent)>,
    /// The session's running cost the last `result` reported (`total_cost_usd`), from which
    /// each turn's own cost is told.
    session_cost: f64,
    /// Subagent tasks, by the Task's `tool_use` id -> the task id and whether `task.completed`
    /// was sent.
    tasks: BTreeMap<String, (String, bool)>,
    /// The subagent call whose message is being mapped (its canonical item id): a subagent's
    /// messages (`parent_tool_use_id`) are items of their own, each naming it as `parentItemId`.
    subagent: Option<RuntimeItemId>,
    /// The session's task list, in creation order: Claude Code 0.3.x keeps its to-do list with
    /// `TaskCreate`/`TaskUpdate` calls that each change one task, so the whole plan a
    /// `turn.plan.updated` carries is kept here (a task list outlives its turn).
    task_list: Vec<ListedTask>,
    /// The turn each subagent task started in, by the Task call's `tool_use` id: a background
    /// subagent's work that goes on after that turn ended is still that turn's, under its call.
    task_turns: BTreeMap<String, String>,
    /// A background task reported its end while a turn was open: the CLI wakes the model with
    /// it, and the `init` that follows begins that new turn.
    woken: bool,
    /// Turns whose model work is over but whose `result` is still due, oldest first: the CLI
    /// prints a turn's `result` after the turn a background task's end woke (0.3.x). Each
    /// `result` ends the oldest.
    awaiting: VecDeque<String>,
}

impl ClaudeNormalizer {
    /// A normalizer for one stream of `source` ([`CLAUDE`](crate::stream_json::CLAUDE), or
    /// [`CLAUDE_CONTROL`](crate::stream_json::CLAUDE_CONTROL) for the Agent SDK's
    /// transcript that carries the control protocol too).
    pub fn new(source: &'static SourceSpec, options: Options) -> Self {
        ClaudeNormalizer {
            ledger: Ledger::new(source, options).with_provider_refs(drop_synthesized_refs),
            at: Cursor::default(),
            assistant_error: None,
            streamed_message: None,
            streamed_usage: None,
            streamed_blocks: BTreeMap::new(),
            summary_due: None,
            tools: BTreeMap::new(),
            denials_reported: VecDeque::new(),
            client_requests: BTreeMap::new(),
            hooks: BTreeMap::new(),
            prompts: VecDeque::new(),
            session_cost: 0.0,
            tasks: BTreeMap::new(),
            subagent: None,
            task_list: Vec::new(),
            woken: false,
            awaiting: VecDeque::new(),
            task_turns: BTreeMap::new(),
        }
    }

    /// Opens a turn unless one is open: `turn.started`, the session `running`, and the prompt
    /// that waited for it as its first item.
    fn ensure_turn(&mut self, model: Option<&str>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if !self
            .at
            .start_turn(&mut self.ledger, model.map(str::to_string), raw, out)
        {
            return;
        }
        self.assistant_error = None;
        if let Some((frame, prompt)) = self.prompts.pop_front() {
            let raw = Raw::new(RuntimeEventRawSource::ClaudeSdkMessage, Some("user"), &frame);
            let key = format!("prompt:{}", self.at.turns);
            let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
            self.at
                .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
        }
    }

    /// A prompt the client sent: the person's words, shown as the first item of the turn they
    /// start (at once when the session is idle, else when the running turn ends).
    fn prompt(&mut self, message: &SdkUserMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let prompt = match &message.message.content {
            MessageParamContent::String(text) => user_text_content(text, None, None),
            MessageParamContent::Array(blocks) => user_content(blocks, None, None),
        };
        self.prompts.push_back((raw.payload.to_owned(), prompt));
        self.ensure_turn(None, raw, out);
    }

    fn warning(&mut self, message: String, detail: Option<Value>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let context = self.at.context(&mut self.ledger, Some(raw));
        self.ledger.emit(
            &context,
            RuntimeEvent::RuntimeWarning(RuntimeWarningPayload { message, detail }),
            out,
        );
    }

    // --- items ---

    fn item_open(&self, key: &str) -> bool {
        self.at
            .thread
            .as_deref()
            .is_some_and(|thread| self.ledger.item(thread, key).is_some())
    }

    /// `item.updated` of the open item `key` with `data`, its content as it stands, which the
    /// item keeps (a cut-off item completes with it); `None` for news that changes no content (a
    /// signature, a citation), which repeats the content the item holds.
    fn update_item(
        &mut self,
        key: &str,
        item_type: CanonicalItemType,
        detail: Option<&str>,
        data: Option<Json>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let thread = self.at.thread.clone().unwrap_or_default();
        let open = self.ledger.item(&thread, key);
        let title = open.and_then(|open| open.title.clone());
        let data = match data {
            Some(data) => {
                self.ledger.update_item(&thread, key, data.clone());
                Some(data)
            }
            None => open.and_then(|open| open.data.clone()),
        };
        let context = self.at.item_context(&mut self.ledger, key, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(ItemStatus::InProgress),
            title,
            detail: detail.map(str::to_string),
            data,
        };
        self.ledger.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
    }

    fn delta(
        &mut self,
        key: &str,
        kind: ContentStreamKind,
        text: &str,
        index: Option<i64>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        // What a message says or thinks is its item's text; a tool's output is its result's.
        if matches!(
            kind,
            ContentStreamKind::AssistantText | ContentStreamKind::ReasoningText
        ) && let Some(thread) = self.at.thread.clone()
        {
            self.ledger.append_item_text(&thread, key, "text", text);
        }
        let context = self.at.item_context(&mut self.ledger, key, Some(raw));
        let payload = ContentDeltaPayload {
            stream_kind: kind,
            delta: text.to_string(),
            content_index: index,
            summary_index: None,
        };
        self.ledger.emit(&context, RuntimeEvent::ContentDelta(payload), out);
    }

    // --- messages ---

    /// The Task call `parent_tool_use_id` names when its subagent goes on after the turn ended
    /// (0.3.x runs it in the background) and no turn is known to hold its work: progress of its
    /// task.
    fn late_subagent(&self, parent_tool_use_id: Option<&str>) -> Option<String> {
        parent_tool_use_id
            .filter(|parent| self.at.turn.is_none() && !self.task_turns.contains_key(*parent))
            .map(str::to_string)
    }

    /// Maps a subagent's message in the turn its task started in (`parent_tool_use_id`), when
    /// that is not the open turn: a background subagent's items stay under their call, in the
    /// parent's turn, after that turn ended; the open turn, if any, is left as it was.
    fn in_task_turn(
        &mut self,
        parent_tool_use_id: Option<&str>,
        map: impl FnOnce(&mut Self, &mut Vec<ProviderRuntimeEvent>),
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let task_turn = parent_tool_use_id
            .and_then(|parent| self.task_turns.get(parent))
            .filter(|turn| self.at.turn.as_ref() != Some(*turn))
            .cloned();
        match task_turn {
            Some(turn) => {
                let open = self.at.turn.replace(turn);
                map(self, out);
                self.at.turn = open;
            }
            None => map(self, out),
        }
    }

    /// `task.progress` of the task the Task call `parent` started, `said` what its subagent did.
    fn subagent_progress(&mut self, parent: &str, said: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let task = self.tasks.get(parent).map_or(parent, |(task, _)| task.as_str());
        let payload = TaskProgressPayload {
            task_id: ids::task(self.ledger.source(), self.ledger.session(), task),
            description: said.to_string(),
            usage: None,
            last_tool_name: None,
        };
        let context = self.task_context(Some(parent), Some(raw));
        self.ledger.emit(&context, RuntimeEvent::TaskProgress(payload), out);
    }

    /// A message a subagent sent (`parent_tool_use_id` names the Task call that runs it): its
    /// items name that call's item as their `parentItemId`.
    fn enter_subagent(&mut self, parent_tool_use_id: Option<&str>) {
        self.subagent = parent_tool_use_id.map(|parent| {
            let thread = self.at.thread.as_deref().unwrap_or_default();
            ids::item(self.ledger.source(), thread, parent)
        });
    }

    fn assistant(&mut self, message: &SdkAssistantMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.subagent.is_some() {
            // A subagent's message: its blocks are items of their own, in whichever turn is open.
            for block in &message.message.content {
                let key = self.at.blocks.next(&message.message.id);
                self.assistant_block(&key, block, raw, out);
            }
            return;
        }
        self.ensure_turn(Some(&message.message.model), raw, out);
        if let Some(error) = &message.error {
            self.assistant_error = Some(error.to_string());
        }
        if message.message.model == SYNTHETIC_MODEL {
            return self.api_error(message, raw, out);
        }
        let id = &message.message.id;
        if message.message.content.is_empty() {
            return self
                .at
                .current_state(&mut self.ledger, "an empty assistant message", raw, out);
        }
        for block in &message.message.content {
            let key = self.at.blocks.next(id);
            self.assistant_block(&key, block, raw, out);
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
            AssistantBlock::Item(face) => self.message_item(key, face, raw, out),
            AssistantBlock::ToolCall { id, name, input } => self.tool_call(id, &name, input, raw, out),
            AssistantBlock::ServerToolResult {
                tool_use_id,
                text,
                failed,
                block,
            } => {
                let outcome = ToolOutcome::of_server_result(&text, failed, &block);
                self.tool_result(&tool_use_id, &outcome, None, raw, out);
            }
            AssistantBlock::Unpaired => self
                .at
                .current_state(&mut self.ledger, "an assistant content block", raw, out),
        }
    }

    /// The message the CLI writes in the model's name when the API failed (`model:
    /// "<synthetic>"`, text "API Error: ..."): no one said it, so it is the turn's
    /// `runtime.error` (its text the message), not an assistant item.
    fn api_error(&mut self, message: &SdkAssistantMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let (Some(thread), Some(turn)) = (self.at.thread.clone(), self.at.turn.clone()) else {
            return self
                .at
                .current_state(&mut self.ledger, "an API error for no session", raw, out);
        };
        if !self.ledger.report_turn_error(&thread, &turn) {
            return self
                .at
                .current_state(&mut self.ledger, "the turn's error was reported", raw, out);
        }
        let context = self.ledger.turn_context(&thread, &turn, Some(raw));
        let payload = RuntimeErrorPayload {
            message: message_text(&message.message.content),
            class: Some(RuntimeErrorClass::ProviderError),
            detail: Some(json!({ "error": message.error })),
        };
        self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
    }

    /// A text, reasoning or compaction block of an `assistant` message: its item is completed
    /// at once unless it is streamed (then the block's stop completes it).
    fn message_item(&mut self, key: &str, face: OpenItemFace, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.item_open(key) {
            return self.update_item(key, face.item_type, Some("the message is final"), face.data, raw, out);
        }
        self.at.start_item(&mut self.ledger, key, face.clone(), raw, out);
        self.at
            .complete_item(&mut self.ledger, key, face, ItemStatus::Completed, raw, out);
    }

    /// A `tool_use` block in an `assistant` message: the input is final.
    fn tool_call(&mut self, id: &str, name: &str, input: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let subagent = self.subagent.clone();
        let tool = self.tools.entry(id.to_string()).or_insert_with(|| Tool {
            kind: tool_kind(name),
            name: name.to_string(),
            input: Value::Null,
            input_final: false,
            parent: subagent,
        });
        tool.input = input;
        let said_final = std::mem::replace(&mut tool.input_final, true);
        let face = tool.face();
        let open = self.item_open(id);
        if open && let (Some(thread), Some(turn)) = (self.at.thread.clone(), self.at.turn.clone()) {
            // The input is whole: the item's face (its title is the command, the path, ...) is
            // what a cut-off item keeps.
            self.ledger.open_item((&thread, &turn, id), face.clone());
        }
        match (said_final, open) {
            (true, _) => self
                .at
                .current_state(&mut self.ledger, "the tool's input was final", raw, out),
            (false, true) => self.update_item(id, face.item_type, Some("input final"), face.data, raw, out),
            (false, false) => self.at.start_item(&mut self.ledger, id, face, raw, out),
        }
    }

    /// A tool's result: its output as a delta where the item streams one, then `item.completed`
    /// (`declined` when the call was refused: a denial reported, the CLI's own refusal, an
    /// interrupt, or the `refusal` the result carries). A `TodoWrite` that succeeded is
    /// the turn's plan: one that failed drew none.
    fn tool_result(
        &mut self,
        tool_use_id: &str,
        outcome: &ToolOutcome<'_>,
        refusal: Option<Refusal>,
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
            self.delta(tool_use_id, stream, text, None, raw, out);
        }
        let background = kind == ToolKind::Subagent && outcome.structured.is_some_and(launched_in_background);
        let failed = outcome.failed;
        let plan_changed = !failed && self.change_task_list(&name, &input, text, outcome.structured);
        // A person's refusal was their card: the `result`'s denial of it opens none.
        if refusal == Some(Refusal::Person) {
            self.remember_denial(tool_use_id.to_string());
        }
        let refused = refusal.is_some()
            || self.denials_reported.contains(&tool_use_id.to_string())
            || self.at.interrupted
            || cli_denial(text);
        let (face, status) = tool_outcome(&name, kind, &input, outcome, refused, parent.as_ref());
        self.at
            .complete_item(&mut self.ledger, tool_use_id, face, status, raw, out);
        if plan_changed {
            self.emit_task_list(raw, out);
        }
        if kind == ToolKind::Plan
            && !failed
            && let Some(plan) = todo_plan(&input)
        {
            self.at.plan(&mut self.ledger, plan, raw, out);
        }
        if kind == ToolKind::Subagent && !background {
            let status = if failed {
                TaskStatus::Failed
            } else {
                TaskStatus::Completed
            };
            self.settle_task(tool_use_id, status, Some(text.to_string()), Some(raw), out);
        }
    }

    /// What a `TaskCreate`, `TaskUpdate` or `TaskList` call says of the session's task list,
    /// applied when its result says it succeeded; true when the list changed. A created task's id is
    /// assigned by the CLI and comes back only in the result: the structured `tool_use_result`
    /// (`{"task":{"id","subject"}}`), or, where a CLI gives none, the text "Task #<id> created
    /// successfully: <subject>". An update of a task this session never saw created (one kept
    /// from an earlier session) changes nothing: its subject is unknown, and the call stays
    /// shown as its item. A `TaskList` result whose structured output lists the tasks
    /// (`{"tasks":[{"id","subject","status"}]}`) is the CLI's whole list: it replaces the one
    /// kept here (so tasks of an earlier session join the plan).
    ///
    /// The calls stay `dynamic_tool_call` items ("TaskCreate <subject>"), unlike `TodoWrite`'s
    /// `plan` item: a `TodoWrite` input is the whole list, a task call changes one task, so a
    /// `plan` item would show one task as if it were the plan. The plan is `turn.plan.updated`.
    fn change_task_list(&mut self, name: &str, input: &Value, text: &str, reported: Option<&Value>) -> bool {
        match builtin(name) {
            "TaskCreate" => {
                let created = reported.and_then(|reported| reported.get("task"));
                let id = created
                    .and_then(|task| task.get("id"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| created_task_id(text));
                let subject = created
                    .and_then(|task| task.get("subject"))
                    .or_else(|| input.get("subject"))
                    .and_then(Value::as_str);
                let (Some(id), Some(subject)) = (id, subject) else {
                    return false;
                };
                let task = ListedTask {
                    id,
                    subject: subject.to_string(),
                    status: PlanStepStatus::Pending,
                };
                match self.task_list.iter_mut().find(|listed| listed.id == task.id) {
                    Some(listed) => *listed = task,
                    None => self.task_list.push(task),
                }
                true
            }
            "TaskUpdate" => {
                if reported.and_then(|reported| reported.get("success")) == Some(&Value::Bool(false)) {
                    return false;
                }
                let id = input.get("taskId").and_then(Value::as_str);
                let Some(index) = id.and_then(|id| self.task_list.iter().position(|listed| listed.id == id)) else {
                    return false;
                };
                let status = input.get("status").and_then(Value::as_str);
                if status == Some("deleted") {
                    self.task_list.remove(index);
                    return true;
                }
                let status = status.and_then(task_status);
                let listed = &mut self.task_list[index];
                let mut changed = false;
                if let Some(status) = status
                    && status != listed.status
                {
                    listed.status = status;
                    changed = true;
                }
                if let Some(subject) = input.get("subject").and_then(Value::as_str)
                    && subject != listed.subject
                {
                    listed.subject = subject.to_string();
                    changed = true;
                }
                changed
            }
            "TaskList" => {
                let Some(tasks) = reported
                    .and_then(|reported| reported.get("tasks"))
                    .and_then(Value::as_array)
                else {
                    return false;
                };
                let listed: Vec<ListedTask> = tasks
                    .iter()
                    .filter_map(|task| {
                        Some(ListedTask {
                            id: task.get("id")?.as_str()?.to_string(),
                            subject: task.get("subject")?.as_str()?.to_string(),
                            status: task_status(task.get("status")?.as_str()?)?,
                        })
                    })
                    .collect();
                let changed = listed != self.task_list;
                self.task_list = listed;
                changed
            }
            _ => false,
        }
    }

    /// `turn.plan.updated` with the session's whole task list.
    fn emit_task_list(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let plan = self
            .task_list
            .iter()
            .map(|task| TurnPlanStep {
                step: task.subject.clone(),
                status: task.status,
            })
            .collect();
        self.at.plan(&mut self.ledger, plan, raw, out);
    }

    /// `task.completed` of the task a Task call started, unless it was reported ended.
    fn settle_task(
        &mut self,
        tool_use_id: &str,
        status: TaskStatus,
        summary: Option<String>,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some((task, ended)) = self.tasks.get_mut(tool_use_id) else {
            return;
        };
        if std::mem::replace(ended, true) {
            return;
        }
        let task = task.clone();
        let payload = TaskCompletedPayload {
            task_id: ids::task(self.ledger.source(), self.ledger.session(), &task),
            status,
            summary,
            usage: None,
        };
        let context = self.task_context(Some(tool_use_id), raw);
        self.ledger.emit(&context, RuntimeEvent::TaskCompleted(payload), out);
    }

    fn user(&mut self, message: &SdkUserMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let blocks: Vec<&ContentBlockParam> = match &message.message.content {
            MessageParamContent::String(text) => return self.user_text(message, text, raw, out),
            MessageParamContent::Array(blocks) => blocks.iter().collect(),
        };
        let has_results = blocks
            .iter()
            .any(|block| matches!(block, ContentBlockParam::ToolResult(_)));
        if has_results && self.subagent.is_none() {
            self.ensure_turn(None, raw, out);
        }
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
                        structured: message.tool_use_result.as_ref(),
                        failed,
                    };
                    let refusal = refusal(message, tool_use_id);
                    self.tool_result(tool_use_id, &outcome, refusal, raw, out);
                    mapped = true;
                }
                UserBlock::Text(text) => {
                    self.user_text(message, text, raw, out);
                    mapped = true;
                }
                UserBlock::Other => {}
            }
        }
        if !mapped {
            self.at.current_state(
                &mut self.ledger,
                "a user message with no prompt or tool result",
                raw,
                out,
            );
        }
    }

    /// Text of a user message the CLI reports: a person's prompt it replays (a `user_message`
    /// item), the summary it continues from after a compaction (the first user message after
    /// `compact_boundary`, a `context_compaction` item: no one's words, though sent as a
    /// user's), a note it injects itself ([`CLI_NOTES`]: the interrupt note, local command
    /// echoes, a synthetic prompt), no one's words: a note of the CLI's
    /// ([`Cursor::cli_note`]), which starts no turn; or a subagent's prompt, the first item of
    /// its work.
    fn user_text(&mut self, message: &SdkUserMessage, text: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let key = message
            .uuid
            .clone()
            .unwrap_or_else(|| format!("user:{}", self.at.turns));
        if let Some(parent) = self.subagent.clone() {
            let prompt = user_text_content(text, None, Some(&parent));
            let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
            return self
                .at
                .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
        }
        let summary = self.summary_due.is_some() && message.is_replay != Some(true);
        let trigger = std::mem::take(&mut self.summary_due).flatten();
        if text.starts_with(INTERRUPT_NOTE) {
            self.at.interrupted = true;
        }
        // The summary is sent as a synthetic message since 0.3.x: a compaction all the same.
        let note = message.is_synthetic == Some(true) || CLI_NOTES.iter().any(|note| text.starts_with(note));
        if note && !summary {
            return self.at.cli_note(&mut self.ledger, &key, text, raw, out);
        }
        self.ensure_turn(None, raw, out);
        let face = if summary {
            let compaction = ContextCompactionContent {
                summary: Some(text.to_string()),
                trigger,
                parent_item_id: None,
            };
            OpenItemFace::untitled(CanonicalItemType::ContextCompaction, content::data(compaction))
        } else {
            let prompt = user_text_content(text, None, None);
            OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt))
        };
        self.at
            .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
    }

    fn stream_event(
        &mut self,
        message: &SdkPartialAssistantMessage,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if self.subagent.is_some() {
            // The whole message follows, and draws the subagent's items.
            return self
                .at
                .current_state(&mut self.ledger, "a subagent's message streamed", raw, out);
        }
        match &message.event {
            BetaRawMessageStreamEvent::MessageStart(start) => {
                self.ensure_turn(Some(&start.message.model), raw, out);
                self.streamed_message = Some(start.message.id.clone());
                self.streamed_blocks.clear();
                // The input side of the call's usage (`message_delta` reports the output side).
                let call = usage::message(&start.message.usage, UsageScope::Call);
                self.streamed_usage = call.as_ref().ok().cloned();
                let snapshot = call.map(|call| usage_snapshot(None, Some(call)));
                usage::report(&mut self.ledger, &mut self.at, snapshot, "message_start", raw, out);
            }
            BetaRawMessageStreamEvent::MessageDelta(delta) => {
                self.ensure_turn(None, raw, out);
                let call = usage::delta(self.streamed_usage.as_ref(), &delta.usage);
                if let Ok(call) = &call {
                    self.streamed_usage = Some(call.clone());
                }
                let snapshot = call.map(|call| usage_snapshot(None, Some(call)));
                usage::report(&mut self.ledger, &mut self.at, snapshot, "message_delta", raw, out);
            }
            // A message cut short says which of its blocks were never finished: metadata, since
            // the turn's end settles whatever is still open.
            BetaRawMessageStreamEvent::MessageStop => match &message.abandoned_blocks {
                Some(abandoned) => self.at.carry(&mut self.ledger, "abandonedBlocks", abandoned, raw, out),
                None => self
                    .at
                    .current_state(&mut self.ledger, "the model's message ended", raw, out),
            },
            BetaRawMessageStreamEvent::ContentBlockStart(start) => {
                self.ensure_turn(None, raw, out);
                let message = self.streamed_message.clone().unwrap_or_default();
                let block_key = format!("{message}:{}", start.index);
                let text_item = |item_type| Some(Streamed::Text(item_type));
                let streamed = match &start.content_block {
                    BetaContentBlock::ToolUse(tool) => {
                        Some(Streamed::Tool(tool.id.clone(), tool.name.clone(), tool.input.clone()))
                    }
                    BetaContentBlock::McpToolUse(tool) => Some(Streamed::Tool(
                        tool.id.clone(),
                        format!("mcp__{}__{}", tool.server_name, tool.name),
                        tool.input.clone(),
                    )),
                    BetaContentBlock::ServerToolUse(tool) => Some(Streamed::Tool(
                        tool.id.clone(),
                        tool.name.to_string(),
                        Value::Object(tool.input.clone()),
                    )),
                    BetaContentBlock::Text(_) => text_item(CanonicalItemType::AssistantMessage),
                    BetaContentBlock::Thinking(_) | BetaContentBlock::RedactedThinking(_) => {
                        text_item(CanonicalItemType::Reasoning)
                    }
                    BetaContentBlock::Compaction(_) => text_item(CanonicalItemType::ContextCompaction),
                    // Server tool results complete their call when the `assistant` message
                    // carries them whole.
                    BetaContentBlock::WebSearchToolResult(_)
                    | BetaContentBlock::WebFetchToolResult(_)
                    | BetaContentBlock::CodeExecutionToolResult(_)
                    | BetaContentBlock::BashCodeExecutionToolResult(_)
                    | BetaContentBlock::TextEditorCodeExecutionToolResult(_)
                    | BetaContentBlock::ToolSearchToolResult(_)
                    | BetaContentBlock::McpToolResult(_)
                    | BetaContentBlock::ContainerUpload(_) => None,
                };
                match streamed {
                    Some(Streamed::Tool(id, name, input)) => {
                        self.streamed_blocks.insert(start.index, id.clone());
                        let tool = Tool {
                            kind: tool_kind(&name),
                            name,
                            input,
                            input_final: false,
                            parent: None,
                        };
                        let face = tool.face();
                        self.tools.insert(id.clone(), tool);
                        self.at.start_item(&mut self.ledger, &id, face, raw, out);
                    }
                    Some(Streamed::Text(item_type)) => {
                        self.streamed_blocks.insert(start.index, block_key.clone());
                        let face = OpenItemFace {
                            item_type,
                            title: None,
                            data: Some(content::data(text_content(item_type, "", None))),
                        };
                        self.at.start_item(&mut self.ledger, &block_key, face, raw, out);
                    }
                    None => {
                        self.streamed_blocks.insert(start.index, block_key);
                        self.at
                            .current_state(&mut self.ledger, "a streamed content block started", raw, out);
                    }
                }
            }
            BetaRawMessageStreamEvent::ContentBlockDelta(delta) => {
                let key = self.streamed_blocks.get(&delta.index).cloned().unwrap_or_default();
                match &delta.delta {
                    BetaRawContentBlockDelta::TextDelta(text) => self.delta(
                        &key,
                        ContentStreamKind::AssistantText,
                        &text.text,
                        Some(delta.index),
                        raw,
                        out,
                    ),
                    BetaRawContentBlockDelta::ThinkingDelta(thinking) => self.delta(
                        &key,
                        ContentStreamKind::ReasoningText,
                        &thinking.thinking,
                        Some(delta.index),
                        raw,
                        out,
                    ),
                    // The input is not the call's until it is whole: the item's content stays what
                    // it was, the partial input rides in `raw`.
                    BetaRawContentBlockDelta::InputJsonDelta(_) => {
                        let item_type = self
                            .tools
                            .get(&key)
                            .map_or(CanonicalItemType::DynamicToolCall, |tool| tool.kind.item_type());
                        self.update_item(&key, item_type, Some("input streaming"), None, raw, out);
                    }
                    BetaRawContentBlockDelta::SignatureDelta(_) => {
                        self.update_item(&key, CanonicalItemType::Reasoning, Some("signed"), None, raw, out)
                    }
                    BetaRawContentBlockDelta::CitationsDelta(_) => self.update_item(
                        &key,
                        CanonicalItemType::AssistantMessage,
                        Some("citation"),
                        None,
                        raw,
                        out,
                    ),
                    BetaRawContentBlockDelta::CompactionDelta(compaction) => {
                        if let (Some(thread), Some(text)) = (self.at.thread.clone(), &compaction.content) {
                            self.ledger.append_item_text(&thread, &key, "summary", text);
                        }
                        self.update_item(&key, CanonicalItemType::ContextCompaction, None, None, raw, out)
                    }
                }
            }
            BetaRawMessageStreamEvent::ContentBlockStop(stop) => {
                let key = self.streamed_blocks.get(&stop.index).cloned().unwrap_or_default();
                if let Some(tool) = self.tools.get_mut(&key) {
                    if std::mem::replace(&mut tool.input_final, true) {
                        return self
                            .at
                            .current_state(&mut self.ledger, "the tool's input was final", raw, out);
                    }
                    let face = tool.face();
                    return self.update_item(&key, face.item_type, Some("input final"), face.data, raw, out);
                }
                let open = self
                    .at
                    .thread
                    .as_deref()
                    .and_then(|thread| self.ledger.item(thread, &key))
                    .map(|open| (open.item_type, open.data.clone()));
                match open {
                    Some((item_type, data)) => {
                        let face = OpenItemFace {
                            item_type,
                            title: None,
                            data,
                        };
                        self.at
                            .complete_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out)
                    }
                    None => self
                        .at
                        .current_state(&mut self.ledger, "a streamed content block ended", raw, out),
                }
            }
        }
    }

    /// A `result` ends the oldest turn still owed one (a turn a background task's end followed
    /// with a turn of its own), else the open turn.
    fn result(&mut self, result: &SdkResultMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match self.awaiting.pop_front() {
            Some(owed) => {
                let running = self.at.turn.replace(owed);
                self.end_with_result(result, raw, out);
                self.at.turn = running;
            }
            None => {
                self.end_with_result(result, raw, out);
                // A subagent's calls outlive the turn (a background task's go on): their results
                // still complete them.
                self.tools.retain(|_, tool| tool.parent.is_some());
            }
        }
    }

    fn end_with_result(&mut self, result: &SdkResultMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ensure_turn(None, raw, out);
        let subtype = result.tag();
        let success = matches!(result, SdkResultMessage::Success(_));
        // The usage objects are typed as sent (`x-raw-json`): newer CLIs add members the pinned types
        // do not model (`output_tokens_details`, `modelUsage`'s `costBasis`).
        let (is_error, terminal, denials, errors, cost, stop, text, usage, model_usage) = match result {
            SdkResultMessage::Success(r) => (
                r.is_error,
                r.terminal_reason,
                &r.permission_denials,
                None,
                &r.total_cost_usd,
                &r.stop_reason,
                Some(&r.result),
                &r.usage,
                &r.model_usage,
            ),
            SdkResultMessage::ErrorDuringExecution(r) => (
                true,
                r.terminal_reason,
                &r.permission_denials,
                Some(&r.errors),
                &r.total_cost_usd,
                &r.stop_reason,
                None,
                &r.usage,
                &r.model_usage,
            ),
            SdkResultMessage::ErrorMaxTurns(r) => (
                true,
                r.terminal_reason,
                &r.permission_denials,
                Some(&r.errors),
                &r.total_cost_usd,
                &r.stop_reason,
                None,
                &r.usage,
                &r.model_usage,
            ),
            SdkResultMessage::ErrorMaxBudgetUsd(r) => (
                true,
                r.terminal_reason,
                &r.permission_denials,
                Some(&r.errors),
                &r.total_cost_usd,
                &r.stop_reason,
                None,
                &r.usage,
                &r.model_usage,
            ),
            SdkResultMessage::ErrorMaxStructuredOutputRetries(r) => (
                true,
                r.terminal_reason,
                &r.permission_denials,
                Some(&r.errors),
                &r.total_cost_usd,
                &r.stop_reason,
                None,
                &r.usage,
                &r.model_usage,
            ),
        };
        self.report_denials(denials, raw, out);
        let aborted = matches!(
            terminal,
            Some(TerminalReason::AbortedStreaming | TerminalReason::AbortedTools)
        );
        let interrupted = (self.at.interrupted || aborted) && !success;
        let state = match (is_error, interrupted) {
            (_, true) => TurnState::Interrupted,
            (true, false) => TurnState::Failed,
            (false, false) => TurnState::Completed,
        };
        let error_message = match (state, errors) {
            (TurnState::Failed, Some(errors)) if !errors.is_empty() => Some(errors.join("; ")),
            (TurnState::Failed, Some(_)) => Some(format!("Claude ended the turn with `{subtype}`")),
            (TurnState::Failed, None) => text.cloned(),
            (TurnState::Completed | TurnState::Interrupted | TurnState::Cancelled, _) => None,
        };
        let (Some(thread), Some(turn)) = (self.at.thread.clone(), self.at.turn.clone()) else {
            return self
                .at
                .current_state(&mut self.ledger, "a result for no session", raw, out);
        };
        // The failure is reported before the turn's items are cut off.
        if state == TurnState::Failed && self.ledger.report_turn_error(&thread, &turn) {
            let context = self.ledger.turn_context(&thread, &turn, Some(raw));
            let payload = RuntimeErrorPayload {
                message: error_message.clone().unwrap_or_else(|| subtype.to_string()),
                class: Some(RuntimeErrorClass::ProviderError),
                detail: Some(json!({
                    "subtype": subtype,
                    "error": self.assistant_error,
                    "errors": errors,
                    "terminalReason": terminal,
                    "stopReason": stop,
                })),
            };
            self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
        }
        // An `error_*` result stopped the turn for its subtype; the model's last stop reason
        // stays in `raw` (and in the runtime.error's detail).
        let stop_reason = if success {
            stop.clone()
        } else {
            Some(subtype.to_string())
        };
        // The session so far (every model's, subagents' included), then the turn's own: its
        // main thread's calls, at what it added to the running cost.
        let total_cost = cost.as_f64();
        let running = usage::running(model_usage, total_cost).map(|total| usage_snapshot(Some(total), None));
        usage::report(&mut self.ledger, &mut self.at, running, "result's modelUsage", raw, out);
        let turn_cost = total_cost.map(|total| self.turn_cost(total));
        let turn_usage = match usage::message(usage, UsageScope::Turn) {
            Ok(turn) => Some(with_provider_cost(turn, turn_cost)),
            Err(error) => {
                usage::report(&mut self.ledger, &mut self.at, Err(error), "result's usage", raw, out);
                turn_cost.map(|cost| with_provider_cost(empty_usage(UsageScope::Turn), Some(cost)))
            }
        };
        let outcome = TurnCompletedPayload {
            state,
            stop_reason: Some(stop_reason),
            usage: turn_usage,
            model_usage: None,
            total_cost_usd: turn_cost,
            error_message,
        };
        self.at.end_turn(&mut self.ledger, outcome, Some(raw), out);
    }

    /// The turn's own cost from the session's running cost a `result` reports: what it added to
    /// the last total (the difference rounded to 1e-10 dollars, so a difference of two decimals
    /// reads as one). The first total, or one below the last (a new CLI process's), is all this
    /// turn's, as sent.
    fn turn_cost(&mut self, total: f64) -> f64 {
        let cost = if self.session_cost > 0.0 && total >= self.session_cost {
            ((total - self.session_cost) * 1e10).round() / 1e10
        } else {
            total
        };
        self.session_cost = total;
        cost
    }

    /// Remembers that a tool call's denial was reported; false when it already was.
    fn remember_denial(&mut self, tool_use_id: String) -> bool {
        if self.denials_reported.contains(&tool_use_id) {
            return false;
        }
        if self.denials_reported.len() == DENIALS_REMEMBERED {
            self.denials_reported.pop_front();
        }
        self.denials_reported.push_back(tool_use_id);
        true
    }

    /// Denials the CLI decided by itself (no `can_use_tool` reached a client): a request opened
    /// and resolved `decline` at once, so a UI shows what was refused.
    fn report_denials(&mut self, denials: &[SdkPermissionDenial], raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        for denial in denials {
            let args =
                json!({ "toolName": denial.tool_name, "input": denial.tool_input, "toolUseID": denial.tool_use_id });
            self.denied(&denial.tool_name, &denial.tool_use_id, None, args, raw, out);
        }
    }

    fn denied(
        &mut self,
        tool_name: &str,
        tool_use_id: &str,
        message: Option<&str>,
        args: Value,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if !self.remember_denial(tool_use_id.to_string()) {
            return;
        }
        let request_type = tool_kind(tool_name).request_type();
        let key = format!("denied:{tool_use_id}");
        // A denial the result reports for a turn the person stopped: the stop refused it.
        let (decision, reason) = if self.at.interrupted {
            (Decision::Cancel, "was refused, and the turn stopped")
        } else {
            (Decision::Decline, "was denied by the permission rules")
        };
        let place = Place {
            thread: self.at.thread.clone(),
            turn: self.at.turn.clone(),
            item: Some(tool_use_id.to_string()),
        };
        let context = self
            .ledger
            .request_context(&key, tool_use_id, Direction::In, &place, Some(raw));
        let detail = message.map_or_else(|| format!("{tool_name} {reason}"), str::to_string);
        let opened = RequestOpenedPayload {
            request_type,
            detail: Some(detail.clone()),
            args: Some(args),
        };
        self.ledger.emit(&context, RuntimeEvent::RequestOpened(opened), out);
        let resolved = RequestResolvedPayload {
            request_type,
            decision: Some(decision.as_str().to_string()),
            resolution: Some(json!({ "behavior": "deny", "message": detail, "decidedBy": "claude" })),
        };
        self.ledger.emit(&context, RuntimeEvent::RequestResolved(resolved), out);
    }

    fn system(&mut self, message: &SdkSystemMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let session = self.ledger.session().clone();
        let source = self.ledger.source();
        match message {
            SdkSystemMessage::Init(init) => {
                self.at.see_thread(&mut self.ledger, &init.session_id, raw, out);
                // The `init` message as sent, but for its tags (`schemas/claude-agent-sdk/as-sent.json`):
                // its tool, command and server lists are copied, not parsed.
                let config = init.text().to_owned();
                let context = self.at.context(&mut self.ledger, Some(raw));
                self.ledger.emit(
                    &context,
                    RuntimeEvent::SessionConfigured(SessionConfiguredPayload { config }),
                    out,
                );
                // The model woken by a background task's end: a turn of its own, while the one
                // that started the task waits for its `result`.
                if std::mem::take(&mut self.woken)
                    && let Some(turn) = self.at.turn.take()
                {
                    self.awaiting.push_back(turn);
                }
                self.ensure_turn(Some(&init.model), raw, out);
            }
            // Claude's own view of what the events already say (a request in flight, the
            // session running or idle, a thinking estimate, the running tasks): thread metadata,
            // never a session state change that would repeat the state.
            SdkSystemMessage::Status(status) => self.at.carry(&mut self.ledger, "status", status, raw, out),
            SdkSystemMessage::SessionStateChanged(state) => {
                self.at.carry(&mut self.ledger, "sessionState", state, raw, out);
            }
            SdkSystemMessage::ThinkingTokens(tokens) => {
                self.at.carry(&mut self.ledger, "thinkingTokens", tokens, raw, out);
            }
            SdkSystemMessage::BackgroundTasksChanged(tasks) => {
                self.at.carry(&mut self.ledger, "backgroundTasks", tasks, raw, out);
            }
            SdkSystemMessage::CompactBoundary(boundary) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = ThreadStateChangedPayload {
                    state: ThreadState::Compacted,
                    detail: serde_json::to_value(&boundary.compact_metadata).ok(),
                };
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadStateChanged(payload), out);
                self.summary_due = Some(Some(boundary.compact_metadata.trigger.to_string()));
            }
            SdkSystemMessage::HookStarted(hook) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = HookStartedPayload {
                    hook_id: hook.hook_id.clone(),
                    hook_name: hook.hook_name.clone(),
                    hook_event: hook.hook_event.clone(),
                };
                self.ledger.emit(&context, RuntimeEvent::HookStarted(payload), out);
            }
            SdkSystemMessage::HookProgress(hook) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = HookProgressPayload {
                    hook_id: hook.hook_id.clone(),
                    output: Some(hook.output.clone()),
                    stdout: Some(hook.stdout.clone()),
                    stderr: Some(hook.stderr.clone()),
                };
                self.ledger.emit(&context, RuntimeEvent::HookProgress(payload), out);
            }
            SdkSystemMessage::HookResponse(hook) => {
                let exit_code = hook.exit_code.as_ref().map(|code| (code.as_i64(), code));
                if let Some((None, code)) = exit_code {
                    self.warning(format!("hook exit code {code} is not an integer"), None, raw, out);
                }
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = HookCompletedPayload {
                    hook_id: hook.hook_id.clone(),
                    outcome: match hook.outcome {
                        SdkHookResponseMessageOutcome::Success => HookOutcome::Success,
                        SdkHookResponseMessageOutcome::Error => HookOutcome::Error,
                        SdkHookResponseMessageOutcome::Cancelled => HookOutcome::Cancelled,
                    },
                    output: Some(hook.output.clone()),
                    stdout: Some(hook.stdout.clone()),
                    stderr: Some(hook.stderr.clone()),
                    exit_code: exit_code.and_then(|(code, _)| code),
                };
                self.ledger.emit(&context, RuntimeEvent::HookCompleted(payload), out);
            }
            SdkSystemMessage::TaskStarted(task) => {
                if let Some(tool_use_id) = &task.tool_use_id {
                    self.tasks.insert(tool_use_id.clone(), (task.task_id.clone(), false));
                    if let Some(turn) = &self.at.turn {
                        self.task_turns.insert(tool_use_id.clone(), turn.clone());
                    }
                }
                let context = self.task_context(task.tool_use_id.as_deref(), Some(raw));
                let payload = TaskStartedPayload {
                    task_id: ids::task(source, &session, &task.task_id),
                    description: Some(task.description.clone()),
                    task_type: task.task_type.clone().or_else(|| task.subagent_type.clone()),
                };
                self.ledger.emit(&context, RuntimeEvent::TaskStarted(payload), out);
            }
            SdkSystemMessage::TaskProgress(task) => {
                let context = self.task_context(task.tool_use_id.as_deref(), Some(raw));
                let payload = TaskProgressPayload {
                    task_id: ids::task(source, &session, &task.task_id),
                    description: task.summary.clone().unwrap_or_else(|| task.description.clone()),
                    usage: Some(task.usage.to_value()),
                    last_tool_name: task.last_tool_name.clone(),
                };
                self.ledger.emit(&context, RuntimeEvent::TaskProgress(payload), out);
            }
            SdkSystemMessage::TaskUpdated(task) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = TaskProgressPayload {
                    task_id: ids::task(source, &session, &task.task_id),
                    description: patch_text(&task.patch),
                    usage: None,
                    last_tool_name: None,
                };
                self.ledger.emit(&context, RuntimeEvent::TaskProgress(payload), out);
            }
            SdkSystemMessage::TaskNotification(task) => {
                if let Some((_, ended)) = self.tasks.values_mut().find(|(id, _)| *id == task.task_id)
                    && std::mem::replace(ended, true)
                {
                    return self
                        .at
                        .current_state(&mut self.ledger, "the task's end was reported", raw, out);
                }
                let context = self.task_context(task.tool_use_id.as_deref(), Some(raw));
                let payload = TaskCompletedPayload {
                    task_id: ids::task(source, &session, &task.task_id),
                    status: match task.status {
                        SdkTaskNotificationMessageStatus::Completed => TaskStatus::Completed,
                        SdkTaskNotificationMessageStatus::Failed => TaskStatus::Failed,
                        SdkTaskNotificationMessageStatus::Stopped => TaskStatus::Stopped,
                    },
                    summary: Some(task.summary.clone()),
                    usage: task.usage.as_ref().map(RawJson::to_value),
                };
                self.ledger.emit(&context, RuntimeEvent::TaskCompleted(payload), out);
                self.woken = self.at.turn.is_some();
            }
            SdkSystemMessage::FilesPersisted(files) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = FilesPersistedPayload {
                    files: files
                        .files
                        .iter()
                        .map(|file| PersistedFile {
                            filename: file.filename.clone(),
                            file_id: file.file_id.clone(),
                        })
                        .collect(),
                    failed: Some(
                        files
                            .failed
                            .iter()
                            .map(|file| PersistedFileFailure {
                                filename: file.filename.clone(),
                                error: file.error.clone(),
                            })
                            .collect(),
                    ),
                };
                self.ledger.emit(&context, RuntimeEvent::FilesPersisted(payload), out);
            }
            SdkSystemMessage::ApiRetry(retry) => {
                let message = format!(
                    "Claude API error ({}), retrying: attempt {} of {}",
                    retry.error, retry.attempt, retry.max_retries
                );
                // The retry as sent, but for its tags (in `raw`).
                let detail = Some(retry.to_json());
                self.warning(message, detail, raw, out);
            }
            SdkSystemMessage::PermissionDenied(denied) => {
                self.ensure_turn(None, raw, out);
                let args = json!({
                    "toolName": denied.tool_name,
                    "toolUseID": denied.tool_use_id,
                    "decisionReason": denied.decision_reason,
                    "decisionReasonType": denied.decision_reason_type,
                    "agentId": denied.agent_id,
                });
                self.denied(
                    &denied.tool_name,
                    &denied.tool_use_id,
                    Some(&denied.message),
                    args,
                    raw,
                    out,
                );
            }
        }
    }

    /// The context of a task event: its Task item when the task names one.
    fn task_context<'a>(&mut self, tool_use_id: Option<&str>, raw: Option<Raw<'a>>) -> Context<'a> {
        match tool_use_id {
            Some(item) => self.at.item_context(&mut self.ledger, item, raw),
            None => self.at.context(&mut self.ledger, raw),
        }
    }

    fn control_request(
        &mut self,
        dir: Direction,
        request_id: &str,
        request: &SdkControlRequestInner,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let subtype = request.tag();
        if dir == Direction::Out {
            // The client's commands: their answers say what happened.
            if matches!(request, SdkControlRequestInner::Interrupt) {
                self.at.interrupted = true;
            }
            // A new CLI session: its prompts wait for the session the CLI names, rather than
            // open a turn on the session before it.
            if matches!(request, SdkControlRequestInner::Initialize(_)) {
                self.at.leave_thread();
            }
            self.client_requests.insert(request_id.to_string(), subtype);
            return;
        }
        let control = Raw {
            source: RuntimeEventRawSource::ClaudeSdkControl,
            ..raw.with_type(subtype)
        };
        match request {
            SdkControlRequestInner::CanUseTool(ask) => self.can_use_tool(request_id, ask, raw, out),
            SdkControlRequestInner::HookCallback(hook) => self.hook_callback(request_id, hook, control, out),
            SdkControlRequestInner::McpMessage(message) => self.mcp_message(message, control, out),
            // What only a client asks: from the CLI, a message no client answers.
            SdkControlRequestInner::Interrupt
            | SdkControlRequestInner::Initialize(_)
            | SdkControlRequestInner::SetPermissionMode(_)
            | SdkControlRequestInner::SetModel(_)
            | SdkControlRequestInner::SetMaxThinkingTokens(_)
            | SdkControlRequestInner::McpStatus
            | SdkControlRequestInner::RewindFiles(_)
            | SdkControlRequestInner::McpSetServers(_)
            | SdkControlRequestInner::McpReconnect(_)
            | SdkControlRequestInner::McpToggle(_)
            | SdkControlRequestInner::McpAuthenticate(_)
            | SdkControlRequestInner::McpClearAuth(_)
            | SdkControlRequestInner::StopTask(_)
            | SdkControlRequestInner::ApplyFlagSettings(_) => {
                let message = format!("Claude sent a `{subtype}` control request, which only a client sends");
                self.warning(message, None, control, out);
            }
        }
    }

    /// `can_use_tool`: the one control request a person decides, a permission card.
    fn can_use_tool(
        &mut self,
        request_id: &str,
        ask: &SdkControlPermissionRequest,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.ensure_turn(None, raw, out);
        let permission = Raw {
            source: RuntimeEventRawSource::ClaudeSdkPermission,
            ..raw.with_type("can_use_tool")
        };
        let kind = tool_kind(&ask.tool_name);
        let plan = (kind == ToolKind::ProposedPlan).then(|| self.proposed_plan(ask));
        let detail = plan
            .flatten()
            .or_else(|| ask.title.clone())
            .or_else(|| permission_detail(&ask.tool_name, &ask.input))
            .or_else(|| ask.description.clone())
            .unwrap_or_else(|| format!("Allow {}?", ask.tool_name));
        let args = json!({
            "toolName": ask.tool_name,
            "displayName": ask.display_name,
            "input": ask.input,
            "suggestions": ask.permission_suggestions,
            "blockedPath": ask.blocked_path,
            "decisionReason": ask.decision_reason,
            "toolUseID": ask.tool_use_id,
            "agentId": ask.agent_id,
            "description": ask.description,
            "requiresUserInteraction": ask.requires_user_interaction,
        });
        let offer = Offer::Permission {
            input: ask.input.clone(),
            suggestions: ask.permission_suggestions.clone().unwrap_or_default(),
        };
        let request_type = kind.request_type();
        let tool_use_id = Some(ask.tool_use_id.clone());
        let place = Place {
            thread: self.at.thread.clone(),
            turn: self.at.turn.clone(),
            item: tool_use_id.clone().filter(|id| self.item_open(id)),
        };
        let context = self
            .ledger
            .request_context(request_id, request_id, Direction::In, &place, Some(permission));
        let opened = RequestOpenedPayload {
            request_type,
            detail: Some(detail),
            args: Some(args),
        };
        let open = OpenRequest {
            request_type,
            place,
            provider_id: request_id.to_string(),
            dir: Direction::In,
            waits: true,
            user_input: false,
            answer: None,
            extra: Pending {
                request_id: request_id.to_string(),
                tool_use_id,
                offer,
            },
        };
        self.ledger
            .ask(request_id.to_string(), open, opened, None, &context, out);
    }

    /// The text of the plan an `ExitPlanMode` permission request asks to approve: its input's
    /// `plan`, or, where the newest CLI asks with an empty input, the `plan` of the call's
    /// `tool_use` (the stream does not carry the plan file the CLI keeps).
    fn proposed_plan(&self, ask: &SdkControlPermissionRequest) -> Option<String> {
        let called = self.tools.get(&ask.tool_use_id).map(|tool| &tool.input);
        let plan = ask
            .input
            .get("plan")
            .or_else(|| called.and_then(|input| input.get("plan")))?;
        plan.as_str().map(str::to_string)
    }

    /// `hook_callback`: the CLI runs a hook the SDK host registered. Plumbing, not a decision:
    /// `hook.started` (on the tool call it serves), `hook.completed` when the host answers.
    fn hook_callback(
        &mut self,
        request_id: &str,
        hook: &SdkHookCallbackRequest,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let tool_use_id = hook.input.tool_use_id.as_ref().or(hook.tool_use_id.as_ref()).cloned();
        let context = self.task_context(tool_use_id.as_deref(), Some(raw));
        let hook_name = match &hook.input.tool_name {
            Some(tool) => format!("{} ({tool})", hook.callback_id),
            None => hook.callback_id.clone(),
        };
        let payload = HookStartedPayload {
            hook_id: request_id.to_string(),
            hook_name,
            hook_event: hook.input.hook_event_name.to_string(),
        };
        self.ledger.emit(&context, RuntimeEvent::HookStarted(payload), out);
        self.hooks.insert(request_id.to_string(), tool_use_id);
    }

    /// The host's answer to a hook callback: `hook.completed`, its output the answer.
    fn hook_answered(
        &mut self,
        request_id: &str,
        tool_use_id: Option<String>,
        answer: Result<&Value, &str>,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.task_context(tool_use_id.as_deref(), raw);
        let (outcome, output) = match (answer, raw) {
            (Ok(body), _) => (HookOutcome::Success, body.to_string()),
            (Err(error), Some(_)) => (HookOutcome::Error, error.to_string()),
            (Err(reason), None) => (HookOutcome::Cancelled, reason.to_string()),
        };
        let payload = HookCompletedPayload {
            hook_id: request_id.to_string(),
            outcome,
            output: Some(output),
            stdout: None,
            stderr: None,
            exit_code: None,
        };
        self.ledger.emit(&context, RuntimeEvent::HookCompleted(payload), out);
    }

    /// `mcp_message`: the CLI talks to an MCP server the SDK host serves. Plumbing, not a
    /// decision: `tool.progress`, on the tool call a `tools/call` serves.
    fn mcp_message(
        &mut self,
        message: &SdkControlMcpMessageRequest,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let server = &message.server_name;
        let method = message.message.get("method").and_then(Value::as_str);
        let params = message.message.get("params");
        let tool = params.and_then(|params| params.get("name")).and_then(Value::as_str);
        let tool_use_id = params
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get(MCP_TOOL_USE_ID))
            .and_then(Value::as_str);
        let summary = match (method, tool) {
            (Some(method), Some(tool)) => format!("{method} `{tool}` on the SDK MCP server `{server}`"),
            (Some(method), None) => format!("{method} to the SDK MCP server `{server}`"),
            (None, _) => format!("a response to the SDK MCP server `{server}`"),
        };
        let context = self.task_context(tool_use_id, Some(raw));
        let payload = ToolProgressPayload {
            tool_use_id: tool_use_id.map(str::to_string),
            tool_name: tool.map(|tool| format!("mcp__{server}__{tool}")),
            summary: Some(summary),
            elapsed_seconds: None,
        };
        self.ledger.emit(&context, RuntimeEvent::ToolProgress(payload), out);
    }

    fn control_response(
        &mut self,
        dir: Direction,
        response: &SdkControlResponsePayload,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let (request_id, body, error) = match response {
            SdkControlResponsePayload::Success(ok) => (
                &ok.request_id,
                Value::Object(ok.response.clone().unwrap_or_default()),
                None,
            ),
            SdkControlResponsePayload::Error(err) => (&err.request_id, Value::Null, Some(err.error.clone())),
        };
        if dir == Direction::Out {
            return self.answer(request_id, body, error, raw, out);
        }
        let subtype = self.client_requests.remove(request_id);
        match (subtype, error) {
            (_, Some(error)) => {
                let message = format!(
                    "Claude refused the client's {} request: {error}",
                    subtype.unwrap_or("control")
                );
                self.warning(message, None, raw, out);
            }
            // The acknowledgement says nothing, or (since 0.3) which prompts are still queued.
            (Some("interrupt"), None) => match body {
                Value::Object(said) if !said.is_empty() => {
                    self.at.carry(&mut self.ledger, "interrupt", &said, raw, out);
                }
                _ => self.at.current_state(
                    &mut self.ledger,
                    "the interrupt was acknowledged; the turn completes as interrupted",
                    raw,
                    out,
                ),
            },
            (subtype, None) => {
                let mut config = Map::new();
                config.insert(subtype.unwrap_or("control_response").to_string(), body);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
        }
    }

    /// The client's answer to a request of the CLI: `request.resolved`.
    fn answer(
        &mut self,
        request_id: &str,
        body: Value,
        error: Option<String>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let Some(tool_use_id) = self.hooks.remove(request_id) {
            let control = Raw {
                source: RuntimeEventRawSource::ClaudeSdkControl,
                ..raw
            };
            let answer = match &error {
                Some(error) => Err(error.as_str()),
                None => Ok(&body),
            };
            return self.hook_answered(request_id, tool_use_id, answer, Some(control), out);
        }
        let Some(request) = self.ledger.request(request_id) else {
            return;
        };
        let is_permission = request.waits;
        let tool_use_id = request.extra.tool_use_id.clone();
        let decision = match (&error, is_permission) {
            (Some(_), _) => Decision::Error,
            (None, false) => Decision::Answered,
            (None, true) => match PermissionResult::decode(&body.to_string(), &mut PathTracking) {
                Ok(result) => {
                    let decision = permission_decision(&result);
                    if decision == Decision::Cancel {
                        self.at.interrupted = true;
                    }
                    decision
                }
                Err(_) => Decision::Answered,
            },
        };
        if matches!(decision, Decision::Decline | Decision::Cancel)
            && let Some(tool_use_id) = tool_use_id
        {
            self.remember_denial(tool_use_id);
        }
        let resolution = match error {
            Some(error) => json!({ "error": error }),
            None => body,
        };
        if let Some(request) = self.ledger.request_mut(request_id) {
            request.answer = Some(Answer {
                decision,
                resolution,
                answers: None,
            });
        }
        let permission = Raw {
            source: RuntimeEventRawSource::ClaudeSdkPermission,
            ..raw
        };
        self.ledger.resolve_request(request_id, Some(permission), out);
    }

    fn map_line(
        &mut self,
        frame: &Frame<'_>,
        line: &ClaudeStreamLine,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.subagent = None;
        match line {
            ClaudeStreamLine::Assistant(message) => {
                self.at.see_thread(&mut self.ledger, &message.session_id, raw, out);
                if let Some(parent) = self.late_subagent(message.parent_tool_use_id.as_deref()) {
                    let said = subagent_said(&message.message.content);
                    return self.subagent_progress(&parent, &said, raw, out);
                }
                let parent = message.parent_tool_use_id.as_deref();
                self.enter_subagent(parent);
                self.in_task_turn(parent, |this, out| this.assistant(message, raw, out), out)
            }
            ClaudeStreamLine::User(message) => {
                if frame.dir == Direction::Out {
                    return self.prompt(message, raw, out);
                }
                self.at.see_thread(&mut self.ledger, &message.session_id, raw, out);
                if let Some(parent) = self.late_subagent(message.parent_tool_use_id.as_deref()) {
                    return self.subagent_progress(&parent, "the subagent reads a tool result", raw, out);
                }
                let parent = message.parent_tool_use_id.as_deref();
                self.enter_subagent(parent);
                self.in_task_turn(parent, |this, out| this.user(message, raw, out), out)
            }
            ClaudeStreamLine::Result(result) => self.result(result, raw, out),
            ClaudeStreamLine::System(system) => self.system(system, raw, out),
            ClaudeStreamLine::StreamEvent(event) => {
                self.at.see_thread(&mut self.ledger, &event.session_id, raw, out);
                if let Some(parent) = self.late_subagent(event.parent_tool_use_id.as_deref()) {
                    return self.subagent_progress(&parent, "the subagent is writing", raw, out);
                }
                let parent = event.parent_tool_use_id.as_deref();
                self.enter_subagent(parent);
                self.in_task_turn(parent, |this, out| this.stream_event(event, raw, out), out)
            }
            ClaudeStreamLine::ToolProgress(progress) => {
                let context = self.at.item_context(&mut self.ledger, &progress.tool_use_id, Some(raw));
                let payload = ToolProgressPayload {
                    tool_use_id: Some(progress.tool_use_id.clone()),
                    tool_name: Some(progress.tool_name.clone()),
                    summary: None,
                    elapsed_seconds: progress.elapsed_time_seconds.as_f64(),
                };
                self.ledger.emit(&context, RuntimeEvent::ToolProgress(payload), out);
            }
            ClaudeStreamLine::ToolUseSummary(summary) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = ToolSummaryPayload {
                    summary: summary.summary.clone(),
                    preceding_tool_use_ids: Some(summary.preceding_tool_use_ids.clone()),
                };
                self.ledger.emit(&context, RuntimeEvent::ToolSummary(payload), out);
            }
            ClaudeStreamLine::AuthStatus(status) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = AuthStatusPayload {
                    is_authenticating: Some(status.is_authenticating),
                    output: Some(status.output.clone()),
                    error: status.error.clone(),
                };
                self.ledger.emit(&context, RuntimeEvent::AuthStatus(payload), out);
            }
            ClaudeStreamLine::RateLimitEvent(event) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let rate_limits = Json::serialize(&event.rate_limit_info).unwrap_or_else(|_| Value::Null.into());
                self.ledger.emit(
                    &context,
                    RuntimeEvent::AccountRateLimitsUpdated(AccountRateLimitsUpdatedPayload { rate_limits }),
                    out,
                );
            }
            ClaudeStreamLine::PromptSuggestion(suggestion) => {
                let mut config = Map::new();
                config.insert("promptSuggestion".into(), Value::String(suggestion.suggestion.clone()));
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            ClaudeStreamLine::ControlRequest(request) => {
                self.control_request(frame.dir, &request.request_id, &request.request, raw, out)
            }
            ClaudeStreamLine::ControlResponse(response) => {
                self.control_response(frame.dir, &response.response, raw, out)
            }
            ClaudeStreamLine::ControlCancelRequest(cancel) => {
                // The call the withdrawn request was about is refused: the result's denials
                // repeat it.
                if let Some(tool_use_id) = self
                    .ledger
                    .request(&cancel.request_id)
                    .and_then(|request| request.extra.tool_use_id.clone())
                {
                    self.remember_denial(tool_use_id);
                }
                if let Some(request) = self.ledger.request_mut(&cancel.request_id) {
                    request.answer = Some(Answer {
                        decision: Decision::Cancel,
                        resolution: json!({ "cancelledBy": "claude" }),
                        answers: None,
                    });
                    self.ledger.resolve_request(&cancel.request_id, Some(raw), out);
                } else {
                    let message = format!("Claude withdrew request `{}`, which no one saw", cancel.request_id);
                    self.warning(message, None, raw, out);
                }
            }
            ClaudeStreamLine::KeepAlive => {}
        }
    }
}

/// What a permission card says about a call: the tool and what it acts on.
fn permission_detail(tool: &str, input: &Map<String, Value>) -> Option<String> {
    let subject = input.get(subject_key(tool)?)?.as_str()?;
    Some(format!("{}: {subject}", builtin(tool)))
}

/// Who refused a call, as the result says.
#[derive(Clone, Copy, PartialEq)]
enum Refusal {
    /// The CLI's permission rules (its settings): no one was asked, so the `result`'s denial is
    /// the only card that shows it.
    Rules,
    /// A person, asked by the host: the card was theirs, the `result`'s denial repeats it.
    Person,
}

/// Who the `tool_result_meta` of a user message (0.3.x CLIs) says refused the call
/// `tool_use_id`, if it was refused: a permission decision `reject` (decided by the CLI's
/// `config`, or by a person), or the call not run because a person or a rule rejected it.
fn refusal(message: &SdkUserMessage, tool_use_id: &str) -> Option<Refusal> {
    let meta = message
        .tool_result_meta
        .as_deref()?
        .iter()
        .find(|meta| meta.id == tool_use_id)?;
    let decision = meta.permission_decision.as_ref();
    let refused = decision.is_some_and(|decision| decision.decision == "reject")
        || matches!(
            meta.non_execution_kind.as_deref(),
            Some("user-rejected" | "permission-rule")
        );
    match (refused, decision.map(|decision| decision.source.as_str())) {
        (false, _) => None,
        (true, Some("config")) => Some(Refusal::Rules),
        (true, _) => Some(Refusal::Person),
    }
}

/// What a subagent's message says it did, as text: the first thing it says, calls or thinks.
fn subagent_said(content: &[BetaContentBlock]) -> String {
    let said = content.iter().find_map(|block| match block {
        BetaContentBlock::Text(text) => Some(format!("the subagent says: {}", text.text)),
        BetaContentBlock::ToolUse(tool) => Some(format!("the subagent: {}", tool_title(&tool.name, &tool.input))),
        BetaContentBlock::Thinking(_) | BetaContentBlock::RedactedThinking(_) => {
            Some("the subagent thinks".to_string())
        }
        BetaContentBlock::ServerToolUse(_)
        | BetaContentBlock::McpToolUse(_)
        | BetaContentBlock::Compaction(_)
        | BetaContentBlock::WebSearchToolResult(_)
        | BetaContentBlock::WebFetchToolResult(_)
        | BetaContentBlock::CodeExecutionToolResult(_)
        | BetaContentBlock::BashCodeExecutionToolResult(_)
        | BetaContentBlock::TextEditorCodeExecutionToolResult(_)
        | BetaContentBlock::ToolSearchToolResult(_)
        | BetaContentBlock::McpToolResult(_)
        | BetaContentBlock::ContainerUpload(_) => None,
    });
    said.unwrap_or_else(|| "the subagent answers".to_string())
}

/// What a `task_updated` patch says, as text: its new description, else what became of the task.
fn patch_text(patch: &SdkTaskUpdatedMessagePatch) -> String {
    if let Some(description) = &patch.description {
        return description.clone();
    }
    match (&patch.error, patch.status, patch.is_backgrounded) {
        (Some(error), _, _) => format!("the task failed: {error}"),
        (None, Some(status), _) => format!("the task is {status}"),
        (None, None, Some(true)) => "the task went on in the background".to_string(),
        (None, None, Some(false) | None) => "the task was updated".to_string(),
    }
}

/// The task id in a `TaskCreate` result's text, "Task #<id> created successfully: <subject>".
fn created_task_id(text: &str) -> Option<String> {
    let (id, rest) = text.strip_prefix("Task #")?.split_once(' ')?;
    rest.starts_with("created").then(|| id.to_string())
}

/// Whether a Task call's reported result (`tool_use_result`) says its subagent went on in the
/// background (0.3.x `run_in_background`): the task then ends with its own `task_notification`.
fn launched_in_background(reported: &Value) -> bool {
    reported.get("status").and_then(Value::as_str) == Some("async_launched")
}

impl Mapping for ClaudeNormalizer {
    type Request = Pending;
    type Message<'a> = ClaudeStreamLine;

    fn ledger(&mut self) -> &mut Ledger<Pending> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, ClaudeStreamLine>, Box<Misfit<'a>>> {
        match wire::decode(frame) {
            Ok(line) => Ok(Decoded {
                raw: Raw::new(RuntimeEventRawSource::ClaudeSdkMessage, Some(line.tag()), frame.msg),
                time: wire::timestamp(&line).map_or(ProviderTime::None, |text| ProviderTime::Text {
                    field: "timestamp",
                    text: Cow::Owned(text.to_string()),
                }),
                message: line,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(RuntimeEventRawSource::ClaudeSdkMessage, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(
        &mut self,
        frame: &Frame<'a>,
        line: ClaudeStreamLine,
        raw: Raw<'a>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.map_line(frame, &line, raw, out);
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// Hooks the host never answered end `cancelled`; tasks that never reported their end stop.
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        for (request_id, tool_use_id) in std::mem::take(&mut self.hooks) {
            let reason = "the stream ended before the host answered the hook";
            self.hook_answered(&request_id, tool_use_id, Err(reason), None, out);
        }
        let open: Vec<String> = self
            .tasks
            .iter()
            .filter(|(_, (_, ended))| !ended)
            .map(|(tool_use_id, _)| tool_use_id.clone())
            .collect();
        for tool_use_id in open {
            let summary = Some("the stream ended before the task reported its end".to_string());
            self.settle_task(&tool_use_id, TaskStatus::Stopped, summary, None, out);
        }
        // Prompts the stream ended before any turn showed (a transcript cut before the CLI
        // named its session): what is whole is drawn, each a person's message of no turn.
        for (index, (frame, prompt)) in std::mem::take(&mut self.prompts).into_iter().enumerate() {
            let raw = Raw::new(RuntimeEventRawSource::ClaudeSdkMessage, Some("user"), &frame);
            let key = format!("prompt:unanswered:{}", index + 1);
            let context = match self.at.thread.clone() {
                Some(thread) => self.ledger.item_context_in(&thread, None, &key, Some(raw)),
                None => Context {
                    item_id: Some(ids::item(self.ledger.source(), "", &key)),
                    raw: Some(raw),
                    ..Context::default()
                },
            };
            let payload = |status| ItemLifecyclePayload {
                item_type: CanonicalItemType::UserMessage,
                status: Some(status),
                title: None,
                detail: None,
                data: Some(content::data(prompt.clone())),
            };
            self.ledger.emit(
                &context,
                RuntimeEvent::ItemStarted(payload(ItemStatus::InProgress)),
                out,
            );
            self.ledger.emit(
                &context.without_raw(),
                RuntimeEvent::ItemCompleted(payload(ItemStatus::Completed)),
                out,
            );
        }
    }

    /// Only a transcript has a client side: the bare stream is what `claude -p` printed, its
    /// permissions decided by the CLI's own settings.
    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        if self.ledger.source() == &crate::stream_json::CLAUDE {
            return Err(AnswerError::Unanswerable(&crate::stream_json::CLAUDE));
        }
        let (_, open) = self.ledger.find_request(request)?;
        open.extra.answer(request, reply)
    }
}
