//! A member a mapping both decides on and copies into an event as the provider wrote it.

use std::ops::Deref;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::raw_json::{RawJson, json_text, raw_value_unchecked};

/// A value decoded into its type `T`, with the text it was decoded from: what `as-sent.json`
/// marks `"typed": true`. The mapping reads the typed value (through `Deref`) to decide, and
/// copies [`Sent::text`] into an event: in the provider's member order, with the members a newer
/// provider adds beyond the pinned schema, which a typed re-encoding would reorder and drop.
///
/// Like [`RawJson`] it is exact only when decoded straight from JSON text; from a buffered value
/// (serde's untagged enums, `serde_json::from_value`) the text is that value printed compactly.
/// It serializes as its text. Two are equal when their text is.
#[derive(Clone, Debug)]
pub struct Sent<T> {
    value: T,
    text: RawJson,
}

impl<T> Sent<T> {
    /// `value` with the text it was decoded from.
    pub(crate) fn new(value: T, text: Box<RawValue>) -> Self {
        Self {
            value,
            text: RawJson(text),
        }
    }

    /// The decoded value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// The value's JSON text as sent.
    pub fn text(&self) -> &RawValue {
        &self.text.0
    }

    /// The value as sent, as a tree with every member the sender wrote, in its order.
    pub fn to_json(&self) -> serde_json::Value {
        self.text.to_value()
    }
}

impl<T> Deref for Sent<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> PartialEq for Sent<T> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl<T> Serialize for Sent<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Sent<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = json_text(deserializer)?;
        let value = serde_json::from_str(&text).map_err(D::Error::custom)?;
        // The text came from serde_json's reader, or was printed by serde_json: one value, no
        // white space around it.
        let raw = match raw_value_unchecked(&text) {
            Some(raw) => raw.to_owned(),
            None => RawValue::from_string(text.into_owned()).map_err(D::Error::custom)?,
        };
        Ok(Self {
            value,
            text: RawJson(raw),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Sent;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Call {
        id: String,
    }

    #[derive(Deserialize)]
    struct Message {
        call: Sent<Call>,
    }

    /// The typed value is read, and the text is kept as written: member order, spacing inside,
    /// and the members the type does not know.
    #[test]
    fn a_sent_value_is_typed_and_kept_as_written() {
        let message: Message = serde_json::from_str(r#"{"call": {"zeta": [1, 2], "id": "c1"}}"#).unwrap();
        assert_eq!(message.call.id, "c1");
        assert_eq!(message.call.text().get(), r#"{"zeta": [1, 2], "id": "c1"}"#);
        assert_eq!(
            serde_json::to_string(&message.call).unwrap(),
            r#"{"zeta": [1, 2], "id": "c1"}"#
        );
        assert_eq!(message.call.to_json()["zeta"][1], 2);
    }

    /// A value that does not match the type is an error, not a value kept untyped.
    #[test]
    fn a_value_of_another_shape_is_an_error() {
        let error = serde_json::from_str::<Message>(r#"{"call": {"name": "c1"}}"#)
            .err()
            .unwrap();
        assert!(error.to_string().contains("missing field `id`"), "{error}");
    }

    /// From a buffered value the text is the value printed compactly.
    #[test]
    fn from_a_buffered_value_the_text_is_printed() {
        let call: Sent<Call> = serde_json::from_value(serde_json::json!({"id": "c1", "n": 1})).unwrap();
        assert_eq!(call.text().get(), r#"{"id":"c1","n":1}"#);
    }
}
