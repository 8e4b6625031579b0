//! The page as terminal text: one block per card, nested items indented under their parent,
//! ANSI colour only when asked (the caller decides: a terminal without `NO_COLOR`, or `--color`).
//!
//! Provider text reaches a terminal here, so its control characters are replaced ([`clean`]):
//! an escape sequence in a message must not move the cursor, retitle the window or colour what
//! follows, and plain output holds no escape byte at all.

use std::borrow::Cow;

use super::page::{Body, Card, DiffLine, Footer, Page, Section, Tone};

/// How much each nesting level is indented.
const INDENT: &str = "    ";

/// SGR codes used.
const BOLD: &str = "1";
const DIM: &str = "2";
const RED: &str = "31";
const GREEN: &str = "32";
const YELLOW: &str = "33";
const BLUE: &str = "34";
const MAGENTA: &str = "35";
const CYAN: &str = "36";

/// The page as text, coloured when `color`.
pub fn render(page: &Page, color: bool) -> String {
    let mut out = Writer {
        text: String::new(),
        color,
    };
    out.line(0, &out.paint(BOLD, &page.title));
    let facts: Vec<String> = page
        .facts
        .iter()
        .map(|(label, value)| format!("{label}: {value}"))
        .collect();
    out.line(0, &out.paint(DIM, &facts.join(" · ")));
    for section in &page.sections {
        out.text.push('\n');
        match section {
            Section::Turn(turn) => {
                let at = turn.started.as_deref().map(|at| format!(" · {at}")).unwrap_or_default();
                out.line(0, &out.paint(BOLD, &format!("── turn {}{at} ──", turn.number)));
                for card in &turn.cards {
                    out.card(card, 0);
                }
                for error in &turn.errors {
                    out.line(0, &out.paint(RED, &format!("error: {error}")));
                }
                out.footer(&turn.footer);
            }
            Section::Outside(cards) => {
                out.line(0, &out.paint(BOLD, "── outside any turn ──"));
                for card in cards {
                    out.card(card, 0);
                }
            }
        }
    }
    for error in &page.errors {
        out.line(0, &out.paint(RED, &format!("error: {error}")));
    }
    if !page.summary.is_empty() {
        out.text.push('\n');
        out.line(0, &out.paint(DIM, &format!("session: {}", page.summary.join(" · "))));
    }
    out.text
}

struct Writer {
    text: String,
    color: bool,
}

impl Writer {
    /// `text`, cleaned, in colour `code` when colour is on.
    fn paint(&self, code: &str, text: &str) -> String {
        let text = clean(text);
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.into_owned()
        }
    }

    /// Each line of `text`, indented `depth` levels (a line's colour is its own, so it ends with
    /// the line).
    fn line(&mut self, depth: usize, text: &str) {
        for line in text.split('\n') {
            self.text.push_str(&INDENT.repeat(depth));
            self.text.push_str(line);
            self.text.push('\n');
        }
    }

    /// `text` as lines painted `code` one by one, so an indent never carries colour.
    fn painted(&mut self, depth: usize, code: &str, text: &str) {
        for line in text.lines() {
            let line = self.paint(code, line);
            self.line(depth, &line);
        }
    }

    fn card(&mut self, card: &Card, depth: usize) {
        // A stop is no failure: `interrupted` is dim, `failed` and `declined` red.
        let status = card.status.map(|status| {
            let code = if status == "interrupted" { DIM } else { RED };
            self.paint(code, &format!(" [{status}]"))
        });
        let status = status.as_deref().unwrap_or_default();
        match &card.body {
            Body::Prompt(text) => {
                let mut lines = text.lines();
                let first = lines.next().unwrap_or("(no text)");
                self.line(depth, &format!("{}{status}", self.paint(BOLD, &format!("> {first}"))));
                for rest in lines {
                    let rest = self.paint(BOLD, &format!("  {rest}"));
                    self.line(depth, &rest);
                }
            }
            Body::Assistant(text) => {
                self.line(depth, &format!("{}{status}", clean(text)));
            }
            Body::Reasoning(text, _) => self.painted(depth, DIM, &format!("thinking: {text}")),
            Body::Command {
                command,
                exit_code,
                tail,
                omitted,
                whole: _,
            } => {
                let exit = match exit_code {
                    Some(0) => self.paint(GREEN, " exit 0"),
                    Some(code) => self.paint(RED, &format!(" exit {code}")),
                    None => String::new(),
                };
                self.line(
                    depth,
                    &format!("{}{exit}{status}", self.paint(CYAN, &format!("$ {command}"))),
                );
                if *omitted > 0 {
                    let more = self.paint(DIM, &format!("  │ … {omitted} earlier line(s)"));
                    self.line(depth, &more);
                }
                for line in tail {
                    let line = self.paint(DIM, &format!("  │ {line}"));
                    self.line(depth, &line);
                }
            }
            Body::Files(files) => {
                for file in files {
                    let head = match file.kind.as_str() {
                        "" => format!("✎ {}", file.path),
                        kind => format!("✎ {kind} {}", file.path),
                    };
                    self.line(depth, &format!("{}{status}", self.paint(CYAN, &head)));
                    for line in &file.lines {
                        let painted = match line {
                            DiffLine::Added(text) => self.paint(GREEN, text),
                            DiffLine::Removed(text) => self.paint(RED, text),
                            DiffLine::Header(text) => self.paint(BLUE, text),
                            DiffLine::Context(text) => clean(text).into_owned(),
                        };
                        self.line(depth + 1, &painted);
                    }
                }
            }
            Body::Plan(steps) => {
                self.line(depth, &self.paint(MAGENTA, "plan"));
                for step in steps {
                    self.line(depth + 1, &format!("{} {}", step.mark(), clean(&step.text)));
                }
            }
            Body::Tool {
                name,
                arguments,
                result,
                whole: _,
                error,
            } => {
                let args = arguments
                    .as_deref()
                    .map(|args| format!("({})", clean(args)))
                    .unwrap_or_default();
                self.line(
                    depth,
                    &format!("{}{args}{status}", self.paint(CYAN, &format!("⚙ {name}"))),
                );
                if let Some(result) = result {
                    self.painted(depth + 1, DIM, &format!("→ {result}"));
                }
                if let Some(error) = error {
                    self.painted(depth + 1, RED, &format!("error: {error}"));
                }
            }
            Body::Request {
                kind,
                detail,
                decision,
                tone,
            } => {
                // Only an allowed request is green: a refusal is red, a cancellation dim.
                let code = match tone {
                    Tone::Allowed => GREEN,
                    Tone::Refused => RED,
                    Tone::Stopped => DIM,
                    Tone::Waiting => YELLOW,
                };
                let answer = self.paint(code, &format!("→ {}", decision.as_deref().unwrap_or("waiting")));
                // A detail of several lines (a plan to approve) goes under the card's line.
                let (first, rest) = match detail.as_deref().map(|detail| detail.trim_end().split_once('\n')) {
                    Some(Some((first, rest))) => (format!(": {first}"), Some(rest)),
                    Some(None) => (format!(": {}", detail.as_deref().unwrap_or_default().trim_end()), None),
                    None => (String::new(), None),
                };
                self.line(
                    depth,
                    &format!("{} {answer}", self.paint(YELLOW, &format!("? {kind}{}", clean(&first)))),
                );
                for line in rest.into_iter().flat_map(str::lines) {
                    self.line(depth + 1, &clean(line));
                }
            }
            Body::Note { label, text } => {
                // A note of several lines (a proposed plan) goes on under its label.
                let mut lines = text.trim_end().lines();
                let first = lines.next().unwrap_or_default();
                self.line(
                    depth,
                    &format!("{} {}{status}", self.paint(CYAN, &format!("· {label}:")), clean(first)),
                );
                for line in lines {
                    self.line(depth + 1, &clean(line));
                }
            }
            Body::Error(message) => self.painted(depth, RED, &format!("error: {message}")),
            Body::Warning(message) => self.painted(depth, YELLOW, &format!("warning: {message}")),
        }
        for child in &card.children {
            self.card(child, depth + 1);
        }
    }

    fn footer(&mut self, footer: &Footer) {
        let code = if footer.failed() { RED } else { DIM };
        let text = self.paint(code, &format!("── {}", footer.describe()));
        self.line(0, &text);
    }
}

/// `text` with its control characters but newline and tab replaced by `\u{FFFD}`.
fn clean(text: &str) -> Cow<'_, str> {
    let control = |c: char| c.is_control() && c != '\n' && c != '\t';
    if text.contains(control) {
        Cow::Owned(text.chars().map(|c| if control(c) { '\u{FFFD}' } else { c }).collect())
    } else {
        Cow::Borrowed(text)
    }
}
