//! `agentwire normalize`, `validate` and `stats` as a user runs them.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agentwire");

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/codex-app-server")
        .join(name)
}

fn temp_file(tag: &str, contents: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("agentwire-cli-{tag}-{}.jsonl", std::process::id()));
    std::fs::write(&path, contents).expect("write a temp file");
    path
}

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(BIN).args(args).output().expect("run agentwire");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("each output line is JSON"))
        .collect()
}

#[test]
fn bad_lines_become_warnings_and_the_stream_goes_on() {
    let good = std::fs::read_to_string(corpus("text.jsonl")).expect("corpus");
    let mut lines: Vec<&str> = good.lines().collect();
    let truncated = &lines[1][..lines[1].len() / 2];
    let unknown = r#"{"dir":"in","ts":1796016332100,"msg":{"method":"thread/teleported","params":{}}}"#;
    lines.insert(2, "this is not JSON");
    lines.insert(3, truncated);
    lines.insert(4, unknown);
    let path = temp_file("bad", &(lines.join("\n") + "\n"));
    let (code, stdout, stderr) = run(&["normalize", path.to_str().expect("UTF-8 path")]);
    std::fs::remove_file(&path).ok();

    assert_eq!(code, 1, "bad lines make the exit status 1; stderr: {stderr}");
    let name = path.display().to_string();
    assert!(
        stderr.contains(&format!("{name}:3: not JSON")),
        "stderr names line 3: {stderr}"
    );
    assert!(
        stderr.contains(&format!("{name}:4: not JSON")),
        "stderr names the truncated line 4: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{name}:5: unknown ServerNotification method `thread/teleported`"
        )),
        "{stderr}"
    );

    let events = events(&stdout);
    let warnings: Vec<&Value> = events.iter().filter(|e| e["type"] == "runtime.warning").collect();
    assert_eq!(warnings.len(), 3, "one warning per bad line: {warnings:#?}");
    assert_eq!(
        warnings[0]["payload"]["detail"], "this is not JSON",
        "an unreadable line rides in detail"
    );
    assert!(warnings[0].get("raw").is_none(), "an unreadable line has no raw");
    assert_eq!(
        warnings[2]["raw"]["method"], "thread/teleported",
        "an undecodable message keeps its raw"
    );
    assert_eq!(warnings[2]["raw"]["payload"]["method"], "thread/teleported");
    assert!(
        events.iter().any(|e| e["type"] == "turn.completed"),
        "the lines after the bad ones are still mapped"
    );
}

#[test]
fn undeclared_messages_are_a_complete_stream_unless_strict() {
    let good = std::fs::read_to_string(corpus("text.jsonl")).expect("corpus");
    let mut lines: Vec<&str> = good.lines().collect();
    let undeclared = r#"{"dir":"in","ts":1796016332100,"msg":{"method":"thread/teleported","params":{}}}"#;
    let undecodable = r#"{"dir":"in","ts":1796016332101,"msg":{"method":"turn/started","params":{"threadId":7}}}"#;
    lines.insert(2, undeclared);
    lines.insert(3, undecodable);
    let path = temp_file("undeclared", &(lines.join("\n") + "\n"));
    let file = path.to_str().expect("UTF-8 path");
    let (code, stdout, stderr) = run(&["normalize", file]);
    let (strict_code, strict_stdout, _) = run(&["normalize", "--strict", file]);
    std::fs::remove_file(&path).ok();

    assert_eq!(
        code, 0,
        "runtime.warnings for messages a newer codex sends are a complete stream: {stderr}"
    );
    assert!(
        stderr.contains(":3: unknown ServerNotification method `thread/teleported`"),
        "{stderr}"
    );
    assert!(
        stderr.contains(":4: turn/started: at"),
        "the undecodable line is still reported: {stderr}"
    );
    let warnings: Vec<String> = events(&stdout)
        .iter()
        .filter(|e| e["type"] == "runtime.warning")
        .map(|e| e["payload"]["message"].as_str().expect("a message").to_string())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("message the pinned schema does not declare"),
        "{warnings:?}"
    );
    assert!(warnings[1].starts_with("undecodable message"), "{warnings:?}");
    assert_eq!(
        strict_code, 1,
        "--strict fails on any undeclared or undecodable message"
    );
    assert_eq!(strict_stdout, stdout, "--strict changes the exit status only");
}

/// A bare stream (the server's stdout) gives no time to its first responses: they wait for the
/// first time the stream gives instead of being stamped 1970-01-01.
#[test]
fn no_event_is_stamped_with_a_time_the_session_never_had() {
    let bare = [
        r#"{"id":0,"result":{"userAgent":"x/0.171.0"}}"#,
        r#"{"method":"thread/tokenUsage/updated","params":{"threadId":"t1","turnId":"u1","tokenUsage":{"last":{"cachedInputTokens":0,"inputTokens":1,"outputTokens":1,"reasoningOutputTokens":0,"totalTokens":2},"total":{"cachedInputTokens":0,"inputTokens":1,"outputTokens":1,"reasoningOutputTokens":0,"totalTokens":2},"modelContextWindow":null}},"emittedAtMs":1796016332068}"#,
    ];
    let path = temp_file("bare-time", &(bare.join("\n") + "\n"));
    let (code, stdout, stderr) = run(&[
        "normalize",
        "--from",
        "codex-app-server",
        path.to_str().expect("UTF-8 path"),
    ]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0, "{stderr}");
    let events = events(&stdout);
    assert_eq!(
        events[0]["type"], "runtime.warning",
        "a response without its request: {:?}",
        events[0]
    );
    for event in &events {
        assert_eq!(event["createdAt"], "2026-11-30T05:25:32.068Z", "{event}");
    }
    let ids: Vec<&str> = events.iter().map(|e| e["eventId"].as_str().expect("an id")).collect();
    let (again, _, _) = {
        let path = temp_file("bare-time-again", &(bare.join("\n") + "\n"));
        let result = run(&[
            "normalize",
            path.to_str().expect("UTF-8 path"),
            "--from",
            "codex-app-server",
        ]);
        std::fs::remove_file(&path).ok();
        (result.1, result.0, result.2)
    };
    assert_eq!(again, stdout, "held events keep their order and ids: {ids:?}");
}

#[test]
fn output_validates_and_is_deterministic() {
    let trace = corpus("shell_approval_accept.jsonl");
    let trace = trace.to_str().expect("UTF-8 path");
    let (code, first, stderr) = run(&["normalize", trace]);
    assert_eq!(code, 0, "{stderr}");
    let (_, second, _) = run(&["normalize", "--from", "codex-app-server", trace]);
    assert_eq!(first, second, "same input and options, same bytes");

    let path = temp_file("valid", &first);
    let (code, report, _) = run(&["validate", "--json", path.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 0, "{report}");
    let report: Value = serde_json::from_str(&report).expect("a JSON report");
    assert_eq!(report["invalid"], 0);
    assert_eq!(report["valid"].as_u64(), Some(first.lines().count() as u64));

    let (code, stats, _) = run(&["stats", "--json", path.to_str().expect("UTF-8 path")]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0);
    let stats: Value = serde_json::from_str(&stats).expect("a JSON report");
    assert_eq!(stats["byType"]["request.opened"], 1);
    assert_eq!(stats["byType"]["request.resolved"], 1);
}

#[test]
fn options_change_the_session_and_provider() {
    let trace = corpus("text.jsonl");
    let (code, stdout, stderr) = run(&[
        "normalize",
        "--session-id",
        "my-session",
        "--provider-kind",
        "acp",
        trace.to_str().expect("UTF-8 path"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    for event in events(&stdout) {
        assert_eq!(event["sessionId"], "my-session");
        assert_eq!(event["provider"], "acp");
    }
    let (code, _, stderr) = run(&["normalize", "--session-id", "  ", trace.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 2, "a blank session id is a usage error");
    assert!(stderr.contains("session-id"), "{stderr}");
}

#[test]
fn validate_names_the_line_and_field() {
    let trace = corpus("text.jsonl");
    let (_, stdout, _) = run(&["normalize", trace.to_str().expect("UTF-8 path")]);
    let mut lines: Vec<String> = stdout.lines().map(str::to_string).collect();
    let mut event: Value = serde_json::from_str(&lines[0]).expect("JSON");
    event["payload"]["message"] = Value::from(42);
    lines[0] = event.to_string();
    lines.push("{not json".to_string());
    let path = temp_file("invalid", &(lines.join("\n") + "\n"));
    let (code, stdout, _) = run(&["validate", path.to_str().expect("UTF-8 path")]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 1);
    assert!(
        stdout.contains(":1: /payload/message: 42 is not of type \"string\""),
        "{stdout}"
    );
    assert!(stdout.contains(&format!(":{}: not JSON", lines.len())), "{stdout}");
}

/// One fault, one line: a bad time names the field, the value and the rule, with no cascade
/// about the fields the failing branch declared; an unknown type is one line, not the event;
/// a field no event declares is named alone.
#[test]
fn validate_reports_each_fault_once() {
    let trace = corpus("text.jsonl");
    let (_, stdout, _) = run(&["normalize", trace.to_str().expect("UTF-8 path")]);
    let mut lines: Vec<String> = stdout.lines().take(3).map(str::to_string).collect();
    let mut events: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    events[0]["createdAt"] = Value::from("2026-02-31T25:61:61Z");
    events[1]["type"] = Value::from("thread.exploded");
    events[2]["createdAt"] = Value::from("yesterday");
    events[2]["colour"] = Value::from("red");
    for (line, event) in lines.iter_mut().zip(&events) {
        *line = event.to_string();
    }
    let path = temp_file("faults", &(lines.join("\n") + "\n"));
    let (code, stdout, _) = run(&["validate", path.to_str().expect("UTF-8 path")]);
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 1);
    let name = path.display().to_string();
    let expected = format!(
        "{name}:1: /createdAt: \"2026-02-31T25:61:61Z\" is not a \"date-time\"\n\
         {name}:2: /type: \"thread.exploded\" is not one of the 45 canonical event types\n\
         {name}:3: /createdAt: \"yesterday\" is not a \"date-time\"\n\
         {name}:3: [\"colour\"]: not a field of a {} event\n\
         {name}: 0/3 valid\n",
        events[2]["type"].as_str().expect("a type")
    );
    assert_eq!(stdout, expected);
}

#[test]
fn version_lists_the_pinned_provider_versions() {
    let (code, stdout, _) = run(&["--version"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("@openai/codex 0.171.0"), "{stdout}");
}

/// A live pipe (`codex app-server | agentwire normalize`) sees each event before its input ends.
#[test]
fn a_live_pipe_gets_events_before_the_input_ends() {
    let mut child = Command::new(BIN)
        .args(["normalize", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agentwire");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.expect("a line")).is_err() {
                break;
            }
        }
    });
    // Bare JSON-RPC, as codex app-server prints it on stdout.
    writeln!(
        stdin,
        r#"{{"method":"thread/tokenUsage/updated","params":{{"threadId":"t1","turnId":"u1","tokenUsage":{{"last":{{"cachedInputTokens":0,"inputTokens":1,"outputTokens":1,"reasoningOutputTokens":0,"totalTokens":2}},"total":{{"cachedInputTokens":0,"inputTokens":1,"outputTokens":1,"reasoningOutputTokens":0,"totalTokens":2}},"modelContextWindow":null}}}},"emittedAtMs":1796016332068}}"#
    )
    .expect("write");
    stdin.flush().expect("flush");
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("an event arrives while stdin is still open");
    let event: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(event["type"], "thread.token-usage.updated", "{event}");
    assert_eq!(
        event["createdAt"], "2026-11-30T05:25:32.068Z",
        "emittedAtMs is the clock when there is no ts"
    );
    drop(stdin);
    assert!(child.wait().expect("exit").success());
}

#[test]
fn a_closed_output_ends_the_program_quietly() {
    // Far more output than a pipe holds, so the program is still writing when the reader goes.
    let trace = std::fs::read_to_string(corpus("all.jsonl")).expect("corpus");
    let path = temp_file("closed-pipe", &trace.repeat(40));
    let mut child = Command::new(BIN)
        .args(["normalize", path.to_str().expect("UTF-8 path")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run agentwire");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("one event");
    drop(stdout);
    let output = child.wait_with_output().expect("agentwire ends");
    std::fs::remove_file(&path).ok();
    assert!(serde_json::from_str::<Value>(&first).is_ok(), "an event: {first}");
    assert_eq!(output.status.code(), Some(0), "as `| head -1` leaves it");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "nothing said about the pipe"
    );
}

#[test]
fn a_directory_or_missing_input_is_named_in_the_error() {
    let dir = corpus("");
    let dir = dir.to_str().expect("UTF-8 path");
    for command in ["normalize", "validate", "stats"] {
        let (code, stdout, stderr) = run(&[command, dir]);
        assert_eq!(code, 2, "{command}: {stderr}");
        assert!(stdout.is_empty(), "{command}");
        assert!(
            stderr.contains(dir) && stderr.contains("is a directory"),
            "{command}: {stderr}"
        );
    }
    let (code, _, stderr) = run(&["normalize", "no/such/trace.jsonl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no/such/trace.jsonl"), "{stderr}");
}

/// A Claude Code session file given alone is read with its subagents' transcripts
/// (`<session id>/subagents/agent-*.jsonl` beside it): their records ride in the stream, in time
/// order, and none is a subagent record without its Task call.
#[test]
fn a_claude_code_session_file_is_read_with_its_subagents_transcripts() {
    let run_dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/claude-session-2.1.337/task_subagent_fg");
    let session = std::fs::read_dir(&run_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .expect("the session file");
    let subagents = run_dir.join(session.file_stem().unwrap()).join("subagents");
    let agent = std::fs::read_dir(&subagents)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .expect("the subagent's transcript");
    let (code, stdout, stderr) = run(&["normalize", session.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "", "no warning");
    let payloads: Vec<String> = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|event| event.get("raw").map(|raw| raw["payload"].to_string()))
        .collect();
    let records = std::fs::read_to_string(&agent).unwrap();
    for record in records.lines() {
        let record: Value = serde_json::from_str(record).unwrap();
        assert!(payloads.contains(&record.to_string()), "not carried: {record}");
    }
    assert!(
        !stdout.contains("while no Task call of this file is open"),
        "every subagent record finds its Task call"
    );
}
