//! What every source needs to build an item's typed content ([`ItemContent`]): the same text
//! rules whichever provider, so a command or a prompt reads the same in every source.
//!
//! A source builds the content struct of its item type (`CommandExecutionContent`, ...) from its
//! typed message and hands it to [`data`]; the provider's own item stays in the event's `raw`.

use agentwire_canonical::{ItemContent, Json};
use serde_json::Value;

mod diff;

pub use diff::unified as unified_diff;

/// An error text with the JSON error document an API wrote in it (`{"error":{"code":400,
/// "message":"Invalid argument (mock).","status":"INVALID_ARGUMENT"}}`, or the same without the
/// `error` wrapper), alone or inside a sentence, replaced by the document's message with its code
/// and status after it (`Invalid argument (mock). (400 INVALID_ARGUMENT)`). `None` for any other
/// text, which stays as it is.
pub fn readable_error(text: &str) -> Option<String> {
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    if end < start {
        return None;
    }
    let document: Value = serde_json::from_str(&text[start..=end]).ok()?;
    let error = document
        .get("error")
        .filter(|error| error.is_object())
        .unwrap_or(&document);
    let message = error.get("message")?.as_str()?.trim();
    if message.is_empty() {
        return None;
    }
    let said = |key: &str| match error.get(key) {
        Some(Value::String(text)) if !text.is_empty() => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    };
    let tags: Vec<String> = [said("code"), said("status").or_else(|| said("type"))]
        .into_iter()
        .flatten()
        .collect();
    let readable = match tags.is_empty() {
        true => message.to_owned(),
        false => format!("{message} ({})", tags.join(" ")),
    };
    Some(format!("{}{readable}{}", &text[..start], &text[end + 1..]))
}

/// The content as an item's `data`.
pub fn data(content: impl Into<ItemContent>) -> Json {
    content.into().to_json()
}

/// Text parts joined as a person reads them: the non-empty parts, a blank line between two.
pub fn joined<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for part in parts.into_iter().filter(|part| !part.is_empty()) {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(part);
    }
    text
}

/// The text of a tool's output as providers send it: a string, or parts whose `text` members
/// are its lines (a part without one adds nothing); anything else has no text.
pub fn text_or_parts(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => String::new(),
    }
}

/// A command line as a person reads it: `/bin/bash -lc 'ls -la'` is `ls -la`. A command that is
/// not one shell wrapper around one script is given back as it is.
pub fn shell_command(command: &str) -> String {
    match words(command) {
        Some(words) => unwrapped(&words).map_or_else(|| command.to_owned(), str::to_owned),
        None => command.to_owned(),
    }
}

/// An argv as a person reads it: a shell wrapper's script (`["bash", "-lc", "ls"]` is `ls`), or
/// the words joined by spaces, each quoted when the shell would split or expand it.
pub fn shell_argv<S: AsRef<str>>(argv: &[S]) -> String {
    let words: Vec<String> = argv.iter().map(|word| word.as_ref().to_owned()).collect();
    if let Some(script) = unwrapped(&words) {
        return script.to_owned();
    }
    words.iter().map(|word| quoted(word)).collect::<Vec<_>>().join(" ")
}

/// The script of `<shell> -c|-lc <script>`, the only shape a wrapper has.
fn unwrapped(words: &[String]) -> Option<&str> {
    let [shell, flag, script] = words else {
        return None;
    };
    let name = shell.rsplit('/').next().unwrap_or(shell);
    let is_shell = matches!(name, "bash" | "sh" | "zsh" | "dash");
    let is_flag = matches!(flag.as_str(), "-c" | "-lc" | "-cl");
    (is_shell && is_flag).then_some(script.as_str())
}

/// A word quoted for a POSIX shell when it needs to be.
fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The words of a POSIX command line (quotes and backslashes resolved); `None` when the line
/// holds anything a shell would expand or run before splitting (an unclosed quote, `$`, `;`,
/// `|`, `&`, a redirection), because then its words are not just text.
fn words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(word.take()),
            '\'' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => text.push(c),
                    }
                }
            }
            '"' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => text.push(c),
                            '\n' => {}
                            c => {
                                text.push('\\');
                                text.push(c);
                            }
                        },
                        '$' | '`' => return None,
                        c => text.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '$' | '`' | ';' | '|' | '&' | '<' | '>' | '(' | ')' => return None,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An API's JSON error document reads as its sentence; any other text stays as it is.
    #[test]
    fn a_json_error_document_reads_as_its_message() {
        let gemini = r#"{"error":{"code":400,"message":"Invalid argument (mock).","status":"INVALID_ARGUMENT"}}"#;
        assert_eq!(
            readable_error(gemini).as_deref(),
            Some("Invalid argument (mock). (400 INVALID_ARGUMENT)")
        );
        let bare = r#"{"type":"overloaded_error","message":"Overloaded"}"#;
        assert_eq!(readable_error(bare).as_deref(), Some("Overloaded (overloaded_error)"));
        let inside = format!("session/prompt failed: {gemini} (JSON-RPC error 400)");
        assert_eq!(
            readable_error(&inside).as_deref(),
            Some("session/prompt failed: Invalid argument (mock). (400 INVALID_ARGUMENT) (JSON-RPC error 400)")
        );
        for text in [
            "mock: Internal server error",
            "{not json",
            r#"{"error":"no message"}"#,
            "{}",
            "} {",
        ] {
            assert_eq!(readable_error(text), None, "{text}");
        }
    }

    #[test]
    fn a_shell_wrapper_is_removed() {
        assert_eq!(shell_command("/bin/bash -lc 'echo hello && ls'"), "echo hello && ls");
        assert_eq!(
            shell_command(r#"bash -c "printf \"%s\" \$HOME""#),
            r#"printf "%s" $HOME"#
        );
        assert_eq!(shell_command("/bin/zsh -lc 'it'\\''s'"), "it's");
        assert_eq!(
            shell_argv(&["/bin/bash", "-lc", "cat notes.txt | wc -l"]),
            "cat notes.txt | wc -l"
        );
    }

    #[test]
    fn anything_else_is_kept() {
        for line in [
            "ls -la",
            "bash -lc 'a' extra",
            "bash -lc $(evil)",
            "bash -lc 'unclosed",
            "python -c 'print(1)'",
        ] {
            assert_eq!(shell_command(line), line);
        }
        assert_eq!(
            shell_argv(&["rg", "-n", "two words", "it's"]),
            r"rg -n 'two words' 'it'\''s'"
        );
    }

    #[test]
    fn parts_join_with_blank_lines() {
        assert_eq!(joined(["a", "", "b"]), "a\n\nb");
        assert_eq!(joined([]), "");
    }
}
