//! Every list of sources in the repository, written from `schemas/sources.toml`.
//!
//! A source is declared once, in that file: its name, family, cargo feature, the family crate's
//! feature and `SourceSpec`, where detection tries it, its raw-source labels and its row of the
//! README's table. This module writes what lists sources from it, so a new source is its crate,
//! its schema folder, its corpus and one entry there:
//!
//! - whole files: the Node addon's TypeScript `Source` (`crates/agentwire-node/sources.d.ts`);
//! - sections of hand-written files, between `@generated from schemas/sources.toml` marker lines
//!   (the rust-analyzer sourcegen way): the facade's `registry!`, its re-exports, its optional
//!   dependencies and cargo features, the workspace dependencies of the source and generated
//!   crates, and the README's table;
//! - the canonical schema's `ProviderKind` and `RuntimeEventRawSource` enums, which
//!   [`apply_to_schema`] rewrites in the schema text before the canonical model is read from it.
//!
//! The pinned versions are not repeated in `sources.toml`: the README's table reads each from its
//! schema folder's `UPSTREAM.md`, as the generated crates' `UPSTREAM_VERSION` does.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{GeneratedFile, schema_source};

/// The registry, relative to the workspace root.
pub const REGISTRY_PATH: &str = "schemas/sources.toml";
/// The facade's registry module (a `registry!` section).
const SOURCE_RS: &str = "crates/agentwire/src/source.rs";
/// The facade's root module (a re-exports section).
const LIB_RS: &str = "crates/agentwire/src/lib.rs";
/// The facade's manifest (optional dependencies and features sections).
const FACADE_TOML: &str = "crates/agentwire/Cargo.toml";
/// The workspace manifest (a workspace dependencies section).
const WORKSPACE_TOML: &str = "Cargo.toml";
/// The README (the supported-sources table).
const README: &str = "README.md";
/// The CLI's OpenTelemetry export (each provider kind's GenAI provider name).
const EXPORT_RS: &str = "crates/agentwire-cli/src/export.rs";
/// The Node addon's `Source` type, a whole generated file.
pub const SOURCES_D_TS: &str = "crates/agentwire-node/sources.d.ts";

/// The hand-written files this module rewrites sections of (the canonical schema is rewritten
/// through [`apply_to_schema`]).
pub const SECTIONED: &[&str] = &[SOURCE_RS, LIB_RS, FACADE_TOML, WORKSPACE_TOML, README, EXPORT_RS];

/// `schemas/sources.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// Every source's name, in the order format detection tries them.
    detection: Vec<String>,
    /// The canonical `ProviderKind`s, in order.
    provider: Vec<Provider>,
    family: Vec<Family>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Provider {
    kind: String,
    description: String,
    /// Its GenAI provider name (OpenTelemetry's `gen_ai.provider.name`) where the conventions
    /// name one; an agent of many providers' models goes by its own kind.
    genai: Option<String>,
}

/// A family of sources: one crate under `crates/sources/<name>`, `agentwire-source-<name>`,
/// re-exported by the facade as `agentwire::<name>`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Family {
    name: String,
    /// The re-export's doc comment.
    api: String,
    /// The generated crates its sources read: crate name -> folder under `generated/`.
    types: BTreeMap<String, String>,
    /// Its raw-source labels (the canonical `RuntimeEventRawSource`) with their descriptions.
    raw: BTreeMap<String, String>,
    source: Vec<Source>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Source {
    /// `--from`, and the corpus folder of its traces.
    name: String,
    /// The facade's `Source::<CONST>`.
    #[serde(rename = "const")]
    konst: String,
    /// The facade's cargo feature that compiles it (sources may share one).
    feature: String,
    /// The family crate's feature that compiles it; none when the family crate has none.
    module: Option<String>,
    /// Its `SourceSpec`, as a path inside the family crate.
    spec: String,
    /// The registry line's doc comment.
    doc: String,
    readme: Readme,
}

/// A row of the README's supported-sources table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Readme {
    title: String,
    program: String,
    /// The schema folder under `schemas/` whose `UPSTREAM.md` pins the version.
    schema: Option<String>,
    /// The `UPSTREAM.md` row holding the pinned version (`version` unless said).
    pin: Option<String>,
    /// Text before the pinned version (the package it is a version of).
    before: Option<String>,
    /// Text after the pinned version.
    after: Option<String>,
    /// The version cell, for a source with no schema folder of its own.
    version: Option<String>,
    /// How the schema was made (`vendored`, `hand-written`, ...).
    schema_note: Option<String>,
    /// The schema cell, where it is more than the folder and its note.
    schema_text: Option<String>,
}

impl Registry {
    /// Reads and checks `schemas/sources.toml`.
    pub fn load(root: &Path) -> Result<Registry> {
        let path = root.join(REGISTRY_PATH);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let registry: Registry = toml::from_str(&text).with_context(|| format!("parsing {REGISTRY_PATH}"))?;
        registry.check().context(REGISTRY_PATH)?;
        Ok(registry)
    }

    fn check(&self) -> Result<()> {
        let sources: Vec<&Source> = self.sources().collect();
        let mut names = BTreeSet::new();
        let mut consts = BTreeSet::new();
        for source in &sources {
            if !names.insert(source.name.as_str()) {
                bail!("the source {:?} is declared twice", source.name);
            }
            if !consts.insert(source.konst.as_str()) {
                bail!("the constant {} is declared twice", source.konst);
            }
        }
        let detection: BTreeSet<&str> = self.detection.iter().map(String::as_str).collect();
        if detection.len() != self.detection.len() || detection != names {
            bail!(
                "`detection` must name every source once: it names {:?}, the families declare {:?}",
                self.detection,
                names
            );
        }
        // A feature compiles one module of one family, whichever sources share it.
        let mut features: BTreeMap<&str, (&str, Option<&str>)> = BTreeMap::new();
        for family in &self.family {
            for source in &family.source {
                let wanted = (family.name.as_str(), source.module.as_deref());
                if let Some(seen) = features.insert(&source.feature, wanted)
                    && seen != wanted
                {
                    bail!(
                        "the feature {:?} compiles two different things: {seen:?} and {wanted:?}",
                        source.feature
                    );
                }
            }
        }
        let mut labels = BTreeSet::new();
        for label in self.family.iter().flat_map(|family| family.raw.keys()) {
            if !labels.insert(label) {
                bail!("the raw-source label {label:?} is declared twice");
            }
        }
        Ok(())
    }

    fn sources(&self) -> impl Iterator<Item = &Source> {
        self.family.iter().flat_map(|family| &family.source)
    }

    /// The sources in detection order, each with its family.
    fn detected(&self) -> Vec<(&Family, &Source)> {
        self.detection
            .iter()
            .map(|name| {
                self.family
                    .iter()
                    .find_map(|family| family.source.iter().find(|s| &s.name == name).map(|s| (family, s)))
                    .expect("checked: detection names declared sources")
            })
            .collect()
    }

    /// The facade's features in declaration order (family by family), each with the family and
    /// module it compiles and the sources it compiles.
    fn features(&self) -> Vec<(&str, &Family, Option<&str>, Vec<&str>)> {
        let mut features: Vec<(&str, &Family, Option<&str>, Vec<&str>)> = Vec::new();
        for family in &self.family {
            for source in &family.source {
                match features.iter_mut().find(|(feature, ..)| *feature == source.feature) {
                    Some((.., sources)) => sources.push(&source.name),
                    None => features.push((&source.feature, family, source.module.as_deref(), vec![&source.name])),
                }
            }
        }
        features
    }
}

impl Family {
    fn krate(&self) -> String {
        format!("agentwire-source-{}", self.name)
    }

    fn krate_ident(&self) -> String {
        self.krate().replace('-', "_")
    }

    /// Whether its crate has a feature per module (the facade then picks them).
    fn has_modules(&self) -> bool {
        self.source.iter().any(|source| source.module.is_some())
    }

    fn features(&self) -> Vec<&str> {
        let mut features: Vec<&str> = Vec::new();
        for source in &self.source {
            if !features.contains(&source.feature.as_str()) {
                features.push(&source.feature);
            }
        }
        features
    }
}

pub fn generate(root: &Path, registry: &Registry) -> Result<Vec<GeneratedFile>> {
    let version = workspace_version(root)?;
    let mut files = vec![GeneratedFile {
        path: PathBuf::from(SOURCES_D_TS),
        contents: sources_d_ts(registry),
    }];
    for path in SECTIONED {
        let sections = match *path {
            SOURCE_RS => vec![("registry", registry_macro(registry))],
            LIB_RS => vec![("re-exports", re_exports(registry))],
            FACADE_TOML => vec![
                ("dependencies", facade_dependencies(registry)),
                ("features", facade_features(registry)),
            ],
            WORKSPACE_TOML => vec![("dependencies", workspace_dependencies(registry, &version))],
            README => vec![("sources", readme_table(root, registry)?)],
            EXPORT_RS => vec![("genai-names", genai_names(registry))],
            other => bail!("no sections are known for {other}"),
        };
        let full = root.join(path);
        let mut text = std::fs::read_to_string(&full).with_context(|| format!("reading {}", full.display()))?;
        for (tag, body) in sections {
            text = rewrite_section(&text, tag, &body).with_context(|| format!("{path}: the section `{tag}`"))?;
        }
        files.push(GeneratedFile {
            path: PathBuf::from(path),
            contents: text,
        });
    }
    Ok(files)
}

/// The workspace's version, which its crates' workspace dependencies name.
fn workspace_version(root: &Path) -> Result<String> {
    #[derive(Deserialize)]
    struct Manifest {
        workspace: Workspace,
    }
    #[derive(Deserialize)]
    struct Workspace {
        package: Package,
    }
    #[derive(Deserialize)]
    struct Package {
        version: String,
    }
    let path = root.join(WORKSPACE_TOML);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest: Manifest = toml::from_str(&text).with_context(|| format!("parsing {WORKSPACE_TOML}"))?;
    Ok(manifest.workspace.package.version)
}

/// Replaces the lines between a file's `@generated from schemas/sources.toml (begin TAG)` and
/// `(end TAG)` marker lines with `body`; the marker lines stay as they are.
fn rewrite_section(text: &str, tag: &str, body: &str) -> Result<String> {
    let begin = format!("@generated from {REGISTRY_PATH} by `cargo xtask codegen` (begin {tag})");
    let end = format!("(end {tag})");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(first) = lines.iter().position(|line| line.contains(&begin)) else {
        bail!("no marker line containing `{begin}`");
    };
    let Some(last) = lines[first + 1..].iter().position(|line| line.contains(&end)) else {
        bail!("no `{end}` marker line after `{begin}`");
    };
    let last = first + 1 + last;
    let mut out: String = lines[..=first].concat();
    out.push_str(body);
    out.push_str(&lines[last..].concat());
    Ok(out)
}

/// The `registry!` invocation of `crates/agentwire/src/source.rs`.
fn registry_macro(registry: &Registry) -> String {
    let mut out = String::from("registry! {\n");
    for (family, source) in registry.detected() {
        let path = format!("{}::{}", family.krate_ident(), source.spec);
        writeln!(out, "    /// {}: [`{path}`].", source.doc).unwrap();
        writeln!(
            out,
            "    {} = {:?} if {:?} => {path};",
            source.konst, source.name, source.feature
        )
        .unwrap();
    }
    out.push_str("}\n");
    out
}

/// The family crates' re-exports of `crates/agentwire/src/lib.rs`.
fn re_exports(registry: &Registry) -> String {
    let mut out = String::new();
    for (at, family) in registry.family.iter().enumerate() {
        if at > 0 {
            out.push('\n');
        }
        let features = family.features();
        let cfg = match features.as_slice() {
            [one] => format!("feature = {one:?}"),
            many => format!(
                "any({})",
                many.iter()
                    .map(|feature| format!("feature = {feature:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        writeln!(out, "/// {}", family.api).unwrap();
        writeln!(out, "#[cfg({cfg})]").unwrap();
        writeln!(out, "pub use {} as {};", family.krate_ident(), family.name).unwrap();
    }
    out
}

/// The family crates as the facade's optional dependencies.
fn facade_dependencies(registry: &Registry) -> String {
    registry
        .family
        .iter()
        .map(|family| format!("{} = {{ workspace = true, optional = true }}\n", family.krate()))
        .collect()
}

/// The facade's `[features]`: `default` (every source) and one feature per source or group.
fn facade_features(registry: &Registry) -> String {
    let features = registry.features();
    let mut out = String::from("default = [\n");
    for (feature, ..) in &features {
        writeln!(out, "    {feature:?},").unwrap();
    }
    out.push_str("]\n");
    for (feature, family, module, sources) in &features {
        if sources.len() > 1 || sources[0] != *feature {
            let names: Vec<String> = sources.iter().map(|name| format!("`{name}`")).collect();
            writeln!(out, "# The sources {}.", names.join(", ")).unwrap();
        }
        let mut enables = vec![format!("\"dep:{}\"", family.krate())];
        if let Some(module) = module {
            enables.push(format!("\"{}/{module}\"", family.krate()));
        }
        writeln!(out, "{feature} = [{}]", enables.join(", ")).unwrap();
    }
    out
}

/// The source crates' and generated crates' workspace dependencies.
fn workspace_dependencies(registry: &Registry, version: &str) -> String {
    let mut out = String::new();
    for family in &registry.family {
        let no_defaults = if family.has_modules() {
            ", default-features = false"
        } else {
            ""
        };
        writeln!(
            out,
            "{} = {{ version = \"{version}\", path = \"crates/sources/{}\"{no_defaults} }}",
            family.krate(),
            family.name
        )
        .unwrap();
        for (krate, folder) in &family.types {
            writeln!(
                out,
                "{krate} = {{ version = \"{version}\", path = \"generated/{folder}\" }}"
            )
            .unwrap();
        }
    }
    out
}

/// The README's supported-sources table, a row per source, family by family.
fn readme_table(root: &Path, registry: &Registry) -> Result<String> {
    let mut out = String::from("| source (`--from`) | program | version | schema |\n|---|---|---|---|\n");
    for source in registry.sources() {
        let readme = &source.readme;
        let version = match (&readme.version, &readme.schema) {
            (Some(version), _) => version.clone(),
            (None, Some(schema)) => {
                let pinned = schema_source::pinned(
                    &root.join("schemas").join(schema),
                    readme.pin.as_deref().unwrap_or("version"),
                )
                .with_context(|| format!("the version of {}", source.name))?;
                [readme.before.as_deref(), Some(&pinned), readme.after.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            (None, None) => bail!("source {}: its README row needs a `schema` or a `version`", source.name),
        };
        let schema = match (&readme.schema_text, &readme.schema, &readme.schema_note) {
            (Some(text), ..) => text.clone(),
            (None, Some(schema), Some(note)) => format!("`schemas/{schema}/` ({note})"),
            (None, Some(schema), None) => format!("`schemas/{schema}/`"),
            (None, None, _) => bail!(
                "source {}: its README row needs a `schema` or a `schema-text`",
                source.name
            ),
        };
        writeln!(
            out,
            "| {} (`{}`) | {} | {version} | {schema} |",
            readme.title, source.name, readme.program
        )
        .unwrap();
    }
    Ok(out)
}

/// The CLI export's `genai_name`: each provider kind's GenAI provider name, else its own kind.
fn genai_names(registry: &Registry) -> String {
    use heck::ToUpperCamelCase as _;
    let mut out = String::from(
        "/// A provider kind's GenAI provider name (`gen_ai.provider.name`), as `schemas/sources.toml`\n\
         /// gives it; an agent of many providers' models goes by its own kind.\n\
         fn genai_name(kind: ProviderKind) -> &'static str {\n    match kind {\n",
    );
    for provider in &registry.provider {
        let name = match &provider.genai {
            Some(name) => format!("{name:?}"),
            None => "kind.as_str()".to_owned(),
        };
        writeln!(
            out,
            "        ProviderKind::{} => {name},",
            provider.kind.to_upper_camel_case()
        )
        .unwrap();
    }
    out.push_str("    }\n}\n");
    out
}

/// `crates/agentwire-node/sources.d.ts`: the addon's `Source`, the names in detection order.
fn sources_d_ts(registry: &Registry) -> String {
    let mut out = super::header("//", REGISTRY_PATH);
    out.push_str(
        "\n/**\n * A provider protocol, as `agentwire normalize --from` names it: the sources of \
         `schemas/sources.toml`,\n * in the order format detection tries them.\n */\nexport type Source =\n",
    );
    for (at, name) in registry.detection.iter().enumerate() {
        let end = if at + 1 == registry.detection.len() { ";" } else { "" };
        writeln!(out, "  | \"{name}\"{end}").unwrap();
    }
    out
}

/// The canonical schema's text with its `ProviderKind` and `RuntimeEventRawSource` enums (values
/// and `x-enumDescriptions`) written from the registry: providers in order, raw-source labels
/// family by family. The schema is pretty-printed JSON, two spaces, as `serde_json` writes it.
pub fn apply_to_schema(registry: &Registry, text: &str, path: &str) -> Result<String> {
    let mut schema: Value = serde_json::from_str(text).with_context(|| format!("parsing {path}"))?;
    let providers = registry
        .provider
        .iter()
        .map(|provider| (provider.kind.clone(), provider.description.clone()));
    let raw = registry
        .family
        .iter()
        .flat_map(|family| family.raw.iter().map(|(label, text)| (label.clone(), text.clone())));
    for (definition, values) in [
        ("ProviderKind", providers.collect::<Vec<_>>()),
        ("RuntimeEventRawSource", raw.collect()),
    ] {
        let def = schema
            .pointer_mut(&format!("/$defs/{definition}"))
            .and_then(Value::as_object_mut)
            .with_context(|| format!("{path}: no `$defs/{definition}` object"))?;
        def.insert(
            "enum".into(),
            Value::Array(values.iter().map(|(value, _)| Value::String(value.clone())).collect()),
        );
        let descriptions: Map<String, Value> = values
            .into_iter()
            .map(|(value, text)| (value, Value::String(text)))
            .collect();
        def.insert("x-enumDescriptions".into(), Value::Object(descriptions));
    }
    let mut out = serde_json::to_string_pretty(&schema)?;
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::rewrite_section;

    #[test]
    fn a_section_is_the_lines_between_its_markers() {
        let text =
            "a\n# @generated from schemas/sources.toml by `cargo xtask codegen` (begin x)\nold\nlines\n# (end x)\nb\n";
        let out = rewrite_section(text, "x", "new\n").unwrap();
        assert_eq!(
            out,
            "a\n# @generated from schemas/sources.toml by `cargo xtask codegen` (begin x)\nnew\n# (end x)\nb\n"
        );
        assert_eq!(rewrite_section(&out, "x", "new\n").unwrap(), out, "idempotent");
    }

    #[test]
    fn a_missing_marker_is_an_error() {
        assert!(rewrite_section("a\n", "x", "").is_err());
        let unended = "# @generated from schemas/sources.toml by `cargo xtask codegen` (begin x)\nold\n";
        assert!(rewrite_section(unended, "x", "").is_err());
    }

    #[test]
    fn the_registry_is_consistent() {
        super::Registry::load(&crate::project_root()).unwrap_or_else(|err| panic!("{err:#}"));
    }
}
