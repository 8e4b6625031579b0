//! The `opencode serve` mapping: sessions are threads, a turn is keyed by the user message that
//! opened it, parts are items, permissions and questions are requests.
//!
//! What the stream does not say in one place is kept here: which messages are the user's (their
//! text part is the prompt), the turn running in each session, how a turn that ended early ended
//! (a `session.error` comes before the `idle` that ends it) and, for a child session, the
//! parent's `task` item its items belong under.

mod next;

use std::collections::{BTreeMap, BTreeSet};

use agentwire_canonical::UsageScope;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, ContentDeltaPayload, ContentStreamKind, ItemLifecyclePayload, ItemStatus,
    ProviderRuntimeEvent, RequestOpenedPayload, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent,
    RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId, SessionConfiguredPayload, ThreadMetadataUpdatedPayload,
    ThreadStartedPayload, TurnCompletedPayload, TurnDiffUpdatedPayload, TurnState,
};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::drop_synthesized_item_refs;
use agentwire_core::decision::Decision;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ids;
use agentwire_core::ledger::{Answer, Ledger, OpenItemFace, OpenRequest, Place, TurnEnd, TurnStart, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_opencode::{Event, EventPermissionRepliedPropertiesReply, Message, Part, StepFinishPartTokens};
use serde_json::{Number, Value, json};

use crate::parts::{
    plan, reasoning_content, reasoning_status, text_part, tool_content, tool_title, tool_type, tool_view,
};
use crate::session_error::{self, Ending};
use crate::steps::{self, add, add_tokens, message_tokens};
use crate::wire::{self, HttpCall};

/// What a request asked.
#[derive(Clone, Copy)]
pub enum Asked {
    /// `permission.asked`: answered at `POST /permission/{id}/reply`.
    Permission,
    /// `question.asked`: answered at `POST /question/{id}/reply` or `/reject`.
    Question,
    /// `permission.v2.asked`: answered at `POST /api/session/{sessionID}/permission/{id}/reply`.
    PermissionV2,
    /// `question.v2.asked`: answered at `POST /api/session/{sessionID}/question/{id}/reply` or
    /// `/reject`.
    QuestionV2,
}

/// The tokens and cost of a session's running turn: the v2 runner reports each step's, the v1
/// runner each assistant message's so far (the message is updated as it runs).
#[derive(Default)]
struct StepSums {
    /// The thread's tokens over the stream (v2).
    thread: Option<StepFinishPartTokens>,
    /// The running turn's tokens and cost (v2).
    turn: Option<StepFinishPartTokens>,
    cost: Option<Number>,
    /// The running turn's assistant messages' last tokens and cost, by message id (v1).
    messages: BTreeMap<String, (StepFinishPartTokens, Number)>,
}

impl StepSums {
    /// The running turn's tokens and cost, forgotten for the next turn.
    fn take_turn(&mut self) -> (Option<StepFinishPartTokens>, Option<Number>) {
        let messages = std::mem::take(&mut self.messages);
        let (mut tokens, mut cost) = (self.turn.take(), self.cost.take());
        for (message_tokens, message_cost) in messages.into_values() {
            tokens = Some(add_tokens(tokens.as_ref(), &message_tokens));
            cost = Some(match cost {
                Some(sum) => add(&sum, &message_cost),
                None => message_cost,
            });
        }
        (tokens, cost)
    }
}

/// Normalizes one `opencode serve` transcript.
pub struct OpencodeNormalizer {
    ledger: Ledger<Asked>,
    /// The turn running in each session: its user message id.
    turns: BTreeMap<String, String>,
    /// The user messages seen (their text part is the prompt).
    user_messages: BTreeSet<String>,
    /// The parent's `task` item each child session runs under.
    parents: BTreeMap<String, RuntimeItemId>,
    /// The `task` item running in each session (a child session started now belongs to it).
    tasks: BTreeMap<String, RuntimeItemId>,
    /// The parts of each session's last turn that started an item: one the turn's end cut off
    /// and the server then completes is updated, not started again.
    parts_seen: BTreeMap<String, BTreeSet<String>>,
    /// The part of each tool call still running, by its call id: a permission or a question
    /// names the call it asks for, and its card belongs to that call's item.
    calls: BTreeMap<String, String>,
    /// The v2 runner's tool calls running, by call id.
    next_calls: BTreeMap<String, next::NextCall>,
    /// The v2 runner's step tokens, by session.
    steps: BTreeMap<String, StepSums>,
    /// The diff each session's running turn last reported (its user message's summary).
    diffs: BTreeMap<String, String>,
}

impl OpencodeNormalizer {
    /// A normalizer for one transcript.
    pub fn new(options: Options) -> Self {
        OpencodeNormalizer {
            ledger: Ledger::new(&crate::OPENCODE, options).with_provider_refs(drop_synthesized_item_refs),
            turns: BTreeMap::new(),
            user_messages: BTreeSet::new(),
            parents: BTreeMap::new(),
            tasks: BTreeMap::new(),
            parts_seen: BTreeMap::new(),
            calls: BTreeMap::new(),
            next_calls: BTreeMap::new(),
            steps: BTreeMap::new(),
            diffs: BTreeMap::new(),
        }
    }

    fn session_context<'a>(&mut self, session: &str, raw: Raw<'a>) -> Context<'a> {
        match self.turns.get(session).cloned() {
            Some(turn) => self.ledger.turn_context(session, &turn, Some(raw)),
            None => self.ledger.thread_context(session, Some(raw)),
        }
    }

    fn configured(&mut self, frame: &Frame<'_>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let payload = SessionConfiguredPayload {
            config: frame.msg.to_owned(),
        };
        self.ledger
            .emit(&Context::bare(raw), RuntimeEvent::SessionConfigured(payload), out);
    }

    fn start_thread(&mut self, session: &str, parent: Option<&str>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if let Some(parent) = parent
            && let Some(task) = self.tasks.get(parent).cloned()
        {
            self.parents.insert(session.to_string(), task);
        }
        let context = self.ledger.thread_context(session, Some(raw));
        if self.ledger.start_thread(session) {
            let payload = ThreadStartedPayload {
                provider_thread_id: context.refs.provider_thread_id.clone(),
            };
            self.ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        } else {
            self.ledger
                .settle_state_carrying(&context, Some("the session was already started"), out);
        }
    }

    fn start_turn(&mut self, session: &str, message: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let context = self.ledger.turn_context(session, message, Some(raw));
        if !self
            .ledger
            .start_turn(&context, session, message, TurnStart::on(None), out)
        {
            return;
        }
        self.turns.insert(session.to_string(), message.to_string());
        self.parts_seen.remove(session);
        self.diffs.remove(session);
    }

    /// Ends the session's running turn in `state`, with the error it ended on; false when none
    /// runs. The server's v1 events name no stop reason: `stopReason` is left out, not null.
    fn end_turn(
        &mut self,
        session: &str,
        raw: Raw<'_>,
        state: TurnState,
        error: Option<(String, Value)>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let outcome = TurnCompletedPayload {
            stop_reason: None,
            ..turn_outcome(state, None)
        };
        self.end_turn_as(session, raw, TurnEnd::with_error(outcome, error), out)
    }

    /// Ends the session's running turn as `end` says, with the tokens and cost its steps reported
    /// (the v2 runner's); its open requests are settled first. False when no turn runs.
    fn end_turn_as(
        &mut self,
        session: &str,
        raw: Raw<'_>,
        mut end: TurnEnd,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let Some(turn) = self.turns.remove(session) else {
            return false;
        };
        if let Some(sums) = self.steps.get_mut(session) {
            let (tokens, cost) = sums.take_turn();
            end.outcome.usage = tokens
                .as_ref()
                .map(|tokens| steps::usage(tokens, cost.as_ref(), UsageScope::Turn));
            end.outcome.total_cost_usd = cost.as_ref().and_then(Number::as_f64);
        }
        let context = self.ledger.turn_context(session, &turn, Some(raw));
        for key in self.ledger.turn_requests(session, &turn) {
            self.ledger.resolve_request(&key, None, out);
        }
        self.ledger.complete_turn(&context, session, &turn, end, out);
        true
    }

    /// A session error when no turn runs: the session's `runtime.error`.
    fn session_failed(
        &mut self,
        session: &str,
        message: String,
        detail: Value,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.session_context(session, raw);
        let payload = RuntimeErrorPayload {
            message,
            class: Some(RuntimeErrorClass::ProviderError),
            detail: Some(detail),
        };
        self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
    }

    /// The text delta of an item: a reasoning item's streams reasoning, any other's the answer.
    fn delta(&mut self, session: &str, part: &str, delta: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let stream_kind = match self.ledger.item(session, part) {
            Some(open) if open.item_type == CanonicalItemType::Reasoning => ContentStreamKind::ReasoningText,
            Some(_) | None => ContentStreamKind::AssistantText,
        };
        let turn = self.turns.get(session).cloned();
        let context = self.ledger.item_context_in(session, turn.as_deref(), part, Some(raw));
        self.ledger.append_item_text(session, part, "text", delta);
        let payload = ContentDeltaPayload {
            stream_kind,
            delta: delta.to_string(),
            content_index: None,
            summary_index: None,
        };
        self.ledger.emit(&context, RuntimeEvent::ContentDelta(payload), out);
    }

    /// One part's item: started when first seen, updated while it runs, completed when done.
    #[allow(clippy::too_many_arguments)]
    fn item(
        &mut self,
        session: &str,
        part: &str,
        item_type: CanonicalItemType,
        title: Option<String>,
        data: agentwire_canonical::ItemContent,
        status: ItemStatus,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let turn = self.turns.get(session).cloned();
        let context = self.ledger.item_context_in(session, turn.as_deref(), part, Some(raw));
        let done = status != ItemStatus::InProgress;
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(status),
            title: title.clone(),
            detail: None,
            data: Some(content::data(data)),
        };
        let open = self.ledger.item(session, part).is_some();
        let seen = !self
            .parts_seen
            .entry(session.to_string())
            .or_default()
            .insert(part.to_string());
        if seen && !open {
            // Completed already (cut off when its turn ended): nothing follows an item's
            // completion, and the server's last word on the part is carried as the session's
            // configuration of the moment, as the parts that draw nothing are.
            let payload = SessionConfiguredPayload {
                config: raw.payload.to_owned(),
            };
            self.ledger
                .emit(&Context::bare(raw), RuntimeEvent::SessionConfigured(payload), out);
            return;
        }
        if !open {
            let started = ItemLifecyclePayload {
                status: Some(ItemStatus::InProgress),
                ..payload.clone()
            };
            if let Some(turn) = turn.as_deref()
                && !done
            {
                let face = OpenItemFace {
                    item_type,
                    title,
                    data: payload.data.clone(),
                };
                self.ledger.open_item((session, turn, part), face);
            }
            self.ledger.emit(&context, RuntimeEvent::ItemStarted(started), out);
            if done {
                self.ledger
                    .emit(&context.without_raw(), RuntimeEvent::ItemCompleted(payload), out);
            }
            return;
        }
        if done {
            self.ledger.close_item(session, part);
            self.ledger.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
        } else {
            if let Some(data) = payload.data.clone() {
                self.ledger.update_item(session, part, data);
            }
            self.ledger.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
        }
    }

    fn on_part(&mut self, part: &Part, frame: &Frame<'_>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match part {
            Part::Text {
                id,
                message_id,
                session_id,
                text,
                time,
                synthetic,
                ..
            } => {
                let parent = self.parents.get(session_id).cloned();
                let user = self.user_messages.contains(message_id);
                let ended = time.as_ref().is_some_and(|time| time.end.is_some());
                let by = (user, synthetic.unwrap_or(false));
                let (item_type, status, data) = text_part(by, text, ended, parent);
                self.item(session_id, id, item_type, None, data, status, raw, out);
            }
            Part::Reasoning {
                id,
                session_id,
                text,
                time,
                ..
            } => {
                let parent = self.parents.get(session_id).cloned();
                let status = reasoning_status(time.end.is_some());
                let data = reasoning_content(text, parent);
                self.item(
                    session_id,
                    id,
                    CanonicalItemType::Reasoning,
                    None,
                    data,
                    status,
                    raw,
                    out,
                );
            }
            Part::Tool {
                id,
                session_id,
                state,
                tool,
                call_id,
                ..
            } => {
                let parent = self.parents.get(session_id).cloned();
                let view = tool_view(state);
                if view.done {
                    self.calls.remove(call_id);
                } else {
                    self.calls.insert(call_id.clone(), id.clone());
                }
                let item_type = tool_type(tool);
                let title = Some(tool_title(tool, &view));
                let data = tool_content(tool, &view, parent);
                let status = view.status;
                if item_type == CanonicalItemType::CollabAgentToolCall {
                    let turn = self.turns.get(session_id).cloned();
                    let context = self.ledger.item_context_in(session_id, turn.as_deref(), id, None);
                    match (view.done, context.item_id) {
                        (false, Some(item)) => {
                            self.tasks.insert(session_id.clone(), item);
                        }
                        (true, _) | (false, None) => {
                            self.tasks.remove(session_id);
                        }
                    }
                }
                self.item(session_id, id, item_type, title, data, status, raw, out);
            }
            // A step's start and end, the files a step changed (`patch`: paths and a snapshot hash,
            // no diff; the tool items and the turn's diff show the changes), the snapshot it took,
            // the agent it names, a subtask's
            // prompt, an attached file, a retry and a compaction marker: the steps of a turn the
            // turn's own events and items already tell; carried as the session's configuration
            // of the moment.
            Part::StepStart { .. }
            | Part::StepFinish { .. }
            | Part::Patch { .. }
            | Part::Snapshot { .. }
            | Part::Agent { .. }
            | Part::Subtask { .. }
            | Part::File { .. }
            | Part::Retry { .. }
            | Part::Compaction { .. } => self.configured(frame, raw, out),
        }
    }

    fn on_event(&mut self, frame: &Frame<'_>, raw: Raw<'_>, event: &Event, out: &mut Vec<ProviderRuntimeEvent>) {
        match event {
            Event::SessionCreated(created) => {
                let info = &created.properties.info;
                self.start_thread(&info.id, info.parent_id.as_deref(), raw, out);
                let context = self.ledger.thread_context(&info.id, None);
                self.ledger.emit(
                    &context,
                    RuntimeEvent::SessionConfigured(crate::parts::working_folder(&info.directory)),
                    out,
                );
            }
            Event::SessionUpdated(updated) => {
                let session = &updated.properties.session_id;
                let context = self.session_context(session, raw);
                let info = serde_json::to_value(&updated.properties.info).expect("generated types serialize");
                let payload = ThreadMetadataUpdatedPayload {
                    name: info.get("title").and_then(Value::as_str).map(str::to_string),
                    metadata: info.as_object().cloned(),
                };
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
            }
            Event::MessageUpdated(updated) => match &updated.properties.info {
                // Once the turn changed files, its message's summary lists them with their
                // patches: the turn's diff.
                Message::User {
                    id,
                    session_id,
                    summary,
                    ..
                } => {
                    self.user_messages.insert(id.clone());
                    // Read only for the running turn: a report after its end changes nothing.
                    let running = self.turns.get(session_id) == Some(id);
                    let diff = summary
                        .as_ref()
                        .filter(|_| running)
                        .map(|summary| crate::parts::turn_diff(&summary.diffs));
                    let new = |diff: &String| !diff.is_empty() && self.diffs.get(session_id) != Some(diff);
                    match diff.filter(new) {
                        Some(diff) => {
                            let context = self.ledger.turn_context(session_id, id, Some(raw));
                            let payload = TurnDiffUpdatedPayload {
                                unified_diff: diff.clone(),
                            };
                            self.ledger.emit(&context, RuntimeEvent::TurnDiffUpdated(payload), out);
                            self.diffs.insert(session_id.clone(), diff);
                        }
                        None => self.start_turn(session_id, id, raw, out),
                    }
                }
                // Its tokens and cost so far count for the turn's end; the rest is the session's
                // configuration of the moment.
                Message::Assistant {
                    id,
                    session_id,
                    tokens,
                    cost,
                    ..
                } => {
                    if self.turns.contains_key(session_id) {
                        let sums = self.steps.entry(session_id.clone()).or_default();
                        sums.messages.insert(id.clone(), (message_tokens(tokens), cost.clone()));
                    }
                    self.configured(frame, raw, out);
                }
            },
            Event::MessagePartUpdated(updated) => self.on_part(&updated.properties.part, frame, raw, out),
            Event::MessagePartDelta(delta) => {
                let properties = &delta.properties;
                self.delta(&properties.session_id, &properties.part_id, &properties.delta, raw, out);
            }
            Event::SessionStatus(status) => {
                let session = &status.properties.session_id;
                match &status.properties.status {
                    agentwire_opencode::SessionStatus::Busy => {
                        let context = self.session_context(session, raw);
                        self.ledger
                            .settle_state_carrying(&context, Some("the session is busy"), out);
                    }
                    agentwire_opencode::SessionStatus::Idle => {
                        if !self.end_turn(session, raw, TurnState::Completed, None, out) {
                            let context = self.session_context(session, raw);
                            self.ledger
                                .settle_state_carrying(&context, Some("the session is idle"), out);
                        }
                    }
                    // The provider's API failed and the call is retried: the turn goes on.
                    agentwire_opencode::SessionStatus::Retry { attempt, message, .. } => {
                        let context = self.session_context(session, raw);
                        let text = format!("the model API failed, retrying (attempt {attempt}): {message}");
                        let detail = serde_json::to_value(&status.properties.status).ok();
                        self.ledger.warn(&context, text, detail, out);
                    }
                }
            }
            Event::SessionIdle(idle) => {
                let session = &idle.properties.session_id;
                if !self.end_turn(session, raw, TurnState::Completed, None, out) {
                    let context = self.session_context(session, raw);
                    self.ledger
                        .settle_state_carrying(&context, Some("the session is idle"), out);
                }
            }
            Event::SessionError(error) => {
                let session = error.properties.session_id.clone().unwrap_or_default();
                let Ending {
                    state, message, detail, ..
                } = session_error::ending(error.properties.error.as_ref());
                if !self.end_turn(&session, raw, state, Some((message.clone(), detail.clone())), out) {
                    self.session_failed(&session, message, detail, raw, out);
                }
            }
            Event::PermissionAsked(asked) => {
                let properties = &asked.properties;
                let request_type = permission_type(&properties.permission);
                let args = serde_json::to_value(properties).ok();
                let call = properties.tool.as_ref().map(|tool| tool.call_id.as_str());
                self.ask(
                    &properties.session_id,
                    &properties.id,
                    call,
                    Asked::Permission,
                    (
                        request_type,
                        permission_detail(&properties.permission, &properties.patterns),
                    ),
                    args,
                    None,
                    raw,
                    out,
                );
            }
            Event::QuestionAsked(asked) => {
                let properties = &asked.properties;
                let questions = serde_json::to_value(&properties.questions).ok();
                let args = serde_json::to_value(properties).ok();
                let call = properties.tool.as_ref().map(|tool| tool.call_id.as_str());
                self.ask(
                    &properties.session_id,
                    &properties.id,
                    call,
                    Asked::Question,
                    (
                        CanonicalRequestType::ToolUserInput,
                        questions_detail(properties.questions.iter().map(|question| question.question.as_str())),
                    ),
                    args,
                    questions,
                    raw,
                    out,
                );
            }
            Event::PermissionReplied(replied) => {
                let properties = &replied.properties;
                let decision = match properties.reply {
                    EventPermissionRepliedPropertiesReply::Once => Decision::Accept,
                    EventPermissionRepliedPropertiesReply::Always => Decision::AcceptForSession,
                    EventPermissionRepliedPropertiesReply::Reject => Decision::Decline,
                };
                let resolution = json!({ "reply": properties.reply.to_string() });
                self.resolve(
                    &properties.session_id,
                    &properties.request_id,
                    decision,
                    resolution,
                    None,
                    raw,
                    out,
                );
            }
            Event::QuestionReplied(replied) => {
                let properties = &replied.properties;
                let answers = serde_json::to_value(&properties.answers).unwrap_or(Value::Null);
                let resolution = json!({ "answers": answers });
                let answers = Some(answers);
                self.resolve(
                    &properties.session_id,
                    &properties.request_id,
                    Decision::Answered,
                    resolution,
                    answers,
                    raw,
                    out,
                );
            }
            Event::QuestionRejected(rejected) => {
                let properties = &rejected.properties;
                let resolution = json!({ "rejected": true });
                self.resolve(
                    &properties.session_id,
                    &properties.request_id,
                    Decision::Decline,
                    resolution,
                    None,
                    raw,
                    out,
                );
            }
            Event::TodoUpdated(todo) => {
                let context = self.session_context(&todo.properties.session_id, raw);
                let payload = plan(&todo.properties.todos);
                self.ledger.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
            }
            // The server's start-up and the state of its instance, its project and its tools:
            // the configuration a session runs with, one `session.configured` per frame.
            Event::ServerConnected(_)
            | Event::PluginAdded(_)
            | Event::CatalogUpdated(_)
            | Event::ReferenceUpdated(_)
            | Event::IntegrationUpdated(_)
            | Event::IntegrationConnectionUpdated(_)
            | Event::ModelsDevRefreshed(_)
            | Event::InstallationUpdated(_)
            | Event::InstallationUpdateAvailable(_)
            | Event::LspUpdated(_)
            | Event::McpToolsChanged(_)
            | Event::ProjectUpdated(_)
            | Event::ProjectDirectoriesUpdated(_)
            | Event::VcsBranchUpdated(_)
            | Event::WorkspaceReady(_)
            | Event::WorkspaceStatus(_)
            | Event::WorktreeReady(_)
            | Event::ServerHeartbeat(_)
            | Event::GlobalDisposed(_)
            | Event::ServerInstanceDisposed(_)
            | Event::FileWatcherUpdated(_)
            | Event::FileEdited(_)
            | Event::SessionDiff(_)
            | Event::SessionDeleted(_)
            | Event::SessionCompacted(_)
            | Event::MessageRemoved(_)
            | Event::MessagePartRemoved(_)
            | Event::CommandExecuted(_)
            | Event::TuiPromptAppend(_)
            | Event::TuiCommandExecute(_)
            | Event::TuiToastShow(_)
            | Event::TuiSessionSelect(_)
            | Event::PtyCreated(_)
            | Event::PtyUpdated(_)
            | Event::PtyExited(_)
            | Event::PtyDeleted(_) => self.configured(frame, raw, out),
            // A workspace, worktree or MCP login that failed: the server says so and goes on.
            Event::WorkspaceFailed(_) | Event::WorktreeFailed(_) | Event::McpBrowserOpenFailed(_) => {
                let text = format!("{} reported a failure", raw.method.unwrap_or("opencode"));
                self.ledger.warn(&Context::bare(raw), text, None, out);
            }
            Event::SessionNextPromptAdmitted(admitted) => {
                let p = &admitted.properties;
                self.next_prompt(&p.session_id, &p.message_id, &p.prompt, true, frame, raw, out);
            }
            Event::SessionNextPrompted(prompted) => {
                let p = &prompted.properties;
                self.next_prompt(&p.session_id, &p.message_id, &p.prompt, false, frame, raw, out);
            }
            Event::SessionNextStepStarted(started) => {
                let p = &started.properties;
                self.next_step_started(&p.session_id, &p.assistant_message_id, frame, raw, out);
            }
            Event::SessionNextStepEnded(ended) => self.next_step_ended(&ended.properties, raw, out),
            Event::SessionNextStepFailed(failed) => self.next_step_failed(&failed.properties, raw, out),
            Event::SessionNextTextStarted(started) => {
                let p = &started.properties;
                let key = next::block(&p.assistant_message_id, &p.text_id);
                self.next_block(&p.session_id, &key, CanonicalItemType::AssistantMessage, None, raw, out);
            }
            Event::SessionNextTextDelta(delta) => {
                let p = &delta.properties;
                let key = next::block(&p.assistant_message_id, &p.text_id);
                self.delta(&p.session_id, &key, &p.delta, raw, out);
            }
            Event::SessionNextTextEnded(ended) => {
                let p = &ended.properties;
                let key = next::block(&p.assistant_message_id, &p.text_id);
                let item_type = CanonicalItemType::AssistantMessage;
                self.next_block(&p.session_id, &key, item_type, Some(&p.text), raw, out);
            }
            Event::SessionNextReasoningStarted(started) => {
                let p = &started.properties;
                let key = next::block(&p.assistant_message_id, &p.reasoning_id);
                self.next_block(&p.session_id, &key, CanonicalItemType::Reasoning, None, raw, out);
            }
            Event::SessionNextReasoningDelta(delta) => {
                let p = &delta.properties;
                let key = next::block(&p.assistant_message_id, &p.reasoning_id);
                self.delta(&p.session_id, &key, &p.delta, raw, out);
            }
            Event::SessionNextReasoningEnded(ended) => {
                let p = &ended.properties;
                let key = next::block(&p.assistant_message_id, &p.reasoning_id);
                let item_type = CanonicalItemType::Reasoning;
                self.next_block(&p.session_id, &key, item_type, Some(&p.text), raw, out);
            }
            Event::SessionNextToolInputStarted(started) => {
                let p = &started.properties;
                self.next_tool_started(&p.session_id, &p.call_id, &p.name, raw, out);
            }
            // The input as it streams: the call's item, its content as it stands; the partial
            // input rides in `raw` (`tool.called` brings it whole).
            Event::SessionNextToolInputDelta(delta) => {
                let p = &delta.properties;
                self.next_tool_input(&p.session_id, &p.call_id, raw, out);
            }
            Event::SessionNextToolInputEnded(ended) => {
                let p = &ended.properties;
                self.next_tool_input(&p.session_id, &p.call_id, raw, out);
            }
            Event::SessionNextToolCalled(called) => {
                let p = &called.properties;
                self.next_tool_called(&p.session_id, &p.call_id, &p.tool, &p.input, raw, out);
            }
            Event::SessionNextToolProgress(progress) => {
                let p = &progress.properties;
                self.next_tool_progress(&p.session_id, &p.call_id, &p.content, &p.structured, raw, out);
            }
            Event::SessionNextToolSuccess(success) => {
                let p = &success.properties;
                let result = Ok((p.content.as_slice(), &p.structured));
                self.next_tool_ended(&p.session_id, &p.call_id, result, raw, out);
            }
            Event::SessionNextToolFailed(failed) => {
                let p = &failed.properties;
                self.next_tool_ended(&p.session_id, &p.call_id, Err(&p.error), raw, out);
            }
            // A command a person ran with `!`: a command item of the running turn (or of the
            // thread), started with the command and completed with its output.
            Event::SessionNextShellStarted(started) => {
                let p = &started.properties;
                self.next_shell_started(&p.session_id, &p.call_id, &p.command, raw, out);
            }
            Event::SessionNextShellEnded(ended) => {
                let p = &ended.properties;
                self.next_shell_ended(&p.session_id, &p.call_id, &p.output, raw, out);
            }
            // The model API failed and the call is retried: the turn goes on.
            Event::SessionNextRetried(retried) => {
                let p = &retried.properties;
                let context = self.session_context(&p.session_id, raw);
                let text = format!(
                    "the model API failed, retrying (attempt {}): {}",
                    p.attempt, p.error.message
                );
                let detail = serde_json::to_value(&p.error).ok();
                self.ledger.warn(&context, text, detail, out);
            }
            // The runner compacts the conversation: one context-compaction item, streamed.
            Event::SessionNextCompactionStarted(started) => {
                let p = &started.properties;
                let trigger = p.reason.to_string();
                self.next_compaction(&p.session_id, &p.message_id, &trigger, None, raw, out);
            }
            Event::SessionNextCompactionDelta(delta) => {
                let p = &delta.properties;
                self.next_compaction_delta(&p.session_id, &p.message_id, &p.text, raw, out);
            }
            Event::SessionNextCompactionEnded(ended) => {
                let p = &ended.properties;
                let trigger = p.reason.to_string();
                self.next_compaction(&p.session_id, &p.message_id, &trigger, Some(&p.text), raw, out);
            }
            // The agent or model the next step runs with, the session's new directory, context
            // and synthetic text the runner adds to the conversation, and a revert staged,
            // cleared or committed: the session's configuration of the moment.
            Event::SessionNextAgentSwitched(_)
            | Event::SessionNextModelSwitched(_)
            | Event::SessionNextMoved(_)
            | Event::SessionNextContextUpdated(_)
            | Event::SessionNextSynthetic(_)
            | Event::SessionNextRevertStaged(_)
            | Event::SessionNextRevertCleared(_)
            | Event::SessionNextRevertCommitted(_) => self.configured(frame, raw, out),
            Event::PermissionV2Asked(asked) => self.next_permission(&asked.properties, raw, out),
            Event::QuestionV2Asked(asked) => self.next_question(&asked.properties, raw, out),
            Event::PermissionV2Replied(replied) => {
                let p = &replied.properties;
                let decision = next::permission_decision(p.reply);
                let resolution = json!({ "reply": p.reply.to_string() });
                self.resolve(&p.session_id, &p.request_id, decision, resolution, None, raw, out);
            }
            Event::QuestionV2Replied(replied) => {
                let p = &replied.properties;
                let answers = serde_json::to_value(&p.answers).unwrap_or(Value::Null);
                let resolution = json!({ "answers": answers.clone() });
                self.resolve(
                    &p.session_id,
                    &p.request_id,
                    Decision::Answered,
                    resolution,
                    Some(answers),
                    raw,
                    out,
                );
            }
            Event::QuestionV2Rejected(rejected) => {
                let p = &rejected.properties;
                let resolution = json!({ "rejected": true });
                self.resolve(
                    &p.session_id,
                    &p.request_id,
                    Decision::Decline,
                    resolution,
                    None,
                    raw,
                    out,
                );
            }
        }
    }

    /// Opens a request the server asked (a permission, a question) in the session's running turn,
    /// on the item of the tool call it names (`call`) while that call runs.
    #[allow(clippy::too_many_arguments)]
    fn ask(
        &mut self,
        session: &str,
        id: &str,
        call: Option<&str>,
        asked: Asked,
        (request_type, detail): (CanonicalRequestType, Option<String>),
        args: Option<Value>,
        questions: Option<Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let place = Place {
            thread: Some(session.to_string()),
            turn: self.turns.get(session).cloned(),
            item: call.and_then(|call| self.calls.get(call)).cloned(),
        };
        let context = self.ledger.request_context(id, id, Direction::In, &place, Some(raw));
        let request = OpenRequest {
            request_type,
            place,
            provider_id: id.to_string(),
            dir: Direction::In,
            waits: true,
            user_input: false,
            answer: None,
            extra: asked,
        };
        let opened = RequestOpenedPayload {
            request_type,
            detail,
            args,
        };
        self.ledger
            .ask(id.to_string(), request, opened, questions, &context, out);
    }

    /// Settles a request with the answer the server confirms (or the client sent, if it came first).
    #[allow(clippy::too_many_arguments)]
    fn resolve(
        &mut self,
        session: &str,
        id: &str,
        decision: Decision,
        resolution: Value,
        answers: Option<Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match self.ledger.request_mut(id) {
            Some(request) => {
                if request.answer.is_none() {
                    request.answer = Some(Answer {
                        decision,
                        resolution,
                        answers,
                    });
                }
                self.ledger.resolve_request(id, Some(raw), out);
            }
            // A confirmation of a reply already settled says nothing new; a reply to a request
            // never asked (nor settled lately) is reported.
            None => {
                let request = ids::request(&crate::OPENCODE, self.ledger.session(), Direction::In, id);
                if let Err(AnswerError::AlreadyResolved(_)) = self.ledger.find_request(&request) {
                    let context = self.session_context(session, raw);
                    self.ledger
                        .settle_state_carrying(&context, Some("the request was already resolved"), out);
                } else {
                    let context = match session {
                        "" => Context::bare(raw),
                        session => self.session_context(session, raw),
                    };
                    let text = format!("a reply to the request {id:?}, which was never asked");
                    self.ledger.warn(&context, text, None, out);
                }
            }
        }
    }

    /// The client's HTTP calls: a reply to a permission or a question settles it; the others
    /// (creating a session, prompting, reading messages, aborting) are told by the events they
    /// cause, and carried as the configuration the client set.
    fn on_http(&mut self, call: &HttpCall<'_>, frame: &Frame<'_>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let segments: Vec<&str> = call.path.trim_start_matches('/').split('/').collect();
        let body = call.body.clone().unwrap_or(Value::Null);
        match (call.method.as_str(), segments.as_slice()) {
            ("POST", ["permission", id, "reply"]) | ("POST", ["api", "session", _, "permission", id, "reply"]) => {
                let reply = body.get("reply").and_then(Value::as_str).unwrap_or_default();
                let decision = match reply {
                    "once" => Decision::Accept,
                    "always" => Decision::AcceptForSession,
                    _ => Decision::Decline,
                };
                self.resolve_by_client(id, decision, body.clone(), None, raw, out);
            }
            ("POST", ["question", id, "reply"]) | ("POST", ["api", "session", _, "question", id, "reply"]) => {
                let answers = body.get("answers").cloned();
                self.resolve_by_client(id, Decision::Answered, body.clone(), answers, raw, out);
            }
            ("POST", ["question", id, "reject"]) | ("POST", ["api", "session", _, "question", id, "reject"]) => {
                self.resolve_by_client(id, Decision::Decline, json!({ "rejected": true }), None, raw, out);
            }
            _ => self.configured(frame, raw, out),
        }
    }

    fn resolve_by_client(
        &mut self,
        id: &str,
        decision: Decision,
        resolution: Value,
        answers: Option<Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let session = match self.ledger.request(id) {
            Some(request) => request.place.thread.clone().unwrap_or_default(),
            None => String::new(),
        };
        self.resolve(&session, id, decision, resolution, answers, raw, out);
    }
}

/// The request a permission is, by what it lets the tool do.
/// What a permission asks, as a person decides it: the patterns it would allow (the command,
/// the file, the address), after the permission's name when that is not already the card's type.
fn permission_detail(permission: &str, patterns: &[String]) -> Option<String> {
    let patterns = patterns.join(", ");
    match (permission_type(permission), patterns.is_empty()) {
        (_, true) => Some(permission.to_owned()).filter(|permission| !permission.is_empty()),
        (CanonicalRequestType::PermissionsApproval, false) => Some(format!("{permission}: {patterns}")),
        (_, false) => Some(patterns),
    }
}

/// What questions ask, one a line.
fn questions_detail<'a>(questions: impl Iterator<Item = &'a str>) -> Option<String> {
    let asked: Vec<&str> = questions.filter(|question| !question.trim().is_empty()).collect();
    (!asked.is_empty()).then(|| asked.join("\n"))
}

fn permission_type(permission: &str) -> CanonicalRequestType {
    match permission {
        "bash" => CanonicalRequestType::CommandExecutionApproval,
        "edit" | "write" | "patch" => CanonicalRequestType::FileChangeApproval,
        _ => CanonicalRequestType::PermissionsApproval,
    }
}

/// A decoded record, as the mapping reads it.
pub enum Record<'a> {
    /// A server event.
    Event(Box<Event>),
    /// `/global/event`'s durable copy of an event the stream also sent.
    Sync,
    /// A request of the client, with the server's answer.
    Http(HttpCall<'a>),
}

impl Mapping for OpencodeNormalizer {
    type Request = Asked;
    type Message<'a> = Record<'a>;

    fn ledger(&mut self) -> &mut Ledger<Asked> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Record<'a>>, Box<Misfit<'a>>> {
        let source = match frame.dir {
            Direction::In => RuntimeEventRawSource::OpencodeEvent,
            Direction::Out => RuntimeEventRawSource::OpencodeHttp,
        };
        match wire::decode(frame) {
            Ok(message) => Ok(Decoded {
                raw: Raw::new(source, wire::kind(&message, frame), frame.msg),
                message: match message {
                    wire::Message::Event(event) => Record::Event(event),
                    wire::Message::Sync { .. } => Record::Sync,
                    wire::Message::Http(call) => Record::Http(call),
                },
                time: ProviderTime::None,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(source, wire::tag(frame), frame.msg),
                tag_field: match frame.dir {
                    Direction::In => "type",
                    Direction::Out => "path",
                },
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(&mut self, frame: &Frame<'a>, record: Record<'a>, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        match record {
            Record::Event(event) => self.on_event(frame, raw, &event, out),
            // `/global/event`'s durable copy of an event the stream also sent.
            Record::Sync => self.configured(frame, raw, out),
            Record::Http(call) => self.on_http(&call, frame, raw, out),
        }
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        Context {
            raw,
            ..Context::default()
        }
    }

    /// A permission is answered at `POST /permission/{id}/reply` (`once`, `always` or `reject`,
    /// with the person's `message`), a question at `POST /question/{id}/reply` with its answers
    /// or `/question/{id}/reject`; the v2 runner's at the same paths under
    /// `/api/session/{sessionID}`.
    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let (key, open) = self.ledger.find_request(request)?;
        let session = open.place.thread.as_deref().unwrap_or_default();
        let (permission_path, question_path) = match open.extra {
            Asked::Permission | Asked::Question => (format!("/permission/{key}"), format!("/question/{key}")),
            Asked::PermissionV2 | Asked::QuestionV2 => (
                format!("/api/session/{session}/permission/{key}"),
                format!("/api/session/{session}/question/{key}"),
            ),
        };
        let frame = match (open.extra, reply.decision) {
            (Asked::Permission | Asked::PermissionV2, decision) => {
                let value = match decision {
                    Decision::Accept => "once",
                    Decision::AcceptForSession => "always",
                    Decision::Decline | Decision::Cancel => "reject",
                    Decision::Answered | Decision::Error => {
                        return Err(AnswerError::NotOffered {
                            request: request.clone(),
                            method: "permission.asked".to_string(),
                            decision,
                            offered: vec![Decision::Accept, Decision::AcceptForSession, Decision::Decline],
                            allowed: Vec::new(),
                        });
                    }
                };
                let mut body = json!({ "reply": value });
                if let Some(message) = &reply.message {
                    body["message"] = Value::String(message.clone());
                }
                json!({ "method": "POST", "path": format!("{permission_path}/reply"), "body": body })
            }
            (Asked::Question | Asked::QuestionV2, Decision::Answered) => {
                let Some(answers) = reply.answers.clone() else {
                    return Err(AnswerError::MissingAnswers {
                        method: "question.asked".to_string(),
                        decision: Decision::Answered,
                    });
                };
                json!({ "method": "POST", "path": format!("{question_path}/reply"), "body": { "answers": answers } })
            }
            (Asked::Question | Asked::QuestionV2, Decision::Decline | Decision::Cancel) => {
                json!({ "method": "POST", "path": format!("{question_path}/reject") })
            }
            (Asked::Question | Asked::QuestionV2, decision) => {
                return Err(AnswerError::NotOffered {
                    request: request.clone(),
                    method: "question.asked".to_string(),
                    decision,
                    offered: vec![Decision::Answered, Decision::Decline],
                    allowed: Vec::new(),
                });
            }
        };
        Ok(ReplyFrame::offered(frame))
    }
}
