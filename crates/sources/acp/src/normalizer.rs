//! The ACP normalizer: frame dispatch, the session lifecycle of section 5.1 (initialize,
//! authenticate, session/new|load|resume, prompts as turns) and the JSON-RPC errors of 5.4.
//!
//! ACP names no turns: a turn is one `session/prompt`, from the client's request to the agent's
//! answer, keyed by its position among the session's prompts ([`Ledger::with_positional_turns`]).
//! An ACP session is a thread. Assistant and thought messages carry no id unless the agent sends
//! `messageId`: a run of chunks of one kind is one item, ended by anything else.

use std::collections::BTreeMap;

use agentwire_acp::{
    self as acp, ClientRequest, ClientRequestResult, CursorClientRequest, CursorClientRequestResult, MessageKind,
    RawEnvelope, RawJson, RequestId, Sent,
};
use agentwire_canonical::{
    AuthStatusPayload, CanonicalItemType, ContentDeltaPayload, ContentStreamKind, ItemAttachment, ItemLifecyclePayload,
    ItemStatus, Json, ProviderRuntimeEvent, ProviderSessionId, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent,
    RuntimeEventRawSource, RuntimeRequestId, SessionConfiguredPayload, SessionStartedPayload, ThreadStartedPayload,
    ThreadState, ThreadStateChangedPayload, TurnCompletedPayload, TurnState,
};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::content::{self, TextKind};
use super::offer::{AcpRequest, Work};
use super::tools;
use super::usage;
use super::wire::{self, Message};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ledger::{Ledger, TurnEnd, TurnStart};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::object_text;
use agentwire_core::source::SourceSpec;
use agentwire_core::usage::Meter;

/// What the client asked, kept until the agent answers (the answer alone does not say: a
/// `session/load` result names no session, a `session/set_mode` result is empty).
pub(super) enum ClientAsk {
    /// `session/new`.
    NewSession,
    /// `session/load` or `session/resume` of this session.
    Resume { session: String, params: Value },
    /// `session/prompt`: the turn it started.
    Prompt { session: String, turn: String },
    /// `session/set_mode` to this mode.
    SetMode { session: String, mode: String },
    /// `session/set_config_option`, `session/close`, `session/delete`: the session it names.
    Session { session: String },
    /// `authenticate` with this method.
    Authenticate { method: String },
    /// What needs nothing remembered.
    Other,
}

/// A message item being streamed.
pub(super) struct OpenText {
    pub kind: TextKind,
    /// The item's key: the agent's `messageId`, else a name derived from the turn.
    pub key: String,
    /// The key is the agent's `messageId` (then it is a provider id for `providerRefs`).
    pub provider_keyed: bool,
    /// The turn it belongs to, if any.
    pub turn: Option<String>,
    pub text: String,
    /// What came besides text (the person's images and resources).
    pub attachments: Vec<ItemAttachment>,
}

/// What a tool call has said so far, merged from its partial updates.
pub(super) struct ToolState {
    pub item_type: CanonicalItemType,
    pub turn: Option<String>,
    /// The title last reported.
    pub title: Option<String>,
    /// The merged fields of `tool_call` and `tool_call_update`s (ACP's names).
    pub data: Map<String, Value>,
    /// `item.completed` was emitted.
    pub done: bool,
    /// The user refused its permission request: it did not run (its end is `declined`).
    pub declined: bool,
    /// Terminal output already delivered as `content.delta`, in bytes.
    pub output_delivered: usize,
    /// The text streamed as it ran (a terminal's output, a compaction summary's chunks): the
    /// content keeps it, since its reports do not repeat it.
    pub streamed: String,
    /// A subagent's tool call: the `toolCallId` of the Task that runs the subagent. It has no
    /// item of its own; its reports are updates of the Task's item.
    pub parent: Option<String>,
}

impl ToolState {
    /// The item's content (its `data`): what the tool call has said so far.
    pub fn content(&self) -> Json {
        agentwire_core::content::data(content::tool(self.item_type, &self.data, &self.streamed))
    }
}

/// One ACP session (a canonical thread).
#[derive(Default)]
pub(super) struct AcpSession {
    /// Prompts sent so far (the position of the next turn minus one).
    pub prompts: u64,
    /// Turns started and not yet answered, oldest first; the last one is current.
    pub turns: Vec<String>,
    /// The most recent turn, open or not (late updates belong to it).
    pub last_turn: Option<String>,
    /// Message items derived so far in the session (their names are numbered).
    pub texts: u64,
    pub text: Option<OpenText>,
    /// Tool calls of the session, by `toolCallId`.
    pub tools: BTreeMap<String, ToolState>,
    /// Cursor's todo list (`cursor/update_todos` may merge into it by todo id).
    pub todos: Vec<(Option<String>, agentwire_canonical::TurnPlanStep)>,
    /// The client sent `session/cancel` since the last turn ended: a prompt answered
    /// `cancelled` now was stopped by the person (`interrupted`) even if a newer prompt waits.
    pub stopped_by_client: bool,
    /// The session's running cost (`usage_update`), from which a turn's share follows.
    pub meter: Meter,
}

impl AcpSession {
    /// Something of the session is open that the ledger does not track: a message being
    /// streamed, or a tool call not completed (the session must not be forgotten). A
    /// subagent's call is not: the Task it runs under is.
    fn busy(&self) -> bool {
        self.text.is_some() || self.tools.values().any(|tool| !tool.done && tool.parent.is_none())
    }
}

/// Normalizes one ACP connection (an agent and its client).
pub struct AcpNormalizer {
    pub(super) ledger: Ledger<AcpRequest>,
    wire: wire::Decoder,
    /// The host fixed the provider (`--provider-kind`): `initialize` does not change it.
    provider_fixed: bool,
    /// Client requests awaiting the agent's answer, by id.
    pub(super) client_asks: BTreeMap<RequestId, ClientAsk>,
    /// Sessions by ACP session id.
    pub(super) sessions: BTreeMap<String, AcpSession>,
    /// The session of the most recent prompt (Cursor's extension requests name none).
    pub(super) last_session: Option<String>,
    /// Agent requests for client-side work (`fs/*`, `terminal/*`) awaiting the client, by id:
    /// the session and tool call they were tied to, and the method.
    pub(super) agent_asks: BTreeMap<RequestId, Work>,
    /// Terminals by id: the session and tool call they run for.
    pub(super) terminals: BTreeMap<String, (String, String)>,
    /// Qwen Code's `craft/drainMidTurnQueue` requests awaiting the client, by id.
    pub(super) drains: BTreeMap<RequestId, super::qwen::Drain>,
    /// The `raw.source` of the frame being pushed, from its JSON-RPC shape.
    raw_source: RuntimeEventRawSource,
}

impl AcpNormalizer {
    /// A normalizer for one connection of `source` ([`ACP`](crate::ACP) or [`CURSOR`](crate::CURSOR)).
    pub fn new(source: &'static SourceSpec, options: Options) -> Self {
        let provider_fixed = options.provider.is_some();
        let mut normalizer = AcpNormalizer {
            ledger: Ledger::new(source, options).with_positional_turns(),
            wire: wire::Decoder::default(),
            provider_fixed,
            client_asks: BTreeMap::new(),
            sessions: BTreeMap::new(),
            last_session: None,
            agent_asks: BTreeMap::new(),
            terminals: BTreeMap::new(),
            drains: BTreeMap::new(),
            raw_source: RuntimeEventRawSource::AcpNotification,
        };
        normalizer.raw_source = normalizer.raw_source_of(None);
        normalizer
    }

    pub(super) fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger.emit(context, event, out);
    }

    /// The `raw` of the frame being pushed, naming `method`.
    pub(super) fn raw<'a>(&self, frame: &Frame<'a>, method: Option<&'a str>) -> Raw<'a> {
        Raw::new(self.raw_source, method, frame.msg)
    }

    /// The `raw.source` of a message: what travels as a request, a notification or an answer,
    /// labelled `cursor.acp.*` when read as Cursor's `agent acp` and `acp.*` otherwise (the
    /// canonical schema keeps the proposal's `cursor.acp.*` for Cursor alone).
    fn raw_source_of(&self, kind: Option<MessageKind>) -> RuntimeEventRawSource {
        let cursor = self.ledger.source() == &crate::CURSOR;
        match (kind, cursor) {
            (Some(MessageKind::Request), true) => RuntimeEventRawSource::CursorAcpRequest,
            (Some(MessageKind::Request), false) => RuntimeEventRawSource::AcpRequest,
            (Some(MessageKind::Notification) | None, true) => RuntimeEventRawSource::CursorAcpNotification,
            (Some(MessageKind::Notification) | None, false) => RuntimeEventRawSource::AcpNotification,
            (Some(MessageKind::Response | MessageKind::Error), true) => RuntimeEventRawSource::CursorAcpResponse,
            (Some(MessageKind::Response | MessageKind::Error), false) => RuntimeEventRawSource::AcpResponse,
        }
    }

    pub(super) fn session_mut(&mut self, session: &str) -> &mut AcpSession {
        self.sessions.entry(session.to_string()).or_default()
    }

    /// The turn an update of a session belongs to: the current one, else the last one (a late
    /// update), else none (history replayed by `session/load` before any prompt).
    pub(super) fn update_turn(&self, session: &str) -> Option<String> {
        let open = self.sessions.get(session)?;
        open.turns.last().cloned().or_else(|| open.last_turn.clone())
    }

    /// The context of an item of a session: in its turn when it has one.
    pub(super) fn item_context<'a>(
        &mut self,
        session: &str,
        turn: Option<&str>,
        item: &str,
        provider_keyed: bool,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let mut context = self.ledger.item_context_in(session, turn, item, raw);
        if !provider_keyed {
            context.refs.provider_item_id = None;
        }
        context
    }

    /// The context of a session's current (or last) turn, else of the session's thread.
    pub(super) fn session_context<'a>(&mut self, session: &str, raw: Option<Raw<'a>>) -> Context<'a> {
        let mut context = match self.update_turn(session) {
            Some(turn) => self.ledger.turn_context(session, &turn, raw),
            None => self.ledger.thread_context(session, raw),
        };
        context.refs.provider_session_id = ProviderSessionId::new(session).ok();
        context
    }

    /// Completes the message item being streamed in a session, if any.
    pub(super) fn close_text(&mut self, session: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        let Some(text) = self.sessions.get_mut(session).and_then(|s| s.text.take()) else {
            return;
        };
        let context = self.item_context(session, text.turn.as_deref(), &text.key, text.provider_keyed, None);
        let payload = ItemLifecyclePayload {
            item_type: text.kind.item_type(),
            status: Some(ItemStatus::Completed),
            title: None,
            detail: None,
            data: Some(agentwire_core::content::data(content::message(
                text.kind,
                &text.text,
                &text.attachments,
            ))),
        };
        self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
    }

    /// Settles as `cancel` the requests of a turn that ended before the client answered them
    /// (a permission asked while the person stopped the turn): what they asked for can no
    /// longer happen, so no card stays open after its turn. The protocol still wants each
    /// answered `cancelled`: the way back builds that reply, and refuses any other.
    fn cancel_turn_requests(
        &mut self,
        context: &Context<'_>,
        session: &str,
        turn: &str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        for key in self.ledger.turn_requests(session, turn) {
            let reason = "the turn ended before the client answered";
            self.ledger.settle_owing_reply(&key, reason, context.raw, out);
        }
    }

    /// Completes as `declined` the tool calls of a turn the user refused and the agent never
    /// completed (gemini reports nothing more of a refused tool call): they did not run, and
    /// did not fail.
    fn end_declined_tools(
        &mut self,
        context: &Context<'_>,
        session: &str,
        turn: &str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(open) = self.sessions.get(session) else {
            return;
        };
        let refused: Vec<String> = open
            .tools
            .iter()
            .filter(|(_, tool)| {
                !tool.done && tool.declined && tool.parent.is_none() && tool.turn.as_deref() == Some(turn)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in refused {
            let Some(tool) = self.sessions.get_mut(session).and_then(|s| s.tools.get_mut(&id)) else {
                continue;
            };
            tool.done = true;
            let payload = ItemLifecyclePayload {
                item_type: tool.item_type,
                status: Some(ItemStatus::Declined),
                title: tool.title.clone(),
                detail: Some("declined: the user refused the permission it asked for".to_string()),
                data: Some(tool.content()),
            };
            self.ledger.close_item(session, &id);
            let item = self.item_context(session, Some(turn), &id, true, context.raw);
            self.emit(&item, RuntimeEvent::ItemCompleted(payload), out);
        }
    }

    /// Completes as `failed` the tool calls of a session that belong to no turn (replayed by
    /// `session/load` before any prompt) and never completed: the ledger knows only items of
    /// turns, and cuts those off itself.
    fn cut_off_turnless_tools(&mut self, session: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        let Some(open) = self.sessions.get_mut(session) else {
            return;
        };
        let cut: Vec<String> = open
            .tools
            .iter()
            .filter(|(_, tool)| !tool.done && tool.turn.is_none() && tool.parent.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        let detail = format!("the stream ended before {} completed it", self.ledger.source().program);
        for id in cut {
            let Some(tool) = self.sessions.get_mut(session).and_then(|s| s.tools.get_mut(&id)) else {
                continue;
            };
            tool.done = true;
            let payload = ItemLifecyclePayload {
                item_type: tool.item_type,
                status: Some(ItemStatus::Failed),
                title: tool.title.clone(),
                detail: Some(detail.clone()),
                data: Some(tool.content()),
            };
            let context = self.item_context(session, None, &id, true, None);
            self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
        }
    }

    /// The name of the next message item of a session that has no `messageId`.
    pub(super) fn next_text_key(&mut self, session: &str, kind: TextKind) -> String {
        let open = self.session_mut(session);
        open.texts += 1;
        let turn = open.last_turn.clone().unwrap_or_else(|| "0".to_string());
        format!("turn-{turn}:{}-{}", kind.word(), open.texts)
    }

    // --- the client's requests ---

    fn on_client_request(&mut self, frame: &Frame<'_>, request: &ClientRequest, out: &mut Vec<ProviderRuntimeEvent>) {
        let ask = match request {
            ClientRequest::SessionPrompt { params, .. } => {
                let session = params.session_id.0.clone();
                let turn = self.start_turn(frame, &session, &params.prompt, out);
                ClientAsk::Prompt { session, turn }
            }
            ClientRequest::SessionNew { .. } => ClientAsk::NewSession,
            ClientRequest::SessionLoad { params, .. } => ClientAsk::Resume {
                session: params.session_id.0.clone(),
                params: to_value(params),
            },
            ClientRequest::SessionResume { params, .. } => ClientAsk::Resume {
                session: params.session_id.0.clone(),
                params: to_value(params),
            },
            ClientRequest::SessionSetMode { params, .. } => ClientAsk::SetMode {
                session: params.session_id.0.clone(),
                mode: params.mode_id.0.clone(),
            },
            ClientRequest::SessionSetConfigOption { params, .. } => ClientAsk::Session {
                session: match params {
                    acp::SetSessionConfigOptionRequest::Boolean { session_id, .. }
                    | acp::SetSessionConfigOptionRequest::ValueId { session_id, .. } => session_id.0.clone(),
                },
            },
            ClientRequest::SessionClose { params, .. } => ClientAsk::Session {
                session: params.session_id.0.clone(),
            },
            ClientRequest::SessionDelete { params, .. } => ClientAsk::Session {
                session: params.session_id.0.clone(),
            },
            ClientRequest::Authenticate { params, .. } => ClientAsk::Authenticate {
                method: params.method_id.0.clone(),
            },
            // Nothing happens until the agent answers; the answer needs nothing remembered.
            ClientRequest::Initialize { .. } | ClientRequest::Logout { .. } | ClientRequest::SessionList { .. } => {
                ClientAsk::Other
            }
        };
        self.client_asks.insert(request.id().clone(), ask);
    }

    /// `session/prompt`: a new turn of the session (`turn.started`, the session `running`), its
    /// first item the person's prompt ([`Self::prompt_item`]).
    fn start_turn(
        &mut self,
        frame: &Frame<'_>,
        session: &str,
        prompt: &[acp::ContentBlock],
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> String {
        self.close_text(session, out);
        let open = self.session_mut(session);
        open.prompts += 1;
        let turn = open.prompts.to_string();
        open.turns.push(turn.clone());
        open.last_turn = Some(turn.clone());
        open.tools.retain(|_, tool| !tool.done);
        self.last_session = Some(session.to_string());
        let raw = self.raw(frame, Some("session/prompt"));
        let mut context = self.ledger.turn_context(session, &turn, Some(raw));
        context.refs.provider_session_id = ProviderSessionId::new(session).ok();
        let start = TurnStart {
            reason: "a prompt was sent",
            ..TurnStart::on(None)
        };
        if self.ledger.start_turn(&context, session, &turn, start, out) {
            self.prompt_item(session, &turn, prompt, raw, out);
        }
        turn
    }

    /// The person's prompt as the turn's first item: a `user_message` whose `text` is the prompt's
    /// text blocks, its other blocks (images, resources, links) its attachments.
    fn prompt_item(
        &mut self,
        session: &str,
        turn: &str,
        prompt: &[acp::ContentBlock],
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let data = agentwire_core::content::data(content::prompt(prompt));
        let key = format!("prompt:{turn}");
        let context = self.item_context(session, Some(turn), &key, false, Some(raw));
        for (status, started) in [(ItemStatus::InProgress, true), (ItemStatus::Completed, false)] {
            let payload = ItemLifecyclePayload {
                item_type: CanonicalItemType::UserMessage,
                status: Some(status),
                title: None,
                detail: None,
                data: Some(data.clone()),
            };
            let event = if started {
                RuntimeEvent::ItemStarted(payload)
            } else {
                RuntimeEvent::ItemCompleted(payload)
            };
            self.emit(&context, event, out);
        }
    }

    /// Ends a turn: the message being streamed completes, requests the client left unanswered
    /// are settled, open tool calls are cut off as the turn's state says, then `turn.completed`.
    pub(super) fn end_turn(
        &mut self,
        context: &Context<'_>,
        session: &str,
        turn: &str,
        outcome: TurnCompletedPayload,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.close_text(session, out);
        self.cancel_turn_requests(context, session, turn, out);
        self.end_declined_tools(context, session, turn, out);
        if let Some(open) = self.sessions.get_mut(session) {
            open.turns.retain(|t| t != turn);
            for tool in open.tools.values_mut() {
                if tool.turn.as_deref() == Some(turn) {
                    tool.done = true;
                }
            }
        }
        let end = TurnEnd {
            reason: "the prompt was answered",
            ..TurnEnd::new(outcome)
        };
        self.ledger.complete_turn(context, session, turn, end, out);
    }

    // --- the agent's answers ---

    fn on_client_request_result(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &ClientRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let ask = self.client_asks.remove(id).unwrap_or(ClientAsk::Other);
        let method = result.method();
        let raw = self.raw(frame, Some(method)).with_type("result");
        match result {
            ClientRequestResult::Initialize(init) => {
                if !self.provider_fixed {
                    let cursor = init
                        .agent_info
                        .as_ref()
                        .is_some_and(|info| super::names_cursor(&json!({ "name": info.name, "title": info.title })));
                    let provider = if cursor || self.ledger.source() == &crate::CURSOR {
                        agentwire_canonical::ProviderKind::Cursor
                    } else {
                        agentwire_canonical::ProviderKind::Acp
                    };
                    self.ledger.set_provider(provider);
                }
                // As the agent wrote it (`schemas/acp/as-sent.json`), with the methods it left
                // out as none.
                let no_methods = RawJson(RawValue::from_string("[]".into()).expect("an empty array"));
                let config = object_text::object(present([
                    ("protocolVersion", Some(&*init.protocol_version.0)),
                    ("agentCapabilities", raw_member(&init.agent_capabilities)),
                    (
                        "authMethods",
                        Some(&*init.auth_methods.as_ref().unwrap_or(&no_methods).0),
                    ),
                    ("agentInfo", init.agent_info.as_ref().map(Sent::text)),
                ]));
                self.emit(
                    &Context::bare(raw),
                    RuntimeEvent::SessionConfigured(SessionConfiguredPayload { config }),
                    out,
                );
            }
            ClientRequestResult::Authenticate(_) => {
                let method = match &ask {
                    ClientAsk::Authenticate { method } => method.as_str(),
                    ClientAsk::NewSession
                    | ClientAsk::Resume { .. }
                    | ClientAsk::Prompt { .. }
                    | ClientAsk::SetMode { .. }
                    | ClientAsk::Session { .. }
                    | ClientAsk::Other => "the requested method",
                };
                let payload = AuthStatusPayload {
                    is_authenticating: Some(false),
                    output: Some(vec![format!("authenticated with {method}")]),
                    error: None,
                };
                self.emit(&Context::bare(raw), RuntimeEvent::AuthStatus(payload), out);
            }
            ClientRequestResult::Logout(_) => {
                let payload = AuthStatusPayload {
                    is_authenticating: Some(false),
                    output: Some(vec!["logged out".to_string()]),
                    error: None,
                };
                self.emit(&Context::bare(raw), RuntimeEvent::AuthStatus(payload), out);
            }
            ClientRequestResult::SessionNew(new) => {
                let config = session_config(&new.modes, &new.models, &new.config_options);
                self.start_session(raw, &new.session_id.0, None, config, out);
            }
            ClientRequestResult::SessionLoad(load) => {
                let config = session_config(&load.modes, &load.models, &load.config_options);
                self.resume_session(raw, ask, config, out);
            }
            ClientRequestResult::SessionResume(resume) => {
                let config = session_config(&resume.modes, &resume.models, &resume.config_options);
                self.resume_session(raw, ask, config, out);
            }
            ClientRequestResult::SessionPrompt(response) => {
                let ClientAsk::Prompt { session, turn } = ask else {
                    self.ledger.warn(
                        &Context::bare(raw),
                        "session/prompt answered for a prompt never sent".to_string(),
                        None,
                        out,
                    );
                    return;
                };
                let stopped = self
                    .sessions
                    .get_mut(&session)
                    .is_some_and(|open| std::mem::take(&mut open.stopped_by_client));
                // A prompt answered `cancelled` while a newer prompt of its session waits was
                // superseded by it (what the spec keeps `cancelled` for); any other was stopped by
                // the person: by `session/cancel`, or by an answer that ends the turn (codex-acp's
                // `abort` permission option).
                let superseded = !stopped
                    && self
                        .client_asks
                        .values()
                        .any(|ask| matches!(ask, ClientAsk::Prompt { session: other, .. } if *other == session));
                let state = match tools::turn_state(&response.stop_reason) {
                    TurnState::Cancelled if !superseded => TurnState::Interrupted,
                    state => state,
                };
                let meter = &mut self.session_mut(&session).meter;
                let usage = usage::turn(meter, response.usage.as_ref(), response.meta.as_ref());
                let payload = TurnCompletedPayload {
                    state,
                    stop_reason: Some(Some(response.stop_reason.to_string())),
                    usage,
                    model_usage: None,
                    total_cost_usd: None,
                    error_message: None,
                };
                let mut context = self.ledger.turn_context(&session, &turn, Some(raw));
                context.refs.provider_session_id = ProviderSessionId::new(&session).ok();
                self.end_turn(&context, &session, &turn, payload, out);
            }
            ClientRequestResult::SessionSetMode(_) => {
                let (session, mode) = match ask {
                    ClientAsk::SetMode { session, mode } => (Some(session), Value::String(mode)),
                    ClientAsk::NewSession
                    | ClientAsk::Resume { .. }
                    | ClientAsk::Prompt { .. }
                    | ClientAsk::Session { .. }
                    | ClientAsk::Authenticate { .. }
                    | ClientAsk::Other => (None, Value::Null),
                };
                let mut config = Map::new();
                config.insert("currentModeId".into(), mode);
                self.configured(raw, session.as_deref(), object_text::from_map(&config), out);
            }
            ClientRequestResult::SessionSetConfigOption(set) => {
                let config = object_text::object([("configOptions", &*set.config_options.0)]);
                let session = ask_session(&ask);
                self.configured(raw, session.as_deref(), config, out);
            }
            ClientRequestResult::SessionList(list) => {
                let next_cursor = list
                    .next_cursor
                    .as_ref()
                    .and_then(|cursor| serde_json::value::to_raw_value(cursor).ok());
                let config = object_text::object(present([
                    ("sessions", Some(&*list.sessions.0)),
                    ("nextCursor", next_cursor.as_deref()),
                ]));
                self.configured(raw, None, config, out);
            }
            ClientRequestResult::SessionClose(_) => self.thread_state(raw, &ask, ThreadState::Closed, out),
            ClientRequestResult::SessionDelete(_) => self.thread_state(raw, &ask, ThreadState::Archived, out),
        }
    }

    /// `thread.state.changed` of the session a request named (closed, or deleted: archived).
    fn thread_state(&mut self, raw: Raw<'_>, ask: &ClientAsk, state: ThreadState, out: &mut Vec<ProviderRuntimeEvent>) {
        let context = match ask_session(ask) {
            Some(session) => self.ledger.thread_context(&session, Some(raw)),
            None => Context::bare(raw),
        };
        let payload = ThreadStateChangedPayload { state, detail: None };
        self.emit(&context, RuntimeEvent::ThreadStateChanged(payload), out);
    }

    /// `session/new` answered: the session, its thread, its configuration, `ready`.
    fn start_session(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        resume: Option<Value>,
        config: Option<Box<RawValue>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.session_mut(session);
        let mut context = self.ledger.thread_context(session, Some(raw));
        context.refs.provider_session_id = ProviderSessionId::new(session).ok();
        let payload = SessionStartedPayload { message: None, resume };
        self.emit(&context, RuntimeEvent::SessionStarted(payload), out);
        if self.ledger.start_thread(session) {
            let payload = ThreadStartedPayload {
                provider_thread_id: agentwire_canonical::ProviderThreadId::new(session).ok(),
            };
            self.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        }
        if let Some(config) = config {
            self.emit(
                &context,
                RuntimeEvent::SessionConfigured(SessionConfiguredPayload { config }),
                out,
            );
        }
        self.ledger
            .settle_state_carrying(&context.without_raw(), Some("the session is open"), out);
    }

    fn resume_session(
        &mut self,
        raw: Raw<'_>,
        ask: ClientAsk,
        config: Option<Box<RawValue>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match ask {
            ClientAsk::Resume { session, params } => {
                self.close_text(&session, out);
                self.start_session(raw, &session, Some(params), config, out);
            }
            ClientAsk::NewSession
            | ClientAsk::Prompt { .. }
            | ClientAsk::SetMode { .. }
            | ClientAsk::Session { .. }
            | ClientAsk::Authenticate { .. }
            | ClientAsk::Other => {
                self.ledger.warn(
                    &Context::bare(raw),
                    "a session was loaded by a request never seen".to_string(),
                    None,
                    out,
                );
            }
        }
    }

    /// `session.configured`, in the session's thread when it names one.
    pub(super) fn configured(
        &mut self,
        raw: Raw<'_>,
        session: Option<&str>,
        config: Box<RawValue>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = match session {
            Some(session) => self.session_context(session, Some(raw)),
            None => Context::bare(raw),
        };
        self.emit(
            &context,
            RuntimeEvent::SessionConfigured(SessionConfiguredPayload { config }),
            out,
        );
    }

    /// A JSON-RPC error travelling in `dir` (5.4).
    fn on_error(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        method: Option<&str>,
        error: &acp::Error,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = self.raw(frame, method).with_type("error");
        let code = error.code.0;
        match frame.dir {
            Direction::Out => {
                if !self.on_qwen_error(raw, id, error, out) {
                    self.on_client_error(raw, id, error, out);
                }
            }
            Direction::In => {
                let ask = self.client_asks.remove(id).unwrap_or(ClientAsk::Other);
                // The cause a person reads: agents put it in `data.message` (or `data` as text)
                // beside a generic "Internal error".
                let cause = match &error.data {
                    Some(Value::Object(data)) => data.get("message").and_then(Value::as_str),
                    Some(Value::String(data)) => Some(data.as_str()),
                    _ => None,
                };
                let text = match cause {
                    Some(cause) => format!(
                        "{} failed: {}: {cause} (JSON-RPC error {code})",
                        method.unwrap_or("a request"),
                        error.message
                    ),
                    None => format!(
                        "{} failed: {} (JSON-RPC error {code})",
                        method.unwrap_or("a request"),
                        error.message
                    ),
                };
                let detail = json!({ "id": id, "method": method, "error": error });
                match ask {
                    ClientAsk::Prompt { session, turn } => {
                        let mut context = self.ledger.turn_context(&session, &turn, Some(raw));
                        context.refs.provider_session_id = ProviderSessionId::new(&session).ok();
                        // The agent gave up on the prompt because the client cancelled it: not a failure.
                        if code == acp::ErrorCode::REQUEST_CANCELLED.0 {
                            if let Some(open) = self.sessions.get_mut(&session) {
                                open.stopped_by_client = false;
                            }
                            let payload = interrupted_turn(Some(error.message.clone()));
                            self.end_turn(&context, &session, &turn, payload, out);
                            return;
                        }
                        let class = error_class(code);
                        if self.ledger.report_turn_error(&session, &turn) {
                            let payload = RuntimeErrorPayload {
                                message: text.clone(),
                                class: Some(class),
                                detail: Some(detail),
                            };
                            self.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                        }
                        let payload = TurnCompletedPayload {
                            state: TurnState::Failed,
                            stop_reason: None,
                            usage: None,
                            model_usage: None,
                            total_cost_usd: None,
                            error_message: Some(error.message.clone()),
                        };
                        self.end_turn(&context, &session, &turn, payload, out);
                    }
                    ClientAsk::Authenticate { .. } => {
                        let payload = AuthStatusPayload {
                            is_authenticating: Some(false),
                            output: None,
                            error: Some(error.message.clone()),
                        };
                        let context = Context::bare(raw);
                        self.emit(&context, RuntimeEvent::AuthStatus(payload), out);
                        let payload = RuntimeErrorPayload {
                            message: text,
                            class: Some(RuntimeErrorClass::PermissionError),
                            detail: Some(detail),
                        };
                        self.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                    }
                    ClientAsk::NewSession
                    | ClientAsk::Resume { .. }
                    | ClientAsk::SetMode { .. }
                    | ClientAsk::Session { .. }
                    | ClientAsk::Other => {
                        let context = Context::bare(raw);
                        // A method the agent does not have: the session goes on without it.
                        if code == acp::ErrorCode::METHOD_NOT_FOUND.0 {
                            let message = format!(
                                "the agent does not support {}: {} (JSON-RPC error {code})",
                                method.unwrap_or("a request"),
                                error.message
                            );
                            self.ledger.warn(&context, message, Some(detail), out);
                        } else {
                            let payload = RuntimeErrorPayload {
                                message: text,
                                class: Some(error_class(code)),
                                detail: Some(detail),
                            };
                            self.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                        }
                    }
                }
            }
        }
    }

    fn on_cursor_client_request_result(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &CursorClientRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.client_asks.remove(id);
        match result {
            CursorClientRequestResult::CursorListAvailableModels(models) => {
                let raw = self.raw(frame, Some(result.method())).with_type("result");
                let config = object_text::object([("availableModels", &*models.models.0)]);
                let session = self.last_session.clone();
                self.configured(raw, session.as_deref(), config, out);
            }
        }
    }
}

/// A turn the person stopped (the client's `session/cancel`).
pub(super) fn interrupted_turn(message: Option<String>) -> TurnCompletedPayload {
    TurnCompletedPayload {
        state: TurnState::Interrupted,
        stop_reason: Some(Some("cancelled".to_string())),
        usage: None,
        model_usage: None,
        total_cost_usd: None,
        error_message: message,
    }
}

/// The class of a JSON-RPC error the agent answered with: the request was wrong (parse error,
/// invalid request, unknown method, invalid params), the client is not logged in, or the agent
/// failed (internal errors, and the codes agents choose themselves: gemini answers with the
/// HTTP status of the model API, e.g. 400 or 429).
fn error_class(code: i32) -> RuntimeErrorClass {
    match code {
        -32700 | -32600 | -32601 | -32602 => RuntimeErrorClass::ValidationError,
        -32000 => RuntimeErrorClass::PermissionError,
        _ => RuntimeErrorClass::ProviderError,
    }
}

fn ask_session(ask: &ClientAsk) -> Option<String> {
    match ask {
        ClientAsk::Session { session }
        | ClientAsk::SetMode { session, .. }
        | ClientAsk::Resume { session, .. }
        | ClientAsk::Prompt { session, .. } => Some(session.clone()),
        ClientAsk::NewSession | ClientAsk::Authenticate { .. } | ClientAsk::Other => None,
    }
}

/// A generated value as JSON (they serialize back to their wire shape).
pub(super) fn to_value<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// What a `session/new|load|resume` result says of the session's configuration, each member as
/// the agent wrote it (`schemas/acp/as-sent.json` makes them `RawJson`); `None` when it says
/// nothing.
fn session_config(
    modes: &Option<RawJson>,
    models: &Option<RawJson>,
    config_options: &Option<RawJson>,
) -> Option<Box<RawValue>> {
    let config = present([
        ("modes", raw_member(modes)),
        ("models", raw_member(models)),
        ("configOptions", raw_member(config_options)),
    ]);
    (!config.is_empty()).then(|| object_text::object(config))
}

/// The members that are present, each as the agent wrote it: the members of a configuration
/// built from a reply's optional parts.
fn present<'a, const N: usize>(members: [(&'a str, Option<&'a RawValue>); N]) -> Vec<(&'a str, &'a RawValue)> {
    members
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect()
}

/// An optional member kept as sent, as its text.
fn raw_member(member: &Option<RawJson>) -> Option<&RawValue> {
    member.as_ref().map(|member| &*member.0)
}

/// Adds the canonical fields of a content delta.
pub(super) fn delta(kind: ContentStreamKind, text: &str) -> RuntimeEvent {
    RuntimeEvent::ContentDelta(ContentDeltaPayload {
        stream_kind: kind,
        delta: text.to_string(),
        content_index: None,
        summary_index: None,
    })
}

impl Mapping for AcpNormalizer {
    type Request = AcpRequest;
    type Message<'a> = Message;

    fn ledger(&mut self) -> &mut Ledger<AcpRequest> {
        &mut self.ledger
    }

    /// Decodes a frame and labels what its events carry by the message's JSON-RPC shape.
    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Message>, Box<Misfit<'a>>> {
        match self.wire.decode(frame) {
            Ok(message) => {
                self.raw_source = self.raw_source_of(Some(message.kind()));
                Ok(Decoded {
                    raw: Raw::new(self.raw_source, None, frame.msg),
                    message,
                    time: ProviderTime::None,
                })
            }
            Err(err) => {
                let (envelope, method) =
                    agentwire_core::jsonrpc::misfit_method(frame, err.method(), &wire::METHOD_TABLES);
                self.raw_source = self.raw_source_of(envelope.as_ref().and_then(RawEnvelope::kind));
                Err(Box::new(Misfit {
                    problem: err.problem(),
                    raw: Raw::new(self.raw_source, method, frame.msg),
                    tag_field: "method",
                    time: ProviderTime::None,
                }))
            }
        }
    }

    fn map<'a>(&mut self, frame: &Frame<'a>, message: Message, _raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        match &message {
            Message::ClientRequest(request) => self.on_client_request(frame, request, out),
            Message::ClientNotification(notification) => self.on_client_notification(frame, notification, out),
            Message::AgentRequest(request) => self.on_agent_request(frame, request, out),
            Message::AgentNotification(notification) => self.on_agent_notification(frame, notification, out),
            Message::Protocol { dir, notification } => self.on_protocol(frame, *dir, notification, out),
            Message::CursorAgentRequest(request) => self.on_cursor_request(frame, request, out),
            Message::CursorClientRequest(request) => match request {
                CursorClientRequest::CursorListAvailableModels { id, .. } => {
                    self.client_asks.insert(id.clone(), ClientAsk::Other);
                }
            },
            Message::QwenAgentRequest(request) => self.on_qwen_request(frame, request, out),
            Message::QwenAgentNotification(notification) => self.on_qwen_notification(frame, notification, out),
            Message::QwenAgentRequestResult { id, result } => self.on_qwen_result(frame, id, result, out),
            Message::ClientRequestResult { id, result } => self.on_client_request_result(frame, id, result, out),
            Message::AgentRequestResult { id, result } => self.on_agent_request_result(frame, id, result, out),
            Message::CursorAgentRequestResult { id, result } => self.on_cursor_result(frame, id, result, out),
            Message::CursorClientRequestResult { id, result } => {
                self.on_cursor_client_request_result(frame, id, result, out)
            }
            Message::Error { id, method, error, .. } => self.on_error(frame, id, method.as_deref(), error, out),
        }
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        raw.map_or_else(Context::default, Context::bare)
    }

    /// A session stays busy while its prompt runs or a tool of its is open.
    fn forget_idle(&mut self) {
        let sessions = &self.sessions;
        for session in self
            .ledger
            .forget_idle_threads(|session| sessions.get(session).is_some_and(AcpSession::busy))
        {
            self.sessions.remove(&session);
        }
    }

    /// Text still streaming ends, and tool calls no turn holds are cut off.
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        let sessions: Vec<String> = self.sessions.keys().cloned().collect();
        for session in &sessions {
            self.close_text(session, out);
            self.cut_off_turnless_tools(session, out);
        }
    }

    /// A request its turn's end settled is still answered `cancelled`: ACP wants every pending
    /// permission request answered after `session/cancel`.
    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let (_, open) = self.ledger.find_request_answering(request, Some(reply.decision))?;
        open.extra.answer(request, reply)
    }
}
