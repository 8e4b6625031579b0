//! `agentwire`: conform, normalize, validate and summarize provider traces, and answer their
//! open requests.
//!
//! Exit codes: 0 success; 1 the input had problems (each reported with its line number, the
//! stream went on): for `normalize` a line that could not be read at all (with `--strict`, also a
//! message that did not decode), for `conform` and `validate` any line that did not fit, for
//! `answer` a reply that cannot be built; 2 usage errors and unreadable files.

mod answer;
mod conform;
mod input;
mod normalize;
mod stats;
mod validate;

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use agentwire::clock::ClockSource;
use agentwire::decision::Decision;
use agentwire::source::{Source, unknown_name};
use agentwire_canonical::{ProviderKind, RuntimeRequestId, RuntimeSessionId};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "agentwire", about = "One typed wire for every coding agent.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Normalize a provider trace to canonical events (JSONL on stdout).
    Normalize {
        /// The input format (codex-app-server, codex-exec, codex-rollout, claude, claude-control, acp, cursor); detected from the first lines when omitted.
        #[arg(long, value_name = "FORMAT")]
        from: Option<Source>,
        /// The canonical session id; default: UUIDv5 of the first input line.
        #[arg(long, value_name = "ID", value_parser = parse_session_id)]
        session_id: Option<RuntimeSessionId>,
        /// The `provider` of every event (codex, claudeAgent, cursor, acp); default: the source's.
        #[arg(long, value_name = "KIND", value_parser = parse_provider_kind)]
        provider_kind: Option<ProviderKind>,
        /// Where `createdAt` comes from when a line carries no time.
        #[arg(long, value_enum, default_value_t = ClockArg::Recorded)]
        clock: ClockArg,
        /// Exit 1 also when a message is not declared by the pinned schema or does not decode
        /// (by default those are `runtime.warning` events in a complete stream, exit 0).
        #[arg(long)]
        strict: bool,
        /// Keep credentials (tokens, API keys, `Authorization` headers) in `raw` and payloads;
        /// by default they are replaced by `[redacted]`.
        #[arg(long)]
        keep_secrets: bool,
        /// The trace (`-` or nothing for stdin).
        #[arg(default_value = "-")]
        file: String,
    },
    /// Answer an open request of a trace: print the provider-native reply frame (one JSON line,
    /// what the client writes to the agent's stdin).
    Answer {
        /// The input format; detected from the first lines when omitted.
        #[arg(long, value_name = "FORMAT")]
        from: Option<Source>,
        /// The canonical session id `normalize` was given, if any (request ids derive from it).
        #[arg(long, value_name = "ID", value_parser = parse_session_id)]
        session_id: Option<RuntimeSessionId>,
        /// The `requestId` of the `request.opened` to answer.
        #[arg(long, value_name = "ID", value_parser = parse_request_id)]
        request: RuntimeRequestId,
        /// The decision, in `request.resolved`'s vocabulary (accept, acceptForSession, decline,
        /// cancel, answered).
        #[arg(long, value_name = "D", value_parser = parse_decision)]
        decision: Decision,
        /// Answers to questions (as `user-input.resolved` carries them), or an MCP form's content.
        #[arg(long, value_name = "JSON", value_parser = parse_json)]
        answers: Option<serde_json::Value>,
        /// A tool's result, or the fields of an outcome beyond the decision.
        #[arg(long, value_name = "JSON", value_parser = parse_json)]
        result: Option<serde_json::Value>,
        /// Why the request was refused (a deny's message, a rejection's reason).
        #[arg(long, value_name = "TEXT")]
        message: Option<String>,
        /// The session so far (`-` or nothing for stdin).
        #[arg(default_value = "-")]
        file: String,
    },
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
        /// The input format (codex-app-server, codex-exec, codex-rollout, claude, claude-control, acp, cursor); detected from the first lines when omitted.
        #[arg(long, value_name = "FORMAT")]
        from: Option<Source>,
        /// Trace files (`-` for stdin).
        #[arg(required = true)]
        files: Vec<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ClockArg {
    /// Recorded and provider times, else the last one: reproducible output.
    Recorded,
    /// Recorded and provider times, else the wall clock (live use).
    Wall,
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
/// spent a fifth of the time of `agentwire normalize` on them (see PERFORMANCE.md).
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
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match cli.command {
        Command::Normalize {
            from,
            session_id,
            provider_kind,
            clock,
            strict,
            keep_secrets,
            file,
        } => {
            let clock = match clock {
                ClockArg::Recorded => ClockSource::Recorded,
                ClockArg::Wall => ClockSource::Wall,
            };
            normalize::run(
                normalize::Args {
                    from,
                    session_id,
                    provider: provider_kind,
                    clock,
                    strict,
                    keep_secrets,
                    file,
                },
                &mut out,
            )
        }
        Command::Answer {
            from,
            session_id,
            request,
            decision,
            answers,
            result,
            message,
            file,
        } => answer::run(
            answer::Args {
                from,
                session_id,
                request,
                decision,
                answers,
                result,
                message,
                file,
            },
            &mut out,
        ),
        Command::Validate { json, file } => validate::run(&file, json, &mut out),
        Command::Stats { json, file } => stats::run(&file, json, &mut out),
        Command::Conform { from, files } => conform::run(from, &files, &mut out),
    };
    let flushed = out.flush();
    match (result, flushed) {
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
