//! The real replies of the corpus, for the tests of the way back (`answer`): every provider
//! request that opened a `request.opened` and whose client reply is recorded later in its trace,
//! with the canonical [`Reply`] a host reads from the full trace's events.

use agentwire::answer::Reply;
use agentwire::decision::Decision;
use agentwire::normalizer::Normalizer;
use agentwire::source::Source;
use agentwire_canonical::RuntimeRequestId;
use serde_json::{Map, Value};

use crate::{corpus_dir, normalize, normalizer_after, trace_name, traces};

/// The sources whose transcripts record a client answering the provider.
pub const SOURCES: &[Source] = &[
    Source::CODEX_APP_SERVER,
    Source::CLAUDE_CONTROL,
    Source::ACP,
    Source::CURSOR,
];

/// Claude control requests that are the SDK host's plumbing, not a decision a person makes: left
/// out by subtype, whatever the normalizer opens for them.
pub const PLUMBING: &[(&str, &str)] = &[
    (
        "hook_callback",
        "a hook the host registered runs and returns its output; nobody decides anything",
    ),
    (
        "mcp_message",
        "a JSON-RPC message for the host's in-process MCP server; its answer is the server's reply",
    ),
];

/// One provider request the real client answered.
pub struct Answered {
    pub source: Source,
    pub trace: String,
    /// The 1-based line of the provider's request.
    pub request_line: usize,
    /// The 1-based line of the client's reply.
    pub reply_line: usize,
    /// The request's method (a Claude control request's subtype).
    pub method: String,
    /// The `requestId` of its `request.opened`.
    pub request: RuntimeRequestId,
    /// The reply frame the real client sent (the record's `msg`).
    pub sent: Value,
    /// The canonical reply, from the full trace's events ([`reply_of`]); `Err` says why none
    /// could be read.
    pub reply: Result<Reply, String>,
}

impl Answered {
    /// The trace's lines before the client's reply.
    pub fn text_before_reply(&self) -> String {
        let path = corpus_dir(self.source).join(format!("{}.jsonl", self.trace));
        let text = std::fs::read_to_string(path).expect("readable trace");
        text.lines()
            .take(self.reply_line - 1)
            .map(|line| format!("{line}\n"))
            .collect()
    }

    /// The session as a host holds it while the request waits: the trace up to the reply, read
    /// and not finished.
    pub fn session_before_reply(&self) -> Box<dyn Normalizer> {
        normalizer_after(self.source, &self.text_before_reply())
    }

    /// `source/trace.jsonl:REQUEST->REPLY method`.
    pub fn label(&self) -> String {
        format!(
            "{}/{}.jsonl:{}->{} {}",
            self.source, self.trace, self.request_line, self.reply_line, self.method
        )
    }
}

/// The real replies of a source's corpus, and the plumbing requests left out.
pub struct Replies {
    pub answered: Vec<Answered>,
    /// `source/trace.jsonl:LINE subtype` of each request left out as [`PLUMBING`].
    pub plumbing: Vec<String>,
}

/// The request frame's key for pairing: the JSON-RPC id, or a Claude control request's
/// `request_id`.
fn request_key(msg: &Value) -> Option<&Value> {
    match msg.get("type").and_then(Value::as_str) {
        Some("control_request") => msg.get("request_id"),
        _ => msg.get("method").and(msg.get("id")),
    }
}

/// Whether `msg` (sent by the client) answers the request keyed `key`.
fn answers_request(msg: &Value, key: &Value) -> bool {
    match msg.get("type").and_then(Value::as_str) {
        Some("control_response") => msg["response"].get("request_id") == Some(key),
        _ => msg.get("method").is_none() && msg.get("id") == Some(key),
    }
}

/// The request's method, or a Claude control request's subtype.
fn method_of(msg: &Value) -> String {
    msg.get("method")
        .or_else(|| msg.pointer("/request/subtype"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The reply a host builds from the canonical events of a request, knowing no provider:
/// - the decision of `request.resolved`;
/// - the answers of `user-input.resolved`, else the `content` the resolution carries (an MCP
///   form's);
/// - the result: the fields of the resolution's `outcome` object beyond the decision, its reason
///   and its answers (a Cursor outcome's), else, when the request was answered with something
///   other than answers, the resolution itself (a dynamic tool's result);
/// - the message: the resolution's `message`.
pub fn reply_of(resolved: &Value, answers: Option<&Value>) -> Result<Reply, String> {
    let decision: Decision = resolved["decision"]
        .as_str()
        .ok_or_else(|| format!("request.resolved carries no decision: {resolved}"))?
        .parse()?;
    let resolution = &resolved["resolution"];
    let answers = answers
        .filter(|answers| !answers.is_null())
        .or_else(|| resolution.get("content"))
        .cloned();
    let result = match resolution.get("outcome").and_then(Value::as_object) {
        Some(outcome) => {
            let fields: Map<String, Value> = outcome
                .iter()
                .filter(|(key, _)| !matches!(key.as_str(), "outcome" | "reason" | "answers"))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            (!fields.is_empty()).then_some(Value::Object(fields))
        }
        None => (decision == Decision::Answered && answers.is_none()).then(|| resolution.clone()),
    };
    let message = resolution.get("message").and_then(Value::as_str).map(str::to_string);
    Ok(Reply {
        decision,
        answers,
        result,
        message,
    })
}

/// Every request of `source`'s corpus the real client answered, in trace and line order.
pub fn replies(source: Source) -> Replies {
    let mut replies = Replies {
        answered: Vec::new(),
        plumbing: Vec::new(),
    };
    for path in traces(source) {
        let text = std::fs::read_to_string(&path).expect("readable trace");
        let records: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or(Value::Null))
            .collect();
        let events: Vec<Value> = normalize(source, &path)
            .events
            .iter()
            .map(|event| serde_json::to_value(event).expect("events serialize"))
            .collect();
        let trace = trace_name(&path);
        for opened in events.iter().filter(|event| event["type"] == "request.opened") {
            // The request frame is the event's raw payload (events of a trace without times are
            // held to its end, so the event's line does not tell it).
            let frame = &opened["raw"]["payload"];
            let Some(at) = records
                .iter()
                .position(|record| record["dir"] == "in" && &record["msg"] == frame)
            else {
                continue;
            };
            let method = method_of(frame);
            if PLUMBING.iter().any(|(subtype, _)| *subtype == method) {
                replies
                    .plumbing
                    .push(format!("{source}/{trace}.jsonl:{} {method}", at + 1));
                continue;
            }
            // Opened by no request frame of its own (a denial the CLI decided alone).
            let Some(key) = request_key(frame) else {
                continue;
            };
            let Some(reply_at) = (at..records.len())
                .find(|&line| records[line]["dir"] == "out" && answers_request(&records[line]["msg"], key))
            else {
                continue;
            };
            let of_request = |kind: &str| {
                events
                    .iter()
                    .find(|event| event["type"] == kind && event["requestId"] == opened["requestId"])
            };
            let reply = match of_request("request.resolved") {
                Some(resolved) => reply_of(
                    &resolved["payload"],
                    of_request("user-input.resolved").map(|event| &event["payload"]["answers"]),
                ),
                None => Err("no request.resolved".to_string()),
            };
            let request = opened["requestId"].as_str().expect("a request id");
            replies.answered.push(Answered {
                source,
                trace: trace.clone(),
                request_line: at + 1,
                reply_line: reply_at + 1,
                method,
                request: RuntimeRequestId::new(request).expect("a canonical request id"),
                sent: records[reply_at]["msg"].clone(),
                reply,
            });
        }
    }
    replies
}
