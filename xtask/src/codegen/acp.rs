//! `schemas/acp/` -> `generated/acp/`: ACP protocol v1 and Cursor's `cursor/*` extensions in one
//! crate.
//!
//! The generic pipeline ([`schema_source`](super::schema_source)) with an ACP step:
//! - the extension schemas' definitions (Cursor's, all named `Cursor*`; Qwen Code's, `Qwen*`)
//!   are merged into ACP's, their references into `schema.json` made local; their unions are
//!   `x-dispatch` annotations, their reply tables `x-responses` ([`extensions`]);
//! - ACP's method unions and reply tables are read from `x-method` on the payload definitions
//!   listed by the envelope unions named after the sender ([`methods`]);
//! - ACP's tagged unions (a `const` tag beside an `allOf` `$ref` to the payload) get the payload's
//!   fields merged beside the tag, so typify emits internally tagged enums whose variants are
//!   told apart by the tag, not by trial ([`tagged`]);
//! - `ErrorCode` (an open set of integers) is a hand-written newtype ([`error_code`]).
//!
//! `schemas/acp/README.md` explains each of these with what typify does without them.

mod error_code;
mod extensions;
mod methods;
mod shapes;
mod tagged;
mod undeclared;

use std::path::Path;

use anyhow::Result;
use quote::quote;
use serde_json::{Map, Value};

use super::passes;
use super::schema_source::{self, Customization, SchemaSource, top_level_definitions};
use super::typify_runner::{Replacement, ShapeUnion};

const SCHEMA_DIR: &str = "schemas/acp";

pub fn source(root: &Path) -> Result<SchemaSource> {
    let upstream = format!(
        "@agentclientprotocol/sdk {}",
        schema_source::pinned(&root.join(SCHEMA_DIR), "version")?
    );
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/schema.json"),
        crate_dir: "generated/acp",
        package: "agentwire-acp",
        dependencies: &[],
        description: format!(
            "Typed Agent Client Protocol v1 ({upstream}) with Cursor's and Qwen Code's ACP extensions, generated from their JSON Schemas."
        ),
        generated_from: format!(
            "{SCHEMA_DIR}/schema.json ({upstream}) and {}",
            extensions::FILES
                .map(|(file, _)| format!("{SCHEMA_DIR}/{file}"))
                .join(", ")
        ),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions: top_level_definitions,
        customize,
    })
}

/// The `#[serde(untagged)]` enums typify may emit.
const SHAPE_UNIONS: &[ShapeUnion] = &[
    (
        "ElicitationContentValue",
        "a form answer: a string, an integer, a number, a boolean or a list of strings",
    ),
    (
        "ElicitationFormMode",
        "scoped to a session (`sessionId`) or to a request (`requestId`); no tag",
    ),
    (
        "ElicitationUrlMode",
        "scoped to a session (`sessionId`) or to a request (`requestId`); no tag",
    ),
    (
        "AuthMethod",
        "`type: \"terminal\"` or no `type` at all (the agent handles it): only one branch has a tag",
    ),
    (
        "McpServer",
        "`type: \"http\"` / `\"sse\"` or no `type` (stdio): only the tagged branches have a tag",
    ),
    (
        "EmbeddedResourceResource",
        "resource contents: text (`text`) or blob (`blob`); no tag",
    ),
    (
        "SessionConfigSelectOptions",
        "a flat list of options or a list of groups of options",
    ),
    (
        "SetSessionConfigOptionRequest",
        "`type: \"boolean\"` with a boolean `value`, or no `type` with a select value id",
    ),
    (
        "NoticeSeverity",
        "an open string set: a documented value or any other string",
    ),
    (
        "CompactionStatus",
        "an open string set: a documented value or any other string",
    ),
    (
        "SessionConfigOptionCategory",
        "an open string set: a documented value or any other string",
    ),
    (
        "CursorTodoStatus",
        "an open string set: a documented value or any other string",
    ),
    (
        "CursorSubagentType",
        "a documented subagent type, `{custom}`, or any other string",
    ),
];

fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "version")?;
    let extensions = extensions::merge_all(&root.join(SCHEMA_DIR), definitions)?;
    undeclared::graft(&root.join(SCHEMA_DIR), definitions)?;
    let methods = methods::extract(definitions, &extensions.methods)?;
    tagged::rewrite(definitions)?;
    shapes::rewrite(definitions)?;
    let error_code = error_code::take(definitions)?;
    let tables = methods
        .responses
        .iter()
        .chain(&extensions.replies)
        .map(super::dispatch::results::emit);
    let mut replacements = vec![
        Replacement {
            definition: "RequestId".into(),
            rust_type: "::agentwire_protocol::RequestId".into(),
        },
        Replacement {
            definition: "CursorRequestId".into(),
            rust_type: "::agentwire_protocol::RequestId".into(),
        },
        Replacement {
            definition: "QwenRequestId".into(),
            rust_type: "::agentwire_protocol::RequestId".into(),
        },
    ];
    replacements.push(Replacement {
        definition: "ErrorCode".into(),
        rust_type: "ErrorCode".into(),
    });
    Ok(Customization {
        unions: methods.unions,
        replacements,
        leading: quote! {
            /// The `@agentclientprotocol/sdk` version whose `schema/v1/schema.json` these types
            /// were generated from.
            pub const UPSTREAM_VERSION: &str = #version;
            #error_code
        },
        trailing: quote!(#(#tables)*),
    })
}

/// Inner attributes of the generated crate.
const CRATE_DOCS: &str = "\
//! Typed Agent Client Protocol (v1), Cursor's `cursor/*` extensions and Qwen Code's, generated
//! from the vendored ACP JSON Schema and the hand-written extension schemas.
//!
//! Requests and notifications decode envelope-first through the unions named after their
//! sender (`ClientRequest`, `AgentRequest`, `ClientNotification`, `AgentNotification`,
//! `ProtocolNotification`, Cursor's `CursorAgentRequest` / `CursorClientRequest`, Qwen Code's
//! `QwenAgentRequest` / `QwenAgentNotification`); a reply is
//! decoded through the `<Union>Result` table once the method of the request it answers is
//! known. Tagged unions (`SessionUpdate` on `sessionUpdate`, `ContentBlock`, `ToolCallContent`,
//! `RequestPermissionOutcome`, ...) are internally tagged enums: each tag value decodes into its
//! own variant. The JSON-RPC runtime is `agentwire-protocol`'s, re-exported here.
#![deny(warnings)]
// Schema prose (Markdown, bare URLs, `[links]` to Rust items upstream) becomes doc comments as is.
#![allow(rustdoc::all)]
// Payload enums are as large as the protocol's messages; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
