//! The dispatch unions of the Codex protocol, written by our own emitter.
//!
//! Upstream declares each union as a `oneOf` of `{method: {enum: [m]}, id?, params: {$ref}}`
//! branches. typify would make them `#[serde(untagged)]` (or buffer them as internally tagged
//! enums, which loses error paths and cannot hold `RawValue`), so they are taken out of the
//! definitions before typify runs and emitted here as enums with one named variant per method,
//! decoded envelope-first through a [`PayloadDecoder`](generated) the caller chooses.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use heck::ToUpperCamelCase;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

/// The unions taken out of the definitions, in the order they are emitted.
const UNIONS: [(&str, Side); 4] = [
    ("ServerNotification", Side::Notification),
    ("ServerRequest", Side::Request),
    ("ClientRequest", Side::Request),
    ("ClientNotification", Side::Notification),
];

/// Definitions dropped because a hand-emitted type does their job: the untagged JSON-RPC message
/// union, replaced by the envelope-first `RawEnvelope`.
const REPLACED: [&str; 1] = ["JSONRPCMessage"];

/// Definitions typify must not emit (it would make them untagged enums); their hand-written
/// versions live in `dispatch_support.rs.in` under the same name.
pub const HAND_WRITTEN: [&str; 1] = ["RequestId"];

/// Client request methods whose response type is not `<Params minus "Params">Response` nor
/// `<Method in PascalCase>Response`; upstream names them in `client_request_definitions!`
/// (codex-rs/app-server-protocol `protocol/common.rs`).
const RESPONSE_OVERRIDES: [(&str, &str); 10] = [
    ("account/gatewayOAuth/cancel", "GatewayOAuthCancelResponse"),
    ("account/gatewayOAuth/login", "GatewayOAuthLoginResponse"),
    ("account/gatewayOAuth/read", "GatewayOAuthReadResponse"),
    ("account/logout", "LogoutAccountResponse"),
    ("account/rateLimits/read", "GetAccountRateLimitsResponse"),
    ("account/securitySetup/read", "GetAccountSecuritySetupResponse"),
    ("account/usage/read", "GetAccountTokenUsageResponse"),
    ("account/workspaceMessages/read", "GetWorkspaceMessagesResponse"),
    ("accountSession/list", "AccountSessionsResponse"),
    ("config/mcpServer/reload", "McpServerRefreshResponse"),
];

/// Client request methods for which the pinned schema carries no response type at all: their
/// results are kept as untyped JSON. A method missing from every table fails the generator.
const UNTYPED_RESPONSES: [&str; 2] = ["externalAgentConfig/import/readHistories", "modelProvider/default/set"];

/// Two methods share a response type that does not follow either naming rule.
const SHARED_RESPONSES: [(&str, &str); 2] = [
    ("config/batchWrite", "ConfigWriteResponse"),
    ("config/value/write", "ConfigWriteResponse"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Notification,
    Request,
}

pub struct Union {
    name: &'static str,
    side: Side,
    description: Option<String>,
    /// Properties that sit beside the `oneOf` (e.g. `emittedAtMs`): kept on every variant.
    shared: Vec<SharedField>,
    variants: Vec<Variant>,
}

struct SharedField {
    wire: String,
    ident: Ident,
    description: Option<String>,
}

struct Variant {
    method: String,
    ident: Ident,
    description: Option<String>,
    params: Params,
    /// For requests: the type of the result that answers it.
    response: Option<Response>,
}

enum Params {
    Required(Ident),
    Optional(Ident),
    Absent,
}

enum Response {
    Typed(Ident),
    Untyped,
}

/// Removes the unions (and the replaced definitions) from `definitions` and reads them.
pub fn extract(definitions: &mut Map<String, Value>) -> Result<Vec<Union>> {
    for name in REPLACED {
        definitions
            .remove(name)
            .with_context(|| format!("definition {name} is missing"))?;
    }
    let mut unions = Vec::new();
    for (name, side) in UNIONS {
        let schema = definitions
            .remove(name)
            .with_context(|| format!("definition {name} is missing"))?;
        unions.push(read_union(name, side, &schema, definitions).with_context(|| format!("definition {name}"))?);
    }
    Ok(unions)
}

fn read_union(name: &'static str, side: Side, schema: &Value, definitions: &Map<String, Value>) -> Result<Union> {
    let branches = schema.get("oneOf").and_then(Value::as_array).context("no `oneOf`")?;
    let mut shared = Vec::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (wire, property) in properties {
            if property.get("type").and_then(Value::as_str) != Some("integer") {
                bail!("shared property {wire} is not an integer; teach the dispatch emitter its type");
            }
            shared.push(SharedField {
                wire: wire.clone(),
                ident: field_ident(wire),
                description: description(property),
            });
        }
    }
    let mut seen = BTreeSet::new();
    let mut variants = Vec::new();
    for branch in branches {
        let properties = branch
            .get("properties")
            .and_then(Value::as_object)
            .context("a branch has no properties")?;
        let method = properties
            .get("method")
            .and_then(|m| m.get("enum"))
            .and_then(Value::as_array)
            .and_then(|values| values.first())
            .and_then(Value::as_str)
            .context("a branch has no one-value `method` enum")?
            .to_string();
        let ident = variant_ident(&method);
        if !seen.insert(ident.to_string()) {
            bail!("two methods map to the variant name {ident}");
        }
        let params = read_params(properties.get("params"), definitions).with_context(|| format!("method {method}"))?;
        let response = match side {
            Side::Request => Some(response_type(name, &method, &params, definitions)?),
            Side::Notification => None,
        };
        variants.push(Variant {
            description: description(branch),
            method,
            ident,
            params,
            response,
        });
    }
    Ok(Union {
        name,
        side,
        description: description(schema),
        shared,
        variants,
    })
}

fn read_params(params: Option<&Value>, definitions: &Map<String, Value>) -> Result<Params> {
    let Some(params) = params else {
        return Ok(Params::Absent);
    };
    if params.get("type").and_then(Value::as_str) == Some("null") {
        return Ok(Params::Absent);
    }
    if let Some(name) = ref_name(params) {
        ensure_defined(name, definitions)?;
        return Ok(Params::Required(format_ident!("{name}")));
    }
    if let Some([one, null]) = params.get("anyOf").and_then(Value::as_array).map(Vec::as_slice)
        && null.get("type").and_then(Value::as_str) == Some("null")
        && let Some(name) = ref_name(one)
    {
        ensure_defined(name, definitions)?;
        return Ok(Params::Optional(format_ident!("{name}")));
    }
    bail!("unsupported params schema {params}")
}

/// The type of the result answering `method`: the naming rules upstream follows, then the
/// tables above. An unknown method fails here, so a protocol refresh needs a decision.
fn response_type(union: &str, method: &str, params: &Params, definitions: &Map<String, Value>) -> Result<Response> {
    if UNTYPED_RESPONSES.contains(&method) {
        return Ok(Response::Untyped);
    }
    let table = RESPONSE_OVERRIDES
        .iter()
        .chain(&SHARED_RESPONSES)
        .find(|(m, _)| *m == method)
        .map(|(_, t)| *t);
    let from_params = match params {
        Params::Required(name) | Params::Optional(name) => name
            .to_string()
            .strip_suffix("Params")
            .map(|stem| format!("{stem}Response")),
        Params::Absent => None,
    };
    let from_method = format!("{}Response", variant_ident(method));
    let candidates = table
        .map(str::to_string)
        .into_iter()
        .chain(from_params)
        .chain([from_method]);
    for candidate in candidates {
        if definitions.contains_key(&candidate) {
            return Ok(Response::Typed(format_ident!("{candidate}")));
        }
    }
    bail!("{union} method {method}: no response type found; add it to RESPONSE_OVERRIDES or UNTYPED_RESPONSES")
}

fn ensure_defined(name: &str, definitions: &Map<String, Value>) -> Result<()> {
    if definitions.contains_key(name) {
        Ok(())
    } else {
        bail!("$ref {name} is not defined")
    }
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/definitions/")
}

fn description(schema: &Value) -> Option<String> {
    schema.get("description").and_then(Value::as_str).map(str::to_string)
}

/// `item/commandExecution/requestApproval` -> `ItemCommandExecutionRequestApproval`.
fn variant_ident(method: &str) -> Ident {
    let name: String = method
        .split(['/', '_', '-'])
        .map(|segment| segment.to_upper_camel_case())
        .collect();
    Ident::new(&name, Span::call_site())
}

/// `emittedAtMs` -> `emitted_at_ms`.
fn field_ident(wire: &str) -> Ident {
    Ident::new(&heck::ToSnakeCase::to_snake_case(wire), Span::call_site())
}

fn docs(text: &Option<String>) -> TokenStream {
    let lines = text.iter().flat_map(|text| text.lines()).map(|line| format!(" {line}"));
    quote! { #( #[doc = #lines] )* }
}

pub fn emit(unions: &[Union], _definitions: &Map<String, Value>) -> Result<TokenStream> {
    let support = support();
    let unions_code = unions.iter().map(emit_union);
    let results = unions.iter().filter(|u| u.side == Side::Request).map(emit_results);
    Ok(quote! {
        #support
        #( #unions_code )*
        #( #results )*
    })
}

fn emit_union(union: &Union) -> TokenStream {
    let name = format_ident!("{}", union.name);
    let doc = docs(&union.description);
    let is_request = union.side == Side::Request;
    let shared_idents: Vec<&Ident> = union.shared.iter().map(|s| &s.ident).collect();
    let shared_wires: Vec<&str> = union.shared.iter().map(|s| s.wire.as_str()).collect();
    let shared_docs: Vec<TokenStream> = union.shared.iter().map(|s| docs(&s.description)).collect();
    let methods: Vec<&str> = union.variants.iter().map(|v| v.method.as_str()).collect();

    let variants = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let doc = docs(&variant.description);
        let method_doc = format!(" Method `{}`.", variant.method);
        let id = is_request.then(|| quote! { id: RequestId, });
        let params = match &variant.params {
            Params::Required(ty) => quote! { params: #ty, },
            Params::Optional(ty) => quote! { params: ::std::option::Option<#ty>, },
            Params::Absent => quote! {},
        };
        quote! {
            #doc
            #[doc = ""]
            #[doc = #method_doc]
            #ident { #id #params #( #shared_docs #shared_idents: ::std::option::Option<i64>, )* },
        }
    });

    let method_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.method;
        quote! { Self::#ident { .. } => #method, }
    });

    let decode_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.method;
        let id = is_request.then(|| quote! { id: envelope.require_id(#method)?, });
        let params = match &variant.params {
            Params::Required(_) => quote! {
                params: decoder
                    .decode(envelope.params.as_deref().ok_or_else(|| DecodeError::MissingParams { method: #method.into() })?.get())
                    .map_err(|error| DecodeError::Payload { method: #method.into(), error })?,
            },
            Params::Optional(_) => quote! {
                params: match envelope.params.as_deref() {
                    ::std::option::Option::Some(raw) => ::std::option::Option::Some(
                        decoder.decode(raw.get()).map_err(|error| DecodeError::Payload { method: #method.into(), error })?,
                    ),
                    ::std::option::Option::None => ::std::option::Option::None,
                },
            },
            Params::Absent => quote! {},
        };
        let reject_params = matches!(variant.params, Params::Absent)
            .then(|| quote! { envelope.reject_params(#method)?; });
        quote! {
            #method => {
                #reject_params
                Self::#ident { #id #params #( #shared_idents: envelope.#shared_idents, )* }
            }
        }
    });

    let serialize_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.method;
        let (id_pat, id_ser) = if is_request {
            (quote! { id, }, quote! { map.serialize_entry("id", id)?; })
        } else {
            (quote! {}, quote! {})
        };
        let (params_pat, params_ser) = match &variant.params {
            Params::Required(_) => (quote! { params, }, quote! { map.serialize_entry("params", params)?; }),
            Params::Optional(_) => (
                quote! { params, },
                quote! { if let ::std::option::Option::Some(params) = params { map.serialize_entry("params", params)?; } },
            ),
            Params::Absent => (quote! {}, quote! {}),
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

    let shared_getters = union.shared.iter().map(|shared| {
        let ident = &shared.ident;
        let doc = docs(&shared.description);
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
            pub fn id(&self) -> &RequestId {
                match self { #( #arms )* }
            }
        }
    });

    let union_name = union.name;
    // A union whose methods all lack params (`ClientNotification`) never calls the decoder.
    let decoder = if union.variants.iter().all(|v| matches!(v.params, Params::Absent)) {
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
            /// [`SerdeJson`] is the plain one, a caller may pass one that tracks JSON paths.
            pub fn decode<D: PayloadDecoder>(envelope: &RawEnvelope, #decoder: &mut D) -> ::std::result::Result<Self, DecodeError> {
                let method = envelope.method.as_deref().ok_or(DecodeError::NoMethod)?;
                ::std::result::Result::Ok(match method {
                    #( #decode_arms )*
                    other => return ::std::result::Result::Err(DecodeError::UnknownMethod { union: #union_name, method: other.into() }),
                })
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(::std::option::Option::None)?;
                match self { #( #serialize_arms )* }
                map.end()
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let envelope = <RawEnvelope as ::serde::Deserialize>::deserialize(deserializer)?;
                Self::decode(&envelope, &mut SerdeJson).map_err(::serde::de::Error::custom)
            }
        }
    }
}

/// `ClientRequestResult` / `ServerRequestResult`: the method -> response type table.
fn emit_results(union: &Union) -> TokenStream {
    let name = format_ident!("{}Result", union.name);
    let doc = format!(
        " The result of a `{}`, decoded once the method of the request it answers is known.",
        union.name
    );
    let variants: Vec<TokenStream> = union
        .variants
        .iter()
        .map(|variant| {
            let ident = &variant.ident;
            let method_doc = format!(" Result of `{}`.", variant.method);
            let ty = match variant.response.as_ref().expect("requests have responses") {
                Response::Typed(ty) => quote! { #ty },
                Response::Untyped => quote! { ::serde_json::Value },
            };
            quote! { #[doc = #method_doc] #ident(#ty), }
        })
        .collect();
    let decode_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.method;
        quote! {
            #method => Self::#ident(decoder.decode(result.get()).map_err(|error| DecodeError::Payload { method: #method.into(), error })?),
        }
    });
    let method_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        let method = &variant.method;
        quote! { Self::#ident(_) => #method, }
    });
    let serialize_arms = union.variants.iter().map(|variant| {
        let ident = &variant.ident;
        quote! { Self::#ident(result) => ::serde::Serialize::serialize(result, serializer), }
    });
    let union_name = union.name;
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #( #variants )*
        }

        impl #name {
            /// Decodes `result` as the response to a request of `method`.
            pub fn decode<D: PayloadDecoder>(method: &str, result: &::serde_json::value::RawValue, decoder: &mut D) -> ::std::result::Result<Self, DecodeError> {
                ::std::result::Result::Ok(match method {
                    #( #decode_arms )*
                    other => return ::std::result::Result::Err(DecodeError::UnknownMethod { union: #union_name, method: other.into() }),
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

/// The hand-written part every dispatch union relies on: the request id, the raw envelope, the
/// payload decoder and the decode error. Parsed from Rust source so it reads like Rust.
fn support() -> TokenStream {
    SUPPORT.parse().expect("the dispatch support code is valid Rust")
}

const SUPPORT: &str = include_str!("dispatch_support.rs.in");
