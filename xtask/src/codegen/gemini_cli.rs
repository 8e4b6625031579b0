//! `schemas/gemini-cli/` -> `generated/gemini-cli/` (the stream-json events) and
//! `generated/gemini-cli-session/` (the session-file records).
//!
//! Two hand-written schemas of one program, one crate each, as Claude's stream and session files
//! are: a source compiles only the crate it reads. Both declare their tagged unions with
//! `x-dispatch`; the session file's line union has no tag at all (the CLI tells its four line
//! kinds apart by their keys), so its definition is left out here and the source crate's decoder
//! classifies a line by its keys as the CLI's reader does, then decodes the record type it names.
//! The rest of the session schema's untagged unions are the shapes `@google/genai` and the CLI's
//! display types give their values, listed in [`SESSION_SHAPE_UNIONS`].

use std::path::Path;

use anyhow::{Result, bail};
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::ShapeUnion;

const SCHEMA_DIR: &str = "schemas/gemini-cli";

/// The definition the session source's decoder stands in for (see the module docs).
const SESSION_LINE: &str = "SessionLine";

/// `stream-json.schema.json`: the events of `gemini -p --output-format stream-json`.
pub fn stream_json(root: &Path) -> Result<SchemaSource> {
    let upstream = upstream(root)?;
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/stream-json.schema.json"),
        crate_dir: "generated/gemini-cli",
        package: "agentwire-gemini-cli",
        dependencies: &[],
        description: format!(
            "Typed `gemini --output-format stream-json` events ({upstream}), generated from their JSON Schema."
        ),
        generated_from: format!("{SCHEMA_DIR}/stream-json.schema.json ({upstream})"),
        crate_docs: STREAM_CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: &[],
        definitions: schema_source::top_level_definitions,
        customize: version,
    })
}

/// `session.schema.json`: the lines of a session file.
pub fn session(root: &Path) -> Result<SchemaSource> {
    let upstream = upstream(root)?;
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/session.schema.json"),
        crate_dir: "generated/gemini-cli-session",
        package: "agentwire-gemini-cli-session",
        dependencies: &[],
        description: format!("Typed Gemini CLI session-file records ({upstream}), generated from their JSON Schema."),
        generated_from: format!("{SCHEMA_DIR}/session.schema.json ({upstream})"),
        crate_docs: SESSION_CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SESSION_SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize: session_customize,
    })
}

/// The unions of the session schema whose branches carry no tag (its `UPSTREAM.md` lists them).
const SESSION_SHAPE_UNIONS: &[ShapeUnion] = &[
    (
        "PartListUnion",
        "`@google/genai`: a string, one part, or a list of parts",
    ),
    ("PartUnion", "`@google/genai`: a part, or a string for a text part"),
    (
        "ToolResultDisplay",
        "a string, a terminal screen (an array), or a display object told apart by its keys",
    ),
];

fn upstream(root: &Path) -> Result<String> {
    Ok(format!(
        "Gemini CLI {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    ))
}

/// The pinned version, as a constant the mapping crate reports (`--version`).
fn version(root: &Path, _definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    Ok(Customization {
        leading: quote! {
            /// The Gemini CLI version (npm `@google/gemini-cli`) whose output these types were
            /// written against.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        ..Customization::default()
    })
}

/// Leaves out the tagless line union (see the module docs), then adds the pinned version.
fn session_customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    if definitions.remove(SESSION_LINE).is_none() {
        bail!("{SCHEMA_DIR}/session.schema.json defines no `{SESSION_LINE}`");
    }
    version(root, definitions)
}

const STREAM_CRATE_DOCS: &str = "\
//! Typed `gemini -p PROMPT --output-format stream-json` events (Gemini CLI's `JsonStreamEvent`),
//! generated from the hand-written JSON Schema of `schemas/gemini-cli/`.
//!
//! [`JsonStreamEvent::decode`] reads the `type` tag first and decodes only the event it names, so
//! errors name the tag and point into the event. The dispatch runtime is `agentwire-protocol`'s,
//! re-exported here.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
";

const SESSION_CRATE_DOCS: &str = "\
//! Typed Gemini CLI session-file records (`~/.gemini/tmp/<project>/chats/session-*.jsonl`),
//! generated from the hand-written JSON Schema of `schemas/gemini-cli/`.
//!
//! A line is one of four records with no common tag (the metadata line, a [`MessageRecord`], a
//! `$set` [`MetadataUpdateRecord`], a [`RewindRecord`]): the reader tells them apart by their keys
//! and decodes the record type it names. A message is dispatched on its `type`, tag first. The
//! dispatch runtime is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Message variants are as large as the records; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
