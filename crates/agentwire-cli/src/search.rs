//! `agentwire search QUERY` and `agentwire sessions`: a history's sessions found by what was
//! said and done in them, and listed, from the database `import` keeps (`DIR/history.sqlite`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use rusqlite::types::Value as Sql;
use serde_json::{Value, json};

use crate::ExitStatus;
use crate::import::history::{self, KINDS};

/// What narrows a search or a listing.
#[derive(clap::Args)]
pub struct Filters {
    /// The import folder (`agentwire import --out DIR`).
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Only sessions of this source (`claude`, `codex-rollout`, ...).
    #[arg(long)]
    source: Option<String>,
    /// Only what happened on this day (YYYY-MM-DD, UTC) or later.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only sessions whose working folder is this one or below it.
    #[arg(long, value_name = "FOLDER")]
    cwd: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// Words to find (each must occur; case and accents aside), in prompts, answers, reasoning,
    /// commands and their output, file paths, tool names and errors.
    query: String,
    #[command(flatten)]
    filters: Filters,
    /// Only this kind of text.
    #[arg(long = "type", value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(KINDS))]
    kind: Option<String>,
    /// The order of the hits: best match first, or newest first.
    #[arg(long, value_enum, default_value = "best")]
    sort: Sort,
    /// The most hits printed.
    #[arg(long, default_value = "20")]
    limit: u32,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Sort {
    Best,
    Newest,
}

/// The words of `query` as an FTS5 query: each a quoted string, all required, so no character of
/// a person's query is read as FTS5 syntax.
fn fts_query(query: &str) -> Option<String> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The SQL conditions on `sessions` (aliased `s`) the filters make, and their parameters.
fn session_conditions(filters: &Filters, at: &str) -> (Vec<String>, Vec<Sql>) {
    let (mut conditions, mut params) = (Vec::new(), Vec::new());
    if let Some(source) = &filters.source {
        conditions.push("s.source = ?".to_owned());
        params.push(Sql::Text(source.clone()));
    }
    if let Some(since) = &filters.since {
        conditions.push(format!("{at} >= ?"));
        params.push(Sql::Text(since.clone()));
    }
    if let Some(cwd) = &filters.cwd {
        let folder = cwd.trim_end_matches('/');
        conditions.push("(s.cwd = ? OR substr(s.cwd, 1, ?) = ?)".to_owned());
        params.push(Sql::Text(folder.to_owned()));
        let below = format!("{folder}/");
        params.push(Sql::Integer(i64::try_from(below.len()).unwrap_or(i64::MAX)));
        params.push(Sql::Text(below));
    }
    (conditions, params)
}

pub fn search(args: SearchArgs, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let connection = history::open(&args.filters.dir)?;
    let Some(query) = fts_query(&args.query) else {
        anyhow::bail!("an empty query: give the words to find");
    };
    let (mut conditions, mut params) = session_conditions(&args.filters, "coalesce(t.at, s.started_at)");
    conditions.insert(0, "texts MATCH ?".to_owned());
    params.insert(0, Sql::Text(query));
    if let Some(kind) = &args.kind {
        conditions.push("t.kind = ?".to_owned());
        params.push(Sql::Text(kind.clone()));
    }
    let order = match args.sort {
        Sort::Best => "rank",
        Sort::Newest => "coalesce(t.at, s.started_at) DESC",
    };
    let sql = format!(
        "SELECT s.session_id, s.source, s.output, s.title, t.kind, coalesce(t.at, s.started_at), \
         tr.position, snippet(texts, 0, '[', ']', '…', 12), rank \
         FROM texts t JOIN sessions s ON s.session_id = t.session_id \
         LEFT JOIN turns tr ON tr.session_id = t.session_id AND tr.turn_id = t.turn_id \
         WHERE {} ORDER BY {order} LIMIT {}",
        conditions.join(" AND "),
        args.limit
    );
    let mut statement = connection.prepare(&sql).context("preparing the search")?;
    let hits = statement
        .query_map(rusqlite::params_from_iter(params), |row| {
            Ok(json!({
                "sessionId": row.get::<_, String>(0)?,
                "source": row.get::<_, String>(1)?,
                "output": row.get::<_, String>(2)?,
                "title": row.get::<_, Option<String>>(3)?,
                "kind": row.get::<_, String>(4)?,
                "at": row.get::<_, Option<String>>(5)?,
                "turn": row.get::<_, Option<i64>>(6)?,
                "snippet": row.get::<_, String>(7)?,
                "rank": row.get::<_, f64>(8)?,
            }))
        })
        .context("searching")?
        .collect::<rusqlite::Result<Vec<Value>>>()
        .context("searching")?;
    if args.filters.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&hits)?)?;
        return Ok(ExitStatus::Success);
    }
    if hits.is_empty() {
        writeln!(out, "no hit for {:?}", args.query)?;
    }
    for hit in &hits {
        let text = |key: &str| hit[key].as_str().unwrap_or_default().to_owned();
        let at: String = text("at").replacen('T', " ", 1).chars().take(16).collect();
        let turn = hit["turn"]
            .as_i64()
            .map(|turn| format!(" · turn {turn}"))
            .unwrap_or_default();
        let snippet = text("snippet").split_whitespace().collect::<Vec<_>>().join(" ");
        let title = Some(text("title"))
            .filter(|title| !title.is_empty())
            .map(|title| format!(" · {title}"));
        writeln!(
            out,
            "{at} UTC · {} · {}{turn}{}\n  {snippet}\n  agentwire show {}\n",
            text("source"),
            text("kind"),
            title.unwrap_or_default(),
            args.filters.dir.join(text("output")).display()
        )?;
    }
    Ok(ExitStatus::Success)
}

#[derive(clap::Args)]
pub struct SessionsArgs {
    #[command(flatten)]
    filters: Filters,
}

pub fn sessions(args: SessionsArgs, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let connection = history::open(&args.filters.dir)?;
    let (conditions, params) = session_conditions(&args.filters, "s.started_at");
    let filter = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    let sql = format!(
        "SELECT s.session_id, s.source, s.cwd, s.model, s.title, s.started_at, s.turns, s.errors, \
         s.input_tokens, s.output_tokens, s.cost_usd, s.cost_source, s.output \
         FROM sessions s {filter} ORDER BY s.started_at DESC, s.session_id"
    );
    let mut statement = connection.prepare(&sql).context("preparing the listing")?;
    let rows = statement
        .query_map(rusqlite::params_from_iter(params), |row| {
            Ok(json!({
                "sessionId": row.get::<_, String>(0)?,
                "source": row.get::<_, String>(1)?,
                "cwd": row.get::<_, Option<String>>(2)?,
                "model": row.get::<_, Option<String>>(3)?,
                "title": row.get::<_, Option<String>>(4)?,
                "startedAt": row.get::<_, String>(5)?,
                "turns": row.get::<_, i64>(6)?,
                "errors": row.get::<_, i64>(7)?,
                "inputTokens": row.get::<_, Option<i64>>(8)?,
                "outputTokens": row.get::<_, Option<i64>>(9)?,
                "costUsd": row.get::<_, Option<f64>>(10)?,
                "costSource": row.get::<_, Option<String>>(11)?,
                "output": row.get::<_, String>(12)?,
            }))
        })
        .context("listing")?
        .collect::<rusqlite::Result<Vec<Value>>>()
        .context("listing")?;
    if args.filters.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(ExitStatus::Success);
    }
    for row in &rows {
        let text = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
        let at: String = text("startedAt").replacen('T', " ", 1).chars().take(16).collect();
        let tokens = match (row["inputTokens"].as_i64(), row["outputTokens"].as_i64()) {
            (Some(input), Some(output)) => format!(" · {input} in · {output} out"),
            _ => String::new(),
        };
        let cost = row["costUsd"]
            .as_f64()
            .map(|cost| format!(" · ${cost:.4}"))
            .unwrap_or_default();
        let title = Some(text("title"))
            .filter(|title| !title.is_empty())
            .map(|title| format!(" · {title}"));
        writeln!(
            out,
            "{at} UTC · {} · {} turn(s){tokens}{cost}{}\n  {}",
            text("source"),
            row["turns"],
            title.unwrap_or_default(),
            args.filters.dir.join(text("output")).display()
        )?;
    }
    Ok(ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    use super::fts_query;

    #[test]
    fn a_query_is_words_not_fts5_syntax() {
        assert_eq!(fts_query("echo hello").as_deref(), Some("\"echo\" \"hello\""));
        assert_eq!(fts_query("a\"b OR c*").as_deref(), Some("\"a\"\"b\" \"OR\" \"c*\""));
        assert_eq!(fts_query("  "), None);
    }
}
