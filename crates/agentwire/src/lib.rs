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
//! let mut normalizer = Source::CODEX_APP_SERVER.normalizer(Options::default());
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
//! ```no_run
//! use agentwire::normalizer::Options;
//! use agentwire::source::Source;
//! use agentwire::stream::{self, StreamError};
//!
//! let file = std::io::BufReader::new(std::fs::File::open("trace.jsonl")?);
//! for item in stream::events(file, Source::CODEX_APP_SERVER.normalizer(Options::default())) {
//!     match item {
//!         Ok(event) => println!("{}", serde_json::to_string(&event)?),
//!         // Its `runtime.warning` came first; the stream goes on.
//!         Err(StreamError::Line { line, problem }) => eprintln!("trace.jsonl:{line}: {problem}"),
//!         Err(err @ StreamError::Read { .. }) => return Err(err.into()),
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Events also write themselves with [`agentwire_canonical::WriteJson`] (`event.write_json(&mut
//! buffer)`): the same bytes as `serde_json::to_writer`, faster; `agentwire normalize` uses it.
//!
//! A host that shows a `request.opened` answers it with [`normalizer::Normalizer::answer`]: a
//! canonical [`answer::Reply`] in, the provider's own reply frame out.
//!
//! This crate is the facade a host depends on. Under it, `agentwire-core` holds what every
//! source shares (the line lifecycle, the ledger, ids, clock, secrets, the event iterator, the
//! snapshot fold) and names no provider; one crate per family maps its sources on top of it
//! (`agentwire-source-<family>`, re-exported as `agentwire::<family>`), each behind this crate's
//! cargo features. [`source`] is the one registry of those sources, written from
//! `schemas/sources.toml`.
//!
//! The canonical types are re-exported (`agentwire::canonical`, and at the root the ones every
//! host names), so a host names an event without depending on `agentwire-canonical` itself;
//! [`snapshot::Fold`] folds the events into the session a UI draws.

#![warn(missing_docs)]

pub mod source;

pub use agentwire_core::{
    answer, clock, companions, content, decision, document, frame, ids, normalizer, secrets, snapshot, store, stream,
    usage,
};

// @generated from schemas/sources.toml by `cargo xtask codegen` (begin re-exports)
/// The Codex sources' own API (their normalizers, decoders and the types they name).
#[cfg(any(feature = "codex-app-server", feature = "codex-exec", feature = "codex-rollout"))]
pub use agentwire_source_codex as codex;

/// The Claude sources' own API (the control protocol's permission answers among it).
#[cfg(any(feature = "claude", feature = "claude-session"))]
pub use agentwire_source_claude as claude;

/// The ACP and Cursor sources' own API.
#[cfg(feature = "acp")]
pub use agentwire_source_acp as acp;

/// The Gemini CLI sources' own API.
#[cfg(any(feature = "gemini", feature = "gemini-session"))]
pub use agentwire_source_gemini as gemini;

/// The GitHub Copilot CLI sources' own API.
#[cfg(any(feature = "copilot", feature = "copilot-session"))]
pub use agentwire_source_copilot as copilot;

/// The OpenCode sources' own API.
#[cfg(any(feature = "opencode", feature = "opencode-run", feature = "opencode-session"))]
pub use agentwire_source_opencode as opencode;

/// The Pi coding agent sources' own API.
#[cfg(feature = "pi")]
pub use agentwire_source_pi as pi;
// (end re-exports)

/// The canonical provider-runtime event model this crate emits (`agentwire-canonical`).
pub use agentwire_canonical as canonical;
pub use agentwire_canonical::{
    ItemContent, ProviderRuntimeEvent, RuntimeEvent, SessionSnapshot, SnapshotChange, WriteJson,
};
pub use normalizer::{Normalizer, Options};
pub use source::Source;
