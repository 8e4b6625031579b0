//! Canonical ids, derived from provider ids (spec 1.6): never equal to them, the same for the
//! same input, and needing no table to correlate.
//!
//! Every id is a UUIDv5 under [`NAMESPACE`] of a name that says what it identifies:
//! `<provider>:thread:<provider thread id>` (so a resumed thread keeps its canonical id across
//! connections), `<provider>:turn:<thread>:<provider turn id>` and
//! `<provider>:item:<thread>:<provider item id>` (within their thread),
//! `<provider>:request:<session>:<direction>:<JSON-RPC id>` (JSON-RPC ids restart with every
//! connection and both sides count from 0/1, so the session and direction scope them).
//! Event ids are the exception, made for speed (one per event): the session's UUIDv5 of
//! `<session>:events` with the event's sequence number XORed into its last 48 bits, marked as a
//! UUIDv8 ([`event_id`]); still unique per session, deterministic and never a provider id.

use uuid::Uuid;

/// The namespace of every agentwire id: UUIDv5 of the URL `https://agentwire.dev/ids`.
pub const NAMESPACE: Uuid = Uuid::from_u128(0xe433_9d1b_ece7_5d52_9315_0afa_95d2_019d);

/// UUIDv5 of `name` under [`NAMESPACE`], as a string.
pub fn derive(name: &str) -> String {
    Uuid::new_v5(&NAMESPACE, name.as_bytes()).to_string()
}

/// The base of a session's event ids (see the module docs).
pub fn event_base(session: &str) -> u128 {
    Uuid::new_v5(&NAMESPACE, format!("{session}:events").as_bytes()).as_u128()
}

/// The id of the `seq`-th event of the session whose [`event_base`] is `base`.
pub fn event_id(base: u128, seq: u64) -> String {
    let bytes = (base ^ u128::from(seq & 0xffff_ffff_ffff)).to_be_bytes();
    uuid::Builder::from_custom_bytes(bytes).into_uuid().to_string()
}

/// The default session id: UUIDv5 of the first input line's bytes.
pub fn session_from_first_line(line: &[u8]) -> String {
    Uuid::new_v5(&NAMESPACE, line).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn event_ids_are_unique_uuid_v8s_per_session() {
        let base = super::event_base("session");
        let ids: std::collections::BTreeSet<String> = (0..10_000).map(|seq| super::event_id(base, seq)).collect();
        assert_eq!(ids.len(), 10_000);
        let first = uuid::Uuid::parse_str(&super::event_id(base, 0)).expect("a UUID");
        assert_eq!(first.get_version_num(), 8);
        assert_ne!(super::event_id(super::event_base("other"), 0), super::event_id(base, 0));
    }

    #[test]
    fn namespace_is_the_documented_one() {
        assert_eq!(
            super::NAMESPACE,
            uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"https://agentwire.dev/ids")
        );
    }
}
