//! What the agent asks of its client (section 5.3): permissions and elicitations as requests
//! that remember what they offered, the client-side work of `fs/*` and `terminal/*` tied to the
//! tool call it serves, and Cursor's `cursor/*` extension requests.
//!
//! Each open request keeps in the ledger ([`AcpRequest`]) the JSON-RPC id with its original type
//! and what was offered (a permission's options; a Cursor request's params), so an answer can be
//! read back in canonical terms here, and a canonical decision turned into a reply frame by a
//! host.

use agentwire_acp::{
    AgentRequest, AgentRequestResult, CursorAgentRequest, CursorAgentRequestResult, CursorAskQuestionOutcome,
    CursorGenerateImageOutcome, CursorTaskOutcome, CursorUpdateTodosParams, RequestId, RequestPermissionOutcome,
};
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, ContentStreamKind, ItemStatus, ProviderRuntimeEvent, RequestOpenedPayload,
    RuntimeEvent, ToolProgressPayload, TurnPlanStep, TurnPlanUpdatedPayload,
};
use serde_json::{Map, Value, json};

use super::normalizer::{AcpNormalizer, delta, to_value};
use super::offer::{
    AcpRequest, Offer, OfferedOption, Work, ask_question_decision, create_plan_decision, cursor_refusal_reason,
    elicitation_decision, generate_image_decision, task_decision, update_todos_decision,
};
use super::tools;
use super::updates::{Item, object};
use agentwire_core::answer::with_message;
use agentwire_core::decision::Decision;
use agentwire_core::emit::{Context, Raw};
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ledger::{Answer, OpenRequest, Place};

/// The JSON text of a request id: the ledger's key (so `1` and `"1"` differ).
fn key_of(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

impl AcpNormalizer {
    pub(super) fn on_agent_request(
        &mut self,
        frame: &Frame<'_>,
        request: &AgentRequest,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let method = request.method();
        let raw = self.raw(frame, Some(method));
        match request {
            AgentRequest::SessionRequestPermission { id, params } => {
                let session = params.session_id.0.clone();
                let tool_call_id = params.tool_call.tool_call_id.0.clone();
                let tool_call = params.tool_call.to_json();
                let fields = object(tool_call.clone());
                self.on_tool(
                    raw,
                    &session,
                    fields,
                    params.tool_call.kind.as_ref(),
                    params.tool_call.status.as_ref(),
                    out,
                );
                let tool = self.sessions.get(&session).and_then(|s| s.tools.get(&tool_call_id));
                let item_type = tool.map_or(CanonicalItemType::DynamicToolCall, |tool| tool.item_type);
                // A plan to approve is read by its text; anything else by its title.
                let detail = match item_type {
                    CanonicalItemType::Plan => tool.and_then(|tool| tools::plan_text(&tool.data)),
                    _ => None,
                }
                .or_else(|| tool.and_then(|tool| tool.title.clone()));
                let options = params
                    .options
                    .iter()
                    .map(|option| OfferedOption {
                        option_id: option.option_id.0.clone(),
                        kind: option.kind,
                        name: option.name.clone(),
                    })
                    .collect();
                // A subagent's call has no item: its permission is asked on the Task's.
                let item = self
                    .sessions
                    .get(&session)
                    .and_then(|s| s.tools.get(&tool_call_id))
                    .and_then(|tool| tool.parent.clone())
                    .unwrap_or_else(|| tool_call_id.clone());
                let opened = Opened {
                    request_type: tools::request_type(item_type),
                    detail,
                    args: json!({ "toolCall": tool_call, "options": params.options.to_json() }),
                    waits: true,
                    questions: None,
                    item: Some(item),
                };
                let offer = Offer::Permission { tool_call_id, options };
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
            AgentRequest::ElicitationCreate { id, params } => {
                let session = self.last_session.clone().unwrap_or_default();
                let sent = params.to_json();
                let questions = json!({
                    "message": sent["message"],
                    "mode": sent["mode"],
                    "url": sent["url"],
                    "requestedSchema": sent["requestedSchema"],
                });
                let opened = Opened {
                    request_type: CanonicalRequestType::ToolUserInput,
                    detail: Some(params.message.clone()),
                    args: sent,
                    waits: true,
                    questions: Some(questions),
                    item: None,
                };
                let offer = Offer::Elicitation(params.value().clone());
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
            AgentRequest::FsReadTextFile { id, params } => {
                let tool = self.tool_for_path(&params.session_id.0, &params.path);
                let summary = format!("reading {}", params.path);
                self.work(raw, id, method, &params.session_id.0, tool, summary, out);
            }
            AgentRequest::FsWriteTextFile { id, params } => {
                let tool = self.tool_for_path(&params.session_id.0, &params.path);
                let summary = format!("writing {}", params.path);
                self.work(raw, id, method, &params.session_id.0, tool, summary, out);
            }
            AgentRequest::TerminalCreate { id, params } => {
                let mut command = params.command.clone();
                for arg in params.args.iter().flatten() {
                    command.push(' ');
                    command.push_str(arg);
                }
                let tool = self.tool_for_command(&params.session_id.0, &command);
                let summary = format!("running {command}");
                self.work(raw, id, method, &params.session_id.0, tool, summary, out);
            }
            AgentRequest::TerminalOutput { id, params } => {
                let tool = self.terminal_tool(&params.terminal_id.0);
                self.work(
                    raw,
                    id,
                    method,
                    &params.session_id.0,
                    tool,
                    "reading the terminal output".into(),
                    out,
                );
            }
            AgentRequest::TerminalWaitForExit { id, params } => {
                let tool = self.terminal_tool(&params.terminal_id.0);
                let summary = "waiting for the command to exit".to_string();
                self.work(raw, id, method, &params.session_id.0, tool, summary, out);
            }
            AgentRequest::TerminalKill { id, params } => {
                let tool = self.terminal_tool(&params.terminal_id.0);
                self.work(
                    raw,
                    id,
                    method,
                    &params.session_id.0,
                    tool,
                    "killing the command".into(),
                    out,
                );
            }
            AgentRequest::TerminalRelease { id, params } => {
                // A released terminal's id is no longer valid: forget it.
                let tool = self.terminals.remove(&params.terminal_id.0).map(|(_, tool)| tool);
                let summary = "releasing the terminal".to_string();
                self.work(raw, id, method, &params.session_id.0, tool, summary, out);
            }
        }
    }

    /// The open tool call of a session a file path belongs to: the one whose locations or input
    /// name the path, else the only one open.
    fn tool_for_path(&self, session: &str, path: &str) -> Option<String> {
        let open = self.sessions.get(session)?;
        let names = |data: &Map<String, Value>| {
            let in_locations = data
                .get("locations")
                .and_then(Value::as_array)
                .is_some_and(|locations| {
                    locations
                        .iter()
                        .any(|l| l.get("path").and_then(Value::as_str) == Some(path))
                });
            let in_input = data.get("rawInput").is_some_and(|input| {
                ["file_path", "path", "abs_path", "absolute_path"]
                    .iter()
                    .any(|key| input.get(key).and_then(Value::as_str) == Some(path))
            });
            in_locations || in_input
        };
        // A subagent's call has no item for the work to show on.
        let open_calls = || {
            open.tools
                .iter()
                .filter(|(_, tool)| !tool.done && tool.parent.is_none())
        };
        open_calls()
            .find(|(_, tool)| names(&tool.data))
            .or_else(|| only(open_calls()))
            .map(|(id, _)| id.clone())
    }

    /// The open command tool call of a session a terminal command runs for: the one whose input
    /// is that command, else the only open command.
    fn tool_for_command(&self, session: &str, command: &str) -> Option<String> {
        let open = self.sessions.get(session)?;
        let commands = || {
            open.tools.iter().filter(|(_, tool)| {
                !tool.done && tool.parent.is_none() && tool.item_type == CanonicalItemType::CommandExecution
            })
        };
        commands()
            .find(|(_, tool)| {
                tool.data
                    .get("rawInput")
                    .and_then(|input| input.get("command"))
                    .and_then(Value::as_str)
                    == Some(command)
            })
            .or_else(|| only(commands()))
            .map(|(id, _)| id.clone())
    }

    fn terminal_tool(&self, terminal: &str) -> Option<String> {
        self.terminals.get(terminal).map(|(_, tool)| tool.clone())
    }

    /// Client-side work: `tool.progress` on the tool call it serves (on the turn when it serves
    /// none the protocol links), remembered until the client answers.
    #[allow(clippy::too_many_arguments)]
    fn work(
        &mut self,
        raw: Raw<'_>,
        id: &RequestId,
        method: &'static str,
        session: &str,
        tool: Option<String>,
        summary: String,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = match &tool {
            Some(tool) => {
                let turn = self.tool_turn(session, tool);
                self.item_context(session, turn.as_deref(), tool, true, Some(raw))
            }
            None => self.session_context(session, Some(raw)),
        };
        let payload = ToolProgressPayload {
            tool_use_id: tool.clone(),
            tool_name: Some(method.to_string()),
            summary: Some(summary),
            elapsed_seconds: None,
        };
        self.emit(&context, RuntimeEvent::ToolProgress(payload), out);
        self.agent_asks.insert(
            id.clone(),
            Work {
                method,
                session: session.to_string(),
                tool,
            },
        );
    }

    /// Opens a request: `request.opened` (and `user-input.requested` for questions) in the
    /// place of what it is about, remembered with what it offered.
    #[allow(clippy::too_many_arguments)]
    fn open_request(
        &mut self,
        raw: Raw<'_>,
        id: &RequestId,
        method: &'static str,
        session: &str,
        offer: Offer,
        opened: Opened,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = key_of(id);
        // The request belongs to the tool call it is about when that item exists.
        let item = opened
            .item
            .clone()
            .filter(|item| self.sessions.get(session).is_some_and(|s| s.tools.contains_key(item)));
        let turn = item
            .as_deref()
            .and_then(|item| self.tool_turn(session, item))
            .or_else(|| self.update_turn(session));
        let place = Place {
            thread: Some(session.to_string()),
            turn: turn.clone(),
            item: item.filter(|_| turn.is_some()),
        };
        let provider_id = id.to_string();
        let context = self
            .ledger
            .request_context(&key, &provider_id, Direction::In, &place, Some(raw));
        let payload = RequestOpenedPayload {
            request_type: opened.request_type,
            detail: opened.detail,
            args: Some(opened.args),
        };
        let request = OpenRequest {
            request_type: opened.request_type,
            place,
            provider_id,
            dir: Direction::In,
            waits: opened.waits,
            user_input: false,
            answer: None,
            extra: AcpRequest {
                method,
                id: id.clone(),
                jsonrpc: agentwire_core::jsonrpc::carries_version(raw.payload),
                session: session.to_string(),
                offer,
            },
        };
        self.ledger.ask(key, request, payload, opened.questions, &context, out);
    }

    /// Settles an open request with the client's answer, carried by `raw`.
    fn settle(&mut self, raw: Raw<'_>, id: &RequestId, answer: Answer, out: &mut Vec<ProviderRuntimeEvent>) {
        let key = key_of(id);
        if let Some(request) = self.ledger.request_mut(&key) {
            request.answer = Some(answer);
        }
        self.ledger.resolve_request(&key, Some(raw), out);
    }

    /// The client's answer to an agent request.
    pub(super) fn on_agent_request_result(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &AgentRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = self.raw(frame, Some(result.method())).with_type("result");
        match result {
            AgentRequestResult::SessionRequestPermission(response) => {
                // Settled by its turn's end: the `cancelled` reply ACP asks for then repeats the
                // answer the settlement gave (quiet unless the state changes, as a confirmation).
                if matches!(response.outcome, RequestPermissionOutcome::Cancelled) && self.ledger.take_owed(&key_of(id))
                {
                    let reason = "the client answered the request its turn's end settled: cancelled";
                    return self
                        .ledger
                        .settle_state_carrying(&Context::bare(raw), Some(reason), out);
                }
                // Settled already (its turn ended first): another answer changes nothing.
                if self.ledger.request(&key_of(id)).is_none() {
                    let message = format!("the client answered permission request {id}, which is no longer open");
                    let detail = json!({ "outcome": to_value(&response.outcome) });
                    return self.ledger.warn(&Context::bare(raw), message, Some(detail), out);
                }
                let options = match self.ledger.request(&key_of(id)).map(|request| &request.extra.offer) {
                    Some(Offer::Permission { options, .. }) => options.clone(),
                    Some(
                        Offer::Elicitation(_)
                        | Offer::AskQuestion(_)
                        | Offer::CreatePlan(_)
                        | Offer::UpdateTodos(_)
                        | Offer::Task(_)
                        | Offer::GenerateImage(_),
                    )
                    | None => Vec::new(),
                };
                let answer = match &response.outcome {
                    RequestPermissionOutcome::Cancelled => Answer {
                        decision: Decision::Cancel,
                        resolution: json!({ "outcome": "cancelled" }),
                        answers: None,
                    },
                    RequestPermissionOutcome::Selected { option_id, .. } => {
                        match options.iter().find(|option| option.option_id == option_id.0) {
                            Some(option) => Answer {
                                decision: option.decision(),
                                resolution: json!({
                                    "outcome": "selected",
                                    "optionId": option.option_id,
                                    "kind": option.kind.to_string(),
                                    "name": option.name,
                                }),
                                answers: None,
                            },
                            None => Answer {
                                decision: Decision::Error,
                                resolution: json!({
                                    "outcome": "selected",
                                    "optionId": option_id.0,
                                    "error": "the client chose an option that was not offered",
                                }),
                                answers: None,
                            },
                        }
                    }
                };
                if matches!(answer.decision, Decision::Decline | Decision::Cancel)
                    && let Some(Offer::Permission { tool_call_id, .. }) =
                        self.ledger.request(&key_of(id)).map(|request| &request.extra.offer)
                    && let Some(request) = self.ledger.request(&key_of(id))
                {
                    let session = request.extra.session.clone();
                    let tool_call_id = tool_call_id.clone();
                    if let Some(tool) = self
                        .sessions
                        .get_mut(&session)
                        .and_then(|s| s.tools.get_mut(&tool_call_id))
                    {
                        tool.declined = true;
                    }
                }
                self.settle(raw, id, answer, out);
            }
            AgentRequestResult::ElicitationCreate(response) => {
                let decision = elicitation_decision(response);
                let answer = Answer {
                    decision,
                    resolution: to_value(response),
                    answers: response.content.as_ref().map(to_value),
                };
                self.settle(raw, id, answer, out);
            }
            AgentRequestResult::TerminalCreate(created) => {
                if let Some(work) = self.agent_asks.remove(id)
                    && let Some(tool) = work.tool
                {
                    self.terminals
                        .insert(created.terminal_id.0.clone(), (work.session, tool));
                }
            }
            AgentRequestResult::TerminalOutput(output) => {
                let Some(work) = self.agent_asks.remove(id) else {
                    return;
                };
                let Some(tool) = work.tool else {
                    return;
                };
                self.deliver_output(raw, &work.session, &tool, &output.output, out);
            }
            // The client did the work; the tool call's own updates report its outcome.
            AgentRequestResult::FsReadTextFile(_)
            | AgentRequestResult::FsWriteTextFile(_)
            | AgentRequestResult::TerminalWaitForExit(_)
            | AgentRequestResult::TerminalKill(_)
            | AgentRequestResult::TerminalRelease(_) => {
                self.agent_asks.remove(id);
            }
        }
    }

    /// A terminal's output so far: what was not delivered yet becomes `command_output`.
    fn deliver_output(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        tool: &str,
        output: &str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(state) = self.sessions.get_mut(session).and_then(|s| s.tools.get_mut(tool)) else {
            return;
        };
        let new = output.get(state.output_delivered..).unwrap_or(output);
        if new.is_empty() {
            return;
        }
        let new = new.to_string();
        state.output_delivered = output.len();
        let turn = state.turn.clone();
        self.stream_into(session, tool, &new);
        let context = self.item_context(session, turn.as_deref(), tool, true, Some(raw));
        self.emit(&context, delta(ContentStreamKind::CommandOutput, &new), out);
    }

    /// The client answered an agent request with an error: an open request resolves as
    /// `error` (and the item it opened fails); failed client-side work is progress of the tool
    /// call it served.
    pub(super) fn on_client_error(
        &mut self,
        raw: Raw<'_>,
        id: &RequestId,
        error: &agentwire_acp::Error,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = key_of(id);
        if let Some(request) = self.ledger.request(&key) {
            let session = request.extra.session.clone();
            let item = cursor_item(&request.extra.offer);
            let answer = Answer {
                decision: Decision::Error,
                resolution: json!({ "error": error }),
                answers: None,
            };
            self.settle(raw, id, answer, out);
            if let Some(item) = item {
                self.end_offer_item(raw, &session, item, ItemStatus::Failed, out);
            }
            return;
        }
        let Some(work) = self.agent_asks.remove(id) else {
            let message = format!(
                "the client answered request {id} of the agent, which is not open, with an error: {}",
                error.message
            );
            self.ledger
                .warn(&Context::bare(raw), message, Some(json!({ "error": error })), out);
            return;
        };
        // The agent asked for the work and reads the error: the tool call's own updates say
        // what became of it (gemini reads a file it is about to create, to find it missing).
        let summary = format!(
            "the client could not serve {}: {} (JSON-RPC error {})",
            work.method, error.message, error.code.0
        );
        let context = match &work.tool {
            Some(tool) => {
                let turn = self.tool_turn(&work.session, tool);
                self.item_context(&work.session, turn.as_deref(), tool, true, Some(raw))
            }
            None => self.session_context(&work.session, Some(raw)),
        };
        let payload = ToolProgressPayload {
            tool_use_id: work.tool.clone(),
            tool_name: Some(work.method.to_string()),
            summary: Some(summary),
            elapsed_seconds: None,
        };
        self.emit(&context, RuntimeEvent::ToolProgress(payload), out);
    }

    /// Completes the item a Cursor request opened.
    fn end_offer_item(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        item: (String, CanonicalItemType),
        status: ItemStatus,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let item = Item {
            id: &item.0,
            item_type: item.1,
            title: None,
        };
        self.item_step(raw, session, item, Map::new(), Some(status), out);
    }

    // --- Cursor's extension requests ---

    pub(super) fn on_cursor_request(
        &mut self,
        frame: &Frame<'_>,
        request: &CursorAgentRequest,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let session = self.last_session.clone().unwrap_or_default();
        let method = request.method();
        match request {
            CursorAgentRequest::CursorAskQuestion { id, params } => {
                let raw = self.raw(frame, Some(method));
                // The params as the agent wrote them (`schemas/acp/as-sent.json`).
                let sent = params.to_json();
                let opened = Opened {
                    request_type: CanonicalRequestType::ToolUserInput,
                    detail: params.title.clone(),
                    args: sent.clone(),
                    waits: true,
                    questions: Some(sent["questions"].clone()),
                    item: Some(params.tool_call_id.0.clone()),
                };
                let offer = Offer::AskQuestion(params.value().clone());
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
            CursorAgentRequest::CursorCreatePlan { id, params } => {
                let raw = self.raw(frame, Some(method));
                // The params as the agent wrote them (`schemas/acp/as-sent.json`).
                let sent = params.to_json();
                let title = params.name.clone().or_else(|| Some("Plan".to_string()));
                let item = Item {
                    id: &params.tool_call_id.0,
                    item_type: CanonicalItemType::Plan,
                    title: title.clone(),
                };
                let fields = object(sent.clone());
                let started = self.ensure_item(raw, &session, &item, fields, out);
                let turn = self.tool_turn(&session, item.id);
                let context = self.item_context(&session, turn.as_deref(), item.id, true, Some(raw));
                self.emit(&context, delta(ContentStreamKind::PlanText, &params.plan), out);
                // A plan item of its own is whole once proposed; the agent's own tool call of
                // the same id (when it reported one) completes when the agent says so.
                if started {
                    self.item_step(raw, &session, item, Map::new(), Some(ItemStatus::Completed), out);
                }
                if !params.todos.is_empty() {
                    let plan = params.todos.iter().map(tools::todo_step).collect();
                    self.plan_updated(raw, &session, params.overview.clone(), plan, out);
                }
                // The plan is proposed for the person to accept before the agent builds it.
                let opened = Opened {
                    request_type: CanonicalRequestType::PlanApproval,
                    detail: Some(params.plan.clone()),
                    args: sent.clone(),
                    waits: true,
                    questions: None,
                    item: Some(params.tool_call_id.0.clone()),
                };
                let offer = Offer::CreatePlan(params.value().clone());
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
            CursorAgentRequest::CursorUpdateTodos { id, params } => {
                let raw = self.raw(frame, Some(method));
                // The params as the agent wrote them (`schemas/acp/as-sent.json`).
                let sent = params.to_json();
                let plan = self.merge_todos(&session, params);
                self.plan_updated(raw, &session, None, plan, out);
                let opened = Opened {
                    request_type: CanonicalRequestType::DynamicToolCall,
                    detail: Some("update the todo list".to_string()),
                    args: sent.clone(),
                    waits: false,
                    questions: None,
                    item: Some(params.tool_call_id.0.clone()),
                };
                let offer = Offer::UpdateTodos(params.value().clone());
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
            CursorAgentRequest::CursorTask { id, params } => {
                let raw = self.raw(frame, Some(method));
                // The params as the agent wrote them (`schemas/acp/as-sent.json`).
                let sent = params.to_json();
                let item = Item {
                    id: &params.tool_call_id.0,
                    item_type: CanonicalItemType::CollabAgentToolCall,
                    title: Some(params.description.clone()),
                };
                self.item_step(raw, &session, item, object(sent.clone()), None, out);
                let opened = Opened {
                    request_type: CanonicalRequestType::DynamicToolCall,
                    detail: Some(params.description.clone()),
                    args: sent.clone(),
                    waits: false,
                    questions: None,
                    item: Some(params.tool_call_id.0.clone()),
                };
                let offer = Offer::Task(params.value().clone());
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
            CursorAgentRequest::CursorGenerateImage { id, params } => {
                let raw = self.raw(frame, Some(method));
                // The params as the agent wrote them (`schemas/acp/as-sent.json`).
                let sent = params.to_json();
                let item = Item {
                    id: &params.tool_call_id.0,
                    item_type: CanonicalItemType::ImageGeneration,
                    title: Some(params.description.clone()),
                };
                self.item_step(raw, &session, item, object(sent.clone()), None, out);
                let opened = Opened {
                    request_type: CanonicalRequestType::DynamicToolCall,
                    detail: Some(params.description.clone()),
                    args: sent.clone(),
                    waits: false,
                    questions: None,
                    item: Some(params.tool_call_id.0.clone()),
                };
                let offer = Offer::GenerateImage(params.value().clone());
                self.open_request(raw, id, method, &session, offer, opened, out);
            }
        }
    }

    fn plan_updated(
        &mut self,
        raw: Raw<'_>,
        session: &str,
        explanation: Option<String>,
        plan: Vec<TurnPlanStep>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.session_context(session, Some(raw));
        let payload = TurnPlanUpdatedPayload {
            explanation: explanation.map(Some),
            plan,
        };
        self.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
    }

    /// The session's todo list after `cursor/update_todos`: replaced, or merged by todo id.
    fn merge_todos(&mut self, session: &str, params: &CursorUpdateTodosParams) -> Vec<TurnPlanStep> {
        let open = self.session_mut(session);
        if !params.merge {
            open.todos.clear();
        }
        for todo in &params.todos {
            let known = todo
                .id
                .as_ref()
                .and_then(|id| open.todos.iter_mut().find(|(known, _)| known.as_ref() == Some(id)));
            match known {
                // A merged todo names what changed: its text or its status may be left out.
                Some((_, step)) => {
                    if let Some(text) = todo.content.clone().or_else(|| todo.title.clone()) {
                        step.step = text;
                    }
                    if todo.status.is_some() {
                        step.status = tools::todo_status(todo.status.as_ref());
                    }
                }
                None => open.todos.push((todo.id.clone(), tools::todo_step(todo))),
            }
        }
        open.todos.iter().map(|(_, step)| step.clone()).collect()
    }

    /// The client's answer to a Cursor extension request.
    pub(super) fn on_cursor_result(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &CursorAgentRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = key_of(id);
        let request = self.ledger.request(&key).map(|request| request.extra.clone());
        let session = request.as_ref().map(|r| r.session.clone()).unwrap_or_default();
        let item = request.as_ref().and_then(|r| cursor_item(&r.offer));
        let (decision, answers, status) = match result {
            CursorAgentRequestResult::CursorAskQuestion(response) => {
                let answers = match &response.outcome {
                    CursorAskQuestionOutcome::Answered { answers } => Some(to_value(answers)),
                    CursorAskQuestionOutcome::Skipped { .. } | CursorAskQuestionOutcome::Cancelled => None,
                };
                let decision = ask_question_decision(&response.outcome);
                (decision, answers, None)
            }
            CursorAgentRequestResult::CursorCreatePlan(response) => {
                (create_plan_decision(&response.outcome), None, None)
            }
            CursorAgentRequestResult::CursorUpdateTodos(response) => {
                (update_todos_decision(&response.outcome), None, None)
            }
            CursorAgentRequestResult::CursorTask(response) => {
                let status = match &response.outcome {
                    CursorTaskOutcome::Completed { .. } => ItemStatus::Completed,
                    CursorTaskOutcome::Rejected { .. } | CursorTaskOutcome::Cancelled => ItemStatus::Declined,
                };
                (task_decision(&response.outcome), None, Some(status))
            }
            CursorAgentRequestResult::CursorGenerateImage(response) => {
                let status = match &response.outcome {
                    CursorGenerateImageOutcome::Generated { .. } => ItemStatus::Completed,
                    CursorGenerateImageOutcome::Rejected { .. } | CursorGenerateImageOutcome::Cancelled => {
                        ItemStatus::Declined
                    }
                };
                (generate_image_decision(&response.outcome), None, Some(status))
            }
        };
        let raw = self.raw(frame, Some(result.method())).with_type("result");
        let resolution = with_message(to_value(result), cursor_refusal_reason(result));
        if let (Some(item), Some(status)) = (item, status) {
            let fields = object(json!({ "outcome": resolution.get("outcome").cloned().unwrap_or(Value::Null) }));
            let item = Item {
                id: &item.0,
                item_type: item.1,
                title: None,
            };
            self.item_step(raw, &session, item, fields, Some(status), out);
        }
        let answer = Answer {
            decision,
            resolution,
            answers,
        };
        self.settle(raw, id, answer, out);
    }
}

/// What `request.opened` says and how the request waits.
struct Opened {
    request_type: CanonicalRequestType,
    detail: Option<String>,
    args: Value,
    /// The session waits on a person while it is open.
    waits: bool,
    /// Questions for `user-input.requested`.
    questions: Option<Value>,
    /// The tool call it is about.
    item: Option<String>,
}

/// The item a Cursor request opened and its answer completes (`cursor/task`,
/// `cursor/generate_image`).
fn cursor_item(offer: &Offer) -> Option<(String, CanonicalItemType)> {
    match offer {
        Offer::Task(params) => Some((params.tool_call_id.0.clone(), CanonicalItemType::CollabAgentToolCall)),
        Offer::GenerateImage(params) => Some((params.tool_call_id.0.clone(), CanonicalItemType::ImageGeneration)),
        Offer::Permission { .. }
        | Offer::Elicitation(_)
        | Offer::AskQuestion(_)
        | Offer::CreatePlan(_)
        | Offer::UpdateTodos(_) => None,
    }
}

/// The one element of an iterator that has exactly one.
fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}
