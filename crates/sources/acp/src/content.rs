//! The typed content of ACP items (an item's `data`): a prompt's blocks as a user message, a
//! tool call's reports (merged) as the content of its item type. ACP's own fields stay in each
//! event's `raw`; what is read here is what every provider's item of that type says.
//!
//! A tool call says what it did in `rawInput`, `rawOutput` and `content` (text blocks, diffs,
//! terminals), in shapes each agent picks: claude-agent-acp sends the tool's text as
//! `rawOutput`, codex-acp Codex's event (`aggregated_output`, `exit_code`, `duration`), Cursor
//! `{exitCode, stdout, stderr}`, gemini only `content`.

use agentwire_acp::ContentBlock;
use agentwire_canonical::{
    AssistantMessageContent, AttachmentKind, CanonicalItemType, CollabAgentToolCallContent, CommandExecutionContent,
    ContextCompactionContent, DynamicToolCallContent, ErrorContent, FileChangeContent, FileChangeEntry, FileChangeKind,
    ImageGenerationContent, ImageViewContent, ItemAttachment, ItemContent, McpToolCallContent, PlanContent,
    ReasoningContent, ReviewEnteredContent, ReviewExitedContent, UnknownContent, UserMessageContent, WebSearchContent,
};
use serde_json::{Map, Value};

use super::tools;
use agentwire_core::content;

/// The kind of a run of message chunks: which message item it is, and its content's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TextKind {
    User,
    Assistant,
    Thought,
}

impl TextKind {
    pub(super) fn item_type(self) -> CanonicalItemType {
        match self {
            Self::User => CanonicalItemType::UserMessage,
            Self::Assistant => CanonicalItemType::AssistantMessage,
            Self::Thought => CanonicalItemType::Reasoning,
        }
    }

    pub(super) fn word(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Thought => "thought",
        }
    }
}

/// A message item's content: the text so far and, for the person's words, what came with it.
pub(super) fn message(kind: TextKind, text: &str, attachments: &[ItemAttachment]) -> ItemContent {
    match kind {
        TextKind::User => UserMessageContent {
            text: text.to_owned(),
            attachments: (!attachments.is_empty()).then(|| attachments.to_vec()),
            origin: None,
            parent_item_id: None,
        }
        .into(),
        TextKind::Assistant => AssistantMessageContent {
            text: text.to_owned(),
            parent_item_id: None,
        }
        .into(),
        TextKind::Thought => ReasoningContent {
            text: text.to_owned(),
            summary: None,
            parent_item_id: None,
        }
        .into(),
    }
}

/// The person's prompt: its text blocks joined, the other blocks its attachments.
pub(super) fn prompt(blocks: &[ContentBlock]) -> ItemContent {
    let text = content::joined(blocks.iter().filter_map(|block| match block {
        ContentBlock::Text { text, .. } => Some(text.as_str()),
        ContentBlock::Image { .. }
        | ContentBlock::Audio { .. }
        | ContentBlock::ResourceLink { .. }
        | ContentBlock::Resource { .. } => None,
    }));
    let attachments: Vec<ItemAttachment> = blocks.iter().filter_map(attachment).collect();
    message(TextKind::User, &text, &attachments)
}

/// What a block other than text is, as an attachment of a message (`None` for text). A
/// `file://` URI is a file the person pointed at; any other URI a resource.
pub(super) fn attachment(block: &ContentBlock) -> Option<ItemAttachment> {
    let (kind, name, uri, mime_type) = match block {
        ContentBlock::Text { .. } => return None,
        ContentBlock::Image { uri, mime_type, .. } => {
            (AttachmentKind::Image, None, uri.clone(), Some(mime_type.clone()))
        }
        ContentBlock::Audio { mime_type, .. } => (AttachmentKind::Resource, None, None, Some(mime_type.clone())),
        ContentBlock::ResourceLink {
            name, uri, mime_type, ..
        } => (
            AttachmentKind::Resource,
            Some(name.clone()),
            Some(uri.clone()),
            mime_type.clone(),
        ),
        // Text or binary contents, both with a URI.
        ContentBlock::Resource { resource, .. } => {
            let resource = serde_json::to_value(resource).unwrap_or(Value::Null);
            let member = |key| resource.get(key).and_then(Value::as_str).map(str::to_owned);
            (AttachmentKind::Resource, None, member("uri"), member("mimeType"))
        }
    };
    Some(file_or_resource(ItemAttachment {
        kind,
        name,
        path: None,
        url: uri,
        mime_type,
    }))
}

/// A resource whose URI is a local file is that file (its path instead of the URI).
fn file_or_resource(mut attachment: ItemAttachment) -> ItemAttachment {
    let path = attachment
        .url
        .as_deref()
        .and_then(|url| url.strip_prefix("file://"))
        .map(str::to_owned);
    if let Some(path) = path {
        if attachment.kind == AttachmentKind::Resource {
            attachment.kind = AttachmentKind::File;
        }
        attachment.path = Some(path);
        attachment.url = None;
    }
    attachment
}

/// A tool call's content as its item type reads it: `fields` are its reports merged (ACP's
/// names), `streamed` the text delivered as it ran (a terminal's output, a summary's chunks).
pub(super) fn tool(item_type: CanonicalItemType, fields: &Map<String, Value>, streamed: &str) -> ItemContent {
    use CanonicalItemType as T;
    let said = || result_text(fields).unwrap_or_default();
    match item_type {
        T::CommandExecution => command(fields, streamed).into(),
        T::FileChange => file_change(fields).into(),
        T::McpToolCall => mcp(fields).into(),
        T::WebSearch => web_search(fields).into(),
        T::CollabAgentToolCall => collab(fields).into(),
        T::Plan => plan(fields).into(),
        T::ImageGeneration => ImageGenerationContent {
            prompt: text(fields, "description"),
            path: text(fields, "filePath").or_else(|| {
                let outcome = fields.get("outcome")?.get("filePath")?.as_str()?;
                Some(outcome.to_owned())
            }),
            result: result_text(fields),
            parent_item_id: None,
        }
        .into(),
        T::ContextCompaction => ContextCompactionContent {
            summary: fields
                .get("summary")
                .and_then(text_of)
                .or_else(|| (!streamed.is_empty()).then(|| streamed.to_owned())),
            trigger: None,
            parent_item_id: None,
        }
        .into(),
        T::Reasoning => ReasoningContent {
            text: said(),
            summary: None,
            parent_item_id: None,
        }
        .into(),
        T::DynamicToolCall => dynamic(fields).into(),
        // Types no tool call is given; read as text should one be.
        T::UserMessage => message(TextKind::User, &said(), &[]),
        T::AssistantMessage => message(TextKind::Assistant, &said(), &[]),
        T::ImageView => ImageViewContent {
            path: paths(fields).into_iter().next().unwrap_or_default(),
            parent_item_id: None,
        }
        .into(),
        T::ReviewEntered => ReviewEnteredContent {
            review: result_text(fields),
            parent_item_id: None,
        }
        .into(),
        T::ReviewExited => ReviewExitedContent {
            review: result_text(fields),
            parent_item_id: None,
        }
        .into(),
        T::Error => ErrorContent {
            message: said(),
            parent_item_id: None,
        }
        .into(),
        T::Unknown => UnknownContent {
            kind: text(fields, "kind"),
            text: result_text(fields),
            parent_item_id: None,
        }
        .into(),
    }
}

/// The title a person reads for a tool call: a command as it reads (not ACP's placeholder
/// `Terminal`), the title as sent without Markdown backticks, a bare tool name (`Write`) with
/// the file it changes or what it asks (an MCP tool by its server), a file read as
/// `Read <file>`; `None` when the agent sent none.
pub(super) fn tool_title(item_type: CanonicalItemType, fields: &Map<String, Value>) -> Option<String> {
    if item_type == CanonicalItemType::CommandExecution && input(fields, "command").is_some() {
        return Some(command(fields, "").command);
    }
    let sent = title(fields)?.replace('`', "");
    let bare = tools::tool_name(fields) == Some(sent.as_str());
    let read = fields.get("kind").and_then(Value::as_str) == Some("read") && !sent.starts_with("Read");
    if let (true, Some((server, tool))) = (bare, tools::mcp_tool(fields)) {
        return Some(format!("Tool: {server}/{tool}"));
    }
    Some(match paths(fields).first() {
        Some(path) if bare => format!("{sent} {path}"),
        _ if read => format!("Read {sent}"),
        _ if bare => described(fields).unwrap_or_else(|| humanized(&sent)),
        _ => sent,
    })
}

/// A tool call by what its input asks: a query searched, a URL fetched.
fn described(fields: &Map<String, Value>) -> Option<String> {
    if let Some(query) = input(fields, "query").and_then(Value::as_str) {
        return Some(format!("Search: {query}"));
    }
    let url = input(fields, "url").and_then(Value::as_str)?;
    Some(format!("Fetch {url}"))
}

/// A tool's name as words: `TodoWrite` is `Todo write`, `apply_patch` is `Apply patch`.
fn humanized(name: &str) -> String {
    let mut words = String::new();
    for (index, c) in name.chars().enumerate() {
        if c == '_' || c == '-' {
            words.push(' ');
        } else if c.is_uppercase() && index > 0 && !words.ends_with(' ') {
            words.push(' ');
            words.extend(c.to_lowercase());
        } else if index == 0 {
            words.extend(c.to_uppercase());
        } else {
            words.push(c);
        }
    }
    words
}

/// A shell command: `rawInput.command` (a line, or codex-acp's argv), else the title.
fn command(fields: &Map<String, Value>, streamed: &str) -> CommandExecutionContent {
    let output = fields.get("rawOutput").filter(|output| !output.is_null());
    let command = match input(fields, "command") {
        Some(Value::String(line)) => content::shell_command(line),
        Some(Value::Array(argv)) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            content::shell_argv(&words)
        }
        Some(_) => String::new(),
        // The title stands for the command only when the agent sends no input at all (gemini):
        // claude-agent-acp's first report has an empty input and the placeholder `Terminal`.
        None if fields.get("rawInput").is_some_and(|input| !input.is_null()) => String::new(),
        None => title(fields).unwrap_or_default(),
    };
    let exit_code = output
        .and_then(|output| output.get("exit_code").or_else(|| output.get("exitCode")))
        .or_else(|| fields.get("_meta")?.get("terminal_exit")?.get("exit_code"))
        .and_then(Value::as_i64);
    let duration_ms = output.and_then(|output| output.get("duration")).and_then(|duration| {
        let secs = duration.get("secs")?.as_i64()?;
        let nanos = duration.get("nanos")?.as_i64()?;
        Some(secs * 1000 + nanos / 1_000_000)
    });
    // What the terminal streamed is the output itself; a text result may wrap it
    // ("Exited with code 0.Final output: ...").
    let structured = output.filter(|output| output.is_object()).and_then(command_output);
    let said = structured
        .or_else(|| (!streamed.is_empty()).then(|| streamed.to_owned()))
        .or_else(|| output.and_then(command_output));
    CommandExecutionContent {
        command,
        cwd: input(fields, "cwd").and_then(Value::as_str).map(str::to_owned),
        exit_code,
        output: said,
        duration_ms,
        description: input(fields, "description").and_then(Value::as_str).map(str::to_owned),
        parent_item_id: None,
    }
}

/// A command's output as the agent reported it: its text, codex-acp's `aggregated_output`, or
/// Cursor's `stdout` and `stderr`.
fn command_output(output: &Value) -> Option<String> {
    if let Some(text) = text_of(output) {
        return Some(text);
    }
    if let Some(text) = ["aggregated_output", "formatted_output", "output"]
        .iter()
        .find_map(|key| output.get(key).and_then(Value::as_str))
    {
        return Some(text.to_owned());
    }
    let stdout = output.get("stdout").and_then(Value::as_str)?;
    let stderr = output.get("stderr").and_then(Value::as_str).unwrap_or_default();
    Some(format!("{stdout}{stderr}"))
}

/// File edits: one entry per diff the tool call shows, else the file it names.
fn file_change(fields: &Map<String, Value>) -> FileChangeContent {
    let kind = fields.get("kind").and_then(Value::as_str);
    let diffs: Vec<FileChangeEntry> = blocks(fields)
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("diff"))
        .filter_map(|block| {
            let path = block.get("path").and_then(Value::as_str)?.to_owned();
            let new = block.get("newText").and_then(Value::as_str).unwrap_or_default();
            let (kind, diff) = match (kind, block.get("oldText").and_then(Value::as_str)) {
                (Some("delete"), old) => (FileChangeKind::Delete, old.map(|old| content::unified_diff(old, ""))),
                (_, None) => (FileChangeKind::Add, Some(new.to_owned())),
                (_, Some(old)) => (FileChangeKind::Update, Some(content::unified_diff(old, new))),
            };
            Some(FileChangeEntry {
                path,
                kind,
                diff,
                move_path: None,
            })
        })
        .collect();
    let changes = if diffs.is_empty() {
        // No diff yet (a first report, gemini's `edit`): the file it names, a move's destination.
        let paths = paths(fields);
        let entry = |path: &String| FileChangeEntry {
            path: path.clone(),
            kind: if kind == Some("delete") {
                FileChangeKind::Delete
            } else {
                FileChangeKind::Update
            },
            diff: None,
            move_path: paths.get(1).filter(|_| kind == Some("move")).cloned(),
        };
        paths.first().map(entry).into_iter().collect()
    } else {
        diffs
    };
    FileChangeContent {
        changes,
        output: result_text(fields),
        parent_item_id: None,
    }
}

/// A call to a tool of an MCP server: codex-acp's `rawInput` is Codex's invocation
/// `{server, tool, arguments}`; claude-agent-acp names the tool `mcp__<server>__<tool>`.
fn mcp(fields: &Map<String, Value>) -> McpToolCallContent {
    let (server, tool) = tools::mcp_tool(fields).unwrap_or_default();
    let arguments = match input(fields, "server") {
        Some(_) => input(fields, "arguments").cloned(),
        None => fields.get("rawInput").cloned(),
    };
    let (result, error) = outcome(fields);
    McpToolCallContent {
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments,
        result,
        error,
        parent_item_id: None,
    }
}

/// A search or a fetch: the query (or the pattern, or the URL), the URL fetched, what came back.
fn web_search(fields: &Map<String, Value>) -> WebSearchContent {
    let url = input(fields, "url").and_then(Value::as_str).map(str::to_owned);
    let query = ["query", "pattern", "url"]
        .iter()
        .find_map(|key| input(fields, key).and_then(Value::as_str))
        .map(str::to_owned)
        .or_else(|| title(fields))
        .unwrap_or_default();
    WebSearchContent {
        query,
        url,
        results: result_text(fields),
        parent_item_id: None,
    }
}

/// A subagent's task: its description and prompt (Claude's Task input, Cursor's `cursor/task`),
/// the answer once it ended.
fn collab(fields: &Map<String, Value>) -> CollabAgentToolCallContent {
    let field = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| input(fields, key).or_else(|| fields.get(*key)).and_then(Value::as_str))
            .map(str::to_owned)
    };
    let ended = matches!(
        fields.get("status").and_then(Value::as_str),
        Some("completed" | "failed")
    );
    CollabAgentToolCallContent {
        tool: tools::tool_name(fields).map(str::to_owned),
        agent: field(&["subagent_type", "subagentType"]),
        description: field(&["description"]),
        prompt: field(&["prompt"]),
        result: fields
            .get("rawOutput")
            .and_then(text_of)
            .or_else(|| ended.then(|| content_text(fields)).flatten()),
        parent_item_id: None,
    }
}

/// A plan the agent proposes: Cursor's `cursor/create_plan` (its todos, text and overview), or
/// the plan of claude-agent-acp's `ExitPlanMode` (`rawInput.plan`).
fn plan(fields: &Map<String, Value>) -> PlanContent {
    let steps = fields
        .get("todos")
        .and_then(|todos| serde_json::from_value::<Vec<agentwire_acp::CursorTodo>>(todos.clone()).ok())
        .map(|todos| todos.iter().map(tools::todo_step).collect())
        .unwrap_or_default();
    PlanContent {
        steps,
        markdown: tools::plan_text(fields),
        explanation: text(fields, "overview"),
        parent_item_id: None,
    }
}

/// Any other tool: its name, its input, what it returned or the error it failed with.
fn dynamic(fields: &Map<String, Value>) -> DynamicToolCallContent {
    let read = fields.get("kind").and_then(Value::as_str) == Some("read");
    let tool = tools::tool_name(fields)
        .map(str::to_owned)
        .or_else(|| read.then(|| "Read".to_owned()))
        .or_else(|| title(fields))
        .unwrap_or_else(|| "tool".to_owned());
    let arguments = fields.get("rawInput").cloned().or_else(|| {
        let paths = paths(fields);
        let [path] = paths.as_slice() else {
            return None;
        };
        Some(serde_json::json!({ "path": path }))
    });
    let (result, error) = outcome(fields);
    DynamicToolCallContent {
        tool,
        arguments,
        result,
        error,
        parent_item_id: None,
    }
}

/// What a tool returned, or the error it failed with: its text when it returned only text,
/// else its `rawOutput` as sent.
fn outcome(fields: &Map<String, Value>) -> (Option<Value>, Option<String>) {
    let failed = fields.get("status").and_then(Value::as_str) == Some("failed");
    let result = match (fields.get("rawOutput"), result_text(fields)) {
        (_, Some(text)) => Some(Value::String(text)),
        (Some(output), None) if !output.is_null() => Some(output.clone()),
        (Some(_) | None, None) => None,
    };
    if !failed {
        return (result, None);
    }
    let said = |key| result.as_ref()?.get(key)?.as_str().map(str::to_owned);
    let error = match &result {
        Some(Value::String(text)) => text.clone(),
        Some(other) => said("error")
            .or_else(|| said("message"))
            .unwrap_or_else(|| other.to_string()),
        None => "the tool call failed".to_owned(),
    };
    (None, Some(error))
}

/// The text a tool call returned: its `rawOutput` when that is text, else its text content.
fn result_text(fields: &Map<String, Value>) -> Option<String> {
    fields
        .get("rawOutput")
        .and_then(text_of)
        .or_else(|| content_text(fields))
}

/// The joined text of a tool call's `content` blocks of text.
fn content_text(fields: &Map<String, Value>) -> Option<String> {
    let texts: Vec<&str> = blocks(fields)
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("content"))
        .filter_map(|block| block.get("content")?.get("text")?.as_str())
        .collect();
    (!texts.is_empty()).then(|| content::joined(texts))
}

/// A value that is text: a string, or content blocks (MCP's, ACP's) that are all text, joined;
/// a result `{content: [...]}` (MCP's `CallToolResult`) by its content.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) if !blocks.is_empty() => {
            let texts: Option<Vec<&str>> = blocks
                .iter()
                .map(|block| match block.get("type").and_then(Value::as_str) {
                    Some("text") => block.get("text").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            texts.map(content::joined)
        }
        Value::Object(result) => result.get("content").and_then(text_of),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) => None,
    }
}

/// The entries of a tool call's `content`.
fn blocks(fields: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    fields.get("content").and_then(Value::as_array).into_iter().flatten()
}

/// The files a tool call names: its diffs', its input's path, its locations.
pub(super) fn paths(fields: &Map<String, Value>) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let diffs = blocks(fields)
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("diff"))
        .filter_map(|block| block.get("path").and_then(Value::as_str));
    let input = [
        "file_path",
        "path",
        "abs_path",
        "absolute_path",
        "destination",
        "new_path",
    ]
    .into_iter()
    .filter_map(|key| input(fields, key).and_then(Value::as_str));
    let locations = fields
        .get("locations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|location| location.get("path").and_then(Value::as_str));
    for path in diffs.chain(input).chain(locations) {
        if !paths.iter().any(|known| known == path) {
            paths.push(path.to_owned());
        }
    }
    paths
}

/// A member of the tool call's `rawInput`.
fn input<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    fields.get("rawInput")?.get(key).filter(|value| !value.is_null())
}

/// A text member of the merged fields.
fn text(fields: &Map<String, Value>, key: &str) -> Option<String> {
    fields.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The tool call's title as sent.
fn title(fields: &Map<String, Value>) -> Option<String> {
    text(fields, "title")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_bare_tool_name_is_no_title() {
        let claude = |tool: &str, input: Value| {
            fields(json!({"title": tool, "rawInput": input, "_meta": {"claudeCode": {"toolName": tool}}}))
        };
        let title = |fields: &Map<String, Value>| tool_title(CanonicalItemType::DynamicToolCall, fields);
        assert_eq!(title(&claude("TodoWrite", json!({}))).as_deref(), Some("Todo write"));
        assert_eq!(
            title(&claude("ToolSearch", json!({"query": "notebook"}))).as_deref(),
            Some("Search: notebook")
        );
        assert_eq!(
            title(&claude("Write", json!({"file_path": "hello.txt"}))).as_deref(),
            Some("Write hello.txt")
        );
        assert_eq!(humanized("apply_patch"), "Apply patch");
        let gemini = fields(json!({"title": "notes.txt", "kind": "read"}));
        assert_eq!(title(&gemini).as_deref(), Some("Read notes.txt"));
        let cursor = fields(json!({"title": "`npm test`", "rawInput": {"command": "npm test"}}));
        assert_eq!(
            tool_title(CanonicalItemType::CommandExecution, &cursor).as_deref(),
            Some("npm test")
        );
    }

    #[test]
    fn a_command_is_its_input_and_its_output_what_the_terminal_showed() {
        let claude = fields(json!({"title": "Terminal", "rawInput": {}}));
        assert_eq!(command(&claude, "").command, "");
        let old_adapter = fields(json!({
            "rawInput": {"command": "bash -lc 'echo created'"},
            "rawOutput": [{"type": "text", "text": "Exited with code 0.Final output:\n\ncreated\n"}],
        }));
        let content = command(&old_adapter, "created\n");
        assert_eq!(
            (content.command.as_str(), content.output.as_deref()),
            ("echo created", Some("created\n"))
        );
    }

    #[test]
    fn a_diff_without_old_text_adds_the_file() {
        let edit = fields(json!({
            "kind": "edit",
            "content": [
                {"type": "diff", "path": "a.txt", "oldText": null, "newText": "new\n"},
                {"type": "diff", "path": "b.txt", "oldText": "x\n", "newText": "y\n"},
            ],
        }));
        let changes = file_change(&edit).changes;
        assert_eq!(
            changes
                .iter()
                .map(|c| (c.path.as_str(), c.kind, c.diff.as_deref()))
                .collect::<Vec<_>>(),
            [
                ("a.txt", FileChangeKind::Add, Some("new\n")),
                ("b.txt", FileChangeKind::Update, Some("@@ -1 +1 @@\n-x\n+y\n")),
            ]
        );
    }
}
