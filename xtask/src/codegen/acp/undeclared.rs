//! Fields real agents send that the stable schema does not declare, grafted on as typed,
//! optional properties so they decode instead of vanishing (typify's structs drop unknown keys
//! silently): `sessionCapabilities.fork` and the `session/prompt` reply's `usage` from ACP's own
//! `schema.unstable.json`, and `models` on the `session/new` / `session/load` replies from the
//! hand-written `undeclared.schema.json` (neither 2.4.0 file declares it).

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

/// ACP's unstable superset, vendored beside `schema.json`.
const UNSTABLE: &str = "schema.unstable.json";

/// The hand-written definitions of what no ACP schema declares.
pub const FILE: &str = "undeclared.schema.json";

/// (stable definition, property) taken as the unstable schema writes them.
const FROM_UNSTABLE: [(&str, &str); 2] = [("SessionCapabilities", "fork"), ("PromptResponse", "usage")];

/// (stable definition, property, definition of [`FILE`]).
const FROM_FILE: [(&str, &str, &str); 2] = [
    ("NewSessionResponse", "models", "UndeclaredSessionModelState"),
    ("LoadSessionResponse", "models", "UndeclaredSessionModelState"),
];

pub fn graft(schema_dir: &Path, definitions: &mut Map<String, Value>) -> Result<()> {
    let unstable = read_defs(&schema_dir.join(UNSTABLE))?;
    for (definition, property) in FROM_UNSTABLE {
        let schema = unstable
            .get(definition)
            .and_then(|d| d.pointer(&format!("/properties/{property}")))
            .with_context(|| format!("{UNSTABLE}: {definition}.{property} is missing"))?
            .clone();
        copy_referenced(&schema, &unstable, definitions)?;
        add_property(definitions, definition, property, schema)?;
    }
    let local = read_defs(&schema_dir.join(FILE))?;
    for (name, schema) in &local {
        if !name.starts_with("Undeclared") || definitions.insert(name.clone(), schema.clone()).is_some() {
            bail!("{FILE}: {name} must start with `Undeclared` and be new");
        }
    }
    for (definition, property, target) in FROM_FILE {
        if !local.contains_key(target) {
            bail!("{FILE}: {target} is missing");
        }
        let schema = json!({"anyOf": [{"$ref": format!("#/$defs/{target}")}, {"type": "null"}]});
        add_property(definitions, definition, property, schema)?;
    }
    Ok(())
}

fn read_defs(path: &Path) -> Result<Map<String, Value>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    match schema.get_mut("$defs").map(Value::take) {
        Some(Value::Object(defs)) => Ok(defs),
        _ => bail!("{}: no `$defs`", path.display()),
    }
}

fn add_property(definitions: &mut Map<String, Value>, definition: &str, property: &str, schema: Value) -> Result<()> {
    let properties = definitions
        .get_mut(definition)
        .and_then(|d| d.get_mut("properties"))
        .and_then(Value::as_object_mut)
        .with_context(|| format!("{definition} has no properties"))?;
    if properties.insert(property.into(), schema).is_some() {
        bail!("{definition}.{property} is declared now: drop the graft");
    }
    Ok(())
}

/// Copies the unstable definitions `schema` refers to (transitively) that the stable file lacks.
fn copy_referenced(schema: &Value, unstable: &Map<String, Value>, definitions: &mut Map<String, Value>) -> Result<()> {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                && !definitions.contains_key(name)
            {
                let target = unstable
                    .get(name)
                    .with_context(|| format!("{UNSTABLE}: $ref {name} is not defined"))?;
                definitions.insert(name.into(), target.clone());
                copy_referenced(target, unstable, definitions)?;
            }
            map.values()
                .try_for_each(|child| copy_referenced(child, unstable, definitions))
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| copy_referenced(item, unstable, definitions)),
        _ => Ok(()),
    }
}
