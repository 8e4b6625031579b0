//! The provider protocols agentwire reads, and how to tell them apart.

use std::str::FromStr;

use agentwire_codex_app_server::{ClientRequest, RawEnvelope, ServerNotification, ServerRequest};

use crate::frame::{Frame, LineFormat};

/// A provider protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `codex app-server` JSON-RPC over stdio: `{"dir","ts","msg"}` transcript records, or the
    /// server's stdout as is.
    CodexAppServer,
}

impl Source {
    /// Every source, in the order detection tries them.
    pub const ALL: &'static [Source] = &[Source::CodexAppServer];

    /// The name used on the command line (`--from`).
    pub fn name(self) -> &'static str {
        match self {
            Self::CodexAppServer => "codex-app-server",
        }
    }

    /// Guesses the source and line format from the first lines of an input: the first line
    /// that is a frame of some source (a transcript record, else a bare message) and carries a
    /// method that source defines decides.
    pub fn detect<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<(Source, LineFormat)> {
        lines.into_iter().find_map(|line| {
            let format = Self::line_format_of(line);
            let frame = Frame::parse(line, format).ok()?;
            Self::ALL
                .iter()
                .copied()
                .find(|source| source.claims(&frame))
                .map(|source| (source, format))
        })
    }

    /// The line format of an input, from its first line: transcript records, or bare messages
    /// as the program prints them (`codex app-server | agentwire normalize`).
    pub fn line_format_of(line: &str) -> LineFormat {
        if Frame::parse(line, LineFormat::Transcript).is_ok() {
            LineFormat::Transcript
        } else {
            LineFormat::Bare
        }
    }

    fn claims(self, frame: &Frame<'_>) -> bool {
        match self {
            Self::CodexAppServer => {
                let Ok(envelope) = serde_json::from_str::<RawEnvelope>(frame.msg.get()) else {
                    return false;
                };
                envelope.method.as_deref().is_some_and(|method| {
                    ServerNotification::METHODS.contains(&method)
                        || ServerRequest::METHODS.contains(&method)
                        || ClientRequest::METHODS.contains(&method)
                })
            }
        }
    }
}

impl FromStr for Source {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .copied()
            .find(|source| source.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Self::ALL.iter().map(|source| source.name()).collect();
                format!("unknown format {name:?}; known: {}", known.join(", "))
            })
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
