//! Responses to the client's own requests: `initialize`, `thread/start`, `turn/start` and the
//! rest feed session, thread and turn lifecycle as the spec's intent requires.
//!
//! One fact, one event: `thread/start` (response) and `thread/started` (notification) report the
//! same thread; whichever arrives first emits `thread.started`, the other rides on
//! `thread.metadata.updated`. Likewise `turn/start` and `turn/started` emit `turn.started` once,
//! the second rides on `session.state.changed(running)`.

use agentwire_canonical::{
    AccountRateLimitsUpdatedPayload, AccountUpdatedPayload, McpStatusUpdatedPayload, ProviderRuntimeEvent,
    ProviderSessionId, RuntimeEvent, RuntimeEventRawSource, RuntimeWarningPayload, SessionConfiguredPayload,
    SessionStartedPayload, SessionState, SessionStateChangedPayload, ThreadMetadataUpdatedPayload,
    ThreadStartedPayload, TurnStartedPayload,
};
use agentwire_codex_app_server::{self as codex, ClientRequestResult, RequestId};
use serde_json::{Map, Value};

use super::normalizer::CodexAppServerNormalizer;
use super::requests::to_json;
use crate::emit::{Context, Raw};
use crate::frame::Frame;

impl CodexAppServerNormalizer {
    pub(super) fn on_client_request_result(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &ClientRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        use ClientRequestResult as R;
        let method = result.method();
        let raw = Raw {
            source: RuntimeEventRawSource::CodexAppServerResponse,
            method: Some(method),
            message_type: None,
            payload: frame.msg,
        };
        let bare = Context {
            raw: Some(raw),
            ..Context::default()
        };
        match result {
            R::Initialize(init) => {
                let payload = SessionStartedPayload {
                    message: Some(init.user_agent.clone()),
                    resume: None,
                };
                self.emit(&bare, RuntimeEvent::SessionStarted(payload), out);
                if let Some(version) = user_agent_version(&init.user_agent) {
                    self.check_version(version, &bare, out);
                }
            }
            R::ThreadStart(response) => {
                let config = config_of(to_json(response));
                self.on_thread_opened(raw, &response.thread, config, out);
            }
            R::ThreadResume(response) => {
                let config = config_of(to_json(response));
                self.on_thread_opened(raw, &response.thread, config, out);
            }
            R::ThreadFork(response) => {
                let config = config_of(to_json(response));
                self.on_thread_opened(raw, &response.thread, config, out);
            }
            R::TurnStart(response) => {
                let thread = self.pending_turn_thread(id);
                match thread {
                    Some(thread) => self.on_turn_reported(raw, &thread, &response.turn, out),
                    None => {
                        let payload = TurnStartedPayload {
                            model: None,
                            effort: None,
                        };
                        self.emit(&bare, RuntimeEvent::TurnStarted(payload), out);
                    }
                }
            }
            R::TurnInterrupt(_) => {
                let payload = SessionStateChangedPayload {
                    state: SessionState::Running,
                    reason: Some("turn/interrupt acknowledged; the turn completes as interrupted".into()),
                    detail: None,
                };
                self.emit(&bare, RuntimeEvent::SessionStateChanged(payload), out);
            }
            R::AccountRateLimitsRead(response) => {
                let payload = AccountRateLimitsUpdatedPayload {
                    rate_limits: to_json(response),
                };
                self.emit(&bare, RuntimeEvent::AccountRateLimitsUpdated(payload), out);
            }
            R::AccountRead(response) => {
                let payload = AccountUpdatedPayload {
                    account: to_json(response),
                };
                self.emit(&bare, RuntimeEvent::AccountUpdated(payload), out);
            }
            R::McpServerStatusList(response) => {
                let payload = McpStatusUpdatedPayload {
                    status: to_json(response),
                };
                self.emit(&bare, RuntimeEvent::McpStatusUpdated(payload), out);
            }
            R::ConfigRead(response) => {
                let payload = SessionConfiguredPayload {
                    config: config_of(to_json(response)),
                };
                self.emit(&bare, RuntimeEvent::SessionConfigured(payload), out);
            }
            // Results of queries and commands the client issued (listings, reads, writes,
            // process control): they answer the client and report no runtime fact of their own;
            // the state changes they cause arrive as notifications. Reported with the raw
            // result so nothing is lost.
            R::ServerDiagnostics(_)
            | R::UserVerificationStatus(_)
            | R::UserVerificationEnroll(_)
            | R::UserVerificationDelete(_)
            | R::UserVerificationVerify(_)
            | R::UserVerificationCancel(_)
            | R::ThreadSample(_)
            | R::ThreadSampleCancel(_)
            | R::ThreadArchive(_)
            | R::ThreadDelete(_)
            | R::ThreadUnsubscribe(_)
            | R::ThreadIncrementElicitation(_)
            | R::ThreadDecrementElicitation(_)
            | R::ThreadNameSet(_)
            | R::ThreadPredictionRequest(_)
            | R::ThreadGoalSet(_)
            | R::ThreadGoalGet(_)
            | R::ThreadGoalClear(_)
            | R::ThreadQueueAdd(_)
            | R::ThreadQueueList(_)
            | R::ThreadQueueUpdate(_)
            | R::ThreadQueueDelete(_)
            | R::ThreadQueueReorder(_)
            | R::ThreadQueueStart(_)
            | R::ThreadMetadataUpdate(_)
            | R::ThreadAttachmentAdd(_)
            | R::ThreadAttachmentList(_)
            | R::ThreadAttachmentOwnerList(_)
            | R::ThreadAttachmentRemove(_)
            | R::ThreadSectionMove(_)
            | R::ThreadSettingsUpdate(_)
            | R::ThreadMemoryModeSet(_)
            | R::ThreadMemoryRead(_)
            | R::MemoryStatus(_)
            | R::MemoryReset(_)
            | R::RolloutCompress(_)
            | R::ThreadUnarchive(_)
            | R::ThreadCompactStart(_)
            | R::ThreadShellCommand(_)
            | R::ThreadApproveGuardianDeniedAction(_)
            | R::ThreadBackgroundTerminalsClean(_)
            | R::ThreadBackgroundTerminalsList(_)
            | R::ThreadBackgroundTerminalsTerminate(_)
            | R::ThreadRevert(_)
            | R::ThreadList(_)
            | R::ProjectList(_)
            | R::ProjectRead(_)
            | R::ProjectCreate(_)
            | R::ProjectImport(_)
            | R::ProjectUpdate(_)
            | R::ProjectMove(_)
            | R::ProjectDelete(_)
            | R::ThreadSectionList(_)
            | R::ThreadSectionCreate(_)
            | R::ThreadSectionUpdate(_)
            | R::ThreadSectionDelete(_)
            | R::ThreadSearch(_)
            | R::ThreadSearchStream(_)
            | R::ThreadSearchCancel(_)
            | R::ThreadSearchStreamCancel(_)
            | R::ThreadSearchOccurrences(_)
            | R::ThreadLoadedList(_)
            | R::ThreadRead(_)
            | R::ThreadReadStateUpdate(_)
            | R::ThreadTurnsList(_)
            | R::ThreadItemsList(_)
            | R::ThreadItemsRead(_)
            | R::ThreadGuardianReview(_)
            | R::ThreadInjectItems(_)
            | R::ThreadPrepareApprovedPlan(_)
            | R::SkillsList(_)
            | R::SkillsExtraRootsSet(_)
            | R::HooksList(_)
            | R::MarketplaceAdd(_)
            | R::MarketplaceRemove(_)
            | R::MarketplaceUpgrade(_)
            | R::PluginList(_)
            | R::PluginSearch(_)
            | R::PluginInstalled(_)
            | R::PluginReconcile(_)
            | R::PluginRead(_)
            | R::PluginSkillRead(_)
            | R::PluginShareSave(_)
            | R::PluginShareUpdateTargets(_)
            | R::PluginShareList(_)
            | R::PluginShareCheckout(_)
            | R::PluginShareDelete(_)
            | R::AppRead(_)
            | R::AppList(_)
            | R::AppInstalled(_)
            | R::FsReadFile(_)
            | R::FsWriteFile(_)
            | R::FsCreateDirectory(_)
            | R::FsGetMetadata(_)
            | R::FsReadDirectory(_)
            | R::FsRemove(_)
            | R::FsCopy(_)
            | R::FsWatch(_)
            | R::FsUnwatch(_)
            | R::SkillsConfigWrite(_)
            | R::PluginInstall(_)
            | R::PluginUninstall(_)
            | R::TurnSettingsUpdate(_)
            | R::TurnSteer(_)
            | R::ThreadRealtimeStart(_)
            | R::ThreadRealtimeAppendAudio(_)
            | R::ThreadRealtimeAppendText(_)
            | R::ThreadRealtimeAppendSpeech(_)
            | R::ThreadRealtimeStop(_)
            | R::ThreadTimelineList(_)
            | R::ThreadRealtimeList(_)
            | R::ThreadRealtimeListVoices(_)
            | R::ReviewStart(_)
            | R::ModelList(_)
            | R::AccountGatewayOAuthRead(_)
            | R::AccountGatewayOAuthLogin(_)
            | R::AccountGatewayOAuthCancel(_)
            | R::ModelProviderList(_)
            | R::ModelProviderConfigWrite(_)
            | R::ModelProviderDefaultSet(_)
            | R::ModelProviderCapabilitiesRead(_)
            | R::ExperimentalFeatureList(_)
            | R::PermissionProfileList(_)
            | R::ExperimentalFeatureEnablementSet(_)
            | R::RemoteControlEnable(_)
            | R::RemoteControlDisable(_)
            | R::RemoteControlStatusRead(_)
            | R::RemoteControlPairingStart(_)
            | R::RemoteControlPairingStatus(_)
            | R::RemoteControlClientList(_)
            | R::RemoteControlClientRevoke(_)
            | R::CollaborationModeList(_)
            | R::MockExperimentalMethod(_)
            | R::EnvironmentAdd(_)
            | R::EnvironmentInfo(_)
            | R::EnvironmentStatus(_)
            | R::McpServerOauthLogin(_)
            | R::ConfigMcpServerReload(_)
            | R::McpServerResourceRead(_)
            | R::McpServerEventStreamStart(_)
            | R::McpServerEventStreamStop(_)
            | R::McpServerToolCall(_)
            | R::WindowsSandboxSetupStart(_)
            | R::WindowsSandboxReadiness(_)
            | R::AccountLoginStart(_)
            | R::AccountBedrockDiscover(_)
            | R::AccountBedrockSetup(_)
            | R::AccountGcpSetup(_)
            | R::AccountBedrockCheckGovCloudRequirements(_)
            | R::AccountLoginCancel(_)
            | R::AccountSessionList(_)
            | R::AccountSessionSwitch(_)
            | R::AccountLogout(_)
            | R::AccountSecuritySetupRead(_)
            | R::AccountRateLimitResetCreditConsume(_)
            | R::AccountUsageRead(_)
            | R::AccountWorkspaceMessagesRead(_)
            | R::AccountSendAddCreditsNudgeEmail(_)
            | R::FeedbackUpload(_)
            | R::FeedbackSave(_)
            | R::CommandExec(_)
            | R::CommandExecWrite(_)
            | R::CommandExecTerminate(_)
            | R::CommandExecResize(_)
            | R::ProcessSpawn(_)
            | R::ProcessWriteStdin(_)
            | R::ProcessKill(_)
            | R::ProcessResizePty(_)
            | R::ExternalAgentConfigDetect(_)
            | R::ExternalAgentConfigImport(_)
            | R::ExternalAgentConfigImportRecordHistory(_)
            | R::ExternalAgentConfigImportReadHistories(_)
            | R::ConfigValueWrite(_)
            | R::ConfigBatchWrite(_)
            | R::ConfigRequirementsRead(_)
            | R::FuzzyFileSearch(_)
            | R::FuzzyFileSearchSessionStart(_)
            | R::FuzzyFileSearchSessionUpdate(_)
            | R::FuzzyFileSearchSessionStop(_) => {
                let payload = RuntimeWarningPayload {
                    message: format!("result of `{method}` has no canonical event"),
                    detail: None,
                };
                self.emit(&bare, RuntimeEvent::RuntimeWarning(payload), out);
            }
        }
    }

    /// `thread/start`, `thread/resume` and `thread/fork` results: the session's configuration,
    /// then the thread (once).
    fn on_thread_opened(
        &mut self,
        raw: Raw<'_>,
        thread: &codex::Thread,
        config: Map<String, Value>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let mut context = self.thread_context(&thread.id, Some(raw));
        context.refs.provider_session_id = ProviderSessionId::new(thread.session_id.as_str()).ok();
        self.emit(
            &context,
            RuntimeEvent::SessionConfigured(SessionConfiguredPayload { config }),
            out,
        );
        self.on_thread_reported(&context, thread, out);
    }

    /// A thread reported by a response or `thread/started`: `thread.started` the first time,
    /// `thread.metadata.updated` after.
    pub(super) fn on_thread_reported(
        &mut self,
        context: &Context<'_>,
        thread: &codex::Thread,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let mut context = context.clone();
        context.refs.provider_session_id = ProviderSessionId::new(thread.session_id.as_str()).ok();
        if self.start_thread(&thread.id) {
            let payload = ThreadStartedPayload {
                provider_thread_id: context.refs.provider_thread_id.clone(),
            };
            self.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        } else {
            let mut metadata = config_of(to_json(thread));
            metadata.remove("turns");
            let payload = ThreadMetadataUpdatedPayload {
                name: thread.name.clone(),
                metadata: Some(metadata),
            };
            self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
        }
        self.check_version(&thread.cli_version, &context, out);
    }

    /// A turn reported by the `turn/start` result or `turn/started`: `turn.started` the first
    /// time, `session.state.changed(running)` after.
    pub(super) fn on_turn_reported(
        &mut self,
        raw: Raw<'_>,
        thread: &str,
        turn: &codex::Turn,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.turn_context(thread, &turn.id, Some(raw));
        if self.start_turn(thread, &turn.id) {
            self.emit(
                &context,
                RuntimeEvent::TurnStarted(TurnStartedPayload {
                    model: None,
                    effort: None,
                }),
                out,
            );
        } else {
            let payload = SessionStateChangedPayload {
                state: SessionState::Running,
                reason: None,
                detail: None,
            };
            self.emit(&context, RuntimeEvent::SessionStateChanged(payload), out);
        }
    }
}

/// `trace_driver/0.171.0 (Debian 12.0.0; x86_64) ...` -> `0.171.0`.
fn user_agent_version(user_agent: &str) -> Option<&str> {
    user_agent.split_whitespace().next()?.rsplit('/').next()
}

/// A response object minus its `thread` (reported by its own event) as a config record.
fn config_of(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(mut map) => {
            map.remove("thread");
            map
        }
        other => Map::from_iter([("value".to_string(), other)]),
    }
}
