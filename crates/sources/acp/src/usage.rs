//! ACP's usage in the canonical sense. `usage_update` states the context window (`used`, `size`)
//! and the session's running cost; the `session/prompt` reply's `usage` (an unstable member) the
//! turn's tokens, or gemini's `_meta.quota` where the agent writes that instead; Qwen Code states
//! each model call's tokens in the `_meta.usage` of an empty `agent_message_chunk`, and a turn
//! whose reply says nothing of tokens has its calls' sum.
//!
//! ACP leaves open whether `inputTokens` counts the cache's tokens (claude-agent-acp's does not;
//! its `totalTokens` adds them): the agent's own total tells, since canonical input counts them.

use agentwire_acp::{Cost, QwenMessageChunkMeta, UndeclaredGeminiPromptMeta, Usage};
use agentwire_canonical::{ThreadTokenUsageSnapshot, TokenUsage, UsageScope};
use agentwire_core::usage::{self, Meter, Tokens};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The cost a `usage_update` states, in US dollars (another currency is not priced: the update
/// keeps it in `raw`).
fn dollars(cost: Option<&Cost>) -> Option<f64> {
    cost.filter(|cost| cost.currency.eq_ignore_ascii_case("USD"))
        .and_then(|cost| cost.amount.as_f64())
}

/// A `usage_update` as the thread's snapshot: the context window, and the running cost as the
/// thread's total when the agent states one.
pub(crate) fn update(meter: &mut Meter, used: u64, size: u64, cost: Option<&Cost>) -> ThreadTokenUsageSnapshot {
    let mut snapshot = match dollars(cost) {
        Some(cost) => meter.running(
            usage::with_provider_cost(usage::empty(UsageScope::Thread), Some(cost)),
            None,
        ),
        None => usage::snapshot(None, None),
    };
    snapshot.used_tokens = i64::try_from(used).ok();
    snapshot.max_tokens = i64::try_from(size).ok();
    snapshot
}

/// A prompt turn's usage at its end: the reply's tokens (its `usage`, else gemini's
/// `_meta.quota`), at what the running cost rose by during the turn; else the calls reported
/// during the turn added up. `None` when the agent said nothing of any.
pub(crate) fn turn(meter: &mut Meter, usage: Option<&Usage>, meta: Option<&Map<String, Value>>) -> Option<TokenUsage> {
    let calls = meter.end_turn();
    let cost = calls.as_ref().and_then(|turn| turn.cost_usd);
    let tokens = match usage {
        Some(usage) => Some(reply_tokens(usage)),
        None => meta.and_then(quota_tokens),
    };
    match (tokens, calls) {
        (Some(tokens), _) => Some(tokens.priced(UsageScope::Turn, cost)),
        (None, Some(calls)) if calls.input_tokens.is_some() || calls.output_tokens.is_some() => Some(calls),
        (None, _) => cost.map(|cost| Tokens::default().priced(UsageScope::Turn, Some(cost))),
    }
}

/// The reply's `usage`: its input counts the cache's tokens unless its total adds them apart.
fn reply_tokens(usage: &Usage) -> Tokens {
    counted(Counts {
        input: usage.input_tokens,
        output: usage.output_tokens,
        total: usage.total_tokens,
        cached: usage.cached_read_tokens,
        cache_write: usage.cached_write_tokens,
        thought: usage.thought_tokens,
    })
}

/// One model call's tokens, when the `_meta` of an `agent_message_chunk` states them (Qwen Code,
/// read through its declared type `QwenMessageChunkMeta`); a `_meta` that does not read so says
/// nothing of tokens.
pub(crate) fn chunk_tokens(meta: Option<&Map<String, Value>>) -> Option<Tokens> {
    let meta = QwenMessageChunkMeta::deserialize(Value::Object(meta?.clone())).ok()?;
    let usage = meta.usage;
    Some(counted(Counts {
        input: usage.input_tokens,
        output: usage.output_tokens,
        total: usage.total_tokens,
        cached: usage.cached_read_tokens,
        cache_write: None,
        thought: usage.thought_tokens,
    }))
}

/// Figures in ACP's `Usage` names.
struct Counts {
    input: u64,
    output: u64,
    total: u64,
    cached: Option<u64>,
    cache_write: Option<u64>,
    thought: Option<u64>,
}

/// ACP's figures in the canonical sense: the input counts the cache's tokens unless the total
/// adds them apart.
fn counted(counts: Counts) -> Tokens {
    let count = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    let (input, output, total) = (count(counts.input), count(counts.output), count(counts.total));
    let cached = counts.cached.map(count);
    let cache_write = counts.cache_write.map(count);
    let cache = cached.unwrap_or(0).saturating_add(cache_write.unwrap_or(0));
    let apart = cache > 0 && Some(total) == input.checked_add(output).and_then(|sum| sum.checked_add(cache));
    Tokens {
        input: Some(if apart { input.saturating_add(cache) } else { input }),
        cached,
        cache_write,
        output: Some(output),
        reasoning: counts.thought.map(count),
        total: Some(total),
    }
}

/// Gemini's `_meta.quota`, read through its declared type (`UndeclaredGeminiPromptMeta`): the
/// prompt's tokens (cached ones included) and the candidates'. A `_meta` that does not read so
/// (another agent's) says nothing of tokens.
fn quota_tokens(meta: &Map<String, Value>) -> Option<Tokens> {
    let quota = UndeclaredGeminiPromptMeta::deserialize(Value::Object(meta.clone()))
        .ok()?
        .quota?;
    let count = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    Some(Tokens {
        input: Some(count(quota.token_count.input_tokens)),
        output: Some(count(quota.token_count.output_tokens)),
        ..Tokens::default()
    })
}
