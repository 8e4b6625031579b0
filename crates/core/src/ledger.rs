//! The session ledger: what is open in a session, for every source alike.
//!
//! A normalizer decides what its provider's messages mean; the ledger keeps the facts that
//! decision rests on and the rules every source shares:
//! - threads, turns, items and requests are remembered while open (memory is bounded by what is
//!   open, not by history), under canonical ids derived once ([`crate::ids`]); a few hundred
//!   threads with nothing open are remembered besides, the most recently used;
//! - a thread or turn is started once (one fact, one event);
//! - a source says a turn starts, or ends with what state, usage and error
//!   ([`Ledger::start_turn`], [`Ledger::complete_turn`], [`Ledger::abort_turn`]): the ledger
//!   emits `turn.started`, `turn.completed` or `turn.aborted` and the session state it implies,
//!   so every source reports turns alike;
//! - a turn reports one failure with one `runtime.error`;
//! - a late message for a closed turn does not reopen it;
//! - the session state is what the open turns and requests say it is (`running` while a turn
//!   runs, `waiting` while a request waits on a person, `ready` when no turn runs, `stopped` or
//!   `error` when the stream ends), and `session.state.changed` reports each change;
//! - [`Ledger::finish`] settles what the provider left open.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use foldhash::fast::FixedState;

use agentwire_canonical::{
    CanonicalItemType, ItemLifecyclePayload, ItemStatus, Json, ProviderItemId, ProviderRuntimeEvent, ProviderThreadId,
    ProviderTurnId, RequestOpenedPayload, RequestResolvedPayload, RuntimeErrorPayload, RuntimeEvent, RuntimeItemId,
    RuntimeRequestId, RuntimeSessionId, RuntimeWarningPayload, SessionState, SessionStateChangedPayload, ThreadId,
    TrimmedNonEmptyString, TurnAbortedPayload, TurnCompletedPayload, TurnId, TurnStartedPayload, TurnState,
    UserInputRequestedPayload, UserInputResolvedPayload,
};
use serde_json::{Value, json};

use crate::answer::AnswerError;
use crate::clock::{self, Clock, InvalidTime};
use crate::decision::Decision;
use crate::emit::{Context, Emitter, Raw};
use crate::frame::Direction;
use crate::ids;
use crate::normalizer::{Options, Problem, ProblemKind};
use crate::source::SourceSpec;

/// How many closed turns a thread remembers, so late messages for them do not reopen them.
const CLOSED_TURNS_REMEMBERED: usize = 16;

/// How many settled requests a session remembers, so answering one again is "already answered"
/// rather than "unknown" (memory stays bounded however long the session runs).
const RESOLVED_REQUESTS_REMEMBERED: usize = 256;

/// How many threads with nothing open a session remembers, the most recently used: a late
/// message for one of them starts nothing again and does not reopen its turns. Beyond them a
/// thread is forgotten ([`Ledger::forget_idle_threads`]), so a stream of many short threads
/// keeps memory bounded by what is open.
const IDLE_THREADS_REMEMBERED: usize = 256;

/// Where something belongs, as the provider names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The provider's thread id (`None`: the session's default thread).
    pub thread: Option<String>,
    /// The provider's turn id (`None`: no turn, or the thread's open one).
    pub turn: Option<String>,
    /// The provider's item id.
    pub item: Option<String>,
}

struct OpenThread {
    id: ThreadId,
    /// The provider's id as `providerRefs` carries it (`None` when it is not a valid one).
    provider_id: Option<ProviderThreadId>,
    /// `thread.started` was emitted.
    started: bool,
    /// Turns started and not yet ended, by provider turn id.
    turns: BTreeMap<String, OpenTurn>,
    /// The most recently ended turns, oldest first.
    closed_turns: VecDeque<String>,
    /// When the thread was last used, on the ledger's count of uses (the most recently used
    /// idle threads are the ones remembered).
    used: u64,
    /// The model the thread's last `turn.started` named: what a turn's usage is priced at when
    /// its provider states no cost.
    model: Option<String>,
}

/// A turn started (`turn.started` was emitted) and not yet ended.
struct OpenTurn {
    id: TurnId,
    /// A `runtime.error` was emitted for this turn.
    error_reported: bool,
}

/// An item started and not completed, with its face: what a UI shows for it, kept so an item the
/// provider never completes can still be completed with its type, title and last data.
pub struct OpenItem {
    /// The canonical item id.
    pub id: agentwire_canonical::RuntimeItemId,
    /// The provider's id of the turn it belongs to.
    pub turn: String,
    /// Its canonical type.
    pub item_type: CanonicalItemType,
    /// The title it was last shown with.
    pub title: Option<String>,
    /// The typed content it was last shown with.
    pub data: Option<Json>,
}

/// A request the provider opened and nobody settled yet; `extra` is the source's own memory of
/// it (what it offered, the answer when it arrives).
pub struct OpenRequest<Q> {
    /// What it asks for (approval, question, ...).
    pub request_type: agentwire_canonical::CanonicalRequestType,
    /// Where the provider opened it.
    pub place: Place,
    /// The provider's id for it as a person reads it (`providerRefs.providerRequestId`).
    pub provider_id: String,
    /// The direction the request travelled (scopes its canonical id).
    pub dir: Direction,
    /// Whether the session waits on a person while it is open (approvals, questions).
    pub waits: bool,
    /// Whether it asks the user questions: its settlement also gets `user-input.resolved`.
    pub user_input: bool,
    /// The client's answer, once it arrived (some providers confirm it later).
    pub answer: Option<Answer>,
    /// The source's own memory of the request.
    pub extra: Q,
}

/// A client's answer to a request, in canonical terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The canonical decision.
    pub decision: Decision,
    /// The provider-native answer (its own decision value included).
    pub resolution: Value,
    /// For questions: the answers, as `user-input.resolved` carries them.
    pub answers: Option<Value>,
}

/// Why an item ended without its provider completing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutoff {
    /// The user interrupted the turn: what was produced stands, actions were stopped.
    Interrupted,
    /// The turn failed.
    Failed,
    /// The turn completed without completing the item: the item is left running, to end when
    /// its own end arrives or the stream ends.
    TurnCompleted,
    /// The stream ended.
    StreamEnded,
}

impl Cutoff {
    /// How a turn's end in `state` cuts off the items still open in it: a person's stop
    /// (`interrupted`, or ACP's `cancelled`) as [`Cutoff::Interrupted`], a failure as
    /// [`Cutoff::Failed`], a completion as [`Cutoff::TurnCompleted`].
    pub fn ending(state: TurnState) -> Self {
        match state {
            TurnState::Interrupted | TurnState::Cancelled => Self::Interrupted,
            TurnState::Failed => Self::Failed,
            TurnState::Completed => Self::TurnCompleted,
        }
    }

    /// The status of an item of `item_type` cut off this way: an interrupted message is not a
    /// crash (it completed with what it said); an interrupted action was declined by the user.
    fn status(self, item_type: CanonicalItemType) -> ItemStatus {
        use CanonicalItemType as T;
        match self {
            Self::Interrupted => match item_type {
                T::UserMessage | T::AssistantMessage | T::Reasoning | T::Plan | T::ContextCompaction => {
                    ItemStatus::Completed
                }
                T::CommandExecution
                | T::FileChange
                | T::McpToolCall
                | T::DynamicToolCall
                | T::CollabAgentToolCall
                | T::WebSearch
                | T::ImageView
                | T::ImageGeneration
                | T::ReviewEntered
                | T::ReviewExited
                | T::Error
                | T::Unknown => ItemStatus::Declined,
            },
            Self::Failed | Self::TurnCompleted | Self::StreamEnded => ItemStatus::Failed,
        }
    }

    fn reason(self, provider: &str) -> String {
        match self {
            Self::Interrupted => "interrupted: the turn was interrupted before the item completed".to_string(),
            Self::Failed => "the turn failed before the item completed".to_string(),
            Self::TurnCompleted => "the turn completed without completing the item".to_string(),
            Self::StreamEnded => format!("the stream ended before {provider} completed it"),
        }
    }
}

/// A turn's start as its source reports it ([`Ledger::start_turn`]).
pub struct TurnStart {
    /// What `turn.started` carries (the model and effort, when the provider says).
    pub started: TurnStartedPayload,
    /// Why the session runs, as its `session.state.changed` says.
    pub reason: &'static str,
}

impl TurnStart {
    /// A turn on `model`, when the provider names it: "a turn started".
    pub fn on(model: Option<String>) -> Self {
        TurnStart {
            started: TurnStartedPayload { model, effort: None },
            reason: "a turn started",
        }
    }
}

/// A turn's end as its source reports it ([`Ledger::complete_turn`]).
pub struct TurnEnd {
    /// What `turn.completed` carries: the state (which also says how open items are cut off),
    /// the stop reason, usage, cost and error message.
    pub outcome: TurnCompletedPayload,
    /// The turn's failure, reported as its one `runtime.error` after its items are cut off
    /// (a source that reports it before calls [`Ledger::report_turn_error`] itself).
    pub failure: Option<RuntimeErrorPayload>,
    /// Why the session is ready again, as its `session.state.changed` says.
    pub reason: &'static str,
}

impl TurnEnd {
    /// A turn that ended as `outcome` says, with no failure left to report: "the turn ended".
    pub fn new(outcome: TurnCompletedPayload) -> Self {
        TurnEnd {
            outcome,
            failure: None,
            reason: "the turn ended",
        }
    }

    /// A turn that failed with `message`: `turn.completed(failed)` for `stop_reason` saying it,
    /// and its one `runtime.error` (`provider_error`, `detail` the provider's).
    pub fn failed(stop_reason: Option<String>, message: String, detail: Option<serde_json::Value>) -> Self {
        TurnEnd {
            failure: Some(RuntimeErrorPayload {
                message: message.clone(),
                class: Some(agentwire_canonical::RuntimeErrorClass::ProviderError),
                detail,
            }),
            ..TurnEnd::new(TurnCompletedPayload {
                error_message: Some(message),
                ..turn_outcome(TurnState::Failed, stop_reason)
            })
        }
    }

    /// A turn that ended as `outcome` says, with the error the provider gave (its message and
    /// detail), if any: `turn.completed` carries the message whatever the state; a failed turn
    /// also reports the error as its one `runtime.error`.
    pub fn with_error(mut outcome: TurnCompletedPayload, error: Option<(String, serde_json::Value)>) -> Self {
        let Some((message, detail)) = error else {
            return TurnEnd::new(outcome);
        };
        outcome.error_message = Some(message.clone());
        let failed = outcome.state == TurnState::Failed;
        TurnEnd {
            failure: failed.then(|| RuntimeErrorPayload {
                message,
                class: Some(agentwire_canonical::RuntimeErrorClass::ProviderError),
                detail: Some(detail),
            }),
            ..TurnEnd::new(outcome)
        }
    }
}

/// `turn.completed` of a turn that ended in `state` for `stop_reason` (`None` when the provider
/// gives none), before the source adds usage, cost or an error message.
pub fn turn_outcome(state: TurnState, stop_reason: Option<String>) -> TurnCompletedPayload {
    TurnCompletedPayload {
        state,
        stop_reason: Some(stop_reason),
        usage: None,
        model_usage: None,
        total_cost_usd: None,
        error_message: None,
    }
}

/// The id derived last for a turn or item, by its thread and key: a source asks for the context
/// of a turn or item it is about to open and then opens it, and the hash is a large part of a
/// short event's cost. The keys' buffers are reused.
struct LastDerived<T> {
    thread: String,
    key: String,
    id: Option<T>,
}

impl<T: Clone> LastDerived<T> {
    fn new() -> Self {
        LastDerived {
            thread: String::new(),
            key: String::new(),
            id: None,
        }
    }

    fn get_or(&mut self, thread: &str, key: &str, derive: impl FnOnce() -> T) -> T {
        if let Some(id) = &self.id
            && self.thread == thread
            && self.key == key
        {
            return id.clone();
        }
        let id = derive();
        self.thread.clear();
        self.thread.push_str(thread);
        self.key.clear();
        self.key.push_str(key);
        self.id = Some(id.clone());
        id
    }
}

/// The open state of one session. `Q` is what a source remembers per open request.
pub struct Ledger<Q> {
    source: &'static SourceSpec,
    emitter: Emitter,
    /// Threads by provider thread id. Hashed, with a fixed seed: nearly every event looks its
    /// thread up several times, and with a few hundred idle threads remembered an ordered map
    /// compared the key's bytes some twenty times per lookup. Nothing is written in this map's
    /// order (see [`Ledger::finish`]). The threads are boxed so the table stays small (mimalloc
    /// gives a table past 128 KiB pages of its own).
    threads: HashMap<Box<str>, Box<OpenThread>, FixedState>,
    /// Uses of threads so far (see [`OpenThread::used`]).
    uses: u64,
    /// The number of threads at which [`Ledger::forget_idle_threads`] looks for idle threads
    /// next.
    next_forget: usize,
    /// Turns started and not ended, over every thread (the session is `running` while any is).
    running_turns: usize,
    /// Items started and not completed, by provider thread id, then provider item id (looked
    /// up by `&str` without allocating a key; a thread with none has no entry).
    items: BTreeMap<String, BTreeMap<String, OpenItem>>,
    /// Requests not yet settled, by the source's key for them (a JSON-RPC id as JSON text).
    requests: BTreeMap<String, OpenRequest<Q>>,
    /// The canonical ids of the most recently settled requests, oldest first.
    resolved: VecDeque<RuntimeRequestId>,
    /// Requests settled `cancel` because their turn ended while they waited, whose protocol
    /// still wants the client's reply (ACP: a permission pending at `session/cancel` is answered
    /// `cancelled`), most recent last: the way back still builds that reply, and only that one.
    owed: VecDeque<(RuntimeRequestId, String, OpenRequest<Q>)>,
    /// The session state last reported.
    state: Option<SessionState>,
    /// The last turn failed (the session ends in `error` unless a later turn succeeds).
    failed: bool,
    /// [`Ledger::finish`] is settling: one final state, no steps on the way.
    finishing: bool,
    /// Turn keys are positions the source counted, not provider ids (see
    /// [`Ledger::with_positional_turns`]).
    positional_turns: bool,
    last_turn_id: LastDerived<TurnId>,
    last_item_id: LastDerived<RuntimeItemId>,
    /// Lines begun so far.
    lines: u64,
    /// A provider version other than the pinned one was reported.
    version_reported: bool,
}

impl<Q> Ledger<Q> {
    /// The ledger of one stream of `source`, read with `options`.
    pub fn new(source: &'static SourceSpec, options: Options) -> Self {
        let provider = options.provider.unwrap_or(source.provider);
        Ledger {
            source,
            emitter: Emitter::new(
                provider,
                options.session_id,
                {
                    let mut clock = Clock::new(options.clock);
                    if let Some(ms) = options.file_modified_ms {
                        clock.learn(ms, clock::TimeSource::FileModified);
                    }
                    clock
                },
                !options.keep_secrets,
            ),
            threads: HashMap::default(),
            uses: 0,
            next_forget: 2 * IDLE_THREADS_REMEMBERED,
            running_turns: 0,
            items: BTreeMap::new(),
            requests: BTreeMap::new(),
            resolved: VecDeque::new(),
            owed: VecDeque::new(),
            state: None,
            failed: false,
            finishing: false,
            positional_turns: false,
            last_turn_id: LastDerived::new(),
            last_item_id: LastDerived::new(),
            lines: 0,
            version_reported: false,
        }
    }

    /// A ledger for a source whose provider gives turns no id (`codex exec --json`): the source
    /// keys each turn by its position among its thread's turns in the stream (`"1"`, `"2"`, ...),
    /// the canonical id is [`ids::turn_at`] of that position, and no `providerTurnId` is claimed.
    pub fn with_positional_turns(mut self) -> Self {
        self.positional_turns = true;
        self
    }

    /// A ledger for a source that names some of what it keys by itself (a turn's position, a
    /// block's `<message id>:<index>`): `policy` takes those keys out of each event's
    /// `providerRefs` (spec 1.6: provider ids are the provider's), whatever emits the event.
    pub fn with_provider_refs(mut self, policy: fn(&mut agentwire_canonical::ProviderRefs)) -> Self {
        self.emitter.set_refs_policy(policy);
        self
    }

    /// What the times of the events so far come from.
    pub fn time_source(&self) -> clock::TimeSource {
        self.emitter.clock.source()
    }

    /// A ledger for a stream that carries no time at all: events are stamped with the clock's
    /// fallback as they come instead of waiting for a time that never arrives.
    pub fn with_untimed_stream(mut self) -> Self {
        self.emitter.clock.expect_no_times();
        self
    }

    /// The canonical id of a turn by its key (a provider turn id, or a position).
    fn derive_turn_id(&mut self, provider_thread: &str, turn_key: &str) -> TurnId {
        let Ledger {
            source,
            emitter,
            positional_turns,
            last_turn_id,
            ..
        } = self;
        last_turn_id.get_or(provider_thread, turn_key, || {
            match (*positional_turns, turn_key.parse::<u64>()) {
                (true, Ok(position)) => ids::turn_at(source, emitter.session(), provider_thread, position),
                (true, Err(_)) | (false, _) => ids::turn(source, provider_thread, turn_key),
            }
        })
    }

    /// The canonical id of an item by its thread and provider id.
    fn derive_item_id(&mut self, provider_thread: &str, provider_item: &str) -> RuntimeItemId {
        let source = self.source;
        self.last_item_id.get_or(provider_thread, provider_item, || {
            ids::item(source, provider_thread, provider_item)
        })
    }

    /// The source whose stream this is.
    pub fn source(&self) -> &'static SourceSpec {
        self.source
    }

    /// The number of the line being read, from 1 (unreadable lines count): the name of what a
    /// provider gives no id.
    pub fn line_number(&self) -> u64 {
        self.lines
    }

    /// Begins a line: fixes the session id from the first one and advances the clock to the
    /// line's time (`recorded`, else `provider`).
    pub fn begin(&mut self, line: &str, recorded: Option<i64>, provider: Option<i64>) {
        self.lines += 1;
        self.emitter.ensure_session(line.as_bytes());
        self.emitter.next_frame(line);
        self.emitter.clock.tick(recorded, provider);
    }

    /// A live host's line is next ([`Emitter::live`]): a fresh session id unless one is fixed,
    /// and the wall clock for a line given no time (`wall`).
    pub fn live(&mut self, wall: bool) {
        self.emitter.live(wall);
    }

    /// [`Ledger::begin`] for a source whose lines carry their own time as RFC 3339 text (a Codex
    /// rollout line's `timestamp`; Claude's messages carry one too), read strictly
    /// ([`clock::read_rfc3339`]). A text that is no instant (`2026-02-31T25:61:61Z`, an offset of
    /// `+99:99`) moves nothing: the line's events keep the time before it, and the text comes
    /// back for the source to report with [`Ledger::warn_invalid_time`] once it knows where the
    /// line belongs. Every source reports it that way, so a bad time reads the same whoever sent it.
    pub fn begin_with_time_text(
        &mut self,
        line: &str,
        recorded: Option<i64>,
        provider: Option<&str>,
    ) -> Result<(), InvalidTime> {
        match provider.map(clock::read_rfc3339).transpose() {
            Ok(provider) => {
                self.begin(line, recorded, provider);
                Ok(())
            }
            Err(invalid) => {
                self.begin(line, recorded, None);
                Err(invalid)
            }
        }
    }

    /// Reports a provider time [`Ledger::begin_with_time_text`] refused: a `runtime.warning` in
    /// `context`, which carries the line as `raw`, naming the line's `field`, the text and why it
    /// is no instant. Returns the [`Problem`] for the host, which names the line by its number
    /// (`FILE:LINE: reason` on stderr; `--strict` fails on it, as on any field that does not fit
    /// its schema). The line itself maps as usual.
    pub fn warn_invalid_time(
        &mut self,
        invalid: &InvalidTime,
        field: &str,
        context: &Context<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> Problem {
        let message = format!("the line's `{field}` {invalid}; its events keep the time before it");
        let payload = RuntimeWarningPayload {
            message: message.clone(),
            detail: Some(json!({ "field": field, "value": invalid.text, "reason": invalid.reason })),
        };
        self.emit(context, RuntimeEvent::RuntimeWarning(payload), out);
        Problem::new(ProblemKind::Undecodable, message)
    }

    /// The canonical session id of the stream.
    pub fn session(&self) -> &RuntimeSessionId {
        self.emitter.session()
    }

    /// Changes the `provider` of the events emitted from now on (see [`Emitter::set_provider`]).
    pub fn set_provider(&mut self, provider: agentwire_canonical::ProviderKind) {
        self.emitter.set_provider(provider);
    }

    /// Emits `event` at `context` as it is: for events that open or settle nothing the ledger
    /// tracks (the ledger's own methods emit those).
    pub fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        self.emitter.emit(context, event, out);
    }

    /// A `runtime.warning` in `context`.
    pub fn warn(
        &mut self,
        context: &Context<'_>,
        message: String,
        detail: Option<Value>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let payload = RuntimeWarningPayload { message, detail };
        self.emit(context, RuntimeEvent::RuntimeWarning(payload), out);
    }

    /// Reports, once per stream, a provider version other than the one the source's types were
    /// generated from (`pinned`): the mapping goes on, and a reader knows why a field may not fit.
    pub fn check_version(
        &mut self,
        reported: &str,
        pinned: &str,
        context: &Context<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if self.version_reported || reported == pinned {
            return;
        }
        self.version_reported = true;
        let message = format!(
            "{} reports version {reported}; agentwire's types were generated from {pinned}",
            self.source.program
        );
        let detail = json!({ "reported": reported, "pinned": pinned });
        self.warn(context, message, Some(detail), out);
    }

    // --- contexts ---

    fn open_thread(&mut self, provider_thread: &str) -> &mut OpenThread {
        // Looked up before inserting: nearly every message names a known thread, and `entry`
        // would allocate the key each time.
        if !self.threads.contains_key(provider_thread) {
            // A thread id made as a UUIDv7 (Codex's) says when the thread began: the best time a
            // stream without times of its own holds.
            if self.emitter.clock.source() < clock::TimeSource::IdTimestamp
                && let Some(ms) = ids::uuid_v7_millis(provider_thread)
            {
                self.emitter.clock.learn(ms, clock::TimeSource::IdTimestamp);
            }
            let thread = OpenThread {
                id: ids::thread(self.source, provider_thread),
                provider_id: ProviderThreadId::new(provider_thread).ok(),
                started: false,
                turns: BTreeMap::new(),
                closed_turns: VecDeque::new(),
                used: 0,
                model: None,
            };
            self.threads.insert(provider_thread.into(), Box::new(thread));
        }
        self.uses += 1;
        let thread = self
            .threads
            .get_mut(provider_thread)
            .expect("the thread was just inserted");
        thread.used = self.uses;
        thread
    }

    /// Forgets the threads with nothing open beyond the [`IDLE_THREADS_REMEMBERED`] most
    /// recently used, and returns their provider ids so the source drops what it keeps per
    /// thread. Nothing open means no turn, item or request in the ledger, and not `busy` by the
    /// source's own account. A source calls it once per line; it looks only when the threads
    /// have grown by [`IDLE_THREADS_REMEMBERED`] since it last did, so its cost per line stays
    /// constant on average. A forgotten thread that speaks again is new to the ledger.
    pub fn forget_idle_threads(&mut self, busy: impl Fn(&str) -> bool) -> Vec<String> {
        if self.threads.len() < self.next_forget {
            return Vec::new();
        }
        let held: BTreeSet<&str> = self
            .items
            .keys()
            .map(String::as_str)
            .chain(
                self.requests
                    .values()
                    .filter_map(|request| request.place.thread.as_deref()),
            )
            .collect();
        let mut idle: Vec<(u64, &str)> = self
            .threads
            .iter()
            .filter(|(key, thread)| thread.turns.is_empty() && !held.contains(&key.as_ref()) && !busy(key))
            .map(|(key, thread)| (thread.used, &**key))
            .collect();
        idle.sort_unstable();
        let excess = idle.len().saturating_sub(IDLE_THREADS_REMEMBERED);
        let forgotten: Vec<String> = idle[..excess].iter().map(|(_, key)| key.to_string()).collect();
        for key in &forgotten {
            self.threads.remove(key.as_str());
        }
        self.next_forget = self.threads.len() + IDLE_THREADS_REMEMBERED;
        forgotten
    }

    /// A context for something that belongs to a thread.
    pub fn thread_context<'a>(&mut self, provider_thread: &str, raw: Option<Raw<'a>>) -> Context<'a> {
        let thread = self.open_thread(provider_thread);
        let mut context = Context {
            thread_id: Some(thread.id.clone()),
            raw,
            ..Context::default()
        };
        context.refs.provider_thread_id = thread.provider_id.clone();
        context
    }

    /// A context for something that belongs to a turn.
    pub fn turn_context<'a>(
        &mut self,
        provider_thread: &str,
        provider_turn: &str,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let mut context = self.thread_context(provider_thread, raw);
        let open = self
            .threads
            .get(provider_thread)
            .and_then(|thread| thread.turns.get(provider_turn));
        context.turn_id = Some(match open {
            Some(open) => open.id.clone(),
            None => self.derive_turn_id(provider_thread, provider_turn),
        });
        if !self.positional_turns {
            context.refs.provider_turn_id = ProviderTurnId::new(provider_turn).ok();
        }
        context
    }

    /// A context for something that belongs to an item.
    pub fn item_context<'a>(
        &mut self,
        provider_thread: &str,
        provider_turn: &str,
        provider_item: &str,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let mut context = self.turn_context(provider_thread, provider_turn, raw);
        context.item_id = Some(match self.item(provider_thread, provider_item) {
            Some(open) => open.id.clone(),
            None => self.derive_item_id(provider_thread, provider_item),
        });
        context.refs.provider_item_id = ProviderItemId::new(provider_item).ok();
        context
    }

    /// A context for an item in its turn, or, when no turn is open (a configuration warning before
    /// the first), in its thread.
    pub fn item_context_in<'a>(
        &mut self,
        provider_thread: &str,
        provider_turn: Option<&str>,
        provider_item: &str,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        // An open item belongs to the turn it opened in, also once that turn has ended.
        // Cloned only when it differs: nearly every item event names the turn it opened in.
        if let Some(opened_in) = self
            .item(provider_thread, provider_item)
            .filter(|open| Some(open.turn.as_str()) != provider_turn)
            .map(|open| open.turn.clone())
        {
            return self.item_context(provider_thread, &opened_in, provider_item, raw);
        }
        match provider_turn {
            Some(turn) => self.item_context(provider_thread, turn, provider_item, raw),
            None => {
                let mut context = self.thread_context(provider_thread, raw);
                context.item_id = Some(ids::item(self.source, provider_thread, provider_item));
                context.refs.provider_item_id = ProviderItemId::new(provider_item).ok();
                context
            }
        }
    }

    /// A context for whatever `place` names (the session when it names no thread).
    pub fn place_context<'a>(&mut self, place: &Place, raw: Option<Raw<'a>>) -> Context<'a> {
        match place {
            Place {
                thread: Some(thread),
                turn: Some(turn),
                item: Some(item),
            } => self.item_context(thread, turn, item, raw),
            Place {
                thread: Some(thread),
                turn: Some(turn),
                item: None,
            } => self.turn_context(thread, turn, raw),
            Place {
                thread: Some(thread),
                turn: None,
                item: _,
            } => self.thread_context(thread, raw),
            Place { thread: None, .. } => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// A context for a request: its place plus its canonical and provider ids.
    pub fn request_context<'a>(
        &mut self,
        key: &str,
        provider_request: &str,
        dir: Direction,
        place: &Place,
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let mut context = self.place_context(place, raw);
        context.request_id = Some(ids::request(self.source, self.emitter.session(), dir, key));
        context.refs.provider_request_id = TrimmedNonEmptyString::new(provider_request).ok();
        context
    }

    // --- threads and turns ---

    /// Marks a thread started; true if this call started it (the first report of the fact).
    pub fn start_thread(&mut self, provider_thread: &str) -> bool {
        !std::mem::replace(&mut self.open_thread(provider_thread).started, true)
    }

    /// Starts a turn as its source reports it: `turn.started` in `context` with what `start`
    /// says, then the session state (`running`, for `start.reason`). True if this call started
    /// it. A turn already started, or one that already ended (a late report must not reopen it),
    /// starts nothing: the report rides on the session state as it is now, if it changed (one
    /// fact, one event).
    pub fn start_turn(
        &mut self,
        context: &Context<'_>,
        provider_thread: &str,
        provider_turn: &str,
        start: TurnStart,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        if !self.open_turn(provider_thread, provider_turn) {
            self.settle_state_carrying(context, None, out);
            return false;
        }
        if let Some(model) = &start.started.model {
            self.open_thread(provider_thread).model = Some(model.clone());
        }
        self.emit(context, RuntimeEvent::TurnStarted(start.started), out);
        self.settle_state(context, Some(start.reason), out);
        true
    }

    /// `turn.started` in `context` for a turn its source cannot place (a result whose request
    /// named the thread but did not decode): reported as it was, and not remembered as open, so
    /// nothing ends it and the session state stays as it was.
    pub fn report_unplaced_turn(
        &mut self,
        context: &Context<'_>,
        start: TurnStart,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.emit(context, RuntimeEvent::TurnStarted(start.started), out);
    }

    /// Completes a turn as its source reports it: its open items are cut off as
    /// [`Cutoff::ending`] its state says (keeping their face), `end.failure` becomes the turn's
    /// one `runtime.error` unless one was reported already ([`Ledger::report_turn_error`]),
    /// then `turn.completed` with `end.outcome` and the session state (for `end.reason`). A turn
    /// that was not started is completed all the same (and remembered as ended).
    pub fn complete_turn(
        &mut self,
        context: &Context<'_>,
        provider_thread: &str,
        provider_turn: &str,
        mut end: TurnEnd,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        // A cost no provider stated is computed from the price table at the thread's model.
        if let Some(usage) = end.outcome.usage.as_mut() {
            let model = self
                .threads
                .get(provider_thread)
                .and_then(|thread| thread.model.as_deref());
            crate::usage::price(usage, model);
            end.outcome.total_cost_usd = end.outcome.total_cost_usd.or(usage.cost_usd);
        }
        let cutoff = Cutoff::ending(end.outcome.state);
        let error_reported = self.close_turn(context, provider_thread, provider_turn, cutoff, out);
        if let Some(failure) = end.failure
            && !error_reported
        {
            self.emit(context, RuntimeEvent::RuntimeError(failure), out);
        }
        self.emit(context, RuntimeEvent::TurnCompleted(end.outcome), out);
        self.settle_state(context, Some(end.reason), out);
    }

    /// Aborts a turn: its open items are cut off as `cutoff` says, then `turn.aborted` with
    /// `reason` and the session state.
    pub fn abort_turn(
        &mut self,
        context: &Context<'_>,
        provider_thread: &str,
        provider_turn: &str,
        cutoff: Cutoff,
        reason: String,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.close_turn(context, provider_thread, provider_turn, cutoff, out);
        self.emit(context, RuntimeEvent::TurnAborted(TurnAbortedPayload { reason }), out);
        self.settle_state(context, Some("the turn was aborted"), out);
    }

    /// Remembers a turn as started; true if this call started it. A turn that already ended is
    /// not started again (false).
    fn open_turn(&mut self, provider_thread: &str, provider_turn: &str) -> bool {
        let id = self.derive_turn_id(provider_thread, provider_turn);
        let thread = self.open_thread(provider_thread);
        if thread.closed_turns.iter().any(|closed| closed == provider_turn) {
            return false;
        }
        if thread.turns.contains_key(provider_turn) {
            return false;
        }
        thread.turns.insert(
            provider_turn.to_string(),
            OpenTurn {
                id,
                error_reported: false,
            },
        );
        self.running_turns += 1;
        true
    }

    /// Whether a turn has ended (a late message about it must not reopen it).
    pub fn turn_ended(&self, provider_thread: &str, provider_turn: &str) -> bool {
        self.threads
            .get(provider_thread)
            .is_some_and(|thread| thread.closed_turns.iter().any(|closed| closed == provider_turn))
    }

    /// Records that a turn failed; true the first time (one failure, one `runtime.error`).
    pub fn report_turn_error(&mut self, provider_thread: &str, provider_turn: &str) -> bool {
        match self
            .threads
            .get_mut(provider_thread)
            .and_then(|thread| thread.turns.get_mut(provider_turn))
        {
            Some(open) => !std::mem::replace(&mut open.error_reported, true),
            // A failure reported before the turn's start, or after its end: the turn itself is
            // not opened by it, and its end reports it.
            None => !self.turn_ended(provider_thread, provider_turn),
        }
    }

    /// Ends a turn: its open items are completed as `cutoff` says (keeping their face), and the
    /// turn is remembered as ended. Returns whether a `runtime.error` was already reported for it.
    fn close_turn(
        &mut self,
        context: &Context<'_>,
        provider_thread: &str,
        provider_turn: &str,
        cutoff: Cutoff,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> bool {
        // A turn that completed leaves its running items running: work that outlives its turn
        // (a background subagent's command) ends when its own end arrives, or the stream's.
        let keys: Vec<String> = self
            .items
            .get(provider_thread)
            .into_iter()
            .flatten()
            .filter(|(_, open)| open.turn == provider_turn && cutoff != Cutoff::TurnCompleted)
            .map(|(key, _)| key.clone())
            .collect();
        for key in keys {
            let open = self.close_item(provider_thread, &key).expect("listed above");
            self.cut_off_item(context.raw, provider_thread, &key, open, cutoff, out);
        }
        let thread = self.open_thread(provider_thread);
        let ended = thread.turns.remove(provider_turn);
        let was_running = ended.is_some();
        if !thread.closed_turns.iter().any(|closed| closed == provider_turn) {
            thread.closed_turns.push_back(provider_turn.to_string());
            if thread.closed_turns.len() > CLOSED_TURNS_REMEMBERED {
                thread.closed_turns.pop_front();
            }
        }
        if was_running {
            self.running_turns -= 1;
        }
        self.failed = cutoff == Cutoff::Failed;
        ended.is_some_and(|open| open.error_reported)
    }

    // --- items ---

    /// Remembers an item as started, with its face.
    pub fn open_item(&mut self, place: (&str, &str, &str), item: OpenItemFace) {
        let (thread, turn, provider_item) = place;
        let id = self.derive_item_id(thread, provider_item);
        self.items.entry(thread.to_string()).or_default().insert(
            provider_item.to_string(),
            OpenItem {
                id,
                turn: turn.to_string(),
                item_type: item.item_type,
                title: item.title,
                data: item.data,
            },
        );
    }

    /// Forgets an item its provider completed; its face if it was open.
    pub fn close_item(&mut self, provider_thread: &str, provider_item: &str) -> Option<OpenItem> {
        let items = self.items.get_mut(provider_thread)?;
        let open = items.remove(provider_item);
        if items.is_empty() {
            self.items.remove(provider_thread);
        }
        open
    }

    /// The open item, if any.
    pub fn item(&self, provider_thread: &str, provider_item: &str) -> Option<&OpenItem> {
        self.items.get(provider_thread)?.get(provider_item)
    }

    /// The open items of a thread, by provider item id.
    pub fn open_items(&self, provider_thread: &str) -> impl Iterator<Item = (&str, &OpenItem)> {
        self.items
            .get(provider_thread)
            .into_iter()
            .flatten()
            .map(|(key, open)| (key.as_str(), open))
    }

    fn item_mut(&mut self, provider_thread: &str, provider_item: &str) -> Option<&mut OpenItem> {
        self.items.get_mut(provider_thread)?.get_mut(provider_item)
    }

    /// Updates the last data of an open item (its face if it is cut off).
    pub fn update_item(&mut self, provider_thread: &str, provider_item: &str, data: Json) {
        if let Some(open) = self.item_mut(provider_thread, provider_item) {
            open.data = Some(data);
        }
    }

    /// Appends a streamed delta to the text field `key` of an open item's last data, so an item
    /// cut off mid-stream keeps what it had said (`null` or absent counts as empty).
    pub fn append_item_text(&mut self, provider_thread: &str, provider_item: &str, key: &str, delta: &str) {
        let Some(Value::Object(data)) = self
            .item_mut(provider_thread, provider_item)
            .and_then(|open| open.data.as_mut())
            .map(Json::value_mut)
        else {
            return;
        };
        match data.get_mut(key) {
            Some(Value::String(text)) => text.push_str(delta),
            Some(Value::Null) | None => {
                data.insert(key.to_string(), Value::String(delta.to_string()));
            }
            Some(Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_)) => {}
        }
    }

    /// `item.completed` for an item its provider never completed, with its face and why.
    fn cut_off_item(
        &mut self,
        raw: Option<Raw<'_>>,
        thread: &str,
        provider_item: &str,
        open: OpenItem,
        cutoff: Cutoff,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let program = self.source.program;
        let context = self.item_context(thread, &open.turn, provider_item, raw);
        let payload = ItemLifecyclePayload {
            item_type: open.item_type,
            status: Some(cutoff.status(open.item_type)),
            title: open.title,
            detail: Some(cutoff.reason(program)),
            data: open.data,
        };
        self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
    }

    // --- requests ---

    /// A request the provider asks, in the order every source gives it: `request.opened`, then
    /// `user-input.requested` when it asks the user `questions` (both carrying the asking line),
    /// then the session's wait while it is open.
    pub fn ask(
        &mut self,
        key: String,
        mut request: OpenRequest<Q>,
        opened: RequestOpenedPayload,
        questions: Option<Value>,
        context: &Context<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.emit(context, RuntimeEvent::RequestOpened(opened), out);
        request.user_input = questions.is_some();
        if let Some(questions) = questions {
            let payload = UserInputRequestedPayload { questions };
            self.emit(context, RuntimeEvent::UserInputRequested(payload), out);
        }
        self.open_request(key, request, context, out);
    }

    /// Remembers a request as open; the session waits while it is, if it waits on a person.
    fn open_request(
        &mut self,
        key: String,
        request: OpenRequest<Q>,
        context: &Context<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let reason = format!("waiting on a {}", request.request_type.as_str());
        self.requests.insert(key, request);
        self.settle_state(context, Some(&reason), out);
    }

    /// The open request under the source's `key`, to record what arrives for it.
    pub fn request_mut(&mut self, key: &str) -> Option<&mut OpenRequest<Q>> {
        self.requests.get_mut(key)
    }

    /// The open request under the source's `key`.
    pub fn request(&self, key: &str) -> Option<&OpenRequest<Q>> {
        self.requests.get(key)
    }

    /// The keys of the requests still open that were asked in a turn of a thread.
    pub fn turn_requests(&self, provider_thread: &str, provider_turn: &str) -> Vec<String> {
        self.requests
            .iter()
            .filter(|(_, request)| {
                request.place.thread.as_deref() == Some(provider_thread)
                    && request.place.turn.as_deref() == Some(provider_turn)
            })
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// The open request a host answers, by the canonical id `request.opened` gave it, with its
    /// key. A request answered already (its answer awaits the provider's confirmation) or settled
    /// recently is [`AnswerError::AlreadyResolved`]; any other id is [`AnswerError::Unknown`].
    pub fn find_request(&self, id: &RuntimeRequestId) -> Result<(&str, &OpenRequest<Q>), AnswerError> {
        self.find_request_answering(id, None)
    }

    /// [`Ledger::find_request`] for a reply that says `decision`: a request its turn's end
    /// settled while it still owes the provider a reply ([`Ledger::settle_owing_reply`]) is
    /// found for a `cancel` (the reply its protocol requires), and is answered already for any
    /// other decision.
    pub fn find_request_answering(
        &self,
        id: &RuntimeRequestId,
        decision: Option<Decision>,
    ) -> Result<(&str, &OpenRequest<Q>), AnswerError> {
        if decision == Some(Decision::Cancel)
            && let Some((_, key, request)) = self.owed.iter().rev().find(|(owed, _, _)| owed == id)
        {
            return Ok((key, request));
        }
        if self.emitter.has_session() {
            let session = self.emitter.session();
            let open = self
                .requests
                .iter()
                .find(|(key, request)| ids::request(self.source, session, request.dir, key) == *id);
            match open {
                Some((_, request)) if request.answer.is_some() => {
                    return Err(AnswerError::AlreadyResolved(id.clone()));
                }
                Some((key, request)) => return Ok((key, request)),
                None => {}
            }
        }
        if self.resolved.contains(id) {
            return Err(AnswerError::AlreadyResolved(id.clone()));
        }
        Err(AnswerError::Unknown(id.clone()))
    }

    /// Settles as `cancel` an open request whose turn ended before the client answered it, and
    /// remembers it as still owed the client's reply: a protocol that wants every request
    /// answered (ACP after `session/cancel`) gets its `cancel` reply from the way back.
    pub fn settle_owing_reply(
        &mut self,
        key: &str,
        reason: &str,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(request) = self.requests.get_mut(key) else {
            return;
        };
        request.answer = Some(Answer {
            decision: Decision::Cancel,
            resolution: json!({ "reason": reason }),
            answers: None,
        });
        let id = ids::request(self.source, self.emitter.session(), request.dir, key);
        if let Some(owed) = self.settle(key, raw, out) {
            self.owed.push_back((id, key.to_string(), owed));
            if self.owed.len() > RESOLVED_REQUESTS_REMEMBERED {
                self.owed.pop_front();
            }
        }
    }

    /// Forgets that the request `key` owes the client's reply, once the client sent it; whether
    /// it owed one.
    pub fn take_owed(&mut self, key: &str) -> bool {
        let before = self.owed.len();
        self.owed.retain(|(_, owed, _)| owed != key);
        self.owed.len() != before
    }

    /// Settles an open request: `user-input.resolved` for questions, then `request.resolved`
    /// with the client's answer (or `cancel` when the stream ends unanswered), then the session
    /// state. `raw` is the message that settled it (`None` when the stream ended).
    pub fn resolve_request(&mut self, key: &str, raw: Option<Raw<'_>>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.settle(key, raw, out);
    }

    /// [`Ledger::resolve_request`], giving back the request it settled.
    fn settle(
        &mut self,
        key: &str,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) -> Option<OpenRequest<Q>> {
        let mut request = self.requests.remove(key)?;
        let context = self.request_context(key, &request.provider_id, request.dir, &request.place, raw);
        if let Some(id) = &context.request_id {
            self.resolved.push_back(id.clone());
            if self.resolved.len() > RESOLVED_REQUESTS_REMEMBERED {
                self.resolved.pop_front();
            }
        }
        let answer = match (request.answer.take(), raw) {
            (Some(answer), _) => Some(answer),
            (None, Some(_)) => None,
            (None, None) => Some(Answer {
                decision: Decision::Cancel,
                resolution: json!({ "reason": Cutoff::StreamEnded.reason(self.source.program) }),
                answers: None,
            }),
        };
        if request.user_input {
            let answers = answer.as_ref().and_then(|answer| answer.answers.clone());
            let payload = UserInputResolvedPayload {
                answers: answers.unwrap_or(Value::Null),
            };
            self.emit(&context, RuntimeEvent::UserInputResolved(payload), out);
        }
        let payload = RequestResolvedPayload {
            request_type: request.request_type,
            decision: answer.as_ref().map(|answer| answer.decision.as_str().to_string()),
            resolution: answer.map(|answer| answer.resolution),
        };
        self.emit(&context, RuntimeEvent::RequestResolved(payload), out);
        self.settle_state(&context, Some("a request was resolved"), out);
        Some(request)
    }

    // --- session state ---

    /// The state the open turns and requests say the session is in.
    fn current_state(&self) -> SessionState {
        let waiting = self.requests.values().any(|request| request.waits);
        match (waiting, self.running_turns > 0) {
            (true, _) => SessionState::Waiting,
            (false, true) => SessionState::Running,
            (false, false) => SessionState::Ready,
        }
    }

    /// Reports the session state if it changed (`reason` says why), without the source message
    /// (it rides on the event that caused the change).
    pub fn settle_state(&mut self, context: &Context<'_>, reason: Option<&str>, out: &mut Vec<ProviderRuntimeEvent>) {
        let state = self.current_state();
        if self.finishing || self.state == Some(state) {
            return;
        }
        self.report_state(&context.without_raw(), state, reason, out);
    }

    /// Reports the session state if it changed, carrying the message: for a message whose only
    /// news is the state. A message that changes nothing yields no event (a state change that
    /// repeats the state is noise a UI cannot tell from a change).
    pub fn settle_state_carrying(
        &mut self,
        context: &Context<'_>,
        reason: Option<&str>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let state = self.current_state();
        if self.finishing || self.state == Some(state) {
            return;
        }
        self.report_state(context, state, reason, out);
    }

    fn report_state(
        &mut self,
        context: &Context<'_>,
        state: SessionState,
        reason: Option<&str>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.state = Some(state);
        let payload = SessionStateChangedPayload {
            state,
            reason: reason.map(str::to_string),
            detail: None,
        };
        self.emit(context, RuntimeEvent::SessionStateChanged(payload), out);
    }

    // --- the end ---

    /// Settles what the provider left open when the stream ended: open requests resolve as
    /// `cancel` (questions also get `user-input.resolved` with no answers), open turns are
    /// aborted with their items cut off, items of no open turn are cut off, and the session
    /// state becomes `stopped` (`error` when the last turn failed). Held events are let out.
    pub fn finish(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        if !self.emitter.has_session() {
            return;
        }
        self.finishing = true;
        let reason = Cutoff::StreamEnded.reason(self.source.program);
        let keys: Vec<String> = self.requests.keys().cloned().collect();
        for key in keys {
            self.resolve_request(&key, None, out);
        }
        let mut open_turns: Vec<(String, String)> = self
            .threads
            .iter()
            .flat_map(|(thread, open)| open.turns.keys().map(move |turn| (thread.to_string(), turn.clone())))
            .collect();
        // In the threads' order, not the table's.
        open_turns.sort_unstable();
        for (thread, turn) in open_turns {
            let context = self.turn_context(&thread, &turn, None);
            self.abort_turn(&context, &thread, &turn, Cutoff::StreamEnded, reason.clone(), out);
        }
        for (thread, items) in std::mem::take(&mut self.items) {
            for (item, open) in items {
                self.cut_off_item(None, &thread, &item, open, Cutoff::StreamEnded, out);
            }
        }
        let state = if self.failed {
            SessionState::Error
        } else {
            SessionState::Stopped
        };
        self.report_state(&Context::default(), state, Some("the stream ended"), out);
        self.emitter.release(out);
    }
}

/// What a UI shows for an item when it starts.
#[derive(Clone)]
pub struct OpenItemFace {
    /// Its canonical type.
    pub item_type: CanonicalItemType,
    /// Its title, if the provider gives one.
    pub title: Option<String>,
    /// Its typed content so far.
    pub data: Option<Json>,
}

impl OpenItemFace {
    /// An item of `item_type` showing `title` (if the provider gives one) and `data`.
    pub fn new(item_type: CanonicalItemType, title: Option<String>, data: impl Into<Json>) -> Self {
        OpenItemFace {
            item_type,
            title,
            data: Some(data.into()),
        }
    }

    /// An item without a title: a message, a summary, whose `data` says it all.
    pub fn untitled(item_type: CanonicalItemType, data: impl Into<Json>) -> Self {
        OpenItemFace {
            item_type,
            title: None,
            data: Some(data.into()),
        }
    }
}

/// Whether the dotted version `reported` is newer than `pinned` (`2.1.337` > `2.1.62`), for a
/// source whose schema reads every version up to the pinned one; a version that is no dotted
/// number is taken as newer, so it is reported.
pub fn newer_version(reported: &str, pinned: &str) -> bool {
    let parts = |version: &str| -> Option<Vec<u64>> { version.split('.').map(|part| part.parse().ok()).collect() };
    match (parts(reported), parts(pinned)) {
        (Some(reported), Some(pinned)) => reported > pinned,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The ledger keeps its threads alike for every source: these tests run on whichever is compiled in.

    #[test]
    fn a_version_is_newer_by_its_numbers_not_its_text() {
        assert!(newer_version("2.1.338", "2.1.337"));
        assert!(!newer_version("2.1.62", "2.1.337"), "62 < 337, though \"62\" > \"337\"");
        assert!(!newer_version("2.1.337", "2.1.337"));
        assert!(newer_version("3.0", "2.1.337"));
        assert!(
            newer_version("2.1.337-beta", "2.1.337"),
            "not a dotted number: reported"
        );
    }

    /// A thread that ran one turn, then went idle.
    fn run_thread(ledger: &mut Ledger<()>, thread: &str) {
        assert!(ledger.start_thread(thread));
        ledger.open_turn(thread, "turn");
        let context = ledger.turn_context(thread, "turn", None);
        ledger.close_turn(&context, thread, "turn", Cutoff::TurnCompleted, &mut Vec::new());
    }

    #[test]
    fn idle_threads_are_forgotten_beyond_the_most_recent() {
        let mut ledger = Ledger::<()>::new(&crate::source::tests::CODEX, Options::default());
        ledger.start_thread("busy");
        ledger.open_turn("busy", "turn");
        let mut forgotten = Vec::new();
        for n in 0..10_000 {
            run_thread(&mut ledger, &format!("thread-{n}"));
            forgotten.extend(ledger.forget_idle_threads(|_| false));
            assert!(ledger.threads.len() <= 2 * IDLE_THREADS_REMEMBERED + 1);
        }
        assert_eq!(forgotten.len(), 10_000 - ledger.threads.len() + 1);
        assert!(!forgotten.iter().any(|thread| thread == "busy"));
        // The most recent idle threads are still known: no second start, no reopened turn.
        assert!(!ledger.start_thread("thread-9999"));
        assert!(!ledger.open_turn("thread-9999", "turn"));
        assert!(!ledger.start_thread(&format!("thread-{}", 10_000 - IDLE_THREADS_REMEMBERED)));
        // The busy thread's turn still runs; a forgotten thread is new again.
        assert_eq!(ledger.current_state(), SessionState::Running);
        assert!(ledger.start_thread("thread-0"));
    }

    #[test]
    fn a_thread_the_source_holds_is_not_forgotten() {
        let mut ledger = Ledger::<()>::new(&crate::source::tests::CODEX, Options::default());
        ledger.start_thread("held");
        for n in 0..1_000 {
            run_thread(&mut ledger, &format!("thread-{n}"));
            ledger.forget_idle_threads(|thread| thread == "held");
        }
        assert!(!ledger.start_thread("held"));
        assert_eq!(ledger.current_state(), SessionState::Ready);
    }
}
