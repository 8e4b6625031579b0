//! The Pi normalizer: one arm per line Pi prints and per command an RPC client writes, on top of
//! the session [`Ledger`].
//!
//! What the lines do not say is kept here. A prompt's run is the canonical turn: it starts with
//! the run (`agent_start`, or the RPC `prompt` that asks for it) and ends when Pi settles
//! (`agent_settled`), after its retries; Pi's own `turn_start`/`turn_end` frame one model call
//! and its tools, and say nothing the messages do not. Each content block of a model message is
//! an item (keyed by the message's place in the turn and the block's index; a tool call by its
//! id), opened by its `*_start` update and completed by its `*_end`; a tool call's item stays
//! open until its execution ends. How the run ended is what its last model message said
//! (`stopReason`), or the person's stop.

use std::collections::{BTreeMap, BTreeSet};

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, ContentStreamKind, ContextCompactionContent, ItemLifecyclePayload,
    ItemStatus, ProviderRefs, ProviderRuntimeEvent, ReasoningContent, RuntimeEvent, RuntimeEventRawSource,
    RuntimeRequestId, ThreadMetadataUpdatedPayload, ThreadStartedPayload, ThreadTokenUsageUpdatedPayload, TurnState,
    UserMessageContent,
};
use agentwire_pi::{
    AgentMessage, AssistantMessage, BashStructuredContent, CompactionEndEvent, ContentBlock, JsonAssistantMessageEvent,
    MessageUpdateEvent, PiLine, RpcCommand, RpcResponse, StopReason, SystemMessage, SystemMessageContent,
    ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent, UserContent,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::tools::{Call, Outcome};
use crate::usage;
use crate::wire::{self, PiMessage};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::{Conversation, SYNTHESIZED, drop_synthesized_refs, part};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage::Meter;

/// Which of Pi's modes a stream is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `pi -p --mode json`: Pi's lines, the session header first.
    Json,
    /// `pi --mode rpc`: transcript records of the client's commands and Pi's lines (no header).
    Rpc,
}

impl Mode {
    fn source(self) -> &'static agentwire_core::source::SourceSpec {
        match self {
            Mode::Json => &crate::json::PI,
            Mode::Rpc => &crate::rpc::PI_RPC,
        }
    }
}

/// The thread of an RPC stream, which prints no session header: made up, so not a provider id.
const RPC_THREAD: &str = ":rpc";

/// A tool call of the open turn: its name and arguments, its output so far.
struct OpenCall {
    name: String,
    args: Value,
    output: String,
}

/// Normalizes one Pi stream.
pub struct PiNormalizer {
    ledger: Ledger<()>,
    at: Conversation,
    mode: Mode,
    meter: Meter,
    /// Model messages of the open turn so far (the next one's place is one more).
    messages: u64,
    /// User messages of the open turn so far.
    prompts: u64,
    /// Compactions so far.
    compactions: u64,
    /// The open compaction's item key.
    compaction: Option<String>,
    /// The content blocks of the model message open now, by index: their item keys.
    blocks: BTreeMap<i64, String>,
    /// The blocks of that message drawn so far (a block its updates never opened is drawn from
    /// the message's end).
    drawn: BTreeSet<i64>,
    /// Tool calls announced and not yet ended, by id.
    calls: BTreeMap<String, OpenCall>,
    /// How the turn's last model message ended, and its error.
    last_stop: Option<(StopReason, Option<String>)>,
    /// Whether the person asked the run to stop (an RPC `abort`).
    stopping: bool,
    /// The open user message's item key.
    prompt: Option<String>,
    /// The id of the RPC `prompt` that started the open turn, until Pi answers it.
    starting: Option<String>,
    /// The RPC `bash` commands running, by command id: their item keys and commands.
    shells: BTreeMap<String, (String, String)>,
}

impl PiNormalizer {
    /// A normalizer for one stream of `mode`.
    pub fn new(mode: Mode, options: Options) -> Self {
        PiNormalizer {
            ledger: Ledger::new(mode.source(), options)
                .with_positional_turns()
                .with_provider_refs(drop_made_up_refs),
            at: Conversation::default(),
            mode,
            meter: Meter::default(),
            messages: 0,
            prompts: 0,
            compactions: 0,
            compaction: None,
            blocks: BTreeMap::new(),
            drawn: BTreeSet::new(),
            calls: BTreeMap::new(),
            last_stop: None,
            stopping: false,
            prompt: None,
            starting: None,
            shells: BTreeMap::new(),
        }
    }

    /// What the stream names nothing for is keyed by the session and turn.
    fn owner(&self) -> String {
        format!(
            "{}{SYNTHESIZED}{}",
            self.ledger.session().as_str(),
            self.at.turn.as_deref().unwrap_or_default()
        )
    }

    /// The thread an RPC stream is in: made up at its first line (RPC mode prints no header).
    fn ensure_thread(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.at.thread.is_some() {
            return;
        }
        self.at.thread = Some(RPC_THREAD.to_owned());
        if self.ledger.start_thread(RPC_THREAD) {
            let context = self.ledger.thread_context(RPC_THREAD, Some(raw));
            let payload = ThreadStartedPayload {
                provider_thread_id: None,
            };
            self.ledger.emit(&context, RuntimeEvent::ThreadStarted(payload), out);
        }
    }

    /// Starts the prompt's turn unless one is open; whether this call started it.
    fn start_turn(&mut self, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> bool {
        if self.at.turn.is_some() {
            return false;
        }
        if self.at.thread.is_none() {
            self.ensure_thread(raw, out);
        }
        self.messages = 0;
        self.prompts = 0;
        self.last_stop = None;
        self.stopping = false;
        self.at.start_turn(&mut self.ledger, None, raw, out)
    }

    /// What changes nothing a UI draws, carried on `thread.metadata.updated`.
    fn said(&mut self, said: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let Value::Object(said) = said else {
            unreachable!("a metadata object")
        };
        if self.at.thread.is_none() {
            self.ensure_thread(raw, out);
        }
        self.at.metadata(&mut self.ledger, said, raw, out);
    }

    fn warn(&mut self, message: String, detail: Option<Value>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let context = self.at.context(&mut self.ledger, Some(raw));
        self.ledger.warn(&context, message, detail, out);
    }

    fn on_line(&mut self, line: PiLine, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match line {
            PiLine::Session(header) => {
                self.at.see_thread(&mut self.ledger, &header.id, raw, out);
                let config = Map::from_iter([("cwd".to_owned(), Value::String(header.cwd))]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            // The run starts the turn; a retried run goes on in it.
            PiLine::AgentStart => {
                if !self.start_turn(raw, out) {
                    self.said(json!({"runStarted": true}), raw, out);
                }
            }
            // A model call starts; its messages say what it does.
            PiLine::TurnStart => {}
            PiLine::MessageStart(start) => self.message_start(start.message, raw, out),
            PiLine::MessageUpdate(update) => self.message_update(update, raw, out),
            PiLine::MessageEnd(end) => self.message_end(end.message, raw, out),
            // Both repeat the messages their call and run ended with.
            PiLine::TurnEnd(_) | PiLine::AgentEnd(_) => {}
            PiLine::AgentSettled(settled) => self.settle(settled.aborted, raw, out),
            PiLine::ToolExecutionStart(start) => self.tool_start(start, raw, out),
            PiLine::ToolExecutionUpdate(update) => self.tool_update(update, raw, out),
            PiLine::ToolExecutionEnd(end) => self.tool_end(end, raw, out),
            PiLine::QueueUpdate(queue) => self.said(
                json!({"steering": queue.steering, "followUp": queue.follow_up}),
                raw,
                out,
            ),
            PiLine::EntryAppended(appended) => self.said(json!({"entryAppended": appended.entry.tag()}), raw, out),
            PiLine::SessionInfoChanged(info) => {
                if self.at.thread.is_none() {
                    self.ensure_thread(raw, out);
                }
                let context = self.at.context(&mut self.ledger, Some(raw));
                let payload = ThreadMetadataUpdatedPayload {
                    name: info.name,
                    metadata: None,
                };
                self.ledger
                    .emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
            }
            PiLine::ThinkingLevelChanged(changed) => {
                let config = Map::from_iter([("thinkingLevel".to_owned(), Value::String(changed.level.to_string()))]);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            PiLine::CompactionStart(start) => {
                self.compactions += 1;
                let key = part(&self.owner(), &format!("compaction-{}", self.compactions));
                let compaction = ContextCompactionContent {
                    summary: None,
                    trigger: Some(start.reason.to_string()),
                    parent_item_id: None,
                };
                let face = OpenItemFace::new(
                    CanonicalItemType::ContextCompaction,
                    Some("Compact the conversation".to_owned()),
                    content::data(compaction),
                );
                self.at.start_item(&mut self.ledger, &key, face, raw, out);
                self.compaction = Some(key);
            }
            PiLine::CompactionEnd(end) => self.compaction_end(end, raw, out),
            PiLine::AutoRetryStart(retry) => {
                let error = content::readable_error(&retry.error_message).unwrap_or(retry.error_message);
                let message = format!(
                    "the model API failed ({error}); Pi retries in {} ms (attempt {} of {})",
                    retry.delay_ms, retry.attempt, retry.max_attempts
                );
                self.warn(message, None, raw, out);
            }
            PiLine::AutoRetryEnd(end) => {
                self.said(json!({"retried": end.attempt, "retrySucceeded": end.success}), raw, out)
            }
            PiLine::SummarizationRetryScheduled(retry) => {
                let error = content::readable_error(&retry.error_message).unwrap_or(retry.error_message);
                let message = format!(
                    "summarizing failed ({error}); Pi retries in {} ms (attempt {} of {})",
                    retry.delay_ms, retry.attempt, retry.max_attempts
                );
                self.warn(message, None, raw, out);
            }
            PiLine::SummarizationRetryAttemptStart(attempt) => {
                self.said(json!({"summarizationRetry": attempt.source.to_string()}), raw, out)
            }
            PiLine::SummarizationRetryFinished => self.said(json!({"summarizationRetry": "finished"}), raw, out),
            PiLine::BashExecutionUpdate(update) => {
                match update.id.as_ref().and_then(|id| self.shells.get(id)).cloned() {
                    Some((key, _)) => self.at.delta(
                        &mut self.ledger,
                        &key,
                        ContentStreamKind::CommandOutput,
                        "output",
                        &update.delta,
                        raw,
                        out,
                    ),
                    None => self.said(json!({"bashOutput": update.delta}), raw, out),
                }
            }
            PiLine::ExtensionError(error) => {
                let message = format!(
                    "the extension {} failed on `{}`: {}",
                    error.extension_path, error.event, error.error
                );
                self.warn(message, None, raw, out);
            }
            PiLine::Response(response) => self.response(response, raw, out),
            // An extension's dialog: the mapping offers no way to answer it.
            PiLine::ExtensionUiRequest(request) => {
                let message = format!(
                    "an extension asks the client for `{}` (request {}), which agentwire does not answer",
                    request.method, request.id
                );
                self.warn(message, None, raw, out);
            }
        }
    }

    /// A message starts: the person's words open their item, a system prompt configures the
    /// session; a model message's blocks open with their updates.
    fn message_start(&mut self, message: AgentMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match message {
            AgentMessage::System(system) => {
                let config = system_config(&system);
                self.at.configured(&mut self.ledger, &config, raw, out);
            }
            AgentMessage::User(user) => {
                self.start_turn(raw, out);
                self.prompts += 1;
                let key = part(&self.owner(), &format!("prompt-{}", self.prompts));
                let prompt = UserMessageContent {
                    text: user_text(&user.content),
                    attachments: None,
                    origin: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
                self.at.start_item(&mut self.ledger, &key, face, raw, out);
                self.prompt = Some(key);
            }
            AgentMessage::Assistant(assistant) => {
                self.start_turn(raw, out);
                self.messages += 1;
                self.blocks.clear();
                self.drawn.clear();
                self.said(
                    json!({"model": assistant.model, "provider": assistant.provider}),
                    raw,
                    out,
                );
            }
            AgentMessage::ToolResult(_) => {}
            AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_) => {
                self.said(json!({"message": message.tag()}), raw, out);
            }
        }
    }

    fn block_key(&self, index: i64) -> String {
        part(&self.owner(), &format!("message-{}-{index}", self.messages))
    }

    /// A piece of the model message streaming now.
    fn message_update(&mut self, update: MessageUpdateEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match update.assistant_message_event {
            JsonAssistantMessageEvent::TextStart(start) => {
                let text = AssistantMessageContent {
                    text: String::new(),
                    parent_item_id: None,
                };
                self.open_block(start.content_index, CanonicalItemType::AssistantMessage, text, raw, out);
            }
            JsonAssistantMessageEvent::ThinkingStart(start) => {
                let thinking = ReasoningContent {
                    text: String::new(),
                    summary: None,
                    parent_item_id: None,
                };
                self.open_block(start.content_index, CanonicalItemType::Reasoning, thinking, raw, out);
            }
            JsonAssistantMessageEvent::TextDelta(delta) => self.block_delta(
                delta.content_index,
                ContentStreamKind::AssistantText,
                &delta.delta,
                raw,
                out,
            ),
            JsonAssistantMessageEvent::ThinkingDelta(delta) => self.block_delta(
                delta.content_index,
                ContentStreamKind::ReasoningText,
                &delta.delta,
                raw,
                out,
            ),
            JsonAssistantMessageEvent::TextEnd(end) => {
                let text = AssistantMessageContent {
                    text: end.content,
                    parent_item_id: None,
                };
                self.close_block(end.content_index, CanonicalItemType::AssistantMessage, text, raw, out);
            }
            JsonAssistantMessageEvent::ThinkingEnd(end) => {
                let thinking = ReasoningContent {
                    text: end.content,
                    summary: None,
                    parent_item_id: None,
                };
                self.close_block(end.content_index, CanonicalItemType::Reasoning, thinking, raw, out);
            }
            JsonAssistantMessageEvent::ToolcallStart(start) => {
                self.drawn.insert(start.content_index);
                self.blocks.insert(start.content_index, start.id.clone());
                let args = Value::Object(Map::new());
                let call = Call::new(&start.tool_name, &args);
                let face = call.face(Outcome::Running { output: None });
                self.at.start_item(&mut self.ledger, &start.id, face, raw, out);
                let open = OpenCall {
                    name: start.tool_name,
                    args,
                    output: String::new(),
                };
                self.calls.insert(start.id, open);
            }
            // The arguments as the model writes them: `toolcall_end` gives them whole.
            JsonAssistantMessageEvent::ToolcallDelta(_) => {}
            JsonAssistantMessageEvent::ToolcallEnd(end) => match end.tool_call {
                ContentBlock::ToolCall(call) => {
                    let args = Value::Object(call.arguments);
                    self.update_call(&call.id, &call.name, args, raw, out);
                }
                block @ (ContentBlock::Text(_) | ContentBlock::Thinking(_) | ContentBlock::Image(_)) => {
                    let message = format!("a tool call's end holds a `{}` block, not the call", block.tag());
                    self.warn(message, None, raw, out);
                }
            },
            JsonAssistantMessageEvent::Start => self.said(json!({"stream": "start"}), raw, out),
            JsonAssistantMessageEvent::Done(done) => self.said(json!({"stream": done.reason.to_string()}), raw, out),
            JsonAssistantMessageEvent::Error(error) => self.said(json!({"stream": error.reason.to_string()}), raw, out),
        }
    }

    fn open_block(
        &mut self,
        index: i64,
        item_type: CanonicalItemType,
        data: impl Into<agentwire_canonical::ItemContent>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = self.block_key(index);
        self.drawn.insert(index);
        self.blocks.insert(index, key.clone());
        let face = OpenItemFace::untitled(item_type, content::data(data));
        self.at.start_item(&mut self.ledger, &key, face, raw, out);
    }

    fn block_delta(
        &mut self,
        index: i64,
        kind: ContentStreamKind,
        delta: &str,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = self
            .blocks
            .get(&index)
            .cloned()
            .unwrap_or_else(|| self.block_key(index));
        self.at.delta(&mut self.ledger, &key, kind, "text", delta, raw, out);
    }

    fn close_block(
        &mut self,
        index: i64,
        item_type: CanonicalItemType,
        data: impl Into<agentwire_canonical::ItemContent>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = self.blocks.remove(&index).unwrap_or_else(|| self.block_key(index));
        let face = OpenItemFace::untitled(item_type, content::data(data));
        self.at
            .complete_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
    }

    /// A tool call's arguments are known: `item.updated` with what it now shows.
    fn update_call(&mut self, id: &str, name: &str, args: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let call = Call::new(name, &args);
        let (item_type, title, data) = (
            call.item_type(),
            call.title(),
            content::data(call.content(Outcome::Running { output: None })),
        );
        let open = self.calls.entry(id.to_owned()).or_insert_with(|| OpenCall {
            name: name.to_owned(),
            args: Value::Null,
            output: String::new(),
        });
        open.args = args;
        self.emit_item_update(id, item_type, Some(title), data, raw, out);
    }

    fn emit_item_update(
        &mut self,
        key: &str,
        item_type: CanonicalItemType,
        title: Option<String>,
        data: agentwire_canonical::Json,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if let Some(thread) = self.at.thread.clone() {
            self.ledger.update_item(&thread, key, data.clone());
        }
        let context = self.at.item_context(&mut self.ledger, key, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type,
            status: Some(ItemStatus::InProgress),
            title,
            detail: None,
            data: Some(data),
        };
        self.ledger.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
    }

    /// A message ends: the person's words complete; a model message completes the blocks its
    /// updates left open (or never opened), then reports what its call used.
    fn message_end(&mut self, message: AgentMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match message {
            // Its start said what it holds.
            AgentMessage::System(_) | AgentMessage::ToolResult(_) => {}
            AgentMessage::User(user) => {
                let key = self.prompt.take().unwrap_or_else(|| {
                    self.prompts += 1;
                    part(&self.owner(), &format!("prompt-{}", self.prompts))
                });
                let prompt = UserMessageContent {
                    text: user_text(&user.content),
                    attachments: None,
                    origin: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
                self.at
                    .complete_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
            }
            AgentMessage::Assistant(assistant) => self.assistant_end(assistant, raw, out),
            AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_) => {
                self.said(json!({"messageEnded": message.tag()}), raw, out);
            }
        }
    }

    fn assistant_end(&mut self, assistant: AssistantMessage, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        for (index, block) in assistant.content.iter().enumerate() {
            let index = index as i64;
            let open = self.blocks.contains_key(&index);
            let drawn = self.drawn.contains(&index);
            match block {
                ContentBlock::Text(text) => {
                    let data = AssistantMessageContent {
                        text: text.text.clone(),
                        parent_item_id: None,
                    };
                    self.end_block(index, open, drawn, CanonicalItemType::AssistantMessage, data, raw, out);
                }
                ContentBlock::Thinking(thinking) => {
                    let data = ReasoningContent {
                        text: thinking.thinking.clone(),
                        summary: None,
                        parent_item_id: None,
                    };
                    self.end_block(index, open, drawn, CanonicalItemType::Reasoning, data, raw, out);
                }
                ContentBlock::ToolCall(call) if !drawn => {
                    self.drawn.insert(index);
                    let args = Value::Object(call.arguments.clone());
                    let tool = Call::new(&call.name, &args);
                    let face = tool.face(Outcome::Running { output: None });
                    self.at.start_item(&mut self.ledger, &call.id, face, raw, out);
                    let open = OpenCall {
                        name: call.name.clone(),
                        args,
                        output: String::new(),
                    };
                    self.calls.insert(call.id.clone(), open);
                }
                ContentBlock::ToolCall(_) | ContentBlock::Image(_) => {}
            }
        }
        self.blocks.clear();
        self.last_stop = Some((assistant.stop_reason, assistant.error_message.clone()));
        let context = self.at.context(&mut self.ledger, Some(raw));
        let payload = ThreadTokenUsageUpdatedPayload {
            usage: self.meter.call(usage::call(&assistant.usage, &assistant.model)),
        };
        self.ledger
            .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
    }

    /// A block its updates left open completes with what the message holds; one they never
    /// opened is drawn whole (a message that was not streamed).
    #[allow(clippy::too_many_arguments)]
    fn end_block(
        &mut self,
        index: i64,
        open: bool,
        drawn: bool,
        item_type: CanonicalItemType,
        data: impl Into<agentwire_canonical::ItemContent>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        if open {
            self.close_block(index, item_type, data, raw, out);
        } else if !drawn {
            self.drawn.insert(index);
            let key = self.block_key(index);
            let face = OpenItemFace::untitled(item_type, content::data(data));
            self.at
                .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
        }
    }

    fn tool_start(&mut self, start: ToolExecutionStartEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if !self.calls.contains_key(&start.tool_call_id) {
            let call = Call::new(&start.tool_name, &start.args);
            let face = call.face(Outcome::Running { output: None });
            self.at
                .start_item(&mut self.ledger, &start.tool_call_id, face, raw, out);
            let open = OpenCall {
                name: start.tool_name,
                args: start.args,
                output: String::new(),
            };
            self.calls.insert(start.tool_call_id, open);
            return;
        }
        // It runs now, with the arguments it runs with.
        self.update_call(&start.tool_call_id, &start.tool_name, start.args, raw, out);
    }

    /// A running tool's output so far: a command's new output streams as `command_output`;
    /// another tool's, or an update with nothing new, updates the item.
    fn tool_update(&mut self, update: ToolExecutionUpdateEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let text = blocks_text(&update.partial_result.content);
        let Some(open) = self.calls.get_mut(&update.tool_call_id) else {
            let message = format!(
                "an update of the tool call {:?}, which no tool call announced",
                update.tool_call_id
            );
            return self.warn(message, None, raw, out);
        };
        let new = text.strip_prefix(open.output.as_str()).map(str::to_owned);
        open.output = text.clone();
        let call = Call::new(&open.name, &open.args);
        let item_type = call.item_type();
        match new {
            Some(new) if !new.is_empty() && item_type == CanonicalItemType::CommandExecution => {
                self.at.delta(
                    &mut self.ledger,
                    &update.tool_call_id,
                    ContentStreamKind::CommandOutput,
                    "output",
                    &new,
                    raw,
                    out,
                );
            }
            _ => {
                let (title, data) = (
                    call.title(),
                    content::data(call.content(Outcome::Running { output: Some(&text) })),
                );
                self.emit_item_update(&update.tool_call_id, item_type, Some(title), data, raw, out);
            }
        }
    }

    /// A tool's end completes its call's item: `failed` when Pi says it erred (`declined` when
    /// the person's stop ended it), else `completed`.
    fn tool_end(&mut self, end: ToolExecutionEndEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let open = self.calls.remove(&end.tool_call_id);
        let (name, args) = match &open {
            Some(open) => (open.name.clone(), open.args.clone()),
            None => (end.tool_name.clone(), Value::Object(Map::new())),
        };
        let output = blocks_text(&end.result.content);
        let exit_code = end
            .result
            .structured_content
            .as_ref()
            .and_then(|structured| BashStructuredContent::deserialize(structured).ok())
            .and_then(|structured| structured.exit_code);
        let duration_ms = end.duration_ms.as_ref().and_then(|ms| ms.as_f64()).map(|ms| ms as i64);
        let outcome = if end.is_error {
            Outcome::Failed {
                output: &output,
                exit_code,
                duration_ms,
            }
        } else {
            Outcome::Succeeded {
                output: &output,
                exit_code,
                duration_ms,
            }
        };
        let call = Call::new(&name, &args);
        let status = match outcome.status() {
            ItemStatus::Failed if self.stopping => ItemStatus::Declined,
            status => status,
        };
        let face = call.face(outcome);
        self.at
            .complete_item(&mut self.ledger, &end.tool_call_id, face, status, raw, out);
    }

    fn compaction_end(&mut self, end: CompactionEndEvent, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let key = self.compaction.take().unwrap_or_else(|| {
            self.compactions += 1;
            part(&self.owner(), &format!("compaction-{}", self.compactions))
        });
        let status = match (&end.result, end.aborted) {
            (_, true) => ItemStatus::Declined,
            (Some(_), false) => ItemStatus::Completed,
            (None, false) => ItemStatus::Failed,
        };
        let compaction = ContextCompactionContent {
            summary: end.result.map(|result| result.summary).or(end.error_message),
            trigger: Some(end.reason.to_string()),
            parent_item_id: None,
        };
        let face = OpenItemFace::new(
            CanonicalItemType::ContextCompaction,
            Some("Compact the conversation".to_owned()),
            content::data(compaction),
        );
        self.at.complete_item(&mut self.ledger, &key, face, status, raw, out);
    }

    /// Pi settled: the run is over, after its retries. It ended as its last model message says:
    /// stopped by the person (an abort), failed (the model API's error once Pi stopped
    /// retrying), or completed.
    fn settle(&mut self, aborted: bool, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.at.turn.is_none() {
            return self.said(json!({"settled": true, "aborted": aborted}), raw, out);
        }
        let last = self.last_stop.take();
        let mut end = match last {
            _ if aborted || self.stopping => run_end(StopReason::Aborted, None),
            Some((stop, error)) => run_end(stop, error),
            None => run_end(StopReason::Stop, None),
        };
        end.outcome.usage = self.meter.end_turn();
        self.calls.clear();
        self.prompt = None;
        self.at.end_turn(&mut self.ledger, end, Some(raw), out);
    }

    /// Pi's answer to a command: a refusal is a warning naming the command; a prompt Pi would
    /// not take ends the turn it started (a prompt sent while a run goes on started none); the
    /// rest changes nothing a UI draws.
    fn response(&mut self, response: RpcResponse, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        if let Some((key, command)) = response.id.as_ref().and_then(|id| self.shells.remove(id)) {
            return self.shell_end(&key, command, response, raw, out);
        }
        let started = response.id.is_some() && response.id == self.starting;
        if started {
            self.starting = None;
        }
        if response.success {
            return self.said(json!({"answered": response.command}), raw, out);
        }
        let error = response.error.unwrap_or_default();
        if started && self.at.turn.is_some() {
            let detail = json!({ "command": response.command, "error": error });
            let end = TurnEnd::failed(None, error, Some(detail));
            self.at.end_turn(&mut self.ledger, end, Some(raw), out);
            return;
        }
        let message = format!("Pi refused the command `{}`: {error}", response.command);
        self.warn(message, None, raw, out);
    }

    /// The result of an RPC `bash` command completes its item.
    fn shell_end(
        &mut self,
        key: &str,
        command: String,
        response: RpcResponse,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let result = response.data.unwrap_or(Value::Null);
        let result: Option<agentwire_pi::BashResult> = serde_json::from_value(result).ok();
        let output = result.as_ref().map(|result| result.output.clone());
        let exit_code = result
            .as_ref()
            .and_then(|result| result.exit_code.as_ref())
            .and_then(|code| code.as_i64());
        let status = match (response.success, exit_code) {
            (true, Some(0)) => ItemStatus::Completed,
            (true, None) if result.as_ref().is_some_and(|result| result.cancelled) => ItemStatus::Declined,
            _ => ItemStatus::Failed,
        };
        let content = agentwire_canonical::CommandExecutionContent {
            command: command.clone(),
            cwd: None,
            exit_code,
            output: output.or(response.error),
            duration_ms: None,
            description: None,
            parent_item_id: None,
        };
        let face = OpenItemFace::new(
            CanonicalItemType::CommandExecution,
            Some(command),
            content::data(content),
        );
        self.at.complete_item(&mut self.ledger, key, face, status, raw, out);
    }

    /// What the client wrote: a prompt starts a turn (or joins the running one's queue), an
    /// abort is the person's stop, a `bash` command runs a command of the person's own; the
    /// rest asks or sets what changes nothing a UI draws.
    fn on_command(&mut self, command: RpcCommand, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match command {
            RpcCommand::Prompt(prompt) => {
                if self.start_turn(raw, out) {
                    self.starting = prompt.id;
                } else {
                    self.said(json!({"queued": prompt.message}), raw, out);
                }
            }
            RpcCommand::Steer(steer) => self.said(json!({"steer": steer.message}), raw, out),
            RpcCommand::FollowUp(follow_up) => self.said(json!({"followUp": follow_up.message}), raw, out),
            RpcCommand::Abort(_) => {
                self.stopping = self.at.turn.is_some();
                self.said(json!({"stopRequested": true}), raw, out);
            }
            RpcCommand::Bash(bash) => {
                if self.at.thread.is_none() {
                    self.ensure_thread(raw, out);
                }
                let id = bash.id.clone().unwrap_or_default();
                let key = part(RPC_THREAD, &format!("bash-{id}"));
                let shell = agentwire_canonical::CommandExecutionContent {
                    command: bash.command.clone(),
                    cwd: None,
                    exit_code: None,
                    output: None,
                    duration_ms: None,
                    description: None,
                    parent_item_id: None,
                };
                let face = OpenItemFace::new(
                    CanonicalItemType::CommandExecution,
                    Some(bash.command.clone()),
                    content::data(shell),
                );
                self.at.start_item(&mut self.ledger, &key, face, raw, out);
                self.shells.insert(id, (key, bash.command));
            }
            RpcCommand::ClearQueue(_)
            | RpcCommand::NewSession(_)
            | RpcCommand::GetState(_)
            | RpcCommand::SetModel(_)
            | RpcCommand::CycleModel(_)
            | RpcCommand::GetAvailableModels(_)
            | RpcCommand::SetThinkingLevel(_)
            | RpcCommand::CycleThinkingLevel(_)
            | RpcCommand::GetAvailableThinkingLevels(_)
            | RpcCommand::SetSteeringMode(_)
            | RpcCommand::SetFollowUpMode(_)
            | RpcCommand::Compact(_)
            | RpcCommand::SetAutoCompaction(_)
            | RpcCommand::SetAutoRetry(_)
            | RpcCommand::AbortRetry(_)
            | RpcCommand::AbortBash(_)
            | RpcCommand::GetSessionStats(_)
            | RpcCommand::ExportHtml(_)
            | RpcCommand::SwitchSession(_)
            | RpcCommand::Fork(_)
            | RpcCommand::Clone(_)
            | RpcCommand::GetForkMessages(_)
            | RpcCommand::GetEntries(_)
            | RpcCommand::GetTree(_)
            | RpcCommand::GetLastAssistantText(_)
            | RpcCommand::SetSessionName(_)
            | RpcCommand::GetMessages(_)
            | RpcCommand::GetCommands(_) => {
                let tag = command.tag();
                self.said(json!({"command": tag}), raw, out);
            }
        }
    }
}

/// How a run ends as its last model message ended (`stopReason`): `interrupted` when aborted,
/// `failed` with its error as a sentence when it erred, else `completed`.
pub(crate) fn run_end(stop: StopReason, error: Option<String>) -> TurnEnd {
    match stop {
        StopReason::Aborted => TurnEnd::new(turn_outcome(TurnState::Interrupted, Some("aborted".to_owned()))),
        StopReason::Error => {
            let message = error.unwrap_or_else(|| "the model API call failed".to_owned());
            let detail = json!({ "stopReason": "error", "errorMessage": message });
            let readable = content::readable_error(&message).unwrap_or(message);
            TurnEnd::failed(Some("error".to_owned()), readable, Some(detail))
        }
        StopReason::Stop | StopReason::Length | StopReason::ToolUse | StopReason::Pending | StopReason::Deferred => {
            TurnEnd::new(turn_outcome(TurnState::Completed, None))
        }
    }
}

/// What a system message configures: the tools it gives the model, its prompt's sections, and
/// its prompt when it is one string.
pub(crate) fn system_config(system: &SystemMessage) -> Map<String, Value> {
    let tools: Vec<Value> = system
        .tools_added
        .iter()
        .flatten()
        .map(|tool| Value::String(tool.name.clone()))
        .collect();
    let sections: Vec<Value> = system.sections.iter().flatten().map(|(name, _)| json!(name)).collect();
    let mut config = Map::from_iter([
        ("tools".to_owned(), Value::Array(tools)),
        ("systemPromptSections".to_owned(), Value::Array(sections)),
    ]);
    if let SystemMessageContent::String(text) = &system.content
        && !text.is_empty()
    {
        config.insert("systemPrompt".to_owned(), Value::String(text.clone()));
    }
    config
}

/// Drops the keys this mapping made up from `providerRefs`: turn positions, item keys, and the
/// thread of an RPC stream ([`RPC_THREAD`]).
fn drop_made_up_refs(refs: &mut ProviderRefs) {
    drop_synthesized_refs(refs);
    if refs
        .provider_thread_id
        .as_ref()
        .is_some_and(|thread| thread.as_str().contains(SYNTHESIZED))
    {
        refs.provider_thread_id = None;
    }
}

/// The text of a user's content: a string, or its text blocks joined.
pub(crate) fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::String(text) => text.clone(),
        UserContent::Array(blocks) => blocks_text(blocks),
    }
}

/// The text blocks of a content list, joined.
pub(crate) fn blocks_text(blocks: &[ContentBlock]) -> String {
    content::joined(blocks.iter().filter_map(|block| match block {
        ContentBlock::Text(text) => Some(text.text.as_str()),
        ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) | ContentBlock::Image(_) => None,
    }))
}

impl Mapping for PiNormalizer {
    type Request = ();
    type Message<'a> = PiMessage;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, PiMessage>, Box<Misfit<'a>>> {
        let label = match frame.dir {
            agentwire_core::frame::Direction::In => RuntimeEventRawSource::PiEvent,
            agentwire_core::frame::Direction::Out => RuntimeEventRawSource::PiRpc,
        };
        match wire::decode(frame) {
            Ok(message) => {
                let time = match &message {
                    PiMessage::Line(PiLine::Session(header)) => ProviderTime::Text {
                        field: "timestamp",
                        text: header.timestamp.clone().into(),
                    },
                    PiMessage::Line(line) => wire::millis(line).map_or(ProviderTime::None, ProviderTime::Millis),
                    PiMessage::Command(_) => ProviderTime::None,
                };
                Ok(Decoded {
                    raw: Raw::new(label, Some(message.tag()), frame.msg),
                    time,
                    message,
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

    fn map<'a>(&mut self, _frame: &Frame<'a>, message: PiMessage, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.mode == Mode::Rpc {
            self.ensure_thread(raw, out);
        }
        match message {
            PiMessage::Line(line) => self.on_line(line, raw, out),
            PiMessage::Command(command) => self.on_command(command, raw, out),
        }
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// Pi asks its client nothing: its built-in tools run without asking.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(self.mode.source()))
    }
}

#[cfg(test)]
mod tests {
    use agentwire_pi::{ContentBlock, TextContent, UserContent};

    #[test]
    fn a_prompt_reads_as_its_text_blocks() {
        let text = |text: &str| {
            ContentBlock::Text(TextContent {
                text: text.to_owned(),
                text_signature: None,
            })
        };
        assert_eq!(super::user_text(&UserContent::String("hi".into())), "hi");
        assert_eq!(
            super::user_text(&UserContent::Array(vec![text("a"), text("b")])),
            super::blocks_text(&[text("a"), text("b")])
        );
    }
}
