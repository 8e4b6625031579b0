//! The `opencode run --format json` mapping: the session is the thread, a run's prompt is a turn,
//! each finished part an item.
//!
//! The lines give a turn no id and no start or end of its own, so a turn is keyed by its position
//! among the thread's turns in the stream (`Ledger::with_positional_turns`): it starts at the
//! first line while none is open and ends at
//! - a `step_finish` whose `reason` ends OpenCode's loop (anything but `tool-calls` and
//!   `unknown`, the reasons it calls the model again after): `turn.completed` with that stop
//!   reason;
//! - an `error` line: failed with the error's name as stop reason and its one `runtime.error`,
//!   or interrupted for `MessageAbortedError`;
//! - the end of the stream right after a `step_finish` (the loop stopped after a step that
//!   called tools, as when a permission was refused): completed with that step's reason;
//! - the end of the stream anywhere else (a step started and never finished: the process was
//!   stopped): left to the ledger, which aborts it (`turn.aborted`, "the stream ended before
//!   opencode run completed it"), so an interrupted run never reads as a success.
//!
//! Two runs printed one after the other on one session (`--session`, `--continue`) are two
//! turns: the first ended at its `stop`, so the second's `step_start` starts the next. A run that
//! ended after a `tool-calls` step and is followed by another in the same stream cannot be told
//! apart from a run that goes on, and reads as one turn.
//!
//! Usage: every `step_finish` reports the thread's tokens so far and the step's own
//! (`thread.token-usage.updated`, `{"total", "last"}` in OpenCode's `tokens` shape); the turn's
//! end carries its steps' tokens and cost summed.

use std::collections::BTreeMap;

use agentwire_canonical::UsageScope;
use agentwire_canonical::{
    CanonicalItemType, ItemContent, ItemLifecyclePayload, ItemStatus, ProviderRuntimeEvent, ProviderThreadId,
    RuntimeEvent, RuntimeEventRawSource, RuntimeRequestId, SessionConfiguredPayload, ThreadStartedPayload,
    ThreadTokenUsageUpdatedPayload, TurnState,
};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, TurnStart, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage;
use agentwire_opencode::{Part, RunLine, StepFinishPartTokens};
use serde_json::Number;

use crate::parts::{
    reasoning_content, subagent_session, text_content, tool_content, tool_title, tool_type, tool_view, written_plan,
};
use crate::session_error::{self, Ending};
use crate::steps::{self, GOES_ON, add, add_tokens};

/// What the stream said so far about one session.
#[derive(Default)]
struct Thread {
    /// Turns started (the open one is the last).
    turns: u64,
    /// The open turn.
    open: Option<Turn>,
    /// The thread's tokens and cost over the stream.
    tokens: Option<StepFinishPartTokens>,
    cost: Option<Number>,
}

/// The open turn of a thread.
struct Turn {
    /// Its key: its position.
    key: String,
    /// Its steps' tokens and cost so far.
    tokens: Option<StepFinishPartTokens>,
    cost: Option<Number>,
    /// The reason of the `step_finish` that was the turn's last line, if it was one.
    finished: Option<String>,
}

/// Normalizes one `opencode run --format json` stream.
pub struct RunNormalizer {
    ledger: Ledger<()>,
    threads: BTreeMap<String, Thread>,
}

impl RunNormalizer {
    /// A normalizer for one stream.
    pub fn new(options: Options) -> Self {
        RunNormalizer {
            ledger: Ledger::new(&super::OPENCODE_RUN, options).with_positional_turns(),
            threads: BTreeMap::new(),
        }
    }

    /// The open turn of `session`, started (and its thread, the first time) when none is open;
    /// its key, and whether this line started it.
    fn turn(&mut self, session: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> (String, bool) {
        let thread = self.threads.entry(session.to_string()).or_default();
        if let Some(open) = &thread.open {
            return (open.key.clone(), false);
        }
        thread.turns += 1;
        let key = thread.turns.to_string();
        thread.open = Some(Turn {
            key: key.clone(),
            tokens: None,
            cost: None,
            finished: None,
        });
        if self.ledger.start_thread(session) {
            let context = self.ledger.thread_context(session, Some(raw));
            let payload = ThreadStartedPayload {
                provider_thread_id: ProviderThreadId::new(session).ok(),
            };
            self.ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        }
        let context = self.ledger.turn_context(session, &key, Some(raw));
        self.ledger
            .start_turn(&context, session, &key, TurnStart::on(None), out);
        (key, true)
    }

    /// Ends the open turn of `session` as `end` says, its tokens and cost added.
    fn end_turn(&mut self, session: &str, mut end: TurnEnd, raw: Option<Raw<'_>>, out: &mut Vec<ProviderRuntimeEvent>) {
        let Some(turn) = self.threads.get_mut(session).and_then(|thread| thread.open.take()) else {
            return;
        };
        end.outcome.usage = turn
            .tokens
            .as_ref()
            .map(|tokens| steps::usage(tokens, turn.cost.as_ref(), UsageScope::Turn));
        end.outcome.total_cost_usd = turn.cost.as_ref().and_then(Number::as_f64);
        let context = self.ledger.turn_context(session, &turn.key, raw);
        self.ledger.complete_turn(&context, session, &turn.key, end, out);
    }

    fn on_line(&mut self, line: RunLine, frame: &Frame<'_>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let (session, part) = match line {
            RunLine::StepStart(line) => (line.session_id, line.part),
            RunLine::Text(line) => (line.session_id, line.part),
            RunLine::Reasoning(line) => (line.session_id, line.part),
            RunLine::ToolUse(line) => (line.session_id, line.part),
            RunLine::StepFinish(line) => (line.session_id, line.part),
            RunLine::Error(line) => {
                self.turn(&line.session_id, raw, out);
                let Ending {
                    state,
                    name,
                    message,
                    detail,
                } = session_error::ending(Some(&line.error));
                let outcome = turn_outcome(state, name.map(str::to_string));
                let end = TurnEnd::with_error(outcome, Some((message, detail)));
                return self.end_turn(&line.session_id, end, Some(raw), out);
            }
        };
        let (turn, started) = self.turn(&session, raw, out);
        if let Some(open) = self.threads.get_mut(&session).and_then(|thread| thread.open.as_mut()) {
            open.finished = None;
        }
        self.on_part(&session, &turn, started, part, frame, raw, out);
    }

    /// One line's part: an item (a text, a reasoning, a tool call, a patch), a step's start or
    /// end, or what the turn's own events already tell.
    #[allow(clippy::too_many_arguments)]
    fn on_part(
        &mut self,
        session: &str,
        turn: &str,
        started: bool,
        part: Part,
        frame: &Frame<'_>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match part {
            Part::Text { id, text, time, .. } => {
                let status = match time.and_then(|time| time.end) {
                    Some(_) => ItemStatus::Completed,
                    None => ItemStatus::InProgress,
                };
                let face = OpenItemFace::untitled(
                    CanonicalItemType::AssistantMessage,
                    content::data(text_content(false, &text, None)),
                );
                self.item(session, turn, &id, face, status, None, raw, out);
            }
            Part::Reasoning { id, text, time, .. } => {
                let status = match time.end {
                    Some(_) => ItemStatus::Completed,
                    None => ItemStatus::InProgress,
                };
                let face = OpenItemFace::untitled(
                    CanonicalItemType::Reasoning,
                    content::data(reasoning_content(&text, None)),
                );
                self.item(session, turn, &id, face, status, None, raw, out);
            }
            Part::Tool { id, tool, state, .. } => {
                let view = tool_view(&state);
                let data: ItemContent = tool_content(&tool, &view, None);
                let face = OpenItemFace {
                    item_type: tool_type(&tool),
                    title: Some(tool_title(&tool, &view)),
                    data: Some(content::data(data)),
                };
                let detail = subagent_session(&view).map(|child| format!("subagent session {child}"));
                self.item(session, turn, &id, face, view.status, detail, raw, out);
                if let Some(plan) = written_plan(&tool, &view) {
                    let context = self.ledger.turn_context(session, turn, None);
                    self.ledger.emit(&context, RuntimeEvent::TurnPlanUpdated(plan), out);
                }
            }
            Part::StepFinish {
                reason, tokens, cost, ..
            } => self.step_finish(session, turn, reason, tokens, cost, raw, out),
            // A step's start: the first line of a turn is carried by its `turn.started`; a later
            // step, the files a step changed (`patch`: no diff; the tool items show the changes),
            // and the parts a run does not print (a snapshot, the agent, a subtask's
            // prompt, a file, a retry, a compaction marker), are carried as the session's
            // configuration of the moment, as the live mapping carries them.
            Part::StepStart { .. } if started => {}
            Part::StepStart { .. }
            | Part::Patch { .. }
            | Part::Snapshot { .. }
            | Part::Agent { .. }
            | Part::Subtask { .. }
            | Part::File { .. }
            | Part::Retry { .. }
            | Part::Compaction { .. } => {
                let payload = SessionConfiguredPayload {
                    config: frame.msg.to_owned(),
                };
                let context = self.ledger.turn_context(session, turn, Some(raw));
                self.ledger
                    .emit(&context, RuntimeEvent::SessionConfigured(payload), out);
            }
        }
    }

    /// A part's item: started with all it says, and completed at once when the part is done
    /// (every part the run prints is); one still running is left open for the turn's end.
    #[allow(clippy::too_many_arguments)]
    fn item(
        &mut self,
        session: &str,
        turn: &str,
        part: &str,
        face: OpenItemFace,
        status: ItemStatus,
        detail: Option<String>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.ledger.item_context(session, turn, part, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(status),
            title: face.title.clone(),
            detail,
            data: face.data.clone(),
        };
        let started = ItemLifecyclePayload {
            status: Some(ItemStatus::InProgress),
            ..payload.clone()
        };
        self.ledger.emit(&context, RuntimeEvent::ItemStarted(started), out);
        if status == ItemStatus::InProgress {
            self.ledger.open_item((session, turn, part), face);
        } else {
            self.ledger
                .emit(&context.without_raw(), RuntimeEvent::ItemCompleted(payload), out);
        }
    }

    /// A step's end: the thread's tokens so far, then the turn's end when OpenCode's loop ends
    /// with this step.
    #[allow(clippy::too_many_arguments)]
    fn step_finish(
        &mut self,
        session: &str,
        turn: &str,
        reason: String,
        tokens: StepFinishPartTokens,
        cost: Number,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(thread) = self.threads.get_mut(session) else {
            return;
        };
        let total = add_tokens(thread.tokens.as_ref(), &tokens);
        thread.tokens = Some(total.clone());
        let total_cost = match &thread.cost {
            Some(sum) => add(sum, &cost),
            None => cost.clone(),
        };
        thread.cost = Some(total_cost.clone());
        let step_cost = cost.clone();
        if let Some(open) = thread.open.as_mut() {
            open.tokens = Some(add_tokens(open.tokens.as_ref(), &tokens));
            open.cost = Some(match &open.cost {
                Some(sum) => add(sum, &cost),
                None => cost,
            });
            open.finished = Some(reason.clone());
        }
        let context = self.ledger.turn_context(session, turn, Some(raw));
        let usage = usage::snapshot(
            Some(steps::usage(&total, Some(&total_cost), UsageScope::Thread)),
            Some(steps::usage(&tokens, Some(&step_cost), UsageScope::Call)),
        );
        let payload = ThreadTokenUsageUpdatedPayload { usage };
        self.ledger
            .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
        if !GOES_ON.contains(&reason.as_str()) {
            let end = TurnEnd::new(turn_outcome(TurnState::Completed, Some(reason)));
            self.end_turn(session, end, Some(raw), out);
        }
    }
}

impl Mapping for RunNormalizer {
    type Request = ();
    type Message<'a> = RunLine;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, RunLine>, Box<Misfit<'a>>> {
        match super::decode(frame) {
            Ok(line) => Ok(Decoded {
                raw: Raw::new(RuntimeEventRawSource::OpencodeRun, Some(line.tag()), frame.msg),
                time: ProviderTime::Millis(super::timestamp(&line)),
                message: line,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(RuntimeEventRawSource::OpencodeRun, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(&mut self, frame: &Frame<'a>, line: RunLine, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.on_line(line, frame, raw, out);
    }

    /// A warning belongs to the open turn (the first session's with one), else to the session.
    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        let open = self
            .threads
            .iter()
            .find_map(|(session, thread)| Some((session.clone(), thread.open.as_ref()?.key.clone())));
        match open {
            Some((session, turn)) => self.ledger.turn_context(&session, &turn, raw),
            None => Context {
                raw,
                ..Context::default()
            },
        }
    }

    /// A turn whose last line was a `step_finish` ended with that step: completed, with its
    /// reason. Any other open turn is left to the ledger, which aborts it.
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        let finished: Vec<(String, String)> = self
            .threads
            .iter()
            .filter_map(|(session, thread)| Some((session.clone(), thread.open.as_ref()?.finished.clone()?)))
            .collect();
        for (session, reason) in finished {
            let end = TurnEnd::new(turn_outcome(TurnState::Completed, Some(reason)));
            self.end_turn(&session, end, None, out);
        }
    }

    /// A run asks nobody: `opencode run` refuses a permission it would have to ask for (or
    /// grants it with `--auto`) by itself.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&super::OPENCODE_RUN))
    }
}
