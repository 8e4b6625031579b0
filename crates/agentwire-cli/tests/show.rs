//! `agentwire show` and `import --html` as a person runs them: text of golden traces and of a
//! hand-built canonical session (`tests/show/session.jsonl`, whose item content fits the
//! canonical content types), the same text from a trace and from its canonical JSONL, colour
//! only when asked or on a terminal, HTML that escapes provider text, and the pages `import
//! --html` writes. The browser check (`html_page_reads_in_a_browser`) needs Chromium; it is
//! ignored by `cargo test` and run by `cargo xtask test`, which installs Chromium when missing.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_agentwire");

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(name)
}

/// The hand-built session: two turns, a failed and a passing command, a subagent with nested
/// items, a diff, a plan, an MCP call, an accepted and a waiting request, an error.
fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/show/session.jsonl")
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentwire-show-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let output = Command::new(BIN)
        .args(args)
        .envs(envs.iter().copied())
        .env_remove("NO_COLOR")
        .output()
        .expect("run agentwire");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

fn show(args: &[&str]) -> String {
    let mut all = vec!["show"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = run(&all, &[]);
    assert_eq!(code, 0, "agentwire {all:?}: {stderr}");
    stdout
}

fn path(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn assert_contains(text: &str, expected: &[&str]) {
    for line in expected {
        assert!(text.contains(line), "expected {line:?} in:\n{text}");
    }
}

#[test]
fn golden_traces_read_as_conversations() {
    let codex = show(&[path(&corpus("codex-app-server/all.jsonl"))]);
    assert_contains(
        &codex,
        &[
            "provider: codex · model: mock-model · cwd: /home/dev/project",
            "── turn 1 · 05:28:07 UTC ──\n> SCENARIO:all please do the thing\nthinking: Planning the work\n",
            "Running a command now.",
            // The command as a person reads it, without Codex's `/bin/bash -lc` wrapper.
            "$ echo hello && ls exit 0\n  │ hello\n  │ README.md\n",
            "✎ add /home/dev/project/all.txt\n    +Hello from the mock model\n    +second line\n",
            "All done: ran echo and created all.txt.",
            "plan\n    [~] Run echo\n    [ ] Create file\n",
            "── completed · 850 in (256 cached) · 102 out tokens\n",
            "session: 850 in (256 cached) · 102 out tokens",
        ],
    );
    let claude = show(&[path(&corpus("claude/v0.3.332-stream_input_two_turns.jsonl"))]);
    assert_contains(
        &claude,
        &[
            "> first question\nI'll run the command.\n$ echo hello exit 0\n  │ hello\nThe command printed: hello\n",
            "── completed · 223 in · 69 out tokens · $0.0023",
            "── turn 2 · 03:01:07 UTC ──\n> second question\n",
            // Each turn carries its own cost, so the session's is their sum, Claude's own total.
            "── completed · 113 in · 18 out tokens · $0.0008",
            "session: 336 in · 87 out tokens · $0.0031",
        ],
    );
    let plan = show(&[path(&corpus("claude-control/v0.3.332-sdk_exit_plan_mode_allow.jsonl"))]);
    assert_contains(
        &plan,
        &[
            "· proposed plan: 1. Create hello.txt\n    2. Verify it\n",
            "? plan approval: 1. Create hello.txt → accept\n    2. Verify it\n",
        ],
    );
    let acp = show(&[path(&corpus("acp/tool_allow.jsonl"))]);
    assert_contains(
        &acp,
        // The card comes before the command it decided.
        &["? command execution approval: touch made_by_bash.txt → accept\n$ touch made_by_bash.txt\n"],
    );
}

#[test]
fn a_canonical_session_reads_in_full() {
    let text = show(&[path(&sample())]);
    assert_contains(
        &text,
        &[
            "The price test fails. Fix it and make sure the whole suite passes.\n\
             provider: codex · model: gpt-5.1-codex · cwd: /home/dev/shop · state: waiting",
            "── turn 1 · 09:14:05 UTC ──\n> The price test fails.",
            "thinking: Find the failing test, then fix the rounding in price().",
            // The tail of the output, with how much came before.
            "$ cargo test exit 101 [failed]\n  │ … 7 earlier line(s)\n  │ test price::tests::whole ... ok\n",
            "  │ test result: FAILED. 11 passed; 1 failed\n",
            // The subagent's items nested under the call that started it.
            "⚙ agent explorer(Find every caller of price())\n    $ rg -n 'price\\(' src exit 0\n",
            "    price() is called from cart.rs only; rounding to cents there is safe.\n",
            "✎ update src/price.rs\n    @@ -8,5 +8,5 @@\n",
            "    -    (cents as f64 / 100.0).round()\n    +    (cents as f64).round() / 100.0\n",
            "? command execution approval: cargo test --all → accept",
            "plan\n    [x] Run the test suite\n    [x] Fix the rounding in price()\n",
            "── completed · 18,234 in · 1,204 out tokens · $0.0421",
            "⚙ github.create_pull_request(title=Round prices to cents, base=main, head=fix-price)\n    → https://github.com/acme/shop/pull/42",
            "? command execution approval: git push origin fix-price → waiting",
            "error: github: rate limited, retrying in 2 s\n── running\n",
            "session: 18,234 in · 1,204 out tokens · $0.0421 · 1 request(s) waiting",
        ],
    );
}

#[test]
fn canonical_jsonl_reads_as_its_trace() {
    let dir = scratch("canonical");
    for trace in [
        "codex-app-server/all.jsonl",
        "claude/v0.3.332-stream_input_two_turns.jsonl",
        "acp/tool_allow.jsonl",
        "codex-exec/shell.jsonl",
    ] {
        let (code, canonical, stderr) = run(&["normalize", "--clock", "file", path(&corpus(trace))], &[]);
        assert_eq!(code, 0, "{trace}: {stderr}");
        let file = dir.join("canonical.jsonl");
        fs::write(&file, &canonical).unwrap();
        let from_trace = show(&[path(&corpus(trace))]);
        // Canonical JSONL keeps its times, not what they came from (the import index does).
        let undated = from_trace
            .replace(" (from the thread's id)", "")
            .replace(" (from the file's modification time)", "");
        assert_eq!(
            show(&[path(&file)]),
            undated,
            "{trace}: canonical JSONL reads as the trace"
        );
        let source = trace.split('/').next().unwrap();
        assert_eq!(
            show(&["--from", source, path(&corpus(trace))]),
            from_trace,
            "{trace}: --from reads as detection"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// `agentwire show -` with `input` on stdin: exit code, stdout, stderr.
fn show_stdin(input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(["show", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run agentwire");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn stdin_reads_as_a_file_and_bad_lines_are_reported() {
    let trace = fs::read(corpus("codex-app-server/all.jsonl")).unwrap();
    let (code, text, stderr) = show_stdin(&trace);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(text, show(&[path(&corpus("codex-app-server/all.jsonl"))]));

    let mut canonical = fs::read_to_string(sample()).unwrap();
    canonical.insert_str(canonical.find('\n').unwrap() + 1, "not an event\n");
    let (code, text, stderr) = show_stdin(canonical.as_bytes());
    assert_eq!(code, 1, "a line that is no event makes the status 1");
    assert!(stderr.contains("<stdin>:2: not a canonical event"), "{stderr}");
    assert_eq!(text, show(&[path(&sample())]), "the other lines are drawn");
}

#[test]
fn plain_text_off_a_terminal_colour_when_asked() {
    let file = sample();
    for args in [
        vec![path(&file)],
        vec!["--color", "auto", path(&file)],
        vec!["--color", "never", path(&file)],
    ] {
        let text = show(&args);
        assert!(
            !text.contains('\x1b'),
            "{args:?}: no escape byte off a terminal:\n{text}"
        );
    }
    let coloured = show(&["--color", "always", path(&file)]);
    assert_contains(
        &coloured,
        &[
            "\x1b[31m exit 101\x1b[0m",
            "\x1b[32m exit 0\x1b[0m",
            // The indent stays uncoloured.
            "    \x1b[31m-    (cents as f64 / 100.0).round()\x1b[0m",
            "    \x1b[32m+    (cents as f64).round() / 100.0\x1b[0m",
            "\x1b[31merror: github: rate limited, retrying in 2 s\x1b[0m",
        ],
    );
    let (_, quiet, _) = run(&["show", "--color", "always", path(&file)], &[("NO_COLOR", "1")]);
    assert!(quiet.contains('\x1b'), "--color always wins over NO_COLOR");
}

/// `agentwire show FILE` on a pseudo-terminal (util-linux's `script`, part of every Debian),
/// with `NO_COLOR` as given.
fn show_on_a_terminal(file: &Path, no_color: Option<&str>) -> String {
    let mut command = Command::new("script");
    command
        .args(["-qec", &format!("'{BIN}' show '{}'", path(file)), "/dev/null"])
        .env_remove("NO_COLOR");
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    let output = command.output().expect("util-linux's script runs a pseudo-terminal");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn colour_on_a_terminal_unless_no_color() {
    let file = sample();
    assert!(show_on_a_terminal(&file, None).contains("\x1b[32m exit 0\x1b[0m"));
    assert!(
        show_on_a_terminal(&file, Some("")).contains('\x1b'),
        "an empty NO_COLOR is unset"
    );
    assert!(!show_on_a_terminal(&file, Some("1")).contains('\x1b'), "NO_COLOR=1");
}

/// A canonical event of the hostile session.
fn event(number: usize, kind: &str, payload: Value, item: Option<&str>) -> String {
    let mut event = json!({
        "eventId": format!("evt-{number}"),
        "provider": "claudeAgent",
        "sessionId": "sess-<b>hostile</b>",
        "createdAt": "2026-12-01T10:00:00.000Z",
        "threadId": "thread-1",
        "turnId": "turn-1",
        "type": kind,
        "payload": payload,
    });
    if let Some(item) = item {
        event["itemId"] = json!(item);
    }
    event.to_string()
}

#[test]
fn html_escapes_provider_text() {
    let dir = scratch("escape");
    let script = "<script>alert('x')</script>";
    let lines = [
        event(1, "turn.started", json!({}), None),
        event(
            2,
            "item.completed",
            json!({"itemType": "user_message", "data": {"text": format!("hi {script}")}}),
            Some("i1"),
        ),
        event(
            3,
            "item.completed",
            json!({"itemType": "command_execution", "title": script, "data": {"command": format!("echo \"{script}\""), "exitCode": 0, "output": script}}),
            Some("i2"),
        ),
        event(
            4,
            "item.completed",
            json!({"itemType": "assistant_message", "data": {"text": format!("<img src=x onerror=alert(1)> & {script}")}}),
            Some("i3"),
        ),
        event(
            5,
            "item.completed",
            json!({"itemType": "file_change", "data": {"changes": [{"path": "<b>.rs", "kind": "add", "diff": script}]}}),
            Some("i4"),
        ),
        event(6, "runtime.error", json!({"message": script}), None),
        event(
            7,
            "turn.completed",
            json!({"state": "failed", "errorMessage": "</div><script>x()</script>"}),
            None,
        ),
    ];
    let input = dir.join("hostile.jsonl");
    fs::write(&input, lines.join("\n") + "\n").unwrap();
    let page = dir.join("page.html");
    show(&["--html", path(&page), path(&input)]);
    let html = fs::read_to_string(&page).unwrap();
    let lower = html.to_lowercase();
    assert!(!lower.contains("<script"), "no script element:\n{html}");
    assert!(!lower.contains("<img"), "no img element:\n{html}");
    assert!(!lower.contains("<b>"), "no b element:\n{html}");
    assert_contains(
        &html,
        &[
            "hi &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;",
            "echo &quot;&lt;script&gt;",
            "&lt;img src=x onerror=alert(1)&gt; &amp; &lt;script&gt;",
            "&lt;b&gt;.rs",
            "&lt;/div&gt;&lt;script&gt;x()&lt;/script&gt;",
            "content=\"default-src 'none'; style-src 'unsafe-inline'\"",
        ],
    );
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no network address"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn program_messages_are_no_prompts_and_attachments_are_named() {
    let dir = scratch("origin");
    let lines = [
        event(
            1,
            "item.completed",
            json!({"itemType": "user_message", "data": {"text": "<task-notification>done</task-notification>", "origin": "cli"}}),
            Some("i1"),
        ),
        event(
            2,
            "item.completed",
            json!({"itemType": "user_message", "data": {"text": "What does this plot say?", "attachments": [{"kind": "image", "name": "plot.png"}, {"kind": "file", "path": "/tmp/data.csv"}]}}),
            Some("i2"),
        ),
    ];
    let input = dir.join("origin.jsonl");
    fs::write(&input, lines.join("\n") + "\n").unwrap();
    let text = show(&[path(&input)]);
    assert!(
        text.starts_with("What does this plot say?\n"),
        "the title is the person's prompt:\n{text}"
    );
    assert_contains(
        &text,
        &[
            "· from the program: <task-notification>done</task-notification>\n",
            "> What does this plot say?\n  [attached: plot.png, /tmp/data.csv]\n",
        ],
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn terminal_controls_in_provider_text_are_neutralized() {
    let dir = scratch("controls");
    let hostile = "clear\x1b[2J\x1b]0;pwned\x07 done\r";
    let lines = [
        event(
            1,
            "item.completed",
            json!({"itemType": "user_message", "data": {"text": hostile}}),
            Some("i1"),
        ),
        event(
            2,
            "item.completed",
            json!({"itemType": "assistant_message", "data": {"text": hostile}}),
            Some("i2"),
        ),
        event(
            3,
            "item.completed",
            json!({"itemType": "dynamic_tool_call", "data": {"tool": hostile, "arguments": {"x": hostile}}}),
            Some("i3"),
        ),
        event(
            4,
            "item.completed",
            json!({"itemType": "unknown", "data": {"text": hostile}}),
            Some("i4"),
        ),
    ];
    let input = dir.join("controls.jsonl");
    fs::write(&input, lines.join("\n") + "\n").unwrap();
    let plain = show(&[path(&input)]);
    assert!(
        !plain.contains(|c: char| c.is_control() && c != '\n'),
        "no control character off a terminal:\n{plain:?}"
    );
    assert_contains(&plain, &["clear\u{fffd}[2J\u{fffd}]0;pwned\u{fffd} done\u{fffd}"]);
    let coloured = show(&["--color", "always", path(&input)]);
    assert!(
        !coloured.contains("\x1b[2J") && !coloured.contains('\x07'),
        "{coloured:?}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn import_html_writes_a_page_per_session_and_an_index() {
    let dir = scratch("import");
    let home = dir.join("home");
    let traces = [
        ("codex-app-server/all.jsonl", "codex-app-server", "all.jsonl"),
        ("claude/v0.3.332-stream_input_two_turns.jsonl", "claude", "two.jsonl"),
        ("acp/tool_allow.jsonl", "acp", "tool.jsonl"),
    ];
    for (trace, folder, name) in traces {
        fs::create_dir_all(home.join(folder)).unwrap();
        fs::copy(corpus(trace), home.join(folder).join(name)).unwrap();
    }
    let out = dir.join("out");
    let (code, stdout, stderr) = run(&["import", path(&home), "--out", path(&out), "--html"], &[]);
    assert_eq!((code, stdout.as_str()), (0, ""), "import --html: {stderr}");
    let index_lines: Vec<Value> = fs::read_to_string(out.join("sessions.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(index_lines.len(), 3);
    let index = fs::read_to_string(out.join("index.html")).expect("index.html");
    for entry in &index_lines {
        let output = entry["output"].as_str().unwrap();
        let page = output.replace(".jsonl", ".html");
        assert!(out.join(&page).is_file(), "{page} beside {output}");
        assert!(
            index.contains(&format!("<a href=\"{page}\">")),
            "index links {page}:\n{index}"
        );
        assert!(index.contains(&format!("<td>{}</td>", entry["source"].as_str().unwrap())));
    }
    assert_contains(
        &index,
        &[
            "<a href=\"claude/",
            "\">first question</a></td><td>claude</td><td>claude-opus-5-5</td><td>2026-12-01 03:01 UTC</td><td>2</td>\
             <td></td><td>336 in · 87 out tokens</td><td>$0.0031</td>",
            // Grouped by project, with the day's cost and tokens charted per source.
            "<h2 class=\"project\">/home/dev/work/cli-stream_input_two_turns <span class=\"count\">1 session(s)</span></h2>",
            "<figcaption>cost per day</figcaption>",
            "<title>2026-12-01 · claude · $0.0031</title>",
            "\">touch a file</a></td><td>acp</td>",
        ],
    );
    let claude = index_lines.iter().find(|entry| entry["source"] == "claude").unwrap();
    let page = fs::read_to_string(out.join(claude["output"].as_str().unwrap().replace(".jsonl", ".html"))).unwrap();
    assert_contains(
        &page,
        &[
            "<nav><a href=\"../index.html\">← all sessions</a></nav>",
            "<div class=\"card prompt\" title=\"2026-12-01 03:01:07 UTC\">first question</div>",
            "$0.0023",
        ],
    );

    // Imported again without --html, the pages stay; with it, they are drawn again.
    fs::remove_file(out.join("index.html")).unwrap();
    let (code, _, stderr) = run(&["import", path(&home), "--out", path(&out), "--html"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        out.join("index.html").is_file(),
        "an up-to-date import writes the index again"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// The page as a person sees it: Chromium loads it headless, the DOM it built holds the prompt,
/// the command card with its exit code, the plan and the turn footer, and a screenshot is taken
/// (written to `AGENTWIRE_SHOW_SCREENSHOT` when set, as `docs/show.png` was made).
#[test]
#[ignore = "needs Chromium: `cargo xtask test` installs it and runs this test"]
fn html_page_reads_in_a_browser() {
    let started = Instant::now();
    let dir = scratch("browser");
    let page = dir.join("session.html");
    show(&["--html", path(&page), path(&sample())]);
    let url = format!("file://{}", path(&page));
    let chromium = |extra: &[&str]| {
        let output = Command::new("chromium")
            .args(["--headless", "--disable-gpu", "--no-sandbox"])
            .args(extra)
            .arg(&url)
            .output()
            .expect("chromium is installed (apt-get install chromium; `cargo xtask test` does it)");
        assert!(
            output.status.success(),
            "chromium: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("UTF-8 DOM")
    };
    let dom = chromium(&["--dump-dom"]);
    assert_contains(
        &dom,
        &[
            "<div class=\"card prompt\" title=\"2026-12-01 09:14:06 UTC · took 1.0 s\">The price test fails. Fix it and make sure the whole suite passes.</div>",
            "<summary>all 17 line(s) of the output</summary>",
            "<ul class=\"totals\"><li><span class=\"key\">turns</span>2</li>",
            "<span class=\"label\">$</span>cargo test<span class=\"exit bad\">exit 101</span>",
            "<span class=\"exit ok\">exit 0</span>",
            "<li class=\"completed\">[x] Run the test suite</li>",
            "<div class=\"footer\">completed · 18,234 in · 1,204 out tokens · $0.0421</div>",
            "<span class=\"decision waiting\">→ waiting</span>",
            "<div class=\"children\">",
        ],
    );
    let screenshot =
        std::env::var_os("AGENTWIRE_SHOW_SCREENSHOT").map_or_else(|| dir.join("session.png"), PathBuf::from);
    chromium(&[
        &format!("--screenshot={}", path(&screenshot)),
        "--window-size=1200,1600",
    ]);
    let png = fs::read(&screenshot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a PNG of the page");
    println!(
        "browser check: Chromium loaded, checked and photographed the page in {:.1?}",
        started.elapsed()
    );
    let _ = fs::remove_dir_all(&dir);
}

/// The samples of `docs/show.md` (one trace per source) and of the README are what `agentwire
/// show` prints today: each block that opens with `$ agentwire show tests/corpus/...` is run and
/// compared, so the pages cannot drift from the mapping. After a deliberate change, run each
/// command again and paste its output.
#[test]
fn the_docs_samples_are_what_show_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let pages = ["docs/show.md", "README.md"].map(|page| fs::read_to_string(root.join(page)).expect(page));
    let mut checked = 0;
    let mut lines = pages.iter().flat_map(|page| page.lines());
    while let Some(line) = lines.next() {
        let Some(trace) = line.strip_prefix("$ agentwire show ") else {
            continue;
        };
        let printed: String = lines
            .by_ref()
            .take_while(|line| *line != "```")
            .map(|line| format!("{line}\n"))
            .collect();
        let text = show(&["--color", "never", path(&root.join(trace))]);
        assert_eq!(text, printed, "`{line}` prints otherwise");
        checked += 1;
    }
    assert_eq!(checked, 9, "one sample per source, and the README's");
}

/// A trace read as another source's gives no empty session and success: the exit status is 1
/// and stderr names the source the input looks like; an empty file says it is empty.
#[test]
fn the_wrong_source_and_an_empty_file_are_said() {
    let exec = corpus("codex-exec/shell.jsonl");
    for command in ["show", "normalize"] {
        let (code, _, stderr) = run(&[command, "--from", "claude", path(&exec)], &[]);
        assert_eq!(code, 1, "{command}: {stderr}");
        assert!(
            stderr.contains("no line is a claude message; it looks like codex-exec (try --from codex-exec)"),
            "{command}: {stderr}"
        );
    }
    let dir = scratch("empty");
    let empty = dir.join("empty.jsonl");
    fs::write(&empty, "\n\n").unwrap();
    for args in [
        vec!["show"],
        vec!["normalize"],
        vec!["show", "--from", "claude"],
        vec!["normalize", "--from", "acp"],
    ] {
        let mut args = args;
        args.push(path(&empty));
        let (code, stdout, stderr) = run(&args, &[]);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            stderr.contains("empty: no line to read, so no session"),
            "{args:?}: {stderr}"
        );
        assert!(!stdout.contains("(no events)"), "{args:?}: {stdout}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// `show --json` prints the fold's snapshot: the same turns and items the text draws.
#[test]
fn show_json_prints_the_snapshot() {
    let trace = corpus("codex-app-server/all.jsonl");
    let snapshot: Value = serde_json::from_str(&show(&["--json", path(&trace)])).expect("one JSON document");
    assert_eq!(snapshot["session"]["provider"], "codex");
    assert_eq!(snapshot["session"]["state"], "stopped");
    let turns = snapshot["turns"].as_array().unwrap();
    let text = show(&[path(&trace)]);
    assert_eq!(text.matches("── turn ").count(), turns.len());
    assert!(
        snapshot["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["itemType"] == "command_execution")
    );
}

/// A stream that carries no time of its own is never dated 1970: codex exec by its thread's
/// UUIDv7, a `claude -p` stream by its file; the page says which, and every time has its zone.
#[test]
fn times_come_from_the_best_evidence_and_say_which() {
    let text = show(&[path(&corpus("codex-exec/shell.jsonl"))]);
    assert_contains(
        &text,
        &[
            "started: 2026-11-30 05:27:50 UTC (from the thread's id)",
            "── turn 1 · 05:27:50 UTC ──",
        ],
    );
    let claude = show(&[path(&corpus("claude/bash_allowedtools.jsonl"))]);
    assert!(claude.contains("UTC (from the file's modification time)"), "{claude}");
    let recorded = show(&[path(&corpus("codex-app-server/all.jsonl"))]);
    assert_contains(&recorded, &["started: 2026-11-30 05:28:07 UTC ·"]);
    for golden in [&text, &claude, &recorded] {
        assert!(!golden.contains("1970"), "{golden}");
    }
}

/// The page renders the assistant's Markdown (raw HTML in it stays text), folds a long output
/// whole under its tail, carries the session's totals, an item's times on hover, and a refusal
/// and a cancellation never in an accepted request's colour.
#[test]
fn the_page_renders_markdown_folds_long_output_and_tells_decisions_apart() {
    let dir = scratch("page");
    let output: Vec<String> = (1..=40).map(|n| format!("line {n}")).collect();
    let mut lines = vec![
        event(1, "turn.started", json!({"model": "mock-model"}), None),
        event(
            2,
            "item.completed",
            json!({"itemType": "assistant_message", "data": {"text": "**Done**: ran `ls`.\n\n- one\n- two\n\n<b>raw</b> [x](javascript:alert(1))"}}),
            Some("i1"),
        ),
        event(
            3,
            "item.completed",
            json!({"itemType": "command_execution", "data": {"command": "seq 40", "exitCode": 0, "output": output.join("\n")}}),
            Some("i2"),
        ),
    ];
    for (number, (request, decision)) in [("r1", "accept"), ("r2", "decline"), ("r3", "cancel")]
        .into_iter()
        .enumerate()
    {
        let mut opened: Value = serde_json::from_str(&event(
            4 + 2 * number,
            "request.opened",
            json!({"requestType": "command_execution_approval", "detail": format!("rm {request}")}),
            None,
        ))
        .unwrap();
        opened["requestId"] = json!(request);
        let mut resolved: Value = serde_json::from_str(&event(
            5 + 2 * number,
            "request.resolved",
            json!({"requestType": "command_execution_approval", "decision": decision}),
            None,
        ))
        .unwrap();
        resolved["requestId"] = json!(request);
        lines.push(opened.to_string());
        lines.push(resolved.to_string());
    }
    lines.push(event(10, "turn.completed", json!({"state": "completed"}), None));
    let input = dir.join("page.jsonl");
    fs::write(&input, lines.join("\n") + "\n").unwrap();
    let page = dir.join("page.html");
    let text = show(&["--html", path(&page), path(&input)]);
    let html = fs::read_to_string(&page).unwrap();
    assert_contains(
        &html,
        &[
            "<strong>Done</strong>: ran <code>ls</code>.",
            "<li>one</li>",
            "&lt;b&gt;raw&lt;/b&gt;",
            "<a href=\"\">x</a>",
            "<summary>all 40 line(s) of the output</summary>",
            "line 1\nline 2\n",
            "<li><span class=\"key\">turns</span>1</li>",
            "<li><span class=\"key\">models</span>mock-model</li>",
            "title=\"2026-12-01 10:00:00 UTC\"",
            "<span class=\"decision allowed\">→ accept</span>",
            "<span class=\"decision refused\">→ decline</span>",
            "<span class=\"decision stopped\">→ cancel</span>",
            "prefers-color-scheme: dark",
        ],
    );
    assert!(!html.to_lowercase().contains("javascript:"), "{html}");
    // The terminal keeps the tail.
    assert_contains(&text, &["… 30 earlier line(s)", "line 40"]);
    assert!(!text.contains("line 1\n"), "{text}");
    let _ = fs::remove_dir_all(&dir);
}

/// Rules over every trace of the corpus, as `show` draws it: no time is 1970, every time shown
/// has its zone, no subagent's instructions are drawn as the person's prompt, and an action whose
/// card was accepted is never drawn `declined` (a person's stop draws it `interrupted`).
#[test]
fn every_trace_reads_right() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut traces: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .flat_map(|dir| fs::read_dir(dir.unwrap().path()).into_iter().flatten())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    traces.sort();
    assert!(traces.len() > 200, "{}", traces.len());
    // Drawn on as many threads as the machine has cores: one process per trace.
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let drawn: Vec<(PathBuf, String)> = std::thread::scope(|scope| {
        let workers: Vec<_> = traces
            .chunks(traces.len().div_ceil(threads))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|trace| (trace.clone(), run(&["show", "--color", "never", path(trace)], &[]).1))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|worker| worker.join().unwrap()).collect()
    });
    for (trace, text) in &drawn {
        let name = trace.display();
        assert!(!text.contains("1970"), "{name}:\n{text}");
        for line in text
            .lines()
            .filter(|line| line.starts_with("── turn ") && line.contains(" · "))
        {
            assert!(line.ends_with(" UTC ──"), "{name}: {line}");
        }
        let lines: Vec<&str> = text.lines().collect();
        // A subagent's instructions are never drawn as the person's prompt.
        for line in &lines {
            assert!(
                !(line.starts_with(' ') && line.trim_start().starts_with("> ")),
                "{name}: a nested prompt: {line}"
            );
        }
        for pair in lines.windows(2) {
            let accepted = pair[0].trim_start().starts_with("? ") && pair[0].ends_with("→ accept");
            assert!(
                !(accepted && pair[1].ends_with("[declined]")),
                "{name}: accepted, then drawn declined:\n{}\n{}",
                pair[0],
                pair[1]
            );
        }
    }
}

/// `show --markdown`: the session as Markdown to paste into an issue: the prompt quoted, the
/// command and its output fenced, the diff as a `diff` block, the plan a checklist, the turn's
/// footer, and a subagent's work quoted under its call.
#[test]
fn markdown_reads_as_the_session_pasted_into_an_issue() {
    let codex = show(&["--markdown", path(&corpus("codex-app-server/all.jsonl"))]);
    assert_contains(
        &codex,
        &[
            "# SCENARIO:all please do the thing\n",
            "## Turn 1 · 05:28:07 UTC\n\n> SCENARIO:all please do the thing\n",
            "```sh\n$ echo hello && ls\n```\n*command · exit 0*\n\n```\nhello\nREADME.md\n```\n",
            "**add `/home/dev/project/all.txt`**\n\n```diff\n+Hello from the mock model\n+second line\n```\n",
            "- [ ] Run echo *(in progress)*\n- [ ] Create file\n",
            "*— completed · 850 in (256 cached) · 102 out tokens*\n",
        ],
    );
    assert!(!codex.contains('\x1b'), "no terminal colour in Markdown");
    let subagent = show(&["--markdown", path(&corpus("claude-session/task_subagent.jsonl"))]);
    assert_contains(
        &subagent,
        &[
            "**⚙ agent general-purpose** `Check echo`",
            "> *asked the subagent:* [[SUBAGENT]] Run echo sub and report.\n",
            "> ```sh\n> $ echo sub\n> ```\n",
            "The subagent reported back: sub.",
        ],
    );
}
