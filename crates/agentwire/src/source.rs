//! The provider protocols agentwire reads, and how to tell them apart.

use std::str::FromStr;

use agentwire_codex_app_server::{ClientRequest, RawEnvelope, ServerNotification, ServerRequest};

use crate::frame::{Frame, LineFormat};

/// A provider protocol and the line format its traces use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `codex app-server` JSON-RPC over stdio, as `{"dir","ts","msg"}` transcript records.
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

    /// How this source's lines are framed.
    pub fn line_format(self) -> LineFormat {
        match self {
            Self::CodexAppServer => LineFormat::Transcript,
        }
    }

    /// Guesses the source from the first lines of an input: the first line that is a frame of
    /// some source and carries a method that source defines decides.
    pub fn detect<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<Source> {
        lines
            .into_iter()
            .find_map(|line| Self::ALL.iter().copied().find(|source| source.claims(line)))
    }

    fn claims(self, line: &str) -> bool {
        match self {
            Self::CodexAppServer => {
                let Ok(frame) = Frame::parse(line, LineFormat::Transcript) else {
                    return false;
                };
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
