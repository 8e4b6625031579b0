//! What every generated Rust crate shares: the formatted `lib.rs` and the `Cargo.toml`.

use std::path::Path;

use anyhow::Result;
use proc_macro2::TokenStream;

use super::GeneratedFile;

/// Formats `tokens` with prettyplease under the generated-by header and the crate's inner
/// attributes (`inner`, written verbatim because prettyplease drops comments).
pub fn lib_rs(crate_dir: &Path, source: &str, inner: &str, tokens: TokenStream) -> Result<GeneratedFile> {
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(file) => file,
        Err(err) => {
            // Keep the unparsable tokens where a developer can look at them.
            let dump = std::env::temp_dir().join("agentwire-codegen-unparsable.rs");
            std::fs::write(&dump, tokens.to_string())?;
            anyhow::bail!("generated code for {} does not parse: {err} (tokens in {})", crate_dir.display(), dump.display())
        }
    };
    let body = prettyplease::unparse(&file);
    Ok(GeneratedFile {
        path: crate_dir.join("src/lib.rs"),
        contents: format!("{}{inner}\n{body}", super::header("//", source)),
    })
}

/// The crate manifest: publishable on its own, depending on serde and serde_json only.
pub fn cargo_toml(crate_dir: &Path, package: &str, description: &str) -> GeneratedFile {
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
