//! A `ThreadItem` as its canonical content: the fields of its item type, the same whichever
//! source; the item as Codex sent it rides in the event's `raw`.

use agentwire_canonical::{
    AssistantMessageContent, AttachmentKind, CollabAgentToolCallContent, CommandExecutionContent,
    ContextCompactionContent, DynamicToolCallContent, FileChangeContent, FileChangeEntry, ImageGenerationContent,
    ImageViewContent, ItemAttachment, ItemContent, McpToolCallContent, MessageOrigin, PlanContent, ReasoningContent,
    ReviewEnteredContent, ReviewExitedContent, UnknownContent, UserMessageContent, WebSearchContent,
};
use agentwire_codex_app_server as codex;
use serde_json::Value;

use super::canonicalize::{change_kind, page_url, to_json};
use crate::codex_content::{mcp_result, non_empty};
use agentwire_core::content;

/// The content of a `ThreadItem`.
pub fn item_content(item: &codex::ThreadItem) -> ItemContent {
    use codex::ThreadItem as I;
    match item {
        I::UserMessage { content, .. } => user_message(content).into(),
        I::HookPrompt { fragments, .. } => UserMessageContent {
            text: content::joined(fragments.iter().map(|fragment| fragment.text.as_str())),
            attachments: None,
            origin: Some(MessageOrigin::Hook),
            parent_item_id: None,
        }
        .into(),
        I::AgentMessage { text, .. } => AssistantMessageContent {
            text: text.clone(),
            parent_item_id: None,
        }
        .into(),
        I::FunctionCallOutput {
            name,
            namespace,
            output,
            ..
        } => DynamicToolCallContent {
            tool: qualified(namespace.as_deref(), name),
            arguments: None,
            result: Some(function_output(output)),
            error: None,
            parent_item_id: None,
        }
        .into(),
        I::Plan { text, .. } => plan(text.clone()).into(),
        I::Reasoning { content, summary, .. } => ReasoningContent {
            text: content::joined(content.iter().flatten().map(String::as_str)),
            summary: summary
                .as_deref()
                .map(|parts| content::joined(parts.iter().map(String::as_str)))
                .filter(|summary| !summary.is_empty()),
            parent_item_id: None,
        }
        .into(),
        I::CommandExecution {
            command,
            cwd,
            exit_code,
            aggregated_output,
            duration_ms,
            ..
        } => CommandExecutionContent {
            command: content::shell_command(command),
            cwd: Some(cwd.to_string()),
            exit_code: exit_code.map(i64::from),
            output: aggregated_output.clone(),
            duration_ms: *duration_ms,
            description: None,
            parent_item_id: None,
        }
        .into(),
        I::FileChange { changes, .. } => file_change(changes).into(),
        I::McpToolCall {
            server,
            tool,
            arguments,
            result,
            error,
            ..
        } => McpToolCallContent {
            server: server.clone(),
            tool: tool.clone(),
            arguments: (!arguments.is_null()).then(|| arguments.clone()),
            result: result
                .as_ref()
                .and_then(|result| mcp_result(&result.content, result.structured_content.as_ref())),
            error: error.as_ref().map(|error| error.message.clone()),
            parent_item_id: None,
        }
        .into(),
        I::DynamicToolCall {
            tool,
            namespace,
            arguments,
            content_items,
            success,
            ..
        } => {
            let result = content_items.as_deref().map(dynamic_result);
            let error = match success {
                Some(false) => Some(
                    result
                        .as_ref()
                        .and_then(Value::as_str)
                        .map_or_else(|| "the tool reported a failure".to_owned(), str::to_owned),
                ),
                Some(true) | None => None,
            };
            DynamicToolCallContent {
                tool: qualified(namespace.as_deref(), tool),
                arguments: (!arguments.is_null()).then(|| arguments.clone()),
                result,
                error,
                parent_item_id: None,
            }
            .into()
        }
        I::CollabAgentToolCall {
            tool,
            prompt,
            agents_states,
            model,
            ..
        } => {
            let answers: Vec<&str> = agents_states
                .values()
                .filter_map(|state| state.message.as_deref())
                .collect();
            CollabAgentToolCallContent {
                tool: Some(tag(&to_json(tool))),
                agent: model.clone(),
                description: None,
                prompt: prompt.clone(),
                result: non_empty(&content::joined(answers)),
                parent_item_id: None,
            }
            .into()
        }
        I::SubAgentActivity {
            agent_path,
            kind,
            model,
            ..
        } => CollabAgentToolCallContent {
            tool: None,
            agent: model.clone(),
            description: Some(format!("{agent_path}: {}", tag(&to_json(kind)))),
            prompt: None,
            result: None,
            parent_item_id: None,
        }
        .into(),
        I::WebSearch { query, action, .. } => {
            let url = page_url(action.as_ref());
            WebSearchContent {
                query: if query.is_empty() {
                    url.clone().unwrap_or_default()
                } else {
                    query.clone()
                },
                url,
                results: None,
                parent_item_id: None,
            }
            .into()
        }
        I::ImageView { path, .. } => ImageViewContent {
            path: path.to_string(),
            parent_item_id: None,
        }
        .into(),
        I::Sleep { duration_ms, .. } => UnknownContent {
            kind: Some("sleep".to_owned()),
            text: Some(format!("sleeping {duration_ms} ms")),
            parent_item_id: None,
        }
        .into(),
        I::ImageGeneration {
            revised_prompt,
            saved_path,
            file_id,
            ..
        } => ImageGenerationContent {
            prompt: revised_prompt.clone(),
            path: saved_path.as_ref().map(|path| path.to_string()),
            // The image itself (inline data) stays in `raw`; its stored file is named.
            result: file_id.clone(),
            parent_item_id: None,
        }
        .into(),
        I::EnteredReviewMode { review, .. } => ReviewEnteredContent {
            review: non_empty(review),
            parent_item_id: None,
        }
        .into(),
        I::ExitedReviewMode { review, .. } => ReviewExitedContent {
            review: non_empty(review),
            parent_item_id: None,
        }
        .into(),
        I::ContextCompaction { .. } => ContextCompactionContent::default().into(),
    }
}

/// A proposed plan written as text.
pub fn plan(markdown: String) -> PlanContent {
    PlanContent {
        steps: Vec::new(),
        markdown: Some(markdown),
        explanation: None,
        parent_item_id: None,
    }
}

/// The person's message: its text parts joined, everything else an attachment.
fn user_message(inputs: &[codex::UserInput]) -> UserMessageContent {
    use codex::UserInput as U;
    let mut texts = Vec::new();
    let mut attachments = Vec::new();
    for input in inputs {
        let attachment = |kind, name: Option<&str>, path: Option<&str>, url: Option<&str>| ItemAttachment {
            kind,
            name: name.map(str::to_owned),
            path: path.map(str::to_owned),
            // Inline data is no address: it stays in `raw`.
            url: url.filter(|url| !url.starts_with("data:")).map(str::to_owned),
            mime_type: None,
        };
        match input {
            U::Text { text, .. } => texts.push(text.as_str()),
            U::Image { url, .. } => attachments.push(attachment(AttachmentKind::Image, None, None, url.as_deref())),
            U::LocalImage { path, .. } => {
                attachments.push(attachment(AttachmentKind::Image, file_name(path), Some(path), None));
            }
            U::Audio { url, .. } => attachments.push(attachment(AttachmentKind::Resource, None, None, url.as_deref())),
            U::LocalAudio { path } => {
                attachments.push(attachment(AttachmentKind::Resource, file_name(path), Some(path), None));
            }
            U::Skill { name, path } => {
                attachments.push(attachment(AttachmentKind::Resource, Some(name), Some(path), None));
            }
            U::Mention { name, path } => {
                attachments.push(attachment(AttachmentKind::File, Some(name), Some(path), None));
            }
        }
    }
    UserMessageContent {
        text: content::joined(texts),
        attachments: (!attachments.is_empty()).then_some(attachments),
        origin: None,
        parent_item_id: None,
    }
}

/// The last component of a path.
fn file_name(path: &str) -> Option<&str> {
    path.rsplit(['/', '\\']).next().filter(|name| !name.is_empty())
}

/// The files of a `fileChange` item (or of `item/fileChange/patchUpdated`).
pub fn file_change(changes: &[codex::FileUpdateChange]) -> FileChangeContent {
    FileChangeContent {
        changes: changes.iter().map(file_entry).collect(),
        output: None,
        parent_item_id: None,
    }
}

fn file_entry(change: &codex::FileUpdateChange) -> FileChangeEntry {
    let (kind, move_path) = change_kind(&change.kind);
    FileChangeEntry {
        path: change.path.clone(),
        kind,
        diff: non_empty(&change.diff),
        move_path,
    }
}

/// A tool named in its namespace (`echo.echo_text`).
fn qualified(namespace: Option<&str>, tool: &str) -> String {
    match namespace {
        Some(namespace) if !namespace.is_empty() => format!("{namespace}.{tool}"),
        Some(_) | None => tool.to_owned(),
    }
}

/// What a dynamic tool returned: its text when it returned only text, else its items as sent.
fn dynamic_result(items: &[codex::DynamicToolCallOutputContentItem]) -> Value {
    use codex::DynamicToolCallOutputContentItem as C;
    let texts: Option<Vec<&str>> = items
        .iter()
        .map(|item| match item {
            C::InputText { text } => Some(text.as_str()),
            C::InputImage { .. } | C::InputAudio { .. } => None,
        })
        .collect();
    match texts {
        Some(texts) => Value::String(content::joined(texts)),
        None => to_json(&items),
    }
}

/// What a function call returned to the model: its text, or its parts as sent.
fn function_output(output: &codex::FunctionCallOutputBody) -> Value {
    use codex::FunctionCallOutputContentItem as C;
    match output {
        codex::FunctionCallOutputBody::String(text) => Value::String(text.clone()),
        codex::FunctionCallOutputBody::Array(items) => {
            let texts: Option<Vec<&str>> = items
                .iter()
                .map(|item| match item {
                    C::InputText { text } => Some(text.as_str()),
                    C::InputImage { .. } | C::InputAudio { .. } | C::EncryptedContent { .. } => None,
                })
                .collect();
            match texts {
                Some(texts) => Value::String(content::joined(texts)),
                None => to_json(items),
            }
        }
    }
}

/// The name of a string enum value (`"spawnAgent"`).
fn tag(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_owned)
}
