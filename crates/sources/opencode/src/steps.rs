//! A step's or a message's end, for every OpenCode source: whether OpenCode's loop goes on after
//! it, and its tokens added to the turn's and the thread's, in OpenCode's own `tokens` shape until
//! an event carries them as canonical usage ([`usage`]).

use agentwire_canonical::{TokenUsage, UsageScope};
use agentwire_core::usage::Tokens;
use agentwire_opencode::{
    AssistantMessageTokens, EventSessionNextStepEndedPropertiesTokens, SessionMessageAssistantTokens,
    StepFinishPartTokens, StepFinishPartTokensCache,
};
use serde_json::Number;

/// The step reasons (`finish`) after which OpenCode calls the model again in the same turn.
pub const GOES_ON: &[&str] = &["tool-calls", "unknown"];

/// Two counts together: whole when both are, else as doubles.
pub fn add(one: &Number, two: &Number) -> Number {
    match (one.as_u64(), two.as_u64()) {
        (Some(one), Some(two)) => Number::from(one + two),
        _ => Number::from_f64(one.as_f64().unwrap_or(0.0) + two.as_f64().unwrap_or(0.0)).unwrap_or_else(|| one.clone()),
    }
}

/// `sum` and `step` counted together (`step` alone when there is no sum yet).
pub fn add_tokens(sum: Option<&StepFinishPartTokens>, step: &StepFinishPartTokens) -> StepFinishPartTokens {
    let Some(sum) = sum else {
        return step.clone();
    };
    StepFinishPartTokens {
        cache: StepFinishPartTokensCache {
            read: add(&sum.cache.read, &step.cache.read),
            write: add(&sum.cache.write, &step.cache.write),
        },
        input: add(&sum.input, &step.input),
        output: add(&sum.output, &step.output),
        reasoning: add(&sum.reasoning, &step.reasoning),
        total: match (&sum.total, &step.total) {
            (Some(one), Some(two)) => Some(add(one, two)),
            (one, two) => one.clone().or_else(|| two.clone()),
        },
    }
}

/// A token count object of any of OpenCode's generated types (each message kind has its own, all
/// of one shape) in the shape a v1 step's end gives them.
macro_rules! step_tokens {
    ($tokens:expr, $total:expr) => {
        StepFinishPartTokens {
            cache: StepFinishPartTokensCache {
                read: $tokens.cache.read.clone(),
                write: $tokens.cache.write.clone(),
            },
            input: $tokens.input.clone(),
            output: $tokens.output.clone(),
            reasoning: $tokens.reasoning.clone(),
            total: $total,
        }
    };
}

/// The tokens of a v2 `step.ended` (no `total`).
pub fn next_tokens(tokens: &EventSessionNextStepEndedPropertiesTokens) -> StepFinishPartTokens {
    step_tokens!(tokens, None)
}

/// The tokens of a v1 assistant message.
pub fn message_tokens(tokens: &AssistantMessageTokens) -> StepFinishPartTokens {
    step_tokens!(tokens, tokens.total.clone())
}

/// The tokens of a stored v2 assistant message (no `total`).
pub fn stored_next_tokens(tokens: &SessionMessageAssistantTokens) -> StepFinishPartTokens {
    step_tokens!(tokens, None)
}

/// OpenCode's tokens and cost as a canonical usage of `scope`. OpenCode counts `input` apart from
/// the cache's tokens and `output` apart from the reasoning's (its `getUsage` takes them out of
/// the AI SDK's figures); canonical input and output count them in. Its `total`, when it states
/// one, is the AI SDK's, which counts them in too. The cost is OpenCode's (from its model catalog's
/// prices), stated with the message.
pub fn usage(tokens: &StepFinishPartTokens, cost: Option<&Number>, scope: UsageScope) -> TokenUsage {
    let count = |number: &Number| {
        number
            .as_i64()
            .unwrap_or_else(|| number.as_f64().map_or(0, |value| value.round() as i64))
    };
    let (read, write) = (count(&tokens.cache.read), count(&tokens.cache.write));
    let reasoning = count(&tokens.reasoning);
    Tokens {
        input: Some(count(&tokens.input).saturating_add(read).saturating_add(write)),
        cached: Some(read),
        cache_write: Some(write),
        output: Some(count(&tokens.output).saturating_add(reasoning)),
        reasoning: Some(reasoning),
        total: tokens.total.as_ref().map(count),
    }
    .priced(scope, cost.and_then(Number::as_f64))
}
