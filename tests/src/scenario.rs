//! One corpus trace and its canonical events, for scenario assertions on the typed events
//! (`agentwire_canonical::ProviderRuntimeEvent`), not on JSON text.
//!
//! Events are tied to the trace line they came from ([`crate::Normalized::lines`]), and every
//! failure names the trace, the event index and that line. The helpers here hold for every
//! source; lookups by JSON-RPC method (Codex app-server, ACP) are in [`jsonrpc`], and what only
//! one provider has stays in that provider's scenario test file.

pub mod jsonrpc;

use std::collections::BTreeMap;
use std::path::Path;

use agentwire::frame::LineFormat;
use agentwire::source::Source;
pub use agentwire_canonical::RuntimeEvent;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRuntimeEventType, ProviderRuntimeEvent, RuntimeEventRawSource, RuntimeItemId,
    RuntimeRequestId, TurnId, TurnState,
};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{Normalized, normalize_text, trace_name, traces};

/// The payload of `$event` (a `ProviderRuntimeEvent`) if it is a `RuntimeEvent::$variant`.
#[macro_export]
macro_rules! payload {
    ($event:expr, $variant:ident) => {
        if let $crate::scenario::RuntimeEvent::$variant(payload) = &$event.event {
            Some(payload)
        } else {
            None
        }
    };
}

/// The message of a transcript record, borrowed as its exact text.
#[derive(serde::Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    msg: &'a RawValue,
}

/// One corpus trace: its records and its canonical events.
pub struct Scenario {
    pub source: Source,
    /// The trace's path under its corpus folder without `.jsonl` ([`crate::trace_name`]).
    pub name: String,
    /// Per input line (index `line - 1`): the `{"dir","ts","msg"}` record; a bare line (a one-way
    /// stream) as `{"dir":"in","msg":<the line>}`, so every helper reads both formats alike; a
    /// blank line as `Value::Null`.
    records: Vec<Value>,
    /// Per input line: the message's exact text (what `raw.payload` carries); empty if blank.
    msg_texts: Vec<String>,
    pub norm: Normalized,
}

impl Scenario {
    /// The trace `tests/corpus/<source>/<name>.jsonl`.
    pub fn load(source: Source, name: &str) -> Self {
        let path = crate::corpus_dir(source).join(format!("{name}.jsonl"));
        assert!(
            path.is_file(),
            "trace `{}/{name}`: {} does not exist",
            source.name(),
            path.display()
        );
        Self::from_path(source, &path)
    }

    /// Every trace of `source`, in name order.
    pub fn all(source: Source) -> Vec<Self> {
        traces(source)
            .iter()
            .map(|path| Self::from_path(source, path))
            .collect()
    }

    /// A trace file of `source`.
    pub fn from_path(source: Source, path: &Path) -> Self {
        Self::from_text(source, trace_name(path), &crate::trace_text(source, path))
    }

    /// The text of a trace of `source` named `name` (a session of a store, [`crate::StoreTrace`]).
    pub fn from_text(source: Source, name: String, text: &str) -> Self {
        let frames = crate::frames(source, text);
        let format = match source.spec().files.document {
            Some(_) => LineFormat::Bare,
            None => LineFormat::of(frames.first().map_or("", |frame| frame.text.as_str())),
        };
        let (mut records, mut msg_texts) = (Vec::new(), Vec::new());
        for frame in &frames {
            // Lines that begin no frame (blank lines, a document's inner lines) hold nothing.
            while records.len() + 1 < frame.line {
                records.push(Value::Null);
                msg_texts.push(String::new());
            }
            let (index, line) = (frame.line - 1, frame.text.as_str());
            let not_json = |err: serde_json::Error| -> ! {
                panic!(
                    "trace `{}/{name}`, line {}: not a {format:?} line: {err}",
                    source.name(),
                    index + 1
                )
            };
            let value: Value = serde_json::from_str(line).unwrap_or_else(|err| not_json(err));
            let msg: &RawValue = match format {
                LineFormat::Transcript => {
                    serde_json::from_str::<Record<'_>>(line)
                        .unwrap_or_else(|err| not_json(err))
                        .msg
                }
                LineFormat::Bare => serde_json::from_str(line).unwrap_or_else(|err| not_json(err)),
            };
            msg_texts.push(msg.get().to_owned());
            records.push(match format {
                LineFormat::Transcript => value,
                LineFormat::Bare => serde_json::json!({ "dir": "in", "msg": value }),
            });
        }
        let norm = normalize_text(source, text);
        assert_eq!(
            norm.events.len(),
            norm.lines.len(),
            "trace `{}/{name}`: one line number per event",
            source.name()
        );
        Self {
            source,
            name,
            records,
            msg_texts,
            norm,
        }
    }

    /// `<source>/<trace>`, for failure messages.
    pub fn label(&self) -> String {
        format!("{}/{}", self.source.name(), self.name)
    }

    pub fn events(&self) -> &[ProviderRuntimeEvent] {
        &self.norm.events
    }

    pub fn event(&self, index: usize) -> &ProviderRuntimeEvent {
        &self.norm.events[index]
    }

    /// The 1-based input line event `index` came from (`None` for what `finish()` emitted).
    pub fn line_of(&self, index: usize) -> Option<usize> {
        self.norm.lines[index]
    }

    /// Where event `index` is: trace, index, input line and type, for failure messages.
    pub fn at(&self, index: usize) -> String {
        let Some(event) = self.norm.events.get(index) else {
            return format!("trace `{}`, event #{index} (past the end)", self.label());
        };
        let line = match self.norm.lines[index] {
            Some(line) => format!("line {line}"),
            None => "from finish()".to_owned(),
        };
        format!(
            "trace `{}`, event #{index} ({line}, {})",
            self.label(),
            event.event.event_type().as_str()
        )
    }

    /// The indices of the events of type `kind`, in order.
    pub fn indices_of(&self, kind: CanonicalRuntimeEventType) -> Vec<usize> {
        (0..self.events().len())
            .filter(|&i| self.event(i).event.event_type() == kind)
            .collect()
    }

    /// The indices of the events that input line `line` (1-based) produced.
    pub fn events_of_line(&self, line: usize) -> Vec<usize> {
        (0..self.events().len())
            .filter(|&i| self.norm.lines[i] == Some(line))
            .collect()
    }

    /// The one event of type `kind` that input line `line` produced.
    pub fn one_event_of_line(&self, line: usize, kind: CanonicalRuntimeEventType) -> usize {
        let found: Vec<usize> = self
            .events_of_line(line)
            .into_iter()
            .filter(|&i| self.event(i).event.event_type() == kind)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "trace `{}`, line {line}: expected exactly one {} event, got events {:?}",
            self.label(),
            kind.as_str(),
            self.describe_line(line)
        );
        found[0]
    }

    /// `index: type` of each event line `line` produced, for failure messages.
    pub fn describe_line(&self, line: usize) -> Vec<String> {
        self.events_of_line(line)
            .into_iter()
            .map(|i| format!("#{i}: {}", self.event(i).event.event_type().as_str()))
            .collect()
    }

    /// The record of input line `line` (see [`Scenario`] for bare lines).
    pub fn record(&self, line: usize) -> &Value {
        &self.records[line - 1]
    }

    /// The `msg` of input line `line`: the provider or client message.
    pub fn msg(&self, line: usize) -> &Value {
        &self.records[line - 1]["msg"]
    }

    /// The exact text of the message of input line `line`, as `raw.payload` carries it.
    pub fn msg_text(&self, line: usize) -> &str {
        &self.msg_texts[line - 1]
    }

    /// The input lines (1-based) whose record `keep` accepts, in order.
    pub fn lines_where(&self, keep: impl Fn(&Value) -> bool) -> Vec<usize> {
        self.records
            .iter()
            .enumerate()
            .filter(|(_, record)| !record.is_null() && keep(record))
            .map(|(index, _)| index + 1)
            .collect()
    }

    /// The input lines of the messages the provider sent (`dir: "in"`, every bare line) whose
    /// message `keep` accepts.
    pub fn provider_lines_where(&self, keep: impl Fn(&Value) -> bool) -> Vec<usize> {
        self.lines_where(|record| record["dir"] == "in" && keep(&record["msg"]))
    }

    /// The input lines of the messages the client sent (`dir: "out"`) whose message `keep`
    /// accepts.
    pub fn client_lines_where(&self, keep: impl Fn(&Value) -> bool) -> Vec<usize> {
        self.lines_where(|record| record["dir"] == "out" && keep(&record["msg"]))
    }

    /// The `raw.payload` of event `index`, parsed.
    pub fn raw_payload(&self, index: usize) -> Value {
        let raw = self
            .event(index)
            .raw
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no raw", self.at(index)));
        serde_json::from_str(raw.payload.get()).unwrap_or_else(|err| panic!("{}: raw payload: {err}", self.at(index)))
    }

    /// The `raw.source` of event `index`.
    pub fn raw_source(&self, index: usize) -> Option<RuntimeEventRawSource> {
        self.event(index).raw.as_ref().map(|raw| raw.source)
    }

    /// The `raw.method` of event `index`.
    pub fn raw_method(&self, index: usize) -> Option<&str> {
        self.event(index).raw.as_ref().and_then(|raw| raw.method.as_deref())
    }

    /// The item type of an `item.started` / `item.updated` / `item.completed` event.
    pub fn item_type(&self, index: usize) -> Option<CanonicalItemType> {
        match &self.event(index).event {
            RuntimeEvent::ItemStarted(payload)
            | RuntimeEvent::ItemUpdated(payload)
            | RuntimeEvent::ItemCompleted(payload) => Some(payload.item_type),
            _ => None,
        }
    }

    pub fn item_id(&self, index: usize) -> &RuntimeItemId {
        self.event(index)
            .item_id
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no itemId", self.at(index)))
    }

    pub fn turn_id(&self, index: usize) -> &TurnId {
        self.event(index)
            .turn_id
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no turnId", self.at(index)))
    }

    pub fn request_id(&self, index: usize) -> &RuntimeRequestId {
        self.event(index)
            .request_id
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no requestId", self.at(index)))
    }

    /// The `providerRefs.providerRequestId` of event `index`.
    pub fn provider_request_id(&self, index: usize) -> Option<&str> {
        let refs = self.event(index).provider_refs.as_ref()?;
        refs.provider_request_id.as_ref().map(|id| id.as_str())
    }

    /// The first event after `after` of type `kind` for the same request as event `after`.
    pub fn next_for_request(&self, after: usize, kind: CanonicalRuntimeEventType) -> usize {
        let request = self.request_id(after);
        (after + 1..self.events().len())
            .find(|&i| self.event(i).event.event_type() == kind && self.event(i).request_id.as_ref() == Some(request))
            .unwrap_or_else(|| panic!("{}: no {} with its requestId after it", self.at(after), kind.as_str()))
    }

    /// The `decision` of the `request.resolved` event `resolved`.
    pub fn decision(&self, resolved: usize) -> Option<&str> {
        payload!(self.event(resolved), RequestResolved).and_then(|payload| payload.decision.as_deref())
    }

    /// The items of type `item_type`: `(item.started index, item.completed index)` per item, in
    /// start order; every started item must complete later.
    pub fn items(&self, item_type: CanonicalItemType) -> Vec<(usize, usize)> {
        self.indices_of(CanonicalRuntimeEventType::ItemStarted)
            .into_iter()
            .filter(|&i| self.item_type(i) == Some(item_type))
            .map(|started| (started, self.completion_of(started)))
            .collect()
    }

    /// The `item.completed` of the item event `started` started.
    pub fn completion_of(&self, started: usize) -> usize {
        let item = self.item_id(started);
        (started + 1..self.events().len())
            .find(|&i| {
                self.event(i).event.event_type() == CanonicalRuntimeEventType::ItemCompleted
                    && self.event(i).item_id.as_ref() == Some(item)
            })
            .unwrap_or_else(|| panic!("{}: the item never completes", self.at(started)))
    }

    /// Every `item.started` has a later `item.completed` of the same item and type, and nothing
    /// starts twice.
    pub fn assert_no_item_left_open(&self) {
        let mut open: BTreeMap<&RuntimeItemId, usize> = BTreeMap::new();
        for (index, event) in self.events().iter().enumerate() {
            match event.event.event_type() {
                CanonicalRuntimeEventType::ItemStarted => {
                    let previous = open.insert(self.item_id(index), index);
                    assert!(
                        previous.is_none(),
                        "{}: the item was already started at event #{previous:?}",
                        self.at(index)
                    );
                }
                CanonicalRuntimeEventType::ItemCompleted => {
                    if let Some(started) = open.remove(self.item_id(index)) {
                        assert_eq!(
                            self.item_type(index),
                            self.item_type(started),
                            "{}: completes an item started as another type at {}",
                            self.at(index),
                            self.at(started)
                        );
                    }
                }
                _ => {}
            }
        }
        let left: Vec<String> = open.values().map(|&index| self.at(index)).collect();
        assert!(
            left.is_empty(),
            "trace `{}`: items started and never completed: {left:?}",
            self.label()
        );
    }

    /// Event `delta` belongs to an item of type `item_type` that was started before it and is
    /// still open (started, not yet completed), in the item's turn.
    pub fn assert_delta_on_open_item(&self, delta: usize, item_type: CanonicalItemType) {
        let item = self.item_id(delta);
        let started = (0..delta)
            .rev()
            .find(|&i| {
                self.event(i).event.event_type() == CanonicalRuntimeEventType::ItemStarted
                    && self.event(i).item_id.as_ref() == Some(item)
            })
            .unwrap_or_else(|| panic!("{}: no item.started before it for its itemId {item}", self.at(delta)));
        assert_eq!(
            self.item_type(started),
            Some(item_type),
            "{}: its item was started as another type at {}",
            self.at(delta),
            self.at(started)
        );
        let closed = (started + 1..delta).find(|&i| {
            self.event(i).event.event_type() == CanonicalRuntimeEventType::ItemCompleted
                && self.event(i).item_id.as_ref() == Some(item)
        });
        assert!(
            closed.is_none(),
            "{}: its item already completed at event #{closed:?}",
            self.at(delta)
        );
        assert_eq!(
            self.event(delta).turn_id,
            self.event(started).turn_id,
            "{}: not in the turn of its item ({})",
            self.at(delta),
            self.at(started)
        );
    }

    /// The one `turn.started` and the one `turn.completed` of a single-turn trace, same turn.
    pub fn single_turn(&self) -> (usize, usize) {
        let started = self.indices_of(CanonicalRuntimeEventType::TurnStarted);
        let completed = self.indices_of(CanonicalRuntimeEventType::TurnCompleted);
        assert_eq!(
            started.len(),
            1,
            "trace `{}`: turn.started at {started:?}",
            self.label()
        );
        assert_eq!(
            completed.len(),
            1,
            "trace `{}`: turn.completed at {completed:?}",
            self.label()
        );
        let (started, completed) = (started[0], completed[0]);
        assert!(
            started < completed,
            "{}: before its turn.started ({})",
            self.at(completed),
            self.at(started)
        );
        assert_eq!(
            self.turn_id(completed),
            self.turn_id(started),
            "{}: turnId of the turn",
            self.at(completed)
        );
        (started, completed)
    }

    /// The state of a `turn.completed`.
    pub fn turn_state(&self, index: usize) -> TurnState {
        payload!(self.event(index), TurnCompleted)
            .unwrap_or_else(|| panic!("{}: not a turn.completed", self.at(index)))
            .state
    }
}
