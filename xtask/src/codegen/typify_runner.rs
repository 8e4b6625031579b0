//! typify, run on a flat map of definitions, with its failures made readable.
//!
//! typify panics on constructs it does not support; the panic is caught and reported with the
//! schema file and the first definition that panics on its own (with the definitions it refers
//! to). Its output is then checked against the source's shape-union allow list: typify turns a
//! union it finds no tag for into a `#[serde(untagged)]` enum, which decodes by trial and error
//! and reports no useful error, so each one must be listed with the reason only its shape tells
//! its branches apart. Nor may an untagged enum keep typify's placeholder variant names
//! (`Variant0`, `Variant1`, ...: what it names a branch that has no `title`): the error names the
//! definition by its JSON path in the schema file, whose branches need titles.
//!
//! A JSON `number` becomes `serde_json::Number`, not typify's `f64`: the provider's text is read
//! once and must print back as written, so a Claude `resetsAt: 1771606800` stays an integer
//! instead of turning into `1771606800.0`. `integer` keeps typify's `i64`/`u64`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use proc_macro2::TokenStream;
use serde_json::{Map, Value};

use super::names::type_ident;

/// A definition typify must not emit, and the Rust type that stands for it.
#[derive(Clone)]
pub struct Replacement {
    /// The definition's name in the schema.
    pub definition: String,
    /// The Rust path used where the definition is referenced.
    pub rust_type: String,
}

/// Generates the types of `definitions` with typify. `schema` names the schema file in errors.
pub fn generate(schema: &str, definitions: &Map<String, Value>, replacements: &[Replacement]) -> Result<TokenStream> {
    match run(definitions, replacements) {
        Ok(Ok(tokens)) => Ok(tokens),
        Ok(Err(err)) => bail!("typify rejected {schema}: {err:#}"),
        Err(message) => {
            let culprit = definitions
                .keys()
                .find(|name| {
                    let closure = referenced_closure(definitions, name);
                    run(&closure, replacements).is_err()
                })
                .map_or(
                    "<none alone; the definitions only panic together>".to_string(),
                    String::clone,
                );
            bail!("typify panicked on {schema}, definition {culprit}: {message}")
        }
    }
}

/// Runs typify on `definitions`; `Err` carries the panic message.
fn run(definitions: &Map<String, Value>, replacements: &[Replacement]) -> Result<Result<TokenStream>, String> {
    let mut settings = typify::TypeSpaceSettings::default();
    settings
        .with_struct_builder(false)
        .with_map_type("::std::collections::BTreeMap")
        .with_derive("PartialEq".to_string());
    for replacement in replacements {
        // typify looks a replacement up by the type name it would give the definition.
        let name = type_ident(&replacement.definition).to_string();
        settings.with_replacement(name, &replacement.rust_type, std::iter::empty());
    }
    for number in number_schemas(definitions) {
        settings.with_conversion(
            number,
            "::serde_json::Number",
            [typify::TypeSpaceImpl::Display, typify::TypeSpaceImpl::FromStr].into_iter(),
        );
    }
    let mut type_space = typify::TypeSpace::new(&settings);
    let schemas = match definitions
        .iter()
        .map(|(name, schema)| {
            let schema: schemars::schema::Schema =
                serde_json::from_value(schema.clone()).with_context(|| format!("definition {name} is not a schema"))?;
            Ok((name.clone(), schema))
        })
        .collect::<Result<Vec<_>>>()
    {
        Ok(schemas) => schemas,
        Err(err) => return Ok(Err(err)),
    };
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        type_space.add_ref_types(schemas).map(|()| type_space.to_stream())
    }));
    std::panic::set_hook(default_hook);
    match outcome {
        Ok(result) => Ok(result.map_err(|err| anyhow::anyhow!("{err}"))),
        Err(panic) => Err(panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "(no message)".to_string())),
    }
}

/// The distinct `number` schemas of `definitions`, as typify looks them up: typify matches a
/// conversion against the whole schema but its metadata (description, default, ...), so each
/// shape (`format`, extensions) is listed, and a nullable `["number", "null"]` as the `number`
/// typify makes the inside of its `Option` from.
fn number_schemas(definitions: &Map<String, Value>) -> Vec<schemars::schema::SchemaObject> {
    fn walk(value: &Value, into: &mut Vec<schemars::schema::SchemaObject>) {
        match value {
            Value::Object(map) => {
                let nullable_number = |types: &Vec<Value>| {
                    types.len() == 2 && types.contains(&Value::from("number")) && types.contains(&Value::from("null"))
                };
                let is_number = match map.get("type") {
                    Some(Value::String(kind)) => kind == "number",
                    Some(Value::Array(types)) => nullable_number(types),
                    _ => false,
                };
                if is_number {
                    let mut number = map.clone();
                    number.insert("type".into(), Value::from("number"));
                    if let Ok(schemars::schema::Schema::Object(mut object)) =
                        serde_json::from_value(Value::Object(number))
                    {
                        object.metadata = None;
                        if !into.contains(&object) {
                            into.push(object);
                        }
                    }
                }
                map.values().for_each(|child| walk(child, into));
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, into)),
            _ => {}
        }
    }
    let mut numbers = Vec::new();
    definitions.values().for_each(|schema| walk(schema, &mut numbers));
    numbers
}

/// `name` and every definition it refers to, transitively.
fn referenced_closure(definitions: &Map<String, Value>, name: &str) -> Map<String, Value> {
    let mut closure = Map::new();
    let mut pending = vec![name.to_string()];
    while let Some(next) = pending.pop() {
        if closure.contains_key(&next) {
            continue;
        }
        let Some(schema) = definitions.get(&next) else { continue };
        collect_refs(schema, &mut pending);
        closure.insert(next, schema.clone());
    }
    closure
}

/// The definitions `value` refers to (`#/definitions/X` and `#/$defs/X`).
pub fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(definition_of_ref) {
                into.push(name.to_string());
            }
            map.values().for_each(|v| collect_refs(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
}

/// `#/definitions/X` or `#/$defs/X` -> `X`.
pub fn definition_of_ref(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/definitions/")
        .or_else(|| reference.strip_prefix("#/$defs/"))
}

/// A `#[serde(untagged)]` enum the source allows, and why only its shape tells its branches apart.
pub type ShapeUnion = (&'static str, &'static str);

/// Set by `cargo xtask drift` only: shape-union problems are printed as decisions the new upstream
/// version needs instead of stopping the generator, so the scratch build can go on to list the
/// mapping lines that need a decision too.
pub static SHAPE_UNION_PROBLEMS_ARE_DECISIONS: AtomicBool = AtomicBool::new(false);

/// Fails unless the untagged enums of `file` are exactly the `allowed` ones: an untagged enum not
/// on the list is named (tag it in the schema or list it with its reason), and so is a listed one
/// that is no longer untagged (a stale entry). `#[serde(untagged)]` on a variant is refused, and
/// so is an untagged enum with typify's placeholder variant names (`VariantN`), named by its
/// definition's place in the schema file (`locations`, from [`definition_locations`]).
pub fn check_shape_unions(
    schema: &str,
    file: &syn::File,
    allowed: &[ShapeUnion],
    locations: &BTreeMap<String, String>,
) -> Result<()> {
    let mut untagged = Vec::new();
    let mut problems = Vec::new();
    for item in &file.items {
        let syn::Item::Enum(item) = item else { continue };
        if item.attrs.iter().any(is_untagged) {
            untagged.push(item.ident.to_string());
            let placeholders: Vec<String> = item
                .variants
                .iter()
                .map(|variant| variant.ident.to_string())
                .filter(|name| is_placeholder_variant(name))
                .collect();
            if !placeholders.is_empty() {
                problems.push(format!(
                    "{} is #[serde(untagged)] with typify's placeholder variant names ({}) at {}: name each \
                     branch by a `title` typify keeps, in the schema or the source's own step (typify drops the \
                     titles of branches it merges with the fields beside the union)",
                    item.ident,
                    placeholders.join(", "),
                    location(schema, &item.ident.to_string(), locations),
                ));
            }
        }
        for variant in &item.variants {
            if variant.attrs.iter().any(is_untagged) {
                problems.push(format!(
                    "variant {}::{} is #[serde(untagged)]",
                    item.ident, variant.ident
                ));
            }
        }
    }
    for name in &untagged {
        if !allowed.iter().any(|(allowed, _)| allowed == name) {
            problems.push(format!(
                "{name} is #[serde(untagged)] but not an allowed shape union: give its schema branches a \
                 discriminator, declare it with `x-dispatch`, or list it with the reason only its shape tells \
                 the branches apart"
            ));
        }
    }
    for (name, _) in allowed {
        if !untagged.iter().any(|found| found == name) {
            problems.push(format!(
                "{name} is listed as a shape union but is not #[serde(untagged)]: stale entry"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else if SHAPE_UNION_PROBLEMS_ARE_DECISIONS.load(Ordering::Relaxed) {
        for problem in problems {
            println!("- generator, {schema}: {problem}");
        }
        Ok(())
    } else {
        bail!("{schema}: {}", problems.join("; "))
    }
}

/// typify's name for a variant it found no name for: `Variant` and a number.
fn is_placeholder_variant(name: &str) -> bool {
    name.strip_prefix("Variant")
        .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

/// Every definition of the schema file `schema`, by name: `<file>#<JSON pointer>`. Definitions
/// are the members of `definitions` or `$defs` at any depth, and of a namespace object among them
/// (Codex's `definitions.v2`: an object of objects, none of its keys a schema keyword, `$...` or
/// `x-...`).
pub fn definition_locations(schema: &str, document: &Value) -> BTreeMap<String, String> {
    const KEYWORDS: [&str; 11] = [
        "type",
        "properties",
        "required",
        "items",
        "oneOf",
        "anyOf",
        "allOf",
        "enum",
        "const",
        "title",
        "description",
    ];
    fn segment(key: &str) -> String {
        key.replace('~', "~0").replace('/', "~1")
    }
    fn members(container: &Map<String, Value>, pointer: &str, schema: &str, into: &mut BTreeMap<String, String>) {
        for (name, definition) in container {
            let pointer = format!("{pointer}/{}", segment(name));
            into.entry(name.clone())
                .or_insert_with(|| format!("{schema}#{pointer}"));
            if let Value::Object(inner) = definition {
                let namespace = !inner.is_empty()
                    && inner.values().all(Value::is_object)
                    && !inner
                        .keys()
                        .any(|key| KEYWORDS.contains(&key.as_str()) || key.starts_with('$') || key.starts_with("x-"));
                if namespace {
                    members(inner, &pointer, schema, into);
                }
            }
            walk(definition, &pointer, schema, into);
        }
    }
    fn walk(value: &Value, pointer: &str, schema: &str, into: &mut BTreeMap<String, String>) {
        let Value::Object(map) = value else { return };
        for (key, child) in map {
            let pointer = format!("{pointer}/{}", segment(key));
            match child {
                Value::Object(container) if key == "definitions" || key == "$defs" => {
                    members(container, &pointer, schema, into)
                }
                _ => walk(child, &pointer, schema, into),
            }
        }
    }
    let mut locations = BTreeMap::new();
    walk(document, "", schema, &mut locations);
    locations
}

/// Where the type `ident` comes from: the definition typify names `ident`, else the one whose
/// name it extends (typify names a union inside a definition after the definition and field).
fn location(schema: &str, ident: &str, locations: &BTreeMap<String, String>) -> String {
    let named = |name: &String| type_ident(name).to_string();
    if let Some(location) = locations
        .iter()
        .find(|(name, _)| named(name) == ident)
        .map(|(_, at)| at)
    {
        return location.clone();
    }
    locations
        .iter()
        .filter(|(name, _)| ident.starts_with(&named(name)))
        .max_by_key(|(name, _)| named(name).len())
        .map_or_else(
            || format!("{schema} (no definition there is named {ident}; the source's own step added it)"),
            |(_, at)| format!("{at} (a union inside it)"),
        )
}

fn is_untagged(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("serde")
        && quote::ToTokens::to_token_stream(&attr.meta)
            .to_string()
            .contains("untagged")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A construct typify cannot handle is reported with the schema file and the definition.
    #[test]
    fn a_typify_panic_names_the_definition() {
        let mut definitions = serde_json::Map::new();
        definitions.insert("Fine".into(), json!({ "type": "string" }));
        // A $ref to nothing makes typify panic ("$ref ... is missing").
        definitions.insert("Broken".into(), json!({ "$ref": "#/definitions/Nowhere" }));
        let err =
            super::generate("schemas/x/x.json", &definitions, &[]).expect_err("typify cannot generate a dangling ref");
        let text = format!("{err:#}");
        assert!(text.contains("schemas/x/x.json"), "{text}");
        assert!(text.contains("definition Broken"), "{text}");
    }

    /// Every shape of `number` becomes `serde_json::Number`; `integer` stays an integer type.
    #[test]
    fn numbers_are_lossless_and_integers_stay_integers() {
        let mut definitions = serde_json::Map::new();
        definitions.insert(
            "Limits".into(),
            json!({
                "type": "object",
                "required": ["resetsAt", "ratio", "count"],
                "properties": {
                    "resetsAt": { "type": "number", "description": "epoch seconds" },
                    "ratio": { "type": "number", "format": "double", "x-note": "kept" },
                    "overage": { "type": ["number", "null"], "format": "double" },
                    "count": { "type": "integer", "format": "uint64", "minimum": 0 }
                }
            }),
        );
        let text = super::generate("s.json", &definitions, &[]).unwrap().to_string();
        let fields: String = text.split_whitespace().collect();
        assert!(fields.contains("pubresets_at:::serde_json::Number,"), "{text}");
        assert!(fields.contains("pubratio:::serde_json::Number,"), "{text}");
        assert!(
            fields.contains("puboverage:::std::option::Option<::serde_json::Number>,"),
            "{text}"
        );
        assert!(fields.contains("pubcount:u64,"), "{text}");
        assert!(!text.contains("f64"), "{text}");
    }

    #[test]
    fn definitions_are_located_by_their_json_pointer() {
        let document = json!({
            "definitions": {
                "Top": { "type": "object" },
                "v2": { "Nested": { "oneOf": [] }, "a/b": {} },
                "Inner": { "$defs": { "Deep": {} } },
                "Dispatched": { "x-dispatch": { "variants": {} } }
            }
        });
        let locations = super::definition_locations("s.json", &document);
        assert_eq!(locations["Top"], "s.json#/definitions/Top");
        assert_eq!(locations["Nested"], "s.json#/definitions/v2/Nested");
        assert_eq!(locations["a/b"], "s.json#/definitions/v2/a~1b");
        assert_eq!(locations["Deep"], "s.json#/definitions/Inner/$defs/Deep");
        let names: Vec<&str> = locations.keys().map(String::as_str).collect();
        assert_eq!(names, ["Deep", "Dispatched", "Inner", "Nested", "Top", "a/b", "v2"]);
    }

    #[test]
    fn placeholder_variant_names_are_told_from_real_ones() {
        for name in ["Variant0", "Variant1", "Variant12"] {
            assert!(super::is_placeholder_variant(name), "{name}");
        }
        for name in ["Variant", "VariantA", "Variants0", "Session", "V0"] {
            assert!(!super::is_placeholder_variant(name), "{name}");
        }
    }

    fn untagged_source() -> syn::File {
        let mut definitions = serde_json::Map::new();
        definitions.insert(
            "OneOrMany".into(),
            json!({ "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "string" } }] }),
        );
        let tokens = super::generate("s.json", &definitions, &[]).unwrap();
        syn::parse2(tokens).unwrap()
    }

    #[test]
    fn an_untagged_enum_off_the_list_fails_the_generator_by_name() {
        let file = untagged_source();
        let err = super::check_shape_unions("s.json", &file, &[], &Default::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("OneOrMany is #[serde(untagged)] but not an allowed shape union"),
            "{err}"
        );
        super::check_shape_unions(
            "s.json",
            &file,
            &[("OneOrMany", "a string or a list of them")],
            &Default::default(),
        )
        .unwrap();
        let err = super::check_shape_unions(
            "s.json",
            &file,
            &[("OneOrMany", "listed"), ("Gone", "no longer generated")],
            &Default::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("Gone is listed as a shape union but is not #[serde(untagged)]"),
            "{err}"
        );
    }
}
