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
//! not outlined, and its readers take the serde_json path. Its tokens are
//! [`agentwire_protocol::scan`]'s, the lexer every pass over JSON text shares.

use agentwire_protocol::scan::{self, beyond_f64};

/// How deep a message may nest. serde_json (and most parsers) stop at 128 levels, and the
/// canonical event carries the message three levels down (`raw.payload`), so a deeper message
/// would make an event its consumers cannot read: it is reported as unreadable instead.
pub const MAX_DEPTH: usize = 100;

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
            b't' | b'f' | b'n' => scan.literal()?,
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
        self.at = scan::skip_whitespace(self.bytes, self.at);
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

    /// A string from its opening quote; whether it holds an escape.
    fn string(&mut self) -> Option<bool> {
        let (end, escaped) = scan::string_end(self.bytes, self.at)?;
        self.at = end;
        Some(escaped)
    }

    /// A number that a double holds.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        self.at = scan::number_end(self.bytes, start)?;
        (!beyond_f64(&self.line[start..self.at])).then_some(())
    }

    fn literal(&mut self) -> Option<()> {
        self.at = scan::literal_end(self.bytes, self.at)?;
        Some(())
    }
}
