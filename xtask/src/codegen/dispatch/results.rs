//! The method -> response table of a JSON-RPC request union: `<Union>Result`, one variant per
//! method holding the reply's type, decoded once the method of the request it answers is known
//! (a reply names no method). Sources build the table their own way (Codex by naming rules, ACP
//! from `x-method`) and emit it here.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// A request union's responses, by variant, in variant order.
pub struct Responses {
    /// The request union.
    pub union: Ident,
    /// Method, variant and response type.
    pub methods: Vec<(String, Ident, Response)>,
}

pub enum Response {
    /// Decoded as this type.
    Typed(Ident),
    /// Kept as untyped JSON (the schema has no type for it).
    Untyped,
}

/// `<Union>Result`: the method -> response type table of a request union.
pub fn emit(table: &Responses) -> TokenStream {
    let union = &table.union;
    let name = format_ident!("{union}Result");
    let doc = format!(" The result of a `{union}`, decoded once the method of the request it answers is known.");
    let variants = table.methods.iter().map(|(method, ident, response)| {
        let method_doc = format!(" Result of `{method}`.");
        let ty = match response {
            Response::Typed(ty) => quote! { #ty },
            Response::Untyped => quote! { ::serde_json::Value },
        };
        quote! { #[doc = #method_doc] #ident(#ty), }
    });
    let decode_arms = table.methods.iter().map(|(method, ident, _)| {
        quote! {
            #method => Self::#ident(::agentwire_protocol::RawEnvelope::decode_result(#method, result, decoder)?),
        }
    });
    let method_arms = table
        .methods
        .iter()
        .map(|(method, ident, _)| quote! { Self::#ident(_) => #method, });
    let serialize_arms = table.methods.iter().map(|(_, ident, _)| {
        quote! { Self::#ident(result) => ::serde::Serialize::serialize(result, serializer), }
    });
    let union_name = union.to_string();
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #( #variants )*
        }

        impl #name {
            /// Decodes `result` as the response to a request of `method`.
            pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
                method: &str,
                result: &::serde_json::value::RawValue,
                decoder: &mut D,
            ) -> ::std::result::Result<Self, ::agentwire_protocol::DecodeError> {
                ::std::result::Result::Ok(match method {
                    #( #decode_arms )*
                    other => return ::std::result::Result::Err(::agentwire_protocol::DecodeError::UnknownMethod {
                        union: #union_name,
                        method: other.into(),
                        known: #union::METHODS,
                    }),
                })
            }

            /// The method of the request this result answers.
            pub fn method(&self) -> &'static str {
                match self { #( #method_arms )* }
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self { #( #serialize_arms )* }
            }
        }
    }
}
