//! The core of agentwire: everything a source's mapping builds on, naming no provider.
//!
//! A source crate (`agentwire-source-codex`, `-claude`, `-acp`) depends on this crate and on its
//! own generated protocol crates only, and declares each of its sources as a
//! [`source::SourceSpec`]; the `agentwire` facade registers them and is what a host depends on.
//! Cargo keeps the boundaries: this crate cannot reach a source, and a source cannot reach
//! another.
//!
//! What the core holds, by the path a line takes:
//! - [`frame`]: a line read as a transcript record or a bare message;
//! - [`lifecycle`]: the one [`normalizer::Normalizer`] every source is, around the source's
//!   [`lifecycle::Mapping`] (decode, map, report what did not fit);
//! - [`ledger`]: the open session, threads, turns, items and requests, and the events that open
//!   and settle them; [`emit`] stamps each event with its ids, time, provider refs and `raw`;
//! - [`ids`] (canonical ids derived from provider ids), [`clock`] (`createdAt`), [`secrets`]
//!   (credentials redacted from `raw` and payloads);
//! - [`content`]: the typed item content every source builds; [`decision`] and [`answer`]: the
//!   way back from a canonical decision to a provider reply; [`jsonrpc`]: request/response
//!   pairing for the JSON-RPC sources;
//! - [`stream`]: the event iterator over a reader; [`snapshot`]: the fold of events into the
//!   session a UI draws.

#![warn(missing_docs)]

pub mod answer;
pub mod clock;
pub mod companions;
pub mod content;
pub mod conversation;
pub mod decision;
pub mod decode;
pub mod document;
pub mod emit;
pub mod frame;
pub mod ids;
pub mod jsonrpc;
pub mod ledger;
pub mod lifecycle;
pub mod normalizer;
pub mod object_text;
pub mod secrets;
pub mod snapshot;
pub mod source;
pub mod store;
pub mod stream;
#[cfg(test)]
mod test_corpus;
pub mod usage;
