//! Pi's built-in tools: the item each one is, its title and its typed content, read from the
//! call's name and its arguments decoded as the schema declares them (`BashToolArgs`, ...).
//!
//! The names are Pi's built-in tools (1.6.0, `core/tools/`); any other name (an extension's
//! tool) is a `dynamic_tool_call` with its arguments as sent.

use agentwire_canonical::{
    CanonicalItemType, CommandExecutionContent, DynamicToolCallContent, FileChangeContent, FileChangeEntry,
    FileChangeKind, ItemContent, ItemStatus,
};
use agentwire_pi::{BashToolArgs, EditToolArgs, FindToolArgs, GrepToolArgs, LsToolArgs, ReadToolArgs, WriteToolArgs};
use serde::de::DeserializeOwned;
use serde_json::Value;

use agentwire_core::content;
use agentwire_core::ledger::OpenItemFace;

/// A tool call: its tool's name and its arguments as far as they are known, read once as the
/// tool declares them.
pub struct Call<'a> {
    name: &'a str,
    args: &'a Value,
    tool: Tool,
}

/// How a call stands.
#[derive(Clone, Copy)]
pub enum Outcome<'a> {
    /// Announced or running; its output so far.
    Running { output: Option<&'a str> },
    /// It ran; its output, its exit code (a command's), how long it took.
    Succeeded {
        output: &'a str,
        exit_code: Option<i64>,
        duration_ms: Option<i64>,
    },
    /// It ran and failed, or could not run: what it said.
    Failed {
        output: &'a str,
        exit_code: Option<i64>,
        duration_ms: Option<i64>,
    },
}

impl Outcome<'_> {
    fn output(self) -> Option<String> {
        match self {
            Outcome::Running { output } => output.map(str::to_owned),
            Outcome::Succeeded { output, .. } | Outcome::Failed { output, .. } => Some(output.to_owned()),
        }
    }

    fn exit_code(self) -> Option<i64> {
        match self {
            Outcome::Running { .. } => None,
            Outcome::Succeeded { exit_code, .. } | Outcome::Failed { exit_code, .. } => exit_code,
        }
    }

    fn duration_ms(self) -> Option<i64> {
        match self {
            Outcome::Running { .. } => None,
            Outcome::Succeeded { duration_ms, .. } | Outcome::Failed { duration_ms, .. } => duration_ms,
        }
    }

    /// The status the outcome is.
    pub fn status(self) -> ItemStatus {
        match self {
            Outcome::Running { .. } => ItemStatus::InProgress,
            Outcome::Succeeded { .. } => ItemStatus::Completed,
            Outcome::Failed { .. } => ItemStatus::Failed,
        }
    }
}

/// What a call is, by its tool's name, with its arguments read as that tool declares them
/// (`None` while they are not known or do not fit).
enum Tool {
    Bash(Option<BashToolArgs>),
    Read(Option<ReadToolArgs>),
    Write(Option<WriteToolArgs>),
    Edit(Option<EditToolArgs>),
    Grep(Option<GrepToolArgs>),
    Find(Option<FindToolArgs>),
    Ls(Option<LsToolArgs>),
    Other,
}

fn args_of<T: DeserializeOwned>(args: &Value) -> Option<T> {
    T::deserialize(args).ok()
}

impl<'a> Call<'a> {
    /// The call of the tool `name` with `args`.
    pub fn new(name: &'a str, args: &'a Value) -> Self {
        let tool = match name {
            "bash" => Tool::Bash(args_of(args)),
            "read" => Tool::Read(args_of(args)),
            "write" => Tool::Write(args_of(args)),
            "edit" => Tool::Edit(args_of(args)),
            "grep" => Tool::Grep(args_of(args)),
            "find" => Tool::Find(args_of(args)),
            "ls" => Tool::Ls(args_of(args)),
            _ => Tool::Other,
        };
        Call { name, args, tool }
    }

    /// The canonical item type of the call.
    pub fn item_type(&self) -> CanonicalItemType {
        match &self.tool {
            Tool::Bash(_) => CanonicalItemType::CommandExecution,
            Tool::Write(_) | Tool::Edit(_) => CanonicalItemType::FileChange,
            Tool::Read(_) | Tool::Grep(_) | Tool::Find(_) | Tool::Ls(_) | Tool::Other => {
                CanonicalItemType::DynamicToolCall
            }
        }
    }

    /// What the call does to what, as a person reads it: the command itself, `Edit notes.txt`,
    /// `Read notes.txt`, `Search: TODO`; else the tool's name.
    pub fn title(&self) -> String {
        let file = |path: &str| path.rsplit('/').next().unwrap_or(path).to_owned();
        let title = match &self.tool {
            Tool::Bash(args) => args.as_ref().map(|args| content::shell_command(&args.command)),
            Tool::Read(args) => args.as_ref().map(|args| format!("Read {}", file(&args.path))),
            Tool::Write(args) => args.as_ref().map(|args| format!("Write {}", file(&args.path))),
            Tool::Edit(args) => args.as_ref().map(|args| format!("Edit {}", file(&args.path))),
            Tool::Grep(args) => args.as_ref().map(|args| format!("Search: {}", args.pattern)),
            Tool::Find(args) => args.as_ref().map(|args| format!("Find: {}", args.pattern)),
            Tool::Ls(args) => Some(format!(
                "List {}",
                args.as_ref().and_then(|args| args.path.as_deref()).unwrap_or(".")
            )),
            Tool::Other => None,
        };
        title.unwrap_or_else(|| self.name.to_owned())
    }

    /// What a UI shows for the call as `outcome` leaves it: its type, title and content.
    pub fn face(&self, outcome: Outcome<'_>) -> OpenItemFace {
        OpenItemFace::new(
            self.item_type(),
            Some(self.title()),
            content::data(self.content(outcome)),
        )
    }

    /// The call's typed content as `outcome` leaves it.
    pub fn content(&self, outcome: Outcome<'_>) -> ItemContent {
        let error = match outcome {
            Outcome::Failed { output, .. } => Some(output.to_owned()),
            Outcome::Running { .. } | Outcome::Succeeded { .. } => None,
        };
        match &self.tool {
            Tool::Bash(args) => ItemContent::CommandExecution(CommandExecutionContent {
                command: args
                    .as_ref()
                    .map(|args| content::shell_command(&args.command))
                    .unwrap_or_default(),
                cwd: None,
                exit_code: outcome.exit_code(),
                output: outcome.output(),
                duration_ms: outcome.duration_ms(),
                description: None,
                parent_item_id: None,
            }),
            Tool::Write(args) => ItemContent::FileChange(FileChangeContent {
                changes: args
                    .as_ref()
                    .map(|args| {
                        vec![FileChangeEntry {
                            path: args.path.clone(),
                            kind: FileChangeKind::Add,
                            diff: Some(content::unified_diff("", &args.content)),
                            move_path: None,
                        }]
                    })
                    .unwrap_or_default(),
                output: outcome.output(),
                parent_item_id: None,
            }),
            Tool::Edit(args) => ItemContent::FileChange(FileChangeContent {
                changes: args
                    .as_ref()
                    .map(|args| {
                        let diff: String = args
                            .edits
                            .iter()
                            .map(|edit| content::unified_diff(&edit.old_text, &edit.new_text))
                            .collect();
                        vec![FileChangeEntry {
                            path: args.path.clone(),
                            kind: FileChangeKind::Update,
                            diff: Some(diff),
                            move_path: None,
                        }]
                    })
                    .unwrap_or_default(),
                output: outcome.output(),
                parent_item_id: None,
            }),
            Tool::Read(_) | Tool::Grep(_) | Tool::Find(_) | Tool::Ls(_) | Tool::Other => {
                ItemContent::DynamicToolCall(DynamicToolCallContent {
                    tool: self.name.to_owned(),
                    arguments: Some(self.args.clone()),
                    result: match outcome {
                        Outcome::Succeeded { output, .. } => Some(Value::String(output.to_owned())),
                        Outcome::Running { .. } | Outcome::Failed { .. } => None,
                    },
                    error,
                    parent_item_id: None,
                })
            }
        }
    }
}
