//! `cargo xtask bench [--quick] [--skip-build-times] [--against BIN]`: the whole-process
//! throughput and memory figures, the codegen and build times, written into the top-level
//! `PERFORMANCE.md`.
//!
//! For every source it builds inputs by repeating that source's corpus (`tests/corpus/<name>/`,
//! every `*.jsonl` below it in path order, as one stream; a corpus of documents is not timed) to
//! 20 MB, 200 MB and (without `--quick`) 1 GB, and
//! runs, pinned to one core with `taskset -c 0` and measured by `/usr/bin/time -v`:
//! - `agentwire normalize --from <source>` (release build), and the same with `--keep-secrets`
//!   on the 200 MB input, for the share of the time the secrets scan and redaction take;
//! - the serde_json baseline (`crates/agentwire-cli/examples/serde_baseline.rs`, release build):
//!   every line parsed into a `Value` and serialized again;
//! - node's `JSON.parse` + `JSON.stringify` per line, when `node` is installed;
//! - with `--against BIN`, that `agentwire` binary (an earlier commit's release build) on the
//!   same input, in the same interleaved runs, with and without `--keep-secrets`: two builds
//!   compared in one run, where the machine's state moves both alike.
//!
//! Times are the CPU time (user + system) of each process, the median of runs interleaved over the
//! 200 MB input (5 runs, 1 with `--quick`): on a machine shared with other jobs the wall time of a
//! pinned process also counts the time others held its core. Peak RSS is read at each size. The corpus repeated is checked to stay a clean stream: the warnings
//! per repetition must equal the warnings of one pass over the corpus. Only the block between the
//! markers of `PERFORMANCE.md` is rewritten; the notes around it are kept.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: cargo xtask bench [--quick] [--skip-build-times] [--against BIN]";

/// The folders of the crates whose build times are reported, as the workspace lays them out:
/// every generated crate, the core, every source crate and the facade (a folder's `*` is each
/// crate below it). A new source or generated crate is timed without being named here.
const BUILT_CRATES: [&str; 4] = ["generated/*", "crates/core", "crates/sources/*", "crates/agentwire"];

/// The package name and `lib.rs` of each crate of [`BUILT_CRATES`], in that order (a folder's
/// crates by name).
fn built_crates(root: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut crates = Vec::new();
    for pattern in BUILT_CRATES {
        let dirs = match pattern.strip_suffix("/*") {
            Some(parent) => {
                let mut dirs: Vec<PathBuf> = fs::read_dir(root.join(parent))
                    .with_context(|| format!("reading {parent}"))?
                    .map(|entry| entry.map(|entry| entry.path()))
                    .collect::<Result<_, _>>()?;
                dirs.retain(|dir| dir.join("Cargo.toml").is_file());
                dirs.sort();
                dirs
            }
            None => vec![root.join(pattern)],
        };
        for dir in dirs {
            let manifest = dir.join("Cargo.toml");
            let text = fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
            let parsed: toml::Table =
                toml::from_str(&text).with_context(|| format!("parsing {}", manifest.display()))?;
            let name = parsed
                .get("package")
                .and_then(|package| package.get("name"))
                .and_then(toml::Value::as_str)
                .with_context(|| format!("{}: no package name", manifest.display()))?;
            crates.push((name.to_string(), dir.join("src/lib.rs")));
        }
    }
    Ok(crates)
}

const MB: u64 = 1_000_000;

/// Node's counterpart of the serde_json baseline: the same per-line parse and serialize.
const NODE_BASELINE: &str = r#"
const fs = require("fs");
const fd = fs.openSync(process.argv[2], "r");
const buf = Buffer.alloc(1 << 20);
let rest = "";
let n;
while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) {
  const lines = (rest + buf.toString("utf8", 0, n)).split("\n");
  rest = lines.pop();
  const out = [];
  for (const line of lines) {
    if (line.length > 0) out.push(JSON.stringify(JSON.parse(line)));
  }
  if (out.length > 0) fs.writeSync(1, out.join("\n") + "\n");
}
if (rest.length > 0) fs.writeSync(1, JSON.stringify(JSON.parse(rest)) + "\n");
"#;

/// What the command line asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub quick: bool,
    pub build_times: bool,
    /// Another `agentwire` binary timed beside this build's.
    pub against: Option<PathBuf>,
}

pub fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options {
        quick: false,
        build_times: true,
        against: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--skip-build-times" => options.build_times = false,
            "--against" => match args.next() {
                Some(binary) => options.against = Some(PathBuf::from(binary)),
                None => bail!("--against needs the path of an agentwire binary\n{USAGE}"),
            },
            _ => bail!("unexpected argument {arg:?}\n{USAGE}"),
        }
    }
    Ok(options)
}

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    if let Some(against) = &options.against {
        ensure!(against.is_file(), "--against {}: no such file", against.display());
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let work = root.join("target/bench");
    fs::create_dir_all(&work)?;
    eprintln!("==> building release agentwire and the serde_json baseline");
    run_quiet(
        Command::new(&cargo)
            .args(["build", "--release", "-p", "agentwire-cli", "--bin", "agentwire"])
            .args(["--example", "serde_baseline"])
            .current_dir(root),
    )?;
    let release = root.join("target/release");
    let node = if which("node") {
        let script = work.join("node_baseline.js");
        fs::write(&script, NODE_BASELINE)?;
        Some(script)
    } else {
        eprintln!("==> node is not installed: no node baseline");
        None
    };
    let tools = Tools {
        agentwire: release.join("agentwire"),
        baseline: release.join("examples/serde_baseline"),
        node,
        against: options.against.clone(),
    };
    let runs = if options.quick { 1 } else { 5 };
    let sizes: &[u64] = if options.quick {
        &[20 * MB, 200 * MB]
    } else {
        &[20 * MB, 200 * MB, 1000 * MB]
    };
    let (mut results, mut documents) = (Vec::new(), Vec::new());
    for source in sources(&tools.agentwire)? {
        eprintln!("==> {source}");
        let unit = corpus_unit(&root.join("tests/corpus").join(&source))?;
        if unit.is_empty() {
            eprintln!("    its corpus is documents, one session per file: not timed");
            documents.push(source);
            continue;
        }
        results.push(bench_source(&work, &tools, &source, &unit, sizes, runs)?);
    }
    let build = if options.build_times {
        Some(build_times(root, &cargo)?)
    } else {
        None
    };
    let codegen = codegen_time(root, &cargo)?;
    let report = report(
        &machine(root)?,
        &results,
        &documents,
        codegen,
        build.as_deref(),
        &options,
        runs,
    );
    print!("{report}");
    let path = root.join("PERFORMANCE.md");
    let existing = fs::read_to_string(&path).unwrap_or_default();
    fs::write(&path, splice(&existing, &report))?;
    eprintln!("==> wrote {}", path.display());
    Ok(())
}

/// The sources the built CLI reads, by their `--from` name and corpus folder: the `name: version`
/// lines of its `--version`, in the registry's order.
fn sources(agentwire: &Path) -> Result<Vec<String>> {
    let output = Command::new(agentwire).arg("--version").output()?;
    ensure!(output.status.success(), "{} --version failed", agentwire.display());
    let text = String::from_utf8(output.stdout)?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(": ").map(|(name, _)| name))
        .filter(|name| !name.contains(' '))
        .map(str::to_string)
        .collect())
}

struct Tools {
    agentwire: PathBuf,
    baseline: PathBuf,
    /// The node baseline's script, when node is installed.
    node: Option<PathBuf>,
    /// The `agentwire` binary of `--against`.
    against: Option<PathBuf>,
}

/// One source's figures.
#[derive(Debug, Default)]
pub struct SourceResult {
    pub source: String,
    pub corpus_bytes: u64,
    pub timed_bytes: u64,
    pub normalize_s: f64,
    pub serde_s: f64,
    pub node_s: Option<f64>,
    /// CPU seconds of `agentwire normalize --keep-secrets`: without the secrets scan and
    /// redaction, so the table shows what redacting costs per source.
    pub keep_secrets_s: f64,
    /// CPU seconds of the `--against` binary on the same input, and with `--keep-secrets`.
    pub against_s: Option<f64>,
    pub against_keep_secrets_s: Option<f64>,
    pub output_ratio: f64,
    /// CPU seconds of `agentwire normalize` over the ~20 MB input, and of the serde_json
    /// baseline over what it wrote: the cost of a plain JSON round trip of the output alone.
    pub small_normalize_s: f64,
    pub output_serde_s: f64,
    /// Peak RSS in KiB of `agentwire normalize`, per input size in bytes.
    pub rss_kib: Vec<(u64, u64)>,
    pub corpus_warnings: u64,
    pub warnings_per_repetition: f64,
}

/// Times `source` over its corpus `unit` (never empty) repeated to each size.
fn bench_source(
    work: &Path,
    tools: &Tools,
    source: &str,
    unit: &[u8],
    sizes: &[u64],
    runs: usize,
) -> Result<SourceResult> {
    let normalize_with = |binary: &Path, input: &Path| -> Vec<String> {
        vec![
            binary.display().to_string(),
            "normalize".into(),
            "--from".into(),
            source.into(),
            input.display().to_string(),
        ]
    };
    let keeping_secrets = |mut args: Vec<String>| {
        args.insert(2, "--keep-secrets".into());
        args
    };
    let agentwire = |input: &Path| normalize_with(&tools.agentwire, input);
    let unit_path = work.join(format!("{source}.unit.jsonl"));
    fs::write(&unit_path, unit)?;
    let unit_out = work.join("out.jsonl");
    measure(&agentwire(&unit_path), &unit_out)?;
    let corpus_warnings = count_warnings(&unit_out)?;
    // An earlier build may not know a newer source: it is timed only on the sources it reads.
    let against = tools.against.as_deref().filter(|against| {
        let known = measure(&normalize_with(against, &unit_path), Path::new("/dev/null")).is_ok();
        if !known {
            eprintln!("    {} does not read {source}: not timed against it", against.display());
        }
        known
    });

    let mut result = SourceResult {
        source: source.to_string(),
        corpus_bytes: unit.len() as u64,
        corpus_warnings,
        ..SourceResult::default()
    };
    for &size in sizes {
        let input = work.join(format!("{source}.{}mb.jsonl", size / MB));
        let repetitions = write_repeated(&input, unit, size)?;
        let input_bytes = fs::metadata(&input)?.len();
        if size == sizes[0] {
            let run = measure(&agentwire(&input), &unit_out)?;
            result.output_ratio = fs::metadata(&unit_out)?.len() as f64 / input_bytes as f64;
            result.warnings_per_repetition = count_warnings(&unit_out)? as f64 / repetitions as f64;
            result.rss_kib.push((input_bytes, run.rss_kib));
            let output_baseline = vec![tools.baseline.display().to_string(), unit_out.display().to_string()];
            let (mut ours, mut serde) = (Vec::new(), Vec::new());
            for _ in 0..runs {
                ours.push(measure(&agentwire(&input), Path::new("/dev/null"))?.seconds);
                serde.push(measure(&output_baseline, Path::new("/dev/null"))?.seconds);
            }
            result.small_normalize_s = median(&mut ours);
            result.output_serde_s = median(&mut serde);
        } else if size == 200 * MB {
            let (mut ours, mut serde, mut js) = (Vec::new(), Vec::new(), Vec::new());
            let (mut kept, mut theirs, mut theirs_kept) = (Vec::new(), Vec::new(), Vec::new());
            let null = Path::new("/dev/null");
            let baseline = vec![tools.baseline.display().to_string(), input.display().to_string()];
            let node_args = tools.node.as_ref().map(|script| {
                vec![
                    "node".to_string(),
                    script.display().to_string(),
                    input.display().to_string(),
                ]
            });
            for _ in 0..runs {
                let run = measure(&agentwire(&input), null)?;
                result.rss_kib.retain(|(bytes, _)| *bytes != input_bytes);
                result.rss_kib.push((input_bytes, run.rss_kib));
                ours.push(run.seconds);
                kept.push(measure(&keeping_secrets(agentwire(&input)), null)?.seconds);
                serde.push(measure(&baseline, null)?.seconds);
                if let Some(args) = &node_args {
                    js.push(measure(args, null)?.seconds);
                }
                if let Some(against) = against {
                    theirs.push(measure(&normalize_with(against, &input), null)?.seconds);
                    theirs_kept.push(measure(&keeping_secrets(normalize_with(against, &input)), null)?.seconds);
                }
            }
            result.timed_bytes = input_bytes;
            result.normalize_s = median(&mut ours);
            result.serde_s = median(&mut serde);
            result.node_s = (!js.is_empty()).then(|| median(&mut js));
            result.keep_secrets_s = median(&mut kept);
            result.against_s = (!theirs.is_empty()).then(|| median(&mut theirs));
            result.against_keep_secrets_s = (!theirs_kept.is_empty()).then(|| median(&mut theirs_kept));
        } else {
            let run = measure(&agentwire(&input), Path::new("/dev/null"))?;
            result.rss_kib.push((input_bytes, run.rss_kib));
        }
        fs::remove_file(&input)?;
    }
    fs::remove_file(&unit_path)?;
    fs::remove_file(&unit_out)?;
    eprintln!(
        "    normalize {:.2} s, serde_json {:.2} s, ratio {:.2}",
        result.normalize_s,
        result.serde_s,
        result.normalize_s / result.serde_s
    );
    Ok(result)
}

/// Every trace of a corpus folder, in name order, as one stream (each ending in a newline).
pub fn corpus_unit(dir: &Path) -> Result<Vec<u8>> {
    let mut paths = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).with_context(|| format!("reading {}", folder.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let mut unit = Vec::new();
    for path in paths {
        let mut bytes = fs::read(&path)?;
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        unit.extend_from_slice(&bytes);
    }
    Ok(unit)
}

/// Writes `unit` repeated until the file holds at least `size` bytes; returns the repetitions.
/// Each repetition gets its own provider ids ([`rescope_uuids`]): a real stream never replays a
/// thread or turn id, and a replayed one meets the ledger's memory of the turns it closed.
pub fn write_repeated(path: &Path, unit: &[u8], size: u64) -> Result<u64> {
    let mut file = std::io::BufWriter::new(File::create(path)?);
    let repetitions = size.div_ceil(unit.len() as u64).max(1);
    let mut copy = unit.to_vec();
    for repetition in 0..repetitions {
        copy.copy_from_slice(unit);
        rescope_uuids(&mut copy, repetition as u32);
        file.write_all(&copy)?;
    }
    file.flush()?;
    Ok(repetitions)
}

/// Gives every UUID in `text` (36 bytes, `8-4-4-4-12` hex digits, not inside a longer run of
/// letters and digits) the last eight hex digits XOR `repetition`: the same UUID stays the same
/// within a repetition, two different ones stay different, and lengths do not change.
pub fn rescope_uuids(text: &mut [u8], repetition: u32) {
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    const LEN: usize = 36;
    if repetition == 0 {
        return;
    }
    let is_uuid = |window: &[u8]| {
        window.iter().enumerate().all(|(at, byte)| {
            if DASHES.contains(&at) {
                *byte == b'-'
            } else {
                byte.is_ascii_hexdigit()
            }
        })
    };
    let mut at = 0;
    while at + LEN <= text.len() {
        let bounded = (at == 0 || !text[at - 1].is_ascii_alphanumeric())
            && text.get(at + LEN).is_none_or(|byte| !byte.is_ascii_alphanumeric());
        if !bounded || !is_uuid(&text[at..at + LEN]) {
            at += 1;
            continue;
        }
        let tail = &mut text[at + LEN - 8..at + LEN];
        let upper = tail.iter().any(u8::is_ascii_uppercase);
        let value = std::str::from_utf8(tail)
            .ok()
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .expect("eight hex digits");
        let rescoped = if upper {
            format!("{:08X}", value ^ repetition)
        } else {
            format!("{:08x}", value ^ repetition)
        };
        tail.copy_from_slice(rescoped.as_bytes());
        at += LEN;
    }
}

/// `runtime.warning` events in canonical JSONL.
fn count_warnings(path: &Path) -> Result<u64> {
    let mut count = 0;
    for line in BufReader::new(File::open(path)?).lines() {
        if line?.contains(r#""type":"runtime.warning""#) {
            count += 1;
        }
    }
    Ok(count)
}

/// One timed run.
struct Run {
    seconds: f64,
    rss_kib: u64,
}

/// Runs `args` pinned to core 0 under `/usr/bin/time -v`, stdout into `out`.
fn measure(args: &[String], out: &Path) -> Result<Run> {
    let output = Command::new("taskset")
        .args(["-c", "0", "/usr/bin/time", "-v"])
        .args(args)
        .stdout(File::create(out)?)
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("running {} (taskset and /usr/bin/time are needed)", args.join(" ")))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(output.status.success(), "{} failed:\n{stderr}", args.join(" "));
    let seconds = |label: &str| time_field::<f64>(&stderr, label).with_context(|| format!("no {label} in:\n{stderr}"));
    Ok(Run {
        seconds: seconds("User time (seconds)")? + seconds("System time (seconds)")?,
        rss_kib: peak_rss_kib(&stderr).with_context(|| format!("no peak RSS in /usr/bin/time's output:\n{stderr}"))?,
    })
}

/// The `Maximum resident set size (kbytes)` that `/usr/bin/time -v` prints.
pub fn peak_rss_kib(time_output: &str) -> Option<u64> {
    time_field(time_output, "Maximum resident set size (kbytes)")
}

/// The value of one `label: value` line of `/usr/bin/time -v`'s output.
pub fn time_field<T: std::str::FromStr>(time_output: &str, label: &str) -> Option<T> {
    time_output.lines().find_map(|line| {
        line.trim()
            .strip_prefix(label)
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|value| value.trim().parse().ok())
    })
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn which(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn run_quiet(command: &mut Command) -> Result<()> {
    let output = command.output().context("running cargo")?;
    ensure!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

fn timed(command: &mut Command) -> Result<f64> {
    let started = std::time::Instant::now();
    run_quiet(command)?;
    Ok(started.elapsed().as_secs_f64())
}

/// `cargo xtask codegen` run twice; the second (warm) run's time.
fn codegen_time(root: &Path, cargo: &str) -> Result<f64> {
    eprintln!("==> cargo xtask codegen (warm)");
    let codegen = || timed(Command::new(cargo).args(["xtask", "codegen"]).current_dir(root));
    codegen()?;
    codegen()
}

/// Cold (the crate's own artifacts removed, its dependencies built) and incremental (its
/// `lib.rs` touched) dev build times of each crate, in a scratch target directory.
fn build_times(root: &Path, cargo: &str) -> Result<Vec<(String, f64, f64)>> {
    let target = root.join("target/bench-build");
    let build = |package: &str| {
        timed(
            Command::new(cargo)
                .args(["build", "-p", package, "--target-dir"])
                .arg(&target)
                .current_dir(root),
        )
    };
    eprintln!("==> build times: dependencies first");
    build("agentwire")?;
    let mut times = Vec::new();
    for (package, lib) in built_crates(root)? {
        eprintln!("==> build times: {package}");
        run_quiet(
            Command::new(cargo)
                .args(["clean", "-p", &package, "--target-dir"])
                .arg(&target)
                .current_dir(root),
        )?;
        let cold = build(&package)?;
        File::options()
            .append(true)
            .open(&lib)?
            .set_modified(std::time::SystemTime::now())?;
        let incremental = build(&package)?;
        times.push((package, cold, incremental));
    }
    Ok(times)
}

/// The machine the figures were taken on.
fn machine(root: &Path) -> Result<String> {
    let capture = |program: &str, args: &[&str]| -> String {
        Command::new(program)
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown".into())
    };
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|line| {
                line.strip_prefix("model name")
                    .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown".into());
    Ok(format!(
        "- date: {}\n- CPU: {cpu}, `nproc` {}\n- {}\n- node: {}\n- commit: {}\n",
        capture("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        capture("nproc", &[]),
        capture("rustc", &["--version"]),
        capture("node", &["--version"]),
        capture("git", &["rev-parse", "--short", "HEAD"]),
    ))
}

fn format_size(bytes: u64) -> String {
    if bytes >= 1000 * MB {
        format!("{:.1} GB", bytes as f64 / (1000 * MB) as f64)
    } else {
        format!("{} MB", (bytes as f64 / MB as f64).round())
    }
}

/// The generated block of `PERFORMANCE.md`.
pub fn report(
    machine: &str,
    results: &[SourceResult],
    documents: &[String],
    codegen_s: f64,
    build: Option<&[(String, f64, f64)]>,
    options: &Options,
    runs: usize,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Figures (`cargo xtask bench{}`)\n",
        if options.quick { " --quick" } else { "" }
    );
    out.push_str(machine);
    let _ = writeln!(
        out,
        "\nEach source's corpus repeated to ~200 MB, every program pinned to one core (`taskset -c 0`); seconds are CPU time (user + system), median of {runs} interleaved run(s). \
         ratio = normalize / serde_json (goal <= 1.0); node / normalize (goal >= 2.5). \
         The last column compares normalize with serde_json reading and writing normalize's own output (at ~20 MB of input): \
         below 1.0, mapping a message costs less than a plain JSON round trip of the events it becomes. \
         redaction = the share of normalize's time that `--keep-secrets` saves (the secrets scan of every line and the redaction of what holds a needle).\n"
    );
    out.push_str(
        "| source | normalize s | serde_json s | ratio | node s | node / normalize | MB/s | output / input | normalize / serde_json of the output | redaction |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for result in results {
        let node = result.node_s.map_or("n/a".into(), |node| format!("{node:.2}"));
        let node_ratio = result
            .node_s
            .map_or("n/a".into(), |node| format!("{:.2}", node / result.normalize_s));
        let _ = writeln!(
            out,
            "| {} | {:.2} | {:.2} | {:.2} | {node} | {node_ratio} | {:.0} | {:.2} | {:.2} | {:.0}% |",
            result.source,
            result.normalize_s,
            result.serde_s,
            result.normalize_s / result.serde_s,
            result.timed_bytes as f64 / MB as f64 / result.normalize_s,
            result.output_ratio,
            result.small_normalize_s / result.output_serde_s,
            (1.0 - result.keep_secrets_s / result.normalize_s) * 100.0,
        );
    }
    if !documents.is_empty() {
        let _ = writeln!(
            out,
            "\nNot timed: {}, whose corpus is documents (`*.json`, one session per file), not a stream of lines to repeat.",
            documents.join(", ")
        );
    }
    if let Some(against) = &options.against {
        let _ = writeln!(
            out,
            "\nAgainst `{}` (`--against`), timed in the same interleaved runs on the ~200 MB input: change = this build's ratio to serde_json over the other's, minus one; \
             the last two columns time both builds with `--keep-secrets`, which leaves out the secrets scan and redaction (whose rule sets may differ between the builds).\n\n\
             | source | normalize s | against s | ratio | against ratio | change | --keep-secrets: normalize s | against s | change |\n|---|---|---|---|---|---|---|---|---|",
            against.file_name().map_or_else(
                || against.display().to_string(),
                |name| name.to_string_lossy().into_owned()
            )
        );
        for result in results {
            match result.against_s.zip(result.against_keep_secrets_s) {
                Some((theirs, theirs_kept)) => writeln!(
                    out,
                    "| {} | {:.2} | {theirs:.2} | {:.2} | {:.2} | {:+.1}% | {:.2} | {theirs_kept:.2} | {:+.1}% |",
                    result.source,
                    result.normalize_s,
                    result.normalize_s / result.serde_s,
                    theirs / result.serde_s,
                    (result.normalize_s / theirs - 1.0) * 100.0,
                    result.keep_secrets_s,
                    (result.keep_secrets_s / theirs_kept - 1.0) * 100.0,
                ),
                None => writeln!(
                    out,
                    "| {} | {:.2} | - | {:.2} | - | (source unknown to that build) | {:.2} | - | |",
                    result.source,
                    result.normalize_s,
                    result.normalize_s / result.serde_s,
                    result.keep_secrets_s,
                ),
            }
            .expect("writing to a String");
        }
    }
    out.push_str("\nPeak RSS of `agentwire normalize` (MB) by input size, and the stream check: `runtime.warning` events per repetition of the corpus against one pass over it (equal: repeating adds none).\n\n");
    let sizes: Vec<u64> = results
        .first()
        .map(|r| r.rss_kib.iter().map(|(bytes, _)| *bytes).collect())
        .unwrap_or_default();
    let _ = write!(out, "| source | corpus |");
    for result in results.first().into_iter().flat_map(|r| &r.rss_kib) {
        let _ = write!(out, " RSS at ~{} |", format_size(result.0));
    }
    let _ = writeln!(out, " warnings: one pass | per repetition |");
    let _ = writeln!(out, "|---|---|{}---|---|", "---|".repeat(sizes.len()));
    for result in results {
        let _ = write!(
            out,
            "| {} | {:.2} MB |",
            result.source,
            result.corpus_bytes as f64 / MB as f64
        );
        for (_, kib) in &result.rss_kib {
            let _ = write!(out, " {:.1} |", *kib as f64 / 1024.0);
        }
        let _ = writeln!(
            out,
            " {} | {:.2} |",
            result.corpus_warnings, result.warnings_per_repetition
        );
    }
    let _ = writeln!(out, "\n`cargo xtask codegen`, warm: {codegen_s:.2} s\n");
    match build {
        Some(build) => {
            out.push_str("Dev build times (s): cold = the crate's own artifacts removed, its dependencies built; incremental = its `lib.rs` touched.\n\n| crate | cold | incremental |\n|---|---|---|\n");
            for (package, cold, incremental) in build {
                let _ = writeln!(out, "| {package} | {cold:.1} | {incremental:.1} |");
            }
        }
        None => out.push_str("Build times: skipped (`--skip-build-times`).\n"),
    }
    out
}

pub const BEGIN: &str = "<!-- cargo xtask bench: begin -->";
pub const END: &str = "<!-- cargo xtask bench: end -->";

/// `existing` with its generated block replaced by `block` (appended when it has none).
pub fn splice(existing: &str, block: &str) -> String {
    let generated = format!("{BEGIN}\n{block}{END}\n");
    match (existing.find(BEGIN), existing.find(END)) {
        (Some(begin), Some(end)) if begin < end => {
            format!(
                "{}{generated}{}",
                &existing[..begin],
                existing[end + END.len()..].trim_start_matches('\n')
            )
        }
        _ if existing.is_empty() => format!(
            "# Performance\n\nRegenerate the figures with `cargo xtask bench` (`--quick`: no 1 GB run, one timed run; `--skip-build-times`).\n\n{generated}"
        ),
        _ => format!("{existing}\n{generated}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generated and source crate of the workspace is timed, the facade last.
    #[test]
    fn the_built_crates_are_the_workspaces() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let crates = built_crates(&root).expect("the workspace's crates");
        let names: Vec<&str> = crates.iter().map(|(name, _)| name.as_str()).collect();
        for name in [
            "agentwire-opencode",
            "agentwire-gemini-cli",
            "agentwire-core",
            "agentwire-source-opencode",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert_eq!(names.last(), Some(&"agentwire"));
        assert!(crates.iter().all(|(_, lib)| lib.is_file()), "{crates:?}");
    }

    #[test]
    fn the_generated_block_is_replaced_and_notes_kept() {
        let first = splice("", "figures 1\n");
        assert!(first.contains("figures 1") && first.starts_with("# Performance"));
        let edited = first.replace("# Performance\n", "# Performance\n\nA note.\n") + "\nAfter.\n";
        let second = splice(&edited, "figures 2\n");
        assert!(second.contains("A note.") && second.contains("After.") && second.contains("figures 2"));
        assert!(!second.contains("figures 1"));
    }

    #[test]
    fn peak_rss_is_read_from_time_output() {
        let output = "\tCommand being timed: \"x\"\n\tUser time (seconds): 1.25\n\tMaximum resident set size (kbytes): 12345\n\tExit status: 0\n";
        assert_eq!(peak_rss_kib(output), Some(12345));
        assert_eq!(time_field::<f64>(output, "User time (seconds)"), Some(1.25));
        assert_eq!(peak_rss_kib("nothing"), None);
    }

    #[test]
    fn medians_and_arguments() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(
            parse_args(&["--quick".into(), "--skip-build-times".into()]).unwrap(),
            Options {
                quick: true,
                build_times: false,
                against: None,
            }
        );
        assert_eq!(
            parse_args(&["--against".into(), "old/agentwire".into()])
                .unwrap()
                .against,
            Some(PathBuf::from("old/agentwire"))
        );
        assert!(parse_args(&["--against".into()]).is_err());
        assert!(parse_args(&["--fast".into()]).is_err());
    }

    #[test]
    fn inputs_repeat_whole_corpus_streams() {
        let dir = std::env::temp_dir().join(format!("agentwire-bench-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("b.jsonl"), "{\"b\":1}").unwrap();
        fs::write(dir.join("a.jsonl"), "{\"a\":1}\n").unwrap();
        fs::write(dir.join("notes.md"), "no trace").unwrap();
        let unit = corpus_unit(&dir).unwrap();
        assert_eq!(unit, b"{\"a\":1}\n{\"b\":1}\n");
        let input = dir.join("input.jsonl");
        assert_eq!(write_repeated(&input, &unit, 40).unwrap(), 3);
        assert_eq!(fs::read(&input).unwrap(), unit.repeat(3));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_repetition_gets_its_own_uuids() {
        let unit = br#"{"threadId":"01a22b0c-3c0f-7593-9a87-7c8c3d47462f","x":"01A22B0C-3C0F-7593-9A87-7C8C3D47462F","y":"a01a22b0c-3c0f-7593-9a87-7c8c3d47462f"}"#;
        let mut first = unit.to_vec();
        rescope_uuids(&mut first, 0);
        assert_eq!(first, unit, "the first repetition is the corpus itself");
        let mut third = unit.to_vec();
        rescope_uuids(&mut third, 2);
        assert_eq!(
            String::from_utf8(third).unwrap(),
            r#"{"threadId":"01a22b0c-3c0f-7593-9a87-7c8c3d47462d","x":"01A22B0C-3C0F-7593-9A87-7C8C3D47462D","y":"a01a22b0c-3c0f-7593-9a87-7c8c3d47462f"}"#
        );
    }
}
