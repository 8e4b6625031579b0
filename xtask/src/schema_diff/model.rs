//! What a schema declares, read the same way from every source: its definitions, the variants of
//! its discriminated unions (methods, message types), the fields of its objects and the values of
//! its enums. Two of these, compared, are a protocol change.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// One schema document, summarized.
#[derive(Debug, Default, PartialEq)]
pub struct Surface {
    /// Definition name -> its summary.
    pub definitions: BTreeMap<String, Definition>,
    /// Union name -> tag value -> the definition (or inline shape) it selects.
    pub unions: BTreeMap<String, BTreeMap<String, String>>,
}

/// What one definition declares.
#[derive(Debug, Default, PartialEq)]
pub struct Definition {
    /// Property name -> field summary (objects only).
    pub fields: BTreeMap<String, Field>,
    /// String enum values (enums only).
    pub enum_values: BTreeSet<String>,
    /// Marked deprecated (`deprecated: true`, or its description says so).
    pub deprecated: bool,
    /// A one-line type summary, to spot a definition that changed kind.
    pub kind: String,
}

/// One property of an object.
#[derive(Debug, Default, PartialEq)]
pub struct Field {
    pub ty: String,
    pub required: bool,
    pub deprecated: bool,
}

impl Surface {
    /// Reads a schema document: `definitions` or `$defs`, with nested definition maps (Codex's
    /// `definitions.v2`) flattened by name, or an OpenAPI document's `components.schemas`
    /// (OpenCode's).
    pub fn read(schema: &Value) -> Surface {
        let mut surface = Surface::default();
        for pointer in ["/definitions", "/$defs", "/components/schemas"] {
            if let Some(Value::Object(definitions)) = schema.pointer(pointer) {
                collect(definitions, &mut surface);
            }
        }
        surface
    }
}

/// Whether a map entry is a namespace of definitions rather than a schema (`definitions.v2`).
fn is_namespace(value: &Value) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    const KEYWORDS: [&str; 12] = [
        "type",
        "properties",
        "oneOf",
        "anyOf",
        "allOf",
        "enum",
        "const",
        "$ref",
        "items",
        "description",
        "title",
        "x-dispatch",
    ];
    !map.is_empty() && !map.keys().any(|key| KEYWORDS.contains(&key.as_str())) && map.values().all(Value::is_object)
}

fn collect(definitions: &Map<String, Value>, surface: &mut Surface) {
    for (name, schema) in definitions {
        if is_namespace(schema) {
            if let Value::Object(nested) = schema {
                collect(nested, surface);
            }
            continue;
        }
        surface.definitions.insert(name.clone(), definition(schema));
        if let Some(variants) = union_variants(schema) {
            surface.unions.insert(name.clone(), variants);
        }
    }
}

fn definition(schema: &Value) -> Definition {
    let mut definition = Definition {
        deprecated: is_deprecated(schema),
        kind: type_summary(schema),
        ..Definition::default()
    };
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            let field = Field {
                ty: type_summary(property),
                required: required.contains(name.as_str()),
                deprecated: is_deprecated(property),
            };
            definition.fields.insert(name.clone(), field);
        }
    }
    definition.enum_values = enum_values(schema);
    definition
}

/// String values of an `enum`, or of a `oneOf`/`anyOf` whose branches are each one string value.
fn enum_values(schema: &Value) -> BTreeSet<String> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values.iter().filter_map(Value::as_str).map(str::to_string).collect();
    }
    let mut values = BTreeSet::new();
    for key in ["oneOf", "anyOf"] {
        for branch in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            match (branch.get("enum"), branch.get("const")) {
                (Some(Value::Array(one)), _) if one.len() == 1 => {
                    values.extend(one[0].as_str().map(str::to_string));
                }
                (_, Some(Value::String(one))) => {
                    values.insert(one.clone());
                }
                _ => {}
            }
        }
    }
    values
}

fn is_deprecated(schema: &Value) -> bool {
    schema.get("deprecated") == Some(&Value::Bool(true))
        || schema
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|text| text.trim_start().to_ascii_lowercase().starts_with("deprecated"))
}

/// The variants of a discriminated union, by tag value: `x-dispatch` variants, or `oneOf`/`anyOf`
/// branches that each fix one property to one string (`method`, `type`, `sessionUpdate`, ...).
fn union_variants(schema: &Value) -> Option<BTreeMap<String, String>> {
    if let Some(Value::Object(variants)) = schema.get("x-dispatch").and_then(|d| d.get("variants")) {
        let variants = variants
            .iter()
            .map(|(tag, target)| {
                let target = match target {
                    Value::String(name) => name.clone(),
                    Value::Object(spec) => spec.get("definition").and_then(Value::as_str).unwrap_or("").to_string(),
                    _ => String::new(),
                };
                (tag.clone(), target)
            })
            .collect();
        return Some(variants);
    }
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut variants = BTreeMap::new();
    for branch in branches {
        let (tag, target) = branch_tag(branch)?;
        variants.insert(tag, target);
    }
    (variants.len() >= 2).then_some(variants)
}

/// The one string a branch fixes, and what the branch carries (its `params` type, its title).
fn branch_tag(branch: &Value) -> Option<(String, String)> {
    let properties = branch.get("properties")?.as_object()?;
    let tag = properties
        .values()
        .find_map(|property| match (property.get("const"), property.get("enum")) {
            (Some(Value::String(value)), _) => Some(value.clone()),
            (_, Some(Value::Array(values))) if values.len() == 1 => values[0].as_str().map(str::to_string),
            _ => None,
        })?;
    let target = properties
        .get("params")
        .map(type_summary)
        .or_else(|| branch.get("title").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_default();
    Some((tag, target))
}

/// A short type: `string`, `integer | null`, `array<Thread>`, `map<string>`, `Thread`, `"x"`.
pub fn type_summary(schema: &Value) -> String {
    if let Some(Value::String(reference)) = schema.get("$ref") {
        return reference.rsplit('/').next().unwrap_or(reference).to_string();
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    if schema.get("enum").is_some() {
        return "enum".to_string();
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let mut parts: Vec<String> = branches.iter().map(type_summary).collect();
            parts.dedup();
            return parts.join(if key == "allOf" { " & " } else { " | " });
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let describe = |ty: &str| match ty {
        "array" => format!("array<{}>", schema.get("items").map_or("any".to_string(), type_summary)),
        "object" => match schema.get("additionalProperties") {
            Some(Value::Object(_)) if schema.get("properties").is_none() => {
                format!("map<{}>", type_summary(&schema["additionalProperties"]))
            }
            _ => "object".to_string(),
        },
        other => match schema.get("format").and_then(Value::as_str) {
            Some(format) => format!("{other}({format})"),
            None => other.to_string(),
        },
    };
    match types.as_slice() {
        [] => "any".to_string(),
        types => types.iter().map(|ty| describe(ty)).collect::<Vec<_>>().join(" | "),
    }
}
