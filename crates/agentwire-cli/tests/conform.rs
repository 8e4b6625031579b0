//! `agentwire conform` end to end: the real binary on temp files and on the corpus.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/agentwire-cli is two levels below the workspace root")
        .to_path_buf()
}

fn corpus_dir() -> PathBuf {
    workspace_root().join("tests/corpus/codex-app-server")
}

/// A file under the temp dir with a name no other test (or run) uses; removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(stem: &str, contents: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "agentwire-conform-{stem}-{}-{}.jsonl",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        TempFile(path)
    }

    fn name(&self) -> &str {
        self.0.to_str().expect("temp paths are UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn agentwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .args(args)
        .output()
        .expect("running agentwire")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

fn corpus_lines(name: &str) -> Vec<String> {
    let path = corpus_dir().join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// `text.jsonl` with four bad lines after its first four (`initialize`, its response,
/// `initialized`, `thread/start`); the good lines after them include the `thread/start` response,
/// which decodes only if the request was remembered across the bad lines.
fn mixed_trace() -> (String, Vec<(usize, &'static str)>, usize) {
    let good = corpus_lines("text.jsonl");
    let thread_started = good
        .iter()
        .find(|line| line.contains(r#""method":"thread/started""#))
        .expect("text.jsonl has thread/started");
    let wrong_typed = thread_started.replacen(r#""status":{"type":"idle"}"#, r#""status":{"type":42}"#, 1);
    assert_ne!(&wrong_typed, thread_started, "the status to break is in the line");
    let truncated = &thread_started[..thread_started.len() / 2];
    let bad = [
        r#"{"dir":"in","ts":1796016305070,"msg":{"method":"thread/teleported","params":{"threadId":"t"}}}"#.to_string(),
        wrong_typed,
        truncated.to_string(),
        "this line is not JSON at all".to_string(),
    ];
    let mut lines: Vec<String> = good[..4].to_vec();
    lines.extend(bad);
    lines.extend(good[4..].iter().cloned());
    // Line numbers (1-based) of the bad lines, and what their error must say.
    let expected = vec![
        (5, "thread/teleported"),
        (6, "thread/started: at thread.status.type: "),
        (7, "not JSON: EOF while parsing"),
        (8, "not JSON: "),
    ];
    (lines.join("\n") + "\n", expected, good.len())
}

#[test]
fn bad_lines_are_reported_and_the_rest_still_counted() {
    let (contents, expected, good) = mixed_trace();
    let file = TempFile::new("mixed", &contents);
    let output = agentwire(&["conform", file.name()]);
    let out = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "stdout:\n{out}\nstderr:\n{}",
        stderr(&output)
    );

    let errors: Vec<&str> = out.lines().filter(|line| !line.ends_with(" decoded")).collect();
    assert_eq!(errors.len(), expected.len(), "one error line per bad line:\n{out}");
    for (error, (number, reason)) in errors.iter().zip(&expected) {
        let prefix = format!("{}:{number}: ", file.name());
        assert!(error.starts_with(&prefix), "`{error}` should start with `{prefix}`");
        assert!(
            error[prefix.len()..].contains(reason),
            "`{error}` should say `{reason}`"
        );
    }
    // The typed failure names the method and the JSON path, once.
    let typed = errors[1];
    assert_eq!(typed.matches("thread/started").count(), 1, "{typed}");
    // The unknown method names the method and says it is unknown.
    assert!(
        errors[0].contains("unknown") && errors[0].contains("`thread/teleported`"),
        "{}",
        errors[0]
    );

    let total = good + expected.len();
    assert_eq!(
        out.lines().last(),
        Some(format!("{}: {good}/{total} decoded", file.name()).as_str()),
        "{out}"
    );
}

#[test]
fn every_corpus_file_conforms() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("reading the corpus")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let names: Vec<&str> = files.iter().map(|path| path.to_str().unwrap()).collect();
    let output = agentwire(&[&["conform"][..], &names].concat());
    let out = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{out}\nstderr:\n{}",
        stderr(&output)
    );
    let expected: Vec<String> = files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let n = text.lines().filter(|line| !line.trim().is_empty()).count();
            assert!(n > 0, "{} is empty", path.display());
            format!("{}: {n}/{n} decoded", path.display())
        })
        .collect();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, expected);
}

#[test]
fn an_unreadable_path_exits_2_with_a_message() {
    let missing = std::env::temp_dir().join(format!("agentwire-conform-missing-{}.jsonl", std::process::id()));
    let missing = missing.to_str().unwrap();
    for args in [
        vec!["conform", missing],
        vec!["conform", "--from", "codex-app-server", missing],
    ] {
        let output = agentwire(&args);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: stderr:\n{err}");
        assert!(err.contains(missing), "the message names the path: {err}");
        assert!(
            err.to_lowercase().contains("no such file"),
            "the message says why: {err}"
        );
    }
}

#[test]
fn the_format_is_detected_or_named() {
    // Detected from the first lines, no --from needed, even when the first line is not a frame.
    let lines = corpus_lines("shell.jsonl");
    let contents = format!("garbage first line\n{}\n", lines.join("\n"));
    let file = TempFile::new("detect", &contents);
    let output = agentwire(&["conform", file.name()]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    let n = lines.len();
    let out: Vec<&str> = out.lines().collect();
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[0].starts_with(&format!("{}:1: not JSON", file.name())), "{out:?}");
    assert_eq!(out[1], format!("{}: {n}/{} decoded", file.name(), n + 1));

    // Nothing any source claims: the message names --from, and nothing is decoded.
    let unknown = TempFile::new(
        "unknown",
        "{\"type\":\"session.started\",\"id\":1}\nnot json\n{\"dir\":\"in\",\"msg\":{\"hello\":1}}\n",
    );
    let output = agentwire(&["conform", unknown.name()]);
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout:\n{}\nstderr:\n{err}",
        stdout(&output)
    );
    assert!(err.contains("--from"), "the message says to pass --from: {err}");
    assert!(err.contains(unknown.name()), "the message names the file: {err}");
    assert!(
        err.contains("codex-app-server"),
        "the message lists the known formats: {err}"
    );

    // With --from the same file is read, and its lines fail one by one.
    let output = agentwire(&["conform", "--from", "codex-app-server", unknown.name()]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert_eq!(out.lines().count(), 4, "three error lines and the count: {out}");
    assert!(out.ends_with(&format!("{}: 0/3 decoded\n", unknown.name())), "{out}");

    // An unknown --from is a usage error.
    let output = agentwire(&["conform", "--from", "nope", unknown.name()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("nope"), "{}", stderr(&output));
}
