//! `agentwire answer` as a host runs it: a real trace cut just before the client's reply, the
//! `requestId` that `normalize` printed, the decision; the reply frame on stdout.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agentwire");

fn corpus(source: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(source)
        .join(name)
}

/// Runs `agentwire ARGS` with `stdin` as its input.
fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run agentwire");
    // A usage error ends the program before it reads its input: a closed pipe is no failure.
    if let Err(err) = child.stdin.take().expect("stdin").write_all(stdin.as_bytes()) {
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {err}");
    }
    let output = child.wait_with_output().expect("agentwire ends");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

/// The trace's lines before its line `line` (1-based), and that line's `msg`.
fn cut(trace: &Path, line: usize) -> (String, Value) {
    let text = std::fs::read_to_string(trace).expect("corpus");
    let lines: Vec<&str> = text.lines().collect();
    let before = lines[..line - 1].iter().map(|l| format!("{l}\n")).collect();
    let record: Value = serde_json::from_str(lines[line - 1]).expect("a record");
    (before, record["msg"].clone())
}

/// The `requestId` of the only `request.opened` `normalize` prints for `input`.
fn opened_request(input: &str) -> String {
    let (code, stdout, stderr) = run(&["normalize", "-"], input);
    assert_eq!(code, 0, "{stderr}");
    let ids: Vec<String> = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .filter(|event| event["type"] == "request.opened")
        .map(|event| event["requestId"].as_str().expect("an id").to_string())
        .collect();
    assert_eq!(ids.len(), 1, "one request opened");
    ids[0].clone()
}

#[test]
fn a_codex_approval_is_answered_as_the_client_answered_it() {
    // Line 17 is the client's `{"id":0,"result":{"decision":"accept"}}`.
    let (before, sent) = cut(&corpus("codex-app-server", "shell_approval_accept.jsonl"), 17);
    let request = opened_request(&before);
    let (code, stdout, stderr) = run(&["answer", "--request", &request, "--decision", "accept", "-"], &before);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "one JSON line: {stdout}");
    let built: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(built, sent);
}

#[test]
fn a_claude_deny_carries_its_message() {
    let (before, sent) = cut(&corpus("claude-control", "sdk_bash_touch_deny.jsonl"), 23);
    let request = opened_request(&before);
    let args = [
        "answer",
        "--from",
        "claude-control",
        "--request",
        &request,
        "--decision",
        "decline",
        "--message",
        "User denied this tool call (test)",
        "-",
    ];
    let (code, stdout, stderr) = run(&args, &before);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(serde_json::from_str::<Value>(&stdout).expect("JSON"), sent);
}

#[test]
fn a_decision_the_approval_did_not_offer_is_sent_with_a_note() {
    // The approval offers `accept, acceptWithExecpolicyAmendment, cancel`; the client sent
    // `{"id":0,"result":{"decision":"decline"}}` (line 19) and Codex honoured it.
    let (before, sent) = cut(&corpus("codex-app-server", "shell_approval_decline.jsonl"), 19);
    let request = opened_request(&before);
    let (code, stdout, stderr) = run(
        &["answer", "--request", &request, "--decision", "decline", "-"],
        &before,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(serde_json::from_str::<Value>(&stdout).expect("JSON"), sent);
    assert_eq!(
        stderr,
        format!(
            "agentwire: <stdin>: note: request {request} (item/commandExecution/requestApproval) did not offer decline \
             (offered: accept, acceptForSession, cancel); sent as its reply type allows\n"
        )
    );
}

#[test]
fn a_cursor_rejection_carries_its_message_as_the_reason() {
    let (before, sent) = cut(&corpus("cursor", "create_plan_rejected.jsonl"), 19);
    let request = opened_request(&before);
    let reason = sent["result"]["outcome"]["reason"].as_str().expect("a reason");
    let args = [
        "answer",
        "--request",
        &request,
        "--decision",
        "decline",
        "--message",
        reason,
        "-",
    ];
    let (code, stdout, stderr) = run(&args, &before);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(serde_json::from_str::<Value>(&stdout).expect("JSON"), sent);
}

#[test]
fn a_cursor_question_is_answered_with_its_answers() {
    let (before, sent) = cut(&corpus("cursor", "ask_question_answered.jsonl"), 12);
    let request = opened_request(&before);
    let answers = sent["result"]["outcome"]["answers"].to_string();
    let args = [
        "answer",
        "--request",
        &request,
        "--decision",
        "answered",
        "--answers",
        &answers,
        "-",
    ];
    let (code, stdout, stderr) = run(&args, &before);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(serde_json::from_str::<Value>(&stdout).expect("JSON"), sent);
}

#[test]
fn unknown_answered_and_impossible_decisions_are_errors() {
    let trace = corpus("codex-app-server", "shell_approval_accept.jsonl");
    let (before, _) = cut(&trace, 17);
    let request = opened_request(&before);
    let whole = std::fs::read_to_string(&trace).expect("corpus");

    let (code, stdout, stderr) = run(&["answer", "--request", &request, "--decision", "accept", "-"], &whole);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(
        stderr.contains(&format!("request {request} was already answered")),
        "{stderr}"
    );

    let unknown = "00000000-0000-4000-8000-000000000000";
    let (code, _, stderr) = run(&["answer", "--request", unknown, "--decision", "accept", "-"], &before);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(&format!("no request {unknown} was opened")), "{stderr}");

    let (code, _, stderr) = run(
        &["answer", "--request", &request, "--decision", "answered", "-"],
        &before,
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "does not offer answered; offered: accept, acceptForSession, cancel; its reply type also allows: decline"
        ),
        "{stderr}"
    );

    let (code, _, stderr) = run(
        &["answer", "--request", &request, "--decision", "approve", "-"],
        &before,
    );
    assert_eq!(code, 2, "a usage error: {stderr}");
    assert!(
        stderr.contains("known: accept, acceptForSession, decline, cancel, answered, error"),
        "{stderr}"
    );

    let (code, _, stderr) = run(
        &[
            "answer",
            "--request",
            &request,
            "--decision",
            "answered",
            "--answers",
            "{",
            "-",
        ],
        &before,
    );
    assert_eq!(code, 2, "a usage error: {stderr}");
    assert!(stderr.contains("not JSON"), "{stderr}");
}

#[test]
fn an_ill_typed_result_is_an_error_with_its_path_and_reason() {
    // Line 21 is the client's plain allow of `ExitPlanMode`, which suggested no rule.
    let (before, _) = cut(&corpus("claude-control", "sdk_exit_plan_mode_allow.jsonl"), 21);
    let request = opened_request(&before);
    let answer = |decision: &str, result: &str| {
        run(
            &[
                "answer",
                "--request",
                &request,
                "--decision",
                decision,
                "--result",
                result,
                "-",
            ],
            &before,
        )
    };
    let (code, stdout, stderr) = answer("accept", r#"{"interrupt":true}"#);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert_eq!(
        stderr,
        "agentwire: <stdin>: the result of a can_use_tool reply does not fit at result.interrupt: an allow has \
         no such member (a deny that stops the turn is cancel)\n"
    );
    let (code, _, stderr) = answer("accept", "42");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("does not fit at result: expected a JSON object"),
        "{stderr}"
    );

    // acceptForSession with the rules to grant: sent, with the note that the request did not
    // offer it.
    let set_mode = r#"{"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}"#;
    let (code, stdout, stderr) = answer("acceptForSession", set_mode);
    assert_eq!(code, 0, "{stderr}");
    let built: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(
        built["response"]["response"]["updatedPermissions"][0]["mode"],
        "acceptEdits"
    );
    assert!(
        stderr.contains("did not offer acceptForSession (offered: accept, decline, cancel)"),
        "{stderr}"
    );

    let (code, _, stderr) = run(
        &["answer", "--request", &request, "--decision", "acceptForSession", "-"],
        &before,
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("does not fit at result.updatedPermissions: the request suggested no rules"),
        "{stderr}"
    );
}

#[test]
fn a_read_only_source_says_so() {
    let trace = corpus("codex-exec", "failed.jsonl");
    let unknown = "00000000-0000-4000-8000-000000000000";
    let text = std::fs::read_to_string(&trace).expect("corpus");
    let (code, _, stderr) = run(&["answer", "--request", unknown, "--decision", "accept", "-"], &text);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("codex-exec is a record of a session"), "{stderr}");
}
