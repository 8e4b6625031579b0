//! `cargo xtask schema-diff`: what changed in a provider protocol between two upstream versions,
//! as a Markdown report a maintainer reads before deciding anything.
//!
//! - `schema-diff codex-app-server|acp|opencode --from V1 --to V2`: each version's schema is produced as
//!   `sync-schemas` would vendor it (installed from npm into the cache, nothing in the tree
//!   changes).
//! - `schema-diff OLD NEW`: two schema files, or folders holding one (the Codex bundle,
//!   `schema.json`, or a single `*.schema.json`); for hand-written sources and scratch copies.
//!
//! `--out FILE` writes the report to a file instead of stdout.

mod model;
mod report;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::sync_schemas;

const USAGE: &str = "\
usage: cargo xtask schema-diff codex-app-server|acp|opencode --from V1 --to V2 [--out FILE]
       cargo xtask schema-diff OLD NEW [--out FILE]   (schema files, or folders holding one)";

pub fn run(args: &[String]) -> Result<()> {
    let (args, out) = match args {
        [rest @ .., flag, file] if flag == "--out" => (rest, Some(PathBuf::from(file))),
        rest => (rest, None),
    };
    let (title, old, new) = match args {
        [source, from_flag, from, to_flag, to] if from_flag == "--from" && to_flag == "--to" => {
            let (old, new) = (versioned_schema(source, from)?, versioned_schema(source, to)?);
            (format!("{source}: {from} -> {to}"), old, new)
        }
        [old, new] => {
            let (old, new) = (schema_file(Path::new(old))?, schema_file(Path::new(new))?);
            (format!("{} -> {}", old.display(), new.display()), old, new)
        }
        _ => bail!("{USAGE}"),
    };
    let text = diff_files(&title, &old, &new)?;
    match out {
        Some(path) => std::fs::write(&path, text).with_context(|| format!("writing {}", path.display())),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// The report of the change from the schema file `old` to `new`.
pub fn diff_files(title: &str, old: &Path, new: &Path) -> Result<String> {
    let read = |path: &Path| -> Result<serde_json::Value> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
    };
    Ok(diff(title, &read(old)?, &read(new)?))
}

/// The report of the change from schema document `old` to `new`.
pub fn diff(title: &str, old: &serde_json::Value, new: &serde_json::Value) -> String {
    report::render(title, &model::Surface::read(old), &model::Surface::read(new))
}

/// The schema of a vendored source at an upstream version.
fn versioned_schema(source: &str, version: &str) -> Result<PathBuf> {
    match source {
        "codex-app-server" => sync_schemas::codex_bundle(version),
        "acp" => sync_schemas::acp_schema(version),
        "opencode" => sync_schemas::opencode_document(version),
        "claude-agent-sdk" | "codex-exec" | "codex-rollout" => bail!(
            "{source} is hand-written, so there is no schema per upstream version to fetch: pass two schema files or folders\n{USAGE}"
        ),
        other => bail!("no versioned schema source named {other:?}; known: codex-app-server, acp, opencode\n{USAGE}"),
    }
}

/// A schema file, or the one schema a folder holds.
fn schema_file(path: &Path) -> Result<PathBuf> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let entries: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("reading {}", path.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    for preferred in [sync_schemas::CODEX_BUNDLE, "schema.json"] {
        if let Some(found) = entries
            .iter()
            .find(|entry| entry.file_name().is_some_and(|n| n == preferred))
        {
            return Ok(found.clone());
        }
    }
    let schemas: Vec<&PathBuf> = entries
        .iter()
        .filter(|entry| entry.to_string_lossy().ends_with(".schema.json"))
        .collect();
    match schemas.as_slice() {
        [one] => Ok((*one).clone()),
        [] => bail!("{} holds no schema file", path.display()),
        many => bail!("{} holds {} schema files; name one", path.display(), many.len()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::diff;

    /// A small protocol: a method union, a type-tagged union, an object and an enum.
    fn base() -> Value {
        json!({
            "definitions": {
                "ServerNotification": {"oneOf": [
                    {"type": "object", "properties": {"method": {"enum": ["turn/started"]}, "params": {"$ref": "#/definitions/TurnStarted"}}},
                    {"type": "object", "properties": {"method": {"enum": ["turn/completed"]}, "params": {"$ref": "#/definitions/TurnCompleted"}}}
                ]},
                "Item": {"x-dispatch": {"tag": "type", "variants": {"message": "MessageItem", "command": "CommandItem"}}},
                "TurnStarted": {"type": "object", "required": ["threadId"], "properties": {
                    "threadId": {"type": "string"}, "model": {"type": ["string", "null"]}}},
                "TurnCompleted": {"type": "object", "required": ["status"], "properties": {"status": {"$ref": "#/definitions/TurnStatus"}}},
                "TurnStatus": {"type": "string", "enum": ["completed", "failed"]}
            }
        })
    }

    fn changed(edit: impl FnOnce(&mut Value)) -> Vec<String> {
        let mut new = base();
        edit(&mut new);
        diff("t", &base(), &new)
            .lines()
            .filter(|line| line.starts_with("- "))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_same_schema_is_no_change() {
        assert_eq!(diff("t", &base(), &base()), "# t\n\nNo change.\n");
    }

    #[test]
    fn a_method_added() {
        let lines = changed(|schema| {
            let branches = schema["definitions"]["ServerNotification"]["oneOf"]
                .as_array_mut()
                .unwrap();
            branches.push(json!({"type": "object", "properties": {"method": {"enum": ["turn/paused"]}, "params": {"$ref": "#/definitions/TurnStarted"}}}));
        });
        assert_eq!(lines, ["- `ServerNotification`: added `turn/paused` (TurnStarted)"]);
    }

    #[test]
    fn a_variant_removed() {
        let lines = changed(|schema| {
            schema["definitions"]["Item"]["x-dispatch"]["variants"]
                .as_object_mut()
                .unwrap()
                .remove("command");
        });
        assert_eq!(lines, ["- `Item`: removed `command` (CommandItem)"]);
    }

    #[test]
    fn a_field_renamed() {
        let lines = changed(|schema| {
            let properties = schema["definitions"]["TurnStarted"]["properties"]
                .as_object_mut()
                .unwrap();
            let model = properties.remove("model").unwrap();
            properties.insert("modelName".to_string(), model);
        });
        assert_eq!(
            lines,
            [
                "- `TurnStarted.modelName`: added, optional string | null",
                "- `TurnStarted.model`: removed (was string | null)",
                "- `TurnStarted`: `model` -> `modelName` looks like a rename (same type string | null)",
            ]
        );
    }

    #[test]
    fn an_enum_value_added() {
        let lines = changed(|schema| {
            schema["definitions"]["TurnStatus"]["enum"]
                .as_array_mut()
                .unwrap()
                .push(json!("interrupted"));
        });
        assert_eq!(lines, ["- `TurnStatus`: added `interrupted`"]);
    }

    #[test]
    fn requiredness_type_and_deprecation_changes() {
        let lines = changed(|schema| {
            let turn = &mut schema["definitions"]["TurnStarted"];
            turn["required"] = json!(["threadId", "model"]);
            turn["properties"]["threadId"] = json!({"type": "integer", "deprecated": true});
        });
        assert_eq!(
            lines,
            [
                "- `TurnStarted.model`: now required",
                "- `TurnStarted.threadId`: type string -> integer",
                "- `TurnStarted.threadId`: deprecated",
            ]
        );
    }

    #[test]
    fn nested_definition_maps_are_read_and_output_is_sorted() {
        let old = json!({"definitions": {"v2": {"B": {"type": "string"}, "A": {"type": "string"}}}});
        let new = json!({"definitions": {"v2": {"C": {"type": "integer"}}}});
        let report = diff("t", &old, &new);
        assert_eq!(
            report,
            "# t\n\n## Definitions\n\n- added `C` (integer)\n- removed `A` (string)\n- removed `B` (string)\n\n"
        );
    }

    /// OpenCode's vendored OpenAPI document read as `drift opencode` reads it: against itself
    /// nothing changed; against a copy with an event added and a part's field removed, both are
    /// reported.
    #[test]
    fn an_openapi_documents_components_are_compared() {
        let path = crate::project_root().join("schemas/opencode/openapi.json");
        let old: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the document")).expect("JSON");
        assert_eq!(diff("t", &old, &old), "# t\n\nNo change.\n");
        let mut new = old.clone();
        let schemas = new["components"]["schemas"]
            .as_object_mut()
            .expect("components.schemas");
        let mut paused = schemas["EventSessionIdle"].clone();
        paused["properties"]["type"]["enum"] = json!(["session.paused"]);
        schemas.insert("EventSessionPaused".into(), paused);
        schemas["StepFinishPart"]["properties"]
            .as_object_mut()
            .expect("properties")
            .remove("cost");
        let report = diff("t", &old, &new);
        assert!(report.contains("added `EventSessionPaused`"), "{report}");
        assert!(report.contains("`StepFinishPart.cost`"), "{report}");
    }
}
