//! The Pi session-file normalizer: each entry replayed onto the session [`Ledger`].
//!
//! A user message starts a turn (the one before it ends as its last model message ended), but
//! one that follows a call for tools, which steers the run it joins; a
//! model message's text and thinking are whole items, its tool calls items that its tool
//! results complete; a `context_edit` hiding a failed model message is the retry json mode
//! warned of. The file's end ends the last turn as its last model message ended.

use std::collections::BTreeMap;

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, CommandExecutionContent, ContextCompactionContent, ItemStatus,
    ProviderRuntimeEvent, ReasoningContent, RuntimeEvent, RuntimeEventRawSource, RuntimeRequestId,
    ThreadMetadataUpdatedPayload, ThreadTokenUsageUpdatedPayload, UserMessageContent,
};
use agentwire_pi::{AgentMessage, AssistantMessage, ContentBlock, SessionEntry, StopReason, ToolResultMessage};
use serde_json::{Map, Value, json};

use super::FileLine;
use crate::normalizer::{blocks_text, run_end, system_config, user_text};
use crate::tools::{Call, Outcome};
use crate::usage;
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::{Conversation, drop_synthesized_refs, part};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, OpenItemFace};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage::Meter;

/// Normalizes one Pi session file.
pub struct PiSessionNormalizer {
    ledger: Ledger<()>,
    at: Conversation,
    meter: Meter,
    /// The model the session runs on (its last `model_change`).
    model: Option<String>,
    /// Tool calls of the open turn waiting for their results: name and arguments, by call id.
    calls: BTreeMap<String, (String, Value)>,
    /// The last model message of the open turn: its entry id, how it ended and its error.
    last: Option<(String, StopReason, Option<String>)>,
}

impl PiSessionNormalizer {
    /// A normalizer for one session file.
    pub fn new(options: Options) -> Self {
        PiSessionNormalizer {
            ledger: Ledger::new(&super::PI_SESSION, options)
                .with_positional_turns()
                .with_provider_refs(drop_synthesized_refs),
            at: Conversation::default(),
            meter: Meter::default(),
            model: None,
            calls: BTreeMap::new(),
            last: None,
        }
    }

    fn said(&mut self, said: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let Value::Object(said) = said else {
            unreachable!("a metadata object")
        };
        self.at.metadata(&mut self.ledger, said, raw, out);
    }

    fn on_entry(&mut self, entry: SessionEntry, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match entry {
            SessionEntry::Message(entry) => self.message(entry.id, entry.message, raw, out),
            SessionEntry::ModelChange(change) => {
                self.model = Some(change.model_id.clone());
                let config = Map::from_iter([
                    ("model".to_owned(), Value::String(change.model_id)),
                    ("modelProvider".to_owned(), Value::String(change.provider)),
                ]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            SessionEntry::ThinkingLevelChange(change) => {
                let config = Map::from_iter([("thinkingLevel".to_owned(), Value::String(change.thinking_level))]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            // The failed call it hides was retried: warned of where the retry happened.
            SessionEntry::ContextEdit(edit) => match self.last.take() {
                Some((id, StopReason::Error, error)) if id == edit.target_id => {
                    let error = error.unwrap_or_else(|| "the model API call failed".to_owned());
                    let error = content::readable_error(&error).unwrap_or(error);
                    let message = format!("the model API failed ({error}); Pi retried");
                    let context = self.at.context(&mut self.ledger, Some(raw));
                    self.ledger.warn(&context, message, None, out);
                }
                last => {
                    self.last = last;
                    self.said(json!({"contextEdit": edit.target_id}), raw, out);
                }
            },
            SessionEntry::Compaction(compaction) => {
                let key = part(&compaction.id, "compaction");
                let content = ContextCompactionContent {
                    summary: Some(compaction.summary),
                    trigger: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::new(
                    CanonicalItemType::ContextCompaction,
                    Some("Compact the conversation".to_owned()),
                    content::data(content),
                );
                self.at
                    .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
            }
            SessionEntry::SessionInfo(info) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = ThreadMetadataUpdatedPayload {
                    name: info.name,
                    metadata: None,
                };
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
            }
            SessionEntry::Usage(entry) => {
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = ThreadTokenUsageUpdatedPayload {
                    usage: self.meter.call(usage::call(&entry.usage, &entry.model)),
                };
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
            }
            SessionEntry::BranchSummary(summary) => self.said(json!({"branchSummary": summary.summary}), raw, out),
            SessionEntry::Custom(custom) => self.said(json!({"custom": custom.custom_type}), raw, out),
            SessionEntry::CustomMessage(custom) => self.said(json!({"customMessage": custom.custom_type}), raw, out),
            SessionEntry::Label(label) => self.said(json!({"label": label.label, "target": label.target_id}), raw, out),
        }
    }

    fn message(&mut self, id: String, message: AgentMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match message {
            AgentMessage::System(system) => {
                let config = system_config(&system);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            AgentMessage::User(user) => {
                // After a call for tools the run goes on: a user message then is the person
                // steering it, in its turn; after an answer it is the next prompt.
                let steering = matches!(self.last, Some((_, StopReason::ToolUse, _)));
                if !steering {
                    self.end_turn(Some(raw), out);
                    self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
                }
                let prompt = UserMessageContent {
                    text: user_text(&user.content),
                    attachments: None,
                    origin: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
                self.at
                    .whole_item(&mut self.ledger, &id, face, ItemStatus::Completed, raw, out);
            }
            AgentMessage::Assistant(assistant) => self.assistant(id, assistant, raw, out),
            AgentMessage::ToolResult(result) => self.tool_result(result, raw, out),
            AgentMessage::BashExecution(bash) => {
                let status = match (bash.cancelled, bash.exit_code.as_ref().and_then(|code| code.as_i64())) {
                    (true, _) => ItemStatus::Declined,
                    (false, Some(0)) => ItemStatus::Completed,
                    (false, _) => ItemStatus::Failed,
                };
                let shell = CommandExecutionContent {
                    command: bash.command.clone(),
                    cwd: None,
                    exit_code: bash.exit_code.as_ref().and_then(|code| code.as_i64()),
                    output: Some(bash.output),
                    duration_ms: None,
                    description: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::new(
                    CanonicalItemType::CommandExecution,
                    Some(bash.command),
                    content::data(shell),
                );
                self.at.whole_item(&mut self.ledger, &id, face, status, raw, out);
            }
            AgentMessage::Custom(_) | AgentMessage::BranchSummary(_) | AgentMessage::CompactionSummary(_) => {
                let role = message.tag();
                self.said(json!({"message": role}), raw, out);
            }
        }
    }

    /// A model message: its text and thinking as whole items, its tool calls opened, and what
    /// its call used.
    fn assistant(
        &mut self,
        id: String,
        assistant: AssistantMessage,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if self.at.turn.is_none() {
            self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
        }
        for (index, block) in assistant.content.iter().enumerate() {
            let key = part(&id, &index.to_string());
            match block {
                ContentBlock::Text(text) => {
                    let data = AssistantMessageContent {
                        text: text.text.clone(),
                        parent_item_id: None,
                    };
                    let face = OpenItemFace::untitled(CanonicalItemType::AssistantMessage, content::data(data));
                    self.at
                        .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
                }
                ContentBlock::Thinking(thinking) => {
                    let data = ReasoningContent {
                        text: thinking.thinking.clone(),
                        summary: None,
                        parent_item_id: None,
                    };
                    let face = OpenItemFace::untitled(CanonicalItemType::Reasoning, content::data(data));
                    self.at
                        .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
                }
                ContentBlock::ToolCall(call) => {
                    let args = Value::Object(call.arguments.clone());
                    let tool = Call::new(&call.name, &args);
                    let face = tool.face(Outcome::Running { output: None });
                    self.at.start_item(&mut self.ledger, &call.id, face, raw, out);
                    self.calls.insert(call.id.clone(), (call.name.clone(), args));
                }
                ContentBlock::Image(_) => {}
            }
        }
        self.last = Some((id, assistant.stop_reason, assistant.error_message.clone()));
        let context = self.at.context(&mut self.ledger, Some(raw));
        let payload = ThreadTokenUsageUpdatedPayload {
            usage: self.meter.call(usage::call(&assistant.usage, &assistant.model)),
        };
        self.ledger
            .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
    }

    /// A tool result completes its call's item: `failed` when Pi says it erred. (A command an
    /// abort killed reads `failed` here: the file says the run was aborted only in the model
    /// message after it; live, the `abort` command comes first and the item is `declined`.)
    fn tool_result(&mut self, result: ToolResultMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let (name, args) = self
            .calls
            .remove(&result.tool_call_id)
            .unwrap_or_else(|| (result.tool_name.clone(), Value::Object(Map::new())));
        let output = blocks_text(&result.content);
        let duration_ms = result
            .duration_ms
            .as_ref()
            .and_then(|ms| ms.as_f64())
            .map(|ms| ms as i64);
        let outcome = if result.is_error {
            Outcome::Failed {
                output: &output,
                exit_code: None,
                duration_ms,
            }
        } else {
            Outcome::Succeeded {
                output: &output,
                exit_code: None,
                duration_ms,
            }
        };
        let tool = Call::new(&name, &args);
        let status = outcome.status();
        let face = tool.face(outcome);
        self.at
            .complete_item(&mut self.ledger, &result.tool_call_id, face, status, raw, out);
    }

    /// Ends the open turn as its last model message ended: `interrupted` when aborted, `failed`
    /// (its error as a sentence) when it erred, else `completed`.
    fn end_turn(&mut self, raw: Option<Raw<'_>>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.at.turn.is_none() {
            return;
        }
        let mut end = match self.last.take() {
            Some((_, stop, error)) => run_end(stop, error),
            // A prompt no model message answered: Pi stopped (killed) before it wrote one. The
            // next prompt aborts it; at the file's end the ledger cuts it off.
            None => {
                if let Some(raw) = raw {
                    self.calls.clear();
                    self.at
                        .abort_turn(&mut self.ledger, "Pi wrote no answer to the prompt", raw, out);
                }
                return;
            }
        };
        end.outcome.usage = self.meter.end_turn();
        self.calls.clear();
        self.at.end_turn(&mut self.ledger, end, raw, out);
    }
}

impl Mapping for PiSessionNormalizer {
    type Request = ();
    type Message<'a> = FileLine;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, FileLine>, Box<Misfit<'a>>> {
        let label = RuntimeEventRawSource::PiSessionEntry;
        match super::decode(frame) {
            Ok(line) => {
                let (tag, time) = match &line {
                    FileLine::Header(header) => ("session", header.timestamp.clone()),
                    FileLine::Entry(entry) => (entry.tag(), entry_time(entry).to_owned()),
                };
                Ok(Decoded {
                    raw: Raw::new(label, Some(tag), frame.msg),
                    time: ProviderTime::Text {
                        field: "timestamp",
                        text: time.into(),
                    },
                    message: line,
                })
            }
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(label, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(&mut self, _frame: &Frame<'a>, line: FileLine, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        match line {
            FileLine::Header(header) => {
                self.at.see_thread(&mut self.ledger, &header.id, raw, out);
                let config = Map::from_iter([("cwd".to_owned(), Value::String(header.cwd))]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            FileLine::Entry(entry) => self.on_entry(entry, raw, out),
        }
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// The file's end ends its last turn as its last model message ended.
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        self.end_turn(None, out);
    }

    /// A session file is a record: nothing in it waits for an answer.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&super::PI_SESSION))
    }
}

/// When an entry was written.
fn entry_time(entry: &SessionEntry) -> &str {
    match entry {
        SessionEntry::Message(entry) => &entry.timestamp,
        SessionEntry::ThinkingLevelChange(entry) => &entry.timestamp,
        SessionEntry::ModelChange(entry) => &entry.timestamp,
        SessionEntry::Usage(entry) => &entry.timestamp,
        SessionEntry::Compaction(entry) => &entry.timestamp,
        SessionEntry::BranchSummary(entry) => &entry.timestamp,
        SessionEntry::Custom(entry) => &entry.timestamp,
        SessionEntry::CustomMessage(entry) => &entry.timestamp,
        SessionEntry::ContextEdit(entry) => &entry.timestamp,
        SessionEntry::Label(entry) => &entry.timestamp,
        SessionEntry::SessionInfo(entry) => &entry.timestamp,
    }
}
