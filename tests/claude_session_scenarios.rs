//! Scenario assertions on Claude Code session files replayed into canonical events: what each
//! record kind becomes, written from the traces (`corpus/claude-session/`, see its README) and,
//! for the record kinds the SDK runs do not write (`summary`, `custom-title`, `system`,
//! `progress`, an undeclared kind), from hand-written lines shaped after Claude Code 2.1.62's.
//! That a file and the live run it records name the same thread, turns and items is
//! `tests/equivalence.rs`.

use agentwire::frame::LineFormat;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalItemType as I, CanonicalRuntimeEventType as T, ContentStreamKind, ItemStatus, PlanStepStatus,
    RuntimeEventRawSource, ThreadState, TurnState,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{Normalized, normalize_text, payload};
use serde_json::{Value, json};

fn session(name: &str) -> Scenario {
    Scenario::load(Source::CLAUDE_SESSION, name)
}

/// The first record of `plain.jsonl` after the queue operations (the prompt), for hand-made
/// files that need a session and a turn.
const PROMPT: &str = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/work/x","sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","version":"2.1.62","gitBranch":"main","type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"uuid":"c8deed94-6a4a-45dd-aae5-903d34ad9dd6","timestamp":"2026-12-04T17:46:53.597Z","permissionMode":"default"}"#;

fn events_json(norm: &Normalized) -> Vec<Value> {
    norm.jsonl
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|event| event["type"] == kind).collect()
}

#[test]
fn every_record_is_carried_as_claude_session_record_and_stamped_with_its_timestamp() {
    for sc in Scenario::all(Source::CLAUDE_SESSION) {
        for (index, event) in sc.events().iter().enumerate() {
            let Some(line) = sc.line_of(index) else { continue };
            if let Some(raw) = &event.raw {
                assert_eq!(
                    raw.source,
                    RuntimeEventRawSource::ClaudeSessionRecord,
                    "{}",
                    sc.at(index)
                );
            }
            if let Some(stamp) = sc.msg(line)["timestamp"].as_str() {
                let created = serde_json::to_value(event).expect("JSON")["createdAt"].clone();
                assert_eq!(created, json!(stamp), "{}", sc.at(index));
            }
        }
    }
}

#[test]
fn a_prompt_starts_a_turn_and_configures_the_session_from_its_record() {
    let sc = session("plain");
    let events = events_json(&sc.norm);
    let configured = of_type(&events, "session.configured");
    assert_eq!(
        configured[0]["payload"]["config"],
        json!({"cwd": "/home/dev/work/sdk-plain", "gitBranch": "HEAD", "version": "2.1.62", "permissionMode": "default"})
    );
    assert_eq!(
        configured[1]["payload"]["config"],
        json!({"model": "claude-sonnet-4-6"})
    );
    let prompt = of_type(&events, "item.completed")[0];
    assert_eq!(prompt["payload"]["itemType"], "user_message");
    assert_eq!(prompt["payload"]["data"]["text"], "hi");
    let (started, completed) = sc.single_turn();
    assert_eq!(sc.turn_state(completed), TurnState::Completed);
    assert!(started < sc.indices_of(T::ItemStarted)[0]);
    let completed = payload!(sc.event(completed), TurnCompleted).expect("turn.completed");
    assert_eq!(completed.stop_reason, Some(Some("end_turn".to_string())));
}

#[test]
fn a_message_of_two_blocks_is_two_items_keyed_by_its_id_and_block_index() {
    // thinking.jsonl: msg_mock_0002 is written as two records, a thinking block, then text.
    let sc = session("thinking");
    let reasoning = sc.items(I::Reasoning);
    let text = sc.items(I::AssistantMessage);
    assert_eq!((reasoning.len(), text.len()), (1, 1));
    assert_ne!(sc.item_id(reasoning[0].0), sc.item_id(text[0].0));
    for (started, _) in reasoning.iter().chain(&text) {
        assert!(
            sc.event(*started)
                .provider_refs
                .as_ref()
                .and_then(|refs| refs.provider_item_id.as_ref())
                .is_none(),
            "a synthesized key is no provider id"
        );
    }
}

#[test]
fn a_tool_use_and_its_result_are_one_item_with_the_output() {
    let sc = session("bash_touch_allow");
    let commands = sc.items(I::CommandExecution);
    assert_eq!(commands.len(), 1);
    let (started, completed) = commands[0];
    let start = payload!(sc.event(started), ItemStarted).expect("item.started");
    assert_eq!(start.title.as_deref(), Some("touch made_by_bash.txt"));
    let done = payload!(sc.event(completed), ItemCompleted).expect("item.completed");
    assert_eq!(done.status, Some(ItemStatus::Completed));
    let refs = sc.event(started).provider_refs.as_ref().expect("refs");
    assert_eq!(
        refs.provider_item_id.as_ref().map(|id| id.as_str()),
        Some("toolu_mock_0009_307a9cad")
    );
    // `touch` prints nothing: no output delta; the result rides on the completed item.
    assert!(sc.indices_of(T::ContentDelta).is_empty());
    let data = serde_json::to_value(&done.data).unwrap();
    assert_eq!(data["command"], "touch made_by_bash.txt");
    assert_eq!(data["exitCode"], 0);
    sc.assert_no_item_left_open();
    // A Write's result text is the file change's output, on its item.
    let sc = session("write_allow");
    let (started, _) = sc.items(I::FileChange)[0];
    let deltas = sc.indices_of(T::ContentDelta);
    assert_eq!(deltas.len(), 1);
    let delta = payload!(sc.event(deltas[0]), ContentDelta).expect("delta");
    assert_eq!(delta.stream_kind, ContentStreamKind::FileChangeOutput);
    assert!(delta.delta.starts_with("File created successfully"), "{}", delta.delta);
    assert_eq!(sc.item_id(deltas[0]), sc.item_id(started));
    sc.assert_no_item_left_open();
}

#[test]
fn a_refused_call_fails_and_an_interrupt_ends_the_turn_interrupted() {
    // The file keeps no permission request: a refusal is the host's text in an error result.
    let sc = session("bash_touch_deny");
    let (_, completed) = sc.items(I::CommandExecution)[0];
    assert_eq!(
        payload!(sc.event(completed), ItemCompleted).unwrap().status,
        Some(ItemStatus::Failed)
    );
    assert!(sc.indices_of(T::RequestOpened).is_empty());
    // The interrupt note is the turn's last record: it ends the turn.
    let sc = session("bash_touch_deny_interrupt");
    let (_, turn) = sc.single_turn();
    assert_eq!(sc.turn_state(turn), TurnState::Interrupted);
    let note = sc.line_of(turn).expect("a line");
    assert!(
        sc.msg(note)["message"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[Request interrupted")
    );
    // A command the interrupt killed says so in its result: declined, not failed.
    let sc = session("interrupt_during_tool");
    let (_, completed) = sc.items(I::CommandExecution)[0];
    assert_eq!(
        payload!(sc.event(completed), ItemCompleted).unwrap().status,
        Some(ItemStatus::Declined)
    );
    assert_eq!(sc.turn_state(sc.single_turn().1), TurnState::Interrupted);
}

#[test]
fn the_synthetic_api_error_message_is_the_turns_error() {
    let sc = session("error529");
    let errors = sc.indices_of(T::RuntimeError);
    assert_eq!(errors.len(), 1);
    let error = payload!(sc.event(errors[0]), RuntimeError).unwrap();
    assert!(error.message.starts_with("API Error: 529"), "{}", error.message);
    assert!(sc.items(I::AssistantMessage).is_empty(), "no one said it");
    assert_eq!(sc.turn_state(sc.single_turn().1), TurnState::Failed);
}

#[test]
fn todo_write_is_the_plan_and_task_carries_its_subagent() {
    let sc = session("todo");
    let plans = sc.indices_of(T::TurnPlanUpdated);
    assert_eq!(plans.len(), 1);
    let plan = payload!(sc.event(plans[0]), TurnPlanUpdated).unwrap();
    let steps: Vec<(&str, PlanStepStatus)> = plan.plan.iter().map(|step| (step.step.as_str(), step.status)).collect();
    assert_eq!(
        steps,
        [
            ("Write the plan", PlanStepStatus::Completed),
            ("Implement feature", PlanStepStatus::InProgress),
            ("Run tests", PlanStepStatus::Pending),
        ]
    );
    assert_eq!(sc.items(I::Plan).len(), 1);

    // Every sidechain record (merged in from subagents/agent-*.jsonl) is the subagent's work:
    // items of their own, each naming the Task item as `parentItemId`, before the Task completes.
    let sc = session("task_subagent");
    let (task, task_done) = sc.items(I::CollabAgentToolCall)[0];
    let task_id = serde_json::to_value(sc.item_id(task)).unwrap();
    let sidechain = sc.provider_lines_where(|msg| msg["isSidechain"] == true);
    assert_eq!(sidechain.len(), 5);
    for line in sidechain {
        let items: Vec<usize> = sc
            .events_of_line(line)
            .into_iter()
            .filter(|&i| matches!(sc.event(i).event.event_type(), T::ItemStarted | T::ItemCompleted))
            .collect();
        assert!(!items.is_empty(), "line {line}: the subagent's record is items");
        for item in items {
            assert_ne!(sc.item_id(item), sc.item_id(task));
            assert!(item < task_done);
            let event = serde_json::to_value(sc.event(item)).unwrap();
            assert_eq!(event["payload"]["data"]["parentItemId"], task_id);
        }
    }
    let commands = sc.items(I::CommandExecution);
    assert_eq!(commands.len(), 1, "the subagent's Bash is an item of its own");
}

#[test]
fn names_compaction_retries_and_turn_ends_the_sdk_runs_do_not_write() {
    let lines = [
        r#"{"type":"summary","summary":"Greeting the user","leafUuid":"c8deed94-6a4a-45dd-aae5-903d34ad9dd6"}"#,
        PROMPT,
        r#"{"parentUuid":"c8deed94-6a4a-45dd-aae5-903d34ad9dd6","isSidechain":false,"sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","type":"system","subtype":"api_error","level":"error","error":{"status":529},"retryInMs":500,"retryAttempt":1,"maxRetries":10,"timestamp":"2026-12-04T17:46:54.000Z","uuid":"11111111-0000-4000-8000-000000000001"}"#,
        r#"{"parentUuid":"11111111-0000-4000-8000-000000000001","isSidechain":false,"sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","type":"system","subtype":"turn_duration","durationMs":1200,"timestamp":"2026-12-04T17:46:55.000Z","uuid":"11111111-0000-4000-8000-000000000002","isMeta":false}"#,
        r#"{"parentUuid":null,"logicalParentUuid":"11111111-0000-4000-8000-000000000002","isSidechain":false,"sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","compactMetadata":{"trigger":"manual","preTokens":12000},"timestamp":"2026-12-04T17:47:00.000Z","uuid":"11111111-0000-4000-8000-000000000003"}"#,
        r#"{"parentUuid":"11111111-0000-4000-8000-000000000003","isSidechain":false,"sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation."},"isCompactSummary":true,"isVisibleInTranscriptOnly":true,"uuid":"11111111-0000-4000-8000-000000000004","timestamp":"2026-12-04T17:47:00.100Z"}"#,
        r#"{"type":"custom-title","customTitle":"greetings","sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc"}"#,
    ];
    let norm = normalize_text(Source::CLAUDE_SESSION, &lines.join("\n"));
    let events = events_json(&norm);
    let names: Vec<&Value> = of_type(&events, "thread.metadata.updated")
        .iter()
        .map(|event| &event["payload"]["name"])
        .collect();
    assert_eq!(names, [&json!("Greeting the user"), &json!("greetings")]);
    let warnings = of_type(&events, "runtime.warning");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["payload"]["message"], "Claude API error, retrying");
    // turn_duration ends the turn the prompt started.
    let completed = of_type(&events, "turn.completed");
    assert_eq!(completed.len(), 1);
    assert_eq!(completed[0]["createdAt"], "2026-12-04T17:46:55.000Z");
    assert_eq!(completed[0]["payload"]["state"], "completed");
    let compacted = of_type(&events, "thread.state.changed");
    assert_eq!(compacted[0]["payload"]["state"], json!(ThreadState::Compacted.as_str()));
    assert_eq!(compacted[0]["payload"]["detail"]["preTokens"], 12000);
    let summary = of_type(&events, "item.completed")
        .into_iter()
        .find(|event| event["payload"]["itemType"] == "context_compaction")
        .expect("the compaction summary is an item");
    assert!(
        summary["payload"]["data"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("This session is being continued")
    );
    assert_eq!(summary["payload"]["data"]["trigger"], "manual");
}

#[test]
fn a_second_prompt_ends_the_first_turn_and_progress_rides_on_its_tool() {
    let second = PROMPT
        .replace(
            "c8deed94-6a4a-45dd-aae5-903d34ad9dd6",
            "22222222-0000-4000-8000-000000000002",
        )
        .replace("17:46:53.597Z", "17:48:00.000Z");
    let tool = r#"{"parentUuid":"c8deed94-6a4a-45dd-aae5-903d34ad9dd6","isSidechain":false,"sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"sleep 1"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"33333333-0000-4000-8000-000000000001","timestamp":"2026-12-04T17:47:00.000Z"}"#;
    let progress = r#"{"parentUuid":"33333333-0000-4000-8000-000000000001","isSidechain":false,"sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc","type":"progress","data":{"type":"bash_progress","output":"..."},"toolUseID":"toolu_1","parentToolUseID":"toolu_1","uuid":"33333333-0000-4000-8000-000000000002","timestamp":"2026-12-04T17:47:01.000Z"}"#;
    let norm = normalize_text(Source::CLAUDE_SESSION, &[PROMPT, tool, progress, &second].join("\n"));
    let events = events_json(&norm);
    let progress = of_type(&events, "tool.progress");
    assert_eq!(progress.len(), 1);
    assert_eq!(progress[0]["payload"]["summary"], "bash_progress");
    let command = of_type(&events, "item.started")
        .into_iter()
        .find(|event| event["payload"]["itemType"] == "command_execution")
        .expect("the command");
    assert_eq!(progress[0]["itemId"], command["itemId"]);
    // The first turn ends when the second prompt comes; its unanswered command is cut off.
    // The second turn has no end in the file: the stream's end settles it.
    let completed = of_type(&events, "turn.completed");
    assert_eq!(completed[0]["createdAt"], "2026-12-04T17:48:00.000Z");
    assert_eq!(completed[0]["payload"]["state"], "completed");
    let started = of_type(&events, "turn.started");
    assert_eq!(started.len(), 2);
    assert_eq!(completed[0]["turnId"], started[0]["turnId"]);
    let cut = of_type(&events, "item.completed")
        .into_iter()
        .find(|event| event["itemId"] == command["itemId"])
        .expect("the command completes");
    assert_eq!(cut["turnId"], completed[0]["turnId"]);
}

#[test]
fn an_undeclared_record_kind_is_a_warning_carrying_it() {
    let tag = r#"{"type":"tag","tag":"work","sessionId":"a0f714ae-c47c-4785-9b94-0e15e70f80cc"}"#;
    let norm = normalize_text(Source::CLAUDE_SESSION, &[PROMPT, tag].join("\n"));
    let events = events_json(&norm);
    let warnings = of_type(&events, "runtime.warning");
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0]["raw"]["payload"],
        serde_json::from_str::<Value>(tag).unwrap()
    );
    assert_eq!(warnings[0]["raw"]["source"], "claude.session.record");
    assert!(
        warnings[0]["payload"]["message"]
            .as_str()
            .unwrap()
            .contains("does not declare")
    );
}

#[test]
fn a_session_file_is_told_from_stream_json_by_its_first_line() {
    // The first line alone decides (a directory walker reads little): a prompt record, a queue
    // operation, a summary.
    for line in [
        PROMPT,
        r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-04T17:46:53.550Z","sessionId":"a"}"#,
        r#"{"type":"summary","summary":"x","leafUuid":"y"}"#,
    ] {
        assert_eq!(
            Source::detect([line]),
            Some((Source::CLAUDE_SESSION, LineFormat::Bare)),
            "{line}"
        );
    }
    // A stream-json `user` message (snake-case `session_id`) stays `claude`.
    let stream = r#"{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":"a0f714ae-c47c-4785-9b94-0e15e70f80cc"}"#;
    assert_eq!(Source::detect([stream]), Some((Source::CLAUDE, LineFormat::Bare)));
}

/// A prompt of several parts is one message: its text parts joined by a blank line, its image
/// an attachment.
#[test]
fn a_prompt_with_an_image_is_one_message_with_its_attachment() {
    let image = r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}"#;
    let content = format!(r#"[{{"type":"text","text":"look"}},{image},{{"type":"text","text":"at this"}}]"#);
    let prompt = PROMPT.replace(r#"[{"type":"text","text":"hi"}]"#, &content);
    let events = events_json(&normalize_text(Source::CLAUDE_SESSION, &prompt));
    let prompts: Vec<&Value> = of_type(&events, "item.completed")
        .into_iter()
        .filter(|event| event["payload"]["itemType"] == "user_message")
        .collect();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0]["payload"]["data"]["text"], "look\n\nat this");
    assert_eq!(
        prompts[0]["payload"]["data"]["attachments"],
        json!([{ "kind": "image" }])
    );
}
