//! A message part as a canonical item: its type, status, title and typed content.
//!
//! Tool parts are read by the tool's name: `bash` runs a command, `edit`/`write`/`patch` change
//! files, `task` runs a subagent, any other tool is a dynamic tool call.

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, CollabAgentToolCallContent, CommandExecutionContent,
    DynamicToolCallContent, FileChangeContent, FileChangeEntry, FileChangeKind, ItemContent, ItemStatus, MessageOrigin,
    PlanContent, PlanStepStatus, ReasoningContent, RuntimeItemId, SessionConfiguredPayload, TurnPlanStep,
    TurnPlanUpdatedPayload, UserMessageContent,
};
use agentwire_opencode::{LlmToolContent, Todo, ToolState};
use serde_json::{Map, Value, json};

/// The item type of a tool part, by the tool's name.
pub fn tool_type(tool: &str) -> CanonicalItemType {
    match tool {
        "bash" => CanonicalItemType::CommandExecution,
        "edit" | "write" | "patch" | "apply_patch" => CanonicalItemType::FileChange,
        "task" => CanonicalItemType::CollabAgentToolCall,
        "todowrite" => CanonicalItemType::Plan,
        _ => CanonicalItemType::DynamicToolCall,
    }
}

/// The title of a tool call's item, as an action a person reads ("Read notes.txt", "Run a
/// command"), never the bare tool name: OpenCode's own title of the state (a path, a command, a
/// task's description) as the subject when the state has one, else what the tool does.
pub fn tool_title(tool: &str, view: &ToolView<'_>) -> String {
    let subject = view.title.filter(|title| !title.trim().is_empty());
    let titled = |action: &str, otherwise: &str| match subject {
        Some(subject) => format!("{action}{subject}"),
        None => otherwise.to_owned(),
    };
    match tool {
        // A command's title is the command or its description, already an action.
        "bash" => titled("", "Run a command"),
        "read" => titled("Read ", "Read a file"),
        "write" => titled("Write ", "Write a file"),
        "edit" => titled("Edit ", "Edit a file"),
        "patch" | "apply_patch" => titled("Patch ", "Apply a patch"),
        "list" => titled("List ", "List files"),
        "glob" | "grep" => titled("Search: ", "Search files"),
        "webfetch" => titled("Fetch ", "Fetch a page"),
        "websearch" | "codesearch" => titled("Search: ", "Search the web"),
        "task" => titled("Task: ", "Run a subagent"),
        "todowrite" => "Update plan".to_owned(),
        "todoread" => "Read plan".to_owned(),
        "question" => "Ask a question".to_owned(),
        "skill" => titled("Skill: ", "Use a skill"),
        // Another tool's own title says what it did; without one, the tool is named.
        other => titled("", &format!("Use {other}")),
    }
}

/// The input, output and error a tool state carries, and its status.
pub struct ToolView<'a> {
    pub input: &'a Map<String, Value>,
    pub output: Option<&'a str>,
    pub error: Option<&'a str>,
    pub title: Option<&'a str>,
    pub metadata: Option<&'a Map<String, Value>>,
    pub status: ItemStatus,
    pub done: bool,
}

/// How OpenCode words the error of a call a person or a rule refused (its permission module's
/// `RejectedError`, `CorrectedError` with the person's feedback after it, and `DeniedError`; the
/// question tool's dismissal): a tool part's `error` is text only, and these calls did not fail,
/// they were declined (`tests/corpus/opencode/shell_reject.jsonl`, `shell_reject_message.jsonl`,
/// `question_reject.jsonl`).
const REFUSALS: [&str; 3] = [
    "The user rejected permission to use this specific tool call",
    "The user has specified a rule which prevents you from using this specific tool call",
    "The user dismissed this question",
];

/// What a tool state says.
pub fn tool_view(state: &ToolState) -> ToolView<'_> {
    match state {
        ToolState::Pending { input, .. } => ToolView {
            input,
            output: None,
            error: None,
            title: None,
            metadata: None,
            status: ItemStatus::InProgress,
            done: false,
        },
        ToolState::Running {
            input, metadata, title, ..
        } => ToolView {
            input,
            output: None,
            error: None,
            title: title.as_deref(),
            metadata: metadata.as_ref(),
            status: ItemStatus::InProgress,
            done: false,
        },
        ToolState::Completed {
            input,
            metadata,
            output,
            title,
            ..
        } => ToolView {
            input,
            output: Some(output),
            error: None,
            title: Some(title),
            metadata: Some(metadata),
            status: ItemStatus::Completed,
            done: true,
        },
        ToolState::Error {
            error, input, metadata, ..
        } => ToolView {
            input,
            output: None,
            error: Some(error),
            title: None,
            metadata: metadata.as_ref(),
            status: error_status(error),
            done: true,
        },
    }
}

/// The status of a call that ended with `error`: declined when a person or a rule refused it,
/// else failed.
pub fn error_status(error: &str) -> ItemStatus {
    if REFUSALS.iter().any(|refusal| error.starts_with(refusal)) {
        ItemStatus::Declined
    } else {
        ItemStatus::Failed
    }
}

/// A to-do list as the turn's plan: `completed` and `cancelled` steps completed, `in_progress`
/// in progress, any other pending.
pub fn plan(todos: &[Todo]) -> TurnPlanUpdatedPayload {
    let plan = todos
        .iter()
        .map(|todo| TurnPlanStep {
            step: todo.content.clone(),
            status: match todo.status.as_str() {
                "completed" | "cancelled" => PlanStepStatus::Completed,
                "in_progress" => PlanStepStatus::InProgress,
                _ => PlanStepStatus::Pending,
            },
        })
        .collect();
    TurnPlanUpdatedPayload {
        explanation: None,
        plan,
    }
}

/// The plan a `todowrite` call wrote, once it completed: the stream's `todo.updated` says it on
/// the live server, and where there is no such event (a run's output, a stored session) the
/// call's input is the list (`tests/corpus/opencode-run/todo.jsonl`).
pub fn written_plan(tool: &str, view: &ToolView<'_>) -> Option<TurnPlanUpdatedPayload> {
    if tool != "todowrite" || view.status != ItemStatus::Completed {
        return None;
    }
    Some(plan(&todos(view)?))
}

/// The to-do list a `todowrite` call's input holds, when it holds one.
fn todos(view: &ToolView<'_>) -> Option<Vec<Todo>> {
    serde_json::from_value(view.input.get("todos")?.clone()).ok()
}

/// The text of a v2 tool result's content: its text pieces one per line (a file it names rides
/// in `raw`).
pub fn tool_output(content: &[LlmToolContent]) -> String {
    let mut output = String::new();
    for piece in content {
        match piece {
            LlmToolContent::Text { text } => {
                if !output.is_empty() && !output.ends_with('\n') {
                    output.push('\n');
                }
                output.push_str(text);
            }
            LlmToolContent::File { .. } => {}
        }
    }
    output
}

/// The child session a `task` call ran in (`metadata.sessionId`), once the call says: the run's
/// one word on its subagent, whose parts it does not print, and where the store's copy of that
/// session belongs.
pub fn subagent_session<'a>(view: &ToolView<'a>) -> Option<&'a str> {
    view.metadata?.get("sessionId")?.as_str()
}

fn text_of(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The typed content of a tool part.
pub fn tool_content(tool: &str, view: &ToolView<'_>, parent: Option<RuntimeItemId>) -> ItemContent {
    let exit_code = view
        .metadata
        .and_then(|metadata| metadata.get("exit"))
        .and_then(Value::as_i64);
    match tool_type(tool) {
        CanonicalItemType::CommandExecution => ItemContent::CommandExecution(CommandExecutionContent {
            command: text_of(view.input, "command").unwrap_or_default(),
            cwd: text_of(view.input, "workdir"),
            exit_code,
            output: view.output.or(view.error).map(str::to_string),
            duration_ms: None,
            description: text_of(view.input, "description"),
            parent_item_id: parent,
        }),
        CanonicalItemType::FileChange => {
            let path = text_of(view.input, "filePath").or_else(|| text_of(view.input, "path"));
            // A write makes the file unless its metadata says the file was there before.
            let existed = view
                .metadata
                .and_then(|metadata| metadata.get("exists"))
                .and_then(Value::as_bool);
            let kind = match (tool, existed) {
                ("write", Some(false) | None) => FileChangeKind::Add,
                _ => FileChangeKind::Update,
            };
            // The diff OpenCode computed, else what a write put in the file it made (an added
            // file's diff is its text).
            let diff = view
                .metadata
                .and_then(|metadata| text_of(metadata, "diff"))
                .or_else(|| {
                    (kind == FileChangeKind::Add)
                        .then(|| text_of(view.input, "content"))
                        .flatten()
                });
            ItemContent::FileChange(FileChangeContent {
                changes: path
                    .map(|path| FileChangeEntry {
                        path,
                        kind,
                        diff,
                        move_path: None,
                    })
                    .into_iter()
                    .collect(),
                output: view.output.or(view.error).map(str::to_string),
                parent_item_id: parent,
            })
        }
        CanonicalItemType::CollabAgentToolCall => ItemContent::CollabAgentToolCall(CollabAgentToolCallContent {
            tool: Some(tool.to_string()),
            agent: text_of(view.input, "subagent_type"),
            description: text_of(view.input, "description"),
            prompt: text_of(view.input, "prompt"),
            result: view.output.or(view.error).map(str::to_string),
            parent_item_id: parent,
        }),
        // The to-do list the call writes is the plan (its steps; the turn's plan says the same).
        CanonicalItemType::Plan => ItemContent::Plan(PlanContent {
            steps: todos(view).map(|todos| plan(&todos).plan).unwrap_or_default(),
            markdown: None,
            explanation: None,
            parent_item_id: parent,
        }),
        _ => ItemContent::DynamicToolCall(DynamicToolCallContent {
            tool: tool.to_string(),
            arguments: Some(Value::Object(view.input.clone())),
            result: view.output.map(|output| Value::String(output.to_string())),
            error: view.error.map(str::to_string),
            parent_item_id: parent,
        }),
    }
}

/// The typed content of a text part: the user's prompt or the assistant's answer.
pub fn text_content(user: bool, text: &str, parent: Option<RuntimeItemId>) -> ItemContent {
    if user {
        ItemContent::UserMessage(UserMessageContent {
            text: text.to_string(),
            attachments: None,
            origin: None,
            parent_item_id: parent,
        })
    } else {
        ItemContent::AssistantMessage(AssistantMessageContent {
            text: text.to_string(),
            parent_item_id: parent,
        })
    }
}

/// A text part's item: the user's prompt (complete as it is saved), or the assistant's answer,
/// complete once the part's time has an end. A user message's text OpenCode marks `synthetic`
/// (text it adds itself, such as a tool's output it feeds back) is the program's, not the
/// person's (`origin: cli`).
pub fn text_part(
    (user, synthetic): (bool, bool),
    text: &str,
    ended: bool,
    parent: Option<RuntimeItemId>,
) -> (CanonicalItemType, ItemStatus, ItemContent) {
    let (item_type, status) = match (user, ended) {
        (true, _) => (CanonicalItemType::UserMessage, ItemStatus::Completed),
        (false, true) => (CanonicalItemType::AssistantMessage, ItemStatus::Completed),
        (false, false) => (CanonicalItemType::AssistantMessage, ItemStatus::InProgress),
    };
    let mut content = text_content(user, text, parent);
    if let ItemContent::UserMessage(message) = &mut content
        && synthetic
    {
        message.origin = Some(MessageOrigin::Cli);
    }
    (item_type, status, content)
}

/// A reasoning part's item status: complete once the part's time has an end.
pub fn reasoning_status(ended: bool) -> ItemStatus {
    match ended {
        true => ItemStatus::Completed,
        false => ItemStatus::InProgress,
    }
}

/// The typed content of a reasoning part.
pub fn reasoning_content(text: &str, parent: Option<RuntimeItemId>) -> ItemContent {
    ItemContent::Reasoning(ReasoningContent {
        text: text.to_string(),
        summary: None,
        parent_item_id: parent,
    })
}

/// The session's working folder (its `directory`) as the configuration every source names it
/// in: `{"cwd": ...}`.
pub fn working_folder(directory: &str) -> SessionConfiguredPayload {
    SessionConfiguredPayload {
        config: serde_json::value::to_raw_value(&json!({ "cwd": directory })).expect("an object serializes"),
    }
}

/// A turn's changed files as one unified diff: each file's patch, in the order given.
pub fn turn_diff(diffs: &[agentwire_opencode::SnapshotFileDiff]) -> String {
    diffs.iter().filter_map(|diff| diff.patch.as_deref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text OpenCode adds to a user message itself (`synthetic`) is the program's, not the
    /// person's; the assistant's text has no origin to say.
    #[test]
    fn synthetic_user_text_is_the_programs() {
        let origin = |by| match text_part(by, "hi", true, None).2 {
            ItemContent::UserMessage(message) => message.origin,
            _ => None,
        };
        assert_eq!(origin((true, true)), Some(MessageOrigin::Cli));
        assert_eq!(origin((true, false)), None);
        assert!(matches!(
            text_part((false, true), "hi", true, None).2,
            ItemContent::AssistantMessage(_)
        ));
    }

    /// A title says what the call does, with OpenCode's own title as its subject.
    #[test]
    fn tool_titles_read_as_actions() {
        let input = Map::new();
        let view = |title| ToolView {
            input: &input,
            output: None,
            error: None,
            title,
            metadata: None,
            status: ItemStatus::InProgress,
            done: false,
        };
        assert_eq!(tool_title("bash", &view(None)), "Run a command");
        assert_eq!(tool_title("bash", &view(Some("echo hello"))), "echo hello");
        assert_eq!(tool_title("read", &view(Some("notes.txt"))), "Read notes.txt");
        assert_eq!(tool_title("todowrite", &view(Some("1 todos"))), "Update plan");
        assert_eq!(tool_title("mcp_echo", &view(None)), "Use mcp_echo");
    }
}
