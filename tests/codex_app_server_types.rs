//! The generated Codex app-server types (`agentwire-codex-app-server`) against the real corpus.
//!
//! - the generated source has no `VariantN` names, and the only `#[serde(untagged)]` enums are
//!   the shape-distinguished unions of [`SHAPE_UNIONS`] (each checked against the schema to have
//!   no discriminator property); the dispatch unions and `ThreadItem` are tagged;
//! - every message of every trace in `tests/corpus/codex-app-server/` decodes into the variant
//!   its method names (responses through the method of the request they answer);
//! - re-encoding each typed message gives back the original JSON: nothing is lost, and what comes
//!   back different (a `null` dropped, a schema default added) is listed;
//! - decoding errors are envelope-first: they name the method and the JSON path in the payload.
//!
//! Run with `--nocapture` to see the counts and the round-trip lists.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use agentwire::codex::app_server::wire::{Decoder, Message, WireError};
use agentwire::frame::{Direction, Frame, LineFormat};
use agentwire_codex_app_server::{
    ClientNotification, ClientRequest, ClientRequestResult, ServerNotification, ServerRequest, ServerRequestResult,
};
use serde_json::{Map, Value, json};

const GENERATED: &str = "generated/codex-app-server/src/generated.rs";
const SCHEMA: &str = "schemas/codex-app-server/codex_app_server_protocol.schemas.json";
const CORPUS: &str = "corpus/codex-app-server";

/// The `#[serde(untagged)]` enums the generator may emit: unions whose branches carry no
/// discriminator property, so only their shape tells them apart. Name, and why untagged is right.
const SHAPE_UNIONS: &[(&str, &str)] = &[
    (
        "AccountSessionsSwitchResponse",
        "an object with `sessions` (switched) or one with `auth_url` + `login_id` (sign-in needed); no tag",
    ),
    (
        "ForcedChatgptWorkspaceIds",
        "one workspace id string or an array of them",
    ),
    (
        "FunctionCallOutputBody",
        "plain string output or an array of typed content items",
    ),
    (
        "McpElicitationSingleSelectEnumSchema",
        "MCP select schema: untitled (`enum`) or titled (`oneOf`), both `type: \"string\"`",
    ),
    (
        "ResourceContent",
        "MCP resource contents: text (`text`) or blob (`blob`); no tag",
    ),
    ("ThreadListCwdFilter", "one cwd string or an array of them"),
];

/// The unions dispatched by `method` (hand-written envelope-first serde) and the result tables.
const DISPATCH_UNIONS: &[&str] = &[
    "ServerNotification",
    "ServerRequest",
    "ClientRequest",
    "ClientNotification",
];
const RESULT_TABLES: &[&str] = &["ClientRequestResult", "ServerRequestResult"];

fn read(relative: &str) -> String {
    let path = agentwire_tests::workspace_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// a. The shape of the generated source
// ---------------------------------------------------------------------------------------------

/// The attribute lines right above `pub enum NAME` / `pub struct NAME` (prettyplease layout:
/// attributes at column 0, multi-line `#[derive(` lists indented and closed by `)]`).
fn attributes_of(source: &str, keyword: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let head = format!("pub {keyword} {name} ");
    let index = lines
        .iter()
        .position(|line| line.starts_with(&head) || *line == head.trim_end())?;
    let mut start = index;
    while start > 0 {
        let line = lines[start - 1];
        if line.starts_with("#[") || line.starts_with(")]") || line.starts_with(char::is_whitespace) {
            start -= 1;
        } else {
            break;
        }
    }
    Some(lines[start..index].join("\n"))
}

/// Every `#[serde(untagged)]` in the source, with the enum it sits on. An untagged attribute that
/// is not directly on a `pub enum` (e.g. on a single variant) is reported as an error.
fn untagged_enums(source: &str) -> (BTreeSet<String>, Vec<String>) {
    let lines: Vec<&str> = source.lines().collect();
    let mut enums = BTreeSet::new();
    let mut misplaced = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if !line.contains("untagged") {
            continue;
        }
        if line.trim() != "#[serde(untagged)]" {
            misplaced.push(format!(
                "{GENERATED}:{}: unexpected `untagged`: {}",
                index + 1,
                line.trim()
            ));
            continue;
        }
        let item = lines[index + 1..]
            .iter()
            .find(|next| !next.trim_start().starts_with("#["));
        match item.and_then(|item| item.strip_prefix("pub enum ")) {
            Some(rest) => {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                enums.insert(name);
            }
            None => misplaced.push(format!(
                "{GENERATED}:{}: `#[serde(untagged)]` not on a `pub enum` (followed by {:?})",
                index + 1,
                item.map(|item| item.trim())
            )),
        }
    }
    (enums, misplaced)
}

/// Identifiers of the form `Variant<N>` (or ending so), with their line numbers.
fn variant_n_names(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (index, line) in source.lines().enumerate() {
        for ident in line.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if let Some(at) = ident.rfind("Variant") {
                let digits = &ident[at + "Variant".len()..];
                if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                    found.push(format!("{GENERATED}:{}: `{ident}`", index + 1));
                }
            }
        }
    }
    found
}

/// The schema bundle's definitions, with `definitions.v2` flattened in.
fn schema_definitions() -> Map<String, Value> {
    let schema: Value = serde_json::from_str(&read(SCHEMA)).expect("the schema bundle is JSON");
    let mut definitions = schema["definitions"]
        .as_object()
        .expect("the bundle has `definitions`")
        .clone();
    if let Some(Value::Object(v2)) = definitions.remove("v2") {
        definitions.extend(v2);
    }
    definitions
}

fn resolve<'a>(definitions: &'a Map<String, Value>, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().expect("a $ref has a last segment");
            definitions
                .get(name)
                .unwrap_or_else(|| panic!("{SCHEMA}: dangling $ref {reference}"))
        }
        None => schema,
    }
}

/// The single constant a property schema allows (`const`, or a one-value `enum`), if any.
fn single_constant(definitions: &Map<String, Value>, schema: &Value) -> Option<Value> {
    let schema = resolve(definitions, schema);
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    match schema.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
        Some([value]) => Some(value.clone()),
        _ => None,
    }
}

/// The properties that would discriminate a union's branches: required in every branch, a
/// single constant in each, the constants pairwise distinct. Empty for a shape-only union.
fn discriminators(definitions: &Map<String, Value>, name: &str) -> Vec<String> {
    let definition = definitions
        .get(name)
        .unwrap_or_else(|| panic!("{SCHEMA}: no definition {name}"));
    let branches = ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| definition.get(*key).and_then(Value::as_array))
        .unwrap_or_else(|| panic!("{SCHEMA}: {name} is not a oneOf/anyOf union"));
    let branches: Vec<&Value> = branches.iter().map(|branch| resolve(definitions, branch)).collect();
    let Some(first) = branches[0].get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    first
        .keys()
        .filter(|property| {
            let constants: Option<Vec<Value>> = branches
                .iter()
                .map(|branch| {
                    let required = branch["required"]
                        .as_array()
                        .is_some_and(|required| required.iter().any(|r| r == *property));
                    let schema = branch.get("properties")?.get(property.as_str())?;
                    required.then(|| single_constant(definitions, schema)).flatten()
                })
                .collect();
            constants.is_some_and(|constants| {
                let distinct: BTreeSet<String> = constants.iter().map(Value::to_string).collect();
                distinct.len() == constants.len()
            })
        })
        .cloned()
        .collect()
}

#[test]
fn generated_unions_are_tagged_except_shape_unions() {
    let source = read(GENERATED);
    let mut problems = Vec::new();

    problems.extend(variant_n_names(&source));

    let (untagged, misplaced) = untagged_enums(&source);
    problems.extend(misplaced);
    let allowed: BTreeMap<&str, &str> = SHAPE_UNIONS.iter().copied().collect();
    assert_eq!(allowed.len(), SHAPE_UNIONS.len(), "SHAPE_UNIONS lists a name twice");
    for name in &untagged {
        if !allowed.contains_key(name.as_str()) {
            problems.push(format!(
                "`{name}` is #[serde(untagged)] but not in SHAPE_UNIONS (a discriminated union must be tagged; \
                 a shape-only union must be listed with its reason)"
            ));
        }
    }
    for name in allowed.keys() {
        if !untagged.contains(*name) {
            problems.push(format!(
                "SHAPE_UNIONS lists `{name}`, which is no longer #[serde(untagged)]: stale entry"
            ));
        }
    }

    // An allowed untagged union really has no discriminator in the schema.
    let definitions = schema_definitions();
    for name in allowed.keys() {
        let found = discriminators(&definitions, name);
        if !found.is_empty() {
            problems.push(format!(
                "`{name}` is allowed untagged but its schema branches are discriminated by {found:?}"
            ));
        }
    }

    // The dispatch unions and result tables: hand-written envelope-first serde, never untagged.
    for name in DISPATCH_UNIONS.iter().chain(RESULT_TABLES) {
        match attributes_of(&source, "enum", name) {
            None => problems.push(format!("no `pub enum {name}` in {GENERATED}")),
            Some(attrs) if attrs.contains("untagged") || attrs.contains("::serde::Deserialize") => {
                problems.push(format!("`{name}` derives serde (must be dispatched by hand): {attrs}"))
            }
            Some(_) => {}
        }
        if untagged.contains(*name) {
            problems.push(format!("dispatch union `{name}` is untagged"));
        }
    }
    for name in DISPATCH_UNIONS {
        let head = format!("impl<'de> ::serde::Deserialize<'de> for {name} {{");
        let envelope_first = source.find(&head).is_some_and(|at| {
            let body: String = source[at..].lines().take(8).collect();
            body.contains("RawEnvelope") && body.contains("Self::decode(")
        });
        if !envelope_first {
            problems.push(format!(
                "`{name}` has no envelope-first Deserialize (RawEnvelope + decode)"
            ));
        }
    }
    match attributes_of(&source, "enum", "ThreadItem") {
        Some(attrs) if attrs.lines().any(|line| line == "#[serde(tag = \"type\")]") && !attrs.contains("untagged") => {}
        other => problems.push(format!("`ThreadItem` is not #[serde(tag = \"type\")]: {other:?}")),
    }

    println!(
        "shape-distinguished #[serde(untagged)] unions ({}):",
        SHAPE_UNIONS.len()
    );
    for (name, why) in SHAPE_UNIONS {
        println!("  {name}: {why}");
    }
    assert!(
        problems.is_empty(),
        "generated union problems:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checks_of_the_generated_source_can_fail() {
    // A typify-style fallback: untagged with numbered variants.
    let bad = concat!(
        "///`Thing`\n#[derive(::serde::Deserialize)]\n#[serde(untagged)]\n",
        "pub enum Thing {\n    Variant0(i64),\n    Variant12 { a: i64 },\n}\n"
    );
    let (untagged, misplaced) = untagged_enums(bad);
    assert_eq!(untagged, BTreeSet::from(["Thing".to_string()]));
    assert!(misplaced.is_empty());
    assert_eq!(variant_n_names(bad).len(), 2, "{:?}", variant_n_names(bad));
    // Untagged on a variant is flagged, not attributed to the next enum.
    let on_variant = "pub enum A {\n    #[serde(untagged)]\n    B(i64),\n}\n#[serde(untagged)]\npub enum C {}\n";
    let (untagged, misplaced) = untagged_enums(on_variant);
    assert_eq!(untagged, BTreeSet::from(["C".to_string()]));
    assert_eq!(misplaced.len(), 1, "{misplaced:?}");
    // A real discriminated union of the schema is recognized as such.
    let definitions = schema_definitions();
    assert_eq!(discriminators(&definitions, "ThreadItem"), ["type"]);
    assert_eq!(discriminators(&definitions, "ServerNotification"), ["method"]);
}

// ---------------------------------------------------------------------------------------------
// The corpus, decoded
// ---------------------------------------------------------------------------------------------

/// One corpus line, decoded with a fresh [`Decoder`] per file.
struct Decoded {
    /// `corpus/codex-app-server/FILE:LINE`.
    at: String,
    dir: Direction,
    /// The original `msg`.
    msg: Value,
    /// For a response or error: the method of the request with that id in the other direction,
    /// tracked here independently of the decoder.
    answers: Option<String>,
    result: Result<Message, WireError>,
}

fn corpus_files() -> Vec<PathBuf> {
    let dir = agentwire_tests::tests_dir().join(CORPUS);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no traces in {}", dir.display());
    files
}

fn decode_corpus() -> Vec<Decoded> {
    let mut all = Vec::new();
    for path in corpus_files() {
        let name = format!("{CORPUS}/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let mut decoder = Decoder::default();
        let mut requests: HashMap<(Direction, String), String> = HashMap::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{name}:{}", index + 1);
            let frame = Frame::parse(line, LineFormat::Transcript).unwrap_or_else(|e| panic!("{at}: {e}"));
            let msg: Value = serde_json::from_str(frame.msg.get()).unwrap_or_else(|e| panic!("{at}: {e}"));
            let id = msg.get("id").map(Value::to_string);
            let answers = match (&id, msg.get("method").and_then(Value::as_str)) {
                (Some(id), Some(method)) => {
                    requests.insert((frame.dir, id.clone()), method.to_string());
                    None
                }
                (Some(id), None) => requests.remove(&(other(frame.dir), id.clone())),
                (None, _) => None,
            };
            all.push(Decoded {
                at,
                dir: frame.dir,
                answers,
                result: decoder.decode(&frame),
                msg,
            });
        }
    }
    all
}

fn other(dir: Direction) -> Direction {
    match dir {
        Direction::In => Direction::Out,
        Direction::Out => Direction::In,
    }
}

/// The kinds of message, as the counts print them.
const KINDS: &[&str] = &[
    "server notifications",
    "server requests",
    "client requests",
    "client notifications",
    "responses to client requests (in)",
    "responses to server requests (out)",
    "errors answering client requests (in)",
    "errors answering server requests (out)",
];

/// The kind a message is, by its direction and its JSON-RPC fields (not by what decoded).
fn kind_of(dir: Direction, msg: &Value) -> &'static str {
    let (method, id) = (msg.get("method").is_some(), msg.get("id").is_some());
    match (dir, method, id, msg.get("error").is_some()) {
        (Direction::In, true, false, _) => "server notifications",
        (Direction::In, true, true, _) => "server requests",
        (Direction::Out, true, true, _) => "client requests",
        (Direction::Out, true, false, _) => "client notifications",
        (Direction::In, false, true, false) => "responses to client requests (in)",
        (Direction::Out, false, true, false) => "responses to server requests (out)",
        (Direction::In, false, true, true) => "errors answering client requests (in)",
        (Direction::Out, false, true, true) => "errors answering server requests (out)",
        (_, false, false, _) => "not JSON-RPC",
    }
}

/// Checks that `message` is the variant `line`'s method names; `None` when it is.
fn mismatch(line: &Decoded, message: &Message) -> Option<String> {
    let method = line.msg.get("method").and_then(Value::as_str);
    let expected = method.or(line.answers.as_deref());
    let (variant, decoded_method) = match message {
        Message::ServerNotification(m) => ("server notifications", Some(m.method())),
        Message::ServerRequest(m) => ("server requests", Some(m.method())),
        Message::ClientRequest(m) => ("client requests", Some(m.method())),
        Message::ClientNotification(m) => ("client notifications", Some(m.method())),
        Message::ClientRequestResult { result, .. } => ("responses to client requests (in)", Some(result.method())),
        Message::ServerRequestResult { result, .. } => ("responses to server requests (out)", Some(result.method())),
        Message::Error { method, .. } => (
            match line.dir {
                Direction::In => "errors answering client requests (in)",
                Direction::Out => "errors answering server requests (out)",
            },
            method.as_deref(),
        ),
    };
    let kind = kind_of(line.dir, &line.msg);
    if variant != kind {
        return Some(format!("{}: a {kind} message decoded as {variant}", line.at));
    }
    if expected.is_none() {
        return Some(format!(
            "{}: the request this {kind} answers is not in the trace",
            line.at
        ));
    }
    (decoded_method != expected).then(|| {
        format!(
            "{}: {kind}: method {expected:?} decoded as the variant of {decoded_method:?}",
            line.at
        )
    })
}

#[test]
fn every_corpus_message_decodes_into_the_variant_its_method_names() {
    let corpus = decode_corpus();
    let mut failures = Vec::new();
    let mut counts: BTreeMap<&str, (usize, BTreeSet<String>)> = BTreeMap::new();
    for line in &corpus {
        let kind = kind_of(line.dir, &line.msg);
        let method = line
            .msg
            .get("method")
            .and_then(Value::as_str)
            .or(line.answers.as_deref());
        let entry = counts.entry(kind).or_default();
        entry.0 += 1;
        entry.1.insert(method.unwrap_or("?").to_string());
        match &line.result {
            Ok(message) => failures.extend(mismatch(line, message)),
            Err(err) => failures.push(format!("{}: {kind} did not decode: {err}", line.at)),
        }
    }
    println!(
        "{} messages in {} traces decoded by kind:",
        corpus.len(),
        corpus_files().len()
    );
    for kind in KINDS {
        let (count, methods) = counts.get(kind).cloned().unwrap_or_default();
        println!("  {kind:40} {count:5}  ({} methods)", methods.len());
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus messages did not decode into the variant their method names:\n{}",
        failures.len(),
        corpus.len(),
        failures.join("\n")
    );
    assert!(!counts.contains_key("not JSON-RPC"));
}

#[test]
fn the_variant_check_can_fail() {
    // A notification decoded as another method's variant, and a response typed through the wrong
    // request, are both caught.
    let corpus = decode_corpus();
    let notification = corpus
        .iter()
        .find(|line| matches!(line.result, Ok(Message::ServerNotification(_))))
        .expect("the corpus has notifications");
    let mut renamed = Decoded {
        at: notification.at.clone(),
        dir: notification.dir,
        msg: notification.msg.clone(),
        answers: None,
        result: Err(WireError::NotJsonRpc),
    };
    renamed.msg["method"] = json!("turn/completed");
    let message = notification.result.as_ref().unwrap();
    if notification.msg["method"] != "turn/completed" {
        assert!(mismatch(&renamed, message).is_some());
    }
    let response = corpus
        .iter()
        .find(|line| matches!(line.result, Ok(Message::ClientRequestResult { .. })))
        .expect("the corpus has responses");
    let wrong = Decoded {
        at: response.at.clone(),
        dir: response.dir,
        msg: response.msg.clone(),
        answers: Some("no/such/method".into()),
        result: Err(WireError::NotJsonRpc),
    };
    assert!(mismatch(&wrong, response.result.as_ref().unwrap()).is_some());
}

// ---------------------------------------------------------------------------------------------
// c. Round trip
// ---------------------------------------------------------------------------------------------

/// The JSON the typed message stands for: the whole message for unions, `{"id","result"}` for
/// responses, `{"id","error"}` for errors.
fn encode(message: &Message) -> Value {
    let value = match message {
        Message::ServerNotification(m) => serde_json::to_value(m),
        Message::ServerRequest(m) => serde_json::to_value(m),
        Message::ClientRequest(m) => serde_json::to_value(m),
        Message::ClientNotification(m) => serde_json::to_value(m),
        Message::ClientRequestResult { id, result } => {
            serde_json::to_value(result).map(|r| json!({"id": id, "result": r}))
        }
        Message::ServerRequestResult { id, result } => {
            serde_json::to_value(result).map(|r| json!({"id": id, "result": r}))
        }
        Message::Error { id, error, .. } => serde_json::to_value(error).map(|e| json!({"id": id, "error": e})),
    };
    value.unwrap_or_else(|e| panic!("re-encoding {message:?}: {e}"))
}

/// What differs between an original message and its re-encoding.
#[derive(Default)]
struct Differences {
    /// Key present in the original and absent after, with a non-null value; or a value changed:
    /// (path pattern, path, what).
    losses: Vec<(String, String, String)>,
    /// Key whose original value was `null` and that came back absent: (path pattern, path).
    null_absent: Vec<(String, String)>,
    /// Key absent from the original that the re-encoding added: (path pattern, value).
    added: Vec<(String, Value)>,
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(a), Some(b), _, _) => a == b,
        (_, _, Some(a), Some(b)) => a == b,
        _ => a.as_f64() == b.as_f64(),
    }
}

/// Compares `original` with `encoded` below `path` (concrete) / `pattern` (array indices as
/// `[]`, objects with a string `type` annotated `(type)`).
fn compare(original: &Value, encoded: &Value, path: &str, pattern: &str, out: &mut Differences) {
    match (original, encoded) {
        (Value::Object(a), Value::Object(b)) => {
            let tagged = |pattern: &str, object: &Map<String, Value>| match object.get("type") {
                Some(Value::String(tag)) if !pattern.is_empty() => format!("{pattern}({tag})"),
                _ => pattern.to_string(),
            };
            let pattern = tagged(pattern, a);
            for (key, value) in a {
                let (path, pattern) = (format!("{path}.{key}"), format!("{pattern}.{key}"));
                match b.get(key) {
                    Some(other) => compare(value, other, &path, &pattern, out),
                    None if value.is_null() => out.null_absent.push((pattern, path)),
                    None => out
                        .losses
                        .push((pattern, path, format!("dropped (was {})", short(value)))),
                }
            }
            for (key, value) in b {
                if !a.contains_key(key) {
                    out.added.push((format!("{pattern}.{key}"), value.clone()));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}[{index}]"), &format!("{pattern}[]"), out);
            }
        }
        (Value::Number(a), Value::Number(b)) if numbers_equal(a, b) => {}
        (a, b) if a == b => {}
        (a, b) => out.losses.push((
            pattern.to_string(),
            path.to_string(),
            format!("changed (was {}, came back {})", short(a), short(b)),
        )),
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// The label a message's paths are grouped under: its method, and for answers which kind.
fn label(line: &Decoded) -> String {
    match (line.msg.get("method").and_then(Value::as_str), &line.answers) {
        (Some(method), _) => method.to_string(),
        (None, Some(method)) if line.msg.get("error").is_some() => format!("{method} (error)"),
        (None, Some(method)) => format!("{method} (result)"),
        (None, None) => "(unanswered)".into(),
    }
}

#[test]
fn every_corpus_message_round_trips_without_loss() {
    let corpus = decode_corpus();
    let mut undecoded = Vec::new();
    // Grouped by method and path pattern: how many, and the first place with its details.
    let mut losses: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut null_absent: BTreeMap<String, usize> = BTreeMap::new();
    let mut added: BTreeMap<String, (usize, BTreeSet<String>)> = BTreeMap::new();
    for line in &corpus {
        let Ok(message) = &line.result else {
            undecoded.push(format!("{}: did not decode (see the decode test)", line.at));
            continue;
        };
        let mut diff = Differences::default();
        compare(&line.msg, &encode(message), "", "", &mut diff);
        let label = label(line);
        for (pattern, path, what) in diff.losses {
            let entry = losses
                .entry(format!("{label} {pattern}"))
                .or_insert_with(|| (0, format!("first at {} {path}: {what}", line.at)));
            entry.0 += 1;
        }
        for (pattern, _) in diff.null_absent {
            *null_absent.entry(format!("{label} {pattern}")).or_default() += 1;
        }
        for (pattern, value) in diff.added {
            let entry = added.entry(format!("{label} {pattern}")).or_default();
            entry.0 += 1;
            entry.1.insert(short(&value));
        }
    }
    println!(
        "round trip of {} messages: {} losses; {} keys (in {} patterns) null came back absent; \
         {} keys (in {} patterns) added from schema defaults",
        corpus.len(),
        losses.values().map(|(count, _)| count).sum::<usize>(),
        null_absent.values().sum::<usize>(),
        null_absent.len(),
        added.values().map(|(count, _)| count).sum::<usize>(),
        added.len(),
    );
    println!("null came back absent (count, method path):");
    for (pattern, count) in &null_absent {
        println!("  {count:5}  {pattern}");
    }
    println!("added from schema default (count, method path = values):");
    for (pattern, (count, values)) in &added {
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        println!("  {count:5}  {pattern} = {}", values.join(" | "));
    }
    assert!(undecoded.is_empty(), "{}", undecoded.join("\n"));
    let report: Vec<String> = losses
        .iter()
        .map(|(pattern, (count, first))| format!("  {count:5}  {pattern}  ({first})"))
        .collect();
    assert!(
        losses.is_empty(),
        "values were lost re-encoding the typed corpus messages (count, method path, first place):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_round_trip_comparison_can_fail() {
    let original = json!({"a": 1, "b": null, "c": [{"type": "x", "d": "e"}], "n": 1.0});
    let mut diff = Differences::default();
    compare(
        &original,
        &json!({"a": 1, "c": [{"type": "x", "d": "f"}], "n": 1, "z": 0}),
        "",
        "",
        &mut diff,
    );
    assert_eq!(diff.null_absent, [(".b".to_string(), ".b".to_string())]);
    assert_eq!(diff.added, [(".z".to_string(), json!(0))]);
    assert_eq!(diff.losses.len(), 1, "{:?}", diff.losses);
    assert_eq!(
        (diff.losses[0].0.as_str(), diff.losses[0].1.as_str()),
        (".c[](x).d", ".c[0].d")
    );
    let mut diff = Differences::default();
    compare(&original, &json!({"b": null, "c": [], "n": 2}), "", "", &mut diff);
    let paths: Vec<&str> = diff.losses.iter().map(|(_, path, _)| path.as_str()).collect();
    assert_eq!(paths, [".a", ".c", ".n"]);
    // The pattern groups array elements and names the item type.
    let mut diff = Differences::default();
    compare(
        &json!({"item": {"type": "plan", "x": null}}),
        &json!({"item": {"type": "plan"}}),
        "",
        "",
        &mut diff,
    );
    assert_eq!(diff.null_absent[0].0, ".item(plan).x");
}

// ---------------------------------------------------------------------------------------------
// d. Envelope-first errors
// ---------------------------------------------------------------------------------------------

fn decode_line(decoder: &mut Decoder, line: &str) -> Result<Message, WireError> {
    let frame = Frame::parse(line, LineFormat::Transcript).unwrap_or_else(|e| panic!("{line}: {e}"));
    decoder.decode(&frame)
}

/// The first `thread/started` record of the corpus, as a JSON value.
fn thread_started_record() -> Value {
    let text = std::fs::read_to_string(agentwire_tests::tests_dir().join(CORPUS).join("text.jsonl"))
        .expect("reading text.jsonl");
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("corpus lines are JSON"))
        .find(|record| record["msg"]["method"] == "thread/started")
        .expect("text.jsonl has a thread/started notification")
}

#[test]
fn a_wrong_typed_nested_field_names_the_method_and_the_path() {
    let mut record = thread_started_record();
    // The record decodes as it is...
    let message = decode_line(&mut Decoder::default(), &record.to_string()).expect("the real notification decodes");
    assert!(matches!(
        message,
        Message::ServerNotification(ServerNotification::ThreadStarted { .. })
    ));
    // ...and not once a nested field has the wrong type.
    record["msg"]["params"]["thread"]["status"]["type"] = json!(42);
    let err = decode_line(&mut Decoder::default(), &record.to_string()).expect_err("a number is not a status type");
    let text = err.to_string();
    assert!(
        text.starts_with("thread/started: at thread.status.type: "),
        "the error names the method and the path: {text}"
    );
    assert_eq!(err.method(), Some("thread/started"));
    println!("wrong-typed thread.status.type: {text}");

    let mut record = thread_started_record();
    record["msg"]["params"]["thread"]["createdAt"] = json!("yesterday");
    let err = decode_line(&mut Decoder::default(), &record.to_string()).expect_err("a string is not a timestamp");
    let text = err.to_string();
    assert!(text.starts_with("thread/started: at thread.createdAt: "), "{text}");
    println!("wrong-typed thread.createdAt: {text}");

    let mut record = thread_started_record();
    record["msg"]["params"]["thread"]["turns"] = json!([{"id": 7}]);
    let text = decode_line(&mut Decoder::default(), &record.to_string())
        .expect_err("a turn needs a string id")
        .to_string();
    assert!(text.starts_with("thread/started: at thread.turns[0].id: "), "{text}");
}

#[test]
fn an_unknown_method_is_named() {
    let mut decoder = Decoder::default();
    for (line, union) in [
        (
            r#"{"dir":"in","ts":1,"msg":{"method":"thread/teleported","params":{}}}"#,
            "ServerNotification",
        ),
        (
            r#"{"dir":"out","ts":1,"msg":{"id":9,"method":"thread/teleport","params":{}}}"#,
            "ClientRequest",
        ),
        (
            r#"{"dir":"in","ts":1,"msg":{"id":9,"method":"item/teleport/requestApproval","params":{}}}"#,
            "ServerRequest",
        ),
    ] {
        let err = decode_line(&mut decoder, line).expect_err("an unknown method does not decode");
        let text = err.to_string();
        let method = serde_json::from_str::<Value>(line).unwrap()["msg"]["method"].clone();
        let method = method.as_str().unwrap();
        assert!(text.contains(&format!("`{method}`")), "{text}");
        assert!(text.contains(union), "{text}");
        assert_eq!(err.method(), Some(method));
    }
}

#[test]
fn a_request_without_params_says_so() {
    let err = decode_line(
        &mut Decoder::default(),
        r#"{"dir":"out","ts":1,"msg":{"id":3,"method":"thread/start"}}"#,
    )
    .expect_err("thread/start needs params");
    assert_eq!(err.to_string(), "thread/start: `params` missing");
    let err = decode_line(
        &mut Decoder::default(),
        r#"{"dir":"in","ts":1,"msg":{"id":0,"method":"item/commandExecution/requestApproval"}}"#,
    )
    .expect_err("an approval request needs params");
    assert_eq!(
        err.to_string(),
        "item/commandExecution/requestApproval: `params` missing"
    );
    // A notification without params that needs them, too.
    let err = decode_line(
        &mut Decoder::default(),
        r#"{"dir":"in","msg":{"method":"turn/started"}}"#,
    )
    .expect_err("turn/started needs params");
    assert_eq!(err.to_string(), "turn/started: `params` missing");
}

#[test]
fn dispatch_unions_can_be_decoded_without_path_tracking() {
    // The plain serde entry points (RawEnvelope + SerdeJson) agree with the wire decoder.
    let record = thread_started_record();
    let message: ServerNotification = serde_json::from_value(record["msg"].clone()).expect("decodes");
    assert_eq!(message.method(), "thread/started");
    let err = serde_json::from_value::<ClientRequest>(json!({"id": 1, "method": "thread/start"})).unwrap_err();
    assert!(err.to_string().contains("thread/start: `params` missing"), "{err}");
    let notification: ClientNotification = serde_json::from_value(json!({"method": "initialized"})).unwrap();
    assert_eq!(notification.method(), "initialized");
    assert!(serde_json::from_value::<ServerRequest>(json!({"id": 1, "method": "nope", "params": {}})).is_err());
    let raw = serde_json::value::RawValue::from_string(r#"{"decision":"accept"}"#.into()).unwrap();
    let result = ServerRequestResult::decode(
        "item/commandExecution/requestApproval",
        &raw,
        &mut agentwire_codex_app_server::SerdeJson,
    )
    .expect("an approval decision decodes");
    assert_eq!(result.method(), "item/commandExecution/requestApproval");
    let err = ClientRequestResult::decode("no/such", &raw, &mut agentwire_codex_app_server::SerdeJson).unwrap_err();
    assert!(err.to_string().contains("no/such"), "{err}");
}

#[test]
fn a_json_rpc_error_is_typed_by_the_request_it_answers() {
    // The corpus has no JSON-RPC error responses, so one is built here.
    let mut decoder = Decoder::default();
    let request = r#"{"dir":"out","ts":1,"msg":{"id":7,"method":"thread/start","params":{}}}"#;
    assert!(matches!(
        decode_line(&mut decoder, request),
        Ok(Message::ClientRequest(ClientRequest::ThreadStart { .. }))
    ));
    let msg = json!({"id": 7, "error": {"code": -32600, "message": "bad", "data": {"why": [1, 2.5]}}});
    let line = json!({"dir": "in", "ts": 2, "msg": msg}).to_string();
    let message = decode_line(&mut decoder, &line).expect("an error response decodes");
    let Message::Error { method, .. } = &message else {
        panic!("not an error: {message:?}");
    };
    assert_eq!(method.as_deref(), Some("thread/start"));
    let mut diff = Differences::default();
    compare(&msg, &encode(&message), "", "", &mut diff);
    assert!(diff.losses.is_empty() && diff.added.is_empty() && diff.null_absent.is_empty());
    // An error to a request never seen still decodes, without a method.
    let orphan = r#"{"dir":"in","msg":{"id":99,"error":{"code":1,"message":"x"}}}"#;
    assert!(matches!(
        decode_line(&mut decoder, orphan),
        Ok(Message::Error { method: None, .. })
    ));
}
