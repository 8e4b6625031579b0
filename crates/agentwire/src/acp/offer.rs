//! What an open ACP request remembers beside the ledger's facts: its JSON-RPC id as sent and
//! what it offered or asked, so its answer can be read back in canonical terms (and a canonical
//! decision turned into a reply); and the client-side work the agent asked for.

use agentwire_acp::{
    CreateElicitationRequest, CursorAskQuestionParams, CursorCreatePlanParams, CursorGenerateImageParams,
    CursorTaskParams, CursorUpdateTodosParams, PermissionOptionKind, RequestId,
};

use super::tools;
use crate::decision::Decision;

/// What the normalizer keeps of an open agent request, beside the ledger's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct AcpRequest {
    /// The JSON-RPC method.
    pub method: &'static str,
    /// The JSON-RPC id, with its type (a reply must carry it back as sent).
    pub id: RequestId,
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
        tool_call_id: String,
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
    pub option_id: String,
    pub kind: PermissionOptionKind,
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
