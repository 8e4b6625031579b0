//! The tool-name table: which canonical item a Claude tool call is, and which request type a
//! permission request for it opens.

use agentwire_canonical::{CanonicalItemType, CanonicalRequestType};

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
    /// Any other tool (`Read`, `Glob`, `Grep`, `ExitPlanMode`, the task tools, ...).
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
        _ if name.starts_with("mcp__") => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

/// The name of Claude's own tool a call names, seen through the ACP adapter's mirror.
pub fn builtin(name: &str) -> &str {
    name.strip_prefix(ACP_MIRROR).unwrap_or(name)
}

/// The input member saying what a call acts on, for titles and permission cards: the command,
/// the path, the pattern, the address, the query, the subagent's task or the plan.
pub fn subject_key(name: &str) -> Option<&'static str> {
    Some(match builtin(name) {
        "Bash" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" => "notebook_path",
        "Grep" | "Glob" => "pattern",
        "WebFetch" | "web_fetch" => "url",
        "WebSearch" | "web_search" => "query",
        "Task" | "Agent" => "description",
        "ExitPlanMode" => "plan",
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
            Self::Plan => CanonicalItemType::Plan,
            Self::Other => CanonicalItemType::DynamicToolCall,
        }
    }

    /// The request type of a permission request for it (spec 4.2).
    pub fn request_type(self) -> CanonicalRequestType {
        match self {
            Self::Command => CanonicalRequestType::CommandExecutionApproval,
            Self::FileChange => CanonicalRequestType::FileChangeApproval,
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
        assert_eq!(subject_key("ExitPlanMode"), Some("plan"));
        assert_eq!(subject_key("mcp__github__search"), None);
    }
}
