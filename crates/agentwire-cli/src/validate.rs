//! `agentwire validate`: canonical JSONL against the canonical JSON Schema.
//!
//! Validation is envelope-first, like decoding: the event's `type` picks the schema of that
//! event (`#/$defs/<Type>Event`), so an error points at the field that is wrong instead of
//! saying that none of 45 `oneOf` branches matched.

use std::collections::HashMap;
use std::io::Write;

use serde_json::{Value, json};

use crate::ExitStatus;
use crate::input::Input;

/// The canonical schema, as the generated crate carries it.
const SCHEMA: &str = agentwire_canonical::SCHEMA_JSON;

/// One validator per event type, plus one for the whole union.
pub struct CanonicalValidator {
    by_type: HashMap<String, jsonschema::Validator>,
    union: jsonschema::Validator,
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
        let union = compile(&schema)?;
        let mut by_type = HashMap::new();
        let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
        for (name, def) in &defs {
            if let Some(event_type) = def.get("x-eventType").and_then(Value::as_str) {
                let mut root = schema.clone();
                root["$ref"] = Value::String(format!("#/$defs/{name}"));
                by_type.insert(event_type.to_string(), compile(&root)?);
            }
        }
        Ok(CanonicalValidator { by_type, union })
    }

    /// Every schema error of one event, as `<instance path>: <message>`.
    pub fn errors(&self, event: &Value) -> Vec<String> {
        let validator = event
            .get("type")
            .and_then(Value::as_str)
            .and_then(|t| self.by_type.get(t))
            .unwrap_or(&self.union);
        validator
            .iter_errors(event)
            .map(|err| {
                let path = err.instance_path().to_string();
                if path.is_empty() {
                    err.to_string()
                } else {
                    format!("{path}: {err}")
                }
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
