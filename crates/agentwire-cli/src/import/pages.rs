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

use super::chart;
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
    fs::write(&path, index(&rows, entries)).with_context(|| format!("writing {}", path.display()))
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

/// The index page: the history's totals, the daily chart of cost and tokens per source, then
/// the sessions grouped by project (their working folder), the project with the newest session
/// first and each project's sessions newest first: title, source, model, start, turns, errors,
/// tokens and cost.
fn index(rows: &[(&Entry, String)], entries: &[Entry]) -> String {
    let mut out = String::new();
    head(&mut out, "agentwire sessions");
    let mut total = agentwire::usage::empty(agentwire_canonical::UsageScope::Session);
    let (mut stated, mut computed) = (None::<f64>, None::<f64>);
    for usage in entries.iter().filter_map(|entry| entry.usage.as_ref()) {
        agentwire::usage::add(&mut total, usage);
        match (usage.cost_source, usage.cost_usd) {
            (agentwire_canonical::CostSource::Provider, Some(cost)) => *stated.get_or_insert(0.0) += cost,
            (agentwire_canonical::CostSource::Computed, Some(cost)) => *computed.get_or_insert(0.0) += cost,
            _ => {}
        }
    }
    let mut facts = vec![format!("{} session(s)", rows.len())];
    facts.extend(usage::describe(&total));
    facts.extend(stated.map(|cost| format!("{} stated by the providers", usage::dollars(cost))));
    facts.extend(computed.map(|cost| format!("{} computed from the price table", usage::dollars(cost))));
    let _ = write!(out, "<header><h1>Sessions</h1><div class=\"facts\">");
    for fact in &facts {
        let _ = write!(out, "<span>{}</span>", escape(fact));
    }
    out.push_str("</div></header>\n");
    out.push_str(&chart::daily(entries));
    // Rows come newest first; a project is placed by its first (newest) session.
    let mut projects: Vec<(&str, Vec<&(&Entry, String)>)> = Vec::new();
    for row in rows {
        let project = row.0.cwd.as_deref().unwrap_or("(no working folder)");
        match projects.iter_mut().find(|(name, _)| *name == project) {
            Some((_, sessions)) => sessions.push(row),
            None => projects.push((project, vec![row])),
        }
    }
    for (project, sessions) in &projects {
        let _ = write!(
            out,
            "<h2 class=\"project\">{} <span class=\"count\">{} session(s)</span></h2>\n\
             <table class=\"sessions\">\n<thead><tr><th>Session</th><th>Source</th><th>Model</th><th>Started</th>\
             <th>Turns</th><th>Errors</th><th>Tokens</th><th>Cost</th></tr></thead>\n<tbody>\n",
            escape(project),
            sessions.len()
        );
        for (entry, title) in sessions {
            let href = page_path(Path::new(&entry.output));
            let errors = match (entry.errors, entry.failed_turns) {
                (0, 0) => String::new(),
                (errors, 0) => format!("{errors}"),
                (errors, failed) => format!("{errors} ({failed} failed turn(s))"),
            };
            let _ = writeln!(
                out,
                "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&href.to_string_lossy()),
                escape(title),
                escape(&entry.source),
                escape(entry.model.as_deref().unwrap_or_default()),
                escape(&started(entry)),
                entry.turns,
                escape(&errors),
                escape(&entry.usage.as_ref().and_then(usage::describe).unwrap_or_default()),
                escape(&entry.usage.as_ref().and_then(usage::cost).unwrap_or_default())
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}
