//! Dispatch unions: a message's kind is named by one field (the JSON-RPC `method`, or a tag
//! field like `type`), and each kind has its own payload type. typify would make such a union
//! `#[serde(untagged)]` (trial and error, useless errors) or internally tagged (buffers the whole
//! message, cannot hold a `RawValue`), so the generator takes these unions out of typify's hands
//! and emits them itself:
//!
//! - one named variant per method or tag value, and a `METHODS`/`TAGS` list;
//! - envelope-first decoding: the routing field is read, the payload kept as raw JSON, and only
//!   the type the routing names is decoded, through the caller's
//!   `agentwire_protocol::PayloadDecoder`; an unknown method or tag value is an error that names
//!   it (and the known ones);
//! - a hand-written `Serialize` that writes the routing field back.
//!
//! Unions come from the schema's `x-dispatch` annotations ([`annotation`], documented in
//! `schemas/README.md`) or from a source's own reading of its schema (Codex's method unions);
//! both produce the [`Union`] model below. [`jsonrpc`] and [`tagged`] emit the two styles.
//!
//! The internally tagged enums typify keeps (`#[serde(tag = ...)]`, whose variants serde tells
//! apart by the tag alone) get the same `TAG`, `TAGS` and `tag()` and the same tag-first decoding
//! from [`serde_tagged`], read from typify's output.

pub mod annotation;
mod jsonrpc;
pub mod results;
pub mod serde_tagged;
mod tagged;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// One dispatch union.
pub struct Union {
    /// The definition's name in the schema (used in messages).
    pub name: String,
    /// The Rust type.
    pub ident: Ident,
    pub description: Option<String>,
    pub style: Style,
    pub variants: Vec<Variant>,
}

/// How a message names its kind.
pub enum Style {
    /// JSON-RPC: `method`, `params`, and `id` on requests.
    JsonRpc {
        kind: RpcKind,
        /// Members beside the JSON-RPC ones that every message of the union may carry (Codex's
        /// `emittedAtMs`); integers only.
        shared: Vec<SharedField>,
        /// The `jsonrpc` member `Serialize` writes first (`"2.0"`), if the protocol sends one.
        version: Option<String>,
    },
    /// A string field of the message object itself (`type`, `subtype`).
    Tag { field: String },
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RpcKind {
    Request,
    Notification,
}

pub struct SharedField {
    pub wire: String,
    pub ident: Ident,
    pub description: Option<String>,
}

pub struct Variant {
    /// The method or tag value.
    pub value: String,
    pub ident: Ident,
    pub description: Option<String>,
    pub payload: Payload,
}

/// What a variant holds besides its routing.
pub enum Payload {
    /// The payload type (JSON-RPC `params`; for a tag union, the whole object minus the tag).
    Required(Ident),
    /// JSON-RPC `params` that may be absent.
    Optional(Ident),
    /// JSON-RPC without `params`.
    Absent,
    /// A tag union whose variant is itself a tag union (Claude's `type` then `subtype`).
    Nested(Ident),
    /// A tag union's variant whose object holds nothing but its tags (`{"type": "turn.started"}`).
    TagOnly,
    /// A required payload the mapping also copies as sent (`as-sent.json`): held as
    /// `agentwire_protocol::Sent<T>`, the typed value with its text. A tag union's payload text is
    /// the object without its tags, as its type is.
    Sent(Ident),
}

/// The code of every union, in order.
pub fn emit(unions: &[Union]) -> TokenStream {
    let code = unions.iter().map(|union| match &union.style {
        Style::JsonRpc { kind, shared, version } => jsonrpc::emit(union, *kind, shared, version.as_deref()),
        Style::Tag { field } => tagged::emit(union, field, &tags_above(union, unions)),
    });
    quote!(#(#code)*)
}

/// The tag fields of the unions `union` is nested in, outermost first.
fn tags_above(union: &Union, unions: &[Union]) -> Vec<String> {
    let outer = unions.iter().find(|outer| {
        outer
            .variants
            .iter()
            .any(|variant| matches!(&variant.payload, Payload::Nested(inner) if *inner == union.ident))
    });
    match outer {
        Some(
            outer @ Union {
                style: Style::Tag { field },
                ..
            },
        ) => {
            let mut tags = tags_above(outer, unions);
            tags.push(field.clone());
            tags
        }
        _ => Vec::new(),
    }
}
