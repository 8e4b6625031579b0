//! The ACP tables: tool kinds to canonical item and request types, tool statuses, stop reasons,
//! permission option kinds to decisions, plan statuses. One exhaustive match each.

use agentwire_acp::{
    CursorTodoStatus, CursorTodoStatusKnown, PermissionOptionKind, PlanEntryStatus, StopReason, ToolCallStatus,
    ToolKind,
};
use agentwire_canonical::{CanonicalItemType, CanonicalRequestType, ItemStatus, PlanStepStatus, TurnState};

use crate::decision::Decision;

/// The canonical item type of a tool call of `kind` (none given: a tool the agent did not
/// classify).
///
/// `search` and `fetch` are `web_search` as the ACP kinds suggest, though Claude's adapter files
/// Grep/Glob under `search` too; `think` is `reasoning`: the agent's own thinking step, not an
/// action (Claude's adapter files its Task under `think` too: the caller knows it by its tool
/// name); `read`, `switch_mode` and `other` have no canonical type of their own and are
/// `dynamic_tool_call` (a tool the agent ran that the canonical model does not name).
pub fn item_type(kind: Option<&ToolKind>) -> CanonicalItemType {
    match kind {
        Some(ToolKind::Execute) => CanonicalItemType::CommandExecution,
        Some(ToolKind::Edit | ToolKind::Delete | ToolKind::Move) => CanonicalItemType::FileChange,
        Some(ToolKind::Fetch | ToolKind::Search) => CanonicalItemType::WebSearch,
        Some(ToolKind::Think) => CanonicalItemType::Reasoning,
        Some(ToolKind::Read | ToolKind::SwitchMode | ToolKind::Other) | None => CanonicalItemType::DynamicToolCall,
    }
}

/// The approval a permission request asks for, by the type of the tool call it names.
pub fn request_type(item_type: CanonicalItemType) -> CanonicalRequestType {
    use CanonicalItemType as T;
    match item_type {
        T::CommandExecution => CanonicalRequestType::CommandExecutionApproval,
        T::FileChange => CanonicalRequestType::FileChangeApproval,
        T::UserMessage
        | T::AssistantMessage
        | T::Reasoning
        | T::Plan
        | T::McpToolCall
        | T::DynamicToolCall
        | T::CollabAgentToolCall
        | T::WebSearch
        | T::ImageView
        | T::ImageGeneration
        | T::ReviewEntered
        | T::ReviewExited
        | T::ContextCompaction
        | T::Error
        | T::Unknown => CanonicalRequestType::Unknown,
    }
}

/// Whether a tool call status ends the item, and as what.
pub fn final_status(status: &ToolCallStatus) -> Option<ItemStatus> {
    match status {
        ToolCallStatus::Pending | ToolCallStatus::InProgress => None,
        ToolCallStatus::Completed => Some(ItemStatus::Completed),
        ToolCallStatus::Failed => Some(ItemStatus::Failed),
    }
}

/// The state of a turn that ended with `reason`: `cancelled` is a newer prompt superseding this
/// one, or the client's `session/cancel` (which the normalizer reads as `interrupted`); every
/// other reason is a turn that completed, its
/// reason in `stopReason` (`refusal` included: the agent answered, with a refusal).
pub fn turn_state(reason: &StopReason) -> TurnState {
    match reason {
        StopReason::Cancelled => TurnState::Cancelled,
        StopReason::EndTurn | StopReason::MaxTokens | StopReason::MaxTurnRequests | StopReason::Refusal => {
            TurnState::Completed
        }
    }
}

/// The canonical decision of choosing an option of `kind`.
pub fn decision(kind: &PermissionOptionKind) -> Decision {
    match kind {
        PermissionOptionKind::AllowOnce => Decision::Accept,
        PermissionOptionKind::AllowAlways => Decision::AcceptForSession,
        PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways => Decision::Decline,
    }
}

/// A plan entry's status as a plan step's.
pub fn plan_status(status: &PlanEntryStatus) -> PlanStepStatus {
    match status {
        PlanEntryStatus::Pending => PlanStepStatus::Pending,
        PlanEntryStatus::InProgress => PlanStepStatus::InProgress,
        PlanEntryStatus::Completed => PlanStepStatus::Completed,
    }
}

/// A Cursor todo's status as a plan step's: a cancelled todo is done with (`completed`), a
/// status this schema does not know is still to do (`pending`).
pub fn todo_status(status: Option<&CursorTodoStatus>) -> PlanStepStatus {
    match status {
        Some(CursorTodoStatus::CursorTodoStatusKnown(known)) => match known {
            CursorTodoStatusKnown::Pending => PlanStepStatus::Pending,
            CursorTodoStatusKnown::InProgress => PlanStepStatus::InProgress,
            CursorTodoStatusKnown::Completed | CursorTodoStatusKnown::Cancelled => PlanStepStatus::Completed,
        },
        Some(CursorTodoStatus::Other(_)) | None => PlanStepStatus::Pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_kinds_follow_the_documented_table() {
        assert_eq!(item_type(Some(&ToolKind::Execute)), CanonicalItemType::CommandExecution);
        assert_eq!(item_type(Some(&ToolKind::Move)), CanonicalItemType::FileChange);
        assert_eq!(item_type(Some(&ToolKind::Fetch)), CanonicalItemType::WebSearch);
        assert_eq!(item_type(Some(&ToolKind::Think)), CanonicalItemType::Reasoning);
        assert_eq!(item_type(Some(&ToolKind::Read)), CanonicalItemType::DynamicToolCall);
        assert_eq!(item_type(None), CanonicalItemType::DynamicToolCall);
        assert_eq!(
            request_type(item_type(Some(&ToolKind::Delete))),
            CanonicalRequestType::FileChangeApproval
        );
    }

    #[test]
    fn option_kinds_are_decisions() {
        assert_eq!(decision(&PermissionOptionKind::AllowOnce), Decision::Accept);
        assert_eq!(decision(&PermissionOptionKind::AllowAlways), Decision::AcceptForSession);
        assert_eq!(decision(&PermissionOptionKind::RejectAlways), Decision::Decline);
    }
}
