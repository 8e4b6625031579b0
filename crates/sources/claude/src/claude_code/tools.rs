//! Claude Code's tool table: what each tool is for the canonical model (its item type, its
//! permission request's type, the stream its output goes to), what a call acts on, and the plan a
//! `TodoWrite` holds.

use agentwire_canonical::{CanonicalItemType, CanonicalRequestType, ContentStreamKind, PlanStepStatus, TurnPlanStep};
use serde_json::Value;

/// The plan a `TodoWrite` input holds (its `todos`, each a step), if it holds one.
pub fn todo_plan(input: &Value) -> Option<Vec<TurnPlanStep>> {
    let todos = input.get("todos")?.as_array()?;
    Some(
        todos
            .iter()
            .map(|todo| TurnPlanStep {
                step: todo
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                status: todo
                    .get("status")
                    .and_then(Value::as_str)
                    .and_then(task_status)
                    .unwrap_or(PlanStepStatus::Pending),
            })
            .collect(),
    )
}

/// The plan step status of a task status (`TodoWrite`'s todos, `TaskUpdateInput.status`,
/// `TaskListOutput`).
pub fn task_status(status: &str) -> Option<PlanStepStatus> {
    match status {
        "pending" => Some(PlanStepStatus::Pending),
        "in_progress" => Some(PlanStepStatus::InProgress),
        "completed" => Some(PlanStepStatus::Completed),
        _ => None,
    }
}

/// The MCP server through which Zed's Claude adapter (`claude-agent-acp`) serves Claude's own
/// tools to the editor: `mcp__acp__Bash` is `Bash`, run by the client.
const ACP_MIRROR: &str = "mcp__acp__";

/// What a Claude tool is, for the canonical model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// `Bash`: a shell command.
    Command,
    /// `Write`, `Edit`, `MultiEdit`, `NotebookEdit`: a change to files.
    FileChange,
    /// `mcp__<server>__<tool>` (and `mcp_tool_use` blocks): an MCP server's tool.
    Mcp,
    /// `Task` (`Agent` in newer CLIs): a subagent.
    Subagent,
    /// `WebSearch`, `WebFetch` (and the API's server-side `web_search`/`web_fetch`).
    Web,
    /// `TodoWrite`: the agent's plan.
    Plan,
    /// `ExitPlanMode`: a plan the agent proposes, written as text, for the person to approve.
    ProposedPlan,
    /// Any other tool (`Read`, `Glob`, `Grep`, the task tools, ...).
    Other,
}

/// The kind of the tool named `name`.
pub fn tool_kind(name: &str) -> ToolKind {
    let name = builtin(name);
    match name {
        "Bash" => ToolKind::Command,
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::FileChange,
        "Task" | "Agent" => ToolKind::Subagent,
        "WebSearch" | "WebFetch" | "web_search" | "web_fetch" => ToolKind::Web,
        "TodoWrite" => ToolKind::Plan,
        "ExitPlanMode" => ToolKind::ProposedPlan,
        _ if name.starts_with("mcp__") => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

/// The name of Claude's own tool a call names, seen through the ACP adapter's mirror.
pub fn builtin(name: &str) -> &str {
    name.strip_prefix(ACP_MIRROR).unwrap_or(name)
}

/// The input member saying what a call acts on, for titles and permission cards: the command,
/// the path, the pattern, the address, the query or the subagent's task.
pub fn subject_key(name: &str) -> Option<&'static str> {
    Some(match builtin(name) {
        "Bash" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" => "notebook_path",
        "Grep" | "Glob" => "pattern",
        "WebFetch" | "web_fetch" => "url",
        "WebSearch" | "web_search" => "query",
        "Task" | "Agent" => "description",
        "TaskCreate" => "subject",
        "Skill" => "skill",
        _ => return None,
    })
}

impl ToolKind {
    /// The canonical item type of a call.
    pub fn item_type(self) -> CanonicalItemType {
        match self {
            Self::Command => CanonicalItemType::CommandExecution,
            Self::FileChange => CanonicalItemType::FileChange,
            Self::Mcp => CanonicalItemType::McpToolCall,
            Self::Subagent => CanonicalItemType::CollabAgentToolCall,
            Self::Web => CanonicalItemType::WebSearch,
            Self::Plan | Self::ProposedPlan => CanonicalItemType::Plan,
            Self::Other => CanonicalItemType::DynamicToolCall,
        }
    }

    /// The stream a call's output is reported on as it arrives, where the canonical model has one.
    pub fn output_stream(self) -> Option<ContentStreamKind> {
        match self {
            Self::Command => Some(ContentStreamKind::CommandOutput),
            Self::FileChange => Some(ContentStreamKind::FileChangeOutput),
            Self::Mcp | Self::Subagent | Self::Web | Self::Plan | Self::ProposedPlan | Self::Other => None,
        }
    }

    /// The request type of a permission request for it (spec 4.2).
    pub fn request_type(self) -> CanonicalRequestType {
        match self {
            Self::Command => CanonicalRequestType::CommandExecutionApproval,
            Self::FileChange => CanonicalRequestType::FileChangeApproval,
            Self::ProposedPlan => CanonicalRequestType::PlanApproval,
            Self::Mcp | Self::Subagent | Self::Web | Self::Plan | Self::Other => CanonicalRequestType::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table() {
        assert_eq!(tool_kind("Bash"), ToolKind::Command);
        assert_eq!(tool_kind("MultiEdit"), ToolKind::FileChange);
        assert_eq!(tool_kind("mcp__github__search"), ToolKind::Mcp);
        assert_eq!(tool_kind("Task"), ToolKind::Subagent);
        assert_eq!(tool_kind("WebFetch"), ToolKind::Web);
        assert_eq!(tool_kind("TodoWrite"), ToolKind::Plan);
        assert_eq!(tool_kind("Read"), ToolKind::Other);
        assert_eq!(ToolKind::Web.request_type(), CanonicalRequestType::Unknown);
        assert_eq!(tool_kind("mcp__acp__Bash"), ToolKind::Command);
        assert_eq!(tool_kind("mcp__acp__Write"), ToolKind::FileChange);
        assert_eq!(tool_kind("mcp__acp__Read"), ToolKind::Other);
    }

    #[test]
    fn subjects() {
        assert_eq!(subject_key("mcp__acp__Bash"), Some("command"));
        assert_eq!(subject_key("Read"), Some("file_path"));
        assert_eq!(subject_key("Grep"), Some("pattern"));
        assert_eq!(subject_key("mcp__github__search"), None);
    }
}
