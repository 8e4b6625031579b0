//! What a page shows, built from the snapshot once and drawn by both renderers ([`super::text`]
//! and [`super::html`]), so the terminal and the HTML page say the same things.
//!
//! Each item's `data` is read as the content `x-itemContent` names for its type, field by field:
//! a field that is missing or of another shape falls back to the item's title and detail, so a
//! source whose content does not fit yet still reads, and nothing here knows any provider.

use std::collections::HashMap;

use agentwire::snapshot::fold;
use agentwire_canonical::{
    CanonicalItemType, ItemStatus, PlanStepStatus, ProviderRuntimeEvent, RuntimeItemId, SessionSnapshot, SnapshotItem,
    SnapshotTurnState, TurnPlanStep,
};
use serde_json::Value;

use super::requests::{self, Request};
use super::usage::{Tokens, dollars};

/// Lines of a command's output shown: its end, where the result and the errors are.
const OUTPUT_TAIL: usize = 10;
/// Characters of reasoning shown: it is context, not the answer.
const REASONING_CHARS: usize = 240;
/// Characters of a tool's arguments and of its result shown.
const ARGUMENTS_CHARS: usize = 160;
const RESULT_CHARS: usize = 400;
/// Characters of the first prompt used as the page's title.
const TITLE_CHARS: usize = 80;

/// A session as a page draws it.
#[derive(Debug, Default)]
pub struct Page {
    /// The first prompt, shortened, else the provider and the session id.
    pub title: String,
    /// Provider, model, working folder, state and start, as label and value.
    pub facts: Vec<(&'static str, String)>,
    pub turns: Vec<Turn>,
    /// Items and requests of no turn.
    pub loose: Vec<Card>,
    /// Errors of no turn.
    pub errors: Vec<String>,
    /// The session's tokens, cost, warnings and open requests; empty when none is known.
    pub summary: Vec<String>,
}

/// Whether a time was known: a stream that carries no time at all (`codex exec --json`) is
/// stamped from the Unix epoch by the recorded clock, which says nothing to a reader.
fn known(at: &agentwire_canonical::IsoDateTime) -> bool {
    !at.as_str().starts_with("1970-01-01T00:00:00")
}

/// A turn: its cards in the order they started, then its footer.
#[derive(Debug)]
pub struct Turn {
    pub number: usize,
    /// The wall-clock time it started, `HH:MM:SS` as stamped (the day is the session's).
    pub started: Option<String>,
    pub cards: Vec<Card>,
    pub errors: Vec<String>,
    pub footer: Footer,
}

/// How a turn ended, what it used and cost.
#[derive(Debug)]
pub struct Footer {
    pub state: SnapshotTurnState,
    pub tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
}

impl Footer {
    /// `completed · 1,234 in · 56 out tokens · $0.0123`.
    pub fn describe(&self) -> String {
        let mut parts = vec![self.state.as_str().to_owned()];
        parts.extend(self.tokens.map(|tokens| tokens.describe()));
        parts.extend(self.cost_usd.map(dollars));
        parts.join(" · ")
    }

    /// Whether the turn ended badly.
    pub fn failed(&self) -> bool {
        self.state == SnapshotTurnState::Failed
    }
}

/// One thing of a turn, with the items it started (a subagent's work) nested under it.
#[derive(Debug)]
pub struct Card {
    pub body: Body,
    /// `failed` or `declined`, when the item ended so.
    pub status: Option<&'static str>,
    pub children: Vec<Card>,
}

/// What a card shows.
#[derive(Debug)]
pub enum Body {
    Prompt(String),
    Assistant(String),
    /// Shortened.
    Reasoning(String),
    Command {
        command: String,
        exit_code: Option<i64>,
        /// The last lines of the output.
        tail: Vec<String>,
        /// Output lines before the tail, not shown.
        omitted: usize,
    },
    Files(Vec<FileDiff>),
    Plan(Vec<Step>),
    Tool {
        name: String,
        arguments: Option<String>,
        result: Option<String>,
        error: Option<String>,
    },
    Request {
        kind: String,
        detail: Option<String>,
        /// `None` while it waits.
        decision: Option<String>,
    },
    /// Any other item: its type and what it says.
    Note {
        label: String,
        text: String,
    },
    Error(String),
}

/// One file of a change.
#[derive(Debug)]
pub struct FileDiff {
    pub path: String,
    /// `add`, `delete`, `update` or `move to ...`; empty when not said.
    pub kind: String,
    pub lines: Vec<DiffLine>,
}

/// A line of a diff and how to colour it.
#[derive(Debug, PartialEq, Eq)]
pub enum DiffLine {
    Added(String),
    Removed(String),
    /// `@@` hunk headers and file headers.
    Header(String),
    Context(String),
}

/// A plan step as a checklist line.
#[derive(Debug)]
pub struct Step {
    pub status: PlanStepStatus,
    pub text: String,
}

impl Step {
    /// `[x]` completed, `[~]` in progress, `[ ]` pending.
    pub fn mark(&self) -> &'static str {
        match self.status {
            PlanStepStatus::Completed => "[x]",
            PlanStepStatus::InProgress => "[~]",
            PlanStepStatus::Pending => "[ ]",
        }
    }
}

impl Page {
    /// The page of a stream of canonical events.
    pub fn of(events: &[ProviderRuntimeEvent]) -> Page {
        match fold(events) {
            Some(snapshot) => Page::build(&snapshot, requests::of(events)),
            None => Page {
                title: "(no events)".to_owned(),
                ..Page::default()
            },
        }
    }

    fn build(snapshot: &SessionSnapshot, requests: Vec<Request>) -> Page {
        let session = &snapshot.session;
        let items: HashMap<&RuntimeItemId, &SnapshotItem> =
            snapshot.items.iter().map(|item| (&item.item_id, item)).collect();
        let turn_ids: Vec<&str> = snapshot.turns.iter().map(|turn| turn.turn_id.as_str()).collect();
        let mut by_item: HashMap<RuntimeItemId, Vec<Request>> = HashMap::new();
        let mut by_turn: HashMap<String, Vec<Card>> = HashMap::new();
        let mut loose = Vec::new();
        for request in requests {
            match (&request.item_id, &request.turn_id) {
                (Some(item), _) if items.contains_key(item) => by_item.entry(item.clone()).or_default().push(request),
                (_, Some(turn)) if turn_ids.contains(&turn.as_str()) => by_turn
                    .entry(turn.as_str().to_owned())
                    .or_default()
                    .push(request_card(&request)),
                _ => loose.push(request_card(&request)),
            }
        }
        let builder = Builder { items, by_item };

        let mut turns = Vec::new();
        for (index, turn) in snapshot.turns.iter().enumerate() {
            let mut cards: Vec<Card> = turn.item_ids.iter().flat_map(|id| builder.cards(id, 0)).collect();
            if let Some(diff) = turn.diff.as_deref().filter(|_| !cards.iter().any(shows_changes)) {
                cards.push(plain(Body::Files(vec![FileDiff {
                    path: "of the turn".to_owned(),
                    kind: "diff".to_owned(),
                    lines: diff_lines(diff, false),
                }])));
            }
            if let Some(plan) = &turn.plan {
                cards.push(plain(Body::Plan(plan_steps(plan))));
            }
            cards.extend(by_turn.remove(turn.turn_id.as_str()).unwrap_or_default());
            let mut errors: Vec<String> = snapshot
                .errors
                .iter()
                .filter(|error| error.turn_id.as_ref() == Some(&turn.turn_id))
                .map(|error| error.message.clone())
                .collect();
            if let Some(reason) = &turn.error
                && !errors.contains(reason)
            {
                errors.push(reason.clone());
            }
            turns.push(Turn {
                number: index + 1,
                started: turn
                    .started_at
                    .as_ref()
                    .filter(|at| known(at))
                    .and_then(|at| at.as_ref().get(11..19))
                    .map(str::to_owned),
                cards,
                errors,
                footer: Footer {
                    state: turn.state,
                    tokens: turn.usage.as_ref().and_then(Tokens::of),
                    cost_usd: turn.cost_usd,
                },
            });
        }
        // Items of no turn that no known item started.
        let top_level = snapshot.items.iter().filter(|item| {
            item.turn_id.is_none()
                && item
                    .parent_item_id
                    .as_ref()
                    .is_none_or(|parent| !builder.items.contains_key(parent))
        });
        loose.extend(top_level.flat_map(|item| builder.cards(&item.item_id, 0)));
        let errors = snapshot
            .errors
            .iter()
            .filter(|error| {
                error
                    .turn_id
                    .as_ref()
                    .is_none_or(|turn| !turn_ids.contains(&turn.as_str()))
            })
            .map(|error| error.message.clone())
            .collect();

        let mut facts = vec![("provider", session.provider.as_str().to_owned())];
        facts.extend(session.model.clone().map(|model| ("model", model)));
        facts.extend(session.cwd.clone().map(|cwd| ("cwd", cwd)));
        facts.extend(session.state.map(|state| ("state", state.as_str().to_owned())));
        facts.extend(
            session
                .started_at
                .as_ref()
                .filter(|at| known(at))
                .map(|at| ("started", at.to_string())),
        );
        facts.push(("session", session.session_id.as_str().to_owned()));

        let title = snapshot
            .items
            .iter()
            .filter(|item| {
                item.item_type == CanonicalItemType::UserMessage
                    && text(item, "origin").is_none_or(|origin| origin == "user")
            })
            .find_map(|item| text(item, "text").filter(|text| !text.trim().is_empty()))
            .map_or_else(
                || format!("{} session {}", session.provider.as_str(), session.session_id.as_str()),
                |prompt| shorten(prompt.lines().next().unwrap_or_default(), TITLE_CHARS),
            );

        let mut summary = Vec::new();
        // The turns' own counts add up to the session's; the last usage report stands for it
        // when no turn reports any (it is a running total there, or the last call's).
        let turn_tokens = turns.iter().filter_map(|turn| turn.footer.tokens).reduce(Tokens::add);
        let tokens = turn_tokens.or_else(|| snapshot.usage.as_ref().and_then(Tokens::of));
        summary.extend(tokens.map(|tokens| tokens.describe()));
        summary.extend(snapshot.cost_usd.map(dollars));
        if !snapshot.requests.is_empty() {
            summary.push(format!("{} request(s) waiting", snapshot.requests.len()));
        }
        if snapshot.warnings > 0 {
            summary.push(format!("{} warning(s)", snapshot.warnings));
        }
        Page {
            title,
            facts,
            turns,
            loose,
            errors,
            summary,
        }
    }
}

/// What cards are built from: the items by id and the requests about each item.
struct Builder<'a> {
    items: HashMap<&'a RuntimeItemId, &'a SnapshotItem>,
    by_item: HashMap<RuntimeItemId, Vec<Request>>,
}

/// How deep nested items are followed: `childIds` that loop back stop there.
const MAX_DEPTH: usize = 16;

impl Builder<'_> {
    /// The item's card with its children, then the cards of its requests.
    fn cards(&self, id: &RuntimeItemId, depth: usize) -> Vec<Card> {
        let Some(item) = self.items.get(id) else {
            return Vec::new();
        };
        let mut card = item_card(item);
        if depth < MAX_DEPTH {
            card.children = item
                .child_ids
                .iter()
                .flat_map(|child| self.cards(child, depth + 1))
                .collect();
        }
        let mut cards = vec![card];
        if let Some(requests) = self.by_item.get(id) {
            cards.extend(requests.iter().map(request_card));
        }
        cards
    }
}

fn plain(body: Body) -> Card {
    Card {
        body,
        status: None,
        children: Vec::new(),
    }
}

fn request_card(request: &Request) -> Card {
    plain(Body::Request {
        kind: request.kind.clone(),
        detail: request.detail.clone(),
        decision: request.decision.clone(),
    })
}

/// An item's card: its content read by type, its title and detail where the content falls short.
fn item_card(item: &SnapshotItem) -> Card {
    use CanonicalItemType as I;
    let fallback = || summary_of(item);
    let body = match item.item_type {
        I::UserMessage => match text(item, "origin").as_deref() {
            // Not the person's prompt: the agent's program or a hook wrote it.
            Some(origin @ ("cli" | "hook")) => Body::Note {
                label: if origin == "hook" {
                    "hook prompt"
                } else {
                    "from the program"
                }
                .to_owned(),
                text: shorten(&text(item, "text").unwrap_or_else(fallback), REASONING_CHARS),
            },
            _ => Body::Prompt(prompt(item).unwrap_or_else(fallback)),
        },
        I::AssistantMessage => Body::Assistant(text(item, "text").unwrap_or_else(fallback)),
        I::Reasoning => {
            let said = text(item, "summary")
                .filter(|summary| !summary.trim().is_empty())
                .or_else(|| text(item, "text"))
                .unwrap_or_else(fallback);
            Body::Reasoning(shorten(&said, REASONING_CHARS))
        }
        I::CommandExecution => command(item),
        I::FileChange => files(item),
        I::Plan => match (field(item, "steps").and_then(Value::as_array), text(item, "markdown")) {
            // A proposed plan is its text; a to-do list its steps.
            (_, Some(markdown)) if !markdown.trim().is_empty() => Body::Note {
                label: "proposed plan".to_owned(),
                text: markdown,
            },
            (Some(steps), _) => Body::Plan(steps.iter().filter_map(step).collect()),
            (None, _) => note(item),
        },
        I::McpToolCall => {
            let server = text(item, "server");
            let tool = text(item, "tool");
            match (server, tool) {
                (Some(server), Some(tool)) => tool_call(item, format!("{server}.{tool}")),
                (None, Some(tool)) => tool_call(item, tool),
                _ => note(item),
            }
        }
        I::DynamicToolCall => match text(item, "tool") {
            Some(tool) => tool_call(item, tool),
            None => note(item),
        },
        I::CollabAgentToolCall => {
            let name = text(item, "agent")
                .or_else(|| text(item, "tool"))
                .or(item.title.clone());
            Body::Tool {
                name: format!("agent {}", name.unwrap_or_default()).trim_end().to_owned(),
                arguments: text(item, "description")
                    .or_else(|| text(item, "prompt"))
                    .or(item.detail.clone())
                    .map(|said| shorten(&said, ARGUMENTS_CHARS)),
                result: text(item, "result").map(|result| shorten(&result, RESULT_CHARS)),
                error: None,
            }
        }
        I::WebSearch => match text(item, "query") {
            Some(query) => Body::Note {
                label: "web search".to_owned(),
                text: [Some(query), text(item, "url")]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" "),
            },
            None => note(item),
        },
        I::ImageView => labelled(item, "image", "path"),
        I::ContextCompaction => labelled(item, "context compacted", "summary"),
        I::ReviewEntered => labelled(item, "review", "review"),
        I::ReviewExited => labelled(item, "review done", "review"),
        I::ImageGeneration => labelled(item, "image generated", "prompt"),
        I::Error => Body::Error(text(item, "message").unwrap_or_else(fallback)),
        I::Unknown => labelled(item, "item", "text"),
    };
    Card {
        body,
        status: match item.status {
            Some(ItemStatus::Failed) => Some("failed"),
            Some(ItemStatus::Declined) => Some("declined"),
            _ => None,
        },
        children: Vec::new(),
    }
}

/// The content's member `key`.
fn field<'a>(item: &'a SnapshotItem, key: &str) -> Option<&'a Value> {
    item.data.as_ref()?.get(key)
}

/// The content's text member `key`.
fn text(item: &SnapshotItem, key: &str) -> Option<String> {
    field(item, key).and_then(Value::as_str).map(str::to_owned)
}

/// A person's message: its text, and a line naming what was attached besides.
fn prompt(item: &SnapshotItem) -> Option<String> {
    let mut said = text(item, "text")?;
    let attachments = field(item, "attachments").and_then(Value::as_array);
    let names: Vec<&str> = attachments
        .into_iter()
        .flatten()
        .filter_map(|attachment| {
            ["name", "path", "url", "kind"]
                .iter()
                .find_map(|key| attachment.get(key).and_then(Value::as_str))
        })
        .collect();
    if !names.is_empty() {
        said.push_str(&format!("\n[attached: {}]", names.join(", ")));
    }
    Some(said)
}

/// The item's title and detail, as the item's own events gave them.
fn summary_of(item: &SnapshotItem) -> String {
    match (&item.title, &item.detail) {
        (Some(title), Some(detail)) if detail.contains(title.as_str()) => detail.clone(),
        (Some(title), Some(detail)) => format!("{title}: {detail}"),
        (Some(said), None) | (None, Some(said)) => said.clone(),
        (None, None) => String::new(),
    }
}

fn note(item: &SnapshotItem) -> Body {
    Body::Note {
        label: item.item_type.as_str().replace('_', " "),
        text: summary_of(item),
    }
}

/// A note labelled `label` saying the content's `key`, else the item's title and detail.
fn labelled(item: &SnapshotItem, label: &str, key: &str) -> Body {
    Body::Note {
        label: label.to_owned(),
        text: text(item, key).unwrap_or_else(|| summary_of(item)),
    }
}

fn command(item: &SnapshotItem) -> Body {
    let Some(command) = text(item, "command").or(item.title.clone()) else {
        return note(item);
    };
    let output = text(item, "output").unwrap_or_default();
    let lines: Vec<&str> = output.lines().collect();
    let omitted = lines.len().saturating_sub(OUTPUT_TAIL);
    Body::Command {
        command,
        exit_code: field(item, "exitCode").and_then(Value::as_i64),
        tail: lines[omitted..].iter().map(|line| (*line).to_owned()).collect(),
        omitted,
    }
}

fn files(item: &SnapshotItem) -> Body {
    let Some(changes) = field(item, "changes").and_then(Value::as_array) else {
        return note(item);
    };
    let files: Vec<FileDiff> = changes
        .iter()
        .filter_map(|change| {
            let path = change.get("path")?.as_str()?.to_owned();
            let kind = change.get("kind").and_then(Value::as_str).unwrap_or_default();
            let kind = match change.get("movePath").and_then(Value::as_str) {
                Some(to) => format!("move to {to}"),
                None => kind.to_owned(),
            };
            let diff = change.get("diff").and_then(Value::as_str).unwrap_or_default();
            let lines = diff_lines(diff, kind == "add");
            Some(FileDiff { path, kind, lines })
        })
        .collect();
    if files.is_empty() {
        return note(item);
    }
    Body::Files(files)
}

/// Whether a card shows added or removed lines: the turn's diff is drawn when none does (a
/// source whose file changes carry no diff, or one the content does not fit yet).
fn shows_changes(card: &Card) -> bool {
    let own = match &card.body {
        Body::Files(files) => files
            .iter()
            .flat_map(|file| &file.lines)
            .any(|line| matches!(line, DiffLine::Added(_) | DiffLine::Removed(_))),
        _ => false,
    };
    own || card.children.iter().any(shows_changes)
}

/// The lines of a change's `diff`: a unified diff coloured line by line, or, for an added file
/// whose diff is its text, every line added.
fn diff_lines(diff: &str, added_file: bool) -> Vec<DiffLine> {
    let unified = diff
        .lines()
        .any(|line| line.starts_with("@@") || line.starts_with("+++") || line.starts_with("---"));
    diff.lines()
        .map(|line| {
            if !unified && added_file {
                DiffLine::Added(format!("+{line}"))
            } else if [
                "+++",
                "---",
                "@@",
                "diff --git ",
                "index ",
                "new file mode ",
                "deleted file mode ",
            ]
            .iter()
            .any(|header| line.starts_with(header))
            {
                DiffLine::Header(line.to_owned())
            } else if line.starts_with('+') {
                DiffLine::Added(line.to_owned())
            } else if line.starts_with('-') {
                DiffLine::Removed(line.to_owned())
            } else {
                DiffLine::Context(line.to_owned())
            }
        })
        .collect()
}

fn plan_steps(plan: &[TurnPlanStep]) -> Vec<Step> {
    plan.iter()
        .map(|step| Step {
            status: step.status,
            text: step.step.clone(),
        })
        .collect()
}

/// A `PlanContent` step: `{step, status}`.
fn step(value: &Value) -> Option<Step> {
    let text = value.get("step")?.as_str()?.to_owned();
    let status = match value.get("status").and_then(Value::as_str) {
        Some("completed") => PlanStepStatus::Completed,
        Some("inProgress") => PlanStepStatus::InProgress,
        _ => PlanStepStatus::Pending,
    };
    Some(Step { status, text })
}

fn tool_call(item: &SnapshotItem, name: String) -> Body {
    Body::Tool {
        name,
        arguments: field(item, "arguments").map(|arguments| shorten(&arguments_summary(arguments), ARGUMENTS_CHARS)),
        result: field(item, "result").map(|result| shorten(&value_text(result), RESULT_CHARS)),
        error: text(item, "error"),
    }
}

/// `key=value, ...` for an object of arguments, the value as text otherwise.
fn arguments_summary(arguments: &Value) -> String {
    match arguments {
        Value::Object(members) => members
            .iter()
            .map(|(key, value)| format!("{key}={}", value_text(value)))
            .collect::<Vec<_>>()
            .join(", "),
        other => value_text(other),
    }
}

/// A string as itself, anything else as compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
        None => text.to_owned(),
    }
}
