//! A source's mapping decides on typed values: only its decoder (a `wire` module) and its
//! detection (the module that declares its `SourceSpec`) read the message's text; every other
//! read of it in a source crate (`crates/sources/*`) is listed in [`TEXT_READS`] with its reason.
//!
//! That the core names no source and a source no other source is Cargo's to keep: each source
//! crate depends on `agentwire-core` and its own generated crates only.

mod source_files;

use std::collections::BTreeSet;

use source_files::{Look, found_in, source_modules};

/// Whether a module is a source's decoder or the one declaring its `SourceSpec` (its detection).
fn reads_text_by_design(module: &str, text: &str) -> bool {
    module.ends_with("::wire") || text.contains(": SourceSpec = SourceSpec {")
}

/// What a source module does when it reads a message's text rather than its typed value.
struct TextReads;

impl Look for TextReads {
    /// `serde_json::from_str(..)` and friends, and `object_text`'s readers of a text.
    fn expr_call(&self, call: &syn::ExprCall, found: &mut Vec<String>) {
        if let syn::Expr::Path(path) = &*call.func {
            let names: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let [.., module, function] = names.as_slice() {
                let parses =
                    module == "serde_json" && matches!(function.as_str(), "from_str" | "from_slice" | "from_reader");
                let reads = module == "object_text" && matches!(function.as_str(), "at" | "entries" | "find");
                if parses || reads {
                    found.push(format!("{module}::{function}"));
                }
            }
        }
    }

    /// `frame.msg.get()` / `raw.payload.get()`: the message's text itself.
    fn expr_method_call(&self, call: &syn::ExprMethodCall, found: &mut Vec<String>) {
        if call.method == "get"
            && call.args.is_empty()
            && let syn::Expr::Field(field) = &*call.receiver
            && let syn::Member::Named(name) = &field.member
            && (name == "msg" || name == "payload")
        {
            found.push(format!(".{name}.get()"));
        }
    }
}

/// Every read of a message's text in a source module outside its decoder and its detection, as
/// (module, function, what).
fn text_reads() -> BTreeSet<(String, String, String)> {
    let mut reads = BTreeSet::new();
    for (module, path) in source_modules() {
        let text = std::fs::read_to_string(&path).expect("a source file");
        if reads_text_by_design(&module, &text) {
            continue;
        }
        let file = syn::parse_file(&text).unwrap_or_else(|err| panic!("{module}: {err}"));
        reads.extend(
            found_in(&file, &TextReads)
                .into_iter()
                .map(|(function, what)| (module.clone(), function, what)),
        );
    }
    reads
}

/// The functions of a source's mapping that read the message's text, each with its reason. What
/// goes into an event as the provider wrote it is no reason: the schema marks such a member
/// (`x-raw-json`, `as-sent.json`) and the generated type carries its text. What is left is text a
/// model wrote inside a string, in a shape no schema can name.
const TEXT_READS: &[(&str, &str, &str)] = &[
    (
        "codex::rollout::items",
        "question_output",
        "a question's answers are JSON inside the tool output's text",
    ),
    (
        "claude::usage",
        "read",
        "a usage member kept as sent (`RawJson`: newer CLIs add members) is read through its generated type",
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
    let found = found_in(&file, &TextReads);
    let found: Vec<(&str, &str)> = found.iter().map(|(f, w)| (f.as_str(), w.as_str())).collect();
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
