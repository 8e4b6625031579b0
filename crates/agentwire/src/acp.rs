//! ACP agents (Agent Client Protocol v1, JSON-RPC 2.0 over stdio) and Cursor's `cursor/*`
//! extensions: the typed wire. The normalizer (sections 5.1-5.4 of the provider-runtime V2
//! proposal) is not written yet, so `Source` has no ACP variant.

pub mod wire;
