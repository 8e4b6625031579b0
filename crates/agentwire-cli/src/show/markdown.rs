//! The page as Markdown (`show --markdown`): a session that reads well pasted into an issue or
//! handed to another agent. The prompts are quotes, the assistant's Markdown stays Markdown,
//! commands, output, diffs and tool results are fenced (with a fence longer than any run of
//! backticks in them, so no text closes its block early), and a subagent's work is quoted under
//! the call that ran it. Long output keeps its tail, as in the terminal.

use super::page::{Body, Card, DiffLine, Page, Section, Step};

/// The page as Markdown.
pub fn render(page: &Page) -> String {
    let mut out = String::new();
    out.push_str(&format!("# {}\n\n", one_line(&page.title)));
    if !page.facts.is_empty() {
        let facts: Vec<String> = page
            .facts
            .iter()
            .map(|(label, value)| format!("{label}: {value}"))
            .collect();
        out.push_str(&format!("{}\n\n", facts.join(" · ")));
    }
    if !page.totals.is_empty() {
        let totals: Vec<String> = page
            .totals
            .iter()
            .map(|(label, value)| format!("**{label}** {value}"))
            .collect();
        out.push_str(&format!("{}\n\n", totals.join(" · ")));
    }
    for section in &page.sections {
        match section {
            Section::Turn(turn) => {
                let at = turn.started.as_deref().map(|at| format!(" · {at}")).unwrap_or_default();
                out.push_str(&format!("## Turn {}{at}\n\n", turn.number));
                for card in &turn.cards {
                    card_block(&mut out, card, 0);
                }
                for error in &turn.errors {
                    block(&mut out, 0, &format!("**error:** {}", one_line(error)));
                }
                block(&mut out, 0, &format!("*— {}*", turn.footer.describe()));
            }
            Section::Outside(cards) => {
                out.push_str("## Outside any turn\n\n");
                for card in cards {
                    card_block(&mut out, card, 0);
                }
            }
        }
    }
    for error in &page.errors {
        block(&mut out, 0, &format!("**error:** {}", one_line(error)));
    }
    if !page.summary.is_empty() {
        block(&mut out, 0, &format!("---\n\nsession: {}", page.summary.join(" · ")));
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// One card, its children quoted one level deeper.
fn card_block(out: &mut String, card: &Card, depth: usize) {
    let status = card.status.map(|status| format!(" *[{status}]*")).unwrap_or_default();
    match &card.body {
        Body::Prompt(text) => {
            let quoted: Vec<String> = text.lines().map(|line| format!("> {line}")).collect();
            block(out, depth, &format!("{}{status}", quoted.join("\n")));
        }
        Body::Assistant(text) => block(out, depth, &format!("{}{status}", text.trim_end())),
        Body::Reasoning(text, _) => block(out, depth, &format!("*thinking:* {}", one_line(text))),
        Body::Command {
            command,
            exit_code,
            tail,
            omitted,
            whole: _,
        } => {
            let exit = exit_code.map(|code| format!(" · exit {code}")).unwrap_or_default();
            let mut text = format!("{}\n*command{exit}*{status}", fenced("sh", &format!("$ {command}")));
            if !tail.is_empty() {
                let earlier = if *omitted > 0 {
                    format!("… {omitted} earlier line(s)\n")
                } else {
                    String::new()
                };
                text.push_str(&format!("\n\n{}", fenced("", &format!("{earlier}{}", tail.join("\n")))));
            }
            block(out, depth, &text);
        }
        Body::Files(files) => {
            for file in files {
                let kind = if file.kind.is_empty() {
                    String::new()
                } else {
                    format!("{} ", file.kind)
                };
                let mut text = format!("**{kind}`{}`**{status}", file.path.replace('`', "'"));
                if !file.lines.is_empty() {
                    let lines: Vec<&str> = file
                        .lines
                        .iter()
                        .map(|line| match line {
                            DiffLine::Added(text)
                            | DiffLine::Removed(text)
                            | DiffLine::Header(text)
                            | DiffLine::Context(text) => text.as_str(),
                        })
                        .collect();
                    text.push_str(&format!("\n\n{}", fenced("diff", &lines.join("\n"))));
                }
                block(out, depth, &text);
            }
        }
        Body::Plan(steps) => block(out, depth, &format!("**plan**\n\n{}", checklist(steps))),
        Body::Tool {
            name,
            arguments,
            result,
            whole: _,
            error,
        } => {
            let args = arguments
                .as_deref()
                .map(|args| format!(" `{}`", one_line(args).replace('`', "'")))
                .unwrap_or_default();
            let mut text = format!("**⚙ {}**{args}{status}", one_line(name));
            if let Some(result) = result {
                text.push_str(&format!("\n\n{}", fenced("", result)));
            }
            if let Some(error) = error {
                text.push_str(&format!("\n\n**error:** {}", one_line(error)));
            }
            block(out, depth, &text);
        }
        Body::Request {
            kind,
            detail,
            decision,
            tone: _,
        } => {
            let answer = decision.as_deref().unwrap_or("waiting");
            let text = match detail.as_deref().map(str::trim_end) {
                Some(detail) if detail.contains('\n') => format!("**? {kind}** → {answer}\n\n{}", fenced("", detail)),
                Some(detail) => format!("**? {kind}:** {} → {answer}", one_line(detail)),
                None => format!("**? {kind}** → {answer}"),
            };
            block(out, depth, &text);
        }
        Body::Note { label, text } => block(out, depth, &format!("*{label}:* {}{status}", text.trim_end())),
        Body::Error(message) => block(out, depth, &format!("**error:** {}", one_line(message))),
        Body::Warning(message) => block(out, depth, &format!("*warning:* {}", one_line(message))),
    }
    for child in &card.children {
        card_block(out, child, depth + 1);
    }
}

/// `text` as a paragraph, quoted `depth` levels deep (a subagent's work under its call).
fn block(out: &mut String, depth: usize, text: &str) {
    let quote = "> ".repeat(depth);
    for line in text.lines() {
        out.push_str(quote.trim_end_matches(' '));
        if !line.is_empty() && depth > 0 {
            out.push(' ');
        }
        out.push_str(line);
        out.push('\n');
    }
    // A blank line ends the paragraph (and closes a quote, so the next card is no lazy
    // continuation of it).
    out.push('\n');
}

/// `text` in a fenced block (`lang` its info string): the fence is longer than any run of
/// backticks in the text.
fn fenced(lang: &str, text: &str) -> String {
    let longest = text.split(|char| char != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}", text.trim_end_matches('\n'))
}

fn checklist(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|step| {
            let mark = if step.mark() == "[x]" { "[x]" } else { "[ ]" };
            let doing = if step.mark() == "[~]" { " *(in progress)*" } else { "" };
            format!("- {mark} {}{doing}", one_line(&step.text))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text on one line (a title, a label): its lines joined by spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::fenced;

    #[test]
    fn no_text_closes_its_fence_early() {
        assert_eq!(fenced("sh", "ls"), "```sh\nls\n```");
        assert_eq!(fenced("", "a ``` b"), "````\na ``` b\n````");
    }
}
