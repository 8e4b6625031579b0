//! `schemas/opencode/` -> `generated/opencode/`: the events of `opencode serve` and the bodies
//! of the replies a client sends back, from the OpenAPI 3.1 document the server publishes.
//!
//! OpenAPI 3.1 schemas are JSON Schema 2020-12, so the generic pipeline reads them once they
//! sit where it looks ([`definitions`]): the document's `components.schemas` become the
//! definitions (refs `#/components/schemas/X` -> `#/definitions/X`), and the request bodies of
//! the reply operations ([`REPLY_BODIES`], written inline in `paths`) become definitions of
//! their own. The OpenCode step ([`customize`]) then
//! - applies `schemas/opencode/patches.json`: the places where the traffic differs from the
//!   document (`UPSTREAM.md`), as edits in data ([`patches`]);
//! - adds the components of `schemas/opencode/run.schema.json`: the lines of
//!   `opencode run --format json` (`RunLine`, an `x-dispatch` union on `type`), which the
//!   document does not declare but which carry its `Part` and its `session.error` union;
//! - makes every place a `$ref` points into (`#/components/schemas/C/properties/p/...`) a
//!   definition of its own, named as typify names that place (`CPropertiesP`), so the place and
//!   the ref share one Rust type ([`lift_inner_refs`]);
//! - declares `Event` (an `anyOf` of one object per `type`) a `x-dispatch` union on `type`;
//! - copies the components of the other tagged unions (`Part`, `Message`, `ToolState`, ...)
//!   into them, so typify makes them internally tagged enums ([`tagged`]);
//! - renames the components whose names are no identifiers (`Event.tui.prompt.append`,
//!   `EventModels-devRefreshed`) after the type typify would give them;
//! - keeps only what `Event`, `RunLine`, `SessionMessage` (a v2 session's message, as the store
//!   keeps it) and the reply bodies reach, so the crate is the streams, the stored sessions and
//!   the way back, not the whole HTTP API.

pub(super) mod patches;
mod tagged;

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use quote::quote;
use serde_json::{Map, Value, json};

use super::names::type_ident;
use super::passes;
use super::schema_source::{self, Customization, SchemaSource};
use super::typify_runner::{ShapeUnion, collect_refs};

const SCHEMA_DIR: &str = "schemas/opencode";

/// The union of the events of `GET /event`.
const EVENT: &str = "Event";

/// The union of the lines of `opencode run --format json` (`run.schema.json`).
const RUN_LINE: &str = "RunLine";

/// The union of a v2 session's messages (`GET /api/session/{sessionID}/message`), which the
/// store keeps as `session_message` rows and the `opencode-session` source reads.
const SESSION_MESSAGE: &str = "SessionMessage";

/// The reply operations whose request bodies the way back sends, by `operationId`, with the
/// definition each body becomes.
const REPLY_BODIES: &[(&str, &str)] = &[
    ("permission.reply", "PermissionReplyBody"),
    ("question.reply", "QuestionReplyBody"),
];

pub fn source(root: &Path) -> Result<SchemaSource> {
    let version = schema_source::pinned(&root.join(SCHEMA_DIR), "program")?;
    Ok(SchemaSource {
        schema: format!("{SCHEMA_DIR}/openapi.json"),
        crate_dir: "generated/opencode",
        package: "agentwire-opencode",
        dependencies: &[],
        description: format!(
            "Typed OpenCode {version} server events (`GET /event`) and reply bodies, generated from the OpenAPI \
             document `opencode serve` publishes."
        ),
        generated_from: format!(
            "{SCHEMA_DIR}/openapi.json (OpenCode {version}), {SCHEMA_DIR}/patches.json and {SCHEMA_DIR}/run.schema.json"
        ),
        crate_docs: CRATE_DOCS,
        passes: passes::ALL,
        shape_unions: SHAPE_UNIONS,
        definitions,
        customize,
    })
}

/// The `#[serde(untagged)]` enums typify may emit.
const SHAPE_UNIONS: &[ShapeUnion] = &[(
    "SessionNextTimestamp",
    "ISO-8601 text on `GET /event`, epoch milliseconds on `GET /api/event` (patches.json)",
)];

/// The document's component schemas and the reply bodies, under their names as written, refs
/// still `#/components/schemas/X` (the patches are written against the document as it is).
fn definitions(document: Value) -> Result<Map<String, Value>> {
    let Value::Object(mut root) = document else {
        bail!("the document is not a JSON object")
    };
    let mut definitions = match root
        .get_mut("components")
        .and_then(|c| c.get_mut("schemas"))
        .map(Value::take)
    {
        Some(Value::Object(schemas)) => schemas,
        _ => bail!("the document has no `components.schemas` object"),
    };
    let paths = root
        .get("paths")
        .and_then(Value::as_object)
        .context("no `paths` object")?;
    for (operation_id, name) in REPLY_BODIES {
        let body = paths
            .values()
            .filter_map(Value::as_object)
            .flat_map(|path| path.values())
            .find(|operation| operation.get("operationId").and_then(Value::as_str) == Some(operation_id))
            .and_then(|operation| operation.pointer("/requestBody/content/application~1json/schema"))
            .with_context(|| format!("no operation {operation_id} with a JSON request body"))?;
        if definitions.insert(name.to_string(), body.clone()).is_some() {
            bail!("the document already has a component {name}");
        }
    }
    Ok(definitions)
}

fn customize(root: &Path, definitions: &mut Map<String, Value>) -> Result<Customization> {
    let dir = root.join(SCHEMA_DIR);
    patches::apply(&dir.join("patches.json"), definitions)?;
    add_run_lines(&dir.join("run.schema.json"), definitions)?;
    lift_inner_refs(definitions)?;
    declare_event_dispatch(definitions)?;
    tagged::rewrite(definitions)?;
    let roots: Vec<&str> = [EVENT, RUN_LINE, SESSION_MESSAGE]
        .into_iter()
        .chain(REPLY_BODIES.iter().map(|(_, name)| *name))
        .collect();
    *definitions = renamed(reached(definitions, &roots)?)?;
    let version = schema_source::pinned(&dir, "program")?;
    let routes = routes(&dir.join("openapi.json"))?
        .into_iter()
        .map(|(method, path)| quote! { (#method, #path) });
    Ok(Customization {
        leading: quote! {
            /// The OpenCode version whose `GET /doc` these types were generated from.
            pub const UPSTREAM_VERSION: &str = #version;
            /// The server's routes as the document names them, `(METHOD, path template)`, in its
            /// order: the kind of a client's HTTP call, whatever ids its path holds.
            pub const ROUTES: &[(&str, &str)] = &[#(#routes),*];
        },
        ..Customization::default()
    })
}

/// `Event` as the `x-dispatch` union of its branches, each named by its `type` (a one-value
/// `enum`), in the document's order.
fn declare_event_dispatch(definitions: &mut Map<String, Value>) -> Result<()> {
    let event = definitions.get(EVENT).context("no `Event` component")?;
    let branches = event
        .get("anyOf")
        .and_then(Value::as_array)
        .context("`Event` is not an `anyOf`")?;
    let mut variants = Map::new();
    for branch in branches {
        let name = branch
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(component_of_ref)
            .with_context(|| format!("an `Event` branch is no component ref: {branch}"))?;
        let tag = definitions
            .get(name)
            .and_then(|payload| payload.pointer("/properties/type/enum"))
            .and_then(Value::as_array)
            .filter(|values| values.len() == 1)
            .and_then(|values| values[0].as_str())
            .with_context(|| format!("`Event` branch {name} has no one-value `type` enum"))?;
        if variants
            .insert(tag.to_string(), Value::String(name.to_string()))
            .is_some()
        {
            bail!("two `Event` branches have the type {tag:?}");
        }
    }
    definitions.insert(
        EVENT.into(),
        json!({
            "description": "One event of `GET /event`: `{\"id\", \"type\", \"properties\"}`, dispatched on `type`.",
            "x-dispatch": { "tag": "type", "variants": variants },
        }),
    );
    Ok(())
}

/// Every operation of the document's `paths`: its method (upper case) and path template.
fn routes(path: &Path) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let document: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let paths = document
        .get("paths")
        .and_then(Value::as_object)
        .context("no `paths` object")?;
    let mut routes = Vec::new();
    for (template, operations) in paths {
        let operations = operations
            .as_object()
            .with_context(|| format!("path {template} is no object"))?;
        for method in operations.keys() {
            if ["get", "put", "post", "delete", "options", "head", "patch", "trace"].contains(&method.as_str()) {
                routes.push((method.to_ascii_uppercase(), template.clone()));
            }
        }
    }
    Ok(routes)
}

/// The components of the file at `path` (`components.schemas`, refs written as the document
/// writes them), added to `definitions`; a name the document already has is an error.
fn add_run_lines(path: &Path, definitions: &mut Map<String, Value>) -> Result<()> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let Some(Value::Object(components)) = file.pointer("/components/schemas") else {
        bail!("{}: no `components.schemas` object", path.display());
    };
    for (name, schema) in components {
        if definitions.insert(name.clone(), schema.clone()).is_some() {
            bail!("{}: the document already has a component {name}", path.display());
        }
    }
    Ok(())
}

/// Every place a `$ref` points into (`#/components/schemas/C/properties/a/properties/b`, a chain
/// of `properties` only) moved to a definition `CAB`, named as typify names the type of that
/// place (`C` and each property name in Pascal case), the place itself and every such ref made
/// refs to it: one type where the document wrote the schema once and the
/// run lines name it (the `session.error` union: `EventSessionErrorPropertiesError`).
fn lift_inner_refs(definitions: &mut Map<String, Value>) -> Result<()> {
    let mut pointers = Vec::new();
    for schema in definitions.values() {
        inner_refs(schema, &mut pointers);
    }
    pointers.sort();
    pointers.dedup();
    for pointer in pointers {
        let (component, rest) = pointer.split_once('/').expect("an inner ref has a `/`");
        let segments: Vec<&str> = rest.split('/').collect();
        let mut name = component.to_string();
        for pair in segments.chunks(2) {
            match pair {
                ["properties", property] => name.push_str(&super::names::pascal_case(property)),
                _ => bail!("the ref #/components/schemas/{pointer} is no chain of `properties`"),
            }
        }
        let place = definitions
            .get_mut(component)
            .and_then(|schema| schema.pointer_mut(&format!("/{rest}")))
            .with_context(|| format!("the ref #/components/schemas/{pointer} points nowhere"))?;
        let schema = std::mem::replace(place, json!({ "$ref": format!("#/components/schemas/{name}") }));
        if definitions.insert(name.clone(), schema).is_some() {
            bail!("the ref #/components/schemas/{pointer} lifts to {name}, which is a component already");
        }
        for schema in definitions.values_mut() {
            retarget(schema, &pointer, &name);
        }
    }
    Ok(())
}

/// The refs of `value` into a component (`C/...` of `#/components/schemas/C/...`).
fn inner_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(inner) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(component_of_ref)
                .filter(|target| target.contains('/'))
            {
                into.push(inner.to_string());
            }
            map.values().for_each(|child| inner_refs(child, into));
        }
        Value::Array(items) => items.iter().for_each(|item| inner_refs(item, into)),
        _ => {}
    }
}

/// Every ref to `#/components/schemas/<pointer>` made a ref to the component `name`.
fn retarget(value: &mut Value, pointer: &str, name: &str) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && component_of_ref(reference) == Some(pointer)
            {
                *reference = format!("#/components/schemas/{name}");
            }
            map.values_mut().for_each(|child| retarget(child, pointer, name));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| retarget(item, pointer, name)),
        _ => {}
    }
}

/// `#/components/schemas/X` -> `X`.
fn component_of_ref(reference: &str) -> Option<&str> {
    reference.strip_prefix("#/components/schemas/")
}

/// The definitions `roots` reach, following refs (the `x-dispatch` variants name theirs).
fn reached(definitions: &Map<String, Value>, roots: &[&str]) -> Result<Map<String, Value>> {
    let mut kept = Map::new();
    let mut pending: Vec<String> = roots.iter().map(|name| name.to_string()).collect();
    while let Some(name) = pending.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        let schema = definitions
            .get(&name)
            .with_context(|| format!("a ref names {name}, which is no component"))?;
        component_refs(schema, &mut pending);
        if let Some(variants) = schema.pointer("/x-dispatch/variants").and_then(Value::as_object) {
            pending.extend(variants.values().filter_map(Value::as_str).map(str::to_string));
        }
        kept.insert(name, schema.clone());
    }
    kept.sort_keys();
    Ok(kept)
}

/// The components `value` refers to.
fn component_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(component_of_ref) {
                into.push(name.to_string());
            }
            map.values().for_each(|child| component_refs(child, into));
        }
        Value::Array(items) => items.iter().for_each(|item| component_refs(item, into)),
        _ => {}
    }
}

/// Every definition under an identifier name (the type typify gives it), refs rewritten to
/// `#/definitions/<name>`; two components that would get one name are an error.
fn renamed(definitions: Map<String, Value>) -> Result<Map<String, Value>> {
    let name_of = |name: &str| -> String {
        if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            name.to_string()
        } else {
            type_ident(name).to_string()
        }
    };
    let mut names = BTreeSet::new();
    let mut renamed = Map::new();
    for (name, mut schema) in definitions {
        let new = name_of(&name);
        if !names.insert(type_ident(&new).to_string()) {
            bail!("component {name} gets the type name {new}, which another component has");
        }
        rewrite(&mut schema, &name_of);
        renamed.insert(new, schema);
    }
    let mut dangling = Vec::new();
    for schema in renamed.values() {
        collect_refs(schema, &mut dangling);
    }
    dangling.retain(|name| !renamed.contains_key(name));
    if let Some(name) = dangling.first() {
        bail!("a ref names {name}, which was not kept");
    }
    Ok(renamed)
}

fn rewrite(value: &mut Value, name_of: &dyn Fn(&str) -> String) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = component_of_ref(reference)
            {
                *reference = format!("#/definitions/{}", name_of(name));
            }
            if let Some(Value::Object(variants)) = map.get_mut("x-dispatch").and_then(|d| d.get_mut("variants")) {
                for variant in variants.values_mut() {
                    if let Value::String(name) = variant {
                        *name = name_of(name);
                    }
                }
            }
            map.values_mut().for_each(|child| rewrite(child, name_of));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite(item, name_of)),
        _ => {}
    }
}

/// Inner attributes of the generated crate.
const CRATE_DOCS: &str = "\
//! Typed OpenCode server events and reply bodies, generated from the OpenAPI document
//! `opencode serve` publishes (`GET /doc`, vendored in `schemas/opencode/`) with the gaps the
//! captures found patched in (`schemas/opencode/patches.json`).
//!
//! [`Event`] is one event of `GET /event` (`{\"id\", \"type\", \"properties\"}`): `decode` reads
//! the `type` first and decodes only the payload it names. [`RunLine`] is one line of
//! `opencode run --format json` (`{\"type\", \"timestamp\", \"sessionID\", \"part\" | \"error\"}`).
//! [`SessionMessage`] is one message of a v2 session, tagged on `type`. [`PermissionReplyBody`] and
//! [`QuestionReplyBody`] are what `POST /permission/{id}/reply` and `POST /question/{id}/reply`
//! take.
#![deny(warnings)]
// Schema prose becomes doc comments as is.
#![allow(rustdoc::all)]
// Event variants are as large as the events the server sends; boxing would change the public shape.
#![allow(clippy::large_enum_variant)]
";
