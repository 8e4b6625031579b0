//! Cross-provider equivalence (section 7 of the provider-runtime V2 proposal): a scenario
//! captured through several sources becomes the same canonical *shape*, whichever source carried
//! it, except for reviewed differences.
//!
//! The shape of a trace is the sequence of its event types, with the item type and status of
//! item events, the stream kind of `content.delta`, the request type (and decision) of request
//! events, the state of `turn.completed` and the session state changes; ids, times and text are
//! left out. Two tests compare shapes:
//!
//! - [`every_capture_has_the_same_shape_through_every_source`]: the Codex sources ran the same
//!   mock-model scenarios, so their whole shapes are compared pairwise, after removing what either
//!   cannot carry (each removal a row of [`DEPARTURES`] with its reason); a
//!   `session.state.changed` that repeats the state before it is then no change and is left out
//!   too.
//! - [`the_section_7_scenarios_have_one_shape_through_every_source`]: a refused shell command, a
//!   stop at the approval prompt, a stop while a tool runs, a stop while the model writes, and an
//!   API error, side by side for every source (and every agent behind ACP) that captured them.
//!   The sources ran different mock scripts, so only the scenario's *outcome* is compared (see
//!   [`outcome`]), against the canonical shape [`Scenario::reference`] writes down; each
//!   difference is a row of [`SECTION_7_ROWS`], per column and scenario, with its reason.
//! - [`every_claude_session_file_has_the_shape_and_ids_of_its_live_run`]: each Claude Code
//!   session file (`corpus/claude-session/`) against the live SDK <-> CLI transcript of the same
//!   run (`fixtures/claude-session/live/`, read `--from claude-control`): the whole shapes after
//!   the [`DEPARTURES`] of [`Source::CLAUDE_SESSION`] (what no session file carries) and the
//!   [`SESSION_RUN_DEPARTURES`] of one run, and the same thread, turn and item ids, in order.
//!
//! Every row must change something, so the tables cannot go stale. A row is a limit of the source
//! (it cannot carry the fact, or carries more), never a mapping agentwire gets wrong: that is fixed
//! in the mapping. A failing comparison prints both shapes whole, side by side.

use agentwire::source::Source;
use agentwire_canonical::{CanonicalItemType, CanonicalRuntimeEventType as T, ProviderRuntimeEvent, RuntimeEvent};
use agentwire_tests::{StoreTrace, corpus_dir, normalize, normalize_text, store_traces, trace_name, traces};

/// The sources whose captures are compared.
const COMPARED: &[Source] = &[Source::CODEX_APP_SERVER, Source::CODEX_EXEC, Source::CODEX_ROLLOUT];

/// One mock-model scenario and the trace each source captured of it; every source listed must be
/// in [`COMPARED`], so no listed trace goes uncompared. A rollout file is the one codex wrote during
/// the exec run of the row (same thread id) where the corpus has it (text, shell, patch, plan,
/// failed, flaky500), else during the app-server run (mcp, error500, user_input), else during
/// another exec run of the scenario (reasoning); `corpus/README.md` lists them.
struct Capture {
    scenario: &'static str,
    traces: &'static [(Source, &'static str)],
}

const CAPTURES: &[Capture] = &[
    Capture {
        scenario: "text",
        traces: &[
            (Source::CODEX_APP_SERVER, "text"),
            (Source::CODEX_EXEC, "text"),
            (Source::CODEX_ROLLOUT, "rollout-64"),
        ],
    },
    Capture {
        scenario: "reasoning",
        traces: &[
            (Source::CODEX_APP_SERVER, "reasoning"),
            (Source::CODEX_EXEC, "reasoning"),
            (Source::CODEX_ROLLOUT, "rollout-04"),
        ],
    },
    Capture {
        scenario: "shell",
        traces: &[
            (Source::CODEX_APP_SERVER, "shell"),
            (Source::CODEX_EXEC, "shell"),
            (Source::CODEX_ROLLOUT, "rollout-66"),
        ],
    },
    Capture {
        scenario: "patch",
        traces: &[
            (Source::CODEX_APP_SERVER, "patch"),
            (Source::CODEX_EXEC, "patch"),
            (Source::CODEX_ROLLOUT, "rollout-68"),
        ],
    },
    Capture {
        scenario: "plan",
        traces: &[
            (Source::CODEX_APP_SERVER, "plan"),
            (Source::CODEX_EXEC, "plan"),
            (Source::CODEX_ROLLOUT, "rollout-71"),
        ],
    },
    Capture {
        scenario: "mcp",
        traces: &[
            (Source::CODEX_APP_SERVER, "mcp"),
            (Source::CODEX_EXEC, "mcp"),
            (Source::CODEX_ROLLOUT, "rollout-52"),
        ],
    },
    Capture {
        scenario: "error500",
        traces: &[
            (Source::CODEX_APP_SERVER, "error500"),
            (Source::CODEX_EXEC, "error500"),
            (Source::CODEX_ROLLOUT, "rollout-33"),
        ],
    },
    Capture {
        scenario: "failed",
        traces: &[
            (Source::CODEX_APP_SERVER, "failed"),
            (Source::CODEX_EXEC, "failed"),
            (Source::CODEX_ROLLOUT, "rollout-79"),
        ],
    },
    Capture {
        scenario: "flaky500",
        traces: &[
            (Source::CODEX_APP_SERVER, "flaky500_retry"),
            (Source::CODEX_EXEC, "flaky500"),
            (Source::CODEX_ROLLOUT, "rollout-81"),
        ],
    },
    Capture {
        scenario: "user_input",
        traces: &[
            (Source::CODEX_APP_SERVER, "user_input_plan_mode"),
            (Source::CODEX_EXEC, "user_input"),
            (Source::CODEX_ROLLOUT, "rollout-55"),
        ],
    },
];

/// The sources whose every trace must be in a capture or in [`UNPAIRED`]: the ones captured for
/// the same scenarios as app-server (app-server's and the rollout files' corpora hold more).
const EVERY_TRACE_PAIRED: &[Source] = &[Source::CODEX_EXEC];

/// Traces of [`EVERY_TRACE_PAIRED`] sources in no capture, and why they have no counterpart.
const UNPAIRED: &[(&str, &str, &str)] = &[
    (
        "codex-exec",
        "shell_readonly_sandbox",
        "the shell_approval scenario under exec's read-only sandbox: the command fails where app-server's runs were \
         approved and ran (a different outcome, not a different carrier)",
    ),
    (
        "codex-exec",
        "shell_escalate_readonly",
        "the shell_escalate scenario under exec's read-only sandbox: no one can approve the escalation, so no command \
         runs; app-server's run was approved",
    ),
    (
        "codex-exec",
        "patch_fail",
        "no app-server capture of the patch_fail scenario",
    ),
    (
        "codex-exec",
        "text_fallback_model",
        "run with an unknown model; no app-server capture of it",
    ),
];

/// A canonical event's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    event: T,
    /// Item type and status; stream kind; request type; turn or session state.
    detail: String,
    item_type: Option<CanonicalItemType>,
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.detail.as_str() {
            "" => f.write_str(self.event.as_str()),
            detail => write!(f, "{}({detail})", self.event.as_str()),
        }
    }
}

fn token(event: &ProviderRuntimeEvent) -> Token {
    let (detail, item_type) = match &event.event {
        RuntimeEvent::ItemStarted(p) | RuntimeEvent::ItemUpdated(p) | RuntimeEvent::ItemCompleted(p) => {
            let status = p.status.map_or("-", |status| status.as_str());
            // Text the CLI put into the conversation is told from the person's words, and a
            // subagent's items (`parentItemId`) from the conversation's own.
            let data = p.data.as_ref().map(|data| data.to_value()).unwrap_or_default();
            let marker = match (data["origin"] == "cli", data["parentItemId"].is_string()) {
                (true, _) => "[cli]",
                (false, true) => "[sub]",
                (false, false) => "",
            };
            (format!("{}{marker},{status}", p.item_type.as_str()), Some(p.item_type))
        }
        RuntimeEvent::ContentDelta(p) => (p.stream_kind.as_str().to_string(), None),
        RuntimeEvent::RequestOpened(p) => (p.request_type.as_str().to_string(), None),
        RuntimeEvent::RequestResolved(p) => match &p.decision {
            Some(decision) => (format!("{},{decision}", p.request_type.as_str()), None),
            None => (p.request_type.as_str().to_string(), None),
        },
        RuntimeEvent::TurnCompleted(p) => (p.state.as_str().to_string(), None),
        RuntimeEvent::SessionStateChanged(p) => (p.state.as_str().to_string(), None),
        _ => (String::new(), None),
    };
    Token {
        event: event.event.event_type(),
        detail,
        item_type,
    }
}

/// A reviewed difference of `source`'s shapes from the others': what its `removes` matches is
/// removed from both sides whenever `source` is compared, and why.
struct Departure {
    source: Source,
    what: &'static str,
    removes: fn(&Token) -> bool,
    why: &'static str,
}

fn item_of(token: &Token, types: &[CanonicalItemType]) -> bool {
    matches!(token.event, T::ItemStarted | T::ItemUpdated | T::ItemCompleted)
        && token.item_type.is_some_and(|item| types.contains(&item))
}

const DEPARTURES: &[Departure] = &[
    Departure {
        source: Source::CODEX_EXEC,
        what: "session.started, session.configured, thread.metadata.updated",
        removes: |t| {
            matches!(
                t.event,
                T::SessionStarted | T::SessionConfigured | T::ThreadMetadataUpdated
            )
        },
        why: "exec prints no handshake: no `initialize`, no configuration listings, no thread object",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "thread.state.changed",
        removes: |t| t.event == T::ThreadStateChanged,
        why: "exec carries no thread status (`thread/status/changed`)",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "thread.token-usage.updated, account.rate-limits.updated",
        removes: |t| matches!(t.event, T::ThreadTokenUsageUpdated | T::AccountRateLimitsUpdated),
        why: "exec reports usage once, in `turn.completed.usage`, and no rate limits",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "mcp.status.updated",
        removes: |t| t.event == T::McpStatusUpdated,
        why: "exec prints no MCP server startup status",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "user_message items",
        removes: |t| item_of(t, &[CanonicalItemType::UserMessage]),
        why: "exec does not echo the prompt it was given",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "content.delta (every stream kind)",
        removes: |t| t.event == T::ContentDelta,
        why: "exec carries no deltas: items arrive whole",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "item.started and item.updated of assistant_message and reasoning",
        removes: |t| {
            matches!(t.event, T::ItemStarted | T::ItemUpdated)
                && item_of(t, &[CanonicalItemType::AssistantMessage, CanonicalItemType::Reasoning])
        },
        why: "exec prints messages and reasoning only once complete (`item.completed`)",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "turn.diff.updated",
        removes: |t| t.event == T::TurnDiffUpdated,
        why: "exec carries no turn diff; the file_change item lists the files",
    },
    Departure {
        source: Source::CODEX_EXEC,
        what: "request.*, user-input.*, and the session's `waiting` state",
        removes: |t| {
            matches!(
                t.event,
                T::RequestOpened | T::RequestResolved | T::UserInputRequested | T::UserInputResolved
            ) || (t.event == T::SessionStateChanged && t.detail == "waiting")
        },
        why: "exec carries no approvals and no questions: it runs with no client to ask, under its approval policy",
    },
    Departure {
        source: Source::CODEX_APP_SERVER,
        what: "plan items",
        removes: |t| item_of(t, &[CanonicalItemType::Plan]),
        why: "app-server reports an `update_plan` to-do list as `turn/plan/updated` only; exec also prints it as a \
              `todo_list` item (spec 6 maps it to a plan item)",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "session.configured, thread.metadata.updated",
        removes: |t| matches!(t.event, T::SessionConfigured | T::ThreadMetadataUpdated),
        why: "a rollout records the settings (`session_meta`, `turn_context`, `thread_settings_applied`, `world_state`) \
              and the model's history inside the turn; app-server lists its configuration and thread before it",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "thread.state.changed",
        removes: |t| t.event == T::ThreadStateChanged,
        why: "a rollout records no thread status",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "thread.token-usage.updated, account.rate-limits.updated",
        removes: |t| matches!(t.event, T::ThreadTokenUsageUpdated | T::AccountRateLimitsUpdated),
        why: "a rollout writes its `token_count` lines (rate limits inside) at other points than app-server notifies \
              usage, and exec reports usage once",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "mcp.status.updated",
        removes: |t| t.event == T::McpStatusUpdated,
        why: "a rollout records no MCP server startup status",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "content.delta (every stream kind), item.updated of reasoning",
        removes: |t| {
            t.event == T::ContentDelta || (t.event == T::ItemUpdated && item_of(t, &[CanonicalItemType::Reasoning]))
        },
        why: "codex 0.171 persists no streaming events: messages and reasoning are written whole",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "turn.diff.updated",
        removes: |t| t.event == T::TurnDiffUpdated,
        why: "a rollout records no turn diff",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "tool.summary",
        removes: |t| t.event == T::ToolSummary,
        why: "a rollout holds the model's history: each tool output handed back to the model (`function_call_output`) \
              is a `tool.summary`, which no live stream carries",
    },
    Departure {
        source: Source::CODEX_ROLLOUT,
        what: "plan items",
        removes: |t| item_of(t, &[CanonicalItemType::Plan]),
        why: "a rollout records `update_plan` as a function call and its `plan_update` (`turn.plan.updated`), no \
              `todo_list` item",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "session.configured, thread.metadata.updated",
        removes: |t| matches!(t.event, T::SessionConfigured | T::ThreadMetadataUpdated),
        why: "a session file states where and how the session ran (`cwd`, `gitBranch`, `version`, permission mode, \
              model) on its records, and its prompt queue (`queue-operation`) as thread metadata; the live run \
              lists the CLI's `init` and the answers to the client's control requests instead, and reports its \
              status, session state and thinking estimates as thread metadata",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "user_message items of the CLI's notes",
        removes: |t| t.detail.starts_with("user_message[cli],"),
        why: "the file keeps the echoes of a local command the CLI writes after it ran (its caveat, \
              `<command-name>`, its output) and the context it injects (`isMeta`); the live stream sends some of \
              them, in other places",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "thread.token-usage.updated",
        removes: |t| t.event == T::ThreadTokenUsageUpdated,
        why: "the file keeps one usage per model message (on its last block's record); the live stream reports it \
              at `message_start` and `message_delta`",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "content.delta of assistant and reasoning text, item.updated of every item but the Task's",
        removes: |t| {
            (t.event == T::ContentDelta && matches!(t.detail.as_str(), "assistant_text" | "reasoning_text"))
                || (t.event == T::ItemUpdated && t.item_type != Some(CanonicalItemType::CollabAgentToolCall))
        },
        why: "the file holds each block whole: no streamed text, no streamed tool input, no `assistant` message \
              finalizing a streamed block",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "request.*, and the session's `waiting` state",
        removes: |t| {
            matches!(t.event, T::RequestOpened | T::RequestResolved)
                || (t.event == T::SessionStateChanged && t.detail == "waiting")
        },
        why: "the file keeps no permission request and no answer: only the tool result that followed",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "item.completed of a tool call, failed or declined",
        removes: |t| {
            t.event == T::ItemCompleted
                && (t.detail.ends_with(",failed") || t.detail.ends_with(",declined"))
                && !item_of(
                    t,
                    &[
                        CanonicalItemType::AssistantMessage,
                        CanonicalItemType::Reasoning,
                        CanonicalItemType::UserMessage,
                    ],
                )
        },
        why: "a call the host refused is an `is_error` tool result in the file, with the host's own text: \
              `failed`, where the live run saw the refusal (`declined`); a call cut off by an interrupt says so in \
              its text and is `declined` in both",
    },
    Departure {
        source: Source::CLAUDE_SESSION,
        what: "item.updated of the Task item, a subagent's items, task.*",
        removes: |t| {
            matches!(t.event, T::TaskStarted | T::TaskProgress | T::TaskCompleted)
                || (t.event == T::ItemUpdated && t.item_type == Some(CanonicalItemType::CollabAgentToolCall))
                || t.detail.contains("[sub]")
        },
        why: "the file keeps every block of a subagent's messages (2.1.337 in a file of the subagent's own, beside \
              the session's), the live run only those the CLI forwards (0.2.x: its prompt, tool calls and results), \
              the Task call's input as it streams (updates of the Task item) and its `task_started` (the file has \
              no task but the Task call)",
    },
];

fn shape(source: Source, trace: &str) -> Vec<Token> {
    let path = corpus_dir(source).join(format!("{trace}.jsonl"));
    assert!(path.is_file(), "{}: no such trace", path.display());
    normalize(source, &path).events.iter().map(token).collect()
}

/// The shape with what `a` or `b` cannot carry removed (counting each departure's removals),
/// then the session state changes that change nothing left out.
fn comparable(tokens: &[Token], a: Source, b: Source, used: &mut [usize]) -> Vec<Token> {
    let mut kept: Vec<Token> = Vec::new();
    let mut state: Option<String> = None;
    'tokens: for token in tokens {
        for (index, departure) in DEPARTURES.iter().enumerate() {
            if (departure.source == a || departure.source == b) && (departure.removes)(token) {
                used[index] += 1;
                continue 'tokens;
            }
        }
        if token.event == T::SessionStateChanged {
            if state.as_deref() == Some(&token.detail) {
                continue;
            }
            state = Some(token.detail.clone());
        }
        kept.push(token.clone());
    }
    kept
}

fn trace_of(capture: &Capture, source: Source) -> Option<&'static str> {
    capture
        .traces
        .iter()
        .find(|(listed, _)| *listed == source)
        .map(|(_, trace)| *trace)
}

#[test]
fn every_capture_has_the_same_shape_through_every_source() {
    let mut used = vec![0; DEPARTURES.len()];
    let mut failures = Vec::new();
    let mut table = Vec::new();
    for capture in CAPTURES {
        let present: Vec<(Source, &str)> = COMPARED
            .iter()
            .filter_map(|&source| trace_of(capture, source).map(|trace| (source, trace)))
            .collect();
        assert!(
            present.len() >= 2,
            "scenario {}: fewer than two compared sources",
            capture.scenario
        );
        for (i, &(a, trace_a)) in present.iter().enumerate() {
            for &(b, trace_b) in &present[i + 1..] {
                let (full_a, full_b) = (shape(a, trace_a), shape(b, trace_b));
                let left = comparable(&full_a, a, b, &mut used);
                let right = comparable(&full_b, b, a, &mut used);
                let agrees = left == right;
                table.push(format!(
                    "  {:12} {a}/{trace_a} ({} -> {}) vs {b}/{trace_b} ({} -> {}): {}",
                    capture.scenario,
                    full_a.len(),
                    left.len(),
                    full_b.len(),
                    right.len(),
                    if agrees { "same shape" } else { "DIFFERENT" }
                ));
                if !agrees {
                    failures.push(format!(
                        "scenario {}: {a}/{trace_a} and {b}/{trace_b} differ beyond the listed departures \
                         (both shapes whole, after the departures; `<` only left, `>` only right):\n{}",
                        capture.scenario,
                        side_by_side(
                            &format!("{a}/{trace_a}"),
                            &strings(&left),
                            &format!("{b}/{trace_b}"),
                            &strings(&right)
                        )
                    ));
                }
            }
        }
    }
    println!(
        "equivalence (events before -> after removing what the other cannot carry):\n{}",
        table.join("\n")
    );
    println!("\n| source | removed | events removed | why |\n|---|---|---|---|");
    for (departure, count) in DEPARTURES.iter().zip(&used) {
        println!(
            "| {} | {} | {count} | {} |",
            departure.source, departure.what, departure.why
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let stale: Vec<&str> = DEPARTURES
        .iter()
        .zip(&used)
        .filter(|(departure, count)| **count == 0 && COMPARED.contains(&departure.source))
        .map(|(departure, _)| departure.what)
        .collect();
    assert!(
        stale.is_empty(),
        "departures that remove nothing in any comparison (delete or fix them): {stale:?}"
    );
}

fn strings(tokens: &[Token]) -> Vec<String> {
    tokens.iter().map(ToString::to_string).collect()
}

/// Two shapes whole, side by side, lined up on their longest common subsequence: a line both
/// have is unmarked, `<` marks a line only the left has, `>` one only the right has.
fn side_by_side(left_name: &str, left: &[String], right_name: &str, right: &[String]) -> String {
    // common[i][j]: the length of the longest common subsequence of left[i..] and right[j..].
    let mut common = vec![vec![0usize; right.len() + 1]; left.len() + 1];
    for i in (0..left.len()).rev() {
        for j in (0..right.len()).rev() {
            common[i][j] = if left[i] == right[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let width = left.iter().map(String::len).chain([left_name.len()]).max().unwrap_or(0);
    let mut lines = vec![format!("      {left_name:width$}   {right_name}")];
    let (mut i, mut j) = (0, 0);
    while i < left.len() || j < right.len() {
        if i < left.len() && j < right.len() && left[i] == right[j] {
            lines.push(format!("      {:width$}   {}", left[i], right[j]));
            (i, j) = (i + 1, j + 1);
        } else if j == right.len() || (i < left.len() && common[i + 1][j] >= common[i][j + 1]) {
            lines.push(format!("    < {:width$}", left[i]));
            i += 1;
        } else {
            lines.push(format!("    > {:width$}   {}", "", right[j]));
            j += 1;
        }
    }
    lines.join("\n")
}

#[test]
fn the_shape_comparison_can_fail() {
    // A shape that lost its turn's failure, or an item, is not the same shape.
    let shell = shape(Source::CODEX_EXEC, "shell");
    let failed = shape(Source::CODEX_EXEC, "failed");
    let mut used = vec![0; DEPARTURES.len()];
    let (a, b) = (Source::CODEX_APP_SERVER, Source::CODEX_EXEC);
    assert_ne!(
        comparable(&shell, a, b, &mut used),
        comparable(&failed, a, b, &mut used)
    );
    let mut without_command = shell.clone();
    without_command.retain(|t| t.item_type != Some(CanonicalItemType::CommandExecution));
    assert_ne!(
        comparable(&shell, a, b, &mut used),
        comparable(&without_command, a, b, &mut used)
    );
    // Repeated session states collapse; state changes stay.
    let states = |names: &[&str]| -> Vec<Token> {
        names
            .iter()
            .map(|n| Token {
                event: T::SessionStateChanged,
                detail: (*n).into(),
                item_type: None,
            })
            .collect()
    };
    assert_eq!(
        comparable(&states(&["running", "running", "ready"]), a, a, &mut used),
        states(&["running", "ready"])
    );
}

#[test]
fn every_trace_of_a_paired_source_is_paired_or_says_why_not() {
    for &source in EVERY_TRACE_PAIRED {
        for trace in traces(source) {
            let name = trace_name(&trace);
            let paired = CAPTURES
                .iter()
                .any(|capture| trace_of(capture, source) == Some(name.as_str()));
            let unpaired = UNPAIRED.iter().any(|(s, t, _)| *s == source.name() && *t == name);
            assert!(
                paired || unpaired,
                "{}/{name}: in no capture and not listed as unpaired",
                source.name()
            );
            assert!(
                !(paired && unpaired),
                "{}/{name}: both paired and unpaired",
                source.name()
            );
        }
    }
    for capture in CAPTURES {
        for (source, _) in capture.traces {
            assert!(
                COMPARED.contains(source),
                "scenario {}: {source} is listed but not compared (add it to COMPARED)",
                capture.scenario
            );
        }
    }
}

/// A scenario of the section 7 comparison: what a person or the provider's API did, whatever
/// mock script the source ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    /// The person refuses a shell command at its approval prompt; the turn goes on.
    DeclinedShell,
    /// The person's refusal at the approval prompt also stops the turn (Codex's `cancel` or
    /// `abort`, Claude's deny with `interrupt`, a cancel while the prompt is open).
    StopAtApproval,
    /// The person stops the turn while a shell command runs.
    StopMidTool,
    /// The person stops the turn while the model writes (no tool running).
    StopMidstream,
    /// The model's API answers with an error and the provider gives up.
    ApiError,
}

impl Scenario {
    const ALL: [Scenario; 5] = [
        Scenario::DeclinedShell,
        Scenario::StopAtApproval,
        Scenario::StopMidTool,
        Scenario::StopMidstream,
        Scenario::ApiError,
    ];

    fn name(self) -> &'static str {
        match self {
            Scenario::DeclinedShell => "declined_shell",
            Scenario::StopAtApproval => "stop_at_approval",
            Scenario::StopMidTool => "stop_mid_tool",
            Scenario::StopMidstream => "stop_midstream",
            Scenario::ApiError => "api_error",
        }
    }

    /// The canonical outcome the project chose, written down: a declined command is its item
    /// completed `declined` (the turn goes on); a person's stop is `turn.completed(interrupted)`
    /// with the tool it cut off `declined` (a stop at the prompt answers it `cancel`); an API
    /// error is `runtime.error` and the turn `failed`.
    fn reference(self) -> &'static [&'static str] {
        match self {
            Scenario::DeclinedShell => &[
                "turn.started",
                "session.state.changed(running)",
                "item.started(command_execution,inProgress)",
                "request.opened(command_execution_approval)",
                "session.state.changed(waiting)",
                "request.resolved(command_execution_approval,decline)",
                "session.state.changed(running)",
                "item.completed(command_execution,declined)",
                "turn.completed(completed)",
                "session.state.changed(ready)",
                "session.state.changed(stopped)",
            ],
            Scenario::StopAtApproval => &[
                "turn.started",
                "session.state.changed(running)",
                "item.started(command_execution,inProgress)",
                "request.opened(command_execution_approval)",
                "session.state.changed(waiting)",
                "request.resolved(command_execution_approval,cancel)",
                "session.state.changed(running)",
                "item.completed(command_execution,declined)",
                "turn.completed(interrupted)",
                "session.state.changed(ready)",
                "session.state.changed(stopped)",
            ],
            Scenario::StopMidTool => &[
                "turn.started",
                "session.state.changed(running)",
                "item.started(command_execution,inProgress)",
                "item.completed(command_execution,declined)",
                "turn.completed(interrupted)",
                "session.state.changed(ready)",
                "session.state.changed(stopped)",
            ],
            Scenario::StopMidstream => &[
                "turn.started",
                "session.state.changed(running)",
                "turn.completed(interrupted)",
                "session.state.changed(ready)",
                "session.state.changed(stopped)",
            ],
            Scenario::ApiError => &[
                "turn.started",
                "session.state.changed(running)",
                "runtime.error",
                "turn.completed(failed)",
                "session.state.changed(ready)",
                "session.state.changed(error)",
            ],
        }
    }
}

/// A column of the section 7 comparison: a source, split where the same wire carries different
/// programs (each agent behind ACP; the Claude control protocol under the SDK or under one of
/// Zed's ACP adapters, which answer permissions their own way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    CodexAppServer,
    CodexExec,
    CodexRollout,
    Claude,
    ClaudeControl,
    ClaudeControlUnderAcp,
    ClaudeControlUnderOldAcp,
    AcpClaude,
    AcpOldClaude,
    AcpCodex,
    AcpGemini,
    Cursor,
}

impl Column {
    const ALL: [Column; 12] = [
        Column::CodexAppServer,
        Column::CodexExec,
        Column::CodexRollout,
        Column::Claude,
        Column::ClaudeControl,
        Column::ClaudeControlUnderAcp,
        Column::ClaudeControlUnderOldAcp,
        Column::AcpClaude,
        Column::AcpOldClaude,
        Column::AcpCodex,
        Column::AcpGemini,
        Column::Cursor,
    ];

    fn name(self) -> &'static str {
        match self {
            Column::CodexAppServer => "codex-app-server",
            Column::CodexExec => "codex-exec",
            Column::CodexRollout => "codex-rollout",
            Column::Claude => "claude (stream-json, SDK query())",
            Column::ClaudeControl => "claude-control (SDK host)",
            Column::ClaudeControlUnderAcp => "claude-control (under claude-agent-acp)",
            Column::ClaudeControlUnderOldAcp => "claude-control (under claude-code-acp)",
            Column::AcpClaude => "acp (claude-agent-acp)",
            Column::AcpOldClaude => "acp (claude-code-acp)",
            Column::AcpCodex => "acp (codex-acp)",
            Column::AcpGemini => "acp (gemini)",
            Column::Cursor => "cursor (hand-made)",
        }
    }

    fn source(self) -> Source {
        match self {
            Column::CodexAppServer => Source::CODEX_APP_SERVER,
            Column::CodexExec => Source::CODEX_EXEC,
            Column::CodexRollout => Source::CODEX_ROLLOUT,
            Column::Claude => Source::CLAUDE,
            Column::ClaudeControl | Column::ClaudeControlUnderAcp | Column::ClaudeControlUnderOldAcp => {
                Source::CLAUDE_CONTROL
            }
            Column::AcpClaude | Column::AcpOldClaude | Column::AcpCodex | Column::AcpGemini => Source::ACP,
            Column::Cursor => Source::CURSOR,
        }
    }
}

/// The traces of a scenario in a column (several when the column has captures of two versions
/// or two runs of it).
struct Case {
    scenario: Scenario,
    column: Column,
    traces: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        scenario: Scenario::DeclinedShell,
        column: Column::CodexAppServer,
        traces: &["shell_approval_decline"],
    },
    Case {
        // A shell_approval run of app-server answered `decline` (`Rejected("rejected by user")`).
        scenario: Scenario::DeclinedShell,
        column: Column::CodexRollout,
        traces: &["rollout-37"],
    },
    Case {
        scenario: Scenario::DeclinedShell,
        column: Column::Claude,
        traces: &["sdk_bash_touch_deny", "v0.3.332-sdk_bash_touch_deny"],
    },
    Case {
        scenario: Scenario::DeclinedShell,
        column: Column::ClaudeControl,
        traces: &["sdk_bash_touch_deny", "v0.3.332-sdk_bash_touch_deny"],
    },
    Case {
        scenario: Scenario::DeclinedShell,
        column: Column::AcpClaude,
        traces: &["tool_reject"],
    },
    Case {
        scenario: Scenario::DeclinedShell,
        column: Column::AcpOldClaude,
        traces: &["old_terminal_reject"],
    },
    Case {
        scenario: Scenario::DeclinedShell,
        column: Column::AcpGemini,
        traces: &["gemini_shell_reject"],
    },
    Case {
        scenario: Scenario::StopAtApproval,
        column: Column::CodexAppServer,
        traces: &["shell_approval_cancel"],
    },
    Case {
        // The rollout of the shell_approval_cancel run (same thread id).
        scenario: Scenario::StopAtApproval,
        column: Column::CodexRollout,
        traces: &["rollout-38"],
    },
    Case {
        scenario: Scenario::StopAtApproval,
        column: Column::Claude,
        traces: &[
            "sdk_bash_touch_deny_interrupt",
            "v0.3.332-sdk_bash_touch_deny_interrupt",
        ],
    },
    Case {
        scenario: Scenario::StopAtApproval,
        column: Column::ClaudeControl,
        traces: &[
            "sdk_bash_touch_deny_interrupt",
            "v0.3.332-sdk_bash_touch_deny_interrupt",
        ],
    },
    Case {
        scenario: Scenario::StopAtApproval,
        column: Column::ClaudeControlUnderAcp,
        traces: &["acp-cancel_during_permission"],
    },
    Case {
        // The adapter answers the client's reject with `deny` + `interrupt: true`.
        scenario: Scenario::StopAtApproval,
        column: Column::ClaudeControlUnderOldAcp,
        traces: &["acp-old_terminal_reject"],
    },
    Case {
        // codex-acp's one reject option is `abort`.
        scenario: Scenario::StopAtApproval,
        column: Column::AcpCodex,
        traces: &["codex_acp_shell_reject"],
    },
    Case {
        scenario: Scenario::StopMidTool,
        column: Column::ClaudeControlUnderAcp,
        traces: &["acp-cancel_during_tool"],
    },
    Case {
        scenario: Scenario::StopMidTool,
        column: Column::ClaudeControlUnderOldAcp,
        traces: &["acp-old_terminal_cancel"],
    },
    Case {
        scenario: Scenario::StopMidTool,
        column: Column::AcpClaude,
        traces: &["cancel_during_tool"],
    },
    Case {
        scenario: Scenario::StopMidstream,
        column: Column::CodexAppServer,
        traces: &["interrupt"],
    },
    Case {
        // The rollout of the interrupt run (same thread id).
        scenario: Scenario::StopMidstream,
        column: Column::CodexRollout,
        traces: &["rollout-43"],
    },
    Case {
        scenario: Scenario::StopMidstream,
        column: Column::Claude,
        traces: &["sdk_interrupt_midstream", "v0.3.332-sdk_interrupt_midstream"],
    },
    Case {
        scenario: Scenario::StopMidstream,
        column: Column::ClaudeControl,
        traces: &["sdk_interrupt_midstream", "v0.3.332-sdk_interrupt_midstream"],
    },
    Case {
        scenario: Scenario::StopMidstream,
        column: Column::AcpClaude,
        traces: &["cancel_midstream"],
    },
    Case {
        scenario: Scenario::StopMidstream,
        column: Column::AcpCodex,
        traces: &["codex_acp_cancel_midstream"],
    },
    Case {
        scenario: Scenario::StopMidstream,
        column: Column::AcpGemini,
        traces: &["gemini_cancel_midstream"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::CodexAppServer,
        traces: &["error500"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::CodexExec,
        traces: &["error500"],
    },
    Case {
        // The rollouts of the app-server and of the exec error500 runs.
        scenario: Scenario::ApiError,
        column: Column::CodexRollout,
        traces: &["rollout-33", "rollout-08"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::Claude,
        traces: &[
            "sdk_error529",
            "v0.3.332-sdk_error529",
            "error500_noretry",
            "error529_noretry",
        ],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::ClaudeControl,
        traces: &["sdk_error529", "v0.3.332-sdk_error529"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::ClaudeControlUnderAcp,
        traces: &["acp-error529"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::AcpClaude,
        traces: &["error529"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::AcpCodex,
        traces: &["codex_acp_error500"],
    },
    Case {
        scenario: Scenario::ApiError,
        column: Column::Cursor,
        traces: &["error_as_text"],
    },
];

/// The (column, scenario) pairs with no trace, and why: with [`CASES`] they fill the whole
/// matrix, so a new capture or column is placed on purpose.
const ABSENT: &[(Column, Scenario, &str)] = &[
    (
        Column::CodexExec,
        Scenario::DeclinedShell,
        "exec carries no approval requests: codex exec runs with approval `never` (its read-only sandbox refuses \
         instead: shell_readonly_sandbox, a failed command)",
    ),
    (
        Column::CodexExec,
        Scenario::StopAtApproval,
        "exec carries no approval requests: codex exec runs with approval `never`",
    ),
    (
        Column::CodexExec,
        Scenario::StopMidTool,
        "exec has no interrupt: a stopped exec run is a killed process",
    ),
    (
        Column::CodexExec,
        Scenario::StopMidstream,
        "exec has no interrupt: a stopped exec run is a killed process",
    ),
    (
        Column::CodexAppServer,
        Scenario::StopMidTool,
        "no capture stops a running command (interrupt stops the model's text)",
    ),
    (
        Column::CodexRollout,
        Scenario::StopMidTool,
        "no capture stops a running command (rollout-43 is the interrupt run)",
    ),
    (
        Column::Claude,
        Scenario::StopMidTool,
        "the SDK captures stop at the approval prompt or mid-text, never while a tool runs",
    ),
    (
        Column::ClaudeControl,
        Scenario::StopMidTool,
        "the SDK captures stop at the approval prompt or mid-text, never while a tool runs",
    ),
    (
        Column::ClaudeControlUnderAcp,
        Scenario::DeclinedShell,
        "no CLI-side capture of claude-agent-acp's tool_reject run",
    ),
    (
        Column::ClaudeControlUnderAcp,
        Scenario::StopMidstream,
        "no CLI-side capture of claude-agent-acp's cancel_midstream run",
    ),
    (
        Column::ClaudeControlUnderOldAcp,
        Scenario::DeclinedShell,
        "claude-code-acp answers a refusal `deny` with `interrupt: true`: its reject stops the turn \
         (acp-old_terminal_reject is a stop_at_approval)",
    ),
    (
        Column::ClaudeControlUnderOldAcp,
        Scenario::StopMidstream,
        "no capture of claude-code-acp stopped mid-text",
    ),
    (
        Column::ClaudeControlUnderOldAcp,
        Scenario::ApiError,
        "no capture of an API error under claude-code-acp",
    ),
    (
        Column::AcpClaude,
        Scenario::StopAtApproval,
        "no ACP-side capture of the cancel during the permission prompt (claude-control has the CLI side: \
         acp-cancel_during_permission)",
    ),
    (
        Column::AcpOldClaude,
        Scenario::StopAtApproval,
        "claude-code-acp tells its client `end_turn` after the refusal it made interrupting: the ACP side of that \
         run is a declined_shell (old_terminal_reject)",
    ),
    (
        Column::AcpOldClaude,
        Scenario::StopMidTool,
        "no ACP-side capture of the old_terminal_cancel run (claude-control has the CLI side)",
    ),
    (
        Column::AcpOldClaude,
        Scenario::StopMidstream,
        "no capture of claude-code-acp stopped mid-text",
    ),
    (
        Column::AcpOldClaude,
        Scenario::ApiError,
        "no capture of an API error through claude-code-acp",
    ),
    (
        Column::AcpCodex,
        Scenario::DeclinedShell,
        "codex-acp offers no refusal that lets the turn go on: its one reject option is Codex's `abort` \
         (codex_acp_shell_reject is a stop_at_approval)",
    ),
    (
        Column::AcpCodex,
        Scenario::StopMidTool,
        "no capture of codex-acp stopped while a command runs",
    ),
    (
        Column::AcpGemini,
        Scenario::StopAtApproval,
        "no capture of gemini stopped at its permission prompt",
    ),
    (
        Column::AcpGemini,
        Scenario::StopMidTool,
        "no capture of gemini stopped while a command runs",
    ),
    (
        Column::AcpGemini,
        Scenario::ApiError,
        "no capture of an API error through gemini",
    ),
    (
        Column::Cursor,
        Scenario::DeclinedShell,
        "the hand-made transcripts hold no refused permission (tool_permission is allowed)",
    ),
    (
        Column::Cursor,
        Scenario::StopAtApproval,
        "the hand-made transcripts hold no refused permission",
    ),
    (
        Column::Cursor,
        Scenario::StopMidTool,
        "the hand-made transcripts hold no stop while a tool runs",
    ),
    (
        Column::Cursor,
        Scenario::StopMidstream,
        "cancel_unsupported holds two turns (a request-form cancel Cursor ignores, then a notification one); no \
         single stopped turn",
    ),
];

/// How a reviewed row changes the comparison of one column's shapes with the reference.
enum Edit {
    /// Events the column cannot carry, or carries beyond the reference: removed from both sides.
    Drop(&'static str, fn(&str) -> bool),
    /// Where the reference has the first event the column has the second.
    Becomes(&'static str, &'static str),
}

/// A reviewed difference of one column's shapes from the reference of one scenario.
struct Row {
    column: Column,
    scenario: Scenario,
    edits: &'static [Edit],
    why: &'static str,
}

fn is_request_or_wait(token: &str) -> bool {
    token.starts_with("request.") || token == "session.state.changed(waiting)"
}

/// The completion of a refused command, `declined` or (where the refusal is told only later)
/// `failed`.
fn is_refused_command(token: &str) -> bool {
    matches!(
        token,
        "item.completed(command_execution,declined)" | "item.completed(command_execution,failed)"
    )
}

const SECTION_7_ROWS: &[Row] = &[
    Row {
        column: Column::CodexRollout,
        scenario: Scenario::DeclinedShell,
        edits: &[Edit::Drop("request.*, waiting", is_request_or_wait)],
        why: "a rollout persists no approval request or answer: the refusal shows in the tool's output \
              (`Rejected(\"rejected by user\")`)",
    },
    Row {
        column: Column::CodexRollout,
        scenario: Scenario::StopAtApproval,
        edits: &[Edit::Drop("request.*, waiting", is_request_or_wait)],
        why: "a rollout persists no approval request or answer",
    },
    Row {
        column: Column::Claude,
        scenario: Scenario::DeclinedShell,
        edits: &[
            Edit::Drop("request.*, waiting", is_request_or_wait),
            Edit::Drop("item.completed(command_execution)", is_refused_command),
        ],
        why: "query() yields no `can_use_tool`: before 0.3.x the `tool_result` (`is_error`) completes the item \
              `failed` before anything says it was refused, and the `result`'s `permission_denials` then opens and \
              resolves the request at once; 0.3.x says so in the result's `tool_result_meta` (`declined`, no request)",
    },
    Row {
        column: Column::Claude,
        scenario: Scenario::StopAtApproval,
        edits: &[
            Edit::Drop("request.*, waiting", is_request_or_wait),
            Edit::Drop("item.completed(command_execution)", is_refused_command),
        ],
        why: "query() yields no `can_use_tool` (nor its `interrupt`): as for declined_shell, before 0.3.x the \
              denial comes after the fact in `permission_denials`; the interrupt note still makes the turn \
              `interrupted`",
    },
    Row {
        column: Column::Claude,
        scenario: Scenario::StopAtApproval,
        edits: &[Edit::Drop("runtime.warning", |t| t == "runtime.warning")],
        why: "the capture driver's `_driver_error` line (query() threw) ends v0.3.332-sdk_bash_touch_deny_interrupt: \
              no provider message, read as a warning",
    },
    Row {
        column: Column::Claude,
        scenario: Scenario::StopMidstream,
        edits: &[Edit::Drop("runtime.warning", |t| t == "runtime.warning")],
        why: "the capture driver's `_driver_error` line (query() threw) ends v0.3.332-sdk_interrupt_midstream: no \
              provider message, read as a warning",
    },
    Row {
        column: Column::Claude,
        scenario: Scenario::ApiError,
        edits: &[Edit::Drop("runtime.warning", |t| t == "runtime.warning")],
        why: "the capture driver's `_driver_error` line (query() threw) ends both sdk_error529 traces: no provider \
              message, read as a warning",
    },
    Row {
        column: Column::ClaudeControlUnderOldAcp,
        scenario: Scenario::StopMidTool,
        edits: &[Edit::Drop("request.*, waiting", is_request_or_wait)],
        why: "claude-code-acp asks before every terminal command: the request, accepted, precedes the run the person \
              then stops",
    },
    Row {
        column: Column::AcpCodex,
        scenario: Scenario::StopAtApproval,
        edits: &[Edit::Becomes(
            "request.resolved(command_execution_approval,cancel)",
            "request.resolved(command_execution_approval,decline)",
        )],
        why: "codex-acp files Codex's `abort` under option kind `reject_once`: the answer reads as a refusal, the stop \
              shows only in the turn's end",
    },
    Row {
        column: Column::Cursor,
        scenario: Scenario::ApiError,
        edits: &[
            Edit::Drop("runtime.error", |t| t == "runtime.error"),
            Edit::Becomes("turn.completed(failed)", "turn.completed(completed)"),
            Edit::Becomes("session.state.changed(error)", "session.state.changed(stopped)"),
        ],
        why: "Cursor reports a run error only as assistant text (`\\n\\nError: ...`) and `end_turn` (per its \
              documentation; the transcript is hand-made): nothing on the wire says the turn failed",
    },
];

/// What a section 7 scenario is about, in a shape: from the scenario's turn on, the turn's start
/// and end, tool items' start and end (the words of the conversation, user and assistant messages
/// and reasoning, come from each source's own mock script), requests, runtime errors and warnings,
/// and the session's state changes. Progress (`item.updated`, `content.delta`), usage,
/// configuration and metadata are left out.
fn outcome(source: Source, trace: &str) -> Vec<String> {
    let words = [
        CanonicalItemType::UserMessage,
        CanonicalItemType::AssistantMessage,
        CanonicalItemType::Reasoning,
    ];
    shape(source, trace)
        .into_iter()
        .skip_while(|t| t.event != T::TurnStarted)
        .filter(|t| match t.event {
            T::ItemStarted | T::ItemCompleted => !item_of(t, &words),
            T::TurnStarted
            | T::TurnCompleted
            | T::TurnAborted
            | T::RequestOpened
            | T::RequestResolved
            | T::UserInputRequested
            | T::UserInputResolved
            | T::RuntimeError
            | T::RuntimeWarning
            | T::SessionStateChanged => true,
            _ => false,
        })
        .map(|t| t.to_string())
        .collect()
}

/// A shape with the rows' drops applied (counting each edit's removals in `used`), then the
/// session state changes that change nothing left out.
fn after_drops(tokens: &[String], edits: &[(usize, &Edit)], used: &mut [usize]) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    'tokens: for token in tokens {
        for &(index, edit) in edits {
            if let Edit::Drop(_, removes) = edit
                && removes(token)
            {
                used[index] += 1;
                continue 'tokens;
            }
        }
        let state = token.starts_with("session.state.changed(");
        let last_state = kept.iter().rev().find(|t| t.starts_with("session.state.changed("));
        if state && last_state == Some(token) {
            continue;
        }
        kept.push(token.clone());
    }
    kept
}

/// The rows' edits of `column` in `scenario`, numbered across the whole table (row by row, edit
/// by edit) to count their use.
fn edits_of(column: Column, scenario: Scenario) -> Vec<(usize, &'static Edit)> {
    SECTION_7_ROWS
        .iter()
        .flat_map(|row| row.edits.iter().map(move |edit| (row, edit)))
        .enumerate()
        .filter(|(_, (row, _))| row.column == column && row.scenario == scenario)
        .map(|(index, (_, edit))| (index, edit))
        .collect()
}

fn edit_count() -> usize {
    SECTION_7_ROWS.iter().map(|row| row.edits.len()).sum()
}

/// The reference of `scenario` as `column` should carry it, and `trace`'s outcome, both after
/// the rows' edits.
fn compared(scenario: Scenario, column: Column, trace: &str, used: &mut [usize]) -> (Vec<String>, Vec<String>) {
    let edits = edits_of(column, scenario);
    let mut reference: Vec<String> = scenario.reference().iter().map(|t| (*t).to_string()).collect();
    for &(index, edit) in &edits {
        if let Edit::Becomes(from, to) = edit {
            for token in reference.iter_mut().filter(|t| t.as_str() == *from) {
                *token = (*to).to_string();
                used[index] += 1;
            }
        }
    }
    let reference = after_drops(&reference, &edits, used);
    let actual = after_drops(&outcome(column.source(), trace), &edits, used);
    (reference, actual)
}

#[test]
fn the_section_7_scenarios_have_one_shape_through_every_source() {
    let mut used = vec![0; edit_count()];
    let mut failures = Vec::new();
    for case in CASES {
        for trace in case.traces {
            let (reference, actual) = compared(case.scenario, case.column, trace, &mut used);
            if reference != actual {
                failures.push(format!(
                    "{} through {}: {}/{trace} differs from the reference beyond the rows of SECTION_7_ROWS \
                     (both shapes whole, after the rows; `<` only the reference, `>` only the trace):\n{}",
                    case.scenario.name(),
                    case.column.name(),
                    case.column.source(),
                    side_by_side(
                        "reference",
                        &reference,
                        &format!("{}/{trace}", case.column.source()),
                        &actual
                    )
                ));
            }
        }
    }
    println!("{}", section_7_table(&used));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let mut index = 0;
    let mut stale = Vec::new();
    for row in SECTION_7_ROWS {
        for edit in row.edits {
            if used[index] == 0 {
                stale.push(format!(
                    "{} / {}: {}",
                    row.column.name(),
                    row.scenario.name(),
                    describe(edit)
                ));
            }
            index += 1;
        }
    }
    assert!(
        stale.is_empty(),
        "rows of SECTION_7_ROWS that change nothing (delete or fix them): {stale:#?}"
    );
}

fn describe(edit: &Edit) -> String {
    match edit {
        Edit::Drop(what, _) => format!("no {what}"),
        Edit::Becomes(from, to) => format!("{to} for {from}"),
    }
}

/// The matrix and the reviewed rows as Markdown, to paste into a note.
fn section_7_table(used: &[usize]) -> String {
    let mut out = String::from("Section 7 scenarios (traces per column; `-` none, see ABSENT):\n\n| scenario |");
    for column in Column::ALL {
        out.push_str(&format!(" {} |", column.name()));
    }
    out.push_str(&format!("\n|---|{}\n", "---|".repeat(Column::ALL.len())));
    for scenario in Scenario::ALL {
        out.push_str(&format!("| {} |", scenario.name()));
        for column in Column::ALL {
            let traces = CASES
                .iter()
                .find(|case| case.scenario == scenario && case.column == column)
                .map_or("-".to_string(), |case| case.traces.join(", "));
            out.push_str(&format!(" {traces} |"));
        }
        out.push('\n');
    }
    out.push_str("\nReviewed differences from the reference shape:\n\n| column | scenario | difference | why | uses |\n|---|---|---|---|---|\n");
    let mut index = 0;
    for row in SECTION_7_ROWS {
        let differences: Vec<String> = row.edits.iter().map(describe).collect();
        let uses: Vec<String> = row
            .edits
            .iter()
            .map(|_| {
                index += 1;
                used[index - 1].to_string()
            })
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            row.column.name(),
            row.scenario.name(),
            differences.join("; "),
            row.why,
            uses.join(", ")
        ));
    }
    out
}

#[test]
fn every_column_and_scenario_has_traces_or_says_why_not() {
    for scenario in Scenario::ALL {
        for column in Column::ALL {
            let cases = CASES
                .iter()
                .filter(|case| case.scenario == scenario && case.column == column)
                .count();
            let absent = ABSENT.iter().filter(|(c, s, _)| *c == column && *s == scenario).count();
            assert_eq!(
                cases + absent,
                1,
                "{} / {}: must be in exactly one of CASES and ABSENT",
                column.name(),
                scenario.name()
            );
        }
    }
    for case in CASES {
        assert!(
            !case.traces.is_empty(),
            "{} / {}: no trace",
            case.column.name(),
            case.scenario.name()
        );
    }
}

#[test]
fn the_section_7_comparison_can_fail() {
    // Each meaning the project chose is held: a declined command that failed, a stop that
    // completed the turn, an API error without its runtime.error are not the reference.
    let mut used = vec![0; edit_count()];
    let (reference, declined) = compared(
        Scenario::DeclinedShell,
        Column::CodexAppServer,
        "shell_approval_decline",
        &mut used,
    );
    assert_eq!(reference, declined);
    let failed: Vec<String> = declined
        .iter()
        .map(|t| t.replace("(command_execution,declined)", "(command_execution,failed)"))
        .collect();
    assert_ne!(reference, failed);
    let (reference, stopped) = compared(Scenario::StopMidstream, Column::CodexAppServer, "interrupt", &mut used);
    assert_eq!(reference, stopped);
    let (reference, error) = compared(Scenario::ApiError, Column::CodexAppServer, "error500", &mut used);
    let without_error: Vec<String> = error.iter().filter(|t| *t != "runtime.error").cloned().collect();
    assert_ne!(reference, without_error);
    // The reference of one scenario is not another's.
    assert_ne!(
        Scenario::DeclinedShell.reference(),
        Scenario::StopAtApproval.reference()
    );
    // Only changes of state stay; the side-by-side view marks both sides' own lines.
    let states: Vec<String> = ["running", "running", "ready"]
        .iter()
        .map(|s| format!("session.state.changed({s})"))
        .collect();
    assert_eq!(
        after_drops(&states, &[], &mut used),
        ["session.state.changed(running)", "session.state.changed(ready)"]
    );
    let view = side_by_side(
        "a",
        &["x".to_string(), "y".to_string()],
        "b",
        &["x".to_string(), "z".to_string()],
    );
    assert_eq!(view, "      a   b\n      x   x\n    < y\n    >     z");
}

// --- Claude Code's session files against the live runs they record ---

/// Where the live SDK <-> CLI transcript of each session file's run is kept: a `claude-control`
/// trace of the same run, beside the corpus so the `claude-control` goldens do not read it twice
/// (`corpus/claude-control/` holds earlier runs of the same scenarios).
/// Every Claude Code session file with the live transcript of its run, named by its run: Claude
/// Code 2.1.62's (`corpus/claude-session/<run>.jsonl`, `fixtures/claude-session/live/<run>.jsonl`)
/// and 2.1.337's (`corpus/claude-session-2.1.337/<run>/<session id>.jsonl`, in Claude Code's
/// layout, and `fixtures/claude-session/live-2.1.337/<run>.jsonl`), the latter named
/// `2.1.337/<run>`.
fn session_runs() -> Vec<(String, std::path::PathBuf, std::path::PathBuf)> {
    let tests = agentwire_tests::tests_dir();
    let mut runs: Vec<_> = traces(Source::CLAUDE_SESSION)
        .into_iter()
        .map(|trace| {
            let run = trace_name(&trace);
            let live = tests.join("fixtures/claude-session/live").join(format!("{run}.jsonl"));
            (run, trace, live)
        })
        .collect();
    let latest = tests.join("corpus/claude-session-2.1.337");
    let mut dirs: Vec<_> = std::fs::read_dir(&latest)
        .expect("the 2.1.337 corpus")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let run = trace_name(&dir);
        let trace = std::fs::read_dir(&dir)
            .expect("a run folder")
            .map(|entry| entry.expect("an entry").path())
            .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .unwrap_or_else(|| panic!("{}: no session file", dir.display()));
        let live = tests
            .join("fixtures/claude-session/live-2.1.337")
            .join(format!("{run}.jsonl"));
        runs.push((format!("2.1.337/{run}"), trace, live));
    }
    runs
}

fn tokens_of(source: Source, path: &std::path::Path) -> (Vec<Token>, Vec<ProviderRuntimeEvent>) {
    let events = normalize(source, path).events;
    (events.iter().map(token).collect(), events)
}

/// A difference of one run's session file from its live run beyond what every session file
/// lacks ([`DEPARTURES`] of [`Source::CLAUDE_SESSION`]): removed from both sides of that run.
struct RunDeparture {
    run: &'static str,
    what: &'static str,
    removes: fn(&Token) -> bool,
    why: &'static str,
}

const SESSION_RUN_DEPARTURES: &[RunDeparture] = &[
    RunDeparture {
        run: "2.1.337/task_subagent",
        what: "the background subagent's command output",
        removes: |t| t.event == T::ContentDelta,
        why: "the subagent ran in the background: its transcript, read with the session's as `agentwire normalize` \
              reads it, gives its command's output after the parent's turn ended, where the live run reports that \
              work as the task's progress",
    },
    RunDeparture {
        run: "2.1.337/stream_error",
        what: "the turn's end: turn.aborted and `stopped` against runtime.error, turn.completed(failed) and `error`",
        removes: |t| {
            matches!(t.event, T::RuntimeError | T::TurnCompleted | T::TurnAborted)
                || (t.event == T::SessionStateChanged && matches!(t.detail.as_str(), "stopped" | "error" | "ready"))
        },
        why: "the stream broke before any block: Claude Code 2.1.337 writes no assistant record and no error, only \
              its retried `api-request`s and a note to the model asking it to go on, so the file ends inside the \
              turn (cut off at its end), where the live run reads the failure from its `result`",
    },
    RunDeparture {
        run: "interrupt_midstream",
        what: "the assistant_message item cut off",
        removes: |t| item_of(t, &[CanonicalItemType::AssistantMessage]) || t.event == T::ContentDelta,
        why: "the CLI writes a block to the file when it is whole: the text streamed before the interrupt is in no \
              record",
    },
    RunDeparture {
        run: "stream_error",
        what: "runtime.error, turn.completed, the final session state",
        removes: |t| {
            matches!(t.event, T::RuntimeError | T::TurnCompleted)
                || (t.event == T::SessionStateChanged && matches!(t.detail.as_str(), "stopped" | "error"))
        },
        why: "the stream broke mid-message: the CLI wrote the message it had (no content, `stop_reason: end_turn`) \
              and no record of the error, which the live run reads from its `result` (a failed turn); the file \
              reads as a turn that completed with nothing said",
    },
];

#[test]
fn every_claude_session_file_has_the_shape_and_ids_of_its_live_run() {
    let (file, live) = (Source::CLAUDE_SESSION, Source::CLAUDE_CONTROL);
    let mut used = vec![0; DEPARTURES.len()];
    let mut run_used = vec![0; SESSION_RUN_DEPARTURES.len()];
    let mut failures = Vec::new();
    let mut table = Vec::new();
    for (run, trace, live_path) in session_runs() {
        assert!(
            live_path.is_file(),
            "{run}: no live transcript at {}",
            live_path.display()
        );
        let (full_file, file_events) = tokens_of(file, &trace);
        let (full_live, live_events) = tokens_of(live, &live_path);
        let mut this_run = |tokens: Vec<Token>| -> Vec<Token> {
            tokens
                .into_iter()
                .filter(|token| {
                    let removed = SESSION_RUN_DEPARTURES
                        .iter()
                        .position(|row| row.run == run && (row.removes)(token));
                    if let Some(index) = removed {
                        run_used[index] += 1;
                    }
                    removed.is_none()
                })
                .collect()
        };
        let left = this_run(comparable(&full_file, file, live, &mut used));
        let right = this_run(comparable(&full_live, live, file, &mut used));
        let ids_file = ids_of(&file_events, &run);
        let ids_live = ids_of(&live_events, &run);
        let agrees = left == right && ids_file == ids_live;
        table.push(format!(
            "  {run:28} session file ({} -> {}) vs live ({} -> {}): {}",
            full_file.len(),
            left.len(),
            full_live.len(),
            right.len(),
            if agrees { "same shape and ids" } else { "DIFFERENT" }
        ));
        if left != right {
            failures.push(format!(
                "{run}: the session file and the live run differ beyond the listed departures:\n{}",
                side_by_side("session file", &strings(&left), "live", &strings(&right))
            ));
        }
        if ids_file != ids_live {
            failures.push(format!(
                "{run}: ids differ:\n  file: {ids_file:?}\n  live: {ids_live:?}"
            ));
        }
    }
    println!(
        "session file vs live run (events before -> after the departures):\n{}",
        table.join("\n")
    );
    println!("\n| run | removed | events removed | why |\n|---|---|---|---|");
    for (departure, count) in DEPARTURES.iter().zip(&used) {
        if departure.source == file {
            println!("| every run | {} | {count} | {} |", departure.what, departure.why);
        }
    }
    for (row, count) in SESSION_RUN_DEPARTURES.iter().zip(&run_used) {
        println!("| {} | {} | {count} | {} |", row.run, row.what, row.why);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let stale: Vec<&str> = DEPARTURES
        .iter()
        .zip(&used)
        .filter(|(departure, count)| departure.source == file && **count == 0)
        .map(|(departure, _)| departure.what)
        .chain(
            SESSION_RUN_DEPARTURES
                .iter()
                .zip(&run_used)
                .filter(|(_, count)| **count == 0)
                .map(|(row, _)| row.what),
        )
        .collect();
    assert!(
        stale.is_empty(),
        "departures that remove nothing (delete or fix them): {stale:?}"
    );
}

/// The canonical ids a UI keys on: the thread, the turns in order, and every item (with its
/// type) in the order it started, but the items a departure of `run` removes.
#[derive(Debug, PartialEq, Eq)]
struct Ids {
    threads: Vec<String>,
    turns: Vec<String>,
    items: Vec<(String, CanonicalItemType)>,
}

fn ids_of(events: &[ProviderRuntimeEvent], run: &str) -> Ids {
    let mut ids = Ids {
        threads: Vec::new(),
        turns: Vec::new(),
        items: Vec::new(),
    };
    for event in events {
        let text = serde_json::to_value(event).expect("an event serializes");
        let note = |list: &mut Vec<String>, key: &str| {
            if let Some(id) = text[key].as_str()
                && !list.iter().any(|seen| seen == id)
            {
                list.push(id.to_string());
            }
        };
        note(&mut ids.threads, "threadId");
        note(&mut ids.turns, "turnId");
        let token = token(event);
        let removed = SESSION_RUN_DEPARTURES
            .iter()
            .any(|row| row.run == run && (row.removes)(&token))
            || DEPARTURES
                .iter()
                .any(|row| row.source == Source::CLAUDE_SESSION && (row.removes)(&token));
        if let RuntimeEvent::ItemStarted(item) = &event.event
            && let Some(id) = text["itemId"].as_str()
            && !removed
        {
            ids.items.push((id.to_string(), item.item_type));
        }
    }
    ids
}

// --- Gemini CLI's session files against the stream-json of the same runs ---

/// Each Gemini CLI run (or runs of one session) read live (`corpus/gemini/<run>.jsonl`) and the
/// session file the runs wrote (`corpus/gemini-session/<scenario>/<project>/chats/...`).
const GEMINI_RUNS: &[(&[&str], &str)] = &[
    (&["plain"], "plain/plain/chats/session-2026-12-06T13-38-79394a7d"),
    (
        &["thinking"],
        "thinking/thinking/chats/session-2026-12-06T13-38-b06990ad",
    ),
    (
        &["shell_allow"],
        "shell_allow/shell-allow/chats/session-2026-12-06T13-38-4ad43ce3",
    ),
    (
        &["shell_refused"],
        "shell_refused/shell-refused/chats/session-2026-12-06T13-38-7c775627",
    ),
    (
        &["shell_not_offered"],
        "shell_not_offered/shell-not-offered/chats/session-2026-12-06T13-38-aa996777",
    ),
    (&["edit"], "edit/edit/chats/session-2026-12-06T13-38-41e919f0"),
    (
        &["error400"],
        "error400/error400/chats/session-2026-12-06T13-38-605bf0ee",
    ),
    (
        &["interrupt"],
        "interrupt/interrupt/chats/session-2026-12-06T13-38-2fdcd14a",
    ),
    (
        &["two_turns-1", "two_turns-2"],
        "two_turns/two-turns/chats/session-2026-12-06T13-38-d30b5d29",
    ),
    (
        &["resume-1", "resume-2"],
        "resume/resume/chats/session-2026-12-06T13-38-e0bb8d99",
    ),
    (
        &["subagent"],
        "subagent/subagent/chats/session-2026-12-06T13-39-f2f21a24",
    ),
];

/// A tool item as a UI keys and draws it: its canonical id, type, title and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ToolItem {
    id: String,
    item_type: CanonicalItemType,
    title: Option<String>,
    status: String,
    /// The item whose work it is (a subagent's call's), if any.
    parent: Option<String>,
}

/// A tool item only one side can hold, removed before the comparison, with why.
struct GeminiDeparture {
    what: &'static str,
    removes: fn(&ToolItem) -> bool,
    why: &'static str,
}

const GEMINI_DEPARTURES: &[GeminiDeparture] = &[GeminiDeparture {
    what: "a subagent's own tool calls",
    removes: |item| item.parent.is_some(),
    why: "headless stream-json prints only the parent's `invoke_agent` call (its `stats.tool_calls` counts the \
          subagent's); the subagent's file, read with the session's, records each of its calls",
}];

/// The threads and the completed tool items of some traces, in order.
fn gemini_side(source: Source, paths: &[std::path::PathBuf]) -> (Vec<String>, Vec<ToolItem>) {
    let events: Vec<ProviderRuntimeEvent> = paths.iter().flat_map(|path| normalize(source, path).events).collect();
    tool_side(&events)
}

/// The threads and the completed tool items of some events, in order.
fn tool_side(events: &[ProviderRuntimeEvent]) -> (Vec<String>, Vec<ToolItem>) {
    let (mut threads, mut items) = (Vec::new(), Vec::new());
    for event in events {
        if let Some(thread) = &event.thread_id
            && !threads.contains(&thread.as_str().to_string())
        {
            threads.push(thread.as_str().to_string());
        }
        let RuntimeEvent::ItemCompleted(item) = &event.event else {
            continue;
        };
        use CanonicalItemType as I;
        if matches!(item.item_type, I::UserMessage | I::AssistantMessage | I::Reasoning) {
            continue;
        }
        let data = item.data.as_ref().map(|data| data.to_value()).unwrap_or_default();
        items.push(ToolItem {
            id: event.item_id.as_ref().expect("an item id").as_str().to_string(),
            item_type: item.item_type,
            title: item.title.clone(),
            status: item
                .status
                .map(|status| status.as_str().to_string())
                .unwrap_or_default(),
            parent: data["parentItemId"].as_str().map(str::to_string),
        });
    }
    (threads, items)
}

/// Messages are left out: the stream names no message (a run of text pieces is an item keyed by
/// its run and position), the file names each by its UUID and holds it whole, so the two cannot
/// share message ids; the thread and every tool call they both hold must agree.
#[test]
fn every_gemini_session_file_has_the_thread_and_tool_items_of_its_runs() {
    let tests = agentwire_tests::tests_dir();
    let mut used = vec![0; GEMINI_DEPARTURES.len()];
    let (mut failures, mut table) = (Vec::new(), Vec::new());
    for (runs, file) in GEMINI_RUNS {
        let live: Vec<_> = runs
            .iter()
            .map(|run| corpus_dir(Source::GEMINI).join(format!("{run}.jsonl")))
            .collect();
        let recorded = [tests.join("corpus/gemini-session").join(format!("{file}.jsonl"))];
        let (live_threads, live_items) = gemini_side(Source::GEMINI, &live);
        let (file_threads, file_items) = gemini_side(Source::GEMINI_SESSION, &recorded);
        let mut kept = |items: Vec<ToolItem>| -> Vec<ToolItem> {
            items
                .into_iter()
                .filter(|item| {
                    let removed = GEMINI_DEPARTURES.iter().position(|row| (row.removes)(item));
                    if let Some(index) = removed {
                        used[index] += 1;
                    }
                    removed.is_none()
                })
                .collect()
        };
        let (live_kept, file_kept) = (kept(live_items.clone()), kept(file_items.clone()));
        let agrees = live_threads == file_threads && live_kept == file_kept;
        table.push(format!(
            "  {:28} tool items live {} -> {}, file {} -> {}: {}",
            runs.join(" + "),
            live_items.len(),
            live_kept.len(),
            file_items.len(),
            file_kept.len(),
            if agrees {
                "same thread and tool items"
            } else {
                "DIFFERENT"
            }
        ));
        if !agrees {
            failures.push(format!(
                "{}:\n  live threads {live_threads:?}\n  file threads {file_threads:?}\n  live {live_kept:#?}\n  file {file_kept:#?}",
                runs.join(" + ")
            ));
        }
    }
    println!("gemini session file vs stream-json:\n{}", table.join("\n"));
    for (row, count) in GEMINI_DEPARTURES.iter().zip(&used) {
        println!("| {} | {count} | {} |", row.what, row.why);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let stale: Vec<&str> = GEMINI_DEPARTURES
        .iter()
        .zip(&used)
        .filter(|(_, count)| **count == 0)
        .map(|(row, _)| row.what)
        .collect();
    assert!(stale.is_empty(), "departures that remove nothing: {stale:?}");
}

// --- OpenCode's stored sessions against the server's stream of the same scenarios ---

/// Each `opencode serve` scenario (`corpus/opencode/<name>.jsonl`) and the stored session of it
/// (`corpus/opencode-session/<name>.json`, `opencode export` of the session, with the child
/// session of a `task` call read after it).
const OPENCODE_STORED: &[(&str, &[&str])] = &[
    ("plain", &["plain"]),
    ("thinking", &["thinking"]),
    ("shell_allow", &["shell_allow"]),
    ("shell_always", &["shell_always"]),
    ("shell_reject", &["shell_reject"]),
    ("shell_reject_message", &["shell_reject_message"]),
    ("edit", &["edit"]),
    ("edit_ask", &["edit_ask"]),
    ("write", &["write"]),
    ("todo", &["todo"]),
    ("question", &["question"]),
    ("question_reject", &["question_reject"]),
    ("error400", &["error400"]),
    ("interrupt", &["interrupt"]),
    ("two_turns", &["two_turns"]),
    ("resume", &["resume"]),
    ("subagent", &["subagent", "subagent.subagent"]),
];

/// The threads, tool items and turns' usage agree, but for where a subagent's items hang: the live stream
/// sees the child session start while the parent's `task` call runs and puts the child's items
/// under it (`parentItemId`); a stored child session names its parent session (`parentID`, in its
/// `thread.metadata.updated`) and not the call, so its items stand in the child's thread alone;
/// and it is read after its parent's, so the items are compared by id, not by when they ended.
#[test]
fn every_stored_opencode_session_has_the_thread_and_tool_items_of_its_stream() {
    let tests = agentwire_tests::tests_dir();
    let (mut failures, mut table) = (Vec::new(), Vec::new());
    for (scenario, stored) in OPENCODE_STORED {
        let live = [corpus_dir(Source::OPENCODE).join(format!("{scenario}.jsonl"))];
        let stored: Vec<_> = stored
            .iter()
            .map(|name| tests.join("corpus/opencode-session").join(format!("{name}.json")))
            .collect();
        let without_parent = |(threads, items): (Vec<String>, Vec<ToolItem>)| {
            let mut items: Vec<ToolItem> = items
                .into_iter()
                .map(|item| ToolItem { parent: None, ..item })
                .collect();
            items.sort_by(|one, other| one.id.cmp(&other.id));
            (threads, items)
        };
        let (live_threads, live_items) = without_parent(gemini_side(Source::OPENCODE, &live));
        let (stored_threads, stored_items) = without_parent(gemini_side(Source::OPENCODE_SESSION, &stored));
        let (live_usage, stored_usage) = (
            usages(Source::OPENCODE, &live),
            usages(Source::OPENCODE_SESSION, &stored),
        );
        let agrees = live_threads == stored_threads && live_items == stored_items && live_usage == stored_usage;
        table.push(format!(
            "  {scenario:22} threads {}/{}, tool items {}/{}: {}",
            live_threads.len(),
            stored_threads.len(),
            live_items.len(),
            stored_items.len(),
            if agrees { "same" } else { "DIFFERENT" }
        ));
        if !agrees {
            failures.push(format!(
                "{scenario}:\n  live threads {live_threads:?}\n  stored threads {stored_threads:?}\n  live {live_items:#?}\n  stored {stored_items:#?}\n  live usage {live_usage:?}\n  stored usage {stored_usage:?}"
            ));
        }
    }
    println!("opencode stored session vs serve stream:\n{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Each turn's usage, in the order the turns ended: the live server sums its assistant messages'
/// last reports, the store the messages as saved.
fn usages(source: Source, paths: &[std::path::PathBuf]) -> Vec<Option<agentwire_canonical::TokenUsage>> {
    let mut usages = Vec::new();
    for path in paths {
        for event in agentwire_tests::normalize(source, path).events {
            if let RuntimeEvent::TurnCompleted(end) = &event.event {
                usages.push(end.usage.clone());
            }
        }
    }
    usages
}

/// What a chat UI draws of a session: each turn (its id and how it ended) and each finished item
/// (its turn, id, type, status, title and data), in order.
fn conversation(events: &[ProviderRuntimeEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| {
            let turn = event.turn_id.as_ref().map_or("", |turn| turn.as_str());
            match &event.event {
                RuntimeEvent::TurnStarted(_) => Some(format!("turn {turn} started")),
                RuntimeEvent::TurnCompleted(end) => Some(format!(
                    "turn {turn} {} usage {}",
                    end.state.as_str(),
                    end.usage
                        .as_ref()
                        .map(|usage| serde_json::to_value(usage).expect("usage serializes"))
                        .unwrap_or_default()
                )),
                RuntimeEvent::ItemCompleted(item) => Some(format!(
                    "turn {turn} item {} {} {} {:?} {}",
                    event.item_id.as_ref().map_or("", |item| item.as_str()),
                    item.item_type.as_str(),
                    item.status.map_or("", |status| status.as_str()),
                    item.title,
                    item.data.as_ref().map(|data| data.to_value()).unwrap_or_default()
                )),
                _ => None,
            }
        })
        .collect()
}

/// The sessions only the store shows against the `opencode serve` stream of the same scenario. The
/// v2 sessions (`opencode export` lists none of their messages) against
/// the `opencode serve` stream of the same scenario: the same turns, ended the same way, and the
/// same items with the same ids, types, statuses, titles and data (usage is each source's own
/// shape, and the live stream's steps are its own).
#[test]
fn every_v2_session_of_the_store_is_the_conversation_of_its_stream() {
    let (v2, parents): (Vec<_>, Vec<_>) = store_traces(Source::OPENCODE_SESSION)
        .into_iter()
        .partition(|trace| trace.name.starts_with("store/v2_"));
    let names = |traces: &[StoreTrace]| -> Vec<String> { traces.iter().map(|trace| trace.name.clone()).collect() };
    assert_eq!(
        names(&v2),
        [
            "store/v2_interrupt",
            "store/v2_shell_ask",
            "store/v2_shell",
            "store/v2_plain"
        ]
    );
    // A subagent's session read with its parent's: the threads and tool items of the live
    // stream, the subagent's under the parent's `task` item (`run-subagent` has no live stream).
    assert_eq!(names(&parents), ["store/run-subagent", "store/subagent"]);
    let live = normalize(Source::OPENCODE, &corpus_dir(Source::OPENCODE).join("subagent.jsonl"));
    let from_store = normalize_text(Source::OPENCODE_SESSION, &parents[1].text);
    let by_id = |(threads, mut items): (Vec<String>, Vec<ToolItem>)| {
        items.sort_by(|one, other| one.id.cmp(&other.id));
        (threads, items)
    };
    let (live, from_store) = (by_id(tool_side(&live.events)), by_id(tool_side(&from_store.events)));
    assert!(live.1.iter().any(|item| item.parent.is_some()), "{live:#?}");
    assert!(
        live == from_store,
        "subagent:\n  live {live:#?}\n  store {from_store:#?}"
    );
    for trace in &v2 {
        let scenario = trace.name.strip_prefix("store/").expect("a store trace");
        let live = normalize(
            Source::OPENCODE,
            &corpus_dir(Source::OPENCODE).join(format!("{scenario}.jsonl")),
        );
        let from_store = normalize_text(Source::OPENCODE_SESSION, &trace.text);
        let (live, from_store) = (conversation(&live.events), conversation(&from_store.events));
        assert!(
            live == from_store,
            "{scenario}:\n  live {live:#?}\n  store {from_store:#?}"
        );
    }
}
