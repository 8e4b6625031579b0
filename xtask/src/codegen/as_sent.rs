//! `as-sent.json` beside a vendored schema: the members a mapping copies into its events as the
//! provider wrote them, marked `x-raw-json` in data where the schema is upstream's and cannot
//! carry the mark itself (a hand-written schema writes `"x-raw-json": true` in place). Each
//! becomes `agentwire_protocol::RawJson`, its text kept byte for byte, so the mapping copies it
//! without reading the message's text again.
//!
//! ```json
//! { "members": [ { "at": "NewSessionResponse.modes", "why": "..." } ] }
//! ```
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
}

/// Marks each member `path` lists `x-raw-json`; nothing when there is no such file.
pub fn mark(path: &Path, definitions: &mut Map<String, Value>) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file: AsSent = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    for member in &file.members {
        mark_one(definitions, member).with_context(|| format!("{}: `{}`", path.display(), member.at))?;
    }
    Ok(())
}

fn mark_one(definitions: &mut Map<String, Value>, member: &Member) -> Result<()> {
    if member.why.trim().is_empty() {
        bail!("no `why`");
    }
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
    let mut marked = Map::from_iter([("x-raw-json".to_string(), Value::Bool(true))]);
    if let Some(description) = schema.get("description") {
        marked.insert("description".into(), description.clone());
    }
    *schema = Value::Object(marked);
    Ok(())
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
            "Reply": { "properties": { "modes": { "description": "The modes.", "type": "object" } } },
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

    #[test]
    fn a_member_that_does_not_exist_is_an_error() {
        let mut definitions = definitions();
        assert!(mark_one(&mut definitions, &member("Reply.models")).is_err());
        assert!(mark_one(&mut definitions, &member("Other.modes")).is_err());
        assert!(mark_one(&mut definitions, &member("modes")).is_err());
    }
}
