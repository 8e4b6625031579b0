//! The page as one self-contained HTML file: inline CSS, no script, no network. Every text
//! comes from a provider or a person and is escaped ([`escape`]); the page's Content Security
//! Policy forbids scripts and fetches besides, so a text that got through still could not run.

use std::fmt::Write;

use super::page::{Body, Card, DiffLine, FOLD_CAP, Folded, Page, Section};

const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --card: #f6f8fa;
  --bg: #fff; --green: #1a7f37; --green-bg: #dafbe1; --red: #cf222e; --red-bg: #ffebe9; --blue: #0969da;
  --yellow: #9a6700; --yellow-bg: #fff8c5; --prompt: #ddf4ff; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --card: #161b22; --bg: #0d1117;
    --green: #3fb950; --green-bg: #12261e; --red: #f85149; --red-bg: #25171c; --blue: #4493f8;
    --yellow: #d29922; --yellow-bg: #272115; --prompt: #0c2d6b; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 980px; padding: 24px; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
.totals { display: flex; flex-wrap: wrap; gap: 8px; margin: 0 0 20px; padding: 0; list-style: none; }
.totals li { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 4px 10px;
  font-size: 13px; }
.totals .key { color: var(--muted); font-weight: 600; margin-right: 4px; }
h1 { font-size: 22px; margin: 0 0 6px; }
.facts { color: var(--muted); font-size: 13px; margin: 0 0 20px; }
.facts span + span::before { content: " · "; }
.turn { border-top: 2px solid var(--line); padding: 12px 0 4px; }
.turn h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 8px; }
.card { margin: 8px 0; }
.prompt { background: var(--prompt); border-radius: 8px; padding: 10px 14px; font-weight: 600; white-space: pre-wrap; }
.assistant > :first-child { margin-top: 0; }
.assistant > :last-child { margin-bottom: 0; }
.assistant code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--card);
  padding: 1px 4px; border-radius: 4px; }
.assistant pre code { background: none; padding: 0; }
.assistant table { border-collapse: collapse; }
.assistant th, .assistant td { border: 1px solid var(--line); padding: 3px 8px; }
.reasoning { color: var(--muted); font-style: italic; white-space: pre-wrap; }
.box { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.head { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.label { font-weight: 600; color: var(--blue); margin-right: 6px; font-family: system-ui, sans-serif; }
.exit { margin-left: 8px; padding: 1px 6px; border-radius: 10px; font-size: 12px; }
.exit.ok { background: var(--green-bg); color: var(--green); }
.exit.bad, .status { background: var(--red-bg); color: var(--red); }
.status { margin-left: 8px; padding: 1px 6px; border-radius: 10px; font-size: 12px; }
.status.interrupted { background: var(--card); color: var(--muted); border: 1px solid var(--line); }
pre { margin: 6px 0 0; padding: 8px; background: var(--bg); border: 1px solid var(--line); border-radius: 6px;
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
.decision { margin-left: 8px; font-weight: 600; }
.decision.allowed { color: var(--green); }
.decision.refused { color: var(--red); }
.decision.stopped { color: var(--muted); text-decoration: line-through; }
.decision.waiting { color: var(--yellow); }
details { margin-top: 6px; }
details > summary { cursor: pointer; color: var(--blue); font-size: 13px; }
.cut { color: var(--muted); font-size: 12px; font-style: italic; }
.warning { color: var(--yellow); background: var(--yellow-bg); border-radius: 6px; padding: 6px 10px; white-space: pre-wrap; }
a.link { float: right; font-size: 12px; text-decoration: none; }
.anchored:target > .card { outline: 2px solid var(--blue); }
.error { color: var(--red); background: var(--red-bg); border-radius: 6px; padding: 6px 10px; white-space: pre-wrap; }
.children { margin-left: 18px; padding-left: 12px; border-left: 3px solid var(--line); }
.footer { color: var(--muted); font-size: 13px; border-top: 1px dashed var(--line); margin-top: 10px; padding-top: 4px; }
.footer.failed { color: var(--red); }
.summary { margin-top: 20px; color: var(--muted); font-size: 13px; }
table.sessions { border-collapse: collapse; width: 100%; font-size: 14px; }
.sessions th, .sessions td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); }
.sessions th { color: var(--muted); font-weight: 600; }
h2.project { font-size: 15px; margin: 22px 0 6px; word-break: break-all; }
h2.project .count { color: var(--muted); font-weight: 400; font-size: 13px; }
.charts figure { margin: 10px 0; }
.charts figcaption { color: var(--muted); font-size: 13px; }
.charts svg { width: 100%; max-width: 720px; height: auto; }
.charts .axis { fill: var(--muted); font-size: 10px; }
.legend { font-size: 12px; color: var(--muted); }
.legend span { margin-right: 12px; white-space: nowrap; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
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
    out.push_str("</div>");
    if !page.totals.is_empty() {
        out.push_str("<ul class=\"totals\">");
        for (label, value) in &page.totals {
            let _ = write!(out, "<li><span class=\"key\">{label}</span>{}</li>", escape(value));
        }
        out.push_str("</ul>");
    }
    out.push_str("</header>\n");
    for section in &page.sections {
        match section {
            Section::Turn(turn) => {
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
            Section::Outside(cards) => {
                out.push_str("<section class=\"turn\"><h2>Outside any turn</h2>\n");
                for card in cards {
                    self::card(&mut out, card);
                }
                out.push_str("</section>\n");
            }
        }
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
    // An item and the request that decided it link to each other.
    if let Some(anchor) = &card.anchor {
        let _ = write!(out, "<div id=\"{}\" class=\"anchored\">", escape(anchor));
    }
    if let Some((target, said)) = &card.link {
        let _ = write!(
            out,
            "<a class=\"link\" href=\"#{}\">{}</a>",
            escape(target),
            escape(said)
        );
    }
    let status = card
        .status
        .map(|status| format!("<span class=\"status {status}\">{status}</span>"))
        .unwrap_or_default();
    // When the item ran, on hover.
    let at = card
        .at
        .as_deref()
        .map(|at| format!(" title=\"{}\"", escape(at)))
        .unwrap_or_default();
    match &card.body {
        Body::Prompt(text) => {
            let _ = write!(out, "<div class=\"card prompt\"{at}>{}{status}</div>", escape(text));
        }
        Body::Assistant(text) => {
            let _ = write!(
                out,
                "<div class=\"card assistant\"{at}>{}{status}</div>",
                markdown(text)
            );
        }
        Body::Reasoning(text, whole) => {
            let _ = write!(out, "<div class=\"card reasoning\"{at}>thinking: {}", escape(text));
            fold(out, whole.as_ref(), "all of it", "");
            out.push_str("</div>");
        }
        Body::Command {
            command,
            exit_code,
            tail,
            omitted,
            whole,
        } => {
            let exit = match exit_code {
                Some(0) => "<span class=\"exit ok\">exit 0</span>".to_owned(),
                Some(code) => format!("<span class=\"exit bad\">exit {code}</span>"),
                None => String::new(),
            };
            let _ = write!(
                out,
                "<div class=\"card box command\"{at}><div class=\"head\"><span class=\"label\">$</span>{}{exit}{status}</div>",
                escape(command)
            );
            // The tail shows; the whole output, folded, under it.
            if !tail.is_empty() {
                let _ = write!(out, "<pre class=\"output\">{}</pre>", escape(&tail.join("\n")));
            }
            let lines = format!("all {} line(s) of the output", omitted + tail.len());
            fold(out, whole.as_ref(), &lines, " class=\"output\"");
        }
        Body::Files(files) => {
            let _ = write!(out, "<div class=\"card box files\"{at}>");
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
            whole,
            error,
        } => {
            let _ = write!(
                out,
                "<div class=\"card box tool\"{at}><div class=\"head\"><span class=\"label\">tool</span>{}",
                escape(name)
            );
            if let Some(arguments) = arguments {
                let _ = write!(out, "({})", escape(arguments));
            }
            let _ = write!(out, "{status}</div>");
            if let Some(result) = result {
                let _ = write!(out, "<pre class=\"result\">{}</pre>", escape(result));
            }
            fold(out, whole.as_ref(), "the whole result", " class=\"result\"");
            if let Some(error) = error {
                let _ = write!(out, "<div class=\"error\">error: {}</div>", escape(error));
            }
        }
        Body::Request {
            kind,
            detail,
            decision,
            tone,
        } => {
            let _ = write!(
                out,
                "<div class=\"card box request\"><span class=\"label\">{}</span>",
                escape(kind)
            );
            if let Some(detail) = detail {
                out.push_str(&escape(detail));
            }
            let _ = write!(
                out,
                "<span class=\"decision {}\">→ {}</span>",
                tone.class(),
                escape(decision.as_deref().unwrap_or("waiting"))
            );
        }
        Body::Note { label, text } => {
            let _ = write!(
                out,
                "<div class=\"card box note\"{at}><span class=\"label\">{}</span>{}{status}",
                escape(label),
                escape(text)
            );
        }
        Body::Error(message) => {
            let _ = write!(out, "<div class=\"card error\">error: {}", escape(message));
        }
        Body::Warning(message) => {
            let _ = write!(out, "<div class=\"card warning\">warning: {}", escape(message));
        }
    }
    // Cards that opened a box close it after their children, so nested items sit inside.
    let boxed = !matches!(card.body, Body::Prompt(_) | Body::Assistant(_) | Body::Reasoning(..));
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
    if card.anchor.is_some() {
        out.push_str("</div>");
    }
    out.push('\n');
}

/// The whole of a shortened text, in a `<details>` that opens on a click (no script): `what`
/// its summary, `class` the attribute of its `<pre>` (empty for none).
fn fold(out: &mut String, whole: Option<&Folded>, what: &str, class: &str) {
    if let Some(whole) = whole {
        let _ = write!(
            out,
            "<details><summary>{what}</summary><pre{class}>{}</pre>{}</details>",
            escape(&whole.text),
            cut_note(whole.cut)
        );
    }
}

/// What the page left out of a folded text, when it cut it at [`FOLD_CAP`].
fn cut_note(cut: usize) -> String {
    if cut == 0 {
        return String::new();
    }
    format!(
        "<div class=\"cut\">… {cut} more byte(s) not kept on this page (each item keeps its first {} KiB; \
         the canonical events hold it all)</div>",
        FOLD_CAP / 1024
    )
}

/// The assistant's Markdown as HTML: CommonMark with tables, strikethrough and task lists. Raw
/// HTML in the text is shown as text, never passed on, and a link or image keeps only a
/// `http(s)`/`mailto` address (an image is drawn as a link to it: the page fetches nothing).
pub fn markdown(text: &str) -> String {
    use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
    let safe = |url: &str| {
        let lower = url.trim_start().to_ascii_lowercase();
        ["http://", "https://", "mailto:"]
            .iter()
            .any(|scheme| lower.starts_with(scheme))
            || !lower.contains(':')
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            },
        ) => Event::Start(Tag::Link {
            link_type,
            dest_url: if safe(&dest_url) { dest_url } else { CowStr::from("") },
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
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
