//! Fields real agents send that the stable schema does not declare, grafted on as typed,
//! optional properties so they decode instead of vanishing (typify's structs drop unknown keys
//! silently): `sessionCapabilities.fork`, the `session/prompt` reply's `usage` and
//! `mcpCapabilities.acp` from ACP's own `schema.unstable.json`, and `models` on the
//! `session/new` / `session/load` replies from the hand-written `undeclared.schema.json`
//! (neither 2.4.0 file declares it), and on `session/resume`'s, whose reply is the same shape (no
//! corpus trace resumes one: the mapping copies `models` from every session reply it reads). The same file supplies the `env_var` authentication method,
//! grafted onto `AuthMethod` as a tagged branch: without it an `env_var` entry decodes as the
//! untagged `agent` default and loses its `type` and `vars`.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

/// ACP's unstable superset, vendored beside `schema.json`.
const UNSTABLE: &str = "schema.unstable.json";

/// The hand-written definitions of what no ACP schema declares.
pub const FILE: &str = "undeclared.schema.json";

/// (stable definition, property) taken as the unstable schema writes them.
const FROM_UNSTABLE: [(&str, &str); 3] = [
    ("SessionCapabilities", "fork"),
    ("PromptResponse", "usage"),
    ("McpCapabilities", "acp"),
];

/// (stable definition, property, definition of [`FILE`]).
const FROM_FILE: [(&str, &str, &str); 3] = [
    ("NewSessionResponse", "models", "UndeclaredSessionModelState"),
    ("LoadSessionResponse", "models", "UndeclaredSessionModelState"),
    ("ResumeSessionResponse", "models", "UndeclaredSessionModelState"),
];

/// (stable union, tag field, tag value, definition of [`FILE`]): a branch tagged like the
/// union's others, inserted before its untagged default branch (the last), which would
/// otherwise take the value.
const BRANCHES_FROM_FILE: [(&str, &str, &str, &str); 1] =
    [("AuthMethod", "type", "env_var", "UndeclaredAuthMethodEnvVar")];

pub fn graft(schema_dir: &Path, definitions: &mut Map<String, Value>) -> Result<()> {
    let unstable = read_defs(&schema_dir.join(UNSTABLE))?;
    for (definition, property) in FROM_UNSTABLE {
        let schema = unstable
            .get(definition)
            .and_then(|d| d.pointer(&format!("/properties/{property}")))
            .with_context(|| format!("{UNSTABLE}: {definition}.{property} is missing"))?
            .clone();
        copy_referenced(&schema, &unstable, definitions)?;
        add_property(definitions, definition, property, schema)?;
    }
    let local = read_defs(&schema_dir.join(FILE))?;
    for (name, schema) in &local {
        if !name.starts_with("Undeclared") || definitions.insert(name.clone(), schema.clone()).is_some() {
            bail!("{FILE}: {name} must start with `Undeclared` and be new");
        }
    }
    for (definition, property, target) in FROM_FILE {
        if !local.contains_key(target) {
            bail!("{FILE}: {target} is missing");
        }
        let schema = json!({"anyOf": [{"$ref": format!("#/$defs/{target}")}, {"type": "null"}]});
        add_property(definitions, definition, property, schema)?;
    }
    for (union, tag, value, target) in BRANCHES_FROM_FILE {
        if !local.contains_key(target) {
            bail!("{FILE}: {target} is missing");
        }
        add_branch(definitions, union, tag, value, target)?;
    }
    Ok(())
}

fn add_branch(definitions: &mut Map<String, Value>, union: &str, tag: &str, value: &str, target: &str) -> Result<()> {
    let branches = definitions
        .get_mut(union)
        .and_then(|d| d.get_mut("anyOf"))
        .and_then(Value::as_array_mut)
        .with_context(|| format!("{union} has no `anyOf`"))?;
    if branches
        .iter()
        .any(|branch| branch.pointer(&format!("/properties/{tag}/const")) == Some(&json!(value)))
    {
        bail!("{union} declares `{tag}: {value}` now: drop the graft");
    }
    let default = branches.len().checked_sub(1).context("an empty union")?;
    if branches[default].pointer(&format!("/properties/{tag}")).is_some() {
        bail!("{union}: the last branch is tagged, not the untagged default");
    }
    let branch = json!({
        "type": "object",
        "properties": {tag: {"type": "string", "const": value}},
        "required": [tag],
        "allOf": [{"$ref": format!("#/$defs/{target}")}],
    });
    branches.insert(default, branch);
    Ok(())
}

fn read_defs(path: &Path) -> Result<Map<String, Value>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    match schema.get_mut("$defs").map(Value::take) {
        Some(Value::Object(defs)) => Ok(defs),
        _ => bail!("{}: no `$defs`", path.display()),
    }
}

fn add_property(definitions: &mut Map<String, Value>, definition: &str, property: &str, schema: Value) -> Result<()> {
    let properties = definitions
        .get_mut(definition)
        .and_then(|d| d.get_mut("properties"))
        .and_then(Value::as_object_mut)
        .with_context(|| format!("{definition} has no properties"))?;
    if properties.insert(property.into(), schema).is_some() {
        bail!("{definition}.{property} is declared now: drop the graft");
    }
    Ok(())
}

/// Copies the unstable definitions `schema` refers to (transitively) that the stable file lacks.
fn copy_referenced(schema: &Value, unstable: &Map<String, Value>, definitions: &mut Map<String, Value>) -> Result<()> {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                && !definitions.contains_key(name)
            {
                let target = unstable
                    .get(name)
                    .with_context(|| format!("{UNSTABLE}: $ref {name} is not defined"))?;
                definitions.insert(name.into(), target.clone());
                copy_referenced(target, unstable, definitions)?;
            }
            map.values()
                .try_for_each(|child| copy_referenced(child, unstable, definitions))
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| copy_referenced(item, unstable, definitions)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth_method(branches: Value) -> Map<String, Value> {
        let mut definitions = Map::new();
        definitions.insert("AuthMethod".into(), json!({"anyOf": branches}));
        definitions
    }

    #[test]
    fn a_branch_goes_before_the_untagged_default() {
        let terminal = json!({"properties": {"type": {"const": "terminal"}}, "allOf": [{"$ref": "#/$defs/T"}]});
        let agent = json!({"title": "agent", "allOf": [{"$ref": "#/$defs/A"}]});
        let mut definitions = auth_method(json!([terminal, agent]));
        add_branch(&mut definitions, "AuthMethod", "type", "env_var", "UndeclaredE").expect("grafts");
        let branches = definitions["AuthMethod"]["anyOf"].as_array().expect("anyOf");
        assert_eq!(branches.len(), 3);
        assert_eq!(branches[1]["properties"]["type"]["const"], "env_var");
        assert_eq!(branches[1]["allOf"][0]["$ref"], "#/$defs/UndeclaredE");
        assert_eq!(branches[2]["title"], "agent");
    }

    #[test]
    fn a_declared_branch_or_a_tagged_last_branch_fails_the_graft() {
        let env_var = json!({"properties": {"type": {"const": "env_var"}}});
        let agent = json!({"title": "agent"});
        let mut definitions = auth_method(json!([env_var, agent]));
        let error = add_branch(&mut definitions, "AuthMethod", "type", "env_var", "UndeclaredE").expect_err("declared");
        assert!(error.to_string().contains("drop the graft"), "{error}");
        let terminal = json!({"properties": {"type": {"const": "terminal"}}});
        let mut definitions = auth_method(json!([terminal]));
        assert!(add_branch(&mut definitions, "AuthMethod", "type", "env_var", "UndeclaredE").is_err());
    }
}
