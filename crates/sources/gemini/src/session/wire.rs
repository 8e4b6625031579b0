//! Session-file lines -> typed records ([`SessionLine`]), for the normalizer and `conform`.
//!
//! The four line kinds share no tag: a line is classified by its keys as the CLI's reader
//! (`loadConversationRecord`) does, in its order (`$rewindTo` a string, `id` a string, `$set` an
//! object, `sessionId` and `projectHash` strings), and only the record type that names is
//! decoded, so a problem names the kind and the JSON path where the line did not fit.

use agentwire_gemini_cli_session::{
    MessageRecord, MetadataUpdateRecord, PayloadDecoder, RewindRecord, SessionMetadataRecord,
};
use serde_json::value::RawValue;

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::{Problem, ProblemKind};

/// One line of a session file.
pub enum SessionLine {
    /// The metadata line a writer starts with.
    Metadata(SessionMetadataRecord),
    /// A message, new or written again (boxed: a message is five times the size of any other
    /// line, and most lines are `$set`s).
    Message(Box<MessageRecord>),
    /// A `$set` line: fields of the conversation replaced.
    Set(MetadataUpdateRecord),
    /// A `$rewindTo` line: the messages from one on dropped.
    Rewind(RewindRecord),
}

impl SessionLine {
    /// The kind as `raw.method` names it: a message's `type`, else the line's key.
    pub fn tag(&self) -> &'static str {
        match self {
            SessionLine::Metadata(_) => "metadata",
            SessionLine::Message(message) => message.tag(),
            SessionLine::Set(_) => "$set",
            SessionLine::Rewind(_) => "$rewindTo",
        }
    }
}

/// The keys a line is classified by, each borrowed as its JSON text.
#[derive(serde::Deserialize)]
struct Keys<'a> {
    #[serde(rename = "$rewindTo", borrow)]
    rewind_to: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(rename = "$set", borrow)]
    set: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "projectHash", borrow)]
    project_hash: Option<&'a RawValue>,
}

/// The kind of line the keys say, by the CLI's order.
#[derive(Clone, Copy)]
enum Kind {
    Rewind,
    Message,
    Set,
    Metadata,
}

fn kind(text: &str) -> Option<Kind> {
    let keys: Keys<'_> = serde_json::from_str(text).ok()?;
    let is =
        |value: Option<&RawValue>, first: u8| value.is_some_and(|value| value.get().as_bytes().first() == Some(&first));
    if is(keys.rewind_to, b'"') {
        Some(Kind::Rewind)
    } else if is(keys.id, b'"') {
        Some(Kind::Message)
    } else if is(keys.set, b'{') {
        Some(Kind::Set)
    } else if is(keys.session_id, b'"') && is(keys.project_hash, b'"') {
        Some(Kind::Metadata)
    } else {
        None
    }
}

/// Decodes one line; the problem names the line kind and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<SessionLine, Problem> {
    let text = frame.msg.get();
    let record = |name: &str, err: agentwire_gemini_cli_session::PayloadError| {
        Problem::new(ProblemKind::Undecodable, format!("{name}: {err}"))
    };
    match kind(text) {
        Some(Kind::Rewind) => PathTracking
            .decode(text)
            .map(SessionLine::Rewind)
            .map_err(|err| record("RewindRecord", err)),
        Some(Kind::Message) => MessageRecord::decode(text, &mut PathTracking)
            .map(|message| SessionLine::Message(Box::new(message)))
            .map_err(|err| tag_problem(&err)),
        Some(Kind::Set) => PathTracking
            .decode(text)
            .map(SessionLine::Set)
            .map_err(|err| record("MetadataUpdateRecord", err)),
        Some(Kind::Metadata) => PathTracking
            .decode(text)
            .map(SessionLine::Metadata)
            .map_err(|err| record("SessionMetadataRecord", err)),
        None => Err(Problem::new(
            ProblemKind::Undecodable,
            "no session-file line: none of `$rewindTo`, `id`, `$set`, `sessionId` and `projectHash`",
        )),
    }
}

/// When the CLI wrote a line, where it says: a message's `timestamp`, a `$set`'s
/// `lastUpdated`, a metadata line's `lastUpdated` (else its `startTime`); a rewind says none.
pub fn timestamp(line: &SessionLine) -> Option<&str> {
    match line {
        SessionLine::Metadata(record) => record.last_updated.as_deref().or(record.start_time.as_deref()),
        SessionLine::Message(message) => Some(match message.as_ref() {
            MessageRecord::User(record) => &record.timestamp,
            MessageRecord::Gemini(record) => &record.timestamp,
            MessageRecord::Info(record) => &record.timestamp,
            MessageRecord::Error(record) => &record.timestamp,
            MessageRecord::Warning(record) => &record.timestamp,
        }),
        SessionLine::Set(record) => record.set.last_updated.as_deref(),
        SessionLine::Rewind(_) => None,
    }
}
