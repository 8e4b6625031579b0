//! Typed usage ([`TokenUsage`]): how a source builds one from its provider's figures, and the
//! arithmetic the sources and the fold share (a turn's figures from two running totals, a
//! session's from its turns).
//!
//! Every figure is optional: a provider that does not give one leaves it absent, never zero. Adding
//! two usages adds the figures each gives; a figure neither gives stays absent.

use std::collections::{BTreeMap, HashMap};

use agentwire_canonical::{CostSource, ThreadId, ThreadTokenUsageSnapshot, TokenUsage, TurnId, UsageScope};

/// A usage of `scope` with no figures and no cost yet.
pub fn empty(scope: UsageScope) -> TokenUsage {
    TokenUsage {
        scope,
        input_tokens: None,
        cached_input_tokens: None,
        cache_write_tokens: None,
        output_tokens: None,
        reasoning_tokens: None,
        total_tokens: None,
        cost_usd: None,
        cost_source: CostSource::None,
        model: None,
    }
}

/// The token figures of one report, in the canonical sense: `input` counts every input token
/// (cache reads and writes included), `output` every output token (reasoning included). A source
/// converts its provider's names and sums into this once, in its own crate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tokens {
    /// Every input token.
    pub input: Option<i64>,
    /// Of `input`, read from a cache.
    pub cached: Option<i64>,
    /// Of `input`, written to a cache.
    pub cache_write: Option<i64>,
    /// Every output token.
    pub output: Option<i64>,
    /// Of `output`, reasoning.
    pub reasoning: Option<i64>,
    /// The provider's own total, when it states one; else input and output added.
    pub total: Option<i64>,
}

impl Tokens {
    /// The usage of `scope` these tokens make, not priced.
    pub fn usage(self, scope: UsageScope) -> TokenUsage {
        let total = self.total.or(match (self.input, self.output) {
            (Some(input), Some(output)) => Some(input.saturating_add(output)),
            _ => None,
        });
        TokenUsage {
            input_tokens: self.input,
            cached_input_tokens: self.cached,
            cache_write_tokens: self.cache_write,
            output_tokens: self.output,
            reasoning_tokens: self.reasoning,
            total_tokens: total,
            ..empty(scope)
        }
    }

    /// The usage of `scope` these tokens make, at the cost the provider stated (`None`: not priced).
    pub fn priced(self, scope: UsageScope, provider_cost_usd: Option<f64>) -> TokenUsage {
        with_provider_cost(self.usage(scope), provider_cost_usd)
    }
}

/// `usage` at the cost the provider stated; `None` leaves it not priced.
pub fn with_provider_cost(mut usage: TokenUsage, cost_usd: Option<f64>) -> TokenUsage {
    if let Some(cost) = cost_usd {
        usage.cost_usd = Some(cost);
        usage.cost_source = CostSource::Provider;
    }
    usage
}

/// Whether `usage` has no figure and no cost: a report that says nothing is not worth an event.
pub fn is_empty(usage: &TokenUsage) -> bool {
    let figures = [
        usage.input_tokens,
        usage.cached_input_tokens,
        usage.cache_write_tokens,
        usage.output_tokens,
        usage.reasoning_tokens,
        usage.total_tokens,
    ];
    figures.iter().all(Option::is_none) && usage.cost_usd.is_none()
}

/// Adds `other`'s figures and cost to `sum` (its scope and model unchanged, the model dropped
/// when the two differ). The sum's cost is `computed` when any part was computed, `provider` when
/// every priced part was the provider's.
pub fn add(sum: &mut TokenUsage, other: &TokenUsage) {
    fn plus(a: &mut Option<i64>, b: Option<i64>) {
        if let Some(b) = b {
            *a = Some(a.unwrap_or(0).saturating_add(b));
        }
    }
    plus(&mut sum.input_tokens, other.input_tokens);
    plus(&mut sum.cached_input_tokens, other.cached_input_tokens);
    plus(&mut sum.cache_write_tokens, other.cache_write_tokens);
    plus(&mut sum.output_tokens, other.output_tokens);
    plus(&mut sum.reasoning_tokens, other.reasoning_tokens);
    plus(&mut sum.total_tokens, other.total_tokens);
    if let Some(cost) = other.cost_usd {
        sum.cost_usd = Some(sum.cost_usd.unwrap_or(0.0) + cost);
        sum.cost_source = match (sum.cost_source, other.cost_source) {
            (CostSource::Computed, _) | (_, CostSource::Computed) => CostSource::Computed,
            (CostSource::Provider | CostSource::None, CostSource::Provider | CostSource::None) => CostSource::Provider,
        };
    }
    if sum.model != other.model {
        sum.model = None;
    }
}

/// What was spent between two running totals of one thread (`before` absent: since its start), as
/// a usage of `scope`: each figure `now` gives, less what `before` gave of it. A figure that went
/// down (a provider that restarted its count) is taken as `now`'s whole.
pub fn since(now: &TokenUsage, before: Option<&TokenUsage>, scope: UsageScope) -> TokenUsage {
    fn minus(now: Option<i64>, before: Option<i64>) -> Option<i64> {
        let now = now?;
        Some(match before {
            Some(before) if before <= now => now - before,
            _ => now,
        })
    }
    let before = before.cloned().unwrap_or_else(|| empty(scope));
    let cost = match (now.cost_usd, before.cost_usd) {
        (Some(now), Some(before)) if before <= now => Some(now - before),
        (now, _) => now,
    };
    TokenUsage {
        scope,
        input_tokens: minus(now.input_tokens, before.input_tokens),
        cached_input_tokens: minus(now.cached_input_tokens, before.cached_input_tokens),
        cache_write_tokens: minus(now.cache_write_tokens, before.cache_write_tokens),
        output_tokens: minus(now.output_tokens, before.output_tokens),
        reasoning_tokens: minus(now.reasoning_tokens, before.reasoning_tokens),
        total_tokens: minus(now.total_tokens, before.total_tokens),
        cost_usd: cost,
        cost_source: if cost.is_some() {
            now.cost_source
        } else {
            CostSource::None
        },
        model: now.model.clone(),
    }
}

/// One thread's usage: per figure, its running total's where the provider reports one, else its
/// turns' added up (a provider may give a running cost but per-turn tokens, as ACP does).
pub fn thread_total(running: Option<&TokenUsage>, turns: &TokenUsage, scope: UsageScope) -> TokenUsage {
    let Some(running) = running else {
        return TokenUsage { scope, ..turns.clone() };
    };
    let (cost_usd, cost_source) = match running.cost_usd {
        Some(cost) => (Some(cost), running.cost_source),
        None => (turns.cost_usd, turns.cost_source),
    };
    TokenUsage {
        scope,
        input_tokens: running.input_tokens.or(turns.input_tokens),
        cached_input_tokens: running.cached_input_tokens.or(turns.cached_input_tokens),
        cache_write_tokens: running.cache_write_tokens.or(turns.cache_write_tokens),
        output_tokens: running.output_tokens.or(turns.output_tokens),
        reasoning_tokens: running.reasoning_tokens.or(turns.reasoning_tokens),
        total_tokens: running.total_tokens.or(turns.total_tokens),
        cost_usd,
        cost_source,
        model: running.model.clone().or_else(|| turns.model.clone()),
    }
}

/// `usage` priced from the vendored price table (LiteLLM's, `agentwire_prices::SOURCE`) when no
/// provider stated its cost and the table lists `model` (the usage's own model first): the fresh
/// input, cache reads, cache writes and output each at its rate (reasoning at its own where the
/// model prices it apart), `costSource: computed`. A call whose prompt is above a tier's size is
/// priced at that tier; a turn or a thread, whose calls' sizes are not known, at the base rates.
/// A model the table does not list stays not priced (`none`), never zero.
pub fn price(usage: &mut TokenUsage, model: Option<&str>) {
    if usage.cost_source != CostSource::None {
        return;
    }
    let Some(model) = usage.model.clone().or_else(|| model.map(str::to_owned)) else {
        return;
    };
    let model = model.as_str();
    let Some(price) = agentwire_prices::price(model).or_else(|| {
        let (_, name) = model.rsplit_once('/')?;
        agentwire_prices::price(name)
    }) else {
        return;
    };
    let input = usage.input_tokens.unwrap_or(0);
    let rates = match usage.scope {
        UsageScope::Call => price
            .tiers
            .iter()
            .rev()
            .find(|(size, _)| u64::try_from(input).is_ok_and(|input| input > *size))
            .map_or(&price.base, |(_, rates)| rates),
        UsageScope::Turn | UsageScope::Thread | UsageScope::Session => &price.base,
    };
    let as_f64 = |count: Option<i64>| count.unwrap_or(0).max(0) as f64;
    let cached = as_f64(usage.cached_input_tokens);
    let written = as_f64(usage.cache_write_tokens);
    let fresh = (as_f64(usage.input_tokens) - cached - written).max(0.0);
    let output = as_f64(usage.output_tokens);
    let reasoning = as_f64(usage.reasoning_tokens).min(output);
    let output_cost = match rates.reasoning_output {
        Some(rate) => (output - reasoning) * rates.output + reasoning * rate,
        None => output * rates.output,
    };
    let cost = fresh * rates.input
        + cached * rates.cache_read.unwrap_or(rates.input)
        + written * rates.cache_write.unwrap_or(rates.input)
        + output_cost;
    // Rounded to 1e-12 dollars: a sum of products reads as the figure it is, not its last bits.
    usage.cost_usd = Some((cost * 1e12).round() / 1e12);
    usage.cost_source = CostSource::Computed;
    usage.model.get_or_insert_with(|| model.to_owned());
}

/// A thread's usage as its source learns it, call by call, from the provider's running totals,
/// or both: what `thread.token-usage.updated` says after each report, and each turn's share at
/// its end.
///
/// The thread so far is the provider's last running total with the calls reported after it
/// added (Claude Code writes its running total once per process, at its end, and the next
/// process's calls come after it), or the calls added up when the provider gives no running
/// total.
#[derive(Debug, Default)]
pub struct Meter {
    /// The provider's last running total of the thread.
    base: Option<TokenUsage>,
    /// The calls reported after it.
    since_base: Option<TokenUsage>,
    /// The calls of the open turn added up.
    turn: Option<TokenUsage>,
    /// The thread so far when the previous turn ended (for a turn whose share follows from
    /// running totals).
    at_last_turn_end: Option<TokenUsage>,
    /// Whether a running total arrived during the open turn.
    reported: bool,
}

impl Meter {
    /// One call's figures (`scope: call`), priced from the table at its model when no provider
    /// priced it ([`price`]), added to the turn's and the thread's: the snapshot
    /// `thread.token-usage.updated` carries.
    pub fn call(&mut self, mut call: TokenUsage) -> ThreadTokenUsageSnapshot {
        price(&mut call, None);
        add(self.turn.get_or_insert_with(|| empty(UsageScope::Turn)), &call);
        add(self.since_base.get_or_insert_with(|| empty(UsageScope::Thread)), &call);
        snapshot(self.total(), Some(call))
    }

    /// The provider's running total of the thread (`scope: thread`) and, when it says, its last
    /// call's: the snapshot `thread.token-usage.updated` carries.
    pub fn running(&mut self, total: TokenUsage, last: Option<TokenUsage>) -> ThreadTokenUsageSnapshot {
        self.base = Some(TokenUsage {
            scope: UsageScope::Thread,
            ..total
        });
        self.since_base = None;
        self.reported = true;
        snapshot(self.total(), last)
    }

    /// The thread so far.
    pub fn total(&self) -> Option<TokenUsage> {
        match (&self.base, &self.since_base) {
            (Some(base), Some(calls)) => {
                let mut total = base.clone();
                add(&mut total, calls);
                Some(total)
            }
            (base, calls) => base.clone().or_else(|| calls.clone()),
        }
    }

    /// The open turn's usage (`scope: turn`) as its end should carry it, `None` when nothing was
    /// reported during it: its calls added up, or else the difference of the thread's running
    /// totals at its start and end.
    pub fn end_turn(&mut self) -> Option<TokenUsage> {
        let calls = self.turn.take();
        let reported = std::mem::take(&mut self.reported);
        let total = self.total();
        let before = std::mem::replace(&mut self.at_last_turn_end, total.clone());
        match (calls, total) {
            (Some(calls), _) => Some(calls),
            (None, Some(total)) if reported => Some(since(&total, before.as_ref(), UsageScope::Turn)),
            (None, _) => None,
        }
    }
}

/// The snapshot of a running total and a last call, the context window unknown.
pub fn snapshot(total: Option<TokenUsage>, last: Option<TokenUsage>) -> ThreadTokenUsageSnapshot {
    ThreadTokenUsageSnapshot {
        total,
        last,
        used_tokens: None,
        max_tokens: None,
    }
}

/// A session's usage from its canonical events, whatever the source: each thread's last running
/// total (`thread.token-usage.updated`'s `total`) and its turns' usage (`turn.completed`'s),
/// per figure the running total's where it gives one ([`thread_total`]), the threads added up.
/// What the fold, the import's index and every report count with, so they agree.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Threads in the order they first reported (`None`: events of no thread).
    threads: Vec<ThreadTotals>,
    by_id: HashMap<Option<ThreadId>, usize>,
}

#[derive(Clone, Debug)]
struct ThreadTotals {
    running: Option<TokenUsage>,
    turns: TokenUsage,
    /// Each turn's usage as last completed: a turn completed again is counted once.
    counted: BTreeMap<TurnId, TokenUsage>,
}

impl Totals {
    fn thread(&mut self, thread: Option<&ThreadId>) -> &mut ThreadTotals {
        let next = self.threads.len();
        let index = *self.by_id.entry(thread.cloned()).or_insert(next);
        if index == next {
            self.threads.push(ThreadTotals {
                running: None,
                turns: empty(UsageScope::Session),
                counted: BTreeMap::new(),
            });
        }
        &mut self.threads[index]
    }

    /// A thread's usage report (`thread.token-usage.updated`): its running total, when it has one.
    pub fn report(&mut self, thread: Option<&ThreadId>, usage: &ThreadTokenUsageSnapshot) {
        if let Some(total) = &usage.total {
            self.thread(thread).running = Some(total.clone());
        }
    }

    /// A turn's usage (`turn.completed`).
    pub fn turn(&mut self, thread: Option<&ThreadId>, turn: Option<&TurnId>, usage: &TokenUsage) {
        let totals = self.thread(thread);
        let replaced = turn.and_then(|turn| totals.counted.insert(turn.clone(), usage.clone()));
        if replaced.is_some() {
            let mut sum = empty(UsageScope::Session);
            for usage in totals.counted.values() {
                add(&mut sum, usage);
            }
            totals.turns = sum;
        } else {
            add(&mut totals.turns, usage);
        }
    }

    /// The session's usage so far (`scope: session`); `None` when nothing was reported.
    pub fn session(&self) -> Option<TokenUsage> {
        let mut total = empty(UsageScope::Session);
        for thread in &self.threads {
            add(
                &mut total,
                &thread_total(thread.running.as_ref(), &thread.turns, UsageScope::Session),
            );
        }
        (!is_empty(&total)).then_some(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: i64, output: i64) -> Tokens {
        Tokens {
            input: Some(input),
            output: Some(output),
            ..Tokens::default()
        }
    }

    #[test]
    fn a_total_not_stated_is_input_and_output() {
        let usage = tokens(10, 3).usage(UsageScope::Call);
        assert_eq!(usage.total_tokens, Some(13));
        assert_eq!(usage.cost_source, CostSource::None);
        let stated = Tokens {
            total: Some(20),
            ..tokens(10, 3)
        }
        .usage(UsageScope::Call);
        assert_eq!(stated.total_tokens, Some(20));
        assert_eq!(Tokens::default().usage(UsageScope::Turn).total_tokens, None);
    }

    #[test]
    fn adding_keeps_what_neither_gives_absent_and_says_where_the_cost_came_from() {
        let mut sum = empty(UsageScope::Session);
        add(&mut sum, &tokens(10, 3).priced(UsageScope::Turn, Some(0.5)));
        add(&mut sum, &tokens(1, 1).usage(UsageScope::Turn));
        assert_eq!(
            (sum.input_tokens, sum.output_tokens, sum.total_tokens),
            (Some(11), Some(4), Some(15))
        );
        assert_eq!(sum.reasoning_tokens, None);
        assert_eq!((sum.cost_usd, sum.cost_source), (Some(0.5), CostSource::Provider));
        let mut computed = tokens(1, 1).usage(UsageScope::Turn);
        computed.cost_usd = Some(0.25);
        computed.cost_source = CostSource::Computed;
        add(&mut sum, &computed);
        assert_eq!((sum.cost_usd, sum.cost_source), (Some(0.75), CostSource::Computed));
    }

    #[test]
    fn a_turn_is_the_difference_of_two_running_totals() {
        let before = tokens(100, 10).priced(UsageScope::Thread, Some(1.0));
        let now = tokens(150, 30).priced(UsageScope::Thread, Some(1.5));
        let turn = since(&now, Some(&before), UsageScope::Turn);
        assert_eq!(
            (turn.input_tokens, turn.output_tokens, turn.total_tokens),
            (Some(50), Some(20), Some(70))
        );
        assert_eq!((turn.cost_usd, turn.cost_source), (Some(0.5), CostSource::Provider));
        let first = since(&now, None, UsageScope::Turn);
        assert_eq!(first.input_tokens, Some(150));
        // A count that restarted is taken whole.
        assert_eq!(since(&before, Some(&now), UsageScope::Turn).input_tokens, Some(100));
    }

    #[test]
    fn a_usage_no_provider_priced_is_priced_from_the_table() {
        // claude-opus-5-5: $4 in, $20 out, $0.20 cache read, $5 cache write per million tokens.
        let mut turn = Tokens {
            input: Some(429),
            output: Some(86),
            ..Tokens::default()
        }
        .usage(UsageScope::Turn);
        price(&mut turn, Some("claude-opus-5-5"));
        assert_eq!(
            (turn.cost_usd, turn.cost_source),
            (Some(0.003436), CostSource::Computed)
        );
        assert_eq!(turn.model.as_deref(), Some("claude-opus-5-5"));
        let mut cached = Tokens {
            input: Some(1000),
            cached: Some(800),
            output: Some(0),
            ..Tokens::default()
        }
        .usage(UsageScope::Turn);
        price(&mut cached, Some("anthropic/claude-opus-5-5"));
        assert_eq!(cached.cost_usd, Some(0.00096));
        // The provider's own cost stands; a model the table does not list stays not priced.
        let mut stated = tokens(10, 1).priced(UsageScope::Turn, Some(1.0));
        price(&mut stated, Some("claude-opus-5-5"));
        assert_eq!((stated.cost_usd, stated.cost_source), (Some(1.0), CostSource::Provider));
        let mut unknown = tokens(10, 1).usage(UsageScope::Turn);
        price(&mut unknown, Some("mock-model"));
        assert_eq!((unknown.cost_usd, unknown.cost_source), (None, CostSource::None));
    }

    #[test]
    fn a_meter_adds_calls_up_or_differences_running_totals() {
        let mut calls = Meter::default();
        calls.call(tokens(10, 1).usage(UsageScope::Call));
        let snapshot = calls.call(tokens(20, 2).usage(UsageScope::Call));
        assert_eq!(snapshot.total.as_ref().and_then(|total| total.input_tokens), Some(30));
        assert_eq!(snapshot.last.as_ref().and_then(|last| last.input_tokens), Some(20));
        assert_eq!(calls.end_turn().and_then(|turn| turn.output_tokens), Some(3));
        assert_eq!(calls.end_turn(), None);

        let mut running = Meter::default();
        running.running(tokens(100, 10).usage(UsageScope::Thread), None);
        assert_eq!(running.end_turn().and_then(|turn| turn.input_tokens), Some(100));
        running.running(tokens(130, 12).usage(UsageScope::Thread), None);
        let second = running.end_turn().expect("a second turn");
        assert_eq!(
            (second.scope, second.input_tokens, second.output_tokens),
            (UsageScope::Turn, Some(30), Some(2))
        );
        assert_eq!(running.end_turn(), None);
    }

    #[test]
    fn a_thread_takes_each_figure_from_its_running_total_else_from_its_turns() {
        let running = with_provider_cost(empty(UsageScope::Thread), Some(2.0));
        let turns = tokens(40, 4).usage(UsageScope::Session);
        let total = thread_total(Some(&running), &turns, UsageScope::Thread);
        assert_eq!((total.input_tokens, total.cost_usd), (Some(40), Some(2.0)));
        assert_eq!(total.cost_source, CostSource::Provider);
        assert_eq!(thread_total(None, &turns, UsageScope::Thread).scope, UsageScope::Thread);
    }
}
