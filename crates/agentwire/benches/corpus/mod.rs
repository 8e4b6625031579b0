//! The corpus the benches read (`tests/corpus/<source>/*.jsonl`), shared by every bench target.

use std::path::{Path, PathBuf};

/// `tests/corpus/`, beside the workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// The traces of one source directory, in name order.
pub fn traces(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    paths.sort();
    paths
}

/// The non-blank lines of a trace.
pub fn lines(trace: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(trace).unwrap_or_else(|err| panic!("{}: {err}", trace.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_string)
        .collect()
}
