//! Server requests: `request.opened` when app-server asks, `request.resolved` when it is settled.
//!
//! The lifecycle is keyed by JSON-RPC id. The client's answer (`dir: out`) carries the decision;
//! app-server confirms with `serverRequest/resolved`, and that confirmation emits
//! `request.resolved` with the remembered decision. `item/tool/call` (dynamic tools) gets no
//! confirmation, so its answer resolves it directly.

use agentwire_canonical::{
    CanonicalRequestType, ProviderRuntimeEvent, RequestOpenedPayload, RequestResolvedPayload, RuntimeEvent,
    RuntimeEventRawSource, RuntimeRequestId, TrimmedNonEmptyString, UserInputRequestedPayload,
    UserInputResolvedPayload,
};
use agentwire_codex_app_server::{self as codex, RequestId, ServerRequest, ServerRequestResult};
use serde_json::{Value, json};

use super::normalizer::{CodexAppServerNormalizer, OpenRequest};
use crate::emit::{Context, Raw};
use crate::frame::Frame;
use crate::ids;

/// Where a request belongs: (thread, turn, item) as the provider names them.
type Place = (Option<String>, Option<String>, Option<String>);

impl CodexAppServerNormalizer {
    pub(super) fn on_server_request(
        &mut self,
        frame: &Frame<'_>,
        request: &ServerRequest,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        use ServerRequest as R;
        let s = |value: &str| Some(value.to_string());
        let (request_type, (thread, turn, item), args): (CanonicalRequestType, Place, Value) = match request {
            R::ItemCommandExecutionRequestApproval { params, .. } => (
                CanonicalRequestType::CommandExecutionApproval,
                (s(&params.thread_id), s(&params.turn_id), s(&params.item_id)),
                to_json(params),
            ),
            R::ItemFileChangeRequestApproval { params, .. } => (
                CanonicalRequestType::FileChangeApproval,
                (s(&params.thread_id), s(&params.turn_id), s(&params.item_id)),
                to_json(params),
            ),
            R::ItemToolRequestUserInput { params, .. } => (
                CanonicalRequestType::ToolUserInput,
                (s(&params.thread_id), s(&params.turn_id), s(&params.item_id)),
                to_json(params),
            ),
            R::McpServerElicitationRequest { params, .. } => (
                CanonicalRequestType::McpServerElicitation,
                elicitation_place(params),
                to_json(params),
            ),
            R::ItemPermissionsRequestApproval { params, .. } => (
                CanonicalRequestType::PermissionsApproval,
                (s(&params.thread_id), s(&params.turn_id), s(&params.item_id)),
                to_json(params),
            ),
            R::ItemToolCall { params, .. } => (
                CanonicalRequestType::DynamicToolCall,
                (s(&params.thread_id), s(&params.turn_id), s(&params.call_id)),
                to_json(params),
            ),
            R::AccountChatgptAuthTokensRefresh { params, .. } => (
                CanonicalRequestType::AuthTokensRefresh,
                (None, None, None),
                to_json(params),
            ),
            R::AttestationGenerate { params, .. } => {
                (CanonicalRequestType::Attestation, (None, None, None), to_json(params))
            }
            // The legacy (v1) approvals name the thread `conversationId` and carry no turn.
            R::ApplyPatchApproval { params, .. } => (
                CanonicalRequestType::ApplyPatchApproval,
                (Some(params.conversation_id.to_string()), None, s(&params.call_id)),
                to_json(params),
            ),
            R::ExecCommandApproval { params, .. } => (
                CanonicalRequestType::ExecCommandApproval,
                (Some(params.conversation_id.to_string()), None, s(&params.call_id)),
                to_json(params),
            ),
        };
        let id = request.id().clone();
        let method = request.method();
        let raw = Raw {
            source: RuntimeEventRawSource::CodexAppServerRequest,
            method: Some(method),
            message_type: None,
            payload: frame.msg,
        };
        let context = self.request_context(&id, (&thread, &turn, &item), Some(raw));
        let user_input = matches!(request, R::ItemToolRequestUserInput { .. });
        if let R::ItemToolRequestUserInput { params, .. } = request {
            let questions = to_json(&params.questions);
            self.emit(
                &context,
                RuntimeEvent::UserInputRequested(UserInputRequestedPayload { questions }),
                out,
            );
        }
        let payload = RequestOpenedPayload {
            request_type,
            detail: detail_of(request),
            args: Some(args),
        };
        self.emit(&context, RuntimeEvent::RequestOpened(payload), out);
        self.requests.insert(
            id,
            OpenRequest {
                request_type,
                method,
                thread,
                turn,
                item,
                answer: None,
                user_input,
            },
        );
    }

    /// The client answered a server request (a result or an error). Dynamic tool calls resolve
    /// here; the others wait for `serverRequest/resolved`.
    pub(super) fn on_client_answer(
        &mut self,
        frame: &Frame<'_>,
        id: &RequestId,
        answer: (Option<String>, Value),
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let Some(request) = self.requests.get_mut(id) else {
            return;
        };
        request.answer = Some(answer);
        if request.request_type == CanonicalRequestType::DynamicToolCall {
            let request = self.requests.remove(id).expect("found above");
            let raw = Raw {
                source: RuntimeEventRawSource::CodexAppServerClientResponse,
                method: Some(request.method),
                message_type: None,
                payload: frame.msg,
            };
            self.resolve(Some(raw), id, request, None, out);
        }
    }

    /// `serverRequest/resolved`.
    pub(super) fn on_request_resolved(
        &mut self,
        raw: Raw<'_>,
        params: &codex::ServerRequestResolvedNotification,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        match self.requests.remove(&params.request_id) {
            Some(request) => self.resolve(Some(raw), &params.request_id, request, None, out),
            None => {
                // A request opened before this stream began (or never seen): still settled.
                let context = self.request_context(
                    &params.request_id,
                    (&Some(params.thread_id.clone()), &None, &None),
                    Some(raw),
                );
                let payload = RequestResolvedPayload {
                    request_type: CanonicalRequestType::Unknown,
                    decision: None,
                    resolution: Some(json!({ "requestId": params.request_id })),
                };
                self.emit(&context, RuntimeEvent::RequestResolved(payload), out);
            }
        }
    }

    /// Emits `request.resolved` (and `user-input.resolved` for user input). `unanswered` is the
    /// reason when the stream ended before any answer.
    pub(super) fn resolve(
        &mut self,
        raw: Option<Raw<'_>>,
        id: &RequestId,
        request: OpenRequest,
        unanswered: Option<&str>,
        out: &mut Vec<ProviderRuntimeEvent>,
    ) {
        let context = self.request_context(id, (&request.thread, &request.turn, &request.item), raw);
        let (decision, resolution) = match (request.answer, unanswered) {
            (Some(answer), _) => answer,
            (None, Some(reason)) => (Some("cancelled".to_string()), json!({ "reason": reason })),
            (None, None) => (None, Value::Null),
        };
        if request.user_input && unanswered.is_none() {
            let answers = resolution.get("answers").cloned().unwrap_or(Value::Null);
            self.emit(
                &context,
                RuntimeEvent::UserInputResolved(UserInputResolvedPayload { answers }),
                out,
            );
        }
        let payload = RequestResolvedPayload {
            request_type: request.request_type,
            decision,
            resolution: (!resolution.is_null()).then_some(resolution),
        };
        self.emit(&context, RuntimeEvent::RequestResolved(payload), out);
    }

    fn request_context<'a>(
        &mut self,
        id: &RequestId,
        (thread, turn, item): (&Option<String>, &Option<String>, &Option<String>),
        raw: Option<Raw<'a>>,
    ) -> Context<'a> {
        let session = self.emitter.session().clone();
        let mut context = match (thread, turn, item) {
            (Some(thread), Some(turn), Some(item)) => self.item_context(thread, turn, item, raw),
            (Some(thread), Some(turn), None) => self.turn_context(thread, turn, raw),
            (Some(thread), None, _) => self.thread_context(thread, raw),
            (None, _, _) => Context {
                raw,
                ..Context::default()
            },
        };
        context.request_id = Some(
            RuntimeRequestId::new(ids::derive(&format!("codex:request:{session}:in:{id}")))
                .expect("a UUID is a valid id"),
        );
        context.refs.provider_request_id = TrimmedNonEmptyString::new(id.to_string()).ok();
        context
    }
}

/// The client's answer as (decision, resolution): the decision is the answer's tag where the
/// protocol has one (`accept`, `decline`, `cancel`, ...), the resolution the whole answer.
pub(super) fn answer_of(result: &ServerRequestResult) -> (Option<String>, Value) {
    use ServerRequestResult as R;
    let resolution = to_json(result);
    let decision = match result {
        R::ItemCommandExecutionRequestApproval(answer) => tag_of(&to_json(&answer.decision)),
        R::ItemFileChangeRequestApproval(answer) => tag_of(&to_json(&answer.decision)),
        R::ApplyPatchApproval(answer) => tag_of(&to_json(&answer.decision)),
        R::ExecCommandApproval(answer) => tag_of(&to_json(&answer.decision)),
        R::McpServerElicitationRequest(answer) => tag_of(&to_json(&answer.action)),
        R::ItemPermissionsRequestApproval(answer) => tag_of(&to_json(&answer.scope)),
        R::ItemToolCall(answer) => Some(if answer.success { "success" } else { "failure" }.to_string()),
        R::ItemToolRequestUserInput(_) => Some("answered".to_string()),
        R::AccountChatgptAuthTokensRefresh(_) | R::AttestationGenerate(_) => Some("provided".to_string()),
    };
    (decision, resolution)
}

/// A decision enum serializes as its name (`"accept"`) or, when it carries data, as an object
/// with one key (`{"acceptWithExecpolicyAmendment": {...}}`): the name either way.
fn tag_of(value: &Value) -> Option<String> {
    match value {
        Value::String(tag) => Some(tag.clone()),
        Value::Object(map) if map.len() == 1 => map.keys().next().cloned(),
        Value::Object(_) | Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) => None,
    }
}

/// A one-line description of what is asked, for a UI.
fn detail_of(request: &ServerRequest) -> Option<String> {
    use ServerRequest as R;
    match request {
        R::ItemCommandExecutionRequestApproval { params, .. } => {
            params.command.clone().or_else(|| params.reason.clone())
        }
        R::ItemFileChangeRequestApproval { params, .. } => params.reason.clone(),
        R::ItemToolRequestUserInput { params, .. } => params.questions.first().map(|q| q.question.clone()),
        R::McpServerElicitationRequest { .. } => None,
        R::ItemPermissionsRequestApproval { params, .. } => params.reason.clone(),
        R::ItemToolCall { params, .. } => Some(params.tool.clone()),
        R::AccountChatgptAuthTokensRefresh { .. } | R::AttestationGenerate { .. } => None,
        R::ApplyPatchApproval { params, .. } => params.reason.clone(),
        R::ExecCommandApproval { params, .. } => Some(params.command.join(" ")),
    }
}

fn elicitation_place(params: &codex::McpServerElicitationRequestParams) -> Place {
    use codex::McpServerElicitationRequestParams as P;
    let (thread, turn) = match params {
        P::OpenaiXuserVerification { thread_id, turn_id, .. }
        | P::Form { thread_id, turn_id, .. }
        | P::OpenaiXform { thread_id, turn_id, .. }
        | P::OpenaiForm { thread_id, turn_id, .. }
        | P::Url { thread_id, turn_id, .. } => (thread_id, turn_id),
    };
    (Some(thread.clone()), turn.clone(), None)
}

pub(super) fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("generated types serialize to JSON")
}
