//! A JSON value kept as the text it arrived as, and the text of the value a deserializer is on.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::tagged::Str;

/// A JSON value carried byte for byte, never parsed into a tree: what a schema marks with
/// `"x-raw-json": true`. Two values are equal when their text is.
///
/// It decodes only straight from JSON text (`serde_json::from_str`/`from_slice`/`from_reader`),
/// not from a buffered value: a type holding it cannot sit under `#[serde(flatten)]` or inside an
/// internally tagged or untagged enum.
#[derive(Clone, Debug)]
pub struct RawJson(pub Box<RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value as a tree, every member the sender wrote in its order: for a payload member
    /// typed as free JSON. `Null` for text that does not read back, which a decoded value never
    /// holds (its text was checked as JSON when it was decoded).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self)
    }
}

/// The JSON text of the value `deserializer` is positioned on, for a type that decodes from text
/// (a tag-field union reads its tag, then decodes the payload the tag names from the same text).
///
/// From serde_json's text deserializer (`from_str`, `from_slice`, `from_reader`) this is the
/// input's own text, borrowed when the input is: serde_json skips the value without building it,
/// as it does to fill a [`RawValue`]. Any other deserializer (serde's buffer inside an untagged or
/// internally tagged enum, `serde_json::from_value`) yields the value read as a
/// `serde_json::Value` and printed compactly, which decodes the same. Reading every value that
/// way, as tag-field unions once did, cost codex-exec a sixth of its CPU time.
///
/// This leans on how serde_json fills a `RawValue`, which is not public API (serde_json's
/// `raw.rs` and `de.rs` `deserialize_raw_value`): `RawValue` asks for a newtype struct under a
/// private name, and the text deserializer answers with a one-entry map from that name to the raw
/// text; other deserializers hand the newtype's content to `visit_newtype_struct`. The name is
/// learned from `RawValue` itself ([`raw_value_token`]) rather than copied. Should serde_json
/// change the scheme, the tests below fail; a renamed token alone only makes every deserializer
/// take the slow path.
pub fn json_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Cow<'de, str>, D::Error> {
    match raw_value_token() {
        Some(token) => deserializer.deserialize_newtype_struct(token, TextVisitor { token }),
        None => Ok(Cow::Owned(Value::deserialize(deserializer)?.to_string())),
    }
}

/// Takes whichever answer the deserializer gives to the raw-value request of [`json_text`].
struct TextVisitor {
    token: &'static str,
}

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    /// serde_json's text deserializer answers with one entry, the token, whose value is the raw
    /// text. A deserializer that answers every request with its plain value (serde's
    /// `forward_to_deserialize_any!`) hands over an object itself; it is rebuilt and printed.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some(Str(key)) = map.next_key()? else {
            return Ok(Cow::Borrowed("{}"));
        };
        if key == self.token {
            let Str(text) = map.next_value()?;
            return Ok(text);
        }
        let mut object = Map::new();
        object.insert(key.into_owned(), map.next_value()?);
        while let Some((key, value)) = map.next_entry()? {
            object.insert(key, value);
        }
        Ok(Cow::Owned(Value::Object(object).to_string()))
    }

    /// Every deserializer that is not serde_json's text one ends here with the value itself.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Ok(Cow::Owned(Value::deserialize(deserializer)?.to_string()))
    }
}

/// `text` as a [`RawValue`] without reading it, for text already checked to be one JSON value
/// serde_json reads, with no whitespace around it (a line's checking pass found it). Text that is
/// not makes a `RawValue` that writes invalid JSON.
///
/// The value is handed to `RawValue` the way serde_json's text deserializer hands it the text it
/// skipped (see [`json_text`]); `None` if `RawValue` stops asking for it that way, and the caller
/// then reads the text with serde_json.
pub fn raw_value_unchecked(text: &str) -> Option<&RawValue> {
    let token = raw_value_token()?;
    <&RawValue>::deserialize(CheckedText { token, text }).ok()
}

/// A deserializer that answers `RawValue`'s request with text it does not read.
struct CheckedText<'de> {
    token: &'static str,
    text: &'de str,
}

impl<'de> Deserializer<'de> for CheckedText<'de> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("checked text answers only the raw-value request"))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name != self.token {
            return self.deserialize_any(visitor);
        }
        let entry = (
            de::value::BorrowedStrDeserializer::new(self.token),
            de::value::BorrowedStrDeserializer::new(self.text),
        );
        visitor.visit_map(de::value::MapDeserializer::new(std::iter::once(entry)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The newtype name serde_json's [`RawValue`] asks a deserializer for. It is private to
/// serde_json, so it is not written here but learned once, by letting `RawValue` ask a probe.
/// `None` if `RawValue` stops asking for a newtype: [`json_text`] then always takes its slow path.
fn raw_value_token() -> Option<&'static str> {
    static TOKEN: OnceLock<Option<&'static str>> = OnceLock::new();
    *TOKEN.get_or_init(|| {
        let mut token = None;
        // The probe always fails; only the name it was asked for matters.
        let _ = Box::<RawValue>::deserialize(TokenProbe(&mut token));
        token
    })
}

/// A deserializer that holds no value: it records the name of the newtype it is asked for and
/// fails every request.
struct TokenProbe<'a>(&'a mut Option<&'static str>);

impl<'de> Deserializer<'de> for TokenProbe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("the raw-value probe holds no value"))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(name);
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type that keeps the text [`json_text`] hands it, and whether it was borrowed.
    #[derive(Debug, PartialEq)]
    struct Text {
        text: String,
        borrowed: bool,
    }

    impl<'de> Deserialize<'de> for Text {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = json_text(deserializer)?;
            Ok(Self {
                borrowed: matches!(text, Cow::Borrowed(_)),
                text: text.into_owned(),
            })
        }
    }

    fn text(text: &str, borrowed: bool) -> Text {
        Text {
            text: text.into(),
            borrowed,
        }
    }

    /// Spacing, number spelling and escapes kept as written prove the value was never built. (The
    /// keys are in order: whether a printed `Value` keeps their order depends on a feature.)
    const SPACED: &str = r#"{ "a" : [1 , 2.50], "b":"\u00e9\/" }"#;
    const PRINTED: &str = r#"{"a":[1,2.5],"b":"é/"}"#;

    #[test]
    fn text_input_is_its_own_text_borrowed() {
        assert!(raw_value_token().is_some());
        assert_eq!(serde_json::from_str::<Text>(SPACED).unwrap(), text(SPACED, true));
        assert_eq!(
            serde_json::from_slice::<Text>(SPACED.as_bytes()).unwrap(),
            text(SPACED, true)
        );
        assert_eq!(
            serde_json::from_reader::<_, Text>(SPACED.as_bytes()).unwrap(),
            text(SPACED, false)
        );
        let nested: Vec<Text> = serde_json::from_str(&format!("[{SPACED} ,7]")).unwrap();
        assert_eq!(nested, [text(SPACED, true), text("7", true)]);
    }

    #[test]
    fn checked_text_is_borrowed_as_a_raw_value() {
        let raw = raw_value_unchecked(SPACED).expect("serde_json's raw-value scheme is known");
        assert_eq!(raw.get(), SPACED);
        assert_eq!(raw.get().as_ptr(), SPACED.as_ptr(), "borrowed, not copied");
        assert_eq!(serde_json::to_string(raw).unwrap(), SPACED);
    }

    #[test]
    fn a_value_is_printed() {
        let value: Value = serde_json::from_str(SPACED).unwrap();
        assert_eq!(serde_json::from_value::<Text>(value).unwrap(), text(PRINTED, false));
    }

    #[test]
    fn serde_buffered_content_is_printed() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Number(u32),
            Text(Text),
        }

        assert_eq!(
            serde_json::from_str::<Shape>(SPACED).unwrap(),
            Shape::Text(text(PRINTED, false))
        );
    }

    #[test]
    fn a_plain_map_deserializer_is_printed() {
        let map = de::value::MapDeserializer::<_, de::value::Error>::new([("a", 1), ("b", 2)].into_iter());
        assert_eq!(Text::deserialize(map).unwrap(), text(r#"{"a":1,"b":2}"#, false));
    }
}
