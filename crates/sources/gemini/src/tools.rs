//! Gemini CLI's tools: the item each one is, its title, and its typed content before and after
//! its result, read from the call's name and arguments only, so the stream (`tool_use`) and the
//! session file (`toolCalls[]`) draw one call the same way.
//!
//! The names are the CLI's built-in tools (0.61.0, `packages/core/src/tools/tool-names.ts`);
//! any other name (an MCP tool, a tool the CLI does not know) is a `dynamic_tool_call`.

use agentwire_canonical::{
    CanonicalItemType, CollabAgentToolCallContent, CommandExecutionContent, DynamicToolCallContent, FileChangeContent,
    FileChangeEntry, FileChangeKind, ItemContent, ItemStatus, PlanContent, PlanStepStatus, RuntimeItemId, TurnPlanStep,
    WebSearchContent,
};
use serde_json::{Map, Value};

use agentwire_core::content;

/// A tool call as the model made it.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    pub name: &'a str,
    pub args: &'a Map<String, Value>,
}

/// How a call ended, as the provider says.
#[derive(Clone, Copy)]
pub enum Outcome<'a> {
    /// Not yet ended.
    Running,
    /// It ran; its output as the model got it, if any.
    Succeeded { output: Option<&'a str> },
    /// It ran, or was tried, and failed (an unknown tool, bad arguments, an error while running).
    Failed { error: &'a str },
    /// The policy refused it: it never ran.
    Refused { error: &'a str },
    /// The run was stopped before it ended.
    Cancelled,
}

impl Outcome<'_> {
    /// The item status the outcome is.
    pub fn status(self) -> ItemStatus {
        match self {
            Outcome::Running => ItemStatus::InProgress,
            Outcome::Succeeded { .. } => ItemStatus::Completed,
            Outcome::Failed { .. } => ItemStatus::Failed,
            Outcome::Refused { .. } | Outcome::Cancelled => ItemStatus::Declined,
        }
    }

    fn output(self) -> Option<String> {
        match self {
            Outcome::Succeeded { output } => output.map(str::to_owned),
            Outcome::Running | Outcome::Failed { .. } | Outcome::Refused { .. } | Outcome::Cancelled => None,
        }
    }

    fn error(self) -> Option<String> {
        match self {
            Outcome::Failed { error } | Outcome::Refused { error } => Some(error.to_owned()),
            Outcome::Running | Outcome::Succeeded { .. } | Outcome::Cancelled => None,
        }
    }
}

/// What a call is, by its tool's name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shell,
    Edit,
    Write,
    Subagent,
    WebSearch,
    WebFetch,
    Todos,
    Other,
}

fn kind(name: &str) -> Kind {
    match name {
        "run_shell_command" => Kind::Shell,
        "replace" | "edit" => Kind::Edit,
        "write_file" => Kind::Write,
        "invoke_agent" => Kind::Subagent,
        "google_web_search" => Kind::WebSearch,
        "web_fetch" => Kind::WebFetch,
        "write_todos" => Kind::Todos,
        _ => Kind::Other,
    }
}

impl<'a> Call<'a> {
    fn text(&self, key: &str) -> Option<&'a str> {
        self.args.get(key).and_then(Value::as_str)
    }

    /// The canonical item type of the call.
    pub fn item_type(&self) -> CanonicalItemType {
        match kind(self.name) {
            Kind::Shell => CanonicalItemType::CommandExecution,
            Kind::Edit | Kind::Write => CanonicalItemType::FileChange,
            Kind::Subagent => CanonicalItemType::CollabAgentToolCall,
            Kind::WebSearch | Kind::WebFetch => CanonicalItemType::WebSearch,
            Kind::Todos => CanonicalItemType::Plan,
            Kind::Other => CanonicalItemType::DynamicToolCall,
        }
    }

    /// What the call does to what, as a person reads it: the command itself, `Edit notes.txt`,
    /// `Read notes.txt`, `Search: TODO`, `Subagent: generalist`; else the tool's name.
    pub fn title(&self) -> Option<String> {
        let file = |key: &str| {
            self.text(key)
                .map(|path| path.rsplit('/').next().unwrap_or(path).to_owned())
        };
        let title = match (kind(self.name), self.name) {
            (Kind::Shell, _) => self.text("command").map(content::shell_command),
            (Kind::Edit, _) => file("file_path").map(|name| format!("Edit {name}")),
            (Kind::Write, _) => file("file_path").map(|name| format!("Write {name}")),
            (Kind::Subagent, _) => self.text("agent_name").map(|agent| format!("Subagent: {agent}")),
            (Kind::WebSearch, _) => self.text("query").map(|query| format!("Search: {query}")),
            (Kind::WebFetch, _) => Some("Fetch".to_owned()),
            (Kind::Todos, _) => Some("Update plan".to_owned()),
            (Kind::Other, "read_file") => file("file_path").map(|name| format!("Read {name}")),
            (Kind::Other, "list_directory") => self.text("dir_path").map(|dir| format!("List {dir}")),
            (Kind::Other, "glob" | "grep_search" | "search_file_content") => {
                self.text("pattern").map(|pattern| format!("Search: {pattern}"))
            }
            (Kind::Other, _) => None,
        };
        Some(title.unwrap_or_else(|| self.name.to_owned()))
    }

    /// The call's typed content as `outcome` leaves it; `parent` is the subagent call it runs
    /// under, if any.
    pub fn content(&self, outcome: Outcome<'_>, parent: Option<RuntimeItemId>) -> ItemContent {
        let arguments = || Some(Value::Object(self.args.clone()));
        match kind(self.name) {
            Kind::Shell => ItemContent::CommandExecution(CommandExecutionContent {
                command: self.text("command").map(content::shell_command).unwrap_or_default(),
                cwd: self.text("dir_path").map(str::to_owned),
                exit_code: None,
                output: outcome.output().or_else(|| outcome.error()),
                duration_ms: None,
                description: self.text("description").map(str::to_owned),
                parent_item_id: parent,
            }),
            Kind::Edit | Kind::Write => ItemContent::FileChange(FileChangeContent {
                changes: self.changes(),
                output: outcome.output().or_else(|| outcome.error()),
                parent_item_id: parent,
            }),
            Kind::Subagent => ItemContent::CollabAgentToolCall(CollabAgentToolCallContent {
                tool: Some(self.name.to_owned()),
                agent: self.text("agent_name").map(str::to_owned),
                description: None,
                prompt: self.text("prompt").map(str::to_owned),
                result: outcome.output().or_else(|| outcome.error()),
                parent_item_id: parent,
            }),
            Kind::WebSearch | Kind::WebFetch => ItemContent::WebSearch(WebSearchContent {
                query: self
                    .text("query")
                    .or_else(|| self.text("prompt"))
                    .or_else(|| self.text("url"))
                    .unwrap_or_default()
                    .to_owned(),
                url: self.text("url").map(str::to_owned),
                results: outcome.output().or_else(|| outcome.error()),
                parent_item_id: parent,
            }),
            Kind::Todos => ItemContent::Plan(PlanContent {
                steps: self.plan(),
                markdown: None,
                explanation: None,
                parent_item_id: parent,
            }),
            Kind::Other => ItemContent::DynamicToolCall(DynamicToolCallContent {
                tool: self.name.to_owned(),
                arguments: arguments(),
                result: outcome.output().map(Value::String),
                error: outcome.error(),
                parent_item_id: parent,
            }),
        }
    }

    /// An edit's or a write's file: an edit `update`s it with the diff of its old and new
    /// strings, a write `add`s it with its content as the diff (the call does not say whether
    /// the file was there).
    fn changes(&self) -> Vec<FileChangeEntry> {
        let Some(path) = self.text("file_path") else {
            return Vec::new();
        };
        let (kind, diff) = match kind(self.name) {
            Kind::Write => (
                FileChangeKind::Add,
                self.text("content").map(|text| content::unified_diff("", text)),
            ),
            Kind::Shell
            | Kind::Edit
            | Kind::Subagent
            | Kind::WebSearch
            | Kind::WebFetch
            | Kind::Todos
            | Kind::Other => (
                FileChangeKind::Update,
                self.text("old_string")
                    .zip(self.text("new_string"))
                    .map(|(old, new)| content::unified_diff(old, new)),
            ),
        };
        vec![FileChangeEntry {
            path: path.to_owned(),
            kind,
            diff,
            move_path: None,
        }]
    }

    /// `write_todos`' list as plan steps: done and cancelled are `completed`, the one in
    /// progress `inProgress`, the rest `pending`.
    pub fn plan(&self) -> Vec<TurnPlanStep> {
        let Some(Value::Array(todos)) = self.args.get("todos") else {
            return Vec::new();
        };
        todos
            .iter()
            .filter_map(|todo| {
                let step = todo.get("description")?.as_str()?.to_owned();
                let status = match todo.get("status").and_then(Value::as_str) {
                    Some("completed" | "cancelled") => PlanStepStatus::Completed,
                    Some("in_progress") => PlanStepStatus::InProgress,
                    _ => PlanStepStatus::Pending,
                };
                Some(TurnPlanStep { step, status })
            })
            .collect()
    }
}

/// How a tool result's error type reads: a refusal by the policy never ran; a stopped run is
/// cancelled; anything else failed (`ToolErrorType` of the CLI's `tools/tool-error.ts`).
pub fn outcome_of_error<'a>(error_type: &str, message: &'a str) -> Outcome<'a> {
    match error_type {
        "policy_violation" => Outcome::Refused { error: message },
        "stop_execution" => Outcome::Cancelled,
        _ => Outcome::Failed { error: message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &'static str, args: Value) -> (String, Map<String, Value>) {
        let Value::Object(args) = args else { unreachable!() };
        (name.to_owned(), args)
    }

    #[test]
    fn tools_are_drawn_by_name() {
        let (name, args) = call("run_shell_command", json!({"command": "echo hi", "description": "say"}));
        let shell = Call {
            name: &name,
            args: &args,
        };
        assert_eq!(shell.item_type(), CanonicalItemType::CommandExecution);
        assert_eq!(shell.title().as_deref(), Some("echo hi"));
        let (name, args) = call(
            "replace",
            json!({"file_path": "/w/notes.txt", "old_string": "a", "new_string": "b"}),
        );
        let edit = Call {
            name: &name,
            args: &args,
        };
        assert_eq!(edit.title().as_deref(), Some("Edit notes.txt"));
        let ItemContent::FileChange(change) = edit.content(Outcome::Running, None) else {
            panic!("a file change")
        };
        assert_eq!(change.changes[0].diff.as_deref(), Some("@@ -1 +1 @@\n-a\n+b\n"));
        let (name, args) = call("mcp_tool", json!({}));
        assert_eq!(
            Call {
                name: &name,
                args: &args
            }
            .title()
            .as_deref(),
            Some("mcp_tool")
        );
    }

    #[test]
    fn a_refusal_is_declined_and_an_unknown_tool_failed() {
        assert_eq!(
            outcome_of_error("policy_violation", "denied").status(),
            ItemStatus::Declined
        );
        assert_eq!(
            outcome_of_error("tool_not_registered", "no").status(),
            ItemStatus::Failed
        );
    }
}
