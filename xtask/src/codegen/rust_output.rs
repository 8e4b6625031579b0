//! What every generated Rust crate shares: `Cargo.toml`, a small `lib.rs` and the formatted code.
//!
//! The code goes to `src/generated.rs`, declared `#[rustfmt::skip]` from `lib.rs`: it is
//! formatted by prettyplease, whose layout differs from rustfmt's, and `cargo fmt --check` over
//! the workspace must stay clean without reformatting generated files.

use std::path::Path;

use anyhow::Result;
use proc_macro2::TokenStream;

use super::GeneratedFile;

/// The three files of a generated crate. `inner` holds the crate docs and inner attributes,
/// written verbatim into `lib.rs` because prettyplease drops comments.
pub fn crate_files(
    crate_dir: &Path,
    package: &str,
    description: &str,
    source: &str,
    inner: &str,
    tokens: TokenStream,
) -> Result<Vec<GeneratedFile>> {
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(file) => file,
        Err(err) => {
            // Keep the unparsable tokens where a developer can look at them.
            let dump = std::env::temp_dir().join("agentwire-codegen-unparsable.rs");
            std::fs::write(&dump, tokens.to_string())?;
            anyhow::bail!(
                "generated code for {} does not parse: {err} (tokens in {})",
                crate_dir.display(),
                dump.display()
            )
        }
    };
    let header = super::header("//", source);
    Ok(vec![
        cargo_toml(crate_dir, package, description),
        GeneratedFile {
            path: crate_dir.join("src/lib.rs"),
            contents: format!("{header}{inner}\n#[rustfmt::skip]\nmod generated;\n\npub use generated::*;\n"),
        },
        GeneratedFile {
            path: crate_dir.join("src/generated.rs"),
            contents: format!("{header}{}", prettyplease::unparse(&file)),
        },
    ])
}

/// The crate manifest: depends on serde and serde_json only.
fn cargo_toml(crate_dir: &Path, package: &str, description: &str) -> GeneratedFile {
    GeneratedFile {
        path: crate_dir.join("Cargo.toml"),
        contents: format!(
            r#"{header}[package]
name = "{package}"
description = "{description}"
version.workspace = true
edition.workspace = true
rust-version.workspace = true
license.workspace = true

[lib]
# Schema prose is not Rust: doc comments carry no runnable examples.
doctest = false

[dependencies]
serde = {{ version = "1.0.228", features = ["derive"] }}
serde_json = {{ version = "1.0.150", features = ["raw_value"] }}
"#,
            header = super::header("#", "schemas/"),
        ),
    }
}
