//! The one JSON lexer of the workspace: where a string, a number or a literal that starts at a
//! byte ends, read as serde_json reads it.
//!
//! Four passes read JSON text without building it: the line check that outlines a message
//! (`agentwire::frame`), the check of a line serde_json is about to read, the tag lookup of
//! [`crate::tagged::read_tag`] and the secrets scan's walk over strings. They differ in what they
//! keep, not in how JSON is spelled, so each takes its tokens from here: a change to escape
//! handling or to the number grammar is made once.

/// Where the string whose opening quote is at `open` ends (one past its closing quote), and
/// whether it holds an escape. As serde_json, a control character must be escaped and an escape
/// is one of `\" \\ \/ \b \f \n \r \t` or `\u` with four hex digits (which need not make a valid
/// code point: serde_json checks that only when it builds the string). `None` when the string
/// breaks one of those rules or is not closed.
pub fn string_end(bytes: &[u8], open: usize) -> Option<(usize, bool)> {
    let mut at = open + 1;
    let mut escaped = false;
    loop {
        at = special(bytes, at)?;
        match bytes[at] {
            b'"' => return Some((at + 1, escaped)),
            b'\\' => {
                escaped = true;
                at += match bytes.get(at + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    b'u' if bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => 6,
                    _ => return None,
                };
            }
            _ => return None,
        }
    }
}

/// Where the number starting at `at` ends, in JSON's grammar
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`); `None` when the text there is no number.
/// Whether a double holds it is [`beyond_f64`]'s question.
pub fn number_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut at = at;
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    match bytes.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at = digits_end(bytes, at),
        _ => return None,
    }
    if bytes.get(at) == Some(&b'.') {
        at = some_digits_end(bytes, at + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = bytes.get(at) {
            at += 1;
        }
        at = some_digits_end(bytes, at)?;
    }
    Some(at)
}

/// Where `true`, `false` or `null` starting at `at` ends; `None` when none of them starts there.
pub fn literal_end(bytes: &[u8], at: usize) -> Option<usize> {
    let word: &[u8] = match bytes.get(at)? {
        b't' => b"true",
        b'f' => b"false",
        b'n' => b"null",
        _ => return None,
    };
    let end = at + word.len();
    (bytes.get(at..end)? == word).then_some(end)
}

/// Where the string, number or literal starting at `at` ends; `None` for an object, an array or
/// anything that is no value.
pub fn scalar_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at).map(|(end, _)| end),
        b'-' | b'0'..=b'9' => number_end(bytes, at),
        _ => literal_end(bytes, at),
    }
}

/// The first byte at or after `at` that is not JSON whitespace.
pub fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Whether `number` is beyond what a double holds (`1e400`, 400 digits). Such a number is valid
/// JSON, but serde_json cannot read it back and JavaScript reads an infinity. Without an exponent
/// only 309 digits or more can overflow, so the common number (a time in milliseconds) is not
/// parsed.
pub fn beyond_f64(number: &str) -> bool {
    const SHORTEST_INFINITE: usize = "1e309".len();
    const DIGITS_OF_MAX: usize = 309;
    let may_overflow = number.len() >= DIGITS_OF_MAX
        || (number.len() >= SHORTEST_INFINITE && number.bytes().any(|byte| matches!(byte, b'e' | b'E')));
    may_overflow && number.parse::<f64>().is_ok_and(f64::is_infinite)
}

fn digits_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

fn some_digits_end(bytes: &[u8], at: usize) -> Option<usize> {
    let end = digits_end(bytes, at);
    (end > at).then_some(end)
}

/// The first quote, backslash or control character at or after `at`, found eight bytes at a
/// time: most of a message's bytes are inside strings, and most strings are short (keys, ids),
/// where a word's arithmetic beats both a byte loop and vector compares (measured on the codex
/// app-server and ACP corpora: 0.65x and 0.67x the time of a byte loop, against 1.0x and 1.5x
/// for sixteen-byte vector blocks).
fn special(bytes: &[u8], mut at: usize) -> Option<usize> {
    while let Some(word) = bytes.get(at..at + 8) {
        let found = special_lanes(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let is_special = |byte: &u8| matches!(byte, b'"' | b'\\' | 0..0x20);
    bytes.get(at..)?.iter().position(is_special).map(|found| at + found)
}

/// The top bit of each byte of `word` that is a quote, a backslash or below 0x20. A byte `b`
/// below `n` has its top bit set in `(b - n) & !b` when no lower byte borrowed, and a borrow
/// comes only from a lower byte that is itself below `n`, so the lowest flagged byte is always
/// right (higher ones may be false, which the caller never reads).
fn special_lanes(word: u64) -> u64 {
    const ONES: u64 = u64::MAX / 255;
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word;
    let control = below(word, 0x20);
    let quote = below(word ^ (ONES * u64::from(b'"')), 1);
    let backslash = below(word ^ (ONES * u64::from(b'\\')), 1);
    (control | quote | backslash) & (ONES << 7)
}

#[cfg(test)]
mod tests {
    use serde::de::IgnoredAny;

    use super::*;

    fn first_special(bytes: &[u8], at: usize) -> Option<usize> {
        (at..bytes.len()).find(|&at| matches!(bytes[at], b'"' | b'\\' | 0..0x20))
    }

    /// Every byte value at every place of two words and a tail, after every kind of neighbour
    /// (a borrow from a lower byte must not hide or invent a special one).
    #[test]
    fn special_finds_the_first_quote_backslash_or_control_byte() {
        for byte in 0..=u8::MAX {
            for neighbour in [b'a', 0x00, 0x1f, 0x20, b'"', b'\\', 0x7f, 0x80, 0xff] {
                for at in 0..19 {
                    let mut bytes = vec![b'x'; 19];
                    bytes[at] = byte;
                    if at > 0 {
                        bytes[at - 1] = neighbour;
                    }
                    for from in [0, at.saturating_sub(1), at] {
                        assert_eq!(
                            special(&bytes, from),
                            first_special(&bytes, from),
                            "{bytes:?} from {from}"
                        );
                    }
                }
            }
        }
    }

    /// Each token alone, the whole text: the lexer accepts it exactly when serde_json skips it
    /// as one value that is no array or object (skipping checks the grammar, not whether a
    /// double holds the number: that is [`beyond_f64`]).
    #[test]
    fn tokens_end_where_serde_json_reads_them() {
        let cases = [
            r#""plain""#,
            r#""esc\"aped\\\/\b\f\n\r\t""#,
            r#""\u00e9\uD83D\uDE00""#,
            r#""\uZZZZ""#,
            r#""\x""#,
            "\"tab\there\"",
            r#""unterminated"#,
            r#""ends with \""#,
            "0",
            "-0",
            "01",
            "-",
            "1.",
            "1.5e",
            "1.5e+7",
            "-12.25E-3",
            "1e400",
            ".5",
            "true",
            "tru",
            "false",
            "null",
            "nul",
            "[]",
        ];
        for text in cases {
            let expected = serde_json::from_str::<IgnoredAny>(text).is_ok() && !text.starts_with('[');
            assert_eq!(scalar_end(text.as_bytes(), 0) == Some(text.len()), expected, "{text}");
        }
    }

    #[test]
    fn strings_say_whether_they_hold_an_escape() {
        assert_eq!(string_end(br#""abc" tail"#, 0), Some((5, false)));
        assert_eq!(string_end(br#""a\nc""#, 0), Some((6, true)));
        assert_eq!(string_end(br#"x"abc""#, 1), Some((6, false)));
    }

    #[test]
    fn beyond_f64_only_where_a_double_overflows() {
        for (number, beyond) in [
            ("1e400", true),
            ("-1e309", true),
            ("1e308", false),
            ("1e-400", false),
            ("12345678901234567890", false),
        ] {
            assert_eq!(beyond_f64(number), beyond, "{number}");
        }
        assert!(beyond_f64(&"9".repeat(400)));
        assert!(!beyond_f64(&"9".repeat(300)));
    }
}
