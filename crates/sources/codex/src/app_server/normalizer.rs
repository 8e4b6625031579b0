//! The Codex app-server normalizer: frame dispatch and the few facts only Codex needs on top of
//! the session [`Ledger`] (which `turn/start` a result answers).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use agentwire_canonical::{
    ProviderRuntimeEvent, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent, RuntimeEventRawSource, RuntimeRequestId,
};
use agentwire_codex_app_server::{self as codex, RequestId};
use serde_json::json;

use super::offer::CodexRequest;
use super::wire::{self, Message};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ledger::Ledger;
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage::Meter;

/// Normalizes one `codex app-server` connection.
pub struct CodexAppServerNormalizer {
    pub(super) ledger: Ledger<CodexRequest>,
    wire: wire::Decoder,
    /// `turn/start` requests awaiting their result, by JSON-RPC id: the thread they start in
    /// (the result names only the turn).
    turn_starts: BTreeMap<RequestId, String>,
    /// The items reported last that the ledger holds open no more (completed, or started late
    /// in a turn that had ended), by provider thread and item id (see `remember_settled`).
    pub(super) settled_items: VecDeque<(String, String)>,
    /// MCP tool calls whose approval the person declined, by provider thread and item id: Codex
    /// completes them `failed`.
    pub(super) declined_calls: BTreeSet<(String, String)>,
    /// Each thread's running token totals (by provider thread id), from which a turn's share
    /// follows at its end.
    pub(super) meters: BTreeMap<String, Meter>,
}

impl CodexAppServerNormalizer {
    /// A normalizer for one connection.
    pub fn new(options: Options) -> Self {
        CodexAppServerNormalizer {
            ledger: Ledger::new(&crate::app_server::SOURCE, options),
            wire: wire::Decoder::default(),
            turn_starts: BTreeMap::new(),
            settled_items: VecDeque::new(),
            declined_calls: BTreeSet::new(),
            meters: BTreeMap::new(),
        }
    }

    pub(super) fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger.emit(context, event, out);
    }

    /// The thread of the `turn/start` request `id` answers.
    pub(super) fn pending_turn_thread(&mut self, id: &RequestId) -> Option<String> {
        self.turn_starts.remove(id)
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
                let raw = Raw::new(RuntimeEventRawSource::CodexAppServerResponse, method, frame.msg).with_type("error");
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
                    &Context::bare(raw),
                    RuntimeEvent::RuntimeError(RuntimeErrorPayload {
                        message,
                        class: Some(class),
                        detail: Some(detail),
                    }),
                    out,
                );
            }
            Direction::Out => self.on_client_error(frame, id, error, out),
        }
    }
}

impl Mapping for CodexAppServerNormalizer {
    type Request = CodexRequest;
    type Message<'a> = Message;

    fn ledger(&mut self) -> &mut Ledger<CodexRequest> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Message>, Box<Misfit<'a>>> {
        match self.wire.decode(frame) {
            Ok(message) => {
                let time = match &message {
                    Message::ServerNotification(notification) => notification
                        .emitted_at_ms()
                        .map_or(ProviderTime::None, ProviderTime::Millis),
                    Message::ServerRequest(_)
                    | Message::ClientRequest(_)
                    | Message::ClientNotification(_)
                    | Message::ClientRequestResult { .. }
                    | Message::ServerRequestResult { .. }
                    | Message::Error { .. } => ProviderTime::None,
                };
                // The mapping names each event's method itself, from the typed message.
                let raw = Raw::new(message.raw_source(), None, frame.msg);
                Ok(Decoded { message, raw, time })
            }
            Err(err) => Err(Box::new(wire::misfit(frame, &err))),
        }
    }

    fn map<'a>(&mut self, frame: &Frame<'a>, message: Message, _raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
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
            Message::ServerRequestResult { id, result } => self.on_client_answer(frame, id, result, out),
            Message::Error { id, method, error } => self.on_error(frame, id, method.as_deref(), error, out),
        }
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        raw.map_or_else(Context::default, Context::bare)
    }

    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let (_, open) = self.ledger.find_request(request)?;
        open.extra.answer(request, reply)
    }
}
