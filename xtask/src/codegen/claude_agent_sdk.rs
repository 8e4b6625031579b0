//! `schemas/claude-agent-sdk/` -> `generated/claude-agent-sdk/`.
//!
//! The hand-written schema declares every union with `x-dispatch`, so the generic pipeline
//! ([`schema_source`](super::schema_source)) needs no Claude step beyond the pinned versions.

use std::path::Path;

use anyhow::Result;
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::rust_output::Dependency;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::ShapeUnion;

const SCHEMA_DIR: &str = "schemas/claude-agent-sdk";

/// The generated crate, which `claude_session` names the message types of.
pub const CRATE: Dependency = Dependency {
    package: "agentwire-claude",
    crate_dir: "generated/claude-agent-sdk",
};

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = format!(
        "@anthropic-ai/claude-agent-sdk {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/claude-agent-sdk.schema.json"),
        crate_dir: CRATE.crate_dir,
        package: CRATE.package,
        dependencies: &[],
        description: format!(
            "Typed Claude Code stream-json and control protocol ({upstream}), generated from its JSON Schema."
        ),
        generated_from: format!("{SCHEMA_DIR}/claude-agent-sdk.schema.json ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize,
    })
}

/// The pinned versions, as constants the mapping crate reports (`--version`).
fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let sdk = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    let cli = schema_source::pinned(&root.join(SCHEMA_DIR), "Claude Code")?;
    schema_source::no_customization(root, definitions)?;
    Ok(Customization {
        leading: quote! {
            /// The `@anthropic-ai/claude-agent-sdk` version the schema was written against.
            pub const UPSTREAM_VERSION: &str = #sdk;
            /// The Claude Code CLI version that SDK release runs (its `claudeCodeVersion`).
            pub const UPSTREAM_CLAUDE_CODE_VERSION: &str = #cli;
        },
        ..Customization::default()
    })
}

/// The `#[serde(untagged)]` enums typify may emit: unions whose branches carry no discriminator
/// property, so only their shape tells them apart.
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

const CRATE_DOCS: &str = "\
//! Typed Claude Code stream-json and SDK <-> CLI control protocol, generated from the
//! hand-written JSON Schema of `schemas/claude-agent-sdk/`.
//!
//! One line of the wire is a [`ClaudeStreamLine`], dispatched on `type` (and `system`, `result`
//! and the control payloads on `subtype`): the tag is read first and only the payload type it
//! names is decoded, so errors name the message and point into its payload. The dispatch runtime
//! is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose (Markdown, bare URLs) becomes doc comments as is.
#![allow(rustdoc::all)]
// Payload enums are as large as the protocol's messages; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
