//! `as-sent.json` beside a schema: the members a mapping copies into its events as the provider
//! wrote them, marked in data (a vendored schema is upstream's and cannot carry a mark itself; a
//! hand-written one may also write `"x-raw-json": true` in place). Each becomes
//! `agentwire_protocol::RawJson`, its text kept byte for byte, so the mapping copies it without
//! reading the message's text again.
//!
//! ```json
//! { "members": [ { "at": "NewSessionResponse.modes", "why": "..." } ] }
//! ```
//!
//! A definition named alone, `"typed": true`, is a message's whole payload (a dispatch union's
//! `params`, or a tag union's object without its tags): the union holds it as `Sent<T>`.
//!
//! A member the mapping also decides on is marked `"typed": true`: it keeps its type and is
//! generated as `agentwire_protocol::Sent<T>`, the typed value with its text (the member's schema
//! must name its type by `$ref`, alone, in a one-entry `allOf` or beside `null` in an `anyOf`; a
//! list of such a type, `"items": {"$ref": ...}`, is one `Sent<Vec<T>>`).
//!
//! `at` is `Definition.property` after the source's own step (so a property that step grafts on
//! can be marked), or `Union[tag].property` for a member of the branch of a tagged union whose
//! tag is `tag` (ACP's `SessionUpdate[available_commands_update].availableCommands`: the ACP step
//! merges each payload's members into its branch). A member that does not exist is an error, so
//! an upstream rename is a decision, not a silent loss of the mark.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::dispatch::{Payload, Union};
use super::names::type_ident;
use super::typify_runner::Replacement;

/// The file's name in a schema's folder.
pub const FILE: &str = "as-sent.json";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AsSent {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    members: Vec<Member>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Member {
    at: String,
    why: String,
    #[serde(default)]
    typed: bool,
}

/// What `as-sent.json` asks of the generator beyond the schema's marks.
#[derive(Default)]
pub struct Marks {
    /// The `Sent<T>` definitions of the typed members.
    pub replacements: Vec<Replacement>,
    /// The definitions that are a message's whole payload, typed and kept as sent
    /// ([`wrap_payloads`]).
    payloads: Vec<String>,
}

/// Marks each member `path` lists `x-raw-json`, or points it at a `Sent<T>` definition when it is
/// typed. Nothing when there is no such file.
pub fn mark(path: &Path, definitions: &mut Map<String, Value>) -> Result<Marks> {
    let mut marks = Marks::default();
    if !path.exists() {
        return Ok(marks);
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file: AsSent = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    for member in &file.members {
        let context = || format!("{}: `{}`", path.display(), member.at);
        if member.why.trim().is_empty() {
            return Err(anyhow::anyhow!("no `why`")).with_context(context);
        }
        if !member.at.contains('.') {
            payload(definitions, member).with_context(context)?;
            marks.payloads.push(member.at.clone());
            continue;
        }
        let sent = mark_one(definitions, member).with_context(context)?;
        if let Some(sent) = sent
            && !marks
                .replacements
                .iter()
                .any(|known| known.definition == sent.definition)
        {
            marks.replacements.push(sent);
        }
    }
    Ok(marks)
}

/// Makes each dispatch union's required payload that `marks` lists a [`Payload::Sent`]. A listed
/// payload no union carries as a required payload is an error.
pub fn wrap_payloads(marks: &Marks, unions: &mut [Union]) -> Result<()> {
    for name in &marks.payloads {
        let ident = type_ident(name);
        let mut carried = false;
        for variant in unions.iter_mut().flat_map(|union| &mut union.variants) {
            if matches!(&variant.payload, Payload::Required(payload) if *payload == ident) {
                variant.payload = Payload::Sent(ident.clone());
                carried = true;
            }
        }
        anyhow::ensure!(carried, "{FILE}: `{name}` is no dispatch union's required payload");
    }
    Ok(())
}

/// Checks a member that names a whole payload: a definition, marked `typed`.
fn payload(definitions: &Map<String, Value>, member: &Member) -> Result<()> {
    if !member.typed {
        bail!("a whole payload is kept as sent only typed (`\"typed\": true`); mark its members otherwise");
    }
    if !definitions.contains_key(&member.at) {
        bail!("no definition `{}`: drop the entry if upstream renamed it", member.at);
    }
    Ok(())
}

fn mark_one(definitions: &mut Map<String, Value>, member: &Member) -> Result<Option<Replacement>> {
    let Some((owner, property)) = member.at.split_once('.') else {
        bail!("`at` is `Definition.property` or `Union[tag].property`");
    };
    let (definition, tag) = match owner.split_once('[') {
        Some((union, tag)) => match tag.strip_suffix(']') {
            Some(tag) => (union, Some(tag)),
            None => bail!("`{owner}` is no `Union[tag]`"),
        },
        None => (owner, None),
    };
    let Some(mut schema) = definitions.get_mut(definition) else {
        bail!("no definition `{definition}`: drop the entry if upstream renamed it");
    };
    if let Some(tag) = tag {
        let Some(branch) = branch_tagged(schema, tag) else {
            bail!("no branch of `{definition}` is tagged `{tag}`: drop the entry if upstream renamed it");
        };
        schema = branch;
    }
    let Some(schema) = schema.pointer_mut(&format!("/properties/{property}")) else {
        bail!("no property `{property}` in `{owner}`: drop the entry if upstream renamed it");
    };
    if !member.typed {
        replace_keeping_description(schema, "x-raw-json", Value::Bool(true));
        return Ok(None);
    }
    let (sent, rust_type) = if schema.get("type") == Some(&Value::from("array")) {
        // A list: the whole member is one `Sent<Vec<T>>`.
        let Some(items) = schema.pointer("/items/$ref").and_then(Value::as_str) else {
            bail!("a typed list names its items' type by `$ref`");
        };
        let (prefix, name) = split_ref(items)?;
        let sent = format!("Sent{name}List");
        let rust_type = format!("::agentwire_protocol::Sent<::std::vec::Vec<{}>>", type_ident(&name));
        replace_keeping_description(schema, "$ref", Value::String(format!("{prefix}/{sent}")));
        (sent, rust_type)
    } else {
        let Some(target) = named_type(schema) else {
            bail!(
                "a typed member names its type by `$ref` (alone, in a one-entry `allOf`, or beside `null` in an `anyOf`), or is a list of one"
            );
        };
        let (prefix, name) = split_ref(target.as_str().unwrap_or_default())?;
        let sent = format!("Sent{name}");
        let rust_type = format!("::agentwire_protocol::Sent<{}>", type_ident(&name));
        *target = Value::String(format!("{prefix}/{sent}"));
        (sent, rust_type)
    };
    definitions
        .entry(sent.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    Ok(Some(Replacement {
        definition: sent,
        rust_type,
    }))
}

/// A `$ref` as the path before its definition's name, and the name.
fn split_ref(at: &str) -> Result<(String, String)> {
    match at.rsplit_once('/') {
        Some((prefix, name)) => Ok((prefix.to_string(), name.to_string())),
        None => bail!("`$ref` {at:?} names no definition"),
    }
}

/// Replaces a member's schema with the one member `key: value`, keeping its description.
fn replace_keeping_description(schema: &mut Value, key: &str, value: Value) {
    let mut replaced = Map::from_iter([(key.to_string(), value)]);
    if let Some(description) = schema.get("description") {
        replaced.insert("description".into(), description.clone());
    }
    *schema = Value::Object(replaced);
}

/// The `$ref` string by which a member's schema names its one type.
fn named_type(schema: &mut Value) -> Option<&mut Value> {
    if schema.get("$ref").is_some() {
        return schema.get_mut("$ref");
    }
    if let Some([only]) = schema.get("allOf").and_then(Value::as_array).map(Vec::as_slice)
        && only.get("$ref").is_some()
    {
        return schema.pointer_mut("/allOf/0/$ref");
    }
    let branches = schema.get_mut("anyOf")?.as_array_mut()?;
    let null = |branch: &Value| branch.get("type") == Some(&Value::from("null"));
    let [named] = branches.iter().filter(|branch| !null(branch)).collect::<Vec<_>>()[..] else {
        return None;
    };
    named.get("$ref")?;
    branches.iter_mut().find(|branch| !null(branch))?.get_mut("$ref")
}

/// The `oneOf` or `anyOf` branch of `union` with a property whose `const` is `tag`.
fn branch_tagged<'a>(union: &'a mut Value, tag: &str) -> Option<&'a mut Value> {
    let tagged = |branch: &Value| {
        branch
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| {
                properties
                    .values()
                    .any(|property| property.get("const") == Some(&Value::from(tag)))
            })
    };
    let branches = ["oneOf", "anyOf"].into_iter().find(|key| union.get(*key).is_some())?;
    union[branches].as_array_mut()?.iter_mut().find(|branch| tagged(branch))
}

#[cfg(test)]
mod tests {
    use super::{Member, mark_one};
    use serde_json::{Map, Value, json};

    fn definitions() -> Map<String, Value> {
        let Value::Object(map) = json!({
            "Reply": { "properties": {
                "modes": { "description": "The modes.", "type": "object" },
                "info": { "description": "Who.", "anyOf": [{ "$ref": "#/$defs/Info" }, { "type": "null" }] },
                "caps": { "allOf": [{ "$ref": "#/$defs/Caps" }] },
                "either": { "anyOf": [{ "$ref": "#/$defs/Info" }, { "$ref": "#/$defs/Caps" }] },
                "list": { "description": "Some.", "type": "array", "items": { "$ref": "#/$defs/Info" } }
            } },
            "Update": { "oneOf": [
                { "properties": { "kind": { "const": "plan" }, "entries": { "type": "array" } } },
                { "properties": { "kind": { "const": "commands" }, "commands": { "type": "array" } } }
            ] }
        }) else {
            unreachable!()
        };
        map
    }

    fn member(at: &str) -> Member {
        Member {
            at: at.to_string(),
            why: "copied into session.configured".to_string(),
            typed: false,
        }
    }

    fn typed(at: &str) -> Member {
        Member {
            typed: true,
            ..member(at)
        }
    }

    #[test]
    fn a_member_is_marked_and_keeps_its_description() {
        let mut definitions = definitions();
        mark_one(&mut definitions, &member("Reply.modes")).unwrap();
        assert_eq!(
            definitions["Reply"]["properties"]["modes"],
            json!({ "x-raw-json": true, "description": "The modes." })
        );
    }

    #[test]
    fn a_member_of_a_tagged_branch_is_marked() {
        let mut definitions = definitions();
        mark_one(&mut definitions, &member("Update[commands].commands")).unwrap();
        assert_eq!(
            definitions["Update"]["oneOf"][1]["properties"]["commands"],
            json!({ "x-raw-json": true })
        );
        assert_eq!(
            definitions["Update"]["oneOf"][0]["properties"]["entries"],
            json!({ "type": "array" })
        );
        assert!(mark_one(&mut definitions, &member("Update[plan].commands")).is_err());
        assert!(mark_one(&mut definitions, &member("Update[other].commands")).is_err());
        assert!(mark_one(&mut definitions, &member("Update[plan.entries")).is_err());
    }

    /// A typed member names a `Sent<T>` definition, which typify is told to replace.
    #[test]
    fn a_typed_member_names_its_sent_type() {
        let mut definitions = definitions();
        let sent = mark_one(&mut definitions, &typed("Reply.info")).unwrap().unwrap();
        assert_eq!(
            (sent.definition.as_str(), sent.rust_type.as_str()),
            ("SentInfo", "::agentwire_protocol::Sent<Info>")
        );
        assert_eq!(
            definitions["Reply"]["properties"]["info"],
            json!({ "description": "Who.", "anyOf": [{ "$ref": "#/$defs/SentInfo" }, { "type": "null" }] })
        );
        assert_eq!(definitions["SentInfo"], json!({}));
        mark_one(&mut definitions, &typed("Reply.caps")).unwrap().unwrap();
        assert_eq!(
            definitions["Reply"]["properties"]["caps"]["allOf"][0]["$ref"],
            "#/$defs/SentCaps"
        );
        assert!(mark_one(&mut definitions, &typed("Reply.modes")).is_err());
        assert!(mark_one(&mut definitions, &typed("Reply.either")).is_err());
        let list = mark_one(&mut definitions, &typed("Reply.list")).unwrap().unwrap();
        assert_eq!(list.rust_type, "::agentwire_protocol::Sent<::std::vec::Vec<Info>>");
        assert_eq!(
            definitions["Reply"]["properties"]["list"],
            json!({ "$ref": "#/$defs/SentInfoList", "description": "Some." })
        );
    }

    /// A definition named alone is a payload the unions then hold as `Sent<T>`; it must be typed
    /// and exist, and some union must carry it.
    #[test]
    fn a_whole_payload_is_held_as_sent() {
        use crate::codegen::dispatch::{Payload, Style, Union, Variant};
        let definitions = definitions();
        assert!(super::payload(&definitions, &typed("Reply")).is_ok());
        assert!(super::payload(&definitions, &member("Reply")).is_err());
        assert!(super::payload(&definitions, &typed("Other")).is_err());
        let union = |payload| Union {
            name: "Messages".into(),
            ident: quote::format_ident!("Messages"),
            description: None,
            style: Style::Tag { field: "type".into() },
            variants: vec![Variant {
                value: "reply".into(),
                ident: quote::format_ident!("Reply"),
                description: None,
                payload,
            }],
        };
        let marks = super::Marks {
            replacements: Vec::new(),
            payloads: vec!["Reply".into()],
        };
        let mut unions = [union(Payload::Required(quote::format_ident!("Reply")))];
        super::wrap_payloads(&marks, &mut unions).unwrap();
        assert!(matches!(&unions[0].variants[0].payload, Payload::Sent(ty) if ty == "Reply"));
        let mut unions = [union(Payload::Required(quote::format_ident!("Other")))];
        assert!(super::wrap_payloads(&marks, &mut unions).is_err());
    }

    #[test]
    fn a_member_that_does_not_exist_is_an_error() {
        let mut definitions = definitions();
        assert!(mark_one(&mut definitions, &member("Reply.models")).is_err());
        assert!(mark_one(&mut definitions, &member("Other.modes")).is_err());
        assert!(mark_one(&mut definitions, &member("modes")).is_err());
    }
}
