//! `agentwire usage DIR`: tokens and cost across a whole imported history, by day, week, month,
//! session, model, source or project, read from the import's index (`DIR/sessions.jsonl`), whose
//! each session's usage is typed and totalled as `show` totals it. A session counts in the period
//! it started in. Each cost is split by where it came from: stated by the provider, or computed
//! from the price table; a session with tokens and no cost is counted as not priced.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use agentwire::usage;
use agentwire_canonical::{CostSource, TokenUsage, UsageScope};
use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::ExitStatus;
use crate::import::index::Entry;
use crate::import::{INDEX, read_index};
use crate::show::usage::{dollars, thousands};

#[derive(clap::Args)]
pub struct Args {
    /// The import folder (`agentwire import --out DIR`), or its `sessions.jsonl`.
    dir: PathBuf,
    /// What a row counts: the sessions of a day, a week (from its Monday), a month, one session,
    /// a model, a source or a project (the working folder).
    #[arg(long, value_enum, default_value = "day")]
    by: By,
    /// Only sessions started on this day (YYYY-MM-DD, UTC) or later.
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    since: Option<String>,
    /// Only sessions started on this day (YYYY-MM-DD, UTC) or earlier.
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    until: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum By {
    Day,
    Week,
    Month,
    Session,
    Model,
    Source,
    Project,
}

/// One row: its sessions' usage added up, the cost by where it came from.
#[derive(Default)]
struct Row {
    sessions: u64,
    /// Sessions with tokens and no cost (their models are not in the price table).
    not_priced: u64,
    tokens: Option<TokenUsage>,
    /// The costs providers stated, and those computed; `None` when no session has one.
    provider_usd: Option<f64>,
    computed_usd: Option<f64>,
}

impl Row {
    fn add(&mut self, entry: &Entry) {
        self.sessions += 1;
        let Some(session) = &entry.usage else {
            return;
        };
        usage::add(
            self.tokens.get_or_insert_with(|| usage::empty(UsageScope::Session)),
            session,
        );
        match (session.cost_source, session.cost_usd) {
            (CostSource::Provider, Some(cost)) => *self.provider_usd.get_or_insert(0.0) += cost,
            (CostSource::Computed, Some(cost)) => *self.computed_usd.get_or_insert(0.0) += cost,
            (CostSource::None, _) | (_, None) => self.not_priced += 1,
        }
    }

    fn figure(&self, pick: impl Fn(&TokenUsage) -> Option<i64>) -> i64 {
        self.tokens.as_ref().and_then(pick).unwrap_or(0)
    }

    fn json(&self, key: &str) -> Value {
        json!({
            "key": key,
            "sessions": self.sessions,
            "inputTokens": self.figure(|usage| usage.input_tokens),
            "cachedInputTokens": self.figure(|usage| usage.cached_input_tokens),
            "cacheWriteTokens": self.figure(|usage| usage.cache_write_tokens),
            "outputTokens": self.figure(|usage| usage.output_tokens),
            "reasoningTokens": self.figure(|usage| usage.reasoning_tokens),
            "totalTokens": self.figure(|usage| usage.total_tokens),
            "costUsd": (self.provider_usd.is_some() || self.computed_usd.is_some())
                .then(|| round(self.provider_usd.unwrap_or(0.0) + self.computed_usd.unwrap_or(0.0))),
            "providerCostUsd": self.provider_usd.map(round),
            "computedCostUsd": self.computed_usd.map(round),
            "notPricedSessions": self.not_priced,
        })
    }

    fn line(&self, key: &str, width: usize) -> String {
        let cost = |usd: Option<f64>| usd.map_or_else(|| "-".to_owned(), dollars);
        format!(
            "{key:<width$}  {:>8}  {:>13}  {:>13}  {:>11}  {:>10}  {:>10}  {:>10}\n",
            self.sessions,
            thousands(self.figure(|usage| usage.input_tokens)),
            thousands(self.figure(|usage| usage.cached_input_tokens)),
            thousands(self.figure(|usage| usage.output_tokens)),
            cost(self.provider_usd),
            cost(self.computed_usd),
            self.not_priced,
        )
    }
}

/// A sum of dollars as written: rounded to 1e-10, so added decimals read as the figure they are.
fn round(usd: f64) -> f64 {
    (usd * 1e10).round() / 1e10
}

pub fn run(args: Args, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let index = if args.dir.is_dir() {
        args.dir.join(INDEX)
    } else {
        args.dir.clone()
    };
    if !index.is_file() {
        bail!(
            "{}: no index here (run `agentwire import --out DIR` first)",
            index.display()
        );
    }
    let entries = read_index(&index)?;
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut total = Row::default();
    for entry in entries.values() {
        let day = day_of(entry);
        let outside = args.since.as_deref().is_some_and(|since| day.as_str() < since)
            || args.until.as_deref().is_some_and(|until| day.as_str() > until);
        if outside {
            continue;
        }
        let key = match args.by {
            By::Day => day,
            By::Week => week_of(&day).unwrap_or(day),
            By::Month => day.get(..7).unwrap_or("unknown").to_owned(),
            By::Session => format!("{} {}", entry.source, entry.session_id),
            By::Model => entry.model.clone().unwrap_or_else(|| "(no model)".to_owned()),
            By::Source => entry.source.clone(),
            By::Project => entry.cwd.clone().unwrap_or_else(|| "(no folder)".to_owned()),
        };
        rows.entry(key).or_default().add(entry);
        total.add(entry);
    }
    if args.json {
        let report = json!({
            "by": by_name(args.by),
            "rows": rows.iter().map(|(key, row)| row.json(key)).collect::<Vec<_>>(),
            "total": total.json("total"),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?).context("writing the report")?;
        return Ok(ExitStatus::Success);
    }
    let width = rows.keys().map(|key| key.chars().count()).max().unwrap_or(0).max(10);
    let mut text = format!(
        "{:<width$}  {:>8}  {:>13}  {:>13}  {:>11}  {:>10}  {:>10}  {:>10}\n",
        by_name(args.by),
        "sessions",
        "input",
        "cached",
        "output",
        "stated $",
        "computed $",
        "not priced"
    );
    for (key, row) in &rows {
        text.push_str(&row.line(key, width));
    }
    text.push_str(&total.line("total", width));
    out.write_all(text.as_bytes()).context("writing the report")?;
    Ok(ExitStatus::Success)
}

fn by_name(by: By) -> &'static str {
    match by {
        By::Day => "day",
        By::Week => "week",
        By::Month => "month",
        By::Session => "session",
        By::Model => "model",
        By::Source => "source",
        By::Project => "project",
    }
}

/// The day (UTC) a session started, `unknown` when nothing dated it.
fn day_of(entry: &Entry) -> String {
    match entry.time_source {
        agentwire::clock::TimeSource::Unknown => "unknown".to_owned(),
        _ => entry.started_at.get(..10).unwrap_or("unknown").to_owned(),
    }
}

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// Days since 1970-01-01 of `YYYY-MM-DD`, when it is a day of the calendar.
fn day_number(day: &str) -> Option<i64> {
    let ms = agentwire::clock::unix_millis(&format!("{day}T00:00:00Z"))?;
    let number = ms.div_euclid(DAY_MS);
    (day.len() == 10 && agentwire::clock::rfc3339_millis(number * DAY_MS).starts_with(day)).then_some(number)
}

/// `2026-12-03` as the Monday of its week, `2026-11-30`.
fn week_of(day: &str) -> Option<String> {
    let days = day_number(day)?;
    // 1970-01-01 was a Thursday: three days after a Monday.
    let monday = days - (days + 3).rem_euclid(7);
    Some(agentwire::clock::rfc3339_millis(monday * DAY_MS)[..10].to_owned())
}

fn parse_date(value: &str) -> Result<String, String> {
    if day_number(value).is_some() {
        Ok(value.to_owned())
    } else {
        Err(format!("`{value}` is no date: write YYYY-MM-DD"))
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_date, week_of};

    #[test]
    fn a_week_is_named_by_its_monday() {
        assert_eq!(week_of("2026-12-03").as_deref(), Some("2026-11-30"));
        assert_eq!(week_of("2026-11-30").as_deref(), Some("2026-11-30"));
        assert_eq!(week_of("2026-12-06").as_deref(), Some("2026-11-30"));
        assert_eq!(week_of("2024-01-01").as_deref(), Some("2024-01-01"));
    }

    #[test]
    fn a_date_is_a_day_of_the_calendar() {
        assert!(parse_date("2026-12-07").is_ok());
        assert!(parse_date("2026-02-30").is_err());
        assert!(parse_date("yesterday").is_err());
    }
}
