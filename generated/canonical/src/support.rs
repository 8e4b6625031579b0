//! The runtime support of `agentwire-canonical`: the error of a rejected id or date-time, the
//! validators the schema's formats need, the helpers of the hand-written `Deserialize` impls, and
//! [`WriteJson`] with its impls for the types the schema's properties use. Written verbatim by
//! `cargo xtask codegen` from `xtask/src/codegen/canonical_support.rs` (it is code, read and
//! linted as such; only `generated.rs` comes from the schema).

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A string that is not a valid value of a validated type (an id or a date-time).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidValue {
    type_name: &'static str,
    reason: &'static str,
    value: String,
}

impl InvalidValue {
    pub(crate) fn new(type_name: &'static str, reason: &'static str, value: &str) -> Self {
        Self {
            type_name,
            reason,
            value: value.to_owned(),
        }
    }

    /// The type the value was meant for, e.g. `EventId`.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// Why the value was rejected.
    pub fn reason(&self) -> &'static str {
        self.reason
    }

    /// The rejected value.
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 80;
        let shown = match self.value.char_indices().nth(SHOWN) {
            Some((end, _)) => format!("{:?}...", &self.value[..end]),
            None => format!("{:?}", self.value),
        };
        write!(f, "invalid {}: {} (got {shown})", self.type_name, self.reason)
    }
}

impl std::error::Error for InvalidValue {}

/// ECMAScript `\s` (WhiteSpace and LineTerminator), the whitespace of the schema's id
/// pattern `^\S(.*\S)?$`.
fn is_ecmascript_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// The schema's id pattern `^\S(.*\S)?$`: non-empty, no whitespace at either end, and
/// (as `.` matches no line terminator) no line break inside.
pub(crate) fn check_trimmed_non_empty(value: &str) -> Result<(), &'static str> {
    let (Some(first), Some(last)) = (value.chars().next(), value.chars().next_back()) else {
        return Err("must not be empty");
    };
    if is_ecmascript_space(first) || is_ecmascript_space(last) {
        return Err("must not start or end with whitespace");
    }
    // Bytes first: every id of every event is checked, and U+2028/U+2029 both begin with 0xE2.
    let maybe_break = value.bytes().any(|byte| matches!(byte, b'\n' | b'\r' | 0xE2));
    if maybe_break && value.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return Err("must not contain a line break");
    }
    Ok(())
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then `Z` or
/// `+hh:mm`/`-hh:mm` (`T` and `Z` may be lower case, RFC 3339 5.6); fields in range
/// (days per month and leap years, second 60 only at 23:59 UTC, a leap second).
pub(crate) fn check_date_time(value: &str) -> Result<(), &'static str> {
    const SHAPE: &str = "must be an RFC 3339 date-time like 2026-05-14T09:21:07.412Z (date, `T`, time, optional fraction, `Z` or +hh:mm)";
    fn number(bytes: &[u8], at: usize, len: usize) -> Option<u32> {
        bytes.get(at..at + len)?.iter().try_fold(0, |acc: u32, byte| {
            byte.is_ascii_digit().then(|| acc * 10 + u32::from(byte - b'0'))
        })
    }
    let bytes = value.as_bytes();
    let at = |index: usize| bytes.get(index).copied();
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        number(bytes, 0, 4),
        number(bytes, 5, 2),
        number(bytes, 8, 2),
        number(bytes, 11, 2),
        number(bytes, 14, 2),
        number(bytes, 17, 2),
    ) else {
        return Err(SHAPE);
    };
    if at(4) != Some(b'-')
        || at(7) != Some(b'-')
        || !matches!(at(10), Some(b'T' | b't'))
        || at(13) != Some(b':')
        || at(16) != Some(b':')
    {
        return Err(SHAPE);
    }
    let mut end = 19;
    if at(end) == Some(b'.') {
        let digits = bytes[end + 1..].iter().take_while(|byte| byte.is_ascii_digit()).count();
        if digits == 0 {
            return Err(SHAPE);
        }
        end += 1 + digits;
    }
    // The offset east of UTC, in minutes.
    let offset = match at(end) {
        Some(b'Z' | b'z') => {
            end += 1;
            0
        }
        Some(sign @ (b'+' | b'-')) => {
            let (Some(offset_hour), Some(offset_minute)) = (number(bytes, end + 1, 2), number(bytes, end + 4, 2))
            else {
                return Err(SHAPE);
            };
            if at(end + 3) != Some(b':') {
                return Err(SHAPE);
            }
            if offset_hour > 23 || offset_minute > 59 {
                return Err("the UTC offset is out of range");
            }
            end += 6;
            let minutes = i64::from(offset_hour * 60 + offset_minute);
            if sign == b'+' { minutes } else { -minutes }
        }
        _ => return Err(SHAPE),
    };
    if end != bytes.len() {
        return Err(SHAPE);
    }
    let leap_year = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap_year => 29,
        2 => 28,
        _ => return Err("the month is out of range"),
    };
    if day == 0 || day > days_in_month {
        return Err("the day is out of range");
    }
    if hour > 23 || minute > 59 || second > 60 {
        return Err("the time of day is out of range");
    }
    // A leap second is inserted at 23:59:60 UTC only.
    if second == 60 && (i64::from(hour * 60 + minute) - offset).rem_euclid(24 * 60) != 23 * 60 + 59 {
        return Err("a leap second (second 60) must fall at 23:59 UTC");
    }
    Ok(())
}

/// A JSON string (an object key or an enum value), borrowed from the input when it can be.
pub(crate) struct Str<'de>(pub(crate) std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Str<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E: serde::de::Error>(self, value: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(std::borrow::Cow::Borrowed(value)))
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Str<'de>, E> {
                Ok(Str(std::borrow::Cow::Owned(value.to_owned())))
            }

            fn visit_string<E: serde::de::Error>(self, value: String) -> Result<Str<'de>, E> {
                Ok(Str(std::borrow::Cow::Owned(value)))
            }
        }

        deserializer.deserialize_str(Visitor)
    }
}

/// A JSON object carried as its text: what a raw object field decodes through, so that anything
/// but an object is refused as the `serde_json::Map` it stands for would refuse it.
pub(crate) struct RawObject(pub(crate) Box<RawValue>);

impl<'de> Deserialize<'de> for RawObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        if raw.get().starts_with('{') {
            Ok(RawObject(raw))
        } else {
            Err(D::Error::invalid_type(
                serde::de::Unexpected::Other(raw.get()),
                &"a JSON object",
            ))
        }
    }
}

/// A free-form JSON value an event carries (an item's `data`, a usage report), held either as a
/// tree or as the JSON text a typed value was serialized to. Both write, serialize and compare as
/// the same JSON; a decoded event holds trees.
///
/// Why two forms: most item data is a provider's typed item, and building a tree of it only to
/// write the tree out again (a map insert, a key and a string copy per member) cost the Codex
/// sources more than writing the item itself; [`Json::serialize`] writes the text once instead.
/// A normalizer that edits the value (a streamed delta appended to an item's text) asks for the
/// tree, and text is read into one then, once.
#[derive(Clone, Debug)]
pub struct Json(JsonRepr);

#[derive(Clone, Debug)]
enum JsonRepr {
    Tree(Value),
    /// Written by serde_json from a value, so it always reads back into a tree.
    Text(Box<RawValue>),
}

impl Json {
    /// `value` serialized to JSON text, without building a tree.
    pub fn serialize(value: &impl serde::Serialize) -> serde_json::Result<Json> {
        serde_json::value::to_raw_value(value).map(|text| Json(JsonRepr::Text(text)))
    }

    /// The value as a tree: borrowed when it is one, read from its text otherwise.
    pub fn to_value(&self) -> std::borrow::Cow<'_, Value> {
        match &self.0 {
            JsonRepr::Tree(value) => std::borrow::Cow::Borrowed(value),
            JsonRepr::Text(text) => std::borrow::Cow::Owned(read_back(text)),
        }
    }

    /// The value as a tree.
    pub fn into_value(self) -> Value {
        match self.0 {
            JsonRepr::Tree(value) => value,
            JsonRepr::Text(text) => read_back(&text),
        }
    }

    /// The tree, to edit in place; text is read into a tree first (once).
    pub fn value_mut(&mut self) -> &mut Value {
        if let JsonRepr::Text(text) = &self.0 {
            self.0 = JsonRepr::Tree(read_back(text));
        }
        match &mut self.0 {
            JsonRepr::Tree(value) => value,
            JsonRepr::Text(_) => unreachable!("text was just read into a tree"),
        }
    }
}

/// Text serde_json wrote from a value reads back: it holds no number a double cannot (serde_json
/// writes a non-finite float as `null`). The one exception is a value nested deeper than
/// serde_json reads (128 levels); what a normalizer serializes comes from a frame, which holds at
/// most 100.
fn read_back(text: &RawValue) -> Value {
    serde_json::from_str(text.get()).expect("JSON text serde_json wrote reads back")
}

impl From<Value> for Json {
    fn from(value: Value) -> Self {
        Json(JsonRepr::Tree(value))
    }
}

/// As JSON values: a tree and the text of the same value are equal.
impl PartialEq for Json {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (JsonRepr::Text(one), JsonRepr::Text(other)) if one.get() == other.get() => true,
            _ => self.to_value() == other.to_value(),
        }
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            JsonRepr::Tree(value) => value.serialize(serializer),
            JsonRepr::Text(text) => text.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Json::from)
    }
}

/// Decodes the value of the field `name` into its slot; a field given twice is an error.
/// A present optional field decodes as its type, so `null` is rejected unless the type
/// admits it (`{}` keeps it as `Value::Null`, `string | null` as `None`).
pub(crate) fn next_field<'de, A, T>(map: &mut A, slot: &mut Option<T>, name: &'static str) -> Result<(), A::Error>
where
    A: serde::de::MapAccess<'de>,
    T: Deserialize<'de>,
{
    if slot.is_some() {
        return Err(A::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Writes a value as compact JSON into a buffer: byte for byte what `serde_json::to_writer`
/// writes through the type's `Serialize`, without going through a `Serializer`.
///
/// A normalizer writes several events per provider message, each an envelope of keys, ids and
/// names: through serde every key and every string is a call of its own that scans it for
/// characters to escape one byte at a time. Here the keys and enum names are byte strings made
/// when the code was generated, and a string is checked for escapes in one pass the compiler
/// vectorizes. Numbers, free-form JSON values and a string that needs escaping go to serde_json.
pub trait WriteJson {
    /// Appends the value's JSON to `out`.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

/// A JSON string: as it is between quotes when nothing in it needs escaping (serde_json escapes
/// `"`, `\` and the control characters below U+0020, nothing else), else serde_json's escaping.
pub(crate) fn write_str(out: &mut Vec<u8>, value: &str) -> serde_json::Result<()> {
    // No early exit: the whole-string fold compiles to vector compares.
    let plain = value.bytes().fold(true, |plain, byte| {
        plain & (byte >= 0x20) & (byte != b'"') & (byte != b'\\')
    });
    if !plain {
        return serde_json::to_writer(out, value);
    }
    out.reserve(value.len() + 2);
    out.push(b'"');
    out.extend_from_slice(value.as_bytes());
    out.push(b'"');
    Ok(())
}

/// The key of an object member (with its `:`), after a `,` unless it is the first member.
pub(crate) fn write_key(out: &mut Vec<u8>, first: &mut bool, key: &[u8]) {
    if !std::mem::take(first) {
        out.push(b',');
    }
    out.extend_from_slice(key);
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        write_str(out, self)
    }
}

impl WriteJson for bool {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
        Ok(())
    }
}

impl WriteJson for i64 {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

/// As `Serialize` writes it: shortest round-trip form, `null` when not finite.
impl WriteJson for f64 {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

/// Walked here rather than handed to serde_json, so its strings (most of an item's data) get the
/// one-pass escape check too.
impl WriteJson for Value {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(value) => value.write_json(out)?,
            Value::Number(number) => serde_json::to_writer(out, number)?,
            Value::String(text) => write_str(out, text)?,
            Value::Array(values) => values.write_json(out)?,
            Value::Object(map) => map.write_json(out)?,
        }
        Ok(())
    }
}

impl WriteJson for Map<String, Value> {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.push(b'{');
        for (index, (key, value)) in self.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            write_str(out, key)?;
            out.push(b':');
            value.write_json(out)?;
        }
        out.push(b'}');
        Ok(())
    }
}

impl WriteJson for Json {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match &self.0 {
            JsonRepr::Tree(value) => value.write_json(out),
            JsonRepr::Text(text) => text.write_json(out),
        }
    }
}

/// The text as it was received.
impl WriteJson for Box<RawValue> {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(self.get().as_bytes());
        Ok(())
    }
}

/// `null` for `None`: the schema's `string | null` (an optional property that is absent is left
/// out by the object that holds it, never written as `null`).
impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Some(value) => value.write_json(out),
            None => {
                out.extend_from_slice(b"null");
                Ok(())
            }
        }
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.push(b'[');
        for (index, value) in self.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            value.write_json(out)?;
        }
        out.push(b']');
        Ok(())
    }
}
