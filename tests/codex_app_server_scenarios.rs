//! Scenario assertions: what each Codex app-server trace of the corpus must become, asserted on
//! the typed canonical events (`agentwire_canonical::ProviderRuntimeEvent`), not on JSON text.
//!
//! Expected values are read from the trace itself wherever the trace states them (the decision in
//! the client's `dir: "out"` response, the plan steps of `turn/plan/updated`, the answers of a
//! user-input response, the `willRetry` flag of an `error` notification), so a test checks that
//! the normalizer carries what the provider and the client said, not a copy of today's output.
//! Events are tied to the trace line they came from (`Normalized::lines`), and every failure
//! names the trace, the event index and that line.

use std::collections::{BTreeMap, BTreeSet};

use agentwire_canonical::{
    CanonicalItemType, CanonicalRequestType, CanonicalRuntimeEventType, ContentStreamKind, ItemStatus,
    ProviderRuntimeEvent, RuntimeEvent, RuntimeEventRawSource, RuntimeItemId, RuntimeRequestId, TurnId, TurnState,
};
use agentwire_tests::{Normalized, codex_app_server_traces, normalize_codex_app_server};
use serde_json::Value;

/// The payload of `$event` if it is a `RuntimeEvent::$variant`.
macro_rules! payload {
    ($event:expr, $variant:ident) => {
        if let RuntimeEvent::$variant(payload) = &$event.event {
            Some(payload)
        } else {
            None
        }
    };
}

// ---------------------------------------------------------------------------------------------
// A trace and its canonical events
// ---------------------------------------------------------------------------------------------

/// One corpus trace: its records (`{"dir","ts","msg"}`) and its canonical events.
struct Scenario {
    name: String,
    /// The parsed records; index `line - 1` (a blank line is `Value::Null`).
    records: Vec<Value>,
    norm: Normalized,
}

impl Scenario {
    fn load(name: &str) -> Self {
        let path = agentwire_tests::tests_dir()
            .join("corpus/codex-app-server")
            .join(format!("{name}.jsonl"));
        assert!(path.is_file(), "trace `{name}`: {} does not exist", path.display());
        Self::from_path(&path)
    }

    fn from_path(path: &std::path::Path) -> Self {
        let name = path
            .file_stem()
            .expect("a trace file name")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let records = text
            .lines()
            .enumerate()
            .map(|(index, line)| {
                if line.trim().is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(line)
                        .unwrap_or_else(|err| panic!("trace `{name}`, line {}: not JSON: {err}", index + 1))
                }
            })
            .collect();
        let norm = normalize_codex_app_server(path);
        assert_eq!(
            norm.events.len(),
            norm.lines.len(),
            "trace `{name}`: one line number per event"
        );
        Self { name, records, norm }
    }

    fn events(&self) -> &[ProviderRuntimeEvent] {
        &self.norm.events
    }

    fn event(&self, index: usize) -> &ProviderRuntimeEvent {
        &self.norm.events[index]
    }

    /// Where event `index` is: trace, index, input line and type, for failure messages.
    fn at(&self, index: usize) -> String {
        let Some(event) = self.norm.events.get(index) else {
            return format!("trace `{}`, event #{index} (past the end)", self.name);
        };
        let line = match self.norm.lines[index] {
            Some(line) => format!("line {line}"),
            None => "from finish()".to_owned(),
        };
        format!(
            "trace `{}`, event #{index} ({line}, {})",
            self.name,
            event.event.event_type().as_str()
        )
    }

    /// The indices of the events of type `kind`, in order.
    fn indices_of(&self, kind: CanonicalRuntimeEventType) -> Vec<usize> {
        (0..self.events().len())
            .filter(|&i| self.event(i).event.event_type() == kind)
            .collect()
    }

    /// The indices of the events that input line `line` (1-based) produced.
    fn events_of_line(&self, line: usize) -> Vec<usize> {
        (0..self.events().len())
            .filter(|&i| self.norm.lines[i] == Some(line))
            .collect()
    }

    /// The one event of type `kind` that input line `line` produced.
    fn one_event_of_line(&self, line: usize, kind: CanonicalRuntimeEventType) -> usize {
        let found: Vec<usize> = self
            .events_of_line(line)
            .into_iter()
            .filter(|&i| self.event(i).event.event_type() == kind)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "trace `{}`, line {line}: expected exactly one {} event, got events {:?}",
            self.name,
            kind.as_str(),
            self.describe_line(line)
        );
        found[0]
    }

    /// `index: type` of each event line `line` produced, for failure messages.
    fn describe_line(&self, line: usize) -> Vec<String> {
        self.events_of_line(line)
            .into_iter()
            .map(|i| format!("#{i}: {}", self.event(i).event.event_type().as_str()))
            .collect()
    }

    /// The `msg` of input line `line`.
    fn msg(&self, line: usize) -> &Value {
        &self.records[line - 1]["msg"]
    }

    /// The input lines (1-based) of the messages the provider sent (`dir: "in"`) with `method`.
    fn provider_lines(&self, method: &str) -> Vec<usize> {
        self.lines_where(|record| record["dir"] == "in" && record["msg"]["method"] == method)
    }

    fn lines_where(&self, keep: impl Fn(&Value) -> bool) -> Vec<usize> {
        self.records
            .iter()
            .enumerate()
            .filter(|(_, record)| keep(record))
            .map(|(index, _)| index + 1)
            .collect()
    }

    /// The one provider message with `method`: its line.
    fn one_provider_line(&self, method: &str) -> usize {
        let lines = self.provider_lines(method);
        assert_eq!(
            lines.len(),
            1,
            "trace `{}`: expected one `{method}` from the provider, at lines {lines:?}",
            self.name
        );
        lines[0]
    }

    /// The client's response (`dir: "out"`, no `method`) to the provider's request `id`: its line.
    fn client_response(&self, id: &Value) -> usize {
        let lines = self.lines_where(|record| {
            record["dir"] == "out" && record["msg"].get("method").is_none() && record["msg"]["id"] == *id
        });
        assert_eq!(
            lines.len(),
            1,
            "trace `{}`: expected one client response to request id {id}, at lines {lines:?}",
            self.name
        );
        lines[0]
    }

    /// The `raw.payload` of event `index`, parsed.
    fn raw_payload(&self, index: usize) -> Value {
        let raw = self
            .event(index)
            .raw
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no raw", self.at(index)));
        serde_json::from_str(raw.payload.get()).unwrap_or_else(|err| panic!("{}: raw payload: {err}", self.at(index)))
    }

    /// The `raw.source` of event `index`.
    fn raw_source(&self, index: usize) -> Option<RuntimeEventRawSource> {
        self.event(index).raw.as_ref().map(|raw| raw.source)
    }

    /// The `raw.method` of event `index`.
    fn raw_method(&self, index: usize) -> Option<&str> {
        self.event(index).raw.as_ref().and_then(|raw| raw.method.as_deref())
    }

    /// The item type of an `item.started` / `item.updated` / `item.completed` event.
    fn item_type(&self, index: usize) -> Option<CanonicalItemType> {
        match &self.event(index).event {
            RuntimeEvent::ItemStarted(payload)
            | RuntimeEvent::ItemUpdated(payload)
            | RuntimeEvent::ItemCompleted(payload) => Some(payload.item_type),
            _ => None,
        }
    }

    fn item_id(&self, index: usize) -> &RuntimeItemId {
        self.event(index)
            .item_id
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no itemId", self.at(index)))
    }

    fn turn_id(&self, index: usize) -> &TurnId {
        self.event(index)
            .turn_id
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no turnId", self.at(index)))
    }

    fn request_id(&self, index: usize) -> &RuntimeRequestId {
        self.event(index)
            .request_id
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no requestId", self.at(index)))
    }

    /// The `providerRefs.providerRequestId` of event `index`.
    fn provider_request_id(&self, index: usize) -> Option<&str> {
        let refs = self.event(index).provider_refs.as_ref()?;
        refs.provider_request_id.as_ref().map(|id| id.as_str())
    }

    /// The first event after `after` of type `kind` for the same request as event `after`.
    fn next_for_request(&self, after: usize, kind: CanonicalRuntimeEventType) -> usize {
        let request = self.request_id(after);
        (after + 1..self.events().len())
            .find(|&i| self.event(i).event.event_type() == kind && self.event(i).request_id.as_ref() == Some(request))
            .unwrap_or_else(|| panic!("{}: no {} with its requestId after it", self.at(after), kind.as_str()))
    }

    /// The items of type `item_type`: `(item.started index, item.completed index)` per item, in
    /// start order; every started item must complete later.
    fn items(&self, item_type: CanonicalItemType) -> Vec<(usize, usize)> {
        self.indices_of(CanonicalRuntimeEventType::ItemStarted)
            .into_iter()
            .filter(|&i| self.item_type(i) == Some(item_type))
            .map(|started| (started, self.completion_of(started)))
            .collect()
    }

    /// The `item.completed` of the item event `started` started.
    fn completion_of(&self, started: usize) -> usize {
        let item = self.item_id(started);
        (started + 1..self.events().len())
            .find(|&i| {
                self.event(i).event.event_type() == CanonicalRuntimeEventType::ItemCompleted
                    && self.event(i).item_id.as_ref() == Some(item)
            })
            .unwrap_or_else(|| panic!("{}: the item never completes", self.at(started)))
    }

    /// Every `item.started` has a later `item.completed` of the same item and type, and nothing
    /// completes twice.
    fn assert_no_item_left_open(&self) {
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
            self.name
        );
    }

    /// Event `delta` belongs to an item of type `item_type` that was started before it and is
    /// still open (started, not yet completed).
    fn assert_delta_on_open_item(&self, delta: usize, item_type: CanonicalItemType) {
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

    /// For each provider notification `method`, the one `content.delta` its line produced, with
    /// `kind` and the notification's text; returns the delta event indices.
    fn deltas_for(&self, method: &str, kind: ContentStreamKind) -> Vec<usize> {
        let lines = self.provider_lines(method);
        assert!(!lines.is_empty(), "trace `{}`: no `{method}` notification", self.name);
        lines
            .into_iter()
            .map(|line| {
                let index = self.one_event_of_line(line, CanonicalRuntimeEventType::ContentDelta);
                let delta = payload!(self.event(index), ContentDelta).expect("a content.delta");
                assert_eq!(delta.stream_kind, kind, "{}: streamKind", self.at(index));
                let params = &self.msg(line)["params"];
                assert_eq!(
                    delta.delta,
                    params["delta"].as_str().expect("a delta string"),
                    "{}: delta text",
                    self.at(index)
                );
                index
            })
            .collect()
    }

    /// The provider's request `method` (one in the trace), the client's response to it, and the
    /// canonical pair: `request.opened` of `request_type` from the request's line and the later
    /// `request.resolved` with the same `requestId`.
    fn request_cycle(&self, method: &str, request_type: CanonicalRequestType) -> RequestCycle {
        let request_line = self.one_provider_line(method);
        let id = self.msg(request_line)["id"].clone();
        assert!(
            !id.is_null(),
            "trace `{}`, line {request_line}: `{method}` has no JSON-RPC id",
            self.name
        );
        let response_line = self.client_response(&id);
        let opened = self.one_event_of_line(request_line, CanonicalRuntimeEventType::RequestOpened);
        let payload = payload!(self.event(opened), RequestOpened).expect("a request.opened");
        assert_eq!(payload.request_type, request_type, "{}: requestType", self.at(opened));
        assert_eq!(
            self.raw_source(opened),
            Some(RuntimeEventRawSource::CodexAppServerRequest),
            "{}: raw.source",
            self.at(opened)
        );
        assert_eq!(self.raw_method(opened), Some(method), "{}: raw.method", self.at(opened));
        assert_eq!(
            self.raw_payload(opened),
            *self.msg(request_line),
            "{}: raw.payload is the request",
            self.at(opened)
        );
        let provider_id = match &id {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        assert_eq!(
            self.provider_request_id(opened),
            Some(provider_id.as_str()),
            "{}: providerRequestId",
            self.at(opened)
        );
        let resolved = self.next_for_request(opened, CanonicalRuntimeEventType::RequestResolved);
        let resolution = payload!(self.event(resolved), RequestResolved).expect("a request.resolved");
        assert_eq!(
            resolution.request_type,
            request_type,
            "{}: requestType",
            self.at(resolved)
        );
        assert_eq!(
            self.event(resolved).turn_id,
            self.event(opened).turn_id,
            "{}: turnId of its request",
            self.at(resolved)
        );
        let resolutions = self
            .indices_of(CanonicalRuntimeEventType::RequestResolved)
            .into_iter()
            .filter(|&i| self.event(i).request_id == self.event(opened).request_id)
            .count();
        assert_eq!(
            resolutions,
            1,
            "{}: the request resolves {resolutions} times",
            self.at(opened)
        );
        RequestCycle {
            response: self.msg(response_line)["result"].clone(),
            opened,
            resolved,
        }
    }

    /// The `request.resolved` decision of a cycle.
    fn decision(&self, cycle: &RequestCycle) -> Option<&str> {
        payload!(self.event(cycle.resolved), RequestResolved).and_then(|payload| payload.decision.as_deref())
    }

    /// The one `turn.started` and the one `turn.completed` of a single-turn trace, same turn.
    fn single_turn(&self) -> (usize, usize) {
        let started = self.indices_of(CanonicalRuntimeEventType::TurnStarted);
        let completed = self.indices_of(CanonicalRuntimeEventType::TurnCompleted);
        assert_eq!(started.len(), 1, "trace `{}`: turn.started at {started:?}", self.name);
        assert_eq!(
            completed.len(),
            1,
            "trace `{}`: turn.completed at {completed:?}",
            self.name
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
    fn turn_state(&self, index: usize) -> TurnState {
        payload!(self.event(index), TurnCompleted)
            .unwrap_or_else(|| panic!("{}: not a turn.completed", self.at(index)))
            .state
    }
}

/// A provider request and its resolution (see [`Scenario::request_cycle`]).
struct RequestCycle {
    /// The `result` of the client's response.
    response: Value,
    opened: usize,
    resolved: usize,
}

// ---------------------------------------------------------------------------------------------
// Approvals
// ---------------------------------------------------------------------------------------------

/// A command approval: `request.opened(command_execution_approval)` on the command item, then its
/// `request.resolved` carrying the decision of the client's response, which must be `expected`.
fn command_approval(name: &str, expected: &str) -> (Scenario, RequestCycle) {
    let sc = Scenario::load(name);
    let cycle = sc.request_cycle(
        "item/commandExecution/requestApproval",
        CanonicalRequestType::CommandExecutionApproval,
    );
    let said = cycle.response["decision"]
        .as_str()
        .unwrap_or_else(|| panic!("trace `{name}`: response has no decision"));
    assert_eq!(said, expected, "trace `{name}`: the client's decision in the trace");
    assert_eq!(sc.decision(&cycle), Some(said), "{}: decision", sc.at(cycle.resolved));
    let commands = sc.items(CanonicalItemType::CommandExecution);
    let (started, _) = *commands
        .iter()
        .find(|(started, _)| sc.event(*started).item_id == sc.event(cycle.opened).item_id)
        .unwrap_or_else(|| panic!("{}: its itemId is no command_execution item", sc.at(cycle.opened)));
    assert!(
        started < cycle.opened,
        "{}: the request comes before its item ({})",
        sc.at(cycle.opened),
        sc.at(started)
    );
    (sc, cycle)
}

#[test]
fn shell_approval_accept() {
    let (sc, _) = command_approval("shell_approval_accept", "accept");
    command_output(&sc);
    let (_, completed) = sc.items(CanonicalItemType::CommandExecution)[0];
    let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(
        status,
        Some(ItemStatus::Completed),
        "{}: the accepted command's status",
        sc.at(completed)
    );
}

#[test]
fn shell_approval_cancel() {
    let (sc, cycle) = command_approval("shell_approval_cancel", "cancel");
    let (_, completed) = sc.items(CanonicalItemType::CommandExecution)[0];
    assert!(
        cycle.resolved < completed,
        "{}: the command completes before its request resolves",
        sc.at(completed)
    );
    let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(
        status,
        Some(ItemStatus::Declined),
        "{}: the cancelled command's status",
        sc.at(completed)
    );
    let (_, turn) = sc.single_turn();
    assert_eq!(
        sc.turn_state(turn),
        TurnState::Interrupted,
        "{}: state after a cancel",
        sc.at(turn)
    );
}

// ---------------------------------------------------------------------------------------------
// Content streams
// ---------------------------------------------------------------------------------------------

/// Every `content.delta(command_output)` (one per `item/commandExecution/outputDelta`, same text)
/// is on the open `command_execution` item started before it.
fn command_output(sc: &Scenario) {
    let from_notifications = sc.deltas_for("item/commandExecution/outputDelta", ContentStreamKind::CommandOutput);
    let all: Vec<usize> = sc
        .indices_of(CanonicalRuntimeEventType::ContentDelta)
        .into_iter()
        .filter(|&i| {
            payload!(sc.event(i), ContentDelta).map(|payload| payload.stream_kind)
                == Some(ContentStreamKind::CommandOutput)
        })
        .collect();
    assert_eq!(
        all, from_notifications,
        "trace `{}`: command_output deltas vs outputDelta notifications",
        sc.name
    );
    for delta in all {
        sc.assert_delta_on_open_item(delta, CanonicalItemType::CommandExecution);
    }
}

#[test]
fn shell() {
    let sc = Scenario::load("shell");
    command_output(&sc);
}

#[test]
fn reasoning() {
    let sc = Scenario::load("reasoning");
    let summary = sc.deltas_for(
        "item/reasoning/summaryTextDelta",
        ContentStreamKind::ReasoningSummaryText,
    );
    let text = sc.deltas_for("item/reasoning/textDelta", ContentStreamKind::ReasoningText);
    for (deltas, index_key) in [(&summary, "summaryIndex"), (&text, "contentIndex")] {
        for &index in deltas {
            let line = sc.norm.lines[index].expect("a delta from a line");
            let expected = sc.msg(line)["params"][index_key].as_i64();
            assert!(expected.is_some(), "trace `reasoning`, line {line}: no {index_key}");
            let delta = payload!(sc.event(index), ContentDelta).expect("a content.delta");
            let (summary_index, content_index) = (delta.summary_index, delta.content_index);
            if index_key == "summaryIndex" {
                assert_eq!(
                    (summary_index, content_index),
                    (expected, None),
                    "{}: (summaryIndex, contentIndex)",
                    sc.at(index)
                );
            } else {
                assert_eq!(
                    (summary_index, content_index),
                    (None, expected),
                    "{}: (summaryIndex, contentIndex)",
                    sc.at(index)
                );
            }
            sc.assert_delta_on_open_item(index, CanonicalItemType::Reasoning);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Plans and file changes
// ---------------------------------------------------------------------------------------------

/// Each `turn/plan/updated` becomes a `turn.plan.updated` with the same explanation and steps.
fn plan_updates(name: &str) {
    let sc = Scenario::load(name);
    let lines = sc.provider_lines("turn/plan/updated");
    assert!(!lines.is_empty(), "trace `{name}`: no turn/plan/updated");
    let (turn, _) = sc.single_turn();
    for line in &lines {
        let index = sc.one_event_of_line(*line, CanonicalRuntimeEventType::TurnPlanUpdated);
        let plan = payload!(sc.event(index), TurnPlanUpdated).expect("a turn.plan.updated");
        let params = &sc.msg(*line)["params"];
        let expected: Vec<(&str, &str)> = params["plan"]
            .as_array()
            .expect("a plan array")
            .iter()
            .map(|step| {
                (
                    step["step"].as_str().expect("a step"),
                    step["status"].as_str().expect("a status"),
                )
            })
            .collect();
        let got: Vec<(&str, &str)> = plan
            .plan
            .iter()
            .map(|step| (step.step.as_str(), step.status.as_str()))
            .collect();
        assert_eq!(got, expected, "{}: (step, status) of the plan", sc.at(index));
        assert_eq!(
            plan.explanation.clone().flatten().as_deref(),
            params["explanation"].as_str(),
            "{}: explanation",
            sc.at(index)
        );
        assert_eq!(
            sc.event(index).turn_id,
            sc.event(turn).turn_id,
            "{}: turnId",
            sc.at(index)
        );
    }
    assert_eq!(
        sc.indices_of(CanonicalRuntimeEventType::TurnPlanUpdated).len(),
        lines.len(),
        "trace `{name}`: plan events"
    );
}

#[test]
fn plan() {
    plan_updates("plan");
}

#[test]
fn plan2() {
    plan_updates("plan2");
}

/// A `file_change` item started and completed (completed with `status`), and, unless declined,
/// a `turn.diff.updated` per `turn/diff/updated` carrying its diff in the item's turn. Returns
/// the scenario and the item's `(started, completed)`.
fn file_change(name: &str, status: ItemStatus) -> (Scenario, (usize, usize)) {
    let sc = Scenario::load(name);
    let items = sc.items(CanonicalItemType::FileChange);
    assert_eq!(
        items.len(),
        1,
        "trace `{name}`: file_change items (started, completed): {items:?}"
    );
    let (started, completed) = items[0];
    let got = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
    assert_eq!(got, Some(status), "{}: status", sc.at(completed));
    let diffs = sc.provider_lines("turn/diff/updated");
    if status != ItemStatus::Declined {
        assert!(!diffs.is_empty(), "trace `{name}`: no turn/diff/updated");
    }
    for line in diffs {
        let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::TurnDiffUpdated);
        let diff = payload!(sc.event(index), TurnDiffUpdated).expect("a turn.diff.updated");
        assert_eq!(
            Some(diff.unified_diff.as_str()),
            sc.msg(line)["params"]["diff"].as_str(),
            "{}: diff",
            sc.at(index)
        );
        assert_eq!(
            sc.event(index).turn_id,
            sc.event(started).turn_id,
            "{}: turn of the file change",
            sc.at(index)
        );
    }
    (sc, (started, completed))
}

/// A file-change approval with the client's `expected` decision, on the file_change item.
fn file_change_approval(sc: &Scenario, item: usize, expected: &str) {
    let cycle = sc.request_cycle(
        "item/fileChange/requestApproval",
        CanonicalRequestType::FileChangeApproval,
    );
    let said = cycle.response["decision"].as_str().expect("a decision in the response");
    assert_eq!(
        said, expected,
        "trace `{}`: the client's decision in the trace",
        sc.name
    );
    assert_eq!(sc.decision(&cycle), Some(said), "{}: decision", sc.at(cycle.resolved));
    assert_eq!(
        sc.event(cycle.opened).item_id,
        sc.event(item).item_id,
        "{}: itemId of the file change",
        sc.at(cycle.opened)
    );
}

#[test]
fn patch() {
    file_change("patch", ItemStatus::Completed);
}

#[test]
fn patch_update() {
    file_change("patch_update", ItemStatus::Completed);
}

#[test]
fn patch_approval_accept() {
    let (sc, (started, _)) = file_change("patch_approval_accept", ItemStatus::Completed);
    file_change_approval(&sc, started, "accept");
}

#[test]
fn patch_approval_decline() {
    let (sc, (started, _)) = file_change("patch_approval_decline", ItemStatus::Declined);
    file_change_approval(&sc, started, "decline");
}

#[test]
fn patch_streaming_events() {
    let (sc, (started, completed)) = file_change("patch_streaming_events", ItemStatus::Completed);
    let lines = sc.provider_lines("item/fileChange/patchUpdated");
    assert!(
        !lines.is_empty(),
        "trace `patch_streaming_events`: no item/fileChange/patchUpdated"
    );
    for line in lines {
        let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::ItemUpdated);
        assert_eq!(
            sc.item_type(index),
            Some(CanonicalItemType::FileChange),
            "{}: itemType",
            sc.at(index)
        );
        assert_eq!(
            sc.item_id(index),
            sc.item_id(started),
            "{}: itemId of the file change ({})",
            sc.at(index),
            sc.at(started)
        );
        assert_eq!(
            sc.event(index).turn_id,
            sc.event(started).turn_id,
            "{}: turnId",
            sc.at(index)
        );
        assert!(
            index < completed,
            "{}: after the item completed ({})",
            sc.at(index),
            sc.at(completed)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Tools and user input
// ---------------------------------------------------------------------------------------------

#[test]
fn mcp_traces() {
    let traces: Vec<_> = codex_app_server_traces()
        .into_iter()
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("mcp"))
        })
        .collect();
    assert!(traces.len() >= 3, "the mcp* traces: {traces:?}");
    for path in traces {
        let sc = Scenario::from_path(&path);
        let items = sc.items(CanonicalItemType::McpToolCall);
        let expected = sc.lines_where(|record| {
            record["dir"] == "in"
                && record["msg"]["method"] == "item/started"
                && record["msg"]["params"]["item"]["type"] == "mcpToolCall"
        });
        assert!(!items.is_empty(), "trace `{}`: no mcp_tool_call item", sc.name);
        assert_eq!(
            items.len(),
            expected.len(),
            "trace `{}`: mcp_tool_call items vs mcpToolCall item/started",
            sc.name
        );
        for (_, completed) in items {
            let status = payload!(sc.event(completed), ItemCompleted).and_then(|payload| payload.status);
            assert_eq!(status, Some(ItemStatus::Completed), "{}: status", sc.at(completed));
        }
    }
}

#[test]
fn mcp_server_elicitation() {
    let method = "mcpServer/elicitation/request";
    let traces: Vec<Scenario> = codex_app_server_traces()
        .iter()
        .map(|path| Scenario::from_path(path))
        .filter(|sc| !sc.provider_lines(method).is_empty())
        .collect();
    assert!(!traces.is_empty(), "no trace has `{method}`");
    for sc in traces {
        let cycle = sc.request_cycle(method, CanonicalRequestType::McpServerElicitation);
        let action = cycle.response["action"]
            .as_str()
            .expect("an action in the elicitation response");
        assert_eq!(
            sc.decision(&cycle),
            Some(action),
            "{}: decision is the response's action",
            sc.at(cycle.resolved)
        );
        let resolution =
            payload!(sc.event(cycle.resolved), RequestResolved).and_then(|payload| payload.resolution.as_ref());
        assert_eq!(
            resolution,
            Some(&cycle.response),
            "{}: resolution is the client's response",
            sc.at(cycle.resolved)
        );
    }
}

#[test]
fn dynamic_tool() {
    let sc = Scenario::load("dynamic_tool");
    assert!(
        sc.provider_lines("serverRequest/resolved").is_empty(),
        "trace `dynamic_tool`: has a serverRequest/resolved; the test assumes Codex sends none for item/tool/call"
    );
    let cycle = sc.request_cycle("item/tool/call", CanonicalRequestType::DynamicToolCall);
    let resolved = cycle.resolved;
    assert_eq!(
        sc.raw_source(resolved),
        Some(RuntimeEventRawSource::CodexAppServerClientResponse),
        "{}: raw.source",
        sc.at(resolved)
    );
    let line = sc.norm.lines[resolved].unwrap_or_else(|| panic!("{}: from no line", sc.at(resolved)));
    assert_eq!(
        sc.records[line - 1]["dir"],
        "out",
        "{}: not from the client's response",
        sc.at(resolved)
    );
    assert_eq!(
        sc.raw_payload(resolved),
        *sc.msg(line),
        "{}: raw.payload is the client's response",
        sc.at(resolved)
    );
    let resolution = payload!(sc.event(resolved), RequestResolved).and_then(|payload| payload.resolution.as_ref());
    assert_eq!(
        resolution,
        Some(&cycle.response),
        "{}: resolution is the tool result",
        sc.at(resolved)
    );
    let items = sc.items(CanonicalItemType::DynamicToolCall);
    assert_eq!(
        items.len(),
        1,
        "trace `dynamic_tool`: dynamic_tool_call items {items:?}"
    );
    let (started, completed) = items[0];
    assert_eq!(
        sc.event(cycle.opened).item_id,
        sc.event(started).item_id,
        "{}: itemId of the tool call",
        sc.at(cycle.opened)
    );
    assert!(
        started < cycle.opened && resolved < completed,
        "trace `dynamic_tool`: the request is not inside its item"
    );
}

#[test]
fn user_input_plan_mode() {
    let sc = Scenario::load("user_input_plan_mode");
    let method = "item/tool/requestUserInput";
    let cycle = sc.request_cycle(method, CanonicalRequestType::ToolUserInput);
    let line = sc.one_provider_line(method);
    let requested = sc.one_event_of_line(line, CanonicalRuntimeEventType::UserInputRequested);
    assert_eq!(
        sc.request_id(requested),
        sc.request_id(cycle.opened),
        "{}: requestId of the request.opened",
        sc.at(requested)
    );
    let questions = &payload!(sc.event(requested), UserInputRequested)
        .expect("a user-input.requested")
        .questions;
    let ids = |questions: &Value| -> Vec<String> {
        questions
            .as_array()
            .into_iter()
            .flatten()
            .map(|question| question["id"].to_string())
            .collect()
    };
    let asked = ids(&sc.msg(line)["params"]["questions"]);
    assert!(
        !asked.is_empty(),
        "trace `user_input_plan_mode`, line {line}: no questions"
    );
    assert_eq!(ids(questions), asked, "{}: the question ids", sc.at(requested));

    let answered = sc.next_for_request(requested, CanonicalRuntimeEventType::UserInputResolved);
    let answers = &payload!(sc.event(answered), UserInputResolved)
        .expect("a user-input.resolved")
        .answers;
    assert_eq!(
        *answers,
        cycle.response["answers"],
        "{}: the answers of the client's response",
        sc.at(answered)
    );
    assert!(
        answered <= cycle.resolved,
        "{}: after the request.resolved ({})",
        sc.at(answered),
        sc.at(cycle.resolved)
    );
}

// ---------------------------------------------------------------------------------------------
// Turn endings: interrupt, retries, failures
// ---------------------------------------------------------------------------------------------

#[test]
fn interrupt() {
    let sc = Scenario::load("interrupt");
    let (_, completed) = sc.single_turn();
    assert_eq!(
        completed,
        sc.events().len() - 1,
        "{}: not the last event",
        sc.at(completed)
    );
    assert_eq!(
        sc.turn_state(completed),
        TurnState::Interrupted,
        "{}: state",
        sc.at(completed)
    );
    sc.assert_no_item_left_open();
}

/// The single turn completes (`completed`) and nothing is a `runtime.error`.
fn recovers(name: &str) -> Scenario {
    let sc = Scenario::load(name);
    let (_, completed) = sc.single_turn();
    assert_eq!(
        sc.turn_state(completed),
        TurnState::Completed,
        "{}: state",
        sc.at(completed)
    );
    let errors: Vec<String> = sc
        .indices_of(CanonicalRuntimeEventType::RuntimeError)
        .into_iter()
        .map(|i| sc.at(i))
        .collect();
    assert!(errors.is_empty(), "trace `{name}`: runtime.error events: {errors:?}");
    sc
}

#[test]
fn flaky500_retry() {
    recovers("flaky500_retry");
}

#[test]
fn stream_drop_retry() {
    let sc = recovers("stream_drop_retry");
    let retrying = sc.lines_where(|record| {
        record["dir"] == "in" && record["msg"]["method"] == "error" && record["msg"]["params"]["willRetry"] == true
    });
    assert!(
        !retrying.is_empty(),
        "trace `stream_drop_retry`: no `error` notification with willRetry: true"
    );
    for line in retrying {
        let index = sc.one_event_of_line(line, CanonicalRuntimeEventType::RuntimeWarning);
        assert_eq!(sc.raw_method(index), Some("error"), "{}: raw.method", sc.at(index));
        assert_eq!(
            sc.raw_payload(index),
            *sc.msg(line),
            "{}: raw.payload is the error notification",
            sc.at(index)
        );
        assert_eq!(
            sc.raw_payload(index)["params"]["willRetry"],
            true,
            "{}: raw willRetry",
            sc.at(index)
        );
    }
}

/// Exactly one `runtime.error` and one `turn.completed(failed)`, both for the trace's turn, the
/// error first; the turn's `errorMessage` is the provider's.
fn fails(name: &str) {
    let sc = Scenario::load(name);
    let (started, completed) = sc.single_turn();
    assert_eq!(
        sc.turn_state(completed),
        TurnState::Failed,
        "{}: state",
        sc.at(completed)
    );
    let errors = sc.indices_of(CanonicalRuntimeEventType::RuntimeError);
    let described: Vec<String> = errors.iter().map(|&i| sc.at(i)).collect();
    assert_eq!(errors.len(), 1, "trace `{name}`: runtime.error events: {described:?}");
    let error = errors[0];
    assert_eq!(
        sc.turn_id(error),
        sc.turn_id(started),
        "{}: turnId of the turn",
        sc.at(error)
    );
    assert!(
        error < completed,
        "{}: after the turn.completed ({})",
        sc.at(error),
        sc.at(completed)
    );
    let line = sc.one_provider_line("turn/completed");
    let provider_message = sc.msg(line)["params"]["turn"]["error"]["message"].as_str();
    assert!(
        provider_message.is_some(),
        "trace `{name}`, line {line}: a failed turn without error.message"
    );
    let payload = payload!(sc.event(completed), TurnCompleted).expect("a turn.completed");
    assert_eq!(
        payload.error_message.as_deref(),
        provider_message,
        "{}: errorMessage",
        sc.at(completed)
    );
}

#[test]
fn error500() {
    fails("error500");
}

#[test]
fn failed() {
    fails("failed");
}

// ---------------------------------------------------------------------------------------------
// Several turns
// ---------------------------------------------------------------------------------------------

#[test]
fn multi_turn() {
    let sc = Scenario::load("multi_turn");
    let started = sc.indices_of(CanonicalRuntimeEventType::TurnStarted);
    let completed = sc.indices_of(CanonicalRuntimeEventType::TurnCompleted);
    assert_eq!(
        (started.len(), completed.len()),
        (3, 3),
        "trace `multi_turn`: turn.started {started:?}, turn.completed {completed:?}"
    );

    let thread = sc.event(started[0]).thread_id.clone();
    assert!(thread.is_some(), "{}: no threadId", sc.at(started[0]));
    let threads: BTreeSet<_> = sc
        .events()
        .iter()
        .filter_map(|event| event.thread_id.as_ref())
        .collect();
    assert_eq!(threads.len(), 1, "trace `multi_turn`: canonical threadIds {threads:?}");

    let provider_turns: Vec<&str> = sc
        .provider_lines("turn/started")
        .into_iter()
        .map(|line| sc.msg(line)["params"]["turn"]["id"].as_str().expect("a turn id"))
        .collect();
    assert_eq!(
        provider_turns.len(),
        3,
        "trace `multi_turn`: turn/started notifications"
    );

    let turns: BTreeSet<&TurnId> = started.iter().map(|&i| sc.turn_id(i)).collect();
    assert_eq!(
        turns.len(),
        3,
        "trace `multi_turn`: the turnIds are not distinct: {turns:?}"
    );
    let mut previous_end = 0;
    for (k, (&start, &end)) in started.iter().zip(&completed).enumerate() {
        assert!(
            previous_end <= start && start < end,
            "{}: turn {k} overlaps or is out of order",
            sc.at(start)
        );
        previous_end = end;
        let turn = sc.turn_id(start);
        assert_eq!(sc.event(start).thread_id, thread, "{}: threadId", sc.at(start));
        assert_eq!(sc.event(end).thread_id, thread, "{}: threadId", sc.at(end));
        assert_eq!(sc.turn_id(end), turn, "{}: turnId of turn {k}", sc.at(end));
        assert_eq!(sc.turn_state(end), TurnState::Completed, "{}: state", sc.at(end));
        let mut items = 0;
        for index in start..=end {
            let event = sc.event(index);
            if event.item_id.is_none() {
                continue;
            }
            items += 1;
            assert_eq!(
                event.turn_id.as_ref(),
                Some(turn),
                "{}: turnId of turn {k}",
                sc.at(index)
            );
            assert_eq!(event.thread_id, thread, "{}: threadId", sc.at(index));
            let provider_turn = event
                .provider_refs
                .as_ref()
                .and_then(|refs| refs.provider_turn_id.as_ref());
            assert_eq!(
                provider_turn.map(|id| id.as_str()),
                Some(provider_turns[k]),
                "{}: providerTurnId",
                sc.at(index)
            );
        }
        assert!(items > 0, "trace `multi_turn`: turn {k} has no item events");
    }
    let outside: Vec<String> = (0..sc.events().len())
        .filter(|&i| sc.event(i).item_id.is_some())
        .filter(|&i| {
            !started
                .iter()
                .zip(&completed)
                .any(|(&start, &end)| start <= i && i <= end)
        })
        .map(|i| sc.at(i))
        .collect();
    assert!(
        outside.is_empty(),
        "trace `multi_turn`: item events outside every turn: {outside:?}"
    );
    sc.assert_no_item_left_open();
}
