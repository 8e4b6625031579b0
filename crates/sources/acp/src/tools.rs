//! The ACP tables: tool kinds to canonical item and request types, tool statuses, stop reasons,
//! permission option kinds to decisions, plan statuses. One exhaustive match each.

use agentwire_acp::{
    CursorTodo, CursorTodoStatus, CursorTodoStatusKnown, PermissionOptionKind, PlanEntryStatus, StopReason,
    ToolCallStatus, ToolKind,
};
use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, ItemStatus, PlanStepStatus, TurnPlanStep, TurnState,
};
use serde_json::{Map, Value};

use agentwire_core::decision::Decision;

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

/// The canonical item type of a tool call (`fields` its first report), by what the tool's own
/// input says before its ACP kind, which is a hint for a client's icon: codex-acp files a shell
/// command that reads or searches (`cat`, `rg`) under `read` or `search`, its argv in
/// `rawInput.command`, and an MCP call under no kind, Codex's invocation `{server, tool}` in
/// `rawInput`; claude-agent-acp's plan to approve (`ExitPlanMode`) is a `switch_mode`.
pub fn tool_item_type(kind: Option<&ToolKind>, fields: &Map<String, Value>) -> CanonicalItemType {
    let argv = fields
        .get("rawInput")
        .and_then(|input| input.get("command"))
        .is_some_and(Value::is_array);
    if argv {
        return CanonicalItemType::CommandExecution;
    }
    if mcp_tool(fields).is_some() {
        return CanonicalItemType::McpToolCall;
    }
    let plan_exit = claude_tool_name(fields) == Some("ExitPlanMode")
        || (kind == Some(&ToolKind::SwitchMode) && input_text(fields, "plan").is_some());
    if plan_exit {
        return CanonicalItemType::Plan;
    }
    item_type(kind)
}

/// The MCP server and tool a tool call calls: codex-acp's `rawInput` `{server, tool}`, or
/// claude-agent-acp's tool name `mcp__<server>__<tool>` (but for the adapter's own `acp`
/// server, which serves Claude's built-in tools: `mcp__acp__Read` is Read).
pub fn mcp_tool(fields: &Map<String, Value>) -> Option<(&str, &str)> {
    if let (Some(server), Some(tool)) = (input_text(fields, "server"), input_text(fields, "tool")) {
        return Some((server, tool));
    }
    let (server, tool) = claude_tool_name(fields)?.strip_prefix("mcp__")?.split_once("__")?;
    (server != "acp").then_some((server, tool))
}

/// The name of the tool a call runs, when the agent names it: claude-agent-acp's
/// `_meta.claudeCode.toolName` (its `acp` server's tools by their own name), Cursor's
/// `rawInput._toolName`.
pub fn tool_name(fields: &Map<String, Value>) -> Option<&str> {
    claude_tool_name(fields)
        .map(|name| name.strip_prefix("mcp__acp__").unwrap_or(name))
        .or_else(|| input_text(fields, "_toolName"))
}

/// The Claude tool a tool call of Claude's adapter runs: its `_meta.claudeCode.toolName`.
pub fn claude_tool_name(fields: &Map<String, Value>) -> Option<&str> {
    fields.get("_meta")?.get("claudeCode")?.get("toolName")?.as_str()
}

/// The text of a plan the agent proposes: `rawInput.plan` (claude-agent-acp's `ExitPlanMode`),
/// or the `plan` of Cursor's `cursor/create_plan`.
pub fn plan_text(fields: &Map<String, Value>) -> Option<String> {
    input_text(fields, "plan")
        .or_else(|| fields.get("plan").and_then(Value::as_str))
        .map(str::to_owned)
}

/// A text member of a tool call's `rawInput`.
fn input_text<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    fields.get("rawInput")?.get(key)?.as_str()
}

/// The approval a permission request asks for, by the type of the tool call it names: a plan
/// the agent proposes is a plan to approve before it starts changing things.
pub fn request_type(item_type: CanonicalItemType) -> CanonicalRequestType {
    use CanonicalItemType as T;
    match item_type {
        T::CommandExecution => CanonicalRequestType::CommandExecutionApproval,
        T::FileChange => CanonicalRequestType::FileChangeApproval,
        T::Plan => CanonicalRequestType::PlanApproval,
        T::UserMessage
        | T::AssistantMessage
        | T::Reasoning
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

/// A Cursor todo as a plan step: its text (content, else title, else id) and status.
pub fn todo_step(todo: &CursorTodo) -> TurnPlanStep {
    let step = todo
        .content
        .clone()
        .or_else(|| todo.title.clone())
        .or_else(|| todo.id.clone())
        .unwrap_or_default();
    TurnPlanStep {
        step,
        status: todo_status(todo.status.as_ref()),
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
