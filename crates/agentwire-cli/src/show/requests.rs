//! The requests of a session with what became of them. The snapshot keeps only the requests
//! still open; a page also shows the ones answered and the decision taken, so they are paired
//! here from `request.opened` / `user-input.requested` and their resolutions.

use agentwire_canonical::{ProviderRuntimeEvent, RuntimeEvent, RuntimeItemId, RuntimeRequestId, TurnId};
use serde_json::Value;

/// A request and its answer.
#[derive(Clone, Debug)]
pub struct Request {
    pub request_id: RuntimeRequestId,
    pub turn_id: Option<TurnId>,
    pub item_id: Option<RuntimeItemId>,
    /// What it asks: the request type, or `user input`.
    pub kind: String,
    /// What is asked, for a person.
    pub detail: Option<String>,
    /// The decision taken (`accept`, `decline`, `answered`, ...); `None` while it waits.
    pub decision: Option<String>,
    /// The position of the event that opened it in the stream: where it is drawn.
    pub at: usize,
}

/// Every request of `events`, in the order they opened.
pub fn of(events: &[ProviderRuntimeEvent]) -> Vec<Request> {
    let mut requests: Vec<Request> = Vec::new();
    for (at, event) in events.iter().enumerate() {
        let Some(request_id) = &event.request_id else {
            continue;
        };
        let opened = |kind: String, detail: Option<String>| Request {
            request_id: request_id.clone(),
            turn_id: event.turn_id.clone(),
            item_id: event.item_id.clone(),
            kind,
            detail,
            decision: None,
            at,
        };
        match &event.event {
            RuntimeEvent::RequestOpened(payload) => {
                let request = opened(payload.request_type.as_str().replace('_', " "), payload.detail.clone());
                open(&mut requests, request);
            }
            RuntimeEvent::UserInputRequested(payload) => {
                open(
                    &mut requests,
                    opened("user input".to_owned(), questions(&payload.questions)),
                );
            }
            RuntimeEvent::RequestResolved(payload) => {
                let decision = payload.decision.clone().unwrap_or_else(|| "resolved".to_owned());
                resolve(&mut requests, request_id, decision);
            }
            RuntimeEvent::UserInputResolved(_) => resolve(&mut requests, request_id, "answered".to_owned()),
            _ => {}
        }
    }
    requests
}

/// A request opened again under the same id replaces the first (as the snapshot does).
fn open(requests: &mut Vec<Request>, request: Request) {
    requests.retain(|known| known.request_id != request.request_id);
    requests.push(request);
}

fn resolve(requests: &mut [Request], request_id: &RuntimeRequestId, decision: String) {
    if let Some(request) = requests.iter_mut().find(|request| &request.request_id == request_id) {
        request.decision = Some(decision);
    }
}

/// The questions' texts, one a line, when they are a list of objects with a `question`;
/// their number otherwise.
fn questions(questions: &Value) -> Option<String> {
    let list = questions.as_array()?;
    let texts: Vec<&str> = list
        .iter()
        .filter_map(|question| question.get("question").and_then(Value::as_str))
        .collect();
    Some(if texts.len() == list.len() && !texts.is_empty() {
        texts.join("\n")
    } else {
        format!("{} question(s)", list.len())
    })
}
