//! The source crates' modules, for the tests that read their code (`text_reads.rs`,
//! `turn_events.rs`).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, as (module path like `codex::app_server::requests`, file); a
/// crate's `lib.rs` is the module `prefix` itself.
fn modules(dir: &Path, prefix: &str, into: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        let stem = path.file_stem().expect("a name").to_string_lossy().into_owned();
        if path.is_dir() {
            modules(&path, &format!("{prefix}::{stem}"), into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let module = if stem == "lib" {
                prefix.to_string()
            } else {
                format!("{prefix}::{stem}")
            };
            into.push((module, path));
        }
    }
}

/// Every module of every source crate, named `<crate folder>::<module path>`.
pub fn source_modules() -> Vec<(String, PathBuf)> {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sources");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&sources).expect("crates/sources") {
        let dir = entry.expect("an entry").path();
        let name = dir.file_name().expect("a name").to_string_lossy().into_owned();
        modules(&dir.join("src"), &name, &mut files);
    }
    files.sort();
    files
}

/// Whether a module is compiled for tests only (`#[cfg(test)]`): what it builds feeds a test and
/// is no part of the mapping.
pub fn is_test_module(item: &syn::ItemMod) -> bool {
    item.attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|arg| arg == "test"))
}
