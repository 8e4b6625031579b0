//! The secret scan's value rules taken from gitleaks: `schemas/secrets/gitleaks.toml` (vendored
//! upstream data) and `schemas/secrets/rules.toml` (which rules agentwire takes, and what it
//! changes in each) in, the crate `generated/secrets-rules` out. Upstream's data is read, not
//! copied by hand, so refreshing gitleaks is a vendored file and a regenerated table. The few
//! token formats gitleaks has no rule for are written by hand in `schemas/secrets/supplement.toml`
//! and generated beside them, as a table of their own.

mod re2;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::GeneratedFile;

const GITLEAKS_PATH: &str = "schemas/secrets/gitleaks.toml";
const RULES_PATH: &str = "schemas/secrets/rules.toml";
const SUPPLEMENT_PATH: &str = "schemas/secrets/supplement.toml";
const CRATE_DIR: &str = "generated/secrets-rules";

/// `gitleaks.toml`: only what a value rule needs is read.
#[derive(Deserialize)]
struct Gitleaks {
    rules: Vec<UpstreamRule>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpstreamRule {
    id: String,
    regex: Option<String>,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    keywords: Vec<String>,
    /// Present when the rule matches on something other than the whole text agentwire scans.
    secret_group: Option<u32>,
    path: Option<String>,
    #[serde(default)]
    allowlists: Vec<UpstreamAllowlist>,
}

/// An allowlist of an upstream rule; its `paths` name files, which agentwire does not scan, and
/// are not read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpstreamAllowlist {
    #[serde(default)]
    regexes: Vec<String>,
    /// What an allowlist regex is compared with, or how its parts combine: agentwire compares
    /// allowlist regexes with what the rule replaces, so a rule with these is not taken as is.
    regex_target: Option<String>,
    condition: Option<String>,
    #[serde(default)]
    stopwords: Vec<String>,
}

/// `rules.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Selection {
    /// The gitleaks release `gitleaks.toml` was vendored from (`v8.30.1`).
    gitleaks: String,
    rule: Vec<Taken>,
}

/// One gitleaks rule agentwire takes; each field but `id` replaces upstream's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Taken {
    id: String,
    keywords: Option<Vec<String>>,
    regex: Option<String>,
    entropy: Option<f64>,
    #[serde(default)]
    allow: Vec<String>,
    also: Option<String>,
    reason: Option<String>,
}

/// `supplement.toml`: rules written for agentwire, of token formats gitleaks has no rule for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Supplement {
    rule: Vec<Written>,
}

/// One rule of the supplement, in the fields of a gitleaks rule, and where its format is read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    id: String,
    keywords: Vec<String>,
    /// RE2 syntax, like gitleaks' patterns.
    regex: String,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    allow: Vec<String>,
    /// Where the format is read (another scanner's detector, the vendor's documentation).
    source: String,
}

/// One row of the generated table, its patterns in Rust `regex` syntax.
struct Row {
    id: String,
    needles: Vec<String>,
    pattern: String,
    entropy: f64,
    allow: Vec<String>,
    source: String,
}

pub fn generate(root: &Path) -> Result<Vec<GeneratedFile>> {
    let gitleaks: Gitleaks = read_toml(&root.join(GITLEAKS_PATH))?;
    let selection: Selection = read_toml(&root.join(RULES_PATH))?;
    let release = format!("gitleaks {}", selection.gitleaks);
    let rows = selection
        .rule
        .iter()
        .map(|taken| {
            let upstream = gitleaks
                .rules
                .iter()
                .find(|rule| rule.id == taken.id)
                .with_context(|| format!("{RULES_PATH}: no rule `{}` in {GITLEAKS_PATH}", taken.id))?;
            row(&release, upstream, taken).with_context(|| format!("gitleaks rule `{}`", taken.id))
        })
        .collect::<Result<Vec<_>>>()?;
    let supplement: Supplement = read_toml(&root.join(SUPPLEMENT_PATH))?;
    let supplement = supplement
        .rule
        .iter()
        .map(|written| {
            if gitleaks.rules.iter().any(|rule| rule.id == written.id) {
                bail!(
                    "{SUPPLEMENT_PATH}: gitleaks has a rule `{}`: take it in {RULES_PATH}",
                    written.id
                );
            }
            written_row(written).with_context(|| format!("{SUPPLEMENT_PATH}: rule `{}`", written.id))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(vec![
        GeneratedFile {
            path: PathBuf::from(CRATE_DIR).join("Cargo.toml"),
            contents: cargo_toml(),
        },
        GeneratedFile {
            path: PathBuf::from(CRATE_DIR).join("src/lib.rs"),
            contents: lib_rs(&release, &rows, &supplement),
        },
    ])
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Upstream's rule with agentwire's changes applied, translated to Rust `regex` syntax.
fn row(release: &str, upstream: &UpstreamRule, taken: &Taken) -> Result<Row> {
    if upstream.secret_group.is_some() || upstream.path.is_some() {
        bail!("a secret group or a path rule is not taken as is: write `regex` in {RULES_PATH}");
    }
    let mut allow = Vec::new();
    for list in &upstream.allowlists {
        if list.regex_target.is_some() || list.condition.is_some() || !list.stopwords.is_empty() {
            bail!("an allowlist with a regex target, a condition or stopwords is not taken as is");
        }
        allow.extend(list.regexes.iter().cloned());
    }
    allow.extend(taken.allow.iter().cloned());
    let regex = match (&taken.regex, &upstream.regex) {
        (Some(regex), _) | (None, Some(regex)) => regex,
        (None, None) => bail!("no regex upstream: write `regex` in {RULES_PATH}"),
    };
    let needles = taken.keywords.as_ref().unwrap_or(&upstream.keywords);
    if needles.is_empty() {
        bail!("no keywords: write `keywords` in {RULES_PATH}");
    }
    if let Some(needle) = needles.iter().find(|needle| needle.to_ascii_lowercase() != **needle) {
        bail!("keyword `{needle}` is not lowercase");
    }
    let mut source = format!("{release} config/gitleaks.toml: {}", upstream.id);
    if let Some(reason) = &taken.reason {
        write!(source, " ({reason})")?;
    }
    if let Some(also) = &taken.also {
        write!(source, "; {also}")?;
    }
    Ok(Row {
        id: upstream.id.clone(),
        needles: needles.clone(),
        pattern: re2::to_rust(regex)?,
        entropy: taken.entropy.unwrap_or(upstream.entropy),
        allow: allow.iter().map(|regex| re2::to_rust(regex)).collect::<Result<_>>()?,
        source,
    })
}

/// A rule of the supplement, translated to Rust `regex` syntax.
fn written_row(written: &Written) -> Result<Row> {
    if written.keywords.is_empty() {
        bail!("no keywords");
    }
    if let Some(needle) = written
        .keywords
        .iter()
        .find(|needle| needle.to_ascii_lowercase() != **needle)
    {
        bail!("keyword `{needle}` is not lowercase");
    }
    Ok(Row {
        id: written.id.clone(),
        needles: written.keywords.clone(),
        pattern: re2::to_rust(&written.regex)?,
        entropy: written.entropy,
        allow: written
            .allow
            .iter()
            .map(|regex| re2::to_rust(regex))
            .collect::<Result<_>>()?,
        source: format!("{SUPPLEMENT_SOURCE}: {}", written.source),
    })
}

/// How every rule of the supplement names its source.
const SUPPLEMENT_SOURCE: &str = "agentwire supplement (schemas/secrets/supplement.toml)";

fn cargo_toml() -> String {
    format!(
        "{}{}",
        super::header("#", "schemas/secrets/"),
        r#"[package]
name = "agentwire-secrets-rules"
description = "The secret scan's value rules taken from gitleaks' published rule data, generated from it."
version.workspace = true
edition.workspace = true
rust-version.workspace = true
license.workspace = true
keywords.workspace = true
categories.workspace = true

[lib]
doctest = false
"#
    )
}

fn lib_rs(release: &str, rows: &[Row], supplement: &[Row]) -> String {
    let mut out = super::header("//", "schemas/secrets/");
    out.push_str(&format!(
        r#"//! The value rules of agentwire's secret scan taken from gitleaks' published rule data
//! (`schemas/secrets/gitleaks.toml`, {release}), with the changes `schemas/secrets/rules.toml`
//! lists ([`GITLEAKS_RULES`]), and the supplement of token formats gitleaks has no rule for,
//! written by hand in `schemas/secrets/supplement.toml` ([`SUPPLEMENT_RULES`]). Patterns are Rust
//! `regex` syntax, translated from RE2.

#![no_std]

/// The gitleaks release the rules were taken from (`config/gitleaks.toml`).
pub const GITLEAKS: &str = "{release}";

/// A credential recognised by its text, wherever it stands.
#[derive(Clone, Copy, Debug)]
pub struct ValueRule {{
    /// The upstream rule id (or agentwire's own name).
    pub id: &'static str,
    /// Lowercase literals, compared without ASCII case: every match of `pattern` holds one, so a
    /// text without any is never matched (upstream's `keywords`).
    pub needles: &'static [&'static str],
    /// What is replaced: the first capture group that took part, other than `name` (the whole
    /// match when there is none). A group named `bare` (an unquoted value) must also look like
    /// a credential: 8 or more characters holding letters and digits. A group named `name` must
    /// name a secret key. A value that is a placeholder is never replaced.
    pub pattern: &'static str,
    /// The least Shannon entropy, in bits per byte, of what is replaced (upstream's `entropy`).
    pub entropy: f64,
    /// Patterns of what is no secret though the rule matches it (upstream's allowlist).
    pub allow: &'static [&'static str],
    /// Where the rule comes from.
    pub source: &'static str,
}}

/// The rules taken from gitleaks, in the order of `schemas/secrets/rules.toml`.
#[rustfmt::skip]
pub const GITLEAKS_RULES: &[ValueRule] = &[
"#
    ));
    write_rows(&mut out, rows);
    out.push_str(
        r#"
/// The supplement: rules of token formats gitleaks has no rule for, written by hand for agentwire
/// in `schemas/secrets/supplement.toml`, each naming where its format is read.
#[rustfmt::skip]
pub const SUPPLEMENT_RULES: &[ValueRule] = &[
"#,
    );
    write_rows(&mut out, supplement);
    out
}

/// The rows of a table, and its end.
fn write_rows(out: &mut String, rows: &[Row]) {
    for row in rows {
        let needles: Vec<String> = row.needles.iter().map(|needle| format!("{needle:?}")).collect();
        let allow: Vec<String> = row.allow.iter().map(|regex| raw(regex)).collect();
        let _ = write!(
            out,
            "    ValueRule {{\n        id: {:?},\n        needles: &[{}],\n        pattern: {},\n        entropy: {:?},\n        allow: &[{}],\n        source: {:?},\n    }},\n",
            row.id,
            needles.join(", "),
            raw(&row.pattern),
            row.entropy,
            allow.join(", "),
            row.source,
        );
    }
    out.push_str("];\n");
}

/// `text` as a raw string literal, with as many `#` as it needs.
fn raw(text: &str) -> String {
    let hashes = (0..)
        .find(|count| !text.contains(&format!("\"{}", "#".repeat(*count))))
        .unwrap_or(0);
    let hashes = "#".repeat(hashes);
    format!("r{hashes}\"{text}\"{hashes}")
}
