//! ACP JSON-RPC frames -> typed messages.
//!
//! Requests and notifications name their type by `method`, decoded through the union named
//! after their sender: the agent's messages travel in (`AgentRequest`, `AgentNotification`),
//! the client's out (`ClientRequest`, `ClientNotification`); `$/cancel_request` either way.
//! Cursor's `cursor/*` methods carry no `_` prefix, so Cursor's tables are tried before a method
//! is called unknown. A reply carries only the `id` of the request it answers: requests are
//! remembered per direction (each side numbers its own: gemini's `fs/read_text_file` ids 0 and
//! 1 coexist with the client's `initialize` id 1) until their reply arrives, and the reply is
//! decoded as that method's result.

use agentwire_acp::{
    AgentNotification, AgentRequest, AgentRequestResult, ClientNotification, ClientRequest, ClientRequestResult,
    CursorAgentRequest, CursorAgentRequestResult, CursorClientRequest, CursorClientRequestResult, Error, MessageKind,
    ProtocolNotification, RequestId,
};

use agentwire_core::decode::PathTracking;
use agentwire_core::frame::Direction;
pub use agentwire_core::jsonrpc::WireError;
use agentwire_core::jsonrpc::{Protocol, Routed};

/// One decoded ACP message.
// One `Message` lives per frame and is matched by reference; boxing the large variants would
// add an allocation per frame for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request from the client to the agent (`initialize`, `session/prompt`, ...).
    ClientRequest(ClientRequest),
    /// A notification from the client (`session/cancel`).
    ClientNotification(ClientNotification),
    /// A request from the agent to the client (permissions, files, terminals, elicitation).
    AgentRequest(AgentRequest),
    /// A notification from the agent (`session/update`, `elicitation/complete`).
    AgentNotification(AgentNotification),
    /// A `$/` notification either side sends.
    Protocol {
        /// Which side sent it.
        dir: Direction,
        /// The notification (`$/cancel_request`).
        notification: ProtocolNotification,
    },
    /// A `cursor/*` request from Cursor's agent.
    CursorAgentRequest(CursorAgentRequest),
    /// A `cursor/*` request from the client to Cursor's agent.
    CursorClientRequest(CursorClientRequest),
    /// The agent's successful answer to a client request.
    ClientRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: ClientRequestResult,
    },
    /// The client's successful answer to an agent request.
    AgentRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: AgentRequestResult,
    },
    /// The client's answer to a `cursor/*` request of the agent.
    CursorAgentRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: CursorAgentRequestResult,
    },
    /// The agent's answer to a `cursor/*` request of the client.
    CursorClientRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: CursorClientRequestResult,
    },
    /// A JSON-RPC error travelling in `dir`, answering a request of `method` (`None` if that
    /// request was not seen).
    Error {
        /// Which side sent the error.
        dir: Direction,
        /// The id of the request answered.
        id: RequestId,
        /// The method of the request answered.
        method: Option<String>,
        /// The error object, as ACP types it.
        error: Error,
    },
}

impl Message {
    /// The JSON-RPC shape the message travelled as.
    pub fn kind(&self) -> MessageKind {
        match self {
            Self::ClientNotification(_) | Self::AgentNotification(_) | Self::Protocol { .. } => {
                MessageKind::Notification
            }
            Self::ClientRequest(_)
            | Self::AgentRequest(_)
            | Self::CursorAgentRequest(_)
            | Self::CursorClientRequest(_) => MessageKind::Request,
            Self::ClientRequestResult { .. }
            | Self::AgentRequestResult { .. }
            | Self::CursorAgentRequestResult { .. }
            | Self::CursorClientRequestResult { .. } => MessageKind::Response,
            Self::Error { .. } => MessageKind::Error,
        }
    }
}

/// The prefix of Cursor's extension methods.
const CURSOR: &str = "cursor/";

/// The prefix of JSON-RPC protocol-level methods.
const PROTOCOL: &str = "$/";

/// ACP's JSON-RPC, with Cursor's extension tables: which generated union a frame decodes with.
#[derive(Debug)]
pub struct Acp;

/// Decodes ACP frames, remembering open requests so their responses can be typed.
pub type Decoder = agentwire_core::jsonrpc::Decoder<Acp>;

impl Protocol for Acp {
    type Message = Message;

    fn decode(routed: Routed<'_>, dir: Direction) -> Result<Message, WireError> {
        let decoder = &mut PathTracking;
        let cursor = |method: &str| method.starts_with(CURSOR);
        match routed {
            Routed::Notification(envelope) => {
                let method = envelope.method.as_deref().unwrap_or_default();
                match dir {
                    dir if method.starts_with(PROTOCOL) => ProtocolNotification::decode(&envelope, decoder)
                        .map(|notification| Message::Protocol { dir, notification }),
                    Direction::In => AgentNotification::decode(&envelope, decoder).map(Message::AgentNotification),
                    Direction::Out => ClientNotification::decode(&envelope, decoder).map(Message::ClientNotification),
                }
            }
            Routed::Request(envelope) => match (dir, cursor(envelope.method.as_deref().unwrap_or_default())) {
                (Direction::In, true) => {
                    CursorAgentRequest::decode(&envelope, decoder).map(Message::CursorAgentRequest)
                }
                (Direction::Out, true) => {
                    CursorClientRequest::decode(&envelope, decoder).map(Message::CursorClientRequest)
                }
                (Direction::In, false) => AgentRequest::decode(&envelope, decoder).map(Message::AgentRequest),
                (Direction::Out, false) => ClientRequest::decode(&envelope, decoder).map(Message::ClientRequest),
            },
            Routed::Response { id, method, result } => match (dir, cursor(&method)) {
                (Direction::In, false) => ClientRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::ClientRequestResult { id, result }),
                (Direction::Out, false) => AgentRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::AgentRequestResult { id, result }),
                (Direction::Out, true) => CursorAgentRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::CursorAgentRequestResult { id, result }),
                (Direction::In, true) => CursorClientRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::CursorClientRequestResult { id, result }),
            },
            Routed::Error { id, method, error } => {
                let error = serde_json::to_value(error)
                    .and_then(serde_json::from_value)
                    .map_err(WireError::ErrorObject)?;
                return Ok(Message::Error { dir, id, method, error });
            }
        }
        .map_err(WireError::Decode)
    }
}

/// The method tables of every union an ACP or Cursor message may belong to.
pub const METHOD_TABLES: [&[&str]; 7] = [
    ClientRequest::METHODS,
    ClientNotification::METHODS,
    AgentRequest::METHODS,
    AgentNotification::METHODS,
    ProtocolNotification::METHODS,
    CursorAgentRequest::METHODS,
    CursorClientRequest::METHODS,
];
