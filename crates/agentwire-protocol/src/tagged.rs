//! Line streams whose messages name their kind in a string field: `{"type": "assistant", ...}`,
//! and nested as Claude does, `{"type": "system", "subtype": "init", ...}`.
//!
//! The payload of a variant is the whole object. A generated union reads its tag field with
//! [`read_tag`] (skipping every other value without building it), then decodes the payload type
//! the tag names from the same text; the payload type does not hold the tag, and
//! [`serialize_tagged`] writes it back in front of the payload's fields.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::ser::{Impossible, SerializeMap, SerializeStruct};
use serde::{Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

pub use crate::decode_error::{TagDecodeError, nested_error};
use crate::payload::PayloadDecoder;
use crate::scan;
use crate::sent::Sent;

/// The string value of the top-level field `tag` of the JSON object `json`, borrowed when it has
/// no escapes. The other values are skipped, not built.
///
/// Most messages name their kind first (`{"type": "assistant", ...}`) or after a few plain
/// members (`{"id": "item_0", "type": ...}`): [`leading_tag`] reads those without a parser, so
/// the object is not walked to its end only to be parsed again as its payload. A malformed
/// object whose tag comes before the fault then fails in [`decode_payload`], which parses all of
/// it, instead of here.
pub fn read_tag<'a>(json: &'a str, union: &'static str, tag: &'static str) -> Result<Cow<'a, str>, TagDecodeError> {
    if let Some(value) = leading_tag(json, tag) {
        return Ok(Cow::Borrowed(value));
    }
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let found = TagSeed(tag)
        .deserialize(&mut deserializer)
        .and_then(|found| deserializer.end().map(|()| found))
        .map_err(|error| TagDecodeError::NotAnObject {
            union,
            message: error.to_string(),
        })?;
    found.ok_or(TagDecodeError::MissingTag { union, tag })
}

/// The value of `tag` when the object `json` names it as a string without escapes before any
/// member whose value is an object or array, and no key before it has an escape; `None` when
/// anything else comes first, for [`read_tag`]'s parser to decide. The first `tag` member is the
/// one read either way.
fn leading_tag<'a>(json: &'a str, tag: &str) -> Option<&'a str> {
    let bytes = json.as_bytes();
    let mut at = scan::skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    loop {
        at = scan::skip_whitespace(bytes, at + 1);
        let key = plain_string(bytes, at)?;
        at = scan::skip_whitespace(bytes, key.end + 1);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = scan::skip_whitespace(bytes, at + 1);
        if &bytes[key] == tag.as_bytes() {
            return plain_string(bytes, at).map(|value| &json[value]);
        }
        at = scan::skip_whitespace(bytes, scan::scalar_end(bytes, at)?);
        if bytes.get(at) != Some(&b',') {
            return None;
        }
    }
}

/// The contents of the string starting at `at` when it has no escape.
fn plain_string(bytes: &[u8], at: usize) -> Option<std::ops::Range<usize>> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let (end, escaped) = scan::string_end(bytes, at)?;
    (!escaped).then_some(at + 1..end - 1)
}

/// Decodes the payload of the variant `value` of `union` from the whole object `json`.
pub fn decode_payload<T: DeserializeOwned, D: PayloadDecoder>(
    json: &str,
    union: &'static str,
    tag: &'static str,
    value: &str,
    decoder: &mut D,
) -> Result<T, TagDecodeError> {
    decoder.decode(json).map_err(|error| TagDecodeError::Payload {
        union,
        tag,
        value: value.into(),
        error,
    })
}

/// Decodes the payload of the variant `value` as [`decode_payload`] does, kept with the object's
/// text without the members `tags` (the union's tag, after those of the unions it is nested in),
/// which the payload's type does not hold either: for a payload a mapping copies as sent.
/// Members keep their order; the text is written compactly, keys as serde_json writes them.
pub fn decode_sent_payload<T: DeserializeOwned, D: PayloadDecoder>(
    json: &str,
    union: &'static str,
    tags: &[&'static str],
    value: &str,
    decoder: &mut D,
) -> Result<Sent<T>, TagDecodeError> {
    let tag = tags.last().copied().unwrap_or_default();
    let typed = decode_payload(json, union, tag, value, decoder)?;
    let text = without_members(json, tags).map_err(|error| TagDecodeError::NotAnObject {
        union,
        message: error.to_string(),
    })?;
    Ok(Sent::new(typed, text))
}

/// The object `json` without the members named `keys`.
fn without_members(json: &str, keys: &[&str]) -> serde_json::Result<Box<RawValue>> {
    /// An object's members, each value as its text.
    struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

    impl<'de> serde::Deserialize<'de> for Members<'de> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct MembersVisitor;

            impl<'de> Visitor<'de> for MembersVisitor {
                type Value = Members<'de>;

                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a JSON object")
                }

                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut members = Vec::new();
                    while let Some(Str(key)) = map.next_key()? {
                        members.push((key, map.next_value()?));
                    }
                    Ok(Members(members))
                }
            }

            deserializer.deserialize_map(MembersVisitor)
        }
    }

    /// The members not named by the keys, serialized as one object.
    struct Kept<'a>(&'a [(Cow<'a, str>, &'a RawValue)], &'a [&'a str]);

    impl Serialize for Kept<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(None)?;
            for (key, value) in self.0.iter().filter(|(key, _)| !self.1.contains(&key.as_ref())) {
                map.serialize_entry(key, value)?;
            }
            map.end()
        }
    }

    let Members(members) = serde_json::from_str(json)?;
    serde_json::value::to_raw_value(&Kept(&members, keys))
}

/// The error of a tag the union does not know.
pub fn unknown_tag(
    union: &'static str,
    tag: &'static str,
    value: &str,
    known: &'static [&'static str],
) -> TagDecodeError {
    TagDecodeError::UnknownTag {
        union,
        tag,
        value: value.into(),
        known,
    }
}

/// Reads one field of a map, skipping the others.
struct TagSeed(&'static str);

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TagSeed {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object with a string `{}` field", self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(Str(key)) = map.next_key()? {
            if key == self.0 && found.is_none() {
                let Str(value) = map.next_value()?;
                found = Some(value);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A JSON string (a key, a tag), borrowed from the input unless it holds an escape.
pub struct Str<'de>(pub Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;

        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E: serde::de::Error>(self, value: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(value)))
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(value.to_owned())))
            }

            fn visit_string<E: serde::de::Error>(self, value: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(value)))
            }
        }

        deserializer.deserialize_str(StrVisitor)
    }
}

/// Serializes `payload` (a struct or map) with `tag: value` written first. Nested unions nest
/// the calls: the outer tag comes first, then the inner one, then the payload's fields.
pub fn serialize_tagged<S: Serializer, T: Serialize + ?Sized>(
    serializer: S,
    tag: &'static str,
    value: &'static str,
    payload: &T,
) -> Result<S::Ok, S::Error> {
    payload.serialize(TaggedSerializer {
        tag,
        value,
        delegate: serializer,
    })
}

/// Serializes a variant that is only its tag: `{tag: value}`, inside the tags of the unions it is
/// nested in.
pub fn serialize_tag_only<S: Serializer>(
    serializer: S,
    tag: &'static str,
    value: &'static str,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry(tag, value)?;
    map.end()
}

/// Forwards a struct or map to `delegate` with one more entry in front; anything else is an
/// error, as a tag-field payload is always a JSON object.
struct TaggedSerializer<S> {
    tag: &'static str,
    value: &'static str,
    delegate: S,
}

impl<S: Serializer> TaggedSerializer<S> {
    fn not_an_object(&self, what: &str) -> S::Error {
        serde::ser::Error::custom(format_args!(
            "the payload of `{}` `{}` must serialize as an object, not {what}",
            self.tag, self.value
        ))
    }
}

macro_rules! not_an_object {
    ($($method:ident($($arg:ty),*) => $what:literal;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<S::Ok, S::Error> {
            Err(self.not_an_object($what))
        })*
    };
}

impl<S: Serializer> Serializer for TaggedSerializer<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = S::SerializeStruct;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    not_an_object! {
        serialize_bool(bool) => "a boolean";
        serialize_i8(i8) => "a number";
        serialize_i16(i16) => "a number";
        serialize_i32(i32) => "a number";
        serialize_i64(i64) => "a number";
        serialize_u8(u8) => "a number";
        serialize_u16(u16) => "a number";
        serialize_u32(u32) => "a number";
        serialize_u64(u64) => "a number";
        serialize_f32(f32) => "a number";
        serialize_f64(f64) => "a number";
        serialize_char(char) => "a string";
        serialize_str(&str) => "a string";
        serialize_bytes(&[u8]) => "bytes";
        serialize_none() => "null";
        serialize_unit() => "null";
        serialize_unit_struct(&'static str) => "null";
        serialize_unit_variant(&'static str, u32, &'static str) => "a string";
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(self.not_an_object("an externally tagged enum"))
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Err(self.not_an_object("an array"))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, S::Error> {
        Err(self.not_an_object("an array"))
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, S::Error> {
        Err(self.not_an_object("an array"))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        Err(self.not_an_object("an externally tagged enum"))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<S::SerializeMap, S::Error> {
        let mut map = self.delegate.serialize_map(len.map(|len| len + 1))?;
        map.serialize_entry(self.tag, self.value)?;
        Ok(map)
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<S::SerializeStruct, S::Error> {
        let mut state = self.delegate.serialize_struct(name, len + 1)?;
        state.serialize_field(self.tag, self.value)?;
        Ok(state)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        Err(self.not_an_object("an externally tagged enum"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A payload kept as sent is typed, and its text is the object's without the tags of its
    /// union and the unions above it, members in the order sent.
    #[test]
    fn a_sent_payload_is_the_object_without_its_tags() {
        #[derive(serde::Deserialize)]
        struct Init {
            model: String,
        }
        let json = r#"{"type": "system", "tools": ["Bash"], "subtype": "init", "model": "opus", "later": {"a": 1}}"#;
        let init: Sent<Init> =
            decode_sent_payload(json, "System", &["type", "subtype"], "init", &mut crate::SerdeJson).unwrap();
        assert_eq!(init.model, "opus");
        assert_eq!(
            init.text().get(),
            r#"{"tools":["Bash"],"model":"opus","later":{"a": 1}}"#
        );
    }

    #[derive(Serialize)]
    struct Init {
        model: &'static str,
    }

    struct System(Init);

    impl Serialize for System {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serialize_tagged(serializer, "subtype", "init", &self.0)
        }
    }

    #[test]
    fn nested_tags_are_written_outer_first() {
        let mut out = Vec::new();
        serialize_tagged(
            &mut serde_json::Serializer::new(&mut out),
            "type",
            "system",
            &System(Init { model: "m" }),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"system","subtype":"init","model":"m"}"#
        );
    }

    struct Compact;

    impl Serialize for Compact {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serialize_tag_only(serializer, "subtype", "compact")
        }
    }

    #[test]
    fn a_tag_only_variant_inside_another_tag_writes_both() {
        let mut out = Vec::new();
        serialize_tagged(&mut serde_json::Serializer::new(&mut out), "type", "system", &Compact).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"system","subtype":"compact"}"#
        );
    }

    #[test]
    fn a_payload_that_is_not_an_object_is_an_error() {
        let err = serde_json::to_string(&Wrapper).unwrap_err();
        assert!(
            err.to_string().contains("must serialize as an object, not a string"),
            "{err}"
        );

        struct Wrapper;
        impl Serialize for Wrapper {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serialize_tagged(serializer, "type", "x", "text")
            }
        }
    }

    #[test]
    fn the_tag_is_read_without_the_rest() {
        let json = r#"{"message":{"type":"nested"},"type":"assistant","n":[1,2]}"#;
        assert_eq!(read_tag(json, "U", "type").unwrap(), "assistant");
        assert_eq!(
            read_tag(r#"{"kind":1}"#, "U", "type"),
            Err(TagDecodeError::MissingTag {
                union: "U",
                tag: "type"
            })
        );
        assert!(matches!(
            read_tag(r#"{"type":1}"#, "U", "type"),
            Err(TagDecodeError::NotAnObject { .. })
        ));
        assert!(matches!(
            read_tag("[]", "U", "type"),
            Err(TagDecodeError::NotAnObject { .. })
        ));
    }

    /// The tag as the parser reads it, for comparing with [`leading_tag`].
    fn parsed_tag(json: &str) -> Option<String> {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        TagSeed("type")
            .deserialize(&mut deserializer)
            .ok()
            .flatten()
            .map(Cow::into_owned)
    }

    #[test]
    fn a_leading_tag_is_read_without_a_parser_and_as_the_parser_reads_it() {
        let read = [
            (r#"{"type":"assistant","message":{"type":"nested"}}"#, "assistant"),
            (r#"{"id":"item_0","type":"agent_message","text":"hi"}"#, "agent_message"),
            (
                r#" { "n" : -1.5e3 , "ok" : true , "none" : null , "type" : "x" } "#,
                "x",
            ),
            (r#"{"quote":"a \"type\": \"fake\"","type":"real"}"#, "real"),
            (r#"{"back":"\\","type":"after backslash"}"#, "after backslash"),
            (r#"{"type":"first","type":"second"}"#, "first"),
            (r#"{"type":""}"#, ""),
        ];
        for (json, tag) in read {
            assert_eq!(leading_tag(json, "type"), Some(tag), "{json}");
            assert_eq!(parsed_tag(json).as_deref(), Some(tag), "{json}");
        }
        let left_to_the_parser = [
            r#"{"message":{"type":"nested"},"type":"assistant"}"#,
            r#"{"list":[1],"type":"assistant"}"#,
            r#"{"typ\u0065":"escaped key","type":"x"}"#,
            r#"{"type":"escaped \"value\""}"#,
            r#"{"type":1}"#,
            r#"{"kind":"no tag"}"#,
            r#"{}"#,
            r#"[]"#,
            r#"{"type""#,
            r#"{"n":12"#,
            "",
        ];
        for json in left_to_the_parser {
            assert_eq!(leading_tag(json, "type"), None, "{json}");
        }
        assert_eq!(
            read_tag(r#"{"typ\u0065":"escaped key","type":"x"}"#, "U", "type").unwrap(),
            "escaped key"
        );
    }
}
