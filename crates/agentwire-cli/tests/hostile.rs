//! Hostile input: every case docs/cli.md's "Bad input" section lists, each inserted into a real
//! trace of every source in `Source::ALL`. None panics, none stops the stream (the lines after
//! it still map), nothing is dropped silently (a warning event and a `FILE:LINE` message name
//! it, or the message maps to events carrying it), and the exit status says whether a line
//! could not be read at all.
//!
//! Each source has a [`Fixture`]: one corpus trace and the source's own spelling of each
//! protocol-level case (an unknown message, wrong-typed fields, ...). Cases a source's protocol
//! cannot express are `None`, with the reason beside them (and in the README).

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentwire::source::Source;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agentwire");

/// One source's trace and its spelling of the protocol-level cases (messages without the
/// transcript record around them).
struct Fixture {
    source: Source,
    /// A trace under `tests/corpus/<source>/`, one turn that completes.
    trace: &'static str,
    /// A string the provider sends and the mapping carries into a payload: the line holding it
    /// gets the 64 MB string, and inserted messages go just before that line (inside the turn).
    text: &'static str,
    /// A number member (`"key":digits`) of a provider line, replaced by numbers beyond u64 and
    /// beyond f64, and a text of that line (the first line holding it is edited).
    number: (&'static str, &'static str),
    /// A message of a type or method the pinned schema does not declare.
    unknown: &'static str,
    /// A declared message whose fields have the wrong type.
    wrong_typed: &'static str,
    /// A response whose id matches no request.
    unmatched_response: Option<&'static str>,
    /// A delta (or update, or output) for an item that never started.
    before_start: Option<&'static str>,
    /// The settlement of a request that was never opened, and the direction it travels.
    resolved_unknown: Option<(&'static str, &'static str)>,
    /// The trace's turn start, changed to start a second turn while the first runs: (a text of
    /// the line to copy, what to replace in it, the replacement, the turns it adds).
    second_turn: (&'static str, &'static str, &'static str, usize),
}

fn fixtures() -> Vec<Fixture> {
    let fixtures = vec![
        Fixture {
            source: Source::CODEX_APP_SERVER,
            trace: "text.jsonl",
            text: "Hi! I am",
            number: (r#""outputTokens":14"#, r#""outputTokens":14"#),
            unknown: r#"{"method":"thread/teleported","params":{}}"#,
            wrong_typed: r#"{"method":"turn/started","params":{"threadId":7}}"#,
            unmatched_response: Some(r#"{"id":99,"result":{}}"#),
            before_start: Some(concat!(
                r#"{"method":"item/agentMessage/delta","params":{"threadId":"01a22ae9-f3ab-7b00-a0e8-6a3e81ee3cdd","#,
                r#""turnId":"01a22ae9-f3bd-7931-ac61-8c0ffc97672e","itemId":"never-started","delta":"early"}}"#
            )),
            resolved_unknown: Some((
                r#"{"method":"serverRequest/resolved","params":{"threadId":"01a22ae9-f3ab-7b00-a0e8-6a3e81ee3cdd","requestId":42}}"#,
                "in",
            )),
            second_turn: (
                r#""method":"turn/started""#,
                "01a22ae9-f3bd-7931-ac61-8c0ffc97672e",
                "second-turn",
                1,
            ),
        },
        Fixture {
            source: Source::CLAUDE,
            trace: "plain.jsonl",
            text: "Hello! I am ",
            number: (r#""output_tokens":24"#, r#""output_tokens":24"#),
            unknown: r#"{"type":"teleported","session_id":"f667a979-0473-4121-b48b-91dd23ae4220"}"#,
            wrong_typed: r#"{"type":"assistant","message":7,"session_id":"f667a979-0473-4121-b48b-91dd23ae4220","parent_tool_use_id":null,"uuid":"u"}"#,
            // A bare stream is one-way: it carries no requests, so no response or settlement.
            unmatched_response: None,
            before_start: Some(concat!(
                r#"{"type":"stream_event","event":{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"early"}},"#,
                r#""session_id":"f667a979-0473-4121-b48b-91dd23ae4220","parent_tool_use_id":null,"uuid":"u"}"#
            )),
            resolved_unknown: None,
            // Turns are implicit (from the first message after a result to the next result): a
            // second `init` inside a turn starts none.
            second_turn: (r#""subtype":"init""#, "", "", 0),
        },
        Fixture {
            source: Source::CLAUDE_CONTROL,
            trace: "sdk_plain.jsonl",
            text: "Hello! I am ",
            number: (r#""output_tokens":1"#, r#""output_tokens":1"#),
            unknown: r#"{"type":"teleported","session_id":"153ca29c-36eb-4942-80a6-3f0a68ddbee4"}"#,
            wrong_typed: r#"{"type":"assistant","message":7,"session_id":"153ca29c-36eb-4942-80a6-3f0a68ddbee4","parent_tool_use_id":null,"uuid":"u"}"#,
            unmatched_response: Some(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"nobody-asked","response":{}}}"#,
            ),
            before_start: Some(concat!(
                r#"{"type":"stream_event","event":{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"early"}},"#,
                r#""session_id":"153ca29c-36eb-4942-80a6-3f0a68ddbee4","parent_tool_use_id":null,"uuid":"u"}"#
            )),
            resolved_unknown: Some((r#"{"type":"control_cancel_request","request_id":"never-asked"}"#, "in")),
            // A second prompt while a turn runs is queued by Claude: it starts no turn of its own.
            second_turn: (r#""type":"user""#, "", "", 0),
        },
        Fixture {
            source: Source::CODEX_EXEC,
            trace: "text.jsonl",
            text: "Hi! I am the mock model",
            number: (r#""output_tokens":14"#, r#""output_tokens":14"#),
            unknown: r#"{"type":"thread.teleported"}"#,
            wrong_typed: r#"{"type":"turn.completed","usage":"lots"}"#,
            // `codex exec --json` is one-way: no requests, so no response or settlement.
            unmatched_response: None,
            before_start: Some(
                r#"{"type":"item.updated","item":{"id":"never-started","type":"agent_message","text":"early"}}"#,
            ),
            resolved_unknown: None,
            second_turn: (r#"{"type":"turn.started"}"#, "", "", 1),
        },
        Fixture {
            source: Source::CODEX_ROLLOUT,
            trace: "rollout-00.jsonl",
            text: "Hi! I am the mock model",
            number: (r#""output_tokens":14"#, r#""output_tokens":14"#),
            unknown: r#"{"timestamp":"2026-11-30T05:23:25.250Z","type":"teleported","payload":{}}"#,
            wrong_typed: r#"{"timestamp":"2026-11-30T05:23:25.250Z","type":"event_msg","payload":{"type":"item_completed","thread_id":7}}"#,
            // A rollout records no requests by id, so no response or settlement to mismatch.
            unmatched_response: None,
            // It records completed items, not deltas: the nearest case is a tool output for a
            // call it never recorded.
            before_start: Some(
                r#"{"timestamp":"2026-11-30T05:23:25.250Z","type":"response_item","payload":{"type":"function_call_output","call_id":"never-called","output":"early"}}"#,
            ),
            resolved_unknown: None,
            second_turn: (
                r#""type":"task_started""#,
                "01a22ae8-6d4f-7200-8315-04959ca9e157",
                "second-turn",
                1,
            ),
        },
        Fixture {
            source: Source::ACP,
            trace: "plain.jsonl",
            text: "Hello! I am ",
            number: (r#""used":127"#, r#""used":127"#),
            unknown: r#"{"jsonrpc":"2.0","method":"session/teleported","params":{}}"#,
            wrong_typed: r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":7,"update":{}}}"#,
            unmatched_response: Some(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#),
            before_start: Some(concat!(
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"05cd1077-6c70-4e4b-a7f0-df392fda4763","#,
                r#""update":{"sessionUpdate":"tool_call_update","toolCallId":"never-started","status":"completed"}}}"#
            )),
            // The client answering a permission request the agent never sent.
            resolved_unknown: Some((
                r#"{"jsonrpc":"2.0","id":77,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}"#,
                "out",
            )),
            second_turn: (r#""method":"session/prompt""#, r#""id":3"#, r#""id":33"#, 1),
        },
        Fixture {
            source: Source::CURSOR,
            trace: "error_as_text.jsonl",
            text: "Let me run the test",
            number: (r#""protocolVersion":1"#, r#""result":{"protocolVersion":1"#),
            unknown: r#"{"jsonrpc":"2.0","method":"cursor/teleported","params":{}}"#,
            wrong_typed: r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":7,"update":{}}}"#,
            unmatched_response: Some(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#),
            before_start: Some(concat!(
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"c9e2b7a1-6d4f-4a8e-b3c5-1f0d8e2a7b94","#,
                r#""update":{"sessionUpdate":"tool_call_update","toolCallId":"never-started","status":"completed"}}}"#
            )),
            resolved_unknown: Some((
                r#"{"jsonrpc":"2.0","id":77,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}"#,
                "out",
            )),
            second_turn: (r#""method":"session/prompt""#, r#""id":4"#, r#""id":44"#, 1),
        },
        Fixture {
            source: Source::CLAUDE_SESSION,
            trace: "thinking.jsonl",
            text: "Hi there! (I thought about it first.)",
            number: (r#""output_tokens":60"#, r#""output_tokens":60"#),
            unknown: r#"{"type":"teleported","sessionId":"80abe59e-d8b6-463a-a2d7-6b98c0ab4113","uuid":"u","timestamp":"2026-12-04T17:46:55.000Z"}"#,
            wrong_typed: r#"{"type":"summary","summary":7}"#,
            // A session file records no requests by id, so no response or settlement to mismatch.
            unmatched_response: None,
            // It records whole blocks, not deltas: the nearest case is a tool result for a call
            // it never recorded.
            before_start: Some(concat!(
                r#"{"type":"user","sessionId":"80abe59e-d8b6-463a-a2d7-6b98c0ab4113","uuid":"u2","#,
                r#""timestamp":"2026-12-04T17:46:55.000Z","message":{"role":"user","content":"#,
                r#"[{"type":"tool_result","tool_use_id":"never-called","content":"early"}]}}"#
            )),
            resolved_unknown: None,
            // A prompt inside a turn ends it and starts the next.
            second_turn: (r#""permissionMode":"default""#, "", "", 1),
        },
        Fixture {
            source: Source::GEMINI,
            trace: "plain.jsonl",
            text: "Hello from the mock Gemi",
            number: (r#""output_tokens":20"#, r#""type":"result""#),
            unknown: r#"{"type":"teleported","timestamp":"2026-12-06T13:38:07.868Z"}"#,
            wrong_typed: r#"{"type":"message","timestamp":"2026-12-06T13:38:07.868Z","role":"assistant","content":7}"#,
            // stream-json is one-way: no requests, so no response or settlement.
            unmatched_response: None,
            before_start: Some(
                r#"{"type":"tool_result","timestamp":"2026-12-06T13:38:07.868Z","tool_id":"never-called","status":"success","output":"early"}"#,
            ),
            resolved_unknown: None,
            // A prompt inside a turn ends it and starts the next.
            second_turn: (r#""role":"user""#, "", "", 1),
        },
        Fixture {
            source: Source::GEMINI_SESSION,
            trace: "thinking/thinking/chats/session-2026-12-06T13-38-b06990ad.jsonl",
            text: "Hi! (mock Gemini, after thinking)",
            number: (r#""output":20"#, r#""type":"gemini""#),
            unknown: r#"{"id":"x1","timestamp":"2026-12-06T13:38:09.900Z","type":"teleported","content":"hi"}"#,
            wrong_typed: r#"{"id":"x2","timestamp":"2026-12-06T13:38:09.900Z","type":"gemini","content":7}"#,
            // A session file records no requests, so no response or settlement to mismatch.
            unmatched_response: None,
            // It records whole messages: the nearest case is a result for a call it never recorded.
            before_start: Some(concat!(
                r#"{"id":"x3","timestamp":"2026-12-06T13:38:09.900Z","type":"user","content":[{"functionResponse":"#,
                r#"{"id":"never-called","name":"run_shell_command","response":{"output":"early"}}}]}"#
            )),
            resolved_unknown: None,
            // A prompt inside a turn ends it and starts the next.
            second_turn: (
                r#""text":"think then answer""#,
                "97b185b9-c65b-4936-8e29-80e073cacdd9",
                "97b185b9-c65b-4936-8e29-80e073cacdda",
                1,
            ),
        },
        Fixture {
            source: Source::COPILOT,
            trace: "plain.jsonl",
            text: "Hello from the mock mode",
            number: (r#""sessionDurationMs":431"#, r#""type":"result""#),
            unknown: r#"{"type":"teleported","data":{},"id":"x1","timestamp":"2026-12-08T00:12:53.400Z","parentId":null}"#,
            wrong_typed: concat!(
                r#"{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":7},"#,
                r#""ephemeral":true,"id":"x2","timestamp":"2026-12-08T00:12:53.400Z","parentId":null}"#
            ),
            // `-p` output is one-way: no requests, so no response or settlement.
            unmatched_response: None,
            before_start: Some(concat!(
                r#"{"type":"tool.shell_output","data":{"toolCallId":"never-started","text":"early","sequence":0},"#,
                r#""ephemeral":true,"id":"x3","timestamp":"2026-12-08T00:12:53.400Z","parentId":null}"#
            )),
            resolved_unknown: None,
            // A prompt inside a turn ends it and starts the next.
            second_turn: (
                r#""type":"user.message""#,
                "311bc564-4c90-4aa8-b47a-241507d734d8",
                "311bc564-4c90-4aa8-b47a-241507d734d9",
                1,
            ),
        },
        Fixture {
            source: Source::COPILOT_SESSION,
            trace: "plain/6fede0a9-db8b-494f-bf5d-cddcce55a996/events.jsonl",
            text: "Hello from the mock model. How",
            number: (r#""inputTokens":1001"#, r#""type":"session.usage_record""#),
            unknown: r#"{"type":"teleported","data":{},"id":"x1","timestamp":"2026-12-08T00:12:53.400Z","parentId":null}"#,
            wrong_typed: r#"{"type":"assistant.turn_end","data":{"turnId":7},"id":"x2","timestamp":"2026-12-08T00:12:53.400Z","parentId":null}"#,
            // A session log records no requests the client answers.
            unmatched_response: None,
            // It records whole messages: the nearest case is a completion of a call never started.
            before_start: Some(concat!(
                r#"{"type":"tool.execution_complete","data":{"toolCallId":"never-started","success":true,"#,
                r#""result":{"content":"early"}},"id":"x3","timestamp":"2026-12-08T00:12:53.400Z","parentId":null}"#
            )),
            resolved_unknown: None,
            // A prompt inside a turn ends it and starts the next.
            second_turn: (
                r#""type":"user.message""#,
                "311bc564-4c90-4aa8-b47a-241507d734d8",
                "311bc564-4c90-4aa8-b47a-241507d734d9",
                1,
            ),
        },
        Fixture {
            source: Source::OPENCODE,
            trace: "plain.jsonl",
            text: "Hello! I am a mock model. How",
            number: (r#""input":120"#, r#""type":"step-finish""#),
            unknown: r#"{"id":"evt_hostile1","type":"teleported","properties":{}}"#,
            wrong_typed: r#"{"id":"evt_hostile2","type":"session.status","properties":{"sessionID":7,"status":{"type":"busy"}}}"#,
            // An HTTP call's record holds its answer: no response stands alone to be unmatched.
            unmatched_response: None,
            before_start: Some(concat!(
                r#"{"id":"evt_hostile3","type":"message.part.delta","properties":{"sessionID":"ses_db4613ab7ffem1AlvOaZ24xTFF","#,
                r#""messageID":"msg_24b9ec62a001vsQw20Lyw3TrFq","partID":"prt_never","field":"text","delta":"early"}}"#
            )),
            resolved_unknown: Some((
                concat!(
                    r#"{"id":"evt_hostile4","type":"permission.replied","properties":{"sessionID":"ses_db4613ab7ffem1AlvOaZ24xTFF","#,
                    r#""requestID":"per_never","reply":"once"}}"#
                ),
                "in",
            )),
            // Another user message of the session: a turn keyed by it starts beside the first.
            second_turn: (
                r#""role":"user""#,
                "msg_24b9ec59b0018Q9lQyHvrgNK9P",
                "msg_24b9ec59b0018Q9lQyHvrgNK9Q",
                1,
            ),
        },
        Fixture {
            source: Source::OPENCODE_RUN,
            trace: "plain.jsonl",
            text: "Hello! I am a mock model. How",
            number: (r#""input":120"#, r#""type":"step_finish""#),
            unknown: r#"{"type":"teleported","timestamp":1796565246001,"sessionID":"ses_db45de4cdffeKgD5I4Mli0aP8L"}"#,
            wrong_typed: r#"{"type":"text","timestamp":1796565246001,"sessionID":"ses_db45de4cdffeKgD5I4Mli0aP8L","part":7}"#,
            // The run's output is one-way: no requests, so no response or settlement.
            unmatched_response: None,
            // Every line is a whole part: the nearest case is the end of a step that never
            // started (a step that called tools, so the turn goes on).
            before_start: Some(concat!(
                r#"{"type":"step_finish","timestamp":1796565246001,"sessionID":"ses_db45de4cdffeKgD5I4Mli0aP8L","#,
                r#""part":{"id":"prt_never","reason":"tool-calls","messageID":"msg_never","#,
                r#""sessionID":"ses_db45de4cdffeKgD5I4Mli0aP8L","type":"step-finish","#,
                r#""tokens":{"input":1,"output":1,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}}"#
            )),
            resolved_unknown: None,
            // A run's turn starts at the first line of a session while none runs: a line of
            // another session starts a second.
            second_turn: (
                r#""type":"step_start""#,
                "ses_db45de4cdffeKgD5I4Mli0aP8L",
                "ses_db45de4cdffeKgD5I4Mli0aP8M",
                1,
            ),
        },
        Fixture {
            source: Source::PI,
            trace: "plain.jsonl",
            text: "Hello! I am a mock",
            number: (r#""output":23"#, r#""stopReason":"stop""#),
            unknown: r#"{"type":"teleported"}"#,
            wrong_typed: r#"{"type":"agent_settled","aborted":7}"#,
            // json mode is one-way: no requests, so no response or settlement.
            unmatched_response: None,
            before_start: Some(concat!(
                r#"{"type":"tool_execution_update","toolCallId":"never-called","toolName":"bash","args":{},"#,
                r#""partialResult":{"content":[{"type":"text","text":"early"}]}}"#
            )),
            resolved_unknown: None,
            // A run's start while one runs is a retried run of the same turn.
            second_turn: (r#"{"type":"agent_start"}"#, "", "", 0),
        },
        Fixture {
            source: Source::PI_RPC,
            trace: "rpc_two_turns.jsonl",
            text: "First answer.",
            number: (r#""output":21"#, r#""stopReason":"stop""#),
            unknown: r#"{"type":"teleported"}"#,
            wrong_typed: r#"{"type":"agent_settled","aborted":7}"#,
            // A response Pi gives a command nobody sent changes nothing: it names no open request.
            unmatched_response: Some(r#"{"id":"nobody-asked","type":"response","command":"get_state","success":true}"#),
            before_start: Some(concat!(
                r#"{"type":"tool_execution_update","toolCallId":"never-called","toolName":"bash","args":{},"#,
                r#""partialResult":{"content":[{"type":"text","text":"early"}]}}"#
            )),
            resolved_unknown: None,
            second_turn: (r#""type":"agent_start""#, "", "", 0),
        },
        Fixture {
            source: Source::PI_SESSION,
            trace: "plain.jsonl",
            text: "Hello! I am a mock",
            number: (r#""output":23"#, r#""role":"assistant""#),
            unknown: r#"{"type":"teleported","id":"x1","parentId":null,"timestamp":"2026-12-08T00:16:03.600Z"}"#,
            wrong_typed: r#"{"type":"model_change","id":"x2","parentId":null,"timestamp":"2026-12-08T00:16:03.600Z","provider":7,"modelId":"m"}"#,
            // A session file records no requests, so no response or settlement to mismatch.
            unmatched_response: None,
            // It records whole messages: the nearest case is a result for a call it never recorded.
            before_start: Some(concat!(
                r#"{"type":"message","id":"x3","parentId":null,"timestamp":"2026-12-08T00:16:03.600Z","message":{"role":"toolResult","#,
                r#""toolCallId":"never-called","toolName":"bash","content":[{"type":"text","text":"early"}],"isError":false,"timestamp":1}}"#
            )),
            resolved_unknown: None,
            // A prompt inside a turn ends it and starts the next.
            second_turn: (r#""role":"user""#, r#""id":""#, r#""id":"2"#, 1),
        },
    ];
    let mut covered: Vec<&str> = fixtures.iter().map(|fixture| fixture.source.name()).collect();
    covered.sort();
    let mut all: Vec<&str> = Source::names()
        .into_iter()
        .filter(|name| !WITHOUT_FIXTURE.iter().any(|(source, _)| source == name))
        .collect();
    all.sort();
    assert_eq!(
        covered, all,
        "a fixture for every source but those WITHOUT_FIXTURE names"
    );
    fixtures
}

/// Sources with no hostile fixture yet, each with why: a gap to close, named rather than skipped.
const WITHOUT_FIXTURE: &[(&str, &str)] = &[(
    "opencode-session",
    "its file is one JSON document, not lines: the fixtures insert and alter lines; a document cut short is tested by \
     `import_store.rs` and `core/document.rs`",
)];

/// Runs `check` over every fixture's trace, each to its end, and fails naming every source
/// that failed (not only the first).
fn each_source(check: impl Fn(&Trace<'_>)) {
    let failed: Vec<String> = fixtures()
        .iter()
        .filter_map(|fixture| {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&Trace::new(fixture))));
            result.err().map(|panic| {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                    .unwrap_or_default();
                format!("{}: {message}", fixture.source)
            })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

struct Outcome {
    code: i32,
    events: Vec<Value>,
    /// The output as written (numbers as they were, not as a `Value` reads them back).
    stdout: String,
    stderr: String,
}

impl Outcome {
    fn warnings(&self) -> usize {
        self.count("runtime.warning")
    }

    fn count(&self, kind: &str) -> usize {
        self.events.iter().filter(|e| e["type"] == kind).count()
    }

    fn last_type(&self) -> &Value {
        &self.events.last().expect("events")["type"]
    }
}

/// A fixture's trace, read once per test, and its clean run.
struct Trace<'a> {
    fixture: &'a Fixture,
    lines: Vec<Vec<u8>>,
    transcript: bool,
    clean: Outcome,
}

impl<'a> Trace<'a> {
    fn new(fixture: &'a Fixture) -> Self {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus")
            .join(fixture.source.name())
            .join(fixture.trace);
        let lines: Vec<Vec<u8>> = std::fs::read(&path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        let transcript = lines[0].starts_with(br#"{"dir":"#);
        let clean = run_bytes(fixture.source, "clean", &lines.join(&b'\n'));
        assert_eq!(clean.code, 0, "{}: {}", fixture.source, clean.stderr);
        assert_eq!(
            clean.warnings(),
            0,
            "{}: the clean trace maps without warnings",
            fixture.source
        );
        assert!(
            clean.count("turn.completed") >= 1,
            "{}: the trace has a turn",
            fixture.source
        );
        Trace {
            fixture,
            lines,
            transcript,
            clean,
        }
    }

    fn source(&self) -> Source {
        self.fixture.source
    }

    /// The 1-based number of the first line containing `text`.
    fn line_with(&self, text: &str) -> usize {
        let text = text.as_bytes();
        1 + self
            .lines
            .iter()
            .position(|line| line.windows(text.len()).any(|window| window == text))
            .unwrap_or_else(|| panic!("{}: no line holds {:?}", self.source(), String::from_utf8_lossy(text)))
    }

    /// Where inserted messages go: just before the line carrying the fixture's text.
    fn inside_turn(&self) -> usize {
        self.line_with(self.fixture.text)
    }

    /// A message as a line of the trace's format.
    fn line(&self, msg: &str, dir: &str) -> Vec<u8> {
        if self.transcript {
            format!(r#"{{"dir":"{dir}","msg":{msg}}}"#).into_bytes()
        } else {
            msg.as_bytes().to_vec()
        }
    }

    /// Runs the trace with `bad` inserted as line `at` (1-based).
    fn insert(&self, case: &str, at: usize, bad: &[u8]) -> Outcome {
        let mut lines = self.lines.clone();
        lines.insert(at - 1, bad.to_vec());
        run_bytes(self.source(), case, &lines.join(&b'\n'))
    }

    /// Runs the trace with line `at` (1-based) replaced by `line`.
    fn replace(&self, case: &str, at: usize, line: Vec<u8>) -> Outcome {
        let mut lines = self.lines.clone();
        lines[at - 1] = line;
        run_bytes(self.source(), case, &lines.join(&b'\n'))
    }

    /// Line `at` with every `from` replaced by `to`.
    fn edited(&self, at: usize, from: &str, to: &str) -> Vec<u8> {
        String::from_utf8(self.lines[at - 1].clone())
            .expect("corpus lines are UTF-8")
            .replace(from, to)
            .into_bytes()
    }

    /// The lines after the case still map: as many turns complete as in the clean trace, and
    /// the stream ends as it did.
    fn assert_went_on(&self, case: &str, outcome: &Outcome) {
        let source = self.source();
        assert_eq!(
            outcome.count("turn.completed"),
            self.clean.count("turn.completed"),
            "{source} {case}: the lines after it still map: {}",
            outcome.stderr
        );
        assert_eq!(outcome.last_type(), self.clean.last_type(), "{source} {case}");
    }

    /// The case maps cleanly to the clean trace's events, equal at `fields` (top-level names, or
    /// JSON pointers).
    fn assert_same_events(&self, case: &str, outcome: &Outcome, fields: &[&str]) {
        let source = self.source();
        assert_eq!(outcome.code, 0, "{source} {case}: {}", outcome.stderr);
        assert_eq!(outcome.warnings(), 0, "{source} {case}: {}", outcome.stderr);
        assert_eq!(outcome.events.len(), self.clean.events.len(), "{source} {case}");
        for (event, clean) in outcome.events.iter().zip(&self.clean.events) {
            for field in fields {
                let read = |event: &Value| {
                    if field.starts_with('/') {
                        event.pointer(field).cloned()
                    } else {
                        event.get(field).cloned()
                    }
                };
                assert_eq!(read(event), read(clean), "{source} {case}: {field}");
            }
        }
    }

    /// The inserted line was not dropped: it yielded events (its own, or a warning).
    fn assert_not_dropped(&self, case: &str, outcome: &Outcome) {
        assert!(
            outcome.events.len() > self.clean.events.len(),
            "{} {case}: the inserted message yields events ({} vs {} clean)",
            self.source(),
            outcome.events.len(),
            self.clean.events.len()
        );
    }
}

/// Numbers the temp files: tests run in parallel threads of one process, and two of them may
/// run the same case of the same source (each builds its clean trace).
static RUNS: AtomicUsize = AtomicUsize::new(0);

fn run_bytes(source: Source, case: &str, bytes: &[u8]) -> Outcome {
    let tag: String = format!("{source}-{case}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("agentwire-hostile-{tag}-{}-{run}.jsonl", std::process::id()));
    std::fs::write(&path, bytes).expect("a temp file");
    let output = Command::new(BIN)
        .args(["normalize", "--from", source.name()])
        .arg(&path)
        .output()
        .expect("run agentwire");
    std::fs::remove_file(&path).ok();
    let code = output.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "{source} {case}: exit {code} (a crash?): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let events = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("each output line is JSON serde_json reads"))
        .collect();
    Outcome {
        code,
        events,
        stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Whether a JSON value holds a string of at least `len` bytes.
fn holds_string_of(value: &Value, len: usize) -> bool {
    match value {
        Value::String(text) => text.len() >= len,
        Value::Array(items) => items.iter().any(|item| holds_string_of(item, len)),
        Value::Object(map) => map.values().any(|item| holds_string_of(item, len)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

#[test]
fn unreadable_lines_warn_and_exit_1() {
    let deep = |open: &str, close: &str| format!("{}{}", open.repeat(100_000), close.repeat(100_000));
    each_source(|trace| {
        let at = trace.inside_turn();
        let mut cases = vec![
            ("not JSON", b"hello there".to_vec()),
            ("invalid UTF-8", b"{\"type\":\"\xff\xfe\"}".to_vec()),
            ("a NUL byte", b"{\"type\":\0\"x\"}".to_vec()),
            (
                "nesting 100k deep",
                trace.line(&format!(r#"{{"type":"x","params":{}}}"#, deep("[", "]")), "in"),
            ),
            (
                "nesting 100k deep, objects",
                trace.line(&format!(r#"{{"type":"x","params":{}}}"#, deep(r#"{"a":"#, "}")), "in"),
            ),
        ];
        if trace.transcript {
            cases.extend([
                ("dir missing", br#"{"ts":1,"msg":{"type":"x"}}"#.to_vec()),
                ("dir wrong", br#"{"dir":"sideways","ts":1,"msg":{"type":"x"}}"#.to_vec()),
                (
                    "ts beyond i64",
                    br#"{"dir":"in","ts":9223372036854775808,"msg":{"type":"x"}}"#.to_vec(),
                ),
                (
                    "ts beyond f64",
                    br#"{"dir":"in","ts":1e400,"msg":{"type":"x"}}"#.to_vec(),
                ),
                ("msg missing", br#"{"dir":"in","ts":1}"#.to_vec()),
                (
                    "ts beyond year 9999",
                    br#"{"dir":"in","ts":253402300800000,"msg":{"type":"x"}}"#.to_vec(),
                ),
                (
                    "ts before year 0000",
                    br#"{"dir":"in","ts":-62167219200001,"msg":{"type":"x"}}"#.to_vec(),
                ),
            ]);
        }
        for (case, bad) in cases {
            let source = trace.source();
            let outcome = trace.insert(case, at, &bad);
            assert_eq!(outcome.code, 1, "{source} {case}: {}", outcome.stderr);
            assert!(
                outcome.stderr.contains(&format!(":{at}: ")),
                "{source} {case}: the line is named: {}",
                outcome.stderr
            );
            assert_eq!(outcome.warnings(), 1, "{source} {case}");
            trace.assert_went_on(case, &outcome);
        }
    });
}

/// A provider's own time beyond the years RFC 3339 writes (found by fuzzing: `createdAt` could
/// not be made and the normalizer panicked) is not taken: the line maps, its event carries the
/// time before it, and `raw` keeps what the provider said.
#[test]
fn a_provider_time_beyond_rfc_3339_years_is_not_taken() {
    let cases = [
        (Source::CODEX_APP_SERVER, r#""emittedAtMs":"#, "99999999999999999"),
        (
            Source::CODEX_ROLLOUT,
            r#"{"timestamp":"#,
            r#""0000-01-01T00:30:00.000+01:00""#,
        ),
    ];
    for (source, key, beyond) in cases {
        let fixture = fixtures()
            .into_iter()
            .find(|fixture| fixture.source == source)
            .expect("a fixture");
        let trace = Trace::new(&fixture);
        let at = trace.line_with(key);
        let original = String::from_utf8(trace.lines[at - 1].clone()).expect("corpus lines are UTF-8");
        let start = original.find(key).expect("the key") + key.len();
        let end = start + original[start..].find([',', '}']).expect("the value's end");
        let line = format!("{}{beyond}{}", &original[..start], &original[end..]);
        let outcome = trace.replace("provider time beyond RFC 3339", at, line.into_bytes());
        assert_eq!(outcome.code, 0, "{source}: {}", outcome.stderr);
        assert_eq!(
            outcome.events.len(),
            trace.clean.events.len(),
            "{source}: the line maps"
        );
        for event in &outcome.events {
            let time = event["createdAt"].as_str().expect("createdAt");
            assert!(
                time.len() == 24 && time.as_bytes()[..4].iter().all(u8::is_ascii_digit),
                "{source}: {time}"
            );
        }
        assert!(
            outcome.stdout.contains(beyond.trim_matches('"')),
            "{source}: raw keeps the time as sent"
        );
    }
}

/// A rollout `timestamp` written with an escape (found by fuzzing: the line's envelope was read
/// borrowing the text, failed, and the normalizer panicked) is read like any other.
#[test]
fn an_escaped_rollout_timestamp_is_read() {
    let fixture = fixtures()
        .into_iter()
        .find(|fixture| fixture.source == Source::CODEX_ROLLOUT)
        .expect("a fixture");
    let trace = Trace::new(&fixture);
    let at = trace.line_with(r#"{"timestamp":""#);
    let original = String::from_utf8(trace.lines[at - 1].clone()).expect("corpus lines are UTF-8");
    let end = original.find(r#"Z","#).expect("a UTC timestamp");
    let line = format!(r#"{}\u005a{}"#, &original[..end], &original[end + 1..]);
    let outcome = trace.replace("escaped timestamp", at, line.into_bytes());
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let times =
        |outcome: &Outcome| -> Vec<Value> { outcome.events.iter().map(|event| event["createdAt"].clone()).collect() };
    assert_eq!(
        times(&outcome),
        times(&trace.clean),
        "the escaped time is the same time"
    );
}

/// Escapes are read as the text they stand for: every `/` written `\/` (in methods such as
/// `item/started`), and the member names that route a message (`method`, `type`, `msg`) written
/// with a `\u` escape. The events are those of the clean trace.
#[test]
fn escaped_names_and_methods_are_read_as_their_text() {
    each_source(|trace| {
        let escaped: Vec<Vec<u8>> = trace
            .lines
            .iter()
            .map(|line| {
                String::from_utf8(line.clone())
                    .expect("corpus lines are UTF-8")
                    .replace('/', r"\/")
                    .replace(r#""method":"#, r#""m\u0065thod":"#)
                    .replace(r#""type":"#, r#""t\u0079pe":"#)
                    .replace(r#""msg":"#, r#""m\u0073g":"#)
                    .into_bytes()
            })
            .collect();
        let outcome = run_bytes(trace.source(), "escaped", &escaped.join(&b'\n'));
        trace.assert_same_events(
            "escaped",
            &outcome,
            &["type", "payload", "/raw/method", "/raw/messageType"],
        );
    });
}

#[test]
fn a_truncated_last_line_is_reported() {
    each_source(|trace| {
        let mut lines = trace.lines.clone();
        let last = lines.pop().expect("a line");
        lines.push(last[..last.len() / 2].to_vec());
        let outcome = run_bytes(trace.source(), "truncated", &lines.join(&b'\n'));
        let source = trace.source();
        assert_eq!(outcome.code, 1, "{source}");
        assert!(outcome.stderr.contains("not JSON"), "{source}: {}", outcome.stderr);
        assert_eq!(outcome.warnings(), 1, "{source}");
        // The end of the stream still settles what the cut line would have.
        assert_eq!(outcome.last_type(), trace.clean.last_type(), "{source}");
    });
}

#[test]
fn blank_lines_crlf_and_a_bom_are_no_problem() {
    each_source(|trace| {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        for line in &trace.lines {
            bytes.extend_from_slice(line);
            bytes.extend_from_slice(b"\r\n\r\n   \n");
        }
        let messy = run_bytes(trace.source(), "messy", &bytes);
        trace.assert_same_events("messy", &messy, &["type", "payload"]);
    });
}

#[test]
fn undecodable_messages_warn_and_exit_0() {
    each_source(|trace| {
        let fixture = trace.fixture;
        let at = trace.inside_turn();
        for (case, msg) in [
            ("an unknown type or method", fixture.unknown),
            ("wrong-typed fields", fixture.wrong_typed),
        ] {
            let source = trace.source();
            let outcome = trace.insert(case, at, &trace.line(msg, "in"));
            assert_eq!(outcome.code, 0, "{source} {case}: {}", outcome.stderr);
            assert!(
                outcome.stderr.contains(&format!(":{at}: ")),
                "{source} {case}: {}",
                outcome.stderr
            );
            assert_eq!(outcome.warnings(), 1, "{source} {case}");
            trace.assert_went_on(case, &outcome);
        }
    });
}

/// Numbers beyond u64/i64 keep their exact digits in `raw` (never a `null`), or the message
/// does not decode and a warning says so; numbers beyond a double (`1e400`) make the line
/// unreadable, since no event carrying them could be read back by serde_json.
#[test]
fn numbers_beyond_u64_and_f64_are_kept_or_reported() {
    each_source(|trace| {
        let (member, line_text) = trace.fixture.number;
        let at = trace.line_with(line_text);
        let (key, _) = member.split_once(':').expect("a member");
        let source = trace.source();
        for number in ["18446744073709551616999", "-9223372036854775809"] {
            let line = trace.edited(at, member, &format!("{key}:{number}"));
            let outcome = trace.replace(number, at, line);
            assert_eq!(outcome.code, 0, "{source} {number}: {}", outcome.stderr);
            let kept = outcome.stdout.contains(&format!("{key}:{number}"));
            assert!(
                kept || outcome.warnings() == 1,
                "{source} {number}: kept verbatim or reported: {}",
                outcome.stderr
            );
            assert!(
                !outcome.stdout.contains(&format!("{key}:null")),
                "{source} {number}: never a silent null"
            );
            assert_eq!(outcome.last_type(), trace.clean.last_type(), "{source} {number}");
        }
        for number in ["1e400", "-1E+400"] {
            let line = trace.edited(at, member, &format!("{key}:{number}"));
            let outcome = trace.replace(number, at, line);
            assert_eq!(outcome.code, 1, "{source} {number}");
            assert!(
                outcome
                    .stderr
                    .contains(&format!(":{at}: holds a number beyond the range of a double")),
                "{source} {number}: {}",
                outcome.stderr
            );
            assert_eq!(outcome.warnings(), 1, "{source} {number}");
            assert!(!outcome.stdout.contains(&format!("{key}:null")), "{source} {number}");
            assert_eq!(outcome.last_type(), trace.clean.last_type(), "{source} {number}");
        }
    });
}

#[test]
fn duplicate_keys_are_not_dropped() {
    each_source(|trace| {
        let at = trace.inside_turn();
        // The message's first member again, with another value, before the real one.
        let line = String::from_utf8(trace.lines[at - 1].clone()).expect("UTF-8");
        let open = if trace.transcript {
            // `"msg":{`, or `"msg": {` as Python's `json.dumps` writes it.
            let msg = line.find(r#""msg":"#).expect("a msg") + 6;
            msg + line[msg..].find('{').expect("a msg object") + 1
        } else {
            1
        };
        let key_end = open + line[open + 1..].find('"').expect("a key") + 2;
        let duplicated = format!(
            r#"{}{}"hostile",{}"#,
            &line[..open],
            &line[open..=key_end],
            &line[open..]
        );
        let outcome = trace.insert("duplicate keys", at + 1, duplicated.as_bytes());
        let source = trace.source();
        assert_eq!(outcome.code, 0, "{source}: {}", outcome.stderr);
        trace.assert_not_dropped("duplicate keys", &outcome);
        trace.assert_went_on("duplicate keys", &outcome);
    });
}

#[test]
fn a_64_mb_line_is_mapped() {
    let big = "x".repeat(64 << 20);
    each_source(|trace| {
        let fixture = trace.fixture;
        let at = trace.inside_turn();
        let line = trace.edited(at, fixture.text, &big);
        let outcome = trace.replace("64MB", at, line);
        let source = trace.source();
        assert_eq!(outcome.code, 0, "{source}: {}", outcome.stderr);
        assert!(
            outcome.events.iter().any(|e| holds_string_of(&e["payload"], 64 << 20)),
            "{source}: the whole text is carried in a payload"
        );
        trace.assert_went_on("64MB", &outcome);
    });
}

#[test]
fn out_of_order_provider_messages_are_mapped_not_dropped() {
    each_source(|trace| {
        let fixture = trace.fixture;
        let source = trace.source();
        let at = trace.inside_turn();
        let cases = [
            (
                "a response to no request",
                fixture.unmatched_response.map(|msg| (msg, "in")),
            ),
            ("before its item started", fixture.before_start.map(|msg| (msg, "in"))),
            ("resolving an unknown request", fixture.resolved_unknown),
        ];
        for (case, message) in cases {
            let Some((msg, dir)) = message else {
                continue;
            };
            let outcome = trace.insert(case, at, &trace.line(msg, dir));
            assert_eq!(outcome.code, 0, "{source} {case}: {}", outcome.stderr);
            trace.assert_not_dropped(case, &outcome);
            trace.assert_went_on(case, &outcome);
        }

        let (needle, from, to, adds) = fixture.second_turn;
        let start = trace.line_with(needle);
        let second = trace.edited(start, from, to);
        let outcome = trace.insert("second turn start", at, &second);
        assert_eq!(outcome.code, 0, "{source}: {}", outcome.stderr);
        assert_eq!(
            outcome.count("turn.started"),
            trace.clean.count("turn.started") + adds,
            "{source}: a second turn start"
        );
        assert!(
            outcome.count("turn.completed") + outcome.count("turn.aborted") >= outcome.count("turn.started"),
            "{source}: every turn started ends (the one never completed is settled at the end)"
        );
    });
}

#[test]
fn the_delta_before_its_item_is_carried() {
    let fixture = fixtures().remove(0);
    let trace = Trace::new(&fixture);
    let outcome = trace.insert(
        "delta",
        trace.inside_turn(),
        &trace.line(fixture.before_start.expect("a delta"), "in"),
    );
    assert!(
        outcome
            .events
            .iter()
            .any(|e| e["type"] == "content.delta" && e["payload"]["delta"] == "early")
    );
    assert_eq!(outcome.warnings(), 0);
    let resolved = fixture.resolved_unknown.expect("a resolution").0;
    let outcome = trace.insert("resolved", trace.inside_turn(), &trace.line(resolved, "in"));
    let resolved = outcome
        .events
        .iter()
        .find(|e| e["type"] == "request.resolved")
        .expect("a request.resolved");
    assert_eq!(resolved["payload"]["requestType"], "unknown");
}
