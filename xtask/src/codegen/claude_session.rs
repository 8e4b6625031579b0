//! `schemas/claude-session/` -> `generated/claude-session/`.
//!
//! A hand-written schema that declares its unions with `x-dispatch`, so the generic pipeline runs
//! as is. Its one source step: the message content a session record carries is the Claude Agent
//! SDK's (`MessageParam`, `BetaMessage`), so the schema names those definitions by reference into
//! `schemas/claude-agent-sdk/` rather than copying them; the step resolves each such `$ref` to a
//! local one and brings in the referenced definitions with everything they reference in turn.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::ShapeUnion;

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
        description: format!("Typed Claude Code session-file records ({upstream}), generated from their JSON Schema."),
        generated_from: format!("{SCHEMA_DIR}/{SCHEMA_FILE} ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize,
    })
}

/// The untagged unions the SDK's message definitions bring (see `claude_agent_sdk.rs`).
const SHAPE_UNIONS: &[ShapeUnion] = &[
    (
        "BetaMcpToolResultBlockContent",
        "an MCP tool result's content: plain text or a list of text blocks",
    ),
    (
        "MessageParamContent",
        "a message's content: a plain string or a list of content blocks",
    ),
    (
        "ToolResultBlockParamContent",
        "a tool result's content: a plain string or a list of content blocks",
    ),
];

/// Resolves the references into the SDK schema, then adds the pinned version.
fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    let path = root.join(SCHEMA_DIR).join(SDK_SCHEMA);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let sdk = schema_source::top_level_definitions(serde_json::from_str(&text)?)?;
    import_references(definitions, &sdk)?;
    schema_source::no_customization(root, definitions)?;
    Ok(Customization {
        leading: quote! {
            /// The Claude Code version whose session files these types were written against.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        ..Customization::default()
    })
}

/// Rewrites every `$ref` into the SDK schema to a local one, and copies each definition so named
/// (and, transitively, every definition it names) from `sdk`. A name both schemas define is an
/// error: the copy would silently replace this schema's own.
fn import_references(definitions: &mut Map<String, Value>, sdk: &Map<String, Value>) -> Result<()> {
    let own: BTreeSet<String> = definitions.keys().cloned().collect();
    let mut wanted = Vec::new();
    for definition in definitions.values_mut() {
        localize(definition, &mut wanted);
    }
    let mut imported = BTreeSet::new();
    while let Some(name) = wanted.pop() {
        if own.contains(&name) {
            bail!("`{name}` is defined here and referenced from {SDK_SCHEMA}");
        }
        if !imported.insert(name.clone()) {
            continue;
        }
        let definition = sdk
            .get(&name)
            .with_context(|| format!("{SDK_SCHEMA} defines no `{name}`"))?;
        collect_local(definition, &mut wanted);
        definitions.insert(name, definition.clone());
    }
    Ok(())
}

/// Turns `$ref`s into the SDK schema into local ones, noting the names.
fn localize(value: &mut Value, wanted: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference
                    .strip_prefix(SDK_SCHEMA)
                    .and_then(|rest| rest.strip_prefix("#/definitions/"))
            {
                wanted.push(name.to_string());
                *reference = format!("#/definitions/{name}");
            }
            map.values_mut().for_each(|value| localize(value, wanted));
        }
        Value::Array(items) => items.iter_mut().for_each(|value| localize(value, wanted)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// The local definitions an SDK definition names.
fn collect_local(value: &Value, wanted: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix("#/definitions/"))
            {
                wanted.push(name.to_string());
            }
            map.values().for_each(|value| collect_local(value, wanted));
        }
        Value::Array(items) => items.iter().for_each(|value| collect_local(value, wanted)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Inner attributes of the generated crate. The allow list is explicit and each entry says why.
const CRATE_DOCS: &str = "\
//! Typed Claude Code session-file records (`~/.claude/projects/<project>/<session id>.jsonl`),
//! generated from the hand-written JSON Schema of `schemas/claude-session/`; the message content
//! types are the Claude Agent SDK schema's, brought in by reference.
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
    fn references_into_the_sdk_schema_bring_their_definitions() {
        let mut own = schema_source::top_level_definitions(json!({"definitions": {
            "Record": {"properties": {"message": {"$ref": format!("{SDK_SCHEMA}#/definitions/Message")}}}
        }}))
        .unwrap();
        let sdk = schema_source::top_level_definitions(json!({"definitions": {
            "Message": {"properties": {"content": {"$ref": "#/definitions/Block"}}},
            "Block": {"type": "string"},
            "Unused": {"type": "integer"}
        }}))
        .unwrap();
        import_references(&mut own, &sdk).unwrap();
        assert_eq!(own["Record"]["properties"]["message"]["$ref"], "#/definitions/Message");
        assert!(own.contains_key("Message") && own.contains_key("Block"));
        assert!(!own.contains_key("Unused"), "only what is named comes");
        let mut clash = schema_source::top_level_definitions(json!({"definitions": {
            "Block": {"$ref": format!("{SDK_SCHEMA}#/definitions/Block")}
        }}))
        .unwrap();
        assert!(import_references(&mut clash, &sdk).is_err(), "a name both define");
    }
}
