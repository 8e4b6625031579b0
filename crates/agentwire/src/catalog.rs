//! What each [`Source`] does: its normalizer, its conform decoder, its format detection and the
//! upstream version it is pinned to. The one place that names every source module; hosts go
//! through it and name no provider's types.

use crate::frame::{Frame, LineFormat};
use crate::lifecycle::Lifecycle;
use crate::normalizer::{Conformer, Normalizer, Options};
use crate::source::Source;
use crate::{acp, claude, claude_session, codex_app_server, codex_exec, codex_rollout};

impl Source {
    /// A normalizer for one stream of this source. It is `Send`, so a host may keep it on
    /// whichever thread serves the stream (a Node addon's object, an async task).
    pub fn normalizer(self, options: Options) -> Box<dyn Normalizer + Send> {
        match self {
            Self::CodexAppServer => Box::new(Lifecycle::new(codex_app_server::CodexAppServerNormalizer::new(options))),
            Self::Claude | Self::ClaudeControl => {
                Box::new(Lifecycle::new(claude::ClaudeNormalizer::new(self, options)))
            }
            Self::CodexExec => Box::new(Lifecycle::new(codex_exec::CodexExecNormalizer::new(options))),
            Self::CodexRollout => Box::new(Lifecycle::new(codex_rollout::CodexRolloutNormalizer::new(options))),
            Self::Acp | Self::Cursor => Box::new(Lifecycle::new(acp::AcpNormalizer::new(self, options))),
            Self::ClaudeSession => Box::new(Lifecycle::new(claude_session::ClaudeSessionNormalizer::new(options))),
        }
    }

    /// A strict decoder for `agentwire conform`.
    pub fn conformer(self) -> Box<dyn Conformer> {
        match self {
            Self::CodexAppServer => Box::new(codex_app_server::wire::Decoder::default()),
            Self::Claude | Self::ClaudeControl => Box::new(claude::wire::Decoder),
            Self::CodexExec => Box::new(codex_exec::wire::Decoder),
            Self::CodexRollout => Box::new(codex_rollout::wire::Decoder),
            Self::Acp | Self::Cursor => Box::new(acp::wire::Decoder::default()),
            Self::ClaudeSession => Box::new(claude_session::wire::Decoder),
        }
    }

    /// The program and version the source's generated types are pinned to (`--version`).
    pub fn upstream(self) -> String {
        match self {
            Self::CodexAppServer => codex_app_server::upstream(),
            Self::Claude | Self::ClaudeControl => claude::upstream(),
            Self::CodexExec => codex_exec::upstream(),
            Self::CodexRollout => codex_rollout::upstream(),
            Self::Acp | Self::Cursor => acp::upstream(),
            Self::ClaudeSession => claude_session::upstream(),
        }
    }

    /// Whether a frame is a message this source defines (for format detection).
    pub fn claims(self, frame: &Frame<'_>) -> bool {
        match self {
            Self::CodexAppServer => codex_app_server::claims(frame),
            Self::Claude => claude::claims(frame, LineFormat::Bare),
            Self::ClaudeControl => claude::claims(frame, LineFormat::Transcript),
            Self::CodexExec => codex_exec::claims(frame),
            Self::CodexRollout => codex_rollout::claims(frame),
            Self::Acp | Self::Cursor => acp::claims(frame, self),
            Self::ClaudeSession => claude_session::claims(frame),
        }
    }

    /// Guesses the source and line format from the first lines of an input: the first line
    /// that is a frame of some source (a transcript record, else a bare message) and carries a
    /// message that source defines decides.
    pub fn detect<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<(Source, LineFormat)> {
        lines.into_iter().find_map(|line| {
            let format = LineFormat::of(line);
            let frame = Frame::parse(line, format).ok()?;
            Self::ALL
                .iter()
                .copied()
                .find(|source| source.claims(&frame))
                .map(|source| (source, format))
        })
    }
}
