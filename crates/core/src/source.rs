//! What a source is, as the core sees it: one [`SourceSpec`] a source crate declares and the
//! `agentwire` facade registers.
//!
//! The core names no source. Each source crate describes each of its sources once, in a
//! `static` of this type: its name, the program a person knows, the provider and id scope of
//! its events, and the functions that build its normalizer and conformer, recognize its frames
//! and name its pinned upstream version. Everything that lists sources (the CLI's `--from`,
//! format detection, `import`, `--version`, the test harness) reads those descriptions through
//! the facade's one registry.

use std::path::{Path, PathBuf};

use agentwire_canonical::ProviderKind;

use crate::companions::Companions;
use crate::document::Document;
use crate::frame::Frame;
use crate::normalizer::{Conformer, Normalizer, Options};
use crate::store::Store;

/// One provider protocol, described once by the crate that maps it.
#[derive(Debug)]
pub struct SourceSpec {
    /// The name used on the command line (`--from`) and as the corpus folder of its traces.
    pub name: &'static str,
    /// The program a person knows the source as, for messages.
    pub program: &'static str,
    /// The `provider` of the events this source yields unless the host says otherwise.
    pub provider: ProviderKind,
    /// The scope of the canonical ids derived from this source's provider ids: sources reading
    /// the same provider share it (see [`crate::ids`]).
    pub id_scope: &'static str,
    /// A normalizer for one stream of this source.
    pub normalizer: fn(Options) -> Box<dyn Normalizer>,
    /// A strict decoder for `agentwire conform`.
    pub conformer: fn() -> Box<dyn Conformer>,
    /// Whether a frame is a message this source defines (for format detection).
    pub claims: fn(&Frame<'_>) -> bool,
    /// The program and version the source's generated types are pinned to (`--version`).
    pub upstream: fn() -> String,
    /// How its recordings lie on disk: [`Files::LINES`] for most.
    pub files: Files,
}

/// How a source's recordings lie on disk, where that is more than one message per line, each
/// file a recording of its own.
#[derive(Debug)]
pub struct Files {
    /// The files beside a session file that belong to it (a subagent's transcript), read with
    /// it; `None` for a source whose recordings stand alone.
    pub companions: Option<Companions>,
    /// How a file that is one JSON document (not one message per line) falls into frames;
    /// `None` for a source whose files are read line by line.
    pub document: Option<Document>,
    /// How the program's store of many sessions (a database) is read, each session as a
    /// [`Files::document`]; `None` for a source with no such store.
    pub store: Option<Store>,
}

impl Files {
    /// One message per line, each file a recording of its own.
    pub const LINES: Files = Files {
        companions: None,
        document: None,
        store: None,
    };

    /// A session file, read with the files beside it that belong to it: `of` lists them,
    /// `belongs` tells one ([`Companions`]).
    pub const fn with_companions(of: fn(&Path) -> Vec<PathBuf>, belongs: fn(&Path) -> bool) -> Files {
        Files {
            companions: Some(Companions { of, belongs }),
            ..Files::LINES
        }
    }
}

/// Specs are `static`s, one per source, with unique names: compared by name.
impl PartialEq for SourceSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for SourceSpec {}

/// `name not found; known: a, b, c`: the one wording of every lookup by name that failed.
pub fn unknown_name(what: &str, name: &str, known: &[&str]) -> String {
    format!("unknown {what} {name:?}; known: {}", known.join(", "))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::SourceSpec;
    use agentwire_canonical::ProviderKind;

    /// A source the core's own tests stand in for a provider with: the id scope of Codex's.
    pub static CODEX: SourceSpec = SourceSpec {
        name: "test",
        program: "the test program",
        provider: ProviderKind::Codex,
        id_scope: "codex",
        normalizer: |_| unimplemented!("the core's tests build no normalizer"),
        conformer: || unimplemented!("the core's tests build no conformer"),
        claims: |_| false,
        upstream: String::new,
        files: super::Files::LINES,
    };
}
