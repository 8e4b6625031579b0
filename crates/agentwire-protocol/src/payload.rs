//! Decoding one payload once its type is known.

use serde::de::DeserializeOwned;

use crate::tagged::TagDecodeError;

/// Decodes one payload. [`SerdeJson`] is the plain decoder; a caller that wants the JSON path of
/// a failure inside the payload passes its own (e.g. one built on `serde_path_to_error`).
pub trait PayloadDecoder {
    /// Decodes `json` into `T`.
    fn decode<T: DeserializeOwned>(&mut self, json: &str) -> Result<T, PayloadError>;
}

/// The plain [`PayloadDecoder`]: `serde_json::from_str`, no path tracking.
#[derive(Clone, Copy, Debug, Default)]
pub struct SerdeJson;

impl PayloadDecoder for SerdeJson {
    fn decode<T: DeserializeOwned>(&mut self, json: &str) -> Result<T, PayloadError> {
        serde_json::from_str(json).map_err(|error| PayloadError::new(String::new(), error.to_string()))
    }
}

/// Why a payload did not decode, and where inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadError {
    /// JSON path inside the payload (`.thread.status.type`), empty when the decoder does not track it.
    pub path: String,
    /// The decoder's message.
    pub message: String,
    /// The [`TagDecodeError::UnknownTag`] of a union nested in the payload, when a tag it does
    /// not know is why the payload failed: a newer provider, not a broken message.
    pub unknown_tag: Option<Box<TagDecodeError>>,
}

impl PayloadError {
    /// The error a decoder reports, with the nested union's unknown tag behind `message`, if
    /// one is (see [`crate::tagged::nested_error`]).
    pub fn new(path: String, message: String) -> Self {
        let unknown_tag = crate::tagged::unknown_tag_behind(&message);
        PayloadError {
            path,
            message,
            unknown_tag,
        }
    }
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at {}: {}", self.path, self.message)
        }
    }
}
