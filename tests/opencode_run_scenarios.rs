//! Scenario assertions on `opencode run --format json` (OpenCode 1.18.33, `corpus/opencode-run/`):
//! what its lines are told apart from, and what each run becomes, written from the traces (see
//! the corpus README).

use agentwire::frame::Frame;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType, CanonicalRuntimeEventType as T, ItemStatus, RuntimeEventRawSource, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{frames, line_format, payload, trace_text, traces};

const RUN: Source = Source::OPENCODE_RUN;

fn load(name: &str) -> Scenario {
    Scenario::load(RUN, name)
}

/// Whether `source` claims each frame of a trace of `trace_source` (its lines, or a document's
/// frames as `agentwire normalize` cuts them).
fn claims(source: Source, trace_source: Source, path: &std::path::Path) -> Vec<bool> {
    let frames = frames(trace_source, &trace_text(trace_source, path));
    let format = line_format(trace_source, &frames);
    frames
        .iter()
        .map(|frame| source.claims(&Frame::parse(&frame.text, format).expect("a frame")))
        .collect()
}

/// The run's lines are told apart from every other source's: the run claims every line of its
/// own traces and no line of another source's (the live server's records, Gemini's stream-json
/// with its `type` and `timestamp`, Claude's stream-json and session files, ...), and no other
/// source claims the first line of a run.
#[test]
fn a_run_line_is_told_apart_from_every_other_sources_first_line() {
    for trace in traces(RUN) {
        assert!(
            claims(RUN, RUN, &trace).iter().all(|&claimed| claimed),
            "{}",
            trace.display()
        );
        for &other in Source::ALL.iter().filter(|source| source.name() != RUN.name()) {
            assert!(
                !claims(other, RUN, &trace)[0],
                "{} claims {}",
                other.name(),
                trace.display()
            );
        }
    }
    for &other in Source::ALL.iter().filter(|source| source.name() != RUN.name()) {
        for trace in traces(other) {
            assert!(!claims(RUN, other, &trace).contains(&true), "{}", trace.display());
        }
    }
}

/// A plain run: one turn, its answer one completed item, the turn completed at the `stop` with
/// the step's tokens; every line carried as `opencode.run`.
#[test]
fn a_run_is_one_turn_ended_by_its_stop() {
    let sc = load("plain");
    let (_, completed) = sc.single_turn();
    let turn = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    assert_eq!(turn.state, TurnState::Completed);
    assert_eq!(turn.stop_reason, Some(Some("stop".to_string())));
    assert_eq!(turn.usage.as_ref().and_then(|usage| usage.input_tokens), Some(120));
    let messages = sc.items(CanonicalItemType::AssistantMessage);
    assert_eq!(messages.len(), 1);
    for index in 0..sc.events().len() {
        if sc.event(index).raw.is_some() {
            assert_eq!(
                sc.raw_source(index),
                Some(RuntimeEventRawSource::OpencodeRun),
                "{}",
                sc.at(index)
            );
        }
    }
}

/// Two runs on one session (`--session`, `--continue`) are one thread and two turns: a
/// `step_start` after a `stop` starts the next.
#[test]
fn two_runs_on_one_session_are_two_turns_of_one_thread() {
    for name in ["two_turns", "resume"] {
        let sc = load(name);
        assert_eq!(sc.indices_of(T::ThreadStarted).len(), 1, "trace `{name}`");
        let started = sc.indices_of(T::TurnStarted);
        let completed = sc.indices_of(T::TurnCompleted);
        assert_eq!((started.len(), completed.len()), (2, 2), "trace `{name}`");
        assert_ne!(sc.turn_id(started[0]), sc.turn_id(started[1]));
        assert!(
            completed[0] < started[1],
            "trace `{name}`: the first ends before the second starts"
        );
        for index in completed {
            assert_eq!(sc.turn_state(index), TurnState::Completed, "{}", sc.at(index));
        }
    }
}

/// A run the person stopped ends after a `step_start` with no finish: its turn is aborted at the
/// end of the stream, never completed; what the first step did stands.
#[test]
fn an_interrupted_run_is_aborted_not_completed() {
    let sc = load("interrupt");
    assert!(sc.indices_of(T::TurnCompleted).is_empty());
    assert_eq!(sc.indices_of(T::TurnAborted).len(), 1);
    let commands = sc.items(CanonicalItemType::CommandExecution);
    let done = payload!(sc.event(commands[0].1), ItemCompleted).expect("item.completed");
    assert_eq!(done.status, Some(ItemStatus::Completed));
}

/// A run whose tool call was refused stops after that step: the turn is completed at the end of
/// the stream with the step's reason, the command declined (not failed: a person said no).
#[test]
fn a_refused_call_ends_the_run_after_its_step() {
    let sc = load("shell_reject");
    let (_, completed) = sc.single_turn();
    let turn = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    assert_eq!(turn.state, TurnState::Completed);
    assert_eq!(turn.stop_reason, Some(Some("tool-calls".to_string())));
    let commands = sc.items(CanonicalItemType::CommandExecution);
    let done = payload!(sc.event(commands[0].1), ItemCompleted).expect("item.completed");
    assert_eq!(done.status, Some(ItemStatus::Declined));
}

/// A fatal API error is the run's only line: a turn that failed with the error's name, and its
/// one `runtime.error`.
#[test]
fn an_error_line_fails_the_turn_once() {
    let sc = load("error400");
    let (_, completed) = sc.single_turn();
    let turn = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    assert_eq!(turn.state, TurnState::Failed);
    assert_eq!(turn.stop_reason, Some(Some("APIError".to_string())));
    assert_eq!(turn.error_message.as_deref(), Some("mock: prompt is invalid"));
    assert_eq!(sc.indices_of(T::RuntimeError).len(), 1);
}

/// A subagent's `task` call names the child session it ran in; the turn's usage is its two
/// steps' tokens summed.
#[test]
fn a_task_call_names_its_child_session_and_the_turn_sums_its_steps() {
    let sc = load("subagent");
    let tasks = sc.items(CanonicalItemType::CollabAgentToolCall);
    assert_eq!(tasks.len(), 1);
    let done = payload!(sc.event(tasks[0].1), ItemCompleted).expect("item.completed");
    assert_eq!(
        done.detail.as_deref(),
        Some("subagent session ses_db45c880bffevMSgM48ZdKgLSG")
    );
    let (_, completed) = sc.single_turn();
    let turn = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    let usage = turn.usage.as_ref().expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(240), Some(84)));
}

/// The stored session `tests/corpus/opencode-session/<name>.json` (an `opencode export` document).
fn stored(name: &str) -> Scenario {
    let path = agentwire_tests::corpus_dir(Source::OPENCODE_SESSION).join(format!("{name}.json"));
    Scenario::from_path(Source::OPENCODE_SESSION, &path)
}

/// The plan a `todowrite` call wrote is the turn's plan, as the live server's `todo.updated` of
/// the same scenario says it: in a run's output and in the stored sessions (of the live scenario
/// and of the run), which keep no `todo.updated`.
#[test]
fn a_todo_list_written_in_a_run_or_a_stored_session_is_the_turns_plan() {
    let live = Scenario::load(Source::OPENCODE, "todo");
    let live_plans = live.indices_of(T::TurnPlanUpdated);
    assert_eq!(live_plans.len(), 1);
    let plan = |sc: &Scenario, index: usize| payload!(sc.event(index), TurnPlanUpdated).expect("a plan").plan.clone();
    for sc in [load("todo"), stored("todo"), stored("run-todo")] {
        let plans = sc.indices_of(T::TurnPlanUpdated);
        assert_eq!(plans.len(), 1, "trace `{}`: one todowrite call", sc.label());
        let (started, _) = sc.single_turn();
        assert_eq!(sc.turn_id(plans[0]), sc.turn_id(started), "trace `{}`", sc.label());
        assert_eq!(
            plan(&sc, plans[0]),
            plan(&live, live_plans[0]),
            "trace `{}`",
            sc.label()
        );
    }
}
