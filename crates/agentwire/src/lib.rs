//! agentwire: every coding agent's protocol on one canonical event wire.

pub mod codex_app_server;
pub mod decode;
pub mod frame;
pub mod source;
