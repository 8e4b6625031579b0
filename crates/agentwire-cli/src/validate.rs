//! `agentwire validate`: canonical JSONL against the canonical JSON Schema.
//!
//! Validation is envelope-first, like decoding: the event's `type` picks the schema of that
//! event (`#/$defs/<Type>Event`), so an error points at the field that is wrong instead of
//! saying that none of 45 `oneOf` branches matched. Each fault is reported once, as the field,
//! its value and the rule it breaks: a type the model does not have is one line, and the
//! `unevaluatedProperties` complaint a failing branch makes about the fields it did declare is
//! left out (it names no fault of its own).

use std::collections::{BTreeSet, HashMap};
use std::io::Write;

use jsonschema::error::ValidationErrorKind;
use serde_json::{Value, json};

use crate::ExitStatus;
use crate::input::Input;

/// The canonical schema, as the generated crate carries it.
const SCHEMA: &str = agentwire_canonical::SCHEMA_JSON;

/// The schema of one event type and the top-level fields it declares.
struct EventSchema {
    validator: jsonschema::Validator,
    fields: BTreeSet<String>,
}

/// One validator per event type.
pub struct CanonicalValidator {
    by_type: HashMap<String, EventSchema>,
}

/// The property names a definition declares at its top level, through `$ref` and `allOf`.
fn declared_fields(schema: &Value, definition: &Value, into: &mut BTreeSet<String>) {
    if let Some(properties) = definition.get("properties").and_then(Value::as_object) {
        into.extend(properties.keys().cloned());
    }
    if let Some(name) = definition
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
    {
        declared_fields(schema, &schema["$defs"][name], into);
    }
    for part in definition.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        declared_fields(schema, part, into);
    }
}

impl CanonicalValidator {
    pub fn new() -> anyhow::Result<Self> {
        let schema: Value = serde_json::from_str(SCHEMA)?;
        let compile = |root: &Value| {
            jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(root)
                .map_err(|err| anyhow::anyhow!("the canonical schema does not compile: {err}"))
        };
        let mut by_type = HashMap::new();
        let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
        for (name, def) in &defs {
            if let Some(event_type) = def.get("x-eventType").and_then(Value::as_str) {
                let mut root = schema.clone();
                root["$ref"] = Value::String(format!("#/$defs/{name}"));
                let mut fields = BTreeSet::new();
                declared_fields(&schema, def, &mut fields);
                by_type.insert(
                    event_type.to_string(),
                    EventSchema {
                        validator: compile(&root)?,
                        fields,
                    },
                );
            }
        }
        Ok(CanonicalValidator { by_type })
    }

    /// Every schema error of one event, as `<instance path>: <message>`.
    pub fn errors(&self, event: &Value) -> Vec<String> {
        let event_type = match event.get("type") {
            None => return vec!["/type: missing; every event names its type".to_string()],
            Some(Value::String(event_type)) => event_type,
            Some(other) => return vec![format!("/type: {other} is not a string")],
        };
        let Some(schema) = self.by_type.get(event_type) else {
            return vec![format!(
                "/type: {event_type:?} is not one of the {} canonical event types",
                self.by_type.len()
            )];
        };
        let errors: Vec<jsonschema::ValidationError<'_>> = schema.validator.iter_errors(event).collect();
        let faults = errors
            .iter()
            .filter(|err| !matches!(err.kind(), ValidationErrorKind::UnevaluatedProperties { .. }))
            .count();
        errors
            .iter()
            .filter_map(|err| {
                let path = err.instance_path().to_string();
                let message = match err.kind() {
                    // A branch that failed on another field leaves the fields it declared
                    // "unevaluated": only the fields the event really does not declare are named.
                    ValidationErrorKind::UnevaluatedProperties { unexpected } if path.is_empty() => {
                        let undeclared: Vec<&String> = unexpected
                            .iter()
                            .filter(|field| !schema.fields.contains(*field))
                            .collect();
                        if undeclared.is_empty() {
                            return None;
                        }
                        format!("{undeclared:?}: not a field of a {event_type} event")
                    }
                    ValidationErrorKind::UnevaluatedProperties { .. } if faults > 0 => return None,
                    _ => err.to_string(),
                };
                Some(if path.is_empty() {
                    message
                } else {
                    format!("{path}: {message}")
                })
            })
            .collect()
    }
}

pub fn run(path: &str, json_output: bool, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let validator = CanonicalValidator::new()?;
    let mut input = Input::open(path)?;
    let (mut total, mut valid) = (0usize, 0usize);
    let mut problems = Vec::new();
    let mut buf = Vec::new();
    while let Some(number) = input.next_line(&mut buf)? {
        total += 1;
        let errors = match serde_json::from_slice::<Value>(&buf) {
            Ok(event) => validator.errors(&event),
            Err(err) => vec![format!("not JSON: {err}")],
        };
        if errors.is_empty() {
            valid += 1;
        }
        for error in errors {
            if !json_output {
                writeln!(out, "{}:{number}: {error}", input.name)?;
            }
            problems.push(json!({ "line": number, "error": error }));
        }
    }
    if json_output {
        let report = json!({ "file": input.name, "events": total, "valid": valid, "invalid": total - valid, "errors": problems });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(out, "{}: {valid}/{total} valid", input.name)?;
    }
    Ok(if valid == total {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}
