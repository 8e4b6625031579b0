//! What a page shows, built from the snapshot once and drawn by both renderers ([`super::text`]
//! and [`super::html`]), so the terminal and the HTML page say the same things.
//!
//! Each item's `data` is read as the content `x-itemContent` names for its type, field by field:
//! a field that is missing or of another shape falls back to the item's title and detail, so a
//! source whose content does not fit yet still reads, and nothing here knows any provider.

use std::collections::HashMap;

use agentwire::clock::TimeSource;
use agentwire::snapshot::fold;
use agentwire_canonical::{
    CanonicalItemType, ItemStatus, PlanStepStatus, ProviderRuntimeEvent, RuntimeEvent, RuntimeItemId, SessionSnapshot,
    SnapshotItem, SnapshotTurnState, TokenUsage, TurnId, TurnPlanStep,
};
use serde_json::Value;

use super::requests::{self, Request};
use super::usage;

/// Lines of a command's output shown: its end, where the result and the errors are.
const OUTPUT_TAIL: usize = 10;
/// Characters of reasoning shown: it is context, not the answer.
const REASONING_CHARS: usize = 240;
/// Characters of a tool's arguments and of its result shown.
const ARGUMENTS_CHARS: usize = 160;
const RESULT_CHARS: usize = 400;
/// Characters of the first prompt used as the page's title.
const TITLE_CHARS: usize = 80;
/// Bytes of one item's whole text (a command's output, a tool's result, reasoning) the HTML
/// page folds under the shortened one; what lies beyond is cut and the cut is said.
pub const FOLD_CAP: usize = 64 * 1024;

/// A session as a page draws it.
#[derive(Debug, Default)]
pub struct Page {
    /// The first prompt, shortened, else the provider and the session id.
    pub title: String,
    /// Provider, model, working folder, state and start, as label and value.
    pub facts: Vec<(&'static str, String)>,
    /// The turns, with what happened outside any turn drawn between them where it happened.
    pub sections: Vec<Section>,
    /// Errors of no turn.
    pub errors: Vec<String>,
    /// The session's tokens, cost, warnings and open requests; empty when none is known.
    pub summary: Vec<String>,
    /// The session at a glance, as label and value: turns, duration, models, tokens, cost,
    /// state, errors (the HTML page's header).
    pub totals: Vec<(&'static str, String)>,
}

/// A text shortened for a glance, with the whole of it (up to [`FOLD_CAP`]) to unfold.
#[derive(Debug)]
pub struct Folded {
    /// The whole text, or its first [`FOLD_CAP`] bytes.
    pub text: String,
    /// Bytes left out beyond the cap.
    pub cut: usize,
}

impl Folded {
    /// `text` to unfold, when `shown` is not already all of it.
    fn of(text: &str, shown: &str) -> Option<Folded> {
        if shown == text.trim() {
            return None;
        }
        let mut end = text.len().min(FOLD_CAP);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Some(Folded {
            text: text[..end].to_owned(),
            cut: text.len() - end,
        })
    }
}

/// How a request ended, as its colour says it: allowed, refused, stopped, or still waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Allowed,
    Refused,
    Stopped,
    Waiting,
}

impl Tone {
    /// The tone of a decision of the canonical vocabulary; a word outside it reads as stopped,
    /// never as allowed.
    fn of(decision: Option<&str>) -> Tone {
        use agentwire::decision::Decision as D;
        match decision.map(str::parse::<D>) {
            None => Tone::Waiting,
            Some(Ok(D::Accept | D::AcceptForSession | D::Answered)) => Tone::Allowed,
            Some(Ok(D::Decline | D::Error)) => Tone::Refused,
            Some(Ok(D::Cancel) | Err(_)) => Tone::Stopped,
        }
    }

    /// The CSS class of the tone.
    pub fn class(self) -> &'static str {
        match self {
            Tone::Allowed => "allowed",
            Tone::Refused => "refused",
            Tone::Stopped => "stopped",
            Tone::Waiting => "waiting",
        }
    }
}

/// Whether a time was known: a stream that carries no time at all and came with no other
/// evidence of one (no UUIDv7 id, no file) is stamped from the Unix epoch, which says nothing to
/// a reader.
fn known(at: &agentwire_canonical::IsoDateTime) -> bool {
    !at.as_str().starts_with("1970-01-01T00:00:00")
}

/// `2026-11-30 05:28:07 UTC`: a `createdAt` as a person reads it, with its zone.
pub fn date_time(at: &agentwire_canonical::IsoDateTime) -> String {
    let at = at.as_str();
    format!("{} {} UTC", &at[..10], at.get(11..19).unwrap_or_default())
}

/// A part of the page, in the order of the stream.
#[derive(Debug)]
pub enum Section {
    Turn(Turn),
    /// Items, requests and warnings of no turn, between the turns they came between.
    Outside(Vec<Card>),
}

/// A turn: its cards in the order they started, then its footer.
#[derive(Debug)]
pub struct Turn {
    pub number: usize,
    /// The wall-clock time it started, `HH:MM:SS UTC` (the day is the session's).
    pub started: Option<String>,
    pub cards: Vec<Card>,
    pub errors: Vec<String>,
    pub footer: Footer,
}

/// How a turn ended, what it used and cost.
#[derive(Debug)]
pub struct Footer {
    pub state: SnapshotTurnState,
    /// The turn's tokens and cost, as `turn.completed` typed them (boxed: most of a page's
    /// sections are no turn).
    pub usage: Option<Box<TokenUsage>>,
}

impl Footer {
    /// `completed · 1,234 in · 56 out tokens · $0.0123`.
    pub fn describe(&self) -> String {
        let mut parts = vec![self.state.as_str().to_owned()];
        parts.extend(self.usage.as_deref().and_then(usage::describe));
        parts.extend(self.usage.as_deref().and_then(usage::cost));
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
    /// When it started and how long it took, for a hover (`05:28:07 UTC · 1.2 s`).
    pub at: Option<String>,
    /// The card's own anchor, and the card it is linked to with what the link says: an item and
    /// the request that decided it point at each other.
    pub anchor: Option<String>,
    pub link: Option<(String, String)>,
    /// Whether a request that decided it refused it (declined, or cancelled unanswered).
    pub refused: bool,
    pub children: Vec<Card>,
}

/// What a card shows.
#[derive(Debug)]
pub enum Body {
    Prompt(String),
    /// Markdown, as the model wrote it.
    Assistant(String),
    /// Shortened, with the whole to unfold.
    Reasoning(String, Option<Folded>),
    Command {
        command: String,
        exit_code: Option<i64>,
        /// The last lines of the output.
        tail: Vec<String>,
        /// Output lines before the tail, not shown in a terminal.
        omitted: usize,
        /// The whole output, when the tail is not all of it.
        whole: Option<Folded>,
    },
    Files(Vec<FileDiff>),
    Plan(Vec<Step>),
    Tool {
        name: String,
        arguments: Option<String>,
        result: Option<String>,
        /// The whole result, when `result` is shortened.
        whole: Option<Folded>,
        error: Option<String>,
    },
    Request {
        kind: String,
        detail: Option<String>,
        /// `None` while it waits.
        decision: Option<String>,
        tone: Tone,
    },
    /// Any other item: its type and what it says.
    Note {
        label: String,
        text: String,
    },
    Error(String),
    /// A warning (a retry, a message the pinned schema does not know), where it happened.
    Warning(String),
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
    /// Says beside the session's start where its times come from, when that is not the
    /// stream's own record (a file's modification time, a UUIDv7 id, the host's clock).
    pub fn with_time_source(mut self, source: Option<TimeSource>) -> Page {
        if let Some(source) = source.filter(|source| *source != TimeSource::Recorded)
            && let Some((_, started)) = self.facts.iter_mut().find(|(label, _)| *label == "started")
        {
            started.push_str(&format!(" ({})", source.describe()));
        }
        self
    }

    /// The page of a stream of canonical events.
    pub fn of(events: &[ProviderRuntimeEvent]) -> Page {
        match fold(events) {
            Some(snapshot) => Page::build(&snapshot, requests::of(events), &Order::of(events)),
            None => Page {
                title: "(no events)".to_owned(),
                ..Page::default()
            },
        }
    }

    fn build(snapshot: &SessionSnapshot, requests: Vec<Request>, order: &Order) -> Page {
        let session = &snapshot.session;
        let items: HashMap<&RuntimeItemId, &SnapshotItem> =
            snapshot.items.iter().map(|item| (&item.item_id, item)).collect();
        let turn_ids: Vec<&str> = snapshot.turns.iter().map(|turn| turn.turn_id.as_str()).collect();
        let mut by_item: HashMap<RuntimeItemId, Vec<Request>> = HashMap::new();
        // Cards placed by their position in the stream: of a turn, or of none.
        let mut by_turn: HashMap<String, Vec<(usize, Card)>> = HashMap::new();
        let mut loose: Vec<(usize, Card)> = Vec::new();
        for request in requests {
            match (&request.item_id, &request.turn_id) {
                (Some(item), _) if items.contains_key(item) => by_item.entry(item.clone()).or_default().push(request),
                (_, Some(turn)) if turn_ids.contains(&turn.as_str()) => by_turn
                    .entry(turn.as_str().to_owned())
                    .or_default()
                    .push((request.at, request_card(&request, None))),
                _ => loose.push((request.at, request_card(&request, None))),
            }
        }
        for warning in &order.warnings {
            let card = (warning.at, plain(Body::Warning(warning.message.clone())));
            match &warning.turn_id {
                Some(turn) if turn_ids.contains(&turn.as_str()) => {
                    by_turn.entry(turn.as_str().to_owned()).or_default().push(card);
                }
                _ => loose.push(card),
            }
        }
        let builder = Builder { items, by_item };
        // An item is drawn where its first event came; one the events never named keeps the
        // place of the card before it.
        let placed = |id: &RuntimeItemId, last: &mut usize| {
            *last = order.items.get(id).copied().unwrap_or(*last);
            *last
        };

        let mut turns = Vec::new();
        for turn in &snapshot.turns {
            let mut last = order.turns.get(&turn.turn_id).copied().unwrap_or_default();
            let mut placed_cards: Vec<(usize, Card)> = turn
                .item_ids
                .iter()
                .flat_map(|id| {
                    let at = placed(id, &mut last);
                    builder.cards(id, 0).into_iter().map(move |card| (at, card))
                })
                .collect();
            if turn.state == SnapshotTurnState::Interrupted {
                for (_, card) in &mut placed_cards {
                    stopped(card);
                }
            }
            placed_cards.extend(by_turn.remove(turn.turn_id.as_str()).unwrap_or_default());
            placed_cards.sort_by_key(|(at, _)| *at);
            let mut cards: Vec<Card> = placed_cards.into_iter().map(|(_, card)| card).collect();
            if let Some(diff) = turn.diff.as_deref().filter(|_| !cards.iter().any(shows_changes)) {
                cards.push(plain(Body::Files(vec![FileDiff {
                    path: "of the turn".to_owned(),
                    kind: "diff".to_owned(),
                    lines: diff_lines(diff, false),
                }])));
            }
            if let Some(plan) = &turn.plan {
                place_plan(&mut cards, plain(Body::Plan(plan_steps(plan))));
            }
            let mut errors: Vec<String> = snapshot
                .errors
                .iter()
                .filter(|error| error.turn_id.as_ref() == Some(&turn.turn_id))
                .map(|error| error.message.clone())
                .collect();
            // One error is drawn once: the turn's reason is left out when an error of the turn
            // already says it.
            if let Some(reason) = &turn.error
                && !errors.iter().any(|error| error.contains(reason.as_str()))
            {
                errors.push(reason.clone());
            }
            let at = order.turns.get(&turn.turn_id).copied().unwrap_or(usize::MAX);
            turns.push((
                at,
                Turn {
                    // Numbered once the turns are in the order they began.
                    number: 0,
                    started: turn
                        .started_at
                        .as_ref()
                        .filter(|at| known(at))
                        .and_then(|at| at.as_ref().get(11..19))
                        .map(|time| format!("{time} UTC")),
                    cards,
                    errors,
                    footer: Footer {
                        state: turn.state,
                        usage: turn.usage.clone().map(Box::new),
                    },
                },
            ));
        }
        // Items of no turn that no known item started.
        let top_level = snapshot.items.iter().filter(|item| {
            item.turn_id.is_none()
                && item
                    .parent_item_id
                    .as_ref()
                    .is_none_or(|parent| !builder.items.contains_key(parent))
        });
        let mut last = 0;
        for item in top_level {
            let at = placed(&item.item_id, &mut last);
            loose.extend(builder.cards(&item.item_id, 0).into_iter().map(|card| (at, card)));
        }
        loose.sort_by_key(|(at, _)| *at);
        let sections = sections(turns, loose);
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
                .map(|at| ("started", date_time(at))),
        );
        facts.push(("session", session.session_id.as_str().to_owned()));

        let title = snapshot
            .items
            .iter()
            .filter(|item| {
                item.item_type == CanonicalItemType::UserMessage
                    && item.parent_item_id.is_none()
                    && text(item, "origin").is_none_or(|origin| origin == "user")
            })
            .find_map(|item| text(item, "text").filter(|text| !text.trim().is_empty()))
            .map_or_else(
                || format!("{} session {}", session.provider.as_str(), session.session_id.as_str()),
                |prompt| shorten(prompt.lines().next().unwrap_or_default(), TITLE_CHARS),
            );

        let mut summary = Vec::new();
        // The session's usage as the fold totals it (the providers' running totals where they
        // state them, else the turns' added up).
        let session_usage = snapshot.usage.as_ref();
        summary.extend(session_usage.and_then(usage::describe));
        summary.extend(session_usage.and_then(usage::cost));
        if !snapshot.requests.is_empty() {
            summary.push(format!("{} request(s) waiting", snapshot.requests.len()));
        }
        if snapshot.warnings > 0 {
            summary.push(format!("{} warning(s)", snapshot.warnings));
        }
        let totals = totals(snapshot);
        Page {
            title,
            facts,
            sections,
            errors,
            summary,
            totals,
        }
    }
}

/// One plan once per turn: the turn's plan (its latest state) in place of the last card that drew
/// a to-do list (an agent's plan tool call), the earlier ones left out; at the turn's end when no
/// card drew one.
fn place_plan(cards: &mut Vec<Card>, plan: Card) {
    let is_plan = |card: &Card| matches!(card.body, Body::Plan(_)) && card.children.is_empty();
    match cards.iter().rposition(is_plan) {
        Some(last) => {
            cards[last] = plan;
            let mut index = 0;
            cards.retain(|card| {
                index += 1;
                index - 1 == last || !is_plan(card)
            });
        }
        None => cards.push(plan),
    }
}

/// Where each thing happened: the position in the stream of the first event of each item and
/// turn, and the warnings with theirs.
#[derive(Default)]
struct Order {
    items: HashMap<RuntimeItemId, usize>,
    turns: HashMap<TurnId, usize>,
    warnings: Vec<Warning>,
}

struct Warning {
    at: usize,
    turn_id: Option<TurnId>,
    message: String,
}

impl Order {
    fn of(events: &[ProviderRuntimeEvent]) -> Order {
        let mut order = Order::default();
        for (at, event) in events.iter().enumerate() {
            if let Some(item) = &event.item_id {
                order.items.entry(item.clone()).or_insert(at);
            }
            if let Some(turn) = &event.turn_id {
                order.turns.entry(turn.clone()).or_insert(at);
            }
            if let RuntimeEvent::RuntimeWarning(warning) = &event.event {
                order.warnings.push(Warning {
                    at,
                    turn_id: event.turn_id.clone(),
                    message: warning.message.clone(),
                });
            }
        }
        order
    }
}

/// The turns in the order they began, with the cards of no turn between them where they came.
fn sections(mut turns: Vec<(usize, Turn)>, loose: Vec<(usize, Card)>) -> Vec<Section> {
    turns.sort_by_key(|(at, _)| *at);
    let mut sections = Vec::new();
    let mut loose = loose.into_iter().peekable();
    for (number, (at, mut turn)) in turns.into_iter().enumerate() {
        let before: Vec<Card> = std::iter::from_fn(|| loose.next_if(|(card_at, _)| *card_at < at))
            .map(|(_, card)| card)
            .collect();
        if !before.is_empty() {
            sections.push(Section::Outside(before));
        }
        turn.number = number + 1;
        sections.push(Section::Turn(turn));
    }
    let after: Vec<Card> = loose.map(|(_, card)| card).collect();
    if !after.is_empty() {
        sections.push(Section::Outside(after));
    }
    sections
}

/// The session at a glance: turns, how long it ran, its models, tokens, cost, state and errors.
fn totals(snapshot: &SessionSnapshot) -> Vec<(&'static str, String)> {
    let mut totals = vec![("turns", snapshot.turns.len().to_string())];
    let millis =
        |at: &agentwire_canonical::IsoDateTime| known(at).then(|| agentwire::clock::unix_millis(at.as_str())).flatten();
    let times = snapshot
        .turns
        .iter()
        .flat_map(|turn| [turn.started_at.as_ref(), turn.completed_at.as_ref()])
        .chain(
            snapshot
                .items
                .iter()
                .flat_map(|item| [item.started_at.as_ref(), item.completed_at.as_ref()]),
        )
        .chain([snapshot.session.started_at.as_ref()])
        .flatten()
        .filter_map(millis);
    let (first, last) = times.fold((i64::MAX, i64::MIN), |(first, last), at| (first.min(at), last.max(at)));
    if last > first {
        totals.push(("duration", duration(last - first)));
    }
    let mut models: Vec<&str> = Vec::new();
    for model in snapshot
        .turns
        .iter()
        .filter_map(|turn| turn.model.as_deref())
        .chain(snapshot.session.model.as_deref())
    {
        if !models.contains(&model) {
            models.push(model);
        }
    }
    if !models.is_empty() {
        totals.push(("models", models.join(", ")));
    }
    let session_usage = snapshot.usage.as_ref();
    totals.extend(session_usage.and_then(usage::describe).map(|tokens| ("tokens", tokens)));
    totals.extend(session_usage.and_then(usage::cost).map(|cost| ("cost", cost)));
    totals.extend(snapshot.session.state.map(|state| ("state", state.as_str().to_owned())));
    let failed = snapshot
        .turns
        .iter()
        .filter(|turn| turn.state == SnapshotTurnState::Failed)
        .count();
    if !snapshot.errors.is_empty() || failed > 0 {
        totals.push((
            "errors",
            format!("{} error(s), {failed} failed turn(s)", snapshot.errors.len()),
        ));
    }
    totals
}

/// An action a person's stop cut short is drawn `interrupted`, never `declined`: the mapping
/// marks it `declined` (it did not finish, and no tool failed), which after an accepted card
/// would read as a refusal. An action its own card refused keeps `declined`, and one that failed
/// before the stop keeps `failed`.
fn stopped(card: &mut Card) {
    if card.status == Some("declined") && !card.refused {
        card.status = Some("interrupted");
    }
    for child in &mut card.children {
        stopped(child);
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
    /// The cards of the requests that decide the item, then the item's card with its children:
    /// a card is drawn before the output of what it decided, and the two link to each other.
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
        let requests = self.by_item.get(id).map(Vec::as_slice).unwrap_or_default();
        if requests.is_empty() {
            return vec![card];
        }
        let anchor = format!("item-{}", id.as_str());
        let mut cards: Vec<Card> = requests
            .iter()
            .map(|request| request_card(request, Some(&anchor)))
            .collect();
        card.refused = requests
            .iter()
            .any(|request| matches!(Tone::of(request.decision.as_deref()), Tone::Refused | Tone::Stopped));
        let decided_by = cards.last().and_then(|request| request.anchor.clone());
        card.link = decided_by.map(|request| (request, "the request that decided it ↑".to_owned()));
        card.anchor = Some(anchor);
        cards.push(card);
        cards
    }
}

fn plain(body: Body) -> Card {
    Card {
        body,
        status: None,
        at: None,
        anchor: None,
        link: None,
        refused: false,
        children: Vec::new(),
    }
}

/// A request's card; `item`, the anchor of the item it decides, when it decides one.
fn request_card(request: &Request, item: Option<&str>) -> Card {
    let mut card = plain(Body::Request {
        kind: request.kind.clone(),
        detail: request.detail.clone(),
        decision: request.decision.clone(),
        tone: Tone::of(request.decision.as_deref()),
    });
    card.anchor = Some(format!("request-{}", request.request_id.as_str()));
    card.link = item.map(|item| (item.to_owned(), "what it decides ↓".to_owned()));
    card
}

/// `05:28:07 UTC · 1.2 s`: when an item started and how long it ran, when its times are known.
fn item_times(item: &SnapshotItem) -> Option<String> {
    let started = item.started_at.as_ref().filter(|at| known(at))?;
    let mut said = date_time(started);
    let millis = |at: &agentwire_canonical::IsoDateTime| agentwire::clock::unix_millis(at.as_str());
    if let Some(took) = item
        .completed_at
        .as_ref()
        .and_then(millis)
        .zip(millis(started))
        .map(|(end, start)| end - start)
        .filter(|took| *took > 0)
    {
        said.push_str(&format!(" · took {}", duration(took)));
    }
    Some(said)
}

/// `850 ms`, `1.2 s`, `3 min 20 s`, `2 h 5 min`.
pub fn duration(millis: i64) -> String {
    match millis {
        ..1_000 => format!("{millis} ms"),
        1_000..60_000 => format!("{:.1} s", millis as f64 / 1000.0),
        60_000..3_600_000 => format!("{} min {} s", millis / 60_000, millis / 1000 % 60),
        _ => format!("{} h {} min", millis / 3_600_000, millis / 60_000 % 60),
    }
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
            // A subagent's instructions, written by the agent that started it: never drawn as
            // the person's words.
            _ if item.parent_item_id.is_some() => Body::Note {
                label: "asked the subagent".to_owned(),
                text: prompt(item).unwrap_or_else(fallback),
            },
            _ => Body::Prompt(prompt(item).unwrap_or_else(fallback)),
        },
        I::AssistantMessage => Body::Assistant(text(item, "text").unwrap_or_else(fallback)),
        I::Reasoning => {
            let said = text(item, "summary")
                .filter(|summary| !summary.trim().is_empty())
                .or_else(|| text(item, "text"))
                .unwrap_or_else(fallback);
            let shown = shorten(&said, REASONING_CHARS);
            let whole = Folded::of(&said, &shown);
            Body::Reasoning(shown, whole)
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
        // A title that says what the call did ("Read notes.txt") reads better than the tool's
        // name with its arguments.
        I::DynamicToolCall => match (text(item, "tool"), &item.title) {
            (Some(tool), Some(title)) if *title != tool && !title.trim().is_empty() => {
                let mut body = tool_call(item, title.clone());
                if let Body::Tool { arguments, .. } = &mut body {
                    *arguments = None;
                }
                body
            }
            (Some(tool), _) => tool_call(item, tool),
            (None, _) => note(item),
        },
        I::CollabAgentToolCall => {
            let name = text(item, "agent")
                .or_else(|| text(item, "tool"))
                .or(item.title.clone());
            let result = text(item, "result");
            let shown = result.as_deref().map(|result| shorten(result, RESULT_CHARS));
            Body::Tool {
                name: format!("agent {}", name.unwrap_or_default()).trim_end().to_owned(),
                arguments: text(item, "description")
                    .or_else(|| text(item, "prompt"))
                    .or(item.detail.clone())
                    .map(|said| shorten(&said, ARGUMENTS_CHARS)),
                whole: result
                    .as_deref()
                    .zip(shown.as_deref())
                    .and_then(|(all, shown)| Folded::of(all, shown)),
                result: shown,
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
        at: item_times(item),
        anchor: None,
        link: None,
        refused: false,
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
    let tail: Vec<String> = lines[omitted..].iter().map(|line| (*line).to_owned()).collect();
    Body::Command {
        command,
        exit_code: field(item, "exitCode").and_then(Value::as_i64),
        whole: Folded::of(&output, tail.join("\n").trim()),
        tail,
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
    let result = field(item, "result").map(value_text);
    let shown = result.as_deref().map(|result| shorten(result, RESULT_CHARS));
    Body::Tool {
        name,
        arguments: field(item, "arguments").map(|arguments| shorten(&arguments_summary(arguments), ARGUMENTS_CHARS)),
        whole: result
            .as_deref()
            .zip(shown.as_deref())
            .and_then(|(all, shown)| Folded::of(all, shown)),
        result: shown,
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
