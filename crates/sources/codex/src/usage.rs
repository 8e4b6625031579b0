//! Codex's token counts in the canonical sense: Codex already counts them so (`input_tokens`
//! holds the cached and cache-written tokens, `output_tokens` the reasoning), each of its three
//! formats under its own generated type. Codex states no cost.

use agentwire_core::usage::Tokens;

/// One Codex count: input (cached and cache-written included), output (reasoning included), and
/// the total when Codex states it.
pub(crate) fn tokens(
    input: i64,
    cached: i64,
    cache_write: Option<i64>,
    output: i64,
    reasoning: i64,
    total: Option<i64>,
) -> Tokens {
    Tokens {
        input: Some(input),
        cached: Some(cached),
        cache_write,
        output: Some(output),
        reasoning: Some(reasoning),
        total,
    }
}
