//! One line of `sessions.jsonl`: what a session holds, counted from its canonical events as they
//! stream past (a few counters and the usage of each thread and turn, never the events).

use agentwire::clock::TimeSource;
use agentwire::usage::Totals;
use agentwire_canonical::{ProviderRuntimeEvent, RuntimeEvent, TokenUsage, TurnState};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A session of the index: the canonical stream of one input file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The canonical `sessionId` of every event of the stream.
    pub session_id: String,
    /// The source `detect` found (`--from` name).
    pub source: String,
    /// The canonical `provider` of the events.
    pub provider: String,
    /// The input file, as walked (a given path joined with the names below it).
    pub input: String,
    /// The canonical JSONL, relative to the output folder: `<source>/<session id>.jsonl`.
    pub output: String,
    /// The working folder the session configuration names, when the stream carries one.
    pub cwd: Option<String>,
    /// The first model the stream names.
    pub model: Option<String>,
    /// `createdAt` of the first event.
    pub started_at: String,
    /// What the times come from: `recorded` (the stream's own), `idTimestamp` (a UUIDv7 id),
    /// `fileModified` (the input file's modification time), `unknown` (none: the Unix epoch).
    /// An index written before this member reads as `recorded`, the only kind it listed right.
    #[serde(default = "recorded")]
    pub time_source: TimeSource,
    /// The latest `createdAt`.
    pub ended_at: String,
    /// `thread.started` events: a file holding several threads (subagents, a resumed thread)
    /// is still one session.
    pub threads: u64,
    /// `turn.started` events.
    pub turns: u64,
    /// `turn.completed` events whose state is `failed`.
    pub failed_turns: u64,
    /// `item.completed` events (every item completes once the stream is settled).
    pub items: u64,
    /// `runtime.error` events.
    pub errors: u64,
    /// The session's tokens and cost (`scope: session`), totalled as the fold totals them;
    /// `null` when no event reports any.
    #[serde(default)]
    pub usage: Option<TokenUsage>,
    /// The index line's format: a line of an older format is not up to date, so its input is
    /// read again (an older line's counts were each provider's own).
    #[serde(default)]
    pub format: u32,
    /// Canonical events written.
    pub events: u64,
    /// Input lines that could not be read at all (each reported with its line number).
    pub unreadable_lines: u64,
}

/// The format of the index lines this version writes ([`Entry::format`]).
pub const FORMAT: u32 = 1;

/// How deep the search for `cwd` and the model goes into a configuration or a raw message.
const LOOKUP_DEPTH: usize = 3;

/// The index fields of a stream so far.
#[derive(Default)]
pub struct Tally {
    session_id: Option<String>,
    provider: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    started_at: Option<String>,
    ended_at: Option<String>,
    threads: u64,
    turns: u64,
    failed_turns: u64,
    items: u64,
    errors: u64,
    /// The usage reports and turns' usage, totalled as the fold totals them.
    usage: Totals,
    events: u64,
    /// What the times come from, as the normalizer said at the end.
    pub time_source: TimeSource,
}

fn recorded() -> TimeSource {
    TimeSource::Recorded
}

impl Tally {
    /// Counts one event.
    pub fn observe(&mut self, event: &ProviderRuntimeEvent) {
        self.events += 1;
        self.session_id
            .get_or_insert_with(|| event.session_id.as_str().to_owned());
        self.provider.get_or_insert_with(|| event.provider.as_str().to_owned());
        let at = event.created_at.as_str();
        self.started_at.get_or_insert_with(|| at.to_owned());
        if self.ended_at.as_deref().is_none_or(|ended| ended < at) {
            self.ended_at = Some(at.to_owned());
        }
        match &event.event {
            RuntimeEvent::SessionStarted(_) => self.look_up_raw(event),
            RuntimeEvent::SessionConfigured(payload) => {
                if let Ok(config) = serde_json::from_str::<Value>(payload.config.get()) {
                    self.look_up(&config);
                }
            }
            RuntimeEvent::ThreadStarted(_) => {
                self.threads += 1;
                self.look_up_raw(event);
            }
            RuntimeEvent::TurnStarted(_) => self.turns += 1,
            RuntimeEvent::TurnCompleted(payload) => {
                if payload.state == TurnState::Failed {
                    self.failed_turns += 1;
                }
                if let Some(usage) = &payload.usage {
                    self.usage.turn(event.thread_id.as_ref(), event.turn_id.as_ref(), usage);
                }
            }
            RuntimeEvent::ThreadTokenUsageUpdated(payload) => {
                self.usage.report(event.thread_id.as_ref(), &payload.usage);
            }
            RuntimeEvent::ItemCompleted(_) => self.items += 1,
            RuntimeEvent::RuntimeError(_) => self.errors += 1,
            _ => {}
        }
    }

    /// `cwd` and the model from a provider's own answer to starting a session or thread (Codex
    /// app-server's `thread/start` result, ACP's `session/new` result).
    fn look_up_raw(&mut self, event: &ProviderRuntimeEvent) {
        if self.cwd.is_some() && self.model.is_some() {
            return;
        }
        if let Some(raw) = &event.raw
            && let Ok(message) = serde_json::from_str::<Value>(raw.payload.get())
        {
            self.look_up(&message);
        }
    }

    /// Fills `cwd` and the model, when still unknown, from the shallowest `cwd` and `model` (or
    /// ACP's `currentModelId`) text in `value`.
    fn look_up(&mut self, value: &Value) {
        if self.cwd.is_none() {
            self.cwd = shallowest(value, &["cwd"]);
        }
        if self.model.is_none() {
            self.model = shallowest(value, &["model", "currentModelId"]);
        }
    }

    /// The index entry; `None` when the stream had no event.
    pub fn entry(self, source: &str, input: String, unreadable_lines: u64) -> Option<Entry> {
        let session_id = self.session_id?;
        Some(Entry {
            output: format!("{source}/{session_id}.jsonl"),
            session_id,
            source: source.to_owned(),
            provider: self.provider.unwrap_or_default(),
            input,
            cwd: self.cwd,
            model: self.model,
            started_at: self.started_at.unwrap_or_default(),
            time_source: self.time_source,
            ended_at: self.ended_at.unwrap_or_default(),
            threads: self.threads,
            turns: self.turns,
            failed_turns: self.failed_turns,
            items: self.items,
            errors: self.errors,
            usage: self.usage.session(),
            format: FORMAT,
            events: self.events,
            unreadable_lines,
        })
    }
}

/// The first non-empty text under one of `keys`, breadth first, at most [`LOOKUP_DEPTH`] levels
/// down (objects only: an array of agents or models lists choices, not the one in use).
fn shallowest(value: &Value, keys: &[&str]) -> Option<String> {
    let mut level = vec![value];
    for _ in 0..LOOKUP_DEPTH {
        let mut next = Vec::new();
        for object in level.iter().filter_map(|value| value.as_object()) {
            for (key, value) in object {
                match value {
                    Value::String(text) if !text.is_empty() && keys.contains(&key.as_str()) => {
                        return Some(text.clone());
                    }
                    Value::Object(_) => next.push(value),
                    _ => {}
                }
            }
        }
        level = next;
    }
    None
}
