//! The mapping crate's modules import each other in one direction only: the shared core (ids,
//! clock, frame, emitter, ledger, the source list) never imports a source module, and no two
//! modules import each other, directly or through others.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// The modules a file imports with `use crate::…` or `use super::…`, as crate paths.
fn imports(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let parent: Vec<&str> = module.split("::").collect();
    let mut found = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        let Some(path) = line.strip_prefix("use ").or_else(|| line.strip_prefix("pub use ")) else {
            continue;
        };
        let resolved = if let Some(rest) = path.strip_prefix("crate::") {
            rest.to_string()
        } else if let Some(rest) = path.strip_prefix("super::") {
            let base = parent[..parent.len() - 1].join("::");
            if base.is_empty() {
                rest.to_string()
            } else {
                format!("{base}::{rest}")
            }
        } else {
            continue;
        };
        // The longest known module the path starts with.
        let segments: Vec<&str> = resolved.split("::").collect();
        for len in (1..=segments.len()).rev() {
            let candidate = segments[..len].join("::");
            if known.contains(&candidate) {
                if candidate != module {
                    found.insert(candidate);
                }
                break;
            }
        }
    }
    found
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
    let known: BTreeSet<String> = files.iter().map(|(module, _)| module.clone()).collect();
    files
        .iter()
        .map(|(module, path)| {
            let text = std::fs::read_to_string(path).expect("a source file");
            (module.clone(), imports(module, &text, &known))
        })
        .collect()
}

#[test]
fn module_imports_have_no_cycle() {
    let graph = graph();
    assert!(graph["codex_app_server::requests"].contains("codex_app_server::normalizer"));
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn the_core_imports_no_source_module() {
    let graph = graph();
    let core = [
        "ids",
        "clock",
        "frame",
        "emit",
        "ledger",
        "source",
        "normalizer",
        "decision",
        "answer",
        "decode",
        "canonicalize",
    ];
    for module in core {
        let outside: Vec<&String> = graph[module]
            .iter()
            .filter(|dep| !core.contains(&dep.as_str()))
            .collect();
        assert!(outside.is_empty(), "core module `{module}` imports {outside:?}");
    }
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
