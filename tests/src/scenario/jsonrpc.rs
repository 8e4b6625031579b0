//! Lookups for JSON-RPC sources (Codex app-server, ACP): messages by `method`, the client's
//! response to a provider request by `id`, and a provider request's canonical cycle.

use agentwire_canonical::{CanonicalRequestType, CanonicalRuntimeEventType, RuntimeEventRawSource};
use serde_json::Value;

use super::Scenario;

/// A provider request, the client's response to it and their canonical pair (see
/// [`Scenario::request_cycle`]).
pub struct RequestCycle {
    /// The `result` of the client's response.
    pub response: Value,
    /// The `request.opened` event.
    pub opened: usize,
    /// The `request.resolved` event.
    pub resolved: usize,
}

impl Scenario {
    /// The input lines of the messages the provider sent with JSON-RPC `method`.
    pub fn provider_lines(&self, method: &str) -> Vec<usize> {
        self.provider_lines_where(|msg| msg["method"] == method)
    }

    /// The one provider message with `method`: its line.
    pub fn one_provider_line(&self, method: &str) -> usize {
        let lines = self.provider_lines(method);
        assert_eq!(
            lines.len(),
            1,
            "trace `{}`: expected one `{method}` from the provider, at lines {lines:?}",
            self.label()
        );
        lines[0]
    }

    /// The client's response (`dir: "out"`, no `method`) to the provider's request `id`: its line.
    pub fn client_response(&self, id: &Value) -> usize {
        let lines = self.client_lines_where(|msg| msg.get("method").is_none() && msg["id"] == *id);
        assert_eq!(
            lines.len(),
            1,
            "trace `{}`: expected one client response to request id {id}, at lines {lines:?}",
            self.label()
        );
        lines[0]
    }

    /// The provider's request `method` (one in the trace), the client's response to it, and the
    /// canonical pair: `request.opened` of `request_type` from the request's line, carrying the
    /// request as `raw` (from `raw_source`) and its id as `providerRequestId`, and the one later
    /// `request.resolved` with the same `requestId` and turn.
    pub fn request_cycle(
        &self,
        method: &str,
        request_type: CanonicalRequestType,
        raw_source: RuntimeEventRawSource,
    ) -> RequestCycle {
        let request_line = self.one_provider_line(method);
        let id = self.msg(request_line)["id"].clone();
        assert!(
            !id.is_null(),
            "trace `{}`, line {request_line}: `{method}` has no JSON-RPC id",
            self.label()
        );
        let response_line = self.client_response(&id);
        let opened = self.one_event_of_line(request_line, CanonicalRuntimeEventType::RequestOpened);
        let payload = crate::payload!(self.event(opened), RequestOpened).expect("a request.opened");
        assert_eq!(payload.request_type, request_type, "{}: requestType", self.at(opened));
        assert_eq!(
            self.raw_source(opened),
            Some(raw_source),
            "{}: raw.source",
            self.at(opened)
        );
        assert_eq!(self.raw_method(opened), Some(method), "{}: raw.method", self.at(opened));
        assert_eq!(
            self.raw_payload(opened),
            *self.msg(request_line),
            "{}: raw.payload is the request",
            self.at(opened)
        );
        let provider_id = match &id {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        assert_eq!(
            self.provider_request_id(opened),
            Some(provider_id.as_str()),
            "{}: providerRequestId",
            self.at(opened)
        );
        let resolved = self.next_for_request(opened, CanonicalRuntimeEventType::RequestResolved);
        let resolution = crate::payload!(self.event(resolved), RequestResolved).expect("a request.resolved");
        assert_eq!(
            resolution.request_type,
            request_type,
            "{}: requestType",
            self.at(resolved)
        );
        assert_eq!(
            self.event(resolved).turn_id,
            self.event(opened).turn_id,
            "{}: turnId of its request",
            self.at(resolved)
        );
        let resolutions = self
            .indices_of(CanonicalRuntimeEventType::RequestResolved)
            .into_iter()
            .filter(|&i| self.event(i).request_id == self.event(opened).request_id)
            .count();
        assert_eq!(
            resolutions,
            1,
            "{}: the request resolves {resolutions} times",
            self.at(opened)
        );
        RequestCycle {
            response: self.msg(response_line)["result"].clone(),
            opened,
            resolved,
        }
    }
}
