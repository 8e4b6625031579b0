//! Two [`Surface`]s compared, written as Markdown a maintainer reads top to bottom: what a client
//! may now receive or send, what it may no longer, and what changed shape. Every list is sorted,
//! so two runs over the same schemas give the same bytes and two reports diff cleanly.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::model::{Definition, Surface};

/// The report of the change from `old` to `new`; `title` heads it (e.g. the two versions).
pub fn render(title: &str, old: &Surface, new: &Surface) -> String {
    let mut out = format!("# {title}\n\n");
    let sections = [
        ("Union variants (methods and message types)", unions(old, new)),
        ("Definitions", definitions(old, new)),
        ("Fields", fields(old, new)),
        ("Enum values", enums(old, new)),
        ("Deprecations", deprecations(old, new)),
    ];
    let mut changes = 0;
    for (heading, lines) in sections {
        if lines.is_empty() {
            continue;
        }
        changes += lines.len();
        let _ = write!(out, "## {heading}\n\n");
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
    }
    if changes == 0 {
        out.push_str("No change.\n");
    }
    out
}

fn unions(old: &Surface, new: &Surface) -> Vec<String> {
    let mut lines = Vec::new();
    let names: BTreeSet<&String> = old.unions.keys().chain(new.unions.keys()).collect();
    for name in names {
        match (old.unions.get(name), new.unions.get(name)) {
            (Some(before), Some(after)) => {
                for (tag, target) in after {
                    match before.get(tag) {
                        None => lines.push(format!("- `{name}`: added `{tag}` ({target})")),
                        Some(was) if was != target => {
                            lines.push(format!("- `{name}`: `{tag}` now carries {target} (was {was})"));
                        }
                        Some(_) => {}
                    }
                }
                for (tag, target) in before {
                    if !after.contains_key(tag) {
                        lines.push(format!("- `{name}`: removed `{tag}` ({target})"));
                    }
                }
            }
            (None, Some(after)) => lines.push(format!("- `{name}`: new union with {} variants", after.len())),
            (Some(before), None) => lines.push(format!("- `{name}`: union removed ({} variants)", before.len())),
            (None, None) => {}
        }
    }
    lines
}

fn definitions(old: &Surface, new: &Surface) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, definition) in &new.definitions {
        match old.definitions.get(name) {
            None => lines.push(format!("- added `{name}` ({})", definition.kind)),
            Some(was) if was.kind != definition.kind && !is_object(was) => {
                lines.push(format!("- `{name}` changed type: {} -> {}", was.kind, definition.kind));
            }
            Some(_) => {}
        }
    }
    for (name, definition) in &old.definitions {
        if !new.definitions.contains_key(name) {
            lines.push(format!("- removed `{name}` ({})", definition.kind));
        }
    }
    lines
}

fn is_object(definition: &Definition) -> bool {
    !definition.fields.is_empty()
}

fn fields(old: &Surface, new: &Surface) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, after) in &new.definitions {
        let Some(before) = old.definitions.get(name) else {
            continue;
        };
        let added: Vec<(&String, &super::model::Field)> = after
            .fields
            .iter()
            .filter(|(field, _)| !before.fields.contains_key(*field))
            .collect();
        let removed: Vec<(&String, &super::model::Field)> = before
            .fields
            .iter()
            .filter(|(field, _)| !after.fields.contains_key(*field))
            .collect();
        for (field, spec) in &added {
            let required = if spec.required { "required" } else { "optional" };
            lines.push(format!("- `{name}.{field}`: added, {required} {}", spec.ty));
        }
        for (field, spec) in &removed {
            lines.push(format!("- `{name}.{field}`: removed (was {})", spec.ty));
        }
        // One field gone and one of the same type come: most likely a rename.
        if let ([(gone, was)], [(came, now)]) = (removed.as_slice(), added.as_slice())
            && was.ty == now.ty
        {
            lines.push(format!(
                "- `{name}`: `{gone}` -> `{came}` looks like a rename (same type {})",
                now.ty
            ));
        }
        for (field, now) in &after.fields {
            let Some(was) = before.fields.get(field) else {
                continue;
            };
            if was.ty != now.ty {
                lines.push(format!("- `{name}.{field}`: type {} -> {}", was.ty, now.ty));
            }
            match (was.required, now.required) {
                (false, true) => lines.push(format!("- `{name}.{field}`: now required")),
                (true, false) => lines.push(format!("- `{name}.{field}`: now optional")),
                _ => {}
            }
        }
    }
    lines
}

fn enums(old: &Surface, new: &Surface) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, after) in &new.definitions {
        let Some(before) = old.definitions.get(name) else {
            continue;
        };
        for value in after.enum_values.difference(&before.enum_values) {
            lines.push(format!("- `{name}`: added `{value}`"));
        }
        for value in before.enum_values.difference(&after.enum_values) {
            lines.push(format!("- `{name}`: removed `{value}`"));
        }
    }
    lines
}

fn deprecations(old: &Surface, new: &Surface) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, after) in &new.definitions {
        let before = old.definitions.get(name);
        if after.deprecated && !before.is_some_and(|before| before.deprecated) {
            lines.push(format!("- `{name}`: deprecated"));
        }
        for (field, now) in &after.fields {
            let was = before.and_then(|before| before.fields.get(field));
            if now.deprecated && !was.is_some_and(|was| was.deprecated) {
                lines.push(format!("- `{name}.{field}`: deprecated"));
            }
        }
    }
    lines
}
