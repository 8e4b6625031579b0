//! ACP's method unions and reply tables, read from the envelope unions and `x-method`.
//!
//! The schema has no method enum: `ClientRequest`, `AgentRequest`, `ClientNotification` and
//! `AgentNotification` (named after the side that sends them) carry `method: string` and a
//! `params` `anyOf` whose branches `$ref` the payload definitions, each of which names its method
//! in `x-method` and the side that handles it in `x-side`. Replies are the branches of the other
//! side's `*Response` union, matched to their request by `x-method`. `$/cancel_request` is the
//! root's `ProtocolLevel` branch, not in `$defs`; its definition is found by `x-method`. The
//! `Ext*` catch-alls (`_`-prefixed extension methods) are no method of the table.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

use crate::codegen::dispatch::results::{Response, Responses};
use crate::codegen::dispatch::{Payload, RpcKind, Style, Union, Variant};
use crate::codegen::docs::description;
use crate::codegen::names::{type_ident, variant_ident};

/// The envelope unions: name, kind, the side that handles what it lists, and the union of the
/// replies to it.
const UNIONS: [(&str, RpcKind, &str, Option<&str>); 4] = [
    ("ClientRequest", RpcKind::Request, "agent", Some("AgentResponse")),
    ("ClientNotification", RpcKind::Notification, "agent", None),
    ("AgentRequest", RpcKind::Request, "client", Some("ClientResponse")),
    ("AgentNotification", RpcKind::Notification, "client", None),
];

/// The union of the protocol-level notifications either side sends (`$/cancel_request`).
const PROTOCOL_UNION: &str = "ProtocolNotification";

/// The JSON-RPC version every ACP message carries.
const JSONRPC: &str = "2.0";

/// The method unions and the reply tables of the request unions.
pub struct Methods {
    pub unions: Vec<Union>,
    pub responses: Vec<Responses>,
}

/// Removes the envelope unions from `definitions` and reads them. `extension_methods` are the
/// methods the extension schemas' own `x-dispatch` unions list.
pub fn extract(definitions: &mut Map<String, Value>, extension_methods: &[String]) -> Result<Methods> {
    let mut unions = Vec::new();
    let mut responses = Vec::new();
    let mut reached = Vec::new();
    for (name, kind, side, replies) in UNIONS {
        let schema = definitions
            .remove(name)
            .with_context(|| format!("definition {name} is missing"))?;
        let union = read_union(name, kind, side, &schema, definitions).with_context(|| format!("definition {name}"))?;
        reached.extend(union.variants.iter().map(|v| v.value.clone()));
        if let Some(replies) = replies {
            let replies = definitions
                .remove(replies)
                .with_context(|| format!("definition {replies} is missing"))?;
            let table = reply_table(&union, &replies, definitions).with_context(|| format!("replies to {name}"))?;
            responses.push(table);
        }
        unions.push(union);
    }
    let protocol = protocol_union(definitions)?;
    reached.extend(protocol.variants.iter().map(|v| v.value.clone()));
    unions.push(protocol);
    for (name, definition) in definitions.iter() {
        if let Some(method) = definition.get("x-method").and_then(Value::as_str)
            && !extension_methods.iter().any(|m| m == method)
            && !reached.iter().any(|m| m == method)
        {
            bail!("{name} has x-method {method}, which no union lists");
        }
    }
    Ok(Methods { unions, responses })
}

/// `{"allOf": [{"$ref": "#/$defs/X"}]}` -> `X`.
fn branch_target(branch: &Value) -> Option<&str> {
    branch.pointer("/allOf/0/$ref")?.as_str()?.strip_prefix("#/$defs/")
}

fn payload_branches(schema: &Value) -> Result<&Vec<Value>> {
    schema
        .pointer("/properties/params/anyOf/0/anyOf")
        .and_then(Value::as_array)
        .context("no `params` anyOf of payload branches")
}

fn read_union(
    name: &str,
    kind: RpcKind,
    side: &str,
    schema: &Value,
    definitions: &Map<String, Value>,
) -> Result<Union> {
    let mut variants = Vec::new();
    for branch in payload_branches(schema)? {
        let target = branch_target(branch).context("a branch is no `allOf` `$ref`")?;
        if target.starts_with("Ext") {
            continue;
        }
        let definition = definitions
            .get(target)
            .with_context(|| format!("$ref {target} is not defined"))?;
        let method = definition
            .get("x-method")
            .and_then(Value::as_str)
            .with_context(|| format!("{target} has no x-method"))?;
        let handler = definition.get("x-side").and_then(Value::as_str);
        if handler != Some(side) {
            bail!("{target}: x-side {handler:?}, expected {side}");
        }
        variants.push(Variant {
            value: method.to_string(),
            ident: variant_ident(method),
            description: description(definition),
            payload: Payload::Required(type_ident(target)),
        });
    }
    Ok(Union {
        name: name.to_string(),
        ident: type_ident(name),
        description: description(schema),
        style: Style::JsonRpc {
            kind,
            shared: Vec::new(),
            version: Some(JSONRPC.into()),
        },
        variants,
    })
}

/// The reply definitions of `replies` (a `*Response` union), matched to `union`'s methods.
fn reply_table(union: &Union, replies: &Value, definitions: &Map<String, Value>) -> Result<Responses> {
    let branches = replies
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|branches| {
            branches
                .iter()
                .find_map(|b| b.pointer("/properties/result/anyOf").and_then(Value::as_array))
        })
        .context("no `result` anyOf")?;
    let mut by_method = BTreeMap::new();
    for branch in branches {
        let target = branch_target(branch).context("a result branch is no `allOf` `$ref`")?;
        if target.starts_with("Ext") {
            continue;
        }
        let method = definitions
            .get(target)
            .and_then(|d| d.get("x-method"))
            .and_then(Value::as_str)
            .with_context(|| format!("{target} has no x-method"))?;
        if by_method.insert(method.to_string(), target.to_string()).is_some() {
            bail!("two replies for {method}");
        }
    }
    let methods = union
        .variants
        .iter()
        .map(|variant| {
            let reply = by_method
                .remove(&variant.value)
                .with_context(|| format!("no reply for {}", variant.value))?;
            Ok((
                variant.value.clone(),
                variant.ident.clone(),
                Response::Typed(type_ident(&reply)),
            ))
        })
        .collect::<Result<_>>()?;
    if let Some(method) = by_method.keys().next() {
        bail!("a reply for {method}, which {} does not list", union.name);
    }
    Ok(Responses {
        union: union.ident.clone(),
        methods,
    })
}

/// `$/cancel_request` (and any other `x-side: protocol` definition): the root's `ProtocolLevel`
/// branch, which is not in `$defs`.
fn protocol_union(definitions: &Map<String, Value>) -> Result<Union> {
    let variants: Vec<Variant> = definitions
        .iter()
        .filter(|(_, d)| d.get("x-side").and_then(Value::as_str) == Some("protocol"))
        .map(|(name, definition)| {
            let method = definition
                .get("x-method")
                .and_then(Value::as_str)
                .with_context(|| format!("{name} has no x-method"))?;
            Ok(Variant {
                value: method.to_string(),
                ident: variant_ident(method),
                description: description(definition),
                payload: Payload::Required(type_ident(name)),
            })
        })
        .collect::<Result<_>>()?;
    if variants.is_empty() {
        bail!("no definition has x-side protocol");
    }
    Ok(Union {
        name: PROTOCOL_UNION.into(),
        ident: type_ident(PROTOCOL_UNION),
        description: Some("A protocol-level notification either side may send.".into()),
        style: Style::JsonRpc {
            kind: RpcKind::Notification,
            shared: Vec::new(),
            version: Some(JSONRPC.into()),
        },
        variants,
    })
}
