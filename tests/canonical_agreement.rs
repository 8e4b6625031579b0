//! The three artifacts of the canonical model agree: the JSON Schema
//! (`schemas/canonical/provider-runtime.schema.json`), the Rust crate generated from it
//! (`agentwire-canonical`) and the TypeScript export (`generated/typescript/providerRuntime.gen.ts`).
//!
//! Read from each side and compared exactly (sets, and order where the order is part of the
//! contract):
//! - the event types, in union order (Rust: `CanonicalRuntimeEventType::ALL` and the type each
//!   decoded event reports; TypeScript: the `type` literal of each `Schema.Union` member);
//! - every enum's values (Rust: each enum's `ALL`, `as_str` and its serde form; TypeScript: the
//!   `Schema.Literals` arrays);
//! - every object's required and optional fields (Rust: observed by decoding, for each event, a
//!   minimal event and then the same event with one field removed or one optional field added,
//!   nested objects included; TypeScript: the struct fields that are not `Schema.optional`);
//! - which payload each event type carries (TypeScript: the event structs and
//!   `RuntimeEventPayloadByType`), and the JSON key order of the Rust output.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use agentwire_canonical as canonical;
use serde_json::{Map, Value, json};

const SCHEMA: &str = "schemas/canonical/provider-runtime.schema.json";
const TYPESCRIPT: &str = "generated/typescript/providerRuntime.gen.ts";

// ---------------------------------------------------------------------------------------------
// The schema side

/// A property of an object definition, as the schema declares it.
#[derive(Clone, Debug)]
struct Prop {
    key: String,
    required: bool,
    schema: Value,
}

/// What the schema says, read with plain JSON access (independent of the generator's model).
struct SchemaFacts {
    defs: Map<String, Value>,
    /// Event types in union order, with the payload definition of each.
    events: Vec<(String, String)>,
    enums: BTreeMap<String, Vec<String>>,
    /// Object definitions (and the envelope) -> their properties in schema order.
    objects: BTreeMap<String, Vec<Prop>>,
    envelope: String,
}

fn ref_target(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

fn read(path: &str) -> String {
    let full = agentwire_tests::workspace_root().join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("reading {}: {e}", full.display()))
}

impl SchemaFacts {
    fn load() -> Self {
        let schema: Value = serde_json::from_str(&read(SCHEMA)).expect("the schema is JSON");
        let defs = schema["$defs"].as_object().expect("`$defs`").clone();
        let kind = |name: &str| defs[name]["x-kind"].as_str().unwrap_or_default().to_owned();
        let union = ref_target(&schema).expect("the root refers to the union");
        let events = defs[union]["oneOf"]
            .as_array()
            .expect("the union is a oneOf")
            .iter()
            .map(|member| {
                let event = &defs[ref_target(member).expect("union members are $refs")];
                let ty = event["properties"]["type"]["const"]
                    .as_str()
                    .expect("an event has a `type` const");
                let payload = ref_target(&event["properties"]["payload"]).expect("an event's payload is a $ref");
                (ty.to_owned(), payload.to_owned())
            })
            .collect();
        let mut enums = BTreeMap::new();
        let mut objects = BTreeMap::new();
        let mut envelope = None;
        for (name, def) in &defs {
            match kind(name).as_str() {
                "enum" => {
                    let values = def["enum"].as_array().expect("`enum` array");
                    let values = values
                        .iter()
                        .map(|v| v.as_str().expect("string values").to_owned())
                        .collect();
                    enums.insert(name.clone(), values);
                    // Each subset an enum declares is an enum of its own in Rust and TypeScript.
                    for (subset, declared) in def
                        .get("x-enumSubsets")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                    {
                        let values = declared["enum"].as_array().expect("a subset's `enum` array");
                        let values = values
                            .iter()
                            .map(|v| v.as_str().expect("string values").to_owned())
                            .collect();
                        enums.insert(subset.clone(), values);
                    }
                }
                "object" | "envelope" => {
                    if kind(name) == "envelope" {
                        envelope = Some(name.clone());
                    }
                    let required: BTreeSet<&str> = def["required"]
                        .as_array()
                        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let props = def["properties"]
                        .as_object()
                        .expect("`properties`")
                        .iter()
                        .map(|(key, schema)| Prop {
                            key: key.clone(),
                            required: required.contains(key.as_str()),
                            schema: schema.clone(),
                        })
                        .collect();
                    objects.insert(name.clone(), props);
                }
                _ => {}
            }
        }
        Self {
            defs,
            events,
            enums,
            objects,
            envelope: envelope.expect("an `x-kind: envelope` definition"),
        }
    }

    fn required(&self, object: &str) -> BTreeSet<String> {
        self.objects[object]
            .iter()
            .filter(|p| p.required)
            .map(|p| p.key.clone())
            .collect()
    }

    fn optional(&self, object: &str) -> BTreeSet<String> {
        self.objects[object]
            .iter()
            .filter(|p| !p.required)
            .map(|p| p.key.clone())
            .collect()
    }

    fn is_object(&self, name: &str) -> bool {
        self.objects.contains_key(name) && name != self.envelope
    }

    /// A valid value for a property schema (the minimal one for objects).
    fn sample(&self, schema: &Value) -> Value {
        if let Some(target) = ref_target(schema) {
            let def = &self.defs[target];
            return match def["x-kind"].as_str() {
                Some("id") => json!("sample-id"),
                Some("datetime") => json!("2026-01-02T03:04:05.678Z"),
                Some("enum") => def["enum"][0].clone(),
                Some("json") => json!({ "any": [1, null, "x"] }),
                Some("object") => self.minimal(target),
                other => panic!("{target}: unexpected kind {other:?} behind a property"),
            };
        }
        match &schema["type"] {
            Value::Null => json!({ "any": [1, null, "x"] }),
            Value::Array(_) => Value::Null, // `["string", "null"]`: null is the interesting value
            Value::String(ty) => match ty.as_str() {
                "string" => json!("text"),
                "boolean" => json!(true),
                "integer" => json!(7),
                "number" => json!(1.5),
                "object" => json!({ "key": 1 }),
                "array" => json!([self.sample(&schema["items"])]),
                other => panic!("unexpected property type {other}"),
            },
            other => panic!("unexpected property type {other}"),
        }
    }

    /// An object with its required properties only.
    fn minimal(&self, object: &str) -> Value {
        let fields = self.objects[object]
            .iter()
            .filter(|p| p.required)
            .map(|p| (p.key.clone(), self.sample(&p.schema)));
        Value::Object(fields.collect())
    }

    /// A minimal event of `event_type`.
    fn minimal_event(&self, event_type: &str, payload: &str) -> Value {
        let mut event = self.minimal(&self.envelope);
        event["type"] = json!(event_type);
        event["payload"] = self.minimal(payload);
        event
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// Fails with the elements only one side has.
fn assert_same_set<T: Ord + Debug + Clone>(what: &str, sides: (&str, &str), left: &BTreeSet<T>, right: &BTreeSet<T>) {
    let only_left: Vec<&T> = left.difference(right).collect();
    let only_right: Vec<&T> = right.difference(left).collect();
    assert!(
        only_left.is_empty() && only_right.is_empty(),
        "{what}: the {} and the {} disagree\n  only in the {}: {only_left:?}\n  only in the {}: {only_right:?}",
        sides.0,
        sides.1,
        sides.0,
        sides.1
    );
}

/// Fails unless both lists are equal, showing the set difference or, if the sets agree, the order.
fn assert_same_list(what: &str, sides: (&str, &str), left: &[String], right: &[String]) {
    if left == right {
        return;
    }
    let left_set: BTreeSet<String> = left.iter().cloned().collect();
    let right_set: BTreeSet<String> = right.iter().cloned().collect();
    assert_same_set(what, sides, &left_set, &right_set);
    panic!(
        "{what}: same values, different order (or repeats)\n  {}: {left:?}\n  {}: {right:?}",
        sides.0, sides.1
    );
}

/// Fails with every message at once.
fn assert_no_failures(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} {what}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn decode(value: &Value) -> Result<canonical::ProviderRuntimeEvent, serde_json::Error> {
    serde_json::from_str(&value.to_string())
}

// ---------------------------------------------------------------------------------------------
// The Rust side

/// Every generated enum: name -> (values from `ALL` + `as_str`, failures of the serde/Display
/// checks). A schema enum missing here fails `enums_agree` with the name to add.
macro_rules! rust_enums {
    ($($name:ident),* $(,)?) => {{
        let mut enums: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
        $(
            let mut failures = Vec::new();
            let values = canonical::$name::ALL
                .iter()
                .map(|value| {
                    let text = value.as_str();
                    if serde_json::to_value(value).ok() != Some(json!(text)) {
                        failures.push(format!("{}::{value:?} does not serialize as {text:?}", stringify!($name)));
                    }
                    match serde_json::from_value::<canonical::$name>(json!(text)) {
                        Ok(back) if back == *value => {}
                        other => failures.push(format!("{text:?} does not deserialize as {}::{value:?}: {other:?}", stringify!($name))),
                    }
                    if value.to_string() != text {
                        failures.push(format!("{}::{value:?} displays as {:?}", stringify!($name), value.to_string()));
                    }
                    text.to_owned()
                })
                .collect();
            if serde_json::from_value::<canonical::$name>(json!("not-a-value")).is_ok() {
                failures.push(format!("{} accepts a value outside ALL", stringify!($name)));
            }
            enums.insert(stringify!($name).to_owned(), (values, failures));
        )*
        enums
    }};
}

fn rust_enums() -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    rust_enums!(
        ProviderKind,
        RuntimeEventRawSource,
        CanonicalRuntimeEventType,
        CanonicalItemType,
        ToolLifecycleItemType,
        CanonicalRequestType,
        SessionState,
        ThreadState,
        TurnState,
        UsageScope,
        CostSource,
        ContentStreamKind,
        ItemStatus,
        PlanStepStatus,
        RuntimeErrorClass,
        SessionExitKind,
        HookOutcome,
        TaskStatus,
        MessageOrigin,
        AttachmentKind,
        FileChangeKind,
        SnapshotTurnState,
    )
}

/// A step along a JSON path.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at_mut<'a>(value: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(value, |value, step| match step {
        Step::Key(key) => &mut value[key.as_str()],
        Step::Index(index) => &mut value[*index],
    })
}

fn show(path: &[Step]) -> String {
    path.iter()
        .map(|step| match step {
            Step::Key(key) => format!(".{key}"),
            Step::Index(index) => format!("[{index}]"),
        })
        .collect()
}

/// Required/optional fields of each object as Rust decoding shows them.
#[derive(Default)]
struct Observed {
    /// object -> fields whose removal makes decoding fail with "missing field".
    required: BTreeMap<String, BTreeSet<String>>,
    /// object -> fields that may be absent (the minimal event has them absent and decodes) and
    /// that decode when present.
    optional: BTreeMap<String, BTreeSet<String>>,
    failures: Vec<String>,
}

impl Observed {
    /// Probes the object `object` at `path` of `event` (a valid event in which that object is
    /// minimal), then recurses into the objects its properties hold.
    fn probe(&mut self, facts: &SchemaFacts, event: &Value, path: &[Step], object: &str, decode: &Decoder) {
        let at = |key: &str| format!("{}{}.{key} ({object})", event["type"], show(path));
        self.required.entry(object.to_owned()).or_default();
        self.optional.entry(object.to_owned()).or_default();
        for prop in &facts.objects[object] {
            if prop.required {
                let mut without = event.clone();
                at_mut(&mut without, path)
                    .as_object_mut()
                    .expect("an object")
                    .remove(&prop.key);
                match decode(&without) {
                    Err(e) if e.contains(&format!("missing field `{}`", prop.key)) => {
                        self.required.get_mut(object).expect("entry").insert(prop.key.clone());
                    }
                    Err(e) => self
                        .failures
                        .push(format!("{}: removing it fails for another reason: {e}", at(&prop.key))),
                    Ok(_) => self.failures.push(format!("{}: decodes without it", at(&prop.key))),
                }
            } else {
                let mut with = event.clone();
                at_mut(&mut with, path)[prop.key.as_str()] = facts.sample(&prop.schema);
                match decode(&with) {
                    Ok(encoded) => {
                        self.optional.get_mut(object).expect("entry").insert(prop.key.clone());
                        if encoded != with {
                            self.failures.push(format!(
                                "{}: does not round-trip:\n  in:  {with}\n  out: {encoded}",
                                at(&prop.key)
                            ));
                        }
                    }
                    Err(e) => self
                        .failures
                        .push(format!("{}: does not decode when present: {e}", at(&prop.key))),
                }
                if prop.schema["type"].is_array() {
                    // `string | null`: a string too.
                    let mut with_string = event.clone();
                    at_mut(&mut with_string, path)[prop.key.as_str()] = json!("text");
                    if let Err(e) = decode(&with_string) {
                        self.failures
                            .push(format!("{}: a string does not decode: {e}", at(&prop.key)));
                    }
                }
            }
            // Objects inside: probe them where they sit (present and minimal).
            let (target, is_array) = match (ref_target(&prop.schema), ref_target(&prop.schema["items"])) {
                (Some(target), _) => (target, false),
                (None, Some(target)) => (target, true),
                (None, None) => continue,
            };
            if !facts.is_object(target) {
                continue;
            }
            let mut holder = event.clone();
            let minimal = facts.minimal(target);
            at_mut(&mut holder, path)[prop.key.as_str()] = if is_array { json!([minimal]) } else { minimal };
            let mut inner = path.to_vec();
            inner.push(Step::Key(prop.key.clone()));
            if is_array {
                inner.push(Step::Index(0));
            }
            self.probe(facts, &holder, &inner, target, decode);
        }
    }
}

/// Decodes a value with the generated types and encodes it back, or says why it does not decode.
type Decoder = dyn Fn(&Value) -> Result<Value, String>;

/// An event, through `ProviderRuntimeEvent`.
fn event_round_trip(value: &Value) -> Result<Value, String> {
    decode(value)
        .map(|event| serde_json::to_value(&event).expect("encodes"))
        .map_err(|e| e.to_string())
}

/// A value of a generated object that no event holds, through its type.
fn object_round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Result<Value, String> {
    serde_json::from_value::<T>(value.clone())
        .map(|decoded| serde_json::to_value(&decoded).expect("encodes"))
        .map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------------
// The TypeScript side

/// The TypeScript text without comments (string literals kept intact).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' | '`' => {
                out.push(c);
                while let Some(inner) = chars.next() {
                    out.push(inner);
                    if inner == '\\' {
                        out.extend(chars.next());
                    } else if inner == c {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for inner in chars.by_ref() {
                    if inner == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = ' ';
                for inner in chars.by_ref() {
                    if previous == '*' && inner == '/' {
                        break;
                    }
                    previous = inner;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Splits `text` at `separator`s that are outside brackets and strings; trims and drops empties.
fn split_top_level(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            current.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if c == separator && depth == 0 {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|part| part.trim().to_owned())
        .filter(|part| !part.is_empty())
        .collect()
}

/// The text between the bracket at `open` (an index of `(`, `[` or `{`) and its match.
fn bracketed(text: &str, open: usize) -> &str {
    let bytes = text.as_bytes();
    let (opening, closing) = match bytes[open] {
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        b'{' => (b'{', b'}'),
        other => panic!("not an opening bracket: {}", other as char),
    };
    let mut depth = 0;
    let mut quote = None;
    let mut index = open;
    while index < bytes.len() {
        let b = bytes[index];
        match quote {
            Some(_) if b == b'\\' => index += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' || b == b'`' => quote = Some(b),
            None if b == opening => depth += 1,
            None if b == closing => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..index];
                }
            }
            None => {}
        }
        index += 1;
    }
    panic!("unbalanced bracket at byte {open}");
}

/// A TypeScript string literal's value.
fn string_literal(text: &str) -> String {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return inner.replace("\\'", "'").replace("\\\\", "\\");
    }
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not a string literal: {text}: {e}"))
}

/// One struct field: whether it is required and its schema expression.
#[derive(Debug)]
struct TsField {
    required: bool,
    expr: String,
}

/// What the TypeScript file declares.
#[derive(Default)]
struct TsFacts {
    literals: BTreeMap<String, Vec<String>>,
    /// struct name -> fields in order (spreads resolved).
    structs: BTreeMap<String, Vec<(String, TsField)>>,
    unions: BTreeMap<String, Vec<String>>,
    payload_by_type: Vec<(String, String)>,
}

impl TsFacts {
    fn parse(source: &str) -> Self {
        let text = strip_comments(source);
        let mut facts = Self::default();
        for statement in split_top_level(&text, ';') {
            let statement = statement.trim();
            if let Some(rest) = statement.strip_prefix("export const ") {
                let (name, expr) = rest
                    .split_once('=')
                    .unwrap_or_else(|| panic!("no `=` in `export const {rest}`"));
                let (name, expr) = (name.trim().to_owned(), expr.trim());
                let open = |call: &str| expr.strip_prefix(call).map(|_| call.len() - 1);
                if let Some(at) = open("Schema.Literals([") {
                    let values = split_top_level(bracketed(expr, at), ',')
                        .iter()
                        .map(|v| string_literal(v))
                        .collect();
                    facts.literals.insert(name, values);
                } else if let Some(at) = open("Schema.Struct({") {
                    let mut fields = Vec::new();
                    for entry in split_top_level(bracketed(expr, at), ',') {
                        if let Some(spread) = entry.strip_prefix("...") {
                            let base = spread
                                .strip_suffix(".fields")
                                .unwrap_or_else(|| panic!("unexpected spread {entry}"));
                            let base_fields = facts
                                .structs
                                .get(base)
                                .unwrap_or_else(|| panic!("{name} spreads {base}, declared later or not at all"));
                            fields.extend(base_fields.iter().map(|(key, field)| {
                                (
                                    key.clone(),
                                    TsField {
                                        required: field.required,
                                        expr: field.expr.clone(),
                                    },
                                )
                            }));
                        } else {
                            let (key, value) = entry
                                .split_once(':')
                                .unwrap_or_else(|| panic!("{name}: no `:` in field `{entry}`"));
                            let key = key.trim();
                            let key = if key.starts_with('"') {
                                string_literal(key)
                            } else {
                                key.to_owned()
                            };
                            let value = value.trim();
                            let required =
                                !value.starts_with("Schema.optional(") && !value.starts_with("Schema.optionalKey(");
                            fields.push((
                                key,
                                TsField {
                                    required,
                                    expr: value.to_owned(),
                                },
                            ));
                        }
                    }
                    facts.structs.insert(name, fields);
                } else if let Some(at) = open("Schema.Union([") {
                    facts.unions.insert(name, split_top_level(bracketed(expr, at), ','));
                }
            } else if let Some(rest) = statement.strip_prefix("export type RuntimeEventPayloadByType =") {
                let body = bracketed(rest.trim(), 0);
                for entry in split_top_level(body, ';')
                    .iter()
                    .flat_map(|entry| split_top_level(entry, ','))
                {
                    let (key, value) = entry.rsplit_once(':').expect("`\"type\": Payload`");
                    facts
                        .payload_by_type
                        .push((string_literal(key), value.trim().to_owned()));
                }
            }
        }
        facts
    }

    fn required(&self, name: &str) -> BTreeSet<String> {
        self.structs[name]
            .iter()
            .filter(|(_, f)| f.required)
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn optional(&self, name: &str) -> BTreeSet<String> {
        self.structs[name]
            .iter()
            .filter(|(_, f)| !f.required)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The `type` literal and payload schema of an event struct.
    fn event(&self, name: &str) -> (String, String) {
        let fields = self
            .structs
            .get(name)
            .unwrap_or_else(|| panic!("union member {name} is not a Schema.Struct"));
        let field = |key: &str| {
            &fields
                .iter()
                .find(|(k, _)| k == key)
                .unwrap_or_else(|| panic!("{name} has no `{key}` field"))
                .1
                .expr
        };
        let ty = field("type");
        let literal = ty
            .strip_prefix("Schema.Literal(")
            .and_then(|rest| rest.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{name}.type is not a Schema.Literal: {ty}"));
        (string_literal(literal), field("payload").clone())
    }
}

// ---------------------------------------------------------------------------------------------
// The tests

#[test]
fn event_types_agree() {
    let facts = SchemaFacts::load();
    let schema_types: Vec<String> = facts.events.iter().map(|(ty, _)| ty.clone()).collect();
    assert_same_list(
        "the event types (union order)",
        ("schema", "schema's CanonicalRuntimeEventType"),
        &schema_types,
        &facts.enums["CanonicalRuntimeEventType"],
    );

    // Rust: the enum, and the type each decoded minimal event reports.
    let rust_types: Vec<String> = canonical::CanonicalRuntimeEventType::ALL
        .iter()
        .map(|ty| ty.as_str().to_owned())
        .collect();
    assert_same_list(
        "the event types",
        ("schema", "Rust CanonicalRuntimeEventType::ALL"),
        &schema_types,
        &rust_types,
    );
    let mut failures = Vec::new();
    for (ty, payload) in &facts.events {
        match decode(&facts.minimal_event(ty, payload)) {
            Ok(event) if event.event.event_type().as_str() == ty => {}
            Ok(event) => failures.push(format!("{ty}: decodes as {}", event.event.event_type())),
            Err(e) => failures.push(format!("{ty}: a minimal event does not decode: {e}")),
        }
    }
    assert_no_failures("minimal events the Rust side does not decode as their type", &failures);

    // TypeScript: the union's members, in order, and their `type` literals.
    let ts = TsFacts::parse(&read(TYPESCRIPT));
    let members = ts
        .unions
        .get("ProviderRuntimeEventV2")
        .expect("TypeScript has `ProviderRuntimeEventV2 = Schema.Union([...])`");
    let ts_types: Vec<String> = members.iter().map(|member| ts.event(member).0).collect();
    assert_same_list(
        "the event types",
        ("schema", "TypeScript ProviderRuntimeEventV2 union"),
        &schema_types,
        &ts_types,
    );
}

#[test]
fn enums_agree() {
    let facts = SchemaFacts::load();
    let rust = rust_enums();
    let ts = TsFacts::parse(&read(TYPESCRIPT));
    let schema_names: BTreeSet<String> = facts.enums.keys().cloned().collect();
    assert_same_set(
        "the enums (add a new one to `rust_enums!` in this file)",
        ("schema", "Rust enum list"),
        &schema_names,
        &rust.keys().cloned().collect(),
    );
    assert_same_set(
        "the enums",
        ("schema", "TypeScript Schema.Literals"),
        &schema_names,
        &ts.literals.keys().cloned().collect(),
    );
    for (name, values) in &facts.enums {
        let (rust_values, failures) = &rust[name];
        assert_no_failures(&format!("{name}: Rust serde/Display failures"), failures);
        assert_same_list(name, ("schema", "Rust ALL"), values, rust_values);
        assert_same_list(
            name,
            ("schema", "TypeScript Schema.Literals"),
            values,
            &ts.literals[name],
        );
    }
}

#[test]
fn required_and_optional_fields_agree_with_rust() {
    let facts = SchemaFacts::load();
    let mut observed = Observed::default();
    for (ty, payload) in &facts.events {
        let event = facts.minimal_event(ty, payload);
        if let Err(e) = decode(&event) {
            panic!("{ty}: a minimal event does not decode: {e}");
        }
        observed.probe(&facts, &event, &[], &facts.envelope, &event_round_trip);
        observed.probe(
            &facts,
            &event,
            &[Step::Key("payload".into())],
            payload,
            &event_round_trip,
        );
    }
    // An item's content, read as `ItemContent::decode` reads an item's `data`.
    for (item_type, content) in facts.defs["CanonicalItemType"]["x-itemContent"]
        .as_object()
        .expect("x-itemContent")
    {
        let item_type: canonical::CanonicalItemType = serde_json::from_value(json!(item_type)).expect("an item type");
        let content = content.as_str().expect("an object name");
        let round_trip = move |value: &Value| {
            canonical::ItemContent::decode(item_type, value)
                .map(|content| content.to_json().into_value())
                .map_err(|e| e.to_string())
        };
        observed.probe(&facts, &facts.minimal(content), &[], content, &round_trip);
    }
    let snapshot = facts.minimal("SessionSnapshot");
    observed.probe(
        &facts,
        &snapshot,
        &[],
        "SessionSnapshot",
        &object_round_trip::<canonical::SessionSnapshot>,
    );
    let change = facts.minimal("SnapshotChange");
    observed.probe(
        &facts,
        &change,
        &[],
        "SnapshotChange",
        &object_round_trip::<canonical::SnapshotChange>,
    );
    assert_no_failures("field probes that failed on the Rust side", &observed.failures);
    assert_same_set(
        "the object definitions reached from the union, the item contents and the snapshot",
        ("schema", "Rust probes"),
        &facts.objects.keys().cloned().collect(),
        &observed.required.keys().cloned().collect(),
    );
    for object in facts.objects.keys() {
        assert_same_set(
            &format!("{object}: required fields"),
            ("schema", "Rust"),
            &facts.required(object),
            &observed.required[object],
        );
        assert_same_set(
            &format!("{object}: optional fields"),
            ("schema", "Rust"),
            &facts.optional(object),
            &observed.optional[object],
        );
    }
}

#[test]
fn required_and_optional_fields_agree_with_typescript() {
    let facts = SchemaFacts::load();
    let ts = TsFacts::parse(&read(TYPESCRIPT));
    for object in facts.objects.keys() {
        assert!(
            ts.structs.contains_key(object),
            "TypeScript has no `{object} = Schema.Struct({{...}})`"
        );
        assert_same_set(
            &format!("{object}: required fields"),
            ("schema", "TypeScript"),
            &facts.required(object),
            &ts.required(object),
        );
        assert_same_set(
            &format!("{object}: optional fields"),
            ("schema", "TypeScript"),
            &facts.optional(object),
            &ts.optional(object),
        );
        // Field order is the schema's too (it is the order a reader of either file sees).
        let schema_order: Vec<String> = facts.objects[object].iter().map(|p| p.key.clone()).collect();
        let ts_order: Vec<String> = ts.structs[object].iter().map(|(k, _)| k.clone()).collect();
        assert_same_list(
            &format!("{object}: field order"),
            ("schema", "TypeScript"),
            &schema_order,
            &ts_order,
        );
    }
    // Each event struct: the envelope's fields plus `type` and `payload` (both required).
    let members = &ts.unions["ProviderRuntimeEventV2"];
    for member in members {
        let mut expected_required = facts.required(&facts.envelope);
        expected_required.extend(["type".to_owned(), "payload".to_owned()]);
        assert_same_set(
            &format!("{member}: required fields"),
            ("schema", "TypeScript"),
            &expected_required,
            &ts.required(member),
        );
        assert_same_set(
            &format!("{member}: optional fields"),
            ("schema", "TypeScript"),
            &facts.optional(&facts.envelope),
            &ts.optional(member),
        );
    }
}

#[test]
fn payload_of_each_event_type_agrees() {
    let facts = SchemaFacts::load();
    let ts = TsFacts::parse(&read(TYPESCRIPT));
    let schema_map: BTreeSet<(String, String)> = facts.events.iter().cloned().collect();
    let union_map: BTreeSet<(String, String)> = ts.unions["ProviderRuntimeEventV2"]
        .iter()
        .map(|member| ts.event(member))
        .collect();
    assert_same_set(
        "event type -> payload",
        ("schema", "TypeScript event structs"),
        &schema_map,
        &union_map,
    );
    let by_type: Vec<String> = ts
        .payload_by_type
        .iter()
        .map(|(ty, payload)| format!("{ty} -> {payload}"))
        .collect();
    let expected: Vec<String> = facts
        .events
        .iter()
        .map(|(ty, payload)| format!("{ty} -> {payload}"))
        .collect();
    assert_same_list(
        "event type -> payload",
        ("schema", "TypeScript RuntimeEventPayloadByType"),
        &expected,
        &by_type,
    );
}

/// The Rust output writes keys in schema order: the envelope (`raw` last), `type`, `payload`,
/// and each payload's properties in declaration order.
#[test]
fn rust_output_follows_schema_key_order() {
    let facts = SchemaFacts::load();
    let full = |object: &str| -> Value {
        Value::Object(
            facts.objects[object]
                .iter()
                .map(|p| (p.key.clone(), facts.sample(&p.schema)))
                .collect(),
        )
    };
    let mut failures = Vec::new();
    for (ty, payload) in &facts.events {
        let mut event = Map::new();
        let envelope = full(&facts.envelope);
        for (key, value) in envelope
            .as_object()
            .expect("object")
            .iter()
            .filter(|(key, _)| *key != "raw")
        {
            event.insert(key.clone(), value.clone());
        }
        event.insert("type".into(), json!(ty));
        event.insert("payload".into(), full(payload));
        if let Some(raw) = envelope.get("raw") {
            event.insert("raw".into(), raw.clone());
        }
        let expected: Vec<String> = event.keys().cloned().collect();
        let expected_payload: Vec<String> = facts.objects[payload].iter().map(|p| p.key.clone()).collect();
        let decoded = match decode(&Value::Object(event)) {
            Ok(decoded) => decoded,
            Err(e) => {
                failures.push(format!("{ty}: an event with every field does not decode: {e}"));
                continue;
            }
        };
        // Parse the output text keeping its key order (serde_json's `preserve_order` is on).
        let text = serde_json::to_string(&decoded).expect("encodes");
        let output: Value = serde_json::from_str(&text).expect("JSON");
        let keys: Vec<String> = output.as_object().expect("object").keys().cloned().collect();
        let payload_keys: Vec<String> = output["payload"].as_object().expect("object").keys().cloned().collect();
        if keys != expected || payload_keys != expected_payload {
            failures.push(format!(
                "{ty}: key order {keys:?} / payload {payload_keys:?}, want {expected:?} / {expected_payload:?}"
            ));
        }
    }
    assert_no_failures("events whose Rust output is not in schema order", &failures);
}

#[test]
fn the_typescript_parser_reads_what_it_should() {
    let source = r#"
        // a comment with "quotes" and { braces
        export const A = Schema.Literals(["x", "y;z", 'w']).annotate({ description: "a; b" });
        /** doc with } and */
        export const B = Schema.Struct({
          /** the id */
          id: EventId,
          "quoted": Schema.optional(Schema.Array(Schema.String)),
          map: Schema.Record(Schema.String, Schema.Unknown),
        });
        export const C = Schema.Struct({ ...B.fields, type: Schema.Literal("c.d"), payload: B });
        export const U = Schema.Union([C]);
        export type RuntimeEventPayloadByType = { "c.d": B; };
    "#;
    let ts = TsFacts::parse(source);
    assert_eq!(ts.literals["A"], ["x", "y;z", "w"]);
    assert_eq!(ts.required("B"), BTreeSet::from(["id".to_owned(), "map".to_owned()]));
    assert_eq!(ts.optional("B"), BTreeSet::from(["quoted".to_owned()]));
    assert_eq!(ts.required("C").len(), 4);
    assert_eq!(ts.event("C"), ("c.d".to_owned(), "B".to_owned()));
    assert_eq!(ts.unions["U"], ["C"]);
    assert_eq!(ts.payload_by_type, [("c.d".to_owned(), "B".to_owned())]);
}

/// A subset (`x-enumSubsets`) converts both ways exactly for its values, and its test on the enum
/// agrees with the schema's list.
#[test]
fn enum_subsets_agree_with_rust() {
    let facts = SchemaFacts::load();
    let members = &facts.enums["ToolLifecycleItemType"];
    assert_eq!(members.len(), canonical::ToolLifecycleItemType::ALL.len());
    for value in canonical::CanonicalItemType::ALL {
        let listed = members.iter().any(|member| member == value.as_str());
        assert_eq!(value.is_tool_lifecycle_item_type(), listed, "{value}");
        match canonical::ToolLifecycleItemType::try_from(*value) {
            Ok(member) => {
                assert_eq!(member.as_str(), value.as_str());
                assert_eq!(canonical::CanonicalItemType::from(member), *value);
            }
            Err(back) => assert_eq!(back, *value),
        }
    }
}
