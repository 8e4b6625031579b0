//! The tag accessors of the internally tagged enums typify emits itself
//! (`#[serde(tag = "...")]`, ACP's `SessionUpdate`, Codex's `ThreadItem`): the same `TAG`,
//! `TAGS` and `tag()` the dispatch unions have, read from the enum's serde attributes, so mapping
//! code names a message's kind from the generated enum instead of a hand-written copy of its tags.

use anyhow::{Context, Result};
use proc_macro2::TokenStream;
use quote::quote;

/// One `impl` with `TAG`, `TAGS` and `tag()` for every internally tagged enum in `payloads`.
pub fn emit(payloads: &TokenStream) -> Result<TokenStream> {
    let file: syn::File = syn::parse2(payloads.clone()).context("parsing typify's output")?;
    let mut code = TokenStream::new();
    for item in &file.items {
        let syn::Item::Enum(item) = item else { continue };
        let Some(field) = enum_tag(item)? else { continue };
        let name = &item.ident;
        let mut values = Vec::new();
        let mut arms = Vec::new();
        for variant in &item.variants {
            let value = variant_tag(variant)
                .with_context(|| format!("variant {name}::{}", variant.ident))?
                .unwrap_or_else(|| variant.ident.to_string());
            let ident = &variant.ident;
            arms.push(quote!(Self::#ident { .. } => #value,));
            values.push(value);
        }
        code.extend(quote! {
            impl #name {
                /// The field that names the variant.
                pub const TAG: &'static str = #field;

                /// Every value of [`Self::TAG`] this union knows, in schema order.
                pub const TAGS: &'static [&'static str] = &[ #( #values ),* ];

                /// The value of [`Self::TAG`] this message carries.
                pub fn tag(&self) -> &'static str {
                    match self { #( #arms )* }
                }
            }
        });
    }
    Ok(code)
}

/// The `tag` of the enum's `#[serde(...)]`, if it has one; refuses a `rename_all`, which would
/// make the variants' tags other than their names.
fn enum_tag(item: &syn::ItemEnum) -> Result<Option<String>> {
    let mut tag = None;
    for attr in item.attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                tag = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if meta.path.is_ident("rename_all") {
                return Err(meta.error("rename_all is not read for the tags"));
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        })
        .with_context(|| format!("the serde attributes of {}", item.ident))?;
    }
    Ok(tag)
}

/// The `rename` of the variant's `#[serde(...)]`, if it has one; refuses what would make its tag
/// other than that (`alias`, `other`, `untagged`).
fn variant_tag(variant: &syn::Variant) -> Result<Option<String>> {
    let mut rename = None;
    for attr in variant.attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                rename = Some(meta.value()?.parse::<syn::LitStr>()?.value());
                Ok(())
            } else if ["alias", "other", "untagged"].iter().any(|key| meta.path.is_ident(key)) {
                Err(meta.error("a variant with more than one tag"))
            } else {
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                }
                Ok(())
            }
        })?;
    }
    Ok(rename)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// An internally tagged enum gets its tag field and each variant's tag (its `rename`, or its
    /// name without one); other enums get nothing.
    #[test]
    fn tags_are_read_from_the_serde_attributes() {
        let payloads = quote! {
            #[serde(tag = "sessionUpdate")]
            pub enum Update {
                #[serde(rename = "tool_call")]
                ToolCall { id: String },
                Plan,
            }
            pub enum Plain { A }
        };
        let code = super::emit(&payloads).unwrap().to_string();
        let expected = quote! {
            impl Update {
                /// The field that names the variant.
                pub const TAG: &'static str = "sessionUpdate";

                /// Every value of [`Self::TAG`] this union knows, in schema order.
                pub const TAGS: &'static [&'static str] = &["tool_call", "Plan"];

                /// The value of [`Self::TAG`] this message carries.
                pub fn tag(&self) -> &'static str {
                    match self {
                        Self::ToolCall { .. } => "tool_call",
                        Self::Plan { .. } => "Plan",
                    }
                }
            }
        };
        assert_eq!(code, expected.to_string());
    }

    #[test]
    fn a_rename_all_is_refused() {
        let payloads = quote! {
            #[serde(tag = "type", rename_all = "snake_case")]
            pub enum Renamed { ToolCall }
        };
        let err = format!("{:#}", super::emit(&payloads).unwrap_err());
        assert!(err.contains("rename_all"), "{err}");
    }
}
