//! `codex exec --json` lines -> typed [`ThreadEvent`]s.

use agentwire_codex_exec::{TagDecodeError, ThreadEvent, ThreadItem};

use agentwire_core::decode::{PathTracking, tag_problem_kind};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::Problem;

/// Decodes one frame's message.
pub fn decode(frame: &Frame<'_>) -> Result<ThreadEvent, Problem> {
    ThreadEvent::decode(frame.msg.get(), &mut PathTracking).map_err(|err| problem(&err))
}

/// The problem a host sees. A `type` the pinned schema does not declare, on the line or on the
/// `item` of an `item.*` line (a newer codex), is `Undeclared`; the rest is `Undecodable`.
fn problem(err: &TagDecodeError) -> Problem {
    let message = match undeclared_item_type(err) {
        Some(item_type) => format!("item type {item_type:?} is not declared by the pinned schema: {err}"),
        None => err.to_string(),
    };
    Problem::new(tag_problem_kind(err), message)
}

/// The `item.type` of an `item.*` line when the pinned `ThreadItem` does not declare it.
fn undeclared_item_type(err: &TagDecodeError) -> Option<&str> {
    let TagDecodeError::Payload { error, .. } = err else {
        return None;
    };
    match error.unknown_tag.as_deref()? {
        TagDecodeError::UnknownTag { union, value, .. } if *union == ThreadItem::NAME => Some(value),
        TagDecodeError::UnknownTag { .. }
        | TagDecodeError::Payload { .. }
        | TagDecodeError::NotAnObject { .. }
        | TagDecodeError::MissingTag { .. } => None,
    }
}
