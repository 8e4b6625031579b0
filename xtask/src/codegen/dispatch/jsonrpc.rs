//! JSON-RPC unions: decoded from an `agentwire_protocol::RawEnvelope` by its `method`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{Payload, RpcKind, SharedField, Union};
use crate::codegen::docs::{doc_lines, optional_doc};

pub fn emit(union: &Union, kind: RpcKind, shared: &[SharedField], version: Option<&str>) -> TokenStream {
    let name = &union.ident;
    let union_name = union.ident.to_string();
    let doc = optional_doc(union.description.as_deref());
    let is_request = kind == RpcKind::Request;
    let shared_idents: Vec<&Ident> = shared.iter().map(|s| &s.ident).collect();
    let shared_wires: Vec<&str> = shared.iter().map(|s| s.wire.as_str()).collect();
    let shared_docs: Vec<TokenStream> = shared.iter().map(|s| optional_doc(s.description.as_deref())).collect();
    let methods: Vec<&str> = union.variants.iter().map(|v| v.value.as_str()).collect();

    let variants = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let doc = optional_doc(variant.description.as_deref());
        let method_doc = doc_lines(&format!("Method `{}`.", variant.value));
        let separator = variant.description.is_some().then(|| quote!(#[doc = ""]));
        let id = is_request.then(|| quote! { id: ::agentwire_protocol::RequestId, });
        let params = match &variant.payload {
            Payload::Required(ty) => quote! { params: #ty, },
            Payload::Sent(ty) => quote! { params: ::agentwire_protocol::Sent<#ty>, },
            Payload::Optional(ty) => quote! { params: ::std::option::Option<#ty>, },
            Payload::Absent => quote! {},
            Payload::Nested(_) | Payload::TagOnly => unreachable!("JSON-RPC variants hold params"),
        };
        quote! {
            #doc
            #separator
            #method_doc
            #ident { #id #params #( #shared_docs #shared_idents: ::std::option::Option<i64>, )* },
        }
    });

    let method_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.value;
        quote! { Self::#ident { .. } => #method, }
    });

    let decode_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.value;
        let id = is_request.then(|| quote! { id: envelope.require_id(#method)?, });
        let params = match &variant.payload {
            Payload::Required(_) | Payload::Sent(_) => quote! { params: envelope.params(#method, decoder)?, },
            Payload::Optional(_) => quote! { params: envelope.optional_params(#method, decoder)?, },
            Payload::Absent | Payload::Nested(_) | Payload::TagOnly => quote! {},
        };
        let reject_params =
            matches!(variant.payload, Payload::Absent).then(|| quote! { envelope.reject_params(#method)?; });
        quote! {
            #method => {
                #reject_params
                Self::#ident { #id #params #( #shared_idents: envelope.extra(#shared_wires, #method, decoder)?, )* }
            }
        }
    });

    let version_entry = version.map(|version| quote! { map.serialize_entry("jsonrpc", #version)?; });
    let serialize_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.value;
        let (id_pat, id_ser) = if is_request {
            (quote! { id, }, quote! { map.serialize_entry("id", id)?; })
        } else {
            (quote! {}, quote! {})
        };
        let (params_pat, params_ser) = match &variant.payload {
            Payload::Required(_) | Payload::Sent(_) => {
                (quote! { params, }, quote! { map.serialize_entry("params", params)?; })
            }
            Payload::Optional(_) => (
                quote! { params, },
                quote! { if let ::std::option::Option::Some(params) = params { map.serialize_entry("params", params)?; } },
            ),
            Payload::Absent | Payload::Nested(_) | Payload::TagOnly => (quote! {}, quote! {}),
        };
        quote! {
            Self::#ident { #id_pat #params_pat #( #shared_idents, )* } => {
                #id_ser
                map.serialize_entry("method", #method)?;
                #params_ser
                #( if let ::std::option::Option::Some(value) = #shared_idents { map.serialize_entry(#shared_wires, value)?; } )*
            }
        }
    });

    let shared_getters = shared.iter().map(|shared| {
        let ident = &shared.ident;
        let doc = optional_doc(shared.description.as_deref());
        let arms = union.variants.iter().map(|variant| {
            let v = &variant.ident;
            quote! { Self::#v { #ident, .. } => *#ident, }
        });
        quote! {
            #doc
            pub fn #ident(&self) -> ::std::option::Option<i64> {
                match self { #( #arms )* }
            }
        }
    });

    let id_getter = is_request.then(|| {
        let arms = union.variants.iter().map(|variant| {
            let v = &variant.ident;
            quote! { Self::#v { id, .. } => id, }
        });
        quote! {
            /// The JSON-RPC id the response to this request will carry.
            pub fn id(&self) -> &::agentwire_protocol::RequestId {
                match self { #( #arms )* }
            }
        }
    });

    // A union whose methods all lack params and shared fields never calls the decoder.
    let decoder = if shared.is_empty() && union.variants.iter().all(|v| matches!(v.payload, Payload::Absent)) {
        format_ident!("_decoder")
    } else {
        format_ident!("decoder")
    };
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #( #variants )*
        }

        impl #name {
            /// Every method of this union, in schema order.
            pub const METHODS: &'static [&'static str] = &[ #( #methods ),* ];

            /// The JSON-RPC method this message carries.
            pub fn method(&self) -> &'static str {
                match self { #( #method_arms )* }
            }

            #id_getter
            #( #shared_getters )*

            /// Decodes the payload the envelope's method names. `decoder` decodes the payload;
            /// `SerdeJson` is the plain one, a caller may pass one that tracks JSON paths.
            pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
                envelope: &::agentwire_protocol::RawEnvelope<'_>,
                #decoder: &mut D,
            ) -> ::std::result::Result<Self, ::agentwire_protocol::DecodeError> {
                let method = envelope.require_method()?;
                ::std::result::Result::Ok(match method {
                    #( #decode_arms )*
                    other => return ::std::result::Result::Err(::agentwire_protocol::DecodeError::UnknownMethod {
                        union: #union_name,
                        method: other.into(),
                        known: Self::METHODS,
                    }),
                })
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(::std::option::Option::None)?;
                #version_entry
                match self { #( #serialize_arms )* }
                map.end()
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                ::agentwire_protocol::RawEnvelope::read(deserializer, |envelope| {
                    Self::decode(envelope, &mut ::agentwire_protocol::SerdeJson)
                })
            }
        }
    }
}
