//! A session's usage is what its provider says it is: over every trace of every source, the fold's
//! total (`SessionSnapshot.usage`, which `show`, the import's index and every report read) has
//! the tokens and cost the provider's own messages state, read here from the trace's messages in
//! the provider's own names, independently of the mappings:
//!
//! | source | the provider's own figure |
//! |---|---|
//! | Claude stream-json, control protocol | the last `result`: its `modelUsage` added up over the models (input with the cache's tokens), its `total_cost_usd` |
//! | Claude Code session files | the last `cost-state` (the same, `totalCostUSD`); a file without one (2.1.62), its model messages' usage, each message once |
//! | codex exec | its turns' `turn.completed` usage added up |
//! | Codex app-server | each thread's last `thread/tokenUsage/updated` total, the threads added up |
//! | Codex rollout files | the last `token_count`'s `total_token_usage` |
//! | ACP agents | each session's last `usage_update` cost; the prompt replies' output tokens, else the model calls' tokens an `agent_message_chunk`'s `_meta.usage` states (input with the cache's reads: its total is input and output) |
//! | Gemini stream-json | its runs' `result` stats: the prompt's tokens in, the rest of the total out |
//! | Gemini session files | its model messages' tokens, each message once (prompt and tool prompt in, candidates and thoughts out) |
//! | OpenCode | its assistant messages' tokens and cost (input with the cache's, output with the reasoning), or its runner's steps' |
//! | Copilot CLI `-p` | none: its events and its `result` line state no tokens and no cost (premium requests and durations only) |
//! | Copilot CLI session logs | its `session.usage_record`s' tokens, added up (no cost in dollars) |

use std::collections::BTreeMap;

use agentwire::source::Source;
use agentwire_canonical::CostSource;
use agentwire_tests::scenario::Scenario;
use serde_json::Value;

/// What a provider states of a session; a figure it does not state is `None` and not compared.
#[derive(Debug, Default, PartialEq)]
struct Stated {
    input: Option<i64>,
    output: Option<i64>,
    cost: Option<f64>,
}

fn count(value: &Value) -> i64 {
    value
        .as_i64()
        .unwrap_or_else(|| value.as_f64().map_or(0, |value| value.round() as i64))
}

fn add(sum: &mut Option<i64>, value: i64) {
    *sum = Some(sum.unwrap_or(0) + value);
}

/// The messages of a trace the provider wrote, in order.
fn messages(sc: &Scenario) -> Vec<&Value> {
    sc.provider_lines_where(|_| true)
        .into_iter()
        .map(|line| sc.msg(line))
        .collect()
}

/// Claude's counts of one model (`modelUsage` values, `cost-state`'s): input with the cache's.
fn claude_models(models: &Value) -> (Option<i64>, Option<i64>) {
    let (mut input, mut output) = (None, None);
    for model in models.as_object().into_iter().flat_map(|models| models.values()) {
        let tokens = count(&model["inputTokens"])
            + count(&model["cacheReadInputTokens"])
            + count(&model["cacheCreationInputTokens"]);
        add(&mut input, tokens);
        add(&mut output, count(&model["outputTokens"]));
    }
    (input, output)
}

fn stated(sc: &Scenario) -> Stated {
    let messages = messages(sc);
    let mut stated = Stated::default();
    match sc.source.name() {
        "claude" | "claude-control" => {
            if let Some(result) = messages.iter().rev().find(|message| message["type"] == "result") {
                (stated.input, stated.output) = claude_models(&result["modelUsage"]);
                stated.cost = result["total_cost_usd"].as_f64();
            }
        }
        "claude-session" => match messages.iter().rev().find(|message| message["type"] == "cost-state") {
            Some(state) => {
                (stated.input, stated.output) = claude_models(&state["modelUsage"]);
                stated.cost = state["totalCostUSD"].as_f64();
            }
            None => {
                let mut calls = BTreeMap::new();
                for message in messages.iter().filter(|message| message["type"] == "assistant") {
                    let message = &message["message"];
                    if message["stop_reason"].is_string() && message["model"] != "<synthetic>" {
                        calls
                            .entry(message["id"].as_str().unwrap_or_default())
                            .or_insert(&message["usage"]);
                    }
                }
                for usage in calls.values() {
                    let input = count(&usage["input_tokens"])
                        + count(&usage["cache_read_input_tokens"])
                        + count(&usage["cache_creation_input_tokens"]);
                    add(&mut stated.input, input);
                    add(&mut stated.output, count(&usage["output_tokens"]));
                }
            }
        },
        "codex-exec" => {
            for message in messages.iter().filter(|message| message["type"] == "turn.completed") {
                add(&mut stated.input, count(&message["usage"]["input_tokens"]));
                add(&mut stated.output, count(&message["usage"]["output_tokens"]));
            }
        }
        "codex-app-server" => {
            let mut threads = BTreeMap::new();
            for message in messages
                .iter()
                .filter(|message| message["method"] == "thread/tokenUsage/updated")
            {
                let params = &message["params"];
                threads.insert(
                    params["threadId"].as_str().unwrap_or_default(),
                    &params["tokenUsage"]["total"],
                );
            }
            for total in threads.values() {
                add(&mut stated.input, count(&total["inputTokens"]));
                add(&mut stated.output, count(&total["outputTokens"]));
            }
        }
        "codex-rollout" => {
            let last = messages
                .iter()
                .rev()
                .find(|message| message["payload"]["type"] == "token_count" && message["payload"]["info"].is_object());
            if let Some(count_line) = last {
                let total = &count_line["payload"]["info"]["total_token_usage"];
                stated.input = Some(count(&total["input_tokens"]));
                stated.output = Some(count(&total["output_tokens"]));
            }
        }
        "acp" | "cursor" => {
            let mut costs = BTreeMap::new();
            let mut calls = Stated::default();
            for message in &messages {
                let params = &message["params"];
                let call = &params["update"]["_meta"]["usage"];
                if params["update"]["sessionUpdate"] == "agent_message_chunk" && call.is_object() {
                    add(&mut calls.input, count(&call["inputTokens"]));
                    add(&mut calls.output, count(&call["outputTokens"]));
                }
                if params["update"]["sessionUpdate"] == "usage_update" && params["update"]["cost"]["currency"] == "USD"
                {
                    let session = params["sessionId"].as_str().unwrap_or_default();
                    costs.insert(session, params["update"]["cost"]["amount"].as_f64().unwrap_or(0.0));
                }
                let result = &message["result"];
                if result["stopReason"].is_string() {
                    let output = match (&result["usage"], &result["_meta"]["quota"]["token_count"]) {
                        (usage, _) if usage.is_object() => Some(count(&usage["outputTokens"])),
                        (_, quota) if quota.is_object() => Some(count(&quota["output_tokens"])),
                        _ => None,
                    };
                    if let Some(output) = output {
                        add(&mut stated.output, output);
                    }
                }
            }
            if !costs.is_empty() {
                stated.cost = Some(costs.values().sum());
            }
            if stated.output.is_none() {
                (stated.input, stated.output) = (calls.input, calls.output);
            }
        }
        "gemini" => {
            for message in messages.iter().filter(|message| message["type"] == "result") {
                let stats = &message["stats"];
                if stats.is_object() {
                    let prompt = count(&stats["input_tokens"]);
                    add(&mut stated.input, prompt);
                    add(&mut stated.output, count(&stats["total_tokens"]) - prompt);
                }
            }
        }
        "gemini-session" => {
            let mut calls = BTreeMap::new();
            for message in messages.iter().filter(|message| message["tokens"].is_object()) {
                calls.insert(message["id"].as_str().unwrap_or_default(), &message["tokens"]);
            }
            for tokens in calls.values() {
                add(&mut stated.input, count(&tokens["input"]) + count(&tokens["tool"]));
                add(
                    &mut stated.output,
                    count(&tokens["output"]) + count(&tokens["thoughts"]),
                );
            }
        }
        "opencode" => {
            let mut assistant = BTreeMap::new();
            for message in &messages {
                // A global event wraps the event in `payload`; the v2 API's carries `data`.
                let event = if message["payload"].is_object() {
                    &message["payload"]
                } else {
                    message
                };
                let properties = if event["properties"].is_object() {
                    &event["properties"]
                } else {
                    &event["data"]
                };
                if event["type"] == "message.updated" && properties["info"]["role"] == "assistant" {
                    assistant.insert(
                        properties["info"]["id"].as_str().unwrap_or_default(),
                        &properties["info"],
                    );
                }
                if event["type"] == "session.next.step.ended" {
                    opencode_add(&mut stated, &properties["tokens"], &properties["cost"]);
                }
            }
            for info in assistant.values() {
                opencode_add(&mut stated, &info["tokens"], &info["cost"]);
            }
        }
        "opencode-run" => {
            for message in messages.iter().filter(|message| message["type"] == "step_finish") {
                opencode_add(&mut stated, &message["part"]["tokens"], &message["part"]["cost"]);
            }
        }
        "opencode-session" => {
            for message in messages.iter().filter(|message| message["info"]["role"] == "assistant") {
                opencode_add(&mut stated, &message["info"]["tokens"], &message["info"]["cost"]);
            }
        }
        // `-p --output-format json` states no tokens and no cost: the fold must have none either.
        "copilot" => {}
        "copilot-session" => {
            for message in messages
                .iter()
                .filter(|message| message["type"] == "session.usage_record")
            {
                let usage = &message["data"]["usage"];
                add(&mut stated.input, count(&usage["inputTokens"]));
                add(&mut stated.output, count(&usage["outputTokens"]));
            }
        }
        "pi" | "pi-rpc" | "pi-session" => {
            // Each model message's usage, once: json and RPC mode at its `message_end`, a session
            // file in its `message` entry.
            let assistant = |message: &&&Value| {
                let ended = message["type"] == "message_end" || message["type"] == "message";
                ended && message["message"]["role"] == "assistant"
            };
            let mut cost = 0.0;
            for message in messages.iter().filter(assistant) {
                let usage = &message["message"]["usage"];
                let input = count(&usage["input"]) + count(&usage["cacheRead"]) + count(&usage["cacheWrite"]);
                add(&mut stated.input, input);
                add(&mut stated.output, count(&usage["output"]));
                cost += usage["cost"]["total"].as_f64().unwrap_or_default();
            }
            if stated.input.is_some() {
                stated.cost = Some(cost);
            }
        }
        name => panic!("{name}: no statement of the provider's usage is read for this source"),
    }
    stated
}

/// OpenCode's own counts and cost of a message or a step, added: input with the cache's tokens,
/// output with the reasoning's.
fn opencode_add(stated: &mut Stated, tokens: &Value, cost: &Value) {
    if !tokens.is_object() {
        return;
    }
    let input = count(&tokens["input"]) + count(&tokens["cache"]["read"]) + count(&tokens["cache"]["write"]);
    add(&mut stated.input, input);
    add(
        &mut stated.output,
        count(&tokens["output"]) + count(&tokens["reasoning"]),
    );
    if let Some(cost) = cost.as_f64() {
        stated.cost = Some(stated.cost.unwrap_or(0.0) + cost);
    }
}

#[test]
fn every_sessions_usage_is_what_its_provider_states() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for &source in Source::ALL {
        for sc in Scenario::all(source) {
            let stated = stated(&sc);
            let Some(snapshot) = agentwire::snapshot::fold(sc.events()) else {
                continue;
            };
            let usage = snapshot.usage.as_ref();
            let ours = Stated {
                input: usage.and_then(|usage| usage.input_tokens),
                output: usage.and_then(|usage| usage.output_tokens),
                cost: usage.and_then(|usage| usage.cost_usd),
            };
            // Where the provider states no cost, the fold's is computed from the price table or
            // absent; never one said to be the provider's.
            let source = usage.map(|usage| usage.cost_source);
            let same_cost = match (stated.cost, ours.cost) {
                (Some(theirs), Some(ours)) => (theirs - ours).abs() < 1e-9,
                (Some(_), None) => false,
                (None, _) => source != Some(CostSource::Provider),
            };
            let agrees = stated.input.is_none_or(|input| ours.input == Some(input))
                && stated.output.is_none_or(|output| ours.output == Some(output))
                && same_cost;
            if !agrees {
                failures.push(format!(
                    "{}: the provider states {stated:?}, the fold {ours:?}",
                    sc.label()
                ));
            }
            compared += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compared}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared > 200, "{compared} traces compared");
}
