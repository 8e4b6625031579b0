//! The Codex family: the three ways a Codex session reaches agentwire, each a source of its
//! own over the core (`agentwire-core`) and its own generated protocol crate.
//!
//! - [`app_server`]: `codex app-server` JSON-RPC over stdio, live (sections 3.1 and 3.2 of the
//!   provider-runtime V2 proposal);
//! - [`exec`]: `codex exec --json`, the one-way stream the Codex TypeScript SDK reads (section 6);
//! - [`rollout`]: the session files Codex writes, replayed (section 3.3).
//!
//! What all three share is how Codex names files, tools and tool results (`codex_content`) and
//! its item statuses (`canonicalize`); each module's `SOURCE` is what the `agentwire` facade
//! registers.

#![warn(missing_docs)]

#[cfg(feature = "app-server")]
pub mod app_server;
#[cfg(any(feature = "app-server", feature = "exec"))]
mod canonicalize;
mod codex_content;
#[cfg(feature = "exec")]
pub mod exec;
#[cfg(feature = "rollout")]
pub mod rollout;
mod usage;
