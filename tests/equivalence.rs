//! Cross-provider equivalence (section 7 of the provider-runtime V2 proposal): a scenario
//! captured through several sources becomes the same canonical *shape*, whichever source carried
//! it, except for the reviewed differences of [`DEPARTURES`].
//!
//! The shape of a trace is the sequence of its event types, with the item type and status of
//! item events, the stream kind of `content.delta`, the request type of request events, the
//! state of `turn.completed` and the session state changes; ids, times and text are left out. Two
//! sources are compared after removing what either cannot carry (each removal a row of
//! [`DEPARTURES`] with its reason); a `session.state.changed` that repeats the state before it
//! is then no change and is left out too.
//!
//! A source joins by adding it to [`COMPARED`]: [`CAPTURES`] already names its traces by source
//! name, and its rows go into [`DEPARTURES`] once its normalizer's goldens are reviewed. Every
//! row must remove something in some comparison, so the table cannot go stale.

use std::str::FromStr;

use agentwire::source::Source;
use agentwire_canonical::{CanonicalItemType, CanonicalRuntimeEventType as T, ProviderRuntimeEvent, RuntimeEvent};
use agentwire_tests::{corpus_dir, normalize, trace_name, traces};

/// The sources whose captures are compared.
const COMPARED: &[Source] = &[Source::CodexAppServer, Source::CodexExec];

/// One mock-model scenario and the trace each source captured of it (by source name, so a
/// source not yet in [`COMPARED`] can be listed). A rollout file is the one codex wrote during
/// the exec run of the row (same thread id) where the corpus has it (text, shell, patch, plan,
/// failed, flaky500), else during the app-server run (mcp, error500, user_input), else during
/// another exec run of the scenario (reasoning); `corpus/README.md` lists them.
struct Capture {
    scenario: &'static str,
    traces: &'static [(&'static str, &'static str)],
}

const CAPTURES: &[Capture] = &[
    Capture {
        scenario: "text",
        traces: &[
            ("codex-app-server", "text"),
            ("codex-exec", "text"),
            ("codex-rollout", "rollout-64"),
        ],
    },
    Capture {
        scenario: "reasoning",
        traces: &[
            ("codex-app-server", "reasoning"),
            ("codex-exec", "reasoning"),
            ("codex-rollout", "rollout-04"),
        ],
    },
    Capture {
        scenario: "shell",
        traces: &[
            ("codex-app-server", "shell"),
            ("codex-exec", "shell"),
            ("codex-rollout", "rollout-66"),
        ],
    },
    Capture {
        scenario: "patch",
        traces: &[
            ("codex-app-server", "patch"),
            ("codex-exec", "patch"),
            ("codex-rollout", "rollout-68"),
        ],
    },
    Capture {
        scenario: "plan",
        traces: &[
            ("codex-app-server", "plan"),
            ("codex-exec", "plan"),
            ("codex-rollout", "rollout-71"),
        ],
    },
    Capture {
        scenario: "mcp",
        traces: &[
            ("codex-app-server", "mcp"),
            ("codex-exec", "mcp"),
            ("codex-rollout", "rollout-52"),
        ],
    },
    Capture {
        scenario: "error500",
        traces: &[
            ("codex-app-server", "error500"),
            ("codex-exec", "error500"),
            ("codex-rollout", "rollout-33"),
        ],
    },
    Capture {
        scenario: "failed",
        traces: &[
            ("codex-app-server", "failed"),
            ("codex-exec", "failed"),
            ("codex-rollout", "rollout-79"),
        ],
    },
    Capture {
        scenario: "flaky500",
        traces: &[
            ("codex-app-server", "flaky500_retry"),
            ("codex-exec", "flaky500"),
            ("codex-rollout", "rollout-81"),
        ],
    },
    Capture {
        scenario: "user_input",
        traces: &[
            ("codex-app-server", "user_input_plan_mode"),
            ("codex-exec", "user_input"),
            ("codex-rollout", "rollout-55"),
        ],
    },
];

/// The sources whose every trace must be in a capture or in [`UNPAIRED`]: the ones captured for
/// the same scenarios as app-server (app-server's and the rollout files' corpora hold more).
const EVERY_TRACE_PAIRED: &[Source] = &[Source::CodexExec];

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
            (format!("{},{status}", p.item_type.as_str()), Some(p.item_type))
        }
        RuntimeEvent::ContentDelta(p) => (p.stream_kind.as_str().to_string(), None),
        RuntimeEvent::RequestOpened(p) => (p.request_type.as_str().to_string(), None),
        RuntimeEvent::RequestResolved(p) => (p.request_type.as_str().to_string(), None),
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

/// A reviewed difference: what `lacking` cannot carry, removed from both sides whenever it is
/// compared, and why.
struct Departure {
    lacking: Source,
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
        lacking: Source::CodexExec,
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
        lacking: Source::CodexExec,
        what: "thread.state.changed",
        removes: |t| t.event == T::ThreadStateChanged,
        why: "exec carries no thread status (`thread/status/changed`)",
    },
    Departure {
        lacking: Source::CodexExec,
        what: "thread.token-usage.updated, account.rate-limits.updated",
        removes: |t| matches!(t.event, T::ThreadTokenUsageUpdated | T::AccountRateLimitsUpdated),
        why: "exec reports usage once, in `turn.completed.usage`, and no rate limits",
    },
    Departure {
        lacking: Source::CodexExec,
        what: "mcp.status.updated",
        removes: |t| t.event == T::McpStatusUpdated,
        why: "exec prints no MCP server startup status",
    },
    Departure {
        lacking: Source::CodexExec,
        what: "user_message items",
        removes: |t| item_of(t, &[CanonicalItemType::UserMessage]),
        why: "exec does not echo the prompt it was given",
    },
    Departure {
        lacking: Source::CodexExec,
        what: "content.delta (every stream kind)",
        removes: |t| t.event == T::ContentDelta,
        why: "exec carries no deltas: items arrive whole",
    },
    Departure {
        lacking: Source::CodexExec,
        what: "item.started and item.updated of assistant_message and reasoning",
        removes: |t| {
            matches!(t.event, T::ItemStarted | T::ItemUpdated)
                && item_of(t, &[CanonicalItemType::AssistantMessage, CanonicalItemType::Reasoning])
        },
        why: "exec prints messages and reasoning only once complete (`item.completed`)",
    },
    Departure {
        lacking: Source::CodexExec,
        what: "turn.diff.updated",
        removes: |t| t.event == T::TurnDiffUpdated,
        why: "exec carries no turn diff; the file_change item lists the files",
    },
    Departure {
        lacking: Source::CodexExec,
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
        lacking: Source::CodexAppServer,
        what: "plan items",
        removes: |t| item_of(t, &[CanonicalItemType::Plan]),
        why: "app-server reports an `update_plan` to-do list as `turn/plan/updated` only; exec also prints it as a \
              `todo_list` item (spec 6 maps it to a plan item)",
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
            if (departure.lacking == a || departure.lacking == b) && (departure.removes)(token) {
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
        .find(|(name, _)| *name == source.name())
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
                    let show = |tokens: &[Token]| {
                        tokens
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("\n      ")
                    };
                    failures.push(format!(
                        "scenario {}: {a}/{trace_a} and {b}/{trace_b} differ beyond the listed departures\n    {a}:\n      {}\n    {b}:\n      {}",
                        capture.scenario,
                        show(&left),
                        show(&right)
                    ));
                }
            }
        }
    }
    println!(
        "equivalence (events before -> after removing what the other cannot carry):\n{}",
        table.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let stale: Vec<&str> = DEPARTURES
        .iter()
        .zip(&used)
        .filter(|(departure, count)| **count == 0 && COMPARED.contains(&departure.lacking))
        .map(|(departure, _)| departure.what)
        .collect();
    assert!(
        stale.is_empty(),
        "departures that remove nothing in any comparison (delete or fix them): {stale:?}"
    );
    for (departure, count) in DEPARTURES.iter().zip(&used) {
        println!(
            "  {count:4} removed: {} lacks {} ({})",
            departure.lacking, departure.what, departure.why
        );
    }
}

#[test]
fn the_shape_comparison_can_fail() {
    // A shape that lost its turn's failure, or an item, is not the same shape.
    let shell = shape(Source::CodexExec, "shell");
    let failed = shape(Source::CodexExec, "failed");
    let mut used = vec![0; DEPARTURES.len()];
    let (a, b) = (Source::CodexAppServer, Source::CodexExec);
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
        for (name, _) in capture.traces {
            assert!(
                Source::from_str(name).is_ok() || *name == "codex-rollout",
                "scenario {}: unknown source {name}",
                capture.scenario
            );
        }
    }
}
