//! Shared by the `codex_exec_schema` and `codex_rollout_schema` targets (a module, not a target):
//! a hand-written provider schema with `x-dispatch` unions, checked value by value.
//!
//! A value passes when it is valid under the whole schema (the plain `oneOf`s, as any validator
//! reads them), its tags name a branch at every union on the way down (`x-dispatch`), it is valid
//! under each branch it lands in, and no other branch of the same union accepts it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use agentwire_tests::x_dispatch::{self, Landing};
use serde_json::{Value, json};

pub struct SchemaUnderTest {
    pub schema: Value,
    name: String,
    root_union: String,
    whole: jsonschema::Validator,
    branches: HashMap<String, jsonschema::Validator>,
}

/// How many values landed in each `(union, tag)`, over a whole corpus folder.
pub type Landings = BTreeMap<(String, String), usize>;

impl SchemaUnderTest {
    /// Loads `schemas/<relative>` (draft-07), checks it against the meta-schema and its
    /// annotations, and compiles it.
    pub fn load(relative: &str, root_union: &str) -> Self {
        let path = agentwire_tests::workspace_root().join("schemas").join(relative);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{relative}: not JSON: {e}"));
        if let Err(e) = jsonschema::draft7::meta::validate(&schema) {
            panic!("{relative} is not a valid draft-07 schema: {e}");
        }
        let errors = x_dispatch::annotation_errors(&schema);
        assert!(
            errors.is_empty(),
            "{relative}: bad `x-dispatch` annotations:\n{}",
            errors.join("\n")
        );
        assert_eq!(
            schema["$ref"],
            json!(format!("#/definitions/{root_union}")),
            "{relative}: the root is not the union {root_union}"
        );
        let whole = jsonschema::draft7::new(&schema).unwrap_or_else(|e| panic!("{relative} does not compile: {e}"));
        Self {
            schema,
            name: relative.to_owned(),
            root_union: root_union.to_owned(),
            whole,
            branches: HashMap::new(),
        }
    }

    /// The tag values of a union, as its `x-dispatch` lists them.
    pub fn tags(&self, union: &str) -> Vec<String> {
        let (_, variants) = x_dispatch::dispatch_of(&self.schema, union)
            .unwrap_or_else(|| panic!("{}: {union} is not an `x-dispatch` union", self.name));
        variants.keys().map(|tag| (*tag).to_owned()).collect()
    }

    fn branch(&mut self, definition: &str) -> &jsonschema::Validator {
        if !self.branches.contains_key(definition) {
            let document = json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "$ref": format!("#/definitions/{definition}"),
                "definitions": self.schema["definitions"],
            });
            let validator = jsonschema::draft7::new(&document)
                .unwrap_or_else(|e| panic!("{}: {definition} does not compile on its own: {e}", self.name));
            self.branches.insert(definition.to_owned(), validator);
        }
        &self.branches[definition]
    }

    /// Checks one value; on success, the branches it landed in, outermost first.
    pub fn check(&mut self, value: &Value) -> Result<Vec<Landing>, Vec<String>> {
        let mut errors: Vec<String> = self
            .whole
            .iter_errors(value)
            .map(|e| format!("schema: at `{}`: {e}", e.instance_path()))
            .collect();
        let landings = match x_dispatch::dispatch(&self.schema, &self.root_union, value) {
            Ok(landings) => landings,
            Err(e) => {
                errors.push(format!("dispatch: {e}"));
                return Err(errors);
            }
        };
        for landing in &landings {
            let part = value
                .pointer(&landing.pointer)
                .expect("a landing points into the value");
            let branch_errors: Vec<String> = self
                .branch(&landing.variant)
                .iter_errors(part)
                .map(|e| {
                    format!(
                        "branch {}: at `{}{}`: {e}",
                        landing.variant,
                        landing.pointer,
                        e.instance_path()
                    )
                })
                .collect();
            errors.extend(branch_errors);
            let (_, variants) = x_dispatch::dispatch_of(&self.schema, &landing.union).expect("a dispatched union");
            let others: Vec<String> = variants
                .values()
                .filter(|variant| **variant != landing.variant)
                .map(|variant| (*variant).to_owned())
                .collect();
            for other in others {
                if self.branch(&other).is_valid(part) {
                    errors.push(format!(
                        "at `{}`: {} ({}={:?}) is also valid as {other}",
                        landing.pointer, landing.variant, landing.union, landing.tag
                    ));
                }
            }
        }
        if errors.is_empty() { Ok(landings) } else { Err(errors) }
    }

    /// Whether the value is turned down both by a plain validator of the whole schema and by
    /// [`Self::check`].
    pub fn rejects(&mut self, value: &Value) -> bool {
        !self.whole.is_valid(value) && self.check(value).is_err()
    }

    /// Checks every line of every trace in `tests/corpus/<source>/`; panics listing every line
    /// that fails. Returns the landing counts.
    pub fn check_corpus(&mut self, source: &str) -> Landings {
        let traces = agentwire_tests::corpus_traces(source);
        assert!(!traces.is_empty(), "tests/corpus/{source}/ has no traces");
        let mut landings = Landings::new();
        let mut failures = Vec::new();
        let mut lines = 0;
        for trace in &traces {
            let name = file_name(trace);
            let text = std::fs::read_to_string(trace).unwrap_or_else(|e| panic!("{name}: {e}"));
            for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
                lines += 1;
                let value: Value =
                    serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: not JSON: {e}", index + 1));
                match self.check(&value) {
                    Ok(found) => {
                        for landing in found {
                            *landings.entry((landing.union, landing.tag)).or_default() += 1;
                        }
                    }
                    Err(errors) => failures.push(format!("{name}:{}:\n  {}", index + 1, errors.join("\n  "))),
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {lines} lines of tests/corpus/{source}/ fail {}:\n{}",
            failures.len(),
            self.name,
            failures.join("\n")
        );
        println!("{source}: {lines} lines in {} traces; landings:", traces.len());
        for ((union, tag), count) in &landings {
            println!("  {union} {tag}: {count}");
        }
        landings
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
