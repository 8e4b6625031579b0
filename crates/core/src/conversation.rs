//! Where a stream that runs one conversation at a time stands: the thread it is in, its open
//! turn and how many turns it started, and the steps such a stream takes over the ledger from
//! there.
//!
//! Claude's and Gemini CLI's streams and session files name their thread on every message (the
//! session id), run one turn at a time and give turns no id: a turn is keyed by its position
//! among the turns the stream started. A source keeps a [`Conversation`] and starts and ends
//! turns and opens, completes and places items through it, so it writes only what differs: when
//! a turn starts and ends, and what an item shows.
//!
//! Keys a source makes up (a turn's position, `<message id>:<block index>`) are no provider ids;
//! [`drop_synthesized_refs`] keeps them out of `providerRefs` (spec 1.6).

use agentwire_canonical::{
    ContentDeltaPayload, ContentStreamKind, ItemLifecyclePayload, ItemStatus, Json, ProviderRefs, ProviderRuntimeEvent,
    ProviderThreadId, RuntimeEvent, SessionConfiguredPayload, ThreadMetadataUpdatedPayload, ThreadStartedPayload,
};
use serde_json::{Map, Value};

use crate::emit::{Context, Raw};
use crate::ledger::{Cutoff, Ledger, OpenItemFace, TurnEnd, TurnStart};
use crate::object_text;

/// What separates the parts of a key a source synthesizes (`<message id>:<block index>`): the
/// providers that need it never put one in their own ids.
pub const SYNTHESIZED: char = ':';

/// The key of `what` its `owner` holds (`<owner>:<what>`): a message's `n`-th block, a turn's
/// prompt.
pub fn part(owner: &str, what: &str) -> String {
    format!("{owner}{SYNTHESIZED}{what}")
}

/// Drops the keys a source made up from `providerRefs`: turn positions, and item keys that hold
/// [`SYNTHESIZED`]. A source whose turns have no provider id installs it as its refs policy
/// ([`Ledger::with_provider_refs`]).
pub fn drop_synthesized_refs(refs: &mut ProviderRefs) {
    refs.provider_turn_id = None;
    drop_synthesized_item_refs(refs);
}

/// Drops the item keys a source made up (those that hold [`SYNTHESIZED`]) from `providerRefs`,
/// for a source whose turns are the provider's but some of whose items are keyed by a part of a
/// provider message.
pub fn drop_synthesized_item_refs(refs: &mut ProviderRefs) {
    if refs
        .provider_item_id
        .as_ref()
        .is_some_and(|item| item.as_str().contains(SYNTHESIZED))
    {
        refs.provider_item_id = None;
    }
}

/// The provider's thread a stream is in, its open turn, and how many turns it started.
#[derive(Clone, Debug, Default)]
pub struct Conversation {
    /// The provider's thread (session) id, once a message named one.
    pub thread: Option<String>,
    /// The open turn's key: its position among the turns the stream started.
    pub turn: Option<String>,
    /// Turns started so far: the next turn's position is one more.
    pub turns: u64,
}

impl Conversation {
    /// The context of the open turn (of the thread, or the session, when there is none).
    pub fn context<'a, Q>(&self, ledger: &mut Ledger<Q>, raw: Option<Raw<'a>>) -> Context<'a> {
        match (&self.thread, &self.turn) {
            (Some(thread), Some(turn)) => ledger.turn_context(thread, turn, raw),
            (Some(thread), None) => ledger.thread_context(thread, raw),
            (None, _) => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// The context of an item of the open turn (of the thread when no turn is open, of the
    /// session when no thread is known).
    pub fn item_context<'a, Q>(&self, ledger: &mut Ledger<Q>, item: &str, raw: Option<Raw<'a>>) -> Context<'a> {
        match &self.thread {
            Some(thread) => ledger.item_context_in(thread, self.turn.as_deref(), item, raw),
            None => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// Moves to the provider's thread `session_id` a message names: `thread.started` the first
    /// time the ledger sees it. Whether this call started it; an empty id names no thread.
    pub fn see_thread<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        session_id: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        if session_id.is_empty() || self.thread.as_deref() == Some(session_id) {
            return false;
        }
        self.thread = Some(session_id.to_string());
        if !ledger.start_thread(session_id) {
            return false;
        }
        let context = ledger.thread_context(session_id, Some(raw));
        let payload = ThreadStartedPayload {
            provider_thread_id: ProviderThreadId::new(session_id).ok(),
        };
        ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        true
    }

    /// Leaves the thread (a new process names its own): a turn open in it stays in the ledger,
    /// and the next turn's position goes on from the last.
    pub fn leave_thread(&mut self) {
        self.thread = None;
        self.turn = None;
    }

    /// Starts the next turn of the thread unless one is open: `turn.started` on `model` carrying
    /// `raw`, the session `running`. False when a turn is open or no thread is known.
    pub fn start_turn<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        model: Option<String>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let Some(thread) = &self.thread else {
            return false;
        };
        if self.turn.is_some() {
            return false;
        }
        self.turns += 1;
        let turn = self.turns.to_string();
        let context = ledger.turn_context(thread, &turn, Some(raw));
        ledger.start_turn(&context, thread, &turn, TurnStart::on(model), out);
        self.turn = Some(turn);
        true
    }

    /// Ends the open turn as `end` says: its open items cut off as its state says, its one
    /// `runtime.error`, `turn.completed` (carrying `raw`, the message that ended it, if any) and
    /// the session state. False when no turn is open.
    pub fn end_turn<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        end: TurnEnd,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let turn = self.turn.take();
        let (Some(thread), Some(turn)) = (&self.thread, turn) else {
            return false;
        };
        let context = ledger.turn_context(thread, &turn, raw);
        ledger.complete_turn(&context, thread, &turn, end, out);
        true
    }

    /// Aborts the open turn for `reason`: `turn.aborted`, its open items cut off as the stream
    /// left them (never completed). For a turn whose end the stream does not tell (neither a
    /// failure nor a person's stop). False when no turn is open.
    pub fn abort_turn<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        reason: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let turn = self.turn.take();
        let (Some(thread), Some(turn)) = (&self.thread, turn) else {
            return false;
        };
        let context = ledger.turn_context(thread, &turn, Some(raw));
        ledger.abort_turn(&context, thread, &turn, Cutoff::StreamEnded, reason.to_owned(), out);
        true
    }

    /// `item.started` for the item `key`, remembered as open in the open turn (what a turn cut
    /// off completes it with is `face`).
    pub fn start_item<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        key: &str,
        face: OpenItemFace,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let (Some(thread), Some(turn)) = (&self.thread, &self.turn) {
            ledger.open_item((thread, turn, key), face.clone());
        }
        let context = self.item_context(ledger, key, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(ItemStatus::InProgress),
            title: face.title,
            detail: None,
            data: face.data,
        };
        ledger.emit(&context, RuntimeEvent::ItemStarted(payload), out);
    }

    /// `item.completed` for the item `key` as `status`; a title or data `face` lacks is the one
    /// the item opened with.
    pub fn complete_item<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        key: &str,
        face: OpenItemFace,
        status: ItemStatus,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let open = self.thread.as_deref().and_then(|thread| ledger.close_item(thread, key));
        let context = self.item_context(ledger, key, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(status),
            title: face.title.or_else(|| open.as_ref().and_then(|open| open.title.clone())),
            detail: None,
            data: face.data.or_else(|| open.and_then(|open| open.data)),
        };
        ledger.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
    }

    /// An item started and completed by one message.
    pub fn whole_item<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        key: &str,
        face: OpenItemFace,
        status: ItemStatus,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.start_item(ledger, key, face.clone(), raw, out);
        self.complete_item(ledger, key, face, status, raw, out);
    }

    /// `content.delta` of `kind` for the open item `key`, kept in its last data under `field`.
    #[allow(clippy::too_many_arguments)]
    pub fn delta<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        key: &str,
        kind: ContentStreamKind,
        field: &str,
        delta: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let Some(thread) = &self.thread {
            ledger.append_item_text(thread, key, field, delta);
        }
        let context = self.item_context(ledger, key, Some(raw));
        let payload = ContentDeltaPayload {
            stream_kind: kind,
            delta: delta.to_owned(),
            content_index: None,
            summary_index: None,
        };
        ledger.emit(&context, RuntimeEvent::ContentDelta(payload), out);
    }

    /// The last data of the open item `key`.
    pub fn item_data<Q>(&self, ledger: &Ledger<Q>, key: &str) -> Option<Json> {
        let thread = self.thread.as_deref()?;
        ledger.item(thread, key).and_then(|open| open.data.clone())
    }

    /// `session.configured` with `config`.
    pub fn configured<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        config: &Map<String, Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.context(ledger, Some(raw));
        let payload = SessionConfiguredPayload {
            config: object_text::from_map(config),
        };
        ledger.emit(&context, RuntimeEvent::SessionConfigured(payload), out);
    }

    /// `thread.metadata.updated` with `metadata`: for what changes nothing a UI draws (a UI
    /// merges metadata and draws nothing), so the message is carried, not dropped.
    pub fn metadata<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        metadata: Map<String, Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.context(ledger, Some(raw));
        let payload = ThreadMetadataUpdatedPayload {
            name: None,
            metadata: Some(metadata),
        };
        ledger.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
    }
}
