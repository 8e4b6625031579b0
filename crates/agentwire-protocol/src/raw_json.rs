//! A JSON value kept as the text it arrived as.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

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
