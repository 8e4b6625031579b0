//! Reads the `x-dispatch` annotations of a schema (the convention of `schemas/README.md`):
//!
//! ```json
//! "SDKMessage": {"x-dispatch": {"tag": "type", "variants": {"assistant": "SDKAssistantMessage", "system": "SDKSystemMessage"}}}
//! "SDKSystemMessage": {"x-dispatch": {"tag": "subtype", "variants": {"init": "SDKSystemInit"}}}
//! "CursorRequest": {"x-dispatch": {"tag": "method", "envelope": "jsonrpc-request", "variants": {"cursor/ask_question": "CursorAskQuestionParams"}}}
//! ```
//!
//! For a tag union, each variant's definition is the whole message object; its tag property must
//! be a `const` (or one-value `enum`) equal to the variant's value, and is removed from the
//! definition (the union writes it back), as are the tags of the unions it is nested in. Those
//! payload definitions may not be referenced by `$ref` from anywhere else, whose JSON would then
//! lose its tag. The annotated definitions stay in the map, for typify to treat as replaced.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

use super::{Payload, RpcKind, Style, Union, Variant};
use crate::codegen::docs::description;
use crate::codegen::names::{type_ident, variant_ident};
use crate::codegen::typify_runner::collect_refs;

/// The annotation's key.
pub const KEY: &str = "x-dispatch";

/// Every annotated union of `definitions`, in definition order, with the payload definitions
/// rewritten as the module docs say.
pub fn extract(definitions: &mut Map<String, Value>) -> Result<Vec<Union>> {
    let annotated: Vec<String> = definitions
        .iter()
        .filter(|(_, schema)| schema.get(KEY).is_some())
        .map(|(name, _)| name.clone())
        .collect();
    let mut unions = Vec::new();
    let mut stripped = BTreeSet::new();
    for name in &annotated {
        let union = read(name, definitions).with_context(|| format!("definition {name}: `{KEY}`"))?;
        unions.push(union);
    }
    // Strip tags from the outermost unions down: a nested union's payloads lose every tag above
    // them, so a nested union is not a type of its own either (it cannot stand without them).
    for union in &unions {
        let Style::Tag { field } = &union.style else { continue };
        if is_nested_somewhere(&union.name, &unions) {
            stripped.insert(union.name.clone());
            continue;
        }
        strip_tags(definitions, &union.name, &mut vec![field.clone()], &mut stripped)
            .with_context(|| format!("definition {}: `{KEY}`", union.name))?;
    }
    check_not_referenced(definitions, &annotated, &stripped)?;
    // A payload left with no fields is no type at all (typify would make it an open map, which
    // would hold the tag a second time): its variant holds nothing.
    let tag_only: BTreeSet<String> = stripped
        .iter()
        .filter(|name| {
            !annotated.contains(name)
                && definitions[name.as_str()]
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty)
        })
        .cloned()
        .collect();
    for name in &tag_only {
        let schema = definitions.remove(name).expect("a stripped payload is a definition");
        if schema
            .get("additionalProperties")
            .is_some_and(|extra| extra != &Value::Bool(false))
        {
            bail!("definition {name}: a tag union's payload with no properties cannot be an open map");
        }
        let ident = type_ident(name);
        for variant in unions.iter_mut().flat_map(|union| &mut union.variants) {
            if matches!(&variant.payload, Payload::Required(payload) if *payload == ident) {
                variant.payload = Payload::TagOnly;
            }
        }
    }
    for name in &annotated {
        let schema = &definitions[name];
        let mut placeholder = Map::new();
        if let Some(text) = description(schema) {
            placeholder.insert("description".into(), Value::String(text));
        }
        definitions.insert(name.clone(), Value::Object(placeholder));
    }
    Ok(unions)
}

fn read(name: &str, definitions: &Map<String, Value>) -> Result<Union> {
    let schema = &definitions[name];
    let annotation = schema[KEY].as_object().context("must be an object")?;
    for key in annotation.keys() {
        if !["tag", "envelope", "version", "variants"].contains(&key.as_str()) {
            bail!("unknown key `{key}` (known: tag, envelope, version, variants)");
        }
    }
    let tag = annotation
        .get("tag")
        .and_then(Value::as_str)
        .context("`tag` must be a string")?;
    let style = match annotation
        .get("envelope")
        .map(|e| e.as_str().context("`envelope` must be a string"))
    {
        None => {
            if annotation.contains_key("version") {
                bail!("`version` is for JSON-RPC envelopes only");
            }
            Style::Tag { field: tag.to_string() }
        }
        Some(envelope) => {
            let kind = match envelope? {
                "jsonrpc-request" => RpcKind::Request,
                "jsonrpc-notification" => RpcKind::Notification,
                other => bail!("unknown `envelope` {other:?} (known: jsonrpc-request, jsonrpc-notification)"),
            };
            if tag != "method" {
                bail!("a JSON-RPC union is tagged by `method`, not `{tag}`");
            }
            let version = match annotation.get("version") {
                None => None,
                Some(Value::String(version)) => Some(version.clone()),
                Some(_) => bail!("`version` must be a string"),
            };
            Style::JsonRpc {
                kind,
                shared: Vec::new(),
                version,
            }
        }
    };
    let entries = annotation
        .get("variants")
        .and_then(Value::as_object)
        .context("`variants` must be an object")?;
    if entries.is_empty() {
        bail!("`variants` is empty");
    }
    let mut idents = BTreeSet::new();
    let mut variants = Vec::new();
    for (value, target) in entries {
        let payload = read_variant(value, target, &style, definitions)?;
        let ident = variant_ident(value);
        if !idents.insert(ident.to_string()) {
            bail!("two values map to the variant name {ident}");
        }
        let description = match target {
            Value::String(definition) => description(&definitions[definition.as_str()]),
            _ => None,
        };
        variants.push(Variant {
            value: value.clone(),
            ident,
            description,
            payload,
        });
    }
    Ok(Union {
        name: name.to_string(),
        ident: type_ident(name),
        description: description(schema),
        style,
        variants,
    })
}

/// A variant's target: a definition name; for JSON-RPC also `null` (no params) or
/// `{"definition": name, "optional": true}` (params may be absent).
fn read_variant(value: &str, target: &Value, style: &Style, definitions: &Map<String, Value>) -> Result<Payload> {
    let defined = |name: &str| -> Result<()> {
        match definitions.get(name) {
            Some(_) => Ok(()),
            None => bail!("variant `{value}` names {name}, which is not a definition of this schema"),
        }
    };
    let rpc = matches!(style, Style::JsonRpc { .. });
    match target {
        Value::String(name) => {
            defined(name)?;
            if definitions[name.as_str()].get(KEY).is_some() {
                if rpc {
                    bail!("variant `{value}`: JSON-RPC params cannot be a dispatch union");
                }
                Ok(Payload::Nested(type_ident(name)))
            } else {
                Ok(Payload::Required(type_ident(name)))
            }
        }
        Value::Null if rpc => Ok(Payload::Absent),
        Value::Object(entry) if rpc => {
            let name = entry
                .get("definition")
                .and_then(Value::as_str)
                .with_context(|| format!("variant `{value}`: `definition` must be a string"))?;
            defined(name)?;
            match entry.get("optional") {
                Some(Value::Bool(true)) => Ok(Payload::Optional(type_ident(name))),
                Some(Value::Bool(false)) | None => Ok(Payload::Required(type_ident(name))),
                Some(_) => bail!("variant `{value}`: `optional` must be a boolean"),
            }
        }
        _ if rpc => bail!("variant `{value}`: expected a definition name, null or {{\"definition\", \"optional\"}}"),
        _ => bail!("variant `{value}`: a tag union's variant is a definition name"),
    }
}

fn is_nested_somewhere(name: &str, unions: &[Union]) -> bool {
    let ident = type_ident(name);
    unions
        .iter()
        .flat_map(|union| &union.variants)
        .any(|variant| matches!(&variant.payload, Payload::Nested(inner) if *inner == ident))
}

/// Removes the tags `fields` (outermost first) from the payload definitions below the union
/// `union`, checking that each is the `const` of its variant's value.
fn strip_tags(
    definitions: &mut Map<String, Value>,
    union: &str,
    fields: &mut Vec<String>,
    stripped: &mut BTreeSet<String>,
) -> Result<()> {
    strip_below(definitions, union, fields, &mut Vec::new(), stripped)
}

fn strip_below(
    definitions: &mut Map<String, Value>,
    union: &str,
    fields: &mut Vec<String>,
    values: &mut Vec<String>,
    stripped: &mut BTreeSet<String>,
) -> Result<()> {
    let annotation = definitions[union][KEY].clone();
    let variants = annotation["variants"].as_object().cloned().unwrap_or_default();
    for (value, target) in variants {
        let name = target.as_str().expect("checked by read").to_string();
        values.push(value.clone());
        if let Some(inner) = definitions[name.as_str()].get(KEY) {
            let field = inner["tag"].as_str().expect("checked by read").to_string();
            if fields.contains(&field) {
                bail!("{name} nests the tag `{field}` inside a union already tagged by it");
            }
            fields.push(field);
            strip_below(definitions, &name, fields, values, stripped)?;
            fields.pop();
        } else {
            if !stripped.insert(name.clone()) {
                bail!("{name} is the payload of two variants; give each its own definition");
            }
            let schema = definitions.get_mut(&name).expect("checked by read");
            strip_payload(schema, fields, values).with_context(|| format!("payload {name} of `{value}`"))?;
        }
        values.pop();
    }
    Ok(())
}

fn strip_payload(schema: &mut Value, fields: &[String], values: &[String]) -> Result<()> {
    let Some(object) = schema.as_object_mut() else {
        bail!("must be an object schema")
    };
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        bail!("must be an object schema with `properties` (the tag among them); use a nested `{KEY}` for a union")
    };
    for (field, value) in fields.iter().zip(values) {
        let Some(property) = properties.remove(field) else {
            bail!("has no `{field}` property");
        };
        let constant = property.get("const").or_else(|| {
            property
                .get("enum")
                .and_then(Value::as_array)
                .filter(|v| v.len() == 1)
                .map(|v| &v[0])
        });
        if constant.and_then(Value::as_str) != Some(value.as_str()) {
            bail!("its `{field}` must be `{{\"const\": \"{value}\"}}`, found {property}");
        }
    }
    if let Some(Value::Array(required)) = object.get_mut("required") {
        required.retain(|name| !fields.iter().any(|field| name == field.as_str()));
    }
    // The tag stays in the object the payload is decoded from.
    if object.get("additionalProperties") == Some(&Value::Bool(false)) {
        object.remove("additionalProperties");
    }
    Ok(())
}

/// A stripped payload (or nested union) referenced elsewhere would serialize without its tags there.
fn check_not_referenced(
    definitions: &Map<String, Value>,
    annotated: &[String],
    stripped: &BTreeSet<String>,
) -> Result<()> {
    for (name, schema) in definitions {
        if annotated.contains(name) {
            continue;
        }
        let mut refs = Vec::new();
        collect_refs(schema, &mut refs);
        if let Some(target) = refs.iter().find(|target| stripped.contains(*target)) {
            bail!(
                "definition {name} refers to {target}, the payload of a tag union or a union nested in one (it \
                 lacks the tags above it); refer to the outermost union instead"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    fn definitions(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn error(value: Value) -> String {
        let err = super::extract(&mut definitions(value))
            .err()
            .expect("the annotation is refused");
        format!("{err:#}")
    }

    fn message(tag_property: Value) -> Value {
        json!({
            "Line": { "x-dispatch": { "tag": "type", "variants": { "a": "A" } } },
            "A": { "type": "object", "required": ["type"], "properties": { "type": tag_property, "n": { "type": "integer" } } }
        })
    }

    #[test]
    fn the_tag_is_stripped_from_the_payload_and_the_union_replaced() {
        let mut defs = definitions(message(json!({ "const": "a" })));
        let unions = super::extract(&mut defs).unwrap();
        assert_eq!(unions.len(), 1);
        assert_eq!(unions[0].variants[0].value, "a");
        assert_eq!(defs["A"]["properties"], json!({ "n": { "type": "integer" } }));
        assert_eq!(defs["A"]["required"], json!([]));
        assert_eq!(
            defs["Line"],
            json!({}),
            "the union's body is left for typify to replace"
        );
    }

    #[test]
    fn a_tag_that_is_not_the_variant_const_is_refused() {
        let text = error(message(json!({ "const": "b" })));
        assert!(text.contains("payload A of `a`"), "{text}");
        assert!(text.contains(r#"its `type` must be `{"const": "a"}`"#), "{text}");
        let text = error(message(json!({ "type": "string" })));
        assert!(text.contains("must be `{\"const\": \"a\"}`"), "{text}");
    }

    #[test]
    fn a_variant_naming_no_definition_is_refused() {
        let text = error(json!({ "Line": { "x-dispatch": { "tag": "type", "variants": { "a": "Nowhere" } } } }));
        assert!(text.contains("definition Line: `x-dispatch`"), "{text}");
        assert!(
            text.contains("variant `a` names Nowhere, which is not a definition"),
            "{text}"
        );
    }

    #[test]
    fn unknown_keys_and_envelopes_are_refused() {
        let text = error(json!({ "U": { "x-dispatch": { "tag": "type", "payload": "payload", "variants": {} } } }));
        assert!(text.contains("unknown key `payload`"), "{text}");
        let text = error(json!({ "U": { "x-dispatch": { "tag": "method", "envelope": "http", "variants": {} } } }));
        assert!(text.contains("unknown `envelope` \"http\""), "{text}");
        let text = error(
            json!({ "U": { "x-dispatch": { "tag": "type", "envelope": "jsonrpc-request", "variants": { "m": "P" } } }, "P": {} }),
        );
        assert!(text.contains("tagged by `method`, not `type`"), "{text}");
    }

    #[test]
    fn a_payload_referenced_elsewhere_is_refused() {
        let mut schema = message(json!({ "const": "a" }));
        schema["Holder"] = json!({ "type": "object", "properties": { "a": { "$ref": "#/definitions/A" } } });
        let text = error(schema);
        assert!(
            text.contains("definition Holder refers to A, the payload of a tag union"),
            "{text}"
        );
    }

    #[test]
    fn nested_unions_strip_every_tag_above_their_payloads() {
        let mut defs = definitions(json!({
            "Message": { "x-dispatch": { "tag": "type", "variants": { "system": "System" } } },
            "System": { "x-dispatch": { "tag": "subtype", "variants": { "init": "Init" } } },
            "Init": {
                "type": "object",
                "required": ["type", "subtype"],
                "properties": { "type": { "const": "system" }, "subtype": { "const": "init" }, "model": { "type": "string" } }
            }
        }));
        let unions = super::extract(&mut defs).unwrap();
        assert!(matches!(&unions[0].variants[0].payload, super::Payload::Nested(inner) if inner == "System"));
        assert_eq!(defs["Init"]["properties"], json!({ "model": { "type": "string" } }));
        // The nested union lacks the outer tag, so it is no field type of its own.
        let text = error(json!({
            "Message": { "x-dispatch": { "tag": "type", "variants": { "system": "System" } } },
            "System": { "x-dispatch": { "tag": "subtype", "variants": { "init": "Init" } } },
            "Init": { "type": "object", "properties": { "type": { "const": "system" }, "subtype": { "const": "init" } } },
            "Holder": { "type": "object", "properties": { "system": { "$ref": "#/definitions/System" } } }
        }));
        assert!(text.contains("definition Holder refers to System"), "{text}");
        // A nested union may not reuse the tag of a union it sits in.
        let text = error(json!({
            "Message": { "x-dispatch": { "tag": "type", "variants": { "system": "System" } } },
            "System": { "x-dispatch": { "tag": "type", "variants": { "init": "Init" } } },
            "Init": { "type": "object", "properties": { "type": { "const": "init" } } }
        }));
        assert!(text.contains("nests the tag `type`"), "{text}");
    }
}
