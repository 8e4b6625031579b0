//! JSON lines through the emitter goldens: each decodes into the variant its method or tag names,
//! and re-encodes to the same JSON (keys in the order the emitter writes them: the tags first).

use agentwire_emitter_goldens::jsonrpc::{AcpAgentNotification, ClientRequest};
use agentwire_emitter_goldens::stream::{EventMsg, ExecItem, RolloutLine, StreamMessage, SystemMessage};
use agentwire_protocol::{DecodeError, RawEnvelope, RequestId, SerdeJson, TagDecodeError};

/// Decodes `line`, checks it with `check`, and re-encodes it to exactly `line`.
fn round_trip<T>(line: &str, check: impl FnOnce(&T)) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let value: T = serde_json::from_str(line).unwrap_or_else(|err| panic!("{line}: {err}"));
    check(&value);
    assert_eq!(serde_json::to_string(&value).unwrap(), line);
    value
}

#[test]
fn json_rpc_requests_decode_by_method() {
    round_trip::<ClientRequest>(
        r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"match":true,"ref":"r","sessionId":"s","type":"text"}}"#,
        |request| {
            let ClientRequest::SessionPrompt { id, params } = request else {
                panic!("{request:?}")
            };
            assert_eq!(*id, RequestId::Integer(1));
            assert!(params.match_);
            assert_eq!(params.type_, "text");
            assert_eq!(params.ref_.as_deref(), Some("r"));
            assert_eq!(params.attachments, None);
        },
    );
    // An explicit empty array stays apart from an absent one.
    round_trip::<ClientRequest>(
        r#"{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"attachments":[],"match":false,"sessionId":"s","type":"t"}}"#,
        |request| {
            assert!(
                matches!(request, ClientRequest::SessionPrompt { params, .. } if params.attachments == Some(vec![]))
            )
        },
    );
    round_trip::<ClientRequest>(r#"{"jsonrpc":"2.0","id":2,"method":"session/list"}"#, |request| {
        assert!(matches!(request, ClientRequest::SessionList { params: None, .. }));
    });
    round_trip::<ClientRequest>(r#"{"jsonrpc":"2.0","id":3,"method":"session/cancel"}"#, |request| {
        assert_eq!(request.method(), "session/cancel");
    });
    assert_eq!(
        ClientRequest::METHODS,
        ["session/prompt", "session/list", "session/cancel"]
    );
}

#[test]
fn a_nullable_optional_and_a_raw_field() {
    // `null` and absent both decode to `None` (and re-encode as absent).
    let request: ClientRequest =
        serde_json::from_str(r#"{"id":4,"method":"session/list","params":{"cursor":null}}"#).unwrap();
    assert!(matches!(request, ClientRequest::SessionList { params: Some(ref p), .. } if p.cursor.is_none()));

    round_trip::<AcpAgentNotification>(
        r#"{"method":"session/update","params":{"sessionId":"s","update":{"b": 1,  "a":[true]}}}"#,
        |notification| {
            let AcpAgentNotification::SessionUpdate { params } = notification else {
                panic!("{notification:?}")
            };
            // Byte for byte, spacing and key order included.
            assert_eq!(params.update.get(), r#"{"b": 1,  "a":[true]}"#);
        },
    );
    round_trip::<AcpAgentNotification>(
        r#"{"method":"cursor/ask_question","params":{"options":["yes","no"],"question":"Go?"}}"#,
        |notification| assert!(matches!(notification, AcpAgentNotification::CursorAskQuestion { .. })),
    );
}

#[test]
fn json_rpc_unions_read_from_any_deserializer() {
    // A `Value` lends no text to borrow: the union still reads, through the whole message.
    let value = serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "session/list", "params": {"cursor": "c"}});
    let request: ClientRequest = serde_json::from_value(value).unwrap();
    assert!(
        matches!(request, ClientRequest::SessionList { params: Some(ref p), .. } if p.cursor.as_deref() == Some("c"))
    );
    let err = serde_json::from_value::<ClientRequest>(serde_json::json!({"id": 6, "method": "session/teleport"}))
        .unwrap_err()
        .to_string();
    assert_eq!(err, "unknown ClientRequest method `session/teleport`");
}

#[test]
fn json_rpc_errors_name_the_method() {
    let envelope: RawEnvelope = serde_json::from_str(r#"{"method":"session/teleport","params":{}}"#).unwrap();
    let err = AcpAgentNotification::decode(&envelope, &mut SerdeJson).unwrap_err();
    assert!(
        matches!(&err, DecodeError::UnknownMethod { method, known, .. } if method == "session/teleport" && known.contains(&"session/update"))
    );
    let envelope: RawEnvelope = serde_json::from_str(r#"{"id":1,"method":"session/cancel","params":{"x":1}}"#).unwrap();
    assert_eq!(
        ClientRequest::decode(&envelope, &mut SerdeJson)
            .unwrap_err()
            .to_string(),
        "session/cancel: takes no `params`"
    );
    let envelope: RawEnvelope =
        serde_json::from_str(r#"{"method":"session/update","params":{"sessionId":1}}"#).unwrap();
    let err = AcpAgentNotification::decode(&envelope, &mut SerdeJson)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("session/update: invalid type: integer `1`"), "{err}");
}

#[test]
fn type_tagged_lines_decode_by_tag() {
    round_trip::<StreamMessage>(
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}"#,
        |message| {
            let StreamMessage::Assistant(assistant) = message else {
                panic!("{message:?}")
            };
            assert_eq!(assistant.message.get(), r#"{"content":[{"type":"text","text":"hi"}]}"#);
        },
    );
    round_trip::<StreamMessage>(r#"{"type":"result","is_error":false,"result":"done"}"#, |message| {
        assert_eq!(message.tag(), "result");
    });
    assert_eq!(StreamMessage::TAG, "type");
    assert_eq!(StreamMessage::TAGS, ["assistant", "system", "result"]);
}

/// A string the schema says holds JSON keeps its text and gives the JSON it holds, or none.
#[test]
fn a_string_that_holds_json() {
    let structured = |message: &StreamMessage| match message {
        StreamMessage::Result(result) => result.structured.clone().expect("structured"),
        other => panic!("{other:?}"),
    };
    let message = round_trip::<StreamMessage>(
        r#"{"type":"result","is_error":false,"structured":"{\"n\": [1, 2]}"}"#,
        |_| {},
    );
    let json = structured(&message);
    assert_eq!(json.as_str(), r#"{"n": [1, 2]}"#);
    assert_eq!(json.json(), Some(&serde_json::json!({"n": [1, 2]})));
    let message = round_trip::<StreamMessage>(r#"{"type":"result","is_error":false,"structured":"n/a"}"#, |_| {});
    assert_eq!(structured(&message).json(), None);
}

#[test]
fn nested_tags_decode_type_then_subtype() {
    round_trip::<StreamMessage>(
        r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"]}"#,
        |message| {
            let StreamMessage::System(SystemMessage::Init(init)) = message else {
                panic!("{message:?}")
            };
            assert_eq!(init.session_id, "s1");
        },
    );
    round_trip::<StreamMessage>(
        r#"{"type":"system","subtype":"compact_boundary","trigger":"auto"}"#,
        |message| {
            assert!(matches!(
                message,
                StreamMessage::System(SystemMessage::CompactBoundary(_))
            ));
        },
    );
    // Key order on the wire does not matter for decoding.
    let message: StreamMessage =
        serde_json::from_str(r#"{"session_id":"s1","tools":[],"subtype":"init","type":"system"}"#).unwrap();
    assert!(matches!(message, StreamMessage::System(SystemMessage::Init(_))));
}

#[test]
fn a_tag_union_as_a_field_type() {
    round_trip::<RolloutLine>(
        r#"{"type":"event_msg","payload":{"type":"task_started","model_context_window":1000},"timestamp":"2026-01-01T00:00:00Z"}"#,
        |line| {
            let RolloutLine::EventMsg(line) = line else {
                panic!("{line:?}")
            };
            assert!(
                matches!(line.payload, EventMsg::TaskStarted(ref started) if started.model_context_window == Some(1000))
            );
        },
    );
    round_trip::<RolloutLine>(
        r#"{"type":"event_msg","payload":{"type":"item.completed","item":{"type":"agent_message","id":"i1","text":"ok"}},"timestamp":"t"}"#,
        |line| {
            let RolloutLine::EventMsg(line) = line else {
                panic!("{line:?}")
            };
            let EventMsg::ItemCompleted(completed) = &line.payload else {
                panic!("{line:?}")
            };
            let ExecItem::AgentMessage(item) = &completed.item;
            assert_eq!(item.text, "ok");
        },
    );
}

#[test]
fn tag_errors_name_the_tag_and_the_known_values() {
    let err = StreamMessage::decode(r#"{"type":"teleport"}"#, &mut SerdeJson).unwrap_err();
    assert_eq!(
        err,
        TagDecodeError::UnknownTag {
            union: "StreamMessage",
            tag: "type",
            value: "teleport".into(),
            known: &["assistant", "system", "result"],
        }
    );
    assert_eq!(
        err.to_string(),
        "StreamMessage: unknown `type` `teleport` (known: assistant, system, result)"
    );
    let err = StreamMessage::decode(r#"{"type":"system","subtype":"bogus"}"#, &mut SerdeJson).unwrap_err();
    assert_eq!(
        err.to_string(),
        "SystemMessage: unknown `subtype` `bogus` (known: init, compact_boundary)"
    );
    let err = StreamMessage::decode(r#"{"subtype":"init"}"#, &mut SerdeJson).unwrap_err();
    assert_eq!(
        err,
        TagDecodeError::MissingTag {
            union: "StreamMessage",
            tag: "type"
        }
    );
    let err = StreamMessage::decode(r#"{"type":"result","is_error":"no"}"#, &mut SerdeJson).unwrap_err();
    assert!(
        matches!(&err, TagDecodeError::Payload { value, .. } if value == "result"),
        "{err}"
    );
    // The tag is the union's: a payload struct does not accept it as one of its fields, and the
    // strict payload (`additionalProperties: false` in the schema) still decodes with it present.
    assert!(serde_json::from_str::<StreamMessage>(r#"{"type":"assistant","message":1}"#).is_ok());
}

#[test]
fn a_variant_that_is_only_its_tag() {
    round_trip::<RolloutLine>(
        r#"{"type":"event_msg","payload":{"type":"turn.started"},"timestamp":"t"}"#,
        |line| {
            let RolloutLine::EventMsg(line) = line else {
                panic!("{line:?}")
            };
            assert_eq!(line.payload, EventMsg::TurnStarted);
            assert_eq!(line.payload.tag(), "turn.started");
        },
    );
    // On its own, the object is the tag alone.
    assert_eq!(
        serde_json::to_string(&EventMsg::TurnStarted).unwrap(),
        r#"{"type":"turn.started"}"#
    );
}
