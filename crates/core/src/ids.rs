//! Canonical ids, derived from provider ids (spec 1.6): never equal to them, the same for the
//! same input, and needing no table to correlate.
//!
//! Every id is a UUIDv5 under [`NAMESPACE`] of a name that says what it identifies, scoped by the
//! provider the source reads ([`SourceSpec::id_scope`]: every Codex source shares `codex`, so a
//! thread seen through app-server and through its rollout file is the same canonical thread):
//! `<scope>:thread:<provider thread id>` (a resumed thread keeps its canonical id across
//! connections), `<scope>:turn:<thread>:<provider turn id>` and
//! `<scope>:item:<thread>:<provider item id>` (within their thread),
//! `<scope>:turn-at:<session>:<thread>:<position>` for a turn its provider gives no id (`codex
//! exec --json`): its position among the thread's turns in the stream, 1 first, scoped by the
//! session because positions restart with every stream,
//! `<scope>:request:<session>:<direction>:<request id>` (JSON-RPC ids restart with every
//! connection and both sides count from 0/1, so the session and direction scope them),
//! `<scope>:task:<session>:<provider task id>`.
//! Call sites never spell these names: they call the typed constructors below.
//!
//! Event ids are the exception, made for speed (one per event): the session's UUIDv5 of
//! `<session>:events` with the event's sequence number XORed into its last 48 bits, marked as a
//! UUIDv8 ([`event_id`]); still unique per session, deterministic and never a provider id.

use agentwire_canonical::{
    EventId, InvalidValue, RuntimeItemId, RuntimeRequestId, RuntimeSessionId, RuntimeTaskId, ThreadId, TurnId,
};
use sha1::{Digest, Sha1};
use uuid::Uuid;

use crate::frame::Direction;
use crate::source::SourceSpec;

/// The namespace of every agentwire id: UUIDv5 of the URL `https://agentwire.dev/ids`.
pub const NAMESPACE: Uuid = Uuid::from_u128(0xe433_9d1b_ece7_5d52_9315_0afa_95d2_019d);

/// The Unix milliseconds a UUIDv7 holds in its first 48 bits (RFC 9562), when `text` is one: a
/// provider id made that way says when it was made.
pub fn uuid_v7_millis(text: &str) -> Option<i64> {
    let uuid = Uuid::try_parse(text).ok()?;
    if uuid.get_version_num() != 7 {
        return None;
    }
    let bytes = uuid.as_bytes();
    let ms = bytes[..6].iter().fold(0_i64, |ms, byte| ms << 8 | i64::from(*byte));
    Some(ms)
}

/// `uuid` in its hyphenated lowercase form, written into a buffer on the stack and handed to
/// `make` (an id type's `new`): every event gets an id, and `to_string` would go through the
/// formatting machinery and an allocation the id does not keep.
fn text<T>(uuid: Uuid, make: impl FnOnce(&str) -> Result<T, InvalidValue>) -> T {
    make(uuid.hyphenated().encode_lower(&mut Uuid::encode_buffer())).expect("a UUID is a valid id")
}

/// UUIDv5 under [`NAMESPACE`] of the name `parts` joined by `:`. The parts go into the hash one
/// by one, so the name is never put together; the hash is RustCrypto's SHA-1, which uses the
/// CPU's SHA extensions where it has them (`uuid`'s own v5 hashes in portable code, and took 5%
/// of `agentwire normalize` over codex exec, whose every item derives its id).
fn v5<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> Uuid {
    let mut hash = Sha1::new();
    hash.update(NAMESPACE.as_bytes());
    for (at, part) in parts.into_iter().enumerate() {
        if at > 0 {
            hash.update(b":");
        }
        hash.update(part);
    }
    let digest = hash.finalize();
    uuid::Builder::from_sha1_bytes(digest[..16].try_into().expect("a SHA-1 digest holds 20 bytes")).into_uuid()
}

/// UUIDv5 under [`NAMESPACE`] of the name `parts` joined by `:`, as an id made by `make`.
fn derive<T>(parts: &[&str], make: impl FnOnce(&str) -> Result<T, InvalidValue>) -> T {
    text(v5(parts.iter().map(|part| part.as_bytes())), make)
}

/// The canonical id of a provider thread.
pub fn thread(source: &SourceSpec, provider_thread: &str) -> ThreadId {
    derive(&[source.id_scope, "thread", provider_thread], |id| ThreadId::new(id))
}

/// The canonical id of a provider turn within its thread.
pub fn turn(source: &SourceSpec, provider_thread: &str, provider_turn: &str) -> TurnId {
    derive(&[source.id_scope, "turn", provider_thread, provider_turn], |id| {
        TurnId::new(id)
    })
}

/// The canonical id of the `position`-th turn (1 first) of a provider thread in a session's
/// stream, for a provider that gives turns no id.
pub fn turn_at(source: &SourceSpec, session: &RuntimeSessionId, provider_thread: &str, position: u64) -> TurnId {
    let position = position.to_string();
    derive(
        &[source.id_scope, "turn-at", session.as_str(), provider_thread, &position],
        |id| TurnId::new(id),
    )
}

/// The canonical id of a provider item within its thread.
pub fn item(source: &SourceSpec, provider_thread: &str, provider_item: &str) -> RuntimeItemId {
    derive(&[source.id_scope, "item", provider_thread, provider_item], |id| {
        RuntimeItemId::new(id)
    })
}

/// The canonical id of a request that travelled in `dir`, by the provider's id for it (a
/// JSON-RPC id as its JSON text, so `1` and `"1"` differ), within the session.
pub fn request(
    source: &SourceSpec,
    session: &RuntimeSessionId,
    dir: Direction,
    provider_request: &str,
) -> RuntimeRequestId {
    let dir = match dir {
        Direction::In => "in",
        Direction::Out => "out",
    };
    derive(
        &[source.id_scope, "request", session.as_str(), dir, provider_request],
        |id| RuntimeRequestId::new(id),
    )
}

/// The canonical id of a provider background task within the session.
pub fn task(source: &SourceSpec, session: &RuntimeSessionId, provider_task: &str) -> RuntimeTaskId {
    derive(&[source.id_scope, "task", session.as_str(), provider_task], |id| {
        RuntimeTaskId::new(id)
    })
}

/// The default session id, the one definition every host shares: UUIDv5 of the bytes of the
/// stream's first line (a whole transcript record, or a bare message as the program printed it).
pub fn default_session(first_line: &[u8]) -> RuntimeSessionId {
    text(v5([first_line]), |id| RuntimeSessionId::new(id))
}

/// The default session id of a live session ([`crate::normalizer::Normalizer::received`] and
/// `sent`): a fresh UUIDv7. A live host's first line is the same `initialize` every time, so an
/// id derived from it would give every session of the host the same id.
pub fn live_session() -> RuntimeSessionId {
    text(uuid::Uuid::now_v7(), |id| RuntimeSessionId::new(id))
}

/// The base of a session's event ids (see the module docs).
pub fn event_base(session: &RuntimeSessionId) -> u128 {
    v5([session.as_str().as_bytes(), b"events"]).as_u128()
}

/// The id of the `seq`-th event of the session whose [`event_base`] is `base`.
pub fn event_id(base: u128, seq: u64) -> EventId {
    let bytes = (base ^ u128::from(seq & 0xffff_ffff_ffff)).to_be_bytes();
    text(uuid::Builder::from_custom_bytes(bytes).into_uuid(), |id| {
        EventId::new(id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Codex thread id (UUIDv7) says when it was made; a UUIDv4 or v5 and a text that is no
    /// UUID say nothing.
    #[test]
    fn a_uuid_v7_gives_its_time() {
        let made = uuid_v7_millis("01a22aec-9710-7882-a670-ea116b102aa5");
        assert_eq!(
            made.map(crate::clock::rfc3339_millis).as_deref(),
            Some("2026-11-30T05:27:57.968Z")
        );
        assert_eq!(uuid_v7_millis("5cbc60c1-26fc-5235-aacd-8a471aba879a"), None);
        assert_eq!(uuid_v7_millis("c0ffee00-1234-4abc-8def-0123456789ab"), None);
        assert_eq!(uuid_v7_millis("thread-1"), None);
    }

    /// The UUIDv5 of `name`, as text.
    fn derived(name: &str) -> String {
        derived_parts(&[name])
    }

    fn derived_parts(parts: &[&str]) -> String {
        derive(parts, |id| Ok(id.to_string()))
    }

    fn session(name: &str) -> RuntimeSessionId {
        default_session(name.as_bytes())
    }

    #[test]
    fn event_ids_are_unique_uuid_v8s_per_session() {
        let base = event_base(&session("a"));
        let ids: std::collections::BTreeSet<String> = (0..10_000)
            .map(|seq| event_id(base, seq).as_str().to_string())
            .collect();
        assert_eq!(ids.len(), 10_000);
        let first = Uuid::parse_str(event_id(base, 0).as_str()).expect("a UUID");
        assert_eq!(first.get_version_num(), 8);
        assert_ne!(event_id(event_base(&session("b")), 0), event_id(base, 0));
    }

    #[test]
    fn derived_ids_are_the_uuid_crates_v5s() {
        let long = "x".repeat(200);
        for parts in [
            &["codex", "thread", "t"][..],
            &[""],
            &["a", "", "b"],
            &["codex", "item", &long, "i"],
        ] {
            let name = parts.join(":");
            assert_eq!(
                derived_parts(parts),
                Uuid::new_v5(&NAMESPACE, name.as_bytes()).to_string(),
                "{name}"
            );
        }
        let s = session("first line");
        assert_eq!(s.as_str(), Uuid::new_v5(&NAMESPACE, b"first line").to_string());
        assert_eq!(
            event_base(&s),
            Uuid::new_v5(&NAMESPACE, format!("{s}:events").as_bytes()).as_u128()
        );
    }

    #[test]
    fn namespace_is_the_documented_one() {
        assert_eq!(
            NAMESPACE,
            Uuid::new_v5(&Uuid::NAMESPACE_URL, b"https://agentwire.dev/ids")
        );
    }

    #[test]
    fn names_follow_the_documented_scheme() {
        let source = &crate::source::tests::CODEX;
        let s = session("first line");
        assert_eq!(thread(source, "t").as_str(), derived("codex:thread:t"));
        assert_eq!(turn(source, "t", "u").as_str(), derived("codex:turn:t:u"));
        assert_eq!(item(source, "t", "i").as_str(), derived("codex:item:t:i"));
        assert_eq!(
            turn_at(source, &s, "t", 2).as_str(),
            derived(&format!("codex:turn-at:{s}:t:2"))
        );
        assert_ne!(turn_at(source, &s, "t", 2), turn(source, "t", "2"));
        assert_eq!(
            request(source, &s, Direction::In, "7").as_str(),
            derived(&format!("codex:request:{s}:in:7"))
        );
        assert_ne!(
            request(source, &s, Direction::In, "7"),
            request(source, &s, Direction::Out, "7")
        );
        assert_ne!(
            request(source, &s, Direction::In, "7"),
            request(source, &s, Direction::In, "\"7\"")
        );
        assert_eq!(task(source, &s, "x").as_str(), derived(&format!("codex:task:{s}:x")));
    }
}
