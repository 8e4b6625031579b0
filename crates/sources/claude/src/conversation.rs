//! What a Claude conversation keeps beyond the core's [`Conversation`]: whether the open turn
//! was interrupted and its content blocks' item keys, and the steps only Claude's streams take
//! (the plan, a CLI note, a message carried as metadata without its envelope).
//!
//! Claude's stream-json and Claude Code's session files both name their thread on every message
//! (the session id), run one turn at a time and hold each content block as an item keyed by the
//! provider's id; each keeps a [`Cursor`], so the two sources write only what differs between
//! them: when a turn starts and ends and how it ended, and what an item shows.

use agentwire_canonical::{
    CanonicalItemType, ItemStatus, MessageOrigin, ProviderRuntimeEvent, RuntimeEvent, TurnCompletedPayload,
    TurnPlanStep, TurnPlanUpdatedPayload,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::claude_code::{BlockKeys, user_text_content};
use agentwire_core::content;
use agentwire_core::conversation::Conversation;
use agentwire_core::emit::Raw;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd};

/// The members of a Claude message that only place it (its type and subtype, its ids, its
/// time): what [`Cursor::carry`] leaves out of what the message says.
pub const ENVELOPE: [&str; 7] = [
    "type",
    "subtype",
    "uuid",
    "session_id",
    "sessionId",
    "timestamp",
    "parent_tool_use_id",
];

/// Where a Claude stream stands: the core's [`Conversation`] (thread, open turn, turns
/// started) with what a Claude stream keeps of the open turn.
#[derive(Debug, Default)]
pub struct Cursor {
    /// The thread and the open turn.
    pub at: Conversation,
    /// The open turn was interrupted (how the stream tells is the source's).
    pub interrupted: bool,
    /// The item keys of the content blocks of the open turn's messages (a message belongs to
    /// one turn, so they are forgotten when it ends).
    pub blocks: BlockKeys,
}

/// A Claude stream's place is the core's; the methods below add what Claude keeps of a turn.
impl std::ops::Deref for Cursor {
    type Target = Conversation;

    fn deref(&self) -> &Conversation {
        &self.at
    }
}

impl std::ops::DerefMut for Cursor {
    fn deref_mut(&mut self) -> &mut Conversation {
        &mut self.at
    }
}

impl Cursor {
    /// Starts the next turn of the thread unless one is open ([`Conversation::start_turn`]), not
    /// interrupted yet. False when a turn is open or no thread is known.
    pub fn start_turn<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        model: Option<String>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let started = self.at.start_turn(ledger, model, raw, out);
        if started {
            self.interrupted = false;
        }
        started
    }

    /// Completes the open turn as `outcome` says ([`Conversation::end_turn`]); the turn's block
    /// keys are forgotten. False when no turn is open.
    pub fn end_turn<Q>(
        &mut self,
        ledger: &mut Ledger<Q>,
        outcome: TurnCompletedPayload,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        let ended = self.at.end_turn(ledger, TurnEnd::new(outcome), raw, out);
        if ended {
            self.blocks.clear();
        }
        ended
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
    pub fn carry<Q>(
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
        let metadata = Map::from_iter([(key.to_string(), Value::Object(said))]);
        self.metadata(ledger, metadata, raw, out);
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
        self.whole_item(ledger, key, face, ItemStatus::Completed, raw, out);
    }
}
