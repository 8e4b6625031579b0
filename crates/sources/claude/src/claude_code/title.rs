//! How a Claude tool call's item is titled: what it does to what, as a person says it ("Read
//! notes.txt", "Edit src/main.rs", "Search: TODO", "Update plan"), never the bare tool name.

use serde_json::Value;

use super::tools::builtin;
use agentwire_core::content;

/// The title of the item of a call to `name` with `input` (an input still streaming is `{}`:
/// the title then says what the tool does, without its subject).
pub fn tool_title(name: &str, input: &Value) -> String {
    let text = |key: &str| input.get(key).and_then(Value::as_str).filter(|text| !text.is_empty());
    let titled = |action: &str, key: &str, otherwise: &str| match text(key) {
        Some(subject) => format!("{action}{subject}"),
        None => otherwise.to_owned(),
    };
    match builtin(name) {
        "Bash" => match text("command") {
            Some(command) => content::shell_command(command),
            None => titled("", "description", "Run a command"),
        },
        "BashOutput" => "Read a command's output".to_owned(),
        "KillShell" | "KillBash" | "TaskStop" => "Stop a background task".to_owned(),
        "Read" => titled("Read ", "file_path", "Read a file"),
        "Write" => titled("Write ", "file_path", "Write a file"),
        "Edit" | "MultiEdit" => titled("Edit ", "file_path", "Edit a file"),
        "NotebookEdit" => titled("Edit ", "notebook_path", "Edit a notebook"),
        "LS" => titled("List ", "path", "List files"),
        "Grep" | "Glob" => titled("Search: ", "pattern", "Search files"),
        "WebSearch" | "web_search" => titled("Search: ", "query", "Search the web"),
        "WebFetch" | "web_fetch" => titled("Fetch ", "url", "Fetch a page"),
        "ToolSearch" => titled("Search tools: ", "query", "Search tools"),
        "Task" | "Agent" => titled("Task: ", "description", "Run a subagent"),
        "TodoWrite" => "Update plan".to_owned(),
        "ExitPlanMode" => "Propose plan".to_owned(),
        "EnterPlanMode" => "Plan first".to_owned(),
        "TaskCreate" => titled("Add task: ", "subject", "Add a task"),
        "TaskUpdate" => titled("Update task #", "taskId", "Update a task"),
        "TaskGet" => titled("Read task #", "taskId", "Read a task"),
        "TaskList" => "List tasks".to_owned(),
        "TaskOutput" => "Read a task's output".to_owned(),
        "Skill" => titled("Skill: ", "skill", "Use a skill"),
        "SlashCommand" => titled("", "command", "Run a command"),
        "AskUserQuestion" => "Ask a question".to_owned(),
        "" => "Use a tool".to_owned(),
        other => match other.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) {
            Some((server, tool)) => format!("{server}: {tool}"),
            None => format!("Use {other}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn titles_say_what_a_call_does() {
        assert_eq!(
            tool_title("Read", &json!({ "file_path": "notes.txt" })),
            "Read notes.txt"
        );
        assert_eq!(tool_title("mcp__acp__Write", &json!({ "file_path": "a" })), "Write a");
        assert_eq!(tool_title("Bash", &json!({ "command": "ls -la" })), "ls -la");
        assert_eq!(tool_title("Grep", &json!({ "pattern": "TODO" })), "Search: TODO");
        assert_eq!(
            tool_title("WebFetch", &json!({ "url": "https://x.y" })),
            "Fetch https://x.y"
        );
        assert_eq!(tool_title("TodoWrite", &json!({ "todos": [] })), "Update plan");
        assert_eq!(tool_title("Task", &json!({ "description": "Check" })), "Task: Check");
        assert_eq!(tool_title("Read", &json!({})), "Read a file");
        assert_eq!(tool_title("mcp__github__search", &json!({})), "github: search");
    }
}
