//! The Copilot CLI normalizer: one arm per `SessionEvent`, on top of the session [`Ledger`].
//!
//! What the events do not say is kept here: the thread (a `-p` run names its session only in
//! its last line, so the run is the thread, keyed by the stream), the open turn (one prompt: the
//! CLI's `assistant.turn_start` / `turn_end` pair is one model call of it), whether the main
//! agent's last model call answered (a message without tool requests: its `turn_end` ends the
//! turn), each tool call's name and arguments (its completion names only its id), and which
//! `task` call each sub-agent runs under (its events carry only its `agentId`).

use std::collections::{BTreeMap, BTreeSet};

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, ContentStreamKind, ItemStatus, MessageOrigin, ProviderRefs,
    ProviderRuntimeEvent, ReasoningContent, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent,
    RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId, ThreadStartedPayload, ThreadTokenUsageUpdatedPayload,
    TurnState, UsageScope, UserMessageContent,
};
use agentwire_copilot::{
    AbortReason, AssistantMessageData, SessionEvent, ToolExecutionCompleteData, ToolExecutionStartData,
};
use serde_json::{Map, Value, json};

use crate::todos::Todos;
use crate::tools::{Call, Outcome, outcome_of_error};
use crate::wire;
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::{Conversation, SYNTHESIZED, drop_synthesized_refs, part};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::source::SourceSpec;
use agentwire_core::usage::{Meter, Tokens};

/// Which of the CLI's writings a stream is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Log {
    /// `copilot -p --output-format json` stdout: the session id comes last.
    Live,
    /// The session log: `session.start` names the session first.
    Stored,
}

/// A tool call started and not yet completed.
struct OpenCall {
    name: String,
    args: Option<Value>,
    parent: Option<RuntimeItemId>,
}

/// One Copilot CLI event as the decoder reads it: the event, and the sub-agent whose it is.
pub struct Message {
    event: SessionEvent,
    agent: Option<String>,
}

/// Normalizes one Copilot CLI stream.
pub struct CopilotNormalizer {
    source: &'static SourceSpec,
    log: Log,
    /// The model calls' tokens (`session.usage_record`, the log only).
    meter: Meter,
    ledger: Ledger<()>,
    at: Conversation,
    /// The model the session runs on, for its turns.
    model: Option<String>,
    /// Whether the main agent's running model call gave its answer (a message without tool
    /// requests): its `assistant.turn_end` ends the turn.
    answered: bool,
    /// The agents (`None`: the main one) whose running model call streamed its reasoning, so its
    /// message's `reasoningText` repeats it.
    reasoned: BTreeSet<Option<String>>,
    /// The messages and reasoning blocks open (streamed, not yet whole), by their id.
    open: BTreeSet<String>,
    /// Tool calls started and not yet completed, by `toolCallId`.
    calls: BTreeMap<String, OpenCall>,
    /// The `task` call each sub-agent runs under, by `agentId`.
    agents: BTreeMap<String, String>,
    /// The todo list, as the `sql` calls on it that succeeded left it.
    todos: Todos,
}

/// `providerRefs` without the keys made up here: the run's thread key, turn positions, and item
/// keys holding [`SYNTHESIZED`].
fn provider_refs(refs: &mut ProviderRefs) {
    drop_synthesized_refs(refs);
    if refs
        .provider_thread_id
        .as_ref()
        .is_some_and(|thread| thread.as_str().contains(SYNTHESIZED))
    {
        refs.provider_thread_id = None;
    }
}

impl CopilotNormalizer {
    /// A normalizer for one stream of `source`.
    pub fn new(source: &'static SourceSpec, log: Log, options: Options) -> Self {
        CopilotNormalizer {
            source,
            log,
            meter: Meter::default(),
            ledger: Ledger::new(source, options)
                .with_positional_turns()
                .with_provider_refs(provider_refs),
            at: Conversation::default(),
            model: None,
            answered: false,
            reasoned: BTreeSet::new(),
            open: BTreeSet::new(),
            calls: BTreeMap::new(),
            agents: BTreeMap::new(),
            todos: Todos::default(),
        }
    }

    /// The run's thread, started with its first line: the session id comes last (`result`),
    /// so the thread is keyed by the stream and names no provider thread.
    fn thread(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.at.thread.is_some() {
            return;
        }
        let key = part(self.ledger.session().as_str(), "run");
        self.at.thread = Some(key.clone());
        if self.ledger.start_thread(&key) {
            let context = self.ledger.thread_context(&key, Some(raw));
            let payload = ThreadStartedPayload {
                provider_thread_id: None,
            };
            self.ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        }
    }

    /// The open turn, started by `raw` when none is (an answer with no prompt before it).
    fn turn(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.at.turn.is_none() {
            self.answered = false;
            self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
        }
    }

    /// Ends the open turn as `end` says (with the tokens its calls used), carrying `raw`.
    fn end_turn(&mut self, mut end: TurnEnd, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        end.outcome.usage = self.meter.end_turn();
        self.at.end_turn(&mut self.ledger, end, Some(raw), out);
        self.answered = false;
        self.open.clear();
    }

    /// The item id of the `task` call a sub-agent (or a call naming its parent) runs under.
    fn parent(&mut self, agent: Option<&str>, parent_call: Option<&str>) -> Option<RuntimeItemId> {
        let call = parent_call.or_else(|| agent.and_then(|agent| self.agents.get(agent).map(String::as_str)))?;
        let call = call.to_owned();
        self.at.item_context(&mut self.ledger, &call, None).item_id
    }

    /// `thread.metadata.updated` with what the event says under its type: for what changes
    /// nothing a UI draws (a model call's start and end, the background tasks, a partial result
    /// a command's output deltas already streamed), so the line is carried, not dropped.
    fn carry(&mut self, event: &SessionEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let said = match serde_json::to_value(event) {
            Ok(Value::Object(mut members)) => members.remove("data").unwrap_or(Value::Null),
            Ok(_) | Err(_) => Value::Null,
        };
        let metadata = Map::from_iter([(event.tag().to_owned(), said)]);
        self.at.metadata(&mut self.ledger, metadata, raw, out);
    }

    /// `session.configured` with `config`.
    fn configured(&mut self, config: Map<String, Value>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.at.configured(&mut self.ledger, &config, raw, out);
    }

    fn warn(&mut self, message: String, detail: Option<Value>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let context = self.at.context(&mut self.ledger, Some(raw));
        self.ledger.warn(&context, message, detail, out);
    }

    fn on_event(&mut self, message: Message, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let Message { event, agent } = message;
        let agent = agent.as_deref();
        // The log names its session first: the thread is the session.
        if let (SessionEvent::SessionStart(start), Log::Stored) = (&event, self.log)
            && self.at.thread.is_none()
        {
            self.at.see_thread(&mut self.ledger, &start.data.session_id, raw, out);
        } else {
            self.thread(raw, out);
        }
        match event {
            SessionEvent::SessionStart(start) => {
                self.model = start.data.selected_model.clone();
                let mut config = Map::new();
                if let Some(model) = start.data.selected_model {
                    config.insert("model".to_owned(), Value::String(model));
                }
                if let Some(cwd) = start.data.context.map(|context| context.cwd) {
                    config.insert("cwd".to_owned(), Value::String(cwd));
                }
                config.insert("copilotVersion".to_owned(), Value::String(start.data.copilot_version));
                self.configured(config, raw, out);
            }
            // A resumed session: the thread goes on, on the model it names.
            SessionEvent::SessionResume(resume) => {
                let mut config = Map::new();
                if let Some(model) = resume.data.selected_model {
                    self.model = Some(model.clone());
                    config.insert("model".to_owned(), Value::String(model));
                }
                self.configured(config, raw, out);
            }
            // One model call's tokens (the log only; no cost in dollars: `cost` counts premium
            // requests).
            SessionEvent::SessionUsageRecord(record) => {
                let usage = record.data.usage;
                let count = |value: Option<u64>| value.map(|value| i64::try_from(value).unwrap_or(i64::MAX));
                let mut call = Tokens {
                    input: count(usage.input_tokens),
                    cached: count(usage.cache_read_tokens),
                    cache_write: count(usage.cache_write_tokens),
                    output: count(usage.output_tokens),
                    reasoning: count(usage.reasoning_tokens).filter(|&tokens| tokens > 0),
                    total: None,
                }
                .usage(UsageScope::Call);
                call.model = Some(usage.model);
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = ThreadTokenUsageUpdatedPayload {
                    usage: self.meter.call(call),
                };
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
            }
            // What the session runs with: `session.configured`.
            SessionEvent::SessionToolsUpdated(tools) => {
                self.model = Some(tools.data.model.clone());
                let config = Map::from_iter([("model".to_owned(), Value::String(tools.data.model))]);
                self.configured(config, raw, out);
            }
            SessionEvent::SessionModelChange(change) if agent.is_none() => {
                self.model = Some(change.data.new_model.clone());
                let config = Map::from_iter([("model".to_owned(), Value::String(change.data.new_model))]);
                self.configured(config, raw, out);
            }
            SessionEvent::SessionSkillsLoaded(skills) => {
                let names = skills.data.skills.into_iter().map(|skill| Value::String(skill.name));
                let config = Map::from_iter([("skills".to_owned(), Value::Array(names.collect()))]);
                self.configured(config, raw, out);
            }
            SessionEvent::SessionMcpServersLoaded(servers) => {
                let names = servers
                    .data
                    .servers
                    .into_iter()
                    .map(|server| Value::String(server.name));
                let config = Map::from_iter([("mcpServers".to_owned(), Value::Array(names.collect()))]);
                self.configured(config, raw, out);
            }
            SessionEvent::UserMessage(message) => {
                let parent = self.parent(agent, None);
                if agent.is_none() {
                    if self.at.turn.is_some() {
                        let end = TurnEnd::new(turn_outcome(TurnState::Completed, None));
                        self.end_turn(end, raw, out);
                    }
                    self.turn(raw, out);
                }
                let data = message.data;
                let key = data.message_id.unwrap_or_else(|| part(&message.id, "prompt"));
                let prompt = UserMessageContent {
                    text: data.content,
                    attachments: None,
                    // A sub-agent's prompt is the one its `task` call gave it.
                    origin: agent.map(|_| MessageOrigin::Cli),
                    parent_item_id: parent,
                };
                let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
                self.at
                    .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
            }
            ref step @ SessionEvent::AssistantTurnStart(ref start) => {
                if agent.is_none() && start.data.parent_tool_call_id.is_none() {
                    self.turn(raw, out);
                    self.answered = false;
                }
                self.reasoned.remove(&agent.map(str::to_owned));
                self.carry(step, raw, out);
            }
            ref step @ SessionEvent::AssistantTurnEnd(ref end) => {
                let main = agent.is_none() && end.data.parent_tool_call_id.is_none();
                if main && self.answered && self.at.turn.is_some() {
                    let end = TurnEnd::new(turn_outcome(TurnState::Completed, None));
                    self.end_turn(end, raw, out);
                } else {
                    self.carry(step, raw, out);
                }
            }
            ref idle @ SessionEvent::AssistantIdle(ref data) => {
                if self.at.turn.is_some() && agent.is_none() {
                    let state = match data.data.aborted {
                        Some(true) => TurnState::Interrupted,
                        Some(false) | None => TurnState::Completed,
                    };
                    self.end_turn(TurnEnd::new(turn_outcome(state, None)), raw, out);
                } else {
                    self.carry(idle, raw, out);
                }
            }
            SessionEvent::AssistantMessageStart(start) => {
                self.turn(raw, out);
                let parent = self.parent(agent, None);
                self.open_text(&start.data.message_id, parent, raw, out);
            }
            SessionEvent::AssistantMessageDelta(delta) => {
                self.turn(raw, out);
                let parent = self.parent(agent, delta.data.parent_tool_call_id.as_deref());
                self.open_text(&delta.data.message_id, parent, raw, out);
                let key = delta.data.message_id;
                self.at.delta(
                    &mut self.ledger,
                    &key,
                    ContentStreamKind::AssistantText,
                    "text",
                    &delta.data.delta_content,
                    raw,
                    out,
                );
            }
            ref whole @ SessionEvent::AssistantMessage(ref message) => {
                self.assistant_message(whole, &message.data, agent, raw, out);
            }
            SessionEvent::AssistantReasoningDelta(delta) => {
                self.turn(raw, out);
                self.reasoned.insert(agent.map(str::to_owned));
                let parent = self.parent(agent, None);
                let key = delta.data.reasoning_id;
                if self.open.insert(key.clone()) {
                    let empty = ReasoningContent {
                        text: String::new(),
                        summary: None,
                        parent_item_id: parent,
                    };
                    let face = OpenItemFace::untitled(CanonicalItemType::Reasoning, content::data(empty));
                    self.at.start_item(&mut self.ledger, &key, face, raw, out);
                }
                self.at.delta(
                    &mut self.ledger,
                    &key,
                    ContentStreamKind::ReasoningText,
                    "text",
                    &delta.data.delta_content,
                    raw,
                    out,
                );
            }
            SessionEvent::AssistantReasoning(reasoning) => {
                self.turn(raw, out);
                self.reasoned.insert(agent.map(str::to_owned));
                let parent = self.parent(agent, None);
                let key = reasoning.data.reasoning_id;
                let whole = ReasoningContent {
                    text: reasoning.data.content,
                    summary: None,
                    parent_item_id: parent,
                };
                let face = OpenItemFace::untitled(CanonicalItemType::Reasoning, content::data(whole));
                match self.open.remove(&key) {
                    true => self
                        .at
                        .complete_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out),
                    false => self
                        .at
                        .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out),
                }
            }
            SessionEvent::ToolExecutionStart(start) => self.tool_start(start.data, agent, raw, out),
            SessionEvent::ToolShellOutput(output) => {
                let key = output.data.tool_call_id;
                self.at.delta(
                    &mut self.ledger,
                    &key,
                    ContentStreamKind::CommandOutput,
                    "output",
                    &output.data.text,
                    raw,
                    out,
                );
            }
            SessionEvent::ToolExecutionComplete(complete) => self.tool_complete(complete.data, raw, out),
            ref started @ SessionEvent::SubagentStarted(ref start) => {
                if let Some(agent) = agent {
                    self.agents.insert(agent.to_owned(), start.data.tool_call_id.clone());
                }
                self.carry(started, raw, out);
            }
            // A retry is a warning where it happens; the turn goes on (or fails with
            // `session.error` when the CLI gives up).
            SessionEvent::AssistantTurnRetry(retry) => {
                let reason = retry.data.reason.as_deref().unwrap_or("an error");
                let message = format!("the model call failed ({reason}); the CLI retries it");
                let detail = json!({ "reason": retry.data.reason, "model": retry.data.model });
                self.warn(message, Some(detail), raw, out);
            }
            SessionEvent::SessionWarning(warning) => {
                let detail = json!({ "warningType": warning.data.warning_type });
                self.warn(warning.data.message, Some(detail), raw, out);
            }
            // The CLI gave up: the turn's one failure (an API error after its retries).
            SessionEvent::SessionError(error) => {
                let data = error.data;
                let detail = json!({
                    "errorType": data.error_type,
                    "statusCode": data.status_code,
                    "errorCode": data.error_code,
                });
                if self.at.turn.is_some() {
                    let end = TurnEnd::failed(Some(data.error_type), data.message, Some(detail));
                    self.end_turn(end, raw, out);
                } else {
                    let context = self.at.context(&mut self.ledger, Some(raw));
                    let payload = RuntimeErrorPayload {
                        message: data.message,
                        class: Some(RuntimeErrorClass::ProviderError),
                        detail: Some(detail),
                    };
                    self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                }
            }
            // The person stopped the run: the turn is interrupted.
            ref stop @ SessionEvent::Abort(ref abort) => {
                if self.at.turn.is_some() {
                    let reason = match abort.data.reason {
                        AbortReason::UserInitiated | AbortReason::UserAbort => "interrupted by the user",
                        AbortReason::RemoteCommand => "stopped by a remote command",
                        AbortReason::AutopilotCreditLimit => "stopped at the autopilot credit limit",
                    };
                    let end = TurnEnd::new(turn_outcome(TurnState::Interrupted, Some(reason.to_owned())));
                    self.end_turn(end, raw, out);
                } else {
                    self.carry(stop, raw, out);
                }
            }
            // The run's end: the session it was, how it exited, what it used (no tokens).
            SessionEvent::Result(result) => {
                if self.at.turn.is_some() {
                    let end = match result.exit_code {
                        0 => TurnEnd::new(turn_outcome(TurnState::Completed, None)),
                        code => TurnEnd::failed(None, format!("the run exited with code {code}"), None),
                    };
                    self.end_turn(end, raw, out);
                }
                let usage = serde_json::to_value(&result.usage).unwrap_or(Value::Null);
                let metadata = Map::from_iter([
                    ("sessionId".to_owned(), Value::String(result.session_id)),
                    ("exitCode".to_owned(), Value::from(result.exit_code)),
                    ("usage".to_owned(), usage),
                ]);
                self.at.metadata(&mut self.ledger, metadata, raw, out);
            }
            // Nothing a UI draws: carried as thread metadata. A model call's start, end and
            // failure (a retry warns, `session.error` fails the turn), the streamed tool-call
            // arguments (`tool.execution_start` has them whole), a partial result (the cumulative
            // output `tool.shell_output` streams), the background tasks, the todo list's change
            // (the `sql` call that made it is the plan item), the note the interrupt leaves
            // (`abort` ends the turn), what a sub-agent is and runs with, and, in the log, the
            // system prompt, each process's totals and a permission request with how it was
            // decided (the call's completion says what became of it).
            quiet @ (SessionEvent::ModelCallStart(_)
            | SessionEvent::ModelCallFinished(_)
            | SessionEvent::ModelCallFinalResult(_)
            | SessionEvent::ModelCallFailure(_)
            | SessionEvent::AssistantToolCallDelta(_)
            | SessionEvent::ToolExecutionPartialResult(_)
            | SessionEvent::ToolExecutionProgress(_)
            | SessionEvent::SessionBackgroundTasksChanged(_)
            | SessionEvent::SessionTodosChanged(_)
            | SessionEvent::SessionInfo(_)
            | SessionEvent::AgentInterrupted(_)
            | SessionEvent::SubagentSelected(_)
            | SessionEvent::SubagentConfigured(_)
            | SessionEvent::SubagentDeselected(_)
            | SessionEvent::SubagentCompleted(_)
            | SessionEvent::SubagentFailed(_)
            | SessionEvent::SessionModelChange(_)
            | SessionEvent::AssistantUsage(_)
            | SessionEvent::AssistantIntent(_)
            | SessionEvent::AssistantStreamingDelta(_)
            | SessionEvent::AssistantServerToolProgress(_)
            | SessionEvent::PromptCacheBreak(_)
            | SessionEvent::SessionIdle(_)
            | SessionEvent::SessionTitleChanged(_)
            | SessionEvent::SessionShutdown(_)
            | SessionEvent::SessionUsageCheckpoint(_)
            | SessionEvent::SessionUsageInfo(_)
            | SessionEvent::SessionQuotaObservation(_)
            | SessionEvent::SessionContextChanged(_)
            | SessionEvent::SessionContextCleared(_)
            | SessionEvent::SessionCompactionStart(_)
            | SessionEvent::SessionCompactionComplete(_)
            | SessionEvent::SessionTruncation(_)
            | SessionEvent::SessionTaskComplete(_)
            | SessionEvent::SessionCompletionReceipt(_)
            | SessionEvent::SessionModeChanged(_)
            | SessionEvent::SessionModeNoticeDelivered(_)
            | SessionEvent::SessionPlanChanged(_)
            | SessionEvent::SessionMemoryChanged(_)
            | SessionEvent::SessionWorkspaceFileChanged(_)
            | SessionEvent::SessionPermissionsChanged(_)
            | SessionEvent::SessionSessionLimitsChanged(_)
            | SessionEvent::SessionRemoteSteerableChanged(_)
            | SessionEvent::SessionCustomAgentsUpdated(_)
            | SessionEvent::SessionExtensionsLoaded(_)
            | SessionEvent::SessionMcpServerStatusChanged(_)
            | SessionEvent::SessionMcpServerToolsLoaded(_)
            | SessionEvent::SessionMcpServerRemoved(_)
            | SessionEvent::SessionMcpServerNeedsReconnect(_)
            | SessionEvent::McpToolsListChanged(_)
            | SessionEvent::McpResourcesListChanged(_)
            | SessionEvent::McpPromptsListChanged(_)
            | SessionEvent::CommandsChanged(_)
            | SessionEvent::CapabilitiesChanged(_)
            | SessionEvent::SystemMessage(_)
            | SessionEvent::SystemNotification(_)
            | SessionEvent::SkillInvoked(_)
            | SessionEvent::SkillInvokedRef(_)
            | SessionEvent::SkillContextDelivered(_)
            | SessionEvent::SkillContextDeliveredRef(_)
            | SessionEvent::ToolSearchActivated(_)
            | SessionEvent::ToolUserRequested(_)
            | SessionEvent::SandboxDecision(_)
            | SessionEvent::HookStart(_)
            | SessionEvent::HookEnd(_)
            | SessionEvent::HookProgress(_)
            | SessionEvent::SessionBinaryAsset(_)
            | SessionEvent::PendingMessagesModified(_)
            | SessionEvent::PermissionRequested(_)
            | SessionEvent::PermissionCompleted(_)
            | SessionEvent::PermissionCarriedForward(_)
            | SessionEvent::PermissionMessageAuthorization(_)
            | SessionEvent::PermissionMessageAuthorizationRead(_)
            | SessionEvent::PermissionMessageAuthorizationDegraded(_)
            | SessionEvent::PermissionAssentDetected(_)
            | SessionEvent::PermissionContextualAuthorization(_)
            | SessionEvent::SessionPermissionRecovery(_)
            | SessionEvent::UserInputCompleted(_)
            | SessionEvent::ElicitationCompleted(_)
            | SessionEvent::SamplingCompleted(_)
            | SessionEvent::McpOauthCompleted(_)
            | SessionEvent::McpOauthRecoveryCompleted(_)
            | SessionEvent::McpHeadersRefreshCompleted(_)
            | SessionEvent::ExternalToolCompleted(_)
            | SessionEvent::CommandQueued(_)
            | SessionEvent::CommandExecute(_)
            | SessionEvent::CommandCompleted(_)
            | SessionEvent::AutoModeSwitchCompleted(_)
            | SessionEvent::SessionLimitsExhaustedCompleted(_)
            | SessionEvent::ExitPlanModeCompleted(_)
            | SessionEvent::HumanResponseRecorded(_)
            | SessionEvent::SessionAutoModeResolved(_)
            | SessionEvent::SessionAutoTierRecommendation(_)
            | SessionEvent::SessionModelDeselected(_)
            | SessionEvent::SessionManagedPluginProgress(_)
            | SessionEvent::SessionManagedSettingsResolved(_)
            | SessionEvent::SessionManagedSettingsEnforced(_)
            | SessionEvent::SessionIndexedSearch(_)
            | SessionEvent::SessionHandoff(_)
            | SessionEvent::SessionSnapshotRewind(_)
            | SessionEvent::SessionRequestBodyCompressionDisabled(_)
            | SessionEvent::SessionAutopilotObjectiveChanged(_)
            | SessionEvent::SessionScheduleCreated(_)
            | SessionEvent::SessionScheduleCancelled(_)
            | SessionEvent::SessionScheduleRearmed(_)
            | SessionEvent::SessionCustomNotification(_)
            | SessionEvent::UiEphemeralQuery(_)
            | SessionEvent::WorkflowRunUpdated(_)
            | SessionEvent::WorkflowRunStarted(_)
            | SessionEvent::WorkflowRunSettled(_)
            | SessionEvent::SessionCanvasOpened(_)
            | SessionEvent::SessionCanvasRegistryChanged(_)
            | SessionEvent::SessionCanvasClosed(_)
            | SessionEvent::SessionCanvasUnavailable(_)
            | SessionEvent::SessionCanvasRecorded(_)
            | SessionEvent::SessionCanvasRemoved(_)
            | SessionEvent::SessionExtensionsAttachmentsPushed(_)
            | SessionEvent::McpAppToolCallComplete(_)
            | SessionEvent::SessionFusionChangeCheckpoint(_)
            | SessionEvent::SessionFusionRouteStarted(_)
            | SessionEvent::SessionFusionResolved(_)
            | SessionEvent::SessionFusionHandoff(_)
            | SessionEvent::SessionFusionCommitStarted(_)
            | SessionEvent::SessionFusionCompleted(_)
            | SessionEvent::AssistantFusionPhaseStarted(_)
            | SessionEvent::AssistantFusionPhaseActivity(_)
            | SessionEvent::AssistantFusionPhaseCompleted(_)) => self.carry(&quiet, raw, out),
            // A question to a person, which agentwire cannot answer for the CLI (`-p` prints none
            // of these; it decides alone): a warning naming it.
            // Something the CLI reports failed and goes on from: a warning.
            asked @ (SessionEvent::UserInputRequested(_)
            | SessionEvent::ElicitationRequested(_)
            | SessionEvent::SamplingRequested(_)
            | SessionEvent::McpOauthRequired(_)
            | SessionEvent::McpHeadersRefreshRequired(_)
            | SessionEvent::ExternalToolRequested(_)
            | SessionEvent::AutoModeSwitchRequested(_)
            | SessionEvent::SessionLimitsExhaustedRequested(_)
            | SessionEvent::ExitPlanModeRequested(_)
            | SessionEvent::SessionAutopilotStopped(_)
            | SessionEvent::SessionAutoTierSwitchFailed(_)
            | SessionEvent::SessionFusionRouteFailed(_)
            | SessionEvent::AssistantFusionPhaseFailed(_)) => {
                let message = format!("`{}` is not mapped: a headless run asks nobody", asked.tag());
                self.warn(message, None, raw, out);
            }
        }
    }

    /// Starts the model's message `key` unless it is open.
    fn open_text(
        &mut self,
        key: &str,
        parent: Option<RuntimeItemId>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if !self.open.insert(key.to_owned()) {
            return;
        }
        let empty = AssistantMessageContent {
            text: String::new(),
            parent_item_id: parent,
        };
        let face = OpenItemFace::untitled(CanonicalItemType::AssistantMessage, content::data(empty));
        self.at.start_item(&mut self.ledger, key, face, raw, out);
    }

    /// The model's whole message: its reasoning (when no reasoning event streamed it) and its
    /// text as one item each. A message of tool requests only is carried: each request is the
    /// tool call's item, which `tool.execution_start` opens. The main agent's message without
    /// tool requests is its answer: the model call's end ends the turn.
    fn assistant_message(
        &mut self,
        whole: &SessionEvent,
        message: &AssistantMessageData,
        agent: Option<&str>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.turn(raw, out);
        let parent = self.parent(agent, message.parent_tool_call_id.as_deref());
        let asks = message
            .tool_requests
            .as_ref()
            .is_some_and(|requests| !requests.is_empty());
        if agent.is_none() && message.parent_tool_call_id.is_none() && !asks {
            self.answered = true;
        }
        let mut carried = false;
        if let Some(reasoning) = &message.reasoning_text
            && !reasoning.is_empty()
            && !self.reasoned.contains(&agent.map(str::to_owned))
        {
            let key = part(&message.message_id, "reasoning");
            let whole = ReasoningContent {
                text: reasoning.clone(),
                summary: None,
                parent_item_id: parent.clone(),
            };
            let face = OpenItemFace::untitled(CanonicalItemType::Reasoning, content::data(whole));
            self.at
                .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
            carried = true;
        }
        let key = &message.message_id;
        let text = AssistantMessageContent {
            text: message.content.clone(),
            parent_item_id: parent,
        };
        let face = OpenItemFace::untitled(CanonicalItemType::AssistantMessage, content::data(text));
        if self.open.remove(key) {
            self.at
                .complete_item(&mut self.ledger, key, face, ItemStatus::Completed, raw, out);
        } else if !message.content.is_empty() {
            self.at
                .whole_item(&mut self.ledger, key, face, ItemStatus::Completed, raw, out);
        } else if !carried {
            self.carry(whole, raw, out);
        }
    }

    fn tool_start(
        &mut self,
        start: ToolExecutionStartData,
        agent: Option<&str>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.turn(raw, out);
        let parent = self.parent(agent, start.parent_tool_call_id.as_deref());
        let todos = self.todos.steps();
        let call = Call {
            name: &start.tool_name,
            args: start.arguments.as_ref(),
            todos: &todos,
        };
        let face = OpenItemFace::new(
            call.item_type(),
            call.title(),
            content::data(call.content(Outcome::Running, parent.clone())),
        );
        self.at
            .start_item(&mut self.ledger, &start.tool_call_id, face, raw, out);
        let open = OpenCall {
            name: start.tool_name,
            args: start.arguments,
            parent,
        };
        self.calls.insert(start.tool_call_id, open);
    }

    /// The call's item completes as its result says: a success completed (a command that exits
    /// non-zero failed), a denial declined, any other error failed.
    fn tool_complete(
        &mut self,
        complete: ToolExecutionCompleteData,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(call) = self.calls.remove(&complete.tool_call_id) else {
            let message = format!(
                "a completion of the tool call {:?}, which no `tool.execution_start` announced",
                complete.tool_call_id
            );
            return self.warn(message, None, raw, out);
        };
        let outcome = match (&complete.result, &complete.error) {
            (Some(result), _) if complete.success => Outcome::Succeeded {
                output: &result.content,
                detail: result.detailed_content.as_deref(),
                exit_code: complete.shell_execution.as_ref().map(|shell| shell.exit_code),
            },
            (_, Some(error)) => outcome_of_error(error.code.as_deref(), &error.message),
            (Some(result), None) => Outcome::Failed { error: &result.content },
            (None, None) => Outcome::Failed {
                error: "the tool call failed",
            },
        };
        let mut tool = Call {
            name: &call.name,
            args: call.args.as_ref(),
            todos: &[],
        };
        if let (Some(query), ItemStatus::Completed) = (tool.todo_query(), outcome.status()) {
            self.todos.apply(query);
        }
        let todos = self.todos.steps();
        tool.todos = &todos;
        let face = OpenItemFace::new(
            tool.item_type(),
            tool.title(),
            content::data(tool.content(outcome, call.parent)),
        );
        self.at.complete_item(
            &mut self.ledger,
            &complete.tool_call_id,
            face,
            outcome.status(),
            raw,
            out,
        );
    }
}

impl Mapping for CopilotNormalizer {
    type Request = ();
    type Message<'a> = Message;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Message>, Box<Misfit<'a>>> {
        let label = match self.log {
            Log::Live => RuntimeEventRawSource::CopilotEvent,
            Log::Stored => RuntimeEventRawSource::CopilotSessionEvent,
        };
        let time = match wire::timestamp(frame) {
            Some(text) => ProviderTime::Text {
                field: "timestamp",
                text: text.into(),
            },
            None => ProviderTime::None,
        };
        match wire::decode(frame) {
            Ok(event) => Ok(Decoded {
                raw: Raw::new(label, Some(event.tag()), frame.msg),
                time,
                message: Message {
                    event,
                    agent: wire::agent(frame).map(str::to_owned),
                },
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(label, frame.tag("type"), frame.msg),
                tag_field: "type",
                time,
            })),
        }
    }

    fn map<'a>(&mut self, _frame: &Frame<'a>, message: Message, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.on_event(message, raw, out);
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// A headless run asks nobody: the rules decide alone.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(self.source))
    }
}
