//! A host's two ways in, over every corpus trace: a live host's `received`/`sent` calls map a
//! transcript as `push_line` does, and the event iterator over a reader gives each trace's
//! golden; and what a live stream without times, an unreadable line and a broken reader do.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use agentwire::canonical::IsoDateTime;
use agentwire::frame::{Direction, Frame, LineFormat};
use agentwire::stream::{StreamError, events};
use agentwire::{Options, ProviderRuntimeEvent, Source, ids};

/// Every trace of a compiled source, with that source: the files of `tests/corpus/<source>/`.
fn corpus_traces() -> Vec<(Source, PathBuf)> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut traces = Vec::new();
    for &source in Source::ALL {
        let Ok(entries) = std::fs::read_dir(corpus.join(source.name())) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .map(|entry| entry.expect("a corpus entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        traces.extend(files.into_iter().map(|path| (source, path)));
    }
    traces
}

fn jsonl(events: &[ProviderRuntimeEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| serde_json::to_string(event).expect("events serialize"))
        .collect()
}

/// The events of a corpus trace read line by line with `push_line`, and the same trace fed as
/// a live host feeds it: each record's bare `msg` through `received` or `sent` by its `dir`,
/// its `ts` as the time, with the session id the first record would give. Live, a line with
/// no time is stamped with the wall clock, so in a trace with such lines `createdAt` is left
/// out of the comparison.
#[test]
fn received_and_sent_map_a_transcript_as_push_line_does() {
    let (mut traces, mut records) = (0, 0);
    for (source, path) in corpus_traces() {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let lines: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).collect();
        let Some(first) = lines.first() else { continue };
        let format = LineFormat::of(first);
        let (mut read, mut expected) = (source.normalizer(Options::default()), Vec::new());
        let live_options = Options::default().with_session_id(ids::default_session(first.as_bytes()));
        let (mut live, mut actual) = (source.normalizer(live_options), Vec::new());
        let mut untimed = format == LineFormat::Bare;
        for line in &lines {
            let by_line = read.push_line(line, format, &mut expected);
            let by_message = match format {
                LineFormat::Bare => live.received(line, None, &mut actual),
                LineFormat::Transcript => {
                    records += 1;
                    let record = Frame::parse(line, format)
                        .unwrap_or_else(|err| panic!("{}: a corpus record: {err}", path.display()));
                    untimed |= record.ts.is_none();
                    match record.dir {
                        Direction::In => live.received(record.msg.get(), record.ts, &mut actual),
                        Direction::Out => live.sent(record.msg.get(), record.ts, &mut actual),
                    }
                }
            };
            assert_eq!(by_message, by_line, "{}: {line}", path.display());
        }
        read.finish(&mut expected);
        live.finish(&mut actual);
        if untimed {
            for event in expected.iter_mut().chain(actual.iter_mut()) {
                event.created_at = IsoDateTime::new("2000-01-01T00:00:00.000Z").expect("a date-time");
            }
        }
        assert_eq!(jsonl(&actual), jsonl(&expected), "{}", path.display());
        traces += 1;
    }
    assert!(traces > 200 && records > 2000, "{traces} traces, {records} records");
}

/// A live host that passes no `at` for a source whose lines carry no time (an ACP agent):
/// each call returns its own events, so the permission card reaches the screen while the
/// agent waits for it, stamped with the wall clock; and two sessions get two ids.
#[cfg(feature = "acp")]
#[test]
fn a_live_timeless_stream_gives_each_line_its_events_at_once() {
    use agentwire::RuntimeEvent;

    let path = corpus_traces()
        .into_iter()
        .find(|(source, path)| *source == Source::ACP && path.ends_with("acp/tool_allow.jsonl"))
        .expect("the ACP trace tool_allow")
        .1;
    let text = std::fs::read_to_string(&path).expect("readable");
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let mut live = Source::ACP.normalizer(Options::default());
        let (mut opened, mut requests) = (0, 0);
        let mut events = Vec::new();
        let started = agentwire::clock::rfc3339_millis(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("after 1970")
                .as_millis() as i64
                - 1000,
        );
        for line in text.lines() {
            let record = Frame::parse(line, LineFormat::Transcript).expect("a record");
            assert_eq!(record.ts, None, "the trace carries no time");
            events.clear();
            let pushed = match record.dir {
                Direction::In => live.received(record.msg.get(), None, &mut events),
                Direction::Out => live.sent(record.msg.get(), None, &mut events),
            };
            pushed.expect("maps");
            let asks = record.msg.get().contains(r#""method":"session/request_permission""#);
            requests += usize::from(asks);
            let cards = events
                .iter()
                .filter(|event| matches!(event.event, RuntimeEvent::RequestOpened(_)))
                .count();
            assert_eq!(cards, usize::from(asks), "{line}");
            opened += cards;
            for event in &events {
                assert!(
                    event.created_at.as_str() >= started.as_str(),
                    "{}",
                    event.created_at.as_str()
                );
            }
            if let Some(event) = events.first() {
                sessions.push(event.session_id.clone());
            }
        }
        assert!(requests == 1 && opened == 1, "{requests} requests, {opened} cards");
    }
    sessions.dedup();
    assert_eq!(sessions.len(), 2, "two live sessions, two ids: {sessions:?}");
    for session in &sessions {
        let id = uuid::Uuid::parse_str(session.as_str()).expect("a UUID");
        assert_eq!(id.get_version_num(), 7, "a fresh UUIDv7: {}", session.as_str());
    }
}

#[cfg(feature = "codex-app-server")]
#[test]
fn an_unreadable_line_received_is_a_warning_and_a_problem() {
    use agentwire::normalizer::ProblemKind;

    let mut normalizer = Source::CODEX_APP_SERVER.normalizer(Options::default());
    let mut events = Vec::new();
    let problem = normalizer
        .received("{\"id\":1,", Some(1_796_016_332_007), &mut events)
        .expect_err("not JSON");
    assert_eq!(problem.kind, ProblemKind::Unreadable);
    assert!(problem.message.starts_with("not JSON: "), "{problem}");
    let problem = normalizer
        .sent(r#"{"id":2,"method":"turn/interrupt"}"#, Some(i64::MAX), &mut events)
        .expect_err("a time beyond the year 9999");
    assert_eq!(
        problem.message,
        "`ts` 9223372036854775807 is outside the years 0000-9999 (RFC 3339)"
    );
    normalizer.finish(&mut events);
    let warnings: Vec<String> = jsonl(&events)
        .into_iter()
        .filter(|event| event.contains(r#""type":"runtime.warning""#))
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains(r#"{\"id\":1,"#),
        "the line in detail: {}",
        warnings[0]
    );
    assert!(
        warnings[1].contains("turn/interrupt"),
        "the line in detail: {}",
        warnings[1]
    );
}

fn jsonl_text(events: &[ProviderRuntimeEvent]) -> String {
    events
        .iter()
        .map(|event| serde_json::to_string(event).expect("events serialize") + "\n")
        .collect()
}

/// Every corpus trace of a compiled source read through the iterator gives its golden: what
/// `agentwire normalize` prints for it (`tests/golden/<source>/<trace>.jsonl`).
#[test]
fn a_trace_read_as_an_iterator_is_its_golden() {
    let golden_root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let (mut traces, mut problems) = (0, 0);
    for (source, path) in corpus_traces() {
        let name = path.file_stem().and_then(|stem| stem.to_str()).expect("a trace name");
        let golden = golden_root.join(source.name()).join(format!("{name}.jsonl"));
        let Ok(expected) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let file = std::fs::File::open(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let mut actual = Vec::new();
        for item in events(BufReader::new(file), source.normalizer(Options::default())) {
            match item {
                Ok(event) => actual.push(event),
                Err(StreamError::Line { .. }) => problems += 1,
                Err(err @ StreamError::Read { .. }) => panic!("{}: {err}", path.display()),
            }
        }
        assert!(jsonl_text(&actual) == expected, "{}: not its golden", path.display());
        traces += 1;
    }
    assert!(traces > 0, "no trace with a golden");
    let every_source = cfg!(all(
        feature = "codex-app-server",
        feature = "codex-exec",
        feature = "codex-rollout",
        feature = "claude",
        feature = "claude-session",
        feature = "acp"
    ));
    if every_source {
        assert!(traces > 200, "{traces} traces with a golden");
        // The corpus holds lines that do not map on purpose; each is a problem the caller sees.
        assert!(problems > 0, "{problems} problems in {traces} traces");
    }
}

/// What needs a Codex app-server message: a turn left open.
#[cfg(feature = "codex-app-server")]
mod codex_app_server {
    use std::io::{BufReader, Read};

    use agentwire::stream::{StreamError, events};

    use super::jsonl_text;
    use agentwire::normalizer::{Options, ProblemKind};
    use agentwire::source::Source;

    /// A Codex app-server `turn/started` as the server prints it: a turn left open.
    const TURN_STARTED: &[u8] = br#"{"method":"turn/started","params":{"threadId":"t","turn":{"id":"u","rootTurnId":"u","items":[],"itemsView":"notLoaded","status":"inProgress","error":null,"startedAt":1796016487,"completedAt":null,"durationMs":null}},"emittedAtMs":1796016487712}"#;

    /// A line that is no frame yields its `runtime.warning` and then a problem naming its line
    /// number (blank lines counted); the end of the input settles the open turn.
    #[test]
    fn an_unreadable_line_is_a_warning_then_a_problem_with_its_number() {
        let input = [b"\xEF\xBB\xBF", TURN_STARTED, b"\r\n\n{\"id\":1,\n\xFF\n"].concat();
        let items: Vec<_> = events(
            input.as_slice(),
            Source::CODEX_APP_SERVER.normalizer(Options::default()),
        )
        .collect();
        let kinds: Vec<String> = items
            .iter()
            .map(|item| match item {
                Ok(event) => serde_json::to_value(event).expect("an event")["type"]
                    .as_str()
                    .expect("a type")
                    .to_string(),
                Err(StreamError::Line { line, problem }) => format!("line {line}: {:?}", problem.kind),
                Err(err @ StreamError::Read { .. }) => panic!("{err}"),
            })
            .collect();
        let unreadable = format!("{:?}", ProblemKind::Unreadable);
        let warnings = kinds.iter().filter(|kind| *kind == "runtime.warning").count();
        assert_eq!(warnings, 2, "{kinds:?}");
        let problems: Vec<&String> = kinds.iter().filter(|kind| kind.starts_with("line ")).collect();
        assert_eq!(
            problems,
            [&format!("line 3: {unreadable}"), &format!("line 4: {unreadable}")],
            "{kinds:?}"
        );
        let third = kinds
            .iter()
            .position(|kind| kind == "line 3: Unreadable")
            .expect("line 3");
        assert_eq!(
            kinds[third - 1],
            "runtime.warning",
            "the warning comes first: {kinds:?}"
        );
        assert!(kinds.contains(&"turn.started".to_string()), "{kinds:?}");
        assert_eq!(
            kinds.last().map(String::as_str),
            Some("session.state.changed"),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&"turn.aborted".to_string()),
            "finished at the end: {kinds:?}"
        );
    }

    /// A reader that fails once what it holds is read.
    struct Failing(std::io::Cursor<Vec<u8>>);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(std::io::Error::other("the pipe broke")),
                n => Ok(n),
            }
        }
    }

    /// A read error names the line it was reading and ends the iterator, the normalizer
    /// unfinished (no `turn.aborted`: the stream did not end, it broke).
    #[test]
    fn a_read_error_names_its_line_and_ends_the_stream() {
        let reader = BufReader::new(Failing(std::io::Cursor::new([TURN_STARTED, b"\n"].concat())));
        let mut iter = events(reader, Source::CODEX_APP_SERVER.normalizer(Options::default()));
        let mut seen = Vec::new();
        let error = loop {
            match iter.next().expect("an item before the end") {
                Ok(event) => seen.push(event),
                Err(err) => break err,
            }
        };
        assert!(matches!(error, StreamError::Read { line: 2, .. }), "{error}");
        assert_eq!(error.to_string(), "line 2: the pipe broke");
        assert!(iter.next().is_none());
        assert!(!jsonl_text(&seen).contains("turn.aborted"), "{}", jsonl_text(&seen));
        let mut normalizer = iter.into_normalizer();
        let mut settled = Vec::new();
        normalizer.finish(&mut settled);
        assert!(
            jsonl_text(&settled).contains("turn.aborted"),
            "{}",
            jsonl_text(&settled)
        );
    }
}
