//! The fold ([`agentwire::snapshot::Fold`]) over every golden: the same events give the same
//! snapshot, whether they are read back from the JSONL `agentwire normalize` prints or come from
//! a live host's `received`/`sent` calls; and what a snapshot holds is what a UI draws.

use agentwire::frame::{Direction, Frame, LineFormat};
use agentwire::ids;
use agentwire::normalizer::Options;
use agentwire::snapshot::{Fold, fold};
use agentwire::source::Source;
use agentwire_canonical::{
    IsoDateTime, ItemContent, ProviderRuntimeEvent, SessionSnapshot, SnapshotTurnState, WriteJson,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::traces;

fn text(snapshot: &SessionSnapshot) -> String {
    let mut out = Vec::new();
    snapshot.write_json(&mut out).expect("a snapshot writes");
    String::from_utf8(out).expect("UTF-8")
}

fn corpus() -> Vec<Scenario> {
    Source::ALL.iter().flat_map(|&source| Scenario::all(source)).collect()
}

/// Two folds of a golden's events, and the fold of the JSONL text read back, are one snapshot.
#[test]
fn every_golden_folds_to_one_snapshot() {
    for sc in corpus() {
        let once = fold(sc.events()).expect("a golden has events");
        let twice = fold(sc.events()).expect("a golden has events");
        assert_eq!(text(&once), text(&twice), "{}", sc.label());
        let read_back: Vec<ProviderRuntimeEvent> = sc
            .norm
            .jsonl
            .lines()
            .map(|line| serde_json::from_str(line).expect("a canonical event"))
            .collect();
        let from_text = fold(&read_back).expect("a golden has events");
        assert_eq!(
            text(&from_text),
            text(&once),
            "{}: folded from the JSONL text",
            sc.label()
        );
    }
}

/// A live host feeding each transcript record to `received`/`sent` and folding what each call
/// gives holds the snapshot of the CLI's output after every call's change, and the same at the
/// end. In a trace with untimed lines `createdAt` is the wall clock live, so times are set aside.
#[test]
fn a_live_host_folds_what_the_cli_prints() {
    let mut checked = 0;
    for &source in Source::ALL {
        for path in traces(source) {
            let text_of_trace = std::fs::read_to_string(&path).expect("a trace");
            let lines: Vec<&str> = text_of_trace.lines().filter(|line| !line.trim().is_empty()).collect();
            let Some(first) = lines.first() else { continue };
            if LineFormat::of(first) != LineFormat::Transcript {
                continue;
            }
            let options = Options::default().with_session_id(ids::default_session(first.as_bytes()));
            let mut live = source.normalizer(options);
            let (mut fold_live, mut all_live, mut events) = (Fold::default(), Vec::new(), Vec::new());
            let mut untimed = false;
            for line in &lines {
                let record = Frame::parse(line, LineFormat::Transcript).expect("a corpus record");
                untimed |= record.ts.is_none();
                let _ = match record.dir {
                    Direction::In => live.received(record.msg.get(), record.ts, &mut events),
                    Direction::Out => live.sent(record.msg.get(), record.ts, &mut events),
                };
                let change = fold_live.apply_all(&events);
                for id in &change.items {
                    let snapshot = fold_live.snapshot().expect("events came");
                    assert!(
                        snapshot.items.iter().any(|item| &item.item_id == id),
                        "{}: a change names item {id}, which the snapshot lacks",
                        path.display()
                    );
                }
                all_live.append(&mut events);
            }
            live.finish(&mut events);
            fold_live.apply_all(&events);
            all_live.append(&mut events);
            let cli = agentwire_tests::normalize(source, &path).events;
            let (mut expected, mut actual) = (fold(&cli), fold(&all_live));
            assert_eq!(
                actual.as_ref().map(text),
                fold_live.snapshot().map(text),
                "{}: folding call by call and all at once",
                path.display()
            );
            if untimed {
                for snapshot in [expected.as_mut(), actual.as_mut()].into_iter().flatten() {
                    untime(snapshot);
                }
            }
            assert_eq!(
                actual.as_ref().map(text),
                expected.as_ref().map(text),
                "{}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} transcripts");
}

/// Every time a snapshot holds, set to one instant.
fn untime(snapshot: &mut SessionSnapshot) {
    let zero = || Some(IsoDateTime::new("2000-01-01T00:00:00.000Z").expect("a date-time"));
    snapshot.session.started_at = zero();
    for turn in &mut snapshot.turns {
        turn.started_at = turn.started_at.as_ref().and(zero());
        turn.completed_at = turn.completed_at.as_ref().and(zero());
    }
    for item in &mut snapshot.items {
        item.started_at = item.started_at.as_ref().and(zero());
        item.completed_at = item.completed_at.as_ref().and(zero());
    }
    for request in &mut snapshot.requests {
        request.opened_at = zero().expect("a date-time");
    }
    for error in &mut snapshot.errors {
        error.at = zero().expect("a date-time");
    }
}

/// At the end of every golden, every item's content is its type's (streamed text appended
/// included), no turn is still running, and every child names a parent the snapshot holds.
#[test]
fn every_snapshot_is_drawable() {
    let mut failures = Vec::new();
    for sc in corpus() {
        let snapshot = fold(sc.events()).expect("a golden has events");
        for item in &snapshot.items {
            let data = item.data.clone().unwrap_or_default();
            if let Err(error) = ItemContent::decode(item.item_type, &data) {
                failures.push(format!(
                    "{}: item {} ({}): {error}",
                    sc.label(),
                    item.item_id,
                    item.item_type
                ));
            }
            if let Some(parent) = &item.parent_item_id
                && !snapshot.items.iter().any(|other| &other.item_id == parent)
            {
                failures.push(format!(
                    "{}: item {} names an unknown parent {parent}",
                    sc.label(),
                    item.item_id
                ));
            }
        }
        for turn in &snapshot.turns {
            if turn.state == SnapshotTurnState::Running {
                failures.push(format!(
                    "{}: turn {} still running after finish()",
                    sc.label(),
                    turn.turn_id
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems, e.g.\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

/// Codex app-server's `all` scenario, as a UI shows it: one thread, its turns completed in
/// order, the command's item with its exit code, and the assistant text streamed into the
/// item before its completion replaced it.
#[test]
fn a_codex_session_reads_as_its_ui_would_draw_it() {
    let sc = Scenario::load(Source::CODEX_APP_SERVER, "all");
    let snapshot = fold(sc.events()).expect("events");
    assert_eq!(snapshot.threads.len(), 1);
    assert!(
        snapshot
            .turns
            .iter()
            .all(|turn| turn.state == SnapshotTurnState::Completed)
    );
    assert_eq!(snapshot.threads[0].turn_ids.len(), snapshot.turns.len());
    assert!(snapshot.requests.is_empty(), "nothing waits at the end");
    let in_turns: usize = snapshot.turns.iter().map(|turn| turn.item_ids.len()).sum();
    let children: usize = snapshot.items.iter().map(|item| item.child_ids.len()).sum();
    assert_eq!(
        in_turns + children,
        snapshot.items.len(),
        "every item is in a turn or under a parent"
    );

    // Partway: after the first assistant text delta, the running message holds that text.
    let delta = sc
        .events()
        .iter()
        .position(|event| matches!(&event.event, agentwire_canonical::RuntimeEvent::ContentDelta(_)))
        .expect("a delta");
    let mut partway = Fold::default();
    let change = sc.events()[..=delta]
        .iter()
        .map(|event| partway.apply(event))
        .last()
        .expect("events");
    let item_id = sc.events()[delta].item_id.clone().expect("a delta names its item");
    assert_eq!(change.items, vec![item_id.clone()], "a delta changes its item only");
    let item = partway
        .snapshot()
        .and_then(|snapshot| snapshot.items.iter().find(|item| item.item_id == item_id))
        .expect("the item");
    let agentwire_canonical::RuntimeEvent::ContentDelta(payload) = &sc.events()[delta].event else {
        unreachable!()
    };
    let data = item.data.as_ref().expect("data");
    let streamed = ["text", "summary", "output", "markdown"]
        .iter()
        .filter_map(|field| data.get(field).and_then(serde_json::Value::as_str))
        .any(|text| text.ends_with(&payload.delta));
    assert!(
        streamed,
        "the delta {:?} is in the item's content: {data}",
        payload.delta
    );
}
