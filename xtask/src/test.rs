//! `cargo xtask test`: every check of the project, in the order a failure is cheapest to see.
//!
//! This is the README's test command and what `.ci/run` runs: formatting, the generated tree's
//! freshness, clippy, every Rust test, the Node addon (`crates/agentwire-node/build.mjs`: a debug
//! `cargo build -p agentwire-node`, the library copied beside the package's `index.js`, before
//! `npm ci` installs that package), the pack check (`tests/typescript/scripts/pack-check.mjs`: both
//! npm packages packed, installed from their tarballs into scratch projects and imported by plain
//! node and by JavaScript `tsc` emitted with T3 Code's options), then both configurations of the TypeScript harness (`npm ci`
//! and `npm test` in `tests/typescript`, the project's own strict one, and in
//! `tests/typescript/host`, T3 Code's pins, options and formatter), then the live agent tests
//! (`tests/typescript/live`: the addon fed by the real, pinned `codex app-server`, Claude Code CLI
//! and Claude ACP adapter, driven against a mock model server on 127.0.0.1); they need node 20
//! and the npm registry.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

pub fn run(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let typescript = root.join("tests/typescript");
    let host = root.join("tests/typescript/host");
    let live = root.join("tests/typescript/live");
    let addon = root.join("crates/agentwire-node");
    let steps: [(&str, &str, Vec<&str>, &Path); 12] = [
        ("format", &cargo, vec!["fmt", "--all", "--", "--check"], root),
        ("generated tree", &cargo, vec!["xtask", "codegen", "--check"], root),
        (
            "clippy",
            &cargo,
            vec!["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
            root,
        ),
        ("rust tests", &cargo, vec!["test", "--workspace"], root),
        ("node addon", "node", vec!["build.mjs"], &addon),
        ("pack check", "npm", vec!["run", "pack-check"], &typescript),
        ("npm ci", "npm", vec!["ci", "--no-audit", "--no-fund"], &typescript),
        ("typescript tests", "npm", vec!["test"], &typescript),
        ("npm ci (host)", "npm", vec!["ci", "--no-audit", "--no-fund"], &host),
        ("typescript tests (host)", "npm", vec!["test"], &host),
        // The agents' packages run no install scripts: codex's binary comes as an optional
        // dependency, Claude Code's cli.js inside the Agent SDK's package.
        (
            "npm ci (live)",
            "npm",
            vec!["ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            &live,
        ),
        ("live agent tests", "npm", vec!["test"], &live),
    ];
    for (name, program, args, dir) in steps {
        eprintln!("==> {name}: {program} {}", args.join(" "));
        let started = std::time::Instant::now();
        let status = Command::new(program)
            .args(&args)
            .current_dir(dir)
            .status()
            .with_context(|| format!("running {program} (is it installed?)"))?;
        if !status.success() {
            bail!("{name} failed ({program} {})", args.join(" "));
        }
        eprintln!("==> {name}: ok in {:.1?}", started.elapsed());
    }
    Ok(())
}
