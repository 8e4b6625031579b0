//! The one list of the provider protocols agentwire reads.
//!
//! This module holds what a source *is* (its name, provider, id scope); what each source *does*
//! (its normalizer, its conform decoder, its format detection) is in [`crate::catalog`], next to
//! the source modules it dispatches to. Adding a source adds a variant here, its arms there, and
//! its own module: no host code (the CLI included) names a provider's types.

use std::str::FromStr;

use agentwire_canonical::ProviderKind;

/// A provider protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// `codex app-server` JSON-RPC over stdio: `{"dir","ts","msg"}` transcript records, or the
    /// server's stdout as is.
    CodexAppServer,
    /// Claude Code stream-json: the bare lines `claude -p --output-format stream-json --verbose`
    /// prints (the messages the Agent SDK's `query()` yields).
    Claude,
    /// The Claude Agent SDK <-> CLI stdio as `{"dir","ts","msg"}` transcript records: the
    /// stream-json messages plus the control protocol (`can_use_tool` and the client's answers).
    ClaudeControl,
    /// `codex exec --json` stdout: one `ThreadEvent` per line, the stream the Codex TypeScript
    /// SDK reads.
    CodexExec,
    /// Codex session rollout files (`$CODEX_HOME/sessions/**/rollout-*.jsonl`): one
    /// `{"timestamp","type","payload"}` line each, replayed into the session they record.
    CodexRollout,
    /// An ACP agent (Agent Client Protocol v1, JSON-RPC over stdio: Zed's Claude adapter,
    /// `gemini --acp`, ...) as `{"dir","ts","msg"}` transcript records of its stdio.
    Acp,
    /// Cursor's `agent acp`: ACP plus Cursor's `cursor/*` extension requests, as transcript
    /// records.
    Cursor,
    /// Claude Code session files (`~/.claude/projects/<project>/<session id>.jsonl`): one
    /// record per line, replayed into the session they record.
    ClaudeSession,
}

impl Source {
    /// Every source, in the order format detection tries them.
    pub const ALL: &'static [Source] = &[
        Source::CodexAppServer,
        Source::CodexExec,
        Source::CodexRollout,
        // Before `Claude`: a session file's `user` and `assistant` records share their `type`
        // with stream-json messages.
        Source::ClaudeSession,
        Source::Claude,
        Source::ClaudeControl,
        Source::Acp,
        Source::Cursor,
    ];

    /// The name used on the command line (`--from`).
    pub fn name(self) -> &'static str {
        match self {
            Self::CodexAppServer => "codex-app-server",
            Self::Claude => "claude",
            Self::ClaudeControl => "claude-control",
            Self::CodexExec => "codex-exec",
            Self::CodexRollout => "codex-rollout",
            Self::Acp => "acp",
            Self::Cursor => "cursor",
            Self::ClaudeSession => "claude-session",
        }
    }

    /// The program a person knows the source as, for messages.
    pub fn program(self) -> &'static str {
        match self {
            Self::CodexAppServer => "codex app-server",
            Self::Claude => "claude -p --output-format stream-json",
            Self::ClaudeControl => "the Claude Agent SDK's claude process",
            Self::CodexExec => "codex exec",
            Self::CodexRollout => "codex",
            Self::Acp => "the ACP agent",
            Self::Cursor => "Cursor's agent acp",
            Self::ClaudeSession => "Claude Code (its session file)",
        }
    }

    /// The `provider` of the events this source yields unless the host says otherwise.
    pub fn provider_kind(self) -> ProviderKind {
        match self {
            Self::CodexAppServer | Self::CodexExec | Self::CodexRollout => ProviderKind::Codex,
            Self::Claude | Self::ClaudeControl | Self::ClaudeSession => ProviderKind::ClaudeAgent,
            Self::Acp => ProviderKind::Acp,
            Self::Cursor => ProviderKind::Cursor,
        }
    }

    /// The scope of the canonical ids derived from this source's provider ids: sources reading
    /// the same provider share it (see [`crate::ids`]).
    pub fn id_scope(self) -> &'static str {
        match self {
            Self::CodexAppServer | Self::CodexExec | Self::CodexRollout => "codex",
            Self::Claude | Self::ClaudeControl | Self::ClaudeSession => "claude",
            Self::Acp | Self::Cursor => "acp",
        }
    }

    /// The names of every source, for "known: ..." messages.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|source| source.name()).collect()
    }
}

/// `name not found; known: a, b, c`: the one wording of every lookup by name that failed.
pub fn unknown_name(what: &str, name: &str, known: &[&str]) -> String {
    format!("unknown {what} {name:?}; known: {}", known.join(", "))
}

impl FromStr for Source {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .copied()
            .find(|source| source.name() == name)
            .ok_or_else(|| unknown_name("format", name, &Self::names()))
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
