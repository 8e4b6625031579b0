//! The way back: a host that shows `request.opened` answers it in canonical terms ([`Reply`]),
//! and the normalizer that opened it writes the provider-native reply frame
//! ([`crate::normalizer::Normalizer::answer`]).
//!
//! Each source builds its reply from what the open request offered (kept in the ledger beside
//! the request) and from the same tables that read the client's answer into a [`Decision`]: a
//! reply is chosen among the provider's own candidates by the decision it reads back as. The
//! candidates are what the request offered, then what its reply type allows beyond the offer (a
//! Codex command approval's plain decisions when its `availableDecisions` leave some out): such a
//! reply is built and flagged ([`ReplyFrame::unoffered`]), since real clients send them and the
//! provider honours them. A decision the reply type cannot carry is an error
//! ([`AnswerError::NotOffered`]), never a guess.

use agentwire_canonical::RuntimeRequestId;
use serde_json::Value;

use crate::decision::Decision;
use crate::source::Source;

/// What the client decided, in canonical terms: the decision `request.resolved` reports, plus
/// what some requests need besides it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub decision: Decision,
    /// Answers to questions (`user-input.resolved.answers`), or an MCP form's content.
    pub answers: Option<Value>,
    /// A tool's result, or the fields of an outcome beyond the decision (a plan's URI, the
    /// to-do list the client holds).
    pub result: Option<Value>,
    /// Why the client refused (a deny's message, a skip's or rejection's reason).
    pub message: Option<String>,
}

impl Reply {
    /// A reply carrying only `decision`.
    pub fn new(decision: Decision) -> Self {
        Reply {
            decision,
            answers: None,
            result: None,
            message: None,
        }
    }
}

/// The reply frame answering a request, and whether the request offered its decision.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyFrame {
    /// The provider-native reply, as the client writes it to the agent's stdin (in a transcript,
    /// the record's bare `msg`).
    pub frame: Value,
    /// Set when the request did not offer the decision and the reply type allows it anyway: the
    /// frame is sent as the protocol allows, and a host may say so (the CLI does, on stderr).
    pub unoffered: Option<Unoffered>,
}

impl ReplyFrame {
    /// A frame whose decision the request offered.
    pub fn offered(frame: Value) -> Self {
        ReplyFrame { frame, unoffered: None }
    }
}

/// A decision the reply type allows although the request did not offer it.
#[derive(Clone, Debug, PartialEq)]
pub struct Unoffered {
    pub request: RuntimeRequestId,
    pub method: String,
    pub decision: Decision,
    /// What the request offered.
    pub offered: Vec<Decision>,
}

impl std::fmt::Display for Unoffered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "request {} ({}) did not offer {} (offered: {}); sent as its reply type allows",
            self.request,
            self.method,
            self.decision,
            list(&self.offered)
        )
    }
}

/// Why no reply frame could be built.
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerError {
    /// No request with this canonical id was opened in the session so far.
    Unknown(RuntimeRequestId),
    /// The request was answered or settled already.
    AlreadyResolved(RuntimeRequestId),
    /// The request did not offer this decision, and its reply type cannot carry it.
    NotOffered {
        request: RuntimeRequestId,
        method: String,
        decision: Decision,
        offered: Vec<Decision>,
        /// What the reply type allows beyond the offer (sent with [`ReplyFrame::unoffered`]).
        allowed: Vec<Decision>,
    },
    /// The decision needs answers (`--answers`) the reply does not carry.
    MissingAnswers { method: String, decision: Decision },
    /// The decision needs a result (`--result`) the reply does not carry.
    MissingResult { method: String, decision: Decision },
    /// The answers or result do not fit the provider's type for them.
    IllTyped {
        method: String,
        what: &'static str,
        error: String,
    },
    /// The source is a read-only record: nobody on its wire answers requests.
    Unanswerable(Source),
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unknown(id) => write!(f, "no request {id} was opened in this session"),
            Self::AlreadyResolved(id) => write!(f, "request {id} was already answered"),
            Self::NotOffered {
                request,
                method,
                decision,
                offered,
                allowed,
            } => {
                write!(
                    f,
                    "request {request} ({method}) does not offer {decision}; offered: {}",
                    list(offered)
                )?;
                if !allowed.is_empty() {
                    write!(f, "; its reply type also allows: {}", list(allowed))?;
                }
                Ok(())
            }
            Self::MissingAnswers { method, decision } => {
                write!(f, "{method} answered {decision} needs answers (--answers JSON)")
            }
            Self::MissingResult { method, decision } => {
                write!(f, "{method} answered {decision} needs a result (--result JSON)")
            }
            Self::IllTyped { method, what, error } => write!(f, "the {what} of a {method} reply do not fit: {error}"),
            Self::Unanswerable(source) => write!(
                f,
                "{source} is a record of a session, not a conversation: nobody answers its requests"
            ),
        }
    }
}

impl std::error::Error for AnswerError {}

/// `a, b, c`, or `nothing`.
fn list(decisions: &[Decision]) -> String {
    if decisions.is_empty() {
        return "nothing".to_string();
    }
    let names: Vec<&str> = decisions.iter().map(|decision| decision.as_str()).collect();
    names.join(", ")
}

/// Picks, among the provider's own `candidates` (each with the decision it reads back as), the
/// first whose decision is `decision`; else [`AnswerError::NotOffered`] listing the offer.
pub fn choose<T>(
    request: &RuntimeRequestId,
    method: &str,
    decision: Decision,
    candidates: impl IntoIterator<Item = (Decision, T)>,
) -> Result<T, AnswerError> {
    choose_allowing(request, method, decision, candidates, []).map(|(candidate, _)| candidate)
}

/// Picks the first of the `offered` candidates whose decision is `decision`, else the first of
/// the `allowed` ones (what the reply type allows beyond the offer), flagged as [`Unoffered`];
/// else [`AnswerError::NotOffered`] listing both.
pub fn choose_allowing<T>(
    request: &RuntimeRequestId,
    method: &str,
    decision: Decision,
    offered: impl IntoIterator<Item = (Decision, T)>,
    allowed: impl IntoIterator<Item = (Decision, T)>,
) -> Result<(T, Option<Unoffered>), AnswerError> {
    let mut offers = Vec::new();
    for (offer, candidate) in offered {
        if offer == decision {
            return Ok((candidate, None));
        }
        if !offers.contains(&offer) {
            offers.push(offer);
        }
    }
    let mut allows = Vec::new();
    for (allow, candidate) in allowed {
        if allow == decision {
            let unoffered = Unoffered {
                request: request.clone(),
                method: method.to_string(),
                decision,
                offered: offers,
            };
            return Ok((candidate, Some(unoffered)));
        }
        if !offers.contains(&allow) && !allows.contains(&allow) {
            allows.push(allow);
        }
    }
    Err(AnswerError::NotOffered {
        request: request.clone(),
        method: method.to_string(),
        decision,
        offered: offers,
        allowed: allows,
    })
}

/// A refusal's resolution with the client's reason as its `message`, beside the provider's own
/// answer: `request.resolved` carries why a client refused in one place for every source (a
/// Claude deny's `message` is already there), the place a host reads a [`Reply::message`] from.
pub fn with_message(mut resolution: Value, message: Option<&str>) -> Value {
    if let (Value::Object(members), Some(message)) = (&mut resolution, message) {
        members.insert("message".to_string(), Value::String(message.to_string()));
    }
    resolution
}

/// Decodes a reply's answers or result into the provider's type for them.
pub fn decode<T: serde::de::DeserializeOwned>(
    method: &str,
    what: &'static str,
    value: &Value,
) -> Result<T, AnswerError> {
    serde_json::from_value(value.clone()).map_err(|err| AnswerError::IllTyped {
        method: method.to_string(),
        what,
        error: err.to_string(),
    })
}

/// The provider's value as JSON (every generated type serializes).
pub fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("a generated provider type serializes")
}
