//! RE2 patterns (gitleaks' syntax) to Rust `regex` syntax. The two agree on nearly everything;
//! where they differ is Perl classes and word boundaries, ASCII in RE2 and Unicode in Rust, so
//! those are written out as ASCII. An escape this does not know is an error rather than a guess.

use anyhow::{Result, bail};

/// RE2's `\w`, `\d` and `\s` as the ranges of a Rust character class.
const WORD: &str = "0-9A-Za-z_";
const DIGIT: &str = "0-9";
const SPACE: &str = r"\t\n\f\r ";

/// `pattern` in Rust `regex` syntax, matching what RE2 matches.
pub fn to_rust(pattern: &str) -> Result<String> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    // Inside a character class, and whether a `]` would be its first member (then a literal).
    let mut in_class = false;
    let mut class_start = false;
    while let Some(char) = chars.next() {
        let at_class_start = std::mem::take(&mut class_start);
        match char {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    bail!("`{pattern}` ends with `\\`");
                };
                out.push_str(&escape(pattern, escaped, in_class, &mut chars)?);
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
            }
            '[' => {
                if chars.peek() == Some(&':') {
                    bail!("`{pattern}`: a POSIX class is not translated");
                }
                // A literal `[` inside a class, which Rust reads as a nested class.
                out.push_str(r"\[");
            }
            ']' if in_class && !at_class_start => {
                in_class = false;
                out.push(']');
            }
            ']' if in_class => out.push_str(r"\]"),
            _ => out.push(char),
        }
    }
    if in_class {
        bail!("`{pattern}`: a character class is not closed");
    }
    Ok(out)
}

/// The Rust for RE2's `\` `escaped`, inside a character class or not.
fn escape(
    pattern: &str,
    escaped: char,
    in_class: bool,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) -> Result<String> {
    let class = |ranges: &str| {
        if in_class {
            ranges.to_owned()
        } else {
            format!("[{ranges}]")
        }
    };
    Ok(match escaped {
        'w' => class(WORD),
        'd' => class(DIGIT),
        's' => class(SPACE),
        // A negated class nests inside a class in Rust.
        'W' => format!("[^{WORD}]"),
        'D' => format!("[^{DIGIT}]"),
        'S' => format!("[^{SPACE}]"),
        'b' if !in_class => r"(?-u:\b)".to_owned(),
        'B' if !in_class => r"(?-u:\B)".to_owned(),
        'A' | 'z' if !in_class => format!("\\{escaped}"),
        'n' | 'r' | 't' | 'f' | 'v' => format!("\\{escaped}"),
        'x' => {
            let hex: String = chars.take(2).collect();
            if hex.len() != 2 || !hex.chars().all(|digit| digit.is_ascii_hexdigit()) {
                bail!("`{pattern}`: `\\x` takes two hex digits here");
            }
            format!("\\x{hex}")
        }
        // Rust does not escape `<` and `>`, which are no metacharacters in either.
        '<' | '>' => escaped.to_string(),
        _ if escaped.is_ascii_punctuation() => format!("\\{escaped}"),
        _ => bail!("`{pattern}`: the escape `\\{escaped}` is not translated"),
    })
}

#[cfg(test)]
mod tests {
    use super::to_rust;

    #[test]
    fn perl_classes_and_boundaries_become_ascii() {
        assert_eq!(to_rust(r"github_pat_\w{82}").unwrap(), "github_pat_[0-9A-Za-z_]{82}");
        assert_eq!(
            to_rust(r"\b(AIza[\w-]{35})").unwrap(),
            r"(?-u:\b)(AIza[0-9A-Za-z_-]{35})"
        );
        assert_eq!(
            to_rust(r"xox[os]-\d+-[a-fA-F\d]+").unwrap(),
            "xox[os]-[0-9]+-[a-fA-F0-9]+"
        );
        assert_eq!(to_rust(r"[\s\S]").unwrap(), r"[\t\n\f\r [^\t\n\f\r ]]");
    }

    #[test]
    fn literals_carry_over() {
        assert_eq!(to_rust(r"[\x60'\/\\_-]\.").unwrap(), r"[\x60'\/\\_-]\.");
        assert_eq!(to_rust(r"[]a[]").unwrap(), r"[\]a\[]");
    }

    #[test]
    fn an_unknown_escape_is_an_error() {
        assert!(to_rust(r"\pL").is_err());
        assert!(to_rust(r"[a").is_err());
    }
}
