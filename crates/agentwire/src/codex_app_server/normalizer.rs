//! The Codex app-server normalizer: state, frame dispatch, lifecycle and settling.
//!
//! What is remembered is what is open: threads (so a canonical thread is started once), turns
//! not yet completed, items not yet completed, and server requests not yet resolved. Canonical
//! ids are derived from provider ids ([`crate::ids`]), so no table maps one to the other.

use std::collections::BTreeMap;

use agentwire_canonical::{
    CanonicalItemType, ItemLifecyclePayload, ProviderItemId, ProviderKind, ProviderRuntimeEvent, ProviderThreadId,
    ProviderTurnId, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent, RuntimeEventRawSource, RuntimeItemId,
    RuntimeWarningPayload, ThreadId, TurnId,
};
use agentwire_codex_app_server::{self as codex, RawEnvelope, RequestId};
use serde_json::{Value, json};

use super::wire::{self, Message, WireError};
use crate::clock::Clock;
use crate::emit::{Context, Emitter, Raw};
use crate::frame::{Direction, Frame};
use crate::ids;
use crate::normalizer::{Normalizer, Options, Problem};

/// A wire error as a host reports it: the method first, then where and why.
#[derive(Debug)]
pub struct PushError<'a>(pub &'a WireError);

impl std::fmt::Display for PushError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.0.to_string();
        match self.0.method() {
            Some(method) if !text.contains(method) => write!(f, "{method}: {text}"),
            Some(_) | None => f.write_str(&text),
        }
    }
}

/// Normalizes one `codex app-server` connection.
pub struct CodexAppServerNormalizer {
    pub(super) emitter: Emitter,
    wire: wire::Decoder,
    /// Threads seen, by provider thread id.
    pub(super) threads: BTreeMap<String, OpenThread>,
    /// Items started and not completed, by (provider thread id, provider item id).
    pub(super) items: BTreeMap<(String, String), OpenItem>,
    /// Server requests not yet resolved, by JSON-RPC id.
    pub(super) requests: BTreeMap<RequestId, OpenRequest>,
    /// `turn/start` requests awaiting their result, by JSON-RPC id: the thread they start in
    /// (the result names only the turn).
    turn_starts: BTreeMap<RequestId, String>,
    /// A provider version other than the pinned one was reported (once per connection).
    version_reported: bool,
}

pub(super) struct OpenThread {
    /// The canonical id, derived once.
    pub id: ThreadId,
    /// `thread.started` was emitted (by the `thread/start` response or `thread/started`).
    pub started: bool,
    /// Turns started and not yet completed, by provider turn id.
    pub turns: BTreeMap<String, OpenTurn>,
}

#[derive(Default)]
pub(super) struct OpenTurn {
    /// The canonical id, derived on first use.
    pub id: Option<TurnId>,
    /// `turn.started` was emitted (by the `turn/start` response or `turn/started`).
    pub started: bool,
    /// A `runtime.error` was emitted for this turn (one failure, one error).
    pub error_reported: bool,
}

pub(super) struct OpenItem {
    /// The canonical id, derived once.
    pub id: RuntimeItemId,
    pub item_type: CanonicalItemType,
    pub turn: String,
}

pub(super) struct OpenRequest {
    pub request_type: agentwire_canonical::CanonicalRequestType,
    pub method: &'static str,
    pub thread: Option<String>,
    pub turn: Option<String>,
    pub item: Option<String>,
    /// The client's answer, once it arrived: (decision, resolution).
    pub answer: Option<(Option<String>, Value)>,
    /// For `item/tool/requestUserInput`: the answers go out as `user-input.resolved`.
    pub user_input: bool,
}

impl CodexAppServerNormalizer {
    /// A normalizer for one connection.
    pub fn new(options: Options) -> Self {
        CodexAppServerNormalizer {
            emitter: Emitter::new(
                options.provider.unwrap_or(ProviderKind::Codex),
                options.session_id,
                Clock::new(options.clock),
            ),
            wire: wire::Decoder::default(),
            threads: BTreeMap::new(),
            items: BTreeMap::new(),
            requests: BTreeMap::new(),
            turn_starts: BTreeMap::new(),
            version_reported: false,
        }
    }

    pub(super) fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        out.push(self.emitter.emit(context, event));
    }

    /// The canonical id of a provider thread, remembering the thread.
    pub(super) fn thread(&mut self, provider_thread: &str) -> ThreadId {
        if let Some(open) = self.threads.get(provider_thread) {
            return open.id.clone();
        }
        let id = thread_id(provider_thread);
        let open = OpenThread {
            id: id.clone(),
            started: false,
            turns: BTreeMap::new(),
        };
        self.threads.insert(provider_thread.to_string(), open);
        id
    }

    /// A context for something that belongs to a thread.
    pub(super) fn thread_context<'a>(&mut self, provider_thread: &str, raw: Option<Raw<'a>>) -> Context<'a> {
        let mut context = Context {
            thread_id: Some(self.thread(provider_thread)),
            raw,
            ..Context::default()
        };
        context.refs.provider_thread_id = ProviderThreadId::new(provider_thread).ok();
        context
    }

    /// A context for something that belongs to a turn.
    pub(super) fn turn_context<'a>(
        &mut self,
        provider_thread: &str,
        provider_turn: &str,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let mut context = self.thread_context(provider_thread, raw);
        let open = self
            .threads
            .get_mut(provider_thread)
            .and_then(|open| open.turns.get_mut(provider_turn));
        context.turn_id = Some(match open {
            Some(open) => open
                .id
                .get_or_insert_with(|| turn_id(provider_thread, provider_turn))
                .clone(),
            None => turn_id(provider_thread, provider_turn),
        });
        context.refs.provider_turn_id = ProviderTurnId::new(provider_turn).ok();
        context
    }

    /// A context for something that belongs to an item.
    pub(super) fn item_context<'a>(
        &mut self,
        provider_thread: &str,
        provider_turn: &str,
        provider_item: &str,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let mut context = self.turn_context(provider_thread, provider_turn, raw);
        let open = self
            .items
            .get(&(provider_thread.to_string(), provider_item.to_string()));
        context.item_id = Some(open.map_or_else(|| item_id(provider_thread, provider_item), |open| open.id.clone()));
        context.refs.provider_item_id = ProviderItemId::new(provider_item).ok();
        context
    }

    /// The canonical type of an open item, else `fallback` (what the method implies).
    pub(super) fn open_item_type(&self, thread: &str, item: &str, fallback: CanonicalItemType) -> CanonicalItemType {
        self.items
            .get(&(thread.to_string(), item.to_string()))
            .map_or(fallback, |open| open.item_type)
    }

    /// Marks a turn started; true if this call started it (the first report of the fact).
    pub(super) fn start_turn(&mut self, thread: &str, turn: &str) -> bool {
        self.thread(thread);
        let turns = &mut self.threads.get_mut(thread).expect("remembered above").turns;
        let open = turns.entry(turn.to_string()).or_default();
        !std::mem::replace(&mut open.started, true)
    }

    /// Marks a thread started; true if this call started it.
    pub(super) fn start_thread(&mut self, thread: &str) -> bool {
        self.thread(thread);
        let open = self.threads.get_mut(thread).expect("remembered above");
        !std::mem::replace(&mut open.started, true)
    }

    /// Reports once per connection a provider version other than the pinned schema's.
    pub(super) fn check_version(&mut self, reported: &str, context: &Context<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.version_reported || reported == codex::UPSTREAM_VERSION {
            return;
        }
        self.version_reported = true;
        let message = format!(
            "codex app-server reports version {reported}; agentwire's types were generated from {}",
            codex::UPSTREAM_VERSION
        );
        let detail = json!({ "reported": reported, "pinned": codex::UPSTREAM_VERSION });
        self.emit(
            context,
            RuntimeEvent::RuntimeWarning(RuntimeWarningPayload {
                message,
                detail: Some(detail),
            }),
            out,
        );
    }

    /// Completes the open items of a turn as failed (the turn ended without completing them).
    pub(super) fn close_turn_items(
        &mut self,
        raw: Option<Raw<'_>>,
        thread: &str,
        turn: &str,
        reason: &str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let keys: Vec<(String, String)> = self
            .items
            .iter()
            .filter(|((t, _), open)| t == thread && open.turn == turn)
            .map(|(key, _)| key.clone())
            .collect();
        for key in keys {
            let open = self.items.remove(&key).expect("listed above");
            self.fail_item(raw, (thread, turn, &key.1), open.item_type, reason, out);
        }
    }

    /// `item.completed(failed)` for an item its provider never completed.
    fn fail_item(
        &mut self,
        raw: Option<Raw<'_>>,
        (thread, turn, item): (&str, &str, &str),
        item_type: CanonicalItemType,
        reason: &str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.item_context(thread, turn, item, raw);
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(agentwire_canonical::ItemStatus::Failed),
            title: None,
            detail: Some(reason.to_string()),
            data: None,
        };
        self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
    }

    /// The thread of the `turn/start` request `id` answers.
    pub(super) fn pending_turn_thread(&mut self, id: &RequestId) -> Option<String> {
        self.turn_starts.remove(id)
    }

    /// Forgets a completed turn.
    pub(super) fn end_turn(&mut self, thread: &str, turn: &str) -> OpenTurn {
        self.threads
            .get_mut(thread)
            .and_then(|open| open.turns.remove(turn))
            .unwrap_or_default()
    }

    fn warn_undecodable(&mut self, frame: &Frame<'_>, err: &WireError, out: &mut Vec<ProviderRuntimeEvent>) {
        let envelope = serde_json::from_str::<RawEnvelope>(frame.msg.get()).ok();
        let method = envelope
            .as_ref()
            .and_then(|e| e.method.clone())
            .or_else(|| err.method().map(str::to_string));
        let source = match (frame.dir, envelope.as_ref().and_then(RawEnvelope::kind)) {
            (Direction::In, Some(codex::MessageKind::Request)) => RuntimeEventRawSource::CodexAppServerRequest,
            (Direction::In, Some(codex::MessageKind::Response | codex::MessageKind::Error)) => {
                RuntimeEventRawSource::CodexAppServerResponse
            }
            (Direction::Out, Some(codex::MessageKind::Response | codex::MessageKind::Error)) => {
                RuntimeEventRawSource::CodexAppServerClientResponse
            }
            (Direction::In, Some(codex::MessageKind::Notification) | None)
            | (Direction::Out, Some(codex::MessageKind::Request | codex::MessageKind::Notification) | None) => {
                RuntimeEventRawSource::CodexAppServerNotification
            }
        };
        let raw = Raw {
            source,
            method: method.as_deref(),
            message_type: None,
            payload: frame.msg,
        };
        let context = Context {
            raw: Some(raw),
            ..Context::default()
        };
        let direction = match frame.dir {
            Direction::In => "from codex app-server",
            Direction::Out => "from the client",
        };
        let message = format!("undecodable message {direction}: {}", PushError(err));
        let detail = json!({ "error": err.to_string(), "method": method });
        self.emit(
            &context,
            RuntimeEvent::RuntimeWarning(RuntimeWarningPayload {
                message,
                detail: Some(detail),
            }),
            out,
        );
    }

    /// A JSON-RPC error response.
    fn on_error(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        method: Option<&str>,
        error: &codex::ErrorObject,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match frame.dir {
            Direction::In => {
                let raw = Raw {
                    source: RuntimeEventRawSource::CodexAppServerResponse,
                    method,
                    message_type: Some("error"),
                    payload: frame.msg,
                };
                let context = Context {
                    raw: Some(raw),
                    ..Context::default()
                };
                // Parse error, invalid request, unknown method, invalid params: the request was wrong.
                let class = if matches!(error.code, -32700 | -32600 | -32601 | -32602) {
                    RuntimeErrorClass::ValidationError
                } else {
                    RuntimeErrorClass::ProviderError
                };
                let message = format!(
                    "{} failed: {} (JSON-RPC error {})",
                    method.unwrap_or("request"),
                    error.message,
                    error.code
                );
                let detail = json!({ "id": id, "method": method, "error": error });
                self.emit(
                    &context,
                    RuntimeEvent::RuntimeError(RuntimeErrorPayload {
                        message,
                        class: Some(class),
                        detail: Some(detail),
                    }),
                    out,
                );
            }
            Direction::Out => {
                let answer = (Some("error".to_string()), json!({ "error": error }));
                self.on_client_answer(frame, id, answer, out);
            }
        }
    }
}

pub(super) fn thread_id(provider_thread: &str) -> ThreadId {
    ThreadId::new(ids::derive(&format!("codex:thread:{provider_thread}"))).expect("a UUID is a valid id")
}

pub(super) fn turn_id(provider_thread: &str, provider_turn: &str) -> TurnId {
    TurnId::new(ids::derive(&format!("codex:turn:{provider_thread}:{provider_turn}"))).expect("a UUID is a valid id")
}

pub(super) fn item_id(provider_thread: &str, provider_item: &str) -> RuntimeItemId {
    RuntimeItemId::new(ids::derive(&format!("codex:item:{provider_thread}:{provider_item}")))
        .expect("a UUID is a valid id")
}

impl Normalizer for CodexAppServerNormalizer {
    fn push(&mut self, frame: &Frame<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> Result<(), Problem> {
        self.emitter.ensure_session(frame.msg.get().as_bytes());
        let message = match self.wire.decode(frame) {
            Ok(message) => message,
            Err(err) => {
                self.emitter.clock.tick(frame.ts, None);
                self.warn_undecodable(frame, &err, out);
                return Err(Problem(PushError(&err).to_string()));
            }
        };
        let provider_time = if let Message::ServerNotification(notification) = &message {
            notification.emitted_at_ms()
        } else {
            None
        };
        self.emitter.clock.tick(frame.ts, provider_time);
        match &message {
            Message::ServerNotification(notification) => self.on_notification(frame, notification, out),
            Message::ServerRequest(request) => self.on_server_request(frame, request, out),
            // What the client asks carries no canonical fact until answered; a turn/start is
            // remembered for the thread its result belongs to.
            Message::ClientRequest(request) => {
                if let codex::ClientRequest::TurnStart { id, params } = request {
                    self.turn_starts.insert(id.clone(), params.thread_id.clone());
                }
            }
            Message::ClientNotification(_) => {}
            Message::ClientRequestResult { id, result } => self.on_client_request_result(frame, id, result, out),
            Message::ServerRequestResult { id, result } => {
                let answer = super::requests::answer_of(result);
                self.on_client_answer(frame, id, answer, out);
            }
            Message::Error { id, method, error } => self.on_error(frame, id, method.as_deref(), error, out),
        }
        Ok(())
    }

    fn push_unreadable(&mut self, line: &str, reason: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        self.emitter.ensure_session(line.as_bytes());
        self.emitter.clock.tick(None, None);
        let payload = RuntimeWarningPayload {
            message: format!("unreadable input line: {reason}"),
            detail: Some(Value::String(line.to_string())),
        };
        self.emit(&Context::default(), RuntimeEvent::RuntimeWarning(payload), out);
    }

    fn finish(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.emitter.has_session() {
            self.settle(out);
        }
    }
}

impl CodexAppServerNormalizer {
    /// Settles open turns, items and requests (see [`Normalizer::finish`]).
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        const REASON: &str = "the stream ended before codex app-server completed it";
        let requests = std::mem::take(&mut self.requests);
        for (id, request) in requests {
            self.resolve(None, &id, request, Some(REASON), out);
        }
        let open_turns: Vec<(String, String)> = self
            .threads
            .iter()
            .flat_map(|(thread, open)| open.turns.keys().map(move |turn| (thread.clone(), turn.clone())))
            .collect();
        for (thread, turn) in open_turns {
            self.close_turn_items(None, &thread, &turn, REASON, out);
            self.end_turn(&thread, &turn);
            let context = self.turn_context(&thread, &turn, None);
            let payload = agentwire_canonical::TurnAbortedPayload {
                reason: REASON.to_string(),
            };
            self.emit(&context, RuntimeEvent::TurnAborted(payload), out);
        }
        let orphans: Vec<((String, String), OpenItem)> = std::mem::take(&mut self.items).into_iter().collect();
        for ((thread, item), open) in orphans {
            self.fail_item(None, (&thread, &open.turn, &item), open.item_type, REASON, out);
        }
    }
}
