//! Responses to the client's own requests: `initialize`, `thread/start`, `turn/start` and the
//! rest feed session, thread and turn lifecycle as the spec's intent requires.
//!
//! One fact, one event: `thread/start` (response) and `thread/started` (notification) report the
//! same thread; whichever arrives first emits `thread.started`, the other rides on
//! `thread.metadata.updated`. Likewise `turn/start` and `turn/started` emit `turn.started` once,
//! the second rides on `session.state.changed(running)`.

use agentwire_canonical::{
    AccountRateLimitsUpdatedPayload, AccountUpdatedPayload, McpStatusUpdatedPayload, ProviderRuntimeEvent,
    ProviderSessionId, RuntimeEvent, RuntimeEventRawSource, SessionConfiguredPayload, SessionStartedPayload,
    ThreadMetadataUpdatedPayload, ThreadStartedPayload, ToolSummaryPayload,
};
use agentwire_codex_app_server::{self as codex, ClientRequestResult, RequestId};
use serde_json::{Map, Value};

use super::canonicalize::{to_json, to_text};
use super::normalizer::CodexAppServerNormalizer;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::TurnStart;
use agentwire_core::object_text;

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
        let raw = Raw::new(RuntimeEventRawSource::CodexAppServerResponse, Some(method), frame.msg);
        let bare = Context::bare(raw);
        match result {
            R::Initialize(init) => {
                let payload = SessionStartedPayload {
                    message: Some(init.user_agent.clone()),
                    resume: None,
                };
                self.emit(&bare, RuntimeEvent::SessionStarted(payload), out);
                if let Some(version) = user_agent_version(&init.user_agent) {
                    self.ledger.check_version(version, codex::UPSTREAM_VERSION, &bare, out);
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
                    None => self.ledger.report_unplaced_turn(&bare, TurnStart::on(None), out),
                }
            }
            // The turn ends when `turn/completed` says so; until then the session is as it was.
            R::TurnInterrupt(_) => {
                let reason = "turn/interrupt acknowledged; the turn completes as interrupted";
                self.ledger.settle_state_carrying(&bare, Some(reason), out);
            }
            R::AccountRateLimitsRead(response) => {
                let payload = AccountRateLimitsUpdatedPayload {
                    rate_limits: to_text(response),
                };
                self.emit(&bare, RuntimeEvent::AccountRateLimitsUpdated(payload), out);
            }
            R::AccountRead(response) => {
                let payload = AccountUpdatedPayload {
                    account: to_text(response),
                };
                self.emit(&bare, RuntimeEvent::AccountUpdated(payload), out);
            }
            R::McpServerStatusList(response) => {
                let payload = McpStatusUpdatedPayload {
                    status: to_text(response),
                };
                self.emit(&bare, RuntimeEvent::McpStatusUpdated(payload), out);
            }
            R::ConfigRead(response) => {
                let payload = SessionConfiguredPayload {
                    config: object_text::from_map(&config_of(to_json(response))),
                };
                self.emit(&bare, RuntimeEvent::SessionConfigured(payload), out);
            }
            // Listings and reads of what the session offers (models, tools, plugins, settings,
            // threads): facts about the session's configuration, keyed by the method that read them.
            R::ServerDiagnostics(_)
            | R::UserVerificationStatus(_)
            | R::MemoryStatus(_)
            | R::ThreadList(_)
            | R::ProjectList(_)
            | R::ThreadSectionList(_)
            | R::ThreadLoadedList(_)
            | R::SkillsList(_)
            | R::HooksList(_)
            | R::PluginList(_)
            | R::PluginSearch(_)
            | R::PluginInstalled(_)
            | R::PluginRead(_)
            | R::PluginSkillRead(_)
            | R::PluginShareList(_)
            | R::AppRead(_)
            | R::AppList(_)
            | R::AppInstalled(_)
            | R::ThreadRealtimeListVoices(_)
            | R::ModelList(_)
            | R::ModelProviderList(_)
            | R::ModelProviderCapabilitiesRead(_)
            | R::ExperimentalFeatureList(_)
            | R::PermissionProfileList(_)
            | R::RemoteControlStatusRead(_)
            | R::CollaborationModeList(_)
            | R::EnvironmentInfo(_)
            | R::EnvironmentStatus(_)
            | R::WindowsSandboxReadiness(_)
            | R::ConfigRequirementsRead(_) => {
                let config = Map::from_iter([(method.to_string(), to_json(result))]);
                self.emit(
                    &bare,
                    RuntimeEvent::SessionConfigured(SessionConfiguredPayload {
                        config: object_text::from_map(&config),
                    }),
                    out,
                );
            }
            // Reads of the signed-in account.
            R::AccountGatewayOAuthRead(_)
            | R::AccountSessionList(_)
            | R::AccountSecuritySetupRead(_)
            | R::AccountUsageRead(_)
            | R::AccountWorkspaceMessagesRead(_) => {
                let account = Value::Object(Map::from_iter([(method.to_string(), to_json(result))]));
                self.emit(
                    &bare,
                    RuntimeEvent::AccountUpdated(AccountUpdatedPayload {
                        account: account.into(),
                    }),
                    out,
                );
            }
            // Answers to commands and writes the client issued (thread and project edits, file
            // system, processes, logins, searches, feedback): the state they change arrives as
            // notifications; the answer itself is the documented low-key `tool.summary` (the
            // command's method and outcome, the whole result in `raw`), not a warning.
            R::UserVerificationEnroll(_)
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
            | R::ProjectRead(_)
            | R::ProjectCreate(_)
            | R::ProjectImport(_)
            | R::ProjectUpdate(_)
            | R::ProjectMove(_)
            | R::ProjectDelete(_)
            | R::ThreadSectionCreate(_)
            | R::ThreadSectionUpdate(_)
            | R::ThreadSectionDelete(_)
            | R::ThreadSearch(_)
            | R::ThreadSearchStream(_)
            | R::ThreadSearchCancel(_)
            | R::ThreadSearchStreamCancel(_)
            | R::ThreadSearchOccurrences(_)
            | R::ThreadRead(_)
            | R::ThreadReadStateUpdate(_)
            | R::ThreadTurnsList(_)
            | R::ThreadItemsList(_)
            | R::ThreadItemsRead(_)
            | R::ThreadGuardianReview(_)
            | R::ThreadInjectItems(_)
            | R::ThreadPrepareApprovedPlan(_)
            | R::SkillsExtraRootsSet(_)
            | R::MarketplaceAdd(_)
            | R::MarketplaceRemove(_)
            | R::MarketplaceUpgrade(_)
            | R::PluginReconcile(_)
            | R::PluginShareSave(_)
            | R::PluginShareUpdateTargets(_)
            | R::PluginShareCheckout(_)
            | R::PluginShareDelete(_)
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
            | R::ReviewStart(_)
            | R::AccountGatewayOAuthLogin(_)
            | R::AccountGatewayOAuthCancel(_)
            | R::ModelProviderConfigWrite(_)
            | R::ModelProviderDefaultSet(_)
            | R::ExperimentalFeatureEnablementSet(_)
            | R::RemoteControlEnable(_)
            | R::RemoteControlDisable(_)
            | R::RemoteControlPairingStart(_)
            | R::RemoteControlPairingStatus(_)
            | R::RemoteControlClientList(_)
            | R::RemoteControlClientRevoke(_)
            | R::MockExperimentalMethod(_)
            | R::EnvironmentAdd(_)
            | R::McpServerOauthLogin(_)
            | R::ConfigMcpServerReload(_)
            | R::McpServerResourceRead(_)
            | R::McpServerEventStreamStart(_)
            | R::McpServerEventStreamStop(_)
            | R::McpServerToolCall(_)
            | R::WindowsSandboxSetupStart(_)
            | R::AccountLoginStart(_)
            | R::AccountBedrockDiscover(_)
            | R::AccountBedrockSetup(_)
            | R::AccountGcpSetup(_)
            | R::AccountBedrockCheckGovCloudRequirements(_)
            | R::AccountLoginCancel(_)
            | R::AccountSessionSwitch(_)
            | R::AccountLogout(_)
            | R::AccountRateLimitResetCreditConsume(_)
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
            | R::FuzzyFileSearch(_)
            | R::FuzzyFileSearchSessionStart(_)
            | R::FuzzyFileSearchSessionUpdate(_)
            | R::FuzzyFileSearchSessionStop(_) => {
                let payload = ToolSummaryPayload {
                    summary: format!("`{method}` answered"),
                    preceding_tool_use_ids: None,
                };
                self.emit(&bare, RuntimeEvent::ToolSummary(payload), out);
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
        let mut context = self.ledger.thread_context(&thread.id, Some(raw));
        context.refs.provider_session_id = ProviderSessionId::new(thread.session_id.as_str()).ok();
        self.emit(
            &context,
            RuntimeEvent::SessionConfigured(SessionConfiguredPayload {
                config: object_text::from_map(&config),
            }),
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
        if self.ledger.start_thread(&thread.id) {
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
        self.ledger
            .check_version(&thread.cli_version, codex::UPSTREAM_VERSION, &context, out);
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
        let context = self.ledger.turn_context(thread, &turn.id, Some(raw));
        self.ledger
            .start_turn(&context, thread, &turn.id, TurnStart::on(None), out);
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
