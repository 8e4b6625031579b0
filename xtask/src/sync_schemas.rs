//! `cargo xtask sync-schemas codex-app-server [--version V]`: refresh the vendored Codex
//! app-server schema from the real program.
//!
//! The pinned `@openai/codex` is installed from npm into a cache folder outside the repository
//! (`$AGENTWIRE_CACHE`, else `$XDG_CACHE_HOME/agentwire`, else `~/.cache/agentwire`), its binary
//! runs `app-server generate-json-schema --experimental` with a scratch `HOME`/`CODEX_HOME`, and
//! the output replaces `schemas/codex-app-server/`. `UPSTREAM.md` records what was run.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use sha2::{Digest, Sha256};

/// The pinned upstream version; bump it here and re-run to refresh.
const CODEX_VERSION: &str = "0.171.0";
const CODEX_PACKAGE: &str = "@openai/codex";
/// Where the npm package keeps the real (musl) binary on x86_64 Linux.
const CODEX_BINARY: &str = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
/// The bundle the code generator reads; its hash identifies the schema.
pub const CODEX_BUNDLE: &str = "codex_app_server_protocol.schemas.json";

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let (source, version) = match args {
        [source] => (source.as_str(), CODEX_VERSION.to_string()),
        [source, flag, version] if flag == "--version" => (source.as_str(), version.clone()),
        _ => bail!("usage: cargo xtask sync-schemas codex-app-server [--version V]"),
    };
    match source {
        "codex-app-server" => sync_codex_app_server(root, &version),
        other => bail!("no schema source named {other:?}; known: codex-app-server"),
    }
}

fn sync_codex_app_server(root: &Path, version: &str) -> Result<()> {
    let install = cache_dir()?.join(format!("codex-{version}"));
    let binary = install.join(CODEX_BINARY);
    if !binary.exists() {
        std::fs::create_dir_all(&install)?;
        let spec = format!("{CODEX_PACKAGE}@{version}");
        eprintln!("installing {spec} into {}", install.display());
        let status = Command::new("npm")
            .args(["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix"])
            .arg(&install)
            .arg(&spec)
            .status()
            .context("running npm (is node installed?)")?;
        ensure!(status.success(), "npm install {spec} failed");
        ensure!(binary.exists(), "{spec} installed but {} is missing", binary.display());
    }

    let scratch = install.join("scratch-home");
    let codex_home = scratch.join(".codex");
    std::fs::create_dir_all(&codex_home)?;
    let out = install.join("schema-out");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    let args = ["app-server", "generate-json-schema", "--experimental", "--out"];
    let status = Command::new(&binary)
        .args(args)
        .arg(&out)
        .env("HOME", &scratch)
        .env("CODEX_HOME", &codex_home)
        .status()
        .with_context(|| format!("running {}", binary.display()))?;
    ensure!(status.success(), "codex app-server generate-json-schema failed");

    let target = root.join("schemas/codex-app-server");
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    copy_tree(&out, &target)?;
    let bundle = std::fs::read(target.join(CODEX_BUNDLE)).with_context(|| format!("{CODEX_BUNDLE} missing"))?;
    let sha = Sha256::digest(&bundle)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    std::fs::write(target.join("UPSTREAM.md"), upstream_md(version, &sha))?;
    eprintln!("schemas/codex-app-server: {CODEX_PACKAGE} {version}, bundle sha256 {sha}");
    eprintln!("next: cargo xtask codegen");
    Ok(())
}

fn upstream_md(version: &str, sha: &str) -> String {
    format!(
        "# schemas/codex-app-server — vendored, do not edit\n\n\
         | | |\n|---|---|\n\
         | program | `codex app-server` from npm `{CODEX_PACKAGE}` |\n\
         | version | {version} |\n\
         | command | `codex app-server generate-json-schema --experimental --out DIR` (scratch `HOME`/`CODEX_HOME`) |\n\
         | bundle | `{CODEX_BUNDLE}`, sha256 `{sha}` |\n\n\
         The `--experimental` output is a superset of the stable one (the same server methods, more client\n\
         methods and experimental fields); real clients such as T3 Code turn experimental APIs on, and the\n\
         corpus traces use them. The code generator reads only the bundle; the per-type files are kept as\n\
         the program wrote them so a refresh is a plain diff.\n\n\
         Refresh: `cargo xtask sync-schemas codex-app-server [--version V]`, then `cargo xtask codegen`.\n\
         The version pin lives in `xtask/src/sync_schemas.rs` (`CODEX_VERSION`).\n"
    )
}

fn cache_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("AGENTWIRE_CACHE") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(dir).join("agentwire"));
    }
    let home = std::env::var_os("HOME").context("neither AGENTWIRE_CACHE, XDG_CACHE_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".cache/agentwire"))
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}
