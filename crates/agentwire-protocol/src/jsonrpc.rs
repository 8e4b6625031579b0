//! JSON-RPC messages read envelope-first (`method`/`id`/`params`), as Codex app-server and ACP
//! speak them.
//!
//! A generated union's `decode(&RawEnvelope, &mut impl PayloadDecoder)` matches the `method`
//! and decodes only the `params` type that method names; the helpers on [`RawEnvelope`] are what
//! those generated arms call.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::decode_error::PayloadError;
use crate::payload::PayloadDecoder;
use crate::tagged::Str;

/// A JSON-RPC request id. Both sides number their own requests, so an id names a request only
/// together with the direction it travelled in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// A string id.
    String(String),
    /// An integer id.
    Integer(i64),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(id) => f.write_str(id),
            Self::Integer(id) => write!(f, "{id}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(id) => serializer.serialize_str(id),
            Self::Integer(id) => serializer.serialize_i64(*id),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or integer JSON-RPC id")
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(value.into()))
            }

            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<RequestId, E> {
                Ok(RequestId::Integer(value))
            }

            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<RequestId, E> {
                i64::try_from(value)
                    .map(RequestId::Integer)
                    .map_err(|_| E::custom("JSON-RPC id does not fit in an i64"))
            }
        }

        deserializer.deserialize_any(IdVisitor)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: i64,
    /// Extra information the server chose to attach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// A short description.
    pub message: String,
}

/// One JSON-RPC message read envelope-first: the routing fields are decoded, the payloads stay
/// raw JSON until the method that names their type is known. The payloads and names borrow the
/// message's text: reading the envelope copies a name only when it holds an escape.
#[derive(Debug, Default)]
pub struct RawEnvelope<'a> {
    /// Present on requests and responses.
    pub id: Option<RequestId>,
    /// Present on requests and notifications.
    pub method: Option<Cow<'a, str>>,
    /// The request or notification payload (`None` when absent or `null`).
    pub params: Option<&'a RawValue>,
    /// The payload of a successful response (`None` when absent or `null`).
    pub result: Option<&'a RawValue>,
    /// The payload of an error response.
    pub error: Option<ErrorObject>,
    /// Members beside the JSON-RPC ones (Codex's `emittedAtMs`), in message order, kept raw.
    /// The `jsonrpc` version member is read and dropped.
    pub extra: Vec<(Cow<'a, str>, &'a RawValue)>,
}

/// What a [`RawEnvelope`] is, by the fields it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// `method` and `id`.
    Request,
    /// `method` without `id`.
    Notification,
    /// `id` and `result`.
    Response,
    /// `id` and `error`.
    Error,
}

impl<'a> RawEnvelope<'a> {
    /// Classifies the message; `None` when it is none of the four JSON-RPC shapes.
    pub fn kind(&self) -> Option<MessageKind> {
        match (&self.method, &self.id, &self.result, &self.error) {
            (Some(_), Some(_), _, _) => Some(MessageKind::Request),
            (Some(_), None, _, _) => Some(MessageKind::Notification),
            (None, Some(_), Some(_), None) => Some(MessageKind::Response),
            (None, Some(_), None, Some(_)) => Some(MessageKind::Error),
            _ => None,
        }
    }

    /// The method, or [`DecodeError::NoMethod`].
    pub fn require_method(&self) -> Result<&str, DecodeError> {
        self.method.as_deref().ok_or(DecodeError::NoMethod)
    }

    /// The id of a request of `method`, or [`DecodeError::MissingId`].
    pub fn require_id(&self, method: &str) -> Result<RequestId, DecodeError> {
        self.id
            .clone()
            .ok_or_else(|| DecodeError::MissingId { method: method.into() })
    }

    /// The `params` of `method` decoded as `T`; missing `params` is an error.
    pub fn params<T: DeserializeOwned, D: PayloadDecoder>(
        &self,
        method: &str,
        decoder: &mut D,
    ) -> Result<T, DecodeError> {
        let raw = self
            .params
            .ok_or_else(|| DecodeError::MissingParams { method: method.into() })?;
        decoder.decode(raw.get()).map_err(|error| DecodeError::Payload {
            method: method.into(),
            error,
        })
    }

    /// The `params` of `method` decoded as `T`, `None` when absent.
    pub fn optional_params<T: DeserializeOwned, D: PayloadDecoder>(
        &self,
        method: &str,
        decoder: &mut D,
    ) -> Result<Option<T>, DecodeError> {
        match self.params {
            Some(raw) => decoder
                .decode(raw.get())
                .map(Some)
                .map_err(|error| DecodeError::Payload {
                    method: method.into(),
                    error,
                }),
            None => Ok(None),
        }
    }

    /// Checks that `method`, which takes no `params`, carries none (`null` counts as none).
    pub fn reject_params(&self, method: &str) -> Result<(), DecodeError> {
        match self.params {
            Some(params) if params.get() != "null" => Err(DecodeError::UnexpectedParams { method: method.into() }),
            _ => Ok(()),
        }
    }

    /// The member `key` beside the JSON-RPC ones decoded as `T`, `None` when absent.
    pub fn extra<T: DeserializeOwned, D: PayloadDecoder>(
        &self,
        key: &str,
        method: &str,
        decoder: &mut D,
    ) -> Result<Option<T>, DecodeError> {
        let Some((_, raw)) = self.extra.iter().find(|(name, _)| name == key) else {
            return Ok(None);
        };
        decoder
            .decode(raw.get())
            .map(Some)
            .map_err(|error| DecodeError::Payload {
                method: method.into(),
                error: PayloadError {
                    path: format!(".{key}{}", error.path),
                    ..error
                },
            })
    }

    /// The `result` of a response decoded as the result type of `method`.
    pub fn decode_result<T: DeserializeOwned, D: PayloadDecoder>(
        method: &str,
        result: &RawValue,
        decoder: &mut D,
    ) -> Result<T, DecodeError> {
        decoder.decode(result.get()).map_err(|error| DecodeError::Payload {
            method: method.into(),
            error,
        })
    }
}

impl<'a> RawEnvelope<'a> {
    /// The envelope of a message whose members a checking pass already found in its text (each
    /// key unescaped, each value one JSON value): read as [`Deserialize`] reads the message, but
    /// without passing over the payloads again. `None` when a routing member (`id`, `method`,
    /// `error`) does not read as its type; reading the whole message with serde_json then
    /// reports where.
    pub fn from_members(members: impl IntoIterator<Item = (&'a str, &'a RawValue)>) -> Option<Self> {
        let mut envelope = RawEnvelope::default();
        for (key, value) in members {
            envelope.take(Cow::Borrowed(key), Text(value)).ok()?;
        }
        Some(envelope)
    }

    /// Takes the member `key`, reading its value as that member is read. A key given twice keeps
    /// its last value (`extra` keeps both).
    fn take<V: MemberValue<'a>>(&mut self, key: Cow<'a, str>, value: V) -> Result<(), V::Error> {
        match &*key {
            "id" => self.id = value.read()?,
            "method" => self.method = value.read::<Option<Str<'a>>>()?.map(|name| name.0),
            // `null` reads as absent, as for every member here.
            "params" => self.params = value.raw()?,
            "result" => self.result = value.raw()?,
            "error" => self.error = value.read()?,
            "jsonrpc" => value.skip()?,
            _ => self.extra.push((key, value.kept()?)),
        }
        Ok(())
    }
}

/// The value of one envelope member, read the way the member needs: decoded, kept raw, or
/// skipped.
trait MemberValue<'a> {
    type Error;

    fn read<T: Deserialize<'a>>(self) -> Result<T, Self::Error>;

    /// The raw text, `None` for `null`.
    fn raw(self) -> Result<Option<&'a RawValue>, Self::Error>;

    /// The raw text, `null` included.
    fn kept(self) -> Result<&'a RawValue, Self::Error>;

    fn skip(self) -> Result<(), Self::Error>;
}

/// The next value of a map a deserializer is reading.
struct Next<'m, A>(&'m mut A);

impl<'a, A: MapAccess<'a>> MemberValue<'a> for Next<'_, A> {
    type Error = A::Error;

    fn read<T: Deserialize<'a>>(self) -> Result<T, A::Error> {
        self.0.next_value()
    }

    fn raw(self) -> Result<Option<&'a RawValue>, A::Error> {
        self.0.next_value()
    }

    fn kept(self) -> Result<&'a RawValue, A::Error> {
        self.0.next_value()
    }

    fn skip(self) -> Result<(), A::Error> {
        self.0.next_value::<IgnoredAny>().map(drop)
    }
}

/// A value's text, already checked: kept raw without reading it again.
struct Text<'a>(&'a RawValue);

impl<'a> MemberValue<'a> for Text<'a> {
    type Error = serde_json::Error;

    fn read<T: Deserialize<'a>>(self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    fn raw(self) -> Result<Option<&'a RawValue>, serde_json::Error> {
        Ok((self.0.get() != "null").then_some(self.0))
    }

    fn kept(self) -> Result<&'a RawValue, serde_json::Error> {
        Ok(self.0)
    }

    fn skip(self) -> Result<(), serde_json::Error> {
        Ok(())
    }
}

impl<'de> Deserialize<'de> for RawEnvelope<'de> {
    /// Borrows from the input, so only a deserializer over borrowed text (`serde_json::from_str`,
    /// `from_slice`) can read an envelope; [`RawEnvelope::read`] serves any other.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EnvelopeVisitor;

        impl<'de> Visitor<'de> for EnvelopeVisitor {
            type Value = RawEnvelope<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC message object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEnvelope<'de>, A::Error> {
                let mut envelope = RawEnvelope::default();
                while let Some(Str(key)) = map.next_key()? {
                    envelope.take(key, Next(&mut map))?;
                }
                Ok(envelope)
            }
        }

        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

impl RawEnvelope<'_> {
    /// Reads a message from any deserializer and hands its envelope to `decode`: the message is
    /// first taken whole as raw JSON (which every serde_json deserializer, `Value` included, can
    /// give), then read as an envelope borrowing that text. The generated unions' `Deserialize`
    /// goes this way; the normalizer reads envelopes from its input lines directly.
    pub fn read<'de, D, T>(
        deserializer: D,
        decode: impl FnOnce(&RawEnvelope<'_>) -> Result<T, DecodeError>,
    ) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
    {
        use serde::de::Error;
        let message = Box::<RawValue>::deserialize(deserializer)?;
        let envelope: RawEnvelope<'_> = serde_json::from_str(message.get()).map_err(D::Error::custom)?;
        decode(&envelope).map_err(D::Error::custom)
    }
}

/// Why a message did not decode into a JSON-RPC dispatch union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The message has no `method`.
    NoMethod,
    /// The method is not one of the union's.
    UnknownMethod {
        /// The union that was asked.
        union: &'static str,
        /// The method the message named.
        method: String,
        /// The union's methods.
        known: &'static [&'static str],
    },
    /// A request without an `id`.
    MissingId {
        /// The request's method.
        method: String,
    },
    /// The method needs `params` and the message has none.
    MissingParams {
        /// The method.
        method: String,
    },
    /// The method takes no `params` and the message has some.
    UnexpectedParams {
        /// The method.
        method: String,
    },
    /// The payload does not match the type the method names.
    Payload {
        /// The method.
        method: String,
        /// Where and why.
        error: PayloadError,
    },
}

impl DecodeError {
    /// The method the failing message named, when it named one.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::UnknownMethod { method, .. }
            | Self::MissingId { method }
            | Self::MissingParams { method }
            | Self::UnexpectedParams { method }
            | Self::Payload { method, .. } => Some(method),
            Self::NoMethod => None,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoMethod => f.write_str("message has no `method`"),
            // The known methods are in the error, not the message: a union has dozens.
            Self::UnknownMethod { union, method, .. } => write!(f, "unknown {union} method `{method}`"),
            Self::MissingId { method } => write!(f, "{method}: request has no `id`"),
            Self::MissingParams { method } => write!(f, "{method}: `params` missing"),
            Self::UnexpectedParams { method } => write!(f, "{method}: takes no `params`"),
            Self::Payload { method, error } => write!(f, "{method}: {error}"),
        }
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_keeps_payloads_raw_and_other_members_aside() {
        let envelope: RawEnvelope =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":7,"method":"m","params":{"a": 1},"emittedAtMs":5}"#).unwrap();
        assert_eq!(envelope.kind(), Some(MessageKind::Request));
        assert_eq!(envelope.id, Some(RequestId::Integer(7)));
        assert_eq!(envelope.params.map(RawValue::get), Some(r#"{"a": 1}"#));
        assert_eq!(envelope.extra.len(), 1, "`jsonrpc` is dropped, `emittedAtMs` kept");
        let at: Option<i64> = envelope.extra("emittedAtMs", "m", &mut crate::SerdeJson).unwrap();
        assert_eq!(at, Some(5));
        let err = envelope
            .extra::<String, _>("emittedAtMs", "m", &mut crate::SerdeJson)
            .unwrap_err();
        assert!(
            matches!(err, DecodeError::Payload { ref error, .. } if error.path == ".emittedAtMs"),
            "{err}"
        );
    }

    #[test]
    fn names_borrow_the_message_unless_escaped() {
        let envelope: RawEnvelope<'_> =
            serde_json::from_str(r#"{"method":"session\/update","params":{},"x\u0079":1,"z":2}"#).unwrap();
        assert_eq!(envelope.method.as_deref(), Some("session/update"));
        assert!(matches!(envelope.method, Some(Cow::Owned(_))), "unescaped into a copy");
        let names: Vec<_> = envelope.extra.iter().map(|(name, _)| name.as_ref()).collect();
        assert_eq!(names, ["xy", "z"]);
        assert!(matches!(envelope.extra[1].0, Cow::Borrowed("z")));
        let plain: RawEnvelope<'_> = serde_json::from_str(r#"{"method":"m"}"#).unwrap();
        assert!(matches!(plain.method, Some(Cow::Borrowed("m"))));
    }

    /// Every member of a message, in order, each value as its text.
    fn members(json: &str) -> Vec<(&str, &RawValue)> {
        struct InOrder;

        impl<'de> Visitor<'de> for InOrder {
            type Value = Vec<(&'de str, &'de RawValue)>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with plain keys")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key()? {
                    members.push((key, map.next_value()?));
                }
                Ok(members)
            }
        }

        serde_json::Deserializer::from_str(json)
            .deserialize_map(InOrder)
            .unwrap()
    }

    #[test]
    fn an_envelope_from_members_reads_as_the_message_does() {
        for json in [
            r#"{"jsonrpc":"2.0","id":7,"method":"m","params":{"a": 1},"emittedAtMs":5}"#,
            r#"{"id":"x","result":null}"#,
            r#"{"id":3,"result":[1]}"#,
            r#"{"id":null,"method":"m","params":null,"extra":null}"#,
            r#"{"id":4,"error":{"code":-32601,"message":"no","data":{"d":[]}}}"#,
            r#"{"method":"session\/update","params":{},"z":2,"z":3}"#,
            r#"{"method":"a","method":"b"}"#,
            r#"{}"#,
        ] {
            let read: RawEnvelope<'_> = serde_json::from_str(json).unwrap();
            let built = RawEnvelope::from_members(members(json)).expect("routing members that read");
            assert_eq!(format!("{built:?}"), format!("{read:?}"), "{json}");
        }
        for json in [
            r#"{"id":{},"method":"m"}"#,
            r#"{"id":1.5,"result":{}}"#,
            r#"{"method":7}"#,
            r#"{"id":1,"error":{"code":"x"}}"#,
        ] {
            assert!(serde_json::from_str::<RawEnvelope<'_>>(json).is_err(), "{json}");
            assert!(RawEnvelope::from_members(members(json)).is_none(), "{json}");
        }
    }

    #[test]
    fn null_params_read_as_absent() {
        let envelope: RawEnvelope = serde_json::from_str(r#"{"method":"m","params":null}"#).unwrap();
        assert!(envelope.params.is_none());
        assert_eq!(envelope.kind(), Some(MessageKind::Notification));
        assert_eq!(
            envelope.params::<i64, _>("m", &mut crate::SerdeJson),
            Err(DecodeError::MissingParams { method: "m".into() })
        );
        assert_eq!(envelope.optional_params::<i64, _>("m", &mut crate::SerdeJson), Ok(None));
    }
}
