//! Server requests: `request.opened` when app-server asks, `request.resolved` when it is settled.
//!
//! The lifecycle is keyed by JSON-RPC id. The client's answer (`dir: out`) carries the decision;
//! app-server confirms with `serverRequest/resolved`, and that confirmation emits
//! `request.resolved` with the remembered decision. `item/tool/call` (dynamic tools) gets no
//! confirmation, so its answer resolves it directly.
//!
//! Decisions are the canonical vocabulary ([`Decision`]) whichever API generation asked: the v2
//! approvals (`accept`, `acceptForSession`, `decline`, `cancel`) and the legacy ones
//! (`approved`, `approved_for_session`, `denied`, `abort`) land on the same values, the
//! provider's own answer kept whole in `resolution`.

use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, Json, ProviderRuntimeEvent, RequestOpenedPayload, RequestResolvedPayload,
    RuntimeEvent, RuntimeEventRawSource,
};
use agentwire_codex_app_server::{self as codex, RequestId, ServerRequest, ServerRequestResult};
use serde_json::{Value, json};

use super::canonicalize::{command_display, to_json};
use super::normalizer::CodexAppServerNormalizer;
use super::offer::{
    CodexRequest, Offer, command_decision, elicitation_decision, file_change_decision, permissions_decision,
    review_decision, review_rejection,
};
use agentwire_core::answer::with_message;
use agentwire_core::decision::Decision;
use agentwire_core::emit::Raw;
use agentwire_core::frame::{Direction, Frame};
use agentwire_core::ledger::{Answer, OpenRequest, Place};

impl CodexAppServerNormalizer {
    pub(super) fn on_server_request(
        &mut self,
        frame: &Frame<'_>,
        request: &ServerRequest,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        use ServerRequest as R;
        let place = |thread: &str, turn: Option<&str>, item: Option<&str>| Place {
            thread: Some(thread.to_string()),
            turn: turn.map(str::to_string),
            item: item.map(str::to_string),
        };
        let (request_type, place, waits, args) = match request {
            R::ItemCommandExecutionRequestApproval { params, .. } => (
                CanonicalRequestType::CommandExecutionApproval,
                place(&params.thread_id, Some(&params.turn_id), Some(&params.item_id)),
                true,
                to_json(params),
            ),
            R::ItemFileChangeRequestApproval { params, .. } => (
                CanonicalRequestType::FileChangeApproval,
                place(&params.thread_id, Some(&params.turn_id), Some(&params.item_id)),
                true,
                to_json(params),
            ),
            R::ItemToolRequestUserInput { params, .. } => (
                CanonicalRequestType::ToolUserInput,
                place(&params.thread_id, Some(&params.turn_id), Some(&params.item_id)),
                true,
                to_json(params),
            ),
            R::McpServerElicitationRequest { params, .. } => {
                let (thread, turn) = elicitation_place(params);
                let call = self.approved_call(params);
                (
                    CanonicalRequestType::McpServerElicitation,
                    place(thread, turn, call.as_deref()),
                    true,
                    to_json(params),
                )
            }
            R::ItemPermissionsRequestApproval { params, .. } => (
                CanonicalRequestType::PermissionsApproval,
                place(&params.thread_id, Some(&params.turn_id), Some(&params.item_id)),
                true,
                to_json(params),
            ),
            // The host runs the tool; nobody is asked.
            R::ItemToolCall { params, .. } => (
                CanonicalRequestType::DynamicToolCall,
                place(&params.thread_id, Some(&params.turn_id), Some(&params.call_id)),
                false,
                to_json(params),
            ),
            // Credentials and attestations the host supplies by itself.
            R::AccountChatgptAuthTokensRefresh { params, .. } => (
                CanonicalRequestType::AuthTokensRefresh,
                Place::default(),
                false,
                to_json(params),
            ),
            R::AttestationGenerate { params, .. } => (
                CanonicalRequestType::Attestation,
                Place::default(),
                false,
                to_json(params),
            ),
            // The legacy (v1) approvals name the thread `conversationId` and carry no turn.
            R::ApplyPatchApproval { params, .. } => (
                CanonicalRequestType::ApplyPatchApproval,
                place(params.conversation_id.as_str(), None, Some(&params.call_id)),
                true,
                to_json(params),
            ),
            R::ExecCommandApproval { params, .. } => (
                CanonicalRequestType::ExecCommandApproval,
                place(params.conversation_id.as_str(), None, Some(&params.call_id)),
                true,
                to_json(params),
            ),
        };
        let id = request.id();
        let key = request_key(id);
        let method = request.method();
        let raw = Raw::new(RuntimeEventRawSource::CodexAppServerRequest, Some(method), frame.msg);
        let provider_id = id.to_string();
        let context = self
            .ledger
            .request_context(&key, &provider_id, Direction::In, &place, Some(raw));
        let opened = RequestOpenedPayload {
            request_type,
            detail: self.card_detail(request),
            args: Some(self.card_args(request, args)),
        };
        let questions = if let R::ItemToolRequestUserInput { params, .. } = request {
            Some(to_json(&params.questions))
        } else {
            None
        };
        let open = OpenRequest {
            request_type,
            place,
            provider_id,
            dir: Direction::In,
            waits,
            user_input: false,
            answer: None,
            extra: CodexRequest {
                method,
                id: id.clone(),
                jsonrpc: agentwire_core::jsonrpc::carries_version(frame.msg),
                offer: Offer::of(request),
            },
        };
        self.ledger.ask(key, open, opened, questions, &context, out);
    }

    /// The client answered a server request. Dynamic tool calls resolve here; the others wait
    /// for `serverRequest/resolved`.
    pub(super) fn on_client_answer(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        result: &ServerRequestResult,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        self.remember_answer(frame, id, answer_of(result), out);
    }

    /// The client answered a server request with a JSON-RPC error.
    pub(super) fn on_client_error(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        error: &codex::ErrorObject,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let answer = Answer {
            decision: Decision::Error,
            resolution: json!({ "error": error }),
            answers: None,
        };
        self.remember_answer(frame, id, answer, out);
    }

    fn remember_answer(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        answer: Answer,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = request_key(id);
        let Some(request) = self.ledger.request_mut(&key) else {
            return;
        };
        // A declined approval of an MCP tool call: Codex completes the call `failed`.
        if request.request_type == CanonicalRequestType::McpServerElicitation
            && matches!(answer.decision, Decision::Decline | Decision::Cancel)
            && let Place {
                thread: Some(thread),
                item: Some(item),
                ..
            } = &request.place
        {
            self.declined_calls.insert((thread.clone(), item.clone()));
        }
        request.answer = Some(answer);
        if request.request_type == CanonicalRequestType::DynamicToolCall {
            let method = request.extra.method;
            let raw = Raw::new(
                RuntimeEventRawSource::CodexAppServerClientResponse,
                Some(method),
                frame.msg,
            );
            self.ledger.resolve_request(&key, Some(raw), out);
        }
    }

    /// `serverRequest/resolved`.
    pub(super) fn on_request_resolved(
        &mut self,
        raw: Raw<'_>,
        params: &codex::ServerRequestResolvedNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let key = request_key(&params.request_id);
        if self.ledger.request(&key).is_some() {
            self.ledger.resolve_request(&key, Some(raw), out);
            return;
        }
        // A request opened before this stream began (or never seen): still settled.
        let place = Place {
            thread: Some(params.thread_id.clone()),
            ..Place::default()
        };
        let provider_id = params.request_id.to_string();
        let context = self
            .ledger
            .request_context(&key, &provider_id, Direction::In, &place, Some(raw));
        let payload = RequestResolvedPayload {
            request_type: CanonicalRequestType::Unknown,
            decision: None,
            resolution: Some(json!({ "requestId": params.request_id })),
        };
        self.emit(&context, RuntimeEvent::RequestResolved(payload), out);
    }

    /// The MCP tool call an elicitation asks the person to approve (`_meta.codex_approval_kind:
    /// "mcp_tool_call"`): Codex names no item, so it is the open `mcp_tool_call` item of the same
    /// thread, turn, server and tool (the first by provider id, when several are open).
    fn approved_call(&self, params: &codex::McpServerElicitationRequestParams) -> Option<String> {
        use codex::McpServerElicitationRequestParams as P;
        let (server, meta) = match params {
            P::OpenaiXuserVerification { server_name, meta, .. }
            | P::Form { server_name, meta, .. }
            | P::OpenaiXform { server_name, meta, .. }
            | P::OpenaiForm { server_name, meta, .. }
            | P::Url { server_name, meta, .. } => (server_name, meta.as_ref()?),
        };
        if meta.get("codex_approval_kind").and_then(Value::as_str) != Some("mcp_tool_call") {
            return None;
        }
        let tool = meta.get("tool_name").and_then(Value::as_str);
        let (thread, turn) = elicitation_place(params);
        self.ledger
            .open_items(thread)
            .filter(|(_, open)| {
                open.item_type == CanonicalItemType::McpToolCall && turn.is_none_or(|turn| open.turn == turn)
            })
            .filter(|(_, open)| {
                let data = open.data.as_ref().map(Json::to_value).unwrap_or_default();
                data.get("server").and_then(Value::as_str) == Some(server.as_str())
                    && tool.is_none_or(|tool| data.get("tool").and_then(Value::as_str) == Some(tool))
            })
            .map(|(key, _)| key.to_string())
            .next()
    }

    /// What a person must read to decide, in one line: the command, the files and why, the
    /// question, the MCP server's message, the permissions asked for.
    fn card_detail(&self, request: &ServerRequest) -> Option<String> {
        use ServerRequest as R;
        let with_reason = |what: String, reason: &Option<String>| match reason {
            Some(reason) => format!("{what}: {reason}"),
            None => what,
        };
        match request {
            R::ItemCommandExecutionRequestApproval { params, .. } => {
                let command = params
                    .command_actions
                    .as_deref()
                    .and_then(command_display)
                    .or_else(|| params.command.clone());
                command.or_else(|| params.reason.clone())
            }
            R::ItemFileChangeRequestApproval { params, .. } => {
                let paths = self.open_item_paths(&params.thread_id, &params.item_id);
                Some(with_reason(
                    paths.unwrap_or_else(|| "file changes".to_string()),
                    &params.reason,
                ))
            }
            R::ItemToolRequestUserInput { params, .. } => {
                let questions: Vec<&str> = params.questions.iter().map(|q| q.question.as_str()).collect();
                (!questions.is_empty()).then(|| questions.join(" / "))
            }
            R::McpServerElicitationRequest { params, .. } => Some(elicitation_message(params)),
            R::ItemPermissionsRequestApproval { params, .. } => {
                Some(with_reason(permissions_display(&params.permissions), &params.reason))
            }
            R::ItemToolCall { params, .. } => Some(match &params.namespace {
                Some(namespace) => format!("{namespace}.{}", params.tool),
                None => params.tool.clone(),
            }),
            R::AccountChatgptAuthTokensRefresh { .. } => Some("refresh the ChatGPT auth tokens".to_string()),
            R::AttestationGenerate { .. } => Some("generate an attestation".to_string()),
            R::ApplyPatchApproval { params, .. } => {
                let paths: Vec<&str> = params.file_changes.keys().map(String::as_str).collect();
                Some(with_reason(paths.join(", "), &params.reason))
            }
            R::ExecCommandApproval { params, .. } => Some(params.command.join(" ")),
        }
    }

    /// The request's params; a file-change approval also carries the changes of the item it
    /// approves (the request itself names only the item), so the card shows the diff.
    fn card_args(&self, request: &ServerRequest, mut args: Value) -> Value {
        if let ServerRequest::ItemFileChangeRequestApproval { params, .. } = request
            && let Some(data) = self
                .ledger
                .item(&params.thread_id, &params.item_id)
                .and_then(|item| item.data.as_ref())
                .map(Json::to_value)
            && let Some(changes) = data.get("changes")
            && let Value::Object(map) = &mut args
        {
            map.insert("changes".to_string(), changes.clone());
        }
        args
    }

    /// `a.txt, b.txt` for an open file-change item.
    fn open_item_paths(&self, thread: &str, item: &str) -> Option<String> {
        let data = self.ledger.item(thread, item)?.data.as_ref()?.to_value();
        let changes = data.get("changes")?.as_array()?;
        let paths: Vec<&str> = changes
            .iter()
            .filter_map(|change| change.get("path")?.as_str())
            .collect();
        (!paths.is_empty()).then(|| paths.join(", "))
    }
}

/// The ledger's key for a JSON-RPC id: its JSON text, so `1` and `"1"` differ.
pub(super) fn request_key(id: &RequestId) -> String {
    serde_json::to_string(id).expect("a request id serializes")
}

/// The client's answer in canonical terms.
fn answer_of(result: &ServerRequestResult) -> Answer {
    use ServerRequestResult as R;
    let rejection = match result {
        R::ApplyPatchApproval(answer) => review_rejection(&answer.decision),
        R::ExecCommandApproval(answer) => review_rejection(&answer.decision),
        R::ItemCommandExecutionRequestApproval(_)
        | R::ItemFileChangeRequestApproval(_)
        | R::McpServerElicitationRequest(_)
        | R::ItemPermissionsRequestApproval(_)
        | R::ItemToolRequestUserInput(_)
        | R::ItemToolCall(_)
        | R::AccountChatgptAuthTokensRefresh(_)
        | R::AttestationGenerate(_) => None,
    };
    let resolution = with_message(to_json(result), rejection);
    let (decision, answers) = match result {
        R::ItemCommandExecutionRequestApproval(answer) => (command_decision(&answer.decision), None),
        R::ItemFileChangeRequestApproval(answer) => (file_change_decision(&answer.decision), None),
        R::ApplyPatchApproval(answer) => (review_decision(&answer.decision), None),
        R::ExecCommandApproval(answer) => (review_decision(&answer.decision), None),
        R::McpServerElicitationRequest(answer) => (elicitation_decision(&answer.action), None),
        R::ItemPermissionsRequestApproval(answer) => (permissions_decision(answer), None),
        R::ItemToolRequestUserInput(answer) => (Decision::Answered, Some(to_json(&answer.answers))),
        R::ItemToolCall(_) | R::AccountChatgptAuthTokensRefresh(_) | R::AttestationGenerate(_) => {
            (Decision::Answered, None)
        }
    };
    Answer {
        decision,
        resolution,
        answers,
    }
}

/// `write /a, /b; read /c; network` for the permissions a request asks for.
fn permissions_display(asked: &codex::RequestPermissionProfile) -> String {
    let mut parts = Vec::new();
    if let Some(fs) = &asked.file_system {
        let list = |paths: &Option<Vec<codex::LegacyAppPathString>>| {
            paths
                .as_deref()
                .filter(|paths| !paths.is_empty())
                .map(|paths| paths.iter().map(|path| path.to_string()).collect::<Vec<_>>().join(", "))
        };
        if let Some(write) = list(&fs.write) {
            parts.push(format!("write {write}"));
        }
        if let Some(read) = list(&fs.read) {
            parts.push(format!("read {read}"));
        }
        if let Some(entries) = fs.entries.as_ref().filter(|entries| !entries.is_empty()) {
            parts.push(format!("{} file system rules", entries.len()));
        }
    }
    if asked
        .network
        .as_ref()
        .is_some_and(|network| network.enabled == Some(true))
    {
        parts.push("network access".to_string());
    }
    if parts.is_empty() {
        "additional permissions".to_string()
    } else {
        parts.join("; ")
    }
}

fn elicitation_place(params: &codex::McpServerElicitationRequestParams) -> (&str, Option<&str>) {
    use codex::McpServerElicitationRequestParams as P;
    match params {
        P::OpenaiXuserVerification { thread_id, turn_id, .. }
        | P::Form { thread_id, turn_id, .. }
        | P::OpenaiXform { thread_id, turn_id, .. }
        | P::OpenaiForm { thread_id, turn_id, .. }
        | P::Url { thread_id, turn_id, .. } => (thread_id, turn_id.as_deref()),
    }
}

/// What the MCP server asks, as its message says it (a verification: its title and description).
fn elicitation_message(params: &codex::McpServerElicitationRequestParams) -> String {
    use codex::McpServerElicitationRequestParams as P;
    match params {
        P::OpenaiXuserVerification { title, description, .. } => format!("{title}: {description}"),
        P::Form { message, .. } | P::OpenaiXform { message, .. } | P::OpenaiForm { message, .. } => message.clone(),
        P::Url { message, url, .. } => format!("{message} ({url})"),
    }
}
