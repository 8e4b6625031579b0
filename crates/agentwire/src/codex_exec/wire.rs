//! `codex exec --json` lines -> typed [`ThreadEvent`]s.

use agentwire_codex_exec::{TagDecodeError, ThreadEvent, ThreadItem};
use serde_json::Value;

use crate::decode::{PathTracking, tag_problem_kind};
use crate::frame::Frame;
use crate::normalizer::{Conformer, Problem, ProblemKind};

/// Decodes one frame's message.
pub fn decode(frame: &Frame<'_>) -> Result<ThreadEvent, Problem> {
    ThreadEvent::decode(frame.msg.get(), &mut PathTracking).map_err(|err| problem(frame, &err))
}

/// The problem a host sees. A `type` the pinned schema does not declare, on the line or on the
/// `item` of an `item.*` line (a newer codex), is `Undeclared`; the rest is `Undecodable`.
fn problem(frame: &Frame<'_>, err: &TagDecodeError) -> Problem {
    let kind = match err {
        TagDecodeError::Payload { .. } if undeclared_item_type(frame).is_some() => ProblemKind::Undeclared,
        TagDecodeError::UnknownTag { .. }
        | TagDecodeError::Payload { .. }
        | TagDecodeError::NotAnObject { .. }
        | TagDecodeError::MissingTag { .. } => tag_problem_kind(err),
    };
    let message = match undeclared_item_type(frame) {
        Some(item_type) => format!("item type {item_type:?} is not declared by the pinned schema: {err}"),
        None => err.to_string(),
    };
    Problem::new(kind, message)
}

/// The `item.type` of an `item.*` line when the pinned `ThreadItem` does not declare it.
pub fn undeclared_item_type(frame: &Frame<'_>) -> Option<String> {
    let value: Value = serde_json::from_str(frame.msg.get()).ok()?;
    let item_type = value.get("item")?.get("type")?.as_str()?;
    (!ThreadItem::TAGS.contains(&item_type)).then(|| item_type.to_string())
}

/// The strict decoder of `agentwire conform --from codex-exec`.
#[derive(Debug, Default)]
pub struct Decoder;

impl Conformer for Decoder {
    fn decode(&mut self, frame: &Frame<'_>) -> Result<(), Problem> {
        decode(frame).map(drop)
    }
}
