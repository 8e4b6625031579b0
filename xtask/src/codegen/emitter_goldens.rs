//! Emitter goldens, in the style of typify's and progenitor's: small fixture schemas under
//! `xtask/tests/fixtures/` go through the same pipeline as a real source, and the code must equal
//! the checked-in `xtask/tests/golden/src/<fixture>.rs` byte for byte. The golden crate
//! (`agentwire-emitter-goldens`) compiles them under `#![deny(warnings)]` and decodes and
//! re-encodes JSON lines through them. After a deliberate emitter change:
//! `AGENTWIRE_BLESS=1 cargo test -p xtask emitter`, then review the diff.
//!
//! The fixtures under `xtask/tests/fixtures/refused/` are schemas the generator must refuse, each
//! with the error it must give.

use std::path::PathBuf;

use super::passes;
use super::schema_source::{self, SchemaSource};

/// The fixtures, by file stem.
const FIXTURES: &[&str] = &["jsonrpc", "stream"];

const GOLDEN_DIR: &str = "xtask/tests/golden/src";

fn fixture(name: &str) -> SchemaSource {
    SchemaSource {
        schema: format!("xtask/tests/fixtures/{name}.schema.json"),
        crate_dir: "xtask/tests/golden",
        package: "agentwire-emitter-goldens",
        dependencies: &[],
        description: String::new(),
        generated_from: String::new(),
        crate_docs: "",
        passes: passes::ALL,
        shape_unions: &[],
        definitions: schema_source::top_level_definitions,
        customize: schema_source::no_customization,
    }
}

fn golden_text(name: &str) -> String {
    let root = crate::project_root();
    let file = schema_source::code(&root, &fixture(name)).unwrap_or_else(|err| panic!("{err:#}"));
    format!(
        "// Emitter golden of xtask/tests/fixtures/{name}.schema.json, written by `AGENTWIRE_BLESS=1 cargo test -p \
         xtask emitter`. Do not edit by hand.\n{}",
        prettyplease::unparse(&file)
    )
}

#[test]
fn emitter_output_matches_the_goldens() {
    let bless = std::env::var_os("AGENTWIRE_BLESS").is_some();
    let mut differ = Vec::new();
    for name in FIXTURES {
        let path: PathBuf = crate::project_root().join(GOLDEN_DIR).join(format!("{name}.rs"));
        let wanted = golden_text(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(wanted.as_str()) {
            continue;
        }
        if bless {
            std::fs::write(&path, &wanted).unwrap_or_else(|err| panic!("writing {}: {err}", path.display()));
        } else {
            differ.push(path.display().to_string());
        }
    }
    assert!(
        differ.is_empty(),
        "the emitter output differs from the goldens: {differ:?}\nIf the change is deliberate: AGENTWIRE_BLESS=1 cargo \
         test -p xtask emitter, then review the diff"
    );
}

#[test]
fn every_fixture_has_a_golden_and_every_golden_a_fixture() {
    let root = crate::project_root();
    let mut goldens: Vec<String> = std::fs::read_dir(root.join(GOLDEN_DIR))
        .unwrap()
        .filter_map(|entry| entry.unwrap().file_name().into_string().ok())
        .filter(|name| name != "lib.rs")
        .collect();
    goldens.sort();
    let expected: Vec<String> = FIXTURES.iter().map(|name| format!("{name}.rs")).collect();
    assert_eq!(goldens, expected);
}

/// A union typify would emit with its placeholder variant names is refused, by its definition's
/// JSON path, even when it is an allowed shape union.
#[test]
fn an_untagged_union_with_placeholder_variant_names_is_refused() {
    let schema = "xtask/tests/fixtures/refused/placeholder_variants.schema.json";
    let source = SchemaSource {
        schema: schema.into(),
        shape_unions: &[("Mode", "scoped to a session or to a request")],
        ..fixture("jsonrpc")
    };
    let Err(err) = schema_source::code(&crate::project_root(), &source) else {
        panic!("{schema} generated")
    };
    let text = format!("{err:#}");
    assert!(
        text.contains("Mode is #[serde(untagged)] with typify's placeholder variant names (Variant0, Variant1)"),
        "{text}"
    );
    assert!(text.contains(&format!("at {schema}#/definitions/Mode:")), "{text}");
}

/// What the fixtures must exercise, checked on the generated code itself.
#[test]
fn the_fixtures_cover_the_cases_the_emitter_must_handle() {
    let jsonrpc = golden_text("jsonrpc");
    let stream = golden_text("stream");
    for (text, needle, case) in [
        // typify's own escape for keyword fields (the dispatch emitter's are `names::field_ident`'s).
        (&jsonrpc, "pub type_: ::std::string::String", "a keyword field name"),
        (&jsonrpc, "pub match_: bool", "a second keyword field"),
        (&jsonrpc, "pub ref_: ::std::option::Option", "an optional keyword field"),
        (
            &jsonrpc,
            "pub cursor: ::std::option::Option<::std::string::String>",
            "a nullable optional",
        ),
        (
            &jsonrpc,
            "pub update: ::agentwire_protocol::RawJson",
            "a raw JSON field",
        ),
        (&jsonrpc, "pub const METHODS", "a method-tagged union"),
        (
            &jsonrpc,
            "pub enum AcpAgentNotification",
            "a union whose name typify recases",
        ),
        (
            &jsonrpc,
            "map.serialize_entry(\"jsonrpc\", \"2.0\")",
            "the JSON-RPC version written back",
        ),
        (&stream, "pub const TAGS", "a type-tagged union"),
        (&stream, "System(SystemMessage)", "a nested tag (type, then subtype)"),
        (&stream, "pub payload: EventMsg", "a tag union as a field type"),
        (
            &stream,
            "Self::TurnStarted => \"turn.started\"",
            "a variant that is only its tag",
        ),
    ] {
        assert!(text.contains(needle), "the goldens lack {case}: `{needle}`");
    }
}
