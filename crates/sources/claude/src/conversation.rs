//! Where a stream that runs one conversation at a time stands: the thread it is in and its open
//! turn, and the steps every such stream takes over the ledger from there.
//!
//! Claude's stream-json and Claude Code's session files both name their thread on every message
//! (the session id), run one turn at a time and hold each content block as an item keyed by the
//! provider's id. Each keeps a [`Cursor`] and starts and completes turns and opens, completes and
//! places items through it, so the two sources write only what differs between them: when a turn
//! starts and ends and how it ended, and what an item shows.

use agentwire_canonical::{
    CanonicalItemType, ItemLifecyclePayload, ItemStatus, MessageOrigin, ProviderRuntimeEvent, ProviderThreadId,
    RuntimeEvent, SessionConfiguredPayload, ThreadMetadataUpdatedPayload, ThreadStartedPayload, TurnCompletedPayload,
    TurnPlanStep, TurnPlanUpdatedPayload,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::claude_code::{BlockKeys, user_text_content};
use agentwire_core::content;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::ledger::{Ledger, OpenItemFace, Place, TurnEnd, TurnStart};
use agentwire_core::object_text;

/// The members of a Claude message that only place it (its type and subtype, its ids, its
/// time): what [`Cursor::metadata`] leaves out of what the message says.
pub const ENVELOPE: [&str; 7] = [
    "type",
    "subtype",
    "uuid",
    "session_id",
    "sessionId",
    "timestamp",
    "parent_tool_use_id",
];

/// The provider's thread a stream is in and its open turn, as the provider names them, with
/// what the stream keeps of the open turn.
#[derive(Debug, Default)]
pub struct Cursor {
    pub thread: Option<String>,
    /// The open turn's key: its position among the turns the stream started.
    pub turn: Option<String>,
    /// Turns started so far: the next turn's position is one more.
    pub turns: u64,
    /// The open turn was interrupted (how the stream tells is the source's).
    pub interrupted: bool,
    /// The item keys of the content blocks of the open turn's messages (a message belongs to
    /// one turn, so they are forgotten when it ends).
    pub blocks: BlockKeys,
}

impl Cursor {
    /// Leaves the thread (a new CLI process names its own): a turn open in it stays in the
    /// ledger, and the next turn's position goes on from the last.
    pub fn leave_thread(&mut self) {
        self.thread = None;
        self.turn = None;
    }

    /// Starts the next turn of the thread unless one is open: `turn.started` on `model`
    /// carrying `raw`, the session `running`. False when a turn is open or no thread is known.
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
        self.interrupted = false;
        let context = ledger.turn_context(thread, &turn, Some(raw));
        ledger.start_turn(&context, thread, &turn, TurnStart::on(model), out);
        self.turn = Some(turn);
        true
    }

    /// Completes the open turn as `outcome` says: its open items cut off as its state says,
    /// `turn.completed` (carrying `raw`, if any), the session `ready`; the turn's block keys are
    /// forgotten. False when no turn is open.
    pub fn end_turn<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        outcome: TurnCompletedPayload,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let turn = self.turn.take();
        let (Some(thread), Some(turn)) = (&self.thread, turn) else {
            return false;
        };
        let context = ledger.turn_context(thread, &turn, raw);
        ledger.complete_turn(&context, thread, &turn, TurnEnd::new(outcome), out);
        self.blocks.clear();
        true
    }

    /// The context of the open turn (the thread, or the session, when there is none).
    pub fn context<'a, Q>(&self, ledger: &mut Ledger<Q>, raw: Option<Raw<'a>>) -> Context<'a> {
        let place = Place {
            thread: self.thread.clone(),
            turn: self.turn.clone(),
            item: None,
        };
        ledger.place_context(&place, raw)
    }

    /// The context of an item of the open turn (of the thread when no turn is open).
    pub fn item_context<'a, Q>(&self, ledger: &mut Ledger<Q>, item: &str, raw: Option<Raw<'a>>) -> Context<'a> {
        match &self.thread {
            Some(thread) => ledger.item_context_in(thread, self.turn.as_deref(), item, raw),
            None => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// A message that says nothing new: the session state, if it changed, carrying it.
    pub fn current_state<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        reason: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.context(ledger, Some(raw));
        ledger.settle_state_carrying(&context, Some(reason), out);
    }

    /// Moves to the provider's thread `session_id` a message names: `thread.started` the first
    /// time the ledger sees it. An empty id names no thread.
    pub fn see_thread<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        session_id: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if session_id.is_empty() || self.thread.as_deref() == Some(session_id) {
            return;
        }
        self.thread = Some(session_id.to_string());
        if ledger.start_thread(session_id) {
            let context = ledger.thread_context(session_id, Some(raw));
            let payload = ThreadStartedPayload {
                provider_thread_id: ProviderThreadId::new(session_id).ok(),
            };
            ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        }
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
            let open = OpenItemFace {
                item_type: face.item_type,
                title: face.title.clone(),
                data: face.data.clone(),
            };
            ledger.open_item((thread, turn, key), open);
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
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.start_item(ledger, key, face.clone(), raw, out);
        self.complete_item(ledger, key, face, ItemStatus::Completed, raw, out);
    }

    /// `turn.plan.updated` with `plan`, the whole list.
    pub fn plan<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        plan: Vec<TurnPlanStep>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.context(ledger, Some(raw));
        let payload = TurnPlanUpdatedPayload {
            explanation: None,
            plan,
        };
        ledger.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
    }

    /// `thread.metadata.updated` with what a message says under `key`: the message's members
    /// but its envelope ([`ENVELOPE`]). For what changes nothing a UI draws (a status report,
    /// a thinking estimate, the running tasks, the prompt queue): a UI merges metadata and draws
    /// nothing, and the message is carried, not dropped.
    pub fn metadata<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        key: &str,
        message: &impl Serialize,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let mut said = match serde_json::to_value(message) {
            Ok(Value::Object(members)) => members,
            Ok(other) => Map::from_iter([("value".to_string(), other)]),
            Err(_) => Map::new(),
        };
        said.retain(|member, _| !ENVELOPE.contains(&member.as_str()));
        let context = self.context(ledger, Some(raw));
        let payload = ThreadMetadataUpdatedPayload {
            name: None,
            metadata: Some(Map::from_iter([(key.to_string(), Value::Object(said))])),
        };
        ledger.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
    }

    /// Text the CLI put into the conversation itself (the interrupt note, a local command's
    /// echo, a synthetic prompt such as "Output token limit hit"): not the person's words and
    /// not nothing. A `user_message` item with `origin: "cli"`, which a UI draws as a system
    /// note, in the open turn (the thread when none is open: such a note never starts a turn).
    pub fn cli_note<Q>(
        &self,
        ledger: &mut Ledger<Q>,
        key: &str,
        text: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let note = user_text_content(text, Some(MessageOrigin::Cli), None);
        let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(note));
        self.whole_item(ledger, key, face, raw, out);
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
}
