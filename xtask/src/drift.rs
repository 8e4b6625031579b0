//! `cargo xtask drift [SOURCE|--all] [--to V]`: the maintainer's one command when upstream moves.
//!
//! For each vendored source it finds the newest published upstream version (or `--to V`), copies
//! the workspace's tracked files into a scratch folder, vendors that version's schema there,
//! prints the `schema-diff` against the pinned one, regenerates, runs `cargo check`, and lists
//! the lines of the mapping crate that no longer compile (the decisions the new version needs),
//! then runs `conform` of the corpus against the new types when the workspace still builds.
//! Nothing in the real tree changes. Hand-written sources report the upstream version they follow
//! and whether a newer one is published (`sync-schemas`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

use crate::{codegen, schema_diff, sync_schemas};

mod claude;

const USAGE: &str = "usage: cargo xtask drift [codex-app-server|acp|opencode|claude|--all] [--to V]";

/// A vendored source drift can follow: where its schema lives and how to vendor a version.
struct Vendored {
    name: &'static str,
    package: &'static str,
    /// The schema file the generator reads, relative to the workspace root.
    schema: &'static str,
    /// The sources whose corpus (`tests/corpus/<source>`) `conform` reads against the new types.
    corpora: &'static [&'static str],
}

const VENDORED: [Vendored; 3] = [
    Vendored {
        name: "codex-app-server",
        package: "@openai/codex",
        schema: "schemas/codex-app-server/codex_app_server_protocol.schemas.json",
        corpora: &["codex-app-server"],
    },
    Vendored {
        name: "acp",
        package: "@agentclientprotocol/sdk",
        schema: "schemas/acp/schema.json",
        corpora: &["acp"],
    },
    // `opencode run --format json` prints the document's `Part` and `session.error` union.
    Vendored {
        name: "opencode",
        package: "opencode-ai",
        schema: "schemas/opencode/openapi.json",
        corpora: &["opencode", "opencode-run"],
    },
];

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let (which, to) = match args {
        [] => ("--all", None),
        [which] => (which.as_str(), None),
        [which, flag, version] if flag == "--to" => (which.as_str(), Some(version.as_str())),
        _ => bail!("{USAGE}"),
    };
    if which == "claude" {
        let version = match to {
            Some(version) => version.to_string(),
            None => newest_version("@anthropic-ai/claude-agent-sdk")?,
        };
        return claude::run(root, &version);
    }
    let sources: Vec<&Vendored> = match which {
        "--all" => VENDORED.iter().collect(),
        name => vec![VENDORED.iter().find(|source| source.name == name).with_context(|| {
            format!("no vendored source named {name:?}; known: codex-app-server, acp, opencode, claude\n{USAGE}")
        })?],
    };
    for source in sources {
        let version = match to {
            Some(version) => version.to_string(),
            None => newest_version(source.package)?,
        };
        drift_one(root, source, &version)?;
    }
    if which == "--all" {
        sync_schemas::report_hand_written_sources();
    }
    Ok(())
}

/// The newest published version of an npm package.
fn newest_version(package: &str) -> Result<String> {
    let output = Command::new("npm")
        .args(["view", package, "version"])
        .output()
        .context("running npm view (is node installed?)")?;
    ensure!(output.status.success(), "npm view {package} version failed");
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn drift_one(root: &Path, source: &Vendored, version: &str) -> Result<()> {
    println!("# {}: the pinned schema -> {version}\n", source.name);
    let scratch = scratch_workspace(root, &format!("drift-{}-{version}", source.name))?;
    sync_schemas::run(
        &scratch,
        &[source.name.to_string(), "--version".to_string(), version.to_string()],
    )?;
    let diff = schema_diff::diff_files(
        &format!("{} schema diff", source.name),
        &root.join(source.schema),
        &scratch.join(source.schema),
    )?;
    // The diff's own sections sit one level below this report's.
    println!("{}", diff.replacen("# ", "## ", 1).replace("\n## ", "\n### "));
    println!("## Generator decisions (shape unions the new schema adds or drops)\n");
    codegen::typify_runner::SHAPE_UNION_PROBLEMS_ARE_DECISIONS.store(true, std::sync::atomic::Ordering::Relaxed);
    let report = check_scratch(&scratch, root, &["--workspace", "--all-targets"])?;
    println!();
    println!("{}", report.render());
    if report.errors.is_empty() {
        conform(&scratch, root, source)?;
    } else {
        println!("conform skipped: the workspace does not build against {version}; decide the lines above first\n");
    }
    println!("scratch workspace: {}", scratch.display());
    Ok(())
}

/// A fresh copy of the workspace's tracked files (no `target/`, no `.git`) in the cache.
pub fn scratch_workspace(root: &Path, name: &str) -> Result<PathBuf> {
    let scratch = root.join("target").join("scratch").join(name);
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    let output = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .context("running git ls-files")?;
    ensure!(output.status.success(), "git ls-files failed");
    for file in output.stdout.split(|byte| *byte == 0).filter(|name| !name.is_empty()) {
        let relative = Path::new(std::str::from_utf8(file).context("a non-UTF-8 path")?);
        let from = root.join(relative);
        if !from.is_file() {
            continue; // deleted in the working tree
        }
        let to = scratch.join(relative);
        std::fs::create_dir_all(to.parent().expect("a file has a parent"))?;
        std::fs::copy(&from, &to).with_context(|| format!("copying {}", from.display()))?;
    }
    Ok(scratch)
}

/// One compiler error: where, its code, what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub file: String,
    pub line: u32,
    pub code: String,
    pub message: String,
}

/// The outcome of building a scratch workspace after regenerating it.
pub struct CheckReport {
    pub errors: Vec<CompileError>,
}

impl CheckReport {
    fn render(&self) -> String {
        if self.errors.is_empty() {
            return "## cargo check\n\nThe workspace builds: the mapping needs no decision.\n".to_string();
        }
        let mut out = String::from("## Mapping lines that need a decision\n\n");
        for error in &self.errors {
            out.push_str(&format!(
                "- {}:{}: {} {}\n",
                error.file, error.line, error.code, error.message
            ));
        }
        out
    }
}

/// Regenerates `scratch` and runs `cargo check` there on `what` (`--workspace`, `-p agentwire`,
/// ...), in a target folder under the real one's so the dependencies build once across runs;
/// returns the errors by file and line.
pub fn check_scratch(scratch: &Path, root: &Path, what: &[&str]) -> Result<CheckReport> {
    codegen::run(scratch, codegen::Mode::Write)?;
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("check")
        .args(what)
        .args(["--offline", "--message-format", "short"])
        .current_dir(scratch)
        .env("CARGO_TARGET_DIR", root.join("target").join("scratch-target"))
        .output()
        .context("running cargo check in the scratch workspace")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors = parse_errors(&stderr);
    ensure!(
        output.status.success() || !errors.is_empty(),
        "cargo check failed without a located error:\n{stderr}"
    );
    Ok(CheckReport { errors })
}

/// `path:line:col: error[E0004]: message` lines of `--message-format short`.
pub fn parse_errors(stderr: &str) -> Vec<CompileError> {
    stderr
        .lines()
        .filter_map(|line| {
            let (location, rest) = line.split_once(": error")?;
            let mut parts = location.rsplitn(3, ':');
            let (_column, line_number, file) = (parts.next()?, parts.next()?, parts.next()?);
            let (code, message) = match rest.strip_prefix('[') {
                Some(rest) => {
                    let (code, message) = rest.split_once("]: ")?;
                    (code.to_string(), message.to_string())
                }
                None => (String::new(), rest.trim_start_matches(": ").to_string()),
            };
            Some(CompileError {
                file: file.to_string(),
                line: line_number.parse().ok()?,
                code,
                message,
            })
        })
        .collect()
}

/// `agentwire conform` of the sources' corpora, built in the scratch workspace.
fn conform(scratch: &Path, root: &Path, source: &Vendored) -> Result<()> {
    println!("## conform of the corpus against the new types\n");
    for corpus in source.corpora {
        let folder = format!("tests/corpus/{corpus}");
        let mut traces: Vec<PathBuf> = std::fs::read_dir(scratch.join(&folder))
            .with_context(|| format!("reading {folder}"))?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        traces.sort();
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "run",
                "-q",
                "--offline",
                "-p",
                "agentwire-cli",
                "--",
                "conform",
                "--from",
                corpus,
            ])
            .args(&traces)
            .current_dir(scratch)
            .env("CARGO_TARGET_DIR", root.join("target").join("scratch-target"))
            .output()
            .context("running agentwire conform in the scratch workspace")?;
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let line = line.strip_prefix(&format!("{}/", scratch.display())).unwrap_or(line);
            println!("    {line}");
        }
    }
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{CompileError, check_scratch, parse_errors, scratch_workspace};

    /// Regenerates a scratch copy of the workspace from the vendored Codex bundle changed by
    /// `edit`, and returns the mapping crate's compile errors.
    fn errors_after(name: &str, edit: impl FnOnce(&mut Value)) -> Vec<CompileError> {
        let root = crate::project_root();
        let scratch = scratch_workspace(&root, name).expect("a scratch workspace");
        let bundle = scratch.join("schemas/codex-app-server/codex_app_server_protocol.schemas.json");
        let mut schema: Value =
            serde_json::from_str(&std::fs::read_to_string(&bundle).expect("the bundle")).expect("JSON");
        edit(&mut schema);
        std::fs::write(&bundle, serde_json::to_string_pretty(&schema).expect("JSON")).expect("write the bundle");
        let report = check_scratch(&scratch, &root, &["-p", "agentwire"]).expect("cargo check ran");
        std::fs::remove_dir_all(&scratch).ok();
        report.errors
    }

    fn notifications(schema: &mut Value) -> &mut Vec<Value> {
        schema["definitions"]["ServerNotification"]["oneOf"]
            .as_array_mut()
            .expect("ServerNotification is a oneOf")
    }

    fn assert_decision_needed(errors: &[CompileError], code: &str, needle: &str) {
        let file = "crates/sources/codex/src/app_server/notifications.rs";
        assert!(
            errors
                .iter()
                .any(|error| error.file == file && error.code == code && error.message.contains(needle)),
            "expected {code} mentioning {needle:?} in {file}, got {errors:#?}"
        );
    }

    /// The promise of the workspace: a protocol change breaks the build at the line of the
    /// mapping that must decide. Expensive (it builds the mapping crate three times in a scratch
    /// copy); `cargo test` and `.ci/run` still run it.
    #[test]
    fn upstream_changes_break_the_build_where_the_mapping_decides() {
        let added = errors_after("compile-fail-method-added", |schema| {
            let mut branch = notifications(schema)
                .iter()
                .find(|branch| branch["properties"]["method"]["enum"][0] == "turn/started")
                .expect("turn/started")
                .clone();
            branch["properties"]["method"]["enum"] = json!(["turn/paused"]);
            branch["properties"]["method"]["title"] = json!("TurnPausedNotificationMethod");
            branch["title"] = json!("TurnPausedNotification");
            notifications(schema).push(branch);
        });
        assert_decision_needed(&added, "E0004", "TurnPaused");

        let removed = errors_after("compile-fail-method-removed", |schema| {
            notifications(schema).retain(|branch| branch["properties"]["method"]["enum"][0] != "thread/archived");
        });
        assert_decision_needed(&removed, "E0599", "ThreadArchived");

        let renamed = errors_after("compile-fail-field-renamed", |schema| {
            let payload = &mut schema["definitions"]["v2"]["TurnDiffUpdatedNotification"];
            let properties = payload["properties"].as_object_mut().expect("properties");
            let diff = properties.remove("diff").expect("a diff field");
            properties.insert("unifiedDiff".to_string(), diff);
            let required = payload["required"].as_array_mut().expect("required");
            required.retain(|name| name != "diff");
            required.push(json!("unifiedDiff"));
        });
        assert_decision_needed(&renamed, "E0609", "diff");
    }

    #[test]
    fn compiler_errors_are_read_by_file_line_and_code() {
        let stderr = "\
    Checking agentwire v0.1.0 (/x)
crates/sources/codex/src/app_server/notifications.rs:47:15: error[E0004]: non-exhaustive patterns: `&ServerNotification::TurnPaused { .. }` not covered
crates/sources/codex/src/x.rs:3:1: error: cannot find macro `oops` in this scope
warning: unused import
error: could not compile `agentwire` (lib) due to 2 previous errors";
        assert_eq!(
            parse_errors(stderr),
            [
                CompileError {
                    file: "crates/sources/codex/src/app_server/notifications.rs".into(),
                    line: 47,
                    code: "E0004".into(),
                    message: "non-exhaustive patterns: `&ServerNotification::TurnPaused { .. }` not covered".into(),
                },
                CompileError {
                    file: "crates/sources/codex/src/x.rs".into(),
                    line: 3,
                    code: String::new(),
                    message: "cannot find macro `oops` in this scope".into(),
                },
            ]
        );
    }
}
