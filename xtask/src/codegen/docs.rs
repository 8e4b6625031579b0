//! Doc comments from schema prose.

use proc_macro2::TokenStream;
use quote::quote;

/// `#[doc]` attributes, one per line of `text` (trimmed at both ends, trailing spaces dropped).
/// prettyplease prints them as `///` comments.
pub fn doc_lines(text: &str) -> TokenStream {
    let lines = text.trim().lines().map(|line| {
        let line = line.trim_end();
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#[doc = #line])
    });
    quote!(#(#lines)*)
}

/// [`doc_lines`] of a description that may be absent.
pub fn optional_doc(text: Option<&str>) -> TokenStream {
    text.map(doc_lines).unwrap_or_default()
}

/// The `description` of a schema, if it has one.
pub fn description(schema: &serde_json::Value) -> Option<String> {
    schema
        .get("description")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}
