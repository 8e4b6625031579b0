//! The page as one self-contained HTML file: inline CSS, no script, no network. Every text
//! comes from a provider or a person and is escaped ([`escape`]); the page's Content Security
//! Policy forbids scripts and fetches besides, so a text that got through still could not run.

use std::fmt::Write;

use super::page::{Body, Card, DiffLine, Page};

const STYLE: &str = r#"
:root { color-scheme: light; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --card: #f6f8fa;
  --green: #1a7f37; --green-bg: #dafbe1; --red: #cf222e; --red-bg: #ffebe9; --blue: #0969da;
  --yellow: #9a6700; --yellow-bg: #fff8c5; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 980px; padding: 24px; color: var(--fg); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 22px; margin: 0 0 6px; }
.facts { color: var(--muted); font-size: 13px; margin: 0 0 20px; }
.facts span + span::before { content: " · "; }
.turn { border-top: 2px solid var(--line); padding: 12px 0 4px; }
.turn h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 8px; }
.card { margin: 8px 0; }
.prompt { background: #ddf4ff; border-radius: 8px; padding: 10px 14px; font-weight: 600; white-space: pre-wrap; }
.assistant { white-space: pre-wrap; }
.reasoning { color: var(--muted); font-style: italic; white-space: pre-wrap; }
.box { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.head { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.label { font-weight: 600; color: var(--blue); margin-right: 6px; font-family: system-ui, sans-serif; }
.exit { margin-left: 8px; padding: 1px 6px; border-radius: 10px; font-size: 12px; }
.exit.ok { background: var(--green-bg); color: var(--green); }
.exit.bad, .status { background: var(--red-bg); color: var(--red); }
.status { margin-left: 8px; padding: 1px 6px; border-radius: 10px; font-size: 12px; }
pre { margin: 6px 0 0; padding: 8px; background: #fff; border: 1px solid var(--line); border-radius: 6px;
  overflow-x: auto; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; }
.diff span { display: block; min-height: 1.45em; }
.diff .add { color: var(--green); background: var(--green-bg); }
.diff .del { color: var(--red); background: var(--red-bg); }
.diff .hdr { color: var(--blue); }
.plan ul { list-style: none; margin: 4px 0 0; padding: 0; }
.plan li { font-family: ui-monospace, monospace; font-size: 13px; }
.plan li.completed { color: var(--green); }
.plan li.inProgress { color: var(--yellow); font-weight: 600; }
.result { color: var(--muted); }
.request { border-color: #d4a72c; background: var(--yellow-bg); }
.decision { margin-left: 8px; font-weight: 600; color: var(--green); }
.decision.waiting { color: var(--yellow); }
.error { color: var(--red); background: var(--red-bg); border-radius: 6px; padding: 6px 10px; white-space: pre-wrap; }
.children { margin-left: 18px; padding-left: 12px; border-left: 3px solid var(--line); }
.footer { color: var(--muted); font-size: 13px; border-top: 1px dashed var(--line); margin-top: 10px; padding-top: 4px; }
.footer.failed { color: var(--red); }
.summary { margin-top: 20px; color: var(--muted); font-size: 13px; }
table.sessions { border-collapse: collapse; width: 100%; font-size: 14px; }
.sessions th, .sessions td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); }
.sessions th { color: var(--muted); font-weight: 600; }
a { color: var(--blue); }
nav { font-size: 13px; margin-bottom: 8px; }
"#;

/// The page as an HTML document; `index`, when given, is the address of the page listing the
/// sessions (`import --html`'s `index.html`), linked above the title.
pub fn render(page: &Page, index: Option<&str>) -> String {
    let mut out = String::new();
    head(&mut out, &page.title);
    if let Some(index) = index {
        let _ = write!(out, "<nav><a href=\"{}\">← all sessions</a></nav>", escape(index));
    }
    let _ = write!(out, "<header><h1>{}</h1><div class=\"facts\">", escape(&page.title));
    for (label, value) in &page.facts {
        let _ = write!(out, "<span>{label}: {}</span>", escape(value));
    }
    out.push_str("</div></header>\n");
    for turn in &page.turns {
        let at = turn
            .started
            .as_deref()
            .map(|at| format!(" · {}", escape(at)))
            .unwrap_or_default();
        let _ = writeln!(out, "<section class=\"turn\"><h2>Turn {}{at}</h2>", turn.number);
        for card in &turn.cards {
            self::card(&mut out, card);
        }
        for error in &turn.errors {
            let _ = writeln!(out, "<div class=\"card error\">error: {}</div>", escape(error));
        }
        let failed = if turn.footer.failed() { " failed" } else { "" };
        let _ = writeln!(
            out,
            "<div class=\"footer{failed}\">{}</div></section>",
            escape(&turn.footer.describe())
        );
    }
    if !page.loose.is_empty() {
        out.push_str("<section class=\"turn\"><h2>Outside any turn</h2>\n");
        for card in &page.loose {
            self::card(&mut out, card);
        }
        out.push_str("</section>\n");
    }
    for error in &page.errors {
        let _ = writeln!(out, "<div class=\"card error\">error: {}</div>", escape(error));
    }
    if !page.summary.is_empty() {
        let _ = writeln!(
            out,
            "<div class=\"summary\">session: {}</div>",
            escape(&page.summary.join(" · "))
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The document's head: charset, a policy that allows inline style only, the style, `title`.
pub fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    );
}

fn card(out: &mut String, card: &Card) {
    let status = card
        .status
        .map(|status| format!("<span class=\"status\">{status}</span>"))
        .unwrap_or_default();
    match &card.body {
        Body::Prompt(text) => {
            let _ = write!(out, "<div class=\"card prompt\">{}{status}</div>", escape(text));
        }
        Body::Assistant(text) => {
            let _ = write!(out, "<div class=\"card assistant\">{}{status}</div>", escape(text));
        }
        Body::Reasoning(text) => {
            let _ = write!(out, "<div class=\"card reasoning\">thinking: {}</div>", escape(text));
        }
        Body::Command {
            command,
            exit_code,
            tail,
            omitted,
        } => {
            let exit = match exit_code {
                Some(0) => "<span class=\"exit ok\">exit 0</span>".to_owned(),
                Some(code) => format!("<span class=\"exit bad\">exit {code}</span>"),
                None => String::new(),
            };
            let _ = write!(
                out,
                "<div class=\"card box command\"><div class=\"head\"><span class=\"label\">$</span>{}{exit}{status}</div>",
                escape(command)
            );
            if !tail.is_empty() {
                out.push_str("<pre class=\"output\">");
                if *omitted > 0 {
                    let _ = writeln!(out, "… {omitted} earlier line(s)");
                }
                out.push_str(&escape(&tail.join("\n")));
                out.push_str("</pre>");
            }
        }
        Body::Files(files) => {
            out.push_str("<div class=\"card box files\">");
            for file in files {
                let _ = write!(
                    out,
                    "<div class=\"head\"><span class=\"label\">{}</span>{}{status}</div>",
                    escape(if file.kind.is_empty() { "change" } else { &file.kind }),
                    escape(&file.path)
                );
                if !file.lines.is_empty() {
                    out.push_str("<pre class=\"diff\">");
                    for line in &file.lines {
                        let (class, text) = match line {
                            DiffLine::Added(text) => ("add", text),
                            DiffLine::Removed(text) => ("del", text),
                            DiffLine::Header(text) => ("hdr", text),
                            DiffLine::Context(text) => ("ctx", text),
                        };
                        // Block spans make the lines: a newline inside the `pre` would add an empty one.
                        let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(text));
                    }
                    out.push_str("</pre>");
                }
            }
        }
        Body::Plan(steps) => {
            out.push_str("<div class=\"card box plan\"><span class=\"label\">Plan</span><ul>");
            for step in steps {
                let _ = write!(
                    out,
                    "<li class=\"{}\">{} {}</li>",
                    step.status.as_str(),
                    step.mark(),
                    escape(&step.text)
                );
            }
            out.push_str("</ul>");
        }
        Body::Tool {
            name,
            arguments,
            result,
            error,
        } => {
            let _ = write!(
                out,
                "<div class=\"card box tool\"><div class=\"head\"><span class=\"label\">tool</span>{}",
                escape(name)
            );
            if let Some(arguments) = arguments {
                let _ = write!(out, "({})", escape(arguments));
            }
            let _ = write!(out, "{status}</div>");
            if let Some(result) = result {
                let _ = write!(out, "<pre class=\"result\">{}</pre>", escape(result));
            }
            if let Some(error) = error {
                let _ = write!(out, "<div class=\"error\">error: {}</div>", escape(error));
            }
        }
        Body::Request { kind, detail, decision } => {
            let _ = write!(
                out,
                "<div class=\"card box request\"><span class=\"label\">{}</span>",
                escape(kind)
            );
            if let Some(detail) = detail {
                out.push_str(&escape(detail));
            }
            match decision {
                Some(decision) => {
                    let _ = write!(out, "<span class=\"decision\">→ {}</span>", escape(decision));
                }
                None => out.push_str("<span class=\"decision waiting\">→ waiting</span>"),
            }
        }
        Body::Note { label, text } => {
            let _ = write!(
                out,
                "<div class=\"card box note\"><span class=\"label\">{}</span>{}{status}",
                escape(label),
                escape(text)
            );
        }
        Body::Error(message) => {
            let _ = write!(out, "<div class=\"card error\">error: {}", escape(message));
        }
    }
    // Cards that opened a box close it after their children, so nested items sit inside.
    let boxed = !matches!(card.body, Body::Prompt(_) | Body::Assistant(_) | Body::Reasoning(_));
    if !card.children.is_empty() {
        out.push_str("<div class=\"children\">");
        for child in &card.children {
            self::card(out, child);
        }
        out.push_str("</div>");
    }
    if boxed {
        out.push_str("</div>");
    }
    out.push('\n');
}

/// `text` safe anywhere in an element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            _ => escaped.push(c),
        }
    }
    escaped
}
