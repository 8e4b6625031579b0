//! Codex's dispatch unions, read from the shape upstream gives them, and the method -> response
//! tables built on them.
//!
//! Upstream declares each union as a `oneOf` of `{method: {enum: [m]}, id?, params: {$ref}}`
//! branches (no `x-dispatch` annotation: the bundle is vendored as generated upstream). They are
//! taken out of the definitions and read into the generic [`Union`] model, which the shared
//! dispatch emitter writes; the result tables (`ClientRequestResult`, `ServerRequestResult`) are
//! Codex's own.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};

use serde_json::{Map, Value};

use crate::codegen::dispatch::results::{Response, Responses};
use crate::codegen::dispatch::{Payload, RpcKind, SharedField, Style, Union, Variant};
use crate::codegen::docs::description;
use crate::codegen::names::{field_ident, type_ident, variant_ident};
use crate::codegen::typify_runner::Replacement;

/// The unions taken out of the definitions, in the order they are emitted.
const UNIONS: [(&str, RpcKind); 4] = [
    ("ServerNotification", RpcKind::Notification),
    ("ServerRequest", RpcKind::Request),
    ("ClientRequest", RpcKind::Request),
    ("ClientNotification", RpcKind::Notification),
];

/// Definitions dropped because a hand-emitted type does their job: the untagged JSON-RPC message
/// union, replaced by the envelope-first `RawEnvelope`.
const REPLACED: [&str; 1] = ["JSONRPCMessage"];

/// Definitions typify must not emit, and the `agentwire-protocol` types that stand for them: the
/// request id, which typify would make an untagged enum.
const PROTOCOL_TYPES: [(&str, &str); 1] = [("RequestId", "::agentwire_protocol::RequestId")];

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

/// Removes the unions (and the replaced definitions) from `definitions` and reads them, with the
/// response tables of the request unions.
pub fn extract(definitions: &mut Map<String, Value>) -> Result<(Vec<Union>, Vec<Responses>)> {
    for name in REPLACED {
        definitions
            .remove(name)
            .with_context(|| format!("definition {name} is missing"))?;
    }
    let mut unions = Vec::new();
    let mut responses = Vec::new();
    for (name, kind) in UNIONS {
        let schema = definitions
            .remove(name)
            .with_context(|| format!("definition {name} is missing"))?;
        let union = read_union(name, kind, &schema, definitions).with_context(|| format!("definition {name}"))?;
        if kind == RpcKind::Request {
            responses.push(response_table(&union, definitions)?);
        }
        unions.push(union);
    }
    Ok((unions, responses))
}

/// The replacements of [`PROTOCOL_TYPES`].
pub fn replacements() -> Vec<Replacement> {
    PROTOCOL_TYPES
        .iter()
        .map(|(definition, rust_type)| Replacement {
            definition: definition.to_string(),
            rust_type: rust_type.to_string(),
        })
        .collect()
}

fn read_union(name: &str, kind: RpcKind, schema: &Value, definitions: &Map<String, Value>) -> Result<Union> {
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
        let payload = read_params(properties.get("params"), definitions).with_context(|| format!("method {method}"))?;
        variants.push(Variant {
            description: description(branch),
            value: method,
            ident,
            payload,
        });
    }
    Ok(Union {
        name: name.to_string(),
        ident: type_ident(name),
        description: description(schema),
        style: Style::JsonRpc {
            kind,
            shared,
            version: None,
        },
        variants,
    })
}

fn read_params(params: Option<&Value>, definitions: &Map<String, Value>) -> Result<Payload> {
    let Some(params) = params else {
        return Ok(Payload::Absent);
    };
    if params.get("type").and_then(Value::as_str) == Some("null") {
        return Ok(Payload::Absent);
    }
    if let Some(name) = ref_name(params) {
        ensure_defined(name, definitions)?;
        return Ok(Payload::Required(type_ident(name)));
    }
    if let Some([one, null]) = params.get("anyOf").and_then(Value::as_array).map(Vec::as_slice)
        && null.get("type").and_then(Value::as_str) == Some("null")
        && let Some(name) = ref_name(one)
    {
        ensure_defined(name, definitions)?;
        return Ok(Payload::Optional(type_ident(name)));
    }
    bail!("unsupported params schema {params}")
}

fn response_table(union: &Union, definitions: &Map<String, Value>) -> Result<Responses> {
    let methods = union
        .variants
        .iter()
        .map(|variant| {
            let response = response_type(&union.name, &variant.value, &variant.payload, definitions)?;
            Ok((variant.value.clone(), variant.ident.clone(), response))
        })
        .collect::<Result<_>>()?;
    Ok(Responses {
        union: union.ident.clone(),
        methods,
    })
}

/// The type of the result answering `method`: the naming rules upstream follows, then the
/// tables above. An unknown method fails here, so a protocol refresh needs a decision.
fn response_type(union: &str, method: &str, params: &Payload, definitions: &Map<String, Value>) -> Result<Response> {
    if UNTYPED_RESPONSES.contains(&method) {
        return Ok(Response::Untyped);
    }
    let table = RESPONSE_OVERRIDES
        .iter()
        .chain(&SHARED_RESPONSES)
        .find(|(m, _)| *m == method)
        .map(|(_, t)| *t);
    let from_params = match params {
        Payload::Required(name) | Payload::Optional(name) | Payload::Sent(name) => name
            .to_string()
            .strip_suffix("Params")
            .map(|stem| format!("{stem}Response")),
        Payload::Absent | Payload::Nested(_) | Payload::TagOnly => None,
    };
    let from_method = format!("{}Response", variant_ident(method));
    let candidates = table
        .map(str::to_string)
        .into_iter()
        .chain(from_params)
        .chain([from_method]);
    for candidate in candidates {
        if definitions.contains_key(&candidate) {
            return Ok(Response::Typed(type_ident(&candidate)));
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
