//! Shared helpers for the workspace-level tests: where the test data lives.

use std::path::{Path, PathBuf};

/// The `tests/` folder of the workspace, where the corpus, goldens and examples live.
pub fn tests_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (the parent of `tests/`).
pub fn workspace_root() -> PathBuf {
    tests_dir().parent().expect("tests/ has a parent").to_path_buf()
}
