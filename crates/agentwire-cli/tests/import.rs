//! `agentwire import` over a home folder laid out as Codex and Claude lay out theirs
//! (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `~/.claude/projects/<project>/<session>.jsonl`)
//! plus folders of other traces, filled with corpus traces. The index expectations are read off
//! the traces by hand (each one's source comment says where).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

mod home;

use home::{corpus, files, import, index, run};

/// Where each corpus trace goes in the home folder.
const HOME: &[(&str, &str)] = &[
    (
        "codex-rollout/rollout-44.jsonl",
        ".codex/sessions/2026/11/30/rollout-2026-11-30T05-25-47-01a22aeb.jsonl",
    ),
    (
        "codex-rollout/rollout-08.jsonl",
        ".codex/sessions/2026/11/30/rollout-2026-11-30T05-24-07-01a22ae9.jsonl",
    ),
    (
        "claude/v0.3.332-stream_input_two_turns.jsonl",
        ".claude/projects/-home-dev-work-cli-stream-input-two-turns/3c1e7d0e.jsonl",
    ),
    (
        "claude-session/bash_touch_allow.jsonl",
        ".claude/projects/-home-dev-work-sdk-bash-touch-allow/a9b3d18a-8c18-42f5-92c5-8fdeafcbfb6b.jsonl",
    ),
    ("codex-exec/shell.jsonl", "exec/shell.jsonl"),
    ("acp/plain.jsonl", "acp/plain.jsonl"),
    ("acp/tool_allow.jsonl", "acp/tool_allow.jsonl"),
];

/// A fresh folder for one test, holding `home/` (the traces, a settings file that is no trace,
/// a text file) and room for outputs.
fn scratch(tag: &str) -> PathBuf {
    let root = home::scratch(tag, HOME);
    let project = root.join("home/.claude/projects/-home-dev-project");
    fs::create_dir_all(&project).unwrap();
    fs::write(project.join("settings.jsonl"), "{\"theme\":\"dark\"}\n").unwrap();
    fs::write(project.join("notes.txt"), "not a trace\n").unwrap();
    root
}

/// The fields an index line has whatever the trace, checked against what the test reads off it:
/// each member `expected` names (an object's members one by one, so a usage lists the figures
/// the test knows).
fn expect(entry: &Value, expected: Value) {
    for (key, value) in expected.as_object().unwrap() {
        match value {
            Value::Object(_) => expect(&entry[key], value.clone()),
            _ => assert_eq!(&entry[key], value, "{key} of {entry}"),
        }
    }
}

#[test]
fn every_trace_becomes_one_session_file_and_one_index_line() {
    let root = scratch("layout");
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(".claude/projects/-home-dev-project/settings.jsonl: skipped: not a supported trace: cannot tell the format from its first 64 lines"),
        "{stderr}"
    );
    assert!(!stderr.contains("notes.txt"), "only .jsonl files are walked: {stderr}");
    assert!(
        stderr.contains("imported 7 session(s), 0 up to date, 1 file(s) skipped, 0 failure(s)"),
        "{stderr}"
    );

    let index = index(&root, "out");
    let inputs: Vec<&str> = index.keys().map(String::as_str).collect();
    let mut expected_inputs: Vec<&str> = HOME.iter().map(|(_, place)| *place).collect();
    expected_inputs.sort();
    assert_eq!(inputs, expected_inputs);
    let raw_index = fs::read_to_string(root.join("out/sessions.jsonl")).unwrap();
    let order: Vec<String> = raw_index
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["input"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "index lines in input path order");

    // The layout: <source>/<session id>.jsonl, each line an event of that session, nothing else.
    let mut expected_files: Vec<String> = vec!["sessions.jsonl".into()];
    for entry in index.values() {
        let (source, session) = (entry["source"].as_str().unwrap(), entry["sessionId"].as_str().unwrap());
        assert_eq!(entry["output"], format!("{source}/{session}.jsonl"));
        expected_files.push(format!("{source}/{session}.jsonl"));
        let text = fs::read_to_string(root.join("out").join(format!("{source}/{session}.jsonl"))).unwrap();
        assert_eq!(text.lines().count() as u64, entry["events"].as_u64().unwrap());
        for line in text.lines() {
            let event: Value = serde_json::from_str(line).unwrap();
            assert_eq!(event["sessionId"], session);
        }
    }
    expected_files.push("history.sqlite".to_owned());
    expected_files.sort();
    assert_eq!(files(&root.join("out")).into_keys().collect::<Vec<_>>(), expected_files);

    // rollout-44: session_meta and turn_context name /home/dev/project and mock-model; three
    // task_started; eight item_completed; the last token_count's total_token_usage is input 560,
    // cached 128, output 82; first and last timestamps.
    expect(
        &index[".codex/sessions/2026/11/30/rollout-2026-11-30T05-25-47-01a22aeb.jsonl"],
        json!({
            "source": "codex-rollout", "provider": "codex", "cwd": "/home/dev/project", "model": "mock-model",
            "startedAt": "2026-11-30T05:25:47.710Z", "endedAt": "2026-11-30T05:25:48.459Z",
            "threads": 1, "turns": 3, "failedTurns": 0, "items": 8, "errors": 0,
            "usage": {"scope": "session", "inputTokens": 560, "cachedInputTokens": 128, "cacheWriteTokens": 0,
                "outputTokens": 82, "reasoningTokens": 25, "totalTokens": 642, "costSource": "none"},
            "unreadableLines": 0,
        }),
    );
    // rollout-08: one turn whose task_complete carries an internal_server_error, no token_count.
    expect(
        &index[".codex/sessions/2026/11/30/rollout-2026-11-30T05-24-07-01a22ae9.jsonl"],
        json!({
            "source": "codex-rollout", "startedAt": "2026-11-30T05:24:07.582Z", "endedAt": "2026-11-30T05:24:07.640Z",
            "turns": 1, "failedTurns": 1, "errors": 1, "usage": null,
        }),
    );
    // Two `result`s: the last one's `modelUsage` counts 336 input and 87 output tokens and its
    // total_cost_usd is the session's running total (0.002272, then 0.003084); system:init names
    // cwd and model.
    expect(
        &index[".claude/projects/-home-dev-work-cli-stream-input-two-turns/3c1e7d0e.jsonl"],
        json!({
            "source": "claude", "provider": "claudeAgent",
            "cwd": "/home/dev/work/cli-stream_input_two_turns", "model": "claude-opus-5-5",
            "threads": 1, "turns": 2, "failedTurns": 0, "errors": 0,
            "usage": {"inputTokens": 336, "outputTokens": 87, "cachedInputTokens": 0, "costUsd": 0.003084, "costSource": "provider"},
        }),
    );
    // A Claude Code session file: no turn reports usage, each model message does (the record
    // with its stop reason): input 109 + 111, output 57 + 19; Claude Code 2.1.62 writes no cost,
    // so it is computed from the price table (claude-sonnet-4-6: $3 in, $15 out per million).
    expect(
        &index[".claude/projects/-home-dev-work-sdk-bash-touch-allow/a9b3d18a-8c18-42f5-92c5-8fdeafcbfb6b.jsonl"],
        json!({
            "source": "claude-session", "provider": "claudeAgent", "cwd": "/home/dev/work/sdk-bash_touch_allow",
            "turns": 1, "failedTurns": 0, "items": 4, "errors": 0,
            "usage": {"inputTokens": 220, "outputTokens": 76, "cachedInputTokens": 0, "costUsd": 0.0018, "costSource": "computed"},
        }),
    );
    // turn.completed usage: input 350, cached 128, output 28; codex exec prints no time, and
    // its thread id is a UUIDv7 (`01a22aec-7a43-...`): the session is dated by it.
    expect(
        &index["exec/shell.jsonl"],
        json!({
            "source": "codex-exec", "provider": "codex", "cwd": null, "model": null,
            "startedAt": "2026-11-30T05:27:50.595Z", "timeSource": "idTimestamp", "turns": 1, "errors": 0,
            "usage": {"inputTokens": 350, "outputTokens": 28, "cachedInputTokens": 128, "costSource": "none"},
        }),
    );
    // No session is listed as begun in 1970: a stream without times of its own is dated by its
    // thread's UUIDv7 or, failing that, by its file; the index says which.
    for (input, entry) in &index {
        let started = entry["startedAt"].as_str().unwrap();
        assert!(!started.starts_with("1970"), "{input} starts {started}");
        let source = entry["timeSource"].as_str().unwrap();
        assert!(
            ["recorded", "idTimestamp", "fileModified"].contains(&source),
            "{input}: {source}"
        );
    }
    assert_eq!(
        index["acp/plain.jsonl"]["timeSource"], "fileModified",
        "a bare ACP stream carries no time and no UUIDv7"
    );

    // Both ACP transcripts open with the same `initialize` record: the first (in path order)
    // keeps the session id `normalize` gives, the second gets its own, and each file holds
    // exactly what `normalize` writes under that id.
    let (plain, tool) = (&index["acp/plain.jsonl"], &index["acp/tool_allow.jsonl"]);
    assert_ne!(plain["sessionId"], tool["sessionId"]);
    // Neither carries a time: import dates them by their files, as `--clock file` does.
    let (code, normalized, _) = run(&[
        "normalize",
        "--clock",
        "file",
        root.join("home/acp/plain.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        fs::read_to_string(root.join("out").join(plain["output"].as_str().unwrap())).unwrap(),
        normalized
    );
    let (code, normalized, _) = run(&[
        "normalize",
        "--session-id",
        tool["sessionId"].as_str().unwrap(),
        "--clock",
        "file",
        root.join("home/acp/tool_allow.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        fs::read_to_string(root.join("out").join(tool["output"].as_str().unwrap())).unwrap(),
        normalized
    );

    // The summary: a row per source and the total.
    let row = |name: &str| {
        stderr
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row: {stderr}"))
            .split_whitespace()
            .skip(1)
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    // sessions, turns, items, input, output, cached tokens, cost, errors
    assert_eq!(row("codex-rollout")[..2], ["2", "4"]);
    assert_eq!(row("codex-rollout")[3..], ["560", "82", "128", "-", "1"]);
    assert_eq!(row("claude")[..2], ["1", "2"]);
    assert_eq!(row("claude")[3..7], ["336", "87", "0", "0.0031"]);
    assert_eq!(row("claude-session")[3..7], ["220", "76", "0", "0.0018"]);
    assert_eq!(row("total")[0], "7");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_number_of_jobs_changes_no_byte() {
    let root = scratch("jobs");
    assert_eq!(import(&root, "one", &["-j1"]).0, 0);
    assert_eq!(import(&root, "four", &["-j", "4"]).0, 0);
    let (one, four) = (files(&root.join("one")), files(&root.join("four")));
    // The canonical files, the index and the history database.
    assert_eq!(one.len(), 9);
    assert!(one == four, "-j1 and -j4 wrote different folders");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_second_run_skips_what_is_up_to_date_and_force_redoes_it() {
    let root = scratch("skip");
    assert_eq!(import(&root, "out", &[]).0, 0);
    let first = files(&root.join("out"));
    let modified = |path: &Path| fs::metadata(path).unwrap().modified().unwrap();
    let output_of = |input: &str| {
        root.join("out")
            .join(index(&root, "out")[input]["output"].as_str().unwrap())
    };
    let exec_output = output_of("exec/shell.jsonl");
    let written = modified(&exec_output);

    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0);
    assert!(stderr.contains("imported 0 session(s), 7 up to date"), "{stderr}");
    assert!(stderr.contains("the index lists 7 session(s)"), "{stderr}");
    assert!(
        files(&root.join("out")) == first,
        "a skip-run leaves every byte, the index included"
    );
    assert_eq!(modified(&exec_output), written, "an up-to-date output is not rewritten");

    // An input changed after its output was written is imported again (a millisecond later:
    // the new output, written now, is newer again).
    let later = written + Duration::from_millis(1);
    let input = fs::File::options()
        .append(true)
        .open(root.join("home/exec/shell.jsonl"))
        .unwrap();
    input.set_modified(later).unwrap();
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0);
    assert!(stderr.contains("imported 1 session(s), 6 up to date"), "{stderr}");
    assert!(files(&root.join("out")) == first);
    assert!(modified(&exec_output) > written);

    let (code, stderr) = import(&root, "out", &["--force"]);
    assert_eq!(code, 0);
    assert!(stderr.contains("imported 7 session(s), 0 up to date"), "{stderr}");
    assert!(files(&root.join("out")) == first);

    // A narrower walk keeps the sessions of the inputs it did not walk in the index.
    let exec = root.join("home/exec");
    let out = root.join("out");
    let (code, _, stderr) = run(&["import", exec.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stderr.contains("imported 0 session(s), 1 up to date"), "{stderr}");
    assert!(files(&root.join("out")) == first);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_bad_file_is_reported_with_its_path_and_the_rest_go_on() {
    let root = scratch("bad");
    let home = root.join("home");
    // A rollout cut in the middle of its last line, as a crash leaves it.
    let whole = fs::read(corpus("codex-rollout/rollout-44.jsonl")).unwrap();
    let cut = whole.len() - 40;
    fs::write(home.join(".codex/sessions/2026/11/30/rollout-cut.jsonl"), &whole[..cut]).unwrap();
    let lines = whole[..cut].iter().filter(|byte| **byte == b'\n').count() + 1;
    // A session file whose target is gone.
    std::os::unix::fs::symlink(home.join("gone.jsonl"), home.join("exec/dangling.jsonl")).unwrap();

    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 1, "{stderr}");
    let cut_name = home
        .join(".codex/sessions/2026/11/30/rollout-cut.jsonl")
        .display()
        .to_string();
    assert!(stderr.contains(&format!("{cut_name}:{lines}: not JSON")), "{stderr}");
    assert!(
        stderr.contains(&format!("failed: {cut_name}: 1 unreadable line(s)")),
        "{stderr}"
    );
    let dangling = home.join("exec/dangling.jsonl").display().to_string();
    assert!(
        stderr.contains(&format!("failed: {dangling}: No such file or directory")),
        "{stderr}"
    );
    assert!(
        stderr.contains("imported 8 session(s), 0 up to date, 1 file(s) skipped, 2 failure(s)"),
        "{stderr}"
    );
    let index = index(&root, "out");
    assert_eq!(index.len(), 8, "the seven traces and what the cut one held");
    expect(
        &index[".codex/sessions/2026/11/30/rollout-cut.jsonl"],
        json!({"source": "codex-rollout", "unreadableLines": 1}),
    );

    // The cut file is read again (its problem reported again), the rest is up to date.
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains(&format!("{cut_name}:{lines}: not JSON")), "{stderr}");
    assert!(stderr.contains("imported 1 session(s), 7 up to date"), "{stderr}");
    fs::remove_dir_all(&root).unwrap();
}

/// Copies `dir` into `to`, every file and folder.
fn copy_tree(dir: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// Claude Code 2.1.337 projects, as `~/.claude/projects` holds them (subagents' transcripts in
/// `<session id>/subagents/`): one session per run, the subagents' records in their session, no
/// warning, each session's tokens and cost what Claude Code counted (the file's last
/// `cost-state`), its cost the one its live run's results report.
#[test]
fn a_claude_code_projects_folder_gives_one_session_per_run_with_the_live_runs_tokens_and_cost() {
    let root = std::env::temp_dir().join(format!("agentwire-import-claude-2.1.337-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let runs = corpus("claude-session-2.1.337");
    let live = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claude-session/live-2.1.337");
    let mut names: Vec<String> = fs::read_dir(&runs)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        copy_tree(
            &runs.join(name),
            &root.join(format!("home/projects/-home-dev-work-sdk-{name}")),
        );
    }
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let index = index(&root, "out");
    assert_eq!(index.len(), names.len(), "one session per run: {:?}", index.keys());
    let mut compared = 0;
    for name in &names {
        let (_, entry) = index
            .iter()
            .find(|(input, _)| input.starts_with(&format!("projects/-home-dev-work-sdk-{name}/")))
            .unwrap_or_else(|| panic!("{name}: not in the index"));
        // What the live run's results report as the session's running cost, and what the file's
        // last `cost-state` counted: every model's tokens (the subagents' and a compaction's
        // included, which the results' per-turn usage leaves out), its input with the cache's.
        let mut cost = None;
        for line in fs::read_to_string(live.join(format!("{name}.jsonl"))).unwrap().lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            if record["msg"]["type"] == "result" {
                cost = record["msg"]["total_cost_usd"].as_f64();
            }
        }
        let usage = &entry["usage"];
        assert_eq!(usage["costUsd"].as_f64(), cost, "{name}: cost");
        let (mut input, mut output) = (None, None);
        for file in fs::read_dir(runs.join(name)).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_none_or(|ext| ext != "jsonl") {
                continue;
            }
            for line in fs::read_to_string(&file).unwrap().lines() {
                let record: Value = serde_json::from_str(line).unwrap();
                if record["type"] == "cost-state" {
                    // A run that reached no model counts no tokens (`modelUsage` is empty).
                    (input, output) = (None, None);
                    for model in record["modelUsage"].as_object().unwrap().values() {
                        let count = |key: &str| model[key].as_u64().unwrap_or(0);
                        let model_input =
                            count("inputTokens") + count("cacheReadInputTokens") + count("cacheCreationInputTokens");
                        input = Some(input.unwrap_or(0) + model_input);
                        output = Some(output.unwrap_or(0) + count("outputTokens"));
                    }
                }
            }
        }
        assert_eq!(
            (usage["inputTokens"].as_u64(), usage["outputTokens"].as_u64()),
            (input, output),
            "{name}: tokens"
        );
        assert_eq!(usage["costSource"], "provider", "{name}");
        compared += 1;
    }
    assert!(compared >= 19, "{compared} runs compared");
    fs::remove_dir_all(&root).unwrap();
}

/// Gemini CLI's session folders (`~/.gemini/tmp/<project>/chats/`, a subagent's file in
/// `chats/<session id>/`): one session per run, its subagent's file in it, and each session's
/// tokens those the same run's stream-json `result` reports (`stats`, summed over the runs of a
/// resumed session), read from the counts each model message of the file records.
#[test]
fn a_gemini_folder_gives_each_session_the_tokens_its_live_run_reports() {
    let root = std::env::temp_dir().join(format!("agentwire-import-gemini-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    copy_tree(&corpus("gemini-session"), &root.join("home"));
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let index = index(&root, "out");
    let mut compared = 0;
    for entry in fs::read_dir(corpus("gemini")).unwrap() {
        let stream = entry.unwrap().path();
        if stream.extension().is_none_or(|ext| ext != "jsonl") {
            continue;
        }
        let name = stream.file_stem().unwrap().to_string_lossy().into_owned();
        // `two_turns-1`, `two_turns-2`: two runs of one session.
        let scenario = name.split('-').next().unwrap();
        let (mut input, mut output) = (0, 0);
        for other in fs::read_dir(corpus("gemini")).unwrap() {
            let other = other.unwrap().path();
            let stem = other.file_stem().unwrap().to_string_lossy().into_owned();
            if other.extension().is_some_and(|ext| ext == "jsonl") && stem.split('-').next() == Some(scenario) {
                for line in fs::read_to_string(&other).unwrap().lines() {
                    let record: Value = serde_json::from_str(line).unwrap();
                    let message = record.get("msg").unwrap_or(&record);
                    // The prompt's tokens are input; the rest of the total (candidates and
                    // thoughts) output.
                    if message["type"] == "result" {
                        let stats = &message["stats"];
                        let prompt = stats["input_tokens"].as_u64().unwrap_or(0);
                        input += prompt;
                        output += stats["total_tokens"].as_u64().unwrap_or(0) - prompt;
                    }
                }
            }
        }
        let sessions: Vec<&Value> = index
            .iter()
            .filter(|(path, _)| path.starts_with(&format!("{scenario}/")))
            .map(|(_, entry)| entry)
            .collect();
        assert!(!sessions.is_empty(), "{scenario}: not in the index");
        assert!(sessions.iter().all(|entry| entry["source"] == "gemini-session"));
        // A resumed session is one file per CLI run; its counts are the sum of theirs.
        let count = |key: &str| {
            sessions
                .iter()
                .filter_map(|entry| entry["usage"][key].as_u64())
                .sum::<u64>()
        };
        assert_eq!(
            (count("inputTokens"), count("outputTokens")),
            (input, output),
            "{scenario}: tokens"
        );
        compared += 1;
    }
    assert!(compared >= 9, "{compared} runs compared");
    fs::remove_dir_all(&root).unwrap();
}

// `agentwire usage DIR`: an imported history's tokens and cost, by period, model, source,
// project or session, its totals the index's sessions' added up, each cost by where it came from.

/// Claude (its `result` states the cost), codex exec (no cost, a model the table does not
/// price) and Gemini stream-json (no cost, a model the table prices).
const USAGE_HOME: &[(&str, &str)] = &[
    (
        "claude/v0.3.332-stream_input_two_turns.jsonl",
        ".claude/projects/-home-dev-work-cli/two_turns.jsonl",
    ),
    ("codex-exec/shell.jsonl", "exec/shell.jsonl"),
    ("gemini/edit.jsonl", "gemini/edit.jsonl"),
];

/// `agentwire usage ARGS --json`, read.
fn usage_report(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{err}: {stdout}"))
}

#[test]
fn the_totals_are_the_sessions_and_each_cost_says_where_it_came_from() {
    let root = home::scratch("usage", USAGE_HOME);
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    let out = root.join("out");
    let out = out.to_str().unwrap();
    let sessions = index(&root, "out");
    let sum = |key: &str| -> i64 {
        sessions
            .values()
            .map(|entry| entry["usage"][key].as_i64().unwrap_or(0))
            .sum()
    };

    let by_source = usage_report(&["usage", out, "--by", "source", "--json"]);
    let total = &by_source["total"];
    assert_eq!(total["sessions"], 3);
    for key in ["inputTokens", "outputTokens", "cachedInputTokens"] {
        assert_eq!(total[key].as_i64(), Some(sum(key)), "{key}");
    }
    let row = |name: &str| {
        by_source["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["key"] == name)
            .unwrap_or_else(|| panic!("no row {name}: {by_source}"))
            .clone()
    };
    // Claude states its cost; Gemini's is computed from the price table; codex exec names no
    // model, so its session is not priced.
    let claude = row("claude");
    assert_eq!(claude["providerCostUsd"].as_f64(), Some(0.003084));
    assert!(claude["computedCostUsd"].is_null(), "{claude}");
    let gemini = row("gemini");
    assert!(gemini["computedCostUsd"].as_f64().unwrap() > 0.0, "{gemini}");
    assert!(gemini["providerCostUsd"].is_null(), "{gemini}");
    assert_eq!(row("codex-exec")["notPricedSessions"], 1);

    // A period a session did not start in counts nothing; the table reads as one.
    let none = usage_report(&["usage", out, "--since", "2100-01-01", "--json"]);
    assert_eq!(none["total"]["sessions"], 0);
    let (code, table, _) = home::run(&["usage", out, "--by", "month"]);
    assert_eq!(code, 0);
    assert!(table.starts_with("month "), "{table}");
    assert!(table.lines().last().unwrap().starts_with("total "), "{table}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_folder_without_an_index_and_a_wrong_date_are_said() {
    let (code, _, stderr) = home::run(&["usage", "/nonexistent-agentwire-folder"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no index here"), "{stderr}");
    let (code, _, stderr) = home::run(&["usage", ".", "--since", "2026-02-30"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("is no date"), "{stderr}");
}

// The history database (`DIR/history.sqlite`), `search` and `sessions`.

/// An ACP session that ran `echo hello`, a Claude one that touched a file, a Gemini one.
const SEARCH_HOME: &[(&str, &str)] = &[
    ("acp/bash_echo_autoallowed.jsonl", "acp/echo.jsonl"),
    (
        "claude/v0.3.332-stream_input_two_turns.jsonl",
        ".claude/projects/-home-dev/two.jsonl",
    ),
    ("gemini/edit.jsonl", "gemini/edit.jsonl"),
];

#[test]
fn search_finds_what_was_said_and_done_and_sessions_lists_the_history() {
    let root = home::scratch("search", SEARCH_HOME);
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("3 indexed anew for search"), "{stderr}");
    let dir = root.join("out");
    let dir = dir.to_str().unwrap();

    let (code, stdout, stderr) = run(&[
        "search", "echo", "--dir", dir, "--type", "command", "--source", "acp", "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let hits: Value = serde_json::from_str(&stdout).unwrap();
    let hit = &hits[0];
    assert_eq!(hit["source"], "acp", "{stdout}");
    assert_eq!(hit["kind"], "command");
    assert_eq!(hit["turn"], 1);
    assert!(hit["snippet"].as_str().unwrap().contains("[echo]"), "{hit}");
    assert!(root.join("out").join(hit["output"].as_str().unwrap()).is_file());
    // Every hit of a filtered search is of its source and kind.
    let (_, stdout, _) = run(&["search", "the", "--dir", dir, "--source", "claude", "--json"]);
    let hits: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        hits.as_array().unwrap().iter().all(|hit| hit["source"] == "claude"),
        "{stdout}"
    );
    let (_, stdout, _) = run(&["search", "zzzqqq", "--dir", dir]);
    assert!(stdout.starts_with("no hit for"), "{stdout}");

    let (code, stdout, _) = run(&["sessions", "--dir", dir, "--json"]);
    assert_eq!(code, 0);
    let sessions: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 3);
    let claude = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|session| session["source"] == "claude")
        .unwrap();
    assert_eq!(
        (claude["inputTokens"].as_i64(), claude["costUsd"].as_f64()),
        (Some(336), Some(0.003084))
    );
    // Newest first.
    let started: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["startedAt"].as_str().unwrap())
        .collect();
    assert!(started.windows(2).all(|pair| pair[0] >= pair[1]), "{started:?}");

    // Up to date: nothing indexed anew.
    let (_, stderr) = import(&root, "out", &[]);
    assert!(stderr.contains("0 indexed anew for search"), "{stderr}");

    // A file that now holds another session: the old one's rows go, the new one's come, once.
    let gemini = root.join("home/gemini/edit.jsonl");
    fs::copy(corpus("gemini/plain.jsonl"), &gemini).unwrap();
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    fs::File::options()
        .write(true)
        .open(&gemini)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 indexed anew for search"), "{stderr}");
    let (_, stdout, _) = run(&["sessions", "--dir", dir, "--source", "gemini", "--json"]);
    let gemini: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(gemini.as_array().unwrap().len(), 1, "{stdout}");
    assert_eq!(gemini[0]["title"], "hi");
    let (_, stdout, _) = run(&[
        "search", "hi", "--dir", dir, "--source", "gemini", "--type", "prompt", "--json",
    ]);
    assert_eq!(
        serde_json::from_str::<Value>(&stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1,
        "{stdout}"
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_corrupt_database_is_made_anew_and_another_programs_is_left_alone_and_said() {
    let root = home::scratch("search-bad", SEARCH_HOME);
    let database = root.join("out/history.sqlite");
    fs::create_dir_all(root.join("out")).unwrap();
    fs::write(
        &database,
        "this is no database, only text long enough to read a header from it....",
    )
    .unwrap();
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("history.sqlite: made anew from the canonical files"),
        "{stderr}"
    );
    let (code, stdout, _) = run(&["sessions", "--dir", root.join("out").to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );

    fs::remove_file(&database).unwrap();
    let foreign = rusqlite::Connection::open(&database).unwrap();
    foreign
        .execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    drop(foreign);
    let (code, stderr) = import(&root, "out", &["--force"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("another program's SQLite database"), "{stderr}");
    // Left as it was; the canonical files and the index are whole.
    let foreign = rusqlite::Connection::open(&database).unwrap();
    let kept: String = foreign
        .query_row("SELECT text FROM notes", [], |row| row.get(0))
        .unwrap();
    assert_eq!(kept, "mine");
    assert_eq!(index(&root, "out").len(), 3);
    let (code, _, stderr) = run(&["search", "echo", "--dir", root.join("out").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not agentwire's history database"), "{stderr}");
    fs::remove_dir_all(&root).unwrap();
}

// `agentwire export --otlp-file`: the history as OTLP/JSON traces under the GenAI conventions.

/// The spans of an OTLP/JSON lines file, each with its resource's `agentwire.source`.
fn otlp_spans(path: &Path) -> Vec<Value> {
    let mut spans = Vec::new();
    for line in fs::read_to_string(path).unwrap().lines() {
        let request: Value = serde_json::from_str(line).unwrap();
        for resource in request["resourceSpans"].as_array().unwrap() {
            for scope in resource["scopeSpans"].as_array().unwrap() {
                spans.extend(scope["spans"].as_array().unwrap().iter().cloned());
            }
        }
    }
    spans
}

fn span_attribute<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|attribute| attribute["key"] == key)
        .map(|attribute| &attribute["value"])
}

#[test]
fn export_writes_a_trace_per_session_a_span_per_turn_and_tool_the_same_twice() {
    let root = home::scratch("otlp", SEARCH_HOME);
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    let dir = root.join("out");
    let (first, second, content) = (root.join("a.jsonl"), root.join("b.jsonl"), root.join("c.jsonl"));
    for (file, extra) in [(&first, None), (&second, None), (&content, Some("--record-content"))] {
        let mut args = vec!["export", dir.to_str().unwrap(), "--otlp-file", file.to_str().unwrap()];
        args.extend(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("span(s) of 3 session(s)"), "{stdout}");
    }
    assert_eq!(
        fs::read(&first).unwrap(),
        fs::read(&second).unwrap(),
        "exporting twice sends the same spans"
    );

    let spans = otlp_spans(&first);
    let turns: Vec<&Value> = spans
        .iter()
        .filter(|span| span["name"].as_str().unwrap().starts_with("invoke_agent"))
        .collect();
    let tools: Vec<&Value> = spans
        .iter()
        .filter(|span| span["name"].as_str().unwrap().starts_with("execute_tool"))
        .collect();
    assert_eq!(turns.len() + tools.len(), spans.len());
    // The Claude session: two turns, each its own span of one trace, with the turn's usage.
    let claude: Vec<&&Value> = turns
        .iter()
        .filter(|span| span_attribute(span, "gen_ai.provider.name") == Some(&json!({"stringValue": "anthropic"})))
        .collect();
    assert_eq!(claude.len(), 2);
    assert_eq!(claude[0]["traceId"], claude[1]["traceId"]);
    assert_eq!(
        span_attribute(claude[0], "gen_ai.usage.input_tokens"),
        Some(&json!({"intValue": "223"}))
    );
    assert_eq!(
        span_attribute(claude[0], "gen_ai.request.model"),
        Some(&json!({"stringValue": "claude-opus-5-5"}))
    );
    // Every tool span is a child of its turn's span, in its trace.
    for tool in &tools {
        let parent = turns
            .iter()
            .find(|turn| turn["spanId"] == tool["parentSpanId"])
            .expect("a tool's turn");
        assert_eq!(parent["traceId"], tool["traceId"]);
        assert!(
            span_attribute(tool, "gen_ai.tool.name").is_some() && span_attribute(tool, "gen_ai.tool.call.id").is_some()
        );
    }
    assert!(
        tools
            .iter()
            .any(|tool| span_attribute(tool, "gen_ai.tool.name") == Some(&json!({"stringValue": "shell"})))
    );
    // What was said only with --record-content.
    assert!(
        spans
            .iter()
            .all(|span| span_attribute(span, "gen_ai.input.messages").is_none())
    );
    let recorded = otlp_spans(&content);
    let prompt = recorded
        .iter()
        .filter_map(|span| span_attribute(span, "gen_ai.input.messages"))
        .find(|value| value["stringValue"].as_str().unwrap().contains("first question"));
    assert!(prompt.is_some(), "the prompt is recorded");

    let (code, _, stderr) = run(&[
        "export",
        "/nonexistent-agentwire-folder",
        "--otlp-file",
        first.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no index here"), "{stderr}");
    fs::remove_dir_all(&root).unwrap();
}

/// A local OTLP/HTTP endpoint for one test: every request's path and body, answered `status`.
fn otlp_receiver(status: u16) -> (String, std::sync::mpsc::Receiver<(String, String)>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let (sender, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let sender = sender.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut writer = stream;
                loop {
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0;
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        if header.trim().is_empty() {
                            break;
                        }
                        if let Some((name, value)) = header.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap();
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let path = request_line.split_whitespace().nth(1).unwrap_or_default().to_owned();
                    let _ = sender.send((path, String::from_utf8(body).unwrap()));
                    let answer = if status == 200 {
                        "{}"
                    } else {
                        "{\"message\":\"quota exceeded\"}"
                    };
                    let _ = write!(
                        writer,
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                }
            });
        }
    });
    (address, received)
}

#[test]
fn export_sends_the_traces_to_an_otlp_receiver_and_says_when_it_refuses() {
    let root = home::scratch("otlp-http", SEARCH_HOME);
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    let dir = root.join("out");
    let dir = dir.to_str().unwrap();
    let file = root.join("spans.jsonl");

    let (address, received) = otlp_receiver(200);
    let (code, stdout, stderr) = run(&["export", dir, "--otlp", &address, "--otlp-file", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("/v1/traces: "), "{stdout}");
    let requests: Vec<(String, String)> = received.try_iter().collect();
    assert_eq!(requests.len(), 3, "one request per session");
    assert!(requests.iter().all(|(path, _)| path == "/v1/traces"));
    // What was sent is what the file holds, line for line.
    let lines: Vec<String> = fs::read_to_string(&file).unwrap().lines().map(str::to_owned).collect();
    let sent: Vec<String> = requests.into_iter().map(|(_, body)| body).collect();
    assert_eq!(sent, lines);

    let (refusing, _) = otlp_receiver(429);
    let (code, _, stderr) = run(&["export", dir, "--otlp", &refusing]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains(&format!("{refusing}/v1/traces: the receiver answered 429")),
        "{stderr}"
    );
    assert!(stderr.contains("quota exceeded"), "{stderr}");

    // A receiver that is down.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (code, _, stderr) = run(&["export", dir, "--otlp", &format!("http://127.0.0.1:{port}")]);
    assert_ne!(code, 0);
    assert!(stderr.contains("cannot send the traces"), "{stderr}");
    // Neither a receiver nor a file: said.
    let (code, _, _) = run(&["export", dir]);
    assert_eq!(code, 2);
    fs::remove_dir_all(&root).unwrap();
}
