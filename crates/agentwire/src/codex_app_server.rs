//! Codex app-server (JSON-RPC over stdio) -> canonical events: spec sections 3.1 and 3.2.

mod canonicalize;
mod lifecycle;
mod normalizer;
mod notifications;
mod requests;
pub mod wire;

pub use normalizer::{CodexAppServerNormalizer, PushError};
