//! A source whose program keeps many sessions in one file (a database), each read as the
//! document of one session ([`crate::document`]).
//!
//! The core opens no database: the source says how to tell its store, list the sessions in it
//! and write one session as its document ([`Store`]); a host (`agentwire import`) asks each
//! registered source whether a walked file is its store, and imports each session it lists as a
//! session of its own.

use std::path::Path;

/// How a source reads its store.
#[derive(Debug)]
pub struct Store {
    /// The extension of the store's files (`db`), without the dot: what a walk looks at.
    pub extension: &'static str,
    /// Whether the file at the path is this source's store (opened to look, never changed).
    pub opens: fn(&Path) -> bool,
    /// The sessions the store at the path holds, in the store's order; `Err` says why the store
    /// could not be read (locked, corrupt, not the expected tables).
    pub sessions: fn(&Path) -> Result<Vec<StoredSession>, String>,
    /// The document of the session `key` of the store at the path, as the source's
    /// [`crate::document::Document`] reads it.
    pub document: fn(&Path, &str) -> Result<String, String>,
}

/// One session of a store, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSession {
    /// The session's key in the store (the program's session id).
    pub key: String,
    /// When the store last changed the session, in Unix milliseconds: a session whose output is
    /// newer is up to date.
    pub updated_ms: i64,
}
