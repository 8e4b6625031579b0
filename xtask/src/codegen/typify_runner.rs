//! typify, run on a flat map of definitions, with its failures made readable.
//!
//! typify panics on constructs it does not support; the panic is caught and reported with the
//! schema file and the first definition that panics on its own (with the definitions it refers
//! to). Its output is then checked against the source's shape-union allow list: typify turns a
//! union it finds no tag for into a `#[serde(untagged)]` enum, which decodes by trial and error
//! and reports no useful error, so each one must be listed with the reason only its shape tells
//! its branches apart.
//!
//! A JSON `number` becomes `serde_json::Number`, not typify's `f64`: the provider's text is read
//! once and must print back as written, so a Claude `resetsAt: 1771606800` stays an integer
//! instead of turning into `1771606800.0`. `integer` keeps typify's `i64`/`u64`.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use proc_macro2::TokenStream;
use serde_json::{Map, Value};

use super::names::type_ident;

/// A definition typify must not emit, and the Rust type that stands for it.
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
/// that is no longer untagged (a stale entry). `#[serde(untagged)]` on a variant is refused.
pub fn check_shape_unions(schema: &str, file: &syn::File, allowed: &[ShapeUnion]) -> Result<()> {
    let mut untagged = Vec::new();
    let mut problems = Vec::new();
    for item in &file.items {
        let syn::Item::Enum(item) = item else { continue };
        if item.attrs.iter().any(is_untagged) {
            untagged.push(item.ident.to_string());
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
        let err = super::check_shape_unions("s.json", &file, &[]).unwrap_err().to_string();
        assert!(
            err.contains("OneOrMany is #[serde(untagged)] but not an allowed shape union"),
            "{err}"
        );
        super::check_shape_unions("s.json", &file, &[("OneOrMany", "a string or a list of them")]).unwrap();
        let err = super::check_shape_unions(
            "s.json",
            &file,
            &[("OneOrMany", "listed"), ("Gone", "no longer generated")],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("Gone is listed as a shape union but is not #[serde(untagged)]"),
            "{err}"
        );
    }
}
