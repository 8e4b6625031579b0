//! The Gemini CLI family: Gemini CLI's headless stream and the session files it keeps, over the
//! core (`agentwire-core`) and the generated Gemini CLI crates.
//!
//! - [`stream_json`]: `gemini -p PROMPT --output-format stream-json` (source `gemini`);
//! - [`session`]: Gemini CLI's session files (`~/.gemini/tmp/<project>/chats/*.jsonl`), replayed
//!   (source `gemini-session`).
//!
//! Both name the same session and the same tool calls (the stream's `session_id` and `tool_id`
//! are the file's `sessionId` and `toolCalls[].id`), so what they share is here once: the tools,
//! what each one's item shows (`tools`).

#![warn(missing_docs)]

// What both Gemini sources share; a build with one of them leaves the other's part unused.
#[cfg_attr(
    not(all(feature = "stream-json", feature = "session")),
    allow(dead_code, unused_imports)
)]
mod tools;

#[cfg(feature = "session")]
pub mod session;
#[cfg(feature = "stream-json")]
pub mod stream_json;
