//! The one exhaustive `match` over `EventMsg`: spec 3.3's equivalences, and what else a
//! replayed session says.
//!
//! Mapped to nothing richer than `runtime.warning`:
//! - `warning`: codex's own warning to the user; a warning is what it is.
//! - `stream_error`: the model stream dropped and codex retries by itself; the turn has not
//!   failed (as app-server's `error` with `willRetry`).
//! - `agent_reasoning_section_break` without an item id: a boundary in no item a UI can find.

use agentwire_canonical::{
    AccountRateLimitsUpdatedPayload, CanonicalItemType, ContentDeltaPayload, ContentStreamKind,
    DeprecationNoticePayload, ItemStatus, ModelReroutedPayload, ProviderRuntimeEvent, ReviewEnteredContent,
    ReviewExitedContent, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent, RuntimeWarningPayload,
    SessionConfiguredPayload, SessionExitKind, SessionExitedPayload, ThreadState, ThreadStateChangedPayload,
    ThreadTokenUsageUpdatedPayload, TurnDiffUpdatedPayload, TurnPlanUpdatedPayload, TurnState, UsageScope,
};
use agentwire_codex_rollout::EventMsg;
use serde_json::{Value, json};

use super::content;
use super::items::{Face, data, plan_steps, status_of, turn_item_face};
use super::normalizer::{CodexRolloutNormalizer, Line, object, usage};
use crate::codex_content::{self, non_empty};
use agentwire_core::ledger::Cutoff;
use agentwire_core::object_text;

/// A string field of a JSON object.
fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

impl CodexRolloutNormalizer {
    pub(super) fn on_event_msg(&mut self, line: Line<'_>, event: &EventMsg, out: &mut Vec<ProviderRuntimeEvent>) {
        let tag = event.tag();
        let raw = line.raw(tag);
        let derived = line.event_msg_raw(tag);
        let value = serde_json::to_value(event).unwrap_or(Value::Null);
        let turn = self.turn_of(value.get("turn_id").and_then(Value::as_str));
        match event {
            EventMsg::TaskStarted(started) => self.start_turn(&started.turn_id, Some(raw), out),
            EventMsg::TaskComplete(complete) => {
                let error_message = match &complete.error {
                    Some(error) => {
                        let thread = self.thread_key();
                        if self.ledger.report_turn_error(&thread, &complete.turn_id) {
                            let place = self.place(Some(&complete.turn_id), None);
                            let context = self.context(&place, Some(derived));
                            let payload = RuntimeErrorPayload {
                                message: error.message.clone(),
                                class: Some(RuntimeErrorClass::ProviderError),
                                detail: serde_json::to_value(error).ok(),
                            };
                            self.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                        }
                        Some(error.message.clone())
                    }
                    None => None,
                };
                let state = match error_message {
                    Some(_) => TurnState::Failed,
                    None => TurnState::Completed,
                };
                self.end_turn(&complete.turn_id, raw, state, None, error_message, out);
            }
            EventMsg::TurnAborted(aborted) => {
                let Some(turn) = turn else {
                    return self.warn(raw, "turn_aborted for no known turn", value, out);
                };
                if aborted.reason == "interrupted" {
                    let stop_reason = Some(aborted.reason.clone());
                    self.end_turn(&turn, raw, TurnState::Interrupted, stop_reason, None, out);
                } else {
                    let thread = self.thread_key();
                    let place = self.place(Some(&turn), None);
                    let context = self.context(&place, Some(raw));
                    self.turn = None;
                    let reason = aborted.reason.clone();
                    self.ledger
                        .abort_turn(&context, &thread, &turn, Cutoff::Failed, reason, out);
                }
            }
            EventMsg::Error(error) => {
                let thread = self.thread_key();
                let place = self.place(turn.as_deref(), None);
                let context = self.context(&place, Some(raw));
                let first = turn
                    .as_deref()
                    .is_none_or(|turn| self.ledger.report_turn_error(&thread, turn));
                if first {
                    let payload = RuntimeErrorPayload {
                        message: error.message.clone(),
                        class: Some(RuntimeErrorClass::ProviderError),
                        detail: Some(value),
                    };
                    self.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                } else {
                    let payload = RuntimeWarningPayload {
                        message: format!("the turn had already failed: {}", error.message),
                        detail: Some(value),
                    };
                    self.emit(&context, RuntimeEvent::RuntimeWarning(payload), out);
                }
            }
            EventMsg::Warning(_) | EventMsg::StreamError(_) => {
                let message = text(&value, "message").unwrap_or_else(|| tag.to_string());
                self.warn(raw, &message, value, out);
            }
            EventMsg::ModelReroute(reroute) => {
                let payload = ModelReroutedPayload {
                    from_model: reroute.from_model.clone(),
                    to_model: text(&value, "to_model").unwrap_or_default(),
                    reason: reroute.reason.clone(),
                };
                self.turn_event(turn.as_deref(), raw, RuntimeEvent::ModelRerouted(payload), out);
            }
            EventMsg::ContextCompacted => {
                let payload = ThreadStateChangedPayload {
                    state: ThreadState::Compacted,
                    detail: Some(value),
                };
                self.turn_event(None, raw, RuntimeEvent::ThreadStateChanged(payload), out);
            }
            EventMsg::ThreadRolledBack(_) => {
                let payload = SessionConfiguredPayload {
                    config: object_text::from_map(&object(json!({ "threadRolledBack": value }))),
                };
                self.turn_event(None, raw, RuntimeEvent::SessionConfigured(payload), out);
            }
            EventMsg::ThreadSettingsApplied(_) => {
                let settings = value.get("thread_settings").cloned().unwrap_or(Value::Null);
                let payload = SessionConfiguredPayload {
                    config: object_text::from_map(&object(json!({ "threadSettings": settings }))),
                };
                self.turn_event(None, raw, RuntimeEvent::SessionConfigured(payload), out);
            }
            EventMsg::TokenCount(count) => {
                // Codex writes its rate limits on every count, each limit null when the model
                // server reports none: a limit with a value is worth an event, and so is a count
                // with no usage that names its limits (the limit's id), which no other event
                // would carry.
                let limits = count.rate_limits.as_ref().filter(|limits| {
                    count.info.is_none() || limits.iter().any(|(key, value)| !value.is_null() && key != "limit_id")
                });
                if let Some(info) = &count.info {
                    let mut snapshot = self.meter.running(
                        usage(&info.total_token_usage, UsageScope::Thread),
                        Some(usage(&info.last_token_usage, UsageScope::Call)),
                    );
                    snapshot.max_tokens = info.model_context_window;
                    let payload = ThreadTokenUsageUpdatedPayload { usage: snapshot };
                    self.turn_event(
                        turn.as_deref(),
                        raw,
                        RuntimeEvent::ThreadTokenUsageUpdated(payload),
                        out,
                    );
                }
                // A count of nothing (no usage, no limits) has nothing to say.
                if let Some(limits) = limits {
                    let payload = AccountRateLimitsUpdatedPayload {
                        rate_limits: Value::Object(limits.clone()).into(),
                    };
                    self.turn_event(None, raw, RuntimeEvent::AccountRateLimitsUpdated(payload), out);
                }
            }
            // The legacy whole-message events (no item id: named after their line).
            EventMsg::AgentMessage(message) => {
                let data = data(content::assistant(message.message.clone()));
                self.legacy_item(turn, CanonicalItemType::AssistantMessage, data, raw, out);
            }
            EventMsg::UserMessage(message) => {
                let data = data(content::legacy_user_message(message));
                self.legacy_item(turn, CanonicalItemType::UserMessage, data, raw, out);
            }
            EventMsg::AgentReasoning(reasoning) => {
                let data = data(content::reasoning(reasoning.text.clone(), true));
                self.legacy_item(turn, CanonicalItemType::Reasoning, data, raw, out);
            }
            EventMsg::AgentReasoningRawContent(reasoning) => {
                let data = data(content::reasoning(reasoning.text.clone(), false));
                self.legacy_item(turn, CanonicalItemType::Reasoning, data, raw, out);
            }
            EventMsg::AgentMessageDelta(_) | EventMsg::AgentMessageContentDelta(_) => {
                self.delta(turn, &value, ContentStreamKind::AssistantText, raw, out);
            }
            EventMsg::AgentReasoningDelta(_) | EventMsg::ReasoningContentDelta(_) => {
                self.delta(turn, &value, ContentStreamKind::ReasoningSummaryText, raw, out);
            }
            EventMsg::ReasoningRawContentDelta(_) => {
                self.delta(turn, &value, ContentStreamKind::ReasoningText, raw, out);
            }
            EventMsg::PlanDelta(_) => self.delta(turn, &value, ContentStreamKind::PlanText, raw, out),
            EventMsg::AgentReasoningSectionBreak(section) => match &section.item_id {
                Some(item) if self.item_open(item) => {
                    let face = Face {
                        item_type: CanonicalItemType::Reasoning,
                        title: None,
                        status: ItemStatus::InProgress,
                        data: data(codex_content::empty(CanonicalItemType::Reasoning)),
                    };
                    let item = item.clone();
                    self.update_item(turn.as_deref(), &item, face, raw, out);
                }
                Some(_) | None => self.warn(raw, "reasoning section break outside a known item", value, out),
            },
            EventMsg::ItemStarted(started) => {
                let (id, face) = turn_item_face(&started.item);
                self.start_item(Some(&started.turn_id), &id, face, Some(raw), out);
            }
            EventMsg::ItemCompleted(completed) => {
                let (id, face) = turn_item_face(&completed.item);
                self.complete_item(Some(&completed.turn_id), &id, face, raw, Some(derived), out);
            }
            EventMsg::McpToolCallBegin(begin) => {
                let data = data(content::mcp_call(&begin.invocation, None));
                self.begin_call(turn, &begin.call_id, CanonicalItemType::McpToolCall, data, raw, out);
            }
            EventMsg::McpToolCallEnd(end) => {
                let data = data(content::mcp_call(&end.invocation, Some(&end.result)));
                let status = if value.pointer("/result/Err").is_some() {
                    ItemStatus::Failed
                } else {
                    ItemStatus::Completed
                };
                self.end_call(
                    turn,
                    &end.call_id,
                    CanonicalItemType::McpToolCall,
                    status,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::WebSearchBegin(begin) => {
                let data = data(content::web_search(String::new(), None));
                self.begin_call(turn, &begin.call_id, CanonicalItemType::WebSearch, data, raw, out);
            }
            EventMsg::WebSearchEnd(end) => {
                let call_id = end.call_id.clone();
                let url = end.action.as_ref().and_then(|action| action.url.clone());
                let data = data(content::web_search(end.query.clone(), url));
                self.end_call(
                    turn,
                    &call_id,
                    CanonicalItemType::WebSearch,
                    ItemStatus::Completed,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::ImageGenerationBegin(begin) => {
                let data = data(content::image_generation(None, None));
                self.begin_call(turn, &begin.call_id, CanonicalItemType::ImageGeneration, data, raw, out);
            }
            EventMsg::ImageGenerationEnd(end) => {
                let call_id = end.call_id.clone();
                let status = status_of(Some(&end.status));
                let data = data(content::image_generation(
                    end.revised_prompt.clone(),
                    end.saved_path.clone(),
                ));
                self.end_call(
                    turn,
                    &call_id,
                    CanonicalItemType::ImageGeneration,
                    status,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::ExecCommandBegin(begin) => {
                let data = data(content::command(&begin.command, &begin.cwd, None, None));
                self.begin_call(
                    turn,
                    &begin.call_id,
                    CanonicalItemType::CommandExecution,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::ExecCommandOutputDelta(delta) => {
                let payload = ContentDeltaPayload {
                    stream_kind: ContentStreamKind::CommandOutput,
                    delta: delta.chunk.clone(),
                    content_index: None,
                    summary_index: None,
                };
                let thread = self.thread_key();
                self.ledger
                    .append_item_text(&thread, &delta.call_id, "output", &delta.chunk);
                let place = self.place(turn.as_deref(), Some(&delta.call_id));
                let context = self.context(&place, Some(raw));
                self.emit(&context, RuntimeEvent::ContentDelta(payload), out);
            }
            EventMsg::TerminalInteraction(interaction) => {
                let face = Face {
                    item_type: CanonicalItemType::CommandExecution,
                    title: None,
                    status: ItemStatus::InProgress,
                    data: data(codex_content::empty(CanonicalItemType::CommandExecution)),
                };
                let call_id = interaction.call_id.clone();
                self.update_item(turn.as_deref(), &call_id, face, raw, out);
            }
            EventMsg::ExecCommandEnd(end) => {
                let status = status_of(Some(&end.status));
                let output = end
                    .aggregated_output
                    .clone()
                    .unwrap_or_else(|| end.formatted_output.clone());
                let data = data(content::command(
                    &end.command,
                    &end.cwd,
                    Some(end.exit_code),
                    Some(output),
                ));
                self.end_call(
                    turn,
                    &end.call_id,
                    CanonicalItemType::CommandExecution,
                    status,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::ViewImageToolCall(view) => {
                let call_id = view.call_id.clone();
                let data = data(content::image_view(&view.path));
                self.end_call(
                    turn,
                    &call_id,
                    CanonicalItemType::ImageView,
                    ItemStatus::Completed,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::ExecApprovalRequest(request) => {
                let call_id = request.approval_id.clone().unwrap_or_else(|| request.call_id.clone());
                self.approval(
                    &call_id,
                    agentwire_canonical::CanonicalRequestType::ExecCommandApproval,
                    value,
                    raw,
                    out,
                );
            }
            EventMsg::ApplyPatchApprovalRequest(request) => {
                let call_id = request.call_id.clone();
                self.approval(
                    &call_id,
                    agentwire_canonical::CanonicalRequestType::ApplyPatchApproval,
                    value,
                    raw,
                    out,
                );
            }
            EventMsg::RequestUserInput(request) => {
                let questions = value.get("questions").cloned().unwrap_or(Value::Array(Vec::new()));
                self.ask(&request.call_id, questions, raw, out);
            }
            EventMsg::DynamicToolCallResponse(response) => {
                let status = if response.success {
                    ItemStatus::Completed
                } else {
                    ItemStatus::Failed
                };
                let call_id = response.call_id.clone();
                let data = data(content::dynamic_call(response));
                self.end_call(
                    turn,
                    &call_id,
                    CanonicalItemType::DynamicToolCall,
                    status,
                    data,
                    raw,
                    out,
                );
            }
            EventMsg::DeprecationNotice(notice) => {
                let payload = DeprecationNoticePayload {
                    summary: text(&value, "summary").unwrap_or_default(),
                    details: notice.details.clone(),
                };
                self.turn_event(None, raw, RuntimeEvent::DeprecationNotice(payload), out);
            }
            EventMsg::PatchApplyBegin(begin) => {
                let data = data(content::patch(&begin.changes, None));
                self.begin_call(turn, &begin.call_id, CanonicalItemType::FileChange, data, raw, out);
            }
            EventMsg::PatchApplyUpdated(updated) => {
                let face = Face {
                    item_type: CanonicalItemType::FileChange,
                    title: None,
                    status: ItemStatus::InProgress,
                    data: data(content::patch(&updated.changes, None)),
                };
                let call_id = updated.call_id.clone();
                self.update_item(turn.as_deref(), &call_id, face, raw, out);
            }
            EventMsg::PatchApplyEnd(end) => {
                let status = if end.success {
                    ItemStatus::Completed
                } else {
                    ItemStatus::Failed
                };
                let call_id = end.call_id.clone();
                let output = non_empty(&end.stdout).or_else(|| non_empty(&end.stderr));
                let changes = end.changes.clone().unwrap_or_default();
                let data = data(content::patch(&changes, output));
                self.end_call(turn, &call_id, CanonicalItemType::FileChange, status, data, raw, out);
            }
            EventMsg::TurnDiff(_) => {
                let payload = TurnDiffUpdatedPayload {
                    unified_diff: text(&value, "unified_diff").unwrap_or_default(),
                };
                self.turn_event(turn.as_deref(), raw, RuntimeEvent::TurnDiffUpdated(payload), out);
            }
            EventMsg::PlanUpdate(update) => {
                let payload = TurnPlanUpdatedPayload {
                    explanation: Some(update.explanation.clone()),
                    plan: plan_steps(&value),
                };
                self.turn_event(turn.as_deref(), raw, RuntimeEvent::TurnPlanUpdated(payload), out);
            }
            EventMsg::EnteredReviewMode(entered) => {
                let review = entered.user_facing_hint.clone();
                let data = data(
                    ReviewEnteredContent {
                        review,
                        parent_item_id: None,
                    }
                    .into(),
                );
                self.legacy_item(turn, CanonicalItemType::ReviewEntered, data, raw, out);
            }
            EventMsg::ExitedReviewMode(exited) => {
                let review = exited
                    .review_output
                    .as_ref()
                    .map(|output| output.overall_explanation.clone());
                let data = data(
                    ReviewExitedContent {
                        review,
                        parent_item_id: None,
                    }
                    .into(),
                );
                self.legacy_item(turn, CanonicalItemType::ReviewExited, data, raw, out);
            }
            EventMsg::ShutdownComplete => {
                let payload = SessionExitedPayload {
                    reason: Some("codex shut down".to_string()),
                    recoverable: Some(false),
                    exit_kind: Some(SessionExitKind::Graceful),
                };
                self.turn_event(None, raw, RuntimeEvent::SessionExited(payload), out);
            }
            EventMsg::CollabAgentSpawnBegin(_)
            | EventMsg::CollabAgentInteractionBegin(_)
            | EventMsg::CollabWaitingBegin(_)
            | EventMsg::CollabCloseBegin(_)
            | EventMsg::CollabResumeBegin(_) => {
                let call_id = text(&value, "call_id").unwrap_or_default();
                let data = data(content::collab_call(tag, &value));
                self.begin_call(turn, &call_id, CanonicalItemType::CollabAgentToolCall, data, raw, out);
            }
            EventMsg::CollabAgentSpawnEnd(_)
            | EventMsg::CollabAgentInteractionEnd(_)
            | EventMsg::CollabWaitingEnd(_)
            | EventMsg::CollabCloseEnd(_)
            | EventMsg::CollabResumeEnd(_) => {
                let call_id = text(&value, "call_id").unwrap_or_default();
                let item_type = CanonicalItemType::CollabAgentToolCall;
                let data = data(content::collab_call(tag, &value));
                self.end_call(turn, &call_id, item_type, ItemStatus::Completed, data, raw, out);
            }
        }
    }

    /// An event of the session, its turn or none, carrying `raw`.
    fn turn_event(
        &mut self,
        turn: Option<&str>,
        raw: agentwire_core::emit::Raw<'_>,
        event: RuntimeEvent,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let place = self.place(turn, None);
        let context = self.context(&place, Some(raw));
        self.emit(&context, event, out);
    }

    /// `runtime.warning` carrying `raw`.
    fn warn(
        &mut self,
        raw: agentwire_core::emit::Raw<'_>,
        message: &str,
        detail: Value,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let payload = RuntimeWarningPayload {
            message: message.to_string(),
            detail: Some(detail),
        };
        let turn = self.turn.clone();
        self.turn_event(turn.as_deref(), raw, RuntimeEvent::RuntimeWarning(payload), out);
    }

    /// `content.delta` of the item the delta names.
    fn delta(
        &mut self,
        turn: Option<String>,
        value: &Value,
        kind: ContentStreamKind,
        raw: agentwire_core::emit::Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let item = text(value, "item_id");
        let delta = text(value, "delta").unwrap_or_default();
        // The content field the stream fills, kept up to date for an item cut off.
        let field = match kind {
            ContentStreamKind::AssistantText | ContentStreamKind::ReasoningText | ContentStreamKind::Unknown => "text",
            ContentStreamKind::ReasoningSummaryText => "summary",
            ContentStreamKind::PlanText => "markdown",
            ContentStreamKind::CommandOutput | ContentStreamKind::FileChangeOutput => "output",
        };
        if let Some(item) = &item {
            self.ledger.append_item_text(&self.thread_key(), item, field, &delta);
        }
        let place = self.place(turn.as_deref(), item.as_deref());
        let context = self.context(&place, Some(raw));
        let index = |key: &str| value.get(key).and_then(Value::as_i64);
        let payload = ContentDeltaPayload {
            stream_kind: kind,
            delta,
            content_index: index("content_index"),
            summary_index: index("summary_index"),
        };
        self.emit(&context, RuntimeEvent::ContentDelta(payload), out);
    }

    /// A whole item from an event that names no item id: the item is named after its line.
    fn legacy_item(
        &mut self,
        turn: Option<String>,
        item_type: CanonicalItemType,
        data: Value,
        raw: agentwire_core::emit::Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let item = format!("line-{}", self.ledger.line_number());
        let face = Face {
            item_type,
            title: None,
            status: ItemStatus::Completed,
            data,
        };
        self.complete_item(turn.as_deref(), &item, face, raw, None, out);
    }

    /// A `*_begin` event: the call's item starts (or, opened by its tool call, is updated).
    fn begin_call(
        &mut self,
        turn: Option<String>,
        call_id: &str,
        item_type: CanonicalItemType,
        data: Value,
        raw: agentwire_core::emit::Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let face = Face {
            item_type,
            title: content::title(item_type, &data),
            status: ItemStatus::InProgress,
            data,
        };
        if self.item_open(call_id) {
            self.update_item(turn.as_deref(), call_id, face, raw, out);
        } else {
            self.start_item(turn.as_deref(), call_id, face, Some(raw), out);
        }
    }

    /// A `*_end` event: the call's item completes.
    #[allow(clippy::too_many_arguments)]
    fn end_call(
        &mut self,
        turn: Option<String>,
        call_id: &str,
        item_type: CanonicalItemType,
        status: ItemStatus,
        data: Value,
        raw: agentwire_core::emit::Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let face = Face {
            item_type,
            title: content::title(item_type, &data),
            status,
            data,
        };
        self.complete_item(turn.as_deref(), call_id, face, raw, None, out);
    }
}
