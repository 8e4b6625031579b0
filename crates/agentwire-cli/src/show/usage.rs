//! Tokens and cost as a person reads them, from the canonical usage (the same for every
//! provider): `1,234 in (1,000 cached) · 56 out tokens`, `$0.0123`.

use agentwire_canonical::{CostSource, TokenUsage};

/// `1,234 in (1,000 cached) · 56 out tokens`, or the total alone when that is all there is;
/// `None` when the usage gives no count.
pub fn describe(usage: &TokenUsage) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(input) = usage.input_tokens {
        match usage.cached_input_tokens.filter(|cached| *cached > 0) {
            Some(cached) => parts.push(format!("{} in ({} cached)", thousands(input), thousands(cached))),
            None => parts.push(format!("{} in", thousands(input))),
        }
    }
    if let Some(output) = usage.output_tokens {
        parts.push(format!("{} out", thousands(output)));
    }
    if parts.is_empty()
        && let Some(total) = usage.total_tokens
    {
        parts.push(thousands(total));
    }
    (!parts.is_empty()).then(|| format!("{} tokens", parts.join(" · ")))
}

/// The usage's cost: `$0.0123`, marked `(computed)` when no provider stated it; `None` when it
/// is not priced.
pub fn cost(usage: &TokenUsage) -> Option<String> {
    let cost = usage.cost_usd?;
    Some(match usage.cost_source {
        CostSource::Computed => format!("{} (computed)", dollars(cost)),
        CostSource::Provider | CostSource::None => dollars(cost),
    })
}

/// `1234567` as `1,234,567`.
pub fn thousands(count: i64) -> String {
    let digits = count.unsigned_abs().to_string();
    let mut text = String::new();
    if count < 0 {
        text.push('-');
    }
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
    use agentwire::usage::Tokens;
    use agentwire_canonical::{CostSource, UsageScope};

    use super::{cost, describe};

    #[test]
    fn tokens_and_cost_read_as_a_person_reads_them() {
        let tokens = Tokens {
            input: Some(1234),
            cached: Some(1000),
            output: Some(56),
            ..Tokens::default()
        };
        let usage = tokens.priced(UsageScope::Turn, Some(0.01234));
        assert_eq!(
            describe(&usage).as_deref(),
            Some("1,234 in (1,000 cached) · 56 out tokens")
        );
        assert_eq!(cost(&usage).as_deref(), Some("$0.0123"));
        let mut computed = usage.clone();
        computed.cost_source = CostSource::Computed;
        assert_eq!(cost(&computed).as_deref(), Some("$0.0123 (computed)"));
        let total_only = Tokens {
            total: Some(7),
            ..Tokens::default()
        }
        .usage(UsageScope::Call);
        assert_eq!(describe(&total_only).as_deref(), Some("7 tokens"));
        assert_eq!(describe(&Tokens::default().usage(UsageScope::Call)), None);
        assert_eq!(cost(&total_only), None);
    }
}
