//! The `gemini --output-format stream-json` normalizer: one arm per `JsonStreamEvent`, on top of
//! the session [`Ledger`].
//!
//! What the stream does not say is kept here: the thread (`init` names it, later events do not),
//! the open turn (a prompt's position: the stream gives turns no id), the model's text run open
//! now (a run of `message` deltas is one item, ended by a tool call or the result), and each tool
//! call's name and arguments (its `tool_result` names only its id).

use std::collections::BTreeMap;

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, ContentStreamKind, ItemStatus, ProviderRuntimeEvent, RuntimeErrorClass,
    RuntimeErrorPayload, RuntimeEvent, RuntimeEventRawSource, RuntimeRequestId, TokenUsage, TurnState, UsageScope,
    UserMessageContent,
};
use agentwire_gemini_cli::{
    ErrorEventSeverity, JsonStreamEvent, MessageEvent, MessageEventRole, ResultEvent, ResultEventStatus, StreamStats,
    ToolResultEvent, ToolResultEventStatus, ToolUseEvent,
};
use serde_json::{Map, Value, json};

use super::wire;
use crate::tools::{Call, Outcome, outcome_of_error};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::{Conversation, drop_synthesized_refs, part};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage::Tokens;

/// The `error.type` of a result the person's Ctrl-C ended (`handleCancellationError`).
const CANCELLED: &str = "FatalCancellationError";

/// A tool call announced and not yet answered.
struct OpenCall {
    name: String,
    args: Map<String, Value>,
}

/// Normalizes one `gemini --output-format stream-json` stream.
pub struct GeminiNormalizer {
    ledger: Ledger<()>,
    at: Conversation,
    /// The model `init` named, for the turns of the run.
    model: Option<String>,
    /// The model's text run open now (its item key).
    text: Option<String>,
    /// The text runs of the open turn so far (the next one's number is one more).
    runs: u64,
    /// Tool calls announced and not yet answered, by `tool_id`.
    calls: BTreeMap<String, OpenCall>,
}

impl GeminiNormalizer {
    /// A normalizer for one stream.
    pub fn new(options: Options) -> Self {
        GeminiNormalizer {
            ledger: Ledger::new(&super::GEMINI, options)
                .with_positional_turns()
                .with_provider_refs(drop_synthesized_refs),
            at: Conversation::default(),
            model: None,
            text: None,
            runs: 0,
            calls: BTreeMap::new(),
        }
    }

    /// What the stream names nothing for is keyed by this stream and turn: a resumed session's
    /// next run restarts the counts.
    fn owner(&self) -> String {
        format!(
            "{}:{}",
            self.ledger.session().as_str(),
            self.at.turn.as_deref().unwrap_or_default()
        )
    }

    fn on_event(&mut self, event: JsonStreamEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match event {
            JsonStreamEvent::Init(init) => {
                let started = self.at.see_thread(&mut self.ledger, &init.session_id, raw, out);
                if !started {
                    // A resumed session's next run in the same stream: the thread goes on.
                    let context = self.at.context(&mut self.ledger, Some(raw));
                    self.ledger
                        .settle_state_carrying(&context, Some("the thread was already started"), out);
                }
                self.model = Some(init.model.clone());
                let config = Map::from_iter([("model".to_string(), Value::String(init.model))]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            JsonStreamEvent::Message(message) => self.message(message, raw, out),
            JsonStreamEvent::ToolUse(call) => self.tool_use(call, raw, out),
            JsonStreamEvent::ToolResult(result) => self.tool_result(result, raw, out),
            // A problem the run goes on after: a warning, or the turn's one failure.
            JsonStreamEvent::Error(error) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let detail = json!({ "severity": error.severity.to_string() });
                match error.severity {
                    ErrorEventSeverity::Warning => self.ledger.warn(&context, error.message, Some(detail), out),
                    ErrorEventSeverity::Error => {
                        let first = match (&self.at.thread, &self.at.turn) {
                            (Some(thread), Some(turn)) => self.ledger.report_turn_error(thread, turn),
                            _ => true,
                        };
                        if first {
                            let payload = RuntimeErrorPayload {
                                message: error.message,
                                class: Some(RuntimeErrorClass::ProviderError),
                                detail: Some(detail),
                            };
                            self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                        } else {
                            let message = format!("{} (the turn's failure was already reported)", error.message);
                            self.ledger.warn(&context, message, Some(detail), out);
                        }
                    }
                }
            }
            JsonStreamEvent::Result(result) => self.result(result, raw, out),
        }
    }

    /// The prompt starts a turn (its first item the person's words); a piece of the model's text
    /// goes to the open text run, or starts one.
    fn message(&mut self, message: MessageEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match message.role {
            MessageEventRole::User => {
                if self.at.turn.is_some() {
                    self.close_text(raw, out);
                    self.at.end_turn(
                        &mut self.ledger,
                        TurnEnd::new(turn_outcome(TurnState::Completed, None)),
                        Some(raw),
                        out,
                    );
                }
                self.runs = 0;
                self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
                let key = part(&self.owner(), "prompt");
                let prompt = UserMessageContent {
                    text: message.content,
                    attachments: None,
                    origin: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
                self.at
                    .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
            }
            MessageEventRole::Assistant => {
                if self.at.turn.is_none() {
                    self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
                }
                let key = match self.text.clone() {
                    Some(key) => key,
                    None => {
                        self.runs += 1;
                        let key = part(&self.owner(), &format!("text-{}", self.runs));
                        let empty = AssistantMessageContent {
                            text: String::new(),
                            parent_item_id: None,
                        };
                        let face = OpenItemFace::untitled(CanonicalItemType::AssistantMessage, content::data(empty));
                        self.at.start_item(&mut self.ledger, &key, face, raw, out);
                        self.text = Some(key.clone());
                        key
                    }
                };
                self.at.delta(
                    &mut self.ledger,
                    &key,
                    ContentStreamKind::AssistantText,
                    "text",
                    &message.content,
                    raw,
                    out,
                );
            }
        }
    }

    /// Completes the open text run with what it said.
    fn close_text(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let Some(key) = self.text.take() else {
            return;
        };
        let data = self.at.item_data(&self.ledger, &key);
        let face = OpenItemFace {
            item_type: CanonicalItemType::AssistantMessage,
            title: None,
            data,
        };
        self.at
            .complete_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
    }

    fn tool_use(&mut self, call: ToolUseEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.close_text(raw, out);
        if self.at.turn.is_none() {
            self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
        }
        let tool = Call {
            name: &call.tool_name,
            args: &call.parameters,
        };
        let face = OpenItemFace::new(
            tool.item_type(),
            tool.title(),
            content::data(tool.content(Outcome::Running, None)),
        );
        self.at.start_item(&mut self.ledger, &call.tool_id, face, raw, out);
        let open = OpenCall {
            name: call.tool_name,
            args: call.parameters,
        };
        self.calls.insert(call.tool_id, open);
    }

    /// The call's item completes as its result says: `success` completed, a refusal by the
    /// policy declined, any other error failed; a command's output also streams as
    /// `content.delta(command_output)`.
    fn tool_result(&mut self, result: ToolResultEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.close_text(raw, out);
        let Some(call) = self.calls.remove(&result.tool_id) else {
            let context = self.at.context(&mut self.ledger, Some(raw));
            let message = format!(
                "a result for the tool call {:?}, which no `tool_use` announced",
                result.tool_id
            );
            return self.ledger.warn(&context, message, None, out);
        };
        let outcome = match (result.status, &result.error) {
            (ToolResultEventStatus::Success, _) => Outcome::Succeeded {
                output: result.output.as_deref(),
            },
            (ToolResultEventStatus::Error, Some(error)) => outcome_of_error(&error.type_, &error.message),
            (ToolResultEventStatus::Error, None) => Outcome::Failed {
                error: result.output.as_deref().unwrap_or_default(),
            },
        };
        let tool = Call {
            name: &call.name,
            args: &call.args,
        };
        if let (CanonicalItemType::CommandExecution, Outcome::Succeeded { output: Some(output) }) =
            (tool.item_type(), outcome)
            && !output.is_empty()
        {
            self.at.delta(
                &mut self.ledger,
                &result.tool_id,
                ContentStreamKind::CommandOutput,
                "output",
                output,
                raw,
                out,
            );
        }
        let face = OpenItemFace::new(
            tool.item_type(),
            tool.title(),
            content::data(tool.content(outcome, None)),
        );
        self.at
            .complete_item(&mut self.ledger, &result.tool_id, face, outcome.status(), raw, out);
    }

    /// The run's end ends its turn: completed, interrupted by the person's Ctrl-C, or failed (an
    /// API error, a fatal tool error) with its one `runtime.error`.
    /// A text run a failed or stopped run cut off is completed by the turn's end, with what it
    /// said and why it stopped.
    fn result(&mut self, result: ResultEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match result.status {
            ResultEventStatus::Success => self.close_text(raw, out),
            ResultEventStatus::Error => self.text = None,
        }
        if self.at.turn.is_none() {
            self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
        }
        // What the run used, however it ended (a failed or stopped run reports its stats too).
        let usage = usage(result.stats);
        let mut end = match (result.status, result.error) {
            (ResultEventStatus::Success, _) => TurnEnd::new(turn_outcome(TurnState::Completed, None)),
            (ResultEventStatus::Error, Some(error)) if error.type_ == CANCELLED => {
                TurnEnd::new(turn_outcome(TurnState::Interrupted, Some(error.type_)))
            }
            (ResultEventStatus::Error, error) => {
                let (message, kind) = error.map_or_else(
                    || ("the run ended with an error".to_owned(), None),
                    |error| (error.message, Some(error.type_)),
                );
                let detail = json!({ "type": kind, "message": message });
                TurnEnd::failed(kind, message, Some(detail))
            }
        };
        end.outcome.usage = usage;
        self.at.end_turn(&mut self.ledger, end, Some(raw), out);
    }
}

/// The run's tokens (`scope: turn`; Gemini states no cost). `input_tokens` is the prompt,
/// cached tokens included; `output_tokens` counts the candidates only, and what the total holds
/// beyond prompt and candidates (thoughts) is output too, counted as reasoning. The model is named
/// when one model served the run.
fn usage(stats: Option<StreamStats>) -> Option<TokenUsage> {
    let stats = stats?;
    let thoughts = stats
        .total_tokens
        .saturating_sub(stats.input_tokens)
        .saturating_sub(stats.output_tokens)
        .max(0);
    let mut usage = Tokens {
        input: Some(stats.input_tokens),
        cached: Some(stats.cached),
        cache_write: None,
        output: Some(stats.output_tokens.saturating_add(thoughts)),
        reasoning: (thoughts > 0).then_some(thoughts),
        total: Some(stats.total_tokens),
    }
    .usage(UsageScope::Turn);
    let mut models = stats.models.into_keys();
    usage.model = models.next().filter(|_| models.next().is_none());
    Some(usage)
}

impl Mapping for GeminiNormalizer {
    type Request = ();
    type Message<'a> = JsonStreamEvent;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, JsonStreamEvent>, Box<Misfit<'a>>> {
        match wire::decode(frame) {
            Ok(event) => Ok(Decoded {
                raw: Raw::new(RuntimeEventRawSource::GeminiStreamJson, Some(event.tag()), frame.msg),
                time: ProviderTime::Text {
                    field: "timestamp",
                    text: wire::timestamp(&event).to_owned().into(),
                },
                message: event,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(RuntimeEventRawSource::GeminiStreamJson, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(
        &mut self,
        _frame: &Frame<'a>,
        event: JsonStreamEvent,
        raw: Raw<'a>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.on_event(event, raw, out);
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// A headless run asks nobody: the policy decides alone.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&super::GEMINI))
    }
}
