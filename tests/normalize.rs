//! Every source's normalizer over its whole corpus: the golden outputs and the invariants of the
//! provider-runtime V2 proposal (sections 1.6 and 8) that hold for any source.
//!
//! Each test loops over `Source::ALL` and the traces of each (`tests/corpus/<source>/*.jsonl`),
//! so a new source is covered as soon as its traces are in the corpus. Goldens live in
//! `tests/golden/<source>/<trace>.jsonl`, exactly what `agentwire normalize` prints for the
//! trace. After a deliberate mapping change, regenerate them with
//! `AGENTWIRE_BLESS=1 cargo test -p agentwire-tests --test normalize goldens_match` and review the
//! diff like code.

use std::collections::BTreeSet;
use std::path::PathBuf;

use agentwire::frame::LineFormat;
use agentwire::source::Source;
use agentwire_canonical::{
    CanonicalRequestType, CanonicalRuntimeEventType as T, ItemContent, ProviderRuntimeEvent, RuntimeEvent,
    RuntimeRequestId, SessionState, TurnId,
};
use agentwire_tests::scenario::Scenario;
use agentwire_tests::{
    golden_dir, normalize, normalize_text, payload, store_traces, tests_dir, trace_name, traces, workspace_root,
};
use serde_json::Value;

/// How to regenerate the goldens, for failure messages.
const BLESS: &str = "AGENTWIRE_BLESS=1 cargo test -p agentwire-tests --test normalize goldens_match";

/// The fewest traces the corpus of a source may hold, where a figure is known: the Codex
/// app-server captures are 26 scenarios, Claude's 34 + 20 bare traces and 12 + 12 transcripts
/// (pinned SDK + newest; see `corpus/README.md`). Any other source needs one.
const MINIMUM_TRACES: &[(Source, usize)] = &[
    (Source::CODEX_APP_SERVER, 26),
    (Source::CLAUDE, 54),
    (Source::CLAUDE_CONTROL, 24),
];

/// Every trace of every source, normalized, and the sessions only a store of the corpus shows.
fn corpus() -> Vec<Scenario> {
    Source::ALL
        .iter()
        .flat_map(|&source| {
            let stored = store_traces(source)
                .into_iter()
                .map(move |trace| Scenario::from_text(source, trace.name, &trace.text));
            Scenario::all(source).into_iter().chain(stored)
        })
        .collect()
}

#[test]
fn every_source_has_its_traces() {
    for &source in Source::ALL {
        let minimum = MINIMUM_TRACES
            .iter()
            .find(|(listed, _)| *listed == source)
            .map_or(1, |(_, minimum)| *minimum);
        let found = traces(source).len();
        assert!(
            found >= minimum,
            "{}: {found} traces, expected at least {minimum} in {}",
            source.name(),
            agentwire_tests::corpus_dir(source).display()
        );
    }
}

#[test]
fn goldens_match() {
    let bless = std::env::var_os("AGENTWIRE_BLESS").is_some();
    let (mut failures, mut orphans) = (Vec::new(), Vec::new());
    for &source in Source::ALL {
        let dir = golden_dir(source);
        let traces = traces(source);
        let stored = store_traces(source);
        let outputs = traces
            .iter()
            .map(|trace| (trace_name(trace), normalize(source, trace).jsonl))
            .chain(
                stored
                    .iter()
                    .map(|trace| (trace.name.clone(), normalize_text(source, &trace.text).jsonl)),
            );
        for (name, actual) in outputs {
            let golden = dir.join(format!("{name}.jsonl"));
            if bless {
                std::fs::create_dir_all(golden.parent().expect("a golden's folder")).expect("create the golden folder");
                std::fs::write(&golden, &actual).expect("write a golden");
                continue;
            }
            let Ok(expected) = std::fs::read_to_string(&golden) else {
                failures.push(format!("{}: no golden", golden.display()));
                continue;
            };
            if expected != actual {
                let diff = similar::TextDiff::from_lines(&expected, &actual)
                    .unified_diff()
                    .context_radius(0)
                    .header("golden", "now")
                    .to_string();
                failures.push(format!("{}:\n{diff}", golden.display()));
            }
        }
        let names: BTreeSet<String> = traces
            .iter()
            .map(|trace| trace_name(trace))
            .chain(stored.into_iter().map(|trace| trace.name))
            .collect();
        orphans.extend(
            goldens(&dir).into_iter().filter(|path| {
                !(path.extension().is_some_and(|ext| ext == "jsonl") && names.contains(&trace_name(path)))
            }),
        );
    }
    orphans.extend(
        entries(&tests_dir().join("golden"))
            .into_iter()
            .filter(|path| !Source::ALL.iter().any(|source| path.ends_with(source.name()))),
    );
    let orphans: Vec<String> = orphans.iter().map(|path| path.display().to_string()).collect();
    assert!(
        orphans.is_empty(),
        "goldens of no trace or source (delete them, or restore their trace): {orphans:?}"
    );
    assert!(
        failures.is_empty(),
        "normalized output differs from the goldens (every differing line):\n{}\nIf the change is deliberate: {BLESS}, then review the diff",
        failures.join("\n")
    );
}

/// The files under a golden folder (its traces' layout, folders included), none if it does not
/// exist.
fn goldens(dir: &std::path::Path) -> Vec<PathBuf> {
    entries(dir)
        .into_iter()
        .flat_map(|path| if path.is_dir() { goldens(&path) } else { vec![path] })
        .collect()
}

/// The entries of a folder, none if it does not exist.
fn entries(dir: &std::path::Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|entry| entry.path()).collect())
        .unwrap_or_default()
}

#[test]
fn every_trace_is_detected_as_its_source() {
    // `agentwire normalize FILE` without `--from` reads up to 64 lines to tell the format; the
    // goldens are what it prints only if it tells each trace's source and line format. The
    // corpus keeps one line format per folder: the capture harness's `{"dir","ts","msg"}`
    // records for the two-way protocols, the program's own lines for the one-way streams.
    for &source in Source::ALL {
        for trace in traces(source) {
            let text = std::fs::read_to_string(&trace).expect("readable trace");
            // A document (`opencode export`) is told by its first frame, as `normalize` reads it.
            let frames = agentwire_tests::frames(source, &text);
            let texts: Vec<&str> = match source.spec().files.document {
                Some(_) => frames.iter().take(1).map(|frame| frame.text.as_str()).collect(),
                None => text.lines().take(64).collect(),
            };
            let format = LineFormat::of(texts.first().copied().unwrap_or_default());
            let detected = Source::detect(texts);
            assert_eq!(
                detected,
                Some((source, format)),
                "{}: detected as {detected:?}",
                trace.display()
            );
            // The whole document too, as a host that holds the file's text tells it.
            if source.spec().files.document.is_some() {
                let detected = Source::detect_document(&text).map(|(source, _)| source);
                assert_eq!(detected, Some(source), "{}", trace.display());
            }
        }
    }
}

/// Provider frames that yield no event, each by the sources that send it and the frame's kind
/// ([`frame_kind`]) with why it may, and the check that it says nothing more: beyond its envelope
/// ([`envelope_only`]: its type and subtype, message, request and session ids, times, a block
/// index) nothing, or every fact it states already carried by an earlier message
/// ([`repeats_turn_start`]). A listed kind that says more fails the test: it needs an event.
const QUIET_FRAMES: &[(&[&str], &str, &str, Says)] = &[
    (
        &["claude", "claude-control"],
        "stream_event/message_stop",
        "its blocks stopped already and the `result` ends the turn",
        envelope_only,
    ),
    (
        &["claude", "claude-control"],
        "stream_event/content_block_stop",
        "a block's stop repeats the `input final` of its `assistant` message",
        envelope_only,
    ),
    (
        &["claude", "claude-control"],
        "control_response/interrupt",
        "the CLI acknowledges the client's interrupt; the `result` ends the turn `interrupted`",
        envelope_only,
    ),
    (
        &["gemini-session"],
        "$set/lastUpdated",
        "the CLI stamps the file after each record it writes: a time, which that record carried",
        envelope_only,
    ),
    (
        &["codex-app-server"],
        "turn/started",
        "the `turn/start` result started the same turn (one fact, one event)",
        repeats_turn_start,
    ),
    (
        &["codex-app-server"],
        "result of turn/interrupt",
        "the acknowledgement; `turn/completed` ends the turn `interrupted`",
        envelope_only,
    ),
    (
        &["opencode"],
        "session.status",
        "`busy` repeats what the running turn says (several per turn); an `idle` after the error or \
         the `idle` that ended the turn repeats that end",
        opencode_status_again,
    ),
    (
        &["opencode"],
        "session.idle",
        "repeats the `idle` status that ended the turn (after an error or an abort, twice)",
        opencode_session_only,
    ),
    (
        &["opencode"],
        "permission.replied",
        "confirms the reply the client's `POST /permission/{id}/reply` sent, which settled the request",
        opencode_confirms_reply,
    ),
    (
        &["opencode"],
        "question.replied",
        "confirms the answers the client's `POST /question/{id}/reply` sent, which settled the request",
        opencode_confirms_reply,
    ),
    (
        &["opencode"],
        "question.rejected",
        "confirms the client's `POST /question/{id}/reject`, which settled the request",
        opencode_confirms_reply,
    ),
    (
        &["pi", "pi-rpc"],
        "turn_start",
        "a model call starts: its messages say what it does",
        envelope_only,
    ),
    (
        &["pi", "pi-rpc"],
        "turn_end",
        "repeats the model message and the tool results its call ended with",
        pi_repeats,
    ),
    (
        &["pi", "pi-rpc"],
        "agent_end",
        "repeats the messages of the run (`willRetry`: the `auto_retry_start` that follows says it)",
        pi_repeats,
    ),
    (
        &["pi", "pi-rpc"],
        "message_end/system",
        "repeats the system message its `message_start` configured the session with",
        pi_repeats,
    ),
    (
        &["pi", "pi-rpc"],
        "message_start/toolResult",
        "repeats the result of the `tool_execution_end` that completed the call's item",
        pi_repeats,
    ),
    (
        &["pi", "pi-rpc"],
        "message_end/toolResult",
        "repeats its `message_start`",
        pi_repeats,
    ),
    (
        &["pi", "pi-rpc"],
        "message_update/toolcall_delta",
        "a piece of the arguments the call's `toolcall_end` gives whole (its `usage` a running figure \
         the message's end states)",
        pi_piece_of_arguments,
    ),
    (
        &["opencode"],
        "message.updated",
        "a user message announced already, updated with its summary: the turn it opened runs",
        opencode_user_message_again,
    ),
];

/// Whether a frame that yields no event says nothing more than its listing allows: `Err` says
/// what it says.
type Says = fn(&Scenario, usize) -> Result<(), String>;

/// The members that only place a message: its kind, its ids, its time, a block's index.
const ENVELOPE: &[&str] = &[
    "type",
    "subtype",
    "id",
    "jsonrpc",
    "uuid",
    "session_id",
    "sessionId",
    "request_id",
    "message_id",
    "api_message_id",
    "parent_tool_use_id",
    "timestamp",
    "lastUpdated",
    "ordinal",
    "index",
];

/// The message says nothing beyond its envelope: every member is an [`ENVELOPE`] member, null,
/// or an object that says nothing beyond its own envelope.
fn envelope_only(sc: &Scenario, line: usize) -> Result<(), String> {
    fn said(value: &Value, path: &str, found: &mut Vec<String>) {
        match value {
            Value::Null => {}
            Value::Object(members) => {
                for (key, member) in members {
                    if !ENVELOPE.contains(&key.as_str()) {
                        said(member, &format!("{path}.{key}"), found);
                    }
                }
            }
            _ => found.push(format!("{path} = {value}")),
        }
    }
    let mut found = Vec::new();
    said(sc.msg(line), "", &mut found);
    if found.is_empty() {
        Ok(())
    } else {
        Err(found.join(", "))
    }
}

/// A `turn/started` whose turn is the one an earlier `turn/start` result gave, as it gave it
/// but for the time it started (which the result leaves null): a time, the envelope's.
fn repeats_turn_start(sc: &Scenario, line: usize) -> Result<(), String> {
    let untimed = |turn: &Value| {
        let mut turn = turn.clone();
        turn["startedAt"] = Value::Null;
        turn
    };
    let turn = untimed(&sc.msg(line)["params"]["turn"]);
    let earlier = sc
        .provider_lines_where(|msg| msg["result"]["turn"]["id"] == turn["id"])
        .into_iter()
        .any(|at| at < line && untimed(&sc.msg(at)["result"]["turn"]) == turn);
    if earlier {
        Ok(())
    } else {
        Err(format!(
            "turn {} was not given as is by an earlier `turn/start` result",
            turn["id"]
        ))
    }
}

/// Pi: each message the frame holds (`message`, a `turn_end`'s `toolResults`, an `agent_end`'s
/// `messages`) is one an earlier frame gave as it is: a `message_start`'s or `message_end`'s, or,
/// for a tool result, the result of the `tool_execution_end` of its call.
fn pi_repeats(sc: &Scenario, line: usize) -> Result<(), String> {
    let msg = sc.msg(line);
    let earlier = sc.provider_lines_where(|_| true);
    let given = |message: &Value| {
        earlier.iter().filter(|&&at| at < line).any(|&at| {
            let before = sc.msg(at);
            let event = before["type"].as_str().unwrap_or_default();
            (matches!(event, "message_start" | "message_end") && before["message"] == *message)
                || (message["role"] == "toolResult"
                    && event == "tool_execution_end"
                    && before["toolCallId"] == message["toolCallId"]
                    && before["result"]["content"] == message["content"]
                    && before["isError"] == message["isError"])
        })
    };
    let mut messages: Vec<&Value> = Vec::new();
    match msg["type"].as_str() {
        Some("agent_end") => messages.extend(msg["messages"].as_array().into_iter().flatten()),
        Some("turn_end") => {
            messages.push(&msg["message"]);
            messages.extend(msg["toolResults"].as_array().into_iter().flatten());
        }
        _ => messages.push(&msg["message"]),
    }
    match messages.iter().find(|message| !given(message)) {
        None => Ok(()),
        Some(message) => Err(format!("a `{}` message no earlier frame gave", message["role"])),
    }
}

/// Pi: a `toolcall_delta` is a piece of its call's arguments: the pieces of its block, from the
/// block's start to its `toolcall_end`, read as JSON are the arguments that end gives.
fn pi_piece_of_arguments(sc: &Scenario, line: usize) -> Result<(), String> {
    let index = &sc.msg(line)["assistantMessageEvent"]["contentIndex"];
    let event = |at: usize| &sc.msg(at)["assistantMessageEvent"];
    let lines = sc.provider_lines_where(|msg| msg["assistantMessageEvent"]["contentIndex"] == *index);
    let start = lines
        .iter()
        .copied()
        .rfind(|&at| at < line && event(at)["type"] == "toolcall_start")
        .ok_or("no `toolcall_start` before it")?;
    let end = lines
        .iter()
        .copied()
        .find(|&at| at > line && event(at)["type"] == "toolcall_end")
        .ok_or("no `toolcall_end` after it")?;
    let text: String = lines
        .iter()
        .filter(|&&at| at > start && at < end && event(at)["type"] == "toolcall_delta")
        .filter_map(|&at| event(at)["delta"].as_str())
        .collect();
    let arguments: Value = serde_json::from_str(&text).map_err(|err| format!("its pieces are no JSON: {err}"))?;
    if arguments == event(end)["toolCall"]["arguments"] {
        Ok(())
    } else {
        Err(format!("its pieces say {arguments}, the call's end another thing"))
    }
}

/// An OpenCode event as its stream sent it (`/global/event` wraps it as `payload`).
fn opencode_event(sc: &Scenario, line: usize) -> &Value {
    let msg = sc.msg(line);
    if msg["payload"].is_object() {
        &msg["payload"]
    } else {
        msg
    }
}

/// An OpenCode `session.status` that says what is known: `busy`, or `idle` when the session's
/// last word since its last `busy` was already an end (`session.error`, `idle`).
fn opencode_status_again(sc: &Scenario, line: usize) -> Result<(), String> {
    let event = opencode_event(sc, line);
    let status = &event["properties"]["status"];
    if *status == serde_json::json!({ "type": "busy" }) {
        return Ok(());
    }
    if *status != serde_json::json!({ "type": "idle" }) {
        return Err(format!("status {status}"));
    }
    let session = &event["properties"]["sessionID"];
    for at in (1..line).rev() {
        let earlier = opencode_event(sc, at);
        if sc.record(at)["dir"] != "in" || earlier["properties"]["sessionID"] != *session {
            continue;
        }
        match (
            earlier["type"].as_str(),
            earlier["properties"]["status"]["type"].as_str(),
        ) {
            (Some("session.error" | "session.idle"), _) | (Some("session.status"), Some("idle")) => return Ok(()),
            (Some("session.status"), Some("busy")) => break,
            _ => {}
        }
    }
    Err(format!("status {status} ends a turn no earlier frame ended"))
}

/// An OpenCode `*.replied` / `*.rejected` whose request the client answered by an earlier `POST`
/// (with the same `reply`, for a permission).
fn opencode_confirms_reply(sc: &Scenario, line: usize) -> Result<(), String> {
    let properties = &opencode_event(sc, line)["properties"];
    let id = properties["requestID"].as_str().unwrap_or_default();
    let answered = (1..line).any(|at| {
        let msg = sc.msg(at);
        sc.record(at)["dir"] == "out"
            && msg["method"] == "POST"
            && msg["path"]
                .as_str()
                .is_some_and(|path| path.split('/').any(|segment| segment == id))
            && (properties["reply"].is_null() || msg["body"]["reply"] == properties["reply"])
    });
    if answered {
        Ok(())
    } else {
        Err(format!("request {id} was not answered by an earlier POST"))
    }
}

/// An OpenCode event whose properties name its session and nothing else.
fn opencode_session_only(sc: &Scenario, line: usize) -> Result<(), String> {
    let properties = &opencode_event(sc, line)["properties"];
    match properties.as_object() {
        Some(members) if members.keys().all(|key| key == "sessionID") => Ok(()),
        _ => Err(format!("properties {properties}")),
    }
}

/// An OpenCode `message.updated` of a user message an earlier frame announced.
fn opencode_user_message_again(sc: &Scenario, line: usize) -> Result<(), String> {
    let info = &opencode_event(sc, line)["properties"]["info"];
    if info["role"] != "user" {
        return Err(format!("a {} message", info["role"]));
    }
    let earlier = (1..line)
        .any(|at| sc.record(at)["dir"] == "in" && opencode_event(sc, at)["properties"]["info"]["id"] == info["id"]);
    if earlier {
        Ok(())
    } else {
        Err(format!("user message {} was not announced before", info["id"]))
    }
}

/// A frame's kind, read here from the message (not by the library): the JSON-RPC method (a
/// response is `result of <method>`, the method of the request it answers), else the message's
/// `type` with its `subtype` or stream event `type` (a control response: the subtype of the
/// client's request it answers); a user message of text the CLI injects is `user/cli-note`.
fn frame_kind(sc: &Scenario, line: usize) -> String {
    let msg = sc.msg(line);
    if let Some(method) = msg["method"].as_str() {
        return method.to_string();
    }
    if let (Value::Null, Some(kind)) = (&msg["type"], msg["payload"]["type"].as_str()) {
        return kind.to_string();
    }
    if !msg["id"].is_null() && msg["type"].is_null() {
        let dir = &sc.record(line)["dir"];
        let request = sc
            .lines_where(|record| record["msg"]["id"] == msg["id"] && record["msg"]["method"].is_string())
            .into_iter()
            .rfind(|&at| at < line && sc.record(at)["dir"] != *dir);
        let method = request.map_or("?", |at| sc.msg(at)["method"].as_str().unwrap_or("?"));
        return format!("result of {method}");
    }
    if let Some(set) = msg["$set"].as_object() {
        let fields: Vec<&str> = set.keys().map(String::as_str).collect();
        return format!("$set/{}", fields.join(","));
    }
    let kind = msg["type"].as_str().unwrap_or("?");
    // Pi: a streamed piece by what it is, a message by its role.
    if let Some(piece) = msg["assistantMessageEvent"]["type"].as_str() {
        return format!("{kind}/{piece}");
    }
    if let ("message_start" | "message_end", Some(role)) = (kind, msg["message"]["role"].as_str()) {
        return format!("{kind}/{role}");
    }
    if kind == "control_response" {
        let id = &msg["response"]["request_id"];
        let asked = sc
            .client_lines_where(|msg| msg["type"] == "control_request" && msg["request_id"] == *id)
            .first()
            .map_or("?", |&at| sc.msg(at)["request"]["subtype"].as_str().unwrap_or("?"));
        return format!("control_response/{asked}");
    }
    let sub = ["subtype", "event", "payload", "request"]
        .iter()
        .find_map(|key| match &msg[key] {
            Value::String(sub) => Some(sub.as_str()),
            Value::Object(inner) => inner
                .get("type")
                .or_else(|| inner.get("subtype"))
                .and_then(Value::as_str),
            _ => None,
        });
    let text = msg["message"]["content"][0]["text"]
        .as_str()
        .or_else(|| msg["message"]["content"].as_str())
        .unwrap_or_default();
    let cli_note = ["[Request interrupted by user", "<local-command", "<command-name>"];
    if kind == "user" && cli_note.iter().any(|note| text.starts_with(note)) {
        return "user/cli-note".to_string();
    }
    match sub {
        Some(sub) => format!("{kind}/{sub}"),
        None => kind.to_string(),
    }
}

#[test]
fn every_provider_frame_yields_an_event_carrying_it() {
    let mut quiet_seen = BTreeSet::new();
    let mut unlisted = BTreeSet::new();
    for sc in corpus() {
        let mut used = vec![false; sc.events().len()];
        // Until the stream gives a time, the library holds events back: they come out with a
        // later line (or at finish()). From the first recorded time on, a frame's events come
        // from its own line.
        let first_timed = sc
            .lines_where(|record| record["ts"].is_i64())
            .first()
            .copied()
            .unwrap_or(usize::MAX);
        for line in sc.provider_lines_where(|_| true) {
            let carried = carried(&sc, line);
            let carrier = (0..sc.events().len()).find(|&index| {
                let from_here = match sc.line_of(index) {
                    Some(from) if line >= first_timed => from == line,
                    Some(from) => from >= line,
                    None => line < first_timed,
                };
                !used[index]
                    && from_here
                    && sc
                        .event(index)
                        .raw
                        .as_ref()
                        .is_some_and(|raw| raw.payload.get() == carried)
            });
            match carrier {
                Some(carrier) => used[carrier] = true,
                None => {
                    let key = (sc.source.name(), frame_kind(&sc, line));
                    let listed = QUIET_FRAMES
                        .iter()
                        .find(|(sources, kind, ..)| sources.contains(&key.0) && *kind == key.1);
                    match listed.map(|(.., says)| says(&sc, line)) {
                        Some(Ok(())) => {
                            quiet_seen.insert(key);
                        }
                        Some(Err(more)) => {
                            unlisted.insert(format!(
                                "{} `{}`: trace `{}`, line {line}: listed, but says {more}",
                                key.0,
                                key.1,
                                sc.label()
                            ));
                        }
                        None => {
                            unlisted.insert(format!("{} `{}`: trace `{}`, line {line}", key.0, key.1, sc.label()));
                        }
                    }
                }
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "{} frames yield no event carrying them and are not in QUIET_FRAMES:\n{}",
        unlisted.len(),
        unlisted.into_iter().collect::<Vec<_>>().join("\n")
    );
    let stale: Vec<_> = QUIET_FRAMES
        .iter()
        .filter(|(sources, kind, ..)| {
            !quiet_seen
                .iter()
                .any(|(source, seen): &(&str, String)| sources.contains(source) && seen == kind)
        })
        .map(|(sources, kind, ..)| (sources, kind))
        .collect();
    assert!(stale.is_empty(), "QUIET_FRAMES rows no frame needs: {stale:?}");
}

/// A provider message as the library carries it by default: with its credentials redacted
/// (gemini's `initialize` result names an `api-key` auth method).
fn carried(sc: &Scenario, line: usize) -> String {
    agentwire_tests::carried_by_default(sc.msg_text(line))
}

/// Nothing lost (the proposal's 8.1-8.2): read in order, the `raw` payloads of a trace's
/// canonical stream give back every provider message of the trace, in the order it came, but
/// the kinds [`QUIET_FRAMES`] lists (which `every_provider_frame_yields_an_event_carrying_it`
/// checks say nothing more). Prints the figures: messages, carried, and the listed ones by kind.
#[test]
fn raw_payloads_give_back_every_provider_message_in_order() {
    let (mut messages, mut given_back) = (0usize, 0usize);
    let mut listed: std::collections::BTreeMap<(&str, String), usize> = Default::default();
    let mut out_of_order = Vec::new();
    for sc in corpus() {
        let payloads: Vec<&str> = sc
            .events()
            .iter()
            .filter_map(|event| event.raw.as_ref().map(|raw| raw.payload.get()))
            .collect();
        let mut next = 0;
        for line in sc.provider_lines_where(|_| true) {
            messages += 1;
            let text = carried(&sc, line);
            match payloads[next..].iter().position(|payload| *payload == text) {
                Some(at) => {
                    given_back += 1;
                    next += at + 1;
                }
                None => {
                    let key = (sc.source.name(), frame_kind(&sc, line));
                    let quiet = QUIET_FRAMES
                        .iter()
                        .any(|(sources, kind, ..)| sources.contains(&key.0) && *kind == key.1);
                    if quiet && !payloads.contains(&text.as_str()) {
                        *listed.entry(key).or_default() += 1;
                    } else {
                        out_of_order.push(format!("trace `{}`, line {line}: {} `{}`", sc.label(), key.0, key.1));
                    }
                }
            }
        }
    }
    eprintln!("provider messages: {messages}; given back in order by `raw`: {given_back}; listed quiet kinds:");
    for ((source, kind), count) in &listed {
        eprintln!("  {source} `{kind}`: {count}");
    }
    assert!(
        out_of_order.is_empty(),
        "{} provider messages are not given back in order by the canonical stream's `raw` payloads:\n{}",
        out_of_order.len(),
        out_of_order.join("\n")
    );
    assert_eq!(given_back + listed.values().sum::<usize>(), messages);
}

#[test]
fn every_event_validates_against_the_canonical_schema() {
    let schema_path = workspace_root().join("schemas/canonical/provider-runtime.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&schema_path).expect("the schema")).expect("JSON");
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("compiles");
    for sc in corpus() {
        for (index, line) in sc.norm.jsonl.lines().enumerate() {
            let event: Value = serde_json::from_str(line).expect("JSON");
            let errors: Vec<String> = validator
                .iter_errors(&event)
                .map(|e| format!("{}: {e}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", sc.at(index));
        }
    }
}

/// Every item event carries `data`, and its `data` is the content its item type declares
/// (`x-itemContent`, read strictly: an unknown or missing field fails), whichever source: a UI
/// draws any item from its event alone, without knowing the provider.
#[test]
fn every_items_data_is_its_types_content() {
    let mut failures = Vec::new();
    for sc in corpus() {
        for (index, event) in sc.events().iter().enumerate() {
            let (RuntimeEvent::ItemStarted(payload)
            | RuntimeEvent::ItemUpdated(payload)
            | RuntimeEvent::ItemCompleted(payload)) = &event.event
            else {
                continue;
            };
            let problem = match &payload.data {
                None => "no data".to_owned(),
                Some(data) => match ItemContent::decode(payload.item_type, &data.to_value()) {
                    Ok(_) => continue,
                    Err(error) => format!("{error}: {}", data.to_value()),
                },
            };
            failures.push((
                sc.source.name(),
                format!("{} ({}): {problem}", sc.at(index), payload.item_type),
            ));
        }
    }
    let mut by_source = std::collections::BTreeMap::<&str, Vec<String>>::new();
    for (source, failure) in failures {
        by_source.entry(source).or_default().push(failure);
    }
    let report: Vec<String> = by_source
        .iter()
        .map(|(source, failures)| {
            format!(
                "{source}: {} item events, e.g.\n  {}",
                failures.len(),
                failures[..failures.len().min(8)].join("\n  ")
            )
        })
        .collect();
    assert!(
        report.is_empty(),
        "item events whose data is not their type's content:\n{}",
        report.join("\n")
    );
}

/// The `raw.source` labels the goldens carry are exactly those the canonical schema declares:
/// none emitted that the schema does not name, none declared that no trace exercises. The
/// declared list is read from the schema file, not from the generated enum the code emits.
#[test]
fn every_raw_source_label_is_declared_and_emitted() {
    let schema_path = workspace_root().join("schemas/canonical/provider-runtime.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&schema_path).expect("the schema")).expect("JSON");
    let declared: BTreeSet<String> = schema["$defs"]["RuntimeEventRawSource"]["enum"]
        .as_array()
        .expect("RuntimeEventRawSource lists its values")
        .iter()
        .map(|label| label.as_str().expect("a label").to_string())
        .collect();
    let mut emitted = BTreeSet::new();
    for sc in corpus() {
        for line in sc.norm.jsonl.lines() {
            let event: Value = serde_json::from_str(line).expect("JSON");
            if let Some(label) = event["raw"]["source"].as_str() {
                emitted.insert(label.to_string());
            }
        }
    }
    let undeclared: Vec<&String> = emitted.difference(&declared).collect();
    let unused: Vec<&String> = declared.difference(&emitted).collect();
    assert!(
        undeclared.is_empty(),
        "raw sources the schema does not declare: {undeclared:?}"
    );
    assert!(
        unused.is_empty(),
        "raw sources the schema declares that no golden carries: {unused:?}"
    );
}

#[test]
fn every_request_opened_is_resolved_and_every_turn_ends() {
    for sc in corpus() {
        let mut open_requests = BTreeSet::new();
        let mut open_turns = BTreeSet::new();
        for (index, event) in sc.events().iter().enumerate() {
            match event.event.event_type() {
                T::RequestOpened => {
                    assert!(
                        open_requests.insert(sc.request_id(index).clone()),
                        "{}: request opened twice",
                        sc.at(index)
                    );
                }
                T::RequestResolved => {
                    assert!(
                        open_requests.remove(sc.request_id(index)),
                        "{}: request.resolved for a request never opened",
                        sc.at(index)
                    );
                }
                T::TurnStarted => {
                    assert!(
                        open_turns.insert(sc.turn_id(index).clone()),
                        "{}: turn started twice",
                        sc.at(index)
                    );
                }
                T::TurnCompleted | T::TurnAborted => {
                    assert!(
                        open_turns.remove(sc.turn_id(index)),
                        "{}: a turn ended that never started",
                        sc.at(index)
                    );
                }
                _ => {}
            }
        }
        assert!(
            open_requests.is_empty(),
            "trace `{}`: requests left open after finish(): {open_requests:?}",
            sc.label()
        );
        assert!(
            open_turns.is_empty(),
            "trace `{}`: turns left open after finish(): {open_turns:?}",
            sc.label()
        );
    }
}

/// Every string anywhere in a JSON value, keys included.
fn strings(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => {
            into.insert(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| strings(item, into)),
        Value::Object(map) => map.iter().for_each(|(key, item)| {
            into.insert(key.clone());
            strings(item, into);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn canonical_ids(event: &ProviderRuntimeEvent) -> Vec<String> {
    let mut ids = vec![event.event_id.to_string(), event.session_id.to_string()];
    ids.extend(event.thread_id.as_ref().map(ToString::to_string));
    ids.extend(event.turn_id.as_ref().map(ToString::to_string));
    ids.extend(event.item_id.as_ref().map(ToString::to_string));
    ids.extend(event.request_id.as_ref().map(ToString::to_string));
    if let RuntimeEvent::TaskStarted(p) = &event.event {
        ids.push(p.task_id.to_string());
    }
    ids
}

#[test]
fn no_canonical_id_is_a_provider_id() {
    for sc in corpus() {
        let mut provider_strings = BTreeSet::new();
        for line in sc.lines_where(|_| true) {
            strings(sc.msg(line), &mut provider_strings);
        }
        let mut seen_event_ids = BTreeSet::new();
        for (index, event) in sc.events().iter().enumerate() {
            for id in canonical_ids(event) {
                assert!(
                    !provider_strings.contains(&id),
                    "{}: canonical id {id} appears in the provider's messages",
                    sc.at(index)
                );
            }
            assert!(
                seen_event_ids.insert(event.event_id.clone()),
                "{}: eventId repeats",
                sc.at(index)
            );
            if let Some(refs) = &event.provider_refs {
                let provider = [
                    refs.provider_thread_id.as_ref().map(ToString::to_string),
                    refs.provider_turn_id.as_ref().map(ToString::to_string),
                    refs.provider_item_id.as_ref().map(ToString::to_string),
                ];
                for id in provider.into_iter().flatten() {
                    assert!(
                        provider_strings.contains(&id),
                        "{}: providerRefs id {id} is not the provider's",
                        sc.at(index)
                    );
                }
            }
        }
    }
}

#[test]
fn two_runs_give_identical_bytes() {
    for &source in Source::ALL {
        for trace in traces(source) {
            assert_eq!(
                normalize(source, &trace).jsonl,
                normalize(source, &trace).jsonl,
                "{}",
                trace.display()
            );
        }
    }
}

/// Unix milliseconds of an RFC 3339 date-time (`2026-11-30T05:25:32.007Z`, any fraction, `Z`
/// or an offset), read here so the test does not trust the library's own formatter.
fn unix_ms(text: &str) -> Option<i64> {
    let number = |from: usize, to: usize| -> Option<i64> {
        let digits = text.get(from..to)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    let bytes = text.as_bytes();
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if bytes.len() < 20
        || separators.iter().any(|&(at, expected)| bytes[at] != expected)
        || !matches!(bytes[10], b'T' | b't')
    {
        return None;
    }
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<3}", &fraction[..digits.min(3)]);
        millis = padded.parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest.as_bytes() {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let value = |a: &u8, b: &u8| i64::from(a - b'0') * 10 + i64::from(b - b'0');
            let minutes = value(h1, h2) * 60 + value(m1, m2);
            if *sign == b'-' { -minutes } else { minutes }
        }
        _ => return None,
    };
    // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
    // `days_from_civil`).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some((((days * 24 + hour) * 60 + minute - offset_minutes) * 60 + second) * 1000 + millis)
}

#[test]
fn the_time_reader_reads_rfc3339() {
    assert_eq!(unix_ms("1970-01-01T00:00:00.000Z"), Some(0));
    assert_eq!(unix_ms("2026-11-30T05:25:32.007Z"), Some(1_796_016_332_007));
    assert_eq!(unix_ms("2026-11-30T06:25:32.0071+01:00"), Some(1_796_016_332_007));
    assert_eq!(unix_ms("2000-02-29T00:00:00Z"), Some(951_782_400_000));
    assert_eq!(unix_ms("1969-12-31T23:59:59.999Z"), Some(-1));
    assert_eq!(unix_ms("2026-11-30 05:25:32Z"), None);
    assert_eq!(unix_ms("2026-11-30T05:25:32"), None);
}

/// The `createdAt` of each event in Unix milliseconds; `at` names event `index` on failure.
fn stamps(events: &[ProviderRuntimeEvent], at: impl Fn(usize) -> String) -> Vec<i64> {
    events
        .iter()
        .enumerate()
        .map(|(index, event)| {
            let created_at = event.created_at.as_str();
            unix_ms(created_at).unwrap_or_else(|| panic!("{}: createdAt {created_at:?} is not RFC 3339", at(index)))
        })
        .collect()
}

/// The events stamped with the Unix epoch (a time the session never had: the clock's value
/// before the stream gives any) in a stream whose other events carry times.
fn epoch_stamped(stamps: &[i64]) -> Vec<usize> {
    if stamps.iter().all(|&stamp| stamp == 0) {
        return Vec::new();
    }
    (0..stamps.len()).filter(|&index| stamps[index] == 0).collect()
}

#[test]
fn no_event_is_stamped_before_the_streams_first_time() {
    for sc in corpus() {
        let stamps_of_trace = stamps(sc.events(), |index| sc.at(index));
        let first_recorded = sc
            .lines_where(|record| record["ts"].is_i64())
            .first()
            .and_then(|&line| sc.record(line)["ts"].as_i64());
        let Some(first) = first_recorded else {
            // No recorded times: the provider's own times are the only ones.
            let epoch = epoch_stamped(&stamps_of_trace);
            let epoch: Vec<String> = epoch.into_iter().map(|index| sc.at(index)).collect();
            assert!(
                epoch.is_empty(),
                "stamped with the Unix epoch though the stream has times: {epoch:?}"
            );
            continue;
        };
        // A transcript: nothing happened before its first record.
        for (index, &stamp) in stamps_of_trace.iter().enumerate() {
            assert!(
                stamp >= first,
                "{}: createdAt {} is before the trace's first time {first} (ts of its first record)",
                sc.at(index),
                sc.event(index).created_at.as_str()
            );
        }
        // The same provider messages as the program prints them, with no recorded time: only
        // the provider's own times date the events.
        let bare: String = sc
            .provider_lines_where(|_| true)
            .into_iter()
            .map(|line| format!("{}\n", sc.msg_text(line)))
            .collect();
        let events = normalize_text(sc.source, &bare).events;
        let label = sc.label();
        let epoch = epoch_stamped(&stamps(&events, |index| format!("bare `{label}`, event #{index}")));
        let epoch: Vec<String> = epoch
            .into_iter()
            .map(|index| format!("#{index} {}", events[index].event.event_type().as_str()))
            .collect();
        assert!(
            epoch.is_empty(),
            "trace `{label}` as a bare stream (its `dir: in` messages): stamped with the Unix epoch though \
             the stream has times: {epoch:?}"
        );
    }
}

/// Whether an open request of this type keeps the session `waiting` on a person (`None`: cannot
/// tell, the request is not known).
fn waits_on_a_person(request_type: CanonicalRequestType) -> Option<bool> {
    use CanonicalRequestType as R;
    match request_type {
        R::CommandExecutionApproval
        | R::FileChangeApproval
        | R::ApplyPatchApproval
        | R::ExecCommandApproval
        | R::PermissionsApproval
        | R::ToolUserInput
        | R::McpServerElicitation
        | R::PlanApproval => Some(true),
        R::DynamicToolCall | R::AuthTokensRefresh | R::Attestation => Some(false),
        R::Unknown => None,
    }
}

/// `session.state.changed` tells the truth: each changes the state (or carries the provider
/// message it is the event of, as a `turn/started` that finds the turn running), `starting`
/// comes first if at all, the session ends (`stopped` or `error`) once, with the last event of the stream; and after
/// every input line (and after `finish()`) the state last reported agrees with what is open:
/// `waiting` while a request waits on a person, else `running` while a turn runs, and neither
/// when nothing is. Every departure of every trace is listed.
#[test]
fn the_session_state_sequence_is_consistent() {
    let violations: Vec<String> = corpus().iter().flat_map(session_state_violations).collect();
    assert!(
        violations.is_empty(),
        "{} session state violations:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

fn session_state_violations(sc: &Scenario) -> Vec<String> {
    let mut violations = Vec::new();
    let mut state: Option<SessionState> = None;
    let mut turns: BTreeSet<TurnId> = BTreeSet::new();
    let mut requests: Vec<(RuntimeRequestId, Option<bool>)> = Vec::new();
    let count = sc.events().len();
    for index in 0..count {
        match &sc.event(index).event {
            RuntimeEvent::TurnStarted(_) => {
                turns.insert(sc.turn_id(index).clone());
            }
            RuntimeEvent::TurnCompleted(_) | RuntimeEvent::TurnAborted(_) => {
                turns.remove(sc.turn_id(index));
            }
            RuntimeEvent::RequestOpened(opened) => {
                requests.push((sc.request_id(index).clone(), waits_on_a_person(opened.request_type)));
            }
            RuntimeEvent::RequestResolved(_) => {
                let id = sc.request_id(index);
                requests.retain(|(open, _)| open != id);
            }
            RuntimeEvent::SessionStateChanged(changed) => {
                let next = changed.state;
                let mut fault = |what: String| violations.push(format!("{}: {what}", sc.at(index)));
                if state == Some(next) {
                    fault(format!("{next:?} again: a state change that changes nothing"));
                }
                if matches!(state, Some(SessionState::Stopped | SessionState::Error)) {
                    fault(format!("{next:?} after the session ended ({state:?})"));
                }
                if next == SessionState::Starting && state.is_some() {
                    fault(format!("starting after {state:?}"));
                }
                if matches!(next, SessionState::Stopped | SessionState::Error) && index + 1 != count {
                    fault(format!("{next:?} before the end of the stream"));
                }
                state = Some(next);
            }
            _ => {}
        }
        let end_of_line = index + 1 == count || sc.line_of(index + 1) != sc.line_of(index);
        if !end_of_line {
            continue;
        }
        let asked = requests.iter().any(|(_, waits)| *waits == Some(true));
        let maybe_asked = requests.iter().any(|(_, waits)| *waits != Some(false));
        let mut fault = |what: &str| {
            violations.push(format!(
                "{}: after this line the state is {state:?} but {what} (open turns {}, open requests {})",
                sc.at(index),
                turns.len(),
                requests.len()
            ));
        };
        if asked && state != Some(SessionState::Waiting) {
            fault("a request waits on a person");
        }
        if state == Some(SessionState::Waiting) && !maybe_asked {
            fault("no request waits");
        }
        let running = match state {
            Some(SessionState::Running) => true,
            Some(SessionState::Waiting) => maybe_asked,
            _ => false,
        };
        if !turns.is_empty() && !asked && !running {
            fault("a turn runs");
        }
        if turns.is_empty() && state == Some(SessionState::Running) {
            fault("no turn runs");
        }
    }
    let last = sc
        .events()
        .last()
        .and_then(|event| payload!(event, SessionStateChanged))
        .map(|changed| changed.state);
    if !matches!(last, Some(SessionState::Stopped | SessionState::Error)) {
        violations.push(format!(
            "trace `{}`: the last event is not session.state.changed to stopped or error: {}",
            sc.label(),
            sc.at(count.saturating_sub(1))
        ));
    }
    violations
}

/// A card says what it asks: every `request.opened` of every golden carries a `detail` a person
/// decides on (the command, the file, the patterns a permission would allow, the plan).
#[test]
fn every_request_opened_says_what_it_asks() {
    for sc in corpus() {
        for (index, event) in sc.events().iter().enumerate() {
            if let RuntimeEvent::RequestOpened(opened) = &event.event {
                let detail = opened.detail.as_deref().unwrap_or_default();
                assert!(
                    !detail.trim().is_empty(),
                    "{}: a request.opened without detail",
                    sc.at(index)
                );
            }
        }
    }
}

/// No error reads as a JSON blob: the message of every `runtime.error` and the `errorMessage` of
/// every `turn.completed` of every golden holds no JSON document (the provider's stays in `raw`).
#[test]
fn no_error_text_is_a_json_blob() {
    for sc in corpus() {
        for (index, event) in sc.events().iter().enumerate() {
            let message = match &event.event {
                RuntimeEvent::RuntimeError(error) => Some(error.message.as_str()),
                RuntimeEvent::TurnCompleted(completed) => completed.error_message.as_deref(),
                _ => None,
            };
            if let Some(message) = message
                && let (Some(start), Some(end)) = (message.find('{'), message.rfind('}'))
                && start < end
            {
                assert!(
                    serde_json::from_str::<serde_json::Map<String, Value>>(&message[start..=end]).is_err(),
                    "{}: an error that holds a JSON document: {message}",
                    sc.at(index)
                );
            }
        }
    }
}

/// Nothing changes an item after its end: no `item.started`, `item.updated`, `item.completed` or
/// `content.delta` follows an item's `item.completed`, in every golden (a late report on it rides
/// on an event of its turn or session).
#[test]
fn nothing_follows_an_items_completion() {
    for sc in corpus() {
        let mut completed = BTreeSet::new();
        for (index, event) in sc.events().iter().enumerate() {
            let Some(item) = &event.item_id else {
                continue;
            };
            match &event.event {
                RuntimeEvent::ItemStarted(_) | RuntimeEvent::ItemUpdated(_) | RuntimeEvent::ContentDelta(_) => {
                    assert!(
                        !completed.contains(item),
                        "{}: after the item's completion",
                        sc.at(index)
                    );
                }
                RuntimeEvent::ItemCompleted(_) => {
                    assert!(completed.insert(item.clone()), "{}: completed twice", sc.at(index));
                }
                _ => {}
            }
        }
    }
}
