//! The fold every host writes: canonical events in, the session as a UI draws it out
//! ([`SessionSnapshot`]), and with each event what it changed ([`SnapshotChange`]) so a live UI
//! redraws only that.
//!
//! The fold reads canonical events only, so it is the same for every source, and it is a pure
//! function of the events in order: the same events give the same snapshot, whether they come
//! from a file, from [`crate::normalizer::Normalizer::received`] or from the Node addon.
//! Streamed `content.delta` pieces are appended to the text field of the item's content they
//! extend, so a running item reads as far as it has come; the item's own events replace it.

use std::collections::HashMap;

use agentwire_canonical::{
    CanonicalItemType, ContentStreamKind, ItemLifecyclePayload, ProviderRuntimeEvent, RuntimeEvent, RuntimeItemId,
    RuntimeRequestId, RuntimeTaskId, SessionSnapshot, SnapshotChange, SnapshotError, SnapshotItem, SnapshotRequest,
    SnapshotSession, SnapshotTask, SnapshotThread, SnapshotTurn, SnapshotTurnState, ThreadId, TurnId, TurnState,
};
use serde_json::{Map, Value};

use crate::usage;

/// A session folded from its events so far.
#[derive(Debug, Default)]
pub struct Fold {
    snapshot: Option<SessionSnapshot>,
    threads: HashMap<ThreadId, usize>,
    turns: HashMap<TurnId, usize>,
    items: HashMap<RuntimeItemId, usize>,
    tasks: HashMap<RuntimeTaskId, usize>,
    /// The session's usage as its threads' reports and turns' ends give it.
    usage: usage::Totals,
}

/// What no event changed: the change before the first call.
pub fn unchanged() -> SnapshotChange {
    Change::default().into()
}

/// The snapshot of a whole stream of events.
pub fn fold<'a>(events: impl IntoIterator<Item = &'a ProviderRuntimeEvent>) -> Option<SessionSnapshot> {
    let mut fold = Fold::default();
    for event in events {
        fold.apply(event);
    }
    fold.into_snapshot()
}

impl Fold {
    /// The snapshot so far; `None` before the first event.
    pub fn snapshot(&self) -> Option<&SessionSnapshot> {
        self.snapshot.as_ref()
    }

    /// The snapshot, giving up the fold.
    pub fn into_snapshot(self) -> Option<SessionSnapshot> {
        self.snapshot
    }

    /// Folds the events one call gave (`received`, `sent`, `finish`) and says what they changed
    /// together.
    pub fn apply_all<'a>(&mut self, events: impl IntoIterator<Item = &'a ProviderRuntimeEvent>) -> SnapshotChange {
        let mut change = Change::default();
        for event in events {
            change.merge(self.apply(event));
        }
        change.into()
    }

    /// Folds one event in and says what it changed.
    pub fn apply(&mut self, event: &ProviderRuntimeEvent) -> SnapshotChange {
        let mut change = Change::default();
        if self.snapshot.is_none() {
            self.snapshot = Some(empty(event));
            change.session = true;
        }
        if let Some(thread) = &event.thread_id {
            self.thread(thread, &mut change);
        }
        let at = &event.created_at;
        match &event.event {
            RuntimeEvent::SessionStarted(_) => {}
            RuntimeEvent::SessionConfigured(payload) => {
                let config: Map<String, Value> = serde_json::from_str(payload.config.get()).unwrap_or_default();
                let session = &mut self.state().session;
                session.model = text(&config, "model").or(session.model.take());
                session.cwd = text(&config, "cwd").or(session.cwd.take());
                session.config = Some(config);
                change.session = true;
            }
            RuntimeEvent::SessionStateChanged(payload) => {
                self.state().session.state = Some(payload.state);
                change.session = true;
            }
            RuntimeEvent::SessionExited(payload) => {
                self.state().session.exit_reason = payload.reason.clone().or_else(|| Some(String::new()));
                change.session = true;
            }
            RuntimeEvent::ThreadStarted(_) => {}
            RuntimeEvent::ThreadStateChanged(payload) => {
                if let Some(thread) = self.thread_of(event, &mut change) {
                    thread.state = Some(payload.state);
                }
            }
            RuntimeEvent::ThreadMetadataUpdated(payload) => {
                if let Some(thread) = self.thread_of(event, &mut change) {
                    if let Some(name) = &payload.name {
                        thread.name = Some(name.clone());
                    }
                    for (key, value) in payload.metadata.iter().flatten() {
                        thread.metadata.insert(key.clone(), value.clone());
                    }
                }
            }
            RuntimeEvent::ThreadTokenUsageUpdated(payload) => {
                if let Some(thread) = self.thread_of(event, &mut change) {
                    thread.usage = Some(payload.usage.clone());
                }
                self.usage.report(event.thread_id.as_ref(), &payload.usage);
                self.total_usage();
                change.usage = true;
            }
            RuntimeEvent::TurnStarted(payload) => {
                if let Some(turn) = self.turn(event, &mut change) {
                    turn.state = SnapshotTurnState::Running;
                    turn.started_at.get_or_insert_with(|| at.clone());
                    if payload.model.is_some() {
                        turn.model.clone_from(&payload.model);
                    }
                }
                if let Some(model) = &payload.model {
                    self.state().session.model = Some(model.clone());
                    change.session = true;
                }
            }
            RuntimeEvent::TurnCompleted(payload) => {
                let mut failed = None;
                if let Some(turn) = self.turn(event, &mut change) {
                    turn.state = turn_state(payload.state);
                    turn.completed_at = Some(at.clone());
                    turn.usage.clone_from(&payload.usage);
                    turn.cost_usd = payload
                        .usage
                        .as_ref()
                        .and_then(|usage| usage.cost_usd)
                        .or(payload.total_cost_usd);
                    turn.error.clone_from(&payload.error_message);
                    if payload.state == TurnState::Failed {
                        failed = Some(turn.turn_id.clone());
                    }
                }
                if let Some(usage) = &payload.usage {
                    self.usage.turn(event.thread_id.as_ref(), event.turn_id.as_ref(), usage);
                    self.total_usage();
                    change.usage = true;
                }
                if let Some(turn) = failed {
                    let state = self.state();
                    let reported = state.errors.iter().any(|error| error.turn_id.as_ref() == Some(&turn));
                    if !reported {
                        let message = payload
                            .error_message
                            .clone()
                            .unwrap_or_else(|| "The turn failed.".to_owned());
                        state.errors.push(error(message, None, event));
                        change.errors = true;
                    }
                }
            }
            RuntimeEvent::TurnAborted(payload) => {
                if let Some(turn) = self.turn(event, &mut change) {
                    turn.state = SnapshotTurnState::Cancelled;
                    turn.completed_at = Some(at.clone());
                    turn.error = Some(payload.reason.clone());
                }
            }
            RuntimeEvent::TurnPlanUpdated(payload) => {
                if let Some(turn) = self.turn(event, &mut change) {
                    turn.plan = Some(payload.plan.clone());
                }
                self.state().plan = Some(payload.plan.clone());
                change.plan = true;
            }
            RuntimeEvent::TurnDiffUpdated(payload) => {
                if let Some(turn) = self.turn(event, &mut change) {
                    turn.diff = Some(payload.unified_diff.clone());
                }
            }
            RuntimeEvent::ItemStarted(payload) => self.item(event, payload, Stage::Started, &mut change),
            RuntimeEvent::ItemUpdated(payload) => self.item(event, payload, Stage::Updated, &mut change),
            RuntimeEvent::ItemCompleted(payload) => self.item(event, payload, Stage::Completed, &mut change),
            RuntimeEvent::ContentDelta(payload) => {
                if let Some(index) = event.item_id.as_ref().and_then(|item| self.items.get(item).copied()) {
                    let item = &mut self.state().items[index];
                    if let Some(field) = delta_field(item.item_type, payload.stream_kind) {
                        append(item, field, &payload.delta);
                        change.item(&item.item_id);
                    }
                }
            }
            RuntimeEvent::RequestOpened(payload) => {
                if let Some(request_id) = &event.request_id {
                    let request = SnapshotRequest {
                        request_type: Some(payload.request_type),
                        detail: payload.detail.clone(),
                        args: payload.args.clone(),
                        ..request(request_id, event)
                    };
                    self.open(request, &mut change);
                }
            }
            RuntimeEvent::UserInputRequested(payload) => {
                if let Some(request_id) = &event.request_id {
                    let request = SnapshotRequest {
                        questions: Some(payload.questions.clone()),
                        ..request(request_id, event)
                    };
                    self.open(request, &mut change);
                }
            }
            RuntimeEvent::RequestResolved(_) | RuntimeEvent::UserInputResolved(_) => {
                if let Some(request_id) = &event.request_id {
                    let requests = &mut self.state().requests;
                    let before = requests.len();
                    requests.retain(|open| &open.request_id != request_id);
                    if requests.len() != before {
                        change.request(request_id);
                    }
                }
            }
            RuntimeEvent::TaskStarted(payload) => {
                let task = self.task(&payload.task_id, event, &mut change);
                if payload.description.is_some() {
                    task.description.clone_from(&payload.description);
                }
            }
            RuntimeEvent::TaskProgress(payload) => {
                let task = self.task(&payload.task_id, event, &mut change);
                task.description = Some(payload.description.clone());
            }
            RuntimeEvent::TaskCompleted(payload) => {
                let task = self.task(&payload.task_id, event, &mut change);
                task.status = Some(payload.status);
                task.summary.clone_from(&payload.summary);
            }
            RuntimeEvent::ModelRerouted(payload) => {
                self.state().session.model = Some(payload.to_model.clone());
                change.session = true;
            }
            RuntimeEvent::AccountRateLimitsUpdated(payload) => {
                self.state().session.rate_limits = Some(payload.rate_limits.to_value().into_owned());
                change.session = true;
            }
            RuntimeEvent::RuntimeError(payload) => {
                let error = error(payload.message.clone(), payload.class, event);
                self.state().errors.push(error);
                change.errors = true;
            }
            RuntimeEvent::RuntimeWarning(_) => {
                self.state().warnings += 1;
                change.errors = true;
            }
            // What a snapshot does not draw: realtime audio, hooks, tool progress, account,
            // authentication and MCP status, configuration and deprecation notes, persisted
            // files. A host that shows them reads the events themselves.
            RuntimeEvent::ThreadRealtimeStarted(_)
            | RuntimeEvent::ThreadRealtimeItemAdded(_)
            | RuntimeEvent::ThreadRealtimeAudioDelta(_)
            | RuntimeEvent::ThreadRealtimeError(_)
            | RuntimeEvent::ThreadRealtimeClosed(_)
            | RuntimeEvent::HookStarted(_)
            | RuntimeEvent::HookProgress(_)
            | RuntimeEvent::HookCompleted(_)
            | RuntimeEvent::ToolProgress(_)
            | RuntimeEvent::ToolSummary(_)
            | RuntimeEvent::AuthStatus(_)
            | RuntimeEvent::AccountUpdated(_)
            | RuntimeEvent::McpStatusUpdated(_)
            | RuntimeEvent::McpOauthCompleted(_)
            | RuntimeEvent::ConfigWarning(_)
            | RuntimeEvent::DeprecationNotice(_)
            | RuntimeEvent::FilesPersisted(_) => {}
        }
        change.into()
    }

    /// The session's usage anew, after a report or a turn's end changed it.
    fn total_usage(&mut self) {
        let total = self.usage.session();
        let snapshot = self.state();
        snapshot.cost_usd = total.as_ref().and_then(|total| total.cost_usd);
        snapshot.usage = total;
    }

    fn state(&mut self) -> &mut SessionSnapshot {
        self.snapshot.as_mut().expect("created by the first event")
    }

    fn thread(&mut self, thread: &ThreadId, change: &mut Change) -> usize {
        if let Some(index) = self.threads.get(thread) {
            return *index;
        }
        let threads = &mut self.snapshot.as_mut().expect("created by the first event").threads;
        threads.push(SnapshotThread {
            thread_id: thread.clone(),
            state: None,
            name: None,
            metadata: Map::new(),
            usage: None,
            turn_ids: Vec::new(),
        });
        self.threads.insert(thread.clone(), threads.len() - 1);
        change.thread(thread);
        threads.len() - 1
    }

    fn thread_of(&mut self, event: &ProviderRuntimeEvent, change: &mut Change) -> Option<&mut SnapshotThread> {
        let thread = event.thread_id.as_ref()?;
        change.thread(thread);
        let index = self.threads[thread];
        Some(&mut self.state().threads[index])
    }

    /// The event's turn, created (and listed on its thread) when this is its first event.
    fn turn(&mut self, event: &ProviderRuntimeEvent, change: &mut Change) -> Option<&mut SnapshotTurn> {
        let turn = event.turn_id.as_ref()?;
        change.turn(turn);
        let index = match self.turns.get(turn) {
            Some(index) => *index,
            None => {
                let thread = event.thread_id.as_ref().map(|thread| (thread, self.threads[thread]));
                let state = self.state();
                if let Some((thread, index)) = thread {
                    state.threads[index].turn_ids.push(turn.clone());
                    change.thread(thread);
                }
                state.turns.push(SnapshotTurn {
                    turn_id: turn.clone(),
                    thread_id: event.thread_id.clone(),
                    state: SnapshotTurnState::Running,
                    model: None,
                    started_at: Some(event.created_at.clone()),
                    completed_at: None,
                    usage: None,
                    cost_usd: None,
                    error: None,
                    item_ids: Vec::new(),
                    plan: None,
                    diff: None,
                });
                let index = state.turns.len() - 1;
                self.turns.insert(turn.clone(), index);
                index
            }
        };
        Some(&mut self.state().turns[index])
    }

    fn item(
        &mut self,
        event: &ProviderRuntimeEvent,
        payload: &ItemLifecyclePayload,
        stage: Stage,
        change: &mut Change,
    ) {
        let Some(item_id) = &event.item_id else {
            return;
        };
        change.item(item_id);
        let data = payload.data.as_ref().map(|data| data.to_value().into_owned());
        let parent = data
            .as_ref()
            .and_then(|data| data.get("parentItemId"))
            .and_then(Value::as_str)
            .and_then(|parent| RuntimeItemId::new(parent).ok());
        let index = match self.items.get(item_id) {
            Some(index) => *index,
            None => {
                let in_turn = self.turn(event, change).is_some();
                let state = self.state();
                state.items.push(SnapshotItem {
                    item_id: item_id.clone(),
                    thread_id: event.thread_id.clone(),
                    turn_id: event.turn_id.clone(),
                    item_type: payload.item_type,
                    status: None,
                    title: None,
                    detail: None,
                    data: None,
                    parent_item_id: None,
                    child_ids: Vec::new(),
                    started_at: Some(event.created_at.clone()),
                    completed_at: None,
                });
                let index = state.items.len() - 1;
                self.items.insert(item_id.clone(), index);
                match parent.as_ref().and_then(|parent| self.items.get(parent).copied()) {
                    Some(parent_index) => {
                        let parent = &mut self.state().items[parent_index];
                        parent.child_ids.push(item_id.clone());
                        change.item(&parent.item_id.clone());
                    }
                    None => {
                        if let (true, Some(turn)) = (in_turn, &event.turn_id) {
                            let turn_index = self.turns[turn];
                            self.state().turns[turn_index].item_ids.push(item_id.clone());
                        }
                    }
                }
                index
            }
        };
        let item = &mut self.state().items[index];
        item.item_type = payload.item_type;
        if payload.status.is_some() {
            item.status = payload.status;
        }
        if payload.title.is_some() {
            item.title.clone_from(&payload.title);
        }
        if payload.detail.is_some() {
            item.detail.clone_from(&payload.detail);
        }
        if let Some(data) = data {
            item.data = Some(data);
        }
        if parent.is_some() {
            item.parent_item_id = parent;
        }
        if stage == Stage::Completed {
            item.completed_at = Some(event.created_at.clone());
        }
    }

    fn open(&mut self, request: SnapshotRequest, change: &mut Change) {
        change.request(&request.request_id);
        let requests = &mut self.state().requests;
        requests.retain(|open| open.request_id != request.request_id);
        requests.push(request);
    }

    fn task(
        &mut self,
        task_id: &RuntimeTaskId,
        event: &ProviderRuntimeEvent,
        change: &mut Change,
    ) -> &mut SnapshotTask {
        change.task(task_id);
        let index = match self.tasks.get(task_id) {
            Some(index) => *index,
            None => {
                let tasks = &mut self.state().tasks;
                tasks.push(SnapshotTask {
                    task_id: task_id.clone(),
                    turn_id: event.turn_id.clone(),
                    description: None,
                    status: None,
                    summary: None,
                });
                let index = tasks.len() - 1;
                self.tasks.insert(task_id.clone(), index);
                index
            }
        };
        &mut self.state().tasks[index]
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Started,
    Updated,
    Completed,
}

/// The snapshot before any event is folded in: the session the first event names.
fn empty(event: &ProviderRuntimeEvent) -> SessionSnapshot {
    SessionSnapshot {
        session: SnapshotSession {
            session_id: event.session_id.clone(),
            provider: event.provider,
            state: None,
            model: None,
            cwd: None,
            config: None,
            started_at: Some(event.created_at.clone()),
            exit_reason: None,
            rate_limits: None,
        },
        threads: Vec::new(),
        turns: Vec::new(),
        items: Vec::new(),
        requests: Vec::new(),
        tasks: Vec::new(),
        plan: None,
        usage: None,
        cost_usd: None,
        errors: Vec::new(),
        warnings: 0,
    }
}

fn request(request_id: &RuntimeRequestId, event: &ProviderRuntimeEvent) -> SnapshotRequest {
    SnapshotRequest {
        request_id: request_id.clone(),
        request_type: None,
        thread_id: event.thread_id.clone(),
        turn_id: event.turn_id.clone(),
        item_id: event.item_id.clone(),
        detail: None,
        args: None,
        questions: None,
        opened_at: event.created_at.clone(),
    }
}

fn error(
    message: String,
    class: Option<agentwire_canonical::RuntimeErrorClass>,
    event: &ProviderRuntimeEvent,
) -> SnapshotError {
    SnapshotError {
        message,
        class,
        at: event.created_at.clone(),
        turn_id: event.turn_id.clone(),
        item_id: event.item_id.clone(),
    }
}

fn text(config: &Map<String, Value>, key: &str) -> Option<String> {
    config.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn turn_state(state: TurnState) -> SnapshotTurnState {
    match state {
        TurnState::Completed => SnapshotTurnState::Completed,
        TurnState::Failed => SnapshotTurnState::Failed,
        TurnState::Interrupted => SnapshotTurnState::Interrupted,
        TurnState::Cancelled => SnapshotTurnState::Cancelled,
    }
}

/// The content field a stream extends, for the item types whose content has it.
fn delta_field(item_type: CanonicalItemType, stream: ContentStreamKind) -> Option<&'static str> {
    use CanonicalItemType as I;
    use ContentStreamKind as S;
    match (item_type, stream) {
        (I::AssistantMessage, S::AssistantText) | (I::Reasoning, S::ReasoningText) => Some("text"),
        (I::Reasoning, S::ReasoningSummaryText) => Some("summary"),
        (I::CommandExecution, S::CommandOutput) | (I::FileChange, S::FileChangeOutput) => Some("output"),
        (I::Plan, S::PlanText) => Some("markdown"),
        _ => None,
    }
}

/// Appends a streamed piece to a text field of the item's content.
fn append(item: &mut SnapshotItem, field: &str, delta: &str) {
    let data = item.data.get_or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(members) = data {
        let slot = members.entry(field).or_insert_with(|| Value::String(String::new()));
        if let Value::String(text) = slot {
            text.push_str(delta);
        }
    }
}

/// The ids an event changed, each once, in the order it changed them.
#[derive(Default)]
struct Change {
    session: bool,
    threads: Vec<ThreadId>,
    turns: Vec<TurnId>,
    items: Vec<RuntimeItemId>,
    requests: Vec<RuntimeRequestId>,
    tasks: Vec<RuntimeTaskId>,
    plan: bool,
    usage: bool,
    errors: bool,
}

fn once<T: PartialEq + Clone>(list: &mut Vec<T>, id: &T) {
    if !list.contains(id) {
        list.push(id.clone());
    }
}

impl Change {
    fn thread(&mut self, id: &ThreadId) {
        once(&mut self.threads, id);
    }
    fn turn(&mut self, id: &TurnId) {
        once(&mut self.turns, id);
    }
    fn item(&mut self, id: &RuntimeItemId) {
        once(&mut self.items, id);
    }
    fn request(&mut self, id: &RuntimeRequestId) {
        once(&mut self.requests, id);
    }
    fn task(&mut self, id: &RuntimeTaskId) {
        once(&mut self.tasks, id);
    }

    fn merge(&mut self, other: SnapshotChange) {
        self.session |= other.session;
        other.threads.iter().for_each(|id| self.thread(id));
        other.turns.iter().for_each(|id| self.turn(id));
        other.items.iter().for_each(|id| self.item(id));
        other.requests.iter().for_each(|id| self.request(id));
        other.tasks.iter().for_each(|id| self.task(id));
        self.plan |= other.plan;
        self.usage |= other.usage;
        self.errors |= other.errors;
    }
}

impl From<Change> for SnapshotChange {
    fn from(change: Change) -> Self {
        SnapshotChange {
            session: change.session,
            threads: change.threads,
            turns: change.turns,
            items: change.items,
            requests: change.requests,
            tasks: change.tasks,
            plan: change.plan,
            usage: change.usage,
            errors: change.errors,
        }
    }
}
