//! The internally tagged enums typify emits itself (`#[serde(tag = "...")]`, ACP's
//! `SessionUpdate`, Codex's `ThreadItem`), given what the dispatch unions have:
//!
//! - the same `TAG`, `TAGS` and `tag()`, read from the enum's serde attributes, so mapping code
//!   names a message's kind from the generated enum instead of a hand-written copy of its tags;
//! - when the enum holds a member marked as sent (`x-raw-json`, `as-sent.json`: a
//!   `agentwire_protocol::RawJson` or `Sent`, directly or in a type it holds), the dispatch
//!   unions' decoding in place of serde's derived one. serde buffers the whole object before it knows the
//!   variant and cannot hand a `RawValue` out of that buffer, so such a member would not decode.
//!   The generated `decode` reads the tag from the object's text and decodes the named variant's
//!   fields from the same text, through a struct of their own with their serde attributes;
//!   `Deserialize` calls it. The other enums keep serde's derive: applied to all 53 of them this
//!   decoding measured slower than serde's buffer (`PERFORMANCE.md`, "Tried and did not pay").
//!   An adjacently tagged enum (`tag` and `content`) is not buffered when its tag comes first.

use std::collections::BTreeSet;

use anyhow::{Context, Result};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::punctuated::Punctuated;

/// typify's output with every internally tagged enum given its tag accessors and, if it holds a
/// member marked as sent and is not adjacently tagged, the generated decoding in place of serde's.
pub fn rewrite(payloads: TokenStream) -> Result<TokenStream> {
    let mut file: syn::File = syn::parse2(payloads).context("parsing typify's output")?;
    let holding = holding_raw_json(&file);
    let mut code = TokenStream::new();
    for item in &mut file.items {
        let syn::Item::Enum(item) = item else { continue };
        let Some(tagging) = enum_tag(item)? else { continue };
        let mut values = Vec::new();
        for variant in &item.variants {
            let value = variant_tag(variant)
                .with_context(|| format!("variant {}::{}", item.ident, variant.ident))?
                .unwrap_or_else(|| variant.ident.to_string());
            values.push(value);
        }
        code.extend(accessors(item, &tagging.field, &values));
        if !tagging.adjacent && holding.contains(&item.ident.to_string()) {
            drop_derived_deserialize(item)?;
            code.extend(decoding(item, &tagging, &values));
        }
    }
    Ok(quote!(#file #code))
}

/// The structs and enums of `file` that hold a `RawJson` or a `Sent`, directly or through the
/// types of their fields.
fn holding_raw_json(file: &syn::File) -> BTreeSet<String> {
    // Each type with every identifier its fields' types name.
    let named: Vec<(String, BTreeSet<String>)> = file
        .items
        .iter()
        .filter_map(|item| {
            let (ident, fields): (_, Vec<&syn::Field>) = match item {
                syn::Item::Struct(item) => (&item.ident, item.fields.iter().collect()),
                syn::Item::Enum(item) => (&item.ident, item.variants.iter().flat_map(|v| &v.fields).collect()),
                _ => return None,
            };
            let mut names = BTreeSet::new();
            for field in fields {
                idents_in(field.ty.to_token_stream(), &mut names);
            }
            Some((ident.to_string(), names))
        })
        .collect();
    // `Sent` holds a `RawJson` too; out of serde's buffer it would decode, but not as sent.
    let mut holding = BTreeSet::from(["RawJson".to_string(), "Sent".to_string()]);
    loop {
        let before = holding.len();
        for (ident, names) in &named {
            if !names.is_disjoint(&holding) {
                holding.insert(ident.clone());
            }
        }
        if holding.len() == before {
            return holding;
        }
    }
}

fn idents_in(tokens: TokenStream, names: &mut BTreeSet<String>) {
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => {
                names.insert(ident.to_string());
            }
            proc_macro2::TokenTree::Group(group) => idents_in(group.stream(), names),
            _ => {}
        }
    }
}

/// How an enum's serde attributes tag it.
struct Tagging {
    field: String,
    /// `content` is set too: the variant's fields sit in a member of their own.
    adjacent: bool,
    deny_unknown_fields: bool,
}

fn accessors(item: &syn::ItemEnum, field: &str, values: &[String]) -> TokenStream {
    let name = &item.ident;
    let arms = item.variants.iter().zip(values).map(|(variant, value)| {
        let ident = &variant.ident;
        quote!(Self::#ident { .. } => #value,)
    });
    quote! {
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
    }
}

/// Takes `Deserialize` out of the enum's derives; its serde attributes stay for `Serialize`.
fn drop_derived_deserialize(item: &mut syn::ItemEnum) -> Result<()> {
    let mut found = false;
    for attr in &mut item.attrs {
        if !attr.path().is_ident("derive") {
            continue;
        }
        let derives = attr
            .parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
            .with_context(|| format!("the derives of {}", item.ident))?;
        let kept: Vec<&syn::Path> = derives
            .iter()
            .filter(|path| {
                let deserialize = path.segments.last().is_some_and(|last| last.ident == "Deserialize");
                found |= deserialize;
                !deserialize
            })
            .collect();
        *attr = syn::parse_quote!(#[derive( #( #kept ),* )]);
    }
    item.attrs.retain(
        |attr| !matches!(&attr.meta, syn::Meta::List(list) if list.path.is_ident("derive") && list.tokens.is_empty()),
    );
    anyhow::ensure!(
        found,
        "{} is internally tagged but does not derive Deserialize",
        item.ident
    );
    Ok(())
}

/// `decode`, and the `Deserialize` that calls it.
fn decoding(item: &syn::ItemEnum, tagging: &Tagging, values: &[String]) -> TokenStream {
    let name = &item.ident;
    let union = name.to_string();
    let tag_field = &tagging.field;
    let arms = item.variants.iter().zip(values).map(|(variant, value)| {
        let ident = &variant.ident;
        let syn::Fields::Named(fields) = &variant.fields else {
            // typify gives an internally tagged enum struct and unit variants only; a unit
            // variant, as with serde, ignores the object's other members.
            return quote!(#value => Self::#ident,);
        };
        let names: Vec<_> = fields.named.iter().map(|field| &field.ident).collect();
        let members = fields.named.iter().map(|field| {
            let serde = field.attrs.iter().filter(|attr| attr.path().is_ident("serde"));
            let (ident, ty) = (&field.ident, &field.ty);
            quote!( #( #serde )* #ident: #ty, )
        });
        // The tag is one of the object's members: a struct that denies unknown members names it.
        let (deny, tag_member) = if tagging.deny_unknown_fields {
            (
                quote!(#[serde(deny_unknown_fields)]),
                quote!(#[serde(rename = #tag_field)] _tag: ::serde::de::IgnoredAny,),
            )
        } else {
            (quote!(), quote!())
        };
        quote! {
            #value => {
                #[derive(::serde::Deserialize)]
                #deny
                struct Fields { #tag_member #( #members )* }
                let Fields { #( #names, )* .. } =
                    ::agentwire_protocol::tagged::decode_payload(json, #union, Self::TAG, #value, decoder)?;
                Self::#ident { #( #names ),* }
            }
        }
    });
    // An enum of unit variants never calls the decoder.
    let uses_decoder = !item.variants.iter().all(|v| matches!(v.fields, syn::Fields::Unit));
    let decode = super::tagged::decode_fn(&union, quote!(#( #arms )*), uses_decoder);
    let deserialize = super::tagged::deserialize_impl(name);
    quote! {
        impl #name {
            #decode
        }

        #deserialize
    }
}

/// The `tag` of the enum's `#[serde(...)]`, if it has one; refuses a `rename_all`, which would
/// make the variants' tags other than their names.
fn enum_tag(item: &syn::ItemEnum) -> Result<Option<Tagging>> {
    let mut tag = None;
    let mut adjacent = false;
    let mut deny_unknown_fields = false;
    for attr in item.attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                tag = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if meta.path.is_ident("rename_all") {
                return Err(meta.error("rename_all is not read for the tags"));
            } else if meta.path.is_ident("deny_unknown_fields") {
                deny_unknown_fields = true;
            } else if meta.input.peek(syn::Token![=]) {
                adjacent |= meta.path.is_ident("content");
                meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        })
        .with_context(|| format!("the serde attributes of {}", item.ident))?;
    }
    Ok(tag.map(|field| Tagging {
        field,
        adjacent,
        deny_unknown_fields,
    }))
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

    fn rewritten(payloads: proc_macro2::TokenStream) -> String {
        let file: syn::File = syn::parse2(super::rewrite(payloads).unwrap()).unwrap();
        // One space for every run of white space: the checks below are about tokens, not layout.
        prettyplease::unparse(&file)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// An internally tagged enum gets its tag field and each variant's tag (its `rename`, or its
    /// name without one). One that holds a `RawJson` (here through a struct) gets the generated
    /// `Deserialize`: each variant's fields decoded through a struct with their serde
    /// attributes. Another keeps serde's.
    #[test]
    fn an_internally_tagged_enum_gets_its_tags_and_decoding() {
        let code = rewritten(quote! {
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone)]
            #[serde(tag = "sessionUpdate")]
            pub enum Update {
                #[serde(rename = "tool_call")]
                ToolCall {
                    /// The call's id.
                    #[serde(rename = "toolCallId")]
                    id: String,
                    commands: Commands,
                },
                Plan,
            }
            pub struct Commands { list: ::std::option::Option<::agentwire_protocol::RawJson> }
            #[derive(::serde::Deserialize)]
            #[serde(tag = "type")]
            pub enum Plain { A { id: String } }
        });
        for expected in [
            "#[derive(::serde::Serialize, Clone)] #[serde(tag = \"sessionUpdate\")] pub enum Update",
            "#[derive(::serde::Deserialize)] #[serde(tag = \"type\")] pub enum Plain",
            "impl Plain { /// The field that names the variant.",
            "pub const TAG: &'static str = \"sessionUpdate\";",
            "pub const TAGS: &'static [&'static str] = &[\"tool_call\", \"Plan\"];",
            "Self::ToolCall { .. } => \"tool_call\",",
            "Self::Plan { .. } => \"Plan\",",
            "struct Fields { #[serde(rename = \"toolCallId\")] id: String, commands: Commands, }",
            "\"Plan\" => Self::Plan,",
            "impl<'de> ::serde::Deserialize<'de> for Update",
        ] {
            assert!(code.contains(expected), "{expected:?} not in:\n{code}");
        }
        assert_eq!(
            code.matches("The call's id").count(),
            1,
            "docs stay on the enum: {code}"
        );
        assert!(!code.contains("for Plain"), "{code}");
    }

    /// An enum that denies unknown members names its tag among its variants' fields; an
    /// adjacently tagged one keeps serde's derive.
    #[test]
    fn denied_members_and_adjacent_tags() {
        let code = rewritten(quote! {
            #[derive(::serde::Deserialize)]
            #[serde(tag = "type", deny_unknown_fields)]
            pub enum Strict { A { x: RawJson } }
            #[derive(::serde::Deserialize)]
            #[serde(tag = "type", content = "data")]
            pub enum Adjacent { B(u8) }
        });
        assert!(code.contains("#[serde(deny_unknown_fields)]"), "{code}");
        assert!(
            code.contains("#[serde(rename = \"type\")] _tag: ::serde::de::IgnoredAny, x: RawJson,"),
            "{code}"
        );
        assert!(
            code.contains("#[serde(tag = \"type\", deny_unknown_fields)] pub enum Strict"),
            "{code}"
        );
        assert!(
            code.contains("#[derive(::serde::Deserialize)] #[serde(tag = \"type\", content = \"data\")]"),
            "{code}"
        );
        assert!(!code.contains("for Adjacent"), "{code}");
        assert!(code.contains("impl Adjacent"), "{code}");
    }

    #[test]
    fn a_rename_all_is_refused() {
        let payloads = quote! {
            #[serde(tag = "type", rename_all = "snake_case")]
            pub enum Renamed { ToolCall }
        };
        let err = format!("{:#}", super::rewrite(payloads).unwrap_err());
        assert!(err.contains("rename_all"), "{err}");
    }
}
