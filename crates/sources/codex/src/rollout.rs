//! Codex rollout files -> canonical events: spec section 3.3, a past Codex session replayed.
//!
//! A rollout file (`$CODEX_HOME/sessions/**/rollout-*.jsonl`) holds two views of one session:
//! `event_msg` lines carry the core protocol's `EventMsg`s (what a UI was told: turns, completed
//! items, usage), `response_item` lines the model's history (messages, tool calls and their
//! outputs). Items come from the first; tool calls are opened from the second, because codex
//! persists no `*_begin` event, and the tools no `EventMsg` reports (plans, questions, failed
//! patches) are mapped from it alone. `session_meta` and `turn_context` start and configure the
//! thread. Each line's `timestamp` is its `createdAt`.
//!
//! Every line yields an event whose `raw` is the whole line (`codex.rollout`); a further event
//! derived from an `EventMsg` carries that `EventMsg` alone (`codex.eventmsg`).

mod content;
mod event_msg;
mod items;
mod normalizer;
pub mod wire;

use agentwire_codex_rollout::{RolloutLine, UPSTREAM_VERSION};

use agentwire_canonical::ProviderKind;
use agentwire_core::decode::Strict;
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::lifecycle::Lifecycle;
use agentwire_core::source::{Files, SourceSpec};

pub use normalizer::CodexRolloutNormalizer;

/// Codex session rollout files (`$CODEX_HOME/sessions/**/rollout-*.jsonl`): one
/// `{"timestamp","type","payload"}` line each, replayed into the session they record.
pub static SOURCE: SourceSpec = SourceSpec {
    name: "codex-rollout",
    program: "codex",
    provider: ProviderKind::Codex,
    id_scope: "codex",
    normalizer: |options| Box::new(Lifecycle::new(CodexRolloutNormalizer::new(options))),
    conformer: || Box::new(Strict(wire::decode_line)),
    claims,
    upstream,
    files: Files::LINES,
};

/// Whether a frame is a rollout line: a `{"timestamp","type","payload"}` object whose `type` is
/// a line kind the pinned schema defines.
pub fn claims(frame: &Frame<'_>) -> bool {
    #[derive(serde::Deserialize)]
    struct Shape<'a> {
        #[serde(borrow)]
        r#type: std::borrow::Cow<'a, str>,
        #[serde(rename = "timestamp")]
        _timestamp: serde::de::IgnoredAny,
        #[serde(rename = "payload")]
        _payload: serde::de::IgnoredAny,
    }
    frame.dir == Direction::In
        && serde_json::from_str::<Shape<'_>>(frame.msg.get())
            .is_ok_and(|shape| RolloutLine::TAGS.contains(&shape.r#type.as_ref()))
}

/// The pinned program and version, for `--version`.
pub fn upstream() -> String {
    format!("@openai/codex {UPSTREAM_VERSION} (rollout files)")
}
