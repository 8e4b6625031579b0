//! The mapping crate's modules import each other in one direction only: the shared core never
//! imports a source module, a source module imports only the core and its own modules, and no two
//! modules import each other, directly or through others.
//!
//! Every `crate::` and `super::` path counts, in `use` trees (groups included) and in code
//! alike, so a module cannot hide an edge by naming a path inline.
//!
//! And a source's mapping decides on typed values: only its decoder (`wire`) and its detection
//! read the message's text; every other read of it is listed in [`TEXT_READS`] with its reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The modules holding one source's mapping decisions; `catalog` is the one place that
/// dispatches to them, and every other module is the core.
const SOURCES: &[&str] = &[
    "acp",
    "claude",
    "claude_session",
    "codex_app_server",
    "codex_exec",
    "codex_rollout",
];
const DISPATCH: &str = "catalog";

/// Every `.rs` file under `dir`, as (module path like `codex_app_server::requests`, file).
fn modules(dir: &Path, prefix: &str, into: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        let stem = path.file_stem().expect("a name").to_string_lossy().into_owned();
        if path.is_dir() {
            modules(&path, &format!("{prefix}{stem}::"), into);
        } else if path.extension().is_some_and(|ext| ext == "rs") && stem != "lib" {
            into.push((format!("{prefix}{stem}"), path));
        }
    }
}

/// Collects the crate paths a file names, resolving `super` and paths relative to a child module
/// (`wire::Decoder` in `codex_app_server`) against the module (and the inline modules, like `mod
/// tests`, it is inside).
struct Paths<'k> {
    /// The module path of the scope being visited: the file's, then any inline module's.
    scope: Vec<String>,
    known: &'k BTreeSet<String>,
    found: BTreeSet<Vec<String>>,
    /// The file's `pub use` items by the name they are re-exported as: an alias other modules
    /// see through, not an import of the file's own.
    reexports: BTreeMap<String, Vec<String>>,
    /// The workspace crates (`agentwire_*`) the file names.
    crates: BTreeSet<String>,
    /// Whether the `use` tree being visited is a `pub use`.
    public: bool,
    /// The length of the file's own module path (deeper scopes are inline modules).
    depth: usize,
}

impl Paths<'_> {
    /// The absolute path of `segments` written in the current scope, if it is a crate path.
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let mut base = self.scope.clone();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            Some("self") => rest = &rest[1..],
            Some(first) => {
                let child = base
                    .iter()
                    .map(String::as_str)
                    .chain([first])
                    .collect::<Vec<_>>()
                    .join("::");
                if !self.known.contains(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, segments: &[String]) {
        if let Some(first) = segments.first().filter(|first| first.starts_with("agentwire_")) {
            self.crates.insert(first.clone());
        }
        if let Some(path) = self.resolve(segments) {
            self.found.insert(path);
        }
    }

    /// A name a `use` tree binds: an import, or under `pub use`, a re-export.
    fn bind(&mut self, segments: &[String], name: String) {
        if self.public && self.scope.len() == self.depth {
            if let Some(path) = self.resolve(segments) {
                self.reexports.insert(name, path);
            }
        } else {
            self.record(segments);
        }
    }

    /// Every path a `use` tree names, groups expanded.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.bind(prefix, name.ident.to_string());
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.bind(prefix, rename.rename.to_string());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.record(prefix),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.public = matches!(item.vis, syn::Visibility::Public(_));
        self.use_tree(&mut Vec::new(), &item.tree);
        self.public = false;
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(&segments);
        syn::visit::visit_path(self, path);
    }

    /// `pub(super)` names who may see an item, not a module the file uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.scope.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.scope.pop();
    }
}

/// The paths a module's file names and the names it re-exports.
fn paths<'k>(module: &str, text: &str, known: &'k BTreeSet<String>) -> Paths<'k> {
    let file = syn::parse_file(text).unwrap_or_else(|err| panic!("{module}: {err}"));
    let scope: Vec<String> = module.split("::").map(str::to_string).collect();
    let mut paths = Paths {
        depth: scope.len(),
        scope,
        known,
        found: BTreeSet::new(),
        reexports: BTreeMap::new(),
        crates: BTreeSet::new(),
        public: false,
    };
    paths.visit_file(&file);
    paths
}

/// The modules of `known` that `module` imports: for each path it names, seen through the
/// re-exports of the module it goes through, the longest known module it starts with.
fn imports(
    module: &str,
    found: &BTreeSet<Vec<String>>,
    known: &BTreeSet<String>,
    reexports: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
) -> BTreeSet<String> {
    let mut imported = BTreeSet::new();
    for path in found {
        let Some(len) = (1..=path.len())
            .rev()
            .find(|len| known.contains(&path[..*len].join("::")))
        else {
            continue;
        };
        let through = path[..len].join("::");
        let target = path
            .get(len)
            .and_then(|name| reexports.get(&through)?.get(name))
            .and_then(|target| {
                (1..=target.len())
                    .rev()
                    .map(|len| target[..len].join("::"))
                    .find(|candidate| known.contains(candidate))
            })
            .unwrap_or(through);
        if target != module {
            imported.insert(target);
        }
    }
    imported
}

/// The imports of one set of files, as (module path, text).
fn graph_of(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let known: BTreeSet<String> = files.iter().map(|(module, _)| module.clone()).collect();
    let parsed: Vec<(&String, Paths<'_>)> = files
        .iter()
        .map(|(module, text)| (module, paths(module, text, &known)))
        .collect();
    let reexports: BTreeMap<String, BTreeMap<String, Vec<String>>> = parsed
        .iter()
        .map(|(module, paths)| ((*module).clone(), paths.reexports.clone()))
        .collect();
    parsed
        .iter()
        .map(|(module, paths)| ((*module).clone(), imports(module, &paths.found, &known, &reexports)))
        .collect()
}

/// Depth-first search; panics with the cycle a back edge closes.
fn visit<'a>(
    node: &'a str,
    graph: &'a BTreeMap<String, BTreeSet<String>>,
    stack: &mut Vec<&'a str>,
    done: &mut BTreeSet<&'a str>,
) {
    if done.contains(node) {
        return;
    }
    if let Some(at) = stack.iter().position(|n| *n == node) {
        panic!("import cycle: {} -> {node}", stack[at..].join(" -> "));
    }
    stack.push(node);
    for next in graph.get(node).into_iter().flatten() {
        visit(next, graph, stack, done);
    }
    stack.pop();
    done.insert(node);
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    modules(&src, "", &mut files);
    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|(module, path)| (module, std::fs::read_to_string(path).expect("a source file")))
        .collect();
    graph_of(&files)
}

/// The source a module belongs to, `None` for the core and the dispatch.
fn source_of(module: &str) -> Option<&'static str> {
    let top = module.split("::").next().expect("a module path");
    SOURCES.iter().copied().find(|source| *source == top)
}

#[test]
fn module_imports_have_no_cycle() {
    let graph = graph();
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn the_core_imports_no_source_module() {
    let graph = graph();
    let core: Vec<&String> = graph
        .keys()
        .filter(|module| source_of(module).is_none() && *module != DISPATCH)
        .collect();
    assert!(
        core.iter().any(|module| *module == "ledger"),
        "the core is found: {core:?}"
    );
    for module in core {
        let outside: Vec<&String> = graph[module]
            .iter()
            .filter(|dep| source_of(dep).is_some() || *dep == DISPATCH)
            .collect();
        assert!(outside.is_empty(), "core module `{module}` imports {outside:?}");
    }
}

#[test]
fn a_source_module_imports_only_the_core_and_its_own_modules() {
    let graph = graph();
    for (module, deps) in &graph {
        let Some(source) = source_of(module) else { continue };
        let foreign: Vec<&String> = deps
            .iter()
            .filter(|dep| source_of(dep).is_some_and(|other| other != source) || *dep == DISPATCH)
            .collect();
        assert!(foreign.is_empty(), "source module `{module}` imports {foreign:?}");
    }
}

/// The workspace crates each module names.
fn crates() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    modules(&src, "", &mut files);
    let known: BTreeSet<String> = files.iter().map(|(module, _)| module.clone()).collect();
    files
        .iter()
        .map(|(module, path)| {
            let text = std::fs::read_to_string(path).expect("a source file");
            (module.clone(), paths(module, &text, &known).crates)
        })
        .collect()
}

/// The generated source crates, by the modules that alone may read each: its source's module, and
/// for `agentwire_claude` also `claude_session` (the session files carry the SDK's messages, and
/// their generated crate names `agentwire_claude`'s types) and `claude_code`, the core's one module
/// of what both Claude sources share, which maps those messages' content once for both.
const GENERATED: &[(&str, &[&str])] = &[
    ("agentwire_acp", &["acp"]),
    ("agentwire_claude", &["claude", "claude_session", "claude_code"]),
    ("agentwire_claude_session", &["claude_session"]),
    ("agentwire_codex_app_server", &["codex_app_server"]),
    ("agentwire_codex_exec", &["codex_exec"]),
    ("agentwire_codex_rollout", &["codex_rollout"]),
];

#[test]
fn a_generated_source_crate_is_read_by_its_source_module_only() {
    let crates = crates();
    assert!(
        crates["acp::normalizer"].contains("agentwire_acp"),
        "the crates are found"
    );
    for (module, used) in &crates {
        for name in used {
            let Some((_, readers)) = GENERATED.iter().find(|(generated, _)| generated == name) else {
                continue;
            };
            let top = module.split("::").next().expect("a module path");
            assert!(
                readers.contains(&top),
                "`{module}` reads `{name}`, which only {readers:?} may"
            );
        }
    }
}

#[test]
fn paths_in_code_groups_and_reexports_are_edges() {
    let files = [
        ("a", "pub use b::Item; pub use c::*;"),
        (
            "a::b",
            "use super::{c, super::d};\nfn f() { crate::e::g(); f::h(); }\nmod tests { use super::*; }",
        ),
        ("a::b::f", ""),
        ("a::c", "use super::Item;"),
        ("d", "fn f() { crate::a::Item::new(); }"),
        ("e", ""),
    ]
    .map(|(module, text)| (module.to_string(), text.to_string()));
    let graph = graph_of(&files);
    let edges = |module: &str| graph[module].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(edges("a::b"), ["a::b::f", "a::c", "d", "e"]);
    assert_eq!(edges("a::c"), ["a::b"], "through the parent's re-export");
    assert_eq!(edges("d"), ["a::b"]);
    assert_eq!(
        edges("a"),
        ["a::c"],
        "a glob re-export stays an edge; a named one is an alias"
    );
}

#[test]
fn a_cycle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    let found = std::panic::catch_unwind(|| visit("a", &graph, &mut Vec::new(), &mut BTreeSet::new()));
    assert!(found.is_err(), "a -> b -> a is a cycle");
}

/// What a source module does when it reads a message's text rather than its typed value.
struct TextReads {
    /// The enclosing functions, innermost last.
    functions: Vec<String>,
    /// (function, what it calls).
    found: BTreeSet<(String, String)>,
}

impl TextReads {
    fn record(&mut self, what: String) {
        let function = self.functions.last().cloned().unwrap_or_default();
        self.found.insert((function, what));
    }
}

impl<'ast> Visit<'ast> for TextReads {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let test = item
            .attrs
            .iter()
            .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|arg| arg == "test"));
        if !test {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.functions.push(item.sig.ident.to_string());
        syn::visit::visit_item_fn(self, item);
        self.functions.pop();
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.functions.push(item.sig.ident.to_string());
        syn::visit::visit_impl_item_fn(self, item);
        self.functions.pop();
    }

    /// `serde_json::from_str(..)` and friends, and `object_text`'s readers of a text.
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(path) = &*call.func {
            let names: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let [.., module, function] = names.as_slice() {
                let parses =
                    module == "serde_json" && matches!(function.as_str(), "from_str" | "from_slice" | "from_reader");
                let reads = module == "object_text" && matches!(function.as_str(), "at" | "entries" | "find");
                if parses || reads {
                    self.record(format!("{module}::{function}"));
                }
            }
        }
        syn::visit::visit_expr_call(self, call);
    }

    /// `frame.msg.get()` / `raw.payload.get()`: the message's text itself.
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if call.method == "get"
            && call.args.is_empty()
            && let syn::Expr::Field(field) = &*call.receiver
            && let syn::Member::Named(name) = &field.member
            && (name == "msg" || name == "payload")
        {
            self.record(format!(".{name}.get()"));
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

/// Every read of a message's text in a source module outside its decoder (`<source>::wire`) and
/// its detection (the source's own top module), as (module, function, what).
fn text_reads() -> BTreeSet<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    modules(&src, "", &mut files);
    let mut reads = BTreeSet::new();
    for (module, path) in files {
        let Some(source) = source_of(&module) else { continue };
        if module == source || module == format!("{source}::wire") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        let file = syn::parse_file(&text).unwrap_or_else(|err| panic!("{module}: {err}"));
        let mut visitor = TextReads {
            functions: Vec::new(),
            found: BTreeSet::new(),
        };
        visitor.visit_file(&file);
        reads.extend(
            visitor
                .found
                .into_iter()
                .map(|(function, what)| (module.clone(), function, what)),
        );
    }
    reads
}

/// The functions of a source's mapping that read the message's text, each with its reason. The
/// common one: a typed re-encoding prints members in the schema's order, not the provider's, and
/// drops the members a newer provider adds beyond the pinned schema, so what goes into an event
/// as the provider wrote it is copied from the text.
const TEXT_READS: &[(&str, &str, &str)] = &[
    (
        "acp::normalizer",
        "on_client_request_result",
        "`initialize`'s result goes into `session.configured` as the agent wrote it",
    ),
    (
        "acp::normalizer",
        "sent_result",
        "session results' model and option lists (a fifth of the ACP corpus's bytes) are copied as text, never parsed",
    ),
    ("acp::normalizer", "session_config", "reads `sent_result`'s members"),
    (
        "acp::normalizer",
        "wire_json",
        "tool calls (merged into what the item's content is read from), permission requests and elicitations go into `args` as sent",
    ),
    (
        "acp::updates",
        "sent_update_member",
        "command and option lists (a sixth of the ACP corpus's bytes) are copied as text",
    ),
    (
        "claude::normalizer",
        "raw_field",
        "usage as sent: newer CLIs add members the pinned types lack (`output_tokens_details`)",
    ),
    (
        "claude::normalizer",
        "sent_field",
        "`result`'s usage and model usage as sent",
    ),
    (
        "claude::normalizer",
        "result",
        "reads `result`'s members once for `sent_field`",
    ),
    (
        "claude::normalizer",
        "system",
        "`init` goes into `session.configured` as text (its tool, command and server lists), an API retry's detail as sent",
    ),
    (
        "claude_session::normalizer",
        "assistant",
        "a message's usage as the CLI wrote it (members the pinned types lack)",
    ),
    (
        "claude_session::normalizer",
        "system",
        "an API error's detail as the CLI wrote it",
    ),
    (
        "codex_rollout::items",
        "on_response_item",
        "a function call's `arguments` is JSON the model wrote inside a string: no schema types it",
    ),
    (
        "codex_rollout::items",
        "question_output",
        "a question's answers are JSON inside the tool output's text",
    ),
];

#[test]
fn a_source_mapping_reads_the_message_text_only_where_listed() {
    let reads = text_reads();
    let listed: BTreeSet<(&str, &str)> = TEXT_READS
        .iter()
        .map(|(module, function, _)| (*module, *function))
        .collect();
    let unlisted: Vec<_> = reads
        .iter()
        .filter(|(module, function, _)| !listed.contains(&(module.as_str(), function.as_str())))
        .collect();
    assert!(
        unlisted.is_empty(),
        "a mapping reads the message's text instead of its typed value (decide on the typed value, or \
         list the function in TEXT_READS with its reason): {unlisted:#?}"
    );
    let unused: Vec<_> = listed
        .iter()
        .filter(|(module, function)| !reads.iter().any(|(m, f, _)| m == module && f == function))
        .collect();
    assert!(
        unused.is_empty(),
        "TEXT_READS lists functions that no longer read text: {unused:?}"
    );
}

#[test]
fn text_reads_are_found_in_calls_and_method_calls() {
    let file = syn::parse_file(
        "fn a(frame: &Frame) { let v: Value = serde_json::from_str(frame.msg.get()).unwrap(); }\n\
         impl X { fn b(&self, raw: Raw) { object_text::at(raw.payload.get(), &[]); } }\n\
         fn c(line: &str) { line.get(); typed.payload.len(); }\n\
         #[cfg(test)] mod tests { fn d() { serde_json::from_str::<Value>(\"1\"); } }",
    )
    .expect("Rust");
    let mut visitor = TextReads {
        functions: Vec::new(),
        found: BTreeSet::new(),
    };
    visitor.visit_file(&file);
    let found: Vec<(&str, &str)> = visitor.found.iter().map(|(f, w)| (f.as_str(), w.as_str())).collect();
    assert_eq!(
        found,
        [
            ("a", ".msg.get()"),
            ("a", "serde_json::from_str"),
            ("b", ".payload.get()"),
            ("b", "object_text::at"),
        ]
    );
}
