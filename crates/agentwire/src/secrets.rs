//! Credentials kept out of the event log: access, refresh and id tokens, API keys, passwords,
//! `Authorization` headers and bearer tokens are replaced by `[redacted]` in `raw` and in
//! payloads, unless the host keeps them (`Options::keep_secrets`).
//!
//! Two kinds of secret are recognised: the value of a key that names one (`accessToken`,
//! `refresh_token`, `apiKey`, `Authorization`, `password`, ...: compared without case, `_` or `-`),
//! and a credential inside text (`Bearer <token>`, `Authorization: <value>`, an `sk-` API key).
//! A cheap scan of the message bytes decides whether a message can hold one at all; only those
//! messages are parsed and rewritten, and a message with nothing to redact keeps its exact bytes.

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
pub const NEEDLES: [&str; 27] = [
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

/// Adjacent byte pairs, every needle holding at least one (checked when this compiles), so a
/// message without any of them holds no needle. They are the rarest pairs of each needle in the
/// corpus (`ok` stands for the `token` family and `cookie`, `ey` for the keys, `k-` for `sk-`),
/// stored as [`fold`] leaves them: lowercase letters and `-`.
const ANCHORS: [[u8; 2]; 7] = [*b"ok", *b"ey", *b"cr", *b"sw", *b"za", *b"be", *b"k-"];

/// For each needle, `(anchor, offset)`: the index in [`ANCHORS`] of the first anchor it holds and
/// where. A needle that holds none fails the build.
const NEEDLE_ANCHORS: [(usize, usize); NEEDLES.len()] = needle_anchors();

const fn needle_anchors() -> [(usize, usize); NEEDLES.len()] {
    let mut out = [(0, 0); NEEDLES.len()];
    let mut needle = 0;
    while needle < NEEDLES.len() {
        let bytes = NEEDLES[needle].as_bytes();
        let mut found = None;
        let mut offset = 0;
        while found.is_none() && offset + 1 < bytes.len() {
            let mut anchor = 0;
            while found.is_none() && anchor < ANCHORS.len() {
                let [first, second] = ANCHORS[anchor];
                assert!(
                    fold(first) == first && fold(second) == second,
                    "anchors are stored folded"
                );
                if fold(bytes[offset]) == first && fold(bytes[offset + 1]) == second {
                    found = Some((anchor, offset));
                }
                anchor += 1;
            }
            offset += 1;
        }
        match found {
            Some(anchored) => out[needle] = anchored,
            None => panic!("every needle holds an anchor"),
        }
        needle += 1;
    }
    out
}

/// ASCII letters to lowercase (and other bytes to some byte): two bytes equal without ASCII case
/// stay equal, which is all the scan needs; a candidate is then compared exactly.
const fn fold(byte: u8) -> u8 {
    byte | 0x20
}

/// Bytes scanned at once: the loop over a block's lanes compiles to SIMD compares (SSE2 on
/// x86-64), where 16 lanes did not vectorize and 64 were slower.
const BLOCK: usize = 32;

/// Whether `text` may hold a secret (no false negatives for what this module redacts): whether
/// it holds a needle, compared without ASCII case.
///
/// Every message goes through here, and almost none holds a needle. An automaton reading byte by
/// byte took 5-8% of `agentwire normalize`; instead each block of [`BLOCK`] positions is compared
/// against the [`ANCHORS`] at once, and only where an anchor sits are the needles holding it
/// compared. Same answer as an ASCII-case-insensitive Aho-Corasick search for [`NEEDLES`] (the
/// tests check both over the corpus), at 2.5-3 times its throughput (`benches/secrets.rs`).
pub fn suspect(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut padded = [0u8; BLOCK + 1];
    let mut start = 0;
    while start < bytes.len() {
        // A block's last pair ends in the next block's first byte. The last block is padded
        // with zeros, which fold to a space and so neither start nor end an anchor.
        let end = bytes.len().min(start + BLOCK + 1);
        let block: &[u8; BLOCK + 1] = match bytes[start..end].try_into() {
            Ok(full) => full,
            Err(_) => {
                padded[..end - start].copy_from_slice(&bytes[start..end]);
                &padded
            }
        };
        let lanes = anchor_lanes(block);
        // An OR over all lanes, not `any`, whose early exit keeps it from vectorizing.
        let flagged = lanes.iter().fold(0, |all, lane| all | lane) != 0;
        if flagged && lanes_confirm(bytes, start, block, &lanes) {
            return true;
        }
        start += BLOCK;
    }
    false
}

/// For each position of the block, 1 if an anchor starts there, else 0. Written lane by lane
/// over fixed arrays, without early exits, so that it compiles to vector compares.
fn anchor_lanes(block: &[u8; BLOCK + 1]) -> [u8; BLOCK] {
    let first: [u8; BLOCK] = std::array::from_fn(|at| fold(block[at]));
    let second: [u8; BLOCK] = std::array::from_fn(|at| fold(block[at + 1]));
    let mut lanes = [0u8; BLOCK];
    for [anchor_first, anchor_second] in ANCHORS {
        for at in 0..BLOCK {
            lanes[at] |= u8::from(first[at] == anchor_first) & u8::from(second[at] == anchor_second);
        }
    }
    lanes
}

/// Whether a needle holds one of the anchors `lanes` flags in `block` (`bytes` from `start`).
/// The lanes are read eight at a time as words, skipping the zero ones.
fn lanes_confirm(bytes: &[u8], start: usize, block: &[u8; BLOCK + 1], lanes: &[u8; BLOCK]) -> bool {
    lanes.chunks_exact(8).enumerate().any(|(word_index, word)| {
        let mut word = u64::from_le_bytes(word.try_into().expect("eight lanes"));
        while word != 0 {
            let lane = word_index * 8 + word.trailing_zeros() as usize / 8;
            let pair = [fold(block[lane]), fold(block[lane + 1])];
            if anchored_needle(bytes, start + lane, pair) {
                return true;
            }
            word &= word - 1;
        }
        false
    })
}

/// Whether `bytes` holds, at `at`, the anchor `pair` of a needle it holds there.
fn anchored_needle(bytes: &[u8], at: usize, pair: [u8; 2]) -> bool {
    let Some(anchor) = ANCHORS.iter().position(|candidate| *candidate == pair) else {
        return false;
    };
    NEEDLES
        .iter()
        .zip(NEEDLE_ANCHORS)
        .filter(|(_, (needle_anchor, _))| *needle_anchor == anchor)
        .any(|(needle, (_, offset))| {
            at.checked_sub(offset)
                .and_then(|from| bytes.get(from..from + needle.len()))
                .is_some_and(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
        })
}

fn is_secret_key(key: &str) -> bool {
    let normalized = key
        .bytes()
        .filter(|byte| !matches!(byte, b'_' | b'-'))
        .map(|byte| byte.to_ascii_lowercase());
    SECRET_KEYS.iter().any(|secret| normalized.clone().eq(secret.bytes()))
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
    if !suspect(raw.get()) || !would_redact(raw.get()) {
        return None;
    }
    let mut value: Value = serde_json::from_str(raw.get()).ok()?;
    if !redact_value(&mut value) {
        return None;
    }
    serde_json::value::to_raw_value(&value).ok()
}

/// Whether [`redact_value`] would change the JSON `text`, read without building a `Value`: most
/// suspect messages hold a needle only in a harmless key (Claude's `apiKeySource`), and building
/// the tree of a large one (an `init` with its tool list) to find nothing cost ~5% of a Claude
/// stream. Anything that may need redacting, or that does not read, answers true.
fn would_redact(text: &str) -> bool {
    use serde::de::DeserializeSeed;
    Scan::Value
        .deserialize(&mut serde_json::Deserializer::from_str(text))
        .is_err()
}

/// A reading of JSON that stops with an error at the first thing [`redact_value`] would change:
/// a credential in a string, or a value under a secret key that is not `null`, a boolean or
/// already redacted.
#[derive(Clone, Copy)]
enum Scan {
    Value,
    UnderSecretKey,
    Key,
}

impl<'de> serde::de::DeserializeSeed<'de> for Scan {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Scan {
    /// For a key, whether it is a secret key; else always false (a find is an error).
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<bool, E> {
        self.number()
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<bool, E> {
        self.number()
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<bool, E> {
        self.number()
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<bool, E> {
        match self {
            Scan::Key => Ok(is_secret_key(text)),
            Scan::UnderSecretKey if text != REDACTED => Err(E::custom("a secret")),
            Scan::Value | Scan::UnderSecretKey if redact_text(text).is_some() => Err(E::custom("a credential")),
            Scan::Value | Scan::UnderSecretKey => Ok(false),
        }
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        if let Scan::UnderSecretKey = self {
            return Err(serde::de::Error::custom("a secret"));
        }
        while seq.next_element_seed(Scan::Value)?.is_some() {}
        Ok(false)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        if let Scan::UnderSecretKey = self {
            return Err(serde::de::Error::custom("a secret"));
        }
        while let Some(secret) = map.next_key_seed(Scan::Key)? {
            map.next_value_seed(if secret { Scan::UnderSecretKey } else { Scan::Value })?;
        }
        Ok(false)
    }
}

impl Scan {
    fn number<E: serde::de::Error>(self) -> Result<bool, E> {
        match self {
            Scan::UnderSecretKey => Err(E::custom("a secret")),
            Scan::Value | Scan::Key => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {

    use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind};
    use serde_json::json;

    use super::*;

    /// The scan [`suspect`] replaced, kept as its reference: an ASCII-case-insensitive
    /// Aho-Corasick automaton over the needles.
    fn automaton() -> AhoCorasick {
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(NEEDLES)
            .expect("the needles build an automaton")
    }

    #[test]
    fn suspect_answers_as_the_automaton_over_every_corpus_line() {
        let automaton = automaton();
        let files = crate::test_corpus::files();
        let (mut lines, mut suspects) = (0, 0);
        for path in &files {
            let bytes = std::fs::read(path).expect("a corpus file");
            let text = String::from_utf8_lossy(&bytes);
            for line in text.split('\n').chain([text.as_ref()]) {
                let expected = automaton.is_match(line);
                assert_eq!(suspect(line), expected, "{}: {line}", path.display());
                lines += 1;
                suspects += usize::from(expected);
            }
        }
        assert!(
            lines > 1000 && suspects > 10 && suspects < lines,
            "{lines} lines, {suspects} suspect"
        );
    }

    /// [`would_redact`] against building the `Value` and redacting it.
    fn redacts_when_scanned(json: &str) -> bool {
        let mut value: Value = serde_json::from_str(json).expect("valid JSON");
        let changed = redact_value(&mut value);
        assert_eq!(would_redact(json), changed, "{json}");
        changed
    }

    #[test]
    fn the_scan_finds_what_redacting_changes_over_every_corpus_line() {
        let files = crate::test_corpus::files();
        let (mut read, mut changed) = (0, 0);
        for path in files
            .iter()
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        {
            let text = std::fs::read_to_string(path).expect("a corpus file");
            for line in text.lines().filter(|line| serde_json::from_str::<Value>(line).is_ok()) {
                read += 1;
                changed += usize::from(redacts_when_scanned(line));
            }
        }
        assert!(read > 1000, "{read} lines read");
        assert!(changed > 0, "the corpus holds planted secrets");
    }

    #[test]
    fn the_scan_finds_what_redacting_changes_in_crafted_values() {
        let changes = [
            r#"{"apiKey":"k"}"#,
            r#"{"a":[{"access_token":12}]}"#,
            r#"{"password":{"nested":true}}"#,
            r#"{"secret":[]}"#,
            r#"{"x":"Authorization: Bearer abc.def"}"#,
            r#"["sk-proj-0123456789abcdefghij"]"#,
            r#"{"cookie":"a\u0041"}"#,
        ];
        for json in changes {
            assert!(redacts_when_scanned(json), "{json}");
        }
        let unchanged = [
            r#"{"apiKeySource":"none","tools":["Bash"]}"#,
            r#"{"password":null,"apiKey":false,"token":"[redacted]"}"#,
            r#"{"inputTokens":12,"tokenUsage":{"total":3}}"#,
            r#"{"text":"a secret, but no credential"}"#,
            r#"[1,2.5,-3,true,null,"x"]"#,
        ];
        for json in unchanged {
            assert!(!redacts_when_scanned(json), "{json}");
        }
        assert!(would_redact("{not json"), "what does not read goes the full way");
    }

    #[test]
    fn suspect_answers_as_the_automaton_on_crafted_text() {
        let automaton = automaton();
        let check = |text: &str| assert_eq!(suspect(text), automaton.is_match(text), "{text:?}");
        // Prefixes of every length up to past two blocks, with multi-byte characters, so that each
        // needle starts and ends at every offset of a block and across block boundaries.
        let filler: String = "ab é日-_\"k0".chars().cycle().take(2 * BLOCK + 8).collect();
        let prefixes: Vec<&str> = filler.char_indices().map(|(at, _)| &filler[..at]).collect();
        for needle in NEEDLES {
            let alternating: String = needle
                .chars()
                .enumerate()
                .map(|(at, c)| if at % 2 == 0 { c.to_ascii_uppercase() } else { c })
                .collect();
            let mut near_misses = vec![needle[1..].to_string(), needle[..needle.len() - 1].to_string()];
            near_misses.push(format!(
                "{}é{}",
                &needle[..needle.len() / 2],
                &needle[needle.len() / 2..]
            ));
            let variants = [needle.to_string(), needle.to_ascii_uppercase(), alternating];
            for text in variants.iter().chain(&near_misses) {
                for prefix in &prefixes {
                    for suffix in ["", "x", "é", "日本", "\n"] {
                        check(&format!("{prefix}{text}{suffix}"));
                    }
                }
            }
        }
        // Pieces of needles glued at random: overlapping and adjacent anchors, partial needles.
        let pieces = [
            "tok", "en", "TOKEN", "\"", "access", "_", "-", "id", "Bear", "er", "k", "ey", "sk", "s", "e", "c", "ret",
            "pass", "word", "auth", "ori", "zation", "coo", "kie", "api", "é", "日", " ", "o", "K-",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = next() % 12;
            let text: String = (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            check(&text);
        }
    }

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
