//! `ThreadItem`s -> canonical item types, statuses, titles and plan steps.

use agentwire_canonical::{CanonicalItemType, ItemStatus, PlanStepStatus, TurnPlanStep};
use agentwire_codex_exec::{self as exec, CommandExecutionStatus, McpToolCallStatus, PatchApplyStatus, ThreadItem};

use crate::canonicalize::Canonicalize;

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

/// A short human title: the command as a person wrote it, the tool, the query, the file.
pub fn item_title(item: &ThreadItem) -> Option<String> {
    match item {
        ThreadItem::CommandExecution(command) => Some(unwrapped_command(&command.command).to_string()),
        ThreadItem::FileChange(change) => Some(match change.changes.as_slice() {
            [one] => one.path.clone(),
            many => format!("{} files", many.len()),
        }),
        ThreadItem::McpToolCall(call) => Some(format!("{}.{}", call.server, call.tool)),
        ThreadItem::WebSearch(search) => Some(search.query.clone()),
        ThreadItem::AgentMessage(_) | ThreadItem::Reasoning(_) | ThreadItem::TodoList(_) | ThreadItem::Error(_) => None,
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

/// `/bin/bash -lc 'echo hello'` -> `echo hello`: the shell wrapper codex runs every command in,
/// removed when the command inside is one single-quoted word (nothing to unescape); any other
/// command as printed.
pub fn unwrapped_command(command: &str) -> &str {
    [
        "/bin/bash -lc '",
        "bash -lc '",
        "/bin/zsh -lc '",
        "zsh -lc '",
        "/bin/sh -c '",
        "sh -c '",
    ]
    .iter()
    .find_map(|prefix| command.strip_prefix(prefix)?.strip_suffix('\''))
    .filter(|inner| !inner.contains('\''))
    .unwrap_or(command)
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

#[cfg(test)]
mod tests {
    use super::unwrapped_command;

    #[test]
    fn the_shell_wrapper_is_removed_only_when_nothing_is_quoted_inside() {
        assert_eq!(unwrapped_command("/bin/bash -lc 'echo hello'"), "echo hello");
        assert_eq!(
            unwrapped_command("/bin/bash -lc 'echo '\\''a'\\'''"),
            "/bin/bash -lc 'echo '\\''a'\\'''"
        );
        assert_eq!(unwrapped_command("ls -la"), "ls -la");
    }
}
