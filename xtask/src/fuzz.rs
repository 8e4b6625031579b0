//! `cargo xtask fuzz [--seconds N] [--sanitizer address|none]`: every `cargo fuzz` target of
//! `crates/agentwire/fuzz/`, seeded from the corpus, for N seconds each (default 60); prints
//! executions and crashes per target.
//!
//! The sanitizer is always passed explicitly, so a reported figure says what it was measured
//! with: `address` (the default, as `cargo fuzz` itself) also catches memory errors in unsafe code
//! of dependencies; `none` builds faster and runs several times more executions per second,
//! which pays on a small machine since the crate itself has no unsafe code.
//!
//! It installs what it needs itself: `cargo-fuzz` (`cargo install --locked`) when missing; the
//! nightly toolchain must be there (libFuzzer's sanitizer needs it). Seeds are written fresh from
//! every folder of `tests/corpus/` on every run: each trace, and each of its lines on its own, after
//! a first line naming the folder (the targets read it as the source's `--from` name). A crash
//! leaves its input in `crates/agentwire/fuzz/artifacts/<target>/`; turn it into a regression test.
//! libFuzzer stops at a target's first crash, so that target's line says it stopped there; inputs
//! already in the folder before the run are counted apart.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [--sanitizer address|none]";

/// The sanitizers `cargo fuzz --sanitizer` accepts that this task offers.
const SANITIZERS: [&str; 2] = ["address", "none"];

/// The fuzz targets: `normalize` and `conform` over every source, `frame` over every line.
const TARGETS: [&str; 3] = ["normalize", "conform", "frame"];

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let (seconds, sanitizer) = parse_args(args)?;
    ensure_cargo_fuzz()?;
    let fuzz_dir = root.join("crates/agentwire/fuzz");
    for target in TARGETS {
        let seeds = fuzz_dir.join("corpus").join(target);
        let count = write_seeds(root, &seeds)?;
        eprintln!("==> fuzz {target}: {count} seeds, {seconds} s, sanitizer {sanitizer}");
        // Inputs kept from earlier runs are not this run's crashes.
        let artifact_dir = fuzz_dir.join("artifacts").join(target);
        let kept = artifacts(&artifact_dir);
        let output = Command::new("cargo")
            .args(["+nightly", "fuzz", "run", "--sanitizer", &sanitizer, target, "--"])
            .arg(format!("-max_total_time={seconds}"))
            .current_dir(root.join("crates/agentwire"))
            .output()
            .context("running cargo fuzz")?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let runs = executions(&stderr).unwrap_or(0);
        let (slow, crashes): (Vec<PathBuf>, Vec<PathBuf>) = artifacts(&artifact_dir)
            .into_iter()
            .filter(|path| !kept.contains(path))
            .partition(|path| is_slow_unit(path));
        // Printed as each target ends, so a run cut short still reports what it did.
        println!(
            "{}",
            report(target, runs, seconds, &sanitizer, &crashes, &slow, kept.len())
        );
        if !output.status.success() && crashes.is_empty() {
            bail!("cargo fuzz run {target} failed:\n{stderr}");
        }
    }
    Ok(())
}

/// `--seconds N` (default 60) and `--sanitizer address|none` (default `address`).
fn parse_args(args: &[String]) -> Result<(u64, String)> {
    let (mut seconds, mut sanitizer) = (60, "address".to_string());
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().with_context(|| format!("{flag} takes a value; {USAGE}"))?;
        match flag.as_str() {
            "--seconds" => seconds = value.parse().context("--seconds takes a whole number")?,
            "--sanitizer" if SANITIZERS.contains(&value.as_str()) => sanitizer.clone_from(value),
            _ => bail!("{USAGE}"),
        }
    }
    Ok((seconds, sanitizer))
}

fn ensure_cargo_fuzz() -> Result<()> {
    let nightly = Command::new("rustup").args(["toolchain", "list"]).output();
    let has_nightly = nightly
        .as_ref()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains("nightly"));
    ensure!(
        has_nightly,
        "cargo fuzz needs the nightly toolchain (rustup toolchain install nightly)"
    );
    if Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(());
    }
    eprintln!("installing cargo-fuzz");
    let status = Command::new("cargo")
        .args(["install", "cargo-fuzz", "--locked"])
        .status()
        .context("running cargo install")?;
    ensure!(status.success(), "cargo install cargo-fuzz failed");
    Ok(())
}

/// Writes the seeds of one target; returns how many.
fn write_seeds(root: &Path, seeds: &Path) -> Result<usize> {
    if seeds.exists() {
        std::fs::remove_dir_all(seeds)?;
    }
    std::fs::create_dir_all(seeds)?;
    let mut count = 0;
    let corpus = root.join("tests/corpus");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .with_context(|| format!("reading {}", corpus.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    for dir in folders {
        let name = dir.file_name().expect("a folder name").to_string_lossy().into_owned();
        let mut traces: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        traces.sort();
        for trace in traces {
            let text = std::fs::read(&trace)?;
            let mut write = |bytes: &[u8]| -> Result<()> {
                let mut seed = format!("{name}\n").into_bytes();
                seed.extend_from_slice(bytes);
                std::fs::write(seeds.join(format!("seed-{count:06}")), seed)?;
                count += 1;
                Ok(())
            };
            write(&text)?;
            for line in text.split(|byte| *byte == b'\n').filter(|line| !line.is_empty()) {
                write(line)?;
            }
        }
    }
    Ok(count)
}

/// The executions libFuzzer reports at the end (`Done 123 runs in 60 second(s)`), else the last
/// progress line's `#N`.
fn executions(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .rev()
        .find_map(|line| {
            let rest = line.strip_prefix("Done ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .or_else(|| {
            stderr.lines().rev().find_map(|line| {
                let rest = line.strip_prefix('#')?;
                rest.split_whitespace().next()?.parse().ok()
            })
        })
}

/// Whether an artifact is libFuzzer's `slow-unit-*`: an input that ran longer than its report
/// threshold (`-report_slow_units`, 10 s), kept for a look. Not a failure, and the run goes on
/// after it (a machine that pauses the fuzzer makes one).
fn is_slow_unit(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with("slow-unit-"))
}

/// A target's line: libFuzzer stops at its first crash, so a run that crashed says so instead of
/// claiming the seconds it was given; slow inputs are named apart.
fn report(
    target: &str,
    runs: u64,
    seconds: u64,
    sanitizer: &str,
    crashes: &[PathBuf],
    slow: &[PathBuf],
    kept: usize,
) -> String {
    let list = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut line = match crashes {
        [] => format!("{target}: {runs} executions in {seconds} s (sanitizer {sanitizer}), 0 crashes"),
        _ => format!(
            "{target}: {runs} executions, stopped at a crash (sanitizer {sanitizer}): {}",
            list(crashes)
        ),
    };
    if !slow.is_empty() {
        line.push_str(&format!("; {} slow input(s), not failures: {}", slow.len(), list(slow)));
    }
    if kept > 0 {
        line.push_str(&format!(
            "; {kept} input(s) kept from earlier runs in the artifacts folder"
        ));
    }
    line
}

fn artifacts(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn executions_are_read_from_libfuzzer_output() {
        let stderr = "#2 INITED cov: 10\n#4096 pulse cov: 12\nDone 123456 runs in 61 second(s)\n";
        assert_eq!(super::executions(stderr), Some(123_456));
        assert_eq!(super::executions("#77 NEW cov: 3\n"), Some(77));
    }

    #[test]
    fn a_crashed_run_says_so_and_earlier_inputs_are_not_its_crashes() {
        let crash = [std::path::PathBuf::from("artifacts/normalize/crash-1")];
        assert_eq!(
            super::report("normalize", 900, 60, "none", &[], &[], 0),
            "normalize: 900 executions in 60 s (sanitizer none), 0 crashes"
        );
        assert_eq!(
            super::report("normalize", 900, 60, "none", &crash, &[], 2),
            "normalize: 900 executions, stopped at a crash (sanitizer none): artifacts/normalize/crash-1; \
             2 input(s) kept from earlier runs in the artifacts folder"
        );
    }

    #[test]
    fn a_slow_input_is_not_a_crash() {
        let slow = std::path::PathBuf::from("artifacts/conform/slow-unit-5f43");
        assert!(super::is_slow_unit(&slow));
        assert!(!super::is_slow_unit(std::path::Path::new(
            "artifacts/conform/crash-5f43"
        )));
        assert_eq!(
            super::report("conform", 900, 60, "none", &[], &[slow], 0),
            "conform: 900 executions in 60 s (sanitizer none), 0 crashes; 1 slow input(s), not failures: \
             artifacts/conform/slow-unit-5f43"
        );
    }

    #[test]
    fn the_sanitizer_is_explicit() {
        let args = |list: &[&str]| list.iter().map(|arg| arg.to_string()).collect::<Vec<_>>();
        assert_eq!(super::parse_args(&[]).unwrap(), (60, "address".to_string()));
        assert_eq!(
            super::parse_args(&args(&["--sanitizer", "none", "--seconds", "5"])).unwrap(),
            (5, "none".to_string())
        );
        assert!(super::parse_args(&args(&["--sanitizer", "thread"])).is_err());
        assert!(super::parse_args(&args(&["--seconds"])).is_err());
    }
}
