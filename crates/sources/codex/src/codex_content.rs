//! What the three Codex sources (app-server, exec, rollout) share to build an item's content
//! and title: Codex names files, tools and tool results the same way in each of them, so a
//! change to `hello.txt` or an MCP call reads the same whichever way the session was recorded.

use agentwire_canonical::FileChangeKind;
// Only `empty` builds these, and only the app-server and rollout sources call it.
#[cfg(any(feature = "app-server", feature = "rollout"))]
use agentwire_canonical::{
    AssistantMessageContent, CanonicalItemType, CollabAgentToolCallContent, CommandExecutionContent,
    ContextCompactionContent, DynamicToolCallContent, ErrorContent, FileChangeContent, ImageGenerationContent,
    ImageViewContent, ItemContent, McpToolCallContent, PlanContent, ReasoningContent, ReviewEnteredContent,
    ReviewExitedContent, UnknownContent, UserMessageContent, WebSearchContent,
};
use serde_json::Value;

use agentwire_core::content;

/// The title of a change to files: `Add hello.txt`, `Edit src/main.rs`, `Delete old.txt` for one
/// file (an absolute path by its file name: the full path is in the content), `Edit 3 files`
/// for more (`Edit files` while it names none yet).
pub fn file_change_title<'a>(mut changes: impl ExactSizeIterator<Item = (&'a str, FileChangeKind)>) -> String {
    let count = changes.len();
    match changes.next() {
        Some((path, kind)) if count == 1 => format!("{} {}", verb(kind), shown_path(path)),
        Some(_) => format!("Edit {count} files"),
        None => "Edit files".to_owned(),
    }
}

/// A path as a title shows it: a relative one as written, an absolute one by its file name.
fn shown_path(path: &str) -> &str {
    if path.starts_with('/') {
        path.rsplit('/').find(|name| !name.is_empty()).unwrap_or(path)
    } else {
        path
    }
}

/// What a change of `kind` does to its file, as a title's verb.
fn verb(kind: FileChangeKind) -> &'static str {
    match kind {
        FileChangeKind::Add => "Add",
        FileChangeKind::Delete => "Delete",
        FileChangeKind::Update => "Edit",
    }
}

/// The title of a tool call: `Call server.tool`.
pub fn call_title(namespace: Option<&str>, tool: &str) -> String {
    match namespace {
        Some(namespace) if !namespace.is_empty() => format!("Call {namespace}.{tool}"),
        Some(_) | None => format!("Call {tool}"),
    }
}

/// The title of a web search: `Search: query`, or `Fetch <url>` for a page opened.
pub fn search_title(query: &str, url: Option<&str>) -> String {
    match url {
        Some(url) if query.is_empty() || query == url => format!("Fetch {url}"),
        Some(_) | None => format!("Search: {query}"),
    }
}

/// What an MCP tool returned, as content's `result`: its text when every part of its content is
/// text (the parts joined), else the content as sent; its structured content when it sent no
/// content at all.
pub fn mcp_result(parts: &[Value], structured: Option<&Value>) -> Option<Value> {
    if parts.is_empty() {
        return structured.cloned();
    }
    match texts(parts) {
        Some(text) => Some(Value::String(text)),
        None => Some(Value::Array(parts.to_vec())),
    }
}

/// The parts' text joined, when every part is a `{"type": "text", "text": ...}` (or an
/// `input_text`/`output_text`) part.
pub fn texts(parts: &[Value]) -> Option<String> {
    let texts: Option<Vec<&str>> = parts
        .iter()
        .map(|part| {
            let kind = part.get("type").and_then(Value::as_str)?;
            matches!(kind, "text" | "input_text" | "output_text" | "inputText")
                .then(|| part.get("text").and_then(Value::as_str))
                .flatten()
        })
        .collect();
    texts.map(content::joined)
}

/// A text that is absent when empty (an output not yet produced).
pub fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

/// The content of an item of `item_type` that Codex spoke of before it said what the item is (a
/// patch streamed before its `fileChange` started): its type's fields, all empty, until the
/// item itself arrives.
#[cfg(any(feature = "app-server", feature = "rollout"))]
pub fn empty(item_type: CanonicalItemType) -> ItemContent {
    use CanonicalItemType as T;
    let text = String::new;
    match item_type {
        T::UserMessage => UserMessageContent {
            text: text(),
            attachments: None,
            origin: None,
            parent_item_id: None,
        }
        .into(),
        T::AssistantMessage => AssistantMessageContent {
            text: text(),
            parent_item_id: None,
        }
        .into(),
        T::Reasoning => ReasoningContent {
            text: text(),
            summary: None,
            parent_item_id: None,
        }
        .into(),
        T::Plan => PlanContent {
            steps: Vec::new(),
            markdown: None,
            explanation: None,
            parent_item_id: None,
        }
        .into(),
        T::CommandExecution => CommandExecutionContent {
            command: text(),
            cwd: None,
            exit_code: None,
            output: None,
            duration_ms: None,
            description: None,
            parent_item_id: None,
        }
        .into(),
        T::FileChange => FileChangeContent {
            changes: Vec::new(),
            output: None,
            parent_item_id: None,
        }
        .into(),
        T::McpToolCall => McpToolCallContent {
            server: text(),
            tool: text(),
            arguments: None,
            result: None,
            error: None,
            parent_item_id: None,
        }
        .into(),
        T::DynamicToolCall => DynamicToolCallContent {
            tool: text(),
            arguments: None,
            result: None,
            error: None,
            parent_item_id: None,
        }
        .into(),
        T::CollabAgentToolCall => CollabAgentToolCallContent::default().into(),
        T::WebSearch => WebSearchContent {
            query: text(),
            url: None,
            results: None,
            parent_item_id: None,
        }
        .into(),
        T::ImageView => ImageViewContent {
            path: text(),
            parent_item_id: None,
        }
        .into(),
        T::ReviewEntered => ReviewEnteredContent::default().into(),
        T::ReviewExited => ReviewExitedContent::default().into(),
        T::ContextCompaction => ContextCompactionContent::default().into(),
        T::Error => ErrorContent {
            message: text(),
            parent_item_id: None,
        }
        .into(),
        T::Unknown => UnknownContent::default().into(),
        T::ImageGeneration => ImageGenerationContent::default().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn titles_read_as_actions() {
        assert_eq!(
            file_change_title([("hello.txt", FileChangeKind::Add)].into_iter()),
            "Add hello.txt"
        );
        assert_eq!(
            file_change_title([("a", FileChangeKind::Update), ("b", FileChangeKind::Delete)].into_iter()),
            "Edit 2 files"
        );
        assert_eq!(
            file_change_title([("/home/dev/project/README.md", FileChangeKind::Update)].into_iter()),
            "Edit README.md"
        );
        assert_eq!(call_title(Some("echo"), "echo_text"), "Call echo.echo_text");
        assert_eq!(search_title("rust", None), "Search: rust");
        assert_eq!(search_title("", Some("https://a.b")), "Fetch https://a.b");
    }

    #[test]
    fn a_text_only_result_is_its_text() {
        let parts = [
            json!({"type": "text", "text": "a"}),
            json!({"type": "text", "text": "b"}),
        ];
        assert_eq!(mcp_result(&parts, None), Some(json!("a\n\nb")));
        let mixed = [
            json!({"type": "text", "text": "a"}),
            json!({"type": "image", "data": "x"}),
        ];
        assert_eq!(mcp_result(&mixed, None), Some(Value::Array(mixed.to_vec())));
        assert_eq!(mcp_result(&[], Some(&json!({"k": 1}))), Some(json!({"k": 1})));
    }
}
