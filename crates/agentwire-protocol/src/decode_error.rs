//! The two errors of decoding a dispatch union, in a module of their own because each holds the
//! other: a tag-field union's [`TagDecodeError::Payload`] carries the [`PayloadError`] of its
//! payload, and a [`PayloadError`] carries the [`TagDecodeError::UnknownTag`] of a union nested in
//! the payload when that is why it failed. The slot that carries such an unknown tag across
//! serde's text-only errors is here too ([`nested_error`] fills it, [`PayloadError::new`] empties
//! it). So `payload` (the decoders) imports only this module, and `tagged` (the tag-field unions)
//! this one and `payload`: the modules depend one way, `tagged` -> `payload` -> `decode_error`.

use std::cell::RefCell;
use std::fmt;

/// Why a message did not decode into a tag-field dispatch union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagDecodeError {
    /// The message is not a JSON object, or its tag field is not a string.
    NotAnObject {
        /// The union that was asked.
        union: &'static str,
        /// The JSON parser's message.
        message: String,
    },
    /// The object has no tag field.
    MissingTag {
        /// The union that was asked.
        union: &'static str,
        /// The tag field (`type`, `subtype`).
        tag: &'static str,
    },
    /// The tag names no variant of the union.
    UnknownTag {
        /// The union that was asked.
        union: &'static str,
        /// The tag field.
        tag: &'static str,
        /// The value the message carried.
        value: String,
        /// The values the union knows.
        known: &'static [&'static str],
    },
    /// The object does not match the payload type its tag names.
    Payload {
        /// The union that was asked.
        union: &'static str,
        /// The tag field.
        tag: &'static str,
        /// The tag's value.
        value: String,
        /// Where and why.
        error: PayloadError,
    },
}

impl fmt::Display for TagDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnObject { union, message } => {
                write!(f, "{union}: not a JSON object with a string tag: {message}")
            }
            Self::MissingTag { union, tag } => write!(f, "{union}: no `{tag}` field"),
            Self::UnknownTag {
                union,
                tag,
                value,
                known,
            } => write!(f, "{union}: unknown `{tag}` `{value}` (known: {})", known.join(", ")),
            Self::Payload {
                union,
                tag,
                value,
                error,
            } => write!(f, "{union} `{tag}` `{value}`: {error}"),
        }
    }
}

impl std::error::Error for TagDecodeError {}

/// Why a payload did not decode, and where inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadError {
    /// JSON path inside the payload (`.thread.status.type`), empty when the decoder does not track it.
    pub path: String,
    /// The decoder's message.
    pub message: String,
    /// The [`TagDecodeError::UnknownTag`] of a union nested in the payload, when a tag it does
    /// not know is why the payload failed: a newer provider, not a broken message.
    pub unknown_tag: Option<Box<TagDecodeError>>,
}

impl PayloadError {
    /// The error a decoder reports, with the nested union's unknown tag behind `message`, if
    /// one is (see [`nested_error`]).
    pub fn new(path: String, message: String) -> Self {
        let unknown_tag = unknown_tag_behind(&message);
        PayloadError {
            path,
            message,
            unknown_tag,
        }
    }
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at {}: {}", self.path, self.message)
        }
    }
}

thread_local! {
    /// The unknown tag a nested union's `Deserialize` last failed on, with the message it gave
    /// serde: serde carries an error between the levels of a value as text only.
    static NESTED_UNKNOWN_TAG: RefCell<Option<(TagDecodeError, String)>> = const { RefCell::new(None) };
}

/// The serde error of a union nested in another message's payload, for its `Deserialize` impl.
/// When the reason is a tag the pinned schema does not know (here or deeper), that error is kept
/// beside the text, for the [`PayloadError`] the enclosing decoder reports to take back.
pub fn nested_error<E: serde::de::Error>(error: TagDecodeError) -> E {
    let message = error.to_string();
    let unknown = match error {
        TagDecodeError::UnknownTag { .. } => Some(error),
        TagDecodeError::Payload { error, .. } => error.unknown_tag.map(|unknown| *unknown),
        TagDecodeError::MissingTag { .. } | TagDecodeError::NotAnObject { .. } => None,
    };
    NESTED_UNKNOWN_TAG.with(|slot| *slot.borrow_mut() = unknown.map(|unknown| (unknown, message.clone())));
    E::custom(message)
}

/// The unknown tag kept by [`nested_error`], if `message` (a decoder's report, which serde_json
/// ends with the position) is the error it was kept with; one left by an earlier attempt, such
/// as an untagged union's branch that failed before another matched, is dropped.
fn unknown_tag_behind(message: &str) -> Option<Box<TagDecodeError>> {
    let (unknown, nested) = NESTED_UNKNOWN_TAG.with(|slot| slot.borrow_mut().take())?;
    message.starts_with(&nested).then(|| Box::new(unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_unknown_tag_reaches_the_payload_error_that_reports_it() {
        let unknown = TagDecodeError::UnknownTag {
            union: "ThreadItem",
            tag: "type",
            value: "hologram".into(),
            known: &["agent_message"],
        };
        let error: serde_json::Error = nested_error(unknown.clone());
        let reported = PayloadError::new(".item".into(), format!("{error} at line 1 column 42"));
        assert_eq!(reported.unknown_tag.as_deref(), Some(&unknown));

        let outer = TagDecodeError::Payload {
            union: "ThreadEvent",
            tag: "type",
            value: "item.started".into(),
            error: reported,
        };
        let error: serde_json::Error = nested_error(outer);
        let reported = PayloadError::new(String::new(), format!("{error} at line 1 column 50"));
        assert_eq!(
            reported.unknown_tag.as_deref(),
            Some(&unknown),
            "through a second level"
        );
    }

    #[test]
    fn an_unknown_tag_left_by_another_attempt_is_not_taken() {
        let _: serde_json::Error = nested_error(TagDecodeError::UnknownTag {
            union: "ThreadItem",
            tag: "type",
            value: "hologram".into(),
            known: &[],
        });
        let reported = PayloadError::new(String::new(), "missing field `id` at line 1 column 7".into());
        assert_eq!(reported.unknown_tag, None);
        let missing = TagDecodeError::MissingTag {
            union: "ThreadItem",
            tag: "type",
        };
        let error: serde_json::Error = nested_error(missing);
        let reported = PayloadError::new(String::new(), format!("{error} at line 1 column 2"));
        assert_eq!(reported.unknown_tag, None, "a missing tag is no newer provider");
    }
}
