//! One line of input: a provider message, and which way it travelled.
//!
//! Two line formats exist (see the corpus README): transcript records
//! `{"dir":"in"|"out","ts":<epoch ms>,"msg":{...}}` for bidirectional protocols, and bare provider
//! messages for one-way streams. Both become a [`Frame`] that borrows the message bytes.

use serde::Deserialize;
use serde_json::value::RawValue;

/// Which way a message travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the provider program to its client.
    In,
    /// From the client to the provider program.
    Out,
}

/// One message with its direction and, when the transcript recorded it, its time.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// Which way it travelled.
    pub dir: Direction,
    /// When it was recorded, in Unix milliseconds.
    pub ts: Option<i64>,
    /// The provider message exactly as received.
    pub msg: &'a RawValue,
    /// The whole input line the frame was read from (the message itself for a host that
    /// receives messages, not lines): the default session id is derived from the first one.
    pub line: &'a str,
}

/// How the lines of an input are framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineFormat {
    /// `{"dir","ts","msg"}` records.
    Transcript,
    /// One provider message per line, all from the provider.
    Bare,
}

impl LineFormat {
    /// The line format of an input, from its first line: transcript records, or bare messages
    /// as the program prints them (`codex app-server | agentwire normalize`).
    pub fn of(line: &str) -> LineFormat {
        match Frame::parse(line, LineFormat::Transcript) {
            Ok(_) | Err(FrameError::TimeOutOfRange(_)) => LineFormat::Transcript,
            Err(
                FrameError::TooDeep | FrameError::NumberOutOfRange | FrameError::NotJson(_) | FrameError::NotRecord(_),
            ) => LineFormat::Bare,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Record<'a> {
    dir: Direction,
    #[serde(default)]
    ts: Option<i64>,
    #[serde(borrow)]
    msg: &'a RawValue,
}

/// How deep a message may nest. serde_json (and most parsers) stop at 128 levels, and the
/// canonical event carries the message three levels down (`raw.payload`), so a deeper message
/// would make an event its consumers cannot read: it is reported as unreadable instead.
pub const MAX_DEPTH: usize = 100;

/// Why a line is not a frame.
#[derive(Debug)]
pub enum FrameError {
    /// The message nests deeper than [`MAX_DEPTH`].
    TooDeep,
    /// The message holds a number beyond the range of a double (`1e400`).
    NumberOutOfRange,
    /// The line is not JSON at all (or is cut short).
    NotJson(serde_json::Error),
    /// The line is JSON but not a transcript record.
    NotRecord(serde_json::Error),
    /// The record's `ts` is outside the years 0000-9999 that an event's `createdAt` (RFC 3339)
    /// can carry ([`crate::clock::TIMES`]).
    TimeOutOfRange(i64),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooDeep => write!(f, "nested deeper than {MAX_DEPTH} levels"),
            Self::NumberOutOfRange => f.write_str("holds a number beyond the range of a double"),
            Self::NotJson(err) => write!(f, "not JSON: {err}"),
            Self::NotRecord(err) => write!(f, "not a {{\"dir\",\"ts\",\"msg\"}} transcript record: {err}"),
            Self::TimeOutOfRange(ts) => write!(f, "`ts` {ts} is outside the years 0000-9999 (RFC 3339)"),
        }
    }
}

impl std::error::Error for FrameError {}

impl<'a> Frame<'a> {
    /// A frame for a message a host received as such (not read from a line).
    pub fn new(dir: Direction, ts: Option<i64>, msg: &'a RawValue) -> Self {
        Frame {
            dir,
            ts,
            msg,
            line: msg.get(),
        }
    }

    /// Reads one line in `format`. A record is read in one pass, the message borrowed.
    pub fn parse(line: &'a str, format: LineFormat) -> Result<Self, FrameError> {
        if let Some(err) = unfit(line) {
            return Err(err);
        }
        match format {
            LineFormat::Bare => {
                let msg: &'a RawValue = serde_json::from_str(line).map_err(FrameError::NotJson)?;
                Ok(Frame {
                    dir: Direction::In,
                    ts: None,
                    msg,
                    line,
                })
            }
            LineFormat::Transcript => match serde_json::from_str::<Record<'a>>(line) {
                Ok(Record { ts: Some(ts), .. }) if !crate::clock::TIMES.contains(&ts) => {
                    Err(FrameError::TimeOutOfRange(ts))
                }
                Ok(record) => Ok(Frame {
                    dir: record.dir,
                    ts: record.ts,
                    msg: record.msg,
                    line,
                }),
                // Only on failure: is it JSON at all?
                Err(err) => match serde_json::from_str::<serde::de::IgnoredAny>(line) {
                    Ok(_) => Err(FrameError::NotRecord(err)),
                    Err(not_json) => Err(FrameError::NotJson(not_json)),
                },
            },
        }
    }
}

/// What makes valid JSON unfit to ride in an event: nesting deeper than [`MAX_DEPTH`] (reported
/// first), or a number beyond the range of a double. One pass over the bytes outside string
/// literals: a string is skipped with one `memchr2` per escape or end, the structure and the
/// numbers are read byte by byte. Syntax errors are left to the parser that follows.
fn unfit(json: &str) -> Option<FrameError> {
    let bytes = json.as_bytes();
    let mut depth = 0usize;
    let mut out_of_range = false;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                at += 1;
                // An unterminated string ends the pass: the parser reports the line.
                at = loop {
                    match bytes.get(at..).and_then(|rest| memchr::memchr2(b'"', b'\\', rest)) {
                        Some(found) if bytes[at + found] == b'"' => break at + found,
                        Some(found) => at += found + 2,
                        None => break bytes.len(),
                    }
                };
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(FrameError::TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let start = at;
                while bytes.get(at + 1).is_some_and(|byte| is_number_byte(*byte)) {
                    at += 1;
                }
                out_of_range |= beyond_f64(&json[start..=at]);
            }
            _ => {}
        }
        at += 1;
    }
    out_of_range.then_some(FrameError::NumberOutOfRange)
}

fn is_number_byte(byte: u8) -> bool {
    byte.is_ascii_digit() || matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E')
}

/// Whether `number` is beyond what a double holds (`1e400`, 400 digits). Such a number is valid JSON,
/// but an event carrying it in `raw` would be unreadable to serde_json and read as an infinity
/// by JavaScript, so its line is reported as unreadable instead. Without an exponent only 309
/// digits or more can overflow, so the common number (a time in milliseconds) is not parsed.
fn beyond_f64(number: &str) -> bool {
    const SHORTEST_INFINITE: usize = "1e309".len();
    const DIGITS_OF_MAX: usize = 309;
    let may_overflow = number.len() >= DIGITS_OF_MAX
        || (number.len() >= SHORTEST_INFINITE && number.bytes().any(|byte| matches!(byte, b'e' | b'E')));
    may_overflow && number.parse::<f64>().is_ok_and(f64::is_infinite)
}

#[cfg(test)]
mod tests {
    use super::{FrameError, MAX_DEPTH, unfit};

    fn out_of_range(json: &str) -> bool {
        matches!(unfit(json), Some(FrameError::NumberOutOfRange))
    }

    fn too_deep(json: &str) -> bool {
        matches!(unfit(json), Some(FrameError::TooDeep))
    }

    #[test]
    fn numbers_beyond_a_double_are_found_outside_strings() {
        let after_escaped_backslash = r#"{"a":"x\\","b":1e400}"#;
        for json in [
            r#"{"a":1e400}"#,
            r#"{"a":-1E+309}"#,
            r#"[1,2,1e999]"#,
            "1e400",
            after_escaped_backslash,
            r#"{"a":0.5e309}"#,
        ] {
            assert!(out_of_range(json), "{json}");
        }
        let long = format!(r#"{{"a":{}}}"#, "9".repeat(400));
        assert!(out_of_range(&long));
        let fine = [
            r#"{"a":1e300,"b":18446744073709551616999,"c":true,"d":false}"#,
            r#"{"a":"1e400","b":"x\"1e999"}"#,
            r#"{"id":"3e412-8e999","n":1e-400}"#,
            r#"{"ts":1796016332007,"x":-0.000001}"#,
        ];
        for json in fine {
            assert!(unfit(json).is_none(), "{json}");
        }
        assert!(unfit(&format!(r#"{{"a":"{}"}}"#, "9".repeat(400))).is_none());
        let fraction = format!(r#"{{"a":1.{}}}"#, "9".repeat(400));
        assert!(unfit(&fraction).is_none());
    }

    #[test]
    fn nesting_is_measured_outside_strings() {
        let at_limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(unfit(&at_limit).is_none());
        let deeper = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(too_deep(&deeper));
        let in_a_string = format!("{{\"a\":\"{}\\\"\"}}", "[".repeat(10 * MAX_DEPTH));
        assert!(unfit(&in_a_string).is_none(), "{in_a_string}");
        let siblings = "[]".repeat(10 * MAX_DEPTH);
        assert!(unfit(&siblings).is_none());
        let both = format!("[1e400,{}{}]", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(too_deep(&both), "nesting is reported first");
    }

    #[test]
    fn cut_strings_end_the_pass() {
        for json in [r#"{"a":"x\"#, r#"{"a":"x"#, "\"", "\\", r#"["\\"#] {
            assert!(unfit(json).is_none(), "{json}");
        }
        let cut_in_a_string = format!("{{\"a\":\"{}", "[".repeat(10 * MAX_DEPTH));
        assert!(unfit(&cut_in_a_string).is_none());
    }
}
