//! The `x-dispatch` annotation of the hand-written provider schemas (`schemas/codex-exec/`,
//! `schemas/codex-rollout/`), read the way the code generator reads it.
//!
//! A union definition carries `"x-dispatch": {"tag": "type", "variants": {"<tag value>": "<Definition>"}}`
//! next to a plain `oneOf` of `$ref`s to the same definitions. Each variant definition is the whole
//! object, with its tag property a `const`. A variant may hold further unions (a rollout line's
//! `payload` is an `EventMsg`, an `item_completed` event's `item` is a `TurnItem`), so picking the
//! branch of one JSON value is a walk: dispatch on the tag, then follow the variant's properties
//! (through `$ref`, array `items`, map `additionalProperties` and nullable `oneOf`s) into the
//! nested unions.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// One union branch a value landed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landing {
    /// JSON pointer of the dispatched value inside the instance (`""` for the instance itself).
    pub pointer: String,
    /// The union definition that was dispatched.
    pub union: String,
    /// The tag value the instance carries.
    pub tag: String,
    /// The variant definition the tag names.
    pub variant: String,
}

/// The `definitions` of a draft-07 schema document.
pub fn definitions(schema: &Value) -> &Map<String, Value> {
    schema["definitions"]
        .as_object()
        .expect("the schema has a `definitions` object")
}

/// The definition name a `{"$ref": "#/definitions/Name"}` points at.
pub fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/definitions/")
}

/// The `(tag property, {tag value: variant definition})` of a union definition.
pub fn dispatch_of<'s>(schema: &'s Value, union: &str) -> Option<(&'s str, BTreeMap<&'s str, &'s str>)> {
    let annotation = definitions(schema).get(union)?.get("x-dispatch")?;
    let tag = annotation["tag"].as_str()?;
    let variants = annotation["variants"]
        .as_object()?
        .iter()
        .map(|(value, variant)| Some((value.as_str(), variant.as_str()?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some((tag, variants))
}

/// Every union definition (one carrying `x-dispatch`), by name.
pub fn unions(schema: &Value) -> BTreeSet<&str> {
    definitions(schema)
        .iter()
        .filter(|(_, definition)| definition.get("x-dispatch").is_some())
        .map(|(name, _)| name.as_str())
        .collect()
}

/// What is wrong with the annotations: a malformed `x-dispatch`, a variant that names no
/// definition, a variant whose tag property is not the `const` of its key or not required, or a
/// `oneOf` that does not list exactly the variants' definitions.
pub fn annotation_errors(schema: &Value) -> Vec<String> {
    let defs = definitions(schema);
    let mut errors = Vec::new();
    for union in unions(schema) {
        let Some((tag, variants)) = dispatch_of(schema, union) else {
            errors.push(format!(
                "{union}: `x-dispatch` is not {{\"tag\": string, \"variants\": {{string: string}}}}"
            ));
            continue;
        };
        for (value, variant) in &variants {
            let Some(definition) = defs.get(*variant) else {
                errors.push(format!("{union}: variant {value:?} names no definition {variant:?}"));
                continue;
            };
            if definition["properties"][tag]["const"].as_str() != Some(value) {
                errors.push(format!("{union}: {variant}.{tag} is not `const` {value:?}"));
            }
            let required = definition["required"].as_array().into_iter().flatten();
            if !required.filter_map(Value::as_str).any(|name| name == tag) {
                errors.push(format!("{union}: {variant} does not require its tag `{tag}`"));
            }
        }
        let listed: BTreeSet<&str> = defs[union]["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(ref_name)
            .collect();
        let named: BTreeSet<&str> = variants.values().copied().collect();
        if listed != named {
            errors.push(format!(
                "{union}: `oneOf` lists {listed:?} but `x-dispatch` names {named:?}"
            ));
        }
    }
    errors
}

/// Dispatches `instance` as the union `union` and follows every nested union, returning each
/// branch taken, outermost first. An error names the JSON pointer and the tag that no variant
/// claims (or that is missing).
pub fn dispatch(schema: &Value, union: &str, instance: &Value) -> Result<Vec<Landing>, String> {
    let mut landings = Vec::new();
    dispatch_union(schema, union, instance, "", &mut landings)?;
    Ok(landings)
}

fn dispatch_union(
    schema: &Value,
    union: &str,
    value: &Value,
    pointer: &str,
    landings: &mut Vec<Landing>,
) -> Result<(), String> {
    let (tag, variants) =
        dispatch_of(schema, union).ok_or_else(|| format!("{union} has no well-formed `x-dispatch`"))?;
    let tag_value = value
        .get(tag)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("at `{pointer}`: {union} needs a string `{tag}`"))?;
    let variant = variants
        .get(tag_value)
        .ok_or_else(|| format!("at `{pointer}`: {union} has no variant for {tag}={tag_value:?}"))?;
    landings.push(Landing {
        pointer: pointer.to_owned(),
        union: union.to_owned(),
        tag: tag_value.to_owned(),
        variant: (*variant).to_owned(),
    });
    walk_definition(schema, variant, value, pointer, landings)
}

fn walk_definition(
    schema: &Value,
    name: &str,
    value: &Value,
    pointer: &str,
    landings: &mut Vec<Landing>,
) -> Result<(), String> {
    let definition = &definitions(schema)[name];
    if definition.get("x-dispatch").is_some() {
        return dispatch_union(schema, name, value, pointer, landings);
    }
    walk_schema(schema, definition, value, pointer, landings)
}

fn walk_schema(
    schema: &Value,
    node: &Value,
    value: &Value,
    pointer: &str,
    landings: &mut Vec<Landing>,
) -> Result<(), String> {
    if let Some(name) = ref_name(node) {
        return walk_definition(schema, name, value, pointer, landings);
    }
    if let (Some(properties), Some(object)) = (node.get("properties").and_then(Value::as_object), value.as_object()) {
        for (key, property) in properties {
            if let Some(child) = object.get(key) {
                walk_schema(schema, property, child, &child_pointer(pointer, key), landings)?;
            }
        }
    }
    if let (Some(items), Some(array)) = (node.get("items"), value.as_array()) {
        for (index, child) in array.iter().enumerate() {
            walk_schema(
                schema,
                items,
                child,
                &child_pointer(pointer, &index.to_string()),
                landings,
            )?;
        }
    }
    if let (Some(entries), Some(object)) = (
        node.get("additionalProperties").filter(|s| s.is_object()),
        value.as_object(),
    ) {
        let named = node.get("properties").and_then(Value::as_object);
        for (key, child) in object {
            if !named.is_some_and(|properties| properties.contains_key(key)) {
                walk_schema(schema, entries, child, &child_pointer(pointer, key), landings)?;
            }
        }
    }
    // A nullable reference `{"oneOf": [{"$ref": ...}, {"type": "null"}]}`: follow the reference
    // unless the value is null. Unions themselves were handled above by their `x-dispatch`.
    if let Some(alternatives) = node.get("oneOf").and_then(Value::as_array)
        && !value.is_null()
    {
        for alternative in alternatives.iter().filter(|a| ref_name(a).is_some()) {
            walk_schema(schema, alternative, value, pointer, landings)?;
        }
    }
    Ok(())
}

fn child_pointer(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "$ref": "#/definitions/Event",
            "definitions": {
                "Event": {
                    "x-dispatch": {"tag": "type", "variants": {"a": "AEvent", "wrap": "WrapEvent"}},
                    "oneOf": [{"$ref": "#/definitions/AEvent"}, {"$ref": "#/definitions/WrapEvent"}]
                },
                "AEvent": {"type": "object", "properties": {"type": {"const": "a"}}, "required": ["type"]},
                "WrapEvent": {
                    "type": "object",
                    "properties": {
                        "type": {"const": "wrap"},
                        "inner": {"oneOf": [{"$ref": "#/definitions/Event"}, {"type": "null"}]},
                        "list": {"type": "array", "items": {"$ref": "#/definitions/Event"}},
                        "map": {"type": "object", "additionalProperties": {"$ref": "#/definitions/Event"}}
                    },
                    "required": ["type"]
                }
            }
        })
    }

    #[test]
    fn well_formed_annotations_have_no_errors() {
        assert_eq!(annotation_errors(&schema()), Vec::<String>::new());
    }

    #[test]
    fn each_annotation_mistake_is_reported() {
        let mut missing = schema();
        missing["definitions"]["Event"]["x-dispatch"]["variants"]["b"] = json!("BEvent");
        let mut wrong_const = schema();
        wrong_const["definitions"]["AEvent"]["properties"]["type"]["const"] = json!("b");
        let mut untagged = schema();
        untagged["definitions"]["AEvent"]["required"] = json!([]);
        let mut one_of = schema();
        one_of["definitions"]["Event"]["oneOf"] = json!([{"$ref": "#/definitions/AEvent"}]);
        for (why, schema, needle) in [
            (
                "a variant naming no definition",
                missing,
                "names no definition \"BEvent\"",
            ),
            (
                "a tag that is not the const",
                wrong_const,
                "AEvent.type is not `const` \"a\"",
            ),
            (
                "a tag that is not required",
                untagged,
                "AEvent does not require its tag",
            ),
            ("a oneOf missing a variant", one_of, "`oneOf` lists"),
        ] {
            let errors = annotation_errors(&schema);
            assert!(errors.iter().any(|e| e.contains(needle)), "{why}: {errors:?}");
        }
    }

    #[test]
    fn dispatch_follows_nested_unions_through_refs_arrays_maps_and_nullables() {
        let instance = json!({"type": "wrap", "inner": {"type": "a"}, "list": [{"type": "a"}],
            "map": {"k/1": {"type": "wrap", "inner": null}}});
        let landings: Vec<(String, String)> = dispatch(&schema(), "Event", &instance)
            .expect("dispatches")
            .into_iter()
            .map(|landing| (landing.pointer, landing.variant))
            .collect();
        let expected = [
            ("", "WrapEvent"),
            ("/inner", "AEvent"),
            ("/list/0", "AEvent"),
            ("/map/k~11", "WrapEvent"),
        ];
        assert_eq!(
            landings,
            expected.map(|(pointer, variant)| (pointer.to_owned(), variant.to_owned()))
        );
    }

    #[test]
    fn an_unknown_or_missing_tag_is_an_error_naming_the_pointer() {
        let unknown = dispatch(&schema(), "Event", &json!({"type": "wrap", "list": [{"type": "z"}]})).unwrap_err();
        assert!(unknown.contains("`/list/0`") && unknown.contains("\"z\""), "{unknown}");
        let missing = dispatch(&schema(), "Event", &json!({"kind": "a"})).unwrap_err();
        assert!(missing.contains("needs a string `type`"), "{missing}");
    }
}
