//! Where a Gemini conversation stands: the thread it is in (the session id), its open turn, and
//! the steps both Gemini sources take over the ledger from there.
//!
//! Gemini CLI gives turns no id: a turn is a prompt, keyed by its position among the stream's or
//! the file's prompts (`Ledger::with_positional_turns`), so the two sources write only what
//! differs between them: when a turn starts and ends, and what an item shows.

use agentwire_canonical::{
    CanonicalItemType, ContentDeltaPayload, ContentStreamKind, ItemLifecyclePayload, ItemStatus, Json,
    ProviderRuntimeEvent, ProviderThreadId, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent,
    SessionConfiguredPayload, ThreadMetadataUpdatedPayload, ThreadStartedPayload, TurnCompletedPayload, TurnState,
};
use serde_json::{Map, Value};

use agentwire_core::emit::{Context, Raw};
use agentwire_core::ledger::{Cutoff, Ledger, OpenItemFace, Place, TurnEnd, TurnStart};
use agentwire_core::object_text;

/// The provider's thread a stream is in, its open turn, and how many turns it started.
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    pub thread: Option<String>,
    pub turn: Option<String>,
    pub turns: u64,
}

impl Cursor {
    /// The context of the open turn (the thread, or the session, when there is none).
    pub fn context<'a>(&self, ledger: &mut Ledger<()>, raw: Option<Raw<'a>>) -> Context<'a> {
        let place = Place {
            thread: self.thread.clone(),
            turn: self.turn.clone(),
            item: None,
        };
        ledger.place_context(&place, raw)
    }

    /// The context of an item of the open turn (of the thread when no turn is open).
    pub fn item_context<'a>(&self, ledger: &mut Ledger<()>, item: &str, raw: Option<Raw<'a>>) -> Context<'a> {
        match &self.thread {
            Some(thread) => ledger.item_context_in(thread, self.turn.as_deref(), item, raw),
            None => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// Moves to the thread `session_id`: `thread.started` the first time the ledger sees it;
    /// whether this call started it.
    pub fn see_thread(
        &mut self,
        ledger: &mut Ledger<()>,
        session_id: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
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

    /// Starts the next turn of the thread: `turn.started` (with the model it runs, when known),
    /// the session `running`.
    pub fn start_turn(
        &mut self,
        ledger: &mut Ledger<()>,
        model: Option<&str>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(thread) = self.thread.clone() else {
            return;
        };
        self.turns += 1;
        let turn = self.turns.to_string();
        self.turn = Some(turn.clone());
        let context = self.context(ledger, Some(raw));
        ledger.start_turn(&context, &thread, &turn, TurnStart::on(model.map(str::to_owned)), out);
    }

    /// Ends the open turn as `end` says: its open items cut off, its one `runtime.error`, then
    /// `turn.completed` and the session state. `raw` is the message that ended it (none at the
    /// end of a file).
    pub fn end_turn(
        &mut self,
        ledger: &mut Ledger<()>,
        end: TurnEnd,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let (Some(thread), Some(turn)) = (self.thread.clone(), self.turn.take()) else {
            return;
        };
        let context = ledger.turn_context(&thread, &turn, raw);
        ledger.complete_turn(&context, &thread, &turn, end, out);
    }

    /// Aborts the open turn for `reason`: `turn.aborted`, its open items cut off as the file
    /// left them (never completed). Neither a failure nor a person's stop: the file does not
    /// say which it was.
    pub fn abort_turn(
        &mut self,
        ledger: &mut Ledger<()>,
        reason: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let (Some(thread), Some(turn)) = (self.thread.clone(), self.turn.take()) else {
            return;
        };
        let context = ledger.turn_context(&thread, &turn, Some(raw));
        ledger.abort_turn(&context, &thread, &turn, Cutoff::StreamEnded, reason.to_owned(), out);
    }

    /// `item.started` for the item `key`, remembered as open in the open turn.
    pub fn start_item(
        &self,
        ledger: &mut Ledger<()>,
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

    /// `item.completed` for the item `key` as `status`.
    pub fn complete_item(
        &self,
        ledger: &mut Ledger<()>,
        key: &str,
        face: OpenItemFace,
        status: ItemStatus,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let Some(thread) = &self.thread {
            ledger.close_item(thread, key);
        }
        let context = self.item_context(ledger, key, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(status),
            title: face.title,
            detail: None,
            data: face.data,
        };
        ledger.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
    }

    /// An item started and completed by one message.
    pub fn whole_item(
        &self,
        ledger: &mut Ledger<()>,
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
    pub fn delta(
        &self,
        ledger: &mut Ledger<()>,
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
    pub fn item_data(&self, ledger: &Ledger<()>, key: &str) -> Option<Json> {
        let thread = self.thread.as_deref()?;
        ledger.item(thread, key).and_then(|open| open.data.clone())
    }

    /// `session.configured` with `config`.
    pub fn configured(
        &self,
        ledger: &mut Ledger<()>,
        config: Map<String, Value>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.context(ledger, Some(raw));
        let payload = SessionConfiguredPayload {
            config: object_text::from_map(&config),
        };
        ledger.emit(&context, RuntimeEvent::SessionConfigured(payload), out);
    }

    /// `thread.metadata.updated` with `metadata`: what changes nothing a UI draws, carried.
    pub fn metadata(
        &self,
        ledger: &mut Ledger<()>,
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

/// An item's face: its type, title and content.
pub fn face(item_type: CanonicalItemType, title: Option<String>, data: Json) -> OpenItemFace {
    OpenItemFace {
        item_type,
        title,
        data: Some(data),
    }
}

/// `turn.completed` of a turn that ended in `state` for `stop_reason` (none when the provider
/// gives none).
pub fn outcome(state: TurnState, stop_reason: Option<String>) -> TurnCompletedPayload {
    TurnCompletedPayload {
        state,
        stop_reason: Some(stop_reason),
        usage: None,
        model_usage: None,
        total_cost_usd: None,
        error_message: None,
    }
}

/// A turn that ended as the model finished.
pub fn completed() -> TurnEnd {
    TurnEnd::new(outcome(TurnState::Completed, None))
}

/// A turn that failed with `message`: its one `runtime.error` (`detail` the provider's), and
/// `turn.completed(failed)` saying it.
pub fn failed(stop_reason: Option<String>, message: String, detail: Option<Value>) -> TurnEnd {
    let mut end = TurnEnd::new(TurnCompletedPayload {
        error_message: Some(message.clone()),
        ..outcome(TurnState::Failed, stop_reason)
    });
    end.failure = Some(RuntimeErrorPayload {
        message,
        class: Some(RuntimeErrorClass::ProviderError),
        detail,
    });
    end
}
