//! Decoding one payload once its type is known.

use serde::de::DeserializeOwned;

use crate::decode_error::PayloadError;

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
