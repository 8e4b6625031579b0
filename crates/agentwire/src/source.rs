//! The one list of the provider protocols agentwire reads.
//!
//! This module holds what a source *is* (its name, provider, id scope); what each source *does*
//! (its normalizer, its conform decoder, its format detection) is in `catalog`, next to
//! the source modules it dispatches to. Adding a source adds a variant here, its arms there, and
//! its own module: no host code (the CLI included) names a provider's types.

use std::str::FromStr;

use agentwire_canonical::ProviderKind;

/// A provider protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// `codex app-server` JSON-RPC over stdio: `{"dir","ts","msg"}` transcript records, or the
    /// server's stdout as is.
    #[cfg(feature = "codex-app-server")]
    CodexAppServer,
    /// Claude Code stream-json: the bare lines `claude -p --output-format stream-json --verbose`
    /// prints (the messages the Agent SDK's `query()` yields).
    #[cfg(feature = "claude")]
    Claude,
    /// The Claude Agent SDK <-> CLI stdio as `{"dir","ts","msg"}` transcript records: the
    /// stream-json messages plus the control protocol (`can_use_tool` and the client's answers).
    #[cfg(feature = "claude")]
    ClaudeControl,
    /// `codex exec --json` stdout: one `ThreadEvent` per line, the stream the Codex TypeScript
    /// SDK reads.
    #[cfg(feature = "codex-exec")]
    CodexExec,
    /// Codex session rollout files (`$CODEX_HOME/sessions/**/rollout-*.jsonl`): one
    /// `{"timestamp","type","payload"}` line each, replayed into the session they record.
    #[cfg(feature = "codex-rollout")]
    CodexRollout,
    /// An ACP agent (Agent Client Protocol v1, JSON-RPC over stdio: Zed's Claude adapter,
    /// `gemini --acp`, ...) as `{"dir","ts","msg"}` transcript records of its stdio.
    #[cfg(feature = "acp")]
    Acp,
    /// Cursor's `agent acp`: ACP plus Cursor's `cursor/*` extension requests, as transcript
    /// records.
    #[cfg(feature = "acp")]
    Cursor,
    /// Claude Code session files (`~/.claude/projects/<project>/<session id>.jsonl`): one
    /// record per line, replayed into the session they record.
    #[cfg(feature = "claude-session")]
    ClaudeSession,
}

impl Source {
    /// Every source, in the order format detection tries them.
    pub const ALL: &'static [Source] = &[
        #[cfg(feature = "codex-app-server")]
        Source::CodexAppServer,
        #[cfg(feature = "codex-exec")]
        Source::CodexExec,
        #[cfg(feature = "codex-rollout")]
        Source::CodexRollout,
        // Before `Claude`: a session file's `user` and `assistant` records share their `type`
        // with stream-json messages.
        #[cfg(feature = "claude-session")]
        Source::ClaudeSession,
        #[cfg(feature = "claude")]
        Source::Claude,
        #[cfg(feature = "claude")]
        Source::ClaudeControl,
        #[cfg(feature = "acp")]
        Source::Acp,
        #[cfg(feature = "acp")]
        Source::Cursor,
    ];

    /// The name used on the command line (`--from`).
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => "codex-app-server",
            #[cfg(feature = "claude")]
            Self::Claude => "claude",
            #[cfg(feature = "claude")]
            Self::ClaudeControl => "claude-control",
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => "codex-exec",
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => "codex-rollout",
            #[cfg(feature = "acp")]
            Self::Acp => "acp",
            #[cfg(feature = "acp")]
            Self::Cursor => "cursor",
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => "claude-session",
        }
    }

    /// The program a person knows the source as, for messages.
    pub fn program(self) -> &'static str {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => "codex app-server",
            #[cfg(feature = "claude")]
            Self::Claude => "claude -p --output-format stream-json",
            #[cfg(feature = "claude")]
            Self::ClaudeControl => "the Claude Agent SDK's claude process",
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => "codex exec",
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => "codex",
            #[cfg(feature = "acp")]
            Self::Acp => "the ACP agent",
            #[cfg(feature = "acp")]
            Self::Cursor => "Cursor's agent acp",
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => "Claude Code (its session file)",
        }
    }

    /// The `provider` of the events this source yields unless the host says otherwise.
    pub fn provider_kind(self) -> ProviderKind {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => ProviderKind::Codex,
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => ProviderKind::Codex,
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => ProviderKind::Codex,
            #[cfg(feature = "claude")]
            Self::Claude => ProviderKind::ClaudeAgent,
            #[cfg(feature = "claude")]
            Self::ClaudeControl => ProviderKind::ClaudeAgent,
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => ProviderKind::ClaudeAgent,
            #[cfg(feature = "acp")]
            Self::Acp => ProviderKind::Acp,
            #[cfg(feature = "acp")]
            Self::Cursor => ProviderKind::Cursor,
        }
    }

    /// The scope of the canonical ids derived from this source's provider ids: sources reading
    /// the same provider share it (see [`crate::ids`]).
    pub fn id_scope(self) -> &'static str {
        match self {
            #[cfg(feature = "codex-app-server")]
            Self::CodexAppServer => "codex",
            #[cfg(feature = "codex-exec")]
            Self::CodexExec => "codex",
            #[cfg(feature = "codex-rollout")]
            Self::CodexRollout => "codex",
            #[cfg(feature = "claude")]
            Self::Claude => "claude",
            #[cfg(feature = "claude")]
            Self::ClaudeControl => "claude",
            #[cfg(feature = "claude-session")]
            Self::ClaudeSession => "claude",
            #[cfg(feature = "acp")]
            Self::Acp => "acp",
            #[cfg(feature = "acp")]
            Self::Cursor => "acp",
        }
    }

    /// The cargo feature of the `agentwire` crate that compiles this source in.
    pub fn feature(self) -> &'static str {
        FEATURES
            .iter()
            .find(|(name, _)| *name == self.name())
            .map(|(_, feature)| *feature)
            .expect("every source is listed in FEATURES")
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

/// Every source's name, compiled in or not, with the cargo feature that compiles it: a name whose
/// source this build left out is told apart from a name agentwire does not know.
const FEATURES: &[(&str, &str)] = &[
    ("codex-app-server", "codex-app-server"),
    ("codex-exec", "codex-exec"),
    ("codex-rollout", "codex-rollout"),
    ("claude-session", "claude-session"),
    ("claude", "claude"),
    ("claude-control", "claude"),
    ("acp", "acp"),
    ("cursor", "acp"),
];

impl FromStr for Source {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        if let Some(source) = Self::ALL.iter().copied().find(|source| source.name() == name) {
            return Ok(source);
        }
        match FEATURES.iter().find(|(known, _)| *known == name) {
            Some((_, feature)) => Err(format!(
                "format {name:?} is not compiled in: build the agentwire crate with its cargo feature `{feature}`; \
                 compiled in: {}",
                Self::names().join(", ")
            )),
            None => Err(unknown_name("format", name, &Self::names())),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::{FEATURES, Source};

    /// Every compiled source parses from its name and is listed in [`FEATURES`].
    #[test]
    fn every_compiled_source_parses_and_has_a_feature() {
        for &source in Source::ALL {
            assert_eq!(source.name().parse::<Source>(), Ok(source));
            assert!(!source.feature().is_empty(), "{source}");
        }
    }

    /// A source this build left out names the feature to enable; a name nobody knows does not.
    #[test]
    fn a_name_not_compiled_in_names_its_feature() {
        for (name, feature) in FEATURES {
            match name.parse::<Source>() {
                Ok(source) => assert_eq!(source.feature(), *feature),
                Err(message) => assert!(message.contains(&format!("feature `{feature}`")), "{message}"),
            }
        }
        let unknown = "gemini".parse::<Source>().expect_err("not a source");
        assert!(unknown.starts_with("unknown format \"gemini\"; known: "), "{unknown}");
    }
}
