//! `agentwire import` over a home folder holding every family's files, OpenCode's SQLite store
//! (`~/.local/share/opencode/opencode.db`) and `opencode export` documents among them: one index,
//! one canonical session per OpenCode session, each the same bytes as normalizing its export.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod home;

use home::{corpus, files, import, index, run};

/// Where each corpus file goes in the home folder: one of every family.
const HOME: &[(&str, &str)] = &[
    (
        "codex-rollout/rollout-44.jsonl",
        ".codex/sessions/2026/11/30/rollout-2026-11-30T05-25-47-01a22aeb.jsonl",
    ),
    (
        "claude-session/bash_touch_allow.jsonl",
        ".claude/projects/-home-dev-work-sdk-bash-touch-allow/a9b3d18a-8c18-42f5-92c5-8fdeafcbfb6b.jsonl",
    ),
    (
        "gemini-session/edit/edit/chats/session-2026-12-06T13-38-41e919f0.jsonl",
        ".gemini/tmp/edit/chats/session-2026-12-06T13-38-41e919f0.jsonl",
    ),
    ("acp/plain.jsonl", "traces/acp-plain.jsonl"),
    ("opencode/plain.jsonl", "traces/opencode-plain.jsonl"),
    ("opencode-store/opencode.db", ".local/share/opencode/opencode.db"),
    ("opencode-store/export/plain.json", "exports/plain.json"),
];

/// The sessions of the store (`tests/corpus/opencode-store/README.md`'s table).
const STORE_SESSIONS: usize = 39;

/// The subagents' sessions among them (`subagent.subagent`, `run-subagent.subagent`): each is
/// read with its parent's session, not listed on its own.
const SUBAGENT_SESSIONS: usize = 2;

/// The sessions of the store `import` lists: one per session with no parent.
const STORE_ENTRIES: usize = STORE_SESSIONS - SUBAGENT_SESSIONS;

fn scratch(tag: &str) -> PathBuf {
    home::scratch(&format!("store-{tag}"), HOME)
}

/// A home folder of every family gives one index: each trace file one session, the store one
/// session per OpenCode session with no parent (`STORE#SESSION`; a subagent's session is read
/// with its parent's, its items under the parent's `task` item), the export one more; `-j`
/// changes no byte and a second run finds everything up to date.
#[test]
fn a_home_folder_of_every_family_gives_one_index() {
    let root = scratch("home");
    let (code, stderr) = import(&root, "one", &["-j1"]);
    assert_eq!(code, 0, "{stderr}");
    let entries = index(&root, "one");
    let by_source = |source: &str| entries.values().filter(|entry| entry["source"] == source).count();
    for source in ["codex-rollout", "claude-session", "gemini-session", "acp", "opencode"] {
        assert_eq!(by_source(source), 1, "{source}: {stderr}");
    }
    assert_eq!(by_source("opencode-session"), STORE_ENTRIES + 1, "{stderr}");
    assert_eq!(entries.len(), 5 + STORE_ENTRIES + 1);
    let store = ".local/share/opencode/opencode.db";
    assert!(!entries.contains_key(&format!("{store}#ses_db45e7efdffekCfYZhCQOAfcw2")));
    let parent = &entries[&format!("{store}#ses_db45e846fffeP7Kpscj3QM44jA")];
    assert_eq!(parent["threads"], 2, "the parent's thread and its subagent's");
    let events: Vec<Value> = fs::read_to_string(root.join("one").join(parent["output"].as_str().unwrap()))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .collect();
    let task = events
        .iter()
        .find(|event| event["type"] == "item.started" && event["payload"]["itemType"] == "collab_agent_tool_call")
        .expect("the task item")["itemId"]
        .clone();
    let child_thread = events
        .iter()
        .filter(|event| event["type"] == "thread.started")
        .nth(1)
        .expect("the subagent's thread")["threadId"]
        .clone();
    let under: Vec<&Value> = events
        .iter()
        .filter(|event| event["type"] == "item.completed" && event["threadId"] == child_thread)
        .collect();
    assert_eq!(under.len(), 4, "the subagent's prompt, reasoning, command and answer");
    assert!(
        under
            .iter()
            .all(|event| event["payload"]["data"]["parentItemId"] == task),
        "{under:#?}"
    );

    assert_eq!(import(&root, "two", &["-j2"]).0, 0);
    assert!(
        files(&root.join("one")) == files(&root.join("two")),
        "-j1 and -j2 differ"
    );

    let (code, stderr) = import(&root, "one", &[]);
    assert_eq!(code, 0);
    let total = 5 + STORE_ENTRIES + 1;
    assert!(
        stderr.contains(&format!("imported 0 session(s), {total} up to date")),
        "{stderr}"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Each session of the store is byte for byte what `agentwire normalize` makes of its export,
/// but for the v2 sessions and the sessions of a subagent's parent, whose output is the store's
/// only, byte for byte its golden (`tests/golden/opencode-session/store/<name>.jsonl`): `opencode
/// export` lists none of a v2 session's messages, the store reads each `session_message` row; an
/// export holds one session, the store reads a subagent's session after its parent's messages.
#[test]
fn the_store_and_the_exports_agree() {
    let root = scratch("agree");
    assert_eq!(import(&root, "out", &[]).0, 0);
    let entries = index(&root, "out");
    let mut exports: Vec<PathBuf> = fs::read_dir(corpus("opencode-store/export"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    exports.sort();
    assert_eq!(exports.len(), STORE_SESSIONS);
    let (mut same, mut v2, mut parents, mut children) = (0, Vec::new(), Vec::new(), 0);
    for export in &exports {
        let document: Value = serde_json::from_str(&fs::read_to_string(export).unwrap()).unwrap();
        let id = document["info"]["id"].as_str().unwrap();
        let name = export.file_stem().unwrap().to_string_lossy().into_owned();
        let golden = corpus("../golden/opencode-session/store").join(format!("{name}.jsonl"));
        if document["info"]["parentID"].is_string() {
            assert!(
                !entries.contains_key(&format!(".local/share/opencode/opencode.db#{id}")),
                "{name}: read with its parent"
            );
            children += 1;
            continue;
        }
        let entry = &entries[&format!(".local/share/opencode/opencode.db#{id}")];
        let stored = fs::read_to_string(root.join("out").join(entry["output"].as_str().unwrap())).unwrap();
        let (code, normalized, stderr) = run(&["normalize", export.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
        if name.ends_with("subagent") {
            assert!(
                stored.starts_with(normalized.lines().next().unwrap()),
                "{name}: the parent's session first"
            );
            assert!(
                stored == fs::read_to_string(&golden).unwrap(),
                "{name}: the store and its golden differ"
            );
            parents.push(name);
        } else if name.starts_with("v2_") {
            let turns = |text: &str| {
                text.lines()
                    .filter(|line| line.contains(r#""type":"turn.started""#))
                    .count()
            };
            assert_eq!(
                (turns(&normalized), turns(&stored)),
                (0, 1),
                "{name}: the conversation is the store's"
            );
            assert!(!stored.contains("runtime.warning"), "{name}: every row is read");
            assert!(
                stored == fs::read_to_string(&golden).unwrap(),
                "{name}: the store and its golden differ"
            );
            v2.push(name);
        } else {
            assert!(stored == normalized, "{name}: the store and the export differ");
            same += 1;
        }
    }
    assert_eq!(
        (same, v2.len(), parents.len(), children),
        (
            STORE_ENTRIES - 4 - SUBAGENT_SESSIONS,
            4,
            SUBAGENT_SESSIONS,
            SUBAGENT_SESSIONS
        ),
        "{v2:?} {parents:?}"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// A `session_message` row of a kind the pinned schema does not know, and one whose `data` does
/// not fit its kind, are each a warning naming the row and why; the rows after them are read.
#[test]
fn a_v2_row_that_does_not_fit_is_reported_and_the_rest_is_read() {
    let root = scratch("v2row");
    let store = root.join("home/.local/share/opencode/opencode.db");
    let session = "ses_db45e60b2ffeUsIlwDTpHW6IOd";
    let rows = [
        (
            "msg_zz0001",
            "handoff",
            r#"{"time":{"created":1796565215000},"text":"elsewhere"}"#,
        ),
        ("msg_zz0002", "user", r#"{"time":{"created":1796565216000},"text":7}"#),
        (
            "msg_zz0003",
            "user",
            r#"{"time":{"created":1796565217000},"text":"Once more."}"#,
        ),
    ];
    let connection = rusqlite::Connection::open(&store).unwrap();
    for (seq, (id, kind, data)) in rows.iter().enumerate() {
        connection
            .execute(
                "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) \
                 VALUES (?1, ?2, ?3, ?4, 1796565215000, 1796565215000, ?5)",
                rusqlite::params![id, session, kind, 100 + seq as i64, data],
            )
            .unwrap();
    }
    drop(connection);
    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    let entry = &index(&root, "out")[&format!(".local/share/opencode/opencode.db#{session}")];
    let events: Vec<Value> = fs::read_to_string(root.join("out").join(entry["output"].as_str().unwrap()))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let warnings: Vec<&str> = events
        .iter()
        .filter(|event| event["type"] == "runtime.warning")
        .map(|event| event["payload"]["detail"]["error"].as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("msg_zz0001") && warnings[0].contains("handoff"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("msg_zz0002") && warnings[1].contains("expected a string"),
        "{warnings:?}"
    );
    let prompts: Vec<&str> = events
        .iter()
        .filter(|event| event["type"] == "item.completed" && event["payload"]["itemType"] == "user_message")
        .map(|event| event["payload"]["data"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["Think, then say hi.", "Once more."]);
    assert_eq!(entry["turns"], 2);
    fs::remove_dir_all(&root).unwrap();
}

/// A store a running OpenCode is writing (WAL mode, a write transaction open) is read through its
/// WAL without waiting: what was committed, the open transaction's writes not.
#[test]
fn a_store_being_written_is_read_as_committed() {
    let root = scratch("writing");
    let store = root.join("home/.local/share/opencode/opencode.db");
    let id = |export: &str| -> String {
        let text = fs::read_to_string(corpus(&format!("opencode-store/export/{export}.json"))).unwrap();
        let document: Value = serde_json::from_str(&text).unwrap();
        document["info"]["id"].as_str().unwrap().to_string()
    };
    let (committed, pending) = (id("plain"), id("thinking"));
    let writer = rusqlite::Connection::open(&store).unwrap();
    let mode: String = writer
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    writer
        .execute(
            "UPDATE session SET title = 'committed while running' WHERE id = ?1",
            [&committed],
        )
        .unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    writer
        .execute(
            "UPDATE session SET title = 'not committed yet' WHERE id = ?1",
            [&pending],
        )
        .unwrap();
    let mut wal = store.clone().into_os_string();
    wal.push("-wal");
    assert!(Path::new(&wal).exists(), "the store is in WAL mode");

    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    let entries = index(&root, "out");
    let sessions = entries.keys().filter(|input| input.contains("opencode.db#")).count();
    assert_eq!(sessions, STORE_ENTRIES);
    let title = |session: &str| -> String {
        let entry = &entries[&format!(".local/share/opencode/opencode.db#{session}")];
        let text = fs::read_to_string(root.join("out").join(entry["output"].as_str().unwrap())).unwrap();
        text.lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|event| event["type"] == "thread.metadata.updated")
            .and_then(|event| event["payload"]["name"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    assert_eq!(title(&committed), "committed while running");
    assert_ne!(title(&pending), "not committed yet");
    writer.execute_batch("ROLLBACK").unwrap();
    drop(writer);
    fs::remove_dir_all(&root).unwrap();
}

/// A truncated export keeps what it holds and names the line it stops at; an SQLite file that is
/// no OpenCode store is skipped; a corrupt store is a failure naming it; the rest is imported.
#[test]
fn bad_stores_and_documents_are_reported_and_the_rest_go_on() {
    let root = scratch("bad");
    let home = root.join("home");
    let text = fs::read_to_string(corpus("opencode-store/export/edit.json")).unwrap();
    let cut = &text[..text.len() * 2 / 3];
    fs::write(home.join("exports/cut.json"), cut).unwrap();
    let other = home.join("other.db");
    rusqlite::Connection::open(&other)
        .and_then(|connection| connection.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);"))
        .expect("an SQLite file of another program");
    let mut corrupt = b"SQLite format 3\0".to_vec();
    corrupt.extend(std::iter::repeat_n(0xA5, 4096));
    fs::write(home.join("broken.db"), corrupt).unwrap();

    let (code, stderr) = import(&root, "out", &[]);
    assert_eq!(code, 1, "{stderr}");
    let cut_name = home.join("exports/cut.json").display().to_string();
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with(&format!("{cut_name}:")) && line.contains("not a whole document")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}: skipped: not a supported trace", other.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:", home.join("broken.db").display())) && stderr.contains("failed:"),
        "{stderr}"
    );
    let entries = index(&root, "out");
    assert_eq!(entries["exports/cut.json"]["unreadableLines"], 1);
    assert!(
        entries["exports/cut.json"]["items"].as_u64().unwrap() > 0,
        "what the cut file holds is read"
    );
    assert_eq!(entries.len(), 5 + STORE_ENTRIES + 2);
    fs::remove_dir_all(&root).unwrap();
}
