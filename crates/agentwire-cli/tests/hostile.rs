//! Hostile input: every case the README's "Bad input" section lists, each inserted into a real
//! trace. None panics, none stops the stream (the lines after it still map), nothing is dropped
//! silently (a warning event and a `FILE:LINE` message name it), and the exit status says
//! whether a line could not be read at all.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agentwire");

fn corpus_lines() -> Vec<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/codex-app-server/text.jsonl");
    std::fs::read(path)
        .expect("the corpus")
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

struct Outcome {
    code: i32,
    events: Vec<Value>,
    stderr: String,
}

impl Outcome {
    fn warnings(&self) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == "runtime.warning").collect()
    }

    fn count(&self, kind: &str) -> usize {
        self.events.iter().filter(|e| e["type"] == kind).count()
    }

    /// The trace still ends as it should: its turn completed, the session stopped.
    fn assert_stream_went_on(&self, case: &str) {
        assert_eq!(
            self.count("turn.completed"),
            1,
            "{case}: the lines after it still map: {}",
            self.stderr
        );
        let last = self.events.last().expect("events");
        assert_eq!(last["type"], "session.state.changed", "{case}");
    }
}

/// Normalizes the corpus trace `text.jsonl` with `bad` inserted as line `at` (1-based).
fn run_with(tag: &str, at: usize, bad: &[u8]) -> Outcome {
    let mut lines = corpus_lines();
    lines.insert(at - 1, bad.to_vec());
    run_bytes(tag, &lines.join(&b'\n'))
}

fn run_bytes(tag: &str, bytes: &[u8]) -> Outcome {
    let name: String = tag
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let path = std::env::temp_dir().join(format!("agentwire-hostile-{name}-{}.jsonl", std::process::id()));
    std::fs::write(&path, bytes).expect("a temp file");
    let output = Command::new(BIN)
        .args(["normalize", "--from", "codex-app-server"])
        .arg(&path)
        .output()
        .expect("run agentwire");
    std::fs::remove_file(&path).ok();
    let code = output.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "{tag}: exit {code} (a crash?): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let events = String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each output line is JSON"))
        .collect();
    Outcome {
        code,
        events,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn record(msg: &str) -> Vec<u8> {
    format!(r#"{{"dir":"in","ts":1796016305100,"msg":{msg}}}"#).into_bytes()
}

#[test]
fn unreadable_lines_warn_and_exit_1() {
    for (case, bad) in [
        ("not JSON", b"hello there".to_vec()),
        ("invalid UTF-8", b"{\"dir\":\"in\",\"msg\":\"\xff\xfe\"}".to_vec()),
        ("a NUL byte", b"{\"dir\":\"in\",\0\"msg\":{}}".to_vec()),
        (
            "dir missing",
            br#"{"ts":1,"msg":{"method":"warning","params":{"message":"x"}}}"#.to_vec(),
        ),
        (
            "dir wrong",
            br#"{"dir":"sideways","ts":1,"msg":{"method":"warning","params":{"message":"x"}}}"#.to_vec(),
        ),
        (
            "nesting 100k deep",
            format!(
                r#"{{"dir":"in","ts":1,"msg":{{"method":"warning","params":{{"message":{}{}}}}}}}"#,
                "[".repeat(100_000),
                "]".repeat(100_000)
            )
            .into_bytes(),
        ),
    ] {
        let outcome = run_with(case, 3, &bad);
        assert_eq!(outcome.code, 1, "{case}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(":3: "),
            "{case}: the line is named: {}",
            outcome.stderr
        );
        assert_eq!(outcome.warnings().len(), 1, "{case}");
        outcome.assert_stream_went_on(case);
    }
}

#[test]
fn a_truncated_last_line_is_reported() {
    let mut lines = corpus_lines();
    let last = lines.pop().expect("a line");
    lines.push(last[..last.len() / 2].to_vec());
    let outcome = run_bytes("truncated", &lines.join(&b'\n'));
    assert_eq!(outcome.code, 1);
    assert!(outcome.stderr.contains("not JSON"), "{}", outcome.stderr);
    assert_eq!(outcome.warnings().len(), 1);
    // The turn's completion was the cut line: finish() settles the turn instead.
    assert_eq!(outcome.count("turn.aborted"), 1);
}

#[test]
fn blank_lines_crlf_and_a_bom_are_no_problem() {
    let lines = corpus_lines();
    let clean = run_bytes("clean", &lines.join(&b'\n'));
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    for line in &lines {
        bytes.extend_from_slice(line);
        bytes.extend_from_slice(b"\r\n\r\n   \n");
    }
    let messy = run_bytes("messy", &bytes);
    assert_eq!(messy.code, 0, "{}", messy.stderr);
    assert!(messy.warnings().is_empty(), "{:?}", messy.warnings());
    assert_eq!(messy.events.len(), clean.events.len());
    for (messy, clean) in messy.events.iter().zip(&clean.events) {
        assert_eq!(messy["type"], clean["type"]);
        assert_eq!(messy["payload"], clean["payload"]);
    }
}

#[test]
fn undecodable_messages_warn_and_exit_0() {
    let big_number = r#"{"id":18446744073709551616999,"result":{}}"#;
    for (case, msg) in [
        ("a number beyond u64", big_number.to_string()),
        (
            "duplicate keys",
            r#"{"method":"warning","params":{"message":"a","message":"b"}}"#.to_string(),
        ),
        (
            "an unknown method",
            r#"{"method":"thread/teleported","params":{}}"#.to_string(),
        ),
        (
            "wrong-typed params",
            r#"{"method":"turn/started","params":{"threadId":7}}"#.to_string(),
        ),
        ("a response to no request", r#"{"id":99,"result":{}}"#.to_string()),
    ] {
        let outcome = run_with(case, 5, &record(&msg));
        assert_eq!(outcome.code, 0, "{case}: {}", outcome.stderr);
        assert!(outcome.stderr.contains(":5: "), "{case}: {}", outcome.stderr);
        let warnings = outcome.warnings();
        assert_eq!(warnings.len(), 1, "{case}: {warnings:?}");
        outcome.assert_stream_went_on(case);
    }
}

#[test]
fn a_64_mb_line_is_mapped() {
    let delta = "x".repeat(64 << 20);
    let msg = format!(
        r#"{{"method":"item/agentMessage/delta","params":{{"threadId":"t","turnId":"u","itemId":"i","delta":"{delta}"}}}}"#
    );
    let outcome = run_with("64MB", 9, &record(&msg));
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let big = outcome
        .events
        .iter()
        .find(|e| e["type"] == "content.delta" && e["payload"]["delta"].as_str().is_some_and(|d| d.len() == 64 << 20));
    assert!(big.is_some(), "the whole delta is carried");
    outcome.assert_stream_went_on("64MB");
}

#[test]
fn out_of_order_provider_messages_are_mapped_not_dropped() {
    let lines = corpus_lines();
    let text: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_slice(line).expect("JSON"))
        .collect();
    let turn_started = text
        .iter()
        .find(|r| r["msg"]["method"] == "turn/started")
        .expect("a turn/started");
    let thread = turn_started["msg"]["params"]["threadId"].as_str().expect("a thread");
    let delta_first = format!(
        r#"{{"method":"item/agentMessage/delta","params":{{"threadId":"{thread}","turnId":"early","itemId":"never-started","delta":"hi"}}}}"#
    );
    let outcome = run_with("delta before item", 9, &record(&delta_first));
    assert!(
        outcome
            .events
            .iter()
            .any(|e| e["type"] == "content.delta" && e["payload"]["delta"] == "hi")
    );
    assert!(outcome.warnings().is_empty());

    let unknown_resolved =
        format!(r#"{{"method":"serverRequest/resolved","params":{{"threadId":"{thread}","requestId":42}}}}"#);
    let outcome = run_with("resolved unknown request", 9, &record(&unknown_resolved));
    let resolved = outcome
        .events
        .iter()
        .find(|e| e["type"] == "request.resolved")
        .expect("a request.resolved");
    assert_eq!(resolved["payload"]["requestType"], "unknown");

    let mut second = turn_started.clone();
    second["msg"]["params"]["turn"]["id"] = Value::from("second-turn");
    let outcome = run_with("second turn/started", 9, second.to_string().as_bytes());
    assert_eq!(outcome.count("turn.started"), 2, "both turns start");
    assert_eq!(
        outcome.count("turn.aborted"),
        1,
        "the one never completed is settled at the end"
    );
    assert_eq!(outcome.code, 0);
}
