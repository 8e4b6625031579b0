//! `cargo xtask codegen`: schemas/ in, generated/ out.
//!
//! Each generator returns the complete set of files it owns, as paths relative to the workspace
//! root and their contents. This module is the only place that touches the disk: in write mode
//! it updates what changed and deletes what no generator produced any more; in check mode it
//! writes nothing and reports stale, missing and extra files (the rust-analyzer
//! `ensure_file_contents` pattern).

mod canonical_model;
mod canonical_rust;
mod codex_app_server;
mod rust_output;
mod typescript;

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
    let model = canonical_model::load(root)?;
    let mut all = BTreeMap::new();
    for file in codex_app_server::generate(root)?
        .into_iter()
        .chain(canonical_rust::generate(&model)?)
        .chain(typescript::generate(&model)?)
    {
        if all.insert(file.path.clone(), file.contents).is_some() {
            bail!("two generators wrote {}", file.path.display());
        }
    }
    Ok(all)
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

/// Every file below `dir` (relative to `root`), skipping build output and installed packages.
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
            if name == "target" || name == "node_modules" {
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
}
