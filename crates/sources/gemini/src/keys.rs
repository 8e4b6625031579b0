//! The item keys neither Gemini source is given, derived the same way by both, and kept out of
//! `providerRefs` (spec 1.6: provider ids are the provider's).
//!
//! A synthesized key holds a `:`; Gemini's own ids (a tool call's `tool_id`, a message's UUID, a
//! subagent call's `<agent id>#<turn>-<index>`) hold none.

use agentwire_canonical::ProviderRefs;

/// Drops the keys the sources made up from `providerRefs`: turn positions, and item keys with a
/// `:`.
pub fn drop_synthesized_refs(refs: &mut ProviderRefs) {
    refs.provider_turn_id = None;
    if refs
        .provider_item_id
        .as_ref()
        .is_some_and(|item| item.as_str().contains(':'))
    {
        refs.provider_item_id = None;
    }
}

/// The key of `what` its `owner` holds: a stream's prompt or `n`-th text run (`owner` the
/// stream's session and turn), a stored message's thoughts (`owner` the message's id).
pub fn part(owner: &str, what: &str) -> String {
    format!("{owner}:{what}")
}
