//! Session-file lines -> typed records ([`SessionRecord`]), for the normalizer and `conform`.

use agentwire_claude_session::{SessionRecord, SystemRecord};

use agentwire_core::decode::{PathTracking, tag_problem};
use agentwire_core::frame::Frame;
use agentwire_core::normalizer::Problem;

/// Decodes one record; the problem names the tag and the JSON path where it did not fit.
pub fn decode(frame: &Frame<'_>) -> Result<SessionRecord, Problem> {
    SessionRecord::decode(frame.msg.get(), &mut PathTracking).map_err(|err| tag_problem(&err))
}

/// When the CLI wrote a record, where it says: every conversation and system record, and the
/// queue operations, attachments and the API request records that say; the names, snapshots and
/// the CLI's other bookkeeping carry none.
pub fn timestamp(record: &SessionRecord) -> Option<&str> {
    match record {
        SessionRecord::User(record) => Some(&record.timestamp),
        SessionRecord::Assistant(record) => Some(&record.timestamp),
        SessionRecord::Progress(record) => Some(&record.timestamp),
        SessionRecord::QueueOperation(record) => Some(&record.timestamp),
        SessionRecord::System(system) => Some(match system {
            SystemRecord::CompactBoundary(record) => &record.timestamp,
            SystemRecord::MicrocompactBoundary(record) => &record.timestamp,
            SystemRecord::ApiError(record) => &record.timestamp,
            SystemRecord::LocalCommand(record) => &record.timestamp,
            SystemRecord::Informational(record) => &record.timestamp,
            SystemRecord::TurnDuration(record) => &record.timestamp,
            SystemRecord::StopHookSummary(record) => &record.timestamp,
        }),
        SessionRecord::Attachment(record) => record.timestamp.as_deref(),
        SessionRecord::ApiRequest(record) => record.timestamp.as_deref(),
        SessionRecord::ApiRequestShape(record) => record.timestamp.as_deref(),
        SessionRecord::Summary(_)
        | SessionRecord::CustomTitle(_)
        | SessionRecord::FileHistorySnapshot(_)
        | SessionRecord::ApiRequestRoute(_)
        | SessionRecord::ApiRequestBlob(_)
        | SessionRecord::AtisLatch(_)
        | SessionRecord::LastPrompt(_)
        | SessionRecord::CostState(_)
        | SessionRecord::ToolsUsed(_)
        | SessionRecord::Mode(_) => None,
    }
}
