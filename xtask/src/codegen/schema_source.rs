//! One schema source -> one generated crate. A source is described by a [`SchemaSource`]; the
//! pipeline is the same for all:
//!
//! 1. read the schema file and take its definitions (`definitions` or `$defs`; a source may
//!    bring its own reader, as Codex does to flatten `definitions.v2`);
//! 2. the source's own step, if any ([`Customization`]): dispatch unions it reads from its
//!    schema's shape, types it replaces, items it adds;
//! 3. the `x-dispatch` unions ([`dispatch::annotation`]) and `x-raw-json` properties;
//! 4. the generic passes the source picks ([`passes`]);
//! 5. typify for the payload types, its untagged enums checked against the source's shape-union
//!    allow list (and refused with typify's placeholder `VariantN` variant names), its internally
//!    tagged enums given their tags; the dispatch emitter for the unions;
//! 6. the crate: `Cargo.toml` (serde, serde_json, agentwire-protocol), `lib.rs`, `generated.rs`.

use std::path::Path;

use anyhow::{Context, Result, bail};
use proc_macro2::TokenStream;
use serde_json::{Map, Value};

use super::GeneratedFile;
use super::as_sent;
use super::dispatch::{self, Union};
use super::passes::{self, Pass};
use super::rust_output::{self, Dependency};
use super::typify_runner::{self, Replacement, ShapeUnion};

/// Everything the pipeline needs to know about a source.
pub struct SchemaSource {
    /// The schema file, relative to the workspace root.
    pub schema: String,
    /// The generated crate's folder, relative to the workspace root.
    pub crate_dir: &'static str,
    /// The generated crate's package name.
    pub package: &'static str,
    /// The generated crates whose types the schema names in place of its own definitions.
    pub dependencies: &'static [Dependency],
    /// The package description (`Cargo.toml`).
    pub description: String,
    /// What the generated header says the code was generated from.
    pub generated_from: String,
    /// The crate docs and lint attributes, written verbatim at the top of `lib.rs`.
    pub crate_docs: &'static str,
    /// The generic passes to run.
    pub passes: &'static [Pass],
    /// The `#[serde(untagged)]` enums typify may emit, each with why only its shape tells its
    /// branches apart. Any other untagged enum fails the generator.
    pub shape_unions: &'static [ShapeUnion],
    /// The flat definitions of the parsed schema file.
    pub definitions: fn(Value) -> Result<Map<String, Value>>,
    /// The source's own step; [`no_customization`] for a schema that says everything itself.
    pub customize: fn(&Path, &mut Map<String, Value>) -> Result<Customization>,
}

/// What a source's own step adds to the pipeline.
#[derive(Default)]
pub struct Customization {
    /// Dispatch unions read from the schema's shape (their definitions already removed).
    pub unions: Vec<Union>,
    /// Definitions typify must not emit, and what stands for them.
    pub replacements: Vec<Replacement>,
    /// Items written before the payload types (constants).
    pub leading: TokenStream,
    /// Items written after the dispatch unions (tables built on them).
    pub trailing: TokenStream,
}

/// `definitions` or `$defs` of a schema file, as they are.
pub fn top_level_definitions(schema: Value) -> Result<Map<String, Value>> {
    let Value::Object(mut root) = schema else {
        bail!("the schema is not a JSON object")
    };
    match (root.remove("definitions"), root.remove("$defs")) {
        (Some(Value::Object(definitions)), None) | (None, Some(Value::Object(definitions))) => Ok(definitions),
        (Some(_), Some(_)) => bail!("the schema has both `definitions` and `$defs`"),
        _ => bail!("the schema has no `definitions` (or `$defs`) object"),
    }
}

/// The source step of a schema that declares its unions with `x-dispatch`.
pub fn no_customization(_root: &Path, _definitions: &mut Map<String, Value>) -> Result<Customization> {
    Ok(Customization::default())
}

/// The annotation that makes a property a `agentwire_protocol::RawJson` (kept byte for byte).
pub const RAW_JSON: &str = "x-raw-json";

/// The generated crate of `source`.
pub fn generate(root: &Path, source: &SchemaSource) -> Result<Vec<GeneratedFile>> {
    let file = code(root, source)?;
    Ok(rust_output::crate_files(
        &rust_output::Crate {
            dir: Path::new(source.crate_dir),
            package: source.package,
            description: &source.description,
            source: &source.generated_from,
            inner: source.crate_docs,
            lib_items: rust_output::PROTOCOL_REEXPORTS,
            protocol: true,
            dependencies: source.dependencies,
        },
        &file,
    ))
}

/// The code of `source`'s `generated.rs`.
pub fn code(root: &Path, source: &SchemaSource) -> Result<syn::File> {
    let path = root.join(&source.schema);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    code_of(root, source, schema).with_context(|| source.schema.clone())
}

fn code_of(root: &Path, source: &SchemaSource, schema: Value) -> Result<syn::File> {
    let locations = typify_runner::definition_locations(&source.schema, &schema);
    let mut definitions = (source.definitions)(schema)?;
    let Customization {
        mut unions,
        mut replacements,
        leading,
        trailing,
    } = (source.customize)(root, &mut definitions)?;
    let folder = Path::new(&source.schema).parent().unwrap_or(Path::new(""));
    let as_sent = as_sent::mark(&root.join(folder).join(as_sent::FILE), &mut definitions)?;
    replacements.extend(as_sent.replacements.iter().cloned());
    let annotated = dispatch::annotation::extract(&mut definitions)?;
    replacements.extend(annotated.iter().map(|union| Replacement {
        definition: union.name.clone(),
        rust_type: union.ident.to_string(),
    }));
    unions.extend(annotated);
    as_sent::wrap_payloads(&as_sent, &mut unions)?;
    for ty in &PROTOCOL_TYPES {
        if point_at(&mut definitions, ty.marked, ty.definition) {
            definitions.insert(ty.definition.into(), serde_json::json!({}));
            replacements.push(Replacement {
                definition: ty.definition.into(),
                rust_type: ty.rust_type.into(),
            });
        }
    }
    passes::run(&mut definitions, source.passes);

    let payloads = typify_runner::generate(&source.schema, &definitions, &replacements)?;
    let payloads = dispatch::serde_tagged::rewrite(payloads)?;
    let dispatch = dispatch::emit(&unions);
    let file = rust_output::parse(
        source.crate_dir,
        quote::quote! {
            #leading
            #payloads
            #dispatch
            #trailing
        },
    )?;
    // The dispatch unions are never untagged, so the whole file is checked.
    typify_runner::check_shape_unions(&source.schema, &file, source.shape_unions, &locations)?;
    Ok(file)
}

/// A property type of `agentwire_protocol` the generator gives instead of typify's: how a schema
/// marks the property, and the definition such properties are pointed at, which typify replaces
/// with the type.
struct ProtocolType {
    marked: fn(&Map<String, Value>) -> bool,
    definition: &'static str,
    rust_type: &'static str,
}

const PROTOCOL_TYPES: [ProtocolType; 2] = [
    ProtocolType {
        marked: is_raw_json,
        definition: "AgentwireRawJson",
        rust_type: "::agentwire_protocol::RawJson",
    },
    ProtocolType {
        marked: is_json_string,
        definition: "AgentwireJsonString",
        rust_type: "::agentwire_protocol::JsonString",
    },
];

/// `"x-raw-json": true`: kept byte for byte.
fn is_raw_json(schema: &Map<String, Value>) -> bool {
    schema.get(RAW_JSON) == Some(&Value::Bool(true))
}

/// A string whose content is JSON, as JSON Schema says it (`"contentMediaType":
/// "application/json"`): decoded as the string and the JSON it holds.
fn is_json_string(schema: &Map<String, Value>) -> bool {
    schema.get("type") == Some(&Value::from("string"))
        && schema.get("contentMediaType") == Some(&Value::from("application/json"))
}

/// Points every property `marked` says at the definition `definition`, keeping its
/// description; says whether there was one.
fn point_at(definitions: &mut Map<String, Value>, marked: fn(&Map<String, Value>) -> bool, definition: &str) -> bool {
    fn visit(value: &mut Value, marked: fn(&Map<String, Value>) -> bool, definition: &str, found: &mut bool) {
        match value {
            Value::Object(map) => {
                if marked(map) {
                    let mut pointed = Map::new();
                    if let Some(description) = map.remove("description") {
                        pointed.insert("description".into(), description);
                    }
                    pointed.insert("$ref".into(), Value::String(format!("#/definitions/{definition}")));
                    *map = pointed;
                    *found = true;
                    return;
                }
                map.values_mut()
                    .for_each(|child| visit(child, marked, definition, found));
            }
            Value::Array(items) => items.iter_mut().for_each(|item| visit(item, marked, definition, found)),
            _ => {}
        }
    }
    let mut found = false;
    definitions
        .values_mut()
        .for_each(|schema| visit(schema, marked, definition, &mut found));
    found
}

/// The version a schema is pinned to: the bold text of the `| row | ... **X** ... |` row of its
/// folder's `UPSTREAM.md`. Every source writes its pinned version in a `version` row this way
/// (`cargo xtask sync-schemas` too); a source pinned to two releases names the second row.
pub fn pinned(schema_dir: &Path, row: &str) -> Result<String> {
    let path = schema_dir.join("UPSTREAM.md");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    pinned_in(&text, row).with_context(|| format!("{}: no `| {row} | ... **X** ... |` row", path.display()))
}

fn pinned_in(text: &str, row: &str) -> Option<String> {
    let rest = text.lines().find_map(|line| line.strip_prefix(&format!("| {row} |")))?;
    let version = rest.split("**").nth(1)?.trim();
    (!version.is_empty()).then(|| version.to_string())
}

#[cfg(test)]
mod tests {
    use super::pinned_in;

    #[test]
    fn the_pinned_version_is_the_bold_text_of_its_row() {
        let text = "| | |\n|---|---|\n| package | npm `x` |\n| version | **1.2.3** (tarball `ab`) |\n| types | npm `y` **0.9** |\n";
        assert_eq!(pinned_in(text, "version").as_deref(), Some("1.2.3"));
        assert_eq!(pinned_in(text, "types").as_deref(), Some("0.9"));
        assert_eq!(pinned_in(text, "package"), None, "a row without a bold version");
        assert_eq!(pinned_in(text, "program"), None, "no such row");
        assert_eq!(pinned_in("| version | **** |", "version"), None, "an empty version");
    }
}
