//! Credentials kept out of the event log: tokens, API keys, passwords, private keys, credentials
//! in URLs and `Authorization` headers are replaced by `[redacted]` in `raw` and in payloads,
//! unless the host keeps them (`Options::keep_secrets`). Nothing else is: a report of token
//! counts, a file named `tokenizer.py` or an object under an `api-key` key stays as sent.
//!
//! Two kinds of secret are recognised, by the rule set in [`rules`] (taken from gitleaks' and
//! trufflehog's published rules, each row naming its source):
//! - the value of a key that names a credential ([`rules::KEY_WORDS`]: `GITHUB_TOKEN`,
//!   `openai_api_key`, `db_password`, `Authorization`, ...), when it is a string that is no
//!   placeholder; an object, an array, a number, a boolean or `null` under such a key is never
//!   replaced (what it holds is looked at like anything else);
//! - a credential inside any string ([`rules::VALUE_RULES`]: a GitHub or Slack token, an AWS key
//!   id, a JWT, a private key's body, a URL's password, `Bearer <token>`, `NAME=value` where the
//!   name is a secret key, ...): the part the rule names is replaced, the text around it kept.
//!
//! Every rule holds needles ([`NEEDLES`]): a cheap scan of the message bytes finds them, the
//! strings holding one are read to decide whether anything would change, and only a message
//! where something would is parsed and rewritten. A message with nothing to redact keeps its
//! exact bytes. The needles are looked for in the JSON text as written: a credential whose
//! letters are written as `\u` escapes is not found (no writer of the supported providers
//! escapes ASCII letters); a URL whose slashes are escaped (`:\/\/`) is.

pub mod rules;

use std::ops::ControlFlow;
use std::sync::OnceLock;

use agentwire_protocol::scan;
use regex::{Captures, Regex};
use serde_json::Value;
use serde_json::value::RawValue;

use rules::{DESCRIPTORS, KEY_NEEDLES, KEY_WORDS, PLACEHOLDERS, Place, VALUE_RULES};

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Substrings, any case, without which a message holds no secret this module recognises: the
/// needles of the key words and of every value rule, each once.
pub const NEEDLES: [&str; NEEDLE_COUNT] = {
    let (all, _) = distinct_needles();
    let mut out = [""; NEEDLE_COUNT];
    let mut at = 0;
    while at < NEEDLE_COUNT {
        out[at] = all[at];
        at += 1;
    }
    out
};

const NEEDLE_COUNT: usize = distinct_needles().1;

/// At most this many distinct needles (checked when this compiles).
const MAX_NEEDLES: usize = 80;

/// The needles of [`KEY_NEEDLES`] and of the value rules in order, without repeats, and how many.
const fn distinct_needles() -> ([&'static str; MAX_NEEDLES], usize) {
    let mut out = [""; MAX_NEEDLES];
    let mut count = 0;
    let mut rule = 0;
    // Rule `VALUE_RULES.len()` stands for the key needles.
    while rule <= VALUE_RULES.len() {
        let needles = if rule == VALUE_RULES.len() {
            KEY_NEEDLES
        } else {
            VALUE_RULES[rule].needles
        };
        let mut needle = 0;
        while needle < needles.len() {
            let candidate = needles[needle];
            let mut seen = false;
            let mut at = 0;
            while at < count {
                seen = seen || same(out[at], candidate);
                at += 1;
            }
            if !seen {
                assert!(count < MAX_NEEDLES, "at most MAX_NEEDLES needles");
                assert!(lowercase(candidate), "needles are written in lowercase");
                out[count] = candidate;
                count += 1;
            }
            needle += 1;
        }
        rule += 1;
    }
    (out, count)
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

const fn lowercase(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_uppercase() {
            return false;
        }
        at += 1;
    }
    true
}

/// For each needle, the value rules that list it, as bits by rule index: a text is matched
/// against the rules whose needles it holds, and no other.
const NEEDLE_RULES: [u64; NEEDLE_COUNT] = {
    assert!(VALUE_RULES.len() <= 64, "at most 64 value rules");
    let mut out = [0u64; NEEDLE_COUNT];
    let mut needle = 0;
    while needle < NEEDLE_COUNT {
        let mut rule = 0;
        while rule < VALUE_RULES.len() {
            let needles = VALUE_RULES[rule].needles;
            let mut at = 0;
            while at < needles.len() {
                if same(needles[at], NEEDLES[needle]) {
                    out[needle] |= 1 << rule;
                }
                at += 1;
            }
            rule += 1;
        }
        needle += 1;
    }
    out
};

/// Three-byte windows of the needles, lowercase: every needle holds one (checked when this
/// compiles). The scan reads a text's byte pairs at even offsets only, half of them: a window's
/// two pairs stand at adjacent offsets, one of them even, so no needle is stepped over. Each pair
/// costs nothing but the positions where it stands (a table read, [`PAIR_TABLE`]), so they are
/// windows whose pairs are rare in the corpus, sharing pairs where they can.
const WINDOWS: &[&str] = &[
    "oke", "oki", // `token"`, `token=`, ... (a secret key's `token`), `cookie`
    "iza", "ial", "ecr", "swo", "swd", // `authorization`, `AIza`, `credential`, `secret`, `password`, `passwd`
    "pik", "pi_", "pi-", "iva", // `apikey`, `api_key` and `api_org_`, `api-key`, `privatekey` spelt any way
    "bea", "eyj", "ey=", // `bearer`, a JWT's `eyJ`, Azure's `AccountKey=`
    "ghp", "gho", "ghu", "ghs", "ghr", "hub", // GitHub's `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`
    "a3t", "kia", "sia", "bia", "cca", // AWS key ids: `A3T`, `AKIA`, `ASIA`, `ABIA`, `ACCA`
    "xox", "://", ":\\/", // Slack's `xox`; a URL's `://`, or `:\/` in JSON text that escapes its slashes
    "glp", "pm_", "hf_", "sk_", "rk_", // GitLab's `glpat-`, npm's `npm_`, Hugging Face's `hf_`, Stripe's keys
    "sk-", "sg.", "29.", // `sk-` keys, SendGrid's `SG.`, Google OAuth's `ya29.`
    "sk0", "sk1", "sk2", "sk3", "sk4", "sk5", "sk6", "sk7", // Twilio's `SK` and a hex digit
    "sk8", "sk9", "ska", "skb", "skc", "skd", "ske", "skf",
];

/// The byte pairs of the [`WINDOWS`], lowercase, each once.
const PAIRS: [[u8; 2]; PAIR_COUNT] = {
    let (all, _) = distinct_pairs();
    let mut out = [[0; 2]; PAIR_COUNT];
    let mut at = 0;
    while at < PAIR_COUNT {
        out[at] = all[at];
        at += 1;
    }
    out
};

const PAIR_COUNT: usize = distinct_pairs().1;

const MAX_PAIRS: usize = 2 * WINDOWS.len();

/// The pairs of the windows in order, without repeats, and how many.
const fn distinct_pairs() -> ([[u8; 2]; MAX_PAIRS], usize) {
    let mut out = [[0; 2]; MAX_PAIRS];
    let mut count = 0;
    let mut window = 0;
    while window < WINDOWS.len() {
        let bytes = WINDOWS[window].as_bytes();
        assert!(
            bytes.len() == 3 && lowercase(WINDOWS[window]),
            "windows are three bytes, lowercase"
        );
        let mut first = 0;
        while first < 2 {
            let pair = [bytes[first], bytes[first + 1]];
            let mut seen = false;
            let mut at = 0;
            while at < count {
                seen = seen || (out[at][0] == pair[0] && out[at][1] == pair[1]);
                at += 1;
            }
            if !seen {
                out[count] = pair;
                count += 1;
            }
            first += 1;
        }
        window += 1;
    }
    (out, count)
}

/// The index of `pair` in [`PAIRS`].
const fn pair_index(pair: [u8; 2]) -> Option<usize> {
    let mut at = 0;
    while at < PAIR_COUNT {
        if PAIRS[at][0] == pair[0] && PAIRS[at][1] == pair[1] {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// For each needle, where the first window it holds starts in it. A needle that holds none
/// fails the build.
const NEEDLE_WINDOWS: [usize; NEEDLE_COUNT] = {
    let mut out = [0; NEEDLE_COUNT];
    let mut needle = 0;
    while needle < NEEDLE_COUNT {
        let bytes = NEEDLES[needle].as_bytes();
        let mut found = None;
        let mut offset = 0;
        while found.is_none() && offset + 2 < bytes.len() {
            let mut window = 0;
            while found.is_none() && window < WINDOWS.len() {
                let window_bytes = WINDOWS[window].as_bytes();
                if bytes[offset] == window_bytes[0]
                    && bytes[offset + 1] == window_bytes[1]
                    && bytes[offset + 2] == window_bytes[2]
                {
                    found = Some(offset);
                }
                window += 1;
            }
            offset += 1;
        }
        match found {
            Some(offset) => out[needle] = offset,
            None => panic!("every needle holds a window"),
        }
        needle += 1;
    }
    out
};

/// For each pair, the needles whose window holds it, as `(needle index, where the pair starts in
/// the needle)`, and how many: a position where the pair stands is compared with these needles
/// only.
static PAIR_NEEDLES: [([(u8, u8); NEEDLE_COUNT], usize); PAIR_COUNT] = {
    assert!(NEEDLE_COUNT <= 256, "needle indexes fit a byte");
    let mut out = [([(0, 0); NEEDLE_COUNT], 0); PAIR_COUNT];
    let mut needle = 0;
    while needle < NEEDLE_COUNT {
        let bytes = NEEDLES[needle].as_bytes();
        let mut first = NEEDLE_WINDOWS[needle];
        while first < NEEDLE_WINDOWS[needle] + 2 {
            let Some(pair) = pair_index([bytes[first], bytes[first + 1]]) else {
                panic!("a window's pairs are pairs");
            };
            let count = out[pair].1;
            out[pair].0[count] = (needle as u8, first as u8);
            out[pair].1 = count + 1;
            first += 1;
        }
        needle += 1;
    }
    out
};

/// For each two bytes, read as a little-endian `u16`: 1 + the index in [`PAIRS`] of the pair they
/// spell without ASCII case, or 0. 64 KiB, read at every other byte of every line: the pairs that
/// a line holds are few, and so are the cache lines read.
static PAIR_TABLE: [u8; 1 << 16] = {
    assert!(PAIR_COUNT < 255, "pair indexes fit a byte");
    let mut out = [0; 1 << 16];
    let mut pair = 0;
    while pair < PAIR_COUNT {
        let [first, second] = PAIRS[pair];
        let firsts = [first, first.to_ascii_uppercase()];
        let seconds = [second, second.to_ascii_uppercase()];
        let mut at = 0;
        while at < 4 {
            out[u16::from_le_bytes([firsts[at / 2], seconds[at % 2]]) as usize] = pair as u8 + 1;
            at += 1;
        }
        pair += 1;
    }
    out
};

/// [`PAIR_TABLE`]'s entry for the two bytes.
#[inline(always)]
fn pair_entry(first: u8, second: u8) -> u8 {
    PAIR_TABLE[usize::from(u16::from_le_bytes([first, second]))]
}

/// Whether `text` may hold a secret (no false negatives for what this module redacts): whether
/// it holds a needle, compared without ASCII case.
pub fn suspect(text: &str) -> bool {
    each_needle(text, |_| ControlFlow::Break(())).is_break()
}

/// Where the needles of a text lie, kept so that a text scanned once is not scanned again for
/// the messages inside it (the emitter scans each line, then classifies its messages).
#[derive(Clone, Debug, Default)]
pub struct Needles {
    /// Ascending, without repeats: where each needle starts, and its index in [`NEEDLES`]. A
    /// needle starts inside a string of JSON text (outside strings JSON holds no letters but in
    /// `true`, `false`, `null` and numbers, and no `://`).
    at: Vec<(usize, usize)>,
}

impl Needles {
    /// Scans `text`, forgetting the last scan; whether it holds a needle.
    pub fn scan(&mut self, text: &str) -> bool {
        self.at.clear();
        let _ = each_needle(text, |found| {
            self.at.push(found);
            ControlFlow::Continue(())
        });
        // Reported in the order of the pairs of their windows, which two needles of one word
        // may not keep.
        self.at.sort_unstable();
        self.at.dedup();
        !self.at.is_empty()
    }

    /// Whether the last scan found no needle.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Whether redacting would change the JSON `text` ([`redact_value`] of it), found without
    /// parsing it when it holds no needle or only harmless ones; this buffer is reused.
    pub fn would_change(&mut self, text: &str) -> bool {
        self.scan(text) && would_redact(text, self.within(0..text.len()))
    }

    /// The needles inside `range` of the scanned text, as offsets from its start with their
    /// index in [`NEEDLES`].
    fn within(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = (usize, usize)> + '_ {
        let first = self.at.partition_point(|(at, _)| *at < range.start);
        self.at[first..]
            .iter()
            .take_while(move |(at, _)| *at < range.end)
            .map(move |(at, needle)| (at - range.start, *needle))
    }
}

/// Calls `found` with each occurrence of a needle in `text` (compared without ASCII case): where
/// it starts, and the needle's index in [`NEEDLES`]; until it breaks. In the order of the pairs
/// of their windows, which is nearly but not always the order of their starts.
///
/// Every message goes through here, and almost none holds a needle. An automaton reading byte by
/// byte took 5-8% of `agentwire normalize`, and vector compares of each block against two-byte
/// anchors cost every line more with every anchor; instead the pairs at even offsets are read in
/// [`PAIR_TABLE`], one table read for two bytes whatever the number of rules. Where a pair of a
/// window stands and so does the pair before or after it (the window's other pair), the needles
/// of that window ([`PAIR_NEEDLES`]) are compared. Same answer as an ASCII-case-insensitive
/// Aho-Corasick search for [`NEEDLES`] (the tests check both over the corpus), at several times
/// its throughput (`benches/secrets.rs`).
fn each_needle(text: &str, mut found: impl FnMut((usize, usize)) -> ControlFlow<()>) -> ControlFlow<()> {
    let bytes = text.as_bytes();
    let stands = |at: usize| match bytes.get(at..at + 2) {
        Some(&[first, second]) => pair_entry(first, second) != 0,
        _ => false,
    };
    let (pairs, _) = bytes.as_chunks::<2>();
    for (half, &[first, second]) in pairs.iter().enumerate() {
        let entry = pair_entry(first, second);
        if entry == 0 {
            continue;
        }
        let at = 2 * half;
        if stands(at + 1) || at.checked_sub(1).is_some_and(stands) {
            paired_needles(bytes, at, usize::from(entry - 1), &mut found)?;
        }
    }
    ControlFlow::Continue(())
}

/// Calls `found` for each needle whose window holds the pair `pair` (an index in [`PAIRS`]) where
/// it stands, at `at` of `bytes`.
fn paired_needles(
    bytes: &[u8],
    at: usize,
    pair: usize,
    found: &mut impl FnMut((usize, usize)) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let (needles, count) = &PAIR_NEEDLES[pair];
    for &(needle, offset) in &needles[..*count] {
        let (needle, offset) = (usize::from(needle), usize::from(offset));
        let text = NEEDLES[needle];
        let Some(start) = at.checked_sub(offset) else {
            continue;
        };
        if bytes
            .get(start..start + text.len())
            .is_some_and(|window| window.eq_ignore_ascii_case(text.as_bytes()))
        {
            found((start, needle))?;
        }
    }
    ControlFlow::Continue(())
}

/// Whether `key` names a credential ([`KEY_WORDS`]): it ends with an end word (`GITHUB_TOKEN`)
/// or holds a whole word that is not followed by a descriptor (`db_password`, not
/// `apiKeySource`). Every word is written as one of [`KEY_NEEDLES`] spells it, so such a key,
/// written in JSON or assigned in text, always holds a needle.
fn is_secret_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    KEY_WORDS.iter().any(|word| {
        word.spellings.iter().any(|spelling| match word.place {
            Place::End { not_after } => {
                let Some(start) = bytes.len().checked_sub(spelling.len()) else {
                    return false;
                };
                bytes[start..].eq_ignore_ascii_case(spelling.as_bytes()) && !ends_with_word(&bytes[..start], not_after)
            }
            Place::Word => holds_word(bytes, spelling.as_bytes()),
        })
    })
}

/// Whether `key` holds `word` (any case) ended by the key's end, a separator, a digit or a
/// capital after a small letter, with no descriptor ending what follows.
fn holds_word(key: &[u8], word: &[u8]) -> bool {
    key.windows(word.len())
        .enumerate()
        .filter(|(_, window)| window.eq_ignore_ascii_case(word))
        .any(|(start, _)| {
            let end = start + word.len();
            let ended = match key.get(end) {
                None => true,
                Some(next) => {
                    separator(*next)
                        || next.is_ascii_digit()
                        || (next.is_ascii_uppercase() && key[end - 1].is_ascii_lowercase())
                }
            };
            ended && !ends_with_word(&key[end..], DESCRIPTORS)
        })
}

fn separator(byte: u8) -> bool {
    matches!(byte, b'_' | b'-' | b'.' | b' ')
}

/// Whether `text`, without separators, ends with one of `words` (any case).
fn ends_with_word(text: &[u8], words: &[&str]) -> bool {
    // The last letters, latest first: words are short, and so is what is compared.
    let mut tail = [0u8; 16];
    let mut len = 0;
    for byte in text.iter().rev().filter(|byte| !separator(**byte)) {
        if len == tail.len() {
            break;
        }
        tail[len] = byte.to_ascii_lowercase();
        len += 1;
    }
    words
        .iter()
        .any(|word| word.len() <= len && word.bytes().rev().zip(&tail[..len]).all(|(a, b)| a == *b))
}

/// Whether `value` says there is no secret here: empty, already `[redacted]`, a
/// [`PLACEHOLDERS`] word, a reference to one (`$NAME`, `${NAME}`, `{{ name }}`, `<name>`) or a
/// mask (`***`, `xxx`).
fn is_placeholder(value: &str) -> bool {
    let value = value.trim();
    let name = |name: &str| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
    };
    let enclosed = |open: &str, close: &str| {
        value.len() > open.len() + close.len() && value.starts_with(open) && value.ends_with(close)
    };
    let mask = |mark: &[u8]| value.len() >= 3 && value.bytes().all(|byte| mark.contains(&byte));
    value.is_empty()
        || value.starts_with(REDACTED)
        || PLACEHOLDERS.iter().any(|word| value.eq_ignore_ascii_case(word))
        || value.strip_prefix('$').is_some_and(name)
        || enclosed("${", "}")
        || enclosed("{{", "}}")
        || enclosed("<", ">")
        || mask(b"*")
        || mask(b"xX")
}

/// Whether an unquoted value looks like a credential rather than a word of prose or code
/// (`password: string`, `token=None`, `apiKey = process.env.KEY`): 8 or more characters,
/// letters and digits among them.
fn looks_like_credential(value: &str) -> bool {
    value.len() >= 8
        && value.bytes().any(|byte| byte.is_ascii_digit())
        && value.bytes().any(|byte| byte.is_ascii_alphabetic())
}

/// Shannon entropy of `text`'s bytes, in bits per byte (gitleaks' `entropy`).
fn entropy(text: &str) -> f64 {
    let mut counts = [0usize; 256];
    for byte in text.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let len = text.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let share = *count as f64 / len;
            -share * share.log2()
        })
        .sum()
}

/// A value rule made ready: its patterns compiled, its groups found.
struct Compiled {
    pattern: Regex,
    allow: Vec<Regex>,
    /// The `name` group: a secret key's name.
    name: Option<usize>,
    /// The `bare` group: an unquoted value that must look like a credential.
    bare: Option<usize>,
    entropy: f64,
}

/// Compiles the rules now, if no redaction in this process has yet: a live host builds its
/// normalizer before the session starts, so the first line that looks like it holds a secret
/// does not wait for the compile (~20 ms, the slowest event of a live session otherwise).
pub fn prepare() {
    compiled();
}

/// [`VALUE_RULES`] compiled, once per process (a pattern that does not compile fails the
/// module's tests).
fn compiled() -> &'static [Compiled] {
    static COMPILED: OnceLock<Vec<Compiled>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        VALUE_RULES
            .iter()
            .map(|rule| {
                let pattern = Regex::new(rule.pattern).unwrap_or_else(|err| panic!("rule {}: {err}", rule.id));
                let group = |name: &str| pattern.capture_names().position(|group| group == Some(name));
                Compiled {
                    name: group("name"),
                    bare: group("bare"),
                    allow: rule
                        .allow
                        .iter()
                        .map(|allow| Regex::new(allow).unwrap_or_else(|err| panic!("rule {}: {err}", rule.id)))
                        .collect(),
                    entropy: rule.entropy,
                    pattern,
                }
            })
            .collect()
    })
}

impl Compiled {
    /// Where the secret of a match lies, or `None` when the match holds no secret.
    fn secret(&self, captures: &Captures<'_>) -> Option<std::ops::Range<usize>> {
        let (group, found) = (1..captures.len())
            .filter(|group| Some(*group) != self.name)
            .find_map(|group| captures.get(group).map(|found| (group, found)))
            .or_else(|| captures.get(0).map(|found| (0, found)))?;
        let secret = found.as_str();
        let holds = !is_placeholder(secret)
            && (Some(group) != self.bare || looks_like_credential(secret))
            && self
                .name
                .is_none_or(|name| captures.get(name).is_some_and(|name| is_secret_key(name.as_str())))
            && entropy(secret) >= self.entropy
            && !self.allow.iter().any(|allow| allow.is_match(secret));
        holds.then(|| found.range())
    }
}

/// The value rules whose needles `text` holds, as bits by rule index ([`NEEDLE_RULES`]).
fn rules_of(text: &str) -> u64 {
    let mut rules = 0u64;
    let _ = each_needle(text, |(_, needle)| {
        rules |= NEEDLE_RULES[needle];
        ControlFlow::Continue(())
    });
    rules
}

/// The secrets `text` holds by the value rules in `rules`, each where it lies (unsorted).
fn secrets_by(text: &str, rules: u64) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    compiled()
        .iter()
        .enumerate()
        .filter(move |(index, _)| rules & (1 << index) != 0)
        .flat_map(move |(_, rule)| {
            rule.pattern
                .captures_iter(text)
                .filter_map(|captures| rule.secret(&captures))
        })
}

/// The byte ranges of `text` that are secrets, ascending and apart (overlapping ones merged).
fn secret_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<std::ops::Range<usize>> = secrets_by(text, rules_of(text)).collect();
    ranges.sort_unstable_by_key(|range| (range.start, range.end));
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Redacts secrets in a JSON value in place; true if anything changed.
pub fn redact_value(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut changed = false;
            for (key, item) in map.iter_mut() {
                if is_secret_key(key) && item.as_str().is_some_and(|text| !is_placeholder(text)) {
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
    let ranges = secret_ranges(text);
    if ranges.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for range in ranges {
        out.push_str(&text[kept..range.start]);
        out.push_str(REDACTED);
        kept = range.end;
    }
    out.push_str(&text[kept..]);
    Some(out)
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
/// credential in text holds a needle ([`is_secret_key`], [`rules::ValueRule::needles`]), so only
/// the strings holding one are looked at: a key changes its value when it names a credential and
/// the value is a string that is no placeholder; a string value changes when it carries a
/// credential. Most suspect messages hold a needle only in a harmless key (Claude's
/// `apiKeySource`, in every `init`), and reading a large one whole to find nothing cost a sixth of
/// a claude-control stream. Text that is not JSON where it is read answers true.
fn would_redact(text: &str, needles: impl Iterator<Item = (usize, usize)>) -> bool {
    let mut strings = Strings {
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut needles = needles.peekable();
    while let Some((at, needle)) = needles.next() {
        let Some((open, close, escaped)) = strings.find(|(_, close, _)| *close > at) else {
            return true;
        };
        // A needle before the string's opening quote lies outside any string.
        if at <= open {
            return true;
        }
        let mut rules = NEEDLE_RULES[needle];
        while let Some((_, needle)) = needles.next_if(|(at, _)| *at < close) {
            rules |= NEEDLE_RULES[needle];
        }
        if string_changes(text, open, close, escaped, rules) {
            return true;
        }
    }
    false
}

/// The string between the quotes at `open` and `close` of JSON `text`, unescaped; `None` when it
/// does not read.
fn string_at(text: &str, open: usize, close: usize, escaped: bool) -> Option<std::borrow::Cow<'_, str>> {
    if escaped {
        serde_json::from_str::<String>(&text[open..=close])
            .ok()
            .map(std::borrow::Cow::Owned)
    } else {
        Some(std::borrow::Cow::Borrowed(&text[open + 1..close]))
    }
}

/// Whether redacting changes the string between the quotes at `open` and `close` of JSON `text`,
/// or the value it is the key of; `rules` are the value rules of the needles found between the
/// quotes ([`NEEDLE_RULES`]).
///
/// The string's text is matched against those rules without being scanned again (a rollout's
/// `session_meta` carries the model's instructions, tens of kilobytes that mention tokens). Its
/// escapes do not hide a needle from the scan of the JSON text: `token\"` holds the needle
/// `token\` where the string's text holds `token"`, both of the key rule; only `\/` (`://`
/// written `:\/\/`) and `\u` escapes can spell a needle the JSON text lacks, and a string
/// holding one is scanned again.
fn string_changes(text: &str, open: usize, close: usize, escaped: bool, rules: u64) -> bool {
    const SPACE: [char; 4] = [' ', '\t', '\n', '\r'];
    let Some(content) = string_at(text, open, close, escaped) else {
        return true;
    };
    match text[close + 1..].trim_start_matches(SPACE).strip_prefix(':') {
        Some(value) if is_secret_key(&content) => {
            let value = value.trim_start_matches(SPACE);
            if !value.starts_with('"') {
                // An object, an array, a number, a boolean or `null`: never replaced.
                return false;
            }
            let value_open = text.len() - value.len();
            let mut strings = Strings {
                bytes: text.as_bytes(),
                at: value_open,
            };
            match strings
                .next()
                .and_then(|(open, close, escaped)| string_at(text, open, close, escaped))
            {
                Some(value) => !is_placeholder(&value),
                None => true,
            }
        }
        Some(_) => false,
        None => {
            let written = &text.as_bytes()[open..close];
            let spells_needles = |escape: &[u8]| memchr::memmem::find(written, escape).is_some();
            let rules = if escaped && (spells_needles(b"\\u") || spells_needles(b"\\/")) {
                rules_of(&content)
            } else {
                rules
            };
            secrets_by(&content, rules).next().is_some()
        }
    }
}

/// The strings of JSON text in order, as `(opening quote, closing quote, holds an escape)`, each
/// read by [`scan::string_end`]. Outside strings JSON holds no quote, so the next quote opens one;
/// a string that does not lex ends the walk.
struct Strings<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Iterator for Strings<'_> {
    type Item = (usize, usize, bool);

    fn next(&mut self) -> Option<Self::Item> {
        let open = self.at + memchr::memchr(b'"', self.bytes.get(self.at..)?)?;
        let (end, escaped) = scan::string_end(self.bytes, open)?;
        self.at = end;
        Some((open, end - 1, escaped))
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
        let mut at: Vec<usize> = needles.at.iter().map(|(at, _)| *at).collect();
        at.dedup();
        at
    }

    /// The same from every match of the automaton, overlapping ones included.
    fn automaton_needles(automaton: &AhoCorasick, text: &str) -> Vec<usize> {
        let mut at: Vec<usize> = automaton
            .find_overlapping_iter(text)
            .map(|found| found.start())
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
        // Real traffic holds no credential: nothing in it is redacted (gemini's `authMethods`
        // `_meta: {"api-key": {...}}` was, before objects under a secret key were kept). The
        // crafted values below and `tests/secrets.rs` cover what changes.
        assert_eq!(changed, 0, "no corpus line holds a credential");
    }

    #[test]
    fn the_scan_finds_what_redacting_changes_in_crafted_values() {
        let changes = [
            r#"{"apiKey":"k"}"#,
            r#"{"a":[{"access_token":"12"}]}"#,
            r#"{"x":"Authorization: Bearer abc.def"}"#,
            r#"["sk-proj-0123456789abcdefghij"]"#,
            r#"{"cookie":"a\u0041"}"#,
            r#"{"a\"b":"x","list":[1,{"Refresh-Token" : "r"}]}"#,
            r#"{"x":"Bearer\u0020abc12345","apiKeySource":"user"}"#,
            r#"{"TOKEN":"t"}"#,
            r#"{"X_API_KEY":"k"}"#,
            r#"{"note":"sk-proj-0123456789abcdefghij"}"#,
            r#"{"GITHUB_TOKEN":"g"}"#,
            r#"{"db_password" : "\u0070w"}"#,
            r#"{"AWS_SECRET_ACCESS_KEY":"s"}"#,
            r#"{"url":"postgres://app:p4ss@db/app"}"#,
            r#"{"out":"export refresh_token=rt_123456789"}"#,
            r#"{"k":"ghp_0123456789abcdefghijABCDEFGHIJklmnop"}"#,
            r#"{"_token":"x","access__token":"y"}"#,
            r#"{"text":"{\"password\":\"abc\"}"}"#,
            r#"{"text":"{\"token\": \"abcdef12345\"}"}"#,
            r#"{"url":"postgres:\/\/app:p4ss@db\/app"}"#,
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
            r#"{"to-ken":"x","apiKey":null}"#,
            r#"{"a":[{"access_token":12}]}"#,
            r#"{"password":{"nested":true},"secret":[]}"#,
            r#"{"_meta":{"api-key":{"provider":"google"}}}"#,
            r#"{"max_tokens":4096,"token_count":"7","input_tokens":1,"path":"src/tokenizer.py"}"#,
            r#"{"url":"https://example.com:8080/a@b"}"#,
            r#"{"apiKey":"${OPENAI_API_KEY}","token":"none","password":""}"#,
            r#"{"text":"password: string; token=None"}"#,
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
        // Prefixes of many lengths, with multi-byte characters, so that each needle starts at even
        // and odd offsets after every kind of byte.
        let filler: String = "ab é日-_\"k0".chars().cycle().take(72).collect();
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
            "pass", "word", "auth", "ori", "zation", "coo", "kie", "api", "é", "日", " ", "o", "K-", "gl", "pat",
            "npm", "hf", "org", "SK", "rk", "live", "SG", ".", "ya", "29", "Account", "Key", "=", "0", "f",
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
    fn every_window_is_the_window_of_a_needle() {
        // A window no needle takes would only cost the positions where its pairs stand.
        for window in WINDOWS {
            assert!(
                (0..NEEDLE_COUNT).any(|needle| NEEDLES[needle][NEEDLE_WINDOWS[needle]..].starts_with(window)),
                "{window}"
            );
        }
    }

    #[test]
    fn secret_keys_are_redacted_at_any_depth() {
        let mut value = json!({
            "accessToken": "a1", "params": {"refresh_token": "r1", "api-key": "k1", "Authorization": "Basic x"},
            "items": [{"password": "p"}], "inputTokens": 12, "tokenUsage": {"total": 3}, "apiKeySource": "user",
            "env": {"GITHUB_TOKEN": "g", "openai_api_key": "o", "db_password": "d", "AWS_SECRET_ACCESS_KEY": "s"}
        });
        assert!(redact_value(&mut value));
        assert_eq!(
            value,
            json!({
                "accessToken": REDACTED, "params": {"refresh_token": REDACTED, "api-key": REDACTED, "Authorization": REDACTED},
                "items": [{"password": REDACTED}], "inputTokens": 12, "tokenUsage": {"total": 3}, "apiKeySource": "user",
                "env": {"GITHUB_TOKEN": REDACTED, "openai_api_key": REDACTED, "db_password": REDACTED, "AWS_SECRET_ACCESS_KEY": REDACTED}
            })
        );
    }

    #[test]
    fn only_scalar_strings_that_are_no_placeholder_are_replaced() {
        let kept = json!({
            "_meta": {"api-key": {"provider": "google"}}, "privateKey": {"kty": "RSA"}, "secret": ["a", "b"],
            "password": null, "apiKey": false, "access_token": 12, "token": "none", "refresh_token": "",
            "client_secret": "[redacted]", "db_password": "${DB_PASSWORD}", "GITHUB_TOKEN": "$GITHUB_TOKEN",
            "api_key": "<your key>", "auth_token": "****", "session_token": "xxxx", "cookie": "{{ cookie }}",
            "max_tokens": 4096, "token_count": "12", "input_tokens": 3, "file": "tokenizer.py", "apiKeySource": "none"
        });
        let mut value = kept.clone();
        assert!(!redact_value(&mut value));
        assert_eq!(value, kept);
    }

    #[test]
    fn secret_keys_end_with_or_hold_a_secret_word() {
        for key in [
            "accessToken",
            "ACCESS_TOKEN",
            "access-token",
            "access__token",
            "_token",
            "Token",
            "GITHUB_TOKEN",
            "mytoken",
            "x-api-key",
            "apiKey",
            "openai_api_key",
            "OPENAI_API_KEY_2",
            "clientSecret",
            "client_secret_value",
            "AWS_SECRET_ACCESS_KEY",
            "db_password",
            "PGPASSWORD",
            "passwd",
            "private_key_pem",
            "Cookie",
            "set-cookie",
            "Proxy-Authorization",
            "credentials",
            "secret",
        ] {
            assert!(is_secret_key(key), "{key}");
            // Written as a JSON key or assigned in text, it holds a needle.
            for written in [
                format!("{{\"{key}\":\"v\"}}"),
                format!("{key}=v"),
                format!("{key} = v"),
                format!("{key}: v"),
            ] {
                assert!(suspect(&written), "{written}");
            }
        }
        for key in [
            "to-ken",
            "tokens",
            "inputTokens",
            "max_tokens",
            "token_count",
            "tokenUsage",
            "tokenizer.py",
            "next_page_token",
            "progressToken",
            "eos_token",
            "apiKeySource",
            "apiKeyHelper",
            "secretName",
            "secret_ref",
            "password_required",
            "api_key_id",
            "secretary",
            "secrets",
            "keys",
            "author",
            "session_id",
        ] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn the_assignment_rule_names_every_key_word() {
        for word in KEY_WORDS {
            for spelling in word.spellings {
                let text = format!("export MY_{spelling}=abc123def456");
                assert_eq!(
                    redact_text(&text).as_deref(),
                    Some(format!("export MY_{spelling}=[redacted]").as_str()),
                    "{spelling}"
                );
            }
        }
    }

    #[test]
    fn every_rule_compiles_and_names_its_source() {
        assert_eq!(compiled().len(), VALUE_RULES.len());
        for rule in VALUE_RULES {
            assert!(
                [rules::GITLEAKS, rules::TRUFFLEHOG, "agentwire"]
                    .iter()
                    .any(|upstream| rule.source.starts_with(upstream)),
                "{}: {}",
                rule.id,
                rule.source
            );
            assert!(!rule.needles.is_empty(), "{}", rule.id);
        }
    }

    /// Each kind of credential in text, and what is left of the text (written out, not computed).
    const TEXT_SECRETS: &[(&str, &str)] = &[
        (
            "push with ghp_0123456789abcdefghijABCDEFGHIJklmnop now",
            "push with [redacted] now",
        ),
        ("gho_0123456789abcdefghijABCDEFGHIJklmnop", "[redacted]"),
        ("ghs_0123456789abcdefghijABCDEFGHIJklmnop;", "[redacted];"),
        ("(ghu_0123456789abcdefghijABCDEFGHIJklmnop)", "([redacted])"),
        ("ghr_0123456789abcdefghijABCDEFGHIJklmnop", "[redacted]"),
        ("key id AKIAZ2MGTJ4SW6NRQXHL, region", "key id [redacted], region"),
        ("ASIAZ2MGTJ4SW6NRQXHL", "[redacted]"),
        (
            "token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "token [redacted]",
        ),
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "Authorization: Bearer [redacted]",
        ),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
            "jwt [redacted] ok",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBmZXJyZXRfa2V5X2JvZHlfZm9yX3Rlc3RzX29ubHkAAAAAAAAAAAAAAA==\n-----END OPENSSH PRIVATE KEY-----\n",
            "-----BEGIN OPENSSH PRIVATE KEY-----[redacted]-----END OPENSSH PRIVATE KEY-----\n",
        ),
        (
            "$ head -3 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFcz",
            "$ head -3 id_rsa\n-----BEGIN RSA PRIVATE KEY-----[redacted]",
        ),
        ("key=AIzaSyD-1234567890abcdefghijklmnopqrstu", "key=[redacted]"),
        (
            "psql postgres://app:s3cr3t-Pw@db.internal:5432/app",
            "psql postgres://app:[redacted]@db.internal:5432/app",
        ),
        (
            "got refresh_token=rt_8f3k2j5h9g and more",
            "got refresh_token=[redacted] and more",
        ),
        ("export GITHUB_TOKEN=abc123def456", "export GITHUB_TOKEN=[redacted]"),
        ("openai_api_key: 'sk-abc'", "openai_api_key: '[redacted]'"),
        ("db_password = \"hunter2\"", "db_password = \"[redacted]\""),
        (
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz7d9k2q",
            "AWS_SECRET_ACCESS_KEY=[redacted]",
        ),
        ("{\"accessToken\":\"abc\"}", "{\"accessToken\":\"[redacted]\"}"),
        (
            "{\\\"password\\\":\\\"abc\\\"}",
            "{\\\"password\\\":\\\"[redacted]\\\"}",
        ),
        ("Cookie: session=abc123def456", "Cookie: [redacted]"),
        (
            "use Bearer 9f8e7d6c5b4a in the header",
            "use Bearer [redacted] in the header",
        ),
        (
            "curl -H 'Authorization: Bearer abc.def-ghi' https://x",
            "curl -H 'Authorization: Bearer [redacted]' https://x",
        ),
        (
            "export OPENAI_API_KEY=sk-proj-0123456789abcdefghij and go",
            "export OPENAI_API_KEY=[redacted] and go",
        ),
        ("x-api-key: 123456\nnext", "x-api-key: [redacted]\nnext"),
        ("git push glpat-Ab3dE5gH7jK9mN1pQ2rS now", "git push [redacted] now"),
        (
            "token glpat-Xy7Kq2Lm9Np4Rs6Tv8Wz1Ab3Cd5Ef.01x7k2m9p ok",
            "token [redacted] ok",
        ),
        (
            "//registry.npmjs.org/:_authToken npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 x",
            "//registry.npmjs.org/:_authToken [redacted] x",
        ),
        ("login hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH\n", "login [redacted]\n"),
        ("use api_org_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH;", "use [redacted];"),
        (
            "charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc now",
            "charge with [redacted] now",
        ),
        (
            "mail 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 sent",
            "mail [redacted] sent",
        ),
        ("twilio SK0123456789abcdef0123456789abcdef sid", "twilio [redacted] sid"),
        (
            "$ gcloud auth print-access-token\nya29.a0AfB_byDx3kQ7LmN9pR2sT4vW6yZ8bC1dE3fG5hJ7kL9mN0pQ2rS4tU6vW8xY0zA1bC3dE5-Fg0171\n",
            "$ gcloud auth print-access-token\n[redacted]\n",
        ),
        (
            "{\"headers\":{\"x-goog-user-project\":\"demo\"},\"oauth\":\"ya29.a0AfB_byDx3kQ7LmN9pR2sT4vW6yZ8bC1dE3fG5hJ7kL9mN0pQ2rS4tU6vW8xY0zA1bC3dE5\"}",
            "{\"headers\":{\"x-goog-user-project\":\"demo\"},\"oauth\":\"[redacted]\"}",
        ),
        (
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Xy7Kq2Lm9Np4Rs6Tv8Wz1Ab3Cd5Ef7Gh9Ij0Kl2Mn4Op6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij6Kl8Mn0Op2Qr==;EndpointSuffix=core.windows.net",
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[redacted];EndpointSuffix=core.windows.net",
        ),
    ];

    #[test]
    fn credentials_inside_text_are_redacted() {
        for (text, expected) in TEXT_SECRETS {
            assert_eq!(redact_text(text).as_deref(), Some(*expected), "{text}");
            assert!(suspect(text), "{text}");
            assert_eq!(
                redact_text(expected),
                None,
                "redacting twice changes nothing: {expected}"
            );
        }
    }

    #[test]
    fn text_that_is_no_credential_is_kept() {
        for text in [
            "max_tokens: 4096",
            "token_count=12345678",
            "input_tokens and a task-list",
            "see tokenizer.py and tokenizer_config.json",
            "apiKeySource: \"none\"",
            "{\"apiKeySource\":\"ANTHROPIC_API_KEY\"}",
            "password: string;",
            "const apiKey = process.env.OPENAI_API_KEY",
            "def login(token=None, password=password):",
            "the bearer token is required",
            "Bearer authentication",
            "password = \"\"",
            "password: \"${DB_PASSWORD}\"",
            "api_key: <your key>",
            "Authorization: [redacted]",
            "secretary: a1b2c3d4e5",
            "next_page_token=abc123def456",
            "eos_token: </s>",
            "a secret, but no credential",
            "risk-free",
            "https://example.com:8080/x and git@github.com:o/r.git",
            "postgres://${DB_USER}:${DB_PASS}@db/app",
            "AKIAIOSFODNN7EXAMPLE",
            "AKIAAAAAAAAAAAAAAAAA",
            "const header = \"-----BEGIN RSA PRIVATE KEY-----\"; // the rest of this file is code, not a key at all",
            "ghp_tooshort",
            "see glpat-short and glpat-",
            "npm_config_cache=/tmp/npm",
            "from huggingface_hub import hf_hub_download",
            "api_org_id: 42",
            "sk_live_mode: false",
            "SG.short",
            "SKIP_TESTS=1 and SK0123",
            "AccountKey=<your key>",
            "AccountKey=short==;AccountName=acct",
            "the ya29. prefix marks a Google access token",
            "ya29.short and ya29.xxxxxxxxxxxxxxxxxxxxxxxx",
            "task_list: ask the desk, skip the risk; mask_token_id",
            "git log --oneline | glpat is a prefix",
            "npm_lifecycle_event=test npm run build",
            "hf_transfer enabled; api_organization_id: 7",
            "rk_live is a prefix, and sk_test_ too",
            "msg.SG.x and SG.Version",
            "SKU 0123456789abcdef0123456789abcdef",
            "DefaultEndpointsProtocol=https;AccountName=acct;EndpointSuffix=core.windows.net",
        ] {
            assert_eq!(redact_text(text), None, "{text}");
        }
    }

    #[test]
    fn a_fine_grained_github_token_is_redacted() {
        let token = format!("github_pat_{}ab", "11ABCDEFG0".repeat(8));
        assert_eq!(token.len(), "github_pat_".len() + 82);
        assert_eq!(
            redact_text(&format!("use {token} here")).as_deref(),
            Some("use [redacted] here")
        );
    }

    #[test]
    fn needles_are_found_in_order_and_read_back_by_range() {
        let text = r#"{"x":"bearer_token","token":1,"y":"BEARER"}"#;
        let mut needles = Needles::default();
        assert!(needles.scan(text));
        // `bearer` and the `token"` that ends `bearer_token`; the key `token`; `BEARER`.
        let needle = |text: &str| NEEDLES.iter().position(|needle| *needle == text).expect("a needle");
        let (bearer, token) = (needle("bearer"), needle("token\""));
        assert_eq!(needles.at, vec![(6, bearer), (13, token), (21, token), (35, bearer)]);
        assert_eq!(
            needles.within(20..40).collect::<Vec<_>>(),
            vec![(1, token), (15, bearer)]
        );
        assert!(!needles.scan("nothing here"));
        assert!(needles.at.is_empty(), "a scan forgets the last one");
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
