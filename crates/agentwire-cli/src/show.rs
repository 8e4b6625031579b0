//! `agentwire show`: a session as a person reads it, in a terminal or as one HTML page.
//!
//! The input is a provider trace (normalized on the way in, as `normalize` does) or canonical
//! JSONL; either way the events are folded into the core's [`SessionSnapshot`] and drawn from it
//! alone, so every source looks the same. The snapshot keeps only the requests still open; the
//! decisions taken on the others are read from the events ([`requests`]).

pub mod html;
mod markdown;
mod page;
mod requests;
mod text;
pub mod usage;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use agentwire::clock::TimeSource;
use agentwire::normalizer::{Options, ProblemKind};
use agentwire::source::Source;
use agentwire_canonical::ProviderRuntimeEvent;
use anyhow::Context;

use crate::ExitStatus;
use crate::input::{Fit, Input};

pub use page::Page;

/// `agentwire show`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The input format (a source name, as `agentwire --version` lists them); detected from the first lines when omitted. Canonical JSONL is recognized by its first line.
    #[arg(long, value_name = "FORMAT")]
    from: Option<Source>,
    /// When to colour the text: `auto` colours a terminal unless `NO_COLOR` is set (not empty).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// Also write the session as one self-contained HTML page to this file.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Print the session snapshot (the fold of its events, `SessionSnapshot` of the canonical
    /// schema) as JSON instead of the text: what a tool or a test reads.
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print the session as Markdown instead of the text: to paste into an issue or hand to
    /// another agent.
    #[arg(long)]
    markdown: bool,
    /// The trace or canonical JSONL (`-` or nothing for stdin).
    #[arg(default_value = "-")]
    file: String,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Reads the input, folds it and writes the text (and the page, with `--html`). The status is a
/// failure when a line could not be read at all, each reported on stderr with its number.
pub fn run(args: Args, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let (events, status, time_source) = read(&args.file, args.from)?;
    if events.is_empty() {
        // Nothing to draw: why was said on stderr (an empty input, no line of the source).
        return Ok(ExitStatus::Failure);
    }
    if args.json {
        let snapshot = agentwire::snapshot::fold(&events);
        serde_json::to_writer_pretty(&mut *out, &snapshot)?;
        out.write_all(b"\n")?;
    }
    let page = Page::of(&events).with_time_source(time_source);
    if let Some(path) = &args.html {
        std::fs::write(path, html::render(&page, None)).with_context(|| format!("writing {}", path.display()))?;
    }
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        // no-color.org: set and not empty.
        ColorArg::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
        }
    };
    if args.markdown {
        out.write_all(markdown::render(&page).as_bytes())?;
        out.write_all(b"\n")?;
    } else if !args.json {
        out.write_all(text::render(&page, color).as_bytes())?;
    }
    Ok(status)
}

/// The canonical events of `path`: read as they are when the first line is a canonical event,
/// else normalized from the provider trace `from` names or detection finds, with what their
/// times come from (unknown for canonical JSONL, whose times are as written).
fn read(
    path: &str,
    from: Option<Source>,
) -> anyhow::Result<(Vec<ProviderRuntimeEvent>, ExitStatus, Option<TimeSource>)> {
    let mut input = Input::open(path)?;
    let canonical = from.is_none()
        && input
            .peek()?
            .is_some_and(|line| serde_json::from_str::<ProviderRuntimeEvent>(&line).is_ok());
    if canonical {
        let (events, status) = read_canonical(input)?;
        return Ok((events, status, None));
    }
    let (source, format) = input.detect(from)?;
    if let Some(joined) = Input::with_companions(path, source)? {
        input = joined;
    }
    // A page is for a person: a stream without times of its own is dated by its file.
    let mut normalizer = source.normalizer(Options::default().with_file_modified(input.modified_ms));
    let (mut events, mut buf, mut status) = (Vec::new(), Vec::new(), ExitStatus::Success);
    let mut fit = Fit::default();
    while let Some(number) = input.next_line(&mut buf)? {
        let pushed = normalizer.push_bytes(&buf, format, &mut events);
        fit.record(&buf, pushed.is_ok());
        if let Err(problem) = pushed {
            eprintln!("{}:{number}: {problem}", input.name);
            if problem.kind == ProblemKind::Unreadable {
                status = ExitStatus::Failure;
            }
        }
    }
    normalizer.finish(&mut events);
    if let Some(verdict) = fit.verdict(&input.name, source) {
        eprintln!("{verdict}");
        status = ExitStatus::Failure;
    }
    Ok((events, status, Some(normalizer.time_source())))
}

/// Canonical JSONL as written by `normalize` and `import`: each line one event; a line that is
/// none is reported and left out.
fn read_canonical(mut input: Input) -> anyhow::Result<(Vec<ProviderRuntimeEvent>, ExitStatus)> {
    let (mut events, mut buf, mut status) = (Vec::new(), Vec::new(), ExitStatus::Success);
    while let Some(number) = input.next_line(&mut buf)? {
        match serde_json::from_slice(&buf) {
            Ok(event) => events.push(event),
            Err(err) => {
                eprintln!("{}:{number}: not a canonical event: {err}", input.name);
                status = ExitStatus::Failure;
            }
        }
    }
    Ok((events, status))
}

/// The snapshot of the canonical JSONL at `path` (for the history database), lines that are no
/// event left out; `None` for a file with no event.
pub fn snapshot_of_canonical(path: &Path) -> anyhow::Result<Option<agentwire_canonical::SessionSnapshot>> {
    let input = Input::open_file(path).with_context(|| format!("reading {}", path.display()))?;
    let (events, _) = read_canonical(input)?;
    Ok(agentwire::snapshot::fold(&events))
}

/// The page of the canonical JSONL at `path` (for `import --html`), saying where its times come
/// from (the index knows; the events do not); lines that are no event are left out, as `show`
/// leaves them out.
pub fn page_of_canonical(path: &Path, time_source: TimeSource) -> anyhow::Result<Page> {
    let input = Input::open_file(path).with_context(|| format!("reading {}", path.display()))?;
    let (events, _) = read_canonical(input)?;
    Ok(Page::of(&events).with_time_source(Some(time_source)))
}
