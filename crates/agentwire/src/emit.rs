//! Building canonical events: the envelope every normalizer fills the same way.

use agentwire_canonical::{
    EventId, ProviderKind, ProviderRefs, ProviderRuntimeEvent, RuntimeEvent, RuntimeEventRaw, RuntimeEventRawSource,
    RuntimeItemId, RuntimeRequestId, RuntimeSessionId, ThreadId, TurnId,
};
use serde_json::value::RawValue;

use crate::clock::Clock;
use crate::ids;

/// The source message an event came from, attached as `raw`.
#[derive(Clone, Copy)]
pub struct Raw<'a> {
    pub source: RuntimeEventRawSource,
    pub method: Option<&'a str>,
    pub message_type: Option<&'a str>,
    pub payload: &'a RawValue,
}

/// Where an event belongs: canonical ids, provider ids and the source message.
#[derive(Clone, Default)]
pub struct Context<'a> {
    pub thread_id: Option<ThreadId>,
    pub turn_id: Option<TurnId>,
    pub item_id: Option<RuntimeItemId>,
    pub request_id: Option<RuntimeRequestId>,
    pub refs: ProviderRefs,
    pub raw: Option<Raw<'a>>,
}

/// Numbers events, stamps the session and the time, attaches `raw`.
pub struct Emitter {
    provider: ProviderKind,
    session: Option<RuntimeSessionId>,
    /// [`ids::event_base`] of the session, once known.
    event_base: u128,
    seq: u64,
    pub clock: Clock,
}

impl Emitter {
    pub fn new(provider: ProviderKind, session: Option<RuntimeSessionId>, clock: Clock) -> Self {
        let event_base = session.as_ref().map_or(0, |session| ids::event_base(session.as_str()));
        Emitter {
            provider,
            session,
            event_base,
            seq: 0,
            clock,
        }
    }

    /// Fixes the session id, deriving it from `first_message` unless the host gave one.
    pub fn ensure_session(&mut self, first_message: &[u8]) {
        if self.session.is_none() {
            let session =
                RuntimeSessionId::new(ids::session_from_first_line(first_message)).expect("a UUID is a valid id");
            self.event_base = ids::event_base(session.as_str());
            self.session = Some(session);
        }
    }

    /// The session id ([`Emitter::ensure_session`] is called with the first frame).
    pub fn session(&self) -> &RuntimeSessionId {
        self.session
            .as_ref()
            .expect("ensure_session() is called with the first frame")
    }

    /// Whether any frame was seen (the session id is known).
    pub fn has_session(&self) -> bool {
        self.session.is_some()
    }

    /// Builds the next event.
    pub fn emit(&mut self, context: &Context<'_>, event: RuntimeEvent) -> ProviderRuntimeEvent {
        let session_id = self
            .session
            .clone()
            .expect("session_id() is called before the first event");
        let event_id = EventId::new(ids::event_id(self.event_base, self.seq)).expect("a UUID is a valid id");
        self.seq += 1;
        let has_refs = context.refs != ProviderRefs::default();
        ProviderRuntimeEvent {
            event_id,
            provider: self.provider,
            session_id,
            created_at: self.clock.now(),
            thread_id: context.thread_id.clone(),
            turn_id: context.turn_id.clone(),
            item_id: context.item_id.clone(),
            request_id: context.request_id.clone(),
            provider_refs: has_refs.then(|| context.refs.clone()),
            event,
            raw: context.raw.map(|raw| RuntimeEventRaw {
                source: raw.source,
                method: raw.method.map(str::to_string),
                message_type: raw.message_type.map(str::to_string),
                payload: raw.payload.to_owned(),
            }),
        }
    }
}
