//! Credentials kept out of the event log: access, refresh and id tokens, API keys, passwords,
//! `Authorization` headers and bearer tokens are replaced by `[redacted]` in `raw` and in
//! payloads, unless the host keeps them (`Options::keep_secrets`).
//!
//! Two kinds of secret are recognised: the value of a key that names one (`accessToken`,
//! `refresh_token`, `apiKey`, `Authorization`, `password`, ...: compared without case, `_` or `-`),
//! and a credential inside text (`Bearer <token>`, `Authorization: <value>`, an `sk-` API key).
//! A cheap scan of the message bytes decides whether a message can hold one at all; only those
//! messages are parsed and rewritten, and a message with nothing to redact keeps its exact bytes.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind};
use serde_json::Value;
use serde_json::value::RawValue;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Keys whose values are credentials, lowercased without `_` and `-`.
const SECRET_KEYS: [&str; 18] = [
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "sessiontoken",
    "authbearertoken",
    "bearertoken",
    "token",
    "apikey",
    "xapikey",
    "secretaccesskey",
    "clientsecret",
    "secret",
    "password",
    "privatekey",
    "clientprivatekey",
    "authorization",
    "proxyauthorization",
    "cookie",
];

/// Substrings, any case, without which a message holds no secret this module recognises: every
/// secret key in its spellings (`"token"` only as a whole key, so `inputTokens` and `tokenUsage`
/// do not send every usage report down the slow path), and the text credentials.
const NEEDLES: [&str; 27] = [
    "accesstoken",
    "access_token",
    "access-token",
    "refreshtoken",
    "refresh_token",
    "refresh-token",
    "idtoken",
    "id_token",
    "id-token",
    "sessiontoken",
    "session_token",
    "session-token",
    "bearertoken",
    "bearer_token",
    "\"token\"",
    "apikey",
    "api_key",
    "api-key",
    "secret",
    "password",
    "privatekey",
    "private_key",
    "private-key",
    "authorization",
    "cookie",
    "bearer",
    "sk-",
];

fn needles() -> &'static AhoCorasick {
    static NEEDLES_AUTOMATON: OnceLock<AhoCorasick> = OnceLock::new();
    NEEDLES_AUTOMATON.get_or_init(|| {
        // Every message is scanned: a full DFA (a few KiB for these needles) scans fastest.
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(NEEDLES)
            .expect("the needles build an automaton")
    })
}

/// Whether `text` may hold a secret (no false negatives for what this module redacts).
pub fn suspect(text: &str) -> bool {
    needles().is_match(text)
}

fn is_secret_key(key: &str) -> bool {
    let normalized: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    SECRET_KEYS.contains(&normalized.as_str())
}

/// Redacts secrets in a JSON value in place; true if anything changed.
pub fn redact_value(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut changed = false;
            for (key, item) in map.iter_mut() {
                if is_secret_key(key) && !matches!(item, Value::Null | Value::Bool(_)) && *item != REDACTED {
                    *item = Value::String(REDACTED.to_string());
                    changed = true;
                } else {
                    changed |= redact_value(item);
                }
            }
            changed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| redact_value(item) | changed),
        Value::String(text) => match redact_text(text) {
            Some(redacted) => {
                *text = redacted;
                true
            }
            None => false,
        },
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// `text` with the credentials it carries replaced, or `None` when it carries none.
pub fn redact_text(text: &str) -> Option<String> {
    if !suspect(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    while !rest.is_empty() {
        match next_credential(rest) {
            Some((start, end)) => {
                out.push_str(&rest[..start]);
                out.push_str(REDACTED);
                rest = &rest[end..];
                changed = true;
            }
            None => {
                out.push_str(rest);
                break;
            }
        }
    }
    changed.then_some(out)
}

/// The byte range of the first credential in `text`: the token after `Bearer `, the value after
/// `Authorization:` (up to the end of the line or a quote), or an `sk-` key.
fn next_credential(text: &str) -> Option<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let token_end = |from: usize| {
        from + text[from..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';' | ')' | ']' | '}'))
            .unwrap_or(text.len() - from)
    };
    let line_end = |from: usize| from + text[from..].find(['\n', '\r', '"', '\'']).unwrap_or(text.len() - from);
    let mut found: Vec<(usize, usize)> = Vec::new();
    if let Some(at) = lower.find("bearer ") {
        let start = at + "bearer ".len();
        let end = token_end(start);
        if end > start {
            found.push((start, end));
        }
    }
    for header in ["authorization:", "x-api-key:"] {
        if let Some(at) = lower.find(header) {
            let mut start = at + header.len();
            start += text[start..].len() - text[start..].trim_start_matches(' ').len();
            // `Authorization: Bearer x`: the bearer rule redacts the token, keeping the scheme.
            if !lower[start..].starts_with("bearer ") {
                let end = line_end(start);
                if end > start {
                    found.push((start, end));
                }
            }
        }
    }
    let mut from = 0;
    while let Some(at) = lower[from..].find("sk-").map(|at| at + from) {
        let end = token_end(at);
        let boundary = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
        if boundary && end - at >= 20 {
            found.push((at, end));
            break;
        }
        from = at + 3;
    }
    found.into_iter().min_by_key(|(start, _)| *start)
}

/// The message with its secrets redacted, or `None` when it holds none (keep its bytes).
pub fn redact_raw(raw: &RawValue) -> Option<Box<RawValue>> {
    if !suspect(raw.get()) {
        return None;
    }
    let mut value: Value = serde_json::from_str(raw.get()).ok()?;
    if !redact_value(&mut value) {
        return None;
    }
    serde_json::value::to_raw_value(&value).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn secret_keys_are_redacted_at_any_depth() {
        let mut value = json!({
            "accessToken": "a1", "params": {"refresh_token": "r1", "api-key": "k1", "Authorization": "Basic x"},
            "items": [{"password": "p"}], "inputTokens": 12, "tokenUsage": {"total": 3}, "apiKeySource": "user"
        });
        assert!(redact_value(&mut value));
        assert_eq!(
            value,
            json!({
                "accessToken": REDACTED, "params": {"refresh_token": REDACTED, "api-key": REDACTED, "Authorization": REDACTED},
                "items": [{"password": REDACTED}], "inputTokens": 12, "tokenUsage": {"total": 3}, "apiKeySource": "user"
            })
        );
    }

    #[test]
    fn credentials_inside_text_are_redacted() {
        assert_eq!(
            redact_text("curl -H 'Authorization: Bearer abc.def-ghi' https://x").as_deref(),
            Some("curl -H 'Authorization: Bearer [redacted]' https://x")
        );
        assert_eq!(
            redact_text("export OPENAI_API_KEY=sk-proj-0123456789abcdefghij and go").as_deref(),
            Some("export OPENAI_API_KEY=[redacted] and go")
        );
        assert_eq!(
            redact_text("x-api-key: 123456\nnext").as_deref(),
            Some("x-api-key: [redacted]\nnext")
        );
        assert_eq!(redact_text("inputTokens and a task-list"), None);
        assert_eq!(redact_text("risk-free"), None, "`sk-` inside a word is no key");
    }

    #[test]
    fn a_message_without_secrets_keeps_its_bytes() {
        let raw = RawValue::from_string(
            r#"{"method":"thread/tokenUsage/updated","params":{ "inputTokens" : 1 }}"#.to_string(),
        )
        .expect("JSON");
        assert!(redact_raw(&raw).is_none());
        let raw = RawValue::from_string(r#"{"result":{"accessToken":"eyJ"}}"#.to_string()).expect("JSON");
        assert_eq!(
            redact_raw(&raw).expect("redacted").get(),
            r#"{"result":{"accessToken":"[redacted]"}}"#
        );
    }
}
