//! `agentwire export DIR --otlp URL | --otlp-file FILE`: an imported history as OpenTelemetry
//! traces, under
//! the GenAI semantic conventions (semantic conventions 1.37.0, GenAI spans): one trace per
//! session, an `invoke_agent` span per turn, an `execute_tool` span per tool item under its turn,
//! with the recorded start and end times and the typed usage. Sent as OTLP/HTTP with JSON bodies
//! (one `ExportTraceServiceRequest` per session, `POST URL/v1/traces`), or written as OTLP/JSON
//! lines, one request per session (what the OpenTelemetry Collector's file exporter writes and
//! its file receiver reads).
//!
//! Ids are the canonical ids: a session's UUID is its trace id, a turn's or an item's first eight
//! bytes its span id, so exporting twice gives the same spans. Prompts, answers and tool
//! arguments and results go on the spans only with `--record-content`.

use std::io::Write as _;
use std::path::PathBuf;

use agentwire::clock::unix_millis;
use agentwire_canonical::{
    CanonicalItemType, IsoDateTime, ItemContent, ItemStatus, ProviderKind, SessionSnapshot, SnapshotItem, SnapshotTurn,
    SnapshotTurnState, ToolLifecycleItemType,
};
use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::ExitStatus;
use crate::import::index::Entry;
use crate::import::{INDEX, read_index};
use crate::show;

/// The semantic conventions the attributes follow.
pub const SEMCONV: &str = "https://opentelemetry.io/schemas/1.37.0";

/// `SPAN_KIND_INTERNAL` and `SPAN_KIND_CLIENT`; `STATUS_CODE_ERROR`.
const INTERNAL: i64 = 1;
const CLIENT: i64 = 3;
const ERROR: i64 = 2;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("to").required(true).multiple(true).args(["otlp", "otlp_file"])))]
pub struct Args {
    /// The import folder (`agentwire import --out DIR`).
    dir: PathBuf,
    /// Send the traces to this OTLP/HTTP receiver (`http://HOST:PORT`, its `/v1/traces` added
    /// when the address does not end with it), one JSON request per session.
    #[arg(long, value_name = "URL")]
    otlp: Option<String>,
    /// Write the traces as OTLP/JSON lines to this file (written whole, then moved into place).
    #[arg(long, value_name = "FILE")]
    otlp_file: Option<PathBuf>,
    /// Also record what was said and run: the prompt and answer on each turn's span, a tool's
    /// arguments and result on its span.
    #[arg(long)]
    record_content: bool,
}

pub fn run(args: Args, out: &mut impl std::io::Write) -> anyhow::Result<ExitStatus> {
    let index = args.dir.join(INDEX);
    if !index.is_file() {
        bail!(
            "{}: no index here (run `agentwire import --out DIR` first)",
            index.display()
        );
    }
    let mut entries: Vec<Entry> = read_index(&index)?.into_values().collect();
    entries.sort_by(|one, other| (&one.started_at, &one.session_id).cmp(&(&other.started_at, &other.session_id)));
    let mut file = match &args.otlp_file {
        Some(path) => {
            let partial = path.with_extension("partial");
            let created = std::fs::File::create(&partial).with_context(|| format!("writing {}", partial.display()))?;
            Some((std::io::BufWriter::new(created), partial, path))
        }
        None => None,
    };
    let receiver = args.otlp.as_deref().map(Receiver::new);
    let (mut sessions, mut spans) = (0, 0);
    for entry in &entries {
        let Some(snapshot) = show::snapshot_of_canonical(&args.dir.join(&entry.output))? else {
            continue;
        };
        let session_spans = session_spans(entry, &snapshot, args.record_content);
        if session_spans.is_empty() {
            continue;
        }
        sessions += 1;
        spans += session_spans.len();
        let request = json!({
            "resourceSpans": [{
                "resource": {"attributes": [
                    attribute("service.name", json!("agentwire")),
                    attribute("agentwire.source", json!(entry.source)),
                ]},
                "scopeSpans": [{
                    "scope": {"name": "agentwire", "version": env!("CARGO_PKG_VERSION")},
                    "schemaUrl": SEMCONV,
                    "spans": session_spans,
                }],
                "schemaUrl": SEMCONV,
            }]
        });
        let text = serde_json::to_string(&request)?;
        if let Some(receiver) = &receiver {
            receiver.send(&text)?;
        }
        if let Some((writer, partial, _)) = file.as_mut() {
            writer
                .write_all(text.as_bytes())
                .and_then(|()| writer.write_all(b"\n"))
                .with_context(|| format!("writing {}", partial.display()))?;
        }
    }
    if let Some((writer, partial, path)) = file {
        writer
            .into_inner()
            .map_err(|err| err.into_error())
            .and_then(|file| file.sync_all())
            .with_context(|| format!("writing {}", partial.display()))?;
        std::fs::rename(&partial, path)
            .with_context(|| format!("moving {} to {}", partial.display(), path.display()))?;
        writeln!(out, "{}: {spans} span(s) of {sessions} session(s)", path.display())?;
    }
    if let Some(receiver) = &receiver {
        writeln!(out, "{}: {spans} span(s) of {sessions} session(s) sent", receiver.url)?;
    }
    Ok(ExitStatus::Success)
}

/// An OTLP/HTTP receiver, sent JSON requests.
struct Receiver {
    url: String,
    agent: ureq::Agent,
}

impl Receiver {
    fn new(url: &str) -> Self {
        let url = url.trim_end_matches('/');
        let url = if url.ends_with("/v1/traces") {
            url.to_owned()
        } else {
            format!("{url}/v1/traces")
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(std::time::Duration::from_secs(30)))
            .http_status_as_error(false)
            .build()
            .into();
        Receiver { url, agent }
    }

    /// Posts one request; a receiver that is down or answers other than 2xx is an error naming
    /// it and what it said (a rerun sends the same spans again, ids and all).
    fn send(&self, body: &str) -> anyhow::Result<()> {
        let response = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .send(body)
            .with_context(|| format!("{}: cannot send the traces", self.url))?;
        let status = response.status();
        if !status.is_success() {
            let said = response.into_body().read_to_string().unwrap_or_default();
            let said: String = said.chars().take(300).collect();
            bail!("{}: the receiver answered {status}: {said}", self.url);
        }
        Ok(())
    }
}

/// A canonical id's hex digits (a UUID's 32), the first `bytes` of them.
fn id_hex(id: &str, bytes: usize) -> String {
    id.chars()
        .filter(char::is_ascii_hexdigit)
        .take(bytes * 2)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// `createdAt` as OTLP's nanoseconds since the epoch (a decimal string).
fn nanos(at: Option<&IsoDateTime>) -> Option<String> {
    let ms = unix_millis(at?.as_str())?;
    Some((i128::from(ms) * 1_000_000).to_string())
}

fn attribute(key: &str, value: Value) -> Value {
    let value = match value {
        Value::String(text) => json!({ "stringValue": text }),
        Value::Bool(flag) => json!({ "boolValue": flag }),
        Value::Number(number) if number.is_i64() => json!({ "intValue": number.to_string() }),
        Value::Number(number) => json!({ "doubleValue": number }),
        other => json!({ "stringValue": other.to_string() }),
    };
    json!({ "key": key, "value": value })
}

/// The GenAI provider name of a session's agent (its canonical `provider`), as the conventions
/// name providers; an agent of many providers' models goes by its own name.
fn provider_name(provider: &str) -> &str {
    match ProviderKind::ALL.iter().find(|kind| kind.as_str() == provider) {
        Some(kind) => genai_name(*kind),
        None => provider,
    }
}

// @generated from schemas/sources.toml by `cargo xtask codegen` (begin genai-names)
/// A provider kind's GenAI provider name (`gen_ai.provider.name`), as `schemas/sources.toml`
/// gives it; an agent of many providers' models goes by its own kind.
fn genai_name(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Codex => "openai",
        ProviderKind::ClaudeAgent => "anthropic",
        ProviderKind::Cursor => kind.as_str(),
        ProviderKind::Acp => kind.as_str(),
        ProviderKind::Opencode => kind.as_str(),
        ProviderKind::Gemini => "gcp.gemini",
        ProviderKind::Copilot => kind.as_str(),
        ProviderKind::Pi => kind.as_str(),
    }
}
// (end genai-names)

fn session_spans(entry: &Entry, snapshot: &SessionSnapshot, record_content: bool) -> Vec<Value> {
    let trace = id_hex(&entry.session_id, 16);
    let mut spans = Vec::new();
    for turn in &snapshot.turns {
        let span = id_hex(turn.turn_id.as_str(), 8);
        let items: Vec<&SnapshotItem> = snapshot
            .items
            .iter()
            .filter(|item| item.turn_id.as_ref() == Some(&turn.turn_id))
            .collect();
        spans.push(turn_span(entry, snapshot, turn, &trace, &span, &items, record_content));
        // The tool calls are the schema's `ToolLifecycleItemType`s.
        for item in items
            .iter()
            .filter(|item| ToolLifecycleItemType::try_from(item.item_type).is_ok())
        {
            spans.push(tool_span(item, &trace, &span, record_content));
        }
    }
    spans
}

fn turn_span(
    entry: &Entry,
    snapshot: &SessionSnapshot,
    turn: &SnapshotTurn,
    trace: &str,
    span: &str,
    items: &[&SnapshotItem],
    record_content: bool,
) -> Value {
    let agent = entry.source.as_str();
    let mut attributes = vec![
        attribute("gen_ai.operation.name", json!("invoke_agent")),
        attribute("gen_ai.provider.name", json!(provider_name(&entry.provider))),
        attribute("gen_ai.agent.name", json!(agent)),
        attribute("gen_ai.conversation.id", json!(entry.session_id)),
    ];
    if let Some(model) = turn.model.as_ref().or(snapshot.session.model.as_ref()) {
        attributes.push(attribute("gen_ai.request.model", json!(model)));
    }
    if let Some(usage) = &turn.usage {
        let figures = [
            ("gen_ai.usage.input_tokens", usage.input_tokens),
            ("gen_ai.usage.output_tokens", usage.output_tokens),
            ("gen_ai.usage.cache_read.input_tokens", usage.cached_input_tokens),
            ("gen_ai.usage.cache_creation.input_tokens", usage.cache_write_tokens),
        ];
        for (key, figure) in figures {
            if let Some(figure) = figure {
                attributes.push(attribute(key, json!(figure)));
            }
        }
        if let Some(cost) = usage.cost_usd {
            attributes.push(attribute("agentwire.cost.usd", json!(cost)));
            attributes.push(attribute("agentwire.cost.source", json!(usage.cost_source.as_str())));
        }
    }
    attributes.push(attribute("agentwire.turn.state", json!(turn.state.as_str())));
    if record_content {
        let said = |wanted: CanonicalItemType| -> Vec<Value> {
            items
                .iter()
                .filter(|item| item.item_type == wanted && item.parent_item_id.is_none())
                .filter_map(
                    |item| match ItemContent::decode(item.item_type, item.data.as_ref()?).ok()? {
                        ItemContent::UserMessage(message) => Some(message.text),
                        ItemContent::AssistantMessage(message) => Some(message.text),
                        _ => None,
                    },
                )
                .map(|text| json!({"type": "text", "content": text}))
                .collect()
        };
        let (prompt, answer) = (
            said(CanonicalItemType::UserMessage),
            said(CanonicalItemType::AssistantMessage),
        );
        attributes.push(attribute(
            "gen_ai.input.messages",
            json!(json!([{"role": "user", "parts": prompt}]).to_string()),
        ));
        attributes.push(attribute(
            "gen_ai.output.messages",
            json!(json!([{"role": "assistant", "parts": answer}]).to_string()),
        ));
    }
    let failed = turn.state == SnapshotTurnState::Failed;
    span_json(
        trace,
        span,
        None,
        &format!("invoke_agent {agent}"),
        CLIENT,
        (turn.started_at.as_ref(), turn.completed_at.as_ref()),
        attributes,
        failed.then(|| turn.error.clone().unwrap_or_else(|| "the turn failed".to_owned())),
    )
}

fn tool_span(item: &SnapshotItem, trace: &str, parent: &str, record_content: bool) -> Value {
    let content = item
        .data
        .as_ref()
        .and_then(|data| ItemContent::decode(item.item_type, data).ok());
    let (tool, arguments, result) = match &content {
        Some(ItemContent::CommandExecution(command)) => (
            "shell".to_owned(),
            Some(command.command.clone()),
            command.output.clone(),
        ),
        Some(ItemContent::FileChange(change)) => {
            let paths: Vec<&str> = change.changes.iter().map(|change| change.path.as_str()).collect();
            ("apply_patch".to_owned(), Some(paths.join("\n")), change.output.clone())
        }
        Some(ItemContent::McpToolCall(call)) => (
            format!("{}/{}", call.server, call.tool),
            call.arguments.as_ref().map(Value::to_string),
            call.result.as_ref().map(Value::to_string),
        ),
        Some(ItemContent::DynamicToolCall(call)) => (
            call.tool.clone(),
            call.arguments.as_ref().map(Value::to_string),
            call.result.as_ref().map(Value::to_string),
        ),
        Some(ItemContent::CollabAgentToolCall(call)) => (
            call.tool.clone().unwrap_or_else(|| "agent".to_owned()),
            call.prompt.clone(),
            call.result.clone(),
        ),
        Some(ItemContent::WebSearch(search)) => (
            "web_search".to_owned(),
            Some(search.query.clone()),
            search.results.clone(),
        ),
        _ => (item.item_type.as_str().to_owned(), None, None),
    };
    let mut attributes = vec![
        attribute("gen_ai.operation.name", json!("execute_tool")),
        attribute("gen_ai.tool.name", json!(tool)),
        attribute("gen_ai.tool.call.id", json!(item.item_id.as_str())),
        attribute("gen_ai.tool.type", json!("function")),
    ];
    if let Some(status) = item.status {
        attributes.push(attribute("agentwire.item.status", json!(status.as_str())));
    }
    let failed = matches!(item.status, Some(ItemStatus::Failed));
    if failed {
        attributes.push(attribute("error.type", json!("tool_error")));
    }
    if record_content {
        if let Some(arguments) = arguments {
            attributes.push(attribute("gen_ai.tool.call.arguments", json!(arguments)));
        }
        if let Some(result) = result {
            attributes.push(attribute("gen_ai.tool.call.result", json!(result)));
        }
    }
    span_json(
        trace,
        &id_hex(item.item_id.as_str(), 8),
        Some(parent),
        &format!("execute_tool {tool}"),
        INTERNAL,
        (item.started_at.as_ref(), item.completed_at.as_ref()),
        attributes,
        failed.then(|| item.detail.clone().unwrap_or_else(|| "the tool failed".to_owned())),
    )
}

#[allow(clippy::too_many_arguments)]
fn span_json(
    trace: &str,
    span: &str,
    parent: Option<&str>,
    name: &str,
    kind: i64,
    (start, end): (Option<&IsoDateTime>, Option<&IsoDateTime>),
    attributes: Vec<Value>,
    error: Option<String>,
) -> Value {
    let start = nanos(start);
    let end = nanos(end).or_else(|| start.clone());
    let mut span = json!({
        "traceId": trace,
        "spanId": span,
        "name": name,
        "kind": kind,
        "startTimeUnixNano": start.unwrap_or_else(|| "0".to_owned()),
        "endTimeUnixNano": end.unwrap_or_else(|| "0".to_owned()),
        "attributes": attributes,
    });
    if let Some(parent) = parent {
        span["parentSpanId"] = json!(parent);
    }
    if let Some(message) = error {
        span["status"] = json!({"code": ERROR, "message": message});
    }
    span
}

#[cfg(test)]
mod tests {
    use super::id_hex;

    #[test]
    fn ids_are_the_canonical_ids_hex() {
        let uuid = "5cbc60c1-26fc-5235-aacd-8a471aba879a";
        assert_eq!(id_hex(uuid, 16), "5cbc60c126fc5235aacd8a471aba879a");
        assert_eq!(id_hex(uuid, 8), "5cbc60c126fc5235");
    }
}
