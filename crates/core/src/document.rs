//! A source whose file is one JSON document rather than one message per line (a program's export
//! of a whole session, usually pretty-printed over many lines).
//!
//! The line reader cannot take such a file as it is: a line is a fragment of the document. The
//! source says how the document falls into frames ([`Document`]); [`split`] cuts it so: the
//! document without its listed member first, then one frame per element of that member. Each
//! frame is the value's text with the whitespace between tokens removed, so a pretty-printed
//! document and its one-line form (`jq -c`) give the same frames, each event's `raw` is the
//! element it came from rather than the whole file, and each frame is one line to every reader
//! of lines. Each frame keeps the line of the document where its value begins, which errors name.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// How a source's document falls into frames: an object whose member `each` is an array of
/// frames; the object's other members make the first frame.
#[derive(Debug)]
pub struct Document {
    /// The member whose elements are one frame each (`messages`).
    pub each: &'static str,
}

/// One frame of a document: its text on one line, and the 1-based line of the document where
/// its value begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The document's line where the value begins.
    pub line: usize,
    /// The value, without whitespace between tokens.
    pub text: String,
}

/// Where a document stops being readable: what could not be read, from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The document's line where the part that could not be read begins.
    pub line: usize,
    /// Why, naming the line and column of the document where reading stopped.
    pub reason: String,
    /// The document's text from that line on, its line ends turned into spaces: carried as the
    /// unreadable line, one line like every frame.
    pub rest: String,
}

/// A document cut into frames: the frames read, then what could not be read, if anything.
#[derive(Debug, Default)]
pub struct Split {
    /// The frames, in the document's order.
    pub pieces: Vec<Piece>,
    /// The rest of a document that is cut short or not JSON.
    pub broken: Option<Broken>,
}

/// Cuts `text` into the frames `document` says: the members other than `document.each` as one
/// object (written when the array begins, or at the end when there is none), then each element of
/// that array. A document that stops being readable keeps the frames read before that point.
pub fn split(text: &str, document: &Document) -> Split {
    let mut split = Split::default();
    let mut end = 0;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = Top {
        text,
        each: document.each,
        pieces: &mut split.pieces,
        end: &mut end,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    if let Err(err) = read {
        // The part not framed: after the last element read (the whole text when none was).
        let rest = text[end..].trim_start_matches(|ch: char| ch == ',' || ch.is_ascii_whitespace());
        let from = text.len() - rest.len();
        split.broken = Some(Broken {
            line: line_at(text, from),
            reason: format!("not a whole document: {err}"),
            rest: rest.replace(['\n', '\r'], " "),
        });
    }
    split
}

/// The 1-based line of `text` at byte `offset`.
fn line_at(text: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}

/// `value` without the whitespace between its tokens (JSON strings hold no raw whitespace that
/// matters but their own, which is kept).
pub fn compact(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let (mut in_string, mut escaped) = (false, false);
    for ch in value.chars() {
        if in_string {
            out.push(ch);
            match (escaped, ch) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                (false, _) => {}
            }
        } else if !matches!(ch, ' ' | '\t' | '\n' | '\r') {
            in_string = ch == '"';
            out.push(ch);
        }
    }
    out
}

/// The document: an object, read member by member.
struct Top<'t, 'p> {
    text: &'t str,
    each: &'static str,
    pieces: &'p mut Vec<Piece>,
    /// The offset just past the last element framed.
    end: &'p mut usize,
}

impl Top<'_, '_> {
    /// The offset of `value` (borrowed from the text) in the text.
    fn offset(&self, value: &str) -> usize {
        value.as_ptr() as usize - self.text.as_ptr() as usize
    }
}

impl<'de: 't, 't> DeserializeSeed<'de> for Top<'t, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de: 't, 't> Visitor<'de> for Top<'t, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object with an array `{}`", self.each)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut head: Vec<(String, &'de RawValue)> = Vec::new();
        let mut head_line = None;
        // How many members the first frame was written with, once the array began.
        let mut framed = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == self.each && framed.is_none() {
                framed = Some(head.len());
                self.pieces.push(head_piece(&head, head_line.unwrap_or(1)));
                map.next_value_seed(Each {
                    top: Top {
                        text: self.text,
                        each: self.each,
                        pieces: &mut *self.pieces,
                        end: &mut *self.end,
                    },
                })?;
            } else {
                let value: &'de RawValue = map.next_value()?;
                head_line.get_or_insert_with(|| line_at(self.text, self.offset(value.get())));
                head.push((key.into_owned(), value));
            }
        }
        match framed {
            // Members after the array: the first frame is written again with them, in its place.
            Some(written) if written < head.len() => self.pieces[0] = head_piece(&head, self.pieces[0].line),
            Some(_) => {}
            None => self.pieces.push(head_piece(&head, head_line.unwrap_or(1))),
        }
        Ok(())
    }
}

/// The members other than the array, as one object.
fn head_piece(head: &[(String, &RawValue)], line: usize) -> Piece {
    let mut text = String::from("{");
    for (index, (key, value)) in head.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(&serde_json::to_string(key).expect("a string serializes"));
        text.push(':');
        text.push_str(&compact(value.get()));
    }
    text.push('}');
    Piece { line, text }
}

/// The array of frames.
struct Each<'t, 'p> {
    top: Top<'t, 'p>,
}

impl<'de: 't, 't> DeserializeSeed<'de> for Each<'t, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de: 't, 't> Visitor<'de> for Each<'t, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array `{}`", self.top.each)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(value) = seq.next_element::<&'de RawValue>()? {
            let offset = self.top.offset(value.get());
            self.top.pieces.push(Piece {
                line: line_at(self.top.text, offset),
                text: compact(value.get()),
            });
            *self.top.end = offset + value.get().len();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Document, compact, split};

    const DOCUMENT: Document = Document { each: "messages" };

    /// A pretty-printed document and its one-line form give the same frames; each frame names the
    /// line its value begins on.
    #[test]
    fn pretty_and_compact_documents_give_the_same_frames() {
        let pretty = "{\n \"info\": {\n  \"id\": \"s 1\"\n },\n \"messages\": [\n  {\n   \"n\": 1\n  },\n  {\"n\": [2, \"a b\"]}\n ]\n}\n";
        let one_line = compact(pretty);
        let (pretty, one_line) = (split(pretty, &DOCUMENT), split(&one_line, &DOCUMENT));
        let texts = |split: &super::Split| split.pieces.iter().map(|piece| piece.text.clone()).collect::<Vec<_>>();
        assert_eq!(
            texts(&pretty),
            [r#"{"info":{"id":"s 1"}}"#, r#"{"n":1}"#, r#"{"n":[2,"a b"]}"#]
        );
        assert_eq!(texts(&pretty), texts(&one_line));
        let lines: Vec<usize> = pretty.pieces.iter().map(|piece| piece.line).collect();
        assert_eq!(lines, [2, 6, 9]);
        assert!(pretty.broken.is_none() && one_line.broken.is_none());
    }

    /// A document cut short keeps the frames read before the cut; the rest is named by the line
    /// it begins on and carried on one line, and the reason names where reading stopped.
    #[test]
    fn a_document_cut_short_keeps_what_was_read() {
        let text = "{\"info\": {\"id\": 1},\n \"messages\": [\n  {\"n\": 1},\n  {\"n\": 2},\n  {\"n\":\n   3";
        let split = split(text, &DOCUMENT);
        assert_eq!(split.pieces.len(), 3);
        let broken = split.broken.expect("cut short");
        assert_eq!(broken.line, 5);
        assert_eq!(broken.rest, "{\"n\":    3");
        assert!(broken.reason.contains("line 6"), "{}", broken.reason);
    }

    /// Text that is no object at all is unreadable from its first line.
    #[test]
    fn text_that_is_no_document_is_unreadable_whole() {
        let split = split("[1, 2]", &DOCUMENT);
        assert!(split.pieces.is_empty());
        assert_eq!(split.broken.expect("no object").line, 1);
    }
}
