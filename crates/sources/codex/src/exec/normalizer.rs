//! The `codex exec --json` normalizer: section 6 of the proposal, one arm per `ThreadEvent`, on
//! top of the session [`Ledger`].
//!
//! What exec does not say is kept here: the thread of the stream (`thread.started` names it,
//! later lines do not), the position of the running turn (exec turns have no id) and the last
//! plan each to-do list reported (so its completion repeats no plan).

use std::collections::BTreeMap;

use agentwire_canonical::{
    ItemLifecyclePayload, ItemStatus, ProviderRuntimeEvent, RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent,
    RuntimeEventRawSource, RuntimeRequestId, ThreadStartedPayload, TokenUsage, TurnCompletedPayload, TurnPlanStep,
    TurnPlanUpdatedPayload, TurnState, UsageScope,
};
use agentwire_codex_exec::{ThreadEvent, ThreadItem};
use serde_json::{Value, json};

use super::items::{item_content, item_detail, item_id, item_status, item_title, plan_steps};
use super::wire;
use crate::canonicalize::Canonicalize;
use crate::usage;
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, TurnStart};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;

/// How codex begins the `error` it prints while it retries a dropped stream (exec has no
/// `willRetry` flag; this text is codex's own, `Reconnecting... {attempt}/{max}`).
const RECONNECTING: &str = "Reconnecting";

/// The thread key of lines that come before any `thread.started` (codex prints it first).
const NO_THREAD: &str = "";

/// Which `item.*` event a line is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Started,
    Updated,
    Completed,
}

/// Normalizes one `codex exec --json` stream.
pub struct CodexExecNormalizer {
    ledger: Ledger<()>,
    /// The provider thread the stream is about (the last `thread.started`).
    thread: Option<String>,
    /// The position (ledger key) of the turn running now.
    turn: Option<String>,
    /// Turns started so far, per thread: the next turn's position is one more.
    turns_started: BTreeMap<String, u64>,
    /// The last plan each open to-do list reported, by provider item id.
    plans: BTreeMap<String, Vec<TurnPlanStep>>,
    /// Items started outside any turn (the ledger keeps the open items of turns only).
    started_outside: std::collections::BTreeSet<String>,
}

impl CodexExecNormalizer {
    /// A normalizer for one stream.
    pub fn new(options: Options) -> Self {
        CodexExecNormalizer {
            ledger: Ledger::new(&crate::exec::SOURCE, options)
                .with_positional_turns()
                .with_untimed_stream(),
            thread: None,
            turn: None,
            turns_started: BTreeMap::new(),
            plans: BTreeMap::new(),
            started_outside: std::collections::BTreeSet::new(),
        }
    }

    fn thread(&self) -> String {
        self.thread.clone().unwrap_or_else(|| NO_THREAD.to_string())
    }

    /// The context of the running turn, else of the thread.
    fn turn_or_thread_context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        let thread = self.thread();
        match self.turn.clone() {
            Some(turn) => self.ledger.turn_context(&thread, &turn, raw),
            None => self.ledger.thread_context(&thread, raw),
        }
    }

    fn error(&mut self, context: &Context<'_>, message: String, detail: Value, out: &mut Vec<ProviderRuntimeEvent>) {
        let payload = provider_error(message, detail);
        self.ledger.emit(context, RuntimeEvent::RuntimeError(payload), out);
    }

    fn on_event(&mut self, raw: Raw<'_>, event: &ThreadEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        match event {
            ThreadEvent::ThreadStarted(started) => {
                self.thread = Some(started.thread_id.clone());
                let context = self.ledger.thread_context(&started.thread_id, Some(raw));
                if self.ledger.start_thread(&started.thread_id) {
                    let payload = ThreadStartedPayload {
                        provider_thread_id: context.refs.provider_thread_id.clone(),
                    };
                    self.ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
                } else {
                    // A resumed thread's next run in the same stream: one fact, one event.
                    self.ledger
                        .settle_state_carrying(&context, Some("the thread was already started"), out);
                }
            }
            ThreadEvent::TurnStarted => {
                let thread = self.thread();
                let position = self.turns_started.entry(thread.clone()).or_default();
                *position += 1;
                let turn = position.to_string();
                let context = self.ledger.turn_context(&thread, &turn, Some(raw));
                self.ledger
                    .start_turn(&context, &thread, &turn, TurnStart::on(None), out);
                self.turn = Some(turn);
            }
            ThreadEvent::TurnCompleted(completed) => {
                let usage = &completed.usage;
                let usage = usage::tokens(
                    usage.input_tokens,
                    usage.cached_input_tokens,
                    Some(usage.cache_write_input_tokens),
                    usage.output_tokens,
                    usage.reasoning_output_tokens,
                    None,
                )
                .usage(UsageScope::Turn);
                self.end_turn(raw, TurnState::Completed, Some(usage), None, out);
            }
            ThreadEvent::TurnFailed(failed) => {
                let detail = json!({ "message": failed.error.message });
                self.end_turn(
                    raw,
                    TurnState::Failed,
                    None,
                    Some((failed.error.message.clone(), detail)),
                    out,
                );
            }
            // Section 6: `error` -> `runtime.error`. Codex prints one before `turn.failed` with the
            // same message; the turn's failure is reported once.
            ThreadEvent::Error(error) => {
                let context = self.turn_or_thread_context(Some(raw));
                let detail = json!({ "message": error.message });
                // Codex retrying a dropped stream ("Reconnecting... 1/5 (...)"): the turn goes on,
                // as app-server's `error` with `willRetry: true` says; a warning, not its failure.
                if error.message.starts_with(RECONNECTING) {
                    return self.ledger.warn(&context, error.message.clone(), Some(detail), out);
                }
                let first = match self.turn.clone() {
                    Some(turn) => self.ledger.report_turn_error(&self.thread(), &turn),
                    None => true,
                };
                if first {
                    self.error(&context, error.message.clone(), detail, out);
                } else {
                    let message = format!("{} (the turn's failure was already reported)", error.message);
                    self.ledger.warn(&context, message, Some(detail), out);
                }
            }
            ThreadEvent::ItemStarted(started) => self.on_item(raw, &started.item, Phase::Started, out),
            ThreadEvent::ItemUpdated(updated) => self.on_item(raw, &updated.item, Phase::Updated, out),
            ThreadEvent::ItemCompleted(completed) => self.on_item(raw, &completed.item, Phase::Completed, out),
        }
    }

    /// `turn.completed` and `turn.failed`: the running turn ends, its open items cut off with
    /// their face; a failure not yet reported gets its one `runtime.error` first.
    fn end_turn(
        &mut self,
        raw: Raw<'_>,
        state: TurnState,
        usage: Option<TokenUsage>,
        failure: Option<(String, Value)>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(turn) = self.turn.take() else {
            let context = self.turn_or_thread_context(Some(raw));
            match failure {
                Some((message, detail)) => self.error(&context, message, detail, out),
                None => self
                    .ledger
                    .warn(&context, "turn.completed with no turn running".to_string(), None, out),
            }
            return;
        };
        let thread = self.thread();
        let context = self.ledger.turn_context(&thread, &turn, Some(raw));
        let error_message = failure.as_ref().map(|(message, _)| message.clone());
        let end = TurnEnd {
            failure: failure.map(|(message, detail)| provider_error(message, detail)),
            ..TurnEnd::new(TurnCompletedPayload {
                state,
                stop_reason: None,
                usage,
                model_usage: None,
                total_cost_usd: None,
                error_message,
            })
        };
        self.ledger.complete_turn(&context, &thread, &turn, end, out);
    }

    fn on_item(&mut self, raw: Raw<'_>, item: &ThreadItem, phase: Phase, out: &mut Vec<ProviderRuntimeEvent>) {
        let thread = self.thread();
        let provider_item = item_id(item);
        let raw = raw.with_type(item.tag());
        let turn = self.turn.clone();
        let context = self
            .ledger
            .item_context_in(&thread, turn.as_deref(), provider_item, Some(raw));
        let item_type = item.canonical();
        let status = match (phase, item_status(item)) {
            (_, Some(status)) => status,
            (Phase::Started | Phase::Updated, None) => ItemStatus::InProgress,
            (Phase::Completed, None) => ItemStatus::Completed,
        };
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(status),
            title: item_title(item),
            detail: item_detail(item),
            data: Some(content::data(item_content(item))),
        };
        // Only an item that stays open keeps a copy of its data: its face if it is cut off.
        match phase {
            Phase::Started => {
                if self.turn.is_none() {
                    self.started_outside.insert(provider_item.to_string());
                }
                if let Some(turn) = self.turn.clone() {
                    let face = OpenItemFace {
                        item_type,
                        title: payload.title.clone(),
                        data: payload.data.clone(),
                    };
                    self.ledger.open_item((&thread, &turn, provider_item), face);
                }
                self.ledger.emit(&context, RuntimeEvent::ItemStarted(payload), out);
            }
            Phase::Updated => {
                if let Some(data) = payload.data.clone() {
                    self.ledger.update_item(&thread, provider_item, data);
                }
                self.ledger.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
            }
            Phase::Completed => {
                // codex exec completes some items it never started (an agent message, a
                // reasoning summary): an item's first event is `item.started` all the same.
                let opened = self.ledger.close_item(&thread, provider_item).is_some()
                    || self.started_outside.remove(provider_item);
                if !opened {
                    let started = ItemLifecyclePayload {
                        status: Some(ItemStatus::InProgress),
                        ..payload.clone()
                    };
                    self.ledger.emit(&context, RuntimeEvent::ItemStarted(started), out);
                }
                self.ledger.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
            }
        }
        if let ThreadItem::TodoList(list) = item {
            self.plan_of(raw, provider_item, plan_steps(list), phase, out);
        }
    }

    /// A to-do list's steps as `turn.plan.updated`, whenever they differ from what the list
    /// last reported (its completion usually repeats them).
    fn plan_of(
        &mut self,
        raw: Raw<'_>,
        provider_item: &str,
        plan: Vec<TurnPlanStep>,
        phase: Phase,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let previous = match phase {
            Phase::Completed => self.plans.remove(provider_item),
            Phase::Started | Phase::Updated => self.plans.insert(provider_item.to_string(), plan.clone()),
        };
        if previous.as_ref() == Some(&plan) {
            return;
        }
        let context = self.turn_or_thread_context(Some(raw));
        let payload = TurnPlanUpdatedPayload {
            explanation: None,
            plan,
        };
        self.ledger.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
    }
}

impl Mapping for CodexExecNormalizer {
    type Request = ();
    type Message<'a> = ThreadEvent;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, ThreadEvent>, Box<Misfit<'a>>> {
        match wire::decode(frame) {
            Ok(event) => Ok(Decoded {
                raw: Raw::new(RuntimeEventRawSource::CodexSdkThreadEvent, Some(event.tag()), frame.msg),
                message: event,
                time: ProviderTime::None,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(RuntimeEventRawSource::CodexSdkThreadEvent, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(&mut self, _frame: &Frame<'a>, event: ThreadEvent, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.on_event(raw, &event, out);
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        match raw {
            Some(raw) => self.turn_or_thread_context(Some(raw)),
            None => Context::default(),
        }
    }

    fn forget_idle(&mut self) {
        for thread in self.ledger.forget_idle_threads(|_| false) {
            self.turns_started.remove(&thread);
        }
    }

    /// `codex exec --json` is the output of a run that asks nobody: approvals follow its policy.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&crate::exec::SOURCE))
    }
}

/// A failure Codex reported (`error`, `turn.failed`) as a `runtime.error`.
fn provider_error(message: String, detail: Value) -> RuntimeErrorPayload {
    RuntimeErrorPayload {
        message,
        class: Some(RuntimeErrorClass::ProviderError),
        detail: Some(detail),
    }
}
