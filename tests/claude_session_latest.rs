//! Claude Code 2.1.337 session files (`tests/corpus/claude-session-2.1.337/`, kept in Claude
//! Code's own layout: `<run>/<session id>.jsonl`, a subagent's at
//! `<run>/<session id>/subagents/agent-<id>.jsonl` beside its `.meta.json`) read by the
//! `claude-session` source, whose hand-written schema follows 2.1.337 and still reads 2.1.62.
//!
//! Every record decodes into the variant its `type` names, every record rides as `raw` on an event,
//! in order, and the only warning is the one this corpus still owes a decision: a subagent's file
//! read alone, whose Task call is in its parent's file. `tests/equivalence.rs` holds each file to
//! the live run it came from.

use std::path::{Path, PathBuf};

use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;
use agentwire_canonical::RuntimeEvent;
use agentwire_tests::{normalize, tests_dir};

/// Every session file under the folder, subagents' included, sorted.
fn session_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
            let path = entry.expect("a corpus entry").path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&tests_dir().join("corpus/claude-session-2.1.337"), &mut files);
    files.sort();
    files
}

#[test]
fn every_record_of_claude_code_2_1_337_decodes() {
    let files = session_files();
    assert!(files.len() >= 24, "{} session files", files.len());
    let mut conformer = Source::CLAUDE_SESSION.conformer();
    let (mut records, mut failures) = (0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        for (index, line) in text.lines().enumerate() {
            records += 1;
            let frame = Frame::parse(line, LineFormat::Bare).expect("a JSON line");
            if let Err(problem) = conformer.decode(&frame) {
                failures.push(format!("{}:{}: {problem}", path.display(), index + 1));
            }
        }
    }
    eprintln!("{} files, {records} records, {} undecoded", files.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_record_rides_as_raw_and_only_a_subagent_file_alone_warns() {
    for path in session_files() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let normalized = normalize(Source::CLAUDE_SESSION, &path);
        let payloads: Vec<&str> = normalized
            .events
            .iter()
            .filter_map(|event| event.raw.as_ref().map(|raw| raw.payload.get()))
            .collect();
        let mut next = 0;
        for (index, line) in text.lines().enumerate() {
            let carried = agentwire_tests::carried_by_default(line);
            let at = payloads[next..].iter().position(|payload| *payload == carried);
            let at = at.unwrap_or_else(|| panic!("{}:{}: no event carries the record", path.display(), index + 1));
            next += at + 1;
        }
        let subagent_alone = path.components().any(|part| part.as_os_str() == "subagents");
        for event in &normalized.events {
            if let RuntimeEvent::RuntimeWarning(warning) = &event.event {
                let owed = subagent_alone && warning.message.starts_with("a subagent's record");
                assert!(owed, "{}: {}", path.display(), warning.message);
            }
        }
    }
}

/// Since 2.1.33x a tool result's record says how the call was decided (`permissionDecision`,
/// `toolDenialKind`): a call the host refused is `declined` from the file, as the live run saw it,
/// and a call it allowed completes.
#[test]
fn a_refused_call_is_declined_from_the_file_as_it_is_live() {
    let outcome = |run: &str| -> Vec<String> {
        let dir = tests_dir().join("corpus/claude-session-2.1.337").join(run);
        let file = std::fs::read_dir(&dir)
            .expect("a run folder")
            .map(|entry| entry.expect("an entry").path())
            .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .expect("its session file");
        normalize(Source::CLAUDE_SESSION, &file)
            .events
            .iter()
            .filter_map(|event| match &event.event {
                RuntimeEvent::ItemCompleted(item)
                    if matches!(
                        item.item_type,
                        agentwire_canonical::CanonicalItemType::CommandExecution
                            | agentwire_canonical::CanonicalItemType::FileChange
                    ) =>
                {
                    item.status.map(|status| status.as_str().to_string())
                }
                _ => None,
            })
            .collect()
    };
    assert_eq!(outcome("bash_touch_deny"), ["declined"]);
    assert_eq!(outcome("write_deny"), ["declined"]);
    assert_eq!(outcome("bash_touch_allow"), ["completed"]);
    assert_eq!(outcome("write_allow"), ["completed"]);
}
