//! Codex app-server JSON-RPC frames -> typed messages.
//!
//! Notifications and requests name their type by `method`; a response carries only the `id` of
//! the request it answers, so requests are remembered (per direction: both sides count their
//! own ids) until their response arrives, and the response is decoded as that method's result.

use agentwire_codex_app_server::{
    ClientNotification, ClientRequest, ClientRequestResult, ErrorObject, MessageKind, RequestId, ServerNotification,
    ServerRequest, ServerRequestResult,
};

use agentwire_canonical::RuntimeEventRawSource;
use agentwire_codex_app_server::RawEnvelope;

use agentwire_core::decode::PathTracking;
use agentwire_core::emit::Raw;
use agentwire_core::frame::{Direction, Frame};
pub use agentwire_core::jsonrpc::WireError;
use agentwire_core::jsonrpc::{Protocol, Routed};
use agentwire_core::lifecycle::{Misfit, ProviderTime};

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
    ClientRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: ClientRequestResult,
    },
    /// The client's successful answer to a server request.
    ServerRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: ServerRequestResult,
    },
    /// A JSON-RPC error answering a request of `method` (`None` if that request was not seen).
    Error {
        /// The id of the request answered.
        id: RequestId,
        /// The method of the request answered.
        method: Option<String>,
        /// The JSON-RPC error object.
        error: ErrorObject,
    },
}

/// Codex app-server's JSON-RPC: which generated union a frame decodes with.
#[derive(Debug)]
pub struct AppServer;

/// Decodes app-server frames, remembering open requests so their responses can be typed.
pub type Decoder = agentwire_core::jsonrpc::Decoder<AppServer>;

impl Protocol for AppServer {
    type Message = Message;

    fn decode(routed: Routed<'_>, dir: Direction) -> Result<Message, WireError> {
        let decoder = &mut PathTracking;
        match (routed, dir) {
            (Routed::Notification(envelope), Direction::In) => {
                ServerNotification::decode(&envelope, decoder).map(Message::ServerNotification)
            }
            (Routed::Notification(envelope), Direction::Out) => {
                ClientNotification::decode(&envelope, decoder).map(Message::ClientNotification)
            }
            (Routed::Request(envelope), Direction::In) => {
                ServerRequest::decode(&envelope, decoder).map(Message::ServerRequest)
            }
            (Routed::Request(envelope), Direction::Out) => {
                ClientRequest::decode(&envelope, decoder).map(Message::ClientRequest)
            }
            (Routed::Response { id, method, result }, Direction::In) => {
                ClientRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::ClientRequestResult { id, result })
            }
            (Routed::Response { id, method, result }, Direction::Out) => {
                ServerRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::ServerRequestResult { id, result })
            }
            (Routed::Error { id, method, error }, _) => return Ok(Message::Error { id, method, error }),
        }
        .map_err(WireError::Decode)
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
    let (envelope, method) = agentwire_core::jsonrpc::misfit_method(frame, err.method(), &tables);
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
        problem: err.problem(),
        raw: Raw::new(source, method, frame.msg),
        tag_field: "method",
        time: ProviderTime::None,
    }
}
