//! A string member whose content is JSON.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A string the schema says holds JSON (`"contentMediaType": "application/json"`, such as a
/// Codex function call's `arguments`): the string as sent, and the JSON it holds, read when it is
/// decoded. A string that is not JSON (a model may write anything) decodes too, with no JSON:
/// it is the sender's text, not a malformed message. Serializes as the string.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonString {
    text: String,
    json: Option<Value>,
}

impl JsonString {
    /// The string as sent.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The JSON the string holds, if it holds JSON.
    pub fn json(&self) -> Option<&Value> {
        self.json.as_ref()
    }

    /// The JSON the string holds, or the string itself when it holds none.
    pub fn to_value(&self) -> Value {
        self.json.clone().unwrap_or_else(|| Value::String(self.text.clone()))
    }
}

impl Serialize for JsonString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JsonString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let json = serde_json::from_str(&text).ok();
        Ok(Self { text, json })
    }
}

#[cfg(test)]
mod tests {
    use super::JsonString;
    use serde_json::{Value, json};

    #[test]
    fn a_string_of_json_is_read_and_kept() {
        let arguments: JsonString = serde_json::from_str(r#""{\"cmd\": [\"ls\"]}""#).unwrap();
        assert_eq!(arguments.as_str(), r#"{"cmd": ["ls"]}"#);
        assert_eq!(arguments.json(), Some(&json!({"cmd": ["ls"]})));
        assert_eq!(serde_json::to_string(&arguments).unwrap(), r#""{\"cmd\": [\"ls\"]}""#);
    }

    #[test]
    fn a_string_of_other_text_is_kept_as_text() {
        let arguments: JsonString = serde_json::from_str(r#""not json""#).unwrap();
        assert_eq!(arguments.json(), None);
        assert_eq!(arguments.to_value(), Value::String("not json".into()));
        assert!(serde_json::from_str::<JsonString>("1").is_err());
    }
}
