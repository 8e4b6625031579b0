//! The core opens and ends turns: a source says a turn starts or ends, and with what
//! (`Ledger::start_turn`, `complete_turn`, `abort_turn`), and the ledger builds `turn.started`,
//! `turn.completed` and `turn.aborted` with the session state they imply. No source crate
//! (`crates/sources/*`) builds one of those events itself, outside its tests.

mod source_files;

use std::collections::BTreeSet;

use source_files::{Look, found_in, source_modules};

/// The `RuntimeEvent` variants only the core builds.
const TURN_EVENTS: [&str; 3] = ["TurnStarted", "TurnCompleted", "TurnAborted"];

/// Where a source module names a turn event's variant as a value (to build it) or imports it.
struct TurnEvents;

/// The path `names` if it is a turn event's variant (`RuntimeEvent::TurnStarted`, or
/// `RuntimeEvent::*` in an import).
fn turn_event(names: &[String]) -> Option<String> {
    let [.., enum_name, variant] = names else {
        return None;
    };
    (enum_name == "RuntimeEvent" && (TURN_EVENTS.contains(&variant.as_str()) || variant == "*"))
        .then(|| names.join("::"))
}

/// The paths a `use` tree imports, each as its segments.
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, into: &mut Vec<Vec<String>>) {
    let leaf = |prefix: &[String], last: String| [prefix, &[last]].concat();
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, into);
            prefix.pop();
        }
        syn::UseTree::Name(name) => into.push(leaf(prefix, name.ident.to_string())),
        syn::UseTree::Rename(rename) => into.push(leaf(prefix, rename.ident.to_string())),
        syn::UseTree::Glob(_) => into.push(leaf(prefix, "*".to_string())),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_paths(tree, prefix, into);
            }
        }
    }
}

impl Look for TurnEvents {
    /// `RuntimeEvent::TurnStarted(payload)`, or the variant passed as a function: an expression,
    /// not a pattern (a source may read a turn event, as a match arm does).
    fn expr_path(&self, path: &syn::ExprPath, found: &mut Vec<String>) {
        let names: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
        found.extend(turn_event(&names));
    }

    /// An import of the variant, which would let it be built by its bare name.
    fn item_use(&self, item: &syn::ItemUse, found: &mut Vec<String>) {
        let mut paths = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut paths);
        found.extend(paths.iter().filter_map(|names| turn_event(names)));
    }
}

/// What a piece of Rust builds of the turn events, as (function, path).
fn turn_events_in(file: &syn::File) -> BTreeSet<(String, String)> {
    found_in(file, &TurnEvents)
}

#[test]
fn no_source_builds_a_turn_event() {
    let mut built = Vec::new();
    for (module, path) in source_modules() {
        let text = std::fs::read_to_string(&path).expect("a source file");
        let file = syn::parse_file(&text).unwrap_or_else(|err| panic!("{module}: {err}"));
        built.extend(
            turn_events_in(&file)
                .into_iter()
                .map(|(function, path)| (module.clone(), function, path)),
        );
    }
    assert!(
        built.is_empty(),
        "a source builds a turn event itself (say the turn's start or end to the ledger: \
         Ledger::start_turn, complete_turn, abort_turn): {built:#?}"
    );
}

#[test]
fn turn_events_are_found_where_built_and_imported_not_where_read() {
    let file = syn::parse_file(
        "use agentwire_canonical::RuntimeEvent::{self, TurnAborted};\n\
         fn a(l: &mut Ledger) { l.emit(&c, RuntimeEvent::TurnStarted(p), out); }\n\
         impl X { fn b(&self) { Some(p).map(RuntimeEvent::TurnCompleted); } }\n\
         fn c(e: &RuntimeEvent) -> bool { matches!(e, RuntimeEvent::TurnStarted(_)) || \
         match e { RuntimeEvent::TurnCompleted(_) => true, _ => false } }\n\
         fn d() { RuntimeEvent::ItemStarted(p); }\n\
         #[cfg(test)] mod tests { fn e() { RuntimeEvent::TurnAborted(p); } }",
    )
    .expect("Rust");
    let found: Vec<(String, String)> = turn_events_in(&file).into_iter().collect();
    let expected = [
        ("", "agentwire_canonical::RuntimeEvent::TurnAborted"),
        ("a", "RuntimeEvent::TurnStarted"),
        ("b", "RuntimeEvent::TurnCompleted"),
    ];
    assert_eq!(
        found,
        expected.map(|(function, path)| (function.to_string(), path.to_string()))
    );
}
