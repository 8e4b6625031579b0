//! The Node addon's `Source` type from the facade's registry: the `registry!` invocation in
//! `crates/agentwire/src/source.rs` in, `crates/agentwire-node/sources.d.ts` out. The registry is
//! where a source is named; the addon's TypeScript declarations read it from there, so a new
//! source is one line in the registry and not a second one in `index.d.ts`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use proc_macro2::{TokenStream, TokenTree};

use super::GeneratedFile;

pub(super) const REGISTRY_PATH: &str = "crates/agentwire/src/source.rs";
pub(super) const OUTPUT_PATH: &str = "crates/agentwire-node/sources.d.ts";

pub fn generate(root: &Path) -> Result<Vec<GeneratedFile>> {
    let path = root.join(REGISTRY_PATH);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let names = registry_names(&text).with_context(|| format!("reading the registry in {REGISTRY_PATH}"))?;
    let mut contents = super::header("//", REGISTRY_PATH);
    contents.push_str(
        "\n/**\n * A provider protocol, as `agentwire normalize --from` names it: the names of the \
         `registry!`\n * of `agentwire::source`, in the order format detection tries them.\n */\n\
         export type Source =\n",
    );
    for (at, name) in names.iter().enumerate() {
        let end = if at + 1 == names.len() { ";" } else { "" };
        writeln!(contents, "  | \"{name}\"{end}").expect("writing to a String");
    }
    Ok(vec![GeneratedFile {
        path: PathBuf::from(OUTPUT_PATH),
        contents,
    }])
}

/// The source names of the `registry!` invocation in `text`, in order: the string literal after
/// each `CONST =`.
fn registry_names(text: &str) -> Result<Vec<String>> {
    let file = syn::parse_file(text)?;
    let mut registries = file.items.iter().filter_map(|item| match item {
        syn::Item::Macro(item) if item.mac.path.is_ident("registry") => Some(item.mac.tokens.clone()),
        _ => None,
    });
    let (Some(tokens), None) = (registries.next(), registries.next()) else {
        bail!("expected one `registry! {{ ... }}` invocation");
    };
    let names = names_after_equals(tokens)?;
    if names.is_empty() {
        bail!("the registry names no source");
    }
    Ok(names)
}

/// Each string literal that follows a `=` at the top level of `tokens`.
fn names_after_equals(tokens: TokenStream) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let mut after_equals = false;
    for token in tokens {
        match &token {
            TokenTree::Punct(punct) if punct.as_char() == '=' => after_equals = true,
            TokenTree::Literal(literal) if after_equals => {
                let name: syn::LitStr = syn::parse2(TokenStream::from(token.clone()))
                    .with_context(|| format!("`= {literal}`: a source's name is a string"))?;
                names.push(name.value());
                after_equals = false;
            }
            _ => after_equals = false,
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::registry_names;

    #[test]
    fn the_names_are_read_in_registry_order() {
        let text = r#"
            registry! {
                /// Doc.
                B_SOURCE = "b-source" if "b" => crate_b::SOURCE;
                A = "a" if "a-feature" => crate_a::SOURCE;
            }
        "#;
        assert_eq!(registry_names(text).unwrap(), ["b-source", "a"]);
    }

    #[test]
    fn a_missing_or_doubled_registry_is_an_error() {
        assert!(registry_names("fn main() {}").is_err());
        let twice = "registry! { A = \"a\" if \"a\" => a::S; }\nregistry! { B = \"b\" if \"b\" => b::S; }";
        assert!(registry_names(twice).is_err());
    }
}
