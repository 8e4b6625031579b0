//! agentwire: every coding agent's protocol on one canonical event wire.
//!
//! A host reads frames from a provider (each line of a transcript, or each message of a live
//! stream), pushes them into the normalizer of that [`source::Source`] and writes out the
//! canonical events ([`agentwire_canonical::ProviderRuntimeEvent`], the JSON shape of section 1
//! of the provider-runtime V2 proposal):
//!
//! ```no_run
//! use std::io::{BufRead, Write};
//! use agentwire::frame::LineFormat;
//! use agentwire::normalizer::Options;
//! use agentwire::source::Source;
//!
//! let mut normalizer = Source::CodexAppServer.normalizer(Options::default());
//! let mut events = Vec::new();
//! let mut out = std::io::stdout().lock();
//! for line in std::io::stdin().lock().lines() {
//!     if let Err(problem) = normalizer.push_line(&line?, LineFormat::Bare, &mut events) {
//!         eprintln!("{problem}"); // reported as runtime.warning too; the stream goes on
//!     }
//!     for event in events.drain(..) {
//!         serde_json::to_writer(&mut out, &event)?;
//!         out.write_all(b"\n")?;
//!     }
//!     out.flush()?;
//! }
//! normalizer.finish(&mut events); // open turns are aborted, the session state becomes `stopped`
//! for event in events.drain(..) {
//!     serde_json::to_writer(&mut out, &event)?;
//!     out.write_all(b"\n")?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`stream::events`] does the same over a whole reader as an iterator: events as they come,
//! each problem with its line number, the normalizer finished at the end.
//!
//! Events also write themselves with [`agentwire_canonical::WriteJson`] (`event.write_json(&mut
//! buffer)`): the same bytes as `serde_json::to_writer`, faster; `agentwire normalize` uses it.
//!
//! A host that shows a `request.opened` answers it with [`normalizer::Normalizer::answer`]: a
//! canonical [`answer::Reply`] in, the provider's own reply frame out.
//!
//! The crate is a shared core ([`answer`], [`ids`], [`clock`], [`frame`], `emit`, `ledger`,
//! the line lifecycle every source's normalizer is, [`decision`], [`jsonrpc`], [`normalizer`],
//! [`secrets`], [`source`], `claude_code` and `conversation`, what both Claude sources share) that imports no source module, and one module of
//! mapping decisions per source ([`codex_app_server`], [`codex_exec`], [`codex_rollout`], [`claude`], [`claude_session`], [`acp`]) on top of it; the `catalog` module is the
//! one place that dispatches from a [`source::Source`] to its module.
//!
//! The canonical types are re-exported (`agentwire::canonical`, and at the root the ones every
//! host names), so a host names an event without depending on `agentwire-canonical` itself;
//! [`snapshot::Fold`] folds the events into the session a UI draws.

#![warn(missing_docs)]

#[cfg(feature = "acp")]
pub mod acp;
pub mod answer;
pub mod canonicalize;
mod catalog;
#[cfg(feature = "claude")]
pub mod claude;
#[cfg(any(feature = "claude", feature = "claude-session"))]
// What both Claude sources share; a build with one of them leaves the other's part unused.
#[cfg_attr(
    not(all(feature = "claude", feature = "claude-session")),
    allow(dead_code, unused_imports)
)]
pub(crate) mod claude_code;
#[cfg(feature = "claude-session")]
pub mod claude_session;
pub mod clock;
#[cfg(feature = "codex-app-server")]
pub mod codex_app_server;
#[cfg(any(feature = "codex-app-server", feature = "codex-exec", feature = "codex-rollout"))]
mod codex_content;
#[cfg(feature = "codex-exec")]
pub mod codex_exec;
#[cfg(feature = "codex-rollout")]
pub mod codex_rollout;
pub mod content;
#[cfg(any(feature = "claude", feature = "claude-session"))]
pub(crate) mod conversation;
pub mod decision;
pub mod decode;
// The core every source module builds on; a build without some sources leaves their part unused.
#[cfg_attr(
    not(all(
        feature = "codex-app-server",
        feature = "codex-exec",
        feature = "codex-rollout",
        feature = "claude",
        feature = "claude-session",
        feature = "acp"
    )),
    allow(dead_code)
)]
pub(crate) mod emit;
pub mod frame;
pub mod ids;
pub mod jsonrpc;
// As `emit`.
#[cfg_attr(
    not(all(
        feature = "codex-app-server",
        feature = "codex-exec",
        feature = "codex-rollout",
        feature = "claude",
        feature = "claude-session",
        feature = "acp"
    )),
    allow(dead_code)
)]
pub(crate) mod ledger;
mod lifecycle;
pub mod normalizer;
pub mod object_text;
// `secrets::rules` leaves two fields undocumented (`Place::End::not_after`, `KeyWord::place`).
#[allow(missing_docs)]
pub mod secrets;
pub mod snapshot;
pub mod source;
pub mod stream;
#[cfg(test)]
mod test_corpus;

/// The canonical provider-runtime event model this crate emits (`agentwire-canonical`).
pub use agentwire_canonical as canonical;
pub use agentwire_canonical::{
    ItemContent, ProviderRuntimeEvent, RuntimeEvent, SessionSnapshot, SnapshotChange, WriteJson,
};
pub use normalizer::{Normalizer, Options};
pub use source::Source;
