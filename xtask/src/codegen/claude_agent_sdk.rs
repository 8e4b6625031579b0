//! `schemas/claude-agent-sdk/` -> `generated/claude-agent-sdk/`.
//!
//! The hand-written schema declares every union with `x-dispatch`, so the generic pipeline
//! ([`schema_source`](super::schema_source)) needs no Claude step.

use std::path::Path;

use anyhow::{Context, Result, bail};

use super::passes;
use super::schema_source::{self, SchemaSource};
use super::typify_runner::ShapeUnion;

const SCHEMA_DIR: &str = "schemas/claude-agent-sdk";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = format!(
        "@anthropic-ai/claude-agent-sdk {}",
        upstream_version(&root.join(SCHEMA_DIR))?
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/claude-agent-sdk.schema.json"),
        crate_dir: "generated/claude-agent-sdk",
        package: "agentwire-claude",
        description: format!(
            "Typed Claude Code stream-json and control protocol ({upstream}), generated from its JSON Schema."
        ),
        generated_from: format!("{SCHEMA_DIR}/claude-agent-sdk.schema.json ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize: schema_source::no_customization,
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

/// Reads the pinned version from the `| version | **X** ... |` row of `UPSTREAM.md`.
fn upstream_version(schema_dir: &Path) -> Result<String> {
    let path = schema_dir.join("UPSTREAM.md");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("| version | **")
            && let Some((version, _)) = rest.split_once("**")
        {
            return Ok(version.to_string());
        }
    }
    bail!("{}: no `| version | **X** |` row", path.display())
}
