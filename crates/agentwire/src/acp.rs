//! ACP agents (Agent Client Protocol v1, JSON-RPC 2.0 over stdio) and Cursor's `cursor/*`
//! extensions: the typed wire. The normalizer (spec 5.1-5.4) is not written yet; see the
//! branch report of issue 9.

pub mod wire;
