//! One frame of a stored OpenCode session -> typed values.
//!
//! A frame is one of what `opencode export` prints, cut as the source's document says: the
//! session (`{"info": Session}`), one message with its parts (`{"info": Message, "parts":
//! [Part]}`), or, from the SQLite store only, one row of a v2 session (`{"v2": row}`, the
//! `session_message` row as [`super::store`] writes it). The kind is told by the members the frame
//! has, as the export lays them out; the values are read into the types generated from the
//! server's OpenAPI document (a v2 row into its `SessionMessage`, the row's `id` and `type` joined
//! with its `data`, as `GET /api/session/{id}/message` serves it).

use agentwire_core::decode::PathTracking;
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::{Problem, ProblemKind};
use agentwire_opencode::{Message, Part, PayloadDecoder, Session, SessionMessage};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// One decoded frame.
pub enum Stored {
    /// The session's own record (`info`).
    Session(Box<Session>),
    /// One message with its parts, in the store's order.
    Message(Box<Message>, Vec<Part>),
    /// A message of a v2 session (the store's `session_message` row).
    V2(Box<SessionMessage>),
}

/// A `session_message` row as the store writes it: its columns, `data` the message without the
/// `id` and `type` that are columns. `seq` orders the rows (the store lists them in that order)
/// and the times repeat `data.time`: checked to be there, not kept.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row<'a> {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "seq")]
    _seq: i64,
    #[serde(rename = "timeCreated")]
    _time_created: i64,
    #[serde(rename = "timeUpdated")]
    _time_updated: i64,
    #[serde(borrow)]
    data: &'a RawValue,
}

/// The members a frame may have.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Members<'a> {
    #[serde(borrow, default)]
    info: Option<&'a RawValue>,
    #[serde(borrow, default)]
    parts: Option<&'a RawValue>,
    #[serde(borrow, default)]
    v2: Option<&'a RawValue>,
}

/// Decodes one frame.
pub fn decode(frame: &Frame<'_>) -> Result<Stored, Problem> {
    let members: Members<'_> = serde_json::from_str(frame.msg.get()).map_err(|err| {
        Problem::new(
            ProblemKind::Undecodable,
            format!("not a part of an OpenCode session (`info`, `parts` or `v2`): {err}"),
        )
    })?;
    match members {
        Members {
            info: Some(info),
            parts: None,
            v2: None,
        } => typed("the session's `info`", info.get()).map(|session| Stored::Session(Box::new(session))),
        Members {
            info: Some(info),
            parts: Some(parts),
            v2: None,
        } => Ok(Stored::Message(
            Box::new(typed("a message's `info`", info.get())?),
            typed("a message's `parts`", parts.get())?,
        )),
        Members {
            info: None,
            parts: None,
            v2: Some(row),
        } => v2_message(row).map(|message| Stored::V2(Box::new(message))),
        Members { .. } => Err(Problem::new(
            ProblemKind::Undeclared,
            "not a part of an OpenCode session: `info` alone, `info` with `parts`, or `v2`",
        )),
    }
}

/// The frame's kind as `raw.messageType` names it: `session`, the message's `role`, or `v2`.
pub fn tag(frame: &Frame<'_>) -> Option<&'static str> {
    let members: Members<'_> = serde_json::from_str(frame.msg.get()).ok()?;
    #[derive(Deserialize)]
    struct Role<'a> {
        #[serde(borrow)]
        role: Option<&'a str>,
    }
    match (members.info, members.parts, members.v2) {
        (Some(_), None, None) => Some("session"),
        (Some(info), Some(_), None) => match serde_json::from_str::<Role<'_>>(info.get()).ok()?.role? {
            "user" => Some("user"),
            "assistant" => Some("assistant"),
            _ => None,
        },
        (None, None, Some(_)) => Some("v2"),
        _ => None,
    }
}

/// A `session_message` row as the `SessionMessage` it stores: `data` with the row's `id` and
/// `type` put first.
fn v2_message(row: &RawValue) -> Result<SessionMessage, Problem> {
    let row: Row<'_> = serde_json::from_str(row.get()).map_err(|err| {
        Problem::new(
            ProblemKind::Undecodable,
            format!("a v2 session's row (`v2`: `id`, `type`, `seq`, `timeCreated`, `timeUpdated`, `data`): {err}"),
        )
    })?;
    let Some(members) = row.data.get().trim_start().strip_prefix('{') else {
        return Err(Problem::new(
            ProblemKind::Undecodable,
            format!("a v2 session's row `{}`: its `data` is no JSON object", row.id),
        ));
    };
    let quote = |text: &str| serde_json::to_string(text).expect("a string serializes");
    let comma = if members.trim_start().starts_with('}') { "" } else { "," };
    let joined = format!(
        "{{\"id\":{},\"type\":{}{comma}{members}",
        quote(&row.id),
        quote(&row.kind)
    );
    typed(
        &format!("a v2 session's message `{}` (`{}`)", row.id, row.kind),
        &joined,
    )
}

/// `value` read as `T`; a value that does not fit names where, and a tag the pinned schema does
/// not know (a newer OpenCode's part type) is `Undeclared`.
fn typed<T: DeserializeOwned>(what: &str, value: &str) -> Result<T, Problem> {
    PathTracking.decode(value).map_err(|err| {
        let kind = match err.unknown_tag {
            Some(_) => ProblemKind::Undeclared,
            None => ProblemKind::Undecodable,
        };
        let path = if err.path.is_empty() { ".".to_string() } else { err.path };
        Problem::new(kind, format!("{what} at `{path}`: {}", err.message))
    })
}
