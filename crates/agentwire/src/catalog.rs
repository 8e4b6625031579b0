//! What each [`Source`] does: its normalizer, its conform decoder, its format detection and the
//! upstream version it is pinned to. The one place that names every source module; hosts go
//! through it and name no provider's types.

#[cfg(feature = "acp")]
use crate::acp;
#[cfg(feature = "claude")]
use crate::claude;
#[cfg(feature = "claude-session")]
use crate::claude_session;
#[cfg(feature = "codex-app-server")]
use crate::codex_app_server;
#[cfg(feature = "codex-exec")]
use crate::codex_exec;
#[cfg(feature = "codex-rollout")]
use crate::codex_rollout;
#[cfg(any(
    feature = "claude",
    feature = "claude-session",
    feature = "codex-exec",
    feature = "codex-rollout"
))]
use crate::decode::Strict;
use crate::frame::{Frame, LineFormat};
use crate::lifecycle::Lifecycle;
use crate::normalizer::{Conformer, Normalizer, Options};
use crate::source::Source;

impl Source {
    /// A normalizer for one stream of this source. It is `Send` ([`Normalizer`]'s supertrait), so
    /// a host may keep it on whichever thread serves the stream.
    pub fn normalizer(self, options: Options) -> Box<dyn Normalizer> {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => Box::new(Lifecycle::new(codex_app_server::CodexAppServerNormalizer::new(options))),
            #[cfg(feature = "claude")]
            Self::Claude | Self::ClaudeControl => {
                Box::new(Lifecycle::new(claude::ClaudeNormalizer::new(self, options)))
            }
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => Box::new(Lifecycle::new(codex_exec::CodexExecNormalizer::new(options))),
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => Box::new(Lifecycle::new(codex_rollout::CodexRolloutNormalizer::new(options))),
            #[cfg(feature = "acp")]
            Self::Acp | Self::Cursor => Box::new(Lifecycle::new(acp::AcpNormalizer::new(self, options))),
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => Box::new(Lifecycle::new(claude_session::ClaudeSessionNormalizer::new(options))),
        }
    }

    /// A strict decoder for `agentwire conform`.
    pub fn conformer(self) -> Box<dyn Conformer> {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => Box::new(codex_app_server::wire::Decoder::default()),
            #[cfg(feature = "claude")]
            Self::Claude | Self::ClaudeControl => Box::new(Strict(claude::wire::decode)),
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => Box::new(Strict(codex_exec::wire::decode)),
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => Box::new(Strict(codex_rollout::wire::decode_line)),
            #[cfg(feature = "acp")]
            Self::Acp | Self::Cursor => Box::new(acp::wire::Decoder::default()),
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => Box::new(Strict(claude_session::wire::decode)),
        }
    }

    /// The program and version the source's generated types are pinned to (`--version`).
    pub fn upstream(self) -> String {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => codex_app_server::upstream(),
            #[cfg(feature = "claude")]
            Self::Claude | Self::ClaudeControl => claude::upstream(),
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => codex_exec::upstream(),
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => codex_rollout::upstream(),
            #[cfg(feature = "acp")]
            Self::Acp | Self::Cursor => acp::upstream(),
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => claude_session::upstream(),
        }
    }

    /// Whether a frame is a message this source defines (for format detection).
    pub fn claims(self, frame: &Frame<'_>) -> bool {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => codex_app_server::claims(frame),
            #[cfg(feature = "claude")]
            Self::Claude => claude::claims(frame, LineFormat::Bare),
            #[cfg(feature = "claude")]
            Self::ClaudeControl => claude::claims(frame, LineFormat::Transcript),
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => codex_exec::claims(frame),
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => codex_rollout::claims(frame),
            #[cfg(feature = "acp")]
            Self::Acp | Self::Cursor => acp::claims(frame, self),
            #[cfg(feature = "claude-session")]
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
