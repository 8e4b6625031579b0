//! `agentwire`: conform, normalize, validate and summarize provider traces.
//!
//! Exit codes: 0 success; 1 the input had problems (a line that did not decode or validate);
//! 2 usage errors and unreadable files.

mod conform;
mod input;

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use agentwire::source::Source;
use clap::{Parser, Subcommand};

use crate::input::Input;

#[derive(Parser)]
#[command(name = "agentwire", version, about = "One typed wire for every coding agent.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode every line into the generated provider types and report what does not fit.
    Conform {
        /// The input format; detected from the first lines when omitted.
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match cli.command {
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

/// Detects the source of a file from its first lines, or says how to name it.
pub fn detect_source(path: &str) -> anyhow::Result<Source> {
    let mut input = Input::open(path)?;
    let mut buf = Vec::new();
    let mut lines = Vec::new();
    while lines.len() < 64 && input.next_line(&mut buf)? {
        lines.push(String::from_utf8_lossy(&buf).into_owned());
    }
    Source::detect(lines.iter().map(String::as_str)).ok_or_else(|| {
        let known: Vec<&str> = Source::ALL.iter().map(|source| source.name()).collect();
        anyhow::anyhow!(
            "{path}: cannot tell the format from its first lines; pass --from ({})",
            known.join(", ")
        )
    })
}
