// Emitter golden of xtask/tests/fixtures/jsonrpc.schema.json, written by `AGENTWIRE_BLESS=1 cargo test -p xtask emitter`. Do not edit by hand.
///A Cursor extension method.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct AskQuestionParams {
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub options: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
    pub question: ::std::string::String,
}
///`ListParams`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
pub struct ListParams {
    ///Nullable and optional: absent and `null` are both `None`.
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub cursor: ::std::option::Option<::std::string::String>,
}
///What the user typed.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct PromptParams {
    ///An optional array: absent and `[]` stay apart.
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub attachments: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
    ///Another keyword.
    #[serde(rename = "match")]
    pub match_: bool,
    ///An optional keyword field.
    #[serde(rename = "ref", skip_serializing_if = "::std::option::Option::is_none")]
    pub ref_: ::std::option::Option<::std::string::String>,
    #[serde(rename = "sessionId")]
    pub session_id: ::std::string::String,
    ///A keyword as a field name.
    #[serde(rename = "type")]
    pub type_: ::std::string::String,
}
///`SessionUpdateParams`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct SessionUpdateParams {
    #[serde(rename = "sessionId")]
    pub session_id: ::std::string::String,
    ///Kept byte for byte.
    pub update: ::agentwire_protocol::RawJson,
}
/// Error types.
pub mod error {
    /// Error from a `TryFrom` or `FromStr` implementation.
    pub struct ConversionError(::std::borrow::Cow<'static, str>);
    impl ::std::error::Error for ConversionError {}
    impl ::std::fmt::Display for ConversionError {
        fn fmt(
            &self,
            f: &mut ::std::fmt::Formatter<'_>,
        ) -> Result<(), ::std::fmt::Error> {
            ::std::fmt::Display::fmt(&self.0, f)
        }
    }
    impl ::std::fmt::Debug for ConversionError {
        fn fmt(
            &self,
            f: &mut ::std::fmt::Formatter<'_>,
        ) -> Result<(), ::std::fmt::Error> {
            ::std::fmt::Debug::fmt(&self.0, f)
        }
    }
    impl From<&'static str> for ConversionError {
        fn from(value: &'static str) -> Self {
            Self(value.into())
        }
    }
    impl From<String> for ConversionError {
        fn from(value: String) -> Self {
            Self(value.into())
        }
    }
}
/// A request from the client.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientRequest {
    /// What the user typed.
    ///
    /// Method `session/prompt`.
    SessionPrompt { id: ::agentwire_protocol::RequestId, params: PromptParams },
    /// Method `session/list`.
    SessionList {
        id: ::agentwire_protocol::RequestId,
        params: ::std::option::Option<ListParams>,
    },
    /// Method `session/cancel`.
    SessionCancel { id: ::agentwire_protocol::RequestId },
}
impl ClientRequest {
    /// Every method of this union, in schema order.
    pub const METHODS: &'static [&'static str] = &[
        "session/prompt",
        "session/list",
        "session/cancel",
    ];
    /// The JSON-RPC method this message carries.
    pub fn method(&self) -> &'static str {
        match self {
            Self::SessionPrompt { .. } => "session/prompt",
            Self::SessionList { .. } => "session/list",
            Self::SessionCancel { .. } => "session/cancel",
        }
    }
    /// The JSON-RPC id the response to this request will carry.
    pub fn id(&self) -> &::agentwire_protocol::RequestId {
        match self {
            Self::SessionPrompt { id, .. } => id,
            Self::SessionList { id, .. } => id,
            Self::SessionCancel { id, .. } => id,
        }
    }
    /// Decodes the payload the envelope's method names. `decoder` decodes the payload;
    /// `SerdeJson` is the plain one, a caller may pass one that tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        envelope: &::agentwire_protocol::RawEnvelope<'_>,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::DecodeError> {
        let method = envelope.require_method()?;
        ::std::result::Result::Ok(
            match method {
                "session/prompt" => {
                    Self::SessionPrompt {
                        id: envelope.require_id("session/prompt")?,
                        params: envelope.params("session/prompt", decoder)?,
                    }
                }
                "session/list" => {
                    Self::SessionList {
                        id: envelope.require_id("session/list")?,
                        params: envelope.optional_params("session/list", decoder)?,
                    }
                }
                "session/cancel" => {
                    envelope.reject_params("session/cancel")?;
                    Self::SessionCancel {
                        id: envelope.require_id("session/cancel")?,
                    }
                }
                other => {
                    return ::std::result::Result::Err(::agentwire_protocol::DecodeError::UnknownMethod {
                        union: "ClientRequest",
                        method: other.into(),
                        known: Self::METHODS,
                    });
                }
            },
        )
    }
}
impl ::serde::Serialize for ClientRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        use ::serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(::std::option::Option::None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Self::SessionPrompt { id, params } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", "session/prompt")?;
                map.serialize_entry("params", params)?;
            }
            Self::SessionList { id, params } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", "session/list")?;
                if let ::std::option::Option::Some(params) = params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::SessionCancel { id } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", "session/cancel")?;
            }
        }
        map.end()
    }
}
impl<'de> ::serde::Deserialize<'de> for ClientRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ::agentwire_protocol::RawEnvelope::read(
            deserializer,
            |envelope| { Self::decode(envelope, &mut ::agentwire_protocol::SerdeJson) },
        )
    }
}
/// A notification from the agent.
#[derive(Clone, Debug, PartialEq)]
pub enum AcpAgentNotification {
    /// Method `session/update`.
    SessionUpdate { params: SessionUpdateParams },
    /// A Cursor extension method.
    ///
    /// Method `cursor/ask_question`.
    CursorAskQuestion { params: AskQuestionParams },
}
impl AcpAgentNotification {
    /// Every method of this union, in schema order.
    pub const METHODS: &'static [&'static str] = &[
        "session/update",
        "cursor/ask_question",
    ];
    /// The JSON-RPC method this message carries.
    pub fn method(&self) -> &'static str {
        match self {
            Self::SessionUpdate { .. } => "session/update",
            Self::CursorAskQuestion { .. } => "cursor/ask_question",
        }
    }
    /// Decodes the payload the envelope's method names. `decoder` decodes the payload;
    /// `SerdeJson` is the plain one, a caller may pass one that tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        envelope: &::agentwire_protocol::RawEnvelope<'_>,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::DecodeError> {
        let method = envelope.require_method()?;
        ::std::result::Result::Ok(
            match method {
                "session/update" => {
                    Self::SessionUpdate {
                        params: envelope.params("session/update", decoder)?,
                    }
                }
                "cursor/ask_question" => {
                    Self::CursorAskQuestion {
                        params: envelope.params("cursor/ask_question", decoder)?,
                    }
                }
                other => {
                    return ::std::result::Result::Err(::agentwire_protocol::DecodeError::UnknownMethod {
                        union: "AcpAgentNotification",
                        method: other.into(),
                        known: Self::METHODS,
                    });
                }
            },
        )
    }
}
impl ::serde::Serialize for AcpAgentNotification {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        use ::serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(::std::option::Option::None)?;
        match self {
            Self::SessionUpdate { params } => {
                map.serialize_entry("method", "session/update")?;
                map.serialize_entry("params", params)?;
            }
            Self::CursorAskQuestion { params } => {
                map.serialize_entry("method", "cursor/ask_question")?;
                map.serialize_entry("params", params)?;
            }
        }
        map.end()
    }
}
impl<'de> ::serde::Deserialize<'de> for AcpAgentNotification {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ::agentwire_protocol::RawEnvelope::read(
            deserializer,
            |envelope| { Self::decode(envelope, &mut ::agentwire_protocol::SerdeJson) },
        )
    }
}
