//! The one registry of the provider protocols agentwire reads.
//!
//! Each source is described once, by the crate that maps it, as a [`SourceSpec`] (its name,
//! program, provider, id scope, normalizer, conformer, detection and pinned version), and
//! declared once in `schemas/sources.toml` (its family, cargo feature and place in detection),
//! from which `cargo xtask codegen` writes the [`registry!`] invocation below. Everything that
//! lists sources (the CLI's `--from`, format detection, `import`, `--version`, the Node addon, the
//! test harness) goes through [`Source`]. Adding a source is its schema, its generated crate, its
//! source crate and one entry in `schemas/sources.toml`.

use std::str::FromStr;

use agentwire_canonical::ProviderKind;
use agentwire_core::document;
use agentwire_core::frame::{Frame, LineFormat};
use agentwire_core::normalizer::{Conformer, Normalizer, Options};
pub use agentwire_core::source::{SourceSpec, unknown_name};

/// A provider protocol: one of the registered [`SourceSpec`]s.
#[derive(Clone, Copy)]
pub struct Source(&'static SourceSpec);

/// Declares each source once: `CONST = "name" if "cargo feature" => its SourceSpec;`, in the
/// order format detection tries them. A source whose feature is off is still known by name, so
/// asking for it says which feature compiles it.
macro_rules! registry {
    ($($(#[$doc:meta])* $konst:ident = $name:literal if $feature:literal => $spec:path;)+) => {
        impl Source {
            $(
                $(#[$doc])*
                #[cfg(feature = $feature)]
                pub const $konst: Source = Source(&$spec);
            )+

            /// Every source compiled in, in the order format detection tries them.
            pub const ALL: &'static [Source] = &[$(#[cfg(feature = $feature)] Source::$konst,)+];
        }

        /// Every source's name, compiled in or not, with the cargo feature that compiles it: a
        /// name whose source this build left out is told apart from a name agentwire does not know.
        const FEATURES: &[(&str, &str)] = &[$(($name, $feature),)+];
    };
}

// @generated from schemas/sources.toml by `cargo xtask codegen` (begin registry)
registry! {
    /// `codex app-server` JSON-RPC: [`agentwire_source_codex::app_server::SOURCE`].
    CODEX_APP_SERVER = "codex-app-server" if "codex-app-server" => agentwire_source_codex::app_server::SOURCE;
    /// `codex exec --json`: [`agentwire_source_codex::exec::SOURCE`].
    CODEX_EXEC = "codex-exec" if "codex-exec" => agentwire_source_codex::exec::SOURCE;
    /// Codex rollout files: [`agentwire_source_codex::rollout::SOURCE`].
    CODEX_ROLLOUT = "codex-rollout" if "codex-rollout" => agentwire_source_codex::rollout::SOURCE;
    /// GitHub Copilot CLI session logs: [`agentwire_source_copilot::session::COPILOT_SESSION`].
    COPILOT_SESSION = "copilot-session" if "copilot-session" => agentwire_source_copilot::session::COPILOT_SESSION;
    /// `copilot -p --output-format json`: [`agentwire_source_copilot::live::COPILOT`].
    COPILOT = "copilot" if "copilot" => agentwire_source_copilot::live::COPILOT;
    /// `gemini --output-format stream-json`: [`agentwire_source_gemini::stream_json::GEMINI`].
    GEMINI = "gemini" if "gemini" => agentwire_source_gemini::stream_json::GEMINI;
    /// Gemini CLI session files: [`agentwire_source_gemini::session::GEMINI_SESSION`].
    GEMINI_SESSION = "gemini-session" if "gemini-session" => agentwire_source_gemini::session::GEMINI_SESSION;
    /// Claude Code session files: [`agentwire_source_claude::session::SOURCE`].
    CLAUDE_SESSION = "claude-session" if "claude-session" => agentwire_source_claude::session::SOURCE;
    /// Claude Code stream-json: [`agentwire_source_claude::stream_json::CLAUDE`].
    CLAUDE = "claude" if "claude" => agentwire_source_claude::stream_json::CLAUDE;
    /// The Agent SDK <-> CLI transcript (the stream-json messages and the control protocol): [`agentwire_source_claude::stream_json::CLAUDE_CONTROL`].
    CLAUDE_CONTROL = "claude-control" if "claude" => agentwire_source_claude::stream_json::CLAUDE_CONTROL;
    /// An ACP agent: [`agentwire_source_acp::ACP`].
    ACP = "acp" if "acp" => agentwire_source_acp::ACP;
    /// Cursor's `agent acp`: [`agentwire_source_acp::CURSOR`].
    CURSOR = "cursor" if "acp" => agentwire_source_acp::CURSOR;
    /// `opencode serve`: [`agentwire_source_opencode::OPENCODE`].
    OPENCODE = "opencode" if "opencode" => agentwire_source_opencode::OPENCODE;
    /// `opencode run --format json`: [`agentwire_source_opencode::run::OPENCODE_RUN`].
    OPENCODE_RUN = "opencode-run" if "opencode-run" => agentwire_source_opencode::run::OPENCODE_RUN;
    /// A stored OpenCode session (`opencode export`, `opencode.db`): [`agentwire_source_opencode::OPENCODE_SESSION`].
    OPENCODE_SESSION = "opencode-session" if "opencode-session" => agentwire_source_opencode::OPENCODE_SESSION;
    /// `pi -p PROMPT --mode json`: [`agentwire_source_pi::json::PI`].
    PI = "pi" if "pi" => agentwire_source_pi::json::PI;
    /// `pi --mode rpc`: the client's commands and what Pi printed: [`agentwire_source_pi::rpc::PI_RPC`].
    PI_RPC = "pi-rpc" if "pi" => agentwire_source_pi::rpc::PI_RPC;
    /// Pi session files: [`agentwire_source_pi::session::PI_SESSION`].
    PI_SESSION = "pi-session" if "pi" => agentwire_source_pi::session::PI_SESSION;
}
// (end registry)

impl Source {
    /// The source's own description.
    pub fn spec(self) -> &'static SourceSpec {
        self.0
    }

    /// The name used on the command line (`--from`).
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The program a person knows the source as, for messages.
    pub fn program(self) -> &'static str {
        self.0.program
    }

    /// The `provider` of the events this source yields unless the host says otherwise.
    pub fn provider_kind(self) -> ProviderKind {
        self.0.provider
    }

    /// The scope of the canonical ids derived from this source's provider ids: sources reading
    /// the same provider share it (see [`crate::ids`]).
    pub fn id_scope(self) -> &'static str {
        self.0.id_scope
    }

    /// A normalizer for one stream of this source. It is `Send` ([`Normalizer`]'s supertrait), so
    /// a host may keep it on whichever thread serves the stream.
    pub fn normalizer(self, options: Options) -> Box<dyn Normalizer> {
        (self.0.normalizer)(options)
    }

    /// A strict decoder for `agentwire conform`.
    pub fn conformer(self) -> Box<dyn Conformer> {
        (self.0.conformer)()
    }

    /// The program and version the source's generated types are pinned to (`--version`).
    pub fn upstream(self) -> String {
        (self.0.upstream)()
    }

    /// Whether a frame is a message this source defines (for format detection).
    pub fn claims(self, frame: &Frame<'_>) -> bool {
        (self.0.claims)(frame)
    }

    /// The cargo feature of the `agentwire` crate that compiles this source in.
    pub fn feature(self) -> &'static str {
        FEATURES
            .iter()
            .find(|(name, _)| *name == self.name())
            .map(|(_, feature)| *feature)
            .expect("every source is registered with its feature")
    }

    /// The names of every source compiled in, for "known: ..." messages.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|source| source.name()).collect()
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

    /// The source whose document `text` is (a file that is one JSON document, such as an
    /// `opencode export`), with the document cut into its frames: the first source, in the
    /// registry's order, that reads documents and claims the document's first frame. `None` when
    /// none does.
    pub fn detect_document(text: &str) -> Option<(Source, document::Split)> {
        Self::ALL.iter().copied().find_map(|source| {
            let shape = source.spec().files.document.as_ref()?;
            let split = document::split(text, shape);
            let first = Frame::parse(&split.pieces.first()?.text, LineFormat::Bare).ok()?;
            source.claims(&first).then_some((source, split))
        })
    }
}

impl PartialEq for Source {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Source {}

impl std::hash::Hash for Source {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

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

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({})", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::{FEATURES, Source};

    /// Every compiled source parses from its name, is registered under the name its crate gives
    /// it, and has a feature.
    #[test]
    fn every_compiled_source_parses_and_has_a_feature() {
        for &source in Source::ALL {
            assert_eq!(source.name().parse::<Source>(), Ok(source));
            assert!(
                FEATURES.iter().any(|(name, _)| *name == source.spec().name),
                "{source} is registered under its crate's name"
            );
            assert!(!source.feature().is_empty(), "{source}");
        }
        let mut names = Source::names();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Source::ALL.len(), "every name once");
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
        let unknown = "no-such-source".parse::<Source>().expect_err("not a source");
        assert!(
            unknown.starts_with("unknown format \"no-such-source\"; known: "),
            "{unknown}"
        );
    }
}
