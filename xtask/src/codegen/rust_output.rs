//! What every generated Rust crate shares: `Cargo.toml`, a small `lib.rs` and the formatted code.
//!
//! The code goes to `src/generated.rs`, declared `#[rustfmt::skip]` from `lib.rs`: it is
//! formatted by prettyplease, whose layout differs from rustfmt's, and `cargo fmt --check` over
//! the workspace must stay clean without reformatting generated files.

use std::path::{Path, PathBuf};

use anyhow::Result;
use proc_macro2::TokenStream;

use super::GeneratedFile;

/// The `agentwire-protocol` version generated crates depend on (with a path inside the workspace).
const PROTOCOL_VERSION: &str = "0.1.0";

/// A generated crate.
pub struct Crate<'a> {
    /// The crate folder, relative to the workspace root.
    pub dir: &'a Path,
    pub package: &'a str,
    /// The package description.
    pub description: &'a str,
    /// What the header says the crate was generated from.
    pub source: &'a str,
    /// Crate docs and inner attributes, written verbatim at the top of `lib.rs` (prettyplease drops
    /// comments, so they cannot travel in the tokens).
    pub inner: &'a str,
    /// Items of `lib.rs` after `pub use generated::*;` (re-exports, modules).
    pub lib_items: &'a str,
    /// Whether the crate uses the `agentwire-protocol` runtime.
    pub protocol: bool,
}

/// Parses generated tokens; unparsable tokens are kept in a temp file for a developer to read.
pub fn parse(crate_dir: &str, tokens: TokenStream) -> Result<syn::File> {
    match syn::parse2(tokens.clone()) {
        Ok(file) => Ok(file),
        Err(err) => {
            let dump = std::env::temp_dir().join("agentwire-codegen-unparsable.rs");
            std::fs::write(&dump, tokens.to_string())?;
            anyhow::bail!(
                "generated code for {crate_dir} does not parse: {err} (tokens in {})",
                dump.display()
            )
        }
    }
}

/// The formatted code of `file`, under the generated header.
pub fn format(source: &str, file: &syn::File) -> String {
    format!("{}{}", super::header("//", source), prettyplease::unparse(file))
}

/// `Cargo.toml`, `src/lib.rs` and `src/generated.rs` of a generated crate.
pub fn crate_files(spec: &Crate<'_>, file: &syn::File) -> Vec<GeneratedFile> {
    let header = super::header("//", spec.source);
    vec![
        cargo_toml(spec),
        GeneratedFile {
            path: spec.dir.join("src/lib.rs"),
            contents: format!(
                "{header}{}\n#[rustfmt::skip]\nmod generated;\n\npub use generated::*;\n{}",
                spec.inner, spec.lib_items
            ),
        },
        GeneratedFile {
            path: spec.dir.join("src/generated.rs"),
            contents: format(spec.source, file),
        },
    ]
}

/// The re-exports of a protocol crate's `lib.rs`: the runtime its unions use, under the paths
/// users of the crate had before it moved to `agentwire-protocol`.
pub const PROTOCOL_REEXPORTS: &str = "
pub use agentwire_protocol::{
    DecodeError, ErrorObject, MessageKind, PayloadDecoder, PayloadError, RawEnvelope, RawJson, RequestId, SerdeJson,
    TagDecodeError,
};
";

/// The crate manifest: serde and serde_json, and `agentwire-protocol` if the crate uses it.
fn cargo_toml(spec: &Crate<'_>) -> GeneratedFile {
    let protocol = if spec.protocol {
        let path = relative_to_root(spec.dir).join("crates/agentwire-protocol");
        format!(
            "agentwire-protocol = {{ version = \"{PROTOCOL_VERSION}\", path = \"{}\" }}\n",
            path.display()
        )
    } else {
        String::new()
    };
    GeneratedFile {
        path: spec.dir.join("Cargo.toml"),
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
{protocol}"#,
            header = super::header("#", "schemas/"),
            package = spec.package,
            description = spec.description,
        ),
    }
}

/// `../..` for `generated/x`: the way back to the workspace root.
fn relative_to_root(dir: &Path) -> PathBuf {
    dir.components().map(|_| "..").collect()
}
