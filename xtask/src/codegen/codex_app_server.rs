//! `schemas/codex-app-server/` -> `generated/codex-app-server/`.
//!
//! The generic pipeline ([`schema_source`](super::schema_source)) with two Codex steps: the
//! vendored bundle nests its v2 types under `definitions.v2` ([`flatten`]), and its four dispatch
//! unions (`ServerNotification`, `ServerRequest`, `ClientRequest`, `ClientNotification`) are
//! `oneOf`s of method branches rather than `x-dispatch` annotations ([`unions`], which also
//! builds the method -> response tables).

mod flatten;
mod unions;

use std::path::Path;

use anyhow::Result;
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::ShapeUnion;
use crate::sync_schemas::CODEX_BUNDLE;

const SCHEMA_DIR: &str = "schemas/codex-app-server";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = format!(
        "@openai/codex {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/{CODEX_BUNDLE}"),
        crate_dir: "generated/codex-app-server",
        package: "agentwire-codex-app-server",
        dependencies: &[],
        description: format!("Typed Codex app-server JSON-RPC protocol ({upstream}), generated from its JSON Schema."),
        generated_from: format!("{SCHEMA_DIR}/{CODEX_BUNDLE} ({upstream})"),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: flatten::flatten,
        customize,
    })
}

/// The `#[serde(untagged)]` enums typify may emit: unions whose branches carry no discriminator
/// property, so only their shape tells them apart.
const SHAPE_UNIONS: &[ShapeUnion] = &[
    (
        "AccountSessionsSwitchResponse",
        "an object with `sessions` (switched) or one with `auth_url` + `login_id` (sign-in needed); no tag",
    ),
    (
        "ForcedChatgptWorkspaceIds",
        "one workspace id string or an array of them",
    ),
    (
        "FunctionCallOutputBody",
        "plain string output or an array of typed content items",
    ),
    (
        "McpElicitationSingleSelectEnumSchema",
        "MCP select schema: untitled (`enum`) or titled (`oneOf`), both `type: \"string\"`",
    ),
    (
        "ResourceContent",
        "MCP resource contents: text (`text`) or blob (`blob`); no tag",
    ),
    ("ThreadListCwdFilter", "one cwd string or an array of them"),
];

/// The Codex step: the method unions, the protocol types that replace upstream definitions, the
/// pinned version and the response tables.
fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    let (unions, responses) = unions::extract(definitions)?;
    let tables = responses.iter().map(crate::codegen::dispatch::results::emit);
    Ok(Customization {
        unions,
        replacements: unions::replacements(),
        leading: quote! {
            /// The `@openai/codex` version whose `app-server generate-json-schema --experimental`
            /// output these types were generated from.
            pub const UPSTREAM_VERSION: &str = #version;
        },
        trailing: quote!(#(#tables)*),
    })
}

/// Inner attributes of the generated crate. The allow list is explicit and each entry says why.
const CRATE_DOCS: &str = "\
//! Typed Codex app-server protocol, generated from the vendored JSON Schema.
//!
//! Dispatch unions decode envelope-first: the `method` is read, the `params` kept as raw JSON,
//! and only the payload type the method names is decoded, so errors name the method and point
//! into the payload. Responses are decoded through [`ClientRequestResult`] and
//! [`ServerRequestResult`] once the method of the request they answer is known. The JSON-RPC
//! runtime (ids, envelope, decoders, errors) is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose (Markdown, bare URLs, `[links]` to Rust items upstream) becomes doc comments as is.
#![allow(rustdoc::all)]
// Payload enums are as large as the protocol's messages; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
