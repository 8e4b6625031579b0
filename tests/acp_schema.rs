//! The vendored Agent Client Protocol schema (`schemas/acp/schema.json`) and the hand-written
//! extension schemas (Cursor's `schemas/acp/cursor-extensions.schema.json`, Qwen Code's
//! `schemas/acp/qwen-extensions.schema.json`) against the real ACP traffic in
//! `tests/corpus/acp/` and the examples of Cursor's documentation in `tests/fixtures/cursor/`.
//!
//! - the method tables, read the way `schemas/acp/README.md` tells the generator to (ACP: the
//!   envelope unions and `x-method`; Cursor: `x-dispatch` and `x-responses`), are exactly the
//!   expected ones, and each schema's annotations agree with its own unions;
//! - every JSON-RPC message of every trace validates: a request's or notification's `params`
//!   against the params definition of its method, a response's `result` against the response
//!   definition of the request with the same id sent the other way, an error against `Error`;
//! - every `session/update` validates against exactly one `SessionUpdate` variant, the one its
//!   `sessionUpdate` names;
//! - every method the corpus sends is defined by one of the two schemas, in the direction and
//!   as the kind (request or notification) it is sent; today there is no exception;
//! - the members the agents send that the stable schema does not declare (ACP objects are open,
//!   so they validate) are exactly the listed ones, each with why;
//! - the Cursor examples validate, method by method and outcome by outcome, and each invalid
//!   example is rejected for the reason it gives.
//!
//! Run with `--nocapture` to see what each set of traces sends.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::PathBuf;

use jsonschema::{Registry, Validator};
use serde_json::{Value, json};

const ACP: &str = "schema.json";
const CURSOR: &str = "cursor-extensions.schema.json";
const QWEN: &str = "qwen-extensions.schema.json";
/// The base URI the files are registered under, so the extension schemas' relative references
/// (`schema.json#/$defs/SessionConfigOption`, `schema.json#/$defs/ContentBlock`) resolve to the
/// vendored file. Nothing is fetched:
/// the validator is built without network retrieval.
const BASE: &str = "https://agentwire.invalid/schemas/acp/";

/// Which side of an ACP connection sends a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Sender {
    Agent,
    Client,
    /// Protocol-level messages (`$/cancel_request`) go either way.
    Either,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Request,
    Notification,
}

/// One row of a method table.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Method {
    name: String,
    sender: Sender,
    kind: Kind,
    /// The schema file that defines it.
    schema: &'static str,
    params: String,
    /// The definition of a successful reply (requests only).
    response: Option<String>,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let response = self.response.as_deref().unwrap_or("-");
        write!(
            f,
            "{} {:?} {:?} {} {} -> {response}",
            self.name, self.sender, self.kind, self.schema, self.params
        )
    }
}

fn read_json(relative: &str) -> Value {
    let path = agentwire_tests::workspace_root().join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// The definition a union branch points at: `{"$ref": ...}` or ACP's `{"allOf": [{"$ref": ...}]}`.
fn branch_target(branch: &Value) -> Option<&str> {
    branch
        .get("$ref")
        .or_else(|| branch.pointer("/allOf/0/$ref"))
        .and_then(Value::as_str)
        .and_then(|target| target.strip_prefix("#/$defs/"))
}

fn def<'a>(schema: &'a Value, name: &str) -> &'a Value {
    schema["$defs"]
        .get(name)
        .unwrap_or_else(|| panic!("no definition {name}"))
}

fn annotation<'a>(schema: &'a Value, name: &str, key: &str) -> Option<&'a str> {
    def(schema, name).get(key).and_then(Value::as_str)
}

/// The side whose `x-side` handles what `sender` sends.
fn receiver(sender: Sender) -> &'static str {
    match sender {
        Sender::Agent => "client",
        Sender::Client => "agent",
        Sender::Either => "protocol",
    }
}

/// ACP's method table. The envelope unions are named after the side that sends them
/// (`AgentRequest` = requests the agent sends) and list their payload definitions; each payload
/// names its method in `x-method` and the side that handles it in `x-side`. A request's reply is
/// the definition with the same `x-method` in the other side's `*Response` union.
fn acp_methods(schema: &Value) -> Vec<Method> {
    const CALLS: &[(&str, Sender, Kind)] = &[
        ("/$defs/AgentRequest", Sender::Agent, Kind::Request),
        ("/$defs/ClientRequest", Sender::Client, Kind::Request),
        ("/$defs/AgentNotification", Sender::Agent, Kind::Notification),
        ("/$defs/ClientNotification", Sender::Client, Kind::Notification),
    ];
    let protocol_level = schema["anyOf"]
        .as_array()
        .expect("a root anyOf")
        .iter()
        .position(|branch| branch["title"] == "ProtocolLevel")
        .expect("a ProtocolLevel branch in the root anyOf");
    let protocol = format!("/anyOf/{protocol_level}");
    let calls = CALLS
        .iter()
        .map(|(pointer, sender, kind)| ((*pointer).to_string(), *sender, *kind))
        .chain([(protocol, Sender::Either, Kind::Notification)]);

    let mut methods: BTreeMap<String, Method> = BTreeMap::new();
    for (pointer, sender, kind) in calls {
        let branches = schema
            .pointer(&format!("{pointer}/properties/params/anyOf/0/anyOf"))
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{pointer}: params is no anyOf of payloads"));
        for branch in branches {
            let params = branch_target(branch).unwrap_or_else(|| panic!("{pointer}: a branch without $ref"));
            let Some(name) = annotation(schema, params, "x-method") else {
                assert!(
                    params.starts_with("Ext"),
                    "{pointer}: {params} has no x-method and is no Ext* catch-all"
                );
                continue;
            };
            assert_eq!(
                annotation(schema, params, "x-side"),
                Some(receiver(sender)),
                "{params}: x-side is the handling side"
            );
            let method = Method {
                name: name.to_string(),
                sender,
                kind,
                schema: ACP,
                params: params.to_string(),
                response: None,
            };
            assert!(
                methods.insert(name.to_string(), method).is_none(),
                "{name} is listed twice"
            );
        }
    }

    for (pointer, answers) in [
        ("/$defs/AgentResponse", Sender::Client),
        ("/$defs/ClientResponse", Sender::Agent),
    ] {
        let branches = schema
            .pointer(&format!("{pointer}/anyOf/0/properties/result/anyOf"))
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{pointer}: result is no anyOf of payloads"));
        for branch in branches {
            let response = branch_target(branch).unwrap_or_else(|| panic!("{pointer}: a branch without $ref"));
            let Some(name) = annotation(schema, response, "x-method") else {
                assert!(response.starts_with("Ext"), "{pointer}: {response} has no x-method");
                continue;
            };
            let method = methods
                .get_mut(name)
                .unwrap_or_else(|| panic!("{pointer}: {response} answers {name}, which no request union lists"));
            assert_eq!(
                (method.sender, method.kind),
                (answers, Kind::Request),
                "{pointer}: {response} answers {name}"
            );
            assert!(
                method.response.replace(response.to_string()).is_none(),
                "{name}: two responses"
            );
        }
    }

    let listed: BTreeSet<&str> = methods
        .values()
        .flat_map(|m| [Some(m.params.as_str()), m.response.as_deref()])
        .flatten()
        .collect();
    for (name, definition) in schema["$defs"].as_object().expect("$defs") {
        if definition.get("x-method").is_some() {
            assert!(
                listed.contains(name.as_str()),
                "{name} has an x-method but no union lists it"
            );
        }
    }
    for method in methods.values() {
        assert_eq!(
            method.response.is_some(),
            method.kind == Kind::Request,
            "{}: a request has a response, a notification none",
            method.name
        );
    }
    methods.into_values().collect()
}

/// An extension schema's method table (Cursor's, Qwen Code's): each union carries `x-dispatch`
/// (method -> params definition) and, for requests, `x-responses` (method -> reply definition),
/// and a plain `oneOf` of the same messages for standard validators.
fn extension_methods(schema: &Value, file: &'static str, unions: &[(&str, Sender, Kind)]) -> Vec<Method> {
    let mut methods = Vec::new();
    for &(union, sender, kind) in unions {
        let definition = def(schema, union);
        let dispatch = &definition["x-dispatch"];
        assert_eq!(dispatch["tag"], "method", "{union}: x-dispatch.tag");
        let envelope = match kind {
            Kind::Request => "jsonrpc-request",
            Kind::Notification => "jsonrpc-notification",
        };
        assert_eq!(dispatch["envelope"], envelope, "{union}: x-dispatch.envelope");
        let variants = dispatch["variants"].as_object().expect("x-dispatch.variants");
        let no_responses = serde_json::Map::new();
        let responses = match kind {
            Kind::Request => definition["x-responses"].as_object().expect("x-responses"),
            Kind::Notification => {
                assert!(
                    definition.get("x-responses").is_none(),
                    "{union}: a notification has no reply"
                );
                &no_responses
            }
        };
        let keys = |map: &serde_json::Map<String, Value>| map.keys().cloned().collect::<Vec<_>>();
        if kind == Kind::Request {
            assert_eq!(
                keys(variants),
                keys(responses),
                "{union}: x-dispatch and x-responses name the same methods"
            );
        }

        let branches = definition["oneOf"].as_array().expect("a oneOf");
        let from_one_of: Vec<(String, String)> = branches
            .iter()
            .map(|branch| {
                let method = branch.pointer("/properties/method/const").and_then(Value::as_str);
                let params = branch.pointer("/properties/params").and_then(branch_target);
                (
                    method.expect("a method const").to_string(),
                    params.expect("a params $ref").to_string(),
                )
            })
            .collect();
        let from_dispatch: Vec<(String, String)> = variants
            .iter()
            .map(|(method, params)| (method.clone(), params.as_str().expect("a definition name").to_string()))
            .collect();
        assert_eq!(from_one_of, from_dispatch, "{union}: the oneOf and x-dispatch agree");

        for (name, params) in &from_dispatch {
            let response = responses
                .get(name)
                .map(|response| response.as_str().expect("a definition name"));
            for (definition, what) in [(Some(params.as_str()), "params"), (response, "response")] {
                let Some(definition) = definition else {
                    continue;
                };
                assert_eq!(
                    annotation(schema, definition, "x-method"),
                    Some(name.as_str()),
                    "{definition} ({what})"
                );
                assert_eq!(
                    annotation(schema, definition, "x-side"),
                    Some(receiver(sender)),
                    "{definition} ({what})"
                );
            }
            methods.push(Method {
                name: name.clone(),
                sender,
                kind,
                schema: file,
                params: params.clone(),
                response: response.map(str::to_string),
            });
        }
    }
    methods
}

/// Both schemas, registered for `$ref`s into them, with a validator per definition built on
/// first use.
struct Schemas {
    acp: Value,
    cursor: Value,
    registry: Registry<'static>,
    validators: RefCell<HashMap<String, std::rc::Rc<Validator>>>,
    methods: BTreeMap<String, Method>,
}

impl Schemas {
    fn load() -> Self {
        let acp = read_json(&format!("schemas/acp/{ACP}"));
        let cursor = read_json(&format!("schemas/acp/{CURSOR}"));
        let qwen = read_json(&format!("schemas/acp/{QWEN}"));
        for (file, schema) in [(ACP, &acp), (CURSOR, &cursor), (QWEN, &qwen)] {
            if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
                panic!("{file} is no valid draft 2020-12 schema: {e}");
            }
        }
        let registry = Registry::new()
            .add(format!("{BASE}{ACP}"), acp.clone())
            .and_then(|builder| builder.add(format!("{BASE}{CURSOR}"), cursor.clone()))
            .and_then(|builder| builder.add(format!("{BASE}{QWEN}"), qwen.clone()))
            .and_then(|builder| builder.prepare())
            .expect("the schemas register");
        let mut methods = BTreeMap::new();
        let cursor_unions = [
            ("CursorAgentRequest", Sender::Agent, Kind::Request),
            ("CursorClientRequest", Sender::Client, Kind::Request),
        ];
        let qwen_unions = [
            ("QwenAgentRequest", Sender::Agent, Kind::Request),
            ("QwenAgentNotification", Sender::Agent, Kind::Notification),
        ];
        let extensions = extension_methods(&cursor, CURSOR, &cursor_unions)
            .into_iter()
            .chain(extension_methods(&qwen, QWEN, &qwen_unions));
        for method in acp_methods(&acp).into_iter().chain(extensions) {
            let name = method.name.clone();
            assert!(
                methods.insert(name.clone(), method).is_none(),
                "{name} is defined twice"
            );
        }
        Schemas {
            acp,
            cursor,
            registry,
            validators: RefCell::default(),
            methods,
        }
    }

    /// Every error `instance` has against `pointer` (a `$defs` path such as `SessionUpdate` or
    /// `SessionUpdate/oneOf/3`) of `file`, each with its instance path.
    fn errors(&self, file: &str, pointer: &str, instance: &Value) -> Vec<String> {
        self.errors_at(file, &format!("/$defs/{pointer}"), instance)
    }

    /// The same for any JSON pointer into `file` (`/$defs/X/properties/y`).
    fn errors_at(&self, file: &str, pointer: &str, instance: &Value) -> Vec<String> {
        let key = format!("{BASE}{file}#{pointer}");
        let validator = self
            .validators
            .borrow_mut()
            .entry(key.clone())
            .or_insert_with(|| {
                let built = jsonschema::draft202012::options()
                    .with_registry(&self.registry)
                    .build(&json!({ "$ref": key }))
                    .unwrap_or_else(|e| panic!("{key} does not compile: {e}"));
                std::rc::Rc::new(built)
            })
            .clone();
        validator
            .iter_errors(instance)
            .map(|e| format!("at `{}`: {e}", e.instance_path()))
            .collect()
    }

    /// The index of the `SessionUpdate` variant whose `sessionUpdate` constant is `tag`.
    fn session_update_variant(&self, tag: &str) -> Option<usize> {
        def(&self.acp, "SessionUpdate")["oneOf"]
            .as_array()
            .expect("SessionUpdate is a oneOf")
            .iter()
            .position(|variant| variant.pointer("/properties/sessionUpdate/const") == Some(&json!(tag)))
    }

    fn session_update_variants(&self) -> usize {
        def(&self.acp, "SessionUpdate")["oneOf"]
            .as_array()
            .expect("a oneOf")
            .len()
    }
}

/// The expected method table, one `Method` per line as it displays (method, sender, kind,
/// schema file, params -> response): a schema refresh that adds, drops, renames or re-routes a
/// method shows here.
const EXPECTED_METHODS: &[&str] = &[
    "$/cancel_request Either Notification schema.json CancelRequestNotification -> -",
    "authenticate Client Request schema.json AuthenticateRequest -> AuthenticateResponse",
    "craft/drainMidTurnQueue Agent Request qwen-extensions.schema.json QwenDrainMidTurnQueueParams -> QwenDrainMidTurnQueueResponse",
    "cursor/ask_question Agent Request cursor-extensions.schema.json CursorAskQuestionParams -> CursorAskQuestionResponse",
    "cursor/create_plan Agent Request cursor-extensions.schema.json CursorCreatePlanParams -> CursorCreatePlanResponse",
    "cursor/generate_image Agent Request cursor-extensions.schema.json CursorGenerateImageParams -> CursorGenerateImageResponse",
    "cursor/list_available_models Client Request cursor-extensions.schema.json CursorListAvailableModelsParams -> CursorListAvailableModelsResponse",
    "cursor/task Agent Request cursor-extensions.schema.json CursorTaskParams -> CursorTaskResponse",
    "cursor/update_todos Agent Request cursor-extensions.schema.json CursorUpdateTodosParams -> CursorUpdateTodosResponse",
    "elicitation/complete Agent Notification schema.json CompleteElicitationNotification -> -",
    "elicitation/create Agent Request schema.json CreateElicitationRequest -> CreateElicitationResponse",
    "fs/read_text_file Agent Request schema.json ReadTextFileRequest -> ReadTextFileResponse",
    "fs/write_text_file Agent Request schema.json WriteTextFileRequest -> WriteTextFileResponse",
    "initialize Client Request schema.json InitializeRequest -> InitializeResponse",
    "logout Client Request schema.json LogoutRequest -> LogoutResponse",
    "qwen/notify/session/prompt-suggestion Agent Notification qwen-extensions.schema.json QwenPromptSuggestionParams -> -",
    "session/cancel Client Notification schema.json CancelNotification -> -",
    "session/close Client Request schema.json CloseSessionRequest -> CloseSessionResponse",
    "session/delete Client Request schema.json DeleteSessionRequest -> DeleteSessionResponse",
    "session/list Client Request schema.json ListSessionsRequest -> ListSessionsResponse",
    "session/load Client Request schema.json LoadSessionRequest -> LoadSessionResponse",
    "session/new Client Request schema.json NewSessionRequest -> NewSessionResponse",
    "session/prompt Client Request schema.json PromptRequest -> PromptResponse",
    "session/request_permission Agent Request schema.json RequestPermissionRequest -> RequestPermissionResponse",
    "session/resume Client Request schema.json ResumeSessionRequest -> ResumeSessionResponse",
    "session/set_config_option Client Request schema.json SetSessionConfigOptionRequest -> SetSessionConfigOptionResponse",
    "session/set_mode Client Request schema.json SetSessionModeRequest -> SetSessionModeResponse",
    "session/update Agent Notification schema.json SessionNotification -> -",
    "terminal/create Agent Request schema.json CreateTerminalRequest -> CreateTerminalResponse",
    "terminal/kill Agent Request schema.json KillTerminalRequest -> KillTerminalResponse",
    "terminal/output Agent Request schema.json TerminalOutputRequest -> TerminalOutputResponse",
    "terminal/release Agent Request schema.json ReleaseTerminalRequest -> ReleaseTerminalResponse",
    "terminal/wait_for_exit Agent Request schema.json WaitForTerminalExitRequest -> WaitForTerminalExitResponse",
];

#[test]
fn the_method_tables_are_the_expected_ones() {
    let schemas = Schemas::load();
    let found: Vec<String> = schemas.methods.values().map(Method::to_string).collect();
    assert_eq!(found, EXPECTED_METHODS);
    assert_eq!(
        schemas.session_update_variants(),
        14,
        "SessionUpdate variants in protocol v1 (2.4.0)"
    );
}

// ---------------------------------------------------------------------------------------------
// The corpus

/// What checking one trace found.
#[derive(Default)]
struct TraceReport {
    problems: Vec<String>,
    /// `<sender> <kind> <method>` -> count; responses as `response <method>` / `error <method>`.
    seen: BTreeMap<String, usize>,
    /// `sessionUpdate` -> count.
    updates: BTreeMap<String, usize>,
    messages: usize,
}

/// Checks a transcript's records (`{"dir", "msg"}`) in order, pairing each response with the
/// request of the same id that the other side sent before it.
fn check_trace(schemas: &Schemas, records: &[Value]) -> TraceReport {
    let mut report = TraceReport::default();
    let mut pending: HashMap<(Sender, String), String> = HashMap::new();
    for (index, record) in records.iter().enumerate() {
        let line = index + 1;
        let sender = match record["dir"].as_str() {
            Some("in") => Sender::Agent,
            Some("out") => Sender::Client,
            other => {
                report.problems.push(format!("line {line}: dir {other:?}"));
                continue;
            }
        };
        let msg = &record["msg"];
        report.messages += 1;
        if msg["jsonrpc"] != "2.0" {
            report.problems.push(format!("line {line}: not JSON-RPC 2.0"));
            continue;
        }
        let problems = match msg.get("method").and_then(Value::as_str) {
            Some(method) => check_call(schemas, &mut report, &mut pending, sender, method, msg),
            None => check_reply(schemas, &mut report, &mut pending, sender, msg),
        };
        report
            .problems
            .extend(problems.into_iter().map(|problem| format!("line {line}: {problem}")));
    }
    report
}

fn check_call(
    schemas: &Schemas,
    report: &mut TraceReport,
    pending: &mut HashMap<(Sender, String), String>,
    sender: Sender,
    name: &str,
    msg: &Value,
) -> Vec<String> {
    let kind = if msg.get("id").is_some() {
        Kind::Request
    } else {
        Kind::Notification
    };
    *report.seen.entry(format!("{sender:?} {kind:?} {name}")).or_default() += 1;
    let Some(method) = schemas.methods.get(name) else {
        return vec![format!("{name} ({sender:?} {kind:?}) is defined by neither schema")];
    };
    if method.kind != kind || (method.sender != Sender::Either && method.sender != sender) {
        return vec![format!(
            "{name} sent by the {sender:?} as a {kind:?}; the schema has it sent by the {:?} as a {:?}",
            method.sender, method.kind
        )];
    }
    if kind == Kind::Request {
        pending.insert((sender, msg["id"].to_string()), name.to_string());
    }
    let params = msg.get("params").unwrap_or(&Value::Null);
    let mut problems: Vec<String> = schemas
        .errors(method.schema, &method.params, params)
        .into_iter()
        .map(|e| format!("{name} params ({}) {e}", method.params))
        .collect();
    if name == "session/update" {
        problems.extend(check_session_update(schemas, report, &params["update"]));
    }
    problems
}

/// A `session/update` payload must validate against the variant its `sessionUpdate` names and
/// against no other (so the three `*_chunk` variants that share `ContentChunk` stay apart).
fn check_session_update(schemas: &Schemas, report: &mut TraceReport, update: &Value) -> Vec<String> {
    let Some(tag) = update["sessionUpdate"].as_str() else {
        return vec!["session/update without a sessionUpdate tag".to_string()];
    };
    *report.updates.entry(tag.to_string()).or_default() += 1;
    let Some(named) = schemas.session_update_variant(tag) else {
        return vec![format!("sessionUpdate {tag:?} names no SessionUpdate variant")];
    };
    let accepting: Vec<usize> = (0..schemas.session_update_variants())
        .filter(|variant| {
            schemas
                .errors(ACP, &format!("SessionUpdate/oneOf/{variant}"), update)
                .is_empty()
        })
        .collect();
    if accepting == [named] {
        Vec::new()
    } else {
        let errors = schemas.errors(ACP, &format!("SessionUpdate/oneOf/{named}"), update);
        vec![format!(
            "sessionUpdate {tag:?} (variant {named}) is accepted by variants {accepting:?}: {errors:?}"
        )]
    }
}

fn check_reply(
    schemas: &Schemas,
    report: &mut TraceReport,
    pending: &mut HashMap<(Sender, String), String>,
    sender: Sender,
    msg: &Value,
) -> Vec<String> {
    let requester = match sender {
        Sender::Agent => Sender::Client,
        _ => Sender::Agent,
    };
    let id = msg.get("id").map(Value::to_string).unwrap_or_default();
    let Some(name) = pending.remove(&(requester, id.clone())) else {
        return vec![format!("a reply with id {id} answers no pending {requester:?} request")];
    };
    let method = &schemas.methods[&name];
    match (msg.get("result"), msg.get("error")) {
        (Some(result), None) => {
            *report.seen.entry(format!("{sender:?} response {name}")).or_default() += 1;
            let response = method.response.as_deref().expect("requests have a response");
            schemas
                .errors(method.schema, response, result)
                .into_iter()
                .map(|e| format!("{name} result ({response}) {e}"))
                .collect()
        }
        (None, Some(error)) => {
            *report.seen.entry(format!("{sender:?} error {name}")).or_default() += 1;
            schemas
                .errors(ACP, "Error", error)
                .into_iter()
                .map(|e| format!("{name} error {e}"))
                .collect()
        }
        _ => vec![format!("the reply to {name} has neither exactly a result nor an error")],
    }
}

fn corpus() -> Vec<(String, Vec<Value>)> {
    traces("corpus/acp")
}

fn traces(folder: &str) -> Vec<(String, Vec<Value>)> {
    let dir = agentwire_tests::tests_dir().join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable corpus folder").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no traces in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().expect("a file name").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let records = text
                .lines()
                .enumerate()
                .map(|(index, line)| {
                    serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: not JSON: {e}", index + 1))
                })
                .collect();
            (name, records)
        })
        .collect()
}

/// The agent behind a trace, by the corpus's file naming (see `tests/corpus/README.md`).
fn trace_set(name: &str) -> &'static str {
    if name.starts_with("gemini_") {
        "gemini-cli 0.61.0"
    } else if name.starts_with("old_") {
        "claude-code-acp 0.16.2"
    } else if name.starts_with("codex_acp_") {
        "codex-acp 0.16.0"
    } else if name.starts_with("qwen_") {
        "qwen-code 0.24.4"
    } else {
        "claude-agent-acp 0.19.1"
    }
}

#[test]
fn every_corpus_message_validates_against_its_method_and_every_update_lands_in_its_variant() {
    let schemas = Schemas::load();
    let mut problems = Vec::new();
    let mut per_set: BTreeMap<&str, TraceReport> = BTreeMap::new();
    for (name, records) in corpus() {
        let report = check_trace(&schemas, &records);
        problems.extend(report.problems.iter().map(|problem| format!("{name}: {problem}")));
        let total = per_set.entry(trace_set(&name)).or_default();
        total.messages += report.messages;
        for (key, count) in report.seen {
            *total.seen.entry(key).or_default() += count;
        }
        for (key, count) in report.updates {
            *total.updates.entry(key).or_default() += count;
        }
    }
    for (set, report) in &per_set {
        println!("{set}: {} messages", report.messages);
        for (key, count) in &report.seen {
            println!("  {count:>4} {key}");
        }
        for (tag, count) in &report.updates {
            println!("  {count:>4} session/update {tag}");
        }
    }
    assert_eq!(
        problems,
        request_cancel_problems("codex_acp_cancel_as_request.jsonl", 18, 4),
        "the only problems are those of the client's request-form `session/cancel`"
    );
    assert_eq!(per_set.len(), 5, "five agents in the corpus");
}

/// The `_meta` members Qwen Code's agent writes that the mapping reads through declared types
/// validate against them in every trace: an `agent_message_chunk`'s `usage`
/// (`QwenMessageChunkMeta`) and a `session/prompt` result's branch point
/// (`QwenPromptResponseMeta`); each is seen.
#[test]
fn the_qwen_meta_members_validate_against_their_declared_types() {
    let schemas = Schemas::load();
    let mut seen = BTreeMap::new();
    for (name, records) in corpus().into_iter().filter(|(name, _)| name.starts_with("qwen_")) {
        for (index, record) in records.iter().enumerate() {
            let msg = &record["msg"];
            let chunk = &msg["params"]["update"];
            let checked = if chunk["sessionUpdate"] == "agent_message_chunk" && chunk["_meta"]["usage"].is_object() {
                Some(("QwenMessageChunkMeta", &chunk["_meta"]))
            } else if msg["result"]["_meta"]["qwen.branchPoint"].is_object() {
                Some(("QwenPromptResponseMeta", &msg["result"]["_meta"]))
            } else {
                None
            };
            let Some((definition, meta)) = checked else {
                continue;
            };
            *seen.entry(definition).or_insert(0) += 1;
            let errors = schemas.errors(QWEN, definition, meta);
            assert!(
                errors.is_empty(),
                "{name}: line {}: {definition}: {errors:?}",
                index + 1
            );
        }
    }
    assert_eq!(
        seen.keys().copied().collect::<Vec<_>>(),
        ["QwenMessageChunkMeta", "QwenPromptResponseMeta"]
    );
}

/// What a client's `session/cancel` sent with an `id` (at `line` of `file`) and the agent's
/// `-32601` reply to it are reported as: ACP defines `session/cancel` only as a notification, so
/// the request is one no schema declares and the reply answers no request the schemas know.
/// Clients do send it: `codex_acp_cancel_as_request.jsonl` captures codex-acp's answer (the turn
/// runs on), and Cursor's hand-made `cancel_unsupported.jsonl` models the same.
fn request_cancel_problems(file: &str, line: usize, id: u64) -> Vec<String> {
    vec![
        format!(
            "{file}: line {line}: session/cancel sent by the Client as a Request; the schema has it sent by the \
             Client as a Notification"
        ),
        format!(
            "{file}: line {}: a reply with id {id} answers no pending Client request",
            line + 1
        ),
    ]
}

/// The hand-made Cursor transcripts of `tests/corpus/cursor/` (built from Cursor's documented
/// shapes, not captured) validate against both schemas like the real corpus, `cursor/*` methods
/// through the Cursor extension schema. The two problems expected are the documented ones of
/// `cancel_unsupported.jsonl`: the client sends `session/cancel` with an `id`, as a request ACP
/// does not define, so the agent's `-32601` reply answers no request the schemas know.
#[test]
fn the_hand_made_cursor_transcripts_validate_against_both_schemas() {
    let schemas = Schemas::load();
    let mut problems = Vec::new();
    let mut seen = BTreeMap::<String, usize>::new();
    for (name, records) in traces("corpus/cursor") {
        let report = check_trace(&schemas, &records);
        problems.extend(report.problems.iter().map(|problem| format!("{name}: {problem}")));
        for (key, count) in report.seen {
            *seen.entry(key).or_default() += count;
        }
    }
    for (key, count) in &seen {
        println!("{count:>4} {key}");
    }
    assert_eq!(problems, request_cancel_problems("cancel_unsupported.jsonl", 11, 5));
    for method in [
        "cursor/ask_question",
        "cursor/create_plan",
        "cursor/update_todos",
        "cursor/task",
    ] {
        assert!(seen.contains_key(&format!("Agent Request {method}")), "{method}");
        assert!(seen.contains_key(&format!("Client response {method}")), "{method}");
    }
    assert!(seen.contains_key("Agent response cursor/list_available_models"));
}

/// A small real exchange: `initialize`, `session/new`, a prompt with one agent chunk, its reply.
fn exchange() -> Vec<Value> {
    let (_, records) = corpus()
        .into_iter()
        .find(|(name, _)| name == "plain.jsonl")
        .expect("plain.jsonl");
    records
}

fn problems_after(edit: impl FnOnce(&mut Vec<Value>)) -> Vec<String> {
    let schemas = Schemas::load();
    let mut records = exchange();
    edit(&mut records);
    check_trace(&schemas, &records).problems
}

fn position(records: &[Value], predicate: impl Fn(&Value) -> bool) -> usize {
    records
        .iter()
        .position(|record| predicate(&record["msg"]))
        .expect("plain.jsonl has such a message")
}

#[test]
fn the_corpus_checks_can_fail() {
    assert_eq!(
        problems_after(|_| ()),
        Vec::<String>::new(),
        "plain.jsonl as captured is clean"
    );

    let chunk = |msg: &Value| msg["params"]["update"]["sessionUpdate"] == "agent_message_chunk";
    let retagged = problems_after(|records| {
        let at = position(records, chunk);
        records[at]["msg"]["params"]["update"]["sessionUpdate"] = json!("tool_call");
    });
    assert!(
        retagged.iter().any(|p| p.contains("session/update params")),
        "a chunk tagged tool_call fails: {retagged:?}"
    );

    let unknown_tag = problems_after(|records| {
        let at = position(records, chunk);
        records[at]["msg"]["params"]["update"]["sessionUpdate"] = json!("agent_speech_chunk");
    });
    assert!(
        unknown_tag.iter().any(|p| p.contains("names no SessionUpdate variant")),
        "{unknown_tag:?}"
    );

    let no_content = problems_after(|records| {
        let at = position(records, chunk);
        records[at]["msg"]["params"]["update"]
            .as_object_mut()
            .expect("an update object")
            .remove("content");
    });
    assert!(no_content.iter().any(|p| p.contains("content")), "{no_content:?}");

    let wrong_reply = problems_after(|records| {
        let at = position(records, |msg| msg["result"].get("stopReason").is_some());
        records[at]["msg"]["result"]["stopReason"] = json!("finished");
    });
    assert!(
        wrong_reply
            .iter()
            .any(|p| p.contains("session/prompt result (PromptResponse)")),
        "{wrong_reply:?}"
    );

    let unpaired = problems_after(|records| {
        let at = position(records, |msg| msg["result"].get("stopReason").is_some());
        records[at]["msg"]["id"] = json!(99);
    });
    assert!(
        unpaired.iter().any(|p| p.contains("answers no pending Client request")),
        "{unpaired:?}"
    );

    let unknown_method = problems_after(|records| {
        let at = position(records, chunk);
        records[at]["msg"]["method"] = json!("session/announce");
    });
    assert!(
        unknown_method.iter().any(|p| p.contains("defined by neither schema")),
        "{unknown_method:?}"
    );

    let wrong_way = problems_after(|records| {
        let at = position(records, |msg| msg["method"] == "session/prompt");
        records[at]["dir"] = json!("in");
    });
    assert!(
        wrong_way.iter().any(|p| p.contains("session/prompt sent by the Agent")),
        "{wrong_way:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Fields the agents send that the stable schema does not declare

/// Object members of the corpus that no applicable definition of `schema.json` declares. ACP
/// objects are open, so these validate, but a generated struct drops them without a word unless
/// they become typed extensions. Path (method, `params`/`result`, member path) and why.
const UNDECLARED: &[(&str, &str)] = &[
    (
        "initialize result.agentCapabilities.sessionCapabilities.fork",
        "both Claude adapters advertise session forking; `SessionForkCapabilities` in schema.unstable.json",
    ),
    (
        "initialize result.agentCapabilities.mcpCapabilities.acp",
        "codex-acp says whether it takes `acp` MCP servers; `McpCapabilities.acp` in schema.unstable.json",
    ),
    (
        "initialize result.authMethods[].type",
        "codex-acp offers `env_var` methods; ACP's earlier unstable schema declared `AuthMethodEnvVar`, 2.4.0 does not",
    ),
    (
        "initialize result.authMethods[].vars",
        "the variables of codex-acp's `env_var` methods (`AuthEnvVar` in that earlier unstable schema)",
    ),
    (
        "session/new result.models",
        "claude-agent-acp, claude-code-acp and gemini-cli send `{availableModels, currentModelId}` (codex-acp a `model` config option instead); older unstable schemas called it `SessionModelState`; neither 2.4.0 file declares it",
    ),
    (
        "session/load result.models",
        "gemini-cli answers `session/load` with the same `{availableModels, currentModelId}` as `session/new`",
    ),
    (
        "session/prompt result.usage",
        "claude-agent-acp reports token usage per turn; `Usage` in schema.unstable.json",
    ),
];

/// Adds to `out` the members of `instance` that no subschema applicable at `pointer` declares.
/// Applicable: the schema itself, what it `$ref`s, its `allOf`, and the `anyOf`/`oneOf` branches
/// the instance is valid against. Members of objects whose schema allows any member
/// (`additionalProperties` set and not `false`, like `_meta`) or declares none count as declared.
fn collect_undeclared(schemas: &Schemas, pointer: &str, instance: &Value, path: &str, out: &mut BTreeSet<String>) {
    let mut applicable = vec![pointer.to_string()];
    let mut next = 0;
    while let Some(current) = applicable.get(next).cloned() {
        next += 1;
        let Some(node) = schemas.acp.pointer(&current) else {
            continue;
        };
        if let Some(target) = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        {
            applicable.push(target.to_string());
        }
        for (keyword, checked) in [("allOf", false), ("anyOf", true), ("oneOf", true)] {
            let count = node.get(keyword).and_then(Value::as_array).map_or(0, Vec::len);
            for index in 0..count {
                let branch = format!("{current}/{keyword}/{index}");
                if !checked || schemas.errors_at(ACP, &branch, instance).is_empty() {
                    applicable.push(branch);
                }
            }
        }
    }
    let nodes: Vec<(&String, &Value)> = applicable
        .iter()
        .filter_map(|p| schemas.acp.pointer(p).map(|node| (p, node)))
        .collect();
    match instance {
        Value::Object(members) => {
            let open = nodes.iter().any(|(_, node)| {
                node.get("additionalProperties")
                    .is_some_and(|a| a != &Value::Bool(false))
            });
            let declares = nodes.iter().any(|(_, node)| node.get("properties").is_some());
            for (key, value) in members {
                let declared: Vec<String> = nodes
                    .iter()
                    .filter(|(_, node)| node.pointer(&format!("/properties/{key}")).is_some())
                    .map(|(p, _)| format!("{p}/properties/{key}"))
                    .collect();
                if declared.is_empty() && declares && !open {
                    out.insert(format!("{path}.{key}"));
                }
                for property in declared {
                    collect_undeclared(schemas, &property, value, &format!("{path}.{key}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (p, _) in nodes.iter().filter(|(_, node)| node.get("items").is_some()) {
                for item in items {
                    collect_undeclared(schemas, &format!("{p}/items"), item, &format!("{path}[]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The undeclared members of every ACP message of the corpus, with the trace sets sending each.
fn undeclared_in_corpus(schemas: &Schemas) -> BTreeMap<String, BTreeSet<&'static str>> {
    let mut found: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for (name, records) in corpus() {
        let mut pending: HashMap<(String, String), String> = HashMap::new();
        for record in &records {
            let (dir, msg) = (record["dir"].to_string(), &record["msg"]);
            let (method, part, definition, instance) = if let Some(method) = msg["method"].as_str() {
                if let Some(id) = msg.get("id") {
                    pending.insert((dir, id.to_string()), method.to_string());
                }
                let Some(known) = schemas.methods.get(method).filter(|m| m.schema == ACP) else {
                    continue;
                };
                (method.to_string(), "params", known.params.clone(), &msg["params"])
            } else {
                let other = if dir == "\"in\"" { "\"out\"" } else { "\"in\"" };
                let Some(method) = pending.remove(&(other.to_string(), msg["id"].to_string())) else {
                    continue;
                };
                let Some(result) = msg.get("result") else { continue };
                let Some(response) = schemas.methods.get(&method).and_then(|m| m.response.clone()) else {
                    continue;
                };
                (method, "result", response, result)
            };
            let mut out = BTreeSet::new();
            collect_undeclared(
                schemas,
                &format!("/$defs/{definition}"),
                instance,
                &format!("{method} {part}"),
                &mut out,
            );
            for path in out {
                found.entry(path).or_default().insert(trace_set(&name));
            }
        }
    }
    found
}

#[test]
fn the_members_agents_send_beyond_the_stable_schema_are_exactly_the_known_ones() {
    let schemas = Schemas::load();
    let found = undeclared_in_corpus(&schemas);
    for (path, sets) in &found {
        println!("{path}: {sets:?}");
    }
    let found: BTreeSet<&str> = found.keys().map(String::as_str).collect();
    let expected: BTreeSet<&str> = UNDECLARED.iter().map(|(path, _)| *path).collect();
    assert_eq!(
        found, expected,
        "undeclared members (add each new one to UNDECLARED with its reason)"
    );
}

#[test]
fn the_undeclared_member_walk_can_fail() {
    let schemas = Schemas::load();
    let mut out = BTreeSet::new();
    let result = json!({
        "stopReason": "end_turn",
        "bogus": 1,
        "_meta": { "anything": { "goes": true } }
    });
    collect_undeclared(&schemas, "/$defs/PromptResponse", &result, "r", &mut out);
    assert_eq!(out, BTreeSet::from(["r.bogus".to_string()]));

    let mut out = BTreeSet::new();
    let update = json!({
        "sessionUpdate": "agent_message_chunk",
        "content": { "type": "text", "text": "hi", "tone": "warm" }
    });
    collect_undeclared(&schemas, "/$defs/SessionUpdate", &update, "u", &mut out);
    assert_eq!(
        out,
        BTreeSet::from(["u.content.tone".to_string()]),
        "found through oneOf, allOf and $ref"
    );
}

// ---------------------------------------------------------------------------------------------
// The Cursor extensions

/// A line of `tests/fixtures/cursor/*.jsonl`, as JSON.
fn fixture(name: &str) -> Vec<Value> {
    let path = agentwire_tests::tests_dir().join("fixtures/cursor").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(index, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", index + 1)))
        .collect()
}

/// The Cursor method of a fixture line, from the shared table.
fn cursor_method<'a>(schemas: &'a Schemas, line: &Value) -> &'a Method {
    let name = line["method"].as_str().expect("a method");
    let method = schemas
        .methods
        .get(name)
        .unwrap_or_else(|| panic!("{name} is not defined"));
    assert_eq!(method.schema, CURSOR, "{name} is a Cursor method");
    method
}

/// The request a fixture line stands for, as the union's `oneOf` sees it.
fn request(line: &Value, id: usize) -> Value {
    let mut request = json!({ "jsonrpc": "2.0", "id": id, "method": line["method"] });
    if let Some(params) = line.get("params") {
        request["params"] = params.clone();
    }
    request
}

fn union_of(method: &Method) -> &'static str {
    match method.sender {
        Sender::Agent => "CursorAgentRequest",
        _ => "CursorClientRequest",
    }
}

#[test]
fn cursor_documentation_examples_validate_for_every_method_and_outcome() {
    let schemas = Schemas::load();
    let mut outcomes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (index, line) in fixture("examples.jsonl").iter().enumerate() {
        let number = index + 1;
        let method = cursor_method(&schemas, line);
        let params = line.get("params").unwrap_or(&Value::Null);
        if line.get("params").is_some() || method.sender == Sender::Agent {
            let errors = schemas.errors(CURSOR, &method.params, params);
            assert!(errors.is_empty(), "examples.jsonl:{number} params: {errors:?}");
        }
        let errors = schemas.errors(CURSOR, union_of(method), &request(line, number));
        assert!(errors.is_empty(), "examples.jsonl:{number} as a request: {errors:?}");
        let response = method.response.as_deref().expect("a response");
        let errors = schemas.errors(CURSOR, response, &line["result"]);
        assert!(errors.is_empty(), "examples.jsonl:{number} result: {errors:?}");
        let outcome = line["result"]
            .pointer("/outcome/outcome")
            .and_then(Value::as_str)
            .unwrap_or("-");
        outcomes
            .entry(method.name.clone())
            .or_default()
            .insert(outcome.to_string());
    }

    let mut expected: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for method in schemas.methods.values().filter(|m| m.schema == CURSOR) {
        let response = def(&schemas.cursor, method.response.as_deref().expect("a response"));
        let tags: BTreeSet<String> = match response.pointer("/properties/outcome").and_then(branch_target) {
            Some(outcome) => def(&schemas.cursor, outcome)["oneOf"]
                .as_array()
                .expect("outcome unions are oneOf")
                .iter()
                .map(|variant| {
                    variant
                        .pointer("/properties/outcome/const")
                        .and_then(Value::as_str)
                        .expect("each outcome variant has a const tag")
                        .to_string()
                })
                .collect(),
            None => BTreeSet::from(["-".to_string()]),
        };
        expected.insert(method.name.clone(), tags);
    }
    assert_eq!(outcomes, expected, "the examples cover every method and every outcome");
}

#[test]
fn invalid_cursor_examples_are_rejected_by_the_definition_they_break() {
    let schemas = Schemas::load();
    let lines = fixture("invalid.jsonl");
    assert!(!lines.is_empty());
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        let why = line["why"]
            .as_str()
            .unwrap_or_else(|| panic!("invalid.jsonl:{number}: no why"));
        let method = cursor_method(&schemas, line);
        match (line.get("params"), line.get("result")) {
            (Some(params), None) => {
                let errors = schemas.errors(CURSOR, &method.params, params);
                assert!(!errors.is_empty(), "invalid.jsonl:{number} ({why}): params accepted");
                let errors = schemas.errors(CURSOR, union_of(method), &request(line, number));
                assert!(!errors.is_empty(), "invalid.jsonl:{number} ({why}): request accepted");
            }
            (None, Some(result)) => {
                let response = method.response.as_deref().expect("a response");
                let errors = schemas.errors(CURSOR, response, result);
                assert!(!errors.is_empty(), "invalid.jsonl:{number} ({why}): result accepted");
            }
            _ => panic!("invalid.jsonl:{number}: exactly one of params and result"),
        }
    }
}
