//! `ThreadItem`s -> canonical item types, statuses, titles, content and plan steps.

use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, CommandExecutionContent, ErrorContent, FileChangeContent,
    FileChangeEntry, FileChangeKind, ItemContent, ItemStatus, McpToolCallContent, PlanContent, PlanStepStatus,
    ReasoningContent, TurnPlanStep, WebSearchContent,
};
use agentwire_codex_exec::{self as exec, CommandExecutionStatus, McpToolCallStatus, PatchApplyStatus, ThreadItem};

use crate::canonicalize::Canonicalize;
use crate::codex_content::{call_title, file_change_title, mcp_result, non_empty, search_title};
use agentwire_core::content;

impl Canonicalize for ThreadItem {
    type Canonical = CanonicalItemType;

    /// Section 6: the SDK's item types map one to one.
    fn canonical(&self) -> CanonicalItemType {
        match self {
            ThreadItem::AgentMessage(_) => CanonicalItemType::AssistantMessage,
            ThreadItem::Reasoning(_) => CanonicalItemType::Reasoning,
            ThreadItem::CommandExecution(_) => CanonicalItemType::CommandExecution,
            ThreadItem::FileChange(_) => CanonicalItemType::FileChange,
            ThreadItem::McpToolCall(_) => CanonicalItemType::McpToolCall,
            ThreadItem::WebSearch(_) => CanonicalItemType::WebSearch,
            ThreadItem::TodoList(_) => CanonicalItemType::Plan,
            ThreadItem::Error(_) => CanonicalItemType::Error,
        }
    }
}

crate::canonicalize::same_named_item_status! {
    CommandExecutionStatus: InProgress, Completed, Failed, Declined;
    PatchApplyStatus: InProgress, Completed, Failed;
    McpToolCallStatus: InProgress, Completed, Failed;
}

/// The provider's id of an item (`item_0`, ...).
pub fn item_id(item: &ThreadItem) -> &str {
    match item {
        ThreadItem::AgentMessage(exec::AgentMessageItem { id, .. })
        | ThreadItem::Reasoning(exec::ReasoningItem { id, .. })
        | ThreadItem::CommandExecution(exec::CommandExecutionItem { id, .. })
        | ThreadItem::FileChange(exec::FileChangeItem { id, .. })
        | ThreadItem::McpToolCall(exec::McpToolCallItem { id, .. })
        | ThreadItem::WebSearch(exec::WebSearchItem { id, .. })
        | ThreadItem::TodoList(exec::TodoListItem { id, .. })
        | ThreadItem::Error(exec::ErrorItem { id, .. }) => id,
    }
}

/// The item's own status, for items that carry one; the others are as their event says
/// (`item.started` in progress, `item.completed` completed).
pub fn item_status(item: &ThreadItem) -> Option<ItemStatus> {
    match item {
        ThreadItem::CommandExecution(command) => Some(command.status.canonical()),
        ThreadItem::FileChange(change) => Some(change.status.canonical()),
        ThreadItem::McpToolCall(call) => Some(call.status.canonical()),
        ThreadItem::AgentMessage(_)
        | ThreadItem::Reasoning(_)
        | ThreadItem::WebSearch(_)
        | ThreadItem::TodoList(_)
        | ThreadItem::Error(_) => None,
    }
}

/// A short human title: the command as a person wrote it, the tool called, the query, the
/// files changed.
pub fn item_title(item: &ThreadItem) -> Option<String> {
    match item {
        ThreadItem::CommandExecution(command) => Some(content::shell_command(&command.command)),
        ThreadItem::FileChange(change) => Some(file_change_title(
            change
                .changes
                .iter()
                .map(|file| (file.path.as_str(), change_kind(file.kind))),
        )),
        ThreadItem::McpToolCall(call) => Some(call_title(Some(&call.server), &call.tool)),
        ThreadItem::WebSearch(search) => Some(search_title(&search.query, None)),
        ThreadItem::AgentMessage(_) | ThreadItem::Reasoning(_) | ThreadItem::TodoList(_) | ThreadItem::Error(_) => None,
    }
}

/// The content of an item. Exec's reasoning items carry the summary Codex shows, not the
/// model's reasoning itself.
pub fn item_content(item: &ThreadItem) -> ItemContent {
    match item {
        ThreadItem::AgentMessage(message) => AssistantMessageContent {
            text: message.text.clone(),
            parent_item_id: None,
        }
        .into(),
        ThreadItem::Reasoning(reasoning) => ReasoningContent {
            text: String::new(),
            summary: non_empty(&reasoning.text),
            parent_item_id: None,
        }
        .into(),
        ThreadItem::CommandExecution(command) => CommandExecutionContent {
            command: content::shell_command(&command.command),
            cwd: None,
            exit_code: command.exit_code,
            output: non_empty(&command.aggregated_output),
            duration_ms: None,
            description: None,
            parent_item_id: None,
        }
        .into(),
        ThreadItem::FileChange(change) => FileChangeContent {
            changes: change
                .changes
                .iter()
                .map(|file| FileChangeEntry {
                    path: file.path.clone(),
                    kind: change_kind(file.kind),
                    diff: None,
                    move_path: None,
                })
                .collect(),
            output: None,
            parent_item_id: None,
        }
        .into(),
        ThreadItem::McpToolCall(call) => McpToolCallContent {
            server: call.server.clone(),
            tool: call.tool.clone(),
            arguments: (!call.arguments.is_null()).then(|| call.arguments.clone()),
            result: call
                .result
                .as_ref()
                .and_then(|result| mcp_result(&result.content, result.structured_content.as_ref())),
            error: call.error.as_ref().map(|error| error.message.clone()),
            parent_item_id: None,
        }
        .into(),
        ThreadItem::WebSearch(search) => WebSearchContent {
            query: search.query.clone(),
            url: None,
            results: None,
            parent_item_id: None,
        }
        .into(),
        ThreadItem::TodoList(list) => PlanContent {
            steps: plan_steps(list),
            markdown: None,
            explanation: None,
            parent_item_id: None,
        }
        .into(),
        ThreadItem::Error(error) => ErrorContent {
            message: error.message.clone(),
            parent_item_id: None,
        }
        .into(),
    }
}

fn change_kind(kind: exec::PatchChangeKind) -> FileChangeKind {
    match kind {
        exec::PatchChangeKind::Add => FileChangeKind::Add,
        exec::PatchChangeKind::Delete => FileChangeKind::Delete,
        exec::PatchChangeKind::Update => FileChangeKind::Update,
    }
}

/// A second line for tool items: what ran and how it went; the message of an error item.
pub fn item_detail(item: &ThreadItem) -> Option<String> {
    match item {
        ThreadItem::CommandExecution(command) => Some(match command.exit_code {
            Some(code) => format!("exit code {code}: {}", command.command),
            None => command.command.clone(),
        }),
        ThreadItem::FileChange(change) => Some(
            change
                .changes
                .iter()
                .map(|file| format!("{} {}", file.kind, file.path))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        ThreadItem::McpToolCall(call) => Some(match &call.error {
            Some(error) => format!("failed: {}", error.message),
            None => call.arguments.to_string(),
        }),
        ThreadItem::Error(error) => Some(error.message.clone()),
        ThreadItem::AgentMessage(_) | ThreadItem::Reasoning(_) | ThreadItem::WebSearch(_) | ThreadItem::TodoList(_) => {
            None
        }
    }
}

/// A to-do list as plan steps. The SDK's steps are done or not: a step not done is `pending`
/// (the list does not say which one is being worked on).
pub fn plan_steps(list: &exec::TodoListItem) -> Vec<TurnPlanStep> {
    list.items
        .iter()
        .map(|todo| TurnPlanStep {
            step: todo.text.clone(),
            status: if todo.completed {
                PlanStepStatus::Completed
            } else {
                PlanStepStatus::Pending
            },
        })
        .collect()
}
