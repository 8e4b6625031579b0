//! Canonical ids, derived from provider ids (spec 1.6): never equal to them, the same for the
//! same input, and needing no table to correlate.
//!
//! Every id is a UUIDv5 under [`NAMESPACE`] of a name that says what it identifies:
//! `<provider>:thread:<provider thread id>` (so a resumed thread keeps its canonical id across
//! connections), `<provider>:turn:<thread>:<provider turn id>` and
//! `<provider>:item:<thread>:<provider item id>` (within their thread),
//! `<provider>:request:<session>:<direction>:<JSON-RPC id>` (JSON-RPC ids restart with every
//! connection and both sides count from 0/1, so the session and direction scope them), and
//! `<session>:event:<n>` for the n-th event of a session.

use uuid::Uuid;

/// The namespace of every agentwire id: UUIDv5 of the URL `https://agentwire.dev/ids`.
pub const NAMESPACE: Uuid = Uuid::from_u128(0xe433_9d1b_ece7_5d52_9315_0afa_95d2_019d);

/// UUIDv5 of `name` under [`NAMESPACE`], as a string.
pub fn derive(name: &str) -> String {
    Uuid::new_v5(&NAMESPACE, name.as_bytes()).to_string()
}

/// The default session id: UUIDv5 of the first input line's bytes.
pub fn session_from_first_line(line: &[u8]) -> String {
    Uuid::new_v5(&NAMESPACE, line).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn namespace_is_the_documented_one() {
        assert_eq!(
            super::NAMESPACE,
            uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"https://agentwire.dev/ids")
        );
    }
}
