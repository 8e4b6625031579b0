//! Token counts read from a usage object whatever its provider's spelling: the usage objects of
//! the canonical events are the providers' own, so the counts are looked up by the names they
//! use (`inputTokens` / `input_tokens` / OpenCode's `input`, ...), at the top or in a `total` /
//! `last` object.

use serde_json::Value;

const INPUT: &[&str] = &["inputTokens", "input_tokens", "input"];
const OUTPUT: &[&str] = &["outputTokens", "output_tokens", "output"];
const TOTAL: &[&str] = &["totalTokens", "total_tokens", "total"];

/// Where the counts may sit below the top: a running total before the last call's.
const NESTED: &[&str] = &["total", "total_token_usage", "last", "last_token_usage"];

/// Input, output and total tokens, each when the usage names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub total: Option<u64>,
}

impl Tokens {
    /// The counts of `usage`; `None` when it names none.
    pub fn of(usage: &Value) -> Option<Self> {
        counts(usage).or_else(|| NESTED.iter().find_map(|key| counts(usage.get(key)?)))
    }

    /// The counts of two usages together; a count only one of them names is taken as it is.
    pub fn add(self, other: Tokens) -> Tokens {
        let sum = |one: Option<u64>, two: Option<u64>| match (one, two) {
            (None, None) => None,
            (one, two) => Some(one.unwrap_or(0) + two.unwrap_or(0)),
        };
        Tokens {
            input: sum(self.input, other.input),
            output: sum(self.output, other.output),
            total: sum(self.total, other.total),
        }
    }

    /// `1,234 in · 56 out tokens`, or the total alone when that is all there is.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(input) = self.input {
            parts.push(format!("{} in", thousands(input)));
        }
        if let Some(output) = self.output {
            parts.push(format!("{} out", thousands(output)));
        }
        if parts.is_empty()
            && let Some(total) = self.total
        {
            parts.push(thousands(total));
        }
        format!("{} tokens", parts.join(" · "))
    }
}

fn counts(usage: &Value) -> Option<Tokens> {
    let count = |keys: &[&str]| keys.iter().find_map(|key| usage.get(key).and_then(Value::as_u64));
    let tokens = Tokens {
        input: count(INPUT),
        output: count(OUTPUT),
        total: count(TOTAL),
    };
    (tokens != Tokens::default()).then_some(tokens)
}

/// `1234567` as `1,234,567`.
fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// US dollars as a person reads them: `$0.0123`.
pub fn dollars(cost: f64) -> String {
    format!("${cost:.4}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Tokens;

    /// OpenCode's `tokens` shape, a turn's and a step report's `{"total", "last"}` of it, reads
    /// as Codex's and Claude's names do.
    #[test]
    fn opencodes_tokens_read_as_the_others_do() {
        let turn = json!({"cache": {"read": 0, "write": 0}, "input": 240, "output": 84, "reasoning": 0});
        let expected = Tokens {
            input: Some(240),
            output: Some(84),
            total: None,
        };
        assert_eq!(Tokens::of(&turn), Some(expected));
        let step = json!({"total": {"input": 240, "output": 84, "total": 324}, "last": {"input": 120}});
        assert_eq!(
            Tokens::of(&step),
            Some(Tokens {
                total: Some(324),
                ..expected
            })
        );
        let codex = json!({"total": {"inputTokens": 5, "outputTokens": 1, "totalTokens": 6}});
        assert_eq!(Tokens::of(&codex).and_then(|tokens| tokens.total), Some(6));
    }
}
