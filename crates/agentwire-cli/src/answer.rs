//! `agentwire answer`: the session so far in, the provider-native reply to one open request out.

use std::io::Write;

use agentwire::answer::Reply;
use agentwire::decision::Decision;
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_canonical::{RuntimeRequestId, RuntimeSessionId};
use serde_json::Value;

use crate::ExitStatus;
use crate::input::Input;
use crate::normalize::feed;

pub struct Args {
    pub from: Option<Source>,
    pub session_id: Option<RuntimeSessionId>,
    pub request: RuntimeRequestId,
    pub decision: Decision,
    pub answers: Option<Value>,
    pub result: Option<Value>,
    pub message: Option<String>,
    pub file: String,
}

/// Reads the trace as `normalize` does (the same detection, the same session id, so the
/// request's canonical id is the one `normalize` printed), settles nothing at its end, and prints
/// the reply frame as one JSON line. Exit 1 when no reply can be built (the reason on stderr).
pub fn run(args: Args, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let mut input = Input::open(&args.file)?;
    let (source, format) = input.detect(args.from)?;
    let options = Options {
        session_id: args.session_id,
        ..Options::default()
    };
    let mut normalizer = source.normalizer(options);
    feed(&mut input, format, normalizer.as_mut(), false, &mut std::io::sink())?;
    let reply = Reply {
        decision: args.decision,
        answers: args.answers,
        result: args.result,
        message: args.message,
    };
    match normalizer.answer(&args.request, &reply) {
        Ok(frame) => {
            serde_json::to_writer(&mut *out, &frame)?;
            out.write_all(b"\n")?;
            Ok(ExitStatus::Success)
        }
        Err(err) => {
            eprintln!("agentwire: {}: {err}", input.name);
            Ok(ExitStatus::Failure)
        }
    }
}
