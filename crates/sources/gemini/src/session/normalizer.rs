//! The Gemini CLI session-file normalizer: each line replayed into the conversation as it stands,
//! on top of the session [`Ledger`].
//!
//! What the file does not say line by line is kept here: the message list as it stands (to tell
//! which messages a checkpoint or a rewind drops), what each message drawn so far showed (a
//! message written again draws only what it adds), the turn each prompt started, and the
//! subagents (their `invoke_agent` call, their prompt, and whose conversation the records are
//! now: a subagent's file is merged into its session's by time and its records name no session).

use std::collections::{BTreeMap, BTreeSet};

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, ItemStatus, MessageOrigin, ProviderRuntimeEvent, ReasoningContent,
    RuntimeErrorClass, RuntimeErrorPayload, RuntimeEvent, RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId,
    ThreadTokenUsageUpdatedPayload, TokenUsage, ToolSummaryPayload, TurnCompletedPayload, TurnState, UsageScope,
    UserMessageContent,
};
use agentwire_gemini_cli_session::{
    FunctionResponse, GeminiMessageRecord, MessageRecord, MetadataUpdateRecord, Part, PartListUnion, PartUnion,
    SessionMetadataRecord, SessionMetadataRecordKind, ThoughtRecord, TokensSummary, ToolCallRecord, ToolCallStatus,
    ToolResultDisplay, UserMessageRecord,
};
use serde_json::{Map, Value, json};

use super::wire::{self, SessionLine};
use crate::tools::{Call, Outcome};
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame};
use agentwire_core::content;
use agentwire_core::conversation::{Conversation, drop_synthesized_refs, part};
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::Frame;
use agentwire_core::ids;
use agentwire_core::ledger::{Ledger, OpenItemFace, TurnEnd, turn_outcome};
use agentwire_core::lifecycle::{Decoded, Mapping, Misfit, ProviderTime};
use agentwire_core::normalizer::Options;
use agentwire_core::usage::{Meter, Tokens};

/// How the CLI begins the preamble it puts first in every main session: its own words, not the
/// person's.
const PREAMBLE: &str = "<session_context>";

/// The error the CLI's policy gives a call it refused (`Tool execution denied by policy.`): the
/// file keeps the message, not the stream's `policy_violation`.
const REFUSED: &str = "Tool execution denied by policy";

/// Why a turn a checkpoint or a rewind dropped ends.
const ERASED: &str = "the CLI erased the turn from its session file (its request failed or was cancelled, or the \
                      conversation was rewound)";

/// What a message drawn so far showed.
#[derive(Default)]
struct Drawn {
    text: bool,
    thoughts: usize,
    tokens: bool,
    /// Its tool calls, by id: whether each is complete.
    calls: BTreeMap<String, bool>,
}

/// A subagent an `invoke_agent` call ran.
struct Agent {
    /// The canonical id of the call's item: its records' `parentItemId`.
    item: RuntimeItemId,
    /// The call's id, answered by the parent's `functionResponse` when the subagent is done.
    call: String,
    /// The prompt it was given: its conversation's first message.
    prompt: String,
    started: bool,
}

/// Normalizes one Gemini CLI session file (with its subagents' files merged in).
pub struct GeminiSessionNormalizer {
    ledger: Ledger<()>,
    at: Conversation,
    /// The main conversation's message ids as they stand, in order.
    list: Vec<String>,
    /// The same ids as a set: whether a message is in the list, without walking it (a long
    /// session holds thousands).
    listed: BTreeSet<String>,
    /// Every message drawn so far, by id.
    drawn: BTreeMap<String, Drawn>,
    /// The turn each prompt started, by the prompt's id.
    prompts: BTreeMap<String, String>,
    /// The model last named.
    model: Option<String>,
    /// The tokens of the model's responses, by call, by turn and so far.
    meter: Meter,
    /// The model answered in the open turn (a turn the file ends in is then complete).
    answered: bool,
    /// The failure a UI `error` record reported in the open turn.
    failure: Option<String>,
    /// The subagents by agent id.
    agents: BTreeMap<String, Agent>,
    /// The subagent whose conversation the records are now.
    active: Option<String>,
}

impl GeminiSessionNormalizer {
    /// A normalizer for one session file.
    pub fn new(options: Options) -> Self {
        GeminiSessionNormalizer {
            ledger: Ledger::new(&super::GEMINI_SESSION, options)
                .with_positional_turns()
                .with_provider_refs(drop_synthesized_refs),
            at: Conversation::default(),
            list: Vec::new(),
            listed: BTreeSet::new(),
            drawn: BTreeMap::new(),
            prompts: BTreeMap::new(),
            model: None,
            meter: Meter::default(),
            answered: false,
            failure: None,
            agents: BTreeMap::new(),
            active: None,
        }
    }

    fn on_line(&mut self, line: SessionLine, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match line {
            SessionLine::Metadata(record) => self.metadata_line(record, raw, out),
            SessionLine::Message(message) => {
                let before = out.len();
                self.message(*message, raw, out);
                if out.len() == before {
                    let said = Map::from_iter([("messageWrittenAgain".to_string(), Value::Bool(true))]);
                    self.at.metadata(&mut self.ledger, said, raw, out);
                }
            }
            SessionLine::Set(record) => self.set(record, raw, out),
            SessionLine::Rewind(rewind) => {
                let at = self.list.iter().position(|id| *id == rewind.rewind_to).unwrap_or(0);
                let kept = self.list[..at].to_vec();
                self.erase(kept, raw, out);
            }
        }
    }

    /// A writer starts: the first names the thread; a later one (a resumed run, an ACP load)
    /// ends the turn the last writer left, and its list starts over (it writes its history
    /// with a checkpoint next). A subagent's metadata, merged in, is the thread's metadata.
    fn metadata_line(&mut self, record: SessionMetadataRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let mut said = members(&record);
        said.remove("sessionId");
        said.remove("lastUpdated");
        let subagent = matches!(record.kind, Some(SessionMetadataRecordKind::Subagent));
        if subagent && self.at.thread.is_some() {
            said.insert("agentId".to_string(), Value::String(record.session_id));
            let said = Map::from_iter([("subagent".to_string(), Value::Object(said))]);
            return self.at.metadata(&mut self.ledger, said, raw, out);
        }
        if self.at.thread.is_some() {
            self.end_turn(Some(raw), out);
            self.list.clear();
            self.listed.clear();
        }
        // Another session's file (files read one after the other): nothing of this one's can be
        // written again there, so what was drawn is forgotten.
        if self
            .at
            .thread
            .as_deref()
            .is_some_and(|thread| thread != record.session_id)
        {
            self.drawn.clear();
            self.prompts.clear();
            self.agents.clear();
        }
        self.at.see_thread(&mut self.ledger, &record.session_id, raw, out);
        self.at.configured(&mut self.ledger, &said, raw, out);
    }

    /// A `$set`: a checkpoint of the message list, and the other fields as the thread's
    /// metadata. One that only moves `lastUpdated` says nothing a UI draws and yields nothing.
    fn set(&mut self, record: MetadataUpdateRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let set = record.set;
        let mut said = members(&set);
        said.remove("messages");
        said.remove("lastUpdated");
        // A subagent's last line: its result, the subagent's metadata, not the session's.
        if let Some(summary) = &set.summary
            && let Some(agent) = self.active.take()
        {
            said.remove("summary");
            let subagent = json!({ "agentId": agent, "summary": summary });
            said.insert("subagent".to_string(), subagent);
        }
        let before = out.len();
        if let Some(messages) = set.messages {
            let count = messages.len();
            let kept = messages.iter().map(|message| id_of(message).to_string()).collect();
            for message in messages {
                if !self.drawn.contains_key(id_of(&message)) {
                    self.message(message, raw, out);
                }
            }
            self.erase(kept, raw, out);
            if out.len() == before {
                said.insert("messages".to_string(), Value::from(count));
            }
        }
        if !said.is_empty() {
            self.at.metadata(&mut self.ledger, said, raw, out);
        }
    }

    /// The main conversation now holds `kept`: what it held beyond them is said, and the turn a
    /// dropped prompt started, if open, is aborted.
    fn erase(&mut self, kept: Vec<String>, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let keep: BTreeSet<&str> = kept.iter().map(String::as_str).collect();
        let erased: Vec<String> = self
            .list
            .iter()
            .filter(|id| !keep.contains(id.as_str()))
            .cloned()
            .collect();
        self.listed = kept.iter().cloned().collect();
        self.list = kept;
        if erased.is_empty() {
            return;
        }
        let open_turn_erased = erased.iter().any(|id| {
            self.prompts
                .get(id)
                .is_some_and(|turn| self.at.turn.as_ref() == Some(turn))
        });
        if open_turn_erased {
            self.answered = false;
            self.failure = None;
            self.at.abort_turn(&mut self.ledger, ERASED, raw, out);
        }
        let ids = erased.into_iter().map(Value::String).collect();
        let said = Map::from_iter([("erasedMessages".to_string(), Value::Array(ids))]);
        self.at.metadata(&mut self.ledger, said, raw, out);
    }

    fn message(&mut self, message: MessageRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        match message {
            MessageRecord::User(user) => self.user(user, raw, out),
            MessageRecord::Gemini(gemini) => self.gemini(gemini, raw, out),
            // The interactive UI's notes: its words, not the person's.
            MessageRecord::Info(info) => {
                self.remember(&info.id, None);
                let text = text_of(&info.content);
                self.note(&info.id, &text, raw, out);
            }
            MessageRecord::Warning(warning) => {
                self.remember(&warning.id, None);
                let context = self.at.context(&mut self.ledger, Some(raw));
                self.ledger.warn(&context, text_of(&warning.content), None, out);
            }
            // The error the interactive UI showed: the turn's one failure.
            MessageRecord::Error(error) => {
                self.remember(&error.id, None);
                let message = text_of(&error.content);
                let context = self.at.context(&mut self.ledger, Some(raw));
                let first = match (&self.at.thread, &self.at.turn) {
                    (Some(thread), Some(turn)) => self.ledger.report_turn_error(thread, turn),
                    _ => true,
                };
                if first {
                    self.failure = Some(message.clone());
                    let payload = RuntimeErrorPayload {
                        message,
                        class: Some(RuntimeErrorClass::ProviderError),
                        detail: None,
                    };
                    self.ledger.emit(&context, RuntimeEvent::RuntimeError(payload), out);
                } else {
                    let message = format!("{message} (the turn's failure was already reported)");
                    self.ledger.warn(&context, message, None, out);
                }
            }
        }
    }

    /// Notes a message as part of the main conversation (not a subagent's) and as drawn.
    fn remember(&mut self, id: &str, agent: Option<&str>) {
        if agent.is_none() && self.listed.insert(id.to_string()) {
            self.list.push(id.to_string());
        }
        self.drawn.entry(id.to_string()).or_default();
    }

    /// A user message: tool results going back to the model, the CLI's preamble, a subagent's
    /// prompt, or a person's prompt, which starts a turn.
    fn user(&mut self, user: UserMessageRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let responses = responses_of(&user.content);
        if !responses.is_empty() {
            return self.results(&user.id, &responses, raw, out);
        }
        let seen = self.drawn.contains_key(&user.id);
        let text = text_of(&user.content);
        let agent = self.agent_of_prompt(&text);
        self.remember(&user.id, agent.as_deref());
        if seen {
            return;
        }
        if text.starts_with(PREAMBLE) {
            return self.note(&user.id, &text, raw, out);
        }
        let parent = agent.as_deref().map(|agent| self.agents[agent].item.clone());
        if parent.is_none() {
            self.end_turn(Some(raw), out);
            self.at.start_turn(&mut self.ledger, self.model.clone(), raw, out);
            if let Some(turn) = &self.at.turn {
                self.prompts.insert(user.id.clone(), turn.clone());
            }
        }
        let prompt = UserMessageContent {
            text,
            attachments: None,
            origin: None,
            parent_item_id: parent,
        };
        let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(prompt));
        self.at
            .whole_item(&mut self.ledger, &user.id, face, ItemStatus::Completed, raw, out);
    }

    /// The subagent whose conversation a prompt is: the running one, else the one whose call
    /// gave this prompt and has not started.
    fn agent_of_prompt(&mut self, text: &str) -> Option<String> {
        if self.active.is_some() {
            return self.active.clone();
        }
        let (id, agent) = self
            .agents
            .iter_mut()
            .find(|(_, agent)| !agent.started && agent.prompt == text)?;
        agent.started = true;
        self.active = Some(id.clone());
        self.active.clone()
    }

    /// Tool results going back to the model: a call still open completes from its result;
    /// results of calls already complete are a `tool.summary`. The parent's answer to a
    /// subagent's call ends that subagent's conversation.
    fn results(
        &mut self,
        id: &str,
        responses: &[&FunctionResponse],
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let call_ids: Vec<String> = responses.iter().filter_map(|response| response.id.clone()).collect();
        if let Some(active) = &self.active
            && call_ids.iter().any(|call| self.agents[active].call == *call)
        {
            self.active = None;
        }
        let agent = self.active.clone().or_else(|| agent_of_call(call_ids.first()?));
        self.remember(id, agent.as_deref());
        let before = out.len();
        for response in responses {
            let Some(call) = &response.id else { continue };
            let open = self
                .drawn
                .values_mut()
                .find_map(|drawn| drawn.calls.get_mut(call).filter(|complete| !**complete));
            let Some(complete) = open else { continue };
            *complete = true;
            let name = response.name.as_deref().unwrap_or_default();
            let empty = Map::new();
            let tool = Call { name, args: &empty };
            let (output, error) = response_text(response);
            let outcome = match &error {
                Some(error) => Outcome::Failed { error },
                None => Outcome::Succeeded {
                    output: output.as_deref(),
                },
            };
            let parent = self.parent_of(agent.as_deref());
            let face = OpenItemFace::new(
                tool.item_type(),
                tool.title(),
                content::data(tool.content(outcome, parent)),
            );
            self.at
                .complete_item(&mut self.ledger, call, face, outcome.status(), raw, out);
        }
        if out.len() == before {
            let context = self.at.context(&mut self.ledger, Some(raw));
            let payload = ToolSummaryPayload {
                summary: "the tool results went back to the model".to_string(),
                preceding_tool_use_ids: Some(call_ids),
            };
            self.ledger.emit(&context, RuntimeEvent::ToolSummary(payload), out);
        }
    }

    /// The canonical id of the subagent call whose work `agent`'s records are.
    fn parent_of(&self, agent: Option<&str>) -> Option<RuntimeItemId> {
        agent
            .and_then(|agent| self.agents.get(agent))
            .map(|agent| agent.item.clone())
    }

    /// A model message, as it was last written: its thoughts, its text, its token use and its
    /// tool calls, each drawn once; a call drawn open completes when a later write gives its
    /// final state.
    fn gemini(&mut self, gemini: GeminiMessageRecord, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let agent = self.active.clone().or_else(|| {
            let calls = gemini.tool_calls.as_deref().unwrap_or_default();
            calls.iter().find_map(|call| agent_of_call(&call.id))
        });
        self.remember(&gemini.id, agent.as_deref());
        let parent = self.parent_of(agent.as_deref());
        if agent.is_none() {
            if self.at.turn.is_none() {
                self.at.start_turn(&mut self.ledger, gemini.model.clone(), raw, out);
            }
            self.answered = true;
        }
        if let Some(model) = &gemini.model
            && self.model.as_ref() != Some(model)
        {
            self.model = Some(model.clone());
            let config = Map::from_iter([("model".to_string(), Value::String(model.clone()))]);
            self.at.configured(&mut self.ledger, &config, raw, out);
        }
        let thoughts = gemini.thoughts.as_deref().unwrap_or_default();
        let drawn = self.drawn.entry(gemini.id.clone()).or_default();
        let (new_thoughts, new_text, new_tokens) = (
            thoughts.len() > drawn.thoughts,
            !drawn.text,
            !drawn.tokens && gemini.tokens.is_some(),
        );
        drawn.thoughts = drawn.thoughts.max(thoughts.len());
        if new_thoughts {
            // One entry per streamed chunk, each trimmed by the CLI: the chunks of one thought.
            let words = |part: fn(&ThoughtRecord) -> &str| {
                let parts: Vec<&str> = thoughts.iter().map(part).filter(|text| !text.is_empty()).collect();
                parts.join(" ")
            };
            let text = words(|thought| &thought.description);
            let summary = words(|thought| &thought.subject);
            let reasoning = ReasoningContent {
                text,
                summary: (!summary.is_empty()).then_some(summary),
                parent_item_id: parent.clone(),
            };
            let face = OpenItemFace::untitled(CanonicalItemType::Reasoning, content::data(reasoning));
            let key = part(&gemini.id, "thoughts");
            self.at
                .whole_item(&mut self.ledger, &key, face, ItemStatus::Completed, raw, out);
        }
        let text = text_of(&gemini.content);
        if new_text && !text.is_empty() {
            self.drawn.entry(gemini.id.clone()).or_default().text = true;
            let message = AssistantMessageContent {
                text,
                parent_item_id: parent.clone(),
            };
            let face = OpenItemFace::untitled(CanonicalItemType::AssistantMessage, content::data(message));
            self.at
                .whole_item(&mut self.ledger, &gemini.id, face, ItemStatus::Completed, raw, out);
        }
        if new_tokens && let Some(tokens) = &gemini.tokens {
            self.drawn.entry(gemini.id.clone()).or_default().tokens = true;
            let context = self.at.context(&mut self.ledger, Some(raw));
            let payload = ThreadTokenUsageUpdatedPayload {
                usage: self.meter.call(call_usage(tokens, gemini.model.clone())),
            };
            self.ledger
                .emit(&context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
        }
        for call in gemini.tool_calls.iter().flatten() {
            self.tool_call(&gemini.id, call, parent.clone(), raw, out);
        }
    }

    /// A tool call of a model message: started the first time, completed once its state is
    /// final. An `invoke_agent` call names the subagent it ran.
    fn tool_call(
        &mut self,
        message: &str,
        call: &ToolCallRecord,
        parent: Option<RuntimeItemId>,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let tool = Call {
            name: &call.name,
            args: &call.args,
        };
        if let (Some(agent), Some(thread)) = (&call.agent_id, &self.at.thread)
            && !self.agents.contains_key(agent)
        {
            let item = ids::item(self.ledger.source(), thread, &call.id);
            let prompt = call.args.get("prompt").and_then(Value::as_str).unwrap_or_default();
            let agent_record = Agent {
                item,
                call: call.id.clone(),
                prompt: prompt.to_string(),
                started: false,
            };
            self.agents.insert(agent.clone(), agent_record);
        }
        let drawn = self.drawn.entry(message.to_string()).or_default();
        let known = drawn.calls.get(&call.id).copied();
        let (output, error) = call_text(call);
        let outcome = match call.status {
            ToolCallStatus::Success => Outcome::Succeeded {
                output: output.as_deref(),
            },
            ToolCallStatus::Error => {
                let error = error.as_deref().unwrap_or_default();
                if error.starts_with(REFUSED) {
                    Outcome::Refused { error }
                } else {
                    Outcome::Failed { error }
                }
            }
            ToolCallStatus::Cancelled => Outcome::Cancelled,
            ToolCallStatus::Validating
            | ToolCallStatus::Scheduled
            | ToolCallStatus::Executing
            | ToolCallStatus::AwaitingApproval => Outcome::Running,
        };
        let complete = !matches!(outcome, Outcome::Running);
        drawn.calls.insert(call.id.clone(), complete || known == Some(true));
        if known == Some(true) || (known == Some(false) && !complete) {
            return;
        }
        if known.is_none() {
            let started = OpenItemFace::new(
                tool.item_type(),
                tool.title(),
                content::data(tool.content(Outcome::Running, parent.clone())),
            );
            self.at.start_item(&mut self.ledger, &call.id, started, raw, out);
        }
        if complete {
            let done = OpenItemFace::new(
                tool.item_type(),
                tool.title(),
                content::data(tool.content(outcome, parent)),
            );
            self.at
                .complete_item(&mut self.ledger, &call.id, done, outcome.status(), raw, out);
        }
    }

    /// Text the CLI put into the conversation itself: a `user_message` item with
    /// `origin: "cli"`, in the open turn (the thread when none is open).
    fn note(&mut self, key: &str, text: &str, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let note = UserMessageContent {
            text: text.to_string(),
            attachments: None,
            origin: Some(MessageOrigin::Cli),
            parent_item_id: None,
        };
        let face = OpenItemFace::untitled(CanonicalItemType::UserMessage, content::data(note));
        self.at
            .whole_item(&mut self.ledger, key, face, ItemStatus::Completed, raw, out);
    }

    /// Ends the open turn: the file has no turn boundaries, a turn ends with the next prompt, a
    /// new writer, or the file's end. Failed when the UI recorded an error in it.
    fn end_turn(&mut self, raw: Option<Raw<'_>>, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.at.turn.is_none() {
            return;
        }
        let end = match self.failure.take() {
            Some(message) => TurnEnd::failed(None, message, None),
            None => TurnEnd::new(turn_outcome(TurnState::Completed, None)),
        };
        let end = TurnEnd {
            outcome: TurnCompletedPayload {
                usage: self.meter.end_turn(),
                ..end.outcome
            },
            ..end
        };
        self.answered = false;
        self.at.end_turn(&mut self.ledger, end, raw, out);
    }
}

/// A message's id.
fn id_of(message: &MessageRecord) -> &str {
    match message {
        MessageRecord::User(record) => &record.id,
        MessageRecord::Gemini(record) => &record.id,
        MessageRecord::Info(record) => &record.id,
        MessageRecord::Error(record) => &record.id,
        MessageRecord::Warning(record) => &record.id,
    }
}

/// The subagent whose call id this is (`<agent id>#<turn>-<index>`).
fn agent_of_call(call: &str) -> Option<String> {
    call.split_once('#').map(|(agent, _)| agent.to_string())
}

/// A record's members as the schema names them.
/// One model response's tokens (`scope: call`; Gemini states no cost): the prompt with the tool
/// use prompt is input, candidates with thoughts are output, thoughts the reasoning.
fn call_usage(tokens: &TokensSummary, model: Option<String>) -> TokenUsage {
    let thoughts = tokens.thoughts.unwrap_or(0);
    let mut usage = Tokens {
        input: Some(tokens.input.saturating_add(tokens.tool.unwrap_or(0))),
        cached: Some(tokens.cached),
        cache_write: None,
        output: Some(tokens.output.saturating_add(thoughts)),
        reasoning: tokens.thoughts,
        total: Some(tokens.total),
    }
    .usage(UsageScope::Call);
    usage.model = model;
    usage
}

fn members(record: &impl serde::Serialize) -> Map<String, Value> {
    match serde_json::to_value(record) {
        Ok(Value::Object(members)) => members,
        Ok(_) | Err(_) => Map::new(),
    }
}

/// The parts of a message's content.
fn parts(content: &PartListUnion) -> Vec<Result<&str, &Part>> {
    match content {
        PartListUnion::String(text) => vec![Ok(text.as_str())],
        PartListUnion::Part(part) => vec![Err(part)],
        PartListUnion::Array(parts) => parts
            .iter()
            .map(|part| match part {
                PartUnion::String(text) => Ok(text.as_str()),
                PartUnion::Part(part) => Err(part),
            })
            .collect(),
    }
}

/// A message's text: its text parts (thoughts left out) joined by blank lines.
fn text_of(content: &PartListUnion) -> String {
    content::joined(parts(content).into_iter().filter_map(|part| match part {
        Ok(text) => Some(text),
        Err(part) if part.thought != Some(true) => part.text.as_deref(),
        Err(_) => None,
    }))
}

/// The tool results a message hands back to the model.
fn responses_of(content: &PartListUnion) -> Vec<&FunctionResponse> {
    parts(content)
        .into_iter()
        .filter_map(|part| part.err()?.function_response.as_ref())
        .collect()
}

/// A result's output and error as text (`{output}` on success, `{error}` on failure).
fn response_text(response: &FunctionResponse) -> (Option<String>, Option<String>) {
    let field = |key: &str| match response.response.as_ref()?.get(key)? {
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    };
    (field("output"), field("error"))
}

/// A call's output as the UI showed it (its display: the text, a terminal screen's lines, a
/// subagent's result), else as the model got it; and its error.
fn call_text(call: &ToolCallRecord) -> (Option<String>, Option<String>) {
    let response = call
        .result
        .as_ref()
        .and_then(|result| responses_of(result).first().copied());
    let (output, error) = response.map(response_text).unwrap_or_default();
    let shown = match &call.result_display {
        Some(ToolResultDisplay::String(text)) => Some(text.clone()),
        Some(ToolResultDisplay::AnsiOutput(screen)) => Some(
            screen
                .0
                .iter()
                .map(|line| line.iter().map(|token| token.text.as_str()).collect::<String>())
                .collect::<Vec<_>>()
                .join("\n")
                .trim_end()
                .to_string(),
        ),
        Some(ToolResultDisplay::SubagentProgress(progress)) => progress.result.clone(),
        Some(
            ToolResultDisplay::FileDiff(_)
            | ToolResultDisplay::TodoList(_)
            | ToolResultDisplay::StructuredToolResult(_),
        )
        | None => None,
    };
    match error {
        Some(error) => (None, Some(error)),
        None => (shown.or(output), None),
    }
}

impl Mapping for GeminiSessionNormalizer {
    type Request = ();
    type Message<'a> = SessionLine;

    fn ledger(&mut self) -> &mut Ledger<()> {
        &mut self.ledger
    }

    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, SessionLine>, Box<Misfit<'a>>> {
        match wire::decode(frame) {
            Ok(line) => Ok(Decoded {
                raw: Raw::new(RuntimeEventRawSource::GeminiSessionRecord, Some(line.tag()), frame.msg),
                time: match wire::timestamp(&line) {
                    Some(time) => ProviderTime::Text {
                        field: "timestamp",
                        text: time.to_owned().into(),
                    },
                    None => ProviderTime::None,
                },
                message: line,
            }),
            Err(problem) => Err(Box::new(Misfit {
                problem,
                raw: Raw::new(RuntimeEventRawSource::GeminiSessionRecord, frame.tag("type"), frame.msg),
                tag_field: "type",
                time: ProviderTime::None,
            })),
        }
    }

    fn map<'a>(&mut self, _frame: &Frame<'a>, line: SessionLine, raw: Raw<'a>, out: &mut Vec<ProviderRuntimeEvent>) {
        self.on_line(line, raw, out);
    }

    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a> {
        self.at.context(&mut self.ledger, raw)
    }

    /// The turn the file ends in is complete once the model answered in it; one it did not
    /// answer is left to the ledger, which aborts it (the file ends mid-turn).
    fn settle(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.answered {
            self.end_turn(None, out);
        }
    }

    /// A session file is a record: nobody answers it.
    fn answer(&self, _request: &RuntimeRequestId, _reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        Err(AnswerError::Unanswerable(&super::GEMINI_SESSION))
    }
}
