//! The canonical model -> `generated/typescript/providerRuntime.gen.ts`.
//!
//! Effect v4 `effect/Schema` in the style of T3 Code's `packages/contracts`: `Schema.Literals`
//! enums, `Schema.Struct`s, each event `{ ...RuntimeEventBase.fields, type, payload }`, the
//! array-form `Schema.Union`, ids and `IsoDateTime` imported from `./baseSchemas.ts`, and
//! `export type X = typeof X.Type` beside every schema. Descriptions become JSDoc comments (every
//! definition and field) and `.annotate({ identifier, description })` on every definition.
//!
//! Plain text emission (no node needed); consts come in dependency order because a TypeScript
//! `const` cannot be used before its definition.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use super::GeneratedFile;
use super::canonical_model::{Kind, Model, ObjectDef, PropType, Property, SCHEMA_PATH};

/// The one file this generator writes.
pub const OUTPUT_PATH: &str = "generated/typescript/providerRuntime.gen.ts";

/// The module the ids and date-times come from (T3 Code's `baseSchemas.ts`).
const BASE_SCHEMAS: &str = "./baseSchemas.ts";

pub fn generate(model: &Model) -> Result<Vec<GeneratedFile>> {
    let mut out = super::header("//", SCHEMA_PATH);
    out.push_str(&jsdoc(
        "",
        &format!(
            "{}\n\nEffect Schema (v4) of the canonical provider-runtime event model (V2), spec/EVENTS.md section 1. \
             Ids and `IsoDateTime` come from `{BASE_SCHEMAS}` (T3 Code's contracts define them with `makeEntityId`).\n\n\
             @module providerRuntime",
            model.description
        ),
    ));
    out.push_str("import * as Schema from \"effect/Schema\";\n\n");
    let imports = base_imports(model);
    if !imports.is_empty() {
        out.push_str("import {\n");
        for name in &imports {
            let _ = writeln!(out, "  {name},");
        }
        let _ = writeln!(out, "}} from \"{BASE_SCHEMAS}\";\n");
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
        let _ = writeln!(out, "export const {} = Schema.Literals([", def.name);
        for value in &def.values {
            let _ = writeln!(out, "  {},", string(&value.value));
        }
        out.push_str("])");
        annotate(&mut out, &def.name, &def.description);
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
        out.push_str("})");
        annotate(&mut out, &event.name, &event.description);
    }

    out.push_str(&jsdoc("", &model.union.description));
    let _ = writeln!(out, "export const {} = Schema.Union([", model.union.name);
    for event in &model.events {
        let _ = writeln!(out, "  {},", event.name);
    }
    out.push_str("])");
    annotate(&mut out, &model.union.name, &model.union.description);

    out.push_str(&jsdoc(
        "",
        "The payload of each event type (spec 1.5 `RuntimeEventPayloadByType`).",
    ));
    out.push_str("export type RuntimeEventPayloadByType = {\n");
    for event in &model.events {
        let _ = writeln!(out, "  {}: {};", string(&event.event_type), event.payload);
    }
    out.push_str("};\n");

    Ok(vec![GeneratedFile {
        path: PathBuf::from(OUTPUT_PATH),
        contents: out,
    }])
}

/// The ids and date-times the file uses, in schema order.
fn base_imports(model: &Model) -> Vec<&str> {
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

fn object(out: &mut String, model: &Model, def: &ObjectDef) {
    out.push_str(&jsdoc("", &def.description));
    let _ = writeln!(out, "export const {} = Schema.Struct({{", def.name);
    for property in &def.properties {
        out.push_str(&jsdoc("  ", &property.description));
        let _ = writeln!(out, "  {}: {},", property.name, field_schema(model, property));
    }
    out.push_str("})");
    annotate(out, &def.name, &def.description);
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

/// Closes a schema expression with its annotations and writes the `type` beside it.
fn annotate(out: &mut String, name: &str, description: &str) {
    let _ = writeln!(out, ".annotate({{");
    let _ = writeln!(out, "  identifier: {},", string(name));
    let _ = writeln!(out, "  description: {},", string(description));
    let _ = writeln!(out, "}});");
    let _ = writeln!(out, "export type {name} = typeof {name}.Type;\n");
}

/// A JSDoc block at `indent` (`*/` inside the text is escaped).
fn jsdoc(indent: &str, text: &str) -> String {
    let text = text.trim().replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if let [line] = lines.as_slice() {
        return format!("{indent}/** {line} */\n");
    }
    let mut out = format!("{indent}/**\n");
    for line in lines {
        if line.is_empty() {
            let _ = writeln!(out, "{indent} *");
        } else {
            let _ = writeln!(out, "{indent} * {line}");
        }
    }
    let _ = writeln!(out, "{indent} */");
    out
}

/// A TypeScript string literal (JSON's escaping is valid TypeScript).
fn string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

#[cfg(test)]
mod tests {
    #[test]
    fn jsdoc_escapes_and_wraps() {
        assert_eq!(super::jsdoc("", "One line."), "/** One line. */\n");
        assert_eq!(
            super::jsdoc("  ", "a */ b\n\nc"),
            "  /**\n   * a *\\/ b\n   *\n   * c\n   */\n"
        );
    }
}
