//! `agentwire`: conform, normalize, validate, summarize and show provider traces, and answer
//! their open requests.
//!
//! Exit codes: 0 success; 1 the input had problems (each reported with its line number, the
//! stream went on): for `normalize` a line that could not be read at all (with `--strict`, also a
//! message that did not decode), for `conform` and `validate` any line that did not fit, for
//! `answer` a reply that cannot be built; 2 usage errors and unreadable files.

mod answer;
mod conform;
mod export;
mod import;
mod input;
mod normalize;
mod search;
mod show;
mod stats;
mod usage;
mod validate;

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use agentwire::decision::Decision;
use agentwire::source::{Source, unknown_name};
use agentwire_canonical::{ProviderKind, RuntimeRequestId, RuntimeSessionId};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(name = "agentwire", about = "One typed wire for every coding agent.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Normalize a provider trace to canonical events (JSONL on stdout).
    Normalize(normalize::Args),
    /// Normalize every trace under the given files and folders on every core: one canonical
    /// JSONL per session under DIR/<source>/, and the index DIR/sessions.jsonl.
    Import(import::Args),
    /// Show a session as a person reads it: the prompts, the agent's answers, its commands,
    /// diffs, plan, tool calls and requests, each turn's state, tokens and cost (from a provider
    /// trace or canonical JSONL; `--html` also writes it as one self-contained page).
    Show(show::Args),
    /// Answer an open request of a trace: print the provider-native reply frame (one JSON line,
    /// what the client writes to the agent's stdin).
    Answer(answer::Args),
    /// Find what was said and done across an imported history (`import --out DIR`): ranked hits
    /// over prompts, answers, reasoning, commands and their output, paths, tools and errors.
    Search(search::SearchArgs),
    /// List the sessions of an imported history, newest first.
    Sessions(search::SessionsArgs),
    /// Send an imported history on: as OpenTelemetry traces (OTLP/JSON) under the GenAI
    /// semantic conventions, a trace per session, a span per turn and per tool call.
    Export(export::Args),
    /// Tokens and cost across an imported history (`import --out DIR`), by day, week, month,
    /// session, model, source or project; each cost stated by its provider or computed.
    Usage(usage::Args),
    /// Check canonical JSONL against the canonical JSON Schema.
    Validate {
        /// Print a JSON report instead of lines.
        #[arg(long)]
        json: bool,
        /// Canonical JSONL (`-` or nothing for stdin).
        #[arg(default_value = "-")]
        file: String,
    },
    /// Count canonical events by type and list warnings by method.
    Stats {
        /// Print a JSON report instead of a table.
        #[arg(long)]
        json: bool,
        /// Canonical JSONL (`-` or nothing for stdin).
        #[arg(default_value = "-")]
        file: String,
    },
    /// Decode every line into the generated provider types and report what does not fit.
    Conform {
        /// The input format (a source name, as `agentwire --version` lists them); detected from the first lines when omitted.
        #[arg(long, value_name = "FORMAT")]
        from: Option<Source>,
        /// Trace files (`-` for stdin).
        #[arg(required = true)]
        files: Vec<String>,
    },
}

/// How a command ended, as the process exit code says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything decoded / validated.
    Success,
    /// Some input line had a problem (reported with its line number).
    Failure,
}

/// mimalloc: a normalizer allocates and frees many small strings per event, and glibc's malloc
/// spent a fifth of the time of `agentwire normalize` on them (see PERFORMANCE.md). Built with
/// `no_thp`: asked for transparent huge pages, mimalloc grows its ~10-20 MB heap 2 MB at a time,
/// which added 6-12 MB to the peak RSS for no measurable speed.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn parse_session_id(value: &str) -> Result<RuntimeSessionId, String> {
    RuntimeSessionId::new(value).map_err(|err| err.to_string())
}

fn parse_request_id(value: &str) -> Result<RuntimeRequestId, String> {
    RuntimeRequestId::new(value).map_err(|err| err.to_string())
}

fn parse_decision(value: &str) -> Result<Decision, String> {
    value.parse()
}

fn parse_json(value: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(value).map_err(|err| format!("not JSON: {err}"))
}

fn parse_provider_kind(value: &str) -> Result<ProviderKind, String> {
    ProviderKind::ALL
        .iter()
        .copied()
        .find(|kind| kind.as_str() == value)
        .ok_or_else(|| {
            let known: Vec<&str> = ProviderKind::ALL.iter().map(|kind| kind.as_str()).collect();
            unknown_name("provider kind", value, &known)
        })
}

/// `--version`: this build and the provider protocol versions its types were generated from.
fn version() -> String {
    let mut text = env!("CARGO_PKG_VERSION").to_string();
    for source in Source::ALL {
        text.push_str(&format!("\n{}: {}", source.name(), source.upstream()));
    }
    text.push_str("\ncanonical model: V2 (the provider-runtime V2 proposal, section 1)");
    text
}

fn main() -> ExitCode {
    let command = Cli::command().version(version());
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(normalize::OUTPUT_CHUNK, stdout.lock());
    let result = match cli.command {
        Command::Normalize(args) => normalize::run(args, &mut out),
        Command::Show(args) => show::run(args, &mut out),
        Command::Answer(args) => answer::run(args, &mut out),
        Command::Import(args) => import::run(args),
        Command::Validate { json, file } => validate::run(&file, json, &mut out),
        Command::Stats { json, file } => stats::run(&file, json, &mut out),
        Command::Usage(args) => usage::run(args, &mut out),
        Command::Export(args) => export::run(args, &mut out),
        Command::Search(args) => search::search(args, &mut out),
        Command::Sessions(args) => search::sessions(args, &mut out),
        Command::Conform { from, files } => conform::run(from, &files, &mut out),
    };
    let flushed = out.flush();
    match (result, flushed) {
        // The reader went away (`agentwire normalize big.jsonl | head -1`): the end of the
        // output is nobody's concern, so the program ends quietly, as Unix tools do.
        (Err(err), _) if closed_pipe(&err) => ExitCode::SUCCESS,
        (_, Err(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Ok(ExitStatus::Success), Ok(())) => ExitCode::SUCCESS,
        (Ok(ExitStatus::Failure), Ok(())) => ExitCode::from(1),
        (Err(err), _) => {
            eprintln!("agentwire: {err:#}");
            ExitCode::from(2)
        }
        (_, Err(err)) => {
            eprintln!("agentwire: writing output: {err}");
            ExitCode::from(2)
        }
    }
}

/// Whether an error is the standard output's reader having closed the pipe.
fn closed_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
