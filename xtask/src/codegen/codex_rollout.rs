//! `schemas/codex-rollout/` -> `generated/codex-rollout/`.
//!
//! A hand-written schema that declares its unions with `x-dispatch`, so the generic pipeline runs
//! as is; the one source step adds the pinned version, read from `UPSTREAM.md`.

use std::path::Path;

use anyhow::Result;
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::ShapeUnion;

const SCHEMA_DIR: &str = "schemas/codex-rollout";
const SCHEMA_FILE: &str = "codex-rollout.schema.json";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = format!(
        "@openai/codex {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/{SCHEMA_FILE}"),
        crate_dir: "generated/codex-rollout",
        package: "agentwire-codex-rollout",
        dependencies: &[],
        description: format!("Typed Codex rollout-file lines ({upstream}), generated from their JSON Schema."),
        generated_from: format!("{SCHEMA_DIR}/{SCHEMA_FILE} ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize,
    })
}

/// The unions whose branches carry no tag (the schema's `UPSTREAM.md` lists them too).
const SHAPE_UNIONS: &[ShapeUnion] = &[
    (
        "SessionSource",
        "a session source name, or a one-key object for a sub-agent source; no tag",
    ),
    (
        "AskForApproval",
        "an approval policy name, or a one-key object for a granular policy; no tag",
    ),
    (
        "FunctionCallOutputBody",
        "plain string output or an array of typed content items",
    ),
];

/// The pinned version, as a constant of the crate.
fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    schema_source::no_customization(root, definitions)?;
    Ok(Customization {
        leading: quote! {
            /// The `@openai/codex` version whose rollout files these types were written against.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        ..Customization::default()
    })
}

/// Inner attributes of the generated crate. The allow list is explicit and each entry says why.
const CRATE_DOCS: &str = "\
//! Typed Codex rollout-file lines (`$CODEX_HOME/sessions/**/rollout-*.jsonl`), generated from the
//! hand-written JSON Schema.
//!
//! A line is a [`RolloutLine`], dispatched on its `type`; `event_msg` lines carry an
//! [`EventMsg`], dispatched on the payload's `type`. Unions decode tag-first: the tag is read,
//! and only the payload type it names is decoded, so errors name the tag and point into the
//! payload. The tag runtime is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Payload enums are as large as the protocol's messages; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
