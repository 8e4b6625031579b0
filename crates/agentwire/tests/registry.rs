//! A source is named in one place: its line in the facade's registry (`src/source.rs`). The hosts
//! (the CLI, the Node addon) and the facade's other code go through [`Source`] and name none:
//! no `Source::CODEX_EXEC`-like constant, no source name as a string, outside tests.

use std::path::{Path, PathBuf};

use agentwire::Source;
use syn::visit::Visit;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

/// What names a source in a file's code outside `#[cfg(test)]` modules.
struct Names<'a> {
    known: &'a [&'static str],
    found: Vec<String>,
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let test = item
            .attrs
            .iter()
            .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|arg| arg == "test"));
        if !test {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        let value = lit.value();
        if self.known.contains(&value.as_str()) {
            self.found.push(format!("the string {value:?}"));
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let [.., ty, konst] = names.as_slice()
            && ty == "Source"
            && konst != "ALL"
            && konst.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        {
            self.found.push(format!("Source::{konst}"));
        }
        syn::visit::visit_path(self, path);
    }
}

/// Where a file outside the registry names a source, as `file: what`.
fn names_in(files: &[PathBuf]) -> Vec<String> {
    let known = Source::names();
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).expect("a source file");
        let file = syn::parse_file(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let mut names = Names {
            known: &known,
            found: Vec::new(),
        };
        names.visit_file(&file);
        found.extend(
            names
                .found
                .into_iter()
                .map(|what| format!("{}: {what}", path.display())),
        );
    }
    found
}

#[test]
fn no_host_names_a_source() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["agentwire/src", "agentwire-cli/src", "agentwire-node/src"] {
        rust_files(&crates.join(dir), &mut files);
    }
    files.retain(|path| !path.ends_with("agentwire/src/source.rs"));
    assert!(files.len() > 10, "{files:?}");
    let found = names_in(&files);
    assert!(
        found.is_empty(),
        "a source is named outside the registry (go through `Source` and its spec instead):\n{}",
        found.join("\n")
    );
}

/// The check finds both ways of naming a source, and nothing in a test module.
#[test]
fn a_constant_and_a_name_are_found() {
    let dir = std::env::temp_dir().join(format!("agentwire-registry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("host.rs");
    let name = Source::ALL[0].name();
    std::fs::write(
        &file,
        format!(
            "fn a() {{ let s = Source::SOME_SOURCE; let all = Source::ALL; }}\n\
             fn b() {{ run({name:?}); }}\n\
             #[cfg(test)] mod tests {{ fn c() {{ run({name:?}); }} }}"
        ),
    )
    .unwrap();
    let found = names_in(std::slice::from_ref(&file));
    std::fs::remove_dir_all(&dir).unwrap();
    let found: Vec<String> = found
        .iter()
        .map(|what| what.rsplit(": ").next().unwrap().to_string())
        .collect();
    assert_eq!(
        found,
        ["Source::SOME_SOURCE".to_string(), format!("the string {name:?}")]
    );
}
