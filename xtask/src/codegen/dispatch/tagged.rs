//! Tag-field unions: the message object names its kind in a string field (`type`), and the
//! variant's payload is the rest of the object.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{Payload, Union};
use crate::codegen::docs::{doc_lines, optional_doc};

/// `above`: the tag fields of the unions this one is nested in, outermost first.
pub fn emit(union: &Union, field: &str, above: &[String]) -> TokenStream {
    let name = &union.ident;
    let union_name = union.ident.to_string();
    let doc = optional_doc(union.description.as_deref());
    let values: Vec<&str> = union.variants.iter().map(|v| v.value.as_str()).collect();

    let variants = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let doc = optional_doc(variant.description.as_deref());
        let separator = variant.description.is_some().then(|| quote!(#[doc = ""]));
        let tag_doc = doc_lines(&format!("`{field}`: `{}`.", variant.value));
        let fields = match &variant.payload {
            Payload::Required(ty) | Payload::Nested(ty) => quote!((#ty)),
            Payload::Sent(ty) => quote!((::agentwire_protocol::Sent<#ty>)),
            Payload::TagOnly => quote!(),
            Payload::Optional(_) | Payload::Absent => unreachable!("a tag union's payload is the object itself"),
        };
        quote! {
            #doc
            #separator
            #tag_doc
            #ident #fields,
        }
    });
    let tag_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let value = &variant.value;
        match variant.payload {
            Payload::TagOnly => quote! { Self::#ident => #value, },
            _ => quote! { Self::#ident(_) => #value, },
        }
    });
    let decode_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let value = &variant.value;
        match &variant.payload {
            Payload::Nested(ty) => quote! { #value => Self::#ident(#ty::decode(json, decoder)?), },
            Payload::TagOnly => quote! { #value => Self::#ident, },
            Payload::Sent(_) => quote! {
                #value => Self::#ident(::agentwire_protocol::tagged::decode_sent_payload(json, #union_name, &[ #( #above, )* Self::TAG ], #value, decoder)?),
            },
            _ => quote! {
                #value => Self::#ident(::agentwire_protocol::tagged::decode_payload(json, #union_name, Self::TAG, #value, decoder)?),
            },
        }
    });
    let serialize_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let value = &variant.value;
        match variant.payload {
            Payload::TagOnly => quote! {
                Self::#ident => ::agentwire_protocol::tagged::serialize_tag_only(serializer, Self::TAG, #value),
            },
            Payload::Sent(_) => quote! {
                Self::#ident(payload) => ::agentwire_protocol::tagged::serialize_tagged(serializer, Self::TAG, #value, payload.value()),
            },
            _ => quote! {
                Self::#ident(payload) => ::agentwire_protocol::tagged::serialize_tagged(serializer, Self::TAG, #value, payload),
            },
        }
    });
    // A union of tag-only variants never calls the decoder.
    let uses_decoder = !union.variants.iter().all(|v| matches!(v.payload, Payload::TagOnly));
    let decode = decode_fn(&union_name, quote!(#( #decode_arms )*), uses_decoder);
    let deserialize = deserialize_impl(name);
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #( #variants )*
        }

        impl #name {
            /// The union's name, as its decode errors give it.
            pub const NAME: &'static str = #union_name;

            /// The field that names the variant.
            pub const TAG: &'static str = #field;

            /// Every value of [`Self::TAG`] this union knows, in schema order.
            pub const TAGS: &'static [&'static str] = &[ #( #values ),* ];

            /// The value of [`Self::TAG`] this message carries.
            pub fn tag(&self) -> &'static str {
                match self { #( #tag_arms )* }
            }

            #decode
        }

        /// The payload's fields with the tag written first.
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self { #( #serialize_arms )* }
            }
        }

        #deserialize
    }
}

/// A tag union's `decode`: reads the tag from the object's text, then runs the arm `arms` has for
/// its value (each `"value" => variant,`); an unknown value is an error naming the known ones.
/// The `decoder` goes unused when no arm decodes anything.
pub(super) fn decode_fn(union_name: &str, arms: TokenStream, uses_decoder: bool) -> TokenStream {
    let decoder = if uses_decoder {
        quote!(decoder)
    } else {
        quote!(_decoder)
    };
    quote! {
        /// Decodes the JSON object `json`: reads its tag, then decodes only the variant the tag
        /// names. `decoder` decodes it; `SerdeJson` is the plain one, a caller may pass one that
        /// tracks JSON paths.
        pub fn decode<D: ::agentwire_protocol::PayloadDecoder>(
            json: &str,
            #decoder: &mut D,
        ) -> ::std::result::Result<Self, ::agentwire_protocol::TagDecodeError> {
            let tag = ::agentwire_protocol::tagged::read_tag(json, #union_name, Self::TAG)?;
            ::std::result::Result::Ok(match &*tag {
                #arms
                other => return ::std::result::Result::Err(
                    ::agentwire_protocol::tagged::unknown_tag(#union_name, Self::TAG, other, Self::TAGS),
                ),
            })
        }
    }
}

/// The `Deserialize` of a type with a [`decode_fn`].
pub(super) fn deserialize_impl(name: &Ident) -> TokenStream {
    quote! {
        /// As [`Self::decode`] with the plain decoder, from any deserializer: from JSON text the
        /// object's own text is decoded, from anything else (the buffer serde tries an untagged
        /// union's branches from, a `serde_json::Value`) the object printed as JSON.
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let json = ::agentwire_protocol::json_text(deserializer)?;
                Self::decode(&json, &mut ::agentwire_protocol::SerdeJson).map_err(::agentwire_protocol::tagged::nested_error)
            }
        }
    }
}
