//! JSON-RPC request/response pairing, for every source that speaks JSON-RPC over a duplex stream.
//!
//! A response carries only the `id` of the request it answers, and both sides number their own
//! requests (an agent's `fs/read_text_file` id 0 and the client's `initialize` id 0 coexist), so
//! a request is remembered under the direction it travelled and its id until the response
//! travelling the other way arrives. `M` is what a source keeps per request: its method (to
//! decode the result as that method's type), or more.

use std::collections::HashMap;

use agentwire_protocol::{DecodeError, ErrorObject, MessageKind, RawEnvelope, RequestId};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::frame::{Direction, Frame};
use crate::normalizer::{Problem, ProblemKind};

/// Requests awaiting their response, keyed by (the direction the request travelled, its id).
#[derive(Debug)]
pub struct Pending<M> {
    open: HashMap<(Direction, RequestId), M>,
}

impl<M> Default for Pending<M> {
    fn default() -> Self {
        Pending { open: HashMap::new() }
    }
}

impl<M> Pending<M> {
    /// Remembers a request that travelled in `dir` (a repeated id replaces the earlier one).
    pub fn sent(&mut self, dir: Direction, id: RequestId, method: M) {
        self.open.insert((dir, id), method);
    }

    /// What was remembered of the request a response travelling in `response_dir` answers,
    /// forgetting it.
    pub fn answered(&mut self, response_dir: Direction, id: &RequestId) -> Option<M> {
        self.open.remove(&(opposite(response_dir), id.clone()))
    }

    /// What is remembered of a request that travelled in `request_dir` and is still open.
    pub fn open(&self, request_dir: Direction, id: &RequestId) -> Option<&M> {
        self.open.get(&(request_dir, id.clone()))
    }
}

/// A frame's message sorted by its JSON-RPC shape, a response paired with the method of the
/// request it answers: what a source's decoder reads to pick the generated union to decode with.
#[derive(Debug)]
pub enum Routed<'a> {
    /// `method` without `id`.
    Notification(RawEnvelope<'a>),
    /// `method` and `id`; remembered until its response.
    Request(RawEnvelope<'a>),
    /// `id` and `result`, answering a request of `method`.
    Response {
        /// The id the response and its request share.
        id: RequestId,
        /// The method of the request answered, which names the result's type.
        method: String,
        /// The `result` member, decoded later by the source's result union.
        result: &'a RawValue,
    },
    /// `id` and `error`, answering a request of `method` (`None` if that request was not seen).
    Error {
        /// The id the error and its request share.
        id: RequestId,
        /// The method of the request answered.
        method: Option<String>,
        /// The `error` member.
        error: ErrorObject,
    },
}

impl Pending<String> {
    /// Reads a frame's envelope and sorts it by shape: a request is remembered by its method,
    /// a response or error is paired with the request it answers (which is then forgotten).
    pub fn route<'a>(&mut self, frame: &Frame<'a>) -> Result<Routed<'a>, WireError> {
        let envelope = envelope(frame).map_err(WireError::Envelope)?;
        let id_of = |envelope: &RawEnvelope<'_>| envelope.id.clone().ok_or(WireError::NotJsonRpc);
        match envelope.kind().ok_or(WireError::NotJsonRpc)? {
            MessageKind::Notification => Ok(Routed::Notification(envelope)),
            MessageKind::Request => {
                if let (Some(id), Some(method)) = (&envelope.id, &envelope.method) {
                    self.sent(frame.dir, id.clone(), method.to_string());
                }
                Ok(Routed::Request(envelope))
            }
            MessageKind::Response => {
                let id = id_of(&envelope)?;
                let result = envelope.result.ok_or(WireError::NotJsonRpc)?;
                let method = self
                    .answered(frame.dir, &id)
                    .ok_or(WireError::UnmatchedResponse { id: id.clone() })?;
                Ok(Routed::Response { id, method, result })
            }
            MessageKind::Error => {
                let id = id_of(&envelope)?;
                let method = self.answered(frame.dir, &id);
                let error = envelope.error.ok_or(WireError::NotJsonRpc)?;
                Ok(Routed::Error { id, method, error })
            }
        }
    }
}

/// What a JSON-RPC protocol adds to the core's pairing: how a routed frame reads as its typed
/// message (which generated union decodes it, by its shape and the direction it travelled).
pub trait Protocol {
    /// The protocol's decoded message.
    type Message;

    /// Decodes a frame that travelled in `dir`, already sorted by shape ([`Pending::route`]).
    fn decode(routed: Routed<'_>, dir: Direction) -> Result<Self::Message, WireError>;
}

/// Decodes one JSON-RPC stream's frames into `P`'s messages, remembering open requests so their
/// responses can be typed as the result of their method.
#[derive(Debug)]
pub struct Decoder<P> {
    /// Requests awaiting an answer, by the direction they travelled and their id: their method.
    pending: Pending<String>,
    protocol: std::marker::PhantomData<P>,
}

impl<P> Default for Decoder<P> {
    fn default() -> Self {
        Decoder {
            pending: Pending::default(),
            protocol: std::marker::PhantomData,
        }
    }
}

impl<P: Protocol> Decoder<P> {
    /// Decodes one frame.
    pub fn decode(&mut self, frame: &Frame<'_>) -> Result<P::Message, WireError> {
        let routed = self.pending.route(frame)?;
        P::decode(routed, frame.dir)
    }

    /// The method of a request still awaiting its answer.
    pub fn pending_method(&self, request_dir: Direction, id: &RequestId) -> Option<&str> {
        self.pending.open(request_dir, id).map(String::as_str)
    }
}

impl<P: Protocol> crate::normalizer::Conformer for Decoder<P> {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem> {
        Decoder::decode(self, frame).map(drop).map_err(|err| err.problem())
    }
}

/// Why a frame is not a message of a JSON-RPC source.
#[derive(Debug)]
pub enum WireError {
    /// The message is not a JSON object with JSON-RPC fields of the right types.
    Envelope(serde_json::Error),
    /// The message has none of the four JSON-RPC shapes.
    NotJsonRpc,
    /// The payload does not match the type its method names.
    Decode(DecodeError),
    /// The `error` member does not fit the source's own error type (ACP's `Error`).
    ErrorObject(serde_json::Error),
    /// A response whose request was never seen.
    UnmatchedResponse {
        /// The response's id, matching no open request.
        id: RequestId,
    },
}

impl WireError {
    /// The method the failing message named or answered, when known.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Decode(error) => error.method(),
            Self::Envelope(_) | Self::NotJsonRpc | Self::ErrorObject(_) | Self::UnmatchedResponse { .. } => None,
        }
    }

    /// The problem a host sees, the method first: a method the pinned schema does not declare
    /// is `Undeclared`, anything else that does not read `Undecodable`.
    pub fn problem(&self) -> Problem {
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

/// The JSON-RPC envelope of a frame's message: from the members the line's check found, or read
/// with serde_json when it found none (or one of them does not read, which serde_json reports).
pub fn envelope<'a>(frame: &Frame<'a>) -> serde_json::Result<RawEnvelope<'a>> {
    match frame.fields().and_then(RawEnvelope::from_members) {
        Some(envelope) => Ok(envelope),
        None => serde_json::from_str(frame.msg.get()),
    }
}

/// The method of a message that did not decode, borrowed from the line: its envelope's (read
/// again, as the decode failed), else the method `named` by the decode error (a response names
/// none: its request's) in the schema's own spelling, found in the unions' `tables`.
pub fn misfit_method<'a>(
    frame: &Frame<'a>,
    named: Option<&str>,
    tables: &[&'static [&'static str]],
) -> (Option<RawEnvelope<'a>>, Option<&'a str>) {
    let envelope = serde_json::from_str::<RawEnvelope<'a>>(frame.msg.get()).ok();
    let method = match envelope.as_ref().and_then(|envelope| envelope.method.clone()) {
        Some(std::borrow::Cow::Borrowed(method)) => Some(method),
        Some(std::borrow::Cow::Owned(_)) | None => named.and_then(|name| {
            tables
                .iter()
                .flat_map(|table| table.iter())
                .copied()
                .find(|method| *method == name)
        }),
    };
    (envelope, method)
}

/// Whether a message carries the `"jsonrpc": "2.0"` member (Codex app-server leaves it out;
/// a reply speaks as the request did).
pub fn carries_version(msg: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Version {
        jsonrpc: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Version>(msg.get()).is_ok_and(|version| version.jsonrpc.is_some())
}

/// The response frame answering request `id` with `result`: the id goes back with its original
/// type (number or string), and `"jsonrpc": "2.0"` only when the request carried it.
pub fn response(id: &RequestId, with_version: bool, result: Value) -> Value {
    let mut frame = Map::new();
    if with_version {
        frame.insert("jsonrpc".to_string(), Value::String("2.0".to_string()));
    }
    frame.insert(
        "id".to_string(),
        serde_json::to_value(id).expect("a request id serializes"),
    );
    frame.insert("result".to_string(), result);
    Value::Object(frame)
}

/// The other direction: a response travels opposite to its request.
fn opposite(dir: Direction) -> Direction {
    match dir {
        Direction::In => Direction::Out,
        Direction::Out => Direction::In,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_speaks_as_its_request_did() {
        let with = RawValue::from_string(r#"{"jsonrpc":"2.0","id":"a","method":"m"}"#.into()).unwrap();
        let without = RawValue::from_string(r#"{"id":7,"method":"m"}"#.into()).unwrap();
        assert!(carries_version(&with));
        assert!(!carries_version(&without));
        let reply = response(&RequestId::String("7".into()), true, serde_json::json!({}));
        assert_eq!(reply.to_string(), r#"{"jsonrpc":"2.0","id":"7","result":{}}"#);
        let reply = response(&RequestId::Integer(7), false, Value::Null);
        assert_eq!(reply.to_string(), r#"{"id":7,"result":null}"#);
    }

    #[test]
    fn each_side_numbers_its_own_requests() {
        let mut pending = Pending::default();
        pending.sent(Direction::Out, RequestId::Integer(1), "initialize");
        pending.sent(Direction::In, RequestId::Integer(1), "fs/read_text_file");
        assert_eq!(
            pending.open(Direction::In, &RequestId::Integer(1)),
            Some(&"fs/read_text_file")
        );
        assert_eq!(
            pending.answered(Direction::In, &RequestId::Integer(1)),
            Some("initialize")
        );
        assert_eq!(pending.answered(Direction::In, &RequestId::Integer(1)), None);
        assert_eq!(
            pending.answered(Direction::Out, &RequestId::String("1".into())),
            None,
            "1 and \"1\" are different ids"
        );
        assert_eq!(
            pending.answered(Direction::Out, &RequestId::Integer(1)),
            Some("fs/read_text_file")
        );
    }
}
