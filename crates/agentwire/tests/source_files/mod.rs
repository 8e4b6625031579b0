//! The source crates' modules, for the tests that read their code (`text_reads.rs`,
//! `turn_events.rs`), and the walk both make over them: what a [`Look`] finds, by the function
//! it is in, outside test modules.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Every `.rs` file under `dir`, as (module path like `codex::app_server::requests`, file); a
/// crate's `lib.rs` is the module `prefix` itself.
fn modules(dir: &Path, prefix: &str, into: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        let stem = path.file_stem().expect("a name").to_string_lossy().into_owned();
        if path.is_dir() {
            modules(&path, &format!("{prefix}::{stem}"), into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let module = if stem == "lib" {
                prefix.to_string()
            } else {
                format!("{prefix}::{stem}")
            };
            into.push((module, path));
        }
    }
}

/// Every module of every source crate, named `<crate folder>::<module path>`.
pub fn source_modules() -> Vec<(String, PathBuf)> {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sources");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&sources).expect("crates/sources") {
        let dir = entry.expect("an entry").path();
        let name = dir.file_name().expect("a name").to_string_lossy().into_owned();
        modules(&dir.join("src"), &name, &mut files);
    }
    files.sort();
    files
}

/// What a test looks for in a piece of Rust: each hook pushes a description of what it found.
/// Hooks it does not define find nothing.
pub trait Look {
    /// A path used as a value (`RuntimeEvent::TurnStarted` built or passed as a function).
    fn expr_path(&self, _path: &syn::ExprPath, _found: &mut Vec<String>) {}
    /// A call of a function by its path (`serde_json::from_str(..)`).
    fn expr_call(&self, _call: &syn::ExprCall, _found: &mut Vec<String>) {}
    /// A method call (`raw.payload.get()`).
    fn expr_method_call(&self, _call: &syn::ExprMethodCall, _found: &mut Vec<String>) {}
    /// An import.
    fn item_use(&self, _item: &syn::ItemUse, _found: &mut Vec<String>) {}
}

/// What `look` finds in `file`, as (the enclosing function, what), outside `#[cfg(test)]`
/// modules; the function is empty for what stands outside any.
pub fn found_in(file: &syn::File, look: &impl Look) -> BTreeSet<(String, String)> {
    let mut walk = Walk {
        look,
        functions: Vec::new(),
        found: BTreeSet::new(),
    };
    walk.visit_file(file);
    walk.found
}

struct Walk<'l, L> {
    look: &'l L,
    /// The enclosing functions, innermost last.
    functions: Vec<String>,
    found: BTreeSet<(String, String)>,
}

impl<L: Look> Walk<'_, L> {
    fn record(&mut self, found: Vec<String>) {
        let function = self.functions.last().cloned().unwrap_or_default();
        self.found
            .extend(found.into_iter().map(|what| (function.clone(), what)));
    }
}

impl<'ast, L: Look> Visit<'ast> for Walk<'_, L> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_module(item) {
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

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        let mut found = Vec::new();
        self.look.expr_path(path, &mut found);
        self.record(found);
        syn::visit::visit_expr_path(self, path);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        let mut found = Vec::new();
        self.look.expr_call(call, &mut found);
        self.record(found);
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let mut found = Vec::new();
        self.look.expr_method_call(call, &mut found);
        self.record(found);
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut found = Vec::new();
        self.look.item_use(item, &mut found);
        self.record(found);
        syn::visit::visit_item_use(self, item);
    }
}

/// Whether a module is compiled for tests only (`#[cfg(test)]`): what it builds feeds a test and
/// is no part of the mapping.
fn is_test_module(item: &syn::ItemMod) -> bool {
    item.attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|arg| arg == "test"))
}
