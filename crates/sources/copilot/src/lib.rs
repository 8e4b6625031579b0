//! The GitHub Copilot CLI family, over the core (`agentwire-core`) and the generated
//! `agentwire-copilot` crate (the session events of the schema the CLI ships).
//!
//! - [`live`]: `copilot -p PROMPT --output-format json` (source `copilot`).
//!
//! `copilot --acp` is ACP and read by the ACP source.

#![warn(missing_docs)]

#[cfg(feature = "live")]
mod normalizer;
#[cfg(feature = "live")]
mod todos;
#[cfg(feature = "live")]
mod tools;

#[cfg(feature = "live")]
pub mod live;
