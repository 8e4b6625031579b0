//! The Pi coding agent family: its json mode and its RPC mode, over the core
//! (`agentwire-core`) and the generated crate `agentwire-pi`.
//!
//! - [`json`]: `pi -p PROMPT --mode json` stdout (source `pi`);
//! - [`rpc`]: `pi --mode rpc`, the commands a client writes and what Pi prints (source `pi-rpc`);
//! - [`session`]: Pi's session files (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`),
//!   replayed (source `pi-session`).
//!
//! Both print the same session events, so one normalizer ([`PiNormalizer`]) maps them: a
//! prompt's run (`agent_start` to `agent_settled`) is a canonical turn, each model call's text,
//! thinking and tool calls are items, and each tool's execution completes its call's item. A
//! session file holds the same messages whole, and its normalizer draws them with the same
//! tools ([`tools`]) and usage.

#![warn(missing_docs)]

pub mod json;
mod normalizer;
pub mod rpc;
pub mod session;
mod tools;
mod usage;
pub mod wire;

pub use normalizer::PiNormalizer;
