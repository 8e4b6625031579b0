// Emitter golden of xtask/tests/fixtures/stream.schema.json, written by `AGENTWIRE_BLESS=1 cargo test -p xtask emitter`. Do not edit by hand.
///`AgentMessageItem`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct AgentMessageItem {
    pub id: ::std::string::String,
    pub text: ::std::string::String,
}
///A message from the model.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct AssistantMessage {
    ///The provider's message, kept raw.
    pub message: ::agentwire_protocol::RawJson,
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub parent_tool_use_id: ::std::option::Option<::std::string::String>,
}
///`EventMsgLine`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct EventMsgLine {
    pub payload: EventMsg,
    pub timestamp: ::std::string::String,
}
///`ItemCompleted`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct ItemCompleted {
    pub item: ExecItem,
}
///`ResultMessage`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct ResultMessage {
    pub is_error: bool,
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub result: ::std::option::Option<::std::string::String>,
    ///The result as JSON, in a string.
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub structured: ::std::option::Option<::agentwire_protocol::JsonString>,
}
///`SystemCompactBoundary`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
pub struct SystemCompactBoundary {
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub trigger: ::std::option::Option<SystemCompactBoundaryTrigger>,
}
///`SystemCompactBoundaryTrigger`
#[derive(
    ::serde::Deserialize,
    ::serde::Serialize,
    Clone,
    Copy,
    Debug,
    Eq,
    Hash,
    Ord,
    PartialEq,
    PartialOrd
)]
pub enum SystemCompactBoundaryTrigger {
    #[serde(rename = "manual")]
    Manual,
    #[serde(rename = "auto")]
    Auto,
}
impl ::std::fmt::Display for SystemCompactBoundaryTrigger {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Manual => f.write_str("manual"),
            Self::Auto => f.write_str("auto"),
        }
    }
}
impl ::std::str::FromStr for SystemCompactBoundaryTrigger {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "manual" => Ok(Self::Manual),
            "auto" => Ok(Self::Auto),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for SystemCompactBoundaryTrigger {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for SystemCompactBoundaryTrigger {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///The first line of a session.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct SystemInit {
    pub session_id: ::std::string::String,
    pub tools: ::std::vec::Vec<::std::string::String>,
}
///`TaskStarted`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
pub struct TaskStarted {
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub model_context_window: ::std::option::Option<i64>,
}
///`TurnContextLine`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
pub struct TurnContextLine {
    pub payload: TurnContextLinePayload,
    pub timestamp: ::std::string::String,
}
///`TurnContextLinePayload`
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
pub struct TurnContextLinePayload {
    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
    pub cwd: ::std::option::Option<::std::string::String>,
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
/// One line of the stream.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamMessage {
    /// A message from the model.
    ///
    /// `type`: `assistant`.
    Assistant(AssistantMessage),
    /// System lines, told apart by `subtype`.
    ///
    /// `type`: `system`.
    System(SystemMessage),
    /// `type`: `result`.
    Result(ResultMessage),
}
impl StreamMessage {
    /// The union's name, as its decode errors give it.
    pub const NAME: &'static str = "StreamMessage";
    /// The field that names the variant.
    pub const TAG: &'static str = "type";
    /// Every value of [`Self::TAG`] this union knows, in schema order.
    pub const TAGS: &'static [&'static str] = &["assistant", "system", "result"];
    /// The value of [`Self::TAG`] this message carries.
    pub fn tag(&self) -> &'static str {
        match self {
            Self::Assistant(_) => "assistant",
            Self::System(_) => "system",
            Self::Result(_) => "result",
        }
    }
    /// Decodes the JSON object `json`: reads its tag, then decodes only the variant the tag
    /// names. `decoder` decodes it; `SerdeJson` is the plain one, a caller may pass one that
    /// tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        json: &str,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::TagDecodeError> {
        let tag = ::agentwire_protocol::tagged::read_tag(
            json,
            "StreamMessage",
            Self::TAG,
        )?;
        ::std::result::Result::Ok(
            match &*tag {
                "assistant" => {
                    Self::Assistant(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "StreamMessage",
                            Self::TAG,
                            "assistant",
                            decoder,
                        )?,
                    )
                }
                "system" => Self::System(SystemMessage::decode(json, decoder)?),
                "result" => {
                    Self::Result(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "StreamMessage",
                            Self::TAG,
                            "result",
                            decoder,
                        )?,
                    )
                }
                other => {
                    return ::std::result::Result::Err(
                        ::agentwire_protocol::tagged::unknown_tag(
                            "StreamMessage",
                            Self::TAG,
                            other,
                            Self::TAGS,
                        ),
                    );
                }
            },
        )
    }
}
/// The payload's fields with the tag written first.
impl ::serde::Serialize for StreamMessage {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Assistant(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "assistant",
                    payload,
                )
            }
            Self::System(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "system",
                    payload,
                )
            }
            Self::Result(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "result",
                    payload,
                )
            }
        }
    }
}
/// As [`Self::decode`] with the plain decoder, from any deserializer: from JSON text the
/// object's own text is decoded, from anything else (the buffer serde tries an untagged
/// union's branches from, a `serde_json::Value`) the object printed as JSON.
impl<'de> ::serde::Deserialize<'de> for StreamMessage {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let json = ::agentwire_protocol::json_text(deserializer)?;
        Self::decode(&json, &mut ::agentwire_protocol::SerdeJson)
            .map_err(::agentwire_protocol::tagged::nested_error)
    }
}
/// System lines, told apart by `subtype`.
#[derive(Clone, Debug, PartialEq)]
pub enum SystemMessage {
    /// The first line of a session.
    ///
    /// `subtype`: `init`.
    Init(SystemInit),
    /// `subtype`: `compact_boundary`.
    CompactBoundary(SystemCompactBoundary),
}
impl SystemMessage {
    /// The union's name, as its decode errors give it.
    pub const NAME: &'static str = "SystemMessage";
    /// The field that names the variant.
    pub const TAG: &'static str = "subtype";
    /// Every value of [`Self::TAG`] this union knows, in schema order.
    pub const TAGS: &'static [&'static str] = &["init", "compact_boundary"];
    /// The value of [`Self::TAG`] this message carries.
    pub fn tag(&self) -> &'static str {
        match self {
            Self::Init(_) => "init",
            Self::CompactBoundary(_) => "compact_boundary",
        }
    }
    /// Decodes the JSON object `json`: reads its tag, then decodes only the variant the tag
    /// names. `decoder` decodes it; `SerdeJson` is the plain one, a caller may pass one that
    /// tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        json: &str,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::TagDecodeError> {
        let tag = ::agentwire_protocol::tagged::read_tag(
            json,
            "SystemMessage",
            Self::TAG,
        )?;
        ::std::result::Result::Ok(
            match &*tag {
                "init" => {
                    Self::Init(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "SystemMessage",
                            Self::TAG,
                            "init",
                            decoder,
                        )?,
                    )
                }
                "compact_boundary" => {
                    Self::CompactBoundary(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "SystemMessage",
                            Self::TAG,
                            "compact_boundary",
                            decoder,
                        )?,
                    )
                }
                other => {
                    return ::std::result::Result::Err(
                        ::agentwire_protocol::tagged::unknown_tag(
                            "SystemMessage",
                            Self::TAG,
                            other,
                            Self::TAGS,
                        ),
                    );
                }
            },
        )
    }
}
/// The payload's fields with the tag written first.
impl ::serde::Serialize for SystemMessage {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Init(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "init",
                    payload,
                )
            }
            Self::CompactBoundary(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "compact_boundary",
                    payload,
                )
            }
        }
    }
}
/// As [`Self::decode`] with the plain decoder, from any deserializer: from JSON text the
/// object's own text is decoded, from anything else (the buffer serde tries an untagged
/// union's branches from, a `serde_json::Value`) the object printed as JSON.
impl<'de> ::serde::Deserialize<'de> for SystemMessage {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let json = ::agentwire_protocol::json_text(deserializer)?;
        Self::decode(&json, &mut ::agentwire_protocol::SerdeJson)
            .map_err(::agentwire_protocol::tagged::nested_error)
    }
}
/// A rollout file line: the kind of line in `type`, its content in `payload`.
#[derive(Clone, Debug, PartialEq)]
pub enum RolloutLine {
    /// `type`: `event_msg`.
    EventMsg(EventMsgLine),
    /// `type`: `turn_context`.
    TurnContext(TurnContextLine),
}
impl RolloutLine {
    /// The union's name, as its decode errors give it.
    pub const NAME: &'static str = "RolloutLine";
    /// The field that names the variant.
    pub const TAG: &'static str = "type";
    /// Every value of [`Self::TAG`] this union knows, in schema order.
    pub const TAGS: &'static [&'static str] = &["event_msg", "turn_context"];
    /// The value of [`Self::TAG`] this message carries.
    pub fn tag(&self) -> &'static str {
        match self {
            Self::EventMsg(_) => "event_msg",
            Self::TurnContext(_) => "turn_context",
        }
    }
    /// Decodes the JSON object `json`: reads its tag, then decodes only the variant the tag
    /// names. `decoder` decodes it; `SerdeJson` is the plain one, a caller may pass one that
    /// tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        json: &str,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::TagDecodeError> {
        let tag = ::agentwire_protocol::tagged::read_tag(
            json,
            "RolloutLine",
            Self::TAG,
        )?;
        ::std::result::Result::Ok(
            match &*tag {
                "event_msg" => {
                    Self::EventMsg(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "RolloutLine",
                            Self::TAG,
                            "event_msg",
                            decoder,
                        )?,
                    )
                }
                "turn_context" => {
                    Self::TurnContext(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "RolloutLine",
                            Self::TAG,
                            "turn_context",
                            decoder,
                        )?,
                    )
                }
                other => {
                    return ::std::result::Result::Err(
                        ::agentwire_protocol::tagged::unknown_tag(
                            "RolloutLine",
                            Self::TAG,
                            other,
                            Self::TAGS,
                        ),
                    );
                }
            },
        )
    }
}
/// The payload's fields with the tag written first.
impl ::serde::Serialize for RolloutLine {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Self::EventMsg(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "event_msg",
                    payload,
                )
            }
            Self::TurnContext(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "turn_context",
                    payload,
                )
            }
        }
    }
}
/// As [`Self::decode`] with the plain decoder, from any deserializer: from JSON text the
/// object's own text is decoded, from anything else (the buffer serde tries an untagged
/// union's branches from, a `serde_json::Value`) the object printed as JSON.
impl<'de> ::serde::Deserialize<'de> for RolloutLine {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let json = ::agentwire_protocol::json_text(deserializer)?;
        Self::decode(&json, &mut ::agentwire_protocol::SerdeJson)
            .map_err(::agentwire_protocol::tagged::nested_error)
    }
}
/// The payload of an `event_msg` line, tagged by its own `type`.
#[derive(Clone, Debug, PartialEq)]
pub enum EventMsg {
    /// `type`: `task_started`.
    TaskStarted(TaskStarted),
    /// `type`: `item.completed`.
    ItemCompleted(ItemCompleted),
    /// An event that is only its tag.
    ///
    /// `type`: `turn.started`.
    TurnStarted,
}
impl EventMsg {
    /// The union's name, as its decode errors give it.
    pub const NAME: &'static str = "EventMsg";
    /// The field that names the variant.
    pub const TAG: &'static str = "type";
    /// Every value of [`Self::TAG`] this union knows, in schema order.
    pub const TAGS: &'static [&'static str] = &[
        "task_started",
        "item.completed",
        "turn.started",
    ];
    /// The value of [`Self::TAG`] this message carries.
    pub fn tag(&self) -> &'static str {
        match self {
            Self::TaskStarted(_) => "task_started",
            Self::ItemCompleted(_) => "item.completed",
            Self::TurnStarted => "turn.started",
        }
    }
    /// Decodes the JSON object `json`: reads its tag, then decodes only the variant the tag
    /// names. `decoder` decodes it; `SerdeJson` is the plain one, a caller may pass one that
    /// tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        json: &str,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::TagDecodeError> {
        let tag = ::agentwire_protocol::tagged::read_tag(json, "EventMsg", Self::TAG)?;
        ::std::result::Result::Ok(
            match &*tag {
                "task_started" => {
                    Self::TaskStarted(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "EventMsg",
                            Self::TAG,
                            "task_started",
                            decoder,
                        )?,
                    )
                }
                "item.completed" => {
                    Self::ItemCompleted(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "EventMsg",
                            Self::TAG,
                            "item.completed",
                            decoder,
                        )?,
                    )
                }
                "turn.started" => Self::TurnStarted,
                other => {
                    return ::std::result::Result::Err(
                        ::agentwire_protocol::tagged::unknown_tag(
                            "EventMsg",
                            Self::TAG,
                            other,
                            Self::TAGS,
                        ),
                    );
                }
            },
        )
    }
}
/// The payload's fields with the tag written first.
impl ::serde::Serialize for EventMsg {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Self::TaskStarted(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "task_started",
                    payload,
                )
            }
            Self::ItemCompleted(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "item.completed",
                    payload,
                )
            }
            Self::TurnStarted => {
                ::agentwire_protocol::tagged::serialize_tag_only(
                    serializer,
                    Self::TAG,
                    "turn.started",
                )
            }
        }
    }
}
/// As [`Self::decode`] with the plain decoder, from any deserializer: from JSON text the
/// object's own text is decoded, from anything else (the buffer serde tries an untagged
/// union's branches from, a `serde_json::Value`) the object printed as JSON.
impl<'de> ::serde::Deserialize<'de> for EventMsg {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let json = ::agentwire_protocol::json_text(deserializer)?;
        Self::decode(&json, &mut ::agentwire_protocol::SerdeJson)
            .map_err(::agentwire_protocol::tagged::nested_error)
    }
}
/// A codex exec item, tagged by `type` inside the event.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecItem {
    /// `type`: `agent_message`.
    AgentMessage(AgentMessageItem),
}
impl ExecItem {
    /// The union's name, as its decode errors give it.
    pub const NAME: &'static str = "ExecItem";
    /// The field that names the variant.
    pub const TAG: &'static str = "type";
    /// Every value of [`Self::TAG`] this union knows, in schema order.
    pub const TAGS: &'static [&'static str] = &["agent_message"];
    /// The value of [`Self::TAG`] this message carries.
    pub fn tag(&self) -> &'static str {
        match self {
            Self::AgentMessage(_) => "agent_message",
        }
    }
    /// Decodes the JSON object `json`: reads its tag, then decodes only the variant the tag
    /// names. `decoder` decodes it; `SerdeJson` is the plain one, a caller may pass one that
    /// tracks JSON paths.
    pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
        json: &str,
        decoder: &mut D,
    ) -> ::std::result::Result<Self, ::agentwire_protocol::TagDecodeError> {
        let tag = ::agentwire_protocol::tagged::read_tag(json, "ExecItem", Self::TAG)?;
        ::std::result::Result::Ok(
            match &*tag {
                "agent_message" => {
                    Self::AgentMessage(
                        ::agentwire_protocol::tagged::decode_payload(
                            json,
                            "ExecItem",
                            Self::TAG,
                            "agent_message",
                            decoder,
                        )?,
                    )
                }
                other => {
                    return ::std::result::Result::Err(
                        ::agentwire_protocol::tagged::unknown_tag(
                            "ExecItem",
                            Self::TAG,
                            other,
                            Self::TAGS,
                        ),
                    );
                }
            },
        )
    }
}
/// The payload's fields with the tag written first.
impl ::serde::Serialize for ExecItem {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Self::AgentMessage(payload) => {
                ::agentwire_protocol::tagged::serialize_tagged(
                    serializer,
                    Self::TAG,
                    "agent_message",
                    payload,
                )
            }
        }
    }
}
/// As [`Self::decode`] with the plain decoder, from any deserializer: from JSON text the
/// object's own text is decoded, from anything else (the buffer serde tries an untagged
/// union's branches from, a `serde_json::Value`) the object printed as JSON.
impl<'de> ::serde::Deserialize<'de> for ExecItem {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let json = ::agentwire_protocol::json_text(deserializer)?;
        Self::decode(&json, &mut ::agentwire_protocol::SerdeJson)
            .map_err(::agentwire_protocol::tagged::nested_error)
    }
}
