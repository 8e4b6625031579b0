//! `schemas/copilot/` -> `generated/copilot/`: GitHub Copilot CLI's session events, the lines of
//! `copilot -p PROMPT --output-format json` and of the stored `events.jsonl`, from the JSON
//! Schema the CLI ships (vendored unchanged).
//!
//! The Copilot step ([`customize`]):
//! - applies `schemas/copilot/patches.json`: where the CLI writes what its own schema rejects
//!   (`UPSTREAM.md`), as edits in data (the format of OpenCode's `patches.json`, read by the same
//!   code);
//! - declares `SessionEvent` (an `anyOf` of one object per `type` const) a `x-dispatch` union on
//!   `type`, keeping only the events [`EVENTS`] lists, in the schema's order;
//! - keeps only the definitions those events reach;
//! - reads a string's `format` (`date-time`, `uuid`, `duration`) as a plain string
//!   ([`strings_as_sent`]).

use std::path::Path;

use anyhow::{Context, Result, bail};
use quote::quote;
use serde_json::{Map, Value, json};

use super::opencode::patches;
use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::{ShapeUnion, collect_refs};

const SCHEMA_DIR: &str = "schemas/copilot";

/// The union of every session event.
const SESSION_EVENT: &str = "SessionEvent";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/session-events.schema.json"),
        crate_dir: "generated/copilot",
        package: "agentwire-copilot",
        dependencies: &[],
        description: format!(
            "Typed GitHub Copilot CLI {version} session events (`copilot -p --output-format json` and \
             `session-state/<id>/events.jsonl`), generated from the JSON Schema the CLI ships."
        ),
        generated_from: format!(
            "{SCHEMA_DIR}/session-events.schema.json (GitHub Copilot CLI {version}) and {SCHEMA_DIR}/patches.json"
        ),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize,
    })
}

/// The events kept: `None` keeps every one.
const EVENTS: Option<&[&str]> = None;

/// The `#[serde(untagged)]` enums typify may emit.
const SHAPE_UNIONS: &[ShapeUnion] = &[
    (
        "PersistedBinaryResult",
        "an inline image, an omitted result or an asset reference: their `type` (`image` | `resource`) is shared, \
         their required keys (`data`, `omittedReason`, `assetId`) differ",
    ),
    (
        "ToolExecutionCompleteContentResourceDetails",
        "MCP's embedded resource contents: text (`text`) or binary (`blob`), no tag",
    ),
];

fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let dir = root.join(SCHEMA_DIR);
    patches::apply(&dir.join("patches.json"), definitions)?;
    definitions.values_mut().for_each(strings_as_sent);
    declare_event_dispatch(definitions)?;
    *definitions = reached(definitions, SESSION_EVENT)?;
    declare_tagged_unions(definitions)?;
    let version = schema_source::pinned(&dir, "version")?;
    Ok(Customization {
        leading: quote! {
            /// The GitHub Copilot CLI version (npm `@github/copilot`) whose shipped schema these
            /// types were generated from.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        ..Customization::default()
    })
}

/// A string `format` (`date-time`, `uuid`, `duration`) dropped, so the value is a `String` as
/// sent: typify would type it with `chrono` and `uuid`, which generated crates do not depend
/// on, and the mapping reads an event's time from its text (the ledger's clock) and derives its
/// own ids.
fn strings_as_sent(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map
                .get("format")
                .is_some_and(|format| ["date-time", "uuid", "duration"].contains(&format.as_str().unwrap_or_default()))
            {
                map.remove("format");
            }
            map.values_mut().for_each(strings_as_sent);
        }
        Value::Array(items) => items.iter_mut().for_each(strings_as_sent),
        _ => {}
    }
}

/// `SessionEvent` as the `x-dispatch` union of its branches, each named by its `type` const.
fn declare_event_dispatch(definitions: &mut Map<String, Value>) -> Result<()> {
    let event = definitions.get(SESSION_EVENT).context("no `SessionEvent` definition")?;
    let branches = event
        .get("anyOf")
        .and_then(Value::as_array)
        .context("`SessionEvent` is not an `anyOf`")?;
    let mut variants = Map::new();
    for branch in branches {
        let name = branch
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/definitions/"))
            .with_context(|| format!("a `SessionEvent` branch is no definition ref: {branch}"))?;
        let tag = definitions
            .get(name)
            .and_then(|payload| payload.pointer("/properties/type/const"))
            .and_then(Value::as_str)
            .with_context(|| format!("`SessionEvent` branch {name} has no `type` const"))?;
        if EVENTS.is_some_and(|kept| !kept.contains(&tag)) {
            continue;
        }
        if variants
            .insert(tag.to_string(), Value::String(name.to_string()))
            .is_some()
        {
            bail!("two `SessionEvent` branches have the type {tag:?}");
        }
    }
    if let Some(kept) = EVENTS
        && let Some(missing) = kept.iter().find(|tag| !variants.contains_key(**tag))
    {
        bail!("`SessionEvent` has no event {missing:?}: drop it from EVENTS");
    }
    definitions.insert(
        SESSION_EVENT.into(),
        json!({
            "description": "One session event: `{\"type\", \"id\", \"timestamp\", \"parentId\", \"ephemeral\"?, \"agentId\"?, \"data\"}`, dispatched on `type`.",
            "x-dispatch": { "tag": "type", "variants": variants },
        }),
    );
    Ok(())
}

/// Every other `anyOf` of definition refs whose branches each hold a different `const` in one
/// property they all require (`PermissionRequest` on `kind`, `Attachment` on `type`, ...) as the
/// `x-dispatch` union it is: typify does not look through refs for a tag and would make it
/// untagged.
fn declare_tagged_unions(definitions: &mut Map<String, Value>) -> Result<()> {
    let mut unions = Vec::new();
    for (name, schema) in definitions.iter() {
        let Some(branches) = schema.get("anyOf").and_then(Value::as_array) else {
            continue;
        };
        let names: Option<Vec<&str>> = branches
            .iter()
            .map(|branch| {
                branch
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|reference| reference.strip_prefix("#/definitions/"))
            })
            .collect();
        let Some(names) = names else { continue };
        let tag_of = |branch: &str, field: &str| -> Option<String> {
            let payload = definitions.get(branch)?;
            let required = payload.get("required")?.as_array()?;
            required.iter().any(|r| r == field).then_some(())?;
            payload
                .pointer(&format!("/properties/{field}/const"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        for field in TAG_FIELDS {
            let tags: Option<Vec<String>> = names.iter().map(|branch| tag_of(branch, field)).collect();
            let Some(tags) = tags else { continue };
            let mut variants = Map::new();
            for (tag, branch) in tags.into_iter().zip(&names) {
                if variants
                    .insert(tag.clone(), Value::String(branch.to_string()))
                    .is_some()
                {
                    bail!("{name}: two branches have the {field} {tag:?}");
                }
            }
            let description = schema.get("description").cloned().unwrap_or(Value::Null);
            unions.push((name.clone(), field, variants, description));
            break;
        }
    }
    for (name, field, variants, description) in unions {
        let mut union = json!({ "x-dispatch": { "tag": field, "variants": variants } });
        if let Value::String(description) = description {
            union["description"] = Value::String(description);
        }
        definitions.insert(name, union);
    }
    Ok(())
}

/// The fields a tagged union of the schema names its branches by.
const TAG_FIELDS: [&str; 2] = ["type", "kind"];

/// The definitions `root` reaches, following refs and the `x-dispatch` variants.
fn reached(definitions: &Map<String, Value>, root: &str) -> Result<Map<String, Value>> {
    let mut kept = Map::new();
    let mut pending = vec![root.to_string()];
    while let Some(name) = pending.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        let schema = definitions
            .get(&name)
            .with_context(|| format!("a ref names {name}, which is no definition"))?;
        collect_refs(schema, &mut pending);
        if let Some(variants) = schema.pointer("/x-dispatch/variants").and_then(Value::as_object) {
            pending.extend(variants.values().filter_map(Value::as_str).map(str::to_string));
        }
        kept.insert(name, schema.clone());
    }
    kept.sort_keys();
    Ok(kept)
}

/// Inner attributes of the generated crate.
const CRATE_DOCS: &str = "\
//! Typed GitHub Copilot CLI session events, generated from the JSON Schema the CLI ships
//! (`schemas/copilot/session-events.schema.json`, vendored unchanged) with the places where the
//! CLI writes what its schema rejects patched in (`schemas/copilot/patches.json`).
//!
//! [`SessionEvent`] is one line of `copilot -p PROMPT --output-format json` or of a stored
//! `~/.copilot/session-state/<id>/events.jsonl`: `decode` reads the `type` first and decodes only
//! the event it names. The dispatch runtime is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Event variants are as large as the events the CLI writes; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
// typify writes `Default` by hand for an enum whose schema names its default value.
#![allow(clippy::derivable_impls)]
";
