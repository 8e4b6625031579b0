//! JSON objects read and written as the text of their members.
//!
//! A canonical field carried as raw JSON (a session's `config`) is mostly members of a provider
//! message copied as sent. Reading the message's members as borrowed text and writing them into
//! a new object copies their bytes once, where parsing them into a `serde_json::Value` built a
//! map per object and a string per key and value, only to write them back unchanged.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use agentwire_protocol::tagged::Str;
use foldhash::fast::FixedState;
use serde::Deserializer as _;
use serde::de::{MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The members of the JSON object `json` in order, each value borrowed as its text; a key given
/// twice keeps its first place and its last value, as a `serde_json::Map` reads it. `None` when
/// `json` is not an object.
pub fn entries(json: &str) -> Option<Vec<(Cow<'_, str>, &RawValue)>> {
    serde_json::Deserializer::from_str(json)
        .deserialize_map(EntriesVisitor)
        .ok()
}

/// The member `key` of the JSON object `json`, as text (its last value if it is given twice).
fn member<'a>(json: &'a str, key: &str) -> Option<&'a RawValue> {
    serde_json::Deserializer::from_str(json)
        .deserialize_map(MemberVisitor(key))
        .ok()
        .flatten()
}

/// The member at `path` from the top of the JSON object `json` (`["params", "update"]`), as text.
pub fn at<'a>(json: &'a str, path: &[&str]) -> Option<&'a RawValue> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(member(json, first)?, |value, key| member(value.get(), key))
}

/// The member `key` among `entries` (as [`entries`] gives them).
pub fn find<'a>(entries: &[(Cow<'_, str>, &'a RawValue)], key: &str) -> Option<&'a RawValue> {
    entries.iter().find_map(|(name, value)| (name == key).then_some(*value))
}

/// A JSON object of `members`, in their order, each value copied as its text.
pub fn object<'a>(members: impl IntoIterator<Item = (&'a str, &'a RawValue)>) -> Box<RawValue> {
    /// The entries, serialized as one object.
    struct Object<'a>(Vec<(&'a str, &'a RawValue)>);

    impl serde::Serialize for Object<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (key, value) in &self.0 {
                map.serialize_entry(key, value)?;
            }
            map.end()
        }
    }

    serde_json::value::to_raw_value(&Object(members.into_iter().collect())).expect("keys and raw JSON serialize")
}

/// A `serde_json::Map` as a raw object, for the configurations built member by member.
pub fn from_map(map: &Map<String, Value>) -> Box<RawValue> {
    serde_json::value::to_raw_value(map).expect("a JSON map serializes")
}

/// How many members a repeated key is looked for among one by one; past that, an index of the
/// keys finds it, so an object with a great many members costs no more per member than a small
/// one.
const SCANNED: usize = 16;

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members: Self::Value = Vec::new();
        let mut index: HashMap<Cow<'de, str>, usize, FixedState> = HashMap::default();
        while let Some(Str(key)) = map.next_key()? {
            let value: &'de RawValue = map.next_value()?;
            if members.len() > SCANNED && index.is_empty() {
                index.extend(members.iter().enumerate().map(|(at, (name, _))| (name.clone(), at)));
            }
            let known = if index.is_empty() {
                members.iter().position(|(name, _)| *name == key)
            } else {
                index.get(&key).copied()
            };
            match known {
                Some(at) => members[at].1 = value,
                None => {
                    if !index.is_empty() {
                        index.insert(key.clone(), members.len());
                    }
                    members.push((key, value));
                }
            }
        }
        Ok(members)
    }
}

/// Finds one member, keeping the last value of its key.
struct MemberVisitor<'k>(&'k str);

impl<'de> Visitor<'de> for MemberVisitor<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(Str(key)) = map.next_key()? {
            let value: &'de RawValue = map.next_value()?;
            if key == self.0 {
                found = Some(value);
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{at, entries, find, from_map, member, object};

    /// Members come back as sent, in order; a repeated key keeps its first place and last value,
    /// and the object written from them reads back as the `Value` parse of the original.
    #[test]
    fn entries_round_trip_as_a_map_reads_them() {
        let json = r#"{"b":[1, 2.50],"a\u0041":{"x":"\u00e9"},"b":null,"c":"s"}"#;
        let found = entries(json).expect("an object");
        let keys: Vec<&str> = found.iter().map(|(key, _)| key.as_ref()).collect();
        assert_eq!(keys, ["b", "aA", "c"]);
        assert_eq!(found[1].1.get(), r#"{"x":"\u00e9"}"#);
        let rebuilt = object(found.iter().map(|(key, value)| (key.as_ref(), *value)));
        assert_eq!(rebuilt.get(), r#"{"b":null,"aA":{"x":"\u00e9"},"c":"s"}"#);
        let parsed: Value = serde_json::from_str(json).expect("JSON");
        assert_eq!(serde_json::from_str::<Value>(rebuilt.get()).expect("JSON"), parsed);
        assert_eq!(member(json, "c").map(|value| value.get()), Some(r#""s""#));
        assert_eq!(at(json, &["aA", "x"]).map(|value| value.get()), Some(r#""\u00e9""#));
        assert_eq!(find(&found, "b").map(|value| value.get()), Some("null"));
        assert!(entries("[1]").is_none() && entries("{").is_none());
        assert_eq!(object([]).get(), "{}");
    }

    /// An object with many members, some repeated, reads as a `Value` does (the index past
    /// [`super::SCANNED`] members agrees with the scan below it).
    #[test]
    fn many_members_keep_the_map_order() {
        let mut json = String::from("{");
        for at in 0..200 {
            json.push_str(&format!(r#""k{}":{at},"#, at % 70));
        }
        json.push_str(r#""last":true}"#);
        let found = entries(&json).expect("an object");
        let rebuilt = object(found.iter().map(|(key, value)| (key.as_ref(), *value)));
        assert_eq!(
            rebuilt.get(),
            serde_json::to_string(&serde_json::from_str::<Value>(&json).unwrap()).unwrap()
        );
        assert_eq!(found.len(), 71);
        assert_eq!(member(&json, "k5").map(|value| value.get()), Some("145"));
    }

    #[test]
    fn a_map_becomes_its_text() {
        let map = json!({ "z": 1, "a": [true] });
        let Value::Object(map) = map else { unreachable!() };
        assert_eq!(from_map(&map).get(), r#"{"z":1,"a":[true]}"#);
    }
}
