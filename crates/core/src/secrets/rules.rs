//! The rule set of [`crate::secrets`], as data: which keys name a credential, which texts are
//! one, and where each rule comes from. The value rules taken from gitleaks ([`GITLEAKS`]) are
//! generated from its published rule data (`schemas/secrets/gitleaks.toml`, vendored, and
//! `schemas/secrets/rules.toml`, which of its rules agentwire takes and what it changes) into the
//! crate `agentwire-secrets-rules`, with the supplement of token formats gitleaks has no rule for
//! (`schemas/secrets/supplement.toml`, written by hand: [`SUPPLEMENT_RULES`]); the rules of
//! agentwire's own and the ones read from [`TRUFFLEHOG`] alone are written here
//! ([`OWN_RULES`]). Patterns are Rust `regex` syntax.
//!
//! To add a rule from gitleaks: add its id to `schemas/secrets/rules.toml` (with what agentwire
//! changes, e.g. `keywords` narrowed so that every match holds one) and run `cargo xtask
//! codegen`; a token format gitleaks has no rule for goes to `schemas/secrets/supplement.toml`
//! the same way; one that needs the key rules: a row of [`OWN_RULES`] naming where it comes
//! from. Either way, a positive and a negative example go to the module's tests. A needle must
//! hold one of the scan's windows (`secrets::WINDOWS`); the build fails when it holds none.

use agentwire_secrets_rules::GITLEAKS_RULES;
pub use agentwire_secrets_rules::{GITLEAKS, SUPPLEMENT_RULES, ValueRule};

/// The trufflehog release the detectors cited were read at (`pkg/detectors/`).
pub const TRUFFLEHOG: &str = "trufflehog v3.97.0";

/// The value rules: gitleaks', the supplement's, then agentwire's own.
pub const VALUE_RULES: &[ValueRule] = &value_rules();

const VALUE_RULE_COUNT: usize = GITLEAKS_RULES.len() + SUPPLEMENT_RULES.len() + OWN_RULES.len();

/// The three tables as one array, built when this compiles: the scan's needle tables are
/// constants computed from [`VALUE_RULES`].
const fn value_rules() -> [ValueRule; VALUE_RULE_COUNT] {
    let mut out = [OWN_RULES[0]; VALUE_RULE_COUNT];
    let supplement = GITLEAKS_RULES.len();
    let own = supplement + SUPPLEMENT_RULES.len();
    let mut at = 0;
    while at < VALUE_RULE_COUNT {
        out[at] = if at < supplement {
            GITLEAKS_RULES[at]
        } else if at < own {
            SUPPLEMENT_RULES[at - supplement]
        } else {
            OWN_RULES[at - own]
        };
        at += 1;
    }
    out
}

/// The value rules of agentwire's own, and the ones read from trufflehog alone: no gitleaks rule
/// has their pattern, and they read what the supplement's data cannot say (the key rules, a URL
/// of any scheme).
pub const OWN_RULES: &[ValueRule] = &[
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
    End {
        /// The words that, right before it, make the key something else.
        not_after: &'static [&'static str],
    },
    /// Anywhere, ended by the key's end, a separator, a digit or a capital (`db_password`,
    /// `AWS_SECRET_ACCESS_KEY`, `apiKey2`; not `secretary`), unless what follows it ends with one
    /// of [`DESCRIPTORS`] (`apiKeySource`, `secretName`: about a credential, not one).
    Word,
}

/// A word that makes a key name a credential, compared without ASCII case.
pub struct KeyWord {
    /// How the word is written in a key; each holds one of [`KEY_NEEDLES`] as written.
    pub spellings: &'static [&'static str],
    /// Where it must stand in the key.
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
