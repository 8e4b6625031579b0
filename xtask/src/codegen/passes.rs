//! Generic rewrites of JSON Schema into the subset typify turns into good Rust. A source picks
//! the passes it needs ([`ALL`] for most); each runs on every schema node, children first.
//!
//! - [`Pass::DropUnsupported`]: `not` (unsupported by typify), nested `$schema` keys and a
//!   string's `pattern` go: typify checks a pattern with the `regress` crate, which generated
//!   crates do not depend on (OpenCode's ids are patterned `^ses`, `^msg`: a prefix the
//!   mapping reads nothing from).
//! - [`Pass::ExclusiveAnyOfToOneOf`]: an `anyOf` whose branches exclude each other (string
//!   enums, and objects each requiring a key no other branch has) is a `oneOf`: typify would
//!   otherwise make it a struct of flattened optional "subtypes". Its string-enum branches merge
//!   into one, and an open fallback branch (`{"type": ["string", "object"]}`, "anything else") is
//!   dropped: the Rust type lists the known values, so a value a newer provider adds fails to
//!   decode and reaches the normalizer's warning path with the raw message instead of passing
//!   unnoticed.
//! - [`Pass::MergeEnumBranches`]: a `oneOf` whose branches are all one-value string enums is one
//!   string enum; the branch descriptions are kept in the enum's description.
//! - [`Pass::DistributeSharedProperties`]: `properties` beside a `oneOf` (fields every variant
//!   shares) are copied into each branch, so typify sees plain tagged variants.
//! - [`Pass::MergeAnyOfObjects`]: `properties` beside an `anyOf` of objects: the branches'
//!   fields are merged in as optional.
//! - [`Pass::TitleUntitledBranches`]: object branches of a union that have no `title` are titled
//!   after the field only they require, so variants get names, not `VariantN`.
//! - [`Pass::OptionalArraysKeepEmpty`]: an optional array property, or an optional free-form
//!   object (no `properties`: a JSON map), becomes `anyOf [<it>, null]`: typify writes a plain
//!   optional array as `Vec<T>` and a map as `Map` skipped when empty, so an explicit `[]` or
//!   `{}` on the wire would vanish on re-encoding (a Claude allow's `updatedInput: {}` would
//!   reach the CLI without it); as `Option<_>` absent and empty stay apart.
//! - [`Pass::AbsentStaysAbsent`]: an optional property's `default` moves into its description
//!   ("Absent means ..."): typify would make it a plain field filled with the default when the
//!   sender left it out, so a re-encoded message would gain members nobody sent (an ACP
//!   `initialize` an empty `auth` capability). As `Option<_>` absent stays absent, and the
//!   mapping code that needs the value says which default it takes.

use serde_json::{Map, Value};

/// One rewrite; see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pass {
    DropUnsupported,
    ExclusiveAnyOfToOneOf,
    MergeEnumBranches,
    DistributeSharedProperties,
    MergeAnyOfObjects,
    TitleUntitledBranches,
    OptionalArraysKeepEmpty,
    AbsentStaysAbsent,
}

/// Every pass, in the order they run on a node.
pub const ALL: &[Pass] = &[
    Pass::DropUnsupported,
    Pass::ExclusiveAnyOfToOneOf,
    Pass::MergeEnumBranches,
    Pass::DistributeSharedProperties,
    Pass::MergeAnyOfObjects,
    Pass::TitleUntitledBranches,
    Pass::OptionalArraysKeepEmpty,
    Pass::AbsentStaysAbsent,
];

/// Applies `passes` to every definition, depth first.
pub fn run(definitions: &mut Map<String, Value>, passes: &[Pass]) {
    for schema in definitions.values_mut() {
        run_on(schema, passes);
    }
}

fn run_on(value: &mut Value, passes: &[Pass]) {
    match value {
        Value::Object(map) => {
            map.values_mut().for_each(|child| run_on(child, passes));
            for pass in ALL.iter().filter(|pass| passes.contains(pass)) {
                match pass {
                    Pass::DropUnsupported => {
                        map.remove("not");
                        map.remove("$schema");
                        if map.get("pattern").is_some_and(Value::is_string) {
                            map.remove("pattern");
                        }
                    }
                    Pass::ExclusiveAnyOfToOneOf => exclusive_any_of_to_one_of(map),
                    Pass::MergeEnumBranches => merge_enum_branches(map),
                    Pass::DistributeSharedProperties => distribute_shared_properties(map, "oneOf"),
                    Pass::MergeAnyOfObjects => merge_any_of_objects(map),
                    Pass::TitleUntitledBranches => title_untitled_branches(map),
                    Pass::OptionalArraysKeepEmpty => keep_empty_optional_arrays(map),
                    Pass::AbsentStaysAbsent => absent_stays_absent(map),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| run_on(item, passes)),
        _ => {}
    }
}

/// `oneOf: [{type: string, enum: [a], description}, ...]` -> `{type: string, enum: [a, ...]}`.
fn merge_enum_branches(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("oneOf") else {
        return;
    };
    let mut values = Vec::new();
    let mut notes = Vec::new();
    for branch in branches {
        let single = branch
            .get("enum")
            .and_then(Value::as_array)
            .filter(|values| values.len() == 1);
        let (Some(single), Some("string")) = (single, branch.get("type").and_then(Value::as_str)) else {
            return;
        };
        let value = single[0].clone();
        if let (Some(name), Some(description)) = (value.as_str(), branch.get("description").and_then(Value::as_str)) {
            notes.push(format!("- `{name}`: {description}"));
        }
        values.push(value);
    }
    map.remove("oneOf");
    map.insert("type".into(), Value::String("string".into()));
    map.insert("enum".into(), Value::Array(values));
    if !notes.is_empty() {
        let head = map
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!("{d}\n\n"))
            .unwrap_or_default();
        map.insert(
            "description".into(),
            Value::String(format!("{head}{}", notes.join("\n"))),
        );
    }
}

/// Moves `properties`/`required` that sit beside a `oneOf`/`anyOf` into each object branch.
fn distribute_shared_properties(map: &mut Map<String, Value>, key: &str) {
    let Some(Value::Object(shared)) = map.get("properties").cloned() else {
        return;
    };
    let required = map_required(map.get("required"));
    let Some(Value::Array(branches)) = map.get_mut(key) else {
        return;
    };
    if !branches.iter().all(|branch| branch.get("properties").is_some()) {
        return;
    }
    for branch in branches.iter_mut() {
        let Value::Object(branch) = branch else { continue };
        let properties = branch.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(properties) = properties {
            for (name, schema) in &shared {
                properties.entry(name.clone()).or_insert_with(|| schema.clone());
            }
        }
        if !required.is_empty() {
            let list = branch.entry("required").or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list {
                for name in &required {
                    if !list.iter().any(|v| v == name.as_str()) {
                        list.push(Value::String(name.clone()));
                    }
                }
            }
        }
        branch.entry("type").or_insert_with(|| Value::String("object".into()));
    }
    map.remove("properties");
    map.remove("required");
    map.remove("type");
}

pub fn map_required(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// `properties` beside an `anyOf` whose branches are objects: one object whose extra fields
/// (from the branches) are optional. The branches only constrain which fields appear together,
/// which a struct of options represents without loss.
fn merge_any_of_objects(map: &mut Map<String, Value>) {
    if !map.contains_key("properties") {
        return;
    }
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        return;
    };
    if !branches
        .iter()
        .all(|b| b.get("properties").is_some() || b.get("required").is_some())
    {
        return;
    }
    let branches = branches.clone();
    map.remove("anyOf");
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        return;
    };
    for branch in branches {
        if let Some(Value::Object(extra)) = branch.get("properties") {
            for (name, schema) in extra {
                properties.entry(name.clone()).or_insert_with(|| schema.clone());
            }
        }
    }
}

/// Titles each untitled object branch of a `oneOf`/`anyOf` after the first field it requires
/// that no other branch requires. typify names variants after titles.
fn title_untitled_branches(map: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = map.get_mut(key) else {
            continue;
        };
        let required: Vec<Vec<String>> = branches.iter().map(|b| map_required(b.get("required"))).collect();
        for (index, branch) in branches.iter_mut().enumerate() {
            let Value::Object(branch) = branch else { continue };
            if branch.contains_key("title") || !branch.contains_key("properties") {
                continue;
            }
            let own = required[index].iter().find(|field| {
                required
                    .iter()
                    .enumerate()
                    .all(|(other, fields)| other == index || !fields.contains(field))
            });
            if let Some(field) = own {
                branch.insert(
                    "title".into(),
                    Value::String(heck::ToUpperCamelCase::to_upper_camel_case(field.as_str())),
                );
            }
        }
    }
}

fn exclusive_any_of_to_one_of(map: &mut Map<String, Value>) {
    if map.contains_key("properties") {
        return;
    }
    let Some(Value::Array(all)) = map.get("anyOf") else {
        return;
    };
    let is_open_fallback = |b: &Value| {
        b.as_object()
            .is_some_and(|b| b.len() == 1 && b.get("type").is_some_and(Value::is_array))
    };
    let branches: Vec<Value> = all.iter().filter(|b| !is_open_fallback(b)).cloned().collect();
    let is_string_enum = |b: &Value| {
        b.get("type").and_then(Value::as_str) == Some("string")
            && b.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.iter().all(Value::is_string))
    };
    let required: Vec<Vec<String>> = branches.iter().map(|b| map_required(b.get("required"))).collect();
    let objects_exclusive = branches.iter().enumerate().all(|(index, branch)| {
        is_string_enum(branch)
            || (branch.get("type").and_then(Value::as_str) == Some("object")
                && required[index].iter().any(|field| {
                    required
                        .iter()
                        .enumerate()
                        .all(|(other, fields)| other == index || !fields.contains(field))
                }))
    });
    let has_object = branches.iter().any(|b| !is_string_enum(b));
    if !objects_exclusive || !has_object || branches.len() < 2 {
        return;
    }
    let (enums, mut rest): (Vec<Value>, Vec<Value>) = branches.iter().cloned().partition(|b| is_string_enum(b));
    let mut values = Vec::new();
    let mut notes = Vec::new();
    for branch in &enums {
        for value in branch["enum"].as_array().into_iter().flatten() {
            values.push(value.clone());
            if let (Some(name), Some(description)) = (value.as_str(), branch.get("description").and_then(Value::as_str))
            {
                notes.push(format!("- `{name}`: {description}"));
            }
        }
    }
    if !values.is_empty() {
        let mut merged = Map::new();
        merged.insert("type".into(), Value::String("string".into()));
        merged.insert("enum".into(), Value::Array(values));
        if !notes.is_empty() {
            merged.insert("description".into(), Value::String(notes.join("\n")));
        }
        rest.insert(0, Value::Object(merged));
    }
    map.remove("anyOf");
    map.insert("oneOf".into(), Value::Array(rest));
}

fn keep_empty_optional_arrays(map: &mut Map<String, Value>) {
    let required = map_required(map.get("required"));
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        return;
    };
    for (name, schema) in properties.iter_mut() {
        let kind = schema.get("type").and_then(Value::as_str);
        let map = kind == Some("object") && schema.get("properties").is_none();
        if required.contains(name) || !(kind == Some("array") || map) {
            continue;
        }
        let mut array = schema.take();
        let description = array.as_object_mut().and_then(|a| a.remove("description"));
        if let Some(object) = array.as_object_mut() {
            object.remove("default");
        }
        let mut wrapper = Map::new();
        if let Some(description) = description {
            wrapper.insert("description".into(), description);
        }
        wrapper.insert(
            "anyOf".into(),
            Value::Array(vec![array, serde_json::json!({ "type": "null" })]),
        );
        *schema = Value::Object(wrapper);
    }
}

/// Optional properties with a `default` lose it to their description.
fn absent_stays_absent(map: &mut Map<String, Value>) {
    let required = map_required(map.get("required"));
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        return;
    };
    for (name, schema) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        let Some(property) = schema.as_object_mut() else {
            continue;
        };
        let Some(default) = property.remove("default") else {
            continue;
        };
        let note = format!("Absent means `{default}`.");
        let description = match property.get("description").and_then(Value::as_str) {
            Some(description) => format!("{description}\n\n{note}"),
            None => note,
        };
        property.insert("description".into(), Value::String(description));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    #[test]
    fn an_optional_default_becomes_a_note_and_a_required_one_stays() {
        let mut definitions = Map::new();
        definitions.insert(
            "Capabilities".into(),
            json!({
                "type": "object",
                "required": ["version"],
                "properties": {
                    "terminal": { "type": "boolean", "default": false, "description": "Runs commands." },
                    "version": { "type": "integer", "default": 1 }
                }
            }),
        );
        super::run(&mut definitions, &[super::Pass::AbsentStaysAbsent]);
        let properties = &definitions["Capabilities"]["properties"];
        assert_eq!(
            properties["terminal"],
            json!({ "type": "boolean", "description": "Runs commands.\n\nAbsent means `false`." })
        );
        assert_eq!(properties["version"]["default"], Value::from(1));
        let text = crate::codegen::typify_runner::generate("s.json", &definitions, &[])
            .unwrap()
            .to_string();
        let fields: String = text.split_whitespace().collect();
        assert!(fields.contains("pubterminal:::std::option::Option<bool>,"), "{text}");
    }
}
