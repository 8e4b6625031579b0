//! Building canonical events: the envelope every normalizer fills the same way.

use agentwire_canonical::{
    ProviderKind, ProviderRefs, ProviderRuntimeEvent, RuntimeEvent, RuntimeEventRaw, RuntimeEventRawSource,
    RuntimeItemId, RuntimeRequestId, RuntimeSessionId, ThreadId, TurnId, WriteJson,
};
use serde_json::value::RawValue;

use crate::clock::Clock;
use crate::{content, ids, secrets};

/// The source message an event came from, attached as `raw`.
#[derive(Clone, Copy)]
pub struct Raw<'a> {
    /// The raw-source label: which protocol and direction the message is from.
    pub source: RuntimeEventRawSource,
    /// The JSON-RPC method or the message's own type (`raw.method`).
    pub method: Option<&'a str>,
    /// The type of what the message carries (`raw.messageType`: `commandExecution`, `error`).
    pub message_type: Option<&'a str>,
    /// The message as the provider sent it, byte for byte (redacted on the way out).
    pub payload: &'a RawValue,
}

impl<'a> Raw<'a> {
    /// `payload` from `source`, named by `method` (the JSON-RPC method or the message type).
    pub fn new(source: RuntimeEventRawSource, method: Option<&'a str>, payload: &'a RawValue) -> Self {
        Raw {
            source,
            method,
            message_type: None,
            payload,
        }
    }

    /// The same message, with the type of what it carries (`commandExecution`, `error`, ...).
    pub fn with_type(self, message_type: &'a str) -> Self {
        Raw {
            message_type: Some(message_type),
            ..self
        }
    }
}

/// Where an event belongs: canonical ids, provider ids and the source message.
#[derive(Clone, Default)]
pub struct Context<'a> {
    /// The canonical thread (`threadId`).
    pub thread_id: Option<ThreadId>,
    /// The canonical turn (`turnId`).
    pub turn_id: Option<TurnId>,
    /// The canonical item (`itemId`).
    pub item_id: Option<RuntimeItemId>,
    /// The canonical request (`requestId`).
    pub request_id: Option<RuntimeRequestId>,
    /// The provider's own ids (`providerRefs`).
    pub refs: ProviderRefs,
    /// The source message the event carries (`raw`); `None` for an event derived from a
    /// message that already rides on another event.
    pub raw: Option<Raw<'a>>,
}

impl<'a> Context<'a> {
    /// A context that belongs to the session only, carrying `raw`.
    pub fn bare(raw: Raw<'a>) -> Self {
        Context {
            raw: Some(raw),
            ..Context::default()
        }
    }

    /// The same place, without the source message (for events derived from a message that
    /// already rides on another event).
    pub fn without_raw(&self) -> Context<'a> {
        Context {
            raw: None,
            ..self.clone()
        }
    }
}

/// How many events wait for the stream's first time at most. A stream that has given none by
/// then (a bare `claude` stream never does) is taken to carry none: the held events go out with
/// the clock's fallback and later events are not held, so memory stays bounded however long the
/// stream runs. Large enough for every real trace whose first time arrives late.
const MAX_HELD_EVENTS: usize = 256;

/// The `raw` bytes held events may carry at most, for the same reason (a few huge messages
/// before the first time weigh more than many small ones).
const MAX_HELD_RAW_BYTES: usize = 1 << 20;

/// Numbers events, stamps the session and the time, attaches `raw`.
///
/// Until the stream has given any time at all (a bare stream's first responses carry none),
/// events wait in `held` and are stamped with the first time that arrives, so no event says the
/// session ran at a time it never had; `release` lets them out at the end when none ever came,
/// or once [`MAX_HELD_EVENTS`] or [`MAX_HELD_RAW_BYTES`] is reached.
pub struct Emitter {
    provider: ProviderKind,
    session: Option<RuntimeSessionId>,
    /// [`ids::event_base`] of the session, once known.
    event_base: u128,
    seq: u64,
    /// The `createdAt` of each event: the provider's times, read as they come.
    pub clock: Clock,
    held: Vec<ProviderRuntimeEvent>,
    /// The `raw.payload` bytes of `held`.
    held_raw_bytes: usize,
    /// Replace credentials by `[redacted]` in `raw` and payloads ([`crate::secrets`]).
    redact: bool,
    /// The address range of the current line and where its needles lie: a message inside it is
    /// classified from that scan (and one inside a line without needles holds no secret), not
    /// scanned again. Set by [`Emitter::next_frame`], before the buffer the addresses point into
    /// can hold another line.
    line: std::ops::Range<usize>,
    line_needles: secrets::Needles,
    /// Whether any line so far may have held a secret. Until one has, the payloads of derived
    /// events (built from earlier lines and constants) cannot hold one and are not checked.
    tainted: bool,
    /// The secrets scan of a message outside a clean line, so a message that rides on several
    /// events is scanned once: its address and length, and its redacted copy when it held a
    /// secret. Cleared by [`Emitter::next_frame`].
    scanned: Option<(usize, usize, Option<Box<RawValue>>)>,
    /// Reused to write derived payloads for their secrets check, and to scan them.
    scratch: Vec<u8>,
    scratch_needles: secrets::Needles,
    /// What of an event's provider refs the source may claim as the provider's own ids (see
    /// [`crate::ledger::Ledger::with_provider_refs`]); `None` keeps them all.
    refs_policy: Option<fn(&mut ProviderRefs)>,
}

impl Emitter {
    /// An emitter for one stream: `provider` of its events, the `session` id if already known,
    /// and whether to redact credentials.
    pub fn new(provider: ProviderKind, session: Option<RuntimeSessionId>, clock: Clock, redact: bool) -> Self {
        let event_base = session.as_ref().map_or(0, ids::event_base);
        Emitter {
            provider,
            session,
            event_base,
            seq: 0,
            clock,
            held: Vec::new(),
            held_raw_bytes: 0,
            redact,
            line: 0..0,
            line_needles: secrets::Needles::default(),
            tainted: false,
            scanned: None,
            scratch: Vec::new(),
            scratch_needles: secrets::Needles::default(),
            refs_policy: None,
        }
    }

    /// Scans the next input line for secrets, forgetting what was learnt about the previous one
    /// (called for every line, read or not).
    pub fn next_frame(&mut self, line: &str) {
        self.scanned = None;
        self.line = 0..0;
        if !self.redact {
            return;
        }
        let start = line.as_ptr() as usize;
        self.line = start..start + line.len();
        if self.line_needles.scan(line) {
            self.tainted = true;
        }
    }

    /// The redacted copy of `payload`, or `None` when it holds no secret; a message inside the
    /// line is read from the line's scan, any other scanned once per line.
    fn redacted(&mut self, payload: &RawValue) -> Option<Box<RawValue>> {
        let key = (payload.get().as_ptr() as usize, payload.get().len());
        let in_line = self.line.contains(&key.0) && key.0 + key.1 <= self.line.end;
        if in_line && self.line_needles.is_empty() {
            return None;
        }
        match &self.scanned {
            Some((ptr, len, redacted)) if (*ptr, *len) == key => redacted.clone(),
            _ => {
                let redacted = if in_line {
                    let start = key.0 - self.line.start;
                    secrets::redact_scanned(payload, &self.line_needles, start..start + key.1)
                } else {
                    secrets::redact_raw(payload)
                };
                self.scanned = Some((key.0, key.1, redacted.clone()));
                redacted
            }
        }
    }

    /// Fixes the session id, deriving it from the stream's first line unless the host gave one.
    pub fn ensure_session(&mut self, first_line: &[u8]) {
        if self.session.is_none() {
            let session = ids::default_session(first_line);
            self.event_base = ids::event_base(&session);
            self.session = Some(session);
        }
    }

    /// Takes a line from a live host: the session id, unless the host gave one or a line fixed
    /// it already, is a fresh one ([`ids::live_session`]), and when the host gave the line no
    /// time (`wall`) the clock falls back to the wall clock from now on.
    pub fn live(&mut self, wall: bool) {
        if self.session.is_none() {
            let session = ids::live_session();
            self.event_base = ids::event_base(&session);
            self.session = Some(session);
        }
        if wall {
            self.clock.use_wall();
        }
    }

    /// The session id ([`Emitter::ensure_session`] is called with the first line).
    pub fn session(&self) -> &RuntimeSessionId {
        self.session
            .as_ref()
            .expect("ensure_session() is called with the first line")
    }

    /// Changes the `provider` of the events emitted from now on (a source that learns which
    /// provider it talks to from the stream, as ACP does from `initialize`).
    pub fn set_provider(&mut self, provider: ProviderKind) {
        self.provider = provider;
    }

    /// Whether any line was seen (the session id is known).
    pub fn has_session(&self) -> bool {
        self.session.is_some()
    }

    /// Appends the next event to `out` (or holds it until the stream gives a time).
    pub fn emit(&mut self, context: &Context<'_>, mut event: RuntimeEvent, out: &mut Vec<ProviderRuntimeEvent>) {
        readable_errors(&mut event);
        let event = self.build(context, event);
        if self.clock.knows_time() {
            self.release(out);
            out.push(event);
            return;
        }
        self.held_raw_bytes += event.raw.as_ref().map_or(0, |raw| raw.payload.get().len());
        self.held.push(event);
        if self.held.len() >= MAX_HELD_EVENTS || self.held_raw_bytes >= MAX_HELD_RAW_BYTES {
            self.clock.expect_no_times();
            self.release(out);
        }
    }

    /// Lets held events out, stamped with the first time the stream gave (the clock's fallback
    /// when it gave none).
    pub fn release(&mut self, out: &mut Vec<ProviderRuntimeEvent>) {
        if self.held.is_empty() {
            return;
        }
        let now = self.clock.now();
        self.held_raw_bytes = 0;
        for mut event in self.held.drain(..) {
            event.created_at = now.clone();
            out.push(event);
        }
    }

    /// Passes every event's provider refs through `policy` before the event is built.
    pub fn set_refs_policy(&mut self, policy: fn(&mut ProviderRefs)) {
        self.refs_policy = Some(policy);
    }

    fn build(&mut self, context: &Context<'_>, event: RuntimeEvent) -> ProviderRuntimeEvent {
        let session_id = self.session().clone();
        let event_id = ids::event_id(self.event_base, self.seq);
        self.seq += 1;
        let refs = match self.refs_policy {
            None => (context.refs != ProviderRefs::default()).then(|| context.refs.clone()),
            Some(policy) => {
                let mut refs = context.refs.clone();
                policy(&mut refs);
                (refs != ProviderRefs::default()).then_some(refs)
            }
        };
        let (check_payload, raw_payload) = match context.raw {
            Some(raw) if self.redact => match self.redacted(raw.payload) {
                // The message held a secret: what the payload copied from it may hold it too.
                Some(redacted) => (true, Some(redacted)),
                None => (false, None),
            },
            // A derived event without a message (or a line that is not one): check the payload
            // once a line may have carried a secret into what it is built from.
            None => (self.redact && self.tainted, None),
            Some(_) => (false, None),
        };
        let built = ProviderRuntimeEvent {
            event_id,
            provider: self.provider,
            session_id,
            created_at: self.clock.now(),
            thread_id: context.thread_id.clone(),
            turn_id: context.turn_id.clone(),
            item_id: context.item_id.clone(),
            request_id: context.request_id.clone(),
            provider_refs: refs,
            event,
            raw: context.raw.map(|raw| RuntimeEventRaw {
                source: raw.source,
                method: raw.method.map(str::to_string),
                message_type: raw.message_type.map(str::to_string),
                payload: raw_payload.unwrap_or_else(|| raw.payload.to_owned()),
            }),
        };
        if check_payload && self.would_change(&built) {
            redact_payload(built)
        } else {
            built
        }
    }

    /// Whether redacting may change `event`: written into a reused buffer, scanned, and only the
    /// strings holding a needle read, so the common clean event costs no allocation and no parse
    /// (a URL or a harmless key in a payload costs no round trip through a tree either).
    fn would_change(&mut self, event: &ProviderRuntimeEvent) -> bool {
        self.scratch.clear();
        event.write_json(&mut self.scratch).is_err()
            || std::str::from_utf8(&self.scratch).is_ok_and(|text| self.scratch_needles.would_change(text))
    }
}

/// An error a person reads as a sentence, whoever sent it: a provider that puts its API's JSON
/// error document in the message (`{"error":{"code":400,"message":"Invalid argument",...}}`)
/// gets the document's message and code instead ([`content::readable_error`]); the document
/// stays in `raw` (and in `detail`, where the source puts it).
fn readable_errors(event: &mut RuntimeEvent) {
    let message = match event {
        RuntimeEvent::RuntimeError(error) => Some(&mut error.message),
        RuntimeEvent::TurnCompleted(completed) => completed.error_message.as_mut(),
        _ => None,
    };
    if let Some(message) = message
        && let Some(readable) = content::readable_error(message)
    {
        *message = readable;
    }
}

/// The event with the secrets of its payload redacted (unchanged when it holds none). Rare, so
/// it goes through text: the envelope's `raw.payload` only reads back from a string.
fn redact_payload(event: ProviderRuntimeEvent) -> ProviderRuntimeEvent {
    let Ok(text) = serde_json::to_string(&event) else {
        return event;
    };
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return event;
    };
    let Some(payload) = value.get_mut("payload") else {
        return event;
    };
    if !secrets::redact_value(payload) {
        return event;
    }
    serde_json::to_string(&value)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(event)
}

#[cfg(test)]
mod tests {
    use agentwire_canonical::{ProviderKind, RuntimeEvent, RuntimeWarningPayload};

    use super::{Context, Emitter, MAX_HELD_EVENTS};
    use crate::clock::{Clock, ClockSource};

    fn warning() -> RuntimeEvent {
        RuntimeEvent::RuntimeWarning(RuntimeWarningPayload {
            message: "w".into(),
            detail: None,
        })
    }

    #[test]
    fn events_wait_for_the_first_time_within_a_bound() {
        let mut emitter = Emitter::new(ProviderKind::ClaudeAgent, None, Clock::new(ClockSource::Recorded), true);
        emitter.ensure_session(b"{}");
        let mut out = Vec::new();
        emitter.clock.tick(None, None);
        for _ in 0..3 {
            emitter.emit(&Context::default(), warning(), &mut out);
        }
        assert!(out.is_empty(), "held until a time arrives");
        emitter.clock.tick(Some(1_796_016_332_007), None);
        emitter.emit(&Context::default(), warning(), &mut out);
        assert_eq!(out.len(), 4);
        assert!(
            out.iter()
                .all(|event| event.created_at.as_str() == "2026-11-30T05:25:32.007Z")
        );

        let mut emitter = Emitter::new(ProviderKind::ClaudeAgent, None, Clock::new(ClockSource::Recorded), true);
        emitter.ensure_session(b"{}");
        let mut out = Vec::new();
        for _ in 0..MAX_HELD_EVENTS - 1 {
            emitter.emit(&Context::default(), warning(), &mut out);
        }
        assert!(out.is_empty());
        emitter.emit(&Context::default(), warning(), &mut out);
        assert_eq!(
            out.len(),
            MAX_HELD_EVENTS,
            "a stream without times is released at the bound"
        );
        emitter.emit(&Context::default(), warning(), &mut out);
        assert_eq!(out.len(), MAX_HELD_EVENTS + 1, "and not held again");
        assert!(
            out.iter()
                .all(|event| event.created_at.as_str() == "1970-01-01T00:00:00.000Z")
        );
    }
}
