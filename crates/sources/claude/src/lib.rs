//! The Claude family: Claude Code as a live stream and as the session files it keeps, over the
//! core (`agentwire-core`) and the generated Claude crates.
//!
//! - [`stream_json`]: `claude -p --output-format stream-json` (source `claude`) and the Agent
//!   SDK <-> CLI transcript with the control protocol (source `claude-control`): sections 4.1
//!   and 4.2 of the provider-runtime V2 proposal;
//! - [`session`]: Claude Code's session files (`~/.claude/projects/...`), replayed.
//!
//! Both read the same conversation, so what they share is here once: Claude Code's tools, their
//! titles and content (`claude_code`) and the turn and item bookkeeping of a Claude
//! conversation (`conversation`).

// What both Claude sources share; a build with one of them leaves the other's part unused.
#![warn(missing_docs)]

#[cfg_attr(
    not(all(feature = "stream-json", feature = "session")),
    allow(dead_code, unused_imports)
)]
mod claude_code;
#[cfg_attr(
    not(all(feature = "stream-json", feature = "session")),
    allow(dead_code, unused_imports)
)]
mod conversation;
#[cfg(feature = "session")]
pub mod session;
#[cfg(feature = "stream-json")]
pub mod stream_json;
#[cfg_attr(
    not(all(feature = "stream-json", feature = "session")),
    allow(dead_code, unused_imports)
)]
mod usage;
