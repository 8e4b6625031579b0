//! ACP JSON-RPC frames -> typed messages.
//!
//! Requests and notifications name their type by `method`, decoded through the union named
//! after their sender: the agent's messages travel in (`AgentRequest`, `AgentNotification`),
//! the client's out (`ClientRequest`, `ClientNotification`); `$/cancel_request` either way.
//! Cursor's `cursor/*` methods and Qwen Code's (`craft/drainMidTurnQueue`,
//! `qwen/notify/session/prompt-suggestion`) carry no `_` prefix, so their tables are tried
//! before a method is called unknown. A reply carries only the `id` of the request it answers: requests are
//! remembered per direction (each side numbers its own: gemini's `fs/read_text_file` ids 0 and
//! 1 coexist with the client's `initialize` id 1) until their reply arrives, and the reply is
//! decoded as that method's result.

use agentwire_acp::{
    AgentNotification, AgentRequest, AgentRequestResult, ClientNotification, ClientRequest, ClientRequestResult,
    CursorAgentRequest, CursorAgentRequestResult, CursorClientRequest, CursorClientRequestResult, Error, MessageKind,
    ProtocolNotification, QwenAgentNotification, QwenAgentRequest, QwenAgentRequestResult, RequestId,
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
    /// A request of Qwen Code's agent beside ACP's (`craft/drainMidTurnQueue`).
    QwenAgentRequest(QwenAgentRequest),
    /// A notification of Qwen Code's agent beside ACP's (`qwen/notify/session/prompt-suggestion`).
    QwenAgentNotification(QwenAgentNotification),
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
    /// The client's answer to a request of Qwen Code's agent.
    QwenAgentRequestResult {
        /// The id of the request answered.
        id: RequestId,
        /// The result, decoded as the type of the request's method.
        result: QwenAgentRequestResult,
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
            Self::ClientNotification(_)
            | Self::AgentNotification(_)
            | Self::QwenAgentNotification(_)
            | Self::Protocol { .. } => MessageKind::Notification,
            Self::ClientRequest(_)
            | Self::AgentRequest(_)
            | Self::CursorAgentRequest(_)
            | Self::CursorClientRequest(_)
            | Self::QwenAgentRequest(_) => MessageKind::Request,
            Self::ClientRequestResult { .. }
            | Self::AgentRequestResult { .. }
            | Self::CursorAgentRequestResult { .. }
            | Self::CursorClientRequestResult { .. }
            | Self::QwenAgentRequestResult { .. } => MessageKind::Response,
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
        match routed {
            Routed::Notification(envelope) => {
                let method = envelope.method.as_deref().unwrap_or_default();
                match (dir, Table::of(method)) {
                    (dir, _) if method.starts_with(PROTOCOL) => ProtocolNotification::decode(&envelope, decoder)
                        .map(|notification| Message::Protocol { dir, notification }),
                    (Direction::In, Table::Qwen) => {
                        QwenAgentNotification::decode(&envelope, decoder).map(Message::QwenAgentNotification)
                    }
                    (Direction::In, Table::Acp | Table::Cursor) => {
                        AgentNotification::decode(&envelope, decoder).map(Message::AgentNotification)
                    }
                    (Direction::Out, Table::Acp | Table::Cursor | Table::Qwen) => {
                        ClientNotification::decode(&envelope, decoder).map(Message::ClientNotification)
                    }
                }
            }
            Routed::Request(envelope) => match (dir, Table::of(envelope.method.as_deref().unwrap_or_default())) {
                (Direction::In, Table::Cursor) => {
                    CursorAgentRequest::decode(&envelope, decoder).map(Message::CursorAgentRequest)
                }
                (Direction::Out, Table::Cursor) => {
                    CursorClientRequest::decode(&envelope, decoder).map(Message::CursorClientRequest)
                }
                (Direction::In, Table::Qwen) => {
                    QwenAgentRequest::decode(&envelope, decoder).map(Message::QwenAgentRequest)
                }
                (Direction::In, Table::Acp) => AgentRequest::decode(&envelope, decoder).map(Message::AgentRequest),
                (Direction::Out, Table::Acp | Table::Qwen) => {
                    ClientRequest::decode(&envelope, decoder).map(Message::ClientRequest)
                }
            },
            Routed::Response { id, method, result } => match (dir, Table::of(&method)) {
                (Direction::In, Table::Acp | Table::Qwen) => ClientRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::ClientRequestResult { id, result }),
                (Direction::Out, Table::Acp) => AgentRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::AgentRequestResult { id, result }),
                (Direction::Out, Table::Cursor) => CursorAgentRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::CursorAgentRequestResult { id, result }),
                (Direction::In, Table::Cursor) => CursorClientRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::CursorClientRequestResult { id, result }),
                (Direction::Out, Table::Qwen) => QwenAgentRequestResult::decode(&method, result, decoder)
                    .map(|result| Message::QwenAgentRequestResult { id, result }),
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

/// Which method table a method name belongs to: ACP's own (and any method no table lists),
/// Cursor's (the `cursor/` prefix) or Qwen Code's (the methods its unions list: they share no
/// prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Table {
    Acp,
    Cursor,
    Qwen,
}

impl Table {
    fn of(method: &str) -> Self {
        if method.starts_with(CURSOR) {
            Self::Cursor
        } else if QwenAgentRequest::METHODS.contains(&method) || QwenAgentNotification::METHODS.contains(&method) {
            Self::Qwen
        } else {
            Self::Acp
        }
    }
}

/// The method tables of every union an ACP, Cursor or Qwen Code message may belong to.
pub const METHOD_TABLES: [&[&str]; 9] = [
    ClientRequest::METHODS,
    ClientNotification::METHODS,
    AgentRequest::METHODS,
    AgentNotification::METHODS,
    ProtocolNotification::METHODS,
    CursorAgentRequest::METHODS,
    CursorClientRequest::METHODS,
    QwenAgentRequest::METHODS,
    QwenAgentNotification::METHODS,
];
