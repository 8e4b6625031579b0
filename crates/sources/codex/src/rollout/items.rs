//! Turns, items and questions of a replayed session: the `TurnItem`s of `item_started` /
//! `item_completed`, the tool calls and outputs of the model's history (`response_item`), and
//! the shared steps the `EventMsg` mapping uses.

use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, ItemContent, ItemLifecyclePayload, ItemStatus, PlanStepStatus,
    ProviderRuntimeEvent, RequestOpenedPayload, RuntimeEvent, ThreadMetadataUpdatedPayload, ToolSummaryPayload,
    TurnCompletedPayload, TurnPlanStep, TurnPlanUpdatedPayload, TurnState,
};
use agentwire_codex_rollout::{ResponseItem, TurnItem};
use serde_json::{Value, json};

use super::content;
use super::normalizer::{Call, CallKind, CodexRolloutNormalizer, Line, object};
use agentwire_core::decision::Decision;
use agentwire_core::emit::Raw;
use agentwire_core::frame::Direction;
use agentwire_core::ledger::{Answer, OpenItemFace, OpenRequest, TurnEnd, TurnStart};

/// What a UI shows of an item: its canonical type, title, status and data.
pub(super) struct Face {
    pub item_type: CanonicalItemType,
    pub title: Option<String>,
    pub status: ItemStatus,
    pub data: Value,
}

impl CodexRolloutNormalizer {
    // --- turns ---

    /// Starts `turn` (`turn.started` carrying `raw`); a turn already started or ended is
    /// reported as the current session state carrying `raw` (one fact, one event).
    pub(super) fn start_turn(&mut self, turn: &str, raw: Option<Raw<'_>>, out: &mut Vec<ProviderRuntimeEvent>) {
        let thread = self.thread_key();
        let place = self.place(Some(turn), None);
        let context = self.context(&place, raw);
        if self
            .ledger
            .start_turn(&context, &thread, turn, TurnStart::on(None), out)
        {
            self.turn = Some(turn.to_string());
        }
    }

    /// Ends `turn` (`turn.completed` carrying `raw`, with `state`, and the stop reason and error
    /// Codex gave): its open items are cut off as the state says. A turn that already ended is
    /// reported as the current session state.
    pub(super) fn end_turn(
        &mut self,
        turn: &str,
        raw: Raw<'_>,
        state: TurnState,
        stop_reason: Option<String>,
        error_message: Option<String>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let thread = self.thread_key();
        if self.ledger.turn_ended(&thread, turn) {
            let place = self.place(Some(turn), None);
            let context = self.context(&place, Some(raw));
            self.ledger
                .settle_state_carrying(&context, Some("the turn had ended"), out);
            return;
        }
        self.start_turn(turn, None, out);
        let place = self.place(Some(turn), None);
        let context = self.context(&place, Some(raw));
        if self.turn.as_deref() == Some(turn) {
            self.turn = None;
        }
        let outcome = TurnCompletedPayload {
            state,
            stop_reason: stop_reason.map(Some),
            usage: self.end_turn_usage(turn),
            model_usage: None,
            total_cost_usd: None,
            error_message,
        };
        self.ledger
            .complete_turn(&context, &thread, turn, TurnEnd::new(outcome), out);
    }

    /// The turn a message belongs to: the one it names, else the one running.
    pub(super) fn turn_of(&self, named: Option<&str>) -> Option<String> {
        named.map(str::to_string).or_else(|| self.turn.clone())
    }

    // --- items ---

    /// `item.started` carrying `raw`; the item is remembered with its face.
    pub(super) fn start_item(
        &mut self,
        turn: Option<&str>,
        item: &str,
        face: Face,
        raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let thread = self.thread_key();
        let turn = self.turn_of(turn).unwrap_or_default();
        let place = self.place(Some(&turn), Some(item));
        let context = self.context(&place, raw);
        self.ledger.open_item(
            (&thread, &turn, item),
            OpenItemFace {
                item_type: face.item_type,
                title: face.title.clone(),
                data: Some(face.data.clone().into()),
            },
        );
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(ItemStatus::InProgress),
            title: face.title,
            detail: None,
            data: Some(face.data.into()),
        };
        self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
    }

    /// `item.updated` carrying `raw` for an open item (its last data becomes `data`).
    pub(super) fn update_item(
        &mut self,
        turn: Option<&str>,
        item: &str,
        face: Face,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let thread = self.thread_key();
        let turn = self.turn_of(turn).unwrap_or_default();
        let known = self.known_content(item, face.item_type);
        let face = Face {
            data: content::merged(known, face.data),
            ..face
        };
        self.ledger.update_item(&thread, item, face.data.clone().into());
        let place = self.place(Some(&turn), Some(item));
        let context = self.context(&place, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(face.status),
            title: face.title,
            detail: None,
            data: Some(face.data.into()),
        };
        self.emit(&context, RuntimeEvent::ItemUpdated(payload), out);
    }

    /// `item.completed` carrying `raw`. An item never started is started first (carrying
    /// `start_raw`), so every item has a card before it completes.
    pub(super) fn complete_item(
        &mut self,
        turn: Option<&str>,
        item: &str,
        face: Face,
        raw: Raw<'_>,
        start_raw: Option<Raw<'_>>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let thread = self.thread_key();
        let turn = self.turn_of(turn).unwrap_or_default();
        self.settle_approval(item, face.status, out);
        let face = Face {
            data: content::merged(self.known_content(item, face.item_type), face.data),
            ..face
        };
        let open = self.ledger.close_item(&thread, item);
        let title = face.title.or_else(|| open.as_ref().and_then(|open| open.title.clone()));
        if open.is_none() {
            let place = self.place(Some(&turn), Some(item));
            let context = self.context(&place, start_raw);
            let payload = ItemLifecyclePayload {
                item_type: face.item_type,
                status: Some(ItemStatus::InProgress),
                title: title.clone(),
                detail: None,
                data: Some(face.data.clone().into()),
            };
            self.emit(&context, RuntimeEvent::ItemStarted(payload), out);
        }
        let place = self.place(Some(&turn), Some(item));
        let context = self.context(&place, Some(raw));
        let payload = ItemLifecyclePayload {
            item_type: face.item_type,
            status: Some(face.status),
            title,
            detail: None,
            data: Some(face.data.into()),
        };
        self.emit(&context, RuntimeEvent::ItemCompleted(payload), out);
    }

    /// The content of `item` so far, if it is open as an item of `item_type`.
    fn known_content(&self, item: &str, item_type: CanonicalItemType) -> Option<Value> {
        let open = self.ledger.item(&self.thread_key(), item)?;
        (open.item_type == item_type).then(|| open.data.as_ref().map(|data| data.to_value().into_owned()))?
    }

    /// Whether `item` is open.
    pub(super) fn item_open(&self, item: &str) -> bool {
        self.ledger.item(&self.thread_key(), item).is_some()
    }

    // --- approvals and questions ---

    /// An approval codex asked for (`exec_approval_request`, `apply_patch_approval_request`):
    /// `request.opened` carrying `raw`; the session waits. A rollout keeps no answer: the
    /// call's item settles it (it ran: accepted; declined: declined).
    pub(super) fn approval(
        &mut self,
        call_id: &str,
        request_type: CanonicalRequestType,
        args: Value,
        raw: Raw<'_>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let turn = self.turn.clone();
        let place = self.place(turn.as_deref(), Some(call_id));
        let context = self
            .ledger
            .request_context(call_id, call_id, Direction::In, &place, Some(raw));
        let detail = args
            .get("command")
            .and_then(Value::as_array)
            .map(|parts| parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))
            .or_else(|| args.get("reason").and_then(Value::as_str).map(str::to_string));
        let opened = RequestOpenedPayload {
            request_type,
            detail,
            args: Some(args),
        };
        let request = OpenRequest {
            request_type,
            place,
            provider_id: call_id.to_string(),
            dir: Direction::In,
            waits: true,
            user_input: false,
            answer: None,
            extra: (),
        };
        self.ledger
            .ask(call_id.to_string(), request, opened, None, &context, out);
    }

    /// Settles the approval of a call whose item ended with `status`.
    fn settle_approval(&mut self, call_id: &str, status: ItemStatus, out: &mut Vec<ProviderRuntimeEvent>) {
        let Some(request) = self.ledger.request_mut(call_id) else {
            return;
        };
        if request.user_input {
            return;
        }
        let decision = match status {
            ItemStatus::Declined => Decision::Decline,
            ItemStatus::Completed | ItemStatus::Failed | ItemStatus::InProgress => Decision::Accept,
        };
        request.answer = Some(Answer {
            decision,
            resolution: json!({ "inferredFrom": "the call's item", "itemStatus": status.as_str() }),
            answers: None,
        });
        self.ledger.resolve_request(call_id, None, out);
    }

    // --- questions ---

    /// A question to the user (`request_user_input`): `request.opened` carrying `raw`, then
    /// `user-input.requested`; the session waits.
    pub(super) fn ask(&mut self, call_id: &str, questions: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let turn = self.turn.clone();
        let place = self.place(turn.as_deref(), None);
        let context = self
            .ledger
            .request_context(call_id, call_id, Direction::In, &place, Some(raw));
        let detail = questions
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|question| question.get("question").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(" / ")
            })
            .filter(|text| !text.is_empty());
        let opened = RequestOpenedPayload {
            request_type: CanonicalRequestType::ToolUserInput,
            detail,
            args: Some(json!({ "questions": questions })),
        };
        let request = OpenRequest {
            request_type: CanonicalRequestType::ToolUserInput,
            place,
            provider_id: call_id.to_string(),
            dir: Direction::In,
            waits: true,
            user_input: false,
            answer: None,
            extra: (),
        };
        self.ledger
            .ask(call_id.to_string(), request, opened, Some(questions), &context, out);
    }

    /// The answer to a question: `user-input.resolved` and `request.resolved(answered)`, the
    /// first carrying the line. A line answering no open question updates the thread's metadata.
    pub(super) fn answer_question(
        &mut self,
        line: Line<'_>,
        call_id: &str,
        answer: Value,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = line.raw("verified_answer");
        match self.ledger.request_mut(call_id) {
            Some(request) => {
                let answers = answer.get("questions").cloned().unwrap_or(Value::Null);
                request.answer = Some(Answer {
                    decision: Decision::Answered,
                    resolution: answer,
                    answers: Some(answers),
                });
                self.ledger.resolve_request(call_id, Some(raw), out);
            }
            None => {
                let place = self.place(self.turn.clone().as_deref(), None);
                let context = self.context(&place, Some(raw));
                let payload = ThreadMetadataUpdatedPayload {
                    name: None,
                    metadata: Some(object(json!({ "retainedContext": answer }))),
                };
                self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
            }
        }
    }

    // --- the model's history ---

    /// A `response_item` line: tool calls open their item (or are the plan, or a question),
    /// outputs complete what codex reported no item for; the rest is the model's history, which
    /// a UI already has from the `EventMsg` items (or never shows: instructions, context).
    pub(super) fn on_response_item(
        &mut self,
        line: Line<'_>,
        item: &ResponseItem,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let kind = item.tag();
        match item {
            ResponseItem::FunctionCall(call) => {
                // The JSON the model wrote (the schema's `contentMediaType`), or its text.
                let arguments = call.arguments.to_value();
                let namespaced = call
                    .namespace
                    .as_deref()
                    .map(|namespace| format!("{namespace}.{}", call.name));
                let name = namespaced.unwrap_or_else(|| call.name.clone());
                self.on_tool_call(line, &call.call_id, &name, arguments, kind, out);
            }
            ResponseItem::CustomToolCall(call) => {
                let input = Value::String(call.input.clone());
                self.on_tool_call(line, &call.call_id, &call.name, input, kind, out);
            }
            ResponseItem::LocalShellCall(call) => match call.call_id.as_deref().or(call.id.as_deref()) {
                Some(call_id) => {
                    let action = Value::Object(call.action.clone());
                    self.on_tool_call(line, call_id, "local_shell", action, kind, out);
                }
                None => {
                    let data = serde_json::to_value(call).unwrap_or(Value::Null);
                    self.history(line, kind, data, out);
                }
            },
            ResponseItem::FunctionCallOutput(output) => {
                let data = serde_json::to_value(output).unwrap_or(Value::Null);
                self.on_tool_output(line, &output.call_id, data, kind, out);
            }
            ResponseItem::CustomToolCallOutput(output) => {
                let data = serde_json::to_value(output).unwrap_or(Value::Null);
                self.on_tool_output(line, &output.call_id, data, kind, out);
            }
            ResponseItem::WebSearchCall(call) => {
                // codex reports the search as a `WebSearch` item first.
                let data = json!({ "type": kind, "id": call.id });
                self.history(line, kind, data, out);
            }
            ResponseItem::ImageGenerationCall(call) => {
                let data = serde_json::to_value(call).unwrap_or(Value::Null);
                self.history(line, kind, data, out);
            }
            ResponseItem::Message(message) => {
                let data = json!({ "type": kind, "role": message.role, "id": message.id });
                self.history(line, kind, data, out);
            }
            ResponseItem::Reasoning(reasoning) => {
                let data = json!({ "type": kind, "id": reasoning.id });
                self.history(line, kind, data, out);
            }
            ResponseItem::GhostSnapshot(_) => self.history(line, kind, json!({ "type": kind }), out),
            ResponseItem::Compaction(_) => self.history(line, kind, json!({ "type": kind }), out),
        }
    }

    /// A response item a UI has from elsewhere or does not show: the thread's history grew
    /// (`thread.metadata.updated{metadata: {modelHistory}}`), the item whole in `raw`.
    fn history(
        &mut self,
        line: Line<'_>,
        message_type: &'static str,
        summary: Value,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let place = self.place(self.turn.clone().as_deref(), None);
        let context = self.context(&place, Some(line.raw(message_type)));
        let payload = ThreadMetadataUpdatedPayload {
            name: None,
            metadata: Some(object(json!({ "modelHistory": summary }))),
        };
        self.emit(&context, RuntimeEvent::ThreadMetadataUpdated(payload), out);
    }

    /// A tool call of the model: `update_plan` is the turn's plan, `request_user_input` a
    /// question, any other tool an item opened under its call id (its `item_completed`, which
    /// carries the same id, completes it).
    fn on_tool_call(
        &mut self,
        line: Line<'_>,
        call_id: &str,
        name: &str,
        arguments: Value,
        message_type: &'static str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = line.raw(message_type);
        let kind = match name {
            "update_plan" => CallKind::Plan,
            "request_user_input" => CallKind::Question,
            _ => CallKind::Item,
        };
        self.calls.insert(
            call_id.to_string(),
            Call {
                name: name.to_string(),
                kind,
            },
        );
        match kind {
            CallKind::Plan => {
                let place = self.place(self.turn.clone().as_deref(), None);
                let context = self.context(&place, Some(raw));
                let payload = TurnPlanUpdatedPayload {
                    explanation: Some(arguments.get("explanation").and_then(Value::as_str).map(str::to_string)),
                    plan: plan_steps(&arguments),
                };
                self.emit(&context, RuntimeEvent::TurnPlanUpdated(payload), out);
            }
            CallKind::Question => {
                let questions = arguments.get("questions").cloned().unwrap_or(Value::Array(Vec::new()));
                self.ask(call_id, questions, raw, out);
            }
            CallKind::Item => {
                let face = tool_face(name, &arguments);
                let turn = self.turn.clone();
                self.start_item(turn.as_deref(), call_id, face, Some(raw), out);
            }
        }
    }

    /// The output of a question still open (no `verified_answer` settled it) ends it: the
    /// question is over once the model has the tool's output, and the session runs on. An output
    /// carrying `answers` (the tool's answer, `{"answers":{<id>:{"answers":[...]}}}`) is
    /// `answered`. Any other output is the tool saying it could not ask ("request_user_input is
    /// unavailable in Default mode", "... is not supported in exec mode"): the question never
    /// reached the person, so it was neither declined (a person's refusal) nor cancelled (the
    /// turn stopped, or nobody answered before the stream ended); `error`, "answered with an
    /// error instead of a result", is what happened, the output's text in `resolution`.
    fn question_output(&mut self, call_id: &str, data: Value, raw: Raw<'_>, out: &mut Vec<ProviderRuntimeEvent>) {
        let text = agentwire_core::content::text_or_parts(&data["output"]);
        let answers = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|output| output.get("answers").cloned());
        let Some(request) = self.ledger.request_mut(call_id) else {
            return;
        };
        request.answer = Some(match answers {
            Some(answers) => Answer {
                decision: Decision::Answered,
                resolution: data,
                answers: Some(answers),
            },
            None => Answer {
                decision: Decision::Error,
                resolution: data,
                answers: None,
            },
        });
        self.ledger.resolve_request(call_id, Some(raw), out);
    }

    /// A tool's output as the model saw it. An item still open (codex reported no item for it:
    /// a command or patch that never ran) completes with it; otherwise the output is a
    /// `tool.summary` of the call.
    fn on_tool_output(
        &mut self,
        line: Line<'_>,
        call_id: &str,
        data: Value,
        message_type: &'static str,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let raw = line.raw(message_type);
        // A call gets one output: forgetting it here keeps memory bounded by open calls.
        let call = self.calls.remove(call_id);
        if call.as_ref().is_some_and(|call| call.kind == CallKind::Question)
            && self.ledger.request_mut(call_id).is_some()
        {
            return self.question_output(call_id, data, raw, out);
        }
        let name = call.as_ref().map(|call| call.name.clone());
        if self.item_open(call_id) {
            let (item_type, title, call) = {
                let open = self.ledger.item(&self.thread_key(), call_id).expect("checked open");
                let call = open
                    .data
                    .as_ref()
                    .map_or(Value::Null, |data| data.to_value().into_owned());
                (open.item_type, open.title.clone(), call)
            };
            let status = match item_type {
                CanonicalItemType::CommandExecution | CanonicalItemType::FileChange => unrun_status(&data),
                CanonicalItemType::UserMessage
                | CanonicalItemType::AssistantMessage
                | CanonicalItemType::Reasoning
                | CanonicalItemType::Plan
                | CanonicalItemType::McpToolCall
                | CanonicalItemType::DynamicToolCall
                | CanonicalItemType::CollabAgentToolCall
                | CanonicalItemType::WebSearch
                | CanonicalItemType::ImageView
                | CanonicalItemType::ImageGeneration
                | CanonicalItemType::ReviewEntered
                | CanonicalItemType::ReviewExited
                | CanonicalItemType::ContextCompaction
                | CanonicalItemType::Error
                | CanonicalItemType::Unknown => ItemStatus::Completed,
            };
            let face = Face {
                item_type,
                title,
                status,
                data: content::with_output(
                    item_type,
                    call,
                    agentwire_core::content::text_or_parts(&data["output"]),
                    status == ItemStatus::Failed,
                ),
            };
            let turn = self.turn.clone();
            self.complete_item(turn.as_deref(), call_id, face, raw, None, out);
            return;
        }
        let turn = self.turn.clone();
        let item = call.is_some_and(|call| call.kind == CallKind::Item).then_some(call_id);
        let place = self.place(turn.as_deref(), item);
        let context = self.context(&place, Some(raw));
        let payload = ToolSummaryPayload {
            summary: format!(
                "`{}` returned its output to the model",
                name.as_deref().unwrap_or("a tool")
            ),
            preceding_tool_use_ids: None,
        };
        self.emit(&context, RuntimeEvent::ToolSummary(payload), out);
    }
}

/// The status of a command or patch codex reported no item for: it never ran. `declined` when
/// its output says a person (or the approval policy) refused it, `failed` otherwise (a patch
/// that did not verify, a process that could not start).
fn unrun_status(output: &Value) -> ItemStatus {
    let text = agentwire_core::content::text_or_parts(&output["output"]);
    let refused = ["rejected by user", "aborted by user", "reject command"];
    if refused.iter().any(|phrase| text.contains(phrase)) {
        ItemStatus::Declined
    } else {
        ItemStatus::Failed
    }
}

/// The steps of a plan (`{"plan": [{"step", "status"}]}`), statuses in canonical spelling.
pub(super) fn plan_steps(value: &Value) -> Vec<TurnPlanStep> {
    let steps = value
        .get("plan")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    steps
        .iter()
        .map(|step| TurnPlanStep {
            step: step.get("step").and_then(Value::as_str).unwrap_or_default().to_string(),
            status: match step.get("status").and_then(Value::as_str) {
                Some("completed") => PlanStepStatus::Completed,
                Some("in_progress" | "inProgress") => PlanStepStatus::InProgress,
                Some(_) | None => PlanStepStatus::Pending,
            },
        })
        .collect()
}

/// The face of a tool call's item, by the tool's name.
fn tool_face(name: &str, arguments: &Value) -> Face {
    let (item_type, title, content) = content::tool_call(name, arguments);
    Face {
        item_type,
        title: Some(title),
        status: ItemStatus::InProgress,
        data: data(content),
    }
}

/// The canonical status of a provider status string (`completed`, `failed`, `declined`, ...).
pub(super) fn status_of(status: Option<&str>) -> ItemStatus {
    match status {
        Some("failed" | "error") => ItemStatus::Failed,
        Some("declined" | "rejected" | "cancelled") => ItemStatus::Declined,
        Some("in_progress" | "inProgress" | "running") => ItemStatus::InProgress,
        Some(_) | None => ItemStatus::Completed,
    }
}

/// The face of a `TurnItem` (the id is the item's own).
pub(super) fn turn_item_face(item: &TurnItem) -> (String, Face) {
    let (content, title) = content::turn_item(item);
    let (id, item_type, status) = match item {
        TurnItem::UserMessage(item) => (&item.id, CanonicalItemType::UserMessage, ItemStatus::Completed),
        TurnItem::AgentMessage(item) => (&item.id, CanonicalItemType::AssistantMessage, ItemStatus::Completed),
        TurnItem::Plan(item) => (&item.id, CanonicalItemType::Plan, ItemStatus::Completed),
        TurnItem::Reasoning(item) => (&item.id, CanonicalItemType::Reasoning, ItemStatus::Completed),
        TurnItem::CommandExecution(item) => (
            &item.id,
            CanonicalItemType::CommandExecution,
            status_of(Some(&item.status)),
        ),
        TurnItem::FileChange(item) => (
            &item.id,
            CanonicalItemType::FileChange,
            status_of(item.status.as_deref()),
        ),
        TurnItem::McpToolCall(item) => (&item.id, CanonicalItemType::McpToolCall, status_of(Some(&item.status))),
        TurnItem::DynamicToolCall(item) => (
            &item.id,
            CanonicalItemType::DynamicToolCall,
            status_of(Some(&item.status)),
        ),
        TurnItem::WebSearch(item) => (&item.id, CanonicalItemType::WebSearch, ItemStatus::Completed),
        TurnItem::ImageView(item) => (&item.id, CanonicalItemType::ImageView, ItemStatus::Completed),
        TurnItem::ImageGeneration(item) => (&item.id, CanonicalItemType::ImageGeneration, ItemStatus::Completed),
        TurnItem::ContextCompaction(item) => (&item.id, CanonicalItemType::ContextCompaction, ItemStatus::Completed),
    };
    (
        id.clone(),
        Face {
            item_type,
            title,
            status,
            data: data(content),
        },
    )
}

/// Content as the JSON a face carries.
pub(super) fn data(content: ItemContent) -> Value {
    agentwire_core::content::data(content).into_value()
}
