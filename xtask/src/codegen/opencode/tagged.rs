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
//!
//! typify names the type of a variant's nested object after the union and the field
//! (`MessageTime`), one name for every variant: `UserMessage.time` (`created`) and
//! `AssistantMessage.time` (`created`, `completed`) would share one type and the assistant's
//! `completed` would fail to decode. So before the copy, every field of a branch component that
//! is more than a scalar becomes a definition of its own named after the component
//! (`AssistantMessageTime`), the name typify gives it in the component's own type.

use anyhow::{Context, Result};
use serde_json::{Map, Value};

/// Rewrites every tagged union of `definitions` (refs `#/components/schemas/X`).
pub fn rewrite(definitions: &mut Map<String, Value>) -> Result<()> {
    hoist_branch_fields(definitions)?;
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

/// The fields of every tagged-union branch component that hold an object, a union or a list of
/// them, moved to definitions `<Component><Field>` and referred to.
fn hoist_branch_fields(definitions: &mut Map<String, Value>) -> Result<()> {
    let mut branches = Vec::new();
    for schema in definitions.values() {
        branch_components(schema, definitions, &mut branches);
    }
    branches.sort();
    branches.dedup();
    for component in branches {
        let Some(Value::Object(properties)) = definitions.get_mut(&component).and_then(|c| c.get_mut("properties"))
        else {
            continue;
        };
        let mut hoisted = Vec::new();
        for (field, schema) in properties.iter_mut() {
            if !structured(schema) {
                continue;
            }
            let name = format!("{component}{}", super::super::names::pascal_case(field));
            let description = schema.as_object_mut().and_then(|s| s.remove("description"));
            let mut reference = Map::new();
            if let Some(description) = description {
                reference.insert("description".into(), description);
            }
            reference.insert("$ref".into(), Value::String(format!("#/components/schemas/{name}")));
            hoisted.push((name, std::mem::replace(schema, Value::Object(reference))));
        }
        for (name, schema) in hoisted {
            if definitions.insert(name.clone(), schema).is_some() {
                anyhow::bail!("component {component}: its field's definition {name} exists already");
            }
        }
    }
    Ok(())
}

/// The components that are branches of a tagged union somewhere in `value`.
fn branch_components(value: &Value, components: &Map<String, Value>, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(branches) = map.get("anyOf")
                && inline_tagged(branches, components).is_some()
            {
                into.extend(
                    branches
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|branch| branch.get("$ref")?.as_str()?.strip_prefix("#/components/schemas/"))
                        .map(str::to_string),
                );
            }
            map.values()
                .for_each(|child| branch_components(child, components, into));
        }
        Value::Array(items) => items.iter().for_each(|item| branch_components(item, components, into)),
        _ => {}
    }
}

/// Whether a field's schema is more than a scalar or a ref: an object with fields, a union, or
/// a list of either.
fn structured(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    map.contains_key("properties")
        || map.contains_key("anyOf")
        || map.contains_key("oneOf")
        || map.get("items").is_some_and(structured)
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
