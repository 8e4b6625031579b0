//! `agentwire answer`: the session so far in, the provider-native reply to one open request out.

use std::io::Write;

use agentwire::answer::{Reply, ReplyFrame};
use agentwire::decision::Decision;
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_canonical::{RuntimeRequestId, RuntimeSessionId};
use serde_json::Value;

use crate::ExitStatus;
use crate::input::Input;
use crate::normalize::feed;

/// `agentwire answer`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The input format; detected from the first lines when omitted.
    #[arg(long, value_name = "FORMAT")]
    from: Option<Source>,
    /// The canonical session id `normalize` was given, if any (request ids derive from it).
    #[arg(long, value_name = "ID", value_parser = crate::parse_session_id)]
    session_id: Option<RuntimeSessionId>,
    /// The `requestId` of the `request.opened` to answer.
    #[arg(long, value_name = "ID", value_parser = crate::parse_request_id)]
    request: RuntimeRequestId,
    /// The decision, in `request.resolved`'s vocabulary (accept, acceptForSession, decline,
    /// cancel, answered).
    #[arg(long, value_name = "D", value_parser = crate::parse_decision)]
    decision: Decision,
    /// Answers to questions (as `user-input.resolved` carries them), or an MCP form's content.
    #[arg(long, value_name = "JSON", value_parser = crate::parse_json)]
    answers: Option<Value>,
    /// A tool's result, or the fields of an outcome beyond the decision.
    #[arg(long, value_name = "JSON", value_parser = crate::parse_json)]
    result: Option<Value>,
    /// Why the request was refused (a deny's message, a rejection's reason).
    #[arg(long, value_name = "TEXT")]
    message: Option<String>,
    /// The session so far (`-` or nothing for stdin).
    #[arg(default_value = "-")]
    file: String,
}

/// Reads the trace as `normalize` does (the same detection, the same session id, so the
/// request's canonical id is the one `normalize` printed), settles nothing at its end, and prints
/// the reply frame as one JSON line; a decision the request did not offer, sent as its reply type
/// allows, is said on stderr. Exit 1 when no reply can be built (the reason on stderr).
pub fn run(args: Args, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let mut input = Input::open(&args.file)?;
    let (source, format) = input.detect(args.from)?;
    let options = Options::default().with_session_id(args.session_id);
    let mut normalizer = source.normalizer(options);
    let _ = feed(&mut input, format, normalizer.as_mut(), false, &mut std::io::sink())?;
    let reply = Reply {
        decision: args.decision,
        answers: args.answers,
        result: args.result,
        message: args.message,
    };
    match normalizer.answer(&args.request, &reply) {
        Ok(ReplyFrame { frame, unoffered }) => {
            serde_json::to_writer(&mut *out, &frame)?;
            out.write_all(b"\n")?;
            if let Some(unoffered) = unoffered {
                eprintln!("agentwire: {}: note: {unoffered}", input.name);
            }
            Ok(ExitStatus::Success)
        }
        Err(err) => {
            eprintln!("agentwire: {}: {err}", input.name);
            Ok(ExitStatus::Failure)
        }
    }
}
