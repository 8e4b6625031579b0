//! Codex app-server JSON-RPC frames -> typed messages.
//!
//! Notifications and requests name their type by `method`; a response carries only the `id` of
//! the request it answers, so requests are remembered (per direction: both sides count their
//! own ids) until their response arrives, and the response is decoded as that method's result.

use agentwire_codex_app_server::{
    ClientNotification, ClientRequest, ClientRequestResult, DecodeError, ErrorObject, MessageKind, RequestId,
    ServerNotification, ServerRequest, ServerRequestResult,
};

use agentwire_canonical::RuntimeEventRawSource;
use agentwire_codex_app_server::RawEnvelope;

use crate::decode::PathTracking;
use crate::emit::Raw;
use crate::frame::{Direction, Frame};
use crate::jsonrpc::Pending;
use crate::lifecycle::{Misfit, ProviderTime};
use crate::normalizer::{Problem, ProblemKind};

/// One decoded Codex app-server message.
// One `Message` lives per frame and is matched by reference; boxing the large variants would
// add an allocation per frame for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A notification from app-server.
    ServerNotification(ServerNotification),
    /// A request from app-server to the client (approvals, user input, dynamic tools, ...).
    ServerRequest(ServerRequest),
    /// A request from the client.
    ClientRequest(ClientRequest),
    /// A notification from the client (`initialized`).
    ClientNotification(ClientNotification),
    /// app-server's successful answer to a client request.
    ClientRequestResult { id: RequestId, result: ClientRequestResult },
    /// The client's successful answer to a server request.
    ServerRequestResult { id: RequestId, result: ServerRequestResult },
    /// A JSON-RPC error answering a request of `method` (`None` if that request was not seen).
    Error {
        id: RequestId,
        method: Option<String>,
        error: ErrorObject,
    },
}

/// Why a frame is not a Codex app-server message.
#[derive(Debug)]
pub enum WireError {
    /// The message is not a JSON object with JSON-RPC fields of the right types.
    Envelope(serde_json::Error),
    /// The message has none of the four JSON-RPC shapes.
    NotJsonRpc,
    /// The payload does not match the type its method names.
    Decode(DecodeError),
    /// A response whose request was never seen.
    UnmatchedResponse { id: RequestId },
}

impl WireError {
    /// The method the failing message named or answered, when known.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Decode(error) => error.method(),
            Self::Envelope(_) | Self::NotJsonRpc | Self::UnmatchedResponse { .. } => None,
        }
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Envelope(err) => write!(f, "not a JSON-RPC message: {err}"),
            Self::NotJsonRpc => f.write_str("not a JSON-RPC request, notification, response or error"),
            Self::Decode(err) => err.fmt(f),
            Self::UnmatchedResponse { id } => write!(f, "response to id {id}, which no earlier request carried"),
        }
    }
}

impl std::error::Error for WireError {}

/// Decodes frames, remembering open requests so their responses can be typed.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Requests awaiting an answer, by the direction they travelled and their id: their method.
    pending: Pending<String>,
}

impl Decoder {
    /// Decodes one frame.
    pub fn decode(&mut self, frame: &Frame<'_>) -> Result<Message, WireError> {
        let envelope = crate::jsonrpc::envelope(frame).map_err(WireError::Envelope)?;
        let decoder = &mut PathTracking;
        match (envelope.kind().ok_or(WireError::NotJsonRpc)?, frame.dir) {
            (MessageKind::Notification, Direction::In) => {
                ServerNotification::decode(&envelope, decoder).map(Message::ServerNotification)
            }
            (MessageKind::Notification, Direction::Out) => {
                ClientNotification::decode(&envelope, decoder).map(Message::ClientNotification)
            }
            (MessageKind::Request, dir) => {
                if let (Some(id), Some(method)) = (&envelope.id, &envelope.method) {
                    self.pending.sent(dir, id.clone(), method.to_string());
                }
                match dir {
                    Direction::In => ServerRequest::decode(&envelope, decoder).map(Message::ServerRequest),
                    Direction::Out => ClientRequest::decode(&envelope, decoder).map(Message::ClientRequest),
                }
            }
            (MessageKind::Response, dir) => {
                let id = envelope.id.clone().ok_or(WireError::NotJsonRpc)?;
                let result = envelope.result.ok_or(WireError::NotJsonRpc)?;
                let method = self
                    .pending
                    .answered(dir, &id)
                    .ok_or(WireError::UnmatchedResponse { id: id.clone() })?;
                match dir {
                    Direction::In => ClientRequestResult::decode(&method, result, decoder)
                        .map(|result| Message::ClientRequestResult { id, result }),
                    Direction::Out => ServerRequestResult::decode(&method, result, decoder)
                        .map(|result| Message::ServerRequestResult { id, result }),
                }
            }
            (MessageKind::Error, dir) => {
                let id = envelope.id.clone().ok_or(WireError::NotJsonRpc)?;
                let method = self.pending.answered(dir, &id);
                let error = envelope.error.ok_or(WireError::NotJsonRpc)?;
                return Ok(Message::Error { id, method, error });
            }
        }
        .map_err(WireError::Decode)
    }

    /// The method of a request still awaiting its answer.
    pub fn pending_method(&self, request_dir: Direction, id: &RequestId) -> Option<&str> {
        self.pending.open(request_dir, id).map(String::as_str)
    }
}

impl crate::normalizer::Conformer for Decoder {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), crate::normalizer::Problem> {
        Decoder::decode(self, frame)
            .map(drop)
            .map_err(|err| PushError(&err).problem())
    }
}

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

impl PushError<'_> {
    /// The problem a host sees: a method the pinned schema does not declare is `Undeclared`.
    pub fn problem(&self) -> Problem {
        let kind = match self.0 {
            WireError::Decode(err) => crate::decode::method_problem_kind(err),
            WireError::Envelope(_) | WireError::NotJsonRpc | WireError::UnmatchedResponse { .. } => {
                ProblemKind::Undecodable
            }
        };
        Problem::new(kind, self.to_string())
    }
}

impl Message {
    /// The protocol surface the message came from, as `raw.source` names it.
    pub fn raw_source(&self) -> RuntimeEventRawSource {
        match self {
            Self::ServerNotification(_) | Self::ClientRequest(_) | Self::ClientNotification(_) => {
                RuntimeEventRawSource::CodexAppServerNotification
            }
            Self::ServerRequest(_) => RuntimeEventRawSource::CodexAppServerRequest,
            Self::ClientRequestResult { .. } => RuntimeEventRawSource::CodexAppServerResponse,
            Self::ServerRequestResult { .. } => RuntimeEventRawSource::CodexAppServerClientResponse,
            Self::Error { .. } => RuntimeEventRawSource::CodexAppServerResponse,
        }
    }
}

/// What the core reports of a frame that did not decode: the problem, and the message's surface
/// and method as far as its envelope still tells them.
pub fn misfit<'a>(frame: &Frame<'a>, err: &WireError) -> Misfit<'a> {
    let tables = [
        ClientRequest::METHODS,
        ServerRequest::METHODS,
        ServerNotification::METHODS,
        ClientNotification::METHODS,
    ];
    let (envelope, method) = crate::jsonrpc::misfit_method(frame, err.method(), &tables);
    let source = match (frame.dir, envelope.as_ref().and_then(RawEnvelope::kind)) {
        (Direction::In, Some(MessageKind::Request)) => RuntimeEventRawSource::CodexAppServerRequest,
        (Direction::In, Some(MessageKind::Response | MessageKind::Error)) => {
            RuntimeEventRawSource::CodexAppServerResponse
        }
        (Direction::Out, Some(MessageKind::Response | MessageKind::Error)) => {
            RuntimeEventRawSource::CodexAppServerClientResponse
        }
        (Direction::In, Some(MessageKind::Notification) | None)
        | (Direction::Out, Some(MessageKind::Request | MessageKind::Notification) | None) => {
            RuntimeEventRawSource::CodexAppServerNotification
        }
    };
    Misfit {
        problem: PushError(err).problem(),
        raw: Raw::new(source, method, frame.msg),
        tag_field: "method",
        time: ProviderTime::None,
    }
}
