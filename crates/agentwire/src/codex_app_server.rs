//! Codex app-server (JSON-RPC over stdio).

pub mod wire;
