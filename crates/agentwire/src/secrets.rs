//! Credentials kept out of the event log: access, refresh and id tokens, API keys, passwords,
//! `Authorization` headers and bearer tokens are replaced by `[redacted]` in `raw` and in
//! payloads, unless the host keeps them (`Options::keep_secrets`).
//!
//! Two kinds of secret are recognised: the value of a key that names one (`accessToken`,
//! `refresh_token`, `apiKey`, `Authorization`, `password`, ...: compared without case, `_` or `-`,
//! and written as camel, snake or kebab case spells it), and a credential inside text (`Bearer
//! <token>`, `Authorization: <value>`, an `sk-` API key). Each holds a needle ([`NEEDLES`]): a
//! cheap scan of the message bytes finds them, the strings holding one are read to decide whether
//! anything would change, and only a message where something would is parsed and rewritten. A
//! message with nothing to redact keeps its exact bytes.

use std::ops::ControlFlow;

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

/// For each anchor, the needles it stands for as `(needle index, offset)` ([`NEEDLE_ANCHORS`]
/// turned around), and how many: a flagged position is compared with these needles only.
const ANCHORED: [([(usize, usize); NEEDLES.len()], usize); ANCHORS.len()] = anchored();

const fn anchored() -> [([(usize, usize); NEEDLES.len()], usize); ANCHORS.len()] {
    let mut out = [([(0, 0); NEEDLES.len()], 0); ANCHORS.len()];
    let mut needle = 0;
    while needle < NEEDLES.len() {
        let (anchor, offset) = NEEDLE_ANCHORS[needle];
        let count = out[anchor].1;
        out[anchor].0[count] = (needle, offset);
        out[anchor].1 = count + 1;
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
pub fn suspect(text: &str) -> bool {
    each_needle(text, |_| ControlFlow::Break(())).is_break()
}

/// Where the needles of a text lie, kept so that a text scanned once is not scanned again for
/// the messages inside it (the emitter scans each line, then classifies its messages).
#[derive(Clone, Debug, Default)]
pub struct Needles {
    /// Ascending, without repeats: the first byte inside the string of each needle (one past the
    /// opening quote for `"token"`).
    at: Vec<usize>,
}

impl Needles {
    /// Scans `text`, forgetting the last scan; whether it holds a needle.
    pub fn scan(&mut self, text: &str) -> bool {
        self.at.clear();
        let _ = each_needle(text, |(start, needle)| {
            self.at.push(start + usize::from(needle.starts_with('"')));
            ControlFlow::Continue(())
        });
        // Reported in the order of the anchors, which two needles of one word may not keep.
        self.at.sort_unstable();
        self.at.dedup();
        !self.at.is_empty()
    }

    /// Whether the last scan found no needle.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// The needles inside `range` of the scanned text, as offsets from its start.
    fn within(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let first = self.at.partition_point(|at| *at < range.start);
        self.at[first..]
            .iter()
            .take_while(move |at| **at < range.end)
            .map(move |at| at - range.start)
    }
}

/// Calls `found` with each occurrence of a needle in `text` (compared without ASCII case): where
/// it starts, and the needle; until it breaks. In the order of the anchors they hold, which is
/// nearly but not always the order of their starts.
///
/// Every message goes through here, and almost none holds a needle. An automaton reading byte by
/// byte took 5-8% of `agentwire normalize`; instead each block of [`BLOCK`] positions is compared
/// against the [`ANCHORS`] at once, and only where an anchor sits are the needles holding it
/// ([`ANCHORED`]) compared. Same answer as an ASCII-case-insensitive Aho-Corasick search for
/// [`NEEDLES`] (the tests check both over the corpus), at several times its throughput
/// (`benches/secrets.rs`).
fn each_needle(text: &str, mut found: impl FnMut((usize, &'static str)) -> ControlFlow<()>) -> ControlFlow<()> {
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
        if lanes.iter().fold(0, |all, lane| all | lane) != 0 {
            // The lanes read eight at a time as words, skipping the zero ones.
            for (word_index, word) in lanes.chunks_exact(8).enumerate() {
                let mut word = u64::from_le_bytes(word.try_into().expect("eight lanes"));
                while word != 0 {
                    let lane = word_index * 8 + word.trailing_zeros() as usize / 8;
                    let pair = [fold(block[lane]), fold(block[lane + 1])];
                    anchored_needles(bytes, start + lane, pair, &mut found)?;
                    word &= word - 1;
                }
            }
        }
        start += BLOCK;
    }
    ControlFlow::Continue(())
}

/// For each position of the block, 1 if an anchor starts there, else 0. Written lane by lane
/// over fixed arrays, without early exits, so that it compiles to vector compares (a bit mask
/// built from the lanes instead halved the scan's throughput).
#[inline(always)]
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

/// Calls `found` for each needle that holds the anchor `pair` at `at` of `bytes` there.
fn anchored_needles(
    bytes: &[u8],
    at: usize,
    pair: [u8; 2],
    found: &mut impl FnMut((usize, &'static str)) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Some(anchor) = ANCHORS.iter().position(|candidate| *candidate == pair) else {
        return ControlFlow::Continue(());
    };
    let (needles, count) = &ANCHORED[anchor];
    for &(needle, offset) in &needles[..*count] {
        let needle = NEEDLES[needle];
        let Some(start) = at.checked_sub(offset) else {
            continue;
        };
        if bytes
            .get(start..start + needle.len())
            .is_some_and(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
        {
            found((start, needle))?;
        }
    }
    ControlFlow::Continue(())
}

/// Whether `key` names a credential: lowercased without `_` and `-` it is one of
/// [`SECRET_KEYS`], and it is written as a needle spells it (`token` only as the whole key). The
/// second condition makes the rule the same for a message's text, where only a needle leads to
/// a key, and for a tree: `access__token` or `_token` is no secret key in either.
fn is_secret_key(key: &str) -> bool {
    let mut normalized = [0u8; LONGEST_SECRET_KEY];
    let mut len = 0;
    for byte in key.bytes().filter(|byte| !matches!(byte, b'_' | b'-')) {
        let Some(slot) = normalized.get_mut(len) else {
            return false;
        };
        *slot = byte.to_ascii_lowercase();
        len += 1;
    }
    SECRET_KEYS.iter().any(|secret| secret.as_bytes() == &normalized[..len])
        && (key.eq_ignore_ascii_case("token") || suspect(key))
}

/// The length of the longest of [`SECRET_KEYS`]: a longer key is none of them.
const LONGEST_SECRET_KEY: usize = {
    let mut longest = 0;
    let mut key = 0;
    while key < SECRET_KEYS.len() {
        if SECRET_KEYS[key].len() > longest {
            longest = SECRET_KEYS[key].len();
        }
        key += 1;
    }
    longest
};

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
    let mut needles = Needles::default();
    if !needles.scan(raw.get()) {
        return None;
    }
    redact_scanned(raw, &needles, 0..raw.get().len())
}

/// [`redact_raw`] of a message already scanned: `needles` is the scan of a text that holds the
/// message at `range` (the line it came in).
pub fn redact_scanned(raw: &RawValue, needles: &Needles, range: std::ops::Range<usize>) -> Option<Box<RawValue>> {
    if !would_redact(raw.get(), needles.within(range)) {
        return None;
    }
    let mut value: Value = serde_json::from_str(raw.get()).ok()?;
    if !redact_value(&mut value) {
        return None;
    }
    serde_json::value::to_raw_value(&value).ok()
}

/// Whether [`redact_value`] would change the JSON `text`, read from where its needles lie
/// (ascending offsets) without building the tree or reading the rest. Every secret key and every
/// credential in text holds a needle ([`is_secret_key`], [`redact_text`]), so only the strings
/// holding one are looked at: a key changes its value when it names a credential and the value
/// is not `null`, a boolean or already redacted; a string value changes when it carries a
/// credential. Most suspect messages hold a needle only in a harmless key (Claude's
/// `apiKeySource`, in every `init`), and reading a large one whole to find nothing cost a sixth of
/// a claude-control stream. Text that is not JSON where it is read answers true.
fn would_redact(text: &str, needles: impl Iterator<Item = usize>) -> bool {
    let mut strings = Strings {
        bytes: text.as_bytes(),
        at: 0,
    };
    // The closing quote of the last string looked at: a needle before it lies in that string.
    let mut looked_at = 0;
    for at in needles {
        if at < looked_at {
            continue;
        }
        let Some((open, close, escaped)) = strings.find(|(_, close, _)| *close > at) else {
            return true;
        };
        // A needle before the string's opening quote lies outside any string.
        if at <= open || string_changes(text, open, close, escaped) {
            return true;
        }
        looked_at = close;
    }
    false
}

/// Whether redacting changes the string between the quotes at `open` and `close` of JSON `text`,
/// or the value it is the key of.
fn string_changes(text: &str, open: usize, close: usize, escaped: bool) -> bool {
    const SPACE: [char; 4] = [' ', '\t', '\n', '\r'];
    let content = if escaped {
        match serde_json::from_str::<String>(&text[open..=close]) {
            Ok(content) => std::borrow::Cow::Owned(content),
            Err(_) => return true,
        }
    } else {
        std::borrow::Cow::Borrowed(&text[open + 1..close])
    };
    match text[close + 1..].trim_start_matches(SPACE).strip_prefix(':') {
        Some(value) if is_secret_key(&content) => {
            let value = value.trim_start_matches(SPACE);
            let redacted = value
                .strip_prefix('"')
                .and_then(|value| value.strip_prefix(REDACTED))
                .is_some_and(|rest| rest.starts_with('"'));
            !(redacted || ["null", "true", "false"].iter().any(|kept| value.starts_with(kept)))
        }
        Some(_) => false,
        None => redact_text(&content).is_some(),
    }
}

/// The strings of JSON text in order, as `(opening quote, closing quote, holds an escape)`.
/// Outside strings JSON holds no quote and no backslash, so the next quote opens one.
struct Strings<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Iterator for Strings<'_> {
    type Item = (usize, usize, bool);

    fn next(&mut self) -> Option<Self::Item> {
        let open = self.at + memchr::memchr(b'"', self.bytes.get(self.at..)?)?;
        let mut at = open + 1;
        let mut escaped = false;
        loop {
            let found = at + memchr::memchr2(b'"', b'\\', self.bytes.get(at..)?)?;
            if self.bytes[found] == b'"' {
                self.at = found + 1;
                return Some((open, found, escaped));
            }
            escaped = true;
            at = found + 2;
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

    /// Where [`Needles::scan`] puts the needles of `text`.
    fn found_needles(needles: &mut Needles, text: &str) -> Vec<usize> {
        needles.scan(text);
        needles.at.clone()
    }

    /// The same from every match of the automaton, overlapping ones included.
    fn automaton_needles(automaton: &AhoCorasick, text: &str) -> Vec<usize> {
        let mut at: Vec<usize> = automaton
            .find_overlapping_iter(text)
            .map(|found| found.start() + usize::from(NEEDLES[found.pattern().as_usize()].starts_with('"')))
            .collect();
        at.sort_unstable();
        at.dedup();
        at
    }

    #[test]
    fn suspect_and_needles_answer_as_the_automaton_over_every_corpus_line() {
        let automaton = automaton();
        let mut needles = Needles::default();
        let files = crate::test_corpus::files();
        let (mut lines, mut suspects) = (0, 0);
        for path in &files {
            let bytes = std::fs::read(path).expect("a corpus file");
            let text = String::from_utf8_lossy(&bytes);
            for line in text.split('\n').chain([text.as_ref()]) {
                let expected = automaton.is_match(line);
                assert_eq!(suspect(line), expected, "{}: {line}", path.display());
                assert_eq!(
                    found_needles(&mut needles, line),
                    automaton_needles(&automaton, line),
                    "{}: {line}",
                    path.display()
                );
                lines += 1;
                suspects += usize::from(expected);
            }
        }
        assert!(
            lines > 1000 && suspects > 10 && suspects < lines,
            "{lines} lines, {suspects} suspect"
        );
    }

    /// [`would_redact`] over the needles [`Needles::scan`] finds.
    fn scanned_would_redact(text: &str) -> bool {
        let mut needles = Needles::default();
        needles.scan(text);
        would_redact(text, needles.within(0..text.len()))
    }

    /// [`would_redact`] against building the `Value` and redacting it.
    fn redacts_when_scanned(json: &str) -> bool {
        let mut value: Value = serde_json::from_str(json).expect("valid JSON");
        let changed = redact_value(&mut value);
        assert_eq!(scanned_would_redact(json), changed, "{json}");
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
            r#"{"a\"b":"x","list":[1,{"Refresh-Token" : "r"}]}"#,
            r#"{"x":"Bearer\u0020abc","apiKeySource":"user"}"#,
            r#"{"TOKEN":"t"}"#,
            r#"{"X_API_KEY":"k"}"#,
            r#"{"note":"sk-proj-0123456789abcdefghij"}"#,
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
            r#"{"apiKeySource":"ANTHROPIC_API_KEY","cookie" : false,"secret":"[redacted]"}"#,
            r#"{"description":"a token\"s cookie jar","password":true}"#,
            r#"{"_token":"x","access__token":"y","apiKey":null}"#,
        ];
        for json in unchanged {
            assert!(!redacts_when_scanned(json), "{json}");
        }
        for text in [
            "{not json, Bearer abc",
            r#"{"a":"Bearer abc"#,
            r#"{"password"#,
            r#"{"x":1} password"#,
        ] {
            assert!(
                scanned_would_redact(text),
                "what does not read goes the full way: {text}"
            );
        }
    }

    #[test]
    fn suspect_and_needles_answer_as_the_automaton_on_crafted_text() {
        let automaton = automaton();
        let mut needles = Needles::default();
        let mut check = |text: &str| {
            assert_eq!(suspect(text), automaton.is_match(text), "{text:?}");
            assert_eq!(
                found_needles(&mut needles, text),
                automaton_needles(&automaton, text),
                "{text:?}"
            );
        };
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
    fn secret_keys_are_written_as_a_needle_spells_them() {
        for key in [
            "accessToken",
            "ACCESS_TOKEN",
            "access-token",
            "Token",
            "x-api-key",
            "clientSecret",
            "Cookie",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in [
            "_token",
            "access__token",
            "to-ken",
            "apiKeySource",
            "inputTokens",
            "tokens",
            "keys",
        ] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn needles_are_found_in_order_and_read_back_by_range() {
        let text = r#"{"x":"bearer_token","token":1,"y":"BEARER"}"#;
        let mut needles = Needles::default();
        assert!(needles.scan(text));
        // `bearer_token` and `bearer` start at the same byte; `"token"` from inside its quotes.
        assert_eq!(needles.at, vec![6, 21, 35]);
        assert_eq!(needles.within(20..40).collect::<Vec<_>>(), vec![1, 15]);
        assert!(!needles.scan("nothing here"));
        assert!(needles.at.is_empty(), "a scan forgets the last one");
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
