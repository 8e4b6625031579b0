//! Server notifications: one exhaustive `match` over every method of the pinned schema.
//!
//! The 40 methods of spec 3.1 map as its table says. Each method the spec does not name (0.171.0
//! added 47) maps to the nearest canonical event; the ones with no canonical meaning are
//! `runtime.warning` with the raw message, each listed by name with the reason. When
//! `cargo xtask codegen` brings a new method, this `match` stops compiling right here.

use agentwire_canonical::{
    AccountRateLimitsUpdatedPayload, AccountUpdatedPayload, AuthStatusPayload, CanonicalItemType, ConfigWarningPayload,
    ContentDeltaPayload, ContentStreamKind, DeprecationNoticePayload, HookCompletedPayload, HookOutcome,
    HookStartedPayload, ItemLifecyclePayload, ItemStatus, McpOauthCompletedPayload, McpStatusUpdatedPayload,
    ModelReroutedPayload, ProviderRuntimeEvent, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent,
    RuntimeEventRawSource, RuntimeTaskId, SessionConfiguredPayload, SessionState, SessionStateChangedPayload,
    TaskCompletedPayload, TaskProgressPayload, TaskStatus, ThreadMetadataUpdatedPayload,
    ThreadRealtimeAudioDeltaPayload, ThreadRealtimeClosedPayload, ThreadRealtimeErrorPayload,
    ThreadRealtimeItemAddedPayload, ThreadRealtimeStartedPayload, ThreadState, ThreadStateChangedPayload,
    ThreadTokenUsageUpdatedPayload, TokenUsage, ToolProgressPayload, ToolSummaryPayload, TurnCompletedPayload,
    TurnDiffUpdatedPayload, TurnPlanStep, TurnPlanUpdatedPayload, TurnState, UsageScope,
};
use agentwire_codex_app_server::{self as codex, ServerNotification};
use serde_json::{Map, Value, json};

use super::canonicalize::{item_detail, item_id, item_status, item_title, to_json, to_text};
use super::content::{file_change, item_content};
use super::normalizer::CodexAppServerNormalizer;
use crate::canonicalize::Canonicalize;
use crate::codex_content;
use agentwire_core::content;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ids;
use agentwire_core::ledger::{OpenItemFace, TurnEnd};
use agentwire_core::object_text;
use agentwire_core::usage::Meter;

impl CodexAppServerNormalizer {
    pub(super) fn on_notification(
        &mut self,
        frame: &Frame<'_>,
        notification: &ServerNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        use ServerNotification as N;
        let method = notification.method();
        let raw = Raw::new(
            RuntimeEventRawSource::CodexAppServerNotification,
            Some(method),
            frame.msg,
        );
        let bare = Context::bare(raw);
        match notification {
            // --- errors (spec 3.1 `error`; 8.1: one failure, one runtime.error) ---
            N::Error { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let detail = to_json(params);
                // A retrying error is a hiccup the provider handles itself, not a failure: a
                // warning (a departure from the spec's table, documented in the README).
                if params.will_retry {
                    let message = format!("{} (retrying)", params.error.message);
                    self.ledger.warn(&context, message, Some(detail), out);
                    self.settle_replaced(raw, &params.thread_id, &params.turn_id, out);
                } else if self.ledger.report_turn_error(&params.thread_id, &params.turn_id) {
                    let payload = RuntimeErrorPayload {
                        message: params.error.message.clone(),
                        class: Some(RuntimeErrorClass::ProviderError),
                        detail: Some(detail),
                    };
                    self.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                } else {
                    // One failure, one runtime.error: a further report of it is a warning.
                    let message = format!("{} (the turn's failure was already reported)", params.error.message);
                    self.ledger.warn(&context, message, Some(detail), out);
                }
            }

            // --- threads ---
            N::ThreadStarted { params, .. } => {
                let context = self.ledger.thread_context(&params.thread.id, Some(raw));
                self.on_thread_reported(&context, &params.thread, out);
            }
            N::ThreadStatusChanged { params, .. } => {
                self.thread_state(raw, &params.thread_id, params.status.canonical(), Some(to_json(&params.status)), out);
            }
            N::ThreadArchived { params, .. } => self.thread_state(raw, &params.thread_id, ThreadState::Archived, None, out),
            // Unarchived: back to a loaded, idle thread (the spec's `unarchived` is no state).
            N::ThreadUnarchived { params, .. } => {
                self.thread_state(raw, &params.thread_id, ThreadState::Idle, Some(json!("unarchived")), out);
            }
            N::ThreadClosed { params, .. } => self.thread_state(raw, &params.thread_id, ThreadState::Closed, None, out),
            N::ThreadDeleted { params, .. } => {
                self.thread_state(raw, &params.thread_id, ThreadState::Closed, Some(json!("deleted")), out);
            }
            N::ThreadCompacted { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let payload = ThreadStateChangedPayload { state: ThreadState::Compacted, detail: None };
                self.emit(&context, RuntimeEvent::ThreadStateChanged(payload), out);
            }
            N::ThreadNameUpdated { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                let payload = ThreadMetadataUpdatedPayload { name: params.thread_name.clone(), metadata: None };
                self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
            }
            // Facts about a thread that are neither its state nor its name: metadata, keyed by
            // what changed.
            N::ThreadReadStateChanged { params, .. } => self.thread_metadata(raw, &params.thread_id, "readState", params, out),
            N::ThreadReverted { params, .. } => self.thread_metadata(raw, &params.thread_id, "reverted", params, out),
            N::ThreadSectionChanged { params, .. } => self.thread_metadata(raw, &params.thread_id, "section", params, out),
            N::ThreadAttachmentUpdated { params, .. } => self.thread_metadata(raw, &params.thread_id, "attachment", params, out),
            N::ThreadGoalUpdated { params, .. } => self.thread_metadata(raw, &params.thread_id, "goal", params, out),
            N::ThreadGoalCleared { params, .. } => self.thread_metadata(raw, &params.thread_id, "goalCleared", params, out),
            N::ThreadPredictionUpdated { params, .. } => self.thread_metadata(raw, &params.thread_id, "prediction", params, out),
            N::ThreadQueueChanged { params, .. } => self.thread_metadata(raw, &params.thread_id, "queue", params, out),
            N::ThreadProjectUpdated { params, .. } => self.thread_metadata(raw, &params.thread_id, "project", params, out),
            N::ThreadEnvironmentConnected { params, .. } => {
                self.thread_metadata(raw, &params.thread_id, "environmentConnected", params, out);
            }
            N::ThreadEnvironmentDisconnected { params, .. } => {
                self.thread_metadata(raw, &params.thread_id, "environmentDisconnected", params, out);
            }
            N::ThreadSettingsUpdated { params, .. } => self.thread_metadata(raw, &params.thread_id, "settings", params, out),
            N::ThreadTokenUsageUpdated { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let usage = &params.token_usage;
                let meter = self.meters.entry(params.thread_id.clone()).or_default();
                let mut snapshot = meter.running(
                    breakdown(&usage.total, UsageScope::Thread),
                    Some(breakdown(&usage.last, UsageScope::Call)),
                );
                snapshot.max_tokens = usage.model_context_window;
                let payload = ThreadTokenUsageUpdatedPayload { usage: snapshot };
                self.emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
            }

            // --- session-wide configuration ---
            N::SkillsChanged { params, .. } => self.session_config(&bare, "skills", params, out),
            N::ProjectChanged { params, .. } => self.session_config(&bare, "project", params, out),
            N::RemoteControlStatusChanged { params, .. } => self.session_config(&bare, "remoteControl", params, out),

            // --- turns ---
            N::TurnStarted { params, .. } => self.on_turn_reported(raw, &params.thread_id, &params.turn, out),
            N::TurnCompleted { params, .. } => self.on_turn_completed(raw, params, out),
            N::TurnDiffUpdated { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let payload = TurnDiffUpdatedPayload { unified_diff: params.diff.clone() };
                self.emit(&context, RuntimeEvent::TurnDiffUpdated(payload), out);
            }
            N::TurnPlanUpdated { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let plan = params
                    .plan
                    .iter()
                    .map(|step| TurnPlanStep { step: step.step.clone(), status: step.status.canonical() })
                    .collect();
                let payload = TurnPlanUpdatedPayload { explanation: Some(params.explanation.clone()), plan };
                self.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
            }

            // --- hooks ---
            N::HookStarted { params, .. } => {
                let context = self.hook_context(raw, &params.thread_id, params.turn_id.as_deref());
                let payload = HookStartedPayload {
                    hook_id: params.run.id.clone(),
                    hook_name: params.run.source_path.to_string(),
                    hook_event: tag(&to_json(&params.run.event_name)),
                };
                self.emit(&context, RuntimeEvent::HookStarted(payload), out);
            }
            N::HookCompleted { params, .. } => {
                let context = self.hook_context(raw, &params.thread_id, params.turn_id.as_deref());
                let outcome = match params.run.status {
                    codex::HookRunStatus::Completed => HookOutcome::Success,
                    codex::HookRunStatus::Stopped => HookOutcome::Cancelled,
                    // A hook that blocked the action, failed, or reports completion while still
                    // running did not let the action proceed as asked.
                    codex::HookRunStatus::Failed | codex::HookRunStatus::Blocked | codex::HookRunStatus::Running => {
                        HookOutcome::Error
                    }
                };
                let output = params.run.status_message.clone();
                let payload = HookCompletedPayload {
                    hook_id: params.run.id.clone(),
                    outcome,
                    output,
                    stdout: None,
                    stderr: None,
                    exit_code: None,
                };
                self.emit(&context, RuntimeEvent::HookCompleted(payload), out);
            }

            // --- items ---
            N::ItemStarted { params, .. } => self.on_item(raw, &params.thread_id, &params.turn_id, &params.item, false, out),
            N::ItemCompleted { params, .. } => self.on_item(raw, &params.thread_id, &params.turn_id, &params.item, true, out),
            N::ItemAgentMessageDelta { params, .. } => self.delta(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                ContentStreamKind::AssistantText,
                &params.delta,
                (None, None),
                out,
            ),
            N::ItemPlanDelta { params, .. } => self.delta(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                ContentStreamKind::PlanText,
                &params.delta,
                (None, None),
                out,
            ),
            N::ItemCommandExecutionOutputDelta { params, .. } => self.delta(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                ContentStreamKind::CommandOutput,
                &params.delta,
                (None, None),
                out,
            ),
            N::ItemFileChangeOutputDelta { params, .. } => self.delta(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                ContentStreamKind::FileChangeOutput,
                &params.delta,
                (None, None),
                out,
            ),
            N::ItemReasoningSummaryTextDelta { params, .. } => self.delta(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                ContentStreamKind::ReasoningSummaryText,
                &params.delta,
                (None, Some(params.summary_index)),
                out,
            ),
            N::ItemReasoningTextDelta { params, .. } => self.delta(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                ContentStreamKind::ReasoningText,
                &params.delta,
                (Some(params.content_index), None),
                out,
            ),
            N::ItemReasoningSummaryPartAdded { params, .. } => {
                let place = (params.thread_id.as_str(), params.turn_id.as_str(), params.item_id.as_str());
                self.ensure_started(raw, place, CanonicalItemType::Reasoning, out);
                // A new part of the summary: what streams next reads as a paragraph of its own.
                self.edit_content(&params.thread_id, &params.item_id, |data| {
                    if let Some(Value::String(summary)) = data.get_mut("summary")
                        && !summary.is_empty()
                    {
                        summary.push_str("\n\n");
                    }
                });
                let detail = format!("summary part {} started", params.summary_index);
                self.item_updated(raw, place, CanonicalItemType::Reasoning, Some(detail), out);
            }
            N::ItemCommandExecutionTerminalInteraction { params, .. } => self.item_updated(
                raw,
                (&params.thread_id, &params.turn_id, &params.item_id),
                CanonicalItemType::CommandExecution,
                Some("terminal input".to_string()),
                out,
            ),
            N::ItemFileChangePatchUpdated { params, .. } => {
                let place = (params.thread_id.as_str(), params.turn_id.as_str(), params.item_id.as_str());
                self.ensure_started(raw, place, CanonicalItemType::FileChange, out);
                let changes = to_json(&file_change(&params.changes).changes);
                self.edit_content(&params.thread_id, &params.item_id, |data| {
                    data.insert("changes".to_string(), changes);
                });
                self.item_updated(raw, place, CanonicalItemType::FileChange, None, out);
            }
            // The guardian (auto-approval reviewer) examining an item: an update of that item.
            N::ItemAutoApprovalReviewStarted { params, .. } => {
                let target = params.target_item_id.as_deref().unwrap_or(&params.review_id);
                self.item_updated(
                    raw,
                    (&params.thread_id, &params.turn_id, target),
                    CanonicalItemType::Unknown,
                    Some("auto-approval review started".to_string()),
                    out,
                );
            }
            N::ItemAutoApprovalReviewCompleted { params, .. } => {
                let target = params.target_item_id.as_deref().unwrap_or(&params.review_id);
                self.item_updated(
                    raw,
                    (&params.thread_id, &params.turn_id, target),
                    CanonicalItemType::Unknown,
                    Some("auto-approval review completed".to_string()),
                    out,
                );
            }
            N::ItemMcpToolCallProgress { params, .. } => {
                let context = self.ledger.item_context(&params.thread_id, &params.turn_id, &params.item_id, Some(raw));
                let payload = ToolProgressPayload {
                    tool_use_id: Some(params.item_id.clone()),
                    tool_name: None,
                    summary: Some(params.message.clone()),
                    elapsed_seconds: None,
                };
                self.emit(&context, RuntimeEvent::ToolProgress(payload), out);
            }

            // --- requests ---
            N::ServerRequestResolved { params, .. } => self.on_request_resolved(raw, params, out),

            // --- processes the client started with `command/exec` / `process/spawn` ---
            N::CommandExecOutputDelta { params, .. } => {
                let payload = ToolProgressPayload {
                    tool_use_id: Some(params.process_id.clone()),
                    tool_name: Some("command/exec".to_string()),
                    summary: Some(format!("{} bytes of {} (base64 in raw)", params.delta_base64.len(), tag(&to_json(&params.stream)))),
                    elapsed_seconds: None,
                };
                self.emit(&bare, RuntimeEvent::ToolProgress(payload), out);
            }
            N::ProcessOutputDelta { params, .. } => {
                let payload = ToolProgressPayload {
                    tool_use_id: Some(params.process_handle.clone()),
                    tool_name: Some("process".to_string()),
                    summary: Some(format!("{} bytes of {} (base64 in raw)", params.delta_base64.len(), tag(&to_json(&params.stream)))),
                    elapsed_seconds: None,
                };
                self.emit(&bare, RuntimeEvent::ToolProgress(payload), out);
            }
            N::ProcessExited { params, .. } => {
                let payload = ToolSummaryPayload {
                    summary: format!("process {} exited with code {}", params.process_handle, params.exit_code),
                    preceding_tool_use_ids: Some(vec![params.process_handle.clone()]),
                };
                self.emit(&bare, RuntimeEvent::ToolSummary(payload), out);
            }

            // --- MCP ---
            N::McpServerOauthLoginCompleted { params, .. } => {
                let payload = McpOauthCompletedPayload {
                    success: params.success,
                    name: Some(params.name.clone()),
                    error: params.error.clone(),
                };
                self.emit(&bare, RuntimeEvent::McpOauthCompleted(payload), out);
            }
            N::McpServerStartupStatusUpdated { params, .. } => {
                let context = match &params.thread_id {
                    Some(thread) => self.ledger.thread_context(thread, Some(raw)),
                    None => bare.clone(),
                };
                self.emit(&context, RuntimeEvent::McpStatusUpdated(McpStatusUpdatedPayload { status: to_text(params) }), out);
            }
            // Events an MCP server streams to a subscription the client opened.
            N::McpServerEventStreamNotification { params, .. } => {
                self.emit(&bare, RuntimeEvent::McpStatusUpdated(McpStatusUpdatedPayload { status: to_text(params) }), out);
            }

            // --- account and auth ---
            N::AccountUpdated { params, .. } => {
                self.emit(&bare, RuntimeEvent::AccountUpdated(AccountUpdatedPayload { account: to_text(params) }), out);
            }
            N::AccountGatewayOAuthChanged { params, .. } => {
                let payload = AuthStatusPayload {
                    is_authenticating: Some(match params.status {
                        codex::GatewayOAuthStatus::Started => true,
                        codex::GatewayOAuthStatus::NotReady
                        | codex::GatewayOAuthStatus::Succeeded
                        | codex::GatewayOAuthStatus::Failed => false,
                    }),
                    output: params.auth_url.clone().map(|url| vec![url]),
                    error: params.error.clone(),
                };
                self.emit(&bare, RuntimeEvent::AuthStatus(payload), out);
            }
            N::AccountRateLimitsUpdated { params, .. } => {
                let payload = AccountRateLimitsUpdatedPayload { rate_limits: to_text(&params.rate_limits) };
                self.emit(&bare, RuntimeEvent::AccountRateLimitsUpdated(payload), out);
            }
            N::AccountLoginCompleted { params, .. } => {
                let payload = AuthStatusPayload { is_authenticating: Some(false), output: None, error: params.error.clone() };
                self.emit(&bare, RuntimeEvent::AuthStatus(payload), out);
            }
            N::ModelProviderAuthRecoveryStarted { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let payload = AuthStatusPayload { is_authenticating: Some(true), output: Some(vec![params.message.clone()]), error: None };
                self.emit(&context, RuntimeEvent::AuthStatus(payload), out);
            }
            N::ModelProviderAuthRecoveryCompleted { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let payload = AuthStatusPayload { is_authenticating: Some(false), output: Some(vec![params.message.clone()]), error: None };
                self.emit(&context, RuntimeEvent::AuthStatus(payload), out);
            }

            // --- a background task: importing another agent's configuration ---
            N::ExternalAgentConfigImportProgress { params, .. } => {
                let payload = TaskProgressPayload {
                    task_id: self.task_id(&params.import_id),
                    description: format!("importing external agent configuration ({} item types)", params.item_type_results.len()),
                    usage: None,
                    last_tool_name: None,
                };
                self.emit(&bare, RuntimeEvent::TaskProgress(payload), out);
            }
            N::ExternalAgentConfigImportCompleted { params, .. } => {
                let payload = TaskCompletedPayload {
                    task_id: self.task_id(&params.import_id),
                    status: TaskStatus::Completed,
                    summary: Some(format!("imported {} item types", params.item_type_results.len())),
                    usage: None,
                };
                self.emit(&bare, RuntimeEvent::TaskCompleted(payload), out);
            }

            // --- models ---
            N::ModelRerouted { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                let payload = ModelReroutedPayload {
                    from_model: params.from_model.clone(),
                    to_model: params.to_model.clone(),
                    reason: tag(&to_json(&params.reason)),
                };
                self.emit(&context, RuntimeEvent::ModelRerouted(payload), out);
            }

            // --- warnings and notices ---
            N::Warning { params, .. } => {
                let context = match &params.thread_id {
                    Some(thread) => self.ledger.thread_context(thread, Some(raw)),
                    None => bare.clone(),
                };
                self.ledger.warn(&context, params.message.clone(), None, out);
            }
            N::GuardianWarning { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                self.ledger.warn(&context, format!("guardian: {}", params.message), None, out);
            }
            N::DeprecationNotice { params, .. } => {
                let payload = DeprecationNoticePayload { summary: params.summary.clone(), details: params.details.clone() };
                self.emit(&bare, RuntimeEvent::DeprecationNotice(payload), out);
            }
            N::ConfigWarning { params, .. } => {
                let payload = ConfigWarningPayload {
                    summary: params.summary.clone(),
                    details: params.details.clone(),
                    path: params.path.clone(),
                    range: params.range.as_ref().map(to_json),
                };
                self.emit(&bare, RuntimeEvent::ConfigWarning(payload), out);
            }
            N::WindowsWorldWritableWarning { params, .. } => {
                let message = format!("world-writable paths found ({} more than listed)", params.extra_count);
                self.ledger.warn(&bare, message, Some(to_json(params)), out);
            }
            N::WindowsSandboxSetupCompleted { params, .. } => {
                let state = if params.success { SessionState::Ready } else { SessionState::Error };
                let payload = SessionStateChangedPayload {
                    state,
                    reason: Some("windows sandbox setup completed".to_string()),
                    detail: params.error.clone(),
                };
                self.emit(&bare, RuntimeEvent::SessionStateChanged(payload), out);
                if !params.success {
                    let message = format!("windows sandbox setup failed: {}", params.error.as_deref().unwrap_or("no reason given"));
                    self.ledger.warn(&bare, message, Some(to_json(params)), out);
                }
            }

            // --- realtime ---
            N::ThreadRealtimeStarted { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                let payload = ThreadRealtimeStartedPayload { realtime_session_id: params.realtime_session_id.clone() };
                self.emit(&context, RuntimeEvent::ThreadRealtimeStarted(payload), out);
            }
            N::ThreadRealtimeItemAdded { params, .. } => self.realtime_item(raw, &params.thread_id, params.item.clone(), out),
            // The realtime item timeline: every step of an item is an item the thread gained.
            N::ThreadRealtimeItemStarted { params, .. } => self.realtime_item(raw, &params.thread_id, to_json(&params.item), out),
            N::ThreadRealtimeItemCompleted { params, .. } => self.realtime_item(raw, &params.thread_id, to_json(&params.item), out),
            N::ThreadRealtimeItemTranscriptDelta { params, .. } => {
                self.realtime_item(raw, &params.thread_id, to_json(params), out);
            }
            N::ThreadRealtimeTranscriptDelta { params, .. } => self.realtime_item(raw, &params.thread_id, to_json(params), out),
            N::ThreadRealtimeTranscriptDone { params, .. } => self.realtime_item(raw, &params.thread_id, to_json(params), out),
            N::ThreadRealtimeOutputAudioDelta { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                let payload = ThreadRealtimeAudioDeltaPayload { audio: to_json(&params.audio) };
                self.emit(&context, RuntimeEvent::ThreadRealtimeAudioDelta(payload), out);
            }
            N::ThreadRealtimeError { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                let payload = ThreadRealtimeErrorPayload { message: params.message.clone() };
                self.emit(&context, RuntimeEvent::ThreadRealtimeError(payload), out);
            }
            N::ThreadRealtimeClosed { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                let payload = ThreadRealtimeClosedPayload { reason: params.reason.clone() };
                self.emit(&context, RuntimeEvent::ThreadRealtimeClosed(payload), out);
            }

            // --- runtime.warning by design: no canonical event carries these facts ---
            // The WebRTC answer for the client's realtime transport: plumbing, not a runtime fact.
            N::ThreadRealtimeSdp { params, .. } => {
                let context = self.ledger.thread_context(&params.thread_id, Some(raw));
                self.unmapped(&context, method, out);
            }
            // Partial results of a client `thread/search` request.
            N::ThreadSearchPartial { .. }
            // Results of a client fuzzy file search session.
            | N::FuzzyFileSearchSessionUpdated { .. }
            | N::FuzzyFileSearchSessionCompleted { .. }
            // Changes under a path the client watches with `fs/watch`.
            | N::FsChanged { .. }
            // The app catalogue changed; the spec leaves it to a future `app-list.updated`.
            | N::AppListUpdated { .. } => self.unmapped(&bare, method, out),
            // Moderation metadata of a turn, model verification results and safety-buffering
            // status: provider policy telemetry with no canonical event.
            N::TurnModerationMetadata { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                self.unmapped(&context, method, out);
            }
            N::ModelVerification { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                self.unmapped(&context, method, out);
            }
            N::ModelSafetyBufferingUpdated { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                self.unmapped(&context, method, out);
            }
            // The guardian demands strict review of the turn's actions: a notice, no state.
            N::AutoApprovalReviewStrictReviewRequired { params, .. } => {
                let context = self.ledger.turn_context(&params.thread_id, &params.turn_id, Some(raw));
                self.unmapped(&context, method, out);
            }
        }
    }

    fn on_item(
        &mut self,
        raw: Raw<'_>,
        thread: &str,
        turn: &str,
        item: &codex::ThreadItem,
        completed: bool,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let provider_item = item_id(item);
        let raw = raw.with_type(item.tag());
        let context = self.ledger.item_context(thread, turn, provider_item, Some(raw));
        let item_type = item.canonical();
        let status = match (completed, item_status(item)) {
            // A call whose approval the person declined fails, in Codex's words; it was declined.
            (true, Some(ItemStatus::Failed)) if self.declined_calls.remove(&(thread.into(), provider_item.into())) => {
                ItemStatus::Declined
            }
            (true, Some(status)) => status,
            (true, None) => ItemStatus::Completed,
            (false, status) => status.unwrap_or(ItemStatus::InProgress),
        };
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(status),
            title: item_title(item),
            detail: item_detail(item),
            data: Some(content::data(item_content(item))),
        };
        if completed {
            let known = self.known_item((thread, turn, provider_item));
            self.ledger.close_item(thread, provider_item);
            if !known {
                // Completed without a start: its first event is `item.started` all the same.
                let started = ItemLifecyclePayload {
                    status: Some(ItemStatus::InProgress),
                    ..payload.clone()
                };
                self.emit(&context, RuntimeEvent::ItemStarted(started), out);
            }
            self.remember_settled(thread, provider_item);
            self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
        } else if self.ledger.turn_ended(thread, turn) {
            // A late start for a turn that already ended: reported, but not reopened.
            self.remember_settled(thread, provider_item);
            self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
        } else if self.ledger.item(thread, provider_item).is_some() {
            // Started already, by a notification about it that came first (a patch streamed
            // before its `fileChange` started): now Codex says what it is.
            let face = OpenItemFace {
                item_type,
                title: payload.title.clone(),
                data: payload.data.clone(),
            };
            self.ledger.open_item((thread, turn, provider_item), face);
            self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
        } else {
            let face = OpenItemFace {
                item_type,
                title: payload.title.clone(),
                data: payload.data.clone(),
            };
            self.ledger.open_item((thread, turn, provider_item), face);
            self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
        }
    }

    /// Starts an item a notification names before Codex started it (its first event is
    /// `item.started` all the same), with its type's empty content; an item open, completed or
    /// of a turn that ended is left as it is.
    fn ensure_started(
        &mut self,
        raw: Raw<'_>,
        (thread, turn, item): (&str, &str, &str),
        item_type: CanonicalItemType,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if self.known_item((thread, turn, item)) {
            return;
        }
        let context = self.ledger.item_context(thread, turn, item, Some(raw));
        let data = content::data(codex_content::empty(item_type));
        let face = OpenItemFace {
            item_type,
            title: None,
            data: Some(data.clone()),
        };
        self.ledger.open_item((thread, turn, item), face);
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(ItemStatus::InProgress),
            title: None,
            detail: None,
            data: Some(data),
        };
        self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
    }

    /// Whether an item was started already: it is open, settled, or of a turn that ended (whose
    /// items the turn's end settled).
    fn known_item(&self, (thread, turn, item): (&str, &str, &str)) -> bool {
        self.ledger.item(thread, item).is_some()
            || self.ledger.turn_ended(thread, turn)
            || self.settled_items.iter().any(|(t, i)| t == thread && i == item)
    }

    /// Remembers an item the ledger holds open no more, so a late notification about it does not
    /// start it again (the most recent ones: memory stays bounded).
    fn remember_settled(&mut self, thread: &str, item: &str) {
        const REMEMBERED: usize = 64;
        self.settled_items.push_back((thread.to_string(), item.to_string()));
        if self.settled_items.len() > REMEMBERED {
            self.settled_items.pop_front();
        }
    }

    /// Changes an open item's content in place (its last data, its face if it is cut off).
    fn edit_content(&mut self, thread: &str, item: &str, edit: impl FnOnce(&mut Map<String, Value>)) {
        let Some(mut data) = self
            .ledger
            .item(thread, item)
            .and_then(|open| open.data.as_ref())
            .map(|data| data.to_value().into_owned())
        else {
            return;
        };
        if let Value::Object(map) = &mut data {
            edit(map);
        }
        self.ledger.update_item(thread, item, data.into());
    }

    /// A retry after the stream dropped: the messages the dropped response was streaming end
    /// with what they had said (Codex streams the answer again as new items), so none is left
    /// open to fail when the turn completes.
    fn settle_replaced(&mut self, raw: Raw<'_>, thread: &str, turn: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        let replaced: Vec<String> = self
            .ledger
            .open_items(thread)
            .filter(|(_, open)| {
                open.turn == turn
                    && matches!(
                        open.item_type,
                        CanonicalItemType::AssistantMessage | CanonicalItemType::Reasoning | CanonicalItemType::Plan
                    )
            })
            .map(|(key, _)| key.to_string())
            .collect();
        for item in replaced {
            let context = self.ledger.item_context(thread, turn, &item, Some(raw));
            let Some(open) = self.ledger.close_item(thread, &item) else {
                continue;
            };
            self.remember_settled(thread, &item);
            let payload = ItemLifecyclePayload {
                item_type: open.item_type,
                status: Some(ItemStatus::Completed),
                title: open.title,
                detail: Some("the stream dropped and Codex retried: this part ends here".to_string()),
                data: open.data,
            };
            self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
        }
    }

    fn on_turn_completed(
        &mut self,
        raw: Raw<'_>,
        params: &codex::TurnCompletedNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let (thread, turn) = (params.thread_id.as_str(), params.turn.id.as_str());
        let state = params.turn.status.canonical();
        let context = self.ledger.turn_context(thread, turn, Some(raw));
        let error_message = params.turn.error.as_ref().map(|error| error.message.clone());
        let failure = (state == TurnState::Failed).then(|| RuntimeErrorPayload {
            message: error_message.clone().unwrap_or_else(|| "turn failed".to_string()),
            class: Some(RuntimeErrorClass::ProviderError),
            detail: params.turn.error.as_ref().map(to_json),
        });
        // `inProgress` in a completion is no terminal state: read as completed, the provider's
        // value kept in `stopReason` (a departure documented in the README).
        let outcome = TurnCompletedPayload {
            state,
            stop_reason: matches!(params.turn.status, codex::TurnStatus::InProgress)
                .then(|| Some("inProgress".to_string())),
            usage: self.meters.get_mut(thread).and_then(Meter::end_turn),
            model_usage: None,
            total_cost_usd: None,
            error_message,
        };
        let end = TurnEnd {
            failure,
            ..TurnEnd::new(outcome)
        };
        self.ledger.complete_turn(&context, thread, turn, end, out);
    }

    fn delta(
        &mut self,
        raw: Raw<'_>,
        (thread, turn, item): (&str, &str, &str),
        stream_kind: ContentStreamKind,
        delta: &str,
        (content_index, summary_index): (Option<i64>, Option<i64>),
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        // The item the stream fills, and its content's text field, kept up to date for an item
        // cut off.
        let (item_type, field) = match stream_kind {
            ContentStreamKind::AssistantText => (CanonicalItemType::AssistantMessage, "text"),
            ContentStreamKind::PlanText => (CanonicalItemType::Plan, "markdown"),
            ContentStreamKind::CommandOutput => (CanonicalItemType::CommandExecution, "output"),
            ContentStreamKind::FileChangeOutput => (CanonicalItemType::FileChange, "output"),
            ContentStreamKind::ReasoningText => (CanonicalItemType::Reasoning, "text"),
            ContentStreamKind::ReasoningSummaryText => (CanonicalItemType::Reasoning, "summary"),
            ContentStreamKind::Unknown => (CanonicalItemType::Unknown, "text"),
        };
        self.ensure_started(raw, (thread, turn, item), item_type, out);
        self.ledger.append_item_text(thread, item, field, delta);
        let context = self.ledger.item_context(thread, turn, item, Some(raw));
        let payload = ContentDeltaPayload {
            stream_kind,
            delta: delta.to_string(),
            content_index,
            summary_index,
        };
        self.emit(&context, RuntimeEvent::ContentDelta(payload), out);
    }

    /// `item.updated` with the item's whole content as it stands (an item not yet started is
    /// started first).
    fn item_updated(
        &mut self,
        raw: Raw<'_>,
        (thread, turn, item): (&str, &str, &str),
        fallback: CanonicalItemType,
        detail: Option<String>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.ensure_started(raw, (thread, turn, item), fallback, out);
        let context = self.ledger.item_context(thread, turn, item, Some(raw));
        let (item_type, data) = match self.ledger.item(thread, item) {
            Some(open) => (open.item_type, open.data.clone()),
            None => (fallback, None),
        };
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(ItemStatus::InProgress),
            title: None,
            detail,
            data: Some(data.unwrap_or_else(|| content::data(codex_content::empty(item_type)))),
        };
        self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
    }

    fn thread_state(
        &mut self,
        raw: Raw<'_>,
        thread: &str,
        state: ThreadState,
        detail: Option<Value>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.ledger.thread_context(thread, Some(raw));
        self.emit(
            &context,
            RuntimeEvent::ThreadStateChanged(ThreadStateChangedPayload { state, detail }),
            out,
        );
    }

    fn thread_metadata(
        &mut self,
        raw: Raw<'_>,
        thread: &str,
        key: &str,
        params: &impl serde::Serialize,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.ledger.thread_context(thread, Some(raw));
        let metadata = Map::from_iter([(key.to_string(), to_json(params))]);
        let payload = ThreadMetadataUpdatedPayload {
            name: None,
            metadata: Some(metadata),
        };
        self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
    }

    fn session_config(
        &mut self,
        context: &Context<'_>,
        key: &str,
        params: &impl serde::Serialize,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let config = Map::from_iter([(key.to_string(), to_json(params))]);
        self.emit(
            context,
            RuntimeEvent::SessionConfigured(SessionConfiguredPayload {
                config: object_text::from_map(&config),
            }),
            out,
        );
    }

    fn realtime_item(&mut self, raw: Raw<'_>, thread: &str, item: Value, out: &mut Vec<ProviderRuntimeEvent>) {
        let context = self.ledger.thread_context(thread, Some(raw));
        self.emit(
            &context,
            RuntimeEvent::ThreadRealtimeItemAdded(ThreadRealtimeItemAddedPayload { item }),
            out,
        );
    }

    fn hook_context<'a>(&mut self, raw: Raw<'a>, thread: &str, turn: Option<&str>) -> Context<'a> {
        match turn {
            Some(turn) => self.ledger.turn_context(thread, turn, Some(raw)),
            None => self.ledger.thread_context(thread, Some(raw)),
        }
    }

    fn task_id(&mut self, import_id: &str) -> RuntimeTaskId {
        ids::task(self.ledger.source(), self.ledger.session(), import_id)
    }

    /// A method listed above as having no canonical event.
    fn unmapped(&mut self, context: &Context<'_>, method: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger
            .warn(context, format!("`{method}` has no canonical event"), None, out);
    }
}

/// The name of a string enum value (`"completed"`), or of an externally tagged one.
fn tag(value: &Value) -> String {
    match value {
        Value::String(tag) => tag.clone(),
        Value::Object(map) if map.len() == 1 => map.keys().next().cloned().unwrap_or_default(),
        other => other.to_string(),
    }
}

/// An app-server count as a usage of `scope`.
fn breakdown(usage: &codex::TokenUsageBreakdown, scope: UsageScope) -> TokenUsage {
    crate::usage::tokens(
        usage.input_tokens,
        usage.cached_input_tokens,
        usage.cache_write_input_tokens,
        usage.output_tokens,
        usage.reasoning_output_tokens,
        Some(usage.total_tokens),
    )
    .usage(scope)
}
