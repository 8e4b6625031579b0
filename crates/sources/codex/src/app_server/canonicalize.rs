//! Codex app-server types -> canonical types, value by value.

use agentwire_canonical::{
    CanonicalItemType, FileChangeKind, ItemStatus, Json, PlanStepStatus, ThreadState, TurnState,
};
use agentwire_codex_app_server as codex;

use crate::canonicalize::Canonicalize;
use crate::codex_content::{call_title, file_change_title, search_title};
use agentwire_core::content;

impl Canonicalize for codex::ThreadItem {
    type Canonical = CanonicalItemType;

    /// The item type by the `ThreadItem` variant, never by guessing from strings. Variants the
    /// spec has no value for go to the nearest one (the variant name stays in `raw`).
    fn canonical(&self) -> CanonicalItemType {
        use codex::ThreadItem as I;
        match self {
            I::UserMessage { .. } => CanonicalItemType::UserMessage,
            // A prompt a hook injected on the user's side of the conversation.
            I::HookPrompt { .. } => CanonicalItemType::UserMessage,
            I::AgentMessage { .. } => CanonicalItemType::AssistantMessage,
            // The output of a model function call Codex ran as a tool.
            I::FunctionCallOutput { .. } => CanonicalItemType::DynamicToolCall,
            I::Plan { .. } => CanonicalItemType::Plan,
            I::Reasoning { .. } => CanonicalItemType::Reasoning,
            I::CommandExecution { .. } => CanonicalItemType::CommandExecution,
            I::FileChange { .. } => CanonicalItemType::FileChange,
            I::McpToolCall { .. } => CanonicalItemType::McpToolCall,
            I::DynamicToolCall { .. } => CanonicalItemType::DynamicToolCall,
            I::CollabAgentToolCall { .. } => CanonicalItemType::CollabAgentToolCall,
            // What a sub-agent spawned through a collab tool call is doing.
            I::SubAgentActivity { .. } => CanonicalItemType::CollabAgentToolCall,
            I::WebSearch { .. } => CanonicalItemType::WebSearch,
            I::ImageView { .. } => CanonicalItemType::ImageView,
            // The agent waiting on purpose: no spec value describes it.
            I::Sleep { .. } => CanonicalItemType::Unknown,
            I::ImageGeneration { .. } => CanonicalItemType::ImageGeneration,
            I::EnteredReviewMode { .. } => CanonicalItemType::ReviewEntered,
            I::ExitedReviewMode { .. } => CanonicalItemType::ReviewExited,
            I::ContextCompaction { .. } => CanonicalItemType::ContextCompaction,
        }
    }
}

/// The item's own status, for items that carry one.
pub fn item_status(item: &codex::ThreadItem) -> Option<ItemStatus> {
    use codex::ThreadItem as I;
    match item {
        I::CommandExecution { status, .. } => Some(status.canonical()),
        I::FileChange { status, .. } => Some(status.canonical()),
        I::McpToolCall { status, .. } => Some(status.canonical()),
        I::DynamicToolCall { status, .. } => Some(status.canonical()),
        I::CollabAgentToolCall { status, .. } => Some(status.canonical()),
        I::ImageGeneration { failure, .. } => Some(if failure.is_some() {
            ItemStatus::Failed
        } else {
            ItemStatus::Completed
        }),
        I::UserMessage { .. }
        | I::HookPrompt { .. }
        | I::AgentMessage { .. }
        | I::FunctionCallOutput { .. }
        | I::Plan { .. }
        | I::Reasoning { .. }
        | I::SubAgentActivity { .. }
        | I::WebSearch { .. }
        | I::ImageView { .. }
        | I::Sleep { .. }
        | I::EnteredReviewMode { .. }
        | I::ExitedReviewMode { .. }
        | I::ContextCompaction { .. } => None,
    }
}

/// A short human title: the whole command as a person wrote it (not the `/bin/bash -lc`
/// wrapper; Codex's parsed `commandActions` may name only part of it), the tool called, the
/// query, the files changed.
pub fn item_title(item: &codex::ThreadItem) -> Option<String> {
    use codex::ThreadItem as I;
    match item {
        I::CommandExecution { command, .. } => Some(content::shell_command(command)),
        I::McpToolCall { server, tool, .. } => Some(call_title(Some(server), tool)),
        I::DynamicToolCall { tool, namespace, .. } => Some(call_title(namespace.as_deref(), tool)),
        I::FunctionCallOutput { name, namespace, .. } => Some(call_title(namespace.as_deref(), name)),
        I::WebSearch { query, action, .. } => Some(search_title(query, page_url(action.as_ref()).as_deref())),
        I::FileChange { changes, .. } => Some(file_change_title(
            changes
                .iter()
                .map(|change| (change.path.as_str(), change_kind(&change.kind).0)),
        )),
        I::ImageView { path, .. } => Some(format!("View {}", path.as_str())),
        I::UserMessage { .. }
        | I::HookPrompt { .. }
        | I::AgentMessage { .. }
        | I::Plan { .. }
        | I::Reasoning { .. }
        | I::CollabAgentToolCall { .. }
        | I::SubAgentActivity { .. }
        | I::Sleep { .. }
        | I::ImageGeneration { .. }
        | I::EnteredReviewMode { .. }
        | I::ExitedReviewMode { .. }
        | I::ContextCompaction { .. } => None,
    }
}

/// The page a web search opened or searched in, if it did.
pub fn page_url(action: Option<&codex::WebSearchAction>) -> Option<String> {
    match action? {
        codex::WebSearchAction::OpenPage { url } | codex::WebSearchAction::FindInPage { url, .. } => url.clone(),
        codex::WebSearchAction::Search { .. } | codex::WebSearchAction::Other => None,
    }
}

/// A change's kind, and where it moves the file to.
pub fn change_kind(kind: &codex::PatchChangeKind) -> (FileChangeKind, Option<String>) {
    match kind {
        codex::PatchChangeKind::Add => (FileChangeKind::Add, None),
        codex::PatchChangeKind::Delete => (FileChangeKind::Delete, None),
        codex::PatchChangeKind::Update { move_path } => (FileChangeKind::Update, move_path.clone()),
    }
}

/// The commands of parsed command actions, as a person would type them (`echo hi && ls`).
pub fn command_display(actions: &[codex::CommandAction]) -> Option<String> {
    use codex::CommandAction as A;
    let commands: Vec<&str> = actions
        .iter()
        .map(|action| match action {
            A::Read { command, .. }
            | A::ListFiles { command, .. }
            | A::Search { command, .. }
            | A::Unknown { command } => command.as_str(),
        })
        .collect();
    (!commands.is_empty()).then(|| commands.join(" && "))
}

/// A second line for tool items: what ran and how it went.
pub fn item_detail(item: &codex::ThreadItem) -> Option<String> {
    use codex::ThreadItem as I;
    match item {
        I::CommandExecution {
            command,
            cwd,
            exit_code,
            duration_ms,
            ..
        } => Some(match (exit_code, duration_ms) {
            (Some(code), Some(ms)) => format!("exit code {code} after {ms} ms: {command}"),
            (Some(code), None) => format!("exit code {code}: {command}"),
            (None, _) => format!("{command} (in {cwd})"),
        }),
        I::FileChange { changes, .. } => Some(
            changes
                .iter()
                .map(|change| format!("{} {}", change.kind.tag(), change.path))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        I::McpToolCall { arguments, error, .. } => Some(match error {
            Some(error) => format!("failed: {}", error.message),
            None => compact(arguments),
        }),
        I::DynamicToolCall { arguments, .. } => Some(compact(arguments)),
        I::CollabAgentToolCall { prompt, .. } => prompt.clone(),
        I::ImageView { path, .. } => Some(path.to_string()),
        I::UserMessage { .. }
        | I::HookPrompt { .. }
        | I::AgentMessage { .. }
        | I::FunctionCallOutput { .. }
        | I::Plan { .. }
        | I::Reasoning { .. }
        | I::SubAgentActivity { .. }
        | I::WebSearch { .. }
        | I::Sleep { .. }
        | I::ImageGeneration { .. }
        | I::EnteredReviewMode { .. }
        | I::ExitedReviewMode { .. }
        | I::ContextCompaction { .. } => None,
    }
}

/// Tool arguments on one line, cut to a length a card can show.
fn compact(value: &serde_json::Value) -> String {
    const MAX_CHARS: usize = 200;
    let text = value.to_string();
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A generated value as JSON.
pub fn to_json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).expect("generated types serialize to JSON")
}

/// A generated value as JSON text, for a field that carries it as the provider reported it (an
/// item's `data`, a usage report): written once, never built as a tree.
pub fn to_text(value: &impl serde::Serialize) -> Json {
    Json::serialize(value).expect("generated types serialize to JSON")
}

/// The item's provider id.
pub fn item_id(item: &codex::ThreadItem) -> &str {
    use codex::ThreadItem as I;
    match item {
        I::UserMessage { id, .. }
        | I::HookPrompt { id, .. }
        | I::AgentMessage { id, .. }
        | I::FunctionCallOutput { id, .. }
        | I::Plan { id, .. }
        | I::Reasoning { id, .. }
        | I::CommandExecution { id, .. }
        | I::FileChange { id, .. }
        | I::McpToolCall { id, .. }
        | I::DynamicToolCall { id, .. }
        | I::CollabAgentToolCall { id, .. }
        | I::SubAgentActivity { id, .. }
        | I::WebSearch { id, .. }
        | I::ImageView { id, .. }
        | I::Sleep { id, .. }
        | I::ImageGeneration { id, .. }
        | I::EnteredReviewMode { id, .. }
        | I::ExitedReviewMode { id, .. }
        | I::ContextCompaction { id, .. } => id,
    }
}

crate::canonicalize::same_named_item_status! {
    codex::CommandExecutionStatus: InProgress, Completed, Failed, Declined;
    codex::PatchApplyStatus: InProgress, Completed, Failed, Declined;
    codex::McpToolCallStatus: InProgress, Completed, Failed;
    codex::DynamicToolCallStatus: InProgress, Completed, Failed;
}

impl Canonicalize for codex::CollabAgentToolCallStatus {
    type Canonical = ItemStatus;
    fn canonical(&self) -> ItemStatus {
        match self {
            Self::InProgress => ItemStatus::InProgress,
            Self::Completed => ItemStatus::Completed,
            // An interrupted sub-agent did not finish its work.
            Self::Failed | Self::Interrupted => ItemStatus::Failed,
        }
    }
}

impl Canonicalize for codex::TurnStatus {
    type Canonical = TurnState;
    /// `inProgress` is not terminal; a `turn/completed` carrying it is read as completed (the
    /// provider's status is kept in `stopReason`).
    fn canonical(&self) -> TurnState {
        match self {
            Self::Completed | Self::InProgress => TurnState::Completed,
            Self::Interrupted => TurnState::Interrupted,
            Self::Failed => TurnState::Failed,
        }
    }
}

impl Canonicalize for codex::ThreadStatus {
    type Canonical = ThreadState;
    /// `notLoaded` (the thread is not in memory) is nearest to `closed`; the full status object
    /// rides in the payload's `detail`.
    fn canonical(&self) -> ThreadState {
        match self {
            Self::NotLoaded => ThreadState::Closed,
            Self::Idle => ThreadState::Idle,
            Self::SystemError => ThreadState::Error,
            Self::Active(_) => ThreadState::Active,
        }
    }
}

impl Canonicalize for codex::TurnPlanStepStatus {
    type Canonical = PlanStepStatus;
    fn canonical(&self) -> PlanStepStatus {
        match self {
            Self::Pending => PlanStepStatus::Pending,
            Self::InProgress => PlanStepStatus::InProgress,
            Self::Completed => PlanStepStatus::Completed,
        }
    }
}
