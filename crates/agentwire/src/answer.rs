//! The way back: a host that shows `request.opened` answers it in canonical terms ([`Reply`]),
//! and the normalizer that opened it writes the provider-native reply frame
//! ([`crate::normalizer::Normalizer::answer`]).
//!
//! Each source builds its reply from what the open request offered (kept in the ledger beside
//! the request) and from the same tables that read the client's answer into a [`Decision`]: a
//! reply is chosen among the provider's own candidates by the decision it reads back as, so a
//! decision the provider did not offer is an error ([`AnswerError::NotOffered`]), never a guess.

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

/// Why no reply frame could be built.
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerError {
    /// No request with this canonical id was opened in the session so far.
    Unknown(RuntimeRequestId),
    /// The request was answered or settled already.
    AlreadyResolved(RuntimeRequestId),
    /// The provider did not offer this decision for this request.
    NotOffered {
        request: RuntimeRequestId,
        method: String,
        decision: Decision,
        offered: Vec<Decision>,
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
            } => {
                let offered: Vec<&str> = offered.iter().map(|decision| decision.as_str()).collect();
                write!(
                    f,
                    "request {request} ({method}) does not offer {decision}; offered: {}",
                    if offered.is_empty() {
                        "nothing".to_string()
                    } else {
                        offered.join(", ")
                    }
                )
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

/// Picks, among the provider's own `candidates` (each with the decision it reads back as), the
/// first whose decision is `decision`; else [`AnswerError::NotOffered`] listing the offer.
pub fn choose<T>(
    request: &RuntimeRequestId,
    method: &str,
    decision: Decision,
    candidates: impl IntoIterator<Item = (Decision, T)>,
) -> Result<T, AnswerError> {
    let mut offered = Vec::new();
    for (offers, candidate) in candidates {
        if offers == decision {
            return Ok(candidate);
        }
        if !offered.contains(&offers) {
            offered.push(offers);
        }
    }
    Err(AnswerError::NotOffered {
        request: request.clone(),
        method: method.to_string(),
        decision,
        offered,
    })
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
