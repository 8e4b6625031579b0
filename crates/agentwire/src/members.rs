//! JSON objects assembled from members carried as text.
//!
//! A canonical field carried as raw JSON (a session's `config`) is mostly members of a provider
//! message copied as sent. Reading the message's members as borrowed text and writing them into
//! a new object copies their bytes once, where parsing them into a `serde_json::Value` built a
//! map per object and a string per key and value, only to write them back unchanged.

use std::borrow::Cow;
use std::fmt;

use agentwire_protocol::tagged::Str;
use serde::Deserializer as _;
use serde::de::{MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The members of the JSON object `json` in order, each value borrowed as its text; a key given
/// twice keeps its first place and its last value, as a `serde_json::Map` reads it. `None` when
/// `json` is not an object.
pub fn members(json: &str) -> Option<Vec<(Cow<'_, str>, &RawValue)>> {
    serde_json::Deserializer::from_str(json)
        .deserialize_map(MembersVisitor)
        .ok()
}

/// The member `key` of the JSON object `json`, as text.
pub fn member<'a>(json: &'a str, key: &str) -> Option<&'a RawValue> {
    members(json)?
        .into_iter()
        .find_map(|(name, value)| (name == key).then_some(value))
}

/// A JSON object of `members`, in their order, each value copied as its text.
pub fn object<'a>(members: impl IntoIterator<Item = (&'a str, &'a RawValue)>) -> Box<RawValue> {
    struct Members<'a>(Vec<(&'a str, &'a RawValue)>);

    impl serde::Serialize for Members<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (key, value) in &self.0 {
                map.serialize_entry(key, value)?;
            }
            map.end()
        }
    }

    serde_json::value::to_raw_value(&Members(members.into_iter().collect())).expect("keys and raw JSON serialize")
}

/// A `serde_json::Map` as a raw object, for the configurations built member by member.
pub fn from_map(map: &Map<String, Value>) -> Box<RawValue> {
    serde_json::value::to_raw_value(map).expect("a JSON map serializes")
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members: Self::Value = Vec::new();
        while let Some(Str(key)) = map.next_key()? {
            let value: &'de RawValue = map.next_value()?;
            match members.iter_mut().find(|(name, _)| *name == key) {
                Some(member) => member.1 = value,
                None => members.push((key, value)),
            }
        }
        Ok(members)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{from_map, member, members, object};

    /// Members come back as sent, in order; a repeated key keeps its first place and last value,
    /// and the object written from them reads back as the `Value` parse of the original.
    #[test]
    fn members_round_trip_as_a_map_reads_them() {
        let json = r#"{"b":[1, 2.50],"a\u0041":{"x":"\u00e9"},"b":null,"c":"s"}"#;
        let found = members(json).expect("an object");
        let keys: Vec<&str> = found.iter().map(|(key, _)| key.as_ref()).collect();
        assert_eq!(keys, ["b", "aA", "c"]);
        assert_eq!(found[1].1.get(), r#"{"x":"\u00e9"}"#);
        let rebuilt = object(found.iter().map(|(key, value)| (key.as_ref(), *value)));
        assert_eq!(rebuilt.get(), r#"{"b":null,"aA":{"x":"\u00e9"},"c":"s"}"#);
        let parsed: Value = serde_json::from_str(json).expect("JSON");
        assert_eq!(serde_json::from_str::<Value>(rebuilt.get()).expect("JSON"), parsed);
        assert_eq!(member(json, "c").map(|value| value.get()), Some(r#""s""#));
        assert!(members("[1]").is_none() && members("{").is_none());
        assert_eq!(object([]).get(), "{}");
    }

    #[test]
    fn a_map_becomes_its_text() {
        let map = json!({ "z": 1, "a": [true] });
        let Value::Object(map) = map else { unreachable!() };
        assert_eq!(from_map(&map).get(), r#"{"z":1,"a":[true]}"#);
    }
}
