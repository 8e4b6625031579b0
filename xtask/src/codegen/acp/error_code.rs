//! `ErrorCode`: JSON-RPC and ACP error codes, an open set of integers (agents answer with
//! others: gemini-cli sends the HTTP status). typify makes the schema's `anyOf` of `const`s and
//! a plain integer a struct of flattened options that decodes no integer at all, so the type is
//! a newtype over the code, with the documented codes as constants read from the schema.

use anyhow::{Context, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::codegen::docs::{doc_lines, optional_doc};
use crate::codegen::names::pascal_case;

/// The type that stands for `ErrorCode` (the definition stays, replaced when typify meets it).
pub fn take(definitions: &Map<String, Value>) -> Result<TokenStream> {
    let schema = definitions
        .get("ErrorCode")
        .context("definition ErrorCode is missing")?;
    let branches = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .context("ErrorCode: no `anyOf`")?;
    let mut constants = Vec::new();
    for branch in branches {
        let Some(code) = branch.get("const").and_then(Value::as_i64) else {
            continue;
        };
        let title = branch
            .get("title")
            .and_then(Value::as_str)
            .context("ErrorCode: a code has no title")?;
        let name = format_ident!("{}", snake_upper(title));
        let code = i32::try_from(code).context("ErrorCode: a code is not an i32")?;
        let doc = optional_doc(branch.get("description").and_then(Value::as_str));
        constants.push(quote! { #doc pub const #name: Self = Self(#code); });
    }
    let doc = doc_lines(schema.get("description").and_then(Value::as_str).unwrap_or_default());
    Ok(quote! {
        #doc
        ///
        /// Any integer decodes: the constants are the codes the schema documents.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(transparent)]
        pub struct ErrorCode(pub i32);

        impl ErrorCode {
            #( #constants )*
        }
    })
}

/// `Method not found` -> `METHOD_NOT_FOUND`.
fn snake_upper(title: &str) -> String {
    pascal_case(title)
        .chars()
        .enumerate()
        .fold(String::new(), |mut out, (i, c)| {
            if i > 0 && c.is_ascii_uppercase() {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
            out
        })
}
