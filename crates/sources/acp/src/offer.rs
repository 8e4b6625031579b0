//! What an open ACP request remembers beside the ledger's facts: its JSON-RPC id as sent and
//! what it offered or asked, so its answer can be read back in canonical terms (and a canonical
//! decision turned into a reply); and the client-side work the agent asked for.

use agentwire_acp::{
    CreateElicitationRequest, CreateElicitationResponse, CursorAgentRequestResult, CursorAskQuestionOutcome,
    CursorAskQuestionParams, CursorAskQuestionResponse, CursorCreatePlanOutcome, CursorCreatePlanParams,
    CursorCreatePlanResponse, CursorGenerateImageOutcome, CursorGenerateImageParams, CursorGenerateImageResponse,
    CursorTaskOutcome, CursorTaskParams, CursorTaskResponse, CursorUpdateTodosOutcome, CursorUpdateTodosParams,
    CursorUpdateTodosResponse, PermissionOptionId, PermissionOptionKind, RequestId, RequestPermissionOutcome,
    RequestPermissionResponse,
};
use agentwire_canonical::RuntimeRequestId;
use serde_json::{Map, Value};

use super::tools;
use agentwire_core::answer::{AnswerError, Reply, ReplyFrame, choose, decode, ill_typed, no_result, to_value};
use agentwire_core::decision::Decision;
use agentwire_core::jsonrpc;

/// What the normalizer keeps of an open agent request, beside the ledger's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct AcpRequest {
    /// The JSON-RPC method.
    pub method: &'static str,
    /// The JSON-RPC id, with its type (a reply must carry it back as sent).
    pub id: RequestId,
    /// The request carried `"jsonrpc": "2.0"` (a reply speaks as the request did).
    pub jsonrpc: bool,
    /// The ACP session it belongs to.
    pub session: String,
    /// What was offered or asked.
    pub offer: Offer,
}

/// What an open request offered or asked, as needed to read or write its answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    /// `session/request_permission`: the options offered, for the tool call it names.
    Permission {
        /// The ACP id of the tool call asking.
        tool_call_id: String,
        /// The options in the order offered; the reply names one by its `option_id`.
        options: Vec<OfferedOption>,
    },
    /// `elicitation/create`.
    Elicitation(CreateElicitationRequest),
    /// `cursor/ask_question`.
    AskQuestion(CursorAskQuestionParams),
    /// `cursor/create_plan`.
    CreatePlan(CursorCreatePlanParams),
    /// `cursor/update_todos`.
    UpdateTodos(CursorUpdateTodosParams),
    /// `cursor/task`.
    Task(CursorTaskParams),
    /// `cursor/generate_image`.
    GenerateImage(CursorGenerateImageParams),
}

/// One option a permission request offered.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferedOption {
    /// The id the reply names to choose this option.
    pub option_id: String,
    /// Whether it allows or rejects, once or always: what maps it to a canonical decision.
    pub kind: PermissionOptionKind,
    /// The label shown to the user.
    pub name: String,
}

impl OfferedOption {
    /// The canonical decision of choosing this option.
    pub fn decision(&self) -> Decision {
        tools::decision(&self.kind)
    }
}

/// Client-side work the agent asked for (`fs/*`, `terminal/*`), until the client answers.
pub(super) struct Work {
    pub method: &'static str,
    pub session: String,
    /// The tool call it serves, when it could be told.
    pub tool: Option<String>,
}

/// The canonical decision of an `elicitation/create` answer by its `action`.
pub fn elicitation_decision(response: &CreateElicitationResponse) -> Decision {
    match response.action.as_deref() {
        Some("accept") => Decision::Answered,
        Some("decline") => Decision::Decline,
        Some(_) | None => Decision::Cancel,
    }
}

/// The canonical decision of a `cursor/ask_question` outcome.
pub fn ask_question_decision(outcome: &CursorAskQuestionOutcome) -> Decision {
    match outcome {
        CursorAskQuestionOutcome::Answered { .. } => Decision::Answered,
        CursorAskQuestionOutcome::Skipped { .. } => Decision::Decline,
        CursorAskQuestionOutcome::Cancelled => Decision::Cancel,
    }
}

/// The canonical decision of a `cursor/create_plan` outcome.
pub fn create_plan_decision(outcome: &CursorCreatePlanOutcome) -> Decision {
    match outcome {
        CursorCreatePlanOutcome::Accepted { .. } => Decision::Accept,
        CursorCreatePlanOutcome::Rejected { .. } => Decision::Decline,
        CursorCreatePlanOutcome::Cancelled => Decision::Cancel,
    }
}

/// The canonical decision of a `cursor/update_todos` outcome.
pub fn update_todos_decision(outcome: &CursorUpdateTodosOutcome) -> Decision {
    match outcome {
        CursorUpdateTodosOutcome::Accepted { .. } => Decision::Answered,
        CursorUpdateTodosOutcome::Rejected { .. } => Decision::Decline,
        CursorUpdateTodosOutcome::Cancelled => Decision::Cancel,
    }
}

/// The canonical decision of a `cursor/task` outcome.
pub fn task_decision(outcome: &CursorTaskOutcome) -> Decision {
    match outcome {
        CursorTaskOutcome::Completed { .. } => Decision::Answered,
        CursorTaskOutcome::Rejected { .. } => Decision::Decline,
        CursorTaskOutcome::Cancelled => Decision::Cancel,
    }
}

/// The canonical decision of a `cursor/generate_image` outcome.
pub fn generate_image_decision(outcome: &CursorGenerateImageOutcome) -> Decision {
    match outcome {
        CursorGenerateImageOutcome::Generated { .. } => Decision::Answered,
        CursorGenerateImageOutcome::Rejected { .. } => Decision::Decline,
        CursorGenerateImageOutcome::Cancelled => Decision::Cancel,
    }
}

/// Why the client refused a Cursor request: a skip's or rejection's `reason` (the `message` of
/// its resolution, and of a reply that rebuilds it).
pub fn cursor_refusal_reason(result: &CursorAgentRequestResult) -> Option<&str> {
    use CursorAgentRequestResult as R;
    match result {
        R::CursorAskQuestion(response) => match &response.outcome {
            CursorAskQuestionOutcome::Skipped { reason } => reason.as_deref(),
            CursorAskQuestionOutcome::Answered { .. } | CursorAskQuestionOutcome::Cancelled => None,
        },
        R::CursorCreatePlan(response) => match &response.outcome {
            CursorCreatePlanOutcome::Rejected { reason } => reason.as_deref(),
            CursorCreatePlanOutcome::Accepted { .. } | CursorCreatePlanOutcome::Cancelled => None,
        },
        R::CursorUpdateTodos(response) => match &response.outcome {
            CursorUpdateTodosOutcome::Rejected { reason } => reason.as_deref(),
            CursorUpdateTodosOutcome::Accepted { .. } | CursorUpdateTodosOutcome::Cancelled => None,
        },
        R::CursorTask(response) => match &response.outcome {
            CursorTaskOutcome::Rejected { reason } => reason.as_deref(),
            CursorTaskOutcome::Completed { .. } | CursorTaskOutcome::Cancelled => None,
        },
        R::CursorGenerateImage(response) => match &response.outcome {
            CursorGenerateImageOutcome::Rejected { reason } => reason.as_deref(),
            CursorGenerateImageOutcome::Generated { .. } | CursorGenerateImageOutcome::Cancelled => None,
        },
    }
}

/// What an outcome needs from the reply beyond its decision.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// The answers (`--answers`), as the outcome's `answers`.
    Answers,
    /// The outcome's fields (`--result`), which its type requires.
    Result,
}

impl AcpRequest {
    /// The JSON-RPC response answering this request with `reply`.
    pub fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        let method = self.method;
        let decision = reply.decision;
        let result = match &self.offer {
            Offer::Permission { options, .. } => {
                let selected = options.iter().map(|option| {
                    let outcome = RequestPermissionOutcome::Selected {
                        meta: None,
                        option_id: PermissionOptionId(option.option_id.clone()),
                    };
                    (option.decision(), outcome)
                });
                let candidates = selected.chain([(Decision::Cancel, RequestPermissionOutcome::Cancelled)]);
                let outcome = choose(request, method, decision, candidates)?;
                no_result(method, reply)?;
                to_value(&RequestPermissionResponse { meta: None, outcome })
            }
            Offer::Elicitation(_) => {
                let content = reply
                    .answers
                    .as_ref()
                    .map(|answers| decode(method, "answers", answers))
                    .transpose()?;
                let response = |action: &str, content| CreateElicitationResponse {
                    action: Some(action.to_string()),
                    content,
                    meta: None,
                };
                let candidates = [
                    response("accept", content),
                    response("decline", None),
                    response("cancel", None),
                ]
                .into_iter()
                .map(|response| (elicitation_decision(&response), response));
                let response = choose(request, method, decision, candidates)?;
                no_result(method, reply)?;
                to_value(&response)
            }
            Offer::AskQuestion(_) => {
                let tags = [
                    (
                        CursorAskQuestionOutcome::Answered { answers: Vec::new() },
                        Needs::Answers,
                    ),
                    (
                        CursorAskQuestionOutcome::Skipped {
                            reason: Some(String::new()),
                        },
                        Needs::Nothing,
                    ),
                    (CursorAskQuestionOutcome::Cancelled, Needs::Nothing),
                ];
                let candidates = tags
                    .into_iter()
                    .map(|(o, needs)| (ask_question_decision(&o), (o, needs)));
                let (skeleton, needs) = choose(request, method, decision, candidates)?;
                let outcome = self.outcome(&skeleton, needs, reply)?;
                to_value(&CursorAskQuestionResponse { outcome })
            }
            Offer::CreatePlan(_) => {
                let tags = [
                    CursorCreatePlanOutcome::Accepted { plan_uri: None },
                    CursorCreatePlanOutcome::Rejected {
                        reason: Some(String::new()),
                    },
                    CursorCreatePlanOutcome::Cancelled,
                ];
                let candidates = tags.into_iter().map(|o| (create_plan_decision(&o), o));
                let skeleton = choose(request, method, decision, candidates)?;
                let outcome = self.outcome(&skeleton, Needs::Nothing, reply)?;
                to_value(&CursorCreatePlanResponse { outcome })
            }
            Offer::UpdateTodos(_) => {
                let tags = [
                    (CursorUpdateTodosOutcome::Accepted { todos: Vec::new() }, Needs::Result),
                    (
                        CursorUpdateTodosOutcome::Rejected {
                            reason: Some(String::new()),
                        },
                        Needs::Nothing,
                    ),
                    (CursorUpdateTodosOutcome::Cancelled, Needs::Nothing),
                ];
                let candidates = tags
                    .into_iter()
                    .map(|(o, needs)| (update_todos_decision(&o), (o, needs)));
                let (skeleton, needs) = choose(request, method, decision, candidates)?;
                let outcome = self.outcome(&skeleton, needs, reply)?;
                to_value(&CursorUpdateTodosResponse { outcome })
            }
            Offer::Task(_) => {
                let tags = [
                    CursorTaskOutcome::Completed {
                        agent_id: None,
                        duration_ms: None,
                    },
                    CursorTaskOutcome::Rejected {
                        reason: Some(String::new()),
                    },
                    CursorTaskOutcome::Cancelled,
                ];
                let candidates = tags.into_iter().map(|o| (task_decision(&o), o));
                let skeleton = choose(request, method, decision, candidates)?;
                let outcome = self.outcome(&skeleton, Needs::Nothing, reply)?;
                to_value(&CursorTaskResponse { outcome })
            }
            Offer::GenerateImage(_) => {
                let tags = [
                    (
                        CursorGenerateImageOutcome::Generated {
                            file_path: String::new(),
                            image_data: None,
                        },
                        Needs::Result,
                    ),
                    (
                        CursorGenerateImageOutcome::Rejected {
                            reason: Some(String::new()),
                        },
                        Needs::Nothing,
                    ),
                    (CursorGenerateImageOutcome::Cancelled, Needs::Nothing),
                ];
                let candidates = tags
                    .into_iter()
                    .map(|(o, needs)| (generate_image_decision(&o), (o, needs)));
                let (skeleton, needs) = choose(request, method, decision, candidates)?;
                let outcome = self.outcome(&skeleton, needs, reply)?;
                to_value(&CursorGenerateImageResponse { outcome })
            }
        };
        Ok(ReplyFrame::offered(jsonrpc::response(&self.id, self.jsonrpc, result)))
    }

    /// A Cursor outcome of the variant `skeleton` names (a refusal's skeleton carries an empty
    /// `reason`, marking where the message goes), filled from the reply: the answers, the
    /// result's fields, and the message as the `reason` of a refusal; decoded into the outcome's
    /// type, so a field of the wrong type is an error.
    fn outcome<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        skeleton: &T,
        needs: Needs,
        reply: &Reply,
    ) -> Result<T, AnswerError> {
        let method = self.method;
        let skeleton = to_value(skeleton);
        let mut outcome = Map::new();
        outcome.insert("outcome".to_string(), skeleton["outcome"].clone());
        if let Some(result) = &reply.result {
            let Value::Object(fields) = result else {
                return Err(ill_typed(
                    method,
                    "result",
                    "result",
                    "expected the outcome's fields as a JSON object",
                ));
            };
            if fields.contains_key("outcome") {
                return Err(ill_typed(
                    method,
                    "result",
                    "result.outcome",
                    "the decision sets the outcome",
                ));
            }
            outcome.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        match (needs, &reply.answers, &reply.result) {
            (Needs::Answers, Some(answers), _) => {
                outcome.insert("answers".to_string(), answers.clone());
            }
            (Needs::Answers, None, _) => {
                return Err(AnswerError::MissingAnswers {
                    method: method.to_string(),
                    decision: reply.decision,
                });
            }
            (Needs::Result, _, None) => {
                return Err(AnswerError::MissingResult {
                    method: method.to_string(),
                    decision: reply.decision,
                });
            }
            (Needs::Result, _, Some(_)) | (Needs::Nothing, _, _) => {}
        }
        if let (Some(message), Some(_)) = (&reply.message, skeleton.get("reason")) {
            outcome.insert("reason".to_string(), Value::String(message.clone()));
        }
        decode(method, "result", &Value::Object(outcome))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn open(offer: Offer) -> AcpRequest {
        AcpRequest {
            method: "elicitation/create",
            id: RequestId::Integer(4),
            session: "s".to_string(),
            jsonrpc: true,
            offer,
        }
    }

    fn id() -> RuntimeRequestId {
        RuntimeRequestId::new("00000000-0000-4000-8000-000000000002").expect("a uuid")
    }

    #[test]
    fn an_elicitation_is_accepted_with_its_content_declined_or_cancelled() {
        let asked: CreateElicitationRequest =
            serde_json::from_value(json!({ "message": "Your name?", "mode": "form" })).expect("a request");
        let request = open(Offer::Elicitation(asked));
        let answered = Reply {
            answers: Some(json!({ "name": "Ada" })),
            ..Reply::new(Decision::Answered)
        };
        let cases = [
            (answered, json!({ "action": "accept", "content": { "name": "Ada" } })),
            (Reply::new(Decision::Decline), json!({ "action": "decline" })),
            (Reply::new(Decision::Cancel), json!({ "action": "cancel" })),
        ];
        for (reply, result) in cases {
            let decision = reply.decision;
            let frame = request.answer(&id(), &reply).expect("offered").frame;
            assert_eq!(
                frame,
                json!({ "jsonrpc": "2.0", "id": 4, "result": result }),
                "{decision}"
            );
            let read: CreateElicitationResponse = serde_json::from_value(frame["result"].clone()).expect("typed");
            assert_eq!(elicitation_decision(&read), decision, "read back");
        }
        let err = request
            .answer(&id(), &Reply::new(Decision::Accept))
            .expect_err("accept is answered");
        assert!(err.to_string().ends_with("offered: answered, decline, cancel"), "{err}");
    }

    #[test]
    fn a_generated_image_needs_its_file_path() {
        let asked: CursorGenerateImageParams = serde_json::from_value(json!({
            "toolCallId": "t1", "description": "a cat"
        }))
        .expect("params");
        let request = AcpRequest {
            method: "cursor/generate_image",
            ..open(Offer::GenerateImage(asked))
        };
        let err = request
            .answer(&id(), &Reply::new(Decision::Answered))
            .expect_err("no path");
        assert!(matches!(err, AnswerError::MissingResult { .. }), "{err}");
        let generated = Reply {
            result: Some(json!({ "filePath": "/tmp/cat.png" })),
            ..Reply::new(Decision::Answered)
        };
        let frame = request.answer(&id(), &generated).expect("offered").frame;
        assert_eq!(
            frame["result"],
            json!({ "outcome": { "outcome": "generated", "filePath": "/tmp/cat.png" } })
        );
        let rejected = Reply {
            message: Some("not now".to_string()),
            ..Reply::new(Decision::Decline)
        };
        let frame = request.answer(&id(), &rejected).expect("offered").frame;
        assert_eq!(
            frame["result"],
            json!({ "outcome": { "outcome": "rejected", "reason": "not now" } })
        );
    }

    fn ill_typed_at(err: AnswerError) -> String {
        match err {
            AnswerError::IllTyped { path, .. } => path,
            other => panic!("not ill-typed: {other}"),
        }
    }

    #[test]
    fn an_outcome_field_of_the_wrong_type_or_unknown_is_an_error_at_its_path() {
        let asked: CursorGenerateImageParams = serde_json::from_value(json!({
            "toolCallId": "t1", "description": "a cat"
        }))
        .expect("params");
        let request = AcpRequest {
            method: "cursor/generate_image",
            ..open(Offer::GenerateImage(asked))
        };
        let cases = [
            (json!(42), "result"),
            (json!({ "filePath": 7 }), "result"),
            (json!({ "filePath": "/tmp/cat.png", "format": "png" }), "result.format"),
            (
                json!({ "filePath": "/tmp/cat.png", "outcome": "rejected" }),
                "result.outcome",
            ),
        ];
        for (result, path) in cases {
            let reply = Reply {
                result: Some(result.clone()),
                ..Reply::new(Decision::Answered)
            };
            let err = request.answer(&id(), &reply).expect_err("ill-typed");
            assert_eq!(ill_typed_at(err), path, "{result}");
        }
    }

    #[test]
    fn a_permission_or_an_elicitation_takes_no_result() {
        let permission = AcpRequest {
            method: "session/request_permission",
            ..open(Offer::Permission {
                tool_call_id: "t1".to_string(),
                options: vec![OfferedOption {
                    option_id: "allow".to_string(),
                    kind: PermissionOptionKind::AllowOnce,
                    name: "Allow".to_string(),
                }],
            })
        };
        let asked: CreateElicitationRequest =
            serde_json::from_value(json!({ "message": "Your name?", "mode": "form" })).expect("a request");
        let elicitation = open(Offer::Elicitation(asked));
        for (request, decision) in [(permission, Decision::Accept), (elicitation, Decision::Decline)] {
            assert!(request.answer(&id(), &Reply::new(decision)).is_ok());
            let reply = Reply {
                result: Some(json!({ "optionId": "allow" })),
                ..Reply::new(decision)
            };
            let err = request.answer(&id(), &reply).expect_err("no result");
            assert!(err.to_string().ends_with("takes no result"), "{err}");
            assert_eq!(ill_typed_at(err), "result");
        }
    }
}
