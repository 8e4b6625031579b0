//! The GitHub Copilot CLI family, over the core (`agentwire-core`) and the generated
//! `agentwire-copilot` crate (the session events of the schema the CLI ships).
//!
//! - [`live`]: `copilot -p PROMPT --output-format json` (source `copilot`);
//! - [`session`]: the session log the CLI keeps, `~/.copilot/session-state/<id>/events.jsonl`
//!   (source `copilot-session`), replayed.
//!
//! Both are the same event model (the log without the ephemeral events, with a few of its own),
//! so one mapping reads both. `copilot --acp` is ACP and read by the ACP source.

#![warn(missing_docs)]

#[cfg(any(feature = "live", feature = "session"))]
mod normalizer;
#[cfg(any(feature = "live", feature = "session"))]
mod todos;
#[cfg(any(feature = "live", feature = "session"))]
mod tools;
#[cfg(any(feature = "live", feature = "session"))]
pub mod wire;

#[cfg(feature = "live")]
pub mod live;
#[cfg(feature = "session")]
pub mod session;

#[cfg(any(feature = "live", feature = "session"))]
pub use normalizer::{CopilotNormalizer, Log};
