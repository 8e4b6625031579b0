//! `cargo xtask drift claude [--to V]`: how far the hand-written Claude schemas are behind a
//! published Claude Code.
//!
//! Nothing vendors these schemas, so the check is run, not diffed: the Agent SDK `V` (the newest
//! by default) is installed into the cache, its Claude Code CLI (the native binary of 0.3.x, or
//! the `cli.js` of 0.2.x) is driven by the live harness's capture (`tests/typescript/live/drift/`:
//! the live tests' mock model and host, two scenarios), and what it sent and wrote is read back:
//! `agentwire conform` of the control transcripts and the session files, then every member the
//! captured messages hold that the schema's definition for them does not declare, found by
//! following the schemas' `x-dispatch` tags down from each message's root union. Nothing in the
//! tree changes; the capture stays in the cache for a look.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};
use serde_json::{Map, Value};

use crate::sync_schemas;

const PACKAGE: &str = "@anthropic-ai/claude-agent-sdk";
const SDK_SCHEMA: &str = "schemas/claude-agent-sdk/claude-agent-sdk.schema.json";
const SESSION_SCHEMA: &str = "schemas/claude-session/claude-session.schema.json";

pub fn run(root: &Path, version: &str) -> Result<()> {
    println!("# claude: the hand-written schemas against Claude Code of {PACKAGE} {version}\n");
    let prefix = sync_schemas::npm_install("claude-agent-sdk", PACKAGE, version)?;
    let cli = cli_of(&prefix).with_context(|| format!("{PACKAGE}@{version} holds no Claude Code CLI"))?;
    let out = prefix.join("drift-capture");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    capture(root, &cli, &out)?;
    let transcripts = files_under(&out.join("claude-control"));
    let sessions = files_under(&out.join("claude-session"));
    println!(
        "captured {} control transcript(s), {} session file(s) in {}\n",
        transcripts.len(),
        sessions.len(),
        out.display()
    );
    println!("## conform\n");
    conform(root, "claude-control", &transcripts)?;
    conform(root, "claude-session", &sessions)?;
    println!("\n## Members the schemas do not declare\n");
    let sdk = read_json(&root.join(SDK_SCHEMA))?;
    let session = read_json(&root.join(SESSION_SCHEMA))?;
    let schemas = Schemas {
        sdk: &sdk,
        session: &session,
    };
    let mut undeclared = BTreeMap::new();
    for path in &transcripts {
        for record in lines(path)? {
            if record["dir"] == "in" {
                schemas.walk(Side::Sdk, "ClaudeStreamLine", &record["msg"], "", &mut undeclared);
            }
        }
    }
    for path in &sessions {
        for record in lines(path)? {
            schemas.walk(Side::Session, "SessionRecord", &record, "", &mut undeclared);
        }
    }
    if undeclared.is_empty() {
        println!("none");
    }
    for (place, count) in &undeclared {
        println!("- {place} ({count}x)");
    }
    Ok(())
}

/// The CLI of an installed SDK: a platform package's native `claude`, else the bundled `cli.js`.
fn cli_of(prefix: &Path) -> Option<PathBuf> {
    let scope = prefix.join("node_modules/@anthropic-ai");
    let native = std::fs::read_dir(&scope)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("claude"))
        .find(|path| {
            path.is_file()
                && path
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|name| name.to_string_lossy().starts_with("claude-agent-sdk-"))
        });
    native.or_else(|| Some(scope.join("claude-agent-sdk/cli.js")).filter(|path| path.is_file()))
}

/// Runs the live harness's capture with `cli`, writing into `out`: the addon is built and the
/// harness's packages installed first, as `cargo xtask test` does.
fn capture(root: &Path, cli: &Path, out: &Path) -> Result<()> {
    let live = root.join("tests/typescript/live");
    let steps: [(&str, Vec<&str>, PathBuf); 2] = [
        ("node", vec!["build.mjs"], root.join("crates/agentwire-node")),
        (
            "npm",
            vec!["ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            live.clone(),
        ),
    ];
    for (program, args, dir) in steps {
        let status = Command::new(program)
            .args(&args)
            .current_dir(&dir)
            .stdout(std::io::stderr())
            .status()
            .with_context(|| format!("running {program}"))?;
        ensure!(
            status.success(),
            "{program} {} failed in {}",
            args.join(" "),
            dir.display()
        );
    }
    let status = Command::new("npx")
        .args(["vitest", "run", "--config", "drift.config.ts"])
        .current_dir(&live)
        .env("AGENTWIRE_DRIFT_CLI", cli)
        .env("AGENTWIRE_DRIFT_OUT", out)
        .stdout(std::io::stderr())
        .status()
        .context("running npx vitest")?;
    ensure!(status.success(), "the drift capture failed (its output is above)");
    Ok(())
}

/// `agentwire conform --from SOURCE` of `files`, its report printed; a file that does not
/// conform is a finding, not a failure of the check.
fn conform(root: &Path, source: &str, files: &[PathBuf]) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["run", "-q", "-p", "agentwire-cli", "--", "conform", "--from", source])
        .args(files)
        .current_dir(root)
        .output()
        .context("running agentwire conform")?;
    print!("{}", String::from_utf8_lossy(&output.stdout));
    print!("{}", String::from_utf8_lossy(&output.stderr));
    Ok(())
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
}

fn lines(path: &Path) -> Result<Vec<Value>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

/// Which schema a definition name belongs to: the session schema names the SDK's message types
/// by a reference into the other file.
#[derive(Clone, Copy)]
enum Side {
    Sdk,
    Session,
}

struct Schemas<'a> {
    sdk: &'a Value,
    session: &'a Value,
}

impl Schemas<'_> {
    fn definition(&self, side: Side, name: &str) -> Option<&Value> {
        let schema = match side {
            Side::Sdk => self.sdk,
            Side::Session => self.session,
        };
        schema["definitions"].get(name)
    }

    /// Where a `$ref` leads: its side and definition name.
    fn target(side: Side, reference: &str) -> Option<(Side, &str)> {
        let (file, name) = reference.split_once("#/definitions/")?;
        let side = if file.contains("claude-agent-sdk") {
            Side::Sdk
        } else {
            side
        };
        Some((side, name))
    }

    /// Notes every member of `value` that the definition `name` (followed through `$ref`s and
    /// `x-dispatch` tags) does not declare, by the place a reader finds it: the message's kind
    /// (its tags) and the member's path.
    fn walk(&self, side: Side, name: &str, value: &Value, place: &str, out: &mut BTreeMap<String, usize>) {
        let Some(definition) = self.definition(side, name) else {
            return;
        };
        if let Some(reference) = definition.get("$ref").and_then(Value::as_str) {
            if let Some((side, name)) = Self::target(side, reference) {
                self.walk(side, name, value, place, out);
            }
            return;
        }
        let Value::Object(members) = value else { return };
        if let Some(dispatch) = definition.get("x-dispatch") {
            let tag = dispatch["tag"].as_str().unwrap_or("type");
            let Some(found) = members.get(tag).and_then(Value::as_str) else {
                return;
            };
            let place = if place.is_empty() {
                found.to_string()
            } else {
                format!("{place}/{found}")
            };
            match dispatch["variants"].get(found).and_then(Value::as_str) {
                Some(variant) => self.walk(side, variant, value, &place, out),
                None => *out.entry(format!("`{place}`: an undeclared `{tag}`")).or_default() += 1,
            }
            return;
        }
        let Some(properties) = definition.get("properties").and_then(Value::as_object) else {
            return;
        };
        self.members(side, properties, members, place, out);
    }

    fn members(
        &self,
        side: Side,
        properties: &Map<String, Value>,
        members: &Map<String, Value>,
        place: &str,
        out: &mut BTreeMap<String, usize>,
    ) {
        for (key, member) in members {
            let Some(property) = properties.get(key) else {
                *out.entry(format!("`{place}`: member `{key}`")).or_default() += 1;
                continue;
            };
            let inner = format!("{place}.{key}");
            let (property, values): (&Value, Vec<&Value>) = match (property.get("items"), member) {
                (Some(items), Value::Array(elements)) => (items, elements.iter().collect()),
                _ => (property, vec![member]),
            };
            if let Some((side, name)) = property
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| Self::target(side, reference))
            {
                for value in values {
                    self.walk(side, name, value, &inner, out);
                }
            } else if let Some(nested) = property.get("properties").and_then(Value::as_object) {
                for value in values.into_iter().filter_map(Value::as_object) {
                    self.members(side, nested, value, &inner, out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn members_and_tags_the_schema_does_not_declare_are_found_through_dispatch_and_refs() {
        let sdk = json!({"definitions": {
            "Line": {"x-dispatch": {"tag": "type", "variants": {"system": "System", "user": "User"}}},
            "System": {"x-dispatch": {"tag": "subtype", "variants": {"init": "Init"}}},
            "Init": {"properties": {"type": {}, "subtype": {}, "model": {}, "tools": {"items": {"$ref": "#/definitions/Tool"}}}},
            "Tool": {"properties": {"name": {}}},
            "User": {"properties": {"type": {}, "message": {"properties": {"role": {}}}}}
        }});
        let session = json!({"definitions": {
            "Record": {"x-dispatch": {"tag": "type", "variants": {"user": "UserRecord"}}},
            "UserRecord": {"properties": {"type": {}, "message": {"$ref": "../claude-agent-sdk/x.schema.json#/definitions/User"}}}
        }});
        let schemas = Schemas {
            sdk: &sdk,
            session: &session,
        };
        let mut found = BTreeMap::new();
        let init = json!({"type": "system", "subtype": "init", "model": "m", "cwd": "/", "tools": [{"name": "Bash", "kind": "x"}]});
        schemas.walk(Side::Sdk, "Line", &init, "", &mut found);
        schemas.walk(
            Side::Sdk,
            "Line",
            &json!({"type": "system", "subtype": "status"}),
            "",
            &mut found,
        );
        let record =
            json!({"type": "user", "message": {"type": "user", "message": {"role": "user", "extra": 1}}, "slug": "s"});
        schemas.walk(Side::Session, "Record", &record, "", &mut found);
        let found: Vec<&str> = found.keys().map(String::as_str).collect();
        assert_eq!(
            found,
            [
                "`system/init.tools`: member `kind`",
                "`system/init`: member `cwd`",
                "`system/status`: an undeclared `subtype`",
                "`user.message.message`: member `extra`",
                "`user`: member `slug`",
            ]
        );
    }
}
