//! What a replayed session's items hold, as their canonical content: the `TurnItem`s codex
//! completes, the tool calls of the model's history before codex reports their item, and the
//! `*_begin` / `*_end` events of older sessions. The line itself rides in the event's `raw`.

use std::collections::BTreeMap;

use agentwire_canonical::{
    AssistantMessageContent, AttachmentKind, CanonicalItemType, CollabAgentToolCallContent, CommandExecutionContent,
    DynamicToolCallContent, FileChangeContent, FileChangeEntry, FileChangeKind, ImageGenerationContent,
    ImageViewContent, ItemAttachment, ItemContent, McpToolCallContent, PlanContent, ReasoningContent,
    UserMessageContent, WebSearchContent,
};
use agentwire_codex_rollout::{self as rollout, TurnItem};
use serde_json::{Map, Value};

use crate::codex_content::{self, call_title, file_change_title, mcp_result, non_empty, search_title};
use agentwire_core::content;

/// The content of a `TurnItem`, and its title.
pub fn turn_item(item: &TurnItem) -> (ItemContent, Option<String>) {
    match item {
        TurnItem::UserMessage(message) => (user_message(&message.content), None),
        TurnItem::AgentMessage(message) => {
            let text = content::joined(message.content.iter().map(|part| part.text.as_str()));
            (assistant(text), None)
        }
        TurnItem::Plan(plan) => (
            PlanContent {
                steps: Vec::new(),
                markdown: Some(plan.text.clone()),
                explanation: None,
                parent_item_id: None,
            }
            .into(),
            None,
        ),
        TurnItem::Reasoning(reasoning) => (
            ReasoningContent {
                text: content::joined(reasoning.raw_content.iter().flatten().map(String::as_str)),
                summary: non_empty(&content::joined(reasoning.summary_text.iter().map(String::as_str))),
                parent_item_id: None,
            }
            .into(),
            None,
        ),
        TurnItem::CommandExecution(command) => {
            let line = content::shell_argv(&command.command);
            let item = CommandExecutionContent {
                command: line.clone(),
                cwd: command.cwd.as_deref().map(local_path),
                exit_code: command.exit_code,
                output: command.aggregated_output.clone(),
                duration_ms: command.duration.as_ref().map(millis),
                description: None,
                parent_item_id: None,
            };
            (item.into(), Some(line))
        }
        TurnItem::FileChange(change) => {
            let item = FileChangeContent {
                changes: file_changes(&change.changes),
                output: change
                    .stdout
                    .as_deref()
                    .and_then(non_empty)
                    .or_else(|| change.stderr.as_deref().and_then(non_empty)),
                parent_item_id: None,
            };
            let title = change_title(&item);
            (item.into(), Some(title))
        }
        TurnItem::McpToolCall(call) => {
            let result = call.result.as_ref().and_then(|result| {
                let parts = result.get("content").and_then(Value::as_array).map(Vec::as_slice);
                mcp_result(parts.unwrap_or_default(), result.get("structuredContent"))
            });
            let item = McpToolCallContent {
                server: call.server.clone(),
                tool: call.tool.clone(),
                arguments: call.arguments.clone().filter(|arguments| !arguments.is_null()),
                result,
                error: call.error.as_ref().map(|error| error.message.clone()),
                parent_item_id: None,
            };
            (item.into(), Some(call_title(Some(&call.server), &call.tool)))
        }
        TurnItem::DynamicToolCall(call) => {
            let item = DynamicToolCallContent {
                tool: call.tool.clone(),
                arguments: call.arguments.clone().filter(|arguments| !arguments.is_null()),
                result: call.content_items.as_deref().map(parts_result),
                error: call
                    .error
                    .clone()
                    .or_else(|| (call.success == Some(false)).then(|| "the tool reported a failure".to_owned())),
                parent_item_id: None,
            };
            (item.into(), Some(call_title(call.namespace.as_deref(), &call.tool)))
        }
        TurnItem::WebSearch(search) => {
            let url = search.action.as_ref().and_then(|action| action.url.clone());
            let title = search_title(&search.query, url.as_deref());
            (web_search(search.query.clone(), url), Some(title))
        }
        TurnItem::ImageView(view) => (image_view(&view.path), Some(format!("View {}", view.path))),
        TurnItem::ImageGeneration(image) => (
            image_generation(image.revised_prompt.clone(), image.saved_path.clone()),
            None,
        ),
        TurnItem::ContextCompaction(_) => (codex_content::empty(CanonicalItemType::ContextCompaction), None),
    }
}

/// The person's message: its text parts joined, images and mentions as attachments.
fn user_message(inputs: &[rollout::UserInput]) -> ItemContent {
    let mut texts = Vec::new();
    let mut attachments = Vec::new();
    for input in inputs {
        let kind = match input.type_.as_str() {
            "text" => {
                texts.extend(input.text.as_deref());
                continue;
            }
            "image" | "local_image" | "localImage" => AttachmentKind::Image,
            "mention" => AttachmentKind::File,
            _ => AttachmentKind::Resource,
        };
        attachments.push(ItemAttachment {
            kind,
            name: input.name.clone(),
            path: input.path.clone(),
            url: input.image_url.clone().filter(|url| !url.starts_with("data:")),
            mime_type: None,
        });
    }
    prompt(content::joined(texts), attachments)
}

/// A person's message of `text` and `attachments`.
fn prompt(text: String, attachments: Vec<ItemAttachment>) -> ItemContent {
    UserMessageContent {
        text,
        attachments: (!attachments.is_empty()).then_some(attachments),
        origin: None,
        parent_item_id: None,
    }
    .into()
}

/// The legacy `user_message` event: its text, its images (URLs) and local images (paths).
pub fn legacy_user_message(event: &rollout::UserMessageEvent) -> ItemContent {
    let image = |url: Option<&str>, path: Option<&str>| ItemAttachment {
        kind: AttachmentKind::Image,
        name: None,
        path: path.map(str::to_owned),
        url: url.filter(|url| !url.starts_with("data:")).map(str::to_owned),
        mime_type: None,
    };
    let attachments = event
        .images
        .iter()
        .flatten()
        .map(|url| image(Some(url), None))
        .chain(event.local_images.iter().flatten().map(|path| image(None, Some(path))))
        .collect();
    prompt(event.message.clone(), attachments)
}

/// The agent's text.
pub fn assistant(text: String) -> ItemContent {
    AssistantMessageContent {
        text,
        parent_item_id: None,
    }
    .into()
}

/// Reasoning: its `text`, or Codex's summary of it.
pub fn reasoning(text: String, summary: bool) -> ItemContent {
    let (text, summary) = if summary {
        (String::new(), non_empty(&text))
    } else {
        (text, None)
    };
    ReasoningContent {
        text,
        summary,
        parent_item_id: None,
    }
    .into()
}

/// A search for `query` (or a page opened at `url`).
pub fn web_search(query: String, url: Option<String>) -> ItemContent {
    WebSearchContent {
        query: if query.is_empty() {
            url.clone().unwrap_or_default()
        } else {
            query
        },
        url,
        results: None,
        parent_item_id: None,
    }
    .into()
}

pub fn image_view(path: &str) -> ItemContent {
    ImageViewContent {
        path: path.to_owned(),
        parent_item_id: None,
    }
    .into()
}

/// A generated image: what was asked and where it was saved (the image itself stays in `raw`).
pub fn image_generation(prompt: Option<String>, path: Option<String>) -> ItemContent {
    ImageGenerationContent {
        prompt,
        path,
        result: None,
        parent_item_id: None,
    }
    .into()
}

/// A command codex runs (`exec_command_begin` / `_end`).
pub fn command(argv: &[String], cwd: &str, exit_code: Option<i64>, output: Option<String>) -> ItemContent {
    CommandExecutionContent {
        command: content::shell_argv(argv),
        cwd: non_empty(cwd).as_deref().map(local_path),
        exit_code,
        output,
        duration_ms: None,
        description: None,
        parent_item_id: None,
    }
    .into()
}

/// An MCP call (`mcp_tool_call_begin` / `_end`); `outcome` is the end's `result` (`{"Ok": ...}`
/// or `{"Err": ...}`).
pub fn mcp_call(invocation: &rollout::McpInvocation, outcome: Option<&Map<String, Value>>) -> ItemContent {
    let ok = outcome.and_then(|outcome| outcome.get("Ok"));
    let result = ok.and_then(|ok| {
        let parts = ok.get("content").and_then(Value::as_array).map(Vec::as_slice);
        mcp_result(
            parts.unwrap_or_default(),
            ok.get("structuredContent").or_else(|| ok.get("structured_content")),
        )
    });
    let error = outcome.and_then(|outcome| outcome.get("Err")).map(|error| match error {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    });
    McpToolCallContent {
        server: invocation.server.clone(),
        tool: invocation.tool.clone(),
        arguments: invocation.arguments.clone().filter(|arguments| !arguments.is_null()),
        result,
        error,
        parent_item_id: None,
    }
    .into()
}

/// A dynamic tool's answer (`dynamic_tool_call_response`).
pub fn dynamic_call(response: &rollout::DynamicToolCallResponseEvent) -> ItemContent {
    let tool = match response.namespace.as_deref() {
        Some(namespace) if !namespace.is_empty() => format!("{namespace}.{}", response.tool),
        Some(_) | None => response.tool.clone(),
    };
    DynamicToolCallContent {
        tool,
        arguments: (!response.arguments.is_null()).then(|| response.arguments.clone()),
        result: Some(parts_result(&response.content_items)),
        error: response
            .error
            .clone()
            .or_else(|| (!response.success).then(|| "the tool reported a failure".to_owned())),
        parent_item_id: None,
    }
    .into()
}

/// A call to another agent (`collab_*_begin` / `_end`, by its event's `tag`), named as
/// app-server names the tool (`spawnAgent`, ...).
pub fn collab_call(tag: &str, event: &Value) -> ItemContent {
    let text = |key: &str| event.get(key).and_then(Value::as_str).and_then(non_empty);
    let tool = [
        ("collab_agent_spawn", "spawnAgent"),
        ("collab_agent_interaction", "sendInput"),
        ("collab_waiting", "wait"),
        ("collab_close", "closeAgent"),
        ("collab_resume", "resumeAgent"),
    ]
    .into_iter()
    .find_map(|(prefix, tool)| tag.starts_with(prefix).then(|| tool.to_owned()));
    CollabAgentToolCallContent {
        tool,
        agent: text("new_agent_role").or_else(|| text("model")),
        description: text("new_agent_nickname"),
        prompt: text("prompt"),
        result: None,
        parent_item_id: None,
    }
    .into()
}

/// The files of a patch codex applies, and what applying it printed.
pub fn patch(changes: &BTreeMap<String, rollout::FileChange>, output: Option<String>) -> ItemContent {
    FileChangeContent {
        changes: file_changes(changes),
        output,
        parent_item_id: None,
    }
    .into()
}

/// The files of a patch, in codex's order (by path).
fn file_changes(changes: &BTreeMap<String, rollout::FileChange>) -> Vec<FileChangeEntry> {
    changes
        .iter()
        .map(|(path, change)| {
            let (kind, diff, move_path) = match change {
                rollout::FileChange::Add(add) => (FileChangeKind::Add, non_empty(&add.content), None),
                rollout::FileChange::Delete(delete) => (FileChangeKind::Delete, non_empty(&delete.content), None),
                rollout::FileChange::Update(update) => (
                    FileChangeKind::Update,
                    non_empty(&update.unified_diff),
                    update.move_path.clone(),
                ),
            };
            FileChangeEntry {
                path: path.clone(),
                kind,
                diff,
                move_path,
            }
        })
        .collect()
}

/// `Edit README.md` for a file change's content.
fn change_title(change: &FileChangeContent) -> String {
    file_change_title(change.changes.iter().map(|entry| (entry.path.as_str(), entry.kind)))
}

/// The item a tool call of the model's history opens, by the tool's name: its type, title and
/// content as the call's arguments say.
pub fn tool_call(name: &str, arguments: &Value) -> (CanonicalItemType, String, ItemContent) {
    let text = |key: &str| {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match name {
        "exec_command" | "shell" | "local_shell" | "shell_command" | "container.exec" => {
            let line = match arguments.get("cmd").or_else(|| arguments.get("command")) {
                Some(Value::Array(words)) => {
                    content::shell_argv(&words.iter().filter_map(Value::as_str).collect::<Vec<_>>())
                }
                Some(Value::String(line)) => content::shell_command(line),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let workdir = text("workdir");
            let item = CommandExecutionContent {
                command: line.clone(),
                cwd: non_empty(&workdir),
                exit_code: None,
                output: None,
                duration_ms: None,
                description: None,
                parent_item_id: None,
            };
            (CanonicalItemType::CommandExecution, line, item.into())
        }
        "apply_patch" => {
            let input = arguments.as_str().map_or_else(|| text("input"), str::to_owned);
            let item = FileChangeContent {
                changes: patch_files(&input),
                output: None,
                parent_item_id: None,
            };
            (CanonicalItemType::FileChange, change_title(&item), item.into())
        }
        "web_search" => {
            let query = text("query");
            let title = search_title(&query, None);
            (CanonicalItemType::WebSearch, title, web_search(query, None))
        }
        "view_image" => {
            let path = text("path");
            (CanonicalItemType::ImageView, format!("View {path}"), image_view(&path))
        }
        _ => match mcp_name(name) {
            Some((server, tool)) => {
                let item = McpToolCallContent {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    arguments: Some(arguments.clone()),
                    result: None,
                    error: None,
                    parent_item_id: None,
                };
                (
                    CanonicalItemType::McpToolCall,
                    call_title(Some(server), tool),
                    item.into(),
                )
            }
            None => {
                let item = DynamicToolCallContent {
                    tool: name.to_owned(),
                    arguments: Some(arguments.clone()),
                    result: None,
                    error: None,
                    parent_item_id: None,
                };
                (CanonicalItemType::DynamicToolCall, call_title(None, name), item.into())
            }
        },
    }
}

/// The server and tool of an MCP tool's model name: `mcp__echo.write_note` (a namespaced call)
/// or `mcp__echo__write_note`.
fn mcp_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    rest.split_once('.').or_else(|| rest.split_once("__"))
}

/// The files an `apply_patch` input names, by its `*** Add File:` / `*** Update File:` /
/// `*** Delete File:` headers (a `*** Move to:` after an update moves the file).
fn patch_files(input: &str) -> Vec<FileChangeEntry> {
    let mut files: Vec<FileChangeEntry> = Vec::new();
    for line in input.lines() {
        let header = [
            ("*** Add File: ", FileChangeKind::Add),
            ("*** Update File: ", FileChangeKind::Update),
            ("*** Delete File: ", FileChangeKind::Delete),
        ]
        .into_iter()
        .find_map(|(prefix, kind)| line.strip_prefix(prefix).map(|path| (path, kind)));
        if let Some((path, kind)) = header {
            files.push(FileChangeEntry {
                path: path.trim().to_owned(),
                kind,
                diff: None,
                move_path: None,
            });
        } else if let Some(target) = line.strip_prefix("*** Move to: ")
            && let Some(last) = files.last_mut()
        {
            last.move_path = Some(target.trim().to_owned());
        }
    }
    files
}

/// A finished tool call's content: the call's content (`call`) with what the tool gave back
/// (`output`, the output item's text): a command's or patch's `output`, a tool's `result`, and
/// its `error` when it `failed`.
pub fn with_output(item_type: CanonicalItemType, call: Value, output: String, failed: bool) -> Value {
    let Value::Object(mut item) = call else {
        return call;
    };
    let field = match item_type {
        CanonicalItemType::CommandExecution | CanonicalItemType::FileChange => "output",
        CanonicalItemType::McpToolCall | CanonicalItemType::DynamicToolCall if failed => "error",
        CanonicalItemType::McpToolCall | CanonicalItemType::DynamicToolCall => "result",
        CanonicalItemType::WebSearch => "results",
        CanonicalItemType::UserMessage
        | CanonicalItemType::AssistantMessage
        | CanonicalItemType::Reasoning
        | CanonicalItemType::Plan
        | CanonicalItemType::CollabAgentToolCall
        | CanonicalItemType::ImageView
        | CanonicalItemType::ImageGeneration
        | CanonicalItemType::ReviewEntered
        | CanonicalItemType::ReviewExited
        | CanonicalItemType::ContextCompaction
        | CanonicalItemType::Error
        | CanonicalItemType::Unknown => return Value::Object(item),
    };
    if !output.is_empty() {
        item.insert(field.to_owned(), Value::String(output));
    }
    Value::Object(item)
}

/// The title of an item by its content (`data`, of an item of `item_type`, read as its type's
/// [`ItemContent`]): the command, the files changed, the tool called, the search; `None` while
/// the content does not say.
pub fn title(item_type: CanonicalItemType, data: &Value) -> Option<String> {
    let said = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    match ItemContent::decode(item_type, data).ok()? {
        ItemContent::CommandExecution(command) => said(&command.command),
        ItemContent::FileChange(change) => (!change.changes.is_empty()).then(|| change_title(&change)),
        ItemContent::McpToolCall(call) => {
            let server = Some(call.server.as_str()).filter(|server| !server.is_empty());
            said(&call.tool).map(|tool| call_title(server, &tool))
        }
        ItemContent::DynamicToolCall(call) => said(&call.tool).map(|tool| call_title(None, &tool)),
        ItemContent::WebSearch(search) => {
            let url = search.url.as_deref().filter(|url| !url.is_empty());
            said(&search.query).map(|query| search_title(&query, url))
        }
        ItemContent::ImageView(view) => said(&view.path).map(|path| format!("View {path}")),
        ItemContent::UserMessage(_)
        | ItemContent::AssistantMessage(_)
        | ItemContent::Reasoning(_)
        | ItemContent::Plan(_)
        | ItemContent::CollabAgentToolCall(_)
        | ItemContent::ImageGeneration(_)
        | ItemContent::ReviewEntered(_)
        | ItemContent::ReviewExited(_)
        | ItemContent::ContextCompaction(_)
        | ItemContent::Error(_)
        | ItemContent::Unknown(_) => None,
    }
}

/// The content of an item as a later report of it gives it (`fresh`), over what was known of it
/// (`known`): a field the report leaves empty or out keeps what was known, so an update carries
/// the whole content.
pub fn merged(known: Option<Value>, fresh: Value) -> Value {
    let (Some(Value::Object(mut whole)), Value::Object(fresh)) = (known, fresh.clone()) else {
        return fresh;
    };
    for (key, value) in fresh {
        let empty = match &value {
            Value::String(text) => text.is_empty(),
            Value::Array(items) => items.is_empty(),
            Value::Null => true,
            Value::Bool(_) | Value::Number(_) | Value::Object(_) => false,
        };
        if !(empty && whole.contains_key(&key)) {
            whole.insert(key, value);
        }
    }
    Value::Object(whole)
}

/// What a tool returned as content parts: their text when all are text, else the parts.
fn parts_result(parts: &[Map<String, Value>]) -> Value {
    let parts: Vec<Value> = parts.iter().cloned().map(Value::Object).collect();
    match codex_content::texts(&parts) {
        Some(text) => Value::String(text),
        None => Value::Array(parts),
    }
}

/// A duration in milliseconds.
fn millis(duration: &rollout::Duration) -> i64 {
    duration.secs * 1000 + duration.nanos / 1_000_000
}

/// A `file://` URL as the local path it names (codex writes a command's `cwd` as one).
fn local_path(path: &str) -> String {
    path.strip_prefix("file://").unwrap_or(path).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_names_its_files() {
        let input = "*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n@@\n-x\n+y\n*** Add File: c.txt\n+hi\n*** End Patch\n";
        let files = patch_files(input);
        assert_eq!(files.len(), 2);
        assert_eq!(
            (files[0].path.as_str(), files[0].move_path.as_deref()),
            ("a.rs", Some("b.rs"))
        );
        assert_eq!((files[1].path.as_str(), files[1].kind), ("c.txt", FileChangeKind::Add));
    }

    #[test]
    fn an_update_keeps_what_it_does_not_say() {
        let known = json!({ "command": "ls", "output": "a" });
        let fresh = json!({ "command": "", "exitCode": 0 });
        assert_eq!(
            merged(Some(known), fresh),
            json!({ "command": "ls", "output": "a", "exitCode": 0 })
        );
    }
}
