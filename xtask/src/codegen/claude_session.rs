//! `schemas/claude-session/` -> `generated/claude-session/`.
//!
//! A hand-written schema that declares its unions with `x-dispatch`, so the generic pipeline runs
//! as is. Its one source step: the message a session record carries is the Claude Agent SDK's
//! (`MessageParam`, `BetaMessage`), so the schema names those definitions by reference into
//! `schemas/claude-agent-sdk/`, and the generated crate uses the SDK crate's types for them
//! (`agentwire_claude::MessageParam`): one Rust type per message shape, whichever Claude source
//! carried it, so the mapping crate reads a message's content once for both.

use std::path::Path;

use anyhow::{Context, Result, bail};
use quote::quote;
use serde_json::{Map, Value};

use super::claude_agent_sdk;
use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::Replacement;

const SCHEMA_DIR: &str = "schemas/claude-session";
const SCHEMA_FILE: &str = "claude-session.schema.json";

/// The schema whose definitions this one names by reference, as its `$ref`s spell its path.
const SDK_SCHEMA: &str = "../claude-agent-sdk/claude-agent-sdk.schema.json";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = format!(
        "Claude Code {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/{SCHEMA_FILE}"),
        crate_dir: "generated/claude-session",
        package: "agentwire-claude-session",
        dependencies: &[claude_agent_sdk::CRATE],
        description: format!("Typed Claude Code session-file records ({upstream}), generated from their JSON Schema."),
        generated_from: format!("{SCHEMA_DIR}/{SCHEMA_FILE} ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: &[],
        definitions: schema_source::top_level_definitions,
        customize,
    })
}

/// Points the references into the SDK schema at the SDK crate's types, then adds the pinned
/// version.
fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    let path = root.join(SCHEMA_DIR).join(SDK_SCHEMA);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let sdk = schema_source::top_level_definitions(serde_json::from_str(&text)?)?;
    let replacements = sdk_types(definitions, &sdk)?;
    schema_source::no_customization(root, definitions)?;
    Ok(Customization {
        replacements,
        leading: quote! {
            /// The Claude Code version whose session files these types were written against.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        ..Customization::default()
    })
}

/// Rewrites every `$ref` into the SDK schema to a local one, adds a placeholder definition of
/// that name, and returns the replacement that makes typify use the SDK crate's type for it. A
/// name the SDK does not define, or one both schemas define, is an error.
fn sdk_types(definitions: &mut Map<String, Value>, sdk: &Map<String, Value>) -> Result<Vec<Replacement>> {
    let mut named = Vec::new();
    for definition in definitions.values_mut() {
        localize(definition, &mut named);
    }
    named.sort();
    named.dedup();
    let crate_name = claude_agent_sdk::CRATE.package.replace('-', "_");
    named
        .into_iter()
        .map(|name| {
            if definitions.contains_key(&name) {
                bail!("`{name}` is defined here and referenced from {SDK_SCHEMA}");
            }
            if !sdk.contains_key(&name) {
                bail!("{SDK_SCHEMA} defines no `{name}`");
            }
            definitions.insert(name.clone(), Value::Object(Map::new()));
            Ok(Replacement {
                rust_type: format!("::{crate_name}::{name}"),
                definition: name,
            })
        })
        .collect()
}

/// Turns `$ref`s into the SDK schema into local ones, noting the names.
fn localize(value: &mut Value, named: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference
                    .strip_prefix(SDK_SCHEMA)
                    .and_then(|rest| rest.strip_prefix("#/definitions/"))
            {
                named.push(name.to_string());
                *reference = format!("#/definitions/{name}");
            }
            map.values_mut().for_each(|value| localize(value, named));
        }
        Value::Array(items) => items.iter_mut().for_each(|value| localize(value, named)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Inner attributes of the generated crate. The allow list is explicit and each entry says why.
const CRATE_DOCS: &str = "\
//! Typed Claude Code session-file records (`~/.claude/projects/<project>/<session id>.jsonl`),
//! generated from the hand-written JSON Schema of `schemas/claude-session/`; the messages they
//! carry are `agentwire-claude`'s types (the Claude Agent SDK's `MessageParam` and `BetaMessage`).
//!
//! A line is a [`SessionRecord`], dispatched on its `type` (`system` records on `subtype`): the
//! tag is read first and only the record type it names is decoded, so errors name the record
//! and point into it. The dispatch runtime is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Payload enums are as large as the records; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_into_the_sdk_schema_name_the_sdk_crates_types() {
        let mut own = schema_source::top_level_definitions(json!({"definitions": {
            "Record": {"properties": {"message": {"$ref": format!("{SDK_SCHEMA}#/definitions/Message")}}}
        }}))
        .unwrap();
        let sdk = schema_source::top_level_definitions(json!({"definitions": {
            "Message": {"properties": {"content": {"$ref": "#/definitions/Block"}}},
            "Block": {"type": "string"}
        }}))
        .unwrap();
        let replacements = sdk_types(&mut own, &sdk).unwrap();
        assert_eq!(own["Record"]["properties"]["message"]["$ref"], "#/definitions/Message");
        assert_eq!(own["Message"], json!({}), "a placeholder, not a copy");
        assert!(!own.contains_key("Block"), "what the SDK type names stays in its crate");
        assert_eq!(replacements.len(), 1);
        assert_eq!(replacements[0].definition, "Message");
        assert_eq!(replacements[0].rust_type, "::agentwire_claude::Message");
        let mut unknown = schema_source::top_level_definitions(json!({"definitions": {
            "Record": {"$ref": format!("{SDK_SCHEMA}#/definitions/Missing")}
        }}))
        .unwrap();
        assert!(sdk_types(&mut unknown, &sdk).is_err(), "a name the SDK does not define");
        let mut clash = schema_source::top_level_definitions(json!({"definitions": {
            "Block": {"$ref": format!("{SDK_SCHEMA}#/definitions/Block")}
        }}))
        .unwrap();
        assert!(sdk_types(&mut clash, &sdk).is_err(), "a name both define");
    }
}
