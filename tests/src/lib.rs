//! Shared helpers for the workspace-level tests: where the test data lives.

use std::path::{Path, PathBuf};

pub mod x_dispatch;

/// The `tests/` folder of the workspace, where the corpus, goldens and examples live.
pub fn tests_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (the parent of `tests/`).
pub fn workspace_root() -> PathBuf {
    tests_dir().parent().expect("tests/ has a parent").to_path_buf()
}

/// The codex app-server traces of the corpus, sorted by name.
pub fn codex_app_server_traces() -> Vec<PathBuf> {
    corpus_traces("codex-app-server")
}

/// The `.jsonl` traces of one corpus folder (`tests/corpus/<source>/`), sorted by name.
pub fn corpus_traces(source: &str) -> Vec<PathBuf> {
    let dir = tests_dir().join("corpus").join(source);
    let mut traces: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.expect("readable corpus folder").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    traces.sort();
    traces
}

/// A trace normalized exactly as `agentwire normalize FILE` does with default options: the
/// session id is UUIDv5 of the first line, every line is pushed, `finish()` settles the rest.
pub struct Normalized {
    /// The canonical events, in order.
    pub events: Vec<agentwire_canonical::ProviderRuntimeEvent>,
    /// For each event, the 1-based input line it came from (`None` for what `finish()` emitted).
    pub lines: Vec<Option<usize>>,
    /// The JSONL text `agentwire normalize` prints.
    pub jsonl: String,
}

/// Normalizes a codex app-server transcript file.
pub fn normalize_codex_app_server(path: &Path) -> Normalized {
    use agentwire::codex_app_server::CodexAppServerNormalizer;
    use agentwire::frame::LineFormat;
    use agentwire::normalizer::{Normalizer, Options};

    let text = std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let first = text.lines().next().unwrap_or_default();
    let session_id =
        agentwire_canonical::RuntimeSessionId::new(agentwire::ids::session_from_first_line(first.as_bytes()))
            .expect("a UUID is a valid id");
    let mut normalizer = CodexAppServerNormalizer::new(Options {
        session_id: Some(session_id),
        ..Options::default()
    });
    let (mut events, mut lines) = (Vec::new(), Vec::new());
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        // A problem is reported as a runtime.warning event too; the golden shows it.
        let _ = normalizer.push_line(line, LineFormat::Transcript, &mut events);
        lines.resize(events.len(), Some(index + 1));
    }
    normalizer.finish(&mut events);
    lines.resize(events.len(), None);
    let mut jsonl = String::new();
    for event in &events {
        jsonl.push_str(&serde_json::to_string(event).expect("canonical events serialize"));
        jsonl.push('\n');
    }
    Normalized { events, lines, jsonl }
}
