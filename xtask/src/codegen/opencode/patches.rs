//! The edits of `schemas/opencode/patches.json`: where OpenCode's traffic differs from the
//! document it publishes, said in data beside the schema rather than in generator code.
//!
//! Each edit has a `why` and one of
//! - `add` (a component name) with `value`: a component the document lacks;
//! - `set` (a pointer) with `value`: a value the document has, replaced;
//! - `append` (a pointer to an array) with `value`: one more element.
//!
//! A pointer's first segment names a component; a trailing `*` there matches every component
//! with that prefix. An edit that applies nowhere is an error: when upstream fixes a gap, the
//! generator says so, and the edit goes.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

/// Applies every edit of the file at `path` to `definitions`.
pub fn apply(path: &Path, definitions: &mut Map<String, Value>) -> Result<()> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let edits = file
        .get("edits")
        .and_then(Value::as_array)
        .with_context(|| format!("{}: no `edits` array", path.display()))?;
    for (index, edit) in edits.iter().enumerate() {
        apply_one(edit, definitions).with_context(|| format!("{}: edit {index}", path.display()))?;
    }
    Ok(())
}

fn apply_one(edit: &Value, definitions: &mut Map<String, Value>) -> Result<()> {
    let edit = edit.as_object().context("not an object")?;
    for key in edit.keys() {
        if !["why", "add", "set", "append", "value"].contains(&key.as_str()) {
            bail!("unknown key `{key}` (known: why, add, set, append, value)");
        }
    }
    edit.get("why").and_then(Value::as_str).context("no `why`")?;
    let value = edit.get("value").context("no `value`")?.clone();
    match (edit.get("add"), edit.get("set"), edit.get("append")) {
        (Some(Value::String(name)), None, None) => {
            if definitions.insert(name.clone(), value).is_some() {
                bail!("`add`: the document already has {name}: drop the edit if upstream declares it now");
            }
        }
        (None, Some(Value::String(pointer)), None) => {
            for target in targets(definitions, pointer)? {
                *target = value.clone();
            }
        }
        (None, None, Some(Value::String(pointer))) => {
            for target in targets(definitions, pointer)? {
                target
                    .as_array_mut()
                    .with_context(|| format!("`append`: {pointer} is no array"))?
                    .push(value.clone());
            }
        }
        _ => bail!("exactly one of `add`, `set`, `append` (a string) is needed"),
    }
    Ok(())
}

/// The values `pointer` names, at least one.
fn targets<'a>(definitions: &'a mut Map<String, Value>, pointer: &str) -> Result<Vec<&'a mut Value>> {
    let rest = pointer.strip_prefix('/').context("a pointer starts with `/`")?;
    let (component, inner) = match rest.split_once('/') {
        Some((component, inner)) => (component, format!("/{inner}")),
        None => (rest, String::new()),
    };
    let matches = |name: &str| match component.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == component,
    };
    let mut found = Vec::new();
    for (name, schema) in definitions.iter_mut().filter(|(name, _)| matches(name)) {
        let target = schema
            .pointer_mut(&inner)
            .with_context(|| format!("{name} has nothing at {inner}: drop or fix the edit"))?;
        found.push(target);
    }
    if found.is_empty() {
        bail!("no component matches {component}");
    }
    Ok(found)
}
