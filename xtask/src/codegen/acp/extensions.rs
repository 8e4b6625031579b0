//! The agents' extension schemas (Cursor's `cursor/*` methods, Qwen Code's) merged into ACP's
//! definitions, and their reply tables.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

use crate::codegen::dispatch::results::{Response, Responses};
use crate::codegen::names::{type_ident, variant_ident};

/// The hand-written extension schemas in `schemas/acp/`, each with the prefix every definition
/// name of its carries, so a merge can shadow no ACP definition and no other extension's.
pub const FILES: [(&str, &str); 2] = [
    ("cursor-extensions.schema.json", "Cursor"),
    ("qwen-extensions.schema.json", "Qwen"),
];

/// Where Cursor's schema points into ACP's.
const ACP_REF: &str = "schema.json#/$defs/";

/// What the extension schemas declare beside their definitions.
pub struct Extensions {
    /// The reply tables their request unions declare in `x-responses`.
    pub replies: Vec<Responses>,
    /// Every method their `x-dispatch` unions list (ACP's own table does not).
    pub methods: Vec<String>,
}

/// Adds every extension schema's definitions to `definitions` ([`FILES`]).
pub fn merge_all(schema_dir: &Path, definitions: &mut Map<String, Value>) -> Result<Extensions> {
    let mut extensions = Extensions {
        replies: Vec::new(),
        methods: Vec::new(),
    };
    for (file, prefix) in FILES {
        merge(schema_dir, file, prefix, definitions, &mut extensions)?;
    }
    Ok(extensions)
}

/// Adds one extension schema's definitions to `definitions` (references into `schema.json` made
/// local), its reply tables and methods to `extensions` (`x-responses` is removed; the
/// `x-dispatch` the pipeline reads stays).
fn merge(
    schema_dir: &Path,
    file: &str,
    prefix: &str,
    definitions: &mut Map<String, Value>,
    extensions: &mut Extensions,
) -> Result<()> {
    let path = schema_dir.join(file);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    localize_refs(&mut schema);
    let Some(Value::Object(added)) = schema.get_mut("$defs").map(Value::take) else {
        bail!("{file}: no `$defs`")
    };
    for (name, mut definition) in added {
        if !name.starts_with(prefix) {
            bail!("{file}: definition {name} does not start with {prefix}");
        }
        if let Some(methods) = definition.pointer("/x-dispatch/variants").and_then(Value::as_object) {
            extensions.methods.extend(methods.keys().cloned());
        }
        if let Some(replies) = definition.as_object_mut().and_then(|d| d.remove("x-responses")) {
            let table = reply_table(&name, &definition, &replies).with_context(|| format!("{file}: {name}"))?;
            extensions.replies.push(table);
        }
        if definitions.insert(name.clone(), definition).is_some() {
            bail!("{file}: {name} is also an ACP definition");
        }
    }
    Ok(())
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
