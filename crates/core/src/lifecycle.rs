//! The life of one line, the same for every source.
//!
//! A line goes one way: the core ([`Lifecycle`]) hands its frame to the source's decoder
//! ([`Mapping::decode`]), begins the line in the ledger (the session id from the first line, the
//! clock at the line's time), reports what did not decode or carries a time that is no instant,
//! and hands the typed message to the source's mapping decisions ([`Mapping::map`]), which emit
//! through the ledger. At the end of the stream the source settles what only it knows
//! ([`Mapping::settle`]) and the ledger the rest. A source writes none of this: its decoder and
//! its decisions are all it supplies.

use std::borrow::Cow;

use agentwire_canonical::{ProviderRuntimeEvent, RuntimeRequestId};
use serde_json::{Value, json};

use crate::answer::{AnswerError, Reply, ReplyFrame};
use crate::emit::{Context, Raw};
use crate::frame::{Direction, Frame};
use crate::ledger::Ledger;
use crate::normalizer::{Normalizer, Problem, ProblemKind};

/// When the provider says a message was made, as its decoder read it.
#[derive(Clone, Debug, Default)]
pub enum ProviderTime<'a> {
    /// The message carries no time of its own.
    #[default]
    None,
    /// Milliseconds since the epoch (Codex's `emittedAtMs`).
    Millis(i64),
    /// RFC 3339 text in `field` (a rollout line's or a Claude message's `timestamp`), read
    /// strictly by the core; a text that is no instant is reported, naming the field.
    Text {
        /// The member the time was read from, for the warning.
        field: &'static str,
        /// The time as written.
        text: Cow<'a, str>,
    },
}

/// A frame the source's decoder read: the typed message, the `raw` its events carry (the
/// raw-source label and the message's method or type) and the provider's time.
pub struct Decoded<'a, M> {
    /// The typed message.
    pub message: M,
    /// The `raw` the message's events carry.
    pub raw: Raw<'a>,
    /// When the provider says it was made.
    pub time: ProviderTime<'a>,
}

/// A frame the source's decoder could not read: why (a [`Problem`] whose kind the decoder took
/// from the decode error's kind), the `raw` the warning carries, how the message names its kind
/// (`method`, `type`: the key of the tag in the warning's detail) and the provider's time if
/// the envelope still gave one.
pub struct Misfit<'a> {
    /// Why the frame did not decode.
    pub problem: Problem,
    /// The `raw` the warning carries.
    pub raw: Raw<'a>,
    /// The member that names the message's kind (`method`, `type`).
    pub tag_field: &'static str,
    /// When the provider says it was made, if the envelope gave it.
    pub time: ProviderTime<'a>,
}

/// What one source supplies: its decoder and its mapping decisions, over its session ledger.
pub trait Mapping: Send {
    /// What the source keeps with each open request (the ledger's request payload).
    type Request;
    /// The source's typed message.
    type Message<'a>;

    /// The session ledger the mapping emits through.
    fn ledger(&mut self) -> &mut Ledger<Self::Request>;

    /// Reads a frame into the source's typed message.
    /// A misfit is boxed: it is the rare case, and the common one should not carry its size.
    fn decode<'a>(&mut self, frame: &Frame<'a>) -> Result<Decoded<'a, Self::Message<'a>>, Box<Misfit<'a>>>;

    /// The source's decisions over one decoded message: the events it means.
    fn map<'a>(
        &mut self,
        frame: &Frame<'a>,
        message: Self::Message<'a>,
        raw: Raw<'a>,
        out: &mut Vec<ProviderRuntimeEvent>,
    );

    /// Where a warning about the line being pushed belongs: the running turn where the source
    /// knows one, else the session.
    fn context<'a>(&mut self, raw: Option<Raw<'a>>) -> Context<'a>;

    /// Lets the ledger forget threads that went idle long ago, dropping what the source keeps
    /// for them; a source whose threads stay busy after their turns end says so here.
    fn forget_idle(&mut self) {
        self.ledger().forget_idle_threads(|_| false);
    }

    /// Settles what only the source knows is open at the end of the stream, before the ledger
    /// settles its turns, items and requests.
    fn settle(&mut self, _out: &mut Vec<ProviderRuntimeEvent>) {}

    /// The way back ([`Normalizer::answer`]).
    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError>;
}

/// The [`Normalizer`] of a source: the core's line lifecycle over the source's [`Mapping`].
pub struct Lifecycle<M>(M);

impl<M: Mapping> Lifecycle<M> {
    /// The normalizer of `mapping`.
    pub fn new(mapping: M) -> Self {
        Lifecycle(mapping)
    }

    /// Begins a line at its recorded time, else the provider's; a provider time that is no
    /// instant comes back with the field it was read from.
    fn begin(
        &mut self,
        frame: &Frame<'_>,
        time: ProviderTime<'_>,
    ) -> Option<(crate::clock::InvalidTime, &'static str)> {
        let ledger = self.0.ledger();
        match time {
            ProviderTime::None => ledger.begin(frame.line, frame.ts, None),
            ProviderTime::Millis(millis) => ledger.begin(frame.line, frame.ts, Some(millis)),
            ProviderTime::Text { field, text } => {
                return ledger
                    .begin_with_time_text(frame.line, frame.ts, Some(&text))
                    .err()
                    .map(|invalid| (invalid, field));
            }
        }
        None
    }
}

/// The one wording of a message that did not decode: what it is, who sent it, why.
fn misfit_message(misfit: &Misfit<'_>, dir: Direction, program: &str) -> String {
    let what = match misfit.problem.kind {
        ProblemKind::Undeclared => "message the pinned schema does not declare",
        ProblemKind::Undecodable | ProblemKind::Unreadable => "undecodable message",
    };
    match dir {
        Direction::In => format!("{what} from {program}: {}", misfit.problem),
        Direction::Out => format!("{what} from the client: {}", misfit.problem),
    }
}

impl<M: Mapping> Normalizer for Lifecycle<M> {
    fn push(&mut self, frame: &Frame<'_>, out: &mut Vec<ProviderRuntimeEvent>) -> Result<(), Problem> {
        let mut decoded = self.0.decode(frame);
        let time = match &mut decoded {
            Ok(decoded) => std::mem::take(&mut decoded.time),
            Err(misfit) => std::mem::take(&mut misfit.time),
        };
        let invalid_time = self.begin(frame, time);
        self.0.forget_idle();
        let raw = match &decoded {
            Ok(decoded) => decoded.raw,
            Err(misfit) => misfit.raw,
        };
        let time_problem = invalid_time.map(|(invalid, field)| {
            let context = self.0.context(Some(raw));
            self.0.ledger().warn_invalid_time(&invalid, field, &context, out)
        });
        match decoded {
            Ok(Decoded { message, raw, .. }) => {
                self.0.map(frame, message, raw, out);
                time_problem.map_or(Ok(()), Err)
            }
            Err(misfit) => {
                let misfit = *misfit;
                let program = self.0.ledger().source().program;
                let message = misfit_message(&misfit, frame.dir, program);
                let mut detail = json!({ "error": misfit.problem.message });
                detail[misfit.tag_field] = misfit.raw.method.map_or(Value::Null, Value::from);
                let context = self.0.context(Some(misfit.raw));
                self.0.ledger().warn(&context, message, Some(detail), out);
                Err(misfit.problem)
            }
        }
    }

    fn live(&mut self, at: Option<i64>) {
        self.0.ledger().live(at.is_none());
    }

    fn push_unreadable(&mut self, line: &str, reason: &str, out: &mut Vec<ProviderRuntimeEvent>) {
        self.0.ledger().begin(line, None, None);
        let context = self.0.context(None);
        let message = format!("unreadable input line: {reason}");
        let detail = Value::String(line.to_string());
        self.0.ledger().warn(&context, message, Some(detail), out);
    }

    fn finish(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        self.0.settle(out);
        self.0.ledger().finish(out);
    }

    fn time_source(&mut self) -> crate::clock::TimeSource {
        self.0.ledger().time_source()
    }

    fn answer(&self, request: &RuntimeRequestId, reply: &Reply) -> Result<ReplyFrame, AnswerError> {
        self.0.answer(request, reply)
    }
}
