//! agentwire: every coding agent's protocol on one canonical event wire.
//!
//! A host reads frames from a provider (each line of a transcript, or each message of a live
//! stream), pushes them into the normalizer of that source and writes out the canonical events
//! ([`agentwire_canonical::ProviderRuntimeEvent`], the JSON shape of spec section 1):
//!
//! ```no_run
//! use std::io::{BufRead, Write};
//! use agentwire::codex_app_server::CodexAppServerNormalizer;
//! use agentwire::frame::LineFormat;
//! use agentwire::normalizer::{Normalizer, Options};
//!
//! let mut normalizer = CodexAppServerNormalizer::new(Options::default());
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
//! normalizer.finish(&mut events); // a turn the provider never completed gets turn.aborted
//! for event in events.drain(..) {
//!     serde_json::to_writer(&mut out, &event)?;
//!     out.write_all(b"\n")?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod canonicalize;
mod catalog;
pub mod clock;
pub mod codex_app_server;
pub mod decision;
pub mod decode;
pub mod emit;
pub mod frame;
pub mod ids;
pub mod ledger;
pub mod normalizer;
pub mod source;
