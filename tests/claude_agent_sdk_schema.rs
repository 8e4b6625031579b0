//! The hand-written Claude Agent SDK schema (`schemas/claude-agent-sdk/`) against its two
//! witnesses: the SDK's own zod schemas of `SDKMessage` (a JSON Schema derived from the zod
//! block of the SDK's bundled CLI, kept in `fixtures/`), and the real traffic of
//! `corpus/claude*/`.
//!
//! Every line is checked in the one branch its tags name: the test walks the `x-dispatch`
//! annotations (`type`, then `subtype`, and the tagged payloads inside: control requests,
//! content blocks, stream events, deltas) and validates each value against the definition the
//! tag picks, so a message that only fits some other branch is an error, not hidden by `oneOf`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value, json};

const SCHEMA: &str = include_str!("../schemas/claude-agent-sdk/claude-agent-sdk.schema.json");
const ZOD: &str = include_str!("fixtures/claude-sdk-message.zod-derived.schema.json");

/// The top-level union of a stream line.
const ROOT: &str = "ClaudeStreamLine";

/// Tags of `ClaudeStreamLine` that are control-protocol frames, not members of `SDKMessage`.
const CONTROL_FRAMES: &[&str] = &[
    "control_request",
    "control_response",
    "control_cancel_request",
    "keep_alive",
];

/// Every way the schema departs from the zod-derived one, as the comparison words it, and why.
/// The comparison fails on a difference missing here and on an entry it no longer finds.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "member user[isReplay]: SDKUserMessageReplay is not a branch of ClaudeStreamLine",
        "A replay shares the tag `type: \"user\"` with SDKUserMessage, so the dispatch cannot tell them apart; the \
         `user` branch is SDKUserMessage (open, `isReplay` optional) and SDKUserMessageReplay is the refinement a \
         consumer checks when `isReplay` is true.",
    ),
    (
        "SDKUserMessage: property `isReplay` only in the schema",
        "The `user` branch also carries replays (see above), so it names their `isReplay` flag.",
    ),
    (
        "member result[error_during_execution|error_max_budget_usd|error_max_structured_output_retries|error_max_turns]: \
         one zod member, split into SDKResultErrorDuringExecution, SDKResultErrorMaxBudgetUsd, \
         SDKResultErrorMaxStructuredOutputRetries, SDKResultErrorMaxTurns",
        "`x-dispatch` maps each tag value to a definition whose tag is a `const`; the four error subtypes become four \
         definitions with the same fields.",
    ),
    (
        "SDKSystemInitMessage.apiKeySource: zod enumerates [oauth, org, project, temporary, user], the schema does not",
        "The SDK types `ApiKeySource`, but CLI 2.1.62 sends where the key came from (`ANTHROPIC_API_KEY` in every \
         corpus trace, also `apiKeyHelper`, `none`), which no declared value matches.",
    ),
    (
        "SDKPartialAssistantMessage: property `abandoned_blocks` only in the schema",
        "CLI 2.1.332 (SDK 0.3.x) names the blocks a `message_stop` cut short by an interrupt left unfinished; the \
         zod block of the fixture predates it.",
    ),
    (
        "SDKAssistantMessage: property `timestamp` only in the schema",
        "CLI 2.1.332 (SDK 0.3.x) stamps its assistant and user messages with the time it wrote them; the 0.2.62 \
         types predate it.",
    ),
    (
        "SDKUserMessage: property `timestamp` only in the schema",
        "As for SDKAssistantMessage.",
    ),
    (
        "SDKUserMessageReplay: property `timestamp` only in the schema",
        "As for SDKAssistantMessage.",
    ),
    (
        "SDKSystemInitMessage: property `fast_mode_state` only in the schema",
        "CLI 2.1.62 sends it on every `system/init` of the corpus; sdk.d.ts declares it from a later SDK.",
    ),
];

/// Lines of the corpus that are not provider traffic, and why.
const HARNESS_LINES: &[(&str, &str, &str)] = &[
    (
        "claude/sdk_error529.jsonl",
        "_driver_error",
        "The capture driver's own record that `query()` threw (the CLI exited with code 1 after the 529); the \
         SDK never sent or received it.",
    ),
    (
        "claude/v0.3.332-sdk_error529.jsonl",
        "_driver_error",
        "The driver's record that `query()` threw on the 529 error result.",
    ),
    (
        "claude/v0.3.332-sdk_bash_touch_deny_interrupt.jsonl",
        "_driver_error",
        "The driver's record that `query()` threw on the error result after the deny with interrupt.",
    ),
    (
        "claude/v0.3.332-sdk_interrupt_midstream.jsonl",
        "_driver_error",
        "The driver's record that `query()` threw on the error result after the interrupt.",
    ),
];

/// The corpus folders of Claude traffic. Transcripts are `{"dir","ts","msg"}` records, the other
/// folder holds bare stream-json lines.
const FOLDERS: &[(&str, bool)] = &[("claude", false), ("claude-control", true)];

/// The name prefix of the newest SDK's traces in those folders (whose additions the schema marks
/// with `x-since`); the other traces are the pinned SDK's.
const NEWEST_PREFIX: &str = "/v0.3.332-";

/// The schema's definitions, with validators compiled on first use.
struct Schema {
    root: Value,
    validators: Mutex<HashMap<String, &'static jsonschema::Validator>>,
}

impl Schema {
    fn get() -> &'static Schema {
        static SCHEMA_CELL: OnceLock<Schema> = OnceLock::new();
        SCHEMA_CELL.get_or_init(|| Schema {
            root: serde_json::from_str(SCHEMA).expect("the schema is JSON"),
            validators: Mutex::new(HashMap::new()),
        })
    }

    fn definitions(&self) -> &Map<String, Value> {
        self.root["definitions"]
            .as_object()
            .expect("the schema has `definitions`")
    }

    fn def(&self, name: &str) -> &Value {
        self.definitions()
            .get(name)
            .unwrap_or_else(|| panic!("no definition `{name}`"))
    }

    /// A draft-07 validator for one definition, resolving its refs in the whole file.
    fn validator(&self, name: &str) -> &'static jsonschema::Validator {
        let mut validators = self.validators.lock().expect("no test panicked holding the lock");
        validators.entry(name.to_string()).or_insert_with(|| {
            let root = json!({ "$ref": format!("#/definitions/{name}"), "definitions": self.root["definitions"] });
            let validator = jsonschema::draft7::options()
                .build(&root)
                .unwrap_or_else(|e| panic!("definition {name} does not compile: {e}"));
            Box::leak(Box::new(validator))
        })
    }

    fn errors(&self, name: &str, value: &Value) -> Vec<String> {
        self.validator(name)
            .iter_errors(value)
            .map(|e| format!("{name} at `{}`: {e}", e.instance_path()))
            .collect()
    }
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/definitions/")
}

fn dispatch_of(def: &Value) -> Option<(&str, &Map<String, Value>)> {
    let dispatch = def.get("x-dispatch")?;
    let tag = dispatch["tag"].as_str().expect("x-dispatch.tag is a string");
    let variants = dispatch["variants"]
        .as_object()
        .expect("x-dispatch.variants is an object");
    Some((tag, variants))
}

/// Checks `value` against definition `name`, following `x-dispatch` to the tagged branch and
/// into every tagged value inside it. Returns the leaf definition it landed in.
fn check_def(schema: &Schema, name: &str, value: &Value, path: &str, errors: &mut Vec<String>) -> Option<String> {
    let def = schema.def(name);
    if let Some((tag, variants)) = dispatch_of(def) {
        let Some(tag_value) = value.get(tag).and_then(Value::as_str) else {
            errors.push(format!(
                "{path}: {name} is tagged on `{tag}`, which is missing or not a string"
            ));
            return None;
        };
        let Some(variant) = variants.get(tag_value).and_then(Value::as_str) else {
            errors.push(format!("{path}: {name} has no branch for `{tag}: {tag_value:?}`"));
            return None;
        };
        return check_def(schema, variant, value, &format!("{path}>{variant}"), errors);
    }
    let found = schema.errors(name, value);
    errors.extend(found.into_iter().map(|e| format!("{path}: {e}")));
    walk(schema, def, value, path, errors);
    Some(name.to_string())
}

/// Descends into the parts of `value` that `subschema` types by reference, so nested tagged
/// unions are checked in their named branch too.
fn walk(schema: &Schema, subschema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    if let Some(name) = ref_name(subschema) {
        check_def(schema, name, value, path, errors);
        return;
    }
    if value.is_null() {
        return;
    }
    for key in ["oneOf", "anyOf"] {
        for branch in subschema.get(key).and_then(Value::as_array).into_iter().flatten() {
            // Plain-typed branches (a string, null) were validated with the parent.
            if branch.get("$ref").is_some() || branch.get("items").is_some() {
                walk(schema, branch, value, path, errors);
            }
        }
    }
    if let (Some(items), Some(array)) = (subschema.get("items"), value.as_array()) {
        for (index, item) in array.iter().enumerate() {
            walk(schema, items, item, &format!("{path}[{index}]"), errors);
        }
    }
    if let Some(object) = value.as_object() {
        if let Some(properties) = subschema.get("properties").and_then(Value::as_object) {
            for (key, property) in properties {
                if let Some(inner) = object.get(key) {
                    walk(schema, property, inner, &format!("{path}.{key}"), errors);
                }
            }
        }
        if let Some(additional) = subschema.get("additionalProperties").filter(|a| a.is_object()) {
            for (key, inner) in object {
                let named = subschema.get("properties").and_then(|p| p.get(key)).is_some();
                if !named {
                    walk(schema, additional, inner, &format!("{path}.{key}"), errors);
                }
            }
        }
    }
}

/// One message of the corpus.
struct Message {
    /// `folder/file.jsonl:line`.
    place: String,
    /// `folder/file.jsonl`.
    file: String,
    value: Value,
}

fn corpus_files() -> Vec<(String, PathBuf)> {
    let corpus = agentwire_tests::tests_dir().join("corpus");
    let mut files = Vec::new();
    for (folder, _) in FOLDERS {
        let dir = corpus.join(folder);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("readable corpus folder").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a UTF-8 file name")
                .to_string();
            if name.ends_with(".jsonl") {
                files.push((format!("{folder}/{name}"), path));
            }
        }
    }
    files.sort();
    files
}

/// Every message of `corpus/claude*/`: the whole line of a bare `claude/` trace, `msg` of a
/// `claude-control/` transcript line. Harness lines are left out (and counted by the caller).
fn corpus_messages() -> (Vec<Message>, Vec<String>) {
    let (mut messages, mut harness) = (Vec::new(), Vec::new());
    for (file, path) in corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let folder = file.split('/').next().unwrap_or_default();
        let transcript = FOLDERS.iter().any(|(f, transcript)| *f == folder && *transcript);
        for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let place = format!("{file}:{}", index + 1);
            let line: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{place}: not JSON: {e}"));
            let value = if transcript {
                let dir = line["dir"].as_str();
                assert!(
                    matches!(dir, Some("in" | "out")),
                    "{place}: a transcript line has `dir` in/out"
                );
                line["msg"].clone()
            } else {
                line
            };
            let is_harness = HARNESS_LINES
                .iter()
                .any(|(f, key, _)| *f == file && value.get(*key).is_some());
            if is_harness {
                harness.push(place);
            } else {
                messages.push(Message {
                    place,
                    file: file.clone(),
                    value,
                });
            }
        }
    }
    (messages, harness)
}

/// `type[/subtype]` of a line, with the payload subtype for control frames.
fn label(value: &Value) -> String {
    let kind = value["type"].as_str().unwrap_or("?");
    let subtype = match kind {
        "control_request" => value["request"]["subtype"].as_str(),
        "control_response" => value["response"]["subtype"].as_str(),
        _ => value.get("subtype").and_then(Value::as_str),
    };
    match subtype {
        Some(subtype) => format!("{kind}/{subtype}"),
        None => kind.to_string(),
    }
}

#[test]
fn every_corpus_line_validates_in_the_branch_its_tags_name() {
    let schema = Schema::get();
    let whole = jsonschema::draft7::options()
        .build(&schema.root)
        .expect("the schema compiles");
    let (messages, harness) = corpus_messages();
    assert_eq!(
        harness.len(),
        HARNESS_LINES.len(),
        "each listed harness line is found once: {harness:?}"
    );

    let mut errors = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut leaves: BTreeMap<String, usize> = BTreeMap::new();
    // Control requests by (file, request_id), to check each answer's body against the type
    // the request's variant names in `x-response`.
    let mut requests: HashMap<(String, String), String> = HashMap::new();
    let mut bodies_checked: BTreeMap<String, usize> = BTreeMap::new();

    for message in &messages {
        let value = &message.value;
        *counts.entry(label(value)).or_default() += 1;
        for e in whole.iter_errors(value) {
            errors.push(format!(
                "{}: the top-level union: at `{}`: {e}",
                message.place,
                e.instance_path()
            ));
        }
        if let Some(leaf) = check_def(schema, ROOT, value, &message.place, &mut errors) {
            let pinned = !message.file.contains(NEWEST_PREFIX);
            if pinned && let Some(since) = schema.def(&leaf).get("x-since") {
                errors.push(format!(
                    "{}: SDK 0.2.62 traffic in {leaf}, marked x-since {since}",
                    message.place
                ));
            }
            *leaves.entry(leaf).or_default() += 1;
        }

        if value["type"] == "control_request" {
            let id = value["request_id"].as_str().unwrap_or_default().to_string();
            let subtype = value["request"]["subtype"].as_str().unwrap_or_default().to_string();
            requests.insert((message.file.clone(), id), subtype);
        }
        if value["type"] == "control_response" && value["response"]["subtype"] == "success" {
            let id = value["response"]["request_id"].as_str().unwrap_or_default().to_string();
            let Some(subtype) = requests.get(&(message.file.clone(), id.clone())) else {
                errors.push(format!(
                    "{}: an answer to request {id}, which no earlier line sent",
                    message.place
                ));
                continue;
            };
            let (_, variants) = dispatch_of(schema.def("SDKControlRequestInner")).expect("a tagged union");
            let variant = variants[subtype.as_str()].as_str().expect("a definition name");
            let body = value["response"].get("response");
            match (schema.def(variant).get("x-response").and_then(Value::as_str), body) {
                (Some(body_type), Some(body)) => {
                    check_def(
                        schema,
                        body_type,
                        body,
                        &format!("{}.response.response", message.place),
                        &mut errors,
                    );
                    *bodies_checked.entry(format!("{subtype} -> {body_type}")).or_default() += 1;
                }
                (None, Some(_)) => errors.push(format!(
                    "{}: the answer to `{subtype}` has a body, but {variant} names no `x-response` type",
                    message.place
                )),
                (_, None) => *bodies_checked.entry(format!("{subtype} -> (no body)")).or_default() += 1,
            }
        }
    }

    println!(
        "{} messages, {} harness line(s) left out",
        messages.len(),
        harness.len()
    );
    for (label, count) in &counts {
        println!("{count:>5}  {label}");
    }
    println!("answer bodies: {bodies_checked:?}");
    assert!(
        errors.is_empty(),
        "{} schema errors:\n{}",
        errors.len(),
        errors.join("\n")
    );

    // The checks above ran over real data: every answer to `can_use_tool` and `initialize`
    // was held against its body type. One permission request is never answered with a body: the
    // client answers it with an error when the person cancels the prompt it waited on
    // (`acp-cancel_during_permission`).
    let answered = |key: &str| bodies_checked.get(key).copied().unwrap_or(0);
    let asked = |subtype: &str| requests.values().filter(|s| *s == subtype).count();
    let errors_answered = counts.get("control_response/error").copied().unwrap_or(0);
    assert_eq!(
        answered("can_use_tool -> PermissionResult") + errors_answered,
        asked("can_use_tool")
    );
    assert_eq!(
        answered("hook_callback -> SDKHookCallbackResponse"),
        asked("hook_callback")
    );
    assert_eq!(
        answered("initialize -> SDKControlInitializeResponse"),
        asked("initialize")
    );
    assert!(asked("can_use_tool") > 0, "the corpus has permission requests");
    // The newest SDK's traffic reaches the additions measured on its wire.
    for added in [
        "SDKAPIRetryMessage",
        "SDKBackgroundTasksChangedMessage",
        "SDKPermissionDeniedMessage",
        "SDKSessionStateChangedMessage",
        "SDKTaskUpdatedMessage",
        "SDKThinkingTokensMessage",
    ] {
        assert!(leaves.contains_key(added), "no 0.3.332 line lands in {added}");
    }
    assert!(answered("interrupt -> SDKControlInterruptResponse") > 0);
    println!("branches: {leaves:?}");
}

/// Real lines, each changed so that it fits the schema only in a branch other than the one its
/// tags name (or in none). Each must be rejected; the unchanged line must not be.
#[test]
fn a_message_in_the_wrong_branch_is_rejected() {
    let schema = Schema::get();
    let (messages, _) = corpus_messages();
    let find = |wanted: &str, pick: &dyn Fn(&Value) -> bool| -> Value {
        messages
            .iter()
            .map(|m| &m.value)
            .find(|v| label(v) == wanted && pick(v))
            .unwrap_or_else(|| panic!("the corpus has a `{wanted}` line"))
            .clone()
    };
    let any = |_: &Value| true;

    /// What is changed, the real line, and the change.
    type Case = (&'static str, Value, fn(&mut Value));
    let cases: Vec<Case> = vec![
        (
            "an error result relabelled success (it has no `result`)",
            find("result/error_max_turns", &any),
            |v| v["subtype"] = json!("success"),
        ),
        (
            "system/init relabelled status (it has no `status`)",
            find("system/init", &any),
            |v| v["subtype"] = json!("status"),
        ),
        (
            "an input_json_delta relabelled text_delta",
            find("stream_event", &|v| v["event"]["delta"]["type"] == "input_json_delta"),
            |v| v["event"]["delta"]["type"] = json!("text_delta"),
        ),
        (
            "a thinking block start relabelled text",
            find("stream_event", &|v| v["event"]["content_block"]["type"] == "thinking"),
            |v| v["event"]["content_block"]["type"] = json!("text"),
        ),
        (
            "a tool_result block relabelled tool_use",
            find("user", &|v| v["message"]["content"][0]["type"] == "tool_result"),
            |v| v["message"]["content"][0]["type"] = json!("tool_use"),
        ),
        (
            "a can_use_tool request relabelled set_permission_mode (it has no `mode`)",
            find("control_request/can_use_tool", &any),
            |v| v["request"]["subtype"] = json!("set_permission_mode"),
        ),
        (
            "a setMode permission suggestion relabelled addRules (it has no `rules`)",
            find("control_request/can_use_tool", &|v| {
                v["request"]["permission_suggestions"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|u| u["type"] == "setMode"))
            }),
            |v| {
                let suggestions = v["request"]["permission_suggestions"]
                    .as_array_mut()
                    .expect("suggestions");
                let set_mode = suggestions
                    .iter_mut()
                    .find(|u| u["type"] == "setMode")
                    .expect("a setMode");
                set_mode["type"] = json!("addRules");
            },
        ),
        ("an unknown line type", find("assistant", &any), |v| {
            v["type"] = json!("assistant_v2")
        }),
        ("a tag that is not a string", find("system/status", &any), |v| {
            v["subtype"] = json!(7)
        }),
    ];

    let mut failures = Vec::new();
    for (what, original, change) in &cases {
        let mut before = Vec::new();
        check_def(schema, ROOT, original, what, &mut before);
        assert!(before.is_empty(), "{what}: the unchanged line is valid: {before:?}");
        let mut changed = original.clone();
        change(&mut changed);
        let mut after = Vec::new();
        check_def(schema, ROOT, &changed, what, &mut after);
        if after.is_empty() {
            failures.push(*what);
        }
    }

    // An answer body in the wrong shape for its request.
    let mut after = Vec::new();
    check_def(
        schema,
        "PermissionResult",
        &json!({"behavior": "deny", "toolUseID": "t"}),
        "deny",
        &mut after,
    );
    check_def(
        schema,
        "PermissionResult",
        &json!({"behavior": "maybe"}),
        "maybe",
        &mut after,
    );
    assert_eq!(
        after.len(),
        2,
        "a deny without `message` and an unknown behavior are rejected: {after:?}"
    );

    assert!(failures.is_empty(), "accepted although wrong: {failures:?}");
}

/// Collects every `$ref` target and `x-dispatch` in the file and checks the conventions the
/// generator relies on.
#[test]
fn the_schema_follows_its_own_conventions() {
    let schema = Schema::get();
    jsonschema::draft7::meta::validate(&schema.root).expect("a valid draft-07 schema");
    let definitions = schema.definitions();
    let mut problems = Vec::new();

    fn visit(value: &Value, path: &str, out: &mut Vec<(String, String, Value)>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    out.push((path.to_string(), key.clone(), inner.clone()));
                    visit(inner, &format!("{path}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    visit(inner, &format!("{path}/{index}"), out);
                }
            }
            _ => {}
        }
    }
    let mut nodes = Vec::new();
    visit(&schema.root, "", &mut nodes);
    let version = |v: &str| {
        let semver = |s: &str| s.split('.').count() == 3 && s.split('.').all(|p| p.parse::<u32>().is_ok());
        semver(v)
            || v.strip_prefix('>')
                .and_then(|rest| rest.split_once(" <="))
                .is_some_and(|(low, high)| semver(low) && semver(high))
    };
    for (path, key, value) in &nodes {
        match key.as_str() {
            "$ref" => {
                let target = value.as_str().and_then(|r| r.strip_prefix("#/definitions/"));
                if !target.is_some_and(|t| definitions.contains_key(t)) {
                    problems.push(format!("{path}: unresolved $ref {value}"));
                }
            }
            "additionalProperties" if value == &Value::Bool(false) => {
                problems.push(format!("{path}: closed object (the SDK's types are open)"));
            }
            "x-since" if !value.as_str().is_some_and(version) => {
                problems.push(format!("{path}: x-since {value} is not `X.Y.Z` or `>X.Y.Z <=X.Y.Z`"));
            }
            "x-enum-since" => {
                let parent = schema.root.pointer(path).expect("the node exists");
                let values: Vec<&Value> = parent["enum"].as_array().into_iter().flatten().collect();
                for (member, since) in value.as_object().into_iter().flatten() {
                    if !values.contains(&&Value::String(member.clone())) || !since.as_str().is_some_and(version) {
                        problems.push(format!("{path}: x-enum-since {member}: {since}"));
                    }
                }
            }
            "x-response" if !value.as_str().is_some_and(|n| definitions.contains_key(n)) => {
                problems.push(format!("{path}: x-response {value} names no definition"));
            }
            _ => {}
        }
    }

    // Each union: `oneOf` lists exactly its variants; a variant is a union itself or an object
    // whose tag is a required `const` of its key; nested unions keep the outer tag's value.
    fn leaves<'a>(definitions: &'a Map<String, Value>, name: &'a str, out: &mut Vec<&'a str>) {
        match dispatch_of(&definitions[name]) {
            Some((_, variants)) => {
                for variant in variants.values() {
                    leaves(definitions, variant.as_str().expect("a name"), out);
                }
            }
            None => out.push(name),
        }
    }
    for (name, def) in definitions {
        let Some((tag, variants)) = dispatch_of(def) else {
            continue;
        };
        let listed: BTreeSet<&str> = def["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(ref_name)
            .collect();
        let named: BTreeSet<&str> = variants.values().filter_map(Value::as_str).collect();
        if listed != named {
            problems.push(format!("{name}: oneOf {listed:?} differs from x-dispatch {named:?}"));
        }
        for (key, variant) in variants {
            let variant = variant.as_str().unwrap_or_default();
            let mut reached = Vec::new();
            leaves(definitions, variant, &mut reached);
            for leaf in reached {
                let leaf_def = &definitions[leaf];
                let constant = &leaf_def["properties"][tag]["const"];
                let required = leaf_def["required"].as_array().into_iter().flatten().any(|r| r == tag);
                if constant != &Value::String(key.clone()) || !required {
                    problems.push(format!(
                        "{name}: `{tag}: {key}` reaches {leaf}, whose `{tag}` is not a required const {key:?}"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The values a schema node enumerates (`enum`, `const`, or a union of them), if it does.
fn enumerated(schema: &Value) -> Option<BTreeSet<String>> {
    let show = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().map(show).collect());
    }
    if let Some(value) = schema.get("const") {
        return Some(BTreeSet::from([show(value)]));
    }
    let branches = schema.get("anyOf").or_else(|| schema.get("oneOf"))?.as_array()?;
    let mut all = BTreeSet::new();
    for branch in branches {
        if branch.get("type") == Some(&json!("null")) && branch.as_object().is_some_and(|o| o.len() == 1) {
            all.insert("null".to_string());
        } else {
            all.extend(enumerated(branch)?);
        }
    }
    Some(all)
}

/// Compares a zod-derived node with the schema's node at `path`: enumerated values, required
/// keys and property names, then the properties, items and map values they share.
fn compare(zod: &Value, mine: &Value, path: &str, out: &mut Vec<String>) {
    let schema = Schema::get();
    let mut mine = mine;
    while let Some(name) = ref_name(mine) {
        mine = schema.def(name);
    }
    // A nullable reference: compare with what it refers to.
    if let Some(branches) = mine.get("oneOf").and_then(Value::as_array)
        && branches.len() == 2
        && branches.iter().any(|b| b == &json!({"type": "null"}))
        && zod.get("anyOf").is_none()
        && let Some(inner) = branches.iter().find(|b| ref_name(b).is_some())
    {
        return compare(zod, inner, path, out);
    }

    if let Some(zod_values) = enumerated(zod) {
        match enumerated(mine) {
            None => out.push(format!(
                "{path}: zod enumerates [{}], the schema does not",
                zod_values.iter().cloned().collect::<Vec<_>>().join(", ")
            )),
            Some(my_values) => {
                let since = mine.get("x-enum-since").and_then(Value::as_object);
                for missing in zod_values.difference(&my_values) {
                    out.push(format!("{path}: value {missing} only in zod"));
                }
                for extra in my_values.difference(&zod_values) {
                    if !since.is_some_and(|s| s.contains_key(extra)) {
                        out.push(format!(
                            "{path}: value {extra} only in the schema, without x-enum-since"
                        ));
                    }
                }
            }
        }
    }

    if let Some(zod_properties) = zod.get("properties").and_then(Value::as_object) {
        let Some(my_properties) = mine.get("properties").and_then(Value::as_object) else {
            out.push(format!("{path}: zod has properties, the schema does not"));
            return;
        };
        let required = |s: &Value| -> BTreeSet<String> {
            s["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        };
        let (zod_required, my_required) = (required(zod), required(mine));
        for key in zod_required.difference(&my_required) {
            out.push(format!("{path}: `{key}` required only in zod"));
        }
        for key in my_required.difference(&zod_required) {
            out.push(format!("{path}: `{key}` required only in the schema"));
        }
        for key in my_properties.keys().filter(|k| !zod_properties.contains_key(*k)) {
            if my_properties[key].get("x-since").is_none() {
                out.push(format!("{path}: property `{key}` only in the schema"));
            }
        }
        for (key, zod_property) in zod_properties {
            match my_properties.get(key) {
                None => out.push(format!("{path}: property `{key}` only in zod")),
                // The tags are compared as the member list.
                Some(_) if key == "type" || key == "subtype" => {}
                Some(my_property) => compare(zod_property, my_property, &format!("{path}.{key}"), out),
            }
        }
    }
    if let (Some(zod_items), Some(my_items)) = (zod.get("items"), mine.get("items")) {
        compare(zod_items, my_items, &format!("{path}[]"), out);
    }
    if let (Some(zod_values), Some(my_values)) = (
        zod.get("additionalProperties")
            .filter(|v| v.get("properties").is_some()),
        mine.get("additionalProperties").filter(|v| v.is_object()),
    ) {
        compare(zod_values, my_values, &format!("{path}{{}}"), out);
    }
}

#[test]
fn members_tags_and_required_keys_match_the_zod_derived_schema() {
    let schema = Schema::get();
    let zod: Value = serde_json::from_str(ZOD).expect("the fixture is JSON");
    let definitions = schema.definitions();

    // The schema's SDKMessage members: the leaves of the dispatch, less control frames and what
    // came after the pin (x-since).
    fn leaves(definitions: &Map<String, Value>, name: &str, out: &mut Vec<String>) {
        match dispatch_of(&definitions[name]) {
            Some((_, variants)) => {
                for variant in variants.values() {
                    leaves(definitions, variant.as_str().expect("a name"), out);
                }
            }
            None => out.push(name.to_string()),
        }
    }
    let mut mine: BTreeMap<String, String> = BTreeMap::new();
    let mut reached = Vec::new();
    leaves(definitions, ROOT, &mut reached);
    let key_of = |def: &Value| {
        let properties = &def["properties"];
        let kind = properties["type"]["const"].as_str().unwrap_or("?").to_string();
        match properties["subtype"]["const"].as_str() {
            Some(subtype) => format!("{kind}[{subtype}]"),
            None if properties["isReplay"]["const"] == json!(true) => format!("{kind}[isReplay]"),
            None => kind,
        }
    };
    for name in reached {
        let def = &definitions[&name];
        let kind = def["properties"]["type"]["const"].as_str().unwrap_or_default();
        if CONTROL_FRAMES.contains(&kind) || def.get("x-since").is_some() {
            continue;
        }
        mine.insert(key_of(def), name);
    }

    // The zod members, one key per tag value.
    fn flatten<'a>(members: &'a [Value], out: &mut Vec<&'a Value>) {
        for member in members {
            match member.get("anyOf").and_then(Value::as_array) {
                Some(inner) => flatten(inner, out),
                None => out.push(member),
            }
        }
    }
    let mut members = Vec::new();
    flatten(zod["anyOf"].as_array().expect("the fixture is a union"), &mut members);

    let mut differences = Vec::new();
    let mut compared = BTreeSet::new();
    for member in members {
        let properties = &member["properties"];
        let kind = properties["type"]["const"]
            .as_str()
            .expect("zod members are tagged on `type`");
        let subtypes: Vec<Option<String>> = match enumerated(&properties["subtype"]) {
            Some(values) => values.into_iter().map(Some).collect(),
            None => vec![None],
        };
        let replay = properties["isReplay"]["const"] == json!(true);
        let keys: Vec<String> = subtypes
            .iter()
            .map(|s| match (s, replay) {
                (Some(s), _) => format!("{kind}[{s}]"),
                (None, true) => format!("{kind}[isReplay]"),
                (None, false) => kind.to_string(),
            })
            .collect();
        let mut names = Vec::new();
        for key in &keys {
            match mine.get(key) {
                Some(name) => names.push(name.clone()),
                None if replay => {
                    differences.push(format!("member {key}: SDKUserMessageReplay is not a branch of {ROOT}"));
                    names.push("SDKUserMessageReplay".to_string());
                }
                None => differences.push(format!("member {key}: only in zod")),
            }
            compared.insert(key.clone());
        }
        if names.len() > 1 {
            let subtypes: Vec<String> = subtypes.into_iter().flatten().collect();
            differences.push(format!(
                "member {kind}[{}]: one zod member, split into {}",
                subtypes.join("|"),
                names.join(", ")
            ));
        }
        for name in names {
            compare(member, schema.def(&name), &name, &mut differences);
        }
    }
    for key in mine.keys().filter(|k| !compared.contains(*k)) {
        differences.push(format!("member {key}: only in the schema, without x-since"));
    }

    let documented: BTreeSet<&str> = DIFFERENCES.iter().map(|(d, _)| *d).collect();
    let found: BTreeSet<&str> = differences.iter().map(String::as_str).collect();
    let unexplained: Vec<&&str> = found.difference(&documented).collect();
    let stale: Vec<&&str> = documented.difference(&found).collect();
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "differences from the zod-derived schema not in DIFFERENCES:\n  {}\nDIFFERENCES entries no longer found:\n  {}",
        unexplained
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("\n  "),
        stale.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("\n  "),
    );
    // The 20 members of `SDKMessage` (the result member a union of two), the error result with
    // four subtypes: 24 tags, all compared.
    assert_eq!(compared.len(), 24, "every zod member was compared: {compared:?}");
}
