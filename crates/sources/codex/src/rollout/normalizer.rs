//! The rollout normalizer: line dispatch, the session and turn context lines, usage, and the
//! few facts a replay needs on top of the session [`Ledger`] (the file's thread, the turn
//! running, the tool calls seen in the model's history).

use std::collections::BTreeMap;

use agentwire_canonical::{
    ProviderRuntimeEvent, ProviderSessionId, RuntimeEvent, RuntimeEventRawSource, SessionConfiguredPayload,
    SessionStartedPayload, ThreadMetadataUpdatedPayload, ThreadStartedPayload, ThreadState, ThreadStateChangedPayload,
    ThreadTokenUsageUpdatedPayload, TokenUsage, UsageScope,
};
use agentwire_codex_rollout::{self as rollout, RetainedContext, RolloutLine};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::wire;
use agentwire_canonical::RuntimeRequestId;
use agentwire_core::decode::tag_problem;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, Place};

use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::{Options, Problem, ProblemKind};
use agentwire_core::object_text;
use agentwire_core::usage::Meter;

/// A tool call seen in the model's history (`function_call`, `custom_tool_call`, ...), by call
/// id: what its output settles.
#[derive(Clone, Debug)]
pub(super) struct Call {
    pub name: String,
    pub kind: CallKind,
}

/// What a tool call is, for a UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CallKind {
    /// An item (command, patch, MCP or dynamic tool call, web search): completed by its
    /// `item_completed`, or by its output when codex reports none.
    Item,
    /// `update_plan`: the turn's plan, no item.
    Plan,
    /// `request_user_input`: a question to the user, settled by the answer codex retains.
    Question,
}

/// The pieces of one line the events of it are made from.
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
    /// The whole line.
    pub msg: &'a RawValue,
    /// The line's `type` (`event_msg`, `response_item`, ...).
    pub kind: &'static str,
    /// The line's `payload`, as written.
    pub payload: &'a RawValue,
}

impl<'a> Line<'a> {
    /// The whole line as `raw` (`codex.rollout`), named by its kind and what it carries.
    pub fn raw(&self, message_type: &'a str) -> Raw<'a> {
        Raw::new(RuntimeEventRawSource::CodexRollout, Some(self.kind), self.msg).with_type(message_type)
    }

    /// The line's `EventMsg` alone as `raw` (`codex.eventmsg`), for events derived from it
    /// beyond the one carrying the line.
    pub fn event_msg_raw(&self, event_type: &'a str) -> Raw<'a> {
        Raw::new(RuntimeEventRawSource::CodexEventmsg, Some(event_type), self.payload)
    }
}

/// Normalizes one rollout file (one Codex session).
pub struct CodexRolloutNormalizer {
    pub(super) ledger: Ledger<()>,
    /// The file's thread (`session_meta.id`).
    pub(super) thread: Option<String>,
    /// The turn started last and not yet ended.
    pub(super) turn: Option<String>,
    /// Tool calls of the model's history awaiting their output, by call id.
    pub(super) calls: BTreeMap<String, Call>,
    /// The thread's running totals, from which a turn's share follows.
    pub(super) meter: Meter,
    /// The last turn total a `token_usage_record` stated, with its turn: the provider's own
    /// figure for the turn, preferred at its end.
    pub(super) turn_usage: Option<(String, TokenUsage)>,
}

impl CodexRolloutNormalizer {
    /// A normalizer for one rollout file.
    pub fn new(options: Options) -> Self {
        CodexRolloutNormalizer {
            ledger: Ledger::new(&crate::rollout::SOURCE, options),
            thread: None,
            turn: None,
            calls: BTreeMap::new(),
            meter: Meter::default(),
            turn_usage: None,
        }
    }

    pub(super) fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        self.ledger.emit(context, event, out);
    }

    /// Where something of `turn` (and `item`) belongs, in the file's thread.
    pub(super) fn place(&self, turn: Option<&str>, item: Option<&str>) -> Place {
        Place {
            thread: self.thread.clone(),
            turn: turn.map(str::to_string),
            item: item.map(str::to_string),
        }
    }

    /// A context for `place` carrying `raw`.
    pub(super) fn context<'a>(&mut self, place: &Place, raw: Option<Raw<'a>>) -> Context<'a> {
        self.ledger.place_context(place, raw)
    }

    /// The file's thread id as the ledger keys it (empty before any `session_meta`).
    pub(super) fn thread_key(&self) -> String {
        self.thread.clone().unwrap_or_default()
    }

    /// `session_meta`: the session and its thread start (a second one, written when a session
    /// is resumed or forked, updates the thread's metadata).
    fn on_session_meta(&mut self, line: Line<'_>, meta: &rollout::SessionMeta, out: &mut Vec<ProviderRuntimeEvent>) {
        let first = self.thread.is_none();
        if first {
            self.thread = Some(meta.id.clone());
        }
        let place = self.place(None, None);
        let mut context = self.context(&place, Some(line.raw(line.kind)));
        context.refs.provider_session_id = meta
            .session_id
            .as_deref()
            .and_then(|id| ProviderSessionId::new(id).ok());
        let metadata = session_metadata(meta);
        if first && self.ledger.start_thread(&meta.id) {
            let started = SessionStartedPayload {
                message: Some(format!(
                    "{} (codex {}), replayed from its rollout file",
                    meta.originator, meta.cli_version
                )),
                resume: None,
            };
            self.emit(&context.without_raw(), RuntimeEvent::SessionStarted(started), out);
            let payload = ThreadStartedPayload {
                provider_thread_id: context.refs.provider_thread_id.clone(),
            };
            self.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
            let payload = ThreadMetadataUpdatedPayload {
                name: None,
                metadata: Some(metadata),
            };
            self.emit(
                &context.without_raw(),
                RuntimeEvent::ThreadMetadataUpdated(payload),
                out,
            );
        } else {
            let payload = ThreadMetadataUpdatedPayload {
                name: None,
                metadata: Some(metadata),
            };
            self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
        }
        self.ledger.check_version(
            &meta.cli_version,
            rollout::UPSTREAM_VERSION,
            &context.without_raw(),
            out,
        );
    }

    /// `turn_context`: the configuration a turn runs with.
    fn on_turn_context(
        &mut self,
        line: Line<'_>,
        item: &rollout::TurnContextItem,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let turn = item.turn_id.clone().or_else(|| self.turn.clone());
        let place = self.place(turn.as_deref(), None);
        let context = self.context(&place, Some(line.raw(line.kind)));
        let config = json!({ "turnContext": serde_json::to_value(item).unwrap_or(Value::Null) });
        self.emit(
            &context,
            RuntimeEvent::SessionConfigured(SessionConfiguredPayload {
                config: object_text::from_map(&object(config)),
            }),
            out,
        );
    }

    /// `token_usage_record`: the usage of one model response, with turn and thread totals.
    fn on_token_usage(
        &mut self,
        line: Line<'_>,
        record: &rollout::TokenUsageRecord,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let place = self.place(Some(&record.turn_id), None);
        let context = self.context(&place, Some(line.raw(line.kind)));
        self.turn_usage = Some((
            record.turn_id.clone(),
            usage(&record.turn_token_usage, UsageScope::Turn),
        ));
        let snapshot = self.meter.running(
            usage(&record.thread_token_usage, UsageScope::Thread),
            Some(usage(&record.usage, UsageScope::Call)),
        );
        self.emit(
            &context,
            RuntimeEvent::ThreadTokenUsageUpdated(ThreadTokenUsageUpdatedPayload { usage: snapshot }),
            out,
        );
    }

    /// The turn's usage at its end: what the last `token_usage_record` of the turn stated, else
    /// what the running totals added during it.
    pub(super) fn end_turn_usage(&mut self, turn: &str) -> Option<TokenUsage> {
        let counted = self.meter.end_turn();
        match self.turn_usage.take() {
            Some((of, stated)) if of == turn => Some(stated),
            _ => counted,
        }
    }

    /// `retained_context`: a fact codex keeps across context rebuilds. A verified answer settles
    /// the question of its call.
    fn on_retained(&mut self, line: Line<'_>, retained: &RetainedContext, out: &mut Vec<ProviderRuntimeEvent>) {
        match retained {
            RetainedContext::VerifiedAnswer(answer) => {
                let value = serde_json::to_value(answer).unwrap_or(Value::Null);
                self.answer_question(line, &answer.call_id, value, out);
            }
        }
    }

    /// `world_state`: the environment the model was shown (a full snapshot or a change).
    fn on_world_state(&mut self, line: Line<'_>, world: &rollout::WorldState, out: &mut Vec<ProviderRuntimeEvent>) {
        let place = self.place(self.turn.clone().as_deref(), None);
        let context = self.context(&place, Some(line.raw(line.kind)));
        let state = serde_json::to_value(world).unwrap_or(Value::Null);
        let payload = ThreadMetadataUpdatedPayload {
            name: None,
            metadata: Some(object(json!({ "worldState": state }))),
        };
        self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
    }

    /// `compacted`: the history was replaced by a summary.
    fn on_compacted(&mut self, line: Line<'_>, item: &rollout::CompactedItem, out: &mut Vec<ProviderRuntimeEvent>) {
        let place = self.place(None, None);
        let context = self.context(&place, Some(line.raw(line.kind)));
        let payload = ThreadStateChangedPayload {
            state: ThreadState::Compacted,
            detail: Some(json!({ "message": item.message })),
        };
        self.emit(&context, RuntimeEvent::ThreadStateChanged(payload), out);
    }
}

/// What a UI shows of a session: where it ran, what wrote it, its model provider and git state
/// (the base instructions stay in `raw`).
fn session_metadata(meta: &rollout::SessionMeta) -> Map<String, Value> {
    let mut metadata = Map::new();
    let mut put = |key: &str, value: Value| {
        if !value.is_null() {
            metadata.insert(key.to_string(), value);
        }
    };
    put("cwd", json!(meta.cwd));
    put("originator", json!(meta.originator));
    put("cliVersion", json!(meta.cli_version));
    put("createdAt", json!(meta.timestamp));
    put("source", serde_json::to_value(&meta.source).unwrap_or(Value::Null));
    put("modelProvider", json!(meta.model_provider));
    put("git", serde_json::to_value(&meta.git).unwrap_or(Value::Null));
    put("forkedFromId", json!(meta.forked_from_id));
    metadata
}

/// A JSON object as a map (empty for anything else).
pub(super) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Array(_) => Map::new(),
    }
}

/// A rollout line read: the typed line, and its `payload` as written (what `raw` of its events
/// carries apart from the whole line, and what mappings keep in `data`).
pub struct Read<'a> {
    line: RolloutLine,
    payload: &'a RawValue,
}

impl Mapping for CodexRolloutNormalizer {
    type Request = ();
    type Message<'a> = Read<'a>;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Read<'a>>, Box<Misfit<'a>>> {
        let envelope = wire::Envelope::of(frame);
        let time = match &envelope {
            Ok(wire::Envelope {
                timestamp: Some(text), ..
            }) => ProviderTime::Text {
                field: "timestamp",
                text: text.clone(),
            },
            Ok(wire::Envelope { timestamp: None, .. }) | Err(_) => ProviderTime::None,
        };
        let misfit = |problem, time| {
            Box::new(Misfit {
                problem,
                raw: Raw::new(RuntimeEventRawSource::CodexRollout, frame.tag("type"), frame.msg),
                tag_field: "type",
                time,
            })
        };
        match (wire::decode(frame), envelope) {
            (Ok(line), Ok(envelope)) => Ok(Decoded {
                raw: Raw::new(RuntimeEventRawSource::CodexRollout, Some(line.tag()), frame.msg),
                message: Read {
                    line,
                    payload: envelope.payload,
                },
                time,
            }),
            (Err(err), _) => Err(misfit(tag_problem(&err), time)),
            // The typed line decoded, so this is not expected; reported, never a panic.
            (Ok(_), Err(err)) => Err(misfit(
                Problem::new(
                    ProblemKind::Undecodable,
                    format!("the line's `payload` or `timestamp` cannot be read: {err}"),
                ),
                time,
            )),
        }
    }

    fn map<'a>(&mut self, frame: &Frame<'a>, read: Read<'a>, _raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        let pieces = Line {
            msg: frame.msg,
            kind: read.line.tag(),
            payload: read.payload,
        };
        match &read.line {
            RolloutLine::SessionMeta(meta) => self.on_session_meta(pieces, &meta.payload, out),
            RolloutLine::ResponseItem(item) => self.on_response_item(pieces, &item.payload, out),
            RolloutLine::Compacted(compacted) => self.on_compacted(pieces, &compacted.payload, out),
            RolloutLine::TurnContext(context) => self.on_turn_context(pieces, &context.payload, out),
            RolloutLine::EventMsg(event) => self.on_event_msg(pieces, &event.payload, out),
            RolloutLine::WorldState(world) => self.on_world_state(pieces, &world.payload, out),
            RolloutLine::TokenUsageRecord(record) => {
                self.on_token_usage(pieces, &record.payload, out);
            }
            RolloutLine::RetainedContext(retained) => {
                self.on_retained(pieces, &retained.payload, out);
            }
        }
    }

    /// A warning about a line belongs to the running turn.
    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        match raw {
            Some(raw) => {
                let place = self.place(self.turn.clone().as_deref(), None);
                self.context(&place, Some(raw))
            }
            None => Context::default(),
        }
    }

    /// A rollout file records a session after the fact: its requests were answered on another wire.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&crate::rollout::SOURCE))
    }
}

/// A rollout count as a usage of `scope`.
pub(super) fn usage(usage: &rollout::TokenUsage, scope: UsageScope) -> TokenUsage {
    crate::usage::tokens(
        usage.input_tokens,
        usage.cached_input_tokens,
        usage.cache_write_input_tokens,
        usage.output_tokens,
        usage.reasoning_output_tokens,
        Some(usage.total_tokens),
    )
    .usage(scope)
}
