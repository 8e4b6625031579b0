//! OpenCode: the server `opencode serve` runs, read from a transcript of its event stream and
//! the client's HTTP calls (`{"dir","ts","msg"}` records: `in` one event, `out` one request with
//! its answer).
//!
//! [`wire`] reads each record into the types generated from the server's own OpenAPI document
//! (`agentwire-opencode`), whichever of its three event streams sent it.

pub mod wire;
