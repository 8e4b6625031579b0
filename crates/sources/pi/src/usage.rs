//! Pi's `Usage` in the canonical sense.
//!
//! Pi counts as Anthropic does: `input` is the tokens not read from or written to a cache,
//! `cacheRead` and `cacheWrite` apart, `output` with `reasoning` in it, `totalTokens` the four
//! added. Its `cost.total` is Pi's own price of the call (from the model's catalog entry, or the
//! provider's bill when `totalFromProvider`): the cost the provider states.

use agentwire_canonical::{TokenUsage, UsageScope};
use agentwire_pi::Usage;

use agentwire_core::usage::Tokens;

/// One model call's usage (`scope: call`), priced as Pi priced it, on `model`.
pub fn call(usage: &Usage, model: &str) -> TokenUsage {
    let input = usage
        .input
        .saturating_add(usage.cache_read)
        .saturating_add(usage.cache_write);
    let tokens = Tokens {
        input: Some(input),
        cached: Some(usage.cache_read),
        cache_write: Some(usage.cache_write),
        output: Some(usage.output),
        reasoning: usage.reasoning,
        total: Some(usage.total_tokens),
    };
    let mut call = tokens.priced(UsageScope::Call, usage.cost.total.as_f64());
    call.model = Some(model.to_owned());
    call
}
