//! The daily chart of `import --html`'s index page: per day, the cost and the tokens of the
//! sessions started that day, stacked by source, as inline SVG drawn at import (the page keeps
//! its policy: no script, nothing fetched). Each bar's part says its figures on hover (`<title>`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::index::Entry;
use crate::show::html::escape;
use crate::show::usage::{dollars, thousands};

/// The most recent days drawn.
const DAYS: usize = 60;
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 120.0;
/// Room left of the bars for the axis label, and below for the dates.
const LEFT: f64 = 64.0;
const BOTTOM: f64 = 18.0;

/// One colour per source, in the order sources first appear, cycling.
const PALETTE: &[&str] = &[
    "#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#db2777", "#65a30d", "#1e3a8a", "#ea580c",
    "#0d9488", "#4b5563", "#ca8a04",
];

/// A day's cost in dollars and tokens (input and output), per source.
type Day<'a> = BTreeMap<&'a str, (f64, i64)>;
/// Per day (`YYYY-MM-DD`), its [`Day`].
type Days<'a> = BTreeMap<&'a str, Day<'a>>;

/// The two charts (cost, tokens) with their legend; empty when no session is dated.
pub fn daily(entries: &[Entry]) -> String {
    let mut days: Days<'_> = BTreeMap::new();
    let mut sources: Vec<&str> = Vec::new();
    for entry in entries {
        let Some(day) = entry.started_at.get(..10).filter(|day| !day.starts_with("1970")) else {
            continue;
        };
        if !sources.contains(&entry.source.as_str()) {
            sources.push(&entry.source);
        }
        let usage = entry.usage.as_ref();
        let tokens = usage.map_or(0, |usage| {
            usage.input_tokens.unwrap_or(0) + usage.output_tokens.unwrap_or(0)
        });
        let cost = usage.and_then(|usage| usage.cost_usd).unwrap_or(0.0);
        let sum = days.entry(day).or_default().entry(&entry.source).or_default();
        sum.0 += cost;
        sum.1 += tokens;
    }
    if days.is_empty() {
        return String::new();
    }
    sources.sort_unstable();
    let colour = |source: &str| {
        let index = sources.iter().position(|known| *known == source).unwrap_or(0);
        PALETTE[index % PALETTE.len()]
    };
    let recent: Vec<(&&str, &Day<'_>)> = days.iter().rev().take(DAYS).rev().collect();
    let mut out = String::from("<section class=\"charts\">\n");
    out.push_str(&chart("cost per day", &recent, &colour, |(cost, _)| *cost, dollars));
    out.push_str(&chart(
        "tokens per day (input and output)",
        &recent,
        &colour,
        |(_, tokens)| *tokens as f64,
        |value| thousands(value.round() as i64),
    ));
    out.push_str("<div class=\"legend\">");
    for source in &sources {
        let _ = write!(
            out,
            "<span><i style=\"background:{}\"></i>{}</span>",
            colour(source),
            escape(source)
        );
    }
    out.push_str("</div>\n</section>\n");
    out
}

/// One chart: a stacked bar per day, scaled to the largest day.
fn chart<'a>(
    title: &str,
    days: &[(&&'a str, &Day<'a>)],
    colour: &dyn Fn(&str) -> &'static str,
    figure: impl Fn(&(f64, i64)) -> f64,
    label: impl Fn(f64) -> String,
) -> String {
    let largest = days
        .iter()
        .map(|(_, sources)| sources.values().map(&figure).sum::<f64>())
        .fold(0.0_f64, f64::max);
    let mut out = format!(
        "<figure><figcaption>{}</figcaption><svg viewBox=\"0 0 {WIDTH} {}\" role=\"img\" aria-label=\"{}\">\n",
        escape(title),
        HEIGHT + BOTTOM,
        escape(title)
    );
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"12\" class=\"axis\">{}</text><text x=\"0\" y=\"{HEIGHT}\" class=\"axis\">0</text>",
        escape(&label(largest))
    );
    let slot = (WIDTH - LEFT) / days.len().max(1) as f64;
    let bar = (slot * 0.8).min(24.0);
    for (index, (day, sources)) in days.iter().enumerate() {
        let x = LEFT + index as f64 * slot;
        let mut top = HEIGHT;
        for (source, sums) in sources.iter() {
            let value = figure(sums);
            if value <= 0.0 || largest <= 0.0 {
                continue;
            }
            let height = value / largest * (HEIGHT - 16.0);
            top -= height;
            let _ = writeln!(
                out,
                "<rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{bar:.1}\" height=\"{height:.1}\" fill=\"{}\"><title>{} · {} · {}</title></rect>",
                colour(source),
                escape(day),
                escape(source),
                escape(&label(value))
            );
        }
        // A date under the first bar, the last, and every seventh.
        if index == 0 || index + 1 == days.len() || index % 7 == 0 {
            let _ = writeln!(
                out,
                "<text x=\"{x:.1}\" y=\"{}\" class=\"axis\">{}</text>",
                HEIGHT + BOTTOM - 4.0,
                escape(day.get(5..).unwrap_or(day))
            );
        }
    }
    out.push_str("</svg></figure>\n");
    out
}
