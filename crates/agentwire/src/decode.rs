//! Payload decoding that reports where in the payload a value did not fit.

use agentwire_codex_app_server::{PayloadDecoder, PayloadError};

/// A [`PayloadDecoder`] that records the JSON path of a failure (`.thread.status.type`), so a
/// decode error names the method and the exact field.
#[derive(Clone, Copy, Debug, Default)]
pub struct PathTracking;

impl PayloadDecoder for PathTracking {
    fn decode<T: serde::de::DeserializeOwned>(&mut self, json: &str) -> Result<T, PayloadError> {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
            let path = err.path().to_string();
            PayloadError {
                path: if path == "." { String::new() } else { path },
                message: err.into_inner().to_string(),
            }
        })
    }
}
