//! Copilot CLI's tools: the item each one is, its title, and its typed content before and after
//! its result, read from the call's name and arguments (and, once it ended, its result).
//!
//! The names are the CLI's built-in tools (1.0.102, the `tools` of its model requests: `bash`,
//! `view`, `create`, `edit`, `grep`, `glob`, `task`, `sql`, ...); any other name (an MCP tool, a
//! skill) is a `dynamic_tool_call`.

use agentwire_canonical::{
    CanonicalItemType, CollabAgentToolCallContent, CommandExecutionContent, DynamicToolCallContent, FileChangeContent,
    FileChangeEntry, FileChangeKind, ItemContent, ItemStatus, PlanContent, RuntimeItemId, TurnPlanStep,
    WebSearchContent,
};
use serde_json::Value;

use agentwire_core::content;

/// A tool call as the model made it.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    pub name: &'a str,
    pub args: Option<&'a Value>,
    /// The todo list as it stands, for a call on it (its `plan` steps).
    pub todos: &'a [TurnPlanStep],
}

/// How a call ended, as the CLI says.
#[derive(Clone, Copy)]
pub enum Outcome<'a> {
    /// Not yet ended.
    Running,
    /// It ran; its output as the model got it, the diff the CLI shows, a command's exit code.
    Succeeded {
        output: &'a str,
        detail: Option<&'a str>,
        exit_code: Option<i64>,
    },
    /// It ran, or was tried, and failed.
    Failed { error: &'a str },
    /// The rules or the missing approval refused it: it never ran.
    Refused { error: &'a str },
}

impl Outcome<'_> {
    /// The item status the outcome is: a command that exits non-zero failed.
    pub fn status(self) -> ItemStatus {
        match self {
            Outcome::Running => ItemStatus::InProgress,
            Outcome::Succeeded {
                exit_code: Some(code), ..
            } if code != 0 => ItemStatus::Failed,
            Outcome::Succeeded { .. } => ItemStatus::Completed,
            Outcome::Failed { .. } => ItemStatus::Failed,
            Outcome::Refused { .. } => ItemStatus::Declined,
        }
    }

    fn output(self) -> Option<String> {
        match self {
            Outcome::Succeeded { output, .. } => Some(output.to_owned()),
            Outcome::Failed { error } | Outcome::Refused { error } => Some(error.to_owned()),
            Outcome::Running => None,
        }
    }

    fn error(self) -> Option<String> {
        match self {
            Outcome::Failed { error } | Outcome::Refused { error } => Some(error.to_owned()),
            Outcome::Running | Outcome::Succeeded { .. } => None,
        }
    }
}

/// What a call is, by its tool's name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shell,
    Edit,
    Create,
    Subagent,
    WebFetch,
    Todos,
    Other,
}

impl<'a> Call<'a> {
    fn text(&self, key: &str) -> Option<&'a str> {
        self.args?.get(key)?.as_str()
    }

    fn kind(&self) -> Kind {
        match self.name {
            "bash" | "powershell" => Kind::Shell,
            "edit" => Kind::Edit,
            "create" => Kind::Create,
            "task" => Kind::Subagent,
            "web_fetch" => Kind::WebFetch,
            // The CLI keeps its todo list in the session's SQL database (`todos` table).
            "sql" if self.text("query").is_some_and(|query| query.contains("todos")) => Kind::Todos,
            _ => Kind::Other,
        }
    }

    /// The statement of a call on the todo list.
    pub fn todo_query(&self) -> Option<&'a str> {
        (self.kind() == Kind::Todos).then(|| self.text("query")).flatten()
    }

    /// The canonical item type of the call.
    pub fn item_type(&self) -> CanonicalItemType {
        match self.kind() {
            Kind::Shell => CanonicalItemType::CommandExecution,
            Kind::Edit | Kind::Create => CanonicalItemType::FileChange,
            Kind::Subagent => CanonicalItemType::CollabAgentToolCall,
            Kind::WebFetch => CanonicalItemType::WebSearch,
            Kind::Todos => CanonicalItemType::Plan,
            Kind::Other => CanonicalItemType::DynamicToolCall,
        }
    }

    /// What the call does to what, as a person reads it: the command itself, `Edit notes.txt`,
    /// `Read notes.txt`, `Subagent: explore`; else the tool's name.
    pub fn title(&self) -> Option<String> {
        let file = |key: &str| {
            self.text(key)
                .map(|path| path.rsplit('/').next().unwrap_or(path).to_owned())
        };
        let title = match (self.kind(), self.name) {
            (Kind::Shell, _) => self.text("command").map(content::shell_command),
            (Kind::Edit, _) => file("path").map(|name| format!("Edit {name}")),
            (Kind::Create, _) => file("path").map(|name| format!("Write {name}")),
            (Kind::Subagent, _) => self.text("agent_type").map(|agent| format!("Subagent: {agent}")),
            (Kind::WebFetch, _) => Some("Fetch".to_owned()),
            (Kind::Todos, _) => Some("Update plan".to_owned()),
            (Kind::Other, "view") => file("path").map(|name| format!("Read {name}")),
            (Kind::Other, "grep" | "glob") => self.text("pattern").map(|pattern| format!("Search: {pattern}")),
            (Kind::Other, _) => None,
        };
        Some(title.unwrap_or_else(|| self.name.to_owned()))
    }

    /// The call's typed content as `outcome` leaves it; `parent` is the subagent call it runs
    /// under, if any.
    pub fn content(&self, outcome: Outcome<'_>, parent: Option<RuntimeItemId>) -> ItemContent {
        match self.kind() {
            Kind::Shell => ItemContent::CommandExecution(CommandExecutionContent {
                command: self.text("command").map(content::shell_command).unwrap_or_default(),
                cwd: None,
                exit_code: match outcome {
                    Outcome::Succeeded { exit_code, .. } => exit_code,
                    Outcome::Running | Outcome::Failed { .. } | Outcome::Refused { .. } => None,
                },
                output: outcome.output(),
                duration_ms: None,
                description: self.text("description").map(str::to_owned),
                parent_item_id: parent,
            }),
            Kind::Edit | Kind::Create => ItemContent::FileChange(FileChangeContent {
                changes: self.changes(outcome),
                output: outcome.output(),
                parent_item_id: parent,
            }),
            Kind::Subagent => ItemContent::CollabAgentToolCall(CollabAgentToolCallContent {
                tool: Some(self.name.to_owned()),
                agent: self.text("agent_type").map(str::to_owned),
                description: self.text("description").map(str::to_owned),
                prompt: self.text("prompt").map(str::to_owned),
                result: outcome.output(),
                parent_item_id: parent,
            }),
            Kind::WebFetch => ItemContent::WebSearch(WebSearchContent {
                query: self.text("url").unwrap_or_default().to_owned(),
                url: self.text("url").map(str::to_owned),
                results: outcome.output(),
                parent_item_id: parent,
            }),
            Kind::Todos => ItemContent::Plan(PlanContent {
                steps: self.todos.to_vec(),
                markdown: None,
                explanation: self.text("description").map(str::to_owned),
                parent_item_id: parent,
            }),
            Kind::Other => ItemContent::DynamicToolCall(DynamicToolCallContent {
                tool: self.name.to_owned(),
                arguments: self.args.cloned(),
                result: match outcome {
                    Outcome::Succeeded { output, .. } => Some(Value::String(output.to_owned())),
                    Outcome::Running | Outcome::Failed { .. } | Outcome::Refused { .. } => None,
                },
                error: outcome.error(),
                parent_item_id: parent,
            }),
        }
    }

    /// An edit `update`s its file, a create `add`s it; the diff is the one the CLI shows once
    /// the call ran (`detailedContent`), before that the one the arguments make.
    fn changes(&self, outcome: Outcome<'_>) -> Vec<FileChangeEntry> {
        let Some(path) = self.text("path") else {
            return Vec::new();
        };
        let shown = match outcome {
            Outcome::Succeeded { detail, .. } => detail.map(str::to_owned),
            Outcome::Running | Outcome::Failed { .. } | Outcome::Refused { .. } => None,
        };
        let (kind, diff) = match self.kind() {
            Kind::Create => (
                FileChangeKind::Add,
                self.text("file_text").map(|text| content::unified_diff("", text)),
            ),
            Kind::Shell | Kind::Edit | Kind::Subagent | Kind::WebFetch | Kind::Todos | Kind::Other => (
                FileChangeKind::Update,
                self.text("old_str")
                    .zip(self.text("new_str"))
                    .map(|(old, new)| content::unified_diff(old, new)),
            ),
        };
        vec![FileChangeEntry {
            path: path.to_owned(),
            kind,
            diff: shown.or(diff),
            move_path: None,
        }]
    }
}

/// How a failed call's error code reads: `denied` (by a rule, or for want of an approval a
/// headless run cannot ask for) and `rejected` never ran; anything else failed.
pub fn outcome_of_error<'a>(code: Option<&str>, message: &'a str) -> Outcome<'a> {
    match code {
        Some("denied" | "rejected") => Outcome::Refused { error: message },
        _ => Outcome::Failed { error: message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_are_drawn_by_name() {
        let args = json!({"command": "echo hi", "description": "say"});
        let shell = Call {
            name: "bash",
            args: Some(&args),
            todos: &[],
        };
        assert_eq!(shell.item_type(), CanonicalItemType::CommandExecution);
        assert_eq!(shell.title().as_deref(), Some("echo hi"));
        let args = json!({"path": "/w/notes.txt", "old_str": "a", "new_str": "b"});
        let edit = Call {
            name: "edit",
            args: Some(&args),
            todos: &[],
        };
        assert_eq!(edit.title().as_deref(), Some("Edit notes.txt"));
        let args = json!({"query": "UPDATE todos SET status = 'done'"});
        let todos = Call {
            name: "sql",
            args: Some(&args),
            todos: &[],
        };
        assert_eq!(todos.item_type(), CanonicalItemType::Plan);
    }

    #[test]
    fn a_denied_call_is_declined_and_a_non_zero_exit_failed() {
        assert_eq!(outcome_of_error(Some("denied"), "no").status(), ItemStatus::Declined);
        assert_eq!(outcome_of_error(None, "boom").status(), ItemStatus::Failed);
        let exit = Outcome::Succeeded {
            output: "",
            detail: None,
            exit_code: Some(3),
        };
        assert_eq!(exit.status(), ItemStatus::Failed);
    }
}
