//! `schemas/pi/pi.schema.json` -> `generated/pi/` (`agentwire-pi`): the lines the Pi coding agent
//! prints in json and RPC mode (`PiLine`), the commands an RPC client writes (`RpcCommand`), and
//! the entries of its session files (`SessionEntry`), one hand-written schema of one program.
//!
//! Every union is declared with `x-dispatch` (on `type`, a message's on `role`); the two shapes
//! that carry no tag are listed in [`SHAPE_UNIONS`].

use std::path::Path;

use anyhow::Result;
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::ShapeUnion;

const SCHEMA_DIR: &str = "schemas/pi";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = upstream(root)?;
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/pi.schema.json"),
        crate_dir: "generated/pi",
        package: "agentwire-pi",
        dependencies: &[],
        description: format!("Typed Pi coding agent lines ({upstream}), generated from their JSON Schema."),
        generated_from: format!("{SCHEMA_DIR}/pi.schema.json ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: schema_source::top_level_definitions,
        customize: version,
    })
}

/// The unions whose branches carry no tag.
const SHAPE_UNIONS: &[ShapeUnion] = &[
    ("UserContent", "pi-ai: a string, or a list of text and image blocks"),
    ("SystemMessageContent", "pi-ai: a string, or a list of text blocks"),
];

fn upstream(root: &Path) -> Result<String> {
    Ok(format!(
        "@earendil-works/pi-coding-agent {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    ))
}

/// The pinned version, as a constant the mapping crate reports (`--version`).
fn version(root: &Path, _definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    Ok(Customization {
        leading: quote! {
            /// The Pi version (npm `@earendil-works/pi-coding-agent`) whose output these types
            /// were written against.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        ..Customization::default()
    })
}

const CRATE_DOCS: &str = "\
//! Typed Pi coding agent lines (npm `@earendil-works/pi-coding-agent`), generated from the
//! hand-written JSON Schema of `schemas/pi/`.
//!
//! [`PiLine::decode`] reads the `type` tag first and decodes only the line it names (json mode's
//! header and events, RPC mode's responses); [`RpcCommand::decode`] does the same for what an RPC
//! client writes. The dispatch runtime is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Line variants are as large as the events; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
