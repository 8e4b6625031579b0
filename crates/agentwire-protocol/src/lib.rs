//! The runtime the generated protocol crates (`agentwire-codex-app-server`, ...) share, written
//! once by hand instead of pasted into each of them.
//!
//! Every dispatch union the generator emits decodes envelope-first: the routing fields are read
//! while the payload stays raw JSON, then only the type the routing names is decoded, through a
//! [`PayloadDecoder`] the caller chooses. Two envelope styles exist:
//!
//! - [`jsonrpc`]: `method`/`id`/`params` messages, read into a [`RawEnvelope`];
//! - [`tagged`]: objects whose kind is a string field (`type`, then `subtype` nested inside it).
//!
//! [`scan`] is the one JSON lexer: where a string, number or literal ends, as serde_json reads it.
//!
//! [`RawJson`] carries a field byte for byte, for schemas that mark a property as raw JSON, and
//! [`Sent`] a field decoded into its type together with its text; [`JsonString`] a string that
//! holds JSON;
//! [`json_text`] gives a type that decodes from text the text of the value it is asked to decode.

mod decode_error;
mod json_string;
pub mod jsonrpc;
mod payload;
mod raw_json;
pub mod scan;
mod sent;
pub mod tagged;

pub use decode_error::{PayloadError, TagDecodeError};
pub use json_string::JsonString;
pub use jsonrpc::{DecodeError, ErrorObject, MessageKind, RawEnvelope, RequestId};
pub use payload::{PayloadDecoder, SerdeJson};
pub use raw_json::{RawJson, json_text, raw_value_unchecked};
pub use sent::Sent;
