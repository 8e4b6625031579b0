//! The way back: a host that shows `request.opened` answers it in canonical terms ([`Reply`]),
//! and the normalizer that opened it writes the provider-native reply frame
//! ([`crate::normalizer::Normalizer::answer`]).
//!
//! Each source builds its reply from what the open request offered (kept in the ledger beside
//! the request) and from the same tables that read the client's answer into a [`Decision`]: a
//! reply is chosen among the provider's own candidates by the decision it reads back as. The
//! candidates are what the request offered, then what its reply type allows beyond the offer (a
//! Codex command approval's plain decisions when its `availableDecisions` leave some out, a Claude
//! allow granting rules its `can_use_tool` did not suggest): such a reply is built and flagged
//! ([`ReplyFrame::unoffered`]), since real clients send them and the provider honours them. A
//! decision the reply type cannot carry is an error ([`AnswerError::NotOffered`]), never a
//! guess; so is answers or a result that does not fit the provider's type, or a result given to
//! a reply that takes none ([`AnswerError::IllTyped`]): nothing a host sends is dropped.

use agentwire_canonical::RuntimeRequestId;
use serde_json::Value;

use crate::decision::Decision;
use crate::source::SourceSpec;

/// What the client decided, in canonical terms: the decision `request.resolved` reports, plus
/// what some requests need besides it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The outcome the client chose, one the request offered (or one its reply type allows).
    pub decision: Decision,
    /// Answers to questions (`user-input.resolved.answers`), or an MCP form's content.
    pub answers: Option<Value>,
    /// A tool's result, or the fields of an outcome beyond the decision (a plan's URI, the
    /// to-do list the client holds, a Claude allow's `updatedInput` and `updatedPermissions`).
    /// A reply whose type takes none refuses one.
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
    /// The request answered.
    pub request: RuntimeRequestId,
    /// The request's provider method, naming it to the user.
    pub method: String,
    /// The decision sent although not offered.
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
        /// The request answered.
        request: RuntimeRequestId,
        /// The request's provider method.
        method: String,
        /// The decision refused.
        decision: Decision,
        /// What the request offered.
        offered: Vec<Decision>,
        /// What the reply type allows beyond the offer (sent with [`ReplyFrame::unoffered`]).
        allowed: Vec<Decision>,
    },
    /// The decision needs answers (`--answers`) the reply does not carry.
    MissingAnswers {
        /// The request's provider method.
        method: String,
        /// The decision that needs answers.
        decision: Decision,
    },
    /// The decision needs a result (`--result`) the reply does not carry.
    MissingResult {
        /// The request's provider method.
        method: String,
        /// The decision that needs a result.
        decision: Decision,
    },
    /// The answers or result do not fit the provider's type for them, or the reply takes none:
    /// a value of the wrong type, a member the type has no place for (which decoding alone would
    /// drop), or a member the decision already sets.
    IllTyped {
        /// The request's provider method.
        method: String,
        /// `answers` or `result`.
        what: &'static str,
        /// Where in it, as a JSON path from `what` (`result`, `result.todos[0].status`).
        path: String,
        /// Why it does not fit.
        error: String,
    },
    /// The source is a read-only record: nobody on its wire answers requests.
    Unanswerable(&'static SourceSpec),
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
            Self::IllTyped {
                method,
                what,
                path,
                error,
            } => write!(f, "the {what} of a {method} reply does not fit at {path}: {error}"),
            Self::Unanswerable(source) => write!(
                f,
                "{} is a record of a session, not a conversation: nobody answers its requests",
                source.name
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

/// An [`AnswerError::IllTyped`] at `path` (a JSON path from `what`).
pub fn ill_typed(method: &str, what: &'static str, path: impl Into<String>, error: impl Into<String>) -> AnswerError {
    AnswerError::IllTyped {
        method: method.to_string(),
        what,
        path: path.into(),
        error: error.into(),
    }
}

/// A reply type that takes no `result`: one given is an error, not dropped.
pub fn no_result(method: &str, reply: &Reply) -> Result<(), AnswerError> {
    match &reply.result {
        None => Ok(()),
        Some(_) => Err(ill_typed(
            method,
            "result",
            "result",
            format!("a {method} reply answered {} takes no result", reply.decision),
        )),
    }
}

/// Decodes a reply's answers or result into the provider's type for them, strictly: a value of
/// the wrong type is an error at its JSON path, and so is a member the type has no place for
/// (serde would drop it, and the provider would never see what the host meant to send). A
/// `null` member stands for an absent one.
pub fn decode<T: serde::de::DeserializeOwned + serde::Serialize>(
    method: &str,
    what: &'static str,
    value: &Value,
) -> Result<T, AnswerError> {
    let decoded: T = serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        ill_typed(method, what, json_path(what, &path), err.into_inner().to_string())
    })?;
    if let Some((path, member)) = dropped(value, &to_value(&decoded), what.to_string()) {
        let type_name = std::any::type_name::<T>().rsplit("::").next().unwrap_or("its type");
        return Err(ill_typed(
            method,
            what,
            path,
            format!("no member `{member}` at this path of the provider's {type_name} (it would be dropped)"),
        ));
    }
    Ok(decoded)
}

/// `what` followed by a `serde_path_to_error` path (`.` for the root).
fn json_path(what: &str, path: &str) -> String {
    match path {
        "." | "" => what.to_string(),
        path if path.starts_with('[') => format!("{what}{path}"),
        path => format!("{what}.{path}"),
    }
}

/// The first member of `given` that decoding did not keep (`kept` is the decoded value written
/// back): its JSON path and name. Arrays are compared element by element when both have the
/// same length; a value the type writes otherwise (a string for an object) is not looked into.
fn dropped(given: &Value, kept: &Value, path: String) -> Option<(String, String)> {
    match (given, kept) {
        (Value::Object(given), Value::Object(kept)) => given.iter().find_map(|(key, value)| match kept.get(key) {
            Some(kept) => dropped(value, kept, format!("{path}.{key}")),
            None if value.is_null() => None,
            None => Some((format!("{path}.{key}"), key.clone())),
        }),
        (Value::Array(given), Value::Array(kept)) if given.len() == kept.len() => given
            .iter()
            .zip(kept)
            .enumerate()
            .find_map(|(index, (given, kept))| dropped(given, kept, format!("{path}[{index}]"))),
        _ => None,
    }
}

/// The provider's value as JSON (every generated type serializes).
pub fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("a generated provider type serializes")
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    struct Todos {
        todos: Vec<Todo>,
    }

    #[derive(Debug, Deserialize, Serialize)]
    struct Todo {
        content: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        done: Option<bool>,
    }

    fn error_at(value: Value) -> (String, String) {
        match decode::<Todos>("m", "result", &value).expect_err("ill-typed") {
            AnswerError::IllTyped { path, error, .. } => (path, error),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn decode_names_the_path_of_a_value_of_the_wrong_type() {
        let (path, error) = error_at(json!(42));
        assert_eq!(path, "result");
        assert!(error.starts_with("invalid type: integer `42`"), "{error}");
        let (path, error) = error_at(json!({ "todos": [{ "content": "a" }, { "content": 7 }] }));
        assert_eq!(path, "result.todos[1].content");
        assert!(
            error.starts_with("invalid type: integer `7`, expected a string"),
            "{error}"
        );
    }

    #[test]
    fn decode_refuses_a_member_the_type_would_drop_and_takes_null_for_absent() {
        let (path, error) = error_at(json!({ "todos": [{ "content": "a", "priority": "high" }] }));
        assert_eq!(path, "result.todos[0].priority");
        assert_eq!(
            error,
            "no member `priority` at this path of the provider's Todos (it would be dropped)"
        );
        let (path, _) = error_at(json!({ "todos": [], "interrupt": true }));
        assert_eq!(path, "result.interrupt");
        let decoded: Todos =
            decode("m", "result", &json!({ "todos": [{ "content": "a", "done": null }] })).expect("null is absent");
        assert_eq!(decoded.todos[0].done, None);
    }

    #[test]
    fn a_reply_that_takes_no_result_refuses_one() {
        assert_eq!(no_result("m", &Reply::new(Decision::Accept)), Ok(()));
        let reply = Reply {
            result: Some(json!({ "interrupt": true })),
            ..Reply::new(Decision::Accept)
        };
        let err = no_result("item/fileChange/requestApproval", &reply).expect_err("no result");
        assert_eq!(
            err.to_string(),
            "the result of a item/fileChange/requestApproval reply does not fit at result: a \
             item/fileChange/requestApproval reply answered accept takes no result"
        );
    }
}
