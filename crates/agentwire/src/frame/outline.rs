//! One pass over a line that checks it as serde_json would read it and finds its members.
//!
//! Reading a transcript line took four passes over its message: the nesting and number checks,
//! serde_json reading the record to borrow `msg`, serde_json reading the message's JSON-RPC
//! envelope to borrow its payload, and the typed decode of that payload. The first three only check
//! the text and find where things are. This pass does all three at once: it checks the grammar,
//! the nesting and the numbers, and keeps where the members of the line's object (and of the
//! object under one named member, a record's `msg`) begin and end, so that the record and the
//! envelope are read from those places without parsing again.
//!
//! It accepts only what serde_json accepts. What it is not sure of (a syntax error, nesting past
//! [`MAX_DEPTH`], a number beyond a double) makes it give up, and the line is read as before,
//! which reports it; an object with an escaped key or more than [`KEPT`] members is checked but
//! not outlined, and its readers take the serde_json path.

/// How deep a message may nest. serde_json (and most parsers) stop at 128 levels, and the
/// canonical event carries the message three levels down (`raw.payload`), so a deeper message
/// would make an event its consumers cannot read: it is reported as unreadable instead.
pub const MAX_DEPTH: usize = 100;

/// Whether `number` is beyond what a double holds (`1e400`, 400 digits). Such a number is valid JSON,
/// but an event carrying it in `raw` would be unreadable to serde_json and read as an infinity
/// by JavaScript, so its line is reported as unreadable instead. Without an exponent only 309
/// digits or more can overflow, so the common number (a time in milliseconds) is not parsed.
pub(super) fn beyond_f64(number: &str) -> bool {
    const SHORTEST_INFINITE: usize = "1e309".len();
    const DIGITS_OF_MAX: usize = 309;
    let may_overflow = number.len() >= DIGITS_OF_MAX
        || (number.len() >= SHORTEST_INFINITE && number.bytes().any(|byte| matches!(byte, b'e' | b'E')));
    may_overflow && number.parse::<f64>().is_ok_and(f64::is_infinite)
}

/// How many members of an object an outline keeps: a JSON-RPC message has at most six, a
/// transcript record three.
const KEPT: usize = 8;

/// Where one member of an outlined object lies in the line: its key without the quotes, and its
/// value without the whitespace around it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Span {
    key: (u32, u32),
    value: (u32, u32),
}

/// Where the members of one object of a line lie, in order, none of their keys escaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spans {
    len: u8,
    spans: [Span; KEPT],
}

impl Spans {
    /// Each member's key and value text, in order, from `line`, the line the outline was made of.
    pub fn of(self, line: &str) -> impl Iterator<Item = (&str, &str)> {
        let text = move |(start, end): (u32, u32)| &line[start as usize..end as usize];
        self.spans
            .into_iter()
            .take(usize::from(self.len))
            .map(move |span| (text(span.key), text(span.value)))
    }
}

/// What the pass found in a line that serde_json reads as one value.
#[derive(Clone, Copy, Debug)]
pub struct Outline {
    /// Where the value lies, without the whitespace around it.
    pub value: (u32, u32),
    /// Where the members of the value lie, when it is an object the outline could keep.
    pub spans: Option<Spans>,
    /// Where the members of the object under the value's member named by the caller lie, likewise.
    pub inner: Option<Spans>,
}

/// Checks `line` and outlines it; `inner` names the member whose object is outlined too. `None`
/// when the line is not one JSON value serde_json reads, nests deeper than [`MAX_DEPTH`] or holds
/// a number beyond a double (or is longer than 4 GiB, past what the offsets hold).
pub fn outline(line: &str, inner: Option<&str>) -> Option<Outline> {
    let bytes = line.as_bytes();
    u32::try_from(bytes.len()).ok()?;
    let mut scan = Scan { line, bytes, at: 0 };
    // Bit `d` of `objects` tells whether the container at depth `d` is an object.
    let mut objects = 0u128;
    let mut depth = 0usize;
    let mut top = Recorder::default();
    let mut under = Recorder::default();
    // Whether the depth-1 member being read is the `inner` one, and its value an object.
    let mut in_inner = false;
    let mut inner_seen = false;
    scan.skip_whitespace();
    let start = scan.at;
    'value: loop {
        match *bytes.get(scan.at)? {
            open @ (b'{' | b'[') => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
                let object = open == b'{';
                objects = if object {
                    objects | 1 << depth
                } else {
                    objects & !(1 << depth)
                };
                scan.at += 1;
                scan.skip_whitespace();
                match bytes.get(scan.at) {
                    Some(b'}') if object => {
                        scan.at += 1;
                        depth -= 1;
                    }
                    Some(b']') if !object => {
                        scan.at += 1;
                        depth -= 1;
                    }
                    _ => {
                        if object {
                            let (key, escaped) = scan.key()?;
                            if depth == 1 {
                                top.start(key, escaped, scan.at);
                                in_inner = inner.is_some_and(|name| !escaped && scan.text(key) == name);
                                inner_seen |= in_inner;
                            } else if depth == 2 && in_inner {
                                under.start(key, escaped, scan.at);
                            }
                        }
                        continue 'value;
                    }
                }
            }
            b'"' => {
                scan.string()?;
            }
            b'-' | b'0'..=b'9' => scan.number()?,
            b't' => scan.literal(b"true")?,
            b'f' => scan.literal(b"false")?,
            b'n' => scan.literal(b"null")?,
            _ => return None,
        }
        // A value ended; `depth` is that of the container holding it (0: the line's value).
        loop {
            match depth {
                0 => {
                    let end = scan.at;
                    scan.skip_whitespace();
                    if scan.at != bytes.len() {
                        return None;
                    }
                    let object = bytes[start] == b'{';
                    return Some(Outline {
                        value: (start as u32, end as u32),
                        spans: top.spans().filter(|_| object),
                        inner: under.spans().filter(|_| inner_seen && top.inner_object),
                    });
                }
                1 => {
                    let value = top.end(scan.at);
                    if in_inner {
                        top.inner_object = value.is_some_and(|(start, _)| bytes[start as usize] == b'{');
                    }
                }
                2 if in_inner => {
                    under.end(scan.at);
                }
                _ => {}
            }
            scan.skip_whitespace();
            let object = objects & (1 << depth) != 0;
            match *bytes.get(scan.at)? {
                b',' => {
                    scan.at += 1;
                    scan.skip_whitespace();
                    if object {
                        let (key, escaped) = scan.key()?;
                        if depth == 1 {
                            top.start(key, escaped, scan.at);
                            let named = inner.is_some_and(|name| !escaped && scan.text(key) == name);
                            // A second member of that name: a record that will not read.
                            if named && inner_seen {
                                under.spoil();
                            }
                            in_inner = named;
                            inner_seen |= named;
                        } else if depth == 2 && in_inner {
                            under.start(key, escaped, scan.at);
                        }
                    }
                    continue 'value;
                }
                b'}' if object => {
                    scan.at += 1;
                    depth -= 1;
                }
                b']' if !object => {
                    scan.at += 1;
                    depth -= 1;
                }
                _ => return None,
            }
        }
    }
}

/// Where the members of one object lie, recorded as the pass meets them.
#[derive(Default)]
struct Recorder {
    len: usize,
    spans: [Span; KEPT],
    /// A member's key, waiting for its value to end.
    pending: Option<((u32, u32), u32)>,
    /// Too many members, or an escaped key: the object is checked but not outlined.
    spoiled: bool,
    /// Whether the value of the `inner` member (recorded at depth 1) is an object.
    inner_object: bool,
}

impl Recorder {
    fn start(&mut self, key: (u32, u32), escaped: bool, value_start: usize) {
        self.spoiled |= escaped;
        self.pending = Some((key, value_start as u32));
    }

    /// The member whose value ends at `end`, recorded; its value's place.
    fn end(&mut self, end: usize) -> Option<(u32, u32)> {
        let (key, start) = self.pending.take()?;
        let value = (start, end as u32);
        match self.spans.get_mut(self.len) {
            Some(slot) => {
                *slot = Span { key, value };
                self.len += 1;
            }
            None => self.spoiled = true,
        }
        Some(value)
    }

    fn spoil(&mut self) {
        self.spoiled = true;
    }

    fn spans(&self) -> Option<Spans> {
        (!self.spoiled).then_some(Spans {
            len: self.len as u8,
            spans: self.spans,
        })
    }
}

struct Scan<'a> {
    line: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Scan<'_> {
    fn text(&self, (start, end): (u32, u32)) -> &str {
        &self.line[start as usize..end as usize]
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// A key, its colon and the whitespace after it: the key's place without its quotes, and
    /// whether it holds an escape.
    fn key(&mut self) -> Option<((u32, u32), bool)> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        let start = self.at + 1;
        let escaped = self.string()?;
        let key = (start as u32, (self.at - 1) as u32);
        self.skip_whitespace();
        if self.bytes.get(self.at) != Some(&b':') {
            return None;
        }
        self.at += 1;
        self.skip_whitespace();
        Some((key, escaped))
    }

    /// A string from its opening quote; whether it holds an escape. As serde_json, a control
    /// character must be escaped and an escape is one of `\" \\ \/ \b \f \n \r \t` or `\u` with
    /// four hex digits (which need not make a valid code point: serde_json checks that only
    /// when it builds the string).
    fn string(&mut self) -> Option<bool> {
        let mut at = self.at + 1;
        let mut escaped = false;
        loop {
            at = special(self.bytes, at)?;
            match self.bytes[at] {
                b'"' => {
                    self.at = at + 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    at += match self.bytes.get(at + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                        b'u' if self.bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => 6,
                        _ => return None,
                    };
                }
                _ => return None,
            }
        }
    }

    /// A number in JSON's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) that a
    /// double holds.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        let mut at = start;
        if self.bytes[at] == b'-' {
            at += 1;
        }
        match self.bytes.get(at)? {
            b'0' => at += 1,
            b'1'..=b'9' => at = self.digits(at),
            _ => return None,
        }
        if self.bytes.get(at) == Some(&b'.') {
            at = self.some_digits(at + 1)?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(at) {
                at += 1;
            }
            at = self.some_digits(at)?;
        }
        self.at = at;
        (!beyond_f64(&self.line[start..at])).then_some(())
    }

    /// The end of the run of digits from `at`.
    fn digits(&self, mut at: usize) -> usize {
        while self.bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    }

    /// The end of the run of digits from `at`, which holds at least one.
    fn some_digits(&self, at: usize) -> Option<usize> {
        let end = self.digits(at);
        (end > at).then_some(end)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }
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
    bytes[at..].iter().position(is_special).map(|found| at + found)
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
}
