//! Project tasks, run as `cargo xtask <task>` (the alias lives in `.cargo/config.toml`).
//!
//! - `codegen [--check]`: regenerate `generated/` from `schemas/`; with `--check`, write nothing
//!   and fail if anything is stale.
//! - `sync-schemas codex-app-server|acp [--version V]`: refresh a vendored upstream schema.
//! - `sync-prices [--version V]`: refresh the vendored price table (LiteLLM's, from PyPI).
//! - `schema-diff SOURCE --from V1 --to V2` or `schema-diff OLD NEW`: what changed between two
//!   versions of a provider protocol, as Markdown.
//! - `drift [SOURCE|--all] [--to V]`: the newest upstream version tried in a scratch copy: its
//!   schema diff, the mapping lines that stop compiling, conform of the corpus; `drift claude`
//!   runs a published Claude Code and lists what its traffic holds that the schemas do not declare.
//! - `fuzz [--seconds N]`: every cargo fuzz target, seeded from the corpus.
//! - `bench [--quick] [--skip-build-times]`: throughput, memory, codegen and build times, written
//!   into `PERFORMANCE.md`.
//! - `test`: every check (format, generated tree, clippy, Rust tests, TypeScript harness).

mod bench;
mod codegen;
mod drift;
mod fuzz;
mod schema_diff;
mod sync_prices;
mod sync_schemas;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => parse_codegen(&args[1..]).and_then(|mode| codegen::run(&project_root(), mode)),
        Some("sync-schemas") => sync_schemas::run(&project_root(), &args[1..]),
        Some("sync-prices") => sync_prices::run(&project_root(), &args[1..]),
        Some("schema-diff") => schema_diff::run(&args[1..]),
        Some("drift") => drift::run(&project_root(), &args[1..]),
        Some("bench") => bench::run(&project_root(), &args[1..]),
        Some("fuzz") => fuzz::run(&project_root(), &args[1..]),
        Some("test") if args.len() == 1 => test::run(&project_root()),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "\
usage: cargo xtask codegen [--check]
       cargo xtask sync-schemas codex-app-server|acp [--version V]
       cargo xtask sync-prices [--version V]
       cargo xtask schema-diff codex-app-server|acp --from V1 --to V2 [--out FILE]
       cargo xtask schema-diff OLD NEW [--out FILE]
       cargo xtask drift [codex-app-server|acp|claude|--all] [--to V]
       cargo xtask fuzz [--seconds N]
       cargo xtask bench [--quick] [--skip-build-times]
       cargo xtask test";

fn parse_codegen(args: &[String]) -> anyhow::Result<codegen::Mode> {
    match args {
        [] => Ok(codegen::Mode::Write),
        [flag] if flag == "--check" => Ok(codegen::Mode::Check),
        _ => anyhow::bail!("unexpected arguments {args:?}\n{USAGE}"),
    }
}

/// The workspace root: the parent of this crate's folder.
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}
