//! The canonical model's contract, checked three ways against each other: the hand-written JSON
//! Schema (`schemas/canonical/provider-runtime.schema.json`), the Rust types generated from it
//! (`agentwire-canonical`), and the example events in `tests/canonical/`.
//!
//! - every line of `examples.jsonl` decodes into `ProviderRuntimeEvent`, encodes back to the same
//!   JSON value, and is valid under the schema;
//! - every line of `invalid.jsonl` (`{"why": ..., "event": ...}`) is rejected by both;
//! - together the examples use every event type, every property of every object (envelope,
//!   `providerRefs`, `raw`, each payload, each item type's content) and every value of every enum
//!   the events carry; `snapshot.json` does the same for the snapshot's objects.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use agentwire_canonical::{
    CanonicalItemType, EventId, ItemContent, ItemLifecyclePayload, Json, ProviderRefs, ProviderRuntimeEvent,
    ProviderThreadId, RuntimeEvent, RuntimeWarningPayload, SessionSnapshot, SnapshotChange, TurnCompletedPayload,
    TurnState, WriteJson,
};
use serde_json::Value;

const SCHEMA: &str = "schemas/canonical/provider-runtime.schema.json";

fn schema_path() -> PathBuf {
    agentwire_tests::workspace_root().join(SCHEMA)
}

fn schema() -> Value {
    let path = schema_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn defs(schema: &Value) -> &serde_json::Map<String, Value> {
    schema["$defs"].as_object().expect("the schema has `$defs`")
}

/// A draft 2020-12 validator for the schema, with `format` asserted (so `createdAt` must be an
/// RFC 3339 date-time) rather than treated as an annotation.
fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("{SCHEMA} does not compile as a JSON Schema: {e}"))
}

/// All schema errors for `instance`, one per line, with the instance path of each.
fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

/// One line of a JSONL file: its 1-based number, its text and its parsed value.
struct Line {
    number: usize,
    text: String,
    value: Value,
}

fn read_jsonl(name: &str) -> Vec<Line> {
    let path = agentwire_tests::tests_dir().join("canonical").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let number = index + 1;
            assert!(
                !line.trim().is_empty(),
                "{name}:{number}: blank line (one JSON value per line, no blank lines)"
            );
            let value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{number}: not JSON: {e}"));
            Line {
                number,
                text: line.to_owned(),
                value,
            }
        })
        .collect()
}

fn event_type_enum(schema: &Value) -> Vec<String> {
    defs(schema)["CanonicalRuntimeEventType"]["enum"]
        .as_array()
        .expect("CanonicalRuntimeEventType has an `enum` array")
        .iter()
        .map(|v| v.as_str().expect("event types are strings").to_owned())
        .collect()
}

/// Panics with every failure at once, so one run shows all broken lines.
fn assert_no_failures(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} {what}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn schema_is_valid_draft_2020_12_and_the_union_follows_the_event_types() {
    let schema = schema();
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("{SCHEMA} is not a valid draft 2020-12 schema: {e}");
    }
    let types = event_type_enum(&schema);
    assert_eq!(types.len(), 45, "spec 1.2 has 45 event types");
    let unique: BTreeSet<&String> = types.iter().collect();
    assert_eq!(unique.len(), types.len(), "CanonicalRuntimeEventType has duplicates");

    // The union lists one event definition per type, in the order of spec 1.2, and each event
    // definition's `type` const and `x-eventType` name that type.
    let defs = defs(&schema);
    let union: Vec<&str> = defs["ProviderRuntimeEventV2"]["oneOf"]
        .as_array()
        .expect("ProviderRuntimeEventV2 is a oneOf")
        .iter()
        .map(|branch| {
            branch["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .expect("union branches are local $refs")
        })
        .collect();
    let union_types: Vec<&str> = union
        .iter()
        .map(|name| {
            let def = &defs[*name];
            let const_type = def["properties"]["type"]["const"].as_str();
            assert_eq!(
                const_type,
                def["x-eventType"].as_str(),
                "{name}: `type` const and `x-eventType` disagree"
            );
            const_type.unwrap_or_else(|| panic!("{name} has no `type` const"))
        })
        .collect();
    assert_eq!(
        union_types, types,
        "the union's order is not the order of CanonicalRuntimeEventType"
    );
}

#[test]
fn every_example_decodes_round_trips_and_is_schema_valid() {
    let schema = schema();
    let validator = validator(&schema);
    let lines = read_jsonl("examples.jsonl");
    assert!(
        lines.len() >= 45,
        "examples.jsonl has {} lines, fewer than the 45 event types",
        lines.len()
    );

    let mut failures = Vec::new();
    for line in &lines {
        let at = format!("examples.jsonl:{} ({})", line.number, line.value["type"]);
        let errors = schema_errors(&validator, &line.value);
        if !errors.is_empty() {
            failures.push(format!(
                "{at}: not valid under the schema:\n    {}",
                errors.join("\n    ")
            ));
        }
        let event = match serde_json::from_str::<ProviderRuntimeEvent>(&line.text) {
            Ok(event) => event,
            Err(e) => {
                failures.push(format!("{at}: does not decode: {e}"));
                continue;
            }
        };
        match serde_json::to_value(&event) {
            Ok(encoded) if encoded == line.value => {}
            Ok(encoded) => failures.push(format!(
                "{at}: encodes to a different value\n    original: {}\n    encoded:  {}",
                line.text, encoded
            )),
            Err(e) => failures.push(format!("{at}: does not encode: {e}")),
        }
        // `WriteJson` writes what `Serialize` writes, byte for byte.
        let mut written = Vec::new();
        match (event.write_json(&mut written), serde_json::to_string(&event)) {
            (Ok(()), Ok(text)) if written == text.as_bytes() => {}
            (Ok(()), Ok(text)) => failures.push(format!(
                "{at}: WriteJson and Serialize disagree\n    written:    {}\n    serialized: {text}",
                String::from_utf8_lossy(&written)
            )),
            (Err(e), _) | (_, Err(e)) => failures.push(format!("{at}: does not write: {e}")),
        }
        // Decoding the encoded text again gives the same event (encode/decode are inverses).
        match serde_json::to_string(&event).map(|text| serde_json::from_str::<ProviderRuntimeEvent>(&text)) {
            Ok(Ok(again)) if again == event => {}
            Ok(Ok(_)) => failures.push(format!("{at}: decode(encode(event)) != event")),
            Ok(Err(e)) => failures.push(format!("{at}: its own encoding does not decode: {e}")),
            Err(e) => failures.push(format!("{at}: does not encode to text: {e}")),
        }
    }
    assert_no_failures("failing examples", &failures);
}

/// Strings that need escaping (each character alone, since one of them sends a whole string to
/// serde_json) and some that do not (DEL, `/`, non-ASCII), numbers serde_json writes its own way,
/// and `string | null` both ways, in the envelope and in payloads.
#[test]
fn write_json_escapes_and_numbers_as_serialize_does() {
    let lines = read_jsonl("examples.jsonl");
    let mut event: ProviderRuntimeEvent = serde_json::from_str(&lines[0].text).expect("the first example decodes");
    let awkward = ["q\"", "b\\s", "\u{0}", "\u{1f}", "\t", "\u{7f}/é😀", "x"];
    for text in awkward {
        event.event_id = EventId::new(format!("e{text}e")).expect("an id");
        event.provider_refs = Some(ProviderRefs {
            provider_thread_id: Some(ProviderThreadId::new(format!("t{text}t")).expect("an id")),
            ..ProviderRefs::default()
        });
        let mut cases = vec![RuntimeEvent::RuntimeWarning(RuntimeWarningPayload {
            message: format!("{text}\n\r\u{2028}"),
            detail: Some(serde_json::json!({ text: [text, 1.5, -0.0, 1e300, null] })),
        })];
        for (cost, stop_reason) in [
            (f64::NAN, None),
            (-0.0, Some(None)),
            (0.1 + 0.2, Some(Some(text.to_string()))),
            (f64::INFINITY, Some(Some(String::new()))),
        ] {
            cases.push(RuntimeEvent::TurnCompleted(TurnCompletedPayload {
                state: TurnState::Completed,
                stop_reason,
                total_cost_usd: Some(cost),
                ..serde_json::from_str(r#"{"state":"completed"}"#).expect("a minimal payload")
            }));
        }
        for case in cases {
            event.event = case;
            let mut written = Vec::new();
            event.write_json(&mut written).expect("writes");
            let serialized = serde_json::to_string(&event).expect("serializes");
            assert_eq!(String::from_utf8(written).expect("UTF-8"), serialized);
        }
    }
}

#[test]
fn every_invalid_line_is_rejected_by_decoding_and_by_the_schema() {
    let schema = schema();
    let validator = validator(&schema);
    let lines = read_jsonl("invalid.jsonl");
    assert!(
        lines.len() >= 15,
        "invalid.jsonl has {} lines, want at least 15",
        lines.len()
    );

    let mut failures = Vec::new();
    for line in &lines {
        let why = line.value["why"]
            .as_str()
            .unwrap_or_else(|| panic!("invalid.jsonl:{}: no string `why`", line.number));
        let event = line
            .value
            .get("event")
            .unwrap_or_else(|| panic!("invalid.jsonl:{}: no `event`", line.number));
        let at = format!("invalid.jsonl:{} ({why})", line.number);
        if validator.is_valid(event) {
            failures.push(format!("{at}: the schema accepts it"));
        }
        let text = serde_json::to_string(event).expect("a serde_json::Value encodes");
        if let Ok(decoded) = serde_json::from_str::<ProviderRuntimeEvent>(&text) {
            failures.push(format!("{at}: ProviderRuntimeEvent decodes it as {decoded:?}"));
        }
    }
    assert_no_failures("invalid lines accepted", &failures);
}

/// `snapshot.json`: a `SessionSnapshot` (`snapshot`) and a `SnapshotChange` (`change`) that use
/// every property and enum value of the snapshot's objects.
fn snapshot_example() -> Value {
    let path = agentwire_tests::tests_dir().join("canonical/snapshot.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// The snapshot example decodes into the generated types, encodes back to the same JSON value and
/// is valid under the schema's definitions; every example item's `data` decodes as its type's
/// content ([`ItemContent`]) and encodes back unchanged.
#[test]
fn snapshots_and_item_contents_round_trip() {
    let example = snapshot_example();
    let snapshot: SessionSnapshot = serde_json::from_value(example["snapshot"].clone()).expect("a SessionSnapshot");
    assert_eq!(serde_json::to_value(&snapshot).expect("encodes"), example["snapshot"]);
    let change: SnapshotChange = serde_json::from_value(example["change"].clone()).expect("a SnapshotChange");
    assert_eq!(serde_json::to_value(&change).expect("encodes"), example["change"]);
    let schema = schema();
    for (name, value) in [
        ("SessionSnapshot", &example["snapshot"]),
        ("SnapshotChange", &example["change"]),
    ] {
        let mut one = schema.clone();
        one["$ref"] = Value::from(format!("#/$defs/{name}"));
        let errors: Vec<String> = validator(&one).iter_errors(value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "snapshot.json {name}: {errors:?}");
    }
    let mut items = 0;
    for line in read_jsonl("examples.jsonl") {
        let event: ProviderRuntimeEvent = serde_json::from_value(line.value.clone()).expect("an event");
        let (RuntimeEvent::ItemStarted(payload)
        | RuntimeEvent::ItemUpdated(payload)
        | RuntimeEvent::ItemCompleted(payload)) = &event.event
        else {
            continue;
        };
        let data = payload
            .data
            .as_ref()
            .map(|data| data.to_value().into_owned())
            .unwrap_or_default();
        let content = ItemContent::decode(payload.item_type, &data).unwrap_or_else(|e| {
            panic!(
                "examples.jsonl:{}: data is no {} content: {e}",
                line.number, payload.item_type
            )
        });
        assert_eq!(content.item_type(), payload.item_type);
        assert_eq!(content.to_json().into_value(), data, "examples.jsonl:{}", line.number);
        items += 1;
    }
    assert!(items > 20, "{items} item examples");
}

#[test]
fn examples_cover_every_event_type() {
    let schema = schema();
    let types = event_type_enum(&schema);
    let seen: BTreeSet<String> = read_jsonl("examples.jsonl")
        .iter()
        .filter_map(|line| line.value["type"].as_str().map(str::to_owned))
        .collect();
    let missing: Vec<&String> = types.iter().filter(|t| !seen.contains(*t)).collect();
    assert!(missing.is_empty(), "no example of event types {missing:?}");
    let unknown: Vec<&String> = seen.iter().filter(|t| !types.contains(t)).collect();
    assert!(
        unknown.is_empty(),
        "examples use types not in CanonicalRuntimeEventType: {unknown:?}"
    );
}

/// What the examples use, found by walking each example along the schema.
#[derive(Default)]
struct Coverage {
    /// Object definition -> the properties some example sets.
    properties: BTreeMap<String, BTreeSet<String>>,
    /// Object definition -> the properties some example sets to `null`.
    nulls: BTreeMap<String, BTreeSet<String>>,
    /// Enum definition -> the values some example uses where that enum is expected.
    enum_values: BTreeMap<String, BTreeSet<String>>,
}

fn ref_target(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

impl Coverage {
    /// Records `value` as an instance of the property schema `prop`.
    fn visit_property(&mut self, defs: &serde_json::Map<String, Value>, prop: &Value, value: &Value) {
        if let Some(target) = ref_target(prop) {
            self.visit_def(defs, target, value);
        } else if let (Some(items), Some(values)) = (prop.get("items"), value.as_array()) {
            for item in values {
                self.visit_property(defs, items, item);
            }
        }
    }

    /// Records `value` as an instance of the definition `name`.
    fn visit_def(&mut self, defs: &serde_json::Map<String, Value>, name: &str, value: &Value) {
        let def = &defs[name];
        match def["x-kind"].as_str() {
            Some("enum") => {
                if let Some(v) = value.as_str() {
                    self.enum_values
                        .entry(name.to_owned())
                        .or_default()
                        .insert(v.to_owned());
                }
            }
            Some("object" | "envelope") => {
                let (Some(props), Some(object)) = (def["properties"].as_object(), value.as_object()) else {
                    return;
                };
                for (key, v) in object {
                    let Some(prop) = props.get(key) else { continue };
                    self.properties.entry(name.to_owned()).or_default().insert(key.clone());
                    if v.is_null() {
                        self.nulls.entry(name.to_owned()).or_default().insert(key.clone());
                    }
                    self.visit_property(defs, prop, v);
                }
            }
            _ => {}
        }
    }

    fn of_examples(schema: &Value, lines: &[Line]) -> Self {
        let defs = defs(schema);
        // event type -> its `<Type>Event` definition
        let event_defs: BTreeMap<&str, &Value> = defs
            .values()
            .filter(|d| d["x-kind"] == "event")
            .filter_map(|d| Some((d["x-eventType"].as_str()?, d)))
            .collect();
        let mut coverage = Self::default();
        for line in lines {
            let event_type = line.value["type"]
                .as_str()
                .unwrap_or_else(|| panic!("examples.jsonl:{}: no string `type`", line.number));
            let event_def = event_defs
                .get(event_type)
                .unwrap_or_else(|| panic!("examples.jsonl:{}: unknown type {event_type}", line.number));
            coverage.visit_def(defs, "RuntimeEventBase", &line.value);
            coverage.visit_property(defs, &event_def["properties"]["payload"], &line.value["payload"]);
            // An item's `data` is the content `x-itemContent` names for its `itemType`.
            let payload = &line.value["payload"];
            if let Some(content) = payload["itemType"]
                .as_str()
                .and_then(|item_type| defs["CanonicalItemType"]["x-itemContent"][item_type].as_str())
            {
                coverage.visit_def(defs, content, &payload["data"]);
            }
        }
        coverage
    }
}

#[test]
fn examples_cover_every_property_nullable_value_and_enum_value() {
    let schema = schema();
    let defs = defs(&schema);
    let lines = read_jsonl("examples.jsonl");
    let mut coverage = Coverage::of_examples(&schema, &lines);
    let snapshot = snapshot_example();
    coverage.visit_def(defs, "SessionSnapshot", &snapshot["snapshot"]);
    coverage.visit_def(defs, "SnapshotChange", &snapshot["change"]);
    let mut gaps = Vec::new();

    for (name, def) in defs {
        match def["x-kind"].as_str() {
            Some("object" | "envelope") => {
                let used = coverage.properties.get(name);
                let nulls = coverage.nulls.get(name);
                for (key, prop) in def["properties"].as_object().into_iter().flatten() {
                    if !used.is_some_and(|u| u.contains(key)) {
                        gaps.push(format!("no example sets {name}.{key}"));
                    }
                    let nullable = prop["type"]
                        .as_array()
                        .is_some_and(|types| types.iter().any(|t| t == "null"));
                    if nullable && !nulls.is_some_and(|n| n.contains(key)) {
                        gaps.push(format!("no example sets {name}.{key} to null"));
                    }
                }
            }
            // The event type is covered by `examples_cover_every_event_type`.
            Some("enum") if name != "CanonicalRuntimeEventType" => {
                let used = coverage.enum_values.get(name);
                for value in def["enum"].as_array().into_iter().flatten() {
                    let value = value.as_str().expect("enum values are strings");
                    if !used.is_some_and(|u| u.contains(value)) {
                        gaps.push(format!("no example uses {name} value {value:?}"));
                    }
                }
            }
            _ => {}
        }
    }

    // Spec section 8: `raw.payload` is the whole provider message; at least one example carries a
    // whole JSON-RPC 2.0 message there.
    let whole_jsonrpc = lines.iter().any(|line| {
        let payload = &line.value["raw"]["payload"];
        payload["jsonrpc"] == "2.0" && (payload.get("method").is_some() || payload.get("result").is_some())
    });
    if !whole_jsonrpc {
        gaps.push("no example has a whole JSON-RPC 2.0 message as raw.payload".to_owned());
    }
    assert_no_failures("coverage gaps in examples.jsonl", &gaps);
}

/// The validating newtypes (ids, `IsoDateTime`) accept exactly the strings the schema accepts,
/// tried on the edge cases where "trimmed non-empty" and "RFC 3339" are easy to get wrong.
#[test]
fn ids_and_date_times_decode_exactly_when_the_schema_accepts_them() {
    let schema = schema();
    let validator = validator(&schema);
    let base = serde_json::json!({
        "eventId": "0b6f2d8c-5e1a-5f4b-9c3d-7a8e1f2b4c60",
        "provider": "codex",
        "sessionId": "2d4f6a8c-1e3b-5d7f-8a9c-0b2d4f6a8c1e",
        "createdAt": "2026-11-30T05:28:12.688Z",
        "type": "turn.aborted",
        "payload": {"reason": "the input ended before the provider completed the turn"}
    });
    // The cases differ from `base` in one string only, so `base` itself must pass both.
    assert!(validator.is_valid(&base), "the base event is not schema-valid");
    if let Err(e) = serde_json::from_str::<ProviderRuntimeEvent>(&base.to_string()) {
        panic!("the base event does not decode: {e}");
    }
    let ids = [
        "a",
        "a b",
        "a\tb",
        "é",
        "a\u{200b}",
        " a",
        "a ",
        "",
        " ",
        "\t",
        "a\nb",
        "\u{a0}a",
        "a\u{2028}",
        "\u{feff}a",
    ];
    let date_times = [
        "2026-11-30T05:28:12.688Z",
        "2026-11-30T05:28:12Z",
        "2026-11-30T05:28:12.123456789Z",
        "2026-11-30T05:28:12.688+02:00",
        "2026-11-30T05:28:12.688-00:00",
        "2024-02-29T00:00:00Z",
        "2026-06-30T23:59:60Z",
        "0000-01-01T00:00:00Z",
        // RFC 3339 5.6: "T" and "Z" may alternatively be lower case.
        "2026-11-30t05:28:12.688z",
        "2026-11-30 05:28:12Z",
        "2026-11-30T05:28:12.688",
        "2026-02-30T00:00:00Z",
        "2026-11-30T24:00:00Z",
        "2026-11-30T05:28:12.Z",
        "+2026-11-30T05:28:12Z",
        "2026-11-30T05:28Z",
        "2026-11-30T05:28:12+0200",
        "2026-11-30T05:28:12+24:00",
        "2026-1-30T05:28:12Z",
    ];
    let cases = ids
        .iter()
        .flat_map(|s| ["eventId", "sessionId"].map(|field| (field, *s)))
        .chain(date_times.iter().map(|s| ("createdAt", *s)));
    let mut disagreements = Vec::new();
    for (field, value) in cases {
        let mut event = base.clone();
        event[field] = Value::String(value.to_owned());
        let by_schema = validator.is_valid(&event);
        let by_rust = serde_json::from_str::<ProviderRuntimeEvent>(&event.to_string());
        if by_schema != by_rust.is_ok() {
            disagreements.push(format!(
                "{field} = {value:?}: the schema {} it, ProviderRuntimeEvent {}",
                if by_schema { "accepts" } else { "rejects" },
                match by_rust {
                    Ok(_) => "accepts it".to_owned(),
                    Err(e) => format!("rejects it ({e})"),
                }
            ));
        }
    }
    assert_no_failures("disagreements between the schema and the Rust newtypes", &disagreements);
}

/// An item's `data` held as the text of a typed value (what the Codex normalizers write) and as a
/// tree of the same value (what the others build, and what decoding gives) are one JSON value:
/// written, serialized and compared alike, and editable as a tree.
#[test]
fn item_data_as_text_or_tree_is_the_same_json() {
    #[derive(serde::Serialize)]
    struct Item<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        text: &'a str,
        exit: Option<i64>,
        ratio: f64,
    }
    let item = Item {
        kind: "agentMessage",
        text: "say \"hi\"\n\u{1}é",
        exit: None,
        ratio: 0.1 + 0.2,
    };
    let text = Json::serialize(&item).expect("serializes");
    let tree = Json::from(serde_json::to_value(&item).expect("a value"));
    let payload = |data: &Json| ItemLifecyclePayload {
        item_type: CanonicalItemType::AssistantMessage,
        status: None,
        title: None,
        detail: None,
        data: Some(data.clone()),
    };
    let (mut from_text, mut from_tree) = (Vec::new(), Vec::new());
    payload(&text).write_json(&mut from_text).expect("writes");
    payload(&tree).write_json(&mut from_tree).expect("writes");
    assert_eq!(String::from_utf8_lossy(&from_text), String::from_utf8_lossy(&from_tree));
    assert_eq!(
        serde_json::to_string(&payload(&text)).expect("serializes"),
        String::from_utf8(from_text).expect("UTF-8"),
        "WriteJson writes what Serialize writes"
    );
    assert_eq!(text, tree);
    assert_eq!(text.to_value(), tree.to_value());
    let decoded: ItemLifecyclePayload = serde_json::from_slice(&from_tree).expect("decodes");
    assert_eq!(decoded, payload(&text));

    let mut edited = text.clone();
    edited.value_mut()["text"] = Value::from("other");
    assert_ne!(edited, text);
    assert_eq!(edited.into_value()["text"], "other");
}
