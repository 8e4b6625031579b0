//! `answer`, round-tripped on every real reply of the corpus, as a host would do it.
//!
//! For every trace of every source with a client side and every provider request that opened a
//! `request.opened` and whose real client reply is recorded later in the trace
//! ([`agentwire_tests::round_trip`]): a [`agentwire::answer::Reply`] is built from the full
//! trace's canonical events alone (`request.resolved`, `user-input.resolved`; no provider frame
//! read); the trace is cut just before the reply and fed to a normalizer that is not finished
//! (the session as a host holds it while the request waits); `Normalizer::answer` builds the
//! reply frame, which is compared, as JSON, with the frame the real client sent.
//!
//! The test prints one row per pair and fails unless every pair is equal or listed in
//! [`KNOWN_DIFFERENCES`] with its reason (a listed pair that became equal, or is gone, fails too,
//! so the list stays reviewed), and unless each source has the pairs it is known to have.

use std::collections::BTreeMap;

use agentwire::source::Source;
use agentwire_tests::round_trip::{Answered, SOURCES, replies};

/// How many real replies each source's corpus records (a drop is a failure, as is a new reply
/// nobody counted).
const EXPECTED_PAIRS: &[(Source, usize)] = &[
    (Source::CODEX_APP_SERVER, 10),
    (Source::CLAUDE_CONTROL, 26),
    (Source::ACP, 24),
    (Source::CURSOR, 9),
];

/// Reviewed pairs whose rebuilt reply differs from the real one: `(source, trace, line of the
/// provider's request, why)`.
const KNOWN_DIFFERENCES: &[(&str, &str, usize, &str)] = &[(
    "claude-control",
    "acp-cancel_during_permission",
    24,
    "the CLI withdrew the request (control_cancel_request) before the client's late error reply; answer refuses a settled request",
)];

/// The reply `answer` builds for the pair equals the one the client sent (with the note on a
/// decision the request did not offer); else what differs.
fn round_trip(case: &Answered) -> Result<Option<String>, String> {
    let reply = case
        .reply
        .as_ref()
        .map_err(|why| format!("no canonical reply: {why}"))?;
    match case.session_before_reply().answer(&case.request, reply) {
        Ok(built) if built.frame == case.sent => Ok(built.unoffered.map(|unoffered| unoffered.to_string())),
        Ok(built) => Err(format!("built {}\n      sent  {}", built.frame, case.sent)),
        Err(err) => Err(format!("{err}\n      sent  {}", case.sent)),
    }
}

#[test]
fn answer_rebuilds_every_real_reply_or_names_why_not() {
    let mut cases = Vec::new();
    let mut plumbing = Vec::new();
    for &source in SOURCES {
        let found = replies(source);
        cases.extend(found.answered);
        plumbing.extend(found.plumbing);
    }
    let (mut equal, mut listed) = (0, 0);
    let mut unexplained = Vec::new();
    let mut differing = Vec::new();
    println!("source | trace | request -> reply, method (decision) | outcome");
    for case in &cases {
        let decision = case.reply.as_ref().map_or("-", |reply| reply.decision.as_str());
        let row = format!(
            "{} | {} | {} -> {}, {} ({decision})",
            case.source, case.trace, case.request_line, case.reply_line, case.method
        );
        let known = KNOWN_DIFFERENCES.iter().find(|(source, trace, line, _)| {
            *source == case.source.name() && *trace == case.trace && *line == case.request_line
        });
        let outcome = round_trip(case);
        if outcome.is_err() {
            differing.push((case.source.name(), case.trace.as_str(), case.request_line));
        }
        match (outcome, known) {
            (Ok(note), _) => {
                equal += 1;
                match note {
                    Some(note) => println!("{row} | equal; {note}"),
                    None => println!("{row} | equal"),
                }
            }
            (Err(_), Some((_, _, _, why))) => {
                listed += 1;
                println!("{row} | differs: {why}");
            }
            (Err(detail), None) => {
                println!("{row} | differs (not listed)");
                unexplained.push(format!("{}:\n      {detail}", case.label()));
            }
        }
    }
    println!(
        "{equal} of {} real replies rebuilt equal, {listed} listed differences; {} plumbing requests left out",
        cases.len(),
        plumbing.len()
    );
    assert!(
        unexplained.is_empty(),
        "replies not rebuilt and not listed in KNOWN_DIFFERENCES:\n{}",
        unexplained.join("\n")
    );
    let stale: Vec<String> = KNOWN_DIFFERENCES
        .iter()
        .filter(|(source, trace, line, _)| !differing.contains(&(*source, *trace, *line)))
        .map(|(source, trace, line, _)| format!("{source}/{trace}.jsonl:{line}"))
        .collect();
    assert!(
        stale.is_empty(),
        "KNOWN_DIFFERENCES lists pairs that are equal now, or gone: {stale:?}"
    );
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for case in &cases {
        *counts.entry(case.source.name()).or_default() += 1;
    }
    let expected: BTreeMap<&str, usize> = EXPECTED_PAIRS
        .iter()
        .map(|(source, count)| (source.name(), *count))
        .collect();
    assert_eq!(counts, expected, "real replies per source");
}
