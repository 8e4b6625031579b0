//! The typed content ([`ItemContent`]) of a Claude tool call's item, by what the tool is: the
//! same fields a UI reads from any provider's item of that type. What only Claude says (the
//! tool's input as sent, its structured `tool_use_result`) stays in the events' `raw`.

use agentwire_canonical::{
    CollabAgentToolCallContent, CommandExecutionContent, DynamicToolCallContent, FileChangeContent, FileChangeEntry,
    FileChangeKind, ItemContent, McpToolCallContent, PlanContent, RuntimeItemId, WebSearchContent,
};
use serde_json::Value;

use super::tools::{ToolKind, builtin, todo_plan};
use agentwire_core::content;

/// What a call's result said, once it is in.
pub struct ToolOutcome<'a> {
    /// The result's text parts, one per line.
    pub text: &'a str,
    /// The result's content as sent (a string, or content blocks).
    pub content: Value,
    /// What the CLI reports of the call beside the result (`tool_use_result`), when it does.
    pub structured: Option<&'a Value>,
    pub failed: bool,
}

impl<'a> ToolOutcome<'a> {
    /// The outcome a server tool's result block (`web_search_tool_result`, ...) carries: its
    /// text and its `content`, nothing beside it.
    pub fn of_server_result(text: &'a str, failed: bool, block: &Value) -> Self {
        ToolOutcome {
            text,
            content: block.get("content").cloned().unwrap_or(Value::Null),
            structured: None,
            failed,
        }
    }

    /// The tool's answer as a tool item's `result`: its text when it returned only text, else
    /// its content as sent.
    fn result(&self) -> Value {
        let only_text = match &self.content {
            Value::String(_) | Value::Null => true,
            Value::Array(parts) => parts.iter().all(|part| part.get("type") == Some(&Value::from("text"))),
            Value::Bool(_) | Value::Number(_) | Value::Object(_) => false,
        };
        if only_text {
            Value::String(self.text.to_owned())
        } else {
            self.content.clone()
        }
    }

    /// What the tool returned and the error it failed with: one or the other.
    fn answer(&self) -> (Option<Value>, Option<String>) {
        if self.failed {
            (None, Some(self.text.to_owned()))
        } else {
            (Some(self.result()), None)
        }
    }

    /// The text of a call that returned text, whichever way it ended.
    fn text(&self) -> Option<String> {
        Some(self.text.to_owned())
    }
}

/// The content of the item of a call to `name` with `input`, before its result (`outcome`
/// `None`) or with it; `parent` the subagent call whose work it is.
pub fn tool_content(
    name: &str,
    kind: ToolKind,
    input: &Value,
    outcome: Option<&ToolOutcome<'_>>,
    parent: Option<&RuntimeItemId>,
) -> ItemContent {
    let parent_item_id = parent.cloned();
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
    match kind {
        ToolKind::Command => CommandExecutionContent {
            command: content::shell_command(&text("command").unwrap_or_default()),
            cwd: None,
            exit_code: outcome.and_then(exit_code),
            output: outcome.and_then(ToolOutcome::text),
            duration_ms: None,
            description: text("description"),
            parent_item_id,
        }
        .into(),
        ToolKind::FileChange => FileChangeContent {
            changes: file_changes(builtin(name), input, outcome),
            output: outcome.and_then(ToolOutcome::text),
            parent_item_id,
        }
        .into(),
        ToolKind::Mcp => {
            let (server, tool) = mcp_names(name);
            let (result, error) = outcome.map(ToolOutcome::answer).unwrap_or_default();
            McpToolCallContent {
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments: Some(input.clone()),
                result,
                error,
                parent_item_id,
            }
            .into()
        }
        ToolKind::Subagent => CollabAgentToolCallContent {
            tool: Some(builtin(name).to_owned()),
            agent: text("subagent_type"),
            description: text("description"),
            prompt: text("prompt"),
            result: outcome.and_then(ToolOutcome::text),
            parent_item_id,
        }
        .into(),
        ToolKind::Web => {
            let url = text("url");
            WebSearchContent {
                query: text("query").or_else(|| url.clone()).unwrap_or_default(),
                url,
                results: outcome.and_then(ToolOutcome::text),
                parent_item_id,
            }
            .into()
        }
        ToolKind::Plan => PlanContent {
            steps: todo_plan(input).unwrap_or_default(),
            markdown: None,
            explanation: None,
            parent_item_id,
        }
        .into(),
        ToolKind::ProposedPlan => PlanContent {
            steps: Vec::new(),
            markdown: text("plan"),
            explanation: None,
            parent_item_id,
        }
        .into(),
        ToolKind::Other => {
            let (result, error) = outcome.map(ToolOutcome::answer).unwrap_or_default();
            DynamicToolCallContent {
                tool: builtin(name).to_owned(),
                arguments: Some(input.clone()),
                result,
                error,
                parent_item_id,
            }
            .into()
        }
    }
}

/// The server and the tool of `mcp__<server>__<tool>` (the whole name as the tool when it has
/// no server part).
fn mcp_names(name: &str) -> (&str, &str) {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .unwrap_or(("", name))
}

/// A command's exit code, where its result says it: Claude Code's Bash fails a command that
/// exited non-zero with "Exit code <n>" first, and succeeds only one that exited 0 (a command
/// sent to the background has not exited).
fn exit_code(outcome: &ToolOutcome<'_>) -> Option<i64> {
    if outcome.failed {
        let code = outcome.text.strip_prefix("Exit code ")?;
        let digits: String = code.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
        return digits.parse().ok();
    }
    let backgrounded = outcome
        .structured
        .and_then(|structured| structured.get("backgroundTaskId"))
        .is_some_and(|id| !id.is_null());
    (!backgrounded).then_some(0)
}

/// The files a `Write`, `Edit`, `MultiEdit` or `NotebookEdit` call changes. A `Write` adds its
/// file unless the CLI reports it replaced one (`tool_use_result.type: "update"`); an edit's
/// diff is drawn from its old and new strings.
fn file_changes(tool: &str, input: &Value, outcome: Option<&ToolOutcome<'_>>) -> Vec<FileChangeEntry> {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let path = text("file_path").or_else(|| text("notebook_path"));
    let Some(path) = path else {
        return Vec::new();
    };
    let (kind, diff) = match tool {
        "Write" => {
            let replaced = outcome
                .and_then(|outcome| outcome.structured)
                .and_then(|structured| structured.get("type"))
                .and_then(Value::as_str)
                == Some("update");
            let kind = if replaced {
                FileChangeKind::Update
            } else {
                FileChangeKind::Add
            };
            (kind, text("content").map(str::to_owned))
        }
        "Edit" => (
            FileChangeKind::Update,
            Some(content::unified_diff(
                text("old_string").unwrap_or_default(),
                text("new_string").unwrap_or_default(),
            )),
        ),
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array).into_iter().flatten();
            let hunks: Vec<String> = edits
                .map(|edit| {
                    let text = |key: &str| edit.get(key).and_then(Value::as_str);
                    content::unified_diff(
                        text("old_string").unwrap_or_default(),
                        text("new_string").unwrap_or_default(),
                    )
                })
                .collect();
            (FileChangeKind::Update, Some(hunks.concat()))
        }
        _ => (
            FileChangeKind::Update,
            Some(content::unified_diff("", text("new_source").unwrap_or_default())),
        ),
    };
    vec![FileChangeEntry {
        path: path.to_owned(),
        kind,
        diff,
        move_path: None,
    }]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn outcome(text: &str, failed: bool) -> ToolOutcome<'_> {
        ToolOutcome {
            text,
            content: Value::String(text.to_owned()),
            structured: None,
            failed,
        }
    }

    #[test]
    fn a_command_reads_as_typed() {
        let input = json!({ "command": "bash -lc 'ls -la'", "description": "List files" });
        let done = outcome("Exit code 2\nno such file", true);
        let ItemContent::CommandExecution(command) = tool_content("Bash", ToolKind::Command, &input, Some(&done), None)
        else {
            panic!("a command");
        };
        assert_eq!(command.command, "ls -la");
        assert_eq!(command.exit_code, Some(2));
        assert_eq!(command.description.as_deref(), Some("List files"));
    }

    #[test]
    fn an_edit_is_a_diff() {
        let input = json!({ "file_path": "src/x.rs", "old_string": "a\nb", "new_string": "c" });
        let ItemContent::FileChange(change) = tool_content("Edit", ToolKind::FileChange, &input, None, None) else {
            panic!("a file change");
        };
        assert_eq!(change.changes[0].kind, FileChangeKind::Update);
        assert_eq!(change.changes[0].diff.as_deref(), Some("@@ -1,2 +1 @@\n-a\n-b\n+c\n"));
    }

    #[test]
    fn a_tool_that_returned_text_answers_text() {
        let input = json!({ "q": 1 });
        let done = ToolOutcome {
            text: "found",
            content: json!([{ "type": "text", "text": "found" }]),
            structured: None,
            failed: false,
        };
        let ItemContent::McpToolCall(call) =
            tool_content("mcp__github__search", ToolKind::Mcp, &input, Some(&done), None)
        else {
            panic!("an MCP call");
        };
        assert_eq!((call.server.as_str(), call.tool.as_str()), ("github", "search"));
        assert_eq!(call.result, Some(Value::from("found")));
        assert_eq!(call.error, None);
    }
}
