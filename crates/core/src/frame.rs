//! One line of input: a provider message, and which way it travelled.
//!
//! Two line formats exist (see the corpus README): transcript records
//! `{"dir":"in"|"out","ts":<epoch ms>,"msg":{...}}` for bidirectional protocols, and bare provider
//! messages for one-way streams. Both become a [`Frame`] that borrows the message bytes.

mod outline;

use agentwire_protocol::raw_value_unchecked;
use serde::Deserialize;
use serde_json::value::RawValue;

use agentwire_protocol::scan;
pub use outline::MAX_DEPTH;
use outline::{Spans, outline};

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
    /// Where the message's members lie in `line`, when the line's check found them.
    spans: Option<Spans>,
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
            spans: None,
        }
    }

    /// Whether the frame is a provider's line as the program printed it: from the provider, and
    /// the whole line (not a transcript record's `msg`). A source whose recordings are only
    /// ever its program's own output claims no other frame.
    pub fn is_bare_line(&self) -> bool {
        self.dir == Direction::In && std::ptr::eq(self.line.as_ptr(), self.msg.get().as_ptr())
    }

    /// The message's fields (its object's members) in order, each key (never escaped) with its
    /// value, when the line's check found them: its readers take them instead of parsing the
    /// message again. `None` for a message that is not an object, has an escaped key or more
    /// members than a protocol envelope, or did not come from a line.
    pub fn fields(&self) -> Option<impl Iterator<Item = (&'a str, &'a RawValue)>> {
        // A frame has fields only when its message was borrowed this way.
        let borrow = |text| raw_value_unchecked(text).expect("the raw-value scheme is known");
        Some(self.spans?.of(self.line).map(move |(key, value)| (key, borrow(value))))
    }

    /// The string value of the message's member `name` (a tag like `type`), read apart from any
    /// typed decoding: for a message that did not decode. A value written with escapes, or a
    /// member that is not a string, reads as `None`.
    pub fn tag(&self, name: &str) -> Option<&'a str> {
        let value = match self.fields() {
            Some(mut fields) => fields.find(|(key, _)| *key == name)?.1,
            None => {
                let fields: std::collections::HashMap<&'a str, &'a RawValue> =
                    serde_json::from_str(self.msg.get()).ok()?;
                *fields.get(name)?
            }
        };
        let text = value.get().strip_prefix('"')?.strip_suffix('"')?;
        (!text.contains('\\')).then_some(text)
    }

    /// Reads one bare message a host saw travel `dir` at `at` (Unix milliseconds, when it knows):
    /// a live host holds no transcript records, only the lines the agent wrote and the lines it
    /// wrote to the agent. The frame is the one [`Frame::parse`] reads from the transcript record
    /// `{"dir","ts":at,"msg":line}`, with the same checks (an `at` outside the years 0000-9999 is
    /// [`FrameError::TimeOutOfRange`]); its `line` is the message itself.
    pub fn parse_message(line: &'a str, dir: Direction, at: Option<i64>) -> Result<Self, FrameError> {
        let frame = Self::parse(line, LineFormat::Bare)?;
        match at {
            Some(at) if !crate::clock::TIMES.contains(&at) => Err(FrameError::TimeOutOfRange(at)),
            _ => Ok(Frame { dir, ts: at, ..frame }),
        }
    }

    /// Reads one line in `format`. The line is checked and outlined in one pass and the message
    /// borrowed from it; a line that pass is not sure of is read again with serde_json, which
    /// tells what is wrong with it.
    pub fn parse(line: &'a str, format: LineFormat) -> Result<Self, FrameError> {
        match Self::outlined(line, format) {
            Some(frame) => Ok(frame),
            None => Self::parse_with_serde_json(line, format),
        }
    }

    /// Reads one line in `format` with serde_json, without the checking pass: what
    /// [`Frame::parse`] falls back to, and what it is tested against. The frame has no
    /// [`Frame::fields`].
    pub fn parse_with_serde_json(line: &'a str, format: LineFormat) -> Result<Self, FrameError> {
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
                    spans: None,
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
                    spans: None,
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

impl<'a> Frame<'a> {
    /// The frame of a line the checking pass reads to the end: a bare message, or a record of
    /// exactly `dir`, `ts` (an integer or `null`, in range) and `msg`, each once, as
    /// [`Record`] reads it. `None` for any other line, which [`Frame::parse`] reads again.
    fn outlined(line: &'a str, format: LineFormat) -> Option<Self> {
        let text = |(start, end): (u32, u32)| &line[start as usize..end as usize];
        match format {
            LineFormat::Bare => {
                let outline = outline(line, None)?;
                Some(Frame {
                    dir: Direction::In,
                    ts: None,
                    msg: raw_value_unchecked(text(outline.value))?,
                    line,
                    spans: outline.spans,
                })
            }
            LineFormat::Transcript => {
                let outline = outline(line, Some("msg"))?;
                let (mut dir, mut ts, mut msg) = (None, None, None);
                for (key, value) in outline.spans?.of(line) {
                    let slot = match key {
                        "dir" => dir
                            .replace(match value {
                                r#""in""# => Direction::In,
                                r#""out""# => Direction::Out,
                                _ => return None,
                            })
                            .is_none(),
                        "ts" => ts.replace(time(value)?).is_none(),
                        "msg" => msg.replace(value).is_none(),
                        _ => false,
                    };
                    if !slot {
                        return None;
                    }
                }
                let ts = ts.flatten();
                if ts.is_some_and(|ts| !crate::clock::TIMES.contains(&ts)) {
                    return None;
                }
                Some(Frame {
                    dir: dir?,
                    ts,
                    msg: raw_value_unchecked(msg?)?,
                    line,
                    spans: outline.inner,
                })
            }
        }
    }
}

/// A record's `ts` as serde_json reads it into an `Option<i64>`: `null`, or an integer in
/// range. `-0` reads as a double, so it is left to serde_json, which reports it.
fn time(value: &str) -> Option<Option<i64>> {
    if value == "null" {
        return Some(None);
    }
    // The pass checked the number's grammar: no leading zeros.
    let digits = value.strip_prefix('-').unwrap_or(value);
    let integer = !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()) && value != "-0";
    if !integer {
        return None;
    }
    value.parse().ok().map(Some)
}

/// What makes valid JSON unfit to ride in an event: nesting deeper than [`MAX_DEPTH`] (reported
/// first), or a number beyond the range of a double. One pass that counts brackets and takes
/// strings and numbers from [`scan`], the lexer the outline pass reads too; it checks no other
/// grammar, and stops at the first string or number that does not lex: syntax errors are left to
/// the parser that follows.
fn unfit(json: &str) -> Option<FrameError> {
    let bytes = json.as_bytes();
    let mut depth = 0usize;
    let mut out_of_range = false;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            // A string or a number that does not lex ends the pass: the parser reports the line.
            b'"' => match scan::string_end(bytes, at) {
                Some((end, _)) => at = end,
                None => break,
            },
            b'-' | b'0'..=b'9' => match scan::number_end(bytes, at) {
                Some(end) => {
                    out_of_range |= scan::beyond_f64(&json[at..end]);
                    at = end;
                }
                None => break,
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(FrameError::TooDeep);
                }
                at += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                at += 1;
            }
            _ => at += 1,
        }
    }
    out_of_range.then_some(FrameError::NumberOutOfRange)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde::Deserializer as _;
    use serde::de::{MapAccess, Visitor};
    use serde_json::value::RawValue;

    use super::{Frame, FrameError, LineFormat, MAX_DEPTH, unfit};
    use agentwire_protocol::tagged::Str;

    /// The members of a JSON object in order, every one kept (a key given twice twice), as
    /// serde_json reads them.
    fn members_in_order(json: &str) -> Vec<(String, &str)> {
        struct InOrder;

        impl<'de> Visitor<'de> for InOrder {
            type Value = Vec<(String, &'de str)>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    let value: &RawValue = map.next_value()?;
                    members.push((Cow::into_owned(key), value.get()));
                }
                Ok(members)
            }
        }

        serde_json::Deserializer::from_str(json)
            .deserialize_map(InOrder)
            .expect("an outlined message is an object")
    }

    /// Reads `line` both ways in both formats: a frame the checking pass gives is the frame
    /// serde_json reads, borrowing the same bytes, with the members serde_json finds; a line it
    /// gives up on reads (or fails) as serde_json reads it. How many formats it outlined.
    fn both_ways(line: &str) -> usize {
        let mut outlined = 0;
        for format in [LineFormat::Transcript, LineFormat::Bare] {
            let read = Frame::parse_with_serde_json(line, format);
            let Some(frame) = Frame::outlined(line, format) else {
                let parsed = Frame::parse(line, format);
                assert_eq!(
                    parsed
                        .as_ref()
                        .map(|frame| (frame.dir, frame.ts, frame.msg.get()))
                        .map_err(ToString::to_string),
                    read.as_ref()
                        .map(|frame| (frame.dir, frame.ts, frame.msg.get()))
                        .map_err(ToString::to_string),
                    "{format:?}: {line:?}"
                );
                continue;
            };
            outlined += 1;
            let read = read.unwrap_or_else(|err| panic!("{format:?}: outlined, but serde_json says {err}: {line:?}"));
            assert_eq!((frame.dir, frame.ts), (read.dir, read.ts), "{format:?}: {line:?}");
            assert_eq!(frame.msg.get(), read.msg.get(), "{format:?}: {line:?}");
            assert_eq!(
                frame.msg.get().as_ptr(),
                read.msg.get().as_ptr(),
                "the same bytes: {line:?}"
            );
            if let Some(fields) = frame.fields() {
                let found: Vec<_> = fields.map(|(key, value)| (key.to_string(), value.get())).collect();
                assert_eq!(found, members_in_order(frame.msg.get()), "{format:?}: {line:?}");
            }
        }
        outlined
    }

    /// Lines near each corpus line: cut short at a few places, and with one ASCII byte replaced
    /// by something that breaks or changes the JSON around it.
    fn near(line: &str) -> Vec<String> {
        const REPLACEMENTS: &[&str] = &[
            "\"", "\\", ",", ":", "}", "]", "{", "[", "0", "-", "e", ".", " ", "\t", "\u{1}", "x", "n",
        ];
        let step = (line.len() / 12).max(1);
        let mut near = Vec::new();
        for at in (0..line.len()).step_by(step) {
            if line.is_char_boundary(at) {
                near.push(line[..at].to_string());
            }
            if line.as_bytes()[at].is_ascii() {
                for replacement in REPLACEMENTS {
                    near.push(format!("{}{replacement}{}", &line[..at], &line[at + 1..]));
                }
            }
        }
        near
    }

    #[test]
    fn the_checking_pass_reads_every_corpus_line_as_serde_json_does() {
        let (mut lines, mut json, mut outlined) = (0, 0, 0);
        let (mut enveloped, mut with_fields) = (0, 0);
        for path in crate::test_corpus::files() {
            if path.extension().is_none_or(|ext| ext != "jsonl") {
                continue;
            }
            // A Claude Code session record holds a dozen members or more, beyond what an outline
            // keeps, and its source reads none through `fields()`: no envelope to find. Qwen
            // Code's chat records have the same shape (every one of them).
            let envelope = !path.components().any(|part| {
                part.as_os_str()
                    .to_str()
                    .is_some_and(|part| part.starts_with("claude-session") || part.starts_with("qwen-session"))
            });
            let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            for line in text.lines() {
                lines += 1;
                let is_json = Frame::parse_with_serde_json(line, LineFormat::Bare).is_ok();
                json += usize::from(is_json);
                outlined += usize::from(both_ways(line) > 0);
                let transcript = Frame::outlined(line, LineFormat::of(line));
                enveloped += usize::from(envelope && is_json);
                with_fields += usize::from(envelope && transcript.is_some_and(|frame| frame.fields().is_some()));
                for near in near(line).iter().take(if lines % 10 == 0 { usize::MAX } else { 24 }) {
                    both_ways(near);
                }
            }
        }
        // Every corpus line serde_json reads is read by the pass (the rest are the corpus's own
        // bad lines), and its fields are found for nearly all.
        assert!(lines > 4000 && json + 20 > lines, "{json} of {lines} lines are JSON");
        assert_eq!(outlined, json, "of {lines} lines");
        assert!(
            with_fields * 100 >= enveloped * 95,
            "{with_fields} of {enveloped} outlined with fields"
        );
    }

    #[test]
    fn the_checking_pass_gives_up_where_serde_json_would_say_more() {
        let deep = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let lines = [
            String::new(),
            " ".into(),
            "\u{feff}{}".into(),
            r#"{"dir":"in","ts":1,"msg":{"id":1}}"#.into(),
            r#"{"dir":"in","ts":-0,"msg":{}}"#.into(),
            r#"{"dir":"in","ts":1.0,"msg":{}}"#.into(),
            r#"{"dir":"in","ts":9223372036854775808,"msg":{}}"#.into(),
            r#"{"dir":"in","ts":-62135596800000,"msg":{}}"#.into(),
            r#"{"dir":"in","ts":253402300800000,"msg":{}}"#.into(),
            r#"{"dir":"in","ts":null,"msg":[]}"#.into(),
            r#"{"dir":"IN","msg":{}}"#.into(),
            r#"{"dir":"\u0069n","msg":{}}"#.into(),
            r#"{"dir":"in","dir":"out","msg":{}}"#.into(),
            r#"{"dir":"in","msg":{},"msg":{"a":1}}"#.into(),
            r#"{"dir":"in","msg":{},"extra":1}"#.into(),
            r#"{"d\u0069r":"in","msg":{}}"#.into(),
            r#"{"dir":"in"}"#.into(),
            r#"{"dir":"out","msg":{"method":"m","x\u0079":1}}"#.into(),
            r#"{"dir":"out","msg":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}}"#.into(),
            r#" {"dir" : "in" , "msg" : { "id" : 1 , "result" : null } } "#.into(),
            r#"{"a":"\ud800","b":"\u00e9\/\b\f\n\r\t\"\\"}"#.into(),
            r#"{"a":"\u00g0"}"#.into(),
            r#"{"a":"\x"}"#.into(),
            "{\"a\":\"tab\there\"}".into(),
            r#"[01]"#.into(),
            r#"[1.]"#.into(),
            r#"[.5]"#.into(),
            r#"[1e]"#.into(),
            r#"[1e+]"#.into(),
            r#"[-]"#.into(),
            r#"[1E400]"#.into(),
            r#"[-1e309, 2]"#.into(),
            r#"[1e-400, 0.5e308, -0, 0e0]"#.into(),
            r#"[1,]"#.into(),
            r#"{"a":1,}"#.into(),
            r#"{"a" 1}"#.into(),
            r#"{1:2}"#.into(),
            r#"[tru]"#.into(),
            r#"[true,false,null]"#.into(),
            r#"{} {}"#.into(),
            r#"{}x"#.into(),
            "\"a\"\r\n".into(),
            deep(MAX_DEPTH),
            deep(MAX_DEPTH + 1),
            format!("[1e400,{}]", deep(MAX_DEPTH)),
        ];
        for line in &lines {
            both_ways(line);
        }
        let outlined = |line: &str, format| Frame::outlined(line, format).is_some();
        assert!(outlined(&lines[3], LineFormat::Transcript));
        assert!(
            outlined(&lines[19], LineFormat::Transcript),
            "whitespace anywhere JSON allows it"
        );
        assert!(outlined(&lines[20], LineFormat::Bare), "escapes serde_json skips");
        assert!(outlined(&deep(MAX_DEPTH), LineFormat::Bare));
        for given_up in [4, 5, 6, 8, 10, 11, 12, 13, 14, 15, 16] {
            assert!(
                !outlined(&lines[given_up], LineFormat::Transcript),
                "{}",
                lines[given_up]
            );
        }
        assert!(
            outlined(&lines[7], LineFormat::Transcript),
            "a time before 1970, in range"
        );
        let fields = |line: &str| {
            Frame::outlined(line, LineFormat::Transcript).and_then(|frame| frame.fields().map(Iterator::count))
        };
        assert_eq!(fields(&lines[3]), Some(1));
        assert_eq!(fields(&lines[17]), None, "an escaped key: serde_json reads the message");
        assert_eq!(fields(&lines[18]), None, "more members than an envelope");
        assert_eq!(fields(&lines[9]), None, "a message that is not an object");
    }

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
