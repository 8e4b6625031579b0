//! Shared helpers for the workspace-level tests: where the test data lives, normalizing a trace
//! exactly as `agentwire normalize FILE` does, and the [`scenario::Scenario`] helper the scenario
//! tests of every source share.
//!
//! Everything here takes a [`Source`]: the corpus of a source is `tests/corpus/<name>/`, its
//! goldens `tests/golden/<name>/`, so a new source adds its traces and its scenario assertions
//! and the goldens and invariants cover it.

pub mod round_trip;
pub mod scenario;
pub mod x_dispatch;

use std::path::{Path, PathBuf};

use agentwire::frame::LineFormat;
use agentwire::normalizer::{Normalizer, Options};
use agentwire::source::Source;
use agentwire_canonical::WriteJson;

/// The `tests/` folder of the workspace, where the corpus, goldens and examples live.
pub fn tests_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (the parent of `tests/`).
pub fn workspace_root() -> PathBuf {
    tests_dir().parent().expect("tests/ has a parent").to_path_buf()
}

/// The corpus folder of `source`: `tests/corpus/<source name>`.
pub fn corpus_dir(source: Source) -> PathBuf {
    tests_dir().join("corpus").join(source.name())
}

/// The golden folder of `source`: `tests/golden/<source name>`.
pub fn golden_dir(source: Source) -> PathBuf {
    tests_dir().join("golden").join(source.name())
}

/// The traces of `source` (`tests/corpus/<source name>/**/*.jsonl`), sorted by name; none when
/// the source has no corpus folder yet (the harness's trace-count test says so). A file that
/// belongs to another (a subagent's, one of the source's `companions`) is read with it, not on
/// its own.
pub fn traces(source: Source) -> Vec<PathBuf> {
    let mut traces = corpus_traces(source.name());
    // A source whose files are one JSON document each (`opencode export`): its `*.json` files.
    if source.spec().files.document.is_some() {
        traces.extend(corpus_files(source.name(), "json"));
        traces.sort();
    }
    if let Some(companions) = &source.spec().files.companions {
        traces.retain(|path| !(companions.belongs)(path));
    }
    traces
}

/// The stores of the corpus (a database of many sessions), by the name of the source that reads
/// them: the file under `tests/corpus/`.
const STORES: &[(&str, &str)] = &[("opencode-session", "opencode-store/opencode.db")];

/// A session of a store of the corpus that no document of the source's corpus shows as the store
/// does (OpenCode's v2 sessions: `opencode export` lists none of their `session_message` rows).
/// The other sessions of the store are their documents' traces byte for byte, which
/// `crates/agentwire-cli/tests/import_store.rs` checks.
pub struct StoreTrace {
    /// `store/<name>`: `<name>` the trace name of the corpus document of the same session (the
    /// same first frame), else the session's key in the store. Its golden is
    /// `tests/golden/<source>/store/<name>.jsonl`.
    pub name: String,
    /// The session's document as the store writes it, one frame a line (whitespace between
    /// frames changes no frame), so each event's input line is its frame.
    pub text: String,
}

/// The sessions of the stores of `source` that only the store shows ([`StoreTrace`]), in the
/// store's order; none for a source that keeps no store.
pub fn store_traces(source: Source) -> Vec<StoreTrace> {
    let (Some(store), Some(document)) = (&source.spec().files.store, &source.spec().files.document) else {
        return Vec::new();
    };
    let documents: Vec<(String, String)> = traces(source)
        .iter()
        .map(|path| {
            let text = trace_text(source, path);
            let first = frames(source, &text).into_iter().next().map(|frame| frame.text);
            (first.unwrap_or_default(), trace_name(path))
        })
        .collect();
    let mut found = Vec::new();
    for (_, file) in STORES.iter().filter(|(name, _)| *name == source.name()) {
        let path = tests_dir().join("corpus").join(file);
        let sessions = (store.sessions)(&path).unwrap_or_else(|err| panic!("{err}"));
        for session in sessions {
            let compact = (store.document)(&path, &session.key).unwrap_or_else(|err| panic!("{err}"));
            let text = frame_a_line(&compact, document);
            let first = frames(source, &text).into_iter().next().map(|frame| frame.text);
            let same = documents.iter().find(|(text, _)| Some(text) == first.as_ref());
            if let Some((_, name)) = same {
                let path = traces(source).into_iter().find(|path| trace_name(path) == *name);
                let shown =
                    path.is_some_and(|path| normalize(source, &path).jsonl == normalize_text(source, &text).jsonl);
                if shown {
                    continue;
                }
            }
            let name = same.map_or(session.key.clone(), |(_, name)| name.clone());
            found.push(StoreTrace {
                name: format!("store/{name}"),
                text,
            });
        }
    }
    found
}

/// A one-line document with a line break before each element of its `each` array.
fn frame_a_line(compact: &str, document: &agentwire::document::Document) -> String {
    let split = agentwire::document::split(compact, document);
    assert!(split.broken.is_none(), "a store's document reads whole");
    let mut text = String::with_capacity(compact.len() + split.pieces.len());
    let mut at = 0;
    for piece in split.pieces.iter().skip(1) {
        let start = at
            + compact[at..]
                .find(&piece.text)
                .unwrap_or_else(|| panic!("a frame of a store's document is no part of it: {}", piece.text));
        text.push_str(&compact[at..start]);
        text.push('\n');
        text.push_str(&piece.text);
        at = start + piece.text.len();
    }
    text.push_str(&compact[at..]);
    text
}

/// The traces of one corpus folder (`tests/corpus/<folder>/**/*.jsonl`), sorted by name: also for
/// folders whose schema is tested before its source is normalized. A source whose program keeps
/// its files in folders of its own (Gemini CLI's `<project>/chats/`) keeps that layout here.
pub fn corpus_traces(folder: &str) -> Vec<PathBuf> {
    corpus_files(folder, "jsonl")
}

/// The files of one corpus folder whose name ends in `.<extension>`, sorted by name.
fn corpus_files(folder: &str, extension: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, extension: &str, traces: &mut Vec<PathBuf>) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return,
            Err(err) => panic!("{}: {err}", dir.display()),
        };
        for entry in entries {
            let path = entry.expect("readable corpus folder").path();
            if path.is_dir() {
                walk(&path, extension, traces);
            } else if path.extension().is_some_and(|ext| ext == extension) {
                traces.push(path);
            }
        }
    }
    let mut traces = Vec::new();
    walk(&tests_dir().join("corpus").join(folder), extension, &mut traces);
    traces.sort();
    traces
}

/// The name of a trace or golden: its path under its corpus (or golden) folder without `.jsonl`
/// (`plain`, or `plain/plain/chats/session-...` for a trace in its program's own layout).
pub fn trace_name(path: &Path) -> String {
    let under = ["corpus", "golden"]
        .iter()
        .find_map(|root| path.strip_prefix(tests_dir().join(root)).ok())
        .map(|relative| relative.components().skip(1).collect::<PathBuf>())
        .filter(|relative| !relative.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from(path.file_name().expect("a file name")));
    under.with_extension("").to_string_lossy().into_owned()
}

/// The text of a trace as `agentwire normalize FILE` reads it: the file, with the files that
/// belong to it (the source's `companions`) merged in by time.
pub fn trace_text(source: Source, path: &Path) -> String {
    let text = match &source.spec().files.companions {
        Some(companions) => agentwire::companions::joined(path, &(companions.of)(path)).and_then(|mut joined| {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut joined, &mut text).map(|_| text)
        }),
        None => std::fs::read_to_string(path),
    };
    text.unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// A trace normalized exactly as `agentwire normalize --from <source> FILE` does with default
/// options: the library derives the session id from the first line, the line format comes from
/// the first non-blank line, every non-blank line is pushed, `finish()` settles the rest.
pub struct Normalized {
    /// The canonical events, in order.
    pub events: Vec<agentwire_canonical::ProviderRuntimeEvent>,
    /// For each event, the 1-based input line whose push emitted it (`None` for what `finish()`
    /// emitted). An event held until the stream gave a time counts for the line that let it out.
    pub lines: Vec<Option<usize>>,
    /// The JSONL text `agentwire normalize` prints.
    pub jsonl: String,
}

/// Normalizes a trace file of `source` (with its companions, as [`trace_text`] reads it).
pub fn normalize(source: Source, path: &Path) -> Normalized {
    normalize_text(source, &trace_text(source, path))
}

/// Normalizes the text of a trace of `source` (for tests that alter a trace before reading it).
pub fn normalize_text(source: Source, text: &str) -> Normalized {
    let frames = frames(source, text);
    let format = line_format(source, &frames);
    let mut normalizer = source.normalizer(Options::default());
    let (mut events, mut lines) = (Vec::new(), Vec::new());
    for frame in &frames {
        // A problem is reported as a runtime.warning event too; the golden shows it.
        match &frame.unreadable {
            Some(reason) => normalizer.push_unreadable(&frame.text, reason, &mut events),
            None => drop(normalizer.push_line(&frame.text, format, &mut events)),
        }
        lines.resize(events.len(), Some(frame.line));
    }
    normalizer.finish(&mut events);
    lines.resize(events.len(), None);
    let mut jsonl = Vec::new();
    for event in &events {
        // Written as the CLI writes it, and held to what `Serialize` writes.
        let start = jsonl.len();
        event.write_json(&mut jsonl).expect("canonical events write");
        let serialized = serde_json::to_string(event).expect("canonical events serialize");
        assert_eq!(
            std::str::from_utf8(&jsonl[start..]).expect("UTF-8"),
            serialized,
            "{}: WriteJson and Serialize disagree",
            source.name()
        );
        jsonl.push(b'\n');
    }
    let jsonl = String::from_utf8(jsonl).expect("UTF-8");
    Normalized { events, lines, jsonl }
}

/// A normalizer that has read the text of a trace of `source` and not finished it: the session
/// so far, as a host holds it while a request waits for its answer.
pub fn normalizer_after(source: Source, text: &str) -> Box<dyn Normalizer> {
    let frames = frames(source, text);
    let format = line_format(source, &frames);
    let mut normalizer = source.normalizer(Options::default());
    let mut events = Vec::new();
    for frame in &frames {
        let _ = normalizer.push_line(&frame.text, format, &mut events);
    }
    normalizer
}

/// One frame of a trace as `agentwire normalize` hands it to the normalizer: a non-blank line, or
/// a frame of a document.
pub struct TraceFrame {
    /// The 1-based line of the trace where it begins.
    pub line: usize,
    /// Its text, on one line.
    pub text: String,
    /// Why it cannot be read, when the reader knows (the rest of a document cut short).
    pub unreadable: Option<String>,
}

/// The frames of the text of a trace of `source`: its non-blank lines, or, for a source whose
/// files are one JSON document each, the document's frames as `agentwire normalize` cuts them.
pub fn frames(source: Source, text: &str) -> Vec<TraceFrame> {
    match &source.spec().files.document {
        Some(shape) => {
            let split = agentwire::document::split(text, shape);
            let mut frames: Vec<TraceFrame> = split
                .pieces
                .into_iter()
                .map(|piece| TraceFrame {
                    line: piece.line,
                    text: piece.text,
                    unreadable: None,
                })
                .collect();
            frames.extend(split.broken.map(|broken| TraceFrame {
                line: broken.line,
                text: broken.rest,
                unreadable: Some(broken.reason),
            }));
            frames
        }
        None => text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(index, line)| TraceFrame {
                line: index + 1,
                text: line.to_string(),
                unreadable: None,
            })
            .collect(),
    }
}

/// The line format of a trace's frames: a document's are bare messages, else the first line's.
pub fn line_format(source: Source, frames: &[TraceFrame]) -> LineFormat {
    match (&source.spec().files.document, frames.first()) {
        (Some(_), _) => LineFormat::Bare,
        (None, Some(first)) => LineFormat::of(&first.text),
        (None, None) => LineFormat::Transcript,
    }
}

/// A provider message as the library carries it in `raw` by default: with its credentials
/// redacted ([`agentwire::secrets`]).
pub fn carried_by_default(message: &str) -> String {
    serde_json::value::RawValue::from_string(message.to_string())
        .ok()
        .and_then(|raw| agentwire::secrets::redact_raw(&raw))
        .map_or_else(|| message.to_string(), |raw| raw.get().to_string())
}
