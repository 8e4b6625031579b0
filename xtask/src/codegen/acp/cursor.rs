//! Cursor's extension schema merged into ACP's definitions, and its reply tables.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

use crate::codegen::dispatch::results::{Response, Responses};
use crate::codegen::names::{type_ident, variant_ident};

/// The hand-written schema of Cursor's `cursor/*` methods, in `schemas/acp/`.
pub const FILE: &str = "cursor-extensions.schema.json";

/// The prefix every Cursor definition name carries, so the merge cannot shadow an ACP one.
const PREFIX: &str = "Cursor";

/// Where Cursor's schema points into ACP's.
const ACP_REF: &str = "schema.json#/$defs/";

/// Adds Cursor's definitions to `definitions` (references into `schema.json` made local) and
/// returns the reply tables its unions declare in `x-responses` (the annotation is removed; the
/// `x-dispatch` the pipeline reads stays).
pub fn merge(schema_dir: &Path, definitions: &mut Map<String, Value>) -> Result<Vec<Responses>> {
    let path = schema_dir.join(FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    localize_refs(&mut schema);
    let Some(Value::Object(cursor)) = schema.get_mut("$defs").map(Value::take) else {
        bail!("{FILE}: no `$defs`")
    };
    let mut tables = Vec::new();
    for (name, mut definition) in cursor {
        if !name.starts_with(PREFIX) {
            bail!("{FILE}: definition {name} does not start with {PREFIX}");
        }
        if let Some(replies) = definition.as_object_mut().and_then(|d| d.remove("x-responses")) {
            tables.push(reply_table(&name, &definition, &replies).with_context(|| format!("{FILE}: {name}"))?);
        }
        if definitions.insert(name.clone(), definition).is_some() {
            bail!("{FILE}: {name} is also an ACP definition");
        }
    }
    Ok(tables)
}

fn localize_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(name) = target.strip_prefix(ACP_REF)
            {
                *target = format!("#/$defs/{name}");
            }
            map.values_mut().for_each(localize_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(localize_refs),
        _ => {}
    }
}

/// The reply table of one annotated union: every `x-dispatch` method must have a reply.
fn reply_table(name: &str, definition: &Value, replies: &Value) -> Result<Responses> {
    let variants = definition
        .pointer("/x-dispatch/variants")
        .and_then(Value::as_object)
        .context("x-responses without x-dispatch variants")?;
    let replies = replies.as_object().context("x-responses is not an object")?;
    let methods = variants
        .keys()
        .map(|method| {
            let reply = replies
                .get(method)
                .and_then(Value::as_str)
                .with_context(|| format!("method {method} has no x-responses entry"))?;
            Ok((
                method.clone(),
                variant_ident(method),
                Response::Typed(type_ident(reply)),
            ))
        })
        .collect::<Result<_>>()?;
    if replies.len() != variants.len() {
        bail!("x-responses names a method x-dispatch does not list");
    }
    Ok(Responses {
        union: type_ident(name),
        methods,
    })
}
