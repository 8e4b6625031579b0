//! The canonical model -> `generated/typescript/`: `providerRuntime.gen.ts` (Effect v4
//! `effect/Schema`, written to drop into T3 Code's `packages/contracts/src` as is), and around it
//! an npm package (`package.json`, `README.md`, and a `baseSchemas.ts` for hosts without one).
//!
//! The module follows T3 Code's contracts: `Schema.Literals` enums, `Schema.Struct`s, each event
//! `{ ...RuntimeEventBase.fields, type, payload }`, the array-form `Schema.Union`, and
//! `export type X = typeof X.Type` beside every schema. Descriptions become JSDoc comments (every
//! definition and field) and `.annotate({ identifier, description })` on every definition. From
//! `./baseSchemas.ts` it imports only names T3's file exports ([`HOST_NAMES`], checked against the
//! recorded export list [`HOST_RECORD`]); the other ids it defines itself, branded with their own
//! name as T3's `makeEntityId` does, so they stay assignable to a host's own. It ends with the
//! names T3's server imports under other names ([`ALIASES`]), a strict decoder, an encoder and
//! `isEventType` guards. The text is already what T3's formatter writes (see `format`).
//!
//! Plain text emission (no node needed); consts come in dependency order because a TypeScript
//! `const` cannot be used before its definition.

mod base_schemas;
mod format;
mod package;

pub use package::DIST_DIR;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::GeneratedFile;
use super::canonical_model::{EnumDef, Kind, Model, ObjectDef, PropType, Property, SCHEMA_PATH};
use format::{jsdoc, list, named_import, string, string_property};

/// The folder this generator owns.
const OUTPUT_DIR: &str = "generated/typescript";

/// The module's file name in the package (T3 Code keeps generated schemas as `*.gen.ts`).
const MODULE_FILE: &str = "providerRuntime.gen.ts";

/// The module the ids and date-times come from (T3 Code's `baseSchemas.ts`), and its file in the
/// package.
const BASE_SCHEMAS: &str = "./baseSchemas.ts";
const BASE_SCHEMAS_FILE: &str = "baseSchemas.ts";

/// The recorded export list of T3 Code's `packages/contracts/src/baseSchemas.ts` (with the commit
/// it was read at; `schemas/canonical/UPSTREAM.md` says how to refresh it).
pub const HOST_RECORD: &str = "schemas/canonical/t3code-base-schemas.json";

/// The one list of names the module takes from its host's `./baseSchemas.ts` when the model uses
/// them: model ids and date-times that T3 Code's file exports under the same name. Every other id
/// of the model is defined in the module. Each must be in [`HOST_RECORD`].
const HOST_NAMES: &[&str] = &[
    "TrimmedNonEmptyString",
    "IsoDateTime",
    "EventId",
    "ThreadId",
    "TurnId",
    "ProviderItemId",
    "RuntimeSessionId",
    "RuntimeItemId",
    "RuntimeRequestId",
    "RuntimeTaskId",
];

/// Names T3 Code's server imports from its `providerRuntime.ts` for a definition the model names
/// otherwise: `(name, model definition)`. Each is exported as a const and a type.
const ALIASES: &[(&str, &str)] = &[
    ("ProviderRuntimeEvent", "ProviderRuntimeEventV2"),
    ("ProviderRuntimeTurnStatus", "TurnState"),
    ("RuntimeContentStreamKind", "ContentStreamKind"),
];

/// The type mapping each event type to its event, which `isEventType` narrows to.
const EVENT_BY_TYPE: &str = "ProviderRuntimeEventByType";

pub fn generate(root: &Path, model: &Model) -> Result<Vec<GeneratedFile>> {
    let host_exports = host_exports(root)?;
    check_host_names(model, &host_exports)?;
    for (name, target) in ALIASES {
        if model.kind_of(name).is_some() {
            bail!("alias {name} names a definition of the model");
        }
        if model.kind_of(target).is_none() {
            bail!("alias {name} stands for {target}, which the model does not define");
        }
    }
    let base_names = base_names(model);
    let exports = ExportSummary::of(model, &base_names);
    let file = |name: &str, contents: String| GeneratedFile {
        path: PathBuf::from(OUTPUT_DIR).join(name),
        contents,
    };
    Ok(vec![
        file(MODULE_FILE, module(model, &base_names)),
        file(
            BASE_SCHEMAS_FILE,
            base_schemas::generate(model, &base_names, SCHEMA_PATH),
        ),
        file("package.json", package::package_json()),
        file("tsconfig.json", package::tsconfig_json()),
        file("README.md", package::readme(&exports)),
    ])
}

/// The recorded exports of T3 Code's `baseSchemas.ts`.
pub fn host_exports(root: &Path) -> Result<Vec<String>> {
    let path = root.join(HOST_RECORD);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let record: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("parsing {HOST_RECORD}"))?;
    let Some(exports) = record["exports"].as_array() else {
        bail!("{HOST_RECORD} has no `exports` array");
    };
    exports
        .iter()
        .map(|name| name.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()
        .with_context(|| format!("{HOST_RECORD}: `exports` holds a non-string"))
}

/// Every host name is one the host exports and an id or date-time of the model; the model's other
/// ids can be defined locally (they brand `TrimmedNonEmptyString`, a host name), its date-times
/// cannot.
fn check_host_names(model: &Model, host_exports: &[String]) -> Result<()> {
    for name in HOST_NAMES {
        if !host_exports.iter().any(|export| export == name) {
            bail!("{name} is taken from ./baseSchemas.ts, but {HOST_RECORD} does not list it");
        }
        if !matches!(model.kind_of(name), Some(Kind::Id | Kind::DateTime)) {
            bail!("{name} is taken from ./baseSchemas.ts, but it is no id or date-time of the model");
        }
    }
    if !HOST_NAMES.contains(&base_schemas::BASE_STRING) {
        bail!(
            "locally defined ids brand {}, which must come from the host",
            base_schemas::BASE_STRING
        );
    }
    if let Some(def) = model
        .datetimes
        .iter()
        .find(|def| !HOST_NAMES.contains(&def.name.as_str()))
    {
        bail!("date-time {} must come from the host: add it to HOST_NAMES", def.name);
    }
    Ok(())
}

/// The ids and date-times the module uses, in schema order.
fn used_bases(model: &Model) -> Vec<&str> {
    let mut used = BTreeSet::new();
    for object in model.objects.iter().chain([&model.envelope]) {
        for property in &object.properties {
            if let Some(name) = property.ty.referenced() {
                used.insert(name);
            }
        }
    }
    model
        .ids
        .iter()
        .map(|def| def.name.as_str())
        .chain(model.datetimes.iter().map(|def| def.name.as_str()))
        .filter(|name| used.contains(name))
        .collect()
}

/// The host names the module imports: those it uses, plus the string its own ids brand.
fn base_names(model: &Model) -> Vec<&'static str> {
    let used = used_bases(model);
    let needs_base_string = used.iter().any(|name| !HOST_NAMES.contains(name));
    HOST_NAMES
        .iter()
        .copied()
        .filter(|name| used.contains(name) || (needs_base_string && *name == base_schemas::BASE_STRING))
        .collect()
}

/// What the module exports beyond the model's definitions, for the README.
pub struct ExportSummary {
    pub imported: Vec<String>,
    pub local_ids: Vec<String>,
    pub aliases: Vec<(String, String)>,
    /// The `x-kind: json` definitions.
    pub jsons: Vec<String>,
    /// The enum subsets: `(subset, enum, guard)`.
    pub subsets: Vec<(String, String, String)>,
    pub union: String,
    pub event_types: usize,
}

impl ExportSummary {
    fn of(model: &Model, base_names: &[&str]) -> Self {
        let used = used_bases(model);
        ExportSummary {
            imported: base_names.iter().map(|name| (*name).to_owned()).collect(),
            local_ids: used
                .iter()
                .filter(|name| !HOST_NAMES.contains(name))
                .map(|name| (*name).to_owned())
                .collect(),
            aliases: ALIASES
                .iter()
                .map(|(name, target)| ((*name).to_owned(), (*target).to_owned()))
                .collect(),
            jsons: model.jsons.iter().map(|def| def.name.clone()).collect(),
            subsets: model
                .enums
                .iter()
                .filter_map(|def| {
                    let parent = def.subset_of.clone()?;
                    Some((def.name.clone(), parent, subset_guard_name(&def.name)))
                })
                .collect(),
            union: model.union.name.clone(),
            event_types: model.events.len(),
        }
    }
}

fn module(model: &Model, base_names: &[&str]) -> String {
    let mut out = super::header("//", SCHEMA_PATH);
    out.push_str(&jsdoc(
        "",
        &format!(
            "{}\n\nEffect Schema (v4) of the canonical provider-runtime event model (V2). Written to sit in T3 Code's \
             `packages/contracts/src`: it imports from `{BASE_SCHEMAS}` only names T3's file exports and defines the \
             other ids itself, branded as T3's `makeEntityId` brands them.\n\n@module providerRuntime",
            model.description
        ),
    ));
    out.push_str("import * as Schema from \"effect/Schema\";\n\n");
    let imports: Vec<String> = base_names.iter().map(|name| (*name).to_owned()).collect();
    out.push_str(&named_import(&imports, BASE_SCHEMAS));
    out.push('\n');

    let used = used_bases(model);
    let local_ids = model
        .ids
        .iter()
        .filter(|id| !HOST_NAMES.contains(&id.name.as_str()) && used.contains(&id.name.as_str()));
    for id in local_ids {
        out.push_str(&jsdoc(
            "",
            &format!(
                "{} Defined here: T3 Code's `baseSchemas.ts` has no such id.",
                id.description
            ),
        ));
        out.push_str(&base_schemas::branded_id(&id.name));
        out.push('\n');
    }

    for def in &model.enums {
        let mut doc = def.description.clone();
        if def.values.iter().any(|value| value.description.is_some()) {
            doc.push('\n');
            for value in &def.values {
                let _ = write!(doc, "\n- `{}`", value.value);
                if let Some(description) = &value.description {
                    let _ = write!(doc, ": {description}");
                }
            }
        }
        out.push_str(&jsdoc("", &doc));
        let values: Vec<String> = def.values.iter().map(|value| string(&value.value)).collect();
        let opening = format!("export const {} = Schema.Literals([", def.name);
        out.push_str(&list("", &opening, &values, "]).annotate({"));
        annotation(&mut out, &def.name, &def.description);
        if let Some(parent) = &def.subset_of {
            subset_guard(&mut out, parent, &def.name);
        }
    }

    for def in &model.jsons {
        out.push_str(&jsdoc("", &def.description));
        let _ = writeln!(out, "export const {} = Schema.Unknown.annotate({{", def.name);
        annotation(&mut out, &def.name, &def.description);
    }

    for def in model.objects_in_dependency_order().into_iter().chain([&model.envelope]) {
        object(&mut out, model, def);
    }

    for event in &model.events {
        out.push_str(&jsdoc("", &event.description));
        let _ = writeln!(out, "export const {} = Schema.Struct({{", event.name);
        let _ = writeln!(out, "  ...{}.fields,", model.envelope.name);
        out.push_str(&jsdoc("  ", &event.type_description));
        let _ = writeln!(out, "  type: Schema.Literal({}),", string(&event.event_type));
        out.push_str(&jsdoc("  ", &event.payload_description));
        let _ = writeln!(out, "  payload: {},", event.payload);
        out.push_str("}).annotate({\n");
        annotation(&mut out, &event.name, &event.description);
    }

    let union = &model.union.name;
    out.push_str(&jsdoc("", &model.union.description));
    let _ = writeln!(out, "export const {union} = Schema.Union([");
    for event in &model.events {
        let _ = writeln!(out, "  {},", event.name);
    }
    out.push_str("]).annotate({\n");
    annotation(&mut out, union, &model.union.description);

    out.push_str(&jsdoc(
        "",
        "The payload of each event type (spec 1.5 `RuntimeEventPayloadByType`).",
    ));
    out.push_str("export type RuntimeEventPayloadByType = {\n");
    for event in &model.events {
        let _ = writeln!(out, "  {}: {};", string(&event.event_type), event.payload);
    }
    out.push_str("};\n\n");

    for (name, target) in ALIASES {
        out.push_str(&jsdoc(
            "",
            &format!("`{target}` under the name T3 Code's server imports."),
        ));
        let _ = writeln!(out, "export const {name} = {target};");
        let _ = writeln!(out, "export type {name} = {target};\n");
    }

    helpers(&mut out, model);
    if let Some(def) = model.item_content() {
        item_content(&mut out, def);
    }
    out
}

/// `ItemContentByType` (the schema of an item's `data` for each item type), its decoder and its
/// guard, from `x-itemContent`.
fn item_content(out: &mut String, def: &EnumDef) {
    let item_type = &def.name;
    out.push_str(&jsdoc(
        "",
        &format!("The schema of an item's `data` for each `{item_type}` (`x-itemContent`)."),
    ));
    out.push_str("export const ItemContentSchemas = {\n");
    for (value, object) in &def.content {
        // Item types are snake_case identifiers: unquoted keys, as T3 Code's formatter writes them.
        let _ = writeln!(out, "  {value}: {object},");
    }
    out.push_str("} as const;\n\n");
    out.push_str(&jsdoc("", "An item's `data` for each item type."));
    let _ = writeln!(
        out,
        "export type ItemContentByType = {{\n  [T in {item_type}]: (typeof ItemContentSchemas)[T][\"Type\"];\n}};\n"
    );
    out.push_str(&jsdoc(
        "",
        "Decodes an item's `data` as the content of its item type; throws on a missing or unknown field.",
    ));
    let _ = writeln!(
        out,
        "export const decodeItemContent = <T extends {item_type}>(\n  itemType: T,\n  data: unknown,\n): ItemContentByType[T] =>\n  \
         Schema.decodeUnknownSync(\n    ItemContentSchemas[itemType] as unknown as Schema.Codec<ItemContentByType[T]>,\n    strict,\n  )(data);\n"
    );
    out.push_str(&jsdoc(
        "",
        "Whether an item's `data` is the content of its item type: `isItemContent(payload.itemType, payload.data)`.",
    ));
    let _ = writeln!(
        out,
        "export const isItemContent = <T extends {item_type}>(\n  itemType: T,\n  data: unknown,\n): data is ItemContentByType[T] => {{\n  \
         try {{\n    decodeItemContent(itemType, data);\n    return true;\n  }} catch {{\n    return false;\n  }}\n}};"
    );
}

/// `is<Subset>(value)`: whether a value of the enum (any string) is in the subset. A plain
/// function of a string, as T3 Code's server calls its `isToolLifecycleItemType`.
fn subset_guard(out: &mut String, parent: &str, subset: &str) {
    out.push_str(&jsdoc(
        "",
        &format!("Whether a `{parent}` (or any string) is a `{subset}`."),
    ));
    let _ = writeln!(
        out,
        "export const {name} = (value: string): value is {subset} =>\n  ({subset}.literals as ReadonlyArray<string>).includes(value);\n",
        name = subset_guard_name(subset),
    );
}

/// The guard's name: `is` and the subset's name.
fn subset_guard_name(subset: &str) -> String {
    format!("is{subset}")
}

/// The decoder, the encoder and the event type guards.
fn helpers(out: &mut String, model: &Model) {
    let union = &model.union.name;
    let event_type = &model.event_type_enum().name;
    let _ = write!(
        out,
        "{doc}export type {EVENT_BY_TYPE} = {{\n  [T in {event_type}]: Extract<{union}, {{ readonly type: T }}>;\n}};\n\n",
        doc = jsdoc("", "The event of each event type."),
    );
    out.push_str(&jsdoc(
        "",
        "Parse options of the canonical model: an unknown key is an error (the JSON Schema's \
         `additionalProperties: false`; Effect Schema drops unknown keys by default), and every error is reported.",
    ));
    out.push_str("const strict = { onExcessProperty: \"error\", errors: \"all\" } as const;\n\n");
    for (doc, name, function) in [
        (
            "Decodes one canonical event (JSON-parsed data); throws on anything the canonical model rejects, unknown keys included.",
            "decodeProviderRuntimeEvent",
            "decodeUnknownSync",
        ),
        (
            "`decodeProviderRuntimeEvent` as an `Effect`, for code running inside one.",
            "decodeProviderRuntimeEventEffect",
            "decodeUnknownEffect",
        ),
        (
            "Encodes an event to its JSON form (the inverse of `decodeProviderRuntimeEvent`).",
            "encodeProviderRuntimeEvent",
            "encodeSync",
        ),
    ] {
        out.push_str(&jsdoc("", doc));
        let opening = format!("export const {name} = Schema.{function}(");
        out.push_str(&list("", &opening, &[union.clone(), "strict".to_owned()], ");"));
        out.push('\n');
    }
    out.push_str(&jsdoc(
        "",
        "A type guard for one event type: `events.filter(isEventType(\"turn.completed\"))` keeps the \
         `turn.completed` events, typed as such.",
    ));
    let _ = writeln!(
        out,
        "export const isEventType =\n  <T extends {event_type}>(type: T) =>\n  (event: {union}): event is {EVENT_BY_TYPE}[T] =>\n    event.type === type;"
    );
}

fn object(out: &mut String, model: &Model, def: &ObjectDef) {
    out.push_str(&jsdoc("", &def.description));
    let _ = writeln!(out, "export const {} = Schema.Struct({{", def.name);
    for property in &def.properties {
        out.push_str(&jsdoc("  ", &property.description));
        let _ = writeln!(out, "  {}: {},", property.name, field_schema(model, property));
    }
    out.push_str("}).annotate({\n");
    annotation(out, &def.name, &def.description);
}

fn field_schema(model: &Model, property: &Property) -> String {
    let schema = type_schema(model, &property.ty);
    if property.required {
        schema
    } else {
        format!("Schema.optional({schema})")
    }
}

fn type_schema(model: &Model, ty: &PropType) -> String {
    match ty {
        PropType::Ref(name) => {
            debug_assert!(model.kind_of(name).is_some_and(|kind| kind != Kind::Event));
            name.clone()
        }
        PropType::String => "Schema.String".into(),
        PropType::Boolean => "Schema.Boolean".into(),
        PropType::Integer => "Schema.Int".into(),
        PropType::Number => "Schema.Number".into(),
        PropType::Unknown => "Schema.Unknown".into(),
        PropType::Record => "Schema.Record(Schema.String, Schema.Unknown)".into(),
        PropType::Array(items) => format!("Schema.Array({})", type_schema(model, items)),
        PropType::NullableString => "Schema.NullOr(Schema.String)".into(),
    }
}

/// The body of `.annotate({` (already written), then the `type` beside the schema.
fn annotation(out: &mut String, name: &str, description: &str) {
    out.push_str(&string_property("  ", "identifier", name));
    out.push_str(&string_property("  ", "description", description));
    let _ = writeln!(out, "}});");
    let _ = writeln!(out, "export type {name} = typeof {name}.Type;\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated() -> Vec<GeneratedFile> {
        let root = crate::project_root();
        let model = crate::codegen::canonical_model::load(&root).unwrap();
        generate(&root, &model).unwrap()
    }

    /// The names of every `import { ... } from "./baseSchemas.ts"` in a module's text.
    fn imported_names(module: &str) -> Vec<String> {
        let from = format!("}} from \"{BASE_SCHEMAS}\";");
        let mut names = Vec::new();
        let mut rest = module;
        while let Some(end) = rest.find(&from) {
            let start = rest[..end].rfind("import {").expect("an import list before its `from`");
            names.extend(
                rest[start + "import {".len()..end]
                    .split(',')
                    .map(|name| name.trim().trim_start_matches("type ").trim())
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned),
            );
            rest = &rest[end + from.len()..];
        }
        names
    }

    /// The drop-in rule of issue 11: the module imports nothing T3 Code's `baseSchemas.ts` lacks.
    #[test]
    fn the_module_imports_only_recorded_host_exports() {
        let files = generated();
        let module = &files
            .iter()
            .find(|file| file.path.ends_with(MODULE_FILE))
            .unwrap()
            .contents;
        let imported = imported_names(module);
        assert!(imported.contains(&"EventId".to_owned()), "{imported:?}");
        let host = host_exports(&crate::project_root()).unwrap();
        let missing: Vec<_> = imported.iter().filter(|name| !host.contains(name)).collect();
        assert!(missing.is_empty(), "imported but not exported by T3 Code: {missing:?}");
        // Every id the model uses that the host lacks is defined in the module, with its own brand.
        let model = crate::codegen::canonical_model::load(&crate::project_root()).unwrap();
        let local: Vec<&str> = used_bases(&model)
            .into_iter()
            .filter(|name| !host.iter().any(|export| export == name))
            .collect();
        assert!(local.contains(&"ProviderSessionId"), "{local:?}");
        for id in local {
            assert!(!imported.iter().any(|name| name == id));
            assert!(
                module.contains(&format!(
                    "export const {id} = TrimmedNonEmptyString.pipe(Schema.brand(\"{id}\"));"
                )),
                "{id} is defined in the module"
            );
        }
    }

    #[test]
    fn a_host_name_missing_from_the_record_fails_codegen() {
        let model = crate::codegen::canonical_model::load(&crate::project_root()).unwrap();
        let host: Vec<String> = HOST_NAMES
            .iter()
            .filter(|name| **name != "RuntimeTaskId")
            .map(|name| (*name).to_owned())
            .collect();
        let err = check_host_names(&model, &host).unwrap_err().to_string();
        assert!(err.contains("RuntimeTaskId"), "{err}");
        check_host_names(&model, &host_exports(&crate::project_root()).unwrap()).unwrap();
    }

    #[test]
    fn the_reader_finds_every_imported_name() {
        let module = "import * as Schema from \"effect/Schema\";\nimport { A, type B } from \"./baseSchemas.ts\";\n\
                      import { X } from \"./other.ts\";\nimport {\n  C,\n} from \"./baseSchemas.ts\";";
        assert_eq!(imported_names(module), ["A", "B", "C"]);
    }
}
