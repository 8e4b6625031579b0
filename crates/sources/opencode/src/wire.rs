//! `opencode serve` transcript records -> typed messages.
//!
//! An `in` record is one server event, as one of three streams sends it: `GET /event` sends the
//! [`Event`] itself (`{"id", "type", "properties"}`); `GET /api/event` puts the same payload in
//! `data` beside `durable` and `location`; `GET /global/event` wraps the event as `payload` beside
//! `directory` and `project`, and also sends `{"type": "sync", "syncEvent"}`, the durable copy of
//! an event as stored. All three decode into the one [`Event`] union (the envelope's members are
//! kept in the event's `raw`). An `out` record is one HTTP request of the client with the
//! server's answer ([`HttpCall`]).

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::normalizer::{Problem, ProblemKind};
use agentwire_opencode::Event;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// One decoded record.
pub enum Message<'a> {
    /// A server event (boxed: the largest event is far larger than the rest of the message kinds).
    Event(Box<Event>),
    /// `/global/event`'s durable copy of an event (`type: "sync"`), with the stored type.
    Sync {
        /// The `type` the event was stored under (`message.updated.1`).
        stored_type: Option<String>,
    },
    /// A request of the client, with the server's answer.
    Http(HttpCall<'a>),
}

/// An `out` record: `{method, path, body?, response: {status, body}}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpCall<'a> {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request's path (`/permission/per_…/reply`).
    pub path: String,
    /// The request's JSON body, if it sent one: read here, so that the mapping decides on a
    /// value (a permission's `reply`, a question's `answers`), not on the record's text.
    #[serde(default)]
    pub body: Option<Value>,
    /// What the server answered.
    #[serde(borrow)]
    pub response: HttpResponse<'a>,
}

/// The server's answer to an [`HttpCall`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpResponse<'a> {
    /// The HTTP status.
    pub status: u16,
    /// The answer's JSON body (`null` for a `204`).
    #[serde(borrow)]
    pub body: &'a RawValue,
}

/// The members of `/api/event` and `/global/event` envelopes, the event's own borrowed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, rename = "type", default)]
    event_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    properties: Option<&'a RawValue>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, rename = "syncEvent", default)]
    sync_event: Option<&'a RawValue>,
}

/// The stored type of a durable copy (`syncEvent.type`).
#[derive(Deserialize)]
struct SyncEvent {
    #[serde(rename = "type")]
    stored_type: Option<String>,
}

/// Decodes one frame's message.
pub fn decode<'a>(frame: &Frame<'a>) -> Result<Message<'a>, Problem> {
    match frame.dir {
        Direction::Out => serde_json::from_str(frame.msg.get())
            .map(Message::Http)
            .map_err(|err| Problem::new(ProblemKind::Undecodable, format!("an HTTP call record: {err}"))),
        Direction::In => decode_event(frame.msg.get()),
    }
}

fn decode_event(json: &str) -> Result<Message<'static>, Problem> {
    let envelope: Envelope<'_> = serde_json::from_str(json)
        .map_err(|err| Problem::new(ProblemKind::Undecodable, format!("not an event object: {err}")))?;
    match envelope {
        Envelope {
            payload: Some(payload), ..
        } => decode_event(payload.get()),
        Envelope {
            sync_event: Some(stored),
            ..
        } => {
            let stored: SyncEvent = serde_json::from_str(stored.get())
                .map_err(|err| Problem::new(ProblemKind::Undecodable, format!("a sync event: {err}")))?;
            Ok(Message::Sync {
                stored_type: stored.stored_type,
            })
        }
        Envelope {
            id: Some(id),
            event_type: Some(event_type),
            properties: None,
            data: Some(data),
            ..
        } => {
            let event = format!(
                r#"{{"id":{},"type":{},"properties":{}}}"#,
                id.get(),
                event_type.get(),
                data.get()
            );
            typed(&event)
        }
        Envelope { .. } => typed(json),
    }
}

fn typed(json: &str) -> Result<Message<'static>, Problem> {
    Event::decode(json, &mut PathTracking)
        .map(|event| Message::Event(Box::new(event)))
        .map_err(|err| tag_problem(&err))
}

/// The kind of a decoded message as `raw.method` names it: the event's `type`, `sync` for a
/// durable copy, or the HTTP call's route as the document names it (`/session/{sessionID}/message`;
/// its path as sent when no route matches). Read from the typed message, so a record that writes
/// its names or path with escapes names the same kind.
pub fn kind<'a>(message: &Message<'_>, frame: &Frame<'a>) -> Option<&'a str> {
    match message {
        Message::Event(event) => Some(event.tag()),
        Message::Sync { .. } => Some("sync"),
        Message::Http(call) => route(&call.method, &call.path).or_else(|| tag(frame)),
    }
}

/// The route of `ROUTES` a call of `method` to `path` went to: a `{param}` segment matches any
/// one segment, a trailing `*` the rest; of several that match, the one with the most literal
/// segments.
fn route(method: &str, path: &str) -> Option<&'static str> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').collect();
    let literal = |template: &str| template.split('/').filter(|part| !part.starts_with('{')).count();
    agentwire_opencode::ROUTES
        .iter()
        .filter(|(verb, template)| {
            verb.eq_ignore_ascii_case(method) && {
                let parts: Vec<&str> = template.split('/').collect();
                match parts.split_last() {
                    Some((&"*", head)) => {
                        segments.len() > head.len()
                            && head.iter().zip(&segments).all(|(part, segment)| fits(part, segment))
                    }
                    _ => {
                        parts.len() == segments.len()
                            && parts.iter().zip(&segments).all(|(part, segment)| fits(part, segment))
                    }
                }
            }
        })
        .max_by_key(|(_, template)| literal(template))
        .map(|(_, template)| *template)
}

/// Whether a path segment fits a template's.
fn fits(part: &str, segment: &str) -> bool {
    part == segment || (part.starts_with('{') && part.ends_with('}') && !segment.is_empty())
}

/// The message's kind as `raw.method` names it when it did not decode: the event's `type` (the
/// `payload`'s on `/global/event`), or the HTTP call's path.
pub fn tag<'a>(frame: &Frame<'a>) -> Option<&'a str> {
    match frame.dir {
        Direction::In => frame.tag("type").or_else(|| {
            let payload: &'a RawValue = serde_json::from_str::<Envelope<'a>>(frame.msg.get()).ok()?.payload?;
            serde_json::from_str::<Envelope<'a>>(payload.get())
                .ok()?
                .event_type
                .and_then(|value| serde_json::from_str::<&'a str>(value.get()).ok())
        }),
        Direction::Out => frame.tag("path"),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use agentwire_core::frame::{Frame, LineFormat};

    use super::{Message, decode};

    /// Every record of every trace of the corpus (the three event streams and the client's
    /// calls) decodes.
    #[test]
    fn the_corpus_decodes() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/corpus/opencode");
        let mut traces: Vec<_> = std::fs::read_dir(&dir)
            .expect("the corpus folder")
            .map(|entry| entry.expect("an entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        traces.sort();
        assert!(traces.len() >= 25, "{} traces", traces.len());
        let (mut events, mut syncs, mut calls, mut failures) = (0, 0, 0, Vec::new());
        for trace in &traces {
            let text = std::fs::read_to_string(trace).expect("a trace");
            for (index, line) in text.lines().enumerate() {
                let frame = Frame::parse(line, LineFormat::Transcript).expect("a record");
                match decode(&frame) {
                    Ok(Message::Event(_)) => events += 1,
                    Ok(Message::Sync { .. }) => syncs += 1,
                    Ok(Message::Http(_)) => calls += 1,
                    Err(problem) => failures.push(format!("{}:{}: {}", trace.display(), index + 1, problem.message)),
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert_eq!((events, syncs), (2353, 12), "events and sync frames");
        assert!(calls > 0);
    }
}
