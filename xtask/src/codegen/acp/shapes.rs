//! ACP's untagged `anyOf`s, made into the `oneOf`s typify turns into enums.
//!
//! typify makes an `anyOf` a struct of `#[serde(flatten)]` optional "subtypes", which cannot
//! decode a string or an array at all and accepts any object. The unions below have branches
//! that exclude each other by shape, so they are read as `oneOf` (untagged enums, each listed
//! with its reason among the source's shape unions).
//!
//! Open string sets (`NoticeSeverity`, ...: documented `const` values, then a branch titled
//! `other` taking any string) become `oneOf [{enum: [documented values]}, <the rest>]`: an enum
//! `Known(<Name>Known)` / `Other(String)` (`<Name>Known` a definition of its own), so a documented value decodes as itself and a new one
//! still decodes.
//!
//! Scoped unions (`ElicitationFormMode`, ...: the fields every branch has, beside an `anyOf` of
//! titled branches `{title, allOf: [{$ref: <scope>}]}`) get each scope's fields merged into its
//! branch and are read as `oneOf`; the generic pass then copies the shared fields into each
//! branch. typify merges the `anyOf` with the shared fields itself otherwise and loses the
//! titles, naming the variants `Variant0`, `Variant1`; now they are named after the titles.

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::tagged::{merge_payload, payload_ref};

/// Object unions whose branches exclude each other by their fields.
const EXCLUSIVE: [&str; 5] = [
    "AuthMethod",
    "McpServer",
    "EmbeddedResourceResource",
    "SessionConfigSelectOptions",
    "SetSessionConfigOptionRequest",
];

/// Object unions of titled scope branches beside the fields every branch has.
const SCOPED: [&str; 2] = ["ElicitationFormMode", "ElicitationUrlMode"];

/// Open string sets.
const OPEN_STRINGS: [&str; 5] = [
    "NoticeSeverity",
    "CompactionStatus",
    "SessionConfigOptionCategory",
    "CursorTodoStatus",
    "CursorSubagentType",
];

pub fn rewrite(definitions: &mut Map<String, Value>) -> Result<()> {
    for name in EXCLUSIVE {
        let definition = definitions
            .get_mut(name)
            .and_then(Value::as_object_mut)
            .with_context(|| format!("definition {name} is missing"))?;
        let Some(Value::Array(mut branches)) = definition.remove("anyOf") else {
            bail!("{name} has no `anyOf`")
        };
        branches.iter_mut().for_each(strict_tag);
        definition.insert("oneOf".into(), Value::Array(branches));
    }
    for name in SCOPED {
        let definition = definitions
            .get_mut(name)
            .and_then(Value::as_object_mut)
            .with_context(|| format!("definition {name} is missing"))?;
        if !definition.contains_key("properties") {
            bail!("{name} has no shared `properties`")
        }
        let Some(Value::Array(mut branches)) = definition.remove("anyOf") else {
            bail!("{name} has no `anyOf`")
        };
        for branch in &mut branches {
            let scope = branch
                .as_object()
                .filter(|branch| branch.contains_key("title"))
                .and_then(payload_ref)
                .with_context(|| format!("{name}: a branch is not `{{title, allOf: [{{$ref}}]}}`"))?;
            let payload = definitions
                .get(&scope)
                .cloned()
                .with_context(|| format!("{name}: $ref {scope} is not defined"))?;
            merge_payload(branch.as_object_mut().expect("an object"), &payload);
        }
        definitions[name]
            .as_object_mut()
            .expect("an object")
            .insert("oneOf".into(), Value::Array(branches));
    }
    for name in OPEN_STRINGS {
        let definition = definitions
            .get_mut(name)
            .and_then(Value::as_object_mut)
            .with_context(|| format!("definition {name} is missing"))?;
        let Some(Value::Array(branches)) = definition.remove("anyOf") else {
            bail!("{name} has no `anyOf`")
        };
        let (known, rest): (Vec<Value>, Vec<Value>) = branches
            .into_iter()
            .partition(|branch| branch.get("const").is_some_and(Value::is_string));
        let values: Vec<Value> = known.iter().map(|branch| branch["const"].clone()).collect();
        let descriptions: Vec<String> = known
            .iter()
            .filter_map(|branch| {
                Some(format!(
                    "- `{}`: {}",
                    branch["const"].as_str()?,
                    branch.get("description")?.as_str()?
                ))
            })
            .collect();
        let known_name = format!("{name}Known");
        let mut one_of = vec![json!({"title": "Known", "$ref": format!("#/$defs/{known_name}")})];
        one_of.extend(rest);
        definition.insert("oneOf".into(), Value::Array(one_of));
        let known = json!({
            "description": format!("A documented value of `{name}`.\n\n{}", descriptions.join("\n")),
            "type": "string",
            "enum": values,
        });
        if definitions.insert(known_name.clone(), known).is_some() {
            bail!("{known_name} is already defined");
        }
    }
    Ok(())
}

/// A branch tagged by a `const` property: the tag becomes a one-value `enum` (typify reads no
/// `const` and would type it `String`, so `{"type": "env_var", ...}` would decode as the
/// `terminal` branch), and an untitled branch is titled after the constant, so its variant is
/// named after it (`terminal` -> `Terminal`), not after the tag field.
fn strict_tag(branch: &mut Value) {
    let Value::Object(branch) = branch else { return };
    let Some(properties) = branch.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let Some((field, constant)) = properties
        .iter()
        .find_map(|(field, p)| Some((field.clone(), p.get("const")?.as_str()?.to_string())))
    else {
        return;
    };
    properties.insert(field, json!({"type": "string", "enum": [constant]}));
    if !branch.contains_key("title") {
        branch.insert("title".into(), Value::String(constant));
    }
}
