//! `agentwire normalize`: provider trace in, canonical JSONL out.

use std::io::{IsTerminal, Write};

use agentwire::clock::ClockSource;
use agentwire::frame::LineFormat;
use agentwire::normalizer::{Normalizer, Options, Problem, ProblemKind};
use agentwire::source::Source;
use agentwire_canonical::{ProviderKind, RuntimeSessionId, WriteJson};

use crate::ExitStatus;
use crate::input::{Fit, Input};

/// Inputs at least this large show progress on a terminal's stderr.
const PROGRESS_MIN_BYTES: u64 = 16 << 20;

/// `agentwire normalize`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The input format (a source name, as `agentwire --version` lists them); detected from the first lines when omitted.
    #[arg(long, value_name = "FORMAT")]
    from: Option<Source>,
    /// The canonical session id; default: UUIDv5 of the first input line.
    #[arg(long, value_name = "ID", value_parser = crate::parse_session_id)]
    session_id: Option<RuntimeSessionId>,
    /// The `provider` of every event (codex, claudeAgent, cursor, acp); default: the source's.
    #[arg(long = "provider-kind", value_name = "KIND", value_parser = crate::parse_provider_kind)]
    provider: Option<ProviderKind>,
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
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ClockArg {
    /// Recorded and provider times, else the last one: reproducible output.
    Recorded,
    /// Recorded and provider times, else the wall clock (live use).
    Wall,
    /// Recorded and provider times, else a UUIDv7 thread id's, else the file's modification
    /// time (what `import` and `show` use).
    File,
}

/// Normalizes one input. Lines that do not decode become `runtime.warning` events and a
/// line-numbered message on stderr; the stream goes on. The exit status is 1 when a line could
/// not be read at all (with `strict`, also when a message did not decode): a `runtime.warning`
/// for a message a newer provider sends is part of a complete stream.
pub fn run(args: Args, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let mut input = Input::open(&args.file)?;
    let (source, format) = input.detect(args.from)?;
    if let Some(joined) = Input::with_companions(&args.file, source)? {
        input = joined;
    }
    let options = Options::default()
        .with_session_id(args.session_id)
        .with_provider(args.provider)
        .with_clock(match args.clock {
            ClockArg::Recorded | ClockArg::File => ClockSource::Recorded,
            ClockArg::Wall => ClockSource::Wall,
        })
        .with_file_modified(match args.clock {
            ClockArg::File => input.modified_ms,
            ClockArg::Recorded | ClockArg::Wall => None,
        })
        .with_keep_secrets(args.keep_secrets);
    let mut normalizer = source.normalizer(options);
    let (mut status, fit) = feed(&mut input, format, normalizer.as_mut(), args.strict, out)?;
    let (mut events, mut text) = (Vec::new(), Vec::new());
    normalizer.finish(&mut events);
    write_events(&mut events, &mut text)?;
    out.write_all(&text)?;
    if let Some(verdict) = fit.verdict(&input.name, source) {
        eprintln!("{verdict}");
        status = ExitStatus::Failure;
    }
    Ok(status)
}

/// Pushes every line of `input` into `normalizer`, writing the events to `out` as they come
/// (the end of the stream is the caller's: `answer` reads a session so far and settles nothing).
/// Each problem is reported on stderr with its line number; the status is as [`run`] says, and
/// the [`Fit`] says whether any line fitted the source.
pub fn feed(
    input: &mut Input,
    format: LineFormat,
    normalizer: &mut dyn Normalizer,
    strict: bool,
    out: &mut impl Write,
) -> anyhow::Result<(ExitStatus, Fit)> {
    let progress = input
        .len
        .filter(|len| *len >= PROGRESS_MIN_BYTES && std::io::stderr().is_terminal());
    let mut status = ExitStatus::Success;
    let mut fit = Fit::default();
    let (mut events, mut buf, mut text) = (Vec::new(), Vec::new(), Vec::new());
    let mut shown_percent = 0;
    while let Some(number) = input.next_line(&mut buf)? {
        let pushed = match input.unreadable() {
            Some(reason) => {
                normalizer.push_unreadable(&String::from_utf8_lossy(&buf), reason, &mut events);
                Err(Problem::new(ProblemKind::Unreadable, reason))
            }
            None => normalizer.push_bytes(&buf, format, &mut events),
        };
        fit.record(&buf, pushed.is_ok());
        if let Err(problem) = pushed {
            eprintln!("{}:{number}: {problem}", input.name);
            if strict || problem.kind == ProblemKind::Unreadable {
                status = ExitStatus::Failure;
            }
        }
        write_events(&mut events, &mut text)?;
        let idle = !input.has_ready_data();
        if idle || text.len() >= OUTPUT_CHUNK {
            out.write_all(&text)?;
            text.clear();
            // A burst (events held until the stream gave a time, a huge message) is not kept
            // for the rest of the stream.
            if text.capacity() > TEXT_KEPT {
                text = Vec::new();
            }
        }
        if idle {
            out.flush()?;
        }
        if let Some(len) = progress {
            let percent = input.read * 100 / len.max(1);
            if percent > shown_percent {
                shown_percent = percent;
                eprint!("\r{}: {percent}% ({number} lines)", input.name);
            }
        }
    }
    out.write_all(&text)?;
    if progress.is_some() {
        eprintln!();
    }
    Ok((status, fit))
}

/// Appends `events` to `text` as JSON lines, written with [`WriteJson`] (the same bytes as
/// serde_json's).
pub fn write_events(
    events: &mut Vec<agentwire_canonical::ProviderRuntimeEvent>,
    text: &mut Vec<u8>,
) -> anyhow::Result<()> {
    for event in events.drain(..) {
        event.write_json(text)?;
        text.push(b'\n');
    }
    Ok(())
}

/// How much output is gathered before it is written, unless the input has nothing more ready.
/// Written in chunks at least as large as the CLI's output buffer, the events go straight to
/// stdout instead of being copied into that buffer first (for codex exec, output is eight
/// times its input).
pub const OUTPUT_CHUNK: usize = 1 << 16;

/// The largest output buffer kept from one chunk to the next.
const TEXT_KEPT: usize = 1 << 20;
