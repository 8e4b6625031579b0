//! ACP's tagged unions, made into the shape typify emits as internally tagged enums.
//!
//! ACP writes a tagged branch as `{properties: {<tag>: {const: v}}, required: [<tag>], allOf:
//! [{$ref: Payload}]}`. typify does not see the payload's fields beside the tag and makes the
//! union untagged, which decodes by trial: every `agent_message_chunk` lands in
//! `user_message_chunk` (the three share `ContentChunk`), every `selected` permission outcome in
//! `cancelled`. With the payload's `properties` and `required` merged into the branch (and the
//! `allOf` dropped) typify emits `#[serde(tag = ...)]` with one variant per `const`. A union
//! whose branches are all tagged on one field is exclusive, so its `anyOf` is read as `oneOf`.

use anyhow::{Context, Result};
use serde_json::{Map, Value};

use crate::codegen::passes::map_required;

/// Rewrites every tagged branch of every union in `definitions`.
pub fn rewrite(definitions: &mut Map<String, Value>) -> Result<()> {
    let payloads = definitions.clone();
    for (name, schema) in definitions.iter_mut() {
        visit(schema, &payloads).with_context(|| format!("definition {name}"))?;
    }
    Ok(())
}

fn visit(value: &mut Value, payloads: &Map<String, Value>) -> Result<()> {
    match value {
        Value::Object(map) => {
            for key in ["oneOf", "anyOf"] {
                if let Some(Value::Array(branches)) = map.get_mut(key) {
                    let mut tags = Vec::new();
                    for branch in branches.iter_mut() {
                        tags.push(inline_tagged(branch, payloads)?);
                    }
                    let all_tagged_on_one = tags
                        .first()
                        .is_some_and(|first| first.is_some() && tags.iter().all(|tag| tag == first));
                    if key == "anyOf" && all_tagged_on_one {
                        let branches = map.remove("anyOf").expect("just read");
                        map.insert("oneOf".into(), branches);
                    }
                }
            }
            for child in map.values_mut() {
                visit(child, payloads)?;
            }
        }
        Value::Array(items) => {
            for item in items {
                visit(item, payloads)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Merges the payload of a tagged branch beside its tag; returns the tag field, if the branch is
/// tagged (a `const` string property it requires).
fn inline_tagged(branch: &mut Value, payloads: &Map<String, Value>) -> Result<Option<String>> {
    let Value::Object(branch) = branch else {
        return Ok(None);
    };
    let Some(tag) = tag_field(branch) else {
        return Ok(None);
    };
    let Some(target) = payload_ref(branch) else {
        return Ok(Some(tag));
    };
    let payload = payloads
        .get(&target)
        .with_context(|| format!("$ref {target} is not defined"))?;
    merge_payload(branch, payload);
    Ok(Some(tag))
}

/// The definition a branch written `allOf: [{$ref: "#/$defs/<name>"}]` stands for.
pub(super) fn payload_ref(branch: &Map<String, Value>) -> Option<String> {
    branch
        .get("allOf")
        .and_then(Value::as_array)
        .filter(|all| all.len() == 1)
        .and_then(|all| all[0].get("$ref"))
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(str::to_string)
}

/// Puts the `properties` and `required` of `payload` into `branch` in place of its `allOf`
/// (a property the branch declares itself, such as its tag, is kept), with the payload's
/// description when the branch has none.
pub(super) fn merge_payload(branch: &mut Map<String, Value>, payload: &Value) {
    let fields = payload
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required = map_required(payload.get("required"));
    branch.remove("allOf");
    if let Value::Object(properties) = branch.entry("properties").or_insert_with(|| Value::Object(Map::new())) {
        for (field, schema) in fields {
            properties.entry(field).or_insert(schema);
        }
    }
    if let Value::Array(list) = branch.entry("required").or_insert_with(|| Value::Array(Vec::new())) {
        for field in required {
            if !list.iter().any(|v| v == field.as_str()) {
                list.push(Value::String(field));
            }
        }
    }
    if branch.get("description").is_none()
        && let Some(description) = payload.get("description")
    {
        branch.insert("description".into(), description.clone());
    }
}

/// The one required property of `branch` whose schema is a string `const`.
fn tag_field(branch: &Map<String, Value>) -> Option<String> {
    let properties = branch.get("properties")?.as_object()?;
    let required = map_required(branch.get("required"));
    let mut tags = properties
        .iter()
        .filter(|(field, schema)| schema.get("const").is_some_and(Value::is_string) && required.contains(field))
        .map(|(field, _)| field.clone());
    let tag = tags.next()?;
    tags.next().is_none().then_some(tag)
}
