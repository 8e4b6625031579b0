//! Claude's token counts in the canonical sense. Claude counts `input_tokens` apart from the
//! cache's (`cache_read_input_tokens`, `cache_creation_input_tokens`); canonical input counts them
//! all, the cache's as parts of it. Claude states cost only as a running total (a `result`'s
//! `total_cost_usd`, a session file's `cost-state`), never per call.
//!
//! A stream's usage members are kept as sent (`RawJson`: newer CLIs add members the pinned types
//! lack) and read here through the generated types; one that does not read is reported, not
//! guessed at.

use agentwire_canonical::{
    ProviderRuntimeEvent, RuntimeEvent, ThreadTokenUsageSnapshot, ThreadTokenUsageUpdatedPayload, TokenUsage,
    UsageScope,
};
use agentwire_claude::{BetaMessageDeltaUsage, BetaUsage, ModelUsage, RawJson};
use agentwire_core::emit::Raw;
use agentwire_core::ledger::Ledger;
use agentwire_core::usage::{self, Tokens};

use crate::conversation::Cursor;
use serde::de::DeserializeOwned;
use serde_json::Number;

/// A count as an integer (the types carry JSON numbers; Claude writes whole ones).
pub(crate) fn count(number: &Number) -> i64 {
    number
        .as_i64()
        .unwrap_or_else(|| number.as_f64().map_or(0, |value| value.round() as i64))
}

/// Claude's four counts as canonical tokens.
pub(crate) fn tokens(input: i64, cache_read: Option<i64>, cache_write: Option<i64>, output: Option<i64>) -> Tokens {
    Tokens {
        input: Some(
            input
                .saturating_add(cache_read.unwrap_or(0))
                .saturating_add(cache_write.unwrap_or(0)),
        ),
        cached: cache_read,
        cache_write,
        output,
        reasoning: None,
        total: None,
    }
}

/// A usage member read through its generated type, or why it does not read.
pub(crate) fn read<T: DeserializeOwned>(usage: &RawJson) -> Result<T, String> {
    serde_json::from_str(usage.get()).map_err(|error| error.to_string())
}

/// A message's usage (`message_start`'s, a session file's assistant record's, a `result`'s) as
/// `scope`.
pub(crate) fn message(usage: &RawJson, scope: UsageScope) -> Result<TokenUsage, String> {
    let usage: BetaUsage = read(usage)?;
    Ok(tokens(
        count(&usage.input_tokens),
        usage.cache_read_input_tokens.as_ref().map(count),
        usage.cache_creation_input_tokens.as_ref().map(count),
        Some(count(&usage.output_tokens)),
    )
    .usage(scope))
}

/// A call's usage once a `message_delta` updated it: the delta's counts are the call's so far,
/// its output always, its input side when it states it (else `start`'s stands).
pub(crate) fn delta(start: Option<&TokenUsage>, usage: &RawJson) -> Result<TokenUsage, String> {
    let delta: BetaMessageDeltaUsage = read(usage)?;
    let start = start.cloned().unwrap_or_else(|| usage::empty(UsageScope::Call));
    let cache_read = delta
        .cache_read_input_tokens
        .as_ref()
        .map(count)
        .or(start.cached_input_tokens);
    let cache_write = delta
        .cache_creation_input_tokens
        .as_ref()
        .map(count)
        .or(start.cache_write_tokens);
    let fresh = match (&delta.input_tokens, start.input_tokens) {
        (Some(input), _) => Some(count(input)),
        // The start's input counted the cache's tokens in; take them out again.
        (None, Some(input)) => Some(
            input
                .saturating_sub(start.cached_input_tokens.unwrap_or(0))
                .saturating_sub(start.cache_write_tokens.unwrap_or(0)),
        ),
        (None, None) => None,
    };
    let output = Some(count(&delta.output_tokens));
    Ok(match fresh {
        Some(fresh) => tokens(fresh, cache_read, cache_write, output).usage(UsageScope::Call),
        None => Tokens {
            output,
            ..Tokens::default()
        }
        .usage(UsageScope::Call),
    })
}

/// A `result`'s running total of the session (`scope: thread`): its `modelUsage` added up over
/// the models (the subagents' calls included, which the turn's `usage` leaves out), priced at its
/// running `total_cost_usd`. The model is named when there is one.
pub(crate) fn running(model_usage: &RawJson, total_cost_usd: Option<f64>) -> Result<TokenUsage, String> {
    let models: std::collections::BTreeMap<String, ModelUsage> = read(model_usage)?;
    let mut total = usage::empty(UsageScope::Thread);
    for model in models.values() {
        let part = tokens(
            count(&model.input_tokens),
            Some(count(&model.cache_read_input_tokens)),
            Some(count(&model.cache_creation_input_tokens)),
            Some(count(&model.output_tokens)),
        )
        .usage(UsageScope::Thread);
        usage::add(&mut total, &part);
    }
    total.model = single(models.keys());
    Ok(usage::with_provider_cost(total, total_cost_usd))
}

/// The one name of `names`, when there is exactly one.
pub(crate) fn single<'a>(mut names: impl Iterator<Item = &'a String>) -> Option<String> {
    let first = names.next()?;
    names.next().is_none().then(|| first.clone())
}

/// A usage report as `thread.token-usage.updated` where the conversation stands; one whose usage
/// does not read through its type as a `runtime.warning` saying which (`what`) and why (the
/// message stays in `raw` either way).
pub(crate) fn report<Q>(
    ledger: &mut Ledger<Q>,
    at: &mut Cursor,
    usage: Result<ThreadTokenUsageSnapshot, String>,
    what: &str,
    raw: Raw<'_>,
    out: &mut Vec<ProviderRuntimeEvent>,
) {
    let context = at.context(ledger, Some(raw));
    let context = &context;
    match usage {
        Ok(usage) => {
            let payload = ThreadTokenUsageUpdatedPayload { usage };
            ledger.emit(context, RuntimeEvent::ThreadTokenUsageUpdated(payload), out);
        }
        Err(error) => ledger.warn(
            context,
            format!("the {what} does not read as Claude's usage: {error}"),
            None,
            out,
        ),
    }
}
