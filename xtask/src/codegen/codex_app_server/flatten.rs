//! The Codex-only rewrite of the vendored bundle: v2 types nest under `definitions.v2` (refs
//! `#/definitions/v2/X`), which typify cannot resolve, so they are flattened into one
//! `definitions` map and every ref rewritten. The generic passes run afterwards.

use anyhow::{Result, bail};
use serde_json::{Map, Value};

/// Returns the bundle's definitions as one flat map, sorted by name, with refs rewritten.
pub fn flatten(bundle: Value) -> Result<Map<String, Value>> {
    let Value::Object(mut root) = bundle else {
        bail!("the bundle is not a JSON object")
    };
    let Some(Value::Object(mut definitions)) = root.remove("definitions") else {
        bail!("the bundle has no `definitions` object")
    };
    let nested = match definitions.remove("v2") {
        Some(Value::Object(nested)) => nested,
        Some(_) => bail!("`definitions.v2` is not an object"),
        None => Map::new(),
    };
    let mut flat = Map::new();
    for (name, mut schema) in definitions.into_iter().chain(nested) {
        rewrite_refs(&mut schema);
        match flat.get(&name) {
            Some(existing) if without_title(existing) != without_title(&schema) => {
                bail!("definition {name} exists both at the top level and under v2, and they differ")
            }
            _ => {
                flat.insert(name, schema);
            }
        }
    }
    flat.sort_keys();
    Ok(flat)
}

/// Top-level copies of v2 types carry a `title` their v2 twins lack; nothing else may differ.
fn without_title(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    schema
}

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("$schema");
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference.strip_prefix("#/definitions/v2/")
            {
                *reference = format!("#/definitions/{name}");
            }
            map.values_mut().for_each(rewrite_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}
