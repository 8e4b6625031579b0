//! `schemas/codex-exec/` -> `generated/codex-exec/`.
//!
//! A hand-written schema that says everything itself: its two unions (`ThreadEvent` on `type`,
//! and `ThreadItem` on `type` inside the `item` of the three `item.*` events) are `x-dispatch`
//! annotations; the only source step writes the pinned versions as constants.

use std::path::Path;

use anyhow::Result;
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource};

const SCHEMA_DIR: &str = "schemas/codex-exec";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let (sdk, program) = (
        schema_source::pinned(&root.join(SCHEMA_DIR), "types")?,
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?,
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/codex-exec.schema.json"),
        crate_dir: "generated/codex-exec",
        package: "agentwire-codex-exec",
        dependencies: &[],
        description: format!(
            "Typed `codex exec --json` stream (@openai/codex-sdk {sdk} types, @openai/codex {program}), generated \
             from its hand-written JSON Schema."
        ),
        generated_from: format!(
            "{SCHEMA_DIR}/codex-exec.schema.json (@openai/codex-sdk {sdk}, @openai/codex {program})"
        ),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: &[],
        definitions: schema_source::top_level_definitions,
        customize,
    })
}

/// The pinned versions, as constants the mapping crate reports (`--version`) and checks.
fn customize(root: &Path, _definitions: &mut Map<String, Value>) -> Result<Customization> {
    let (sdk, program) = (
        schema_source::pinned(&root.join(SCHEMA_DIR), "types")?,
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?,
    );
    Ok(Customization {
        leading: quote! {
            /// The `@openai/codex` version whose `codex exec --json` output the schema was checked
            /// against.
            pub const UPSTREAM_VERSION: &str = #program;
            /// The `@openai/codex-sdk` version whose `ThreadEvent` / `ThreadItem` types the schema
            /// follows.
            pub const UPSTREAM_SDK_VERSION: &str = #sdk;
        },
        ..Customization::default()
    })
}

/// Inner attributes of the generated crate.
const CRATE_DOCS: &str = "\
//! Typed `codex exec --json` stream (the `ThreadEvent` lines the Codex TypeScript SDK reads),
//! generated from the hand-written JSON Schema in `schemas/codex-exec/`.
//!
//! [`ThreadEvent::decode`] reads the `type` tag first and decodes only the payload it names; an
//! item's own `type` selects its [`ThreadItem`] variant the same way.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Item variants are as large as the items codex prints; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
