//! OpenCode's tagged unions, made into the shape typify emits as internally tagged enums.
//!
//! The document writes a tagged union as an `anyOf` of component refs, each component an object
//! that requires one property (`type`, `role`, `status`, `name`) holding a one-value string
//! `enum`: `Part` on `type`, `Message` on `role`, `ToolState` on `status`, a session error on
//! `name`. typify does not look through the refs for the tag and makes such a union untagged,
//! which decodes by trial. With each branch's component copied in place of its ref, the union
//! read as the `oneOf` it is (the tag values differ), typify emits `#[serde(tag = ...)]` with one
//! variant per value. Not every such union can be an `x-dispatch`: some of its components are
//! also named elsewhere (`FilePart` outside `Part`, `APIError` outside the error unions), where
//! their JSON carries the tag too.

use anyhow::{Context, Result};
use serde_json::{Map, Value};

/// Rewrites every tagged union of `definitions` (refs `#/components/schemas/X`).
pub fn rewrite(definitions: &mut Map<String, Value>) -> Result<()> {
    let components = definitions.clone();
    for (name, schema) in definitions.iter_mut() {
        visit(schema, &components).with_context(|| format!("component {name}"))?;
    }
    Ok(())
}

fn visit(value: &mut Value, components: &Map<String, Value>) -> Result<()> {
    match value {
        Value::Object(map) => {
            if let Some(inlined) = map
                .get("anyOf")
                .and_then(|branches| inline_tagged(branches, components))
            {
                map.remove("anyOf");
                map.insert("oneOf".into(), Value::Array(inlined));
            }
            for child in map.values_mut() {
                visit(child, components)?;
            }
        }
        Value::Array(items) => {
            for item in items {
                visit(item, components)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The components of a union of refs tagged on one property with distinct values, copied in
/// place of their refs; `None` for any other union.
fn inline_tagged(branches: &Value, components: &Map<String, Value>) -> Option<Vec<Value>> {
    let branches = branches.as_array()?;
    let mut inlined = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    for branch in branches {
        let name = branch.get("$ref")?.as_str()?.strip_prefix("#/components/schemas/")?;
        let component = components.get(name)?;
        let tag = tag_of(component)?;
        if tags.iter().any(|(field, value)| field != &tag.0 || value == &tag.1) {
            return None;
        }
        tags.push(tag);
        inlined.push(component.clone());
    }
    (tags.len() >= 2).then_some(inlined)
}

/// The one required property of an object component holding a one-value string `enum`, and
/// its value.
fn tag_of(component: &Value) -> Option<(String, String)> {
    let properties = component.get("properties")?.as_object()?;
    let required = component.get("required")?.as_array()?;
    let mut tags = properties.iter().filter_map(|(field, schema)| {
        let values = schema.get("enum")?.as_array()?;
        let value = (values.len() == 1).then(|| values[0].as_str())??;
        required
            .iter()
            .any(|r| r == field.as_str())
            .then(|| (field.clone(), value.to_string()))
    });
    let tag = tags.next()?;
    tags.next().is_none().then_some(tag)
}
