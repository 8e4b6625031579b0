//! What every reader of Claude Code's output shares, whichever way the output came (the
//! stream-json and control protocol of `claude`, the session files of `claude_session`): the
//! tool-name table (which canonical item a tool call is, which request type a permission request
//! for it opens, how its item is titled), what each content block of a message carries (both
//! sources carry the SDK's messages, `agentwire_claude`'s types), the text the CLI writes in no
//! one's name, and the ids agentwire synthesizes where Claude has none.

mod content;
mod title;
mod tools;

use std::borrow::Cow;
use std::collections::BTreeMap;

use agentwire_canonical::{
    AssistantMessageContent, AttachmentKind, CanonicalItemType, ContextCompactionContent, ItemAttachment, ItemContent,
    ItemStatus, MessageOrigin, ReasoningContent, RuntimeItemId, UserMessageContent,
};
use agentwire_claude::{BetaContentBlock, ContentBlockParam, ToolResultBlockParamContent, ToolResultContentBlockParam};
use serde_json::Value;

use agentwire_core::ledger::OpenItemFace;

pub use content::{ToolOutcome, tool_content};
pub use title::tool_title;
pub use tools::{ToolKind, builtin, subject_key, task_status, todo_plan, tool_kind};

/// How the tool result of a call the CLI's permission rules refused reads (0.2.x reports the
/// denial only later, in the `result`): "Claude requested permissions to <do it>, but you
/// haven't granted it yet."
pub const CLI_DENIAL: (&str, &str) = ("Claude requested permissions to ", "but you haven't granted it yet");

/// The model name of the messages the CLI writes itself (an API error it reports as the
/// assistant's answer).
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// The note the CLI injects as a user message when the person stops a turn.
pub const INTERRUPT_NOTE: &str = "[Request interrupted by user";

/// How user-message text the CLI injects itself begins: the interrupt note and the echoes of
/// local commands (`/model`, ...). Nobody typed it, so it is not shown as a prompt.
pub const CLI_NOTES: [&str; 6] = [
    INTERRUPT_NOTE,
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<command-name>",
    "<command-message>",
];

/// How the tool result of a call the CLI's sandbox of working folders refused reads (0.2.x
/// reports the denial only later, in the `result`): "<command> in '<path>' was blocked. For
/// security, Claude Code may only <create or modify | remove> files in the allowed working
/// directories ..." (`tests/corpus/claude/denied_default.jsonl`, `nopartial_denied_touch.jsonl`).
pub const CLI_BLOCKED: &str = " was blocked. For security, Claude Code may only ";

/// Whether a tool result's text is the CLI's own refusal (its permission rules or its working
/// folders denied the call): the call was declined, not failed.
pub fn cli_denial(text: &str) -> bool {
    (text.starts_with(CLI_DENIAL.0) && text.contains(CLI_DENIAL.1)) || text.contains(CLI_BLOCKED)
}

/// A tool item's face: titled by what it does to what ("Read notes.txt"), its data the call's
/// content before its result; `parent` the subagent call whose work it is.
pub fn tool_face(name: &str, kind: ToolKind, input: &Value, parent: Option<&RuntimeItemId>) -> OpenItemFace {
    OpenItemFace {
        item_type: kind.item_type(),
        title: Some(tool_title(name, input)),
        data: Some(agentwire_core::content::data(tool_content(
            name, kind, input, None, parent,
        ))),
    }
}

/// How a tool item completes once its result is in: its face with the call's final content,
/// and its status (a failed call the person, the permission rules or an interrupt `refused`
/// was declined, not failed).
pub fn tool_outcome(
    name: &str,
    kind: ToolKind,
    input: &Value,
    outcome: &ToolOutcome<'_>,
    refused: bool,
    parent: Option<&RuntimeItemId>,
) -> (OpenItemFace, ItemStatus) {
    let face = OpenItemFace {
        item_type: kind.item_type(),
        title: Some(tool_title(name, input)),
        data: Some(agentwire_core::content::data(tool_content(
            name,
            kind,
            input,
            Some(outcome),
            parent,
        ))),
    };
    let status = match (outcome.failed, refused) {
        (false, _) => ItemStatus::Completed,
        (true, true) => ItemStatus::Declined,
        (true, false) => ItemStatus::Failed,
    };
    (face, status)
}

/// The content of a text item (what the model said or thought, a compaction's summary) of the
/// type `item_type`, as it stands with `text`.
pub fn text_content(item_type: CanonicalItemType, text: &str, parent: Option<&RuntimeItemId>) -> ItemContent {
    let parent_item_id = parent.cloned();
    match item_type {
        CanonicalItemType::Reasoning => ReasoningContent {
            text: text.to_owned(),
            summary: None,
            parent_item_id,
        }
        .into(),
        CanonicalItemType::ContextCompaction => ContextCompactionContent {
            summary: Some(text.to_owned()).filter(|text| !text.is_empty()),
            trigger: None,
            parent_item_id,
        }
        .into(),
        _ => AssistantMessageContent {
            text: text.to_owned(),
            parent_item_id,
        }
        .into(),
    }
}

/// A user message's content: its text parts joined, its images and documents as attachments;
/// `origin` who wrote it when not the person, `parent` the subagent call it was sent to.
pub fn user_content(
    blocks: &[ContentBlockParam],
    origin: Option<MessageOrigin>,
    parent: Option<&RuntimeItemId>,
) -> UserMessageContent {
    let parts = blocks.iter().filter_map(|block| match block {
        ContentBlockParam::Text(text) => Some(text.text.as_str()),
        ContentBlockParam::Image(_)
        | ContentBlockParam::Document(_)
        | ContentBlockParam::SearchResult(_)
        | ContentBlockParam::Thinking(_)
        | ContentBlockParam::RedactedThinking(_)
        | ContentBlockParam::ToolUse(_)
        | ContentBlockParam::ToolResult(_)
        | ContentBlockParam::ServerToolUse(_)
        | ContentBlockParam::WebSearchToolResult(_) => None,
    });
    UserMessageContent {
        text: agentwire_core::content::joined(parts),
        attachments: attachments(blocks),
        origin,
        parent_item_id: parent.cloned(),
    }
}

/// What a user message sends besides text, in order: its images and documents (`None` when
/// nothing).
pub fn attachments(blocks: &[ContentBlockParam]) -> Option<Vec<ItemAttachment>> {
    let attachment = |kind, name: Option<&String>| ItemAttachment {
        kind,
        name: name.cloned(),
        path: None,
        url: None,
        mime_type: None,
    };
    let attached: Vec<ItemAttachment> = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlockParam::Image(_) => Some(attachment(AttachmentKind::Image, None)),
            ContentBlockParam::Document(document) => Some(attachment(AttachmentKind::File, document.title.as_ref())),
            ContentBlockParam::Text(_)
            | ContentBlockParam::SearchResult(_)
            | ContentBlockParam::Thinking(_)
            | ContentBlockParam::RedactedThinking(_)
            | ContentBlockParam::ToolUse(_)
            | ContentBlockParam::ToolResult(_)
            | ContentBlockParam::ServerToolUse(_)
            | ContentBlockParam::WebSearchToolResult(_) => None,
        })
        .collect();
    Some(attached).filter(|attached| !attached.is_empty())
}

/// A user message's content that is only `text`.
pub fn user_text_content(
    text: &str,
    origin: Option<MessageOrigin>,
    parent: Option<&RuntimeItemId>,
) -> UserMessageContent {
    UserMessageContent {
        text: text.to_owned(),
        attachments: None,
        origin,
        parent_item_id: parent.cloned(),
    }
}

/// The item key of each content block of the model's messages: `<message id>:<index>`, counted
/// per message id across the lines that carry it (the CLI writes a message's blocks one line
/// each, every line under the same id).
#[derive(Debug, Default)]
pub struct BlockKeys {
    seen: BTreeMap<String, usize>,
}

impl BlockKeys {
    /// The key of the next block of message `id`.
    pub fn next(&mut self, id: &str) -> String {
        let seen = self.seen.entry(id.to_string()).or_default();
        let key = format!("{id}:{seen}");
        *seen += 1;
        key
    }

    /// Forgets the messages so far (a turn ended: its message ids do not come back).
    pub fn clear(&mut self) {
        self.seen.clear();
    }
}

/// What one block of a user message carries.
pub enum UserBlock<'a> {
    /// A tool's result, which settles the call `tool_use_id`: its text (the text parts of its
    /// content, one per line) and its content as sent.
    ToolResult {
        tool_use_id: &'a str,
        text: String,
        failed: bool,
        content: &'a Option<ToolResultBlockParamContent>,
    },
    /// Text: a person's prompt, or a note the CLI wrote in no one's name.
    Text(&'a str),
    /// A block no canonical item is drawn from (an image or a document beside a prompt, blocks
    /// only the model writes).
    Other,
}

/// What `block` of a user message carries.
pub fn user_block(block: &ContentBlockParam) -> UserBlock<'_> {
    match block {
        ContentBlockParam::ToolResult(result) => {
            let text = match &result.content {
                Some(ToolResultBlockParamContent::String(text)) => text.clone(),
                Some(ToolResultBlockParamContent::Array(parts)) => parts
                    .iter()
                    .filter_map(|part| match part {
                        ToolResultContentBlockParam::Text(text) => Some(text.text.as_str()),
                        ToolResultContentBlockParam::Image(_)
                        | ToolResultContentBlockParam::SearchResult(_)
                        | ToolResultContentBlockParam::Document(_)
                        | ToolResultContentBlockParam::ToolReference(_) => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                None => String::new(),
            };
            UserBlock::ToolResult {
                tool_use_id: &result.tool_use_id,
                text,
                failed: result.is_error.unwrap_or(false),
                content: &result.content,
            }
        }
        ContentBlockParam::Text(text) => UserBlock::Text(&text.text),
        ContentBlockParam::Image(_)
        | ContentBlockParam::Document(_)
        | ContentBlockParam::SearchResult(_)
        | ContentBlockParam::Thinking(_)
        | ContentBlockParam::RedactedThinking(_)
        | ContentBlockParam::ToolUse(_)
        | ContentBlockParam::ServerToolUse(_)
        | ContentBlockParam::WebSearchToolResult(_) => UserBlock::Other,
    }
}

/// What one block of an assistant message becomes.
pub enum AssistantBlock<'a> {
    /// An item whole in the block: what the model said or thought, or a compaction marker.
    Item(OpenItemFace),
    /// A tool call: its id, the tool's name as the tool table reads it (`mcp__<server>__<tool>`
    /// for an MCP block) and its input.
    ToolCall {
        id: &'a str,
        name: Cow<'a, str>,
        input: Value,
    },
    /// A server tool's result, which completes its call: the API ran the tool within the message.
    ServerToolResult {
        tool_use_id: String,
        text: String,
        failed: bool,
        block: Value,
    },
    /// A result block naming no call: nothing to draw.
    Unpaired,
}

/// What `block` of an assistant message becomes; `parent` the subagent call whose message it is.
pub fn assistant_block<'a>(block: &'a BetaContentBlock, parent: Option<&RuntimeItemId>) -> AssistantBlock<'a> {
    let text_item = |item_type: CanonicalItemType, text: &str| {
        AssistantBlock::Item(OpenItemFace {
            item_type,
            title: None,
            data: Some(agentwire_core::content::data(text_content(item_type, text, parent))),
        })
    };
    match block {
        BetaContentBlock::Text(text) => text_item(CanonicalItemType::AssistantMessage, &text.text),
        BetaContentBlock::Thinking(thinking) => text_item(CanonicalItemType::Reasoning, &thinking.thinking),
        BetaContentBlock::RedactedThinking(_) => text_item(CanonicalItemType::Reasoning, ""),
        BetaContentBlock::Compaction(compaction) => text_item(
            CanonicalItemType::ContextCompaction,
            compaction.content.as_deref().unwrap_or_default(),
        ),
        BetaContentBlock::ToolUse(tool) => AssistantBlock::ToolCall {
            id: &tool.id,
            name: Cow::Borrowed(&tool.name),
            input: tool.input.clone(),
        },
        BetaContentBlock::ServerToolUse(tool) => AssistantBlock::ToolCall {
            id: &tool.id,
            name: Cow::Owned(tool.name.to_string()),
            input: Value::Object(tool.input.clone()),
        },
        BetaContentBlock::McpToolUse(tool) => AssistantBlock::ToolCall {
            id: &tool.id,
            name: Cow::Owned(format!("mcp__{}__{}", tool.server_name, tool.name)),
            input: tool.input.clone(),
        },
        BetaContentBlock::WebSearchToolResult(_)
        | BetaContentBlock::WebFetchToolResult(_)
        | BetaContentBlock::CodeExecutionToolResult(_)
        | BetaContentBlock::BashCodeExecutionToolResult(_)
        | BetaContentBlock::TextEditorCodeExecutionToolResult(_)
        | BetaContentBlock::ToolSearchToolResult(_)
        | BetaContentBlock::McpToolResult(_)
        | BetaContentBlock::ContainerUpload(_) => {
            // Eight result shapes, all `tool_use_id`, `content` and sometimes `is_error`: read
            // from the block as sent rather than once per shape.
            let block = serde_json::to_value(block).unwrap_or(Value::Null);
            match block.get("tool_use_id").and_then(Value::as_str) {
                Some(tool_use_id) => AssistantBlock::ServerToolResult {
                    tool_use_id: tool_use_id.to_string(),
                    text: block
                        .get("content")
                        .map(agentwire_core::content::text_or_parts)
                        .unwrap_or_default(),
                    failed: block.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                    block,
                },
                None => AssistantBlock::Unpaired,
            }
        }
    }
}

/// The text of an assistant message: its text blocks, one per line (the API error the CLI writes
/// in the model's name is one).
pub fn message_text(content: &[BetaContentBlock]) -> String {
    let text: Vec<&str> = content
        .iter()
        .filter_map(|block| match block {
            BetaContentBlock::Text(text) => Some(text.text.as_str()),
            BetaContentBlock::Thinking(_)
            | BetaContentBlock::RedactedThinking(_)
            | BetaContentBlock::ToolUse(_)
            | BetaContentBlock::ServerToolUse(_)
            | BetaContentBlock::McpToolUse(_)
            | BetaContentBlock::Compaction(_)
            | BetaContentBlock::WebSearchToolResult(_)
            | BetaContentBlock::WebFetchToolResult(_)
            | BetaContentBlock::CodeExecutionToolResult(_)
            | BetaContentBlock::BashCodeExecutionToolResult(_)
            | BetaContentBlock::TextEditorCodeExecutionToolResult(_)
            | BetaContentBlock::ToolSearchToolResult(_)
            | BetaContentBlock::McpToolResult(_)
            | BetaContentBlock::ContainerUpload(_) => None,
        })
        .collect();
    text.join("\n")
}
