//! The rule set of [`crate::secrets`], as data: which keys name a credential, which texts are
//! one, and where each rule comes from. The value rules are taken from the published rule sets
//! of two maintained scanners, [`GITLEAKS`] and [`TRUFFLEHOG`], by rule id; a rule written here
//! first says so (`agentwire`). Patterns are Rust `regex` syntax: upstream's RE2 patterns carry
//! over as written, except where a row says what changed (RE2's `\w` is ASCII, so it is written
//! `[0-9A-Za-z_]`; a keyword narrowed so that every match holds it).
//!
//! To add a rule: add a row to [`VALUE_RULES`] with the upstream id and version, its keywords as
//! `needles` (lowercase; every match of the pattern must hold one), and a positive and a
//! negative example to the module's tests. A needle must hold one of the scan's anchors
//! (`secrets::ANCHORS`); the build fails when it holds none, and the new anchor is what the rule
//! costs every line.

/// The gitleaks release the value rules were taken from (`config/gitleaks.toml`).
pub const GITLEAKS: &str = "gitleaks v8.30.1";

/// The trufflehog release the detectors cited were read at (`pkg/detectors/`).
pub const TRUFFLEHOG: &str = "trufflehog v3.97.0";

/// A credential recognised by its text, wherever it stands.
pub struct ValueRule {
    /// The upstream rule id (or agentwire's own name).
    pub id: &'static str,
    /// Lowercase literals, compared without ASCII case: every match of `pattern` holds one, so a
    /// text without any is never matched (upstream's `keywords`).
    pub needles: &'static [&'static str],
    /// What is replaced: the first capture group that took part, other than `name` (the whole
    /// match when there is none). A group named `bare` (an unquoted value) must also look like
    /// a credential: 8 or more characters holding letters and digits. A group named `name` must
    /// name a secret key ([`KEY_WORDS`]). A value that is a placeholder ([`PLACEHOLDERS`],
    /// `$NAME`, `${...}`, `<...>`, `***`, `xxx`, `[redacted]`) is never replaced.
    pub pattern: &'static str,
    /// The least Shannon entropy, in bits per byte, of what is replaced (upstream's `entropy`).
    pub entropy: f64,
    /// Patterns of what is no secret though the rule matches it (upstream's allowlist).
    pub allow: &'static [&'static str],
    /// Where the rule comes from.
    pub source: &'static str,
}

/// The value rules.
pub const VALUE_RULES: &[ValueRule] = &[
    ValueRule {
        id: "github-pat",
        needles: &["ghp_"],
        pattern: r"ghp_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: github-pat",
    },
    ValueRule {
        id: "github-oauth",
        needles: &["gho_"],
        pattern: r"gho_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: github-oauth",
    },
    ValueRule {
        id: "github-app-token",
        needles: &["ghu_", "ghs_"],
        pattern: r"(?:ghu|ghs)_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: github-app-token",
    },
    ValueRule {
        id: "github-refresh-token",
        needles: &["ghr_"],
        pattern: r"ghr_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: github-refresh-token",
    },
    ValueRule {
        id: "github-fine-grained-pat",
        needles: &["github_pat_"],
        pattern: r"github_pat_[0-9A-Za-z_]{82}",
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: github-fine-grained-pat (`\\w` written as ASCII)",
    },
    ValueRule {
        id: "aws-access-token",
        needles: &["a3t", "akia", "asia", "abia", "acca"],
        pattern: r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        entropy: 3.0,
        allow: &[r".+EXAMPLE$"],
        source: "gitleaks v8.30.1 config/gitleaks.toml: aws-access-token; trufflehog v3.97.0 pkg/detectors/aws/access_keys",
    },
    ValueRule {
        id: "slack-bot-token",
        needles: &["xoxb"],
        pattern: r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*",
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: slack-bot-token",
    },
    ValueRule {
        id: "slack-legacy-bot-token",
        needles: &["xoxb"],
        pattern: r"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}",
        entropy: 2.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: slack-legacy-bot-token",
    },
    ValueRule {
        id: "slack-user-token",
        needles: &["xoxp", "xoxe"],
        pattern: r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}",
        entropy: 2.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: slack-user-token",
    },
    ValueRule {
        id: "slack-legacy-workspace-token",
        needles: &["xoxa", "xoxr"],
        pattern: r"xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}",
        entropy: 2.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: slack-legacy-workspace-token",
    },
    ValueRule {
        id: "slack-legacy-token",
        needles: &["xoxo", "xoxs"],
        pattern: r"xox[os]-\d+-\d+-\d+-[a-fA-F\d]+",
        entropy: 2.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: slack-legacy-token",
    },
    ValueRule {
        id: "jwt",
        needles: &["eyj"],
        pattern: r#"\b(eyJ[a-zA-Z0-9]{16,}\.ey[a-zA-Z0-9/\\_-]{17,}\.(?:[a-zA-Z0-9/\\_-]{10,}={0,2})?)(?:[`'"\s;]|\\[nr]|$)"#,
        entropy: 3.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: jwt (keyword `ey` narrowed to `eyJ`, a JSON header's `{\"`, as trufflehog v3.97.0 pkg/detectors/jwt starts)",
    },
    ValueRule {
        id: "private-key",
        needles: &["private key"],
        pattern: r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:([\s\S]{64,}?)-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|([A-Za-z0-9+/=\s]{64,})$)",
        entropy: 0.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: private-key; trufflehog v3.97.0 pkg/detectors/privatekey (keyword `private key`); agentwire: the body alone is replaced, and a body cut off before its END line (as `head` shows a key file) runs to the end of the text",
    },
    ValueRule {
        id: "gcp-api-key",
        needles: &["aiza"],
        pattern: r#"\b(AIza[0-9A-Za-z_-]{35})(?:[`'"\s;]|\\[nr]|$)"#,
        entropy: 4.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: gcp-api-key (`\\w` written as ASCII)",
    },
    ValueRule {
        id: "url-password",
        // `:\/` for a URL in JSON text that escapes its slashes (`postgres:\/\/app:p4ss@db`).
        needles: &["://", ":\\/"],
        pattern: r#"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@?#"'<>]{1,100}:([^\s/@?#"'<>]{1,200})@[a-zA-Z0-9.\[\]-]+"#,
        entropy: 0.0,
        allow: &[],
        source: "trufflehog v3.97.0 pkg/detectors/uri, postgres, mongodb, redis (a URL's `user:password@`), for any scheme",
    },
    ValueRule {
        id: "openai-anthropic-api-key",
        needles: &["sk-"],
        pattern: r#"(?:^|[^0-9A-Za-z])(sk-[^\s"'`,;)\]}]{17,})"#,
        entropy: 0.0,
        allow: &[],
        source: "agentwire: an `sk-` key of 20 or more characters; gitleaks v8.30.1 openai-api-key and anthropic-api-key match narrower forms of the same keys",
    },
    ValueRule {
        id: "bearer-token",
        needles: &["bearer"],
        pattern: r"(?i)\bbearer[ \t]+(?P<bare>[A-Za-z0-9._~+/=-]{8,})",
        entropy: 0.0,
        allow: &[],
        source: "agentwire: RFC 6750's b64token after `Bearer`; gitleaks v8.30.1 curl-auth-header reads the same header in curl commands",
    },
    ValueRule {
        id: "auth-header",
        needles: &["authorization", "api-key"],
        pattern: r#"(?i)\b(?:(?:proxy-)?authorization|x-api-key):[ \t]*(?:bearer[ \t]+)?([^\r\n"']+)"#,
        entropy: 0.0,
        allow: &[],
        source: "agentwire: the value of an `Authorization` or `x-api-key` header to the end of its line; gitleaks v8.30.1 curl-auth-header reads the same headers in curl commands",
    },
    ValueRule {
        id: "secret-assignment",
        needles: KEY_NEEDLES,
        pattern: r#"(?i)(?P<name>[a-z0-9_.-]*(?:token|passw(?:or)?d|secret|api[_-]?key|private[_-]?key|authorization|cookie|credential)[a-z0-9_.-]*)\\?["']?[ ]?(?::=|=|:)[ \t]*(?:\\?"([^"\\\r\n]*)|\\?'([^'\\\r\n]*)|(?P<bare>[^\s"'`,;(){}\[\]<>\\]+))"#,
        entropy: 0.0,
        allow: &[],
        source: "gitleaks v8.30.1 config/gitleaks.toml: generic-api-key, adapted: the name must be a secret key by the key rules, a quoted value is taken whole, an unquoted one must look like a credential (where gitleaks asks for entropy 3.5)",
    },
];

/// Where a word stands in a key that it makes a secret key.
pub enum Place {
    /// At the key's end (`GITHUB_TOKEN`, `accessToken`, `mytoken`), unless the word before it is
    /// one of these (`next_page_token` is a cursor, MCP's `progressToken` a correlation id,
    /// `eos_token` a tokenizer's symbol).
    End { not_after: &'static [&'static str] },
    /// Anywhere, ended by the key's end, a separator, a digit or a capital (`db_password`,
    /// `AWS_SECRET_ACCESS_KEY`, `apiKey2`; not `secretary`), unless what follows it ends with one
    /// of [`DESCRIPTORS`] (`apiKeySource`, `secretName`: about a credential, not one).
    Word,
}

/// A word that makes a key name a credential, compared without ASCII case.
pub struct KeyWord {
    /// How the word is written in a key; each holds one of [`KEY_NEEDLES`] as written.
    pub spellings: &'static [&'static str],
    pub place: Place,
}

/// The words of secret keys (gitleaks v8.30.1 generic-api-key's keywords, without the ones
/// that name no credential alone: `access`, `auth`, `key`).
pub const KEY_WORDS: &[KeyWord] = &[
    KeyWord {
        spellings: &["token"],
        place: Place::End {
            not_after: &[
                "page",
                "next",
                "continuation",
                "pagination",
                "cursor",
                "sync",
                "progress",
                "csrf",
                "public",
                "cancellation",
                "max",
                "min",
                "eos",
                "bos",
                "pad",
                "unk",
                "sep",
                "cls",
                "mask",
                "special",
            ],
        },
    },
    KeyWord {
        spellings: &["cookie"],
        place: Place::End { not_after: &[] },
    },
    KeyWord {
        spellings: &["authorization"],
        place: Place::End { not_after: &[] },
    },
    KeyWord {
        spellings: &["credential", "credentials"],
        place: Place::End { not_after: &[] },
    },
    KeyWord {
        spellings: &["password", "passwd"],
        place: Place::Word,
    },
    KeyWord {
        spellings: &["secret"],
        place: Place::Word,
    },
    KeyWord {
        spellings: &["apikey", "api_key", "api-key"],
        place: Place::Word,
    },
    KeyWord {
        spellings: &["privatekey", "private_key", "private-key"],
        place: Place::Word,
    },
];

/// The needles of secret keys: a key the key rules accept holds one where it is written as a
/// JSON key (`"GITHUB_TOKEN":` holds `token"`) and where it is assigned in text (`GITHUB_TOKEN=`,
/// `token: x`, `"token":` inside a string). `token` stands only with what may follow a key's
/// end, so `inputTokens`, `max_tokens` and `tokenizer.py` take the fast path.
pub const KEY_NEEDLES: &[&str] = &[
    "token\"",
    "token\\",
    "token'",
    "token=",
    "token:",
    "token =",
    "token :",
    "cookie",
    "authorization",
    "credential",
    "password",
    "passwd",
    "secret",
    "apikey",
    "api_key",
    "api-key",
    "privatekey",
    "private_key",
    "private-key",
];

/// What the rest of a key after a [`Place::Word`] word may end with to be about a credential
/// rather than one, compared without case and separators.
pub const DESCRIPTORS: &[&str] = &[
    "source",
    "helper",
    "name",
    "type",
    "kind",
    "id",
    "ids",
    "env",
    "var",
    "file",
    "path",
    "url",
    "uri",
    "ref",
    "hint",
    "prompt",
    "label",
    "description",
    "required",
    "enabled",
    "present",
    "set",
    "count",
    "length",
    "size",
    "mode",
    "format",
    "policy",
    "provider",
    "field",
    "location",
    "expiry",
    "expiresat",
    "expiresin",
];

/// Values that are no secret under any key, compared without ASCII case: no value at all, or the
/// name of a kind of credential (Claude Code 2.1.337's `api-request-route` says
/// `"credential": "key"`: which kind it used, not the key).
pub const PLACEHOLDERS: &[&str] = &[
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "n/a",
    "key",
    "apikey",
    "api_key",
    "api-key",
    "token",
    "oauth",
    "bearer",
    "password",
    "secret",
];
