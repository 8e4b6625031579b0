//! The stored-session mapping: the session is a thread, a turn is a user message and the
//! assistant messages that answer it, each part an item, as the live stream's parts are
//! ([`crate::parts`]).
//!
//! A stored session has no deltas and no status events: what the live stream says with
//! `session.idle` and `session.error` is read from the messages themselves. A turn ends with the
//! assistant message whose `error` or `finish` ends it: `MessageAbortedError` is a person's stop
//! (`interrupted`), any other error `failed`, a `finish` other than `tool-calls` `completed`.
//! A turn still open when the next user message comes (or at the end) ended as its last message
//! says: `completed` when that message completed (a rejected tool call ends a turn so), else it
//! is left to the end of the stream, which aborts it (a session cut off while it ran). Usage is
//! the sum of the turn's assistant messages' tokens and cost.
//!
//! A v2 session's messages (read from the store only) are mapped the same way ([`v2`]).

mod v2;

use std::collections::BTreeMap;

use agentwire_canonical::{
    CanonicalItemType, ItemContent, ItemLifecyclePayload, ItemStatus, ProviderItemId, ProviderRuntimeEvent,
    RuntimeEvent, RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId, SessionConfiguredPayload,
    ThreadMetadataUpdatedPayload, ThreadStartedPayload, TurnCompletedPayload, TurnDiffUpdatedPayload, TurnState,
};
use agentwire_canonical::{ThreadTokenUsageUpdatedPayload, TokenUsage, UsageScope};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ids;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, TurnStart, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage;
use agentwire_opencode::{AssistantMessageError, Message, Part, Session, SessionMessage, StepFinishPartTokens};
use serde_json::{Number, Value};

use super::wire::{self, Stored};
use crate::parts::{
    reasoning_content, reasoning_status, subagent_session, text_part, tool_content, tool_title, tool_type, tool_view,
    written_plan,
};
use crate::steps::{self, GOES_ON, add_tokens, message_tokens};

/// How a message ends its turn: the state, the stop reason and the error (its message and the
/// error as sent).
type Ending = (TurnState, Option<String>, Option<(String, Value)>);

/// The turn being read: its user message, and what its assistant messages said so far.
struct Turn {
    session: String,
    message: String,
    /// Whether the last assistant message completed (`time.completed`).
    last_completed: bool,
    /// The assistant messages' tokens, summed.
    tokens: Option<StepFinishPartTokens>,
    cost: f64,
}

impl Turn {
    /// Adds an assistant message's tokens and cost.
    fn add(&mut self, tokens: Option<StepFinishPartTokens>, cost: Option<&Number>) {
        if let Some(tokens) = tokens {
            self.tokens = Some(add_tokens(self.tokens.as_ref(), &tokens));
        }
        self.cost += cost.and_then(Number::as_f64).unwrap_or(0.0);
    }
}

/// Normalizes one stored OpenCode session.
pub struct SessionNormalizer {
    ledger: Ledger<()>,
    turn: Option<Turn>,
    /// The session's id, once its `info` came: the thread of its v2 messages, whose rows do not
    /// name it.
    session: Option<String>,
    /// The session's model (`info.model`, then a v2 `model-switched`): the model of a v2 turn,
    /// whose user message names none.
    model: Option<String>,
    /// The `task` item each subagent's session ran under, by the session's id (the call's
    /// `metadata.sessionId`): the store writes a subagent's session after its parent's messages,
    /// and its items belong under that call's item.
    tasks: BTreeMap<String, RuntimeItemId>,
    /// Each session's assistant messages' tokens and cost so far, by session id: its running
    /// total, which a turn the stream leaves unfinished (aborted, with no usage of its own) still
    /// counts in.
    totals: BTreeMap<String, TokenUsage>,
}

impl SessionNormalizer {
    /// A normalizer for one stored session.
    pub fn new(options: Options) -> Self {
        SessionNormalizer {
            ledger: Ledger::new(&super::OPENCODE_SESSION, options),
            turn: None,
            session: None,
            model: None,
            tasks: BTreeMap::new(),
            totals: BTreeMap::new(),
        }
    }

    fn on_session(&mut self, session: &Session, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.session = Some(session.id.clone());
        self.model = session.model.as_ref().map(|model| model.id.clone());
        let context = self.ledger.thread_context(&session.id, Some(raw));
        if self.ledger.start_thread(&session.id) {
            let payload = ThreadStartedPayload {
                provider_thread_id: context.refs.provider_thread_id.clone(),
            };
            self.ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        }
        // The title, and the parent session of a subagent's (`parentID`), as the session says.
        let metadata = serde_json::to_value(session).expect("generated types serialize");
        let payload = ThreadMetadataUpdatedPayload {
            name: Some(session.title.clone()),
            metadata: metadata.as_object().cloned(),
        };
        self.ledger
            .emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
        let payload = crate::parts::working_folder(&session.directory);
        self.ledger
            .emit(&context.without_raw(), RuntimeEvent::SessionConfigured(payload), out);
    }

    fn on_message(&mut self, message: &Message, parts: &[Part], raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let before = out.len();
        match message {
            Message::User {
                id,
                session_id,
                model,
                summary,
                ..
            } => {
                self.begin_turn(session_id, id, Some(model.model_id.clone()), raw, out);
                for part in parts {
                    self.on_part(part, true, raw, out);
                }
                // The files the turn changed, with their patches, as the live server reports
                // them on this message once they changed: the turn's diff.
                let diff = summary.as_ref().map(|summary| crate::parts::turn_diff(&summary.diffs));
                if let Some(diff) = diff.filter(|diff| !diff.is_empty())
                    && self.turn.as_ref().is_some_and(|turn| turn.message == *id)
                {
                    let context = self.ledger.turn_context(session_id, id, None);
                    let payload = TurnDiffUpdatedPayload { unified_diff: diff };
                    self.ledger.emit(&context, RuntimeEvent::TurnDiffUpdated(payload), out);
                }
            }
            Message::Assistant {
                session_id,
                error,
                finish,
                time,
                tokens,
                cost,
                ..
            } => {
                for part in parts {
                    self.on_part(part, false, raw, out);
                }
                let failure = error.as_ref().map(failed);
                let ended = (time.completed.is_some(), finish.as_deref(), failure);
                self.assistant_ended(session_id, Some(message_tokens(tokens)), Some(cost), ended, raw, out);
            }
        }
        if out.len() == before {
            // A message that opened, ended and drew nothing (an assistant message whose parts are
            // steps only): the session's configuration of the moment.
            self.configured(raw, out);
        }
    }

    /// A user message starts a turn (v1 and v2 alike); the open one ends first, completed if its
    /// last assistant message completed.
    fn begin_turn(
        &mut self,
        session: &str,
        message: &str,
        model: Option<String>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let Some(turn) = self.turn.take() {
            self.end_open_turn(turn, raw, out);
        }
        let context = self.ledger.turn_context(session, message, Some(raw));
        if self
            .ledger
            .start_turn(&context, session, message, TurnStart::on(model), out)
        {
            self.turn = Some(Turn {
                session: session.to_string(),
                message: message.to_string(),
                last_completed: false,
                tokens: None,
                cost: 0.0,
            });
        }
    }

    /// An assistant message read (v1 and v2 alike): its tokens and cost count for the turn, which
    /// it ends with its error, or when its `finish` ends OpenCode's loop (`ended`: whether it
    /// completed, its finish, the ending its error says).
    fn assistant_ended(
        &mut self,
        session: &str,
        tokens: Option<StepFinishPartTokens>,
        cost: Option<&Number>,
        (completed, finish, failure): (bool, Option<&str>, Option<Ending>),
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let Some(tokens) = &tokens {
            let message = steps::usage(tokens, cost, UsageScope::Thread);
            let total = self
                .totals
                .entry(session.to_string())
                .or_insert_with(|| usage::empty(UsageScope::Thread));
            usage::add(total, &message);
            let usage = usage::snapshot(Some(total.clone()), None);
            let context = match self.turn.as_ref().filter(|turn| turn.session == session) {
                Some(turn) => self.ledger.turn_context(session, &turn.message, Some(raw)),
                None => self.ledger.thread_context(session, Some(raw)),
            };
            self.ledger.emit(
                &context,
                RuntimeEvent::ThreadTokenUsageUpdated(ThreadTokenUsageUpdatedPayload { usage }),
                out,
            );
        }
        let Some(turn) = self.turn.as_mut().filter(|turn| turn.session == session) else {
            return;
        };
        turn.add(tokens, cost);
        turn.last_completed = completed;
        let end = match (failure, finish) {
            (Some(failure), _) => Some(failure),
            (None, Some(finish)) if !GOES_ON.contains(&finish) => {
                Some((TurnState::Completed, Some(finish.to_string()), None))
            }
            (None, Some(_) | None) => None,
        };
        if let Some((state, stop_reason, failure)) = end {
            let turn = self.turn.take().expect("the turn is open");
            self.end_turn(turn, state, stop_reason, failure, Some(raw), out);
        }
    }

    /// The `task` item a session's items belong under: its call's, for a subagent's session.
    fn parent_of(&self, session: &str) -> Option<RuntimeItemId> {
        self.tasks.get(session).cloned()
    }

    fn configured(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let payload = SessionConfiguredPayload {
            config: raw.payload.to_owned(),
        };
        self.ledger
            .emit(&Context::bare(raw), RuntimeEvent::SessionConfigured(payload), out);
    }

    /// A turn left open by its last message when the next one comes: completed if that message
    /// completed; otherwise left for the end of the stream to abort.
    fn end_open_turn(&mut self, turn: Turn, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if turn.last_completed {
            self.end_turn(turn, TurnState::Completed, None, None, Some(raw), out);
        }
    }

    fn end_turn(
        &mut self,
        turn: Turn,
        state: TurnState,
        stop_reason: Option<String>,
        failure: Option<(String, Value)>,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.ledger.turn_context(&turn.session, &turn.message, raw);
        let outcome = TurnCompletedPayload {
            stop_reason: stop_reason.map(Some),
            usage: turn
                .tokens
                .as_ref()
                .map(|tokens| steps::usage(tokens, Number::from_f64(turn.cost).as_ref(), UsageScope::Turn)),
            total_cost_usd: Some(turn.cost),
            ..turn_outcome(state, None)
        };
        let end = TurnEnd::with_error(outcome, failure);
        self.ledger
            .complete_turn(&context, &turn.session, &turn.message, end, out);
    }

    /// One part's item, started and completed at once when the part is done, left open (and cut
    /// off by its turn's end) when it was still running.
    fn on_part(&mut self, part: &Part, user: bool, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let (session, id, item_type, title, data, status) = match part {
            Part::Text {
                id,
                session_id,
                text,
                time,
                synthetic,
                ..
            } => {
                let ended = time.as_ref().is_some_and(|time| time.end.is_some());
                let by = (user, synthetic.unwrap_or(false));
                let (item_type, status, data) = text_part(by, text, ended, self.parent_of(session_id));
                (session_id, id, item_type, None, data, status)
            }
            Part::Reasoning {
                id,
                session_id,
                text,
                time,
                ..
            } => {
                let status = reasoning_status(time.end.is_some());
                let data = reasoning_content(text, self.parent_of(session_id));
                (session_id, id, CanonicalItemType::Reasoning, None, data, status)
            }
            Part::Tool {
                id,
                session_id,
                state,
                tool,
                ..
            } => {
                let view = tool_view(state);
                if let Some(child) = subagent_session(&view) {
                    let task = ids::item(&super::OPENCODE_SESSION, session_id, id);
                    self.tasks.insert(child.to_string(), task);
                }
                let title = Some(tool_title(tool, &view));
                let data = tool_content(tool, &view, self.parent_of(session_id));
                (session_id, id, tool_type(tool), title, data, view.status)
            }
            // A step's start and end (its tokens and cost are the message's, read there), the files
            // a step changed (`patch`: no diff; the tool items show the changes), the
            // snapshot it took, the agent it names, a subtask's prompt, an attached file, a retry
            // and a compaction marker: the steps of a turn its items already tell; the message
            // they belong to is carried by the events its other parts and its turn give.
            Part::StepStart { .. }
            | Part::StepFinish { .. }
            | Part::Patch { .. }
            | Part::Snapshot { .. }
            | Part::Agent { .. }
            | Part::Subtask { .. }
            | Part::File { .. }
            | Part::Retry { .. }
            | Part::Compaction { .. } => return,
        };
        self.item(session, id, Some(id), (item_type, title, data, status), raw, out);
        // A to-do list written: the turn's plan (the store keeps no `todo.updated`).
        if let Part::Tool { tool, state, .. } = part
            && let Some(plan) = written_plan(tool, &tool_view(state))
        {
            let context = match self.turn.as_ref().filter(|turn| turn.session == *session) {
                Some(turn) => {
                    let (thread, message) = (turn.session.clone(), turn.message.clone());
                    self.ledger.turn_context(&thread, &message, None)
                }
                None => self.ledger.thread_context(session, None),
            };
            self.ledger.emit(&context, RuntimeEvent::TurnPlanUpdated(plan), out);
        }
    }

    /// An item keyed by `part` in the open turn of `session` (or in the thread), `provider` its
    /// `providerItemId`: a v1 part's id is both; a v2 text or reasoning block's key joins its
    /// message's id to its own (which only its message makes unique), a key no provider message
    /// holds, so it has none.
    fn item(
        &mut self,
        session: &str,
        part: &str,
        provider: Option<&str>,
        (item_type, title, data, status): (CanonicalItemType, Option<String>, ItemContent, ItemStatus),
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let turn = self
            .turn
            .as_ref()
            .filter(|turn| turn.session == session)
            .map(|turn| turn.message.clone());
        let mut context = self.ledger.item_context_in(session, turn.as_deref(), part, Some(raw));
        context.refs.provider_item_id = provider.and_then(|provider| ProviderItemId::new(provider).ok());
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(status),
            title: title.clone(),
            detail: None,
            data: Some(content::data(data)),
        };
        let started = ItemLifecyclePayload {
            status: Some(ItemStatus::InProgress),
            ..payload.clone()
        };
        match (status, turn.as_deref()) {
            (ItemStatus::InProgress, Some(turn)) => {
                let face = OpenItemFace {
                    item_type,
                    title,
                    data: payload.data.clone(),
                };
                self.ledger.open_item((session, turn, part), face);
                self.ledger.emit(&context, RuntimeEvent::ItemStarted(started), out);
            }
            (_, _) => {
                self.ledger.emit(&context, RuntimeEvent::ItemStarted(started), out);
                self.ledger
                    .emit(&context.without_raw(), RuntimeEvent::ItemCompleted(payload), out);
            }
        }
    }
}

/// How a message's error ends its turn: a person's stop is `interrupted`, the rest `failed`; the
/// error's message and the whole error.
fn failed(error: &AssistantMessageError) -> Ending {
    let detail = serde_json::to_value(error).expect("generated types serialize");
    let message = detail
        .pointer("/data/message")
        .and_then(Value::as_str)
        .unwrap_or("the model call failed")
        .to_string();
    let state = match error {
        AssistantMessageError::MessageAbortedError(_) => TurnState::Interrupted,
        AssistantMessageError::ProviderAuthError(_)
        | AssistantMessageError::UnknownError(_)
        | AssistantMessageError::MessageOutputLengthError(_)
        | AssistantMessageError::StructuredOutputError(_)
        | AssistantMessageError::ContextOverflowError(_)
        | AssistantMessageError::ContentFilterError(_)
        | AssistantMessageError::ApiError(_) => TurnState::Failed,
    };
    (state, None, Some((message, detail)))
}

impl Mapping for SessionNormalizer {
    type Request = ();
    type Message<'a> = Stored;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Stored>, Box<Misfit<'a>>> {
        let raw = Raw::new(RuntimeEventRawSource::OpencodeSession, wire::tag(frame), frame.msg);
        match wire::decode(frame) {
            Ok(message) => {
                let time = match &message {
                    Stored::Session(session) => millis(session.time.created),
                    Stored::Message(message, _) => match message.as_ref() {
                        Message::User { time, .. } => time.created.as_u64().map_or(ProviderTime::None, millis),
                        Message::Assistant { time, .. } => millis(time.created),
                    },
                    Stored::V2(message) => v2_created(message),
                };
                Ok(Decoded { message, raw, time })
            }
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw,
                tag_field: "info",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(&mut self, _frame: &Frame<'a>, stored: Stored, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        match stored {
            Stored::Session(session) => self.on_session(&session, raw, out),
            Stored::Message(message, parts) => self.on_message(&message, &parts, raw, out),
            Stored::V2(message) => self.on_v2(&message, raw, out),
        }
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        match &self.turn {
            Some(turn) => {
                let (session, message) = (turn.session.clone(), turn.message.clone());
                self.ledger.turn_context(&session, &message, raw)
            }
            None => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// What is left open at the end: a turn whose last message completed ended so (a rejected
    /// tool call's turn); any other is left to the ledger, which aborts it.
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        if let Some(turn) = self.turn.take()
            && turn.last_completed
        {
            self.end_turn(turn, TurnState::Completed, None, None, None, out);
        }
    }

    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&super::OPENCODE_SESSION))
    }
}

/// When a v2 message was made (`time.created`).
fn v2_created(message: &SessionMessage) -> ProviderTime<'static> {
    let created = match message {
        SessionMessage::AgentSwitched { time, .. } => &time.created,
        SessionMessage::ModelSwitched { time, .. } => &time.created,
        SessionMessage::User { time, .. } => &time.created,
        SessionMessage::Synthetic { time, .. } => &time.created,
        SessionMessage::System { time, .. } => &time.created,
        SessionMessage::Shell { time, .. } => &time.created,
        SessionMessage::Assistant { time, .. } => &time.created,
        SessionMessage::Compaction { time, .. } => &time.created,
    };
    created.as_u64().map_or(ProviderTime::None, millis)
}

/// A time in Unix milliseconds, as the store keeps it.
fn millis(ms: u64) -> ProviderTime<'static> {
    i64::try_from(ms).map_or(ProviderTime::None, ProviderTime::Millis)
}
