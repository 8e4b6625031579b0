//! `import --html`: each session's page beside its canonical JSONL, drawn by `show` from that
//! file, and `index.html` in the output folder linking them, newest first. Every page is drawn
//! again on each run: a page's title (its first prompt) is read off the session, not kept in
//! the index, and drawing is cheap next to normalizing.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use agentwire::clock::TimeSource;
use anyhow::Context;
use rayon::prelude::*;

use super::index::Entry;
use crate::show::html::{escape, head};
use crate::show::{self, usage};

/// The index page in the output folder.
const INDEX_PAGE: &str = "index.html";

/// The index page as a session's page (in `<source>/`) links it.
const BACK: &str = "../index.html";

/// The page of the canonical JSONL at `jsonl`: the same path ending in `.html`.
pub fn page_path(jsonl: &Path) -> PathBuf {
    jsonl.with_extension("html")
}

/// Writes every entry's page, then the index page linking them.
pub fn write(out_dir: &Path, entries: &[Entry], pool: &rayon::ThreadPool) -> anyhow::Result<()> {
    let titles: Vec<String> = pool.install(|| {
        entries
            .par_iter()
            .map(|entry| {
                let jsonl = out_dir.join(&entry.output);
                let page = show::page_of_canonical(&jsonl, entry.time_source)?;
                let path = page_path(&jsonl);
                fs::write(&path, show::html::render(&page, Some(BACK)))
                    .with_context(|| format!("writing {}", path.display()))?;
                Ok(page.title)
            })
            .collect::<anyhow::Result<_>>()
    })?;
    let mut rows: Vec<(&Entry, String)> = entries.iter().zip(titles).collect();
    rows.sort_by(|one, other| other.0.started_at.cmp(&one.0.started_at));
    let path = out_dir.join(INDEX_PAGE);
    fs::write(&path, index(&rows)).with_context(|| format!("writing {}", path.display()))
}

/// When a session started, to the minute with its zone, and where that time comes from when it
/// is not the stream's own; `unknown` when nothing said a time.
fn started(entry: &Entry) -> String {
    let source = match entry.time_source {
        TimeSource::Unknown => return "unknown".to_owned(),
        TimeSource::Recorded => String::new(),
        other => format!(" ({})", other.describe()),
    };
    let minute: String = entry.started_at.replacen('T', " ", 1).chars().take(16).collect();
    format!("{minute} UTC{source}")
}

/// The index page: one row per session with its title, source, start, turns and cost.
fn index(rows: &[(&Entry, String)]) -> String {
    let mut out = String::new();
    head(&mut out, "agentwire sessions");
    let _ = write!(
        out,
        "<header><h1>Sessions</h1><div class=\"facts\"><span>{} session(s)</span></div></header>\n\
         <table class=\"sessions\">\n<thead><tr><th>Session</th><th>Source</th><th>Started</th>\
         <th>Turns</th><th>Cost</th></tr></thead>\n<tbody>\n",
        rows.len()
    );
    for (entry, title) in rows {
        let href = page_path(Path::new(&entry.output));
        let _ = writeln!(
            out,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&href.to_string_lossy()),
            escape(title),
            escape(&entry.source),
            escape(&started(entry)),
            entry.turns,
            entry.usage.as_ref().and_then(usage::cost).unwrap_or_default()
        );
    }
    out.push_str("</tbody>\n</table>\n</body>\n</html>\n");
    out
}
