//! `cargo xtask codegen`: schemas/ in, generated/ out.
//!
//! Each generator returns the complete set of files it owns, as paths relative to the workspace
//! root and their contents. This module is the only place that touches the disk: in write mode
//! it updates what changed and deletes what no generator produced any more; in check mode it
//! writes nothing and reports stale, missing and extra files (the rust-analyzer
//! `ensure_file_contents` pattern).

mod acp;
mod as_sent;
mod canonical_model;
mod canonical_rust;
mod claude_agent_sdk;
mod claude_session;
mod codex_app_server;
mod codex_exec;
mod codex_rollout;
mod copilot;
mod dispatch;
mod docs;
#[cfg(test)]
mod emitter_goldens;
mod gemini_cli;
mod names;
mod opencode;
mod passes;
mod pi;
mod prices;
mod rust_output;
mod schema_source;
mod secrets;
mod sources;
mod typescript;
pub mod typify_runner;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Whether `codegen` writes the tree or only compares it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Write,
    Check,
}

/// One file a generator owns, relative to the workspace root.
pub struct GeneratedFile {
    pub path: PathBuf,
    pub contents: String,
}

/// The folder every generator writes into; nothing else lives there.
const GENERATED_DIR: &str = "generated";

/// The command to run when `--check` finds the tree stale.
const REGENERATE: &str = "run `cargo xtask codegen` and commit the result";

pub fn run(root: &Path, mode: Mode) -> Result<()> {
    let started = std::time::Instant::now();
    let files = generate_all(root)?;
    let report = reconcile(root, &files, mode)?;
    match mode {
        Mode::Write => {
            eprintln!(
                "codegen: {} files, {} updated, {} removed in {:.2?}",
                files.len(),
                report.stale.len() + report.missing.len(),
                report.extra.len(),
                started.elapsed()
            );
            Ok(())
        }
        Mode::Check if report.is_clean() => Ok(()),
        Mode::Check => bail!("generated/ is out of date:\n{report}\n{REGENERATE}"),
    }
}

/// Runs every generator; the file set is sorted by path so the run is deterministic.
pub fn generate_all(root: &Path) -> Result<BTreeMap<PathBuf, String>> {
    let schema_path = root.join(canonical_model::SCHEMA_PATH);
    let written =
        std::fs::read_to_string(&schema_path).with_context(|| format!("reading {}", schema_path.display()))?;
    // The schema's source enums come from the source registry: the model is read from the schema
    // as it is written back, so one run leaves the tree consistent.
    let registry = sources::Registry::load(root)?;
    let schema_text = sources::apply_to_schema(&registry, &written, canonical_model::SCHEMA_PATH)?;
    let model = canonical_model::parse(&schema_text)?;
    let mut files = Vec::new();
    for source in schema_sources(root)? {
        files.extend(schema_source::generate(root, &source)?);
    }
    files.extend(canonical_rust::generate(&model, &schema_text)?);
    files.extend(typescript::generate(root, &model)?);
    files.extend(secrets::generate(root)?);
    files.extend(prices::generate(root)?);
    files.extend(sources::generate(root, &registry)?);
    files.push(GeneratedFile {
        path: PathBuf::from(canonical_model::SCHEMA_PATH),
        contents: schema_text,
    });
    let mut all = BTreeMap::new();
    for file in files {
        if all.insert(file.path.clone(), file.contents).is_some() {
            bail!("two generators wrote {}", file.path.display());
        }
    }
    Ok(all)
}

/// The provider schema sources, one generated crate each. Adding a source is a
/// [`schema_source::SchemaSource`] here.
fn schema_sources(root: &Path) -> Result<Vec<schema_source::SchemaSource>> {
    Ok(vec![
        codex_app_server::source(root)?,
        codex_exec::source(root)?,
        codex_rollout::source(root)?,
        claude_agent_sdk::source(root)?,
        claude_session::source(root)?,
        acp::source(root)?,
        gemini_cli::stream_json(root)?,
        gemini_cli::session(root)?,
        copilot::source(root)?,
        opencode::source(root)?,
        pi::source(root)?,
    ])
}

#[derive(Default)]
struct Report {
    stale: Vec<PathBuf>,
    missing: Vec<PathBuf>,
    extra: Vec<PathBuf>,
}

impl Report {
    fn is_clean(&self) -> bool {
        self.stale.is_empty() && self.missing.is_empty() && self.extra.is_empty()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (label, paths) in [
            ("stale", &self.stale),
            ("missing", &self.missing),
            ("extra", &self.extra),
        ] {
            for path in paths {
                writeln!(f, "  {label}: {}", path.display())?;
            }
        }
        Ok(())
    }
}

/// Compares the wanted files with the tree under `generated/`, and in write mode makes them equal.
fn reconcile(root: &Path, files: &BTreeMap<PathBuf, String>, mode: Mode) -> Result<Report> {
    let mut report = Report::default();
    for (path, contents) in files {
        let full = root.join(path);
        match std::fs::read_to_string(&full) {
            Ok(existing) if existing == *contents => continue,
            Ok(_) => report.stale.push(path.clone()),
            Err(_) => report.missing.push(path.clone()),
        }
        if mode == Mode::Write {
            if let Some(parent) = full.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&full, contents).with_context(|| format!("writing {}", full.display()))?;
        }
    }
    for path in files_under(root, Path::new(GENERATED_DIR))? {
        if !files.contains_key(&path) {
            if mode == Mode::Write {
                std::fs::remove_file(root.join(&path)).with_context(|| format!("removing {}", path.display()))?;
            }
            report.extra.push(path);
        }
    }
    Ok(report)
}

/// Every file below `dir` (relative to `root`), skipping build output (`target`, and `dist`, where
/// the TypeScript package's build writes) and installed packages.
fn files_under(root: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            if name == "target" || name == "node_modules" || name == typescript::DIST_DIR {
                continue;
            }
            let path = dir.join(&name);
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The first line of every generated file, in the comment syntax of its language.
pub fn header(comment: &str, source: &str) -> String {
    format!("{comment} @generated by `cargo xtask codegen` from {source}. Do not edit by hand.\n")
}

#[cfg(test)]
mod tests {
    /// `cargo test` alone catches a stale `generated/` tree.
    #[test]
    fn generated_tree_is_fresh() {
        if let Err(err) = super::run(&crate::project_root(), super::Mode::Check) {
            panic!("{err:#}");
        }
    }

    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;

    use super::{GENERATED_DIR, Mode, reconcile};

    /// The generated tree for the real `schemas/`, computed once per test process.
    fn wanted() -> &'static BTreeMap<PathBuf, String> {
        static FILES: OnceLock<BTreeMap<PathBuf, String>> = OnceLock::new();
        FILES.get_or_init(|| super::generate_all(&crate::project_root()).unwrap_or_else(|err| panic!("{err:#}")))
    }

    /// A scratch workspace root under the temp dir, unique to this process and test; removed on drop.
    struct TempRoot(PathBuf);

    impl TempRoot {
        fn new(test: &str) -> Self {
            let root = std::env::temp_dir().join(format!("agentwire-xtask-{test}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(&root).unwrap();
            TempRoot(root)
        }

        fn write(&self, files: &BTreeMap<PathBuf, String>) {
            for (path, contents) in files {
                let full = self.0.join(path);
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(full, contents).unwrap();
            }
        }
    }

    impl Drop for TempRoot {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// What the generators read: `schemas/`, and the hand-written files the source registry owns sections of.
    fn copy_inputs(to: &Path) {
        let root = crate::project_root();
        copy_tree(&root.join("schemas"), &to.join("schemas"));
        for path in super::sources::SECTIONED {
            let to = to.join(path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(root.join(path), to).unwrap();
        }
    }

    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    const EDITED: &str = "generated/codex-app-server/src/generated.rs";
    const STRAY: &str = "generated/codex-app-server/src/hand_written.rs";

    /// The files outside `generated/` a generator writes (whole, or sections of them).
    fn outside_generated(path: &Path) -> bool {
        path == Path::new(super::sources::SOURCES_D_TS)
            || path == Path::new(super::canonical_model::SCHEMA_PATH)
            || super::sources::SECTIONED
                .iter()
                .any(|sectioned| path == Path::new(sectioned))
    }

    /// The file the tests delete: the first generated file under `generated/` that is not the
    /// edited one (the hand-written files with generated sections are inputs too).
    fn deleted() -> PathBuf {
        wanted()
            .keys()
            .find(|path| path.starts_with(GENERATED_DIR) && *path != Path::new(EDITED))
            .unwrap()
            .clone()
    }

    /// Edits, deletes and adds one file in a freshly written tree.
    fn tamper(root: &Path) {
        let edited = root.join(EDITED);
        let text = std::fs::read_to_string(&edited).unwrap();
        let edit = text.replacen("pub const UPSTREAM_VERSION", "pub const  UPSTREAM_VERSION", 1);
        assert_ne!(edit, text, "the hand edit changes the file");
        std::fs::write(&edited, edit).unwrap();
        std::fs::remove_file(root.join(deleted())).unwrap();
        std::fs::write(root.join(STRAY), "// written by hand\n").unwrap();
    }

    #[test]
    fn check_reports_hand_edits_missing_and_stray_files() {
        let files = wanted();
        assert!(files.contains_key(Path::new(EDITED)), "the codex crate is generated");
        assert!(
            files
                .keys()
                .all(|path| path.starts_with(GENERATED_DIR) || outside_generated(path)),
            "generators write only generated/, the addon's sources.d.ts, the canonical schema's source \
             enums and the sections the source registry owns"
        );
        let temp = TempRoot::new("check");
        temp.write(files);
        // Build output and installed packages inside generated/ are not stray files.
        std::fs::create_dir_all(temp.0.join("generated/typescript/node_modules/x")).unwrap();
        std::fs::write(temp.0.join("generated/typescript/node_modules/x/index.js"), "").unwrap();
        std::fs::create_dir_all(temp.0.join("generated/codex-app-server/target")).unwrap();
        std::fs::write(temp.0.join("generated/codex-app-server/target/out"), "").unwrap();

        let report = reconcile(&temp.0, files, Mode::Check).unwrap();
        assert!(report.is_clean(), "a freshly written tree is clean:\n{report}");

        tamper(&temp.0);
        let report = reconcile(&temp.0, files, Mode::Check).unwrap();
        assert_eq!(report.stale, [PathBuf::from(EDITED)]);
        assert_eq!(report.missing, [deleted()]);
        assert_eq!(report.extra, [PathBuf::from(STRAY)]);
        let text = report.to_string();
        for line in [
            format!("stale: {EDITED}"),
            format!("missing: {}", deleted().display()),
            format!("extra: {STRAY}"),
        ] {
            assert!(text.contains(&line), "the report says `{line}`:\n{text}");
        }
        // Check mode writes nothing.
        assert_ne!(
            &std::fs::read_to_string(temp.0.join(EDITED)).unwrap(),
            &files[Path::new(EDITED)]
        );
        assert!(!temp.0.join(deleted()).exists());
        assert!(temp.0.join(STRAY).exists());

        // Write mode repairs all three, and the tree is clean again.
        let report = reconcile(&temp.0, files, Mode::Write).unwrap();
        assert_eq!(
            (report.stale.len(), report.missing.len(), report.extra.len()),
            (1, 1, 1)
        );
        assert!(!temp.0.join(STRAY).exists());
        let report = reconcile(&temp.0, files, Mode::Check).unwrap();
        assert!(report.is_clean(), "after a write the tree is clean:\n{report}");
    }

    #[test]
    fn check_failure_names_the_files_and_the_command_to_run() {
        // A whole scratch workspace: the real schemas and a tampered generated tree.
        let temp = TempRoot::new("run");
        copy_inputs(&temp.0);
        temp.write(wanted());
        tamper(&temp.0);

        let err = super::run(&temp.0, Mode::Check).expect_err("a tampered tree fails the check");
        let text = format!("{err:#}");
        assert!(text.contains("generated/ is out of date"), "{text}");
        assert!(text.contains(&format!("stale: {EDITED}")), "{text}");
        assert!(text.contains(&format!("missing: {}", deleted().display())), "{text}");
        assert!(text.contains(&format!("extra: {STRAY}")), "{text}");
        assert!(
            text.contains("run `cargo xtask codegen`"),
            "the error names the command to run: {text}"
        );

        super::run(&temp.0, Mode::Write).unwrap_or_else(|err| panic!("{err:#}"));
        let report = reconcile(&temp.0, wanted(), Mode::Check).unwrap();
        assert!(report.is_clean(), "`cargo xtask codegen` repairs the tree:\n{report}");
    }

    #[test]
    fn a_canonical_schema_change_updates_rust_and_typescript_together() {
        let temp = TempRoot::new("canonical");
        copy_inputs(&temp.0);
        temp.write(wanted());
        let schema_path = temp.0.join("schemas/canonical/provider-runtime.schema.json");
        let schema = std::fs::read_to_string(&schema_path).unwrap();
        // The description of `CanonicalRuntimeEventType`, which both the Rust and the TS output carry.
        let edited = schema.replacen(
            "The type of a canonical runtime event:",
            "Edited: the type of a canonical runtime event:",
            1,
        );
        assert_ne!(schema, edited, "the schema has a description to edit");
        std::fs::write(&schema_path, edited).unwrap();

        let report = reconcile(&temp.0, &super::generate_all(&temp.0).unwrap(), Mode::Check).unwrap();
        let stale: Vec<String> = report.stale.iter().map(|p| p.display().to_string()).collect();
        assert!(
            stale.contains(&"generated/canonical/src/generated.rs".to_string()),
            "Rust is stale: {stale:?}"
        );
        assert!(
            stale.contains(&"generated/typescript/providerRuntime.gen.ts".to_string()),
            "TS is stale: {stale:?}"
        );
        assert!(report.missing.is_empty() && report.extra.is_empty(), "{report}");
    }
}
