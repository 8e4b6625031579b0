//! Scenario assertions on Pi 1.6.0 read live (`corpus/pi/`, `pi -p --mode json` stdout;
//! `corpus/pi-rpc/`, `pi --mode rpc` transcripts) and read back from its session files
//! (`corpus/pi-session/`, the files the same runs wrote): the key behaviours of each, written
//! from the traces (see the corpus READMEs), and that a run and its file give the same items.

use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType as I, CanonicalRuntimeEventType as T, ItemStatus, RuntimeEventRawSource, TurnState,
};
use agentwire_tests::payload;
use agentwire_tests::scenario::Scenario;

fn live(name: &str) -> Scenario {
    Scenario::load(Source::PI, name)
}

fn rpc(name: &str) -> Scenario {
    Scenario::load(Source::PI_RPC, name)
}

fn file(name: &str) -> Scenario {
    Scenario::load(Source::PI_SESSION, name)
}

/// The completed items of a trace but the messages: (type, title, status).
fn tools(sc: &Scenario) -> Vec<(I, Option<String>, ItemStatus)> {
    sc.indices_of(T::ItemCompleted)
        .into_iter()
        .filter_map(|index| {
            let item = payload!(sc.event(index), ItemCompleted)?;
            let tool = !matches!(item.item_type, I::UserMessage | I::AssistantMessage | I::Reasoning);
            tool.then(|| (item.item_type, item.title.clone(), item.status.expect("a status")))
        })
        .collect()
}

/// Each completed turn's state, in order.
fn turns(sc: &Scenario) -> Vec<TurnState> {
    sc.indices_of(T::TurnCompleted)
        .into_iter()
        .map(|index| payload!(sc.event(index), TurnCompleted).expect("a turn").state)
        .collect()
}

/// The messages a trace's items say, in order: (type, text).
fn messages(sc: &Scenario) -> Vec<(I, String)> {
    sc.indices_of(T::ItemCompleted)
        .into_iter()
        .filter_map(|index| {
            let item = payload!(sc.event(index), ItemCompleted)?;
            let data = item.data.as_ref()?.to_value();
            let text = data.get("text")?.as_str()?.to_owned();
            matches!(item.item_type, I::UserMessage | I::AssistantMessage | I::Reasoning)
                .then_some((item.item_type, text))
        })
        .collect()
}

#[test]
fn every_line_rides_with_its_own_raw_source() {
    for source in [Source::PI, Source::PI_RPC, Source::PI_SESSION] {
        for sc in Scenario::all(source) {
            for (index, event) in sc.events().iter().enumerate() {
                let Some(raw) = &event.raw else { continue };
                let expected = match (source, sc.record(sc.line_of(index).unwrap_or(1))["dir"].as_str()) {
                    (source, _) if source == Source::PI_SESSION => RuntimeEventRawSource::PiSessionEntry,
                    (_, Some("out")) => RuntimeEventRawSource::PiRpc,
                    _ => RuntimeEventRawSource::PiEvent,
                };
                assert_eq!(raw.source, expected, "{}", sc.at(index));
            }
        }
    }
}

#[test]
fn a_command_runs_and_its_exit_code_is_kept() {
    let sc = live("bash_ok");
    let (item_type, title, status) = tools(&sc).remove(0);
    assert_eq!((item_type, status), (I::CommandExecution, ItemStatus::Completed));
    assert_eq!(title.as_deref(), Some("echo hello; echo to-stderr 1>&2"));
    let failed = tools(&live("bash_fail"));
    assert_eq!(failed[0].2, ItemStatus::Failed, "exit 3 is a failed command");
    assert_eq!(
        turns(&live("bash_fail")),
        [TurnState::Completed],
        "the model went on after it"
    );
}

#[test]
fn an_api_error_fails_the_turn_once_and_a_retried_one_warns() {
    let sc = live("error400");
    assert_eq!(turns(&sc), [TurnState::Failed]);
    assert_eq!(sc.indices_of(T::RuntimeError).len(), 1);
    let retried = live("error500_retry");
    assert_eq!(turns(&retried), [TurnState::Completed]);
    assert_eq!(
        retried.indices_of(T::RuntimeWarning).len(),
        1,
        "the retry is drawn where it happened"
    );
    assert_eq!(retried.indices_of(T::RuntimeError).len(), 0);
    let gave_up = live("error500");
    assert_eq!(turns(&gave_up), [TurnState::Failed]);
    assert_eq!(gave_up.indices_of(T::RuntimeWarning).len(), 3, "three retries");
    assert_eq!(
        gave_up.indices_of(T::RuntimeError).len(),
        1,
        "one error, once Pi gave up"
    );
}

#[test]
fn the_persons_abort_interrupts_and_the_killed_command_is_not_a_failure() {
    let stream = rpc("rpc_abort_stream");
    assert_eq!(turns(&stream), [TurnState::Interrupted]);
    let tool = rpc("rpc_abort_tool");
    assert_eq!(turns(&tool), [TurnState::Interrupted]);
    assert_eq!(tools(&tool)[0].2, ItemStatus::Declined, "a command the stop killed");
}

#[test]
fn steering_and_follow_ups_join_the_running_turn() {
    let sc = rpc("rpc_steer");
    assert_eq!(turns(&sc), [TurnState::Completed], "one run");
    let prompts = messages(&sc)
        .into_iter()
        .filter(|(kind, _)| *kind == I::UserMessage)
        .count();
    assert_eq!(prompts, 4, "the prompt, the steer and two follow-ups");
    assert_eq!(
        sc.indices_of(T::RuntimeWarning).len(),
        1,
        "the prompt Pi refused while busy"
    );
}

#[test]
fn files_are_changed_with_their_diffs() {
    for (name, title) in [("write", "Write hello.txt"), ("edit", "Edit notes.txt")] {
        let (item_type, item_title, status) = tools(&live(name)).remove(0);
        assert_eq!((item_type, status), (I::FileChange, ItemStatus::Completed), "{name}");
        assert_eq!(item_title.as_deref(), Some(title), "{name}");
    }
}

/// A run read live and its session file give the same messages and tools, but where the file
/// cannot tell (a command an abort killed reads `failed` in the file, `declined` live).
#[test]
fn a_run_and_its_session_file_give_the_same_items() {
    let runs = [
        ("plain", live("plain")),
        ("thinking", live("thinking")),
        ("bash_ok", live("bash_ok")),
        ("bash_fail", live("bash_fail")),
        ("write", live("write")),
        ("edit", live("edit")),
        ("read", live("read")),
        ("parallel", live("parallel")),
        ("error400", live("error400")),
        ("error500_retry", live("error500_retry")),
        ("rpc_two_turns", rpc("rpc_two_turns")),
        ("rpc_abort_stream", rpc("rpc_abort_stream")),
    ];
    for (name, run) in runs {
        let stored = file(name);
        assert_eq!(messages(&run), messages(&stored), "{name}: messages");
        assert_eq!(tools(&run), tools(&stored), "{name}: tools");
        assert_eq!(turns(&run), turns(&stored), "{name}: turns");
    }
}
