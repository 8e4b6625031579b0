//! The Codex app-server normalizer: frame dispatch and the few facts only Codex needs on top of
//! the session [`Ledger`] (which `turn/start` a result answers, whether the version was checked).

use std::collections::BTreeMap;

use agentwire_canonical::{
    ProviderRuntimeEvent, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent, RuntimeEventRawSource,
    RuntimeRequestId, RuntimeWarningPayload,
};
use agentwire_codex_app_server::{self as codex, DecodeError, RawEnvelope, RequestId};
use serde_json::{Value, json};

use super::offer::CodexRequest;
use super::wire::{self, Message, PushError, WireError};
use crate::answer::{AnswerError, Reply, ReplyFrame};
use crate::emit::{Context, Raw};
use crate::frame::{Direction, Frame};
use crate::ledger::Ledger;
use crate::normalizer::{Normalizer, Options, Problem};
use crate::source::Source;

/// Normalizes one `codex app-server` connection.
pub struct CodexAppServerNormalizer {
    pub(super) ledger: Ledger<CodexRequest>,
    wire: wire::Decoder,
    /// `turn/start` requests awaiting their result, by JSON-RPC id: the thread they start in
    /// (the result names only the turn).
    turn_starts: BTreeMap<RequestId, String>,
    /// A provider version other than the pinned one was reported (once per connection).
    version_reported: bool,
}

impl CodexAppServerNormalizer {
    /// A normalizer for one connection.
    pub fn new(options: Options) -> Self {
        CodexAppServerNormalizer {
            ledger: Ledger::new(Source::CodexAppServer, options),
            wire: wire::Decoder::default(),
            turn_starts: BTreeMap::new(),
            version_reported: false,
        }
    }

    pub(super) fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger.emit(context, event, out);
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

    /// The thread of the `turn/start` request `id` answers.
    pub(super) fn pending_turn_thread(&mut self, id: &RequestId) -> Option<String> {
        self.turn_starts.remove(id)
    }

    fn warn_undecodable(&mut self, frame: &Frame<'_>, err: &WireError, out: &mut Vec<ProviderRuntimeEvent>) {
        let envelope = serde_json::from_str::<RawEnvelope>(frame.msg.get()).ok();
        let method = envelope
            .as_ref()
            .and_then(|e| e.method.as_deref().map(str::to_string))
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
        let context = Context::bare(Raw::new(source, method.as_deref(), frame.msg));
        let direction = match frame.dir {
            Direction::In => "from codex app-server",
            Direction::Out => "from the client",
        };
        let what = match err {
            WireError::Decode(DecodeError::UnknownMethod { .. }) => "message the pinned schema does not declare",
            WireError::Decode(_)
            | WireError::Envelope(_)
            | WireError::NotJsonRpc
            | WireError::UnmatchedResponse { .. } => "undecodable message",
        };
        let message = format!("{what} {direction}: {}", PushError(err));
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

impl Normalizer for CodexAppServerNormalizer {
    fn push(&mut self, frame: &Frame<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> Result<(), Problem> {
        let message = match self.wire.decode(frame) {
            Ok(message) => message,
            Err(err) => {
                self.ledger.begin(frame.line, frame.ts, None);
                self.warn_undecodable(frame, &err, out);
                return Err(PushError(&err).problem());
            }
        };
        let provider_time = if let Message::ServerNotification(notification) = &message {
            notification.emitted_at_ms()
        } else {
            None
        };
        self.ledger.begin(frame.line, frame.ts, provider_time);
        self.ledger.forget_idle_threads(|_| false);
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
        Ok(())
    }

    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let (_, open) = self.ledger.find_request(request)?;
        open.extra.answer(request, reply)
    }

    fn push_unreadable(&mut self, line: &str, reason: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger.begin(line, None, None);
        let payload = RuntimeWarningPayload {
            message: format!("unreadable input line: {reason}"),
            detail: Some(Value::String(line.to_string())),
        };
        self.emit(&Context::default(), RuntimeEvent::RuntimeWarning(payload), out);
    }

    fn finish(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger.finish(out);
    }
}
