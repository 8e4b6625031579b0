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
    CursorAgentRequest, CursorAgentRequestResult, CursorClientRequest, CursorClientRequestResult, DecodeError, Error,
    MessageKind, ProtocolNotification, RequestId,
};

use crate::decode::PathTracking;
use crate::frame::{Direction, Frame};
use crate::jsonrpc::Pending;

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
        dir: Direction,
        notification: ProtocolNotification,
    },
    /// A `cursor/*` request from Cursor's agent.
    CursorAgentRequest(CursorAgentRequest),
    /// A `cursor/*` request from the client to Cursor's agent.
    CursorClientRequest(CursorClientRequest),
    /// The agent's successful answer to a client request.
    ClientRequestResult { id: RequestId, result: ClientRequestResult },
    /// The client's successful answer to an agent request.
    AgentRequestResult { id: RequestId, result: AgentRequestResult },
    /// The client's answer to a `cursor/*` request of the agent.
    CursorAgentRequestResult {
        id: RequestId,
        result: CursorAgentRequestResult,
    },
    /// The agent's answer to a `cursor/*` request of the client.
    CursorClientRequestResult {
        id: RequestId,
        result: CursorClientRequestResult,
    },
    /// A JSON-RPC error travelling in `dir`, answering a request of `method` (`None` if that
    /// request was not seen).
    Error {
        dir: Direction,
        id: RequestId,
        method: Option<String>,
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

/// Why a frame is not an ACP message.
#[derive(Debug)]
pub enum WireError {
    /// The message is not a JSON object with JSON-RPC fields of the right types.
    Envelope(serde_json::Error),
    /// The message has none of the four JSON-RPC shapes.
    NotJsonRpc,
    /// The payload does not match the type its method names.
    Decode(DecodeError),
    /// The `error` member does not fit ACP's `Error`.
    ErrorObject(serde_json::Error),
    /// A response whose request was never seen.
    UnmatchedResponse { id: RequestId },
}

impl WireError {
    /// The method the failing message named or answered, when known.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Decode(error) => error.method(),
            Self::Envelope(_) | Self::NotJsonRpc | Self::ErrorObject(_) | Self::UnmatchedResponse { .. } => None,
        }
    }

    /// The problem a host sees: a method neither ACP nor Cursor declares is `Undeclared`.
    pub fn problem(&self) -> crate::normalizer::Problem {
        use crate::normalizer::{Problem, ProblemKind};
        let kind = match self {
            Self::Decode(err) => crate::decode::method_problem_kind(err),
            Self::Envelope(_) | Self::NotJsonRpc | Self::ErrorObject(_) | Self::UnmatchedResponse { .. } => {
                ProblemKind::Undecodable
            }
        };
        let text = self.to_string();
        let message = match self.method() {
            Some(method) if !text.contains(method) => format!("{method}: {text}"),
            Some(_) | None => text,
        };
        Problem::new(kind, message)
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Envelope(err) => write!(f, "not a JSON-RPC message: {err}"),
            Self::NotJsonRpc => f.write_str("not a JSON-RPC request, notification, response or error"),
            Self::Decode(err) => err.fmt(f),
            Self::ErrorObject(err) => write!(f, "error member: {err}"),
            Self::UnmatchedResponse { id } => write!(f, "response to id {id}, which no earlier request carried"),
        }
    }
}

impl std::error::Error for WireError {}

/// The prefix of Cursor's extension methods.
const CURSOR: &str = "cursor/";

/// The prefix of JSON-RPC protocol-level methods.
const PROTOCOL: &str = "$/";

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
        let method = envelope.method.as_deref().unwrap_or_default();
        match (envelope.kind().ok_or(WireError::NotJsonRpc)?, frame.dir) {
            (MessageKind::Notification, dir) if method.starts_with(PROTOCOL) => {
                ProtocolNotification::decode(&envelope, decoder)
                    .map(|notification| Message::Protocol { dir, notification })
            }
            (MessageKind::Notification, Direction::In) => {
                AgentNotification::decode(&envelope, decoder).map(Message::AgentNotification)
            }
            (MessageKind::Notification, Direction::Out) => {
                ClientNotification::decode(&envelope, decoder).map(Message::ClientNotification)
            }
            (MessageKind::Request, dir) => {
                if let Some(id) = &envelope.id {
                    self.pending.sent(dir, id.clone(), method.to_string());
                }
                match (dir, method.starts_with(CURSOR)) {
                    (Direction::In, true) => {
                        CursorAgentRequest::decode(&envelope, decoder).map(Message::CursorAgentRequest)
                    }
                    (Direction::Out, true) => {
                        CursorClientRequest::decode(&envelope, decoder).map(Message::CursorClientRequest)
                    }
                    (Direction::In, false) => AgentRequest::decode(&envelope, decoder).map(Message::AgentRequest),
                    (Direction::Out, false) => ClientRequest::decode(&envelope, decoder).map(Message::ClientRequest),
                }
            }
            (MessageKind::Response, dir) => {
                let id = envelope.id.clone().ok_or(WireError::NotJsonRpc)?;
                let result = envelope.result.ok_or(WireError::NotJsonRpc)?;
                let method = self
                    .pending
                    .answered(dir, &id)
                    .ok_or(WireError::UnmatchedResponse { id: id.clone() })?;
                match (dir, method.starts_with(CURSOR)) {
                    (Direction::In, false) => ClientRequestResult::decode(&method, result, decoder)
                        .map(|result| Message::ClientRequestResult { id, result }),
                    (Direction::Out, false) => AgentRequestResult::decode(&method, result, decoder)
                        .map(|result| Message::AgentRequestResult { id, result }),
                    (Direction::Out, true) => CursorAgentRequestResult::decode(&method, result, decoder)
                        .map(|result| Message::CursorAgentRequestResult { id, result }),
                    (Direction::In, true) => CursorClientRequestResult::decode(&method, result, decoder)
                        .map(|result| Message::CursorClientRequestResult { id, result }),
                }
            }
            (MessageKind::Error, dir) => {
                let id = envelope.id.clone().ok_or(WireError::NotJsonRpc)?;
                let method = self.pending.answered(dir, &id);
                let error = envelope.error.ok_or(WireError::NotJsonRpc)?;
                let error = serde_json::to_value(error)
                    .and_then(serde_json::from_value)
                    .map_err(WireError::ErrorObject)?;
                return Ok(Message::Error { dir, id, method, error });
            }
        }
        .map_err(WireError::Decode)
    }
}

impl crate::normalizer::Conformer for Decoder {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), crate::normalizer::Problem> {
        Decoder::decode(self, frame).map(drop).map_err(|err| err.problem())
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
